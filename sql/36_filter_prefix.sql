-- 36_filter_prefix: a WHERE whose conditions mix comparisons of a column
-- with a constant and other conditions.  The compiler moves the
-- comparisons ahead of the conditions before them that cannot raise
-- (filter_compile.c), and the device runs them first, then its
-- interpreter over the rows they pass only (filter_vm.cu: the predicate
-- prefix, from 2,048 rows).  The same rows, and the same first error, as
-- PostgreSQL's order: every query against gpudb off (gpu_diff).
\i sql/include/plan_node_settings.sql

-- (f holds eighths: its sums are exact in any order, as the device's are)
CREATE TABLE fp (id int4, g int4, a int4, b int4, s text, m bpchar(6), d date,
                 v numeric(10,2), f float8);
INSERT INTO fp SELECT i, i % 7, i % 100 - 50, i % 13,
  CASE WHEN i % 11 = 0 THEN NULL ELSE 'mode' || (i % 5) END,
  'ship' || (i % 4), date '2024-01-01' + i % 365, (i % 80) / 4.0,
  CASE WHEN i % 17 = 0 THEN NULL ELSE i / 8.0 END
  FROM generate_series(1, 20000) i;
ANALYZE fp;
\i sql/include/differential.sql

SELECT q, (gpu_diff(q)).* FROM (VALUES
  -- a comparison after an IN list and before an OR (TPC-H Q19's shape)
  ('SELECT g, count(*), sum(v) FROM fp WHERE s IN (''mode1'', ''mode3'') AND m = ''ship2'' AND ((a >= 0 AND a <= 10) OR (a > 40 AND b < 5)) GROUP BY g'),
  -- several comparisons, some behind text and expression conditions
  ('SELECT g, count(*) FROM fp WHERE lower(s) = ''mode2'' AND d >= date ''2024-03-01'' AND (a + b) % 3 = 0 AND id > 100 AND f < 2000 GROUP BY g'),
  -- a condition that can raise: the comparisons after it stay after it,
  -- so the same rows raise (b = 0 rows with a > 0 pass the first test)
  ('SELECT g, count(*) FROM fp WHERE a > 0 AND 100 / b > 5 AND id < 5000 GROUP BY g'),
  ('SELECT g, count(*) FROM fp WHERE 100 / b > 5 AND a > 0 GROUP BY g'),
  ('SELECT g, count(*) FROM fp WHERE b > 0 AND 100 / b > 5 AND a > 0 GROUP BY g'),
  -- NULLs in the compared columns, a comparison that no row passes
  ('SELECT g, count(*) FROM fp WHERE (s IS NULL OR f IS NULL) AND f <> 3.5 AND g <> 2 GROUP BY g'),
  ('SELECT g, count(*) FROM fp WHERE s LIKE ''mode%'' AND id < 0 GROUP BY g'),
  -- a selection (GpudbScan) and a plain aggregate
  ('SELECT id, s FROM fp WHERE (a * 2 > 30 OR s IS NULL) AND g = 3 AND m <> ''ship1'''),
  ('SELECT count(*), sum(f) FROM fp WHERE (a % 5 = 1 OR b = 7) AND d < date ''2024-06-01''')
) t(q);

DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP TABLE fp;
