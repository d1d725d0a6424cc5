-- 13_plan_cache: the plan nodes over a cached table.  With
-- shared_preload_libraries = gpudb, GpudbScan, GpudbAgg and GpudbSort answer from
-- the column cache when it is valid for the query's snapshot (EXPLAIN
-- ANALYZE says "Source: cache") and from the heap otherwise (this
-- transaction's own changes); every answer equals gpudb.enabled = off.
-- Without preload there is no cache: the same queries read the heap.
\i sql/include/plan_node_settings.sql
\i sql/include/explain_plan.sql
SET client_min_messages = warning;

CREATE TABLE pc (id int8, g int4, v float8, s text, d date);
INSERT INTO pc SELECT i, i % 8, CASE WHEN i % 9 = 0 THEN NULL ELSE (i % 400) * 0.5 END,
                      'k' || (i % 5), date '2025-01-01' + (i % 90)
FROM generate_series(1, 4000) i;
ANALYZE pc;

-- on vs off, EXCEPT ALL both ways (ordered: row by row)
CREATE FUNCTION pc_diff(q text, ordered bool DEFAULT false) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  a text[];
  b text[];
  f text := CASE WHEN ordered THEN 'SELECT coalesce(array_agg(x::text), ''{}'') FROM (%s) x'
                 ELSE 'SELECT coalesce(array_agg(x::text ORDER BY x::text), ''{}'') FROM (%s) x' END;
BEGIN
  PERFORM set_config('gpudb.enabled', 'on', true);
  EXECUTE format(f, q) INTO a;
  PERFORM set_config('gpudb.enabled', 'off', true);
  EXECUTE format(f, q) INTO b;
  PERFORM set_config('gpudb.enabled', 'on', true);
  RETURN CASE WHEN a = b THEN 'same ' || cardinality(a) || ' rows'
              ELSE 'DIFFERENT: ' || cardinality(a) || ' vs ' || cardinality(b) END;
END $$;

SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
\if :preloaded
SELECT gpu_cache_load('pc') IS NOT NULL AS loaded;
\else
SELECT 'no cache without shared_preload_libraries' AS loaded;
\endif

SELECT * FROM gpu_explain($$SELECT g, count(*), sum(v), min(d) FROM pc WHERE s <> 'k1' GROUP BY g$$);
SELECT * FROM gpu_explain($$SELECT id, v FROM pc WHERE g = 3 ORDER BY v DESC NULLS LAST, id LIMIT 3$$);
SELECT * FROM gpu_explain($$SELECT id, s FROM pc WHERE v > 190 AND d < date '2025-01-05'$$);
SELECT pc_diff('SELECT g, count(*), sum(v), min(d) FROM pc WHERE s <> ''k1'' GROUP BY g');
SELECT pc_diff('SELECT s, avg(v), max(id) FROM pc GROUP BY s');
SELECT pc_diff('SELECT id, v FROM pc WHERE g = 3 ORDER BY v DESC NULLS LAST, id LIMIT 30', true);
SELECT pc_diff('SELECT id, s FROM pc WHERE v > 190 AND d < date ''2025-01-05''');
-- GROUP BY ... ORDER BY ... LIMIT: ordered and cut on the device; the sort
-- keys name result columns, not the cached table's columns
SELECT * FROM gpu_explain($$SELECT d, count(*), sum(v) FROM pc WHERE s <> 'k1' GROUP BY d ORDER BY 3 DESC NULLS LAST, 1 LIMIT 4$$);
SELECT pc_diff('SELECT d, count(*), sum(v) FROM pc WHERE s <> ''k1'' GROUP BY d ORDER BY 3 DESC NULLS LAST, 1 LIMIT 4', true);
SELECT pc_diff('SELECT g, s, max(v), min(id) FROM pc GROUP BY g, s ORDER BY max(v), g DESC, s', true);
SELECT pc_diff('SELECT s, g, min(d) FROM pc GROUP BY s, g ORDER BY 3 DESC, 2 LIMIT 6', true);

-- committed changes: the cache follows them
INSERT INTO pc VALUES (5001, 3, 1000, 'k9', date '2025-02-01'), (5002, 3, NULL, 'k9', NULL);
UPDATE pc SET v = 999 WHERE id = 3;
DELETE FROM pc WHERE id = 11;
SELECT * FROM gpu_explain($$SELECT s, count(*), max(v) FROM pc GROUP BY s$$);
SELECT pc_diff('SELECT s, count(*), max(v) FROM pc GROUP BY s');
SELECT pc_diff('SELECT id, v FROM pc WHERE g = 3 ORDER BY v DESC NULLS LAST, id LIMIT 5', true);
SELECT pc_diff('SELECT id, v, s FROM pc WHERE id > 4990 OR id < 12');

-- this transaction's own changes: the heap
BEGIN;
DELETE FROM pc WHERE g = 2;
SELECT * FROM gpu_explain($$SELECT g, count(*) FROM pc GROUP BY g$$);
SELECT pc_diff('SELECT g, count(*) FROM pc GROUP BY g');
ROLLBACK;
SELECT pc_diff('SELECT g, count(*) FROM pc GROUP BY g');

-- gpudb.use_cache = off: the heap
SET gpudb.use_cache = off;
SELECT * FROM gpu_explain($$SELECT count(*) FROM pc WHERE g = 1$$);
RESET gpudb.use_cache;

DROP TABLE pc;
DROP FUNCTION pc_diff(text, bool);
DROP FUNCTION gpu_explain(text), gpu_explain_format(text, text), gpu_plan_nodes(text);
