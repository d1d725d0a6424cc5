-- load_pgbench.sh: a REPEATABLE READ transaction that checks, writes a hot
-- row (serialization failures, 40001, are intended conflicts, counted apart)
-- and checks again after its own write (which reads the heap); committed or
-- rolled back at random.
\set v1 random(0, 6)
\set v2 random(0, 6)
\set hot random(1, 20)
\set r random(1, 2)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT lt_check(:v1, true);
UPDATE lt SET v = coalesce(v, 0) + 1000, g = (g + 1) % 10 WHERE id = :hot;
SELECT lt_check(:v2, true);
\if :r = 1
ROLLBACK;
\else
COMMIT;
\endif
