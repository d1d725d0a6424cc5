-- load_pgbench.sh: a writer (READ COMMITTED): insert a new row, update one,
-- delete one, then COMMIT or, one time in three, ROLLBACK.  Two writers may
-- deadlock on each other's rows (40P01): an intended conflict, counted apart.
\set newid random(:rows + 1, :rows * 50)
\set id random(1, :rows)
\set id2 random(1, :rows)
\set r random(1, 3)
BEGIN;
INSERT INTO lt SELECT (lt_row(:newid)).*;
UPDATE lt SET v = coalesce(v, 0) + 1, t = CASE WHEN t = 'new1' THEN 't1' ELSE 'new1' END, f = -f WHERE id = :id;
DELETE FROM lt WHERE id = :id2;
\if :r = 1
ROLLBACK;
\else
COMMIT;
\endif
