-- load_pgbench.sh: a reader with the cache on.  Two checks (gpu_groupby
-- against plain SQL, lt_check raises on any difference) in one REPEATABLE
-- READ snapshot, with a pause between them so that writers and reloads
-- commit while the snapshot is open.
\set v1 random(0, 6)
\set v2 random(0, 6)
\set pause random(0, 20)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT lt_check(:v1, true);
SELECT pg_sleep(:pause / 1000.0);
SELECT lt_check(:v2, true);
COMMIT;
