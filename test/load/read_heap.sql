-- load_pgbench.sh: a reader with gpudb.use_cache = off (the heap, always);
-- lt_check raises on a difference and on an answer read from the cache.
\set v1 random(0, 6)
\set v2 random(0, 6)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL gpudb.use_cache = off;
SELECT lt_check(:v1, false);
SELECT lt_check(:v2, false);
COMMIT;
