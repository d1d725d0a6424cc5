-- 38_heap_combine: a group-by over many heap batches (gpudb.batch_rows =
-- 1024: 20 batches here) whose partial results wait until their rows reach
-- the groups combined so far, then combine together (query_run.c's
-- accumulate): many groups (most of a batch's groups new), few groups, an
-- ordered and cut group-by (its last part combines every part in order),
-- HAVING, and the parts left waiting after the last batch.  Every query
-- against gpudb off (gpu_diff).
\i sql/include/plan_node_settings.sql

CREATE TABLE hcb (i int4, k int4, g int4, v numeric(10,2));
INSERT INTO hcb SELECT i, (i * 7919) % 9000, i % 7, (i % 400) / 4.0
  FROM generate_series(1, 20000) i;
ANALYZE hcb;
\i sql/include/differential.sql
SET gpudb.batch_rows = 1024;
SET gpudb.parallel_workers = 0;

SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT k, count(*), sum(v), min(i), max(i) FROM hcb GROUP BY k'),
  ('SELECT g, count(*), sum(v) FROM hcb GROUP BY g'),
  ('SELECT k % 100 AS b, count(*), avg(v) FROM hcb GROUP BY 1'),
  ('SELECT k, sum(v) FROM hcb GROUP BY k HAVING sum(v) > 200'),
  ('SELECT count(*), sum(n) FROM (SELECT k, count(*) AS n FROM hcb WHERE i % 3 <> 0 GROUP BY k) t')
) t(q);
SELECT q, (gpu_diff(q, true)).* FROM (VALUES
  ('SELECT k, count(*), sum(v) FROM hcb GROUP BY k ORDER BY sum(v) DESC, k LIMIT 15'),
  ('SELECT k, max(i) FROM hcb GROUP BY k ORDER BY k DESC LIMIT 10 OFFSET 5')
) t(q);
RESET gpudb.batch_rows;
RESET gpudb.parallel_workers;

DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP TABLE hcb;
