-- 15_numeric: numeric(p,s) columns with p <= 18 on the device as exact
-- fixed point (the value times 10^s in an int64; NaN as its own word).
-- Every query runs with gpudb.enabled on and off and the rows are compared
-- as text (so a display scale that differs is a difference), EXCEPT ALL
-- both ways or row by row for ordered queries; the Gpudb node in the plan is
-- reported with the result, and EXPLAIN (COSTS OFF) pins some plans.
-- Unconstrained numeric, numeric(30,2) and negative scales keep
-- PostgreSQL's plan.
\i sql/include/plan_node_settings.sql

-- a, d: numeric(10,2) (|v| < 10^8); b: numeric(18,0) up to 10^18 - 1, so
-- sums pass 2^63; c: numeric(18,6); u: unconstrained; w: numeric(30,2)
CREATE TABLE nm (id int4, g int4, a numeric(10,2), b numeric(18,0),
                 c numeric(18,6), d numeric(10,2), u numeric, w numeric(30,2));
INSERT INTO nm
SELECT i, i % 7,
       CASE WHEN i % 11 = 0 THEN NULL WHEN i % 97 = 0 THEN 'NaN'
            ELSE ((i * 7919) % 2001 - 1000) / 4.0 END,
       CASE WHEN i % 13 = 0 THEN NULL WHEN i % 50 = 1 THEN 999999999999999999
            WHEN i % 50 = 2 THEN -999999999999999998
            ELSE (i * 104729) % 1000003 - 500000 END,
       CASE WHEN i % 17 = 0 THEN NULL WHEN i % 101 = 0 THEN 'NaN'
            ELSE ((i * 31337) % 2000001 - 1000000) / 7.0 END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE ((i * 13) % 801 - 400) / 4.0 END,
       i / 7.0, i / 7.0
FROM generate_series(1, 3000) i;
INSERT INTO nm VALUES (9001, 1, 1.5, 0, 0.000001, 1.5, 1, 1),
                      (9002, 1, 1.50, -1, -0.000001, -1.5, 1, 1),
                      (9003, 2, -1.5, 1, 99999999999.999999, 1.51, 1, 1),
                      (9004, 2, 1.51, 2, -99999999999.999999, 1.49, 1, 1),
                      (9005, 3, 99999999.99, NULL, NULL, NULL, NULL, NULL),
                      (9006, 3, -99999999.99, NULL, 'NaN', 'NaN', NULL, NULL);
ANALYZE nm;

-- gpu_diff(query, ordered): the Gpudb nodes of the plan with gpudb on, the
-- rows, and how many differ between on and off as text
-- (sql/include/differential.sql)
\i sql/include/differential.sql

-- negative control: a display scale that differs is a difference
SELECT on_minus_off > 0 AS harness_detects_scale
FROM gpu_diff('SELECT CASE WHEN current_setting(''gpudb.enabled'') = ''on'' THEN a ELSE a::numeric(12,3) END FROM nm WHERE a = 1.5');

-- ---- GpudbScan: comparisons with constants of any scale ----
EXPLAIN (COSTS OFF) SELECT id, a FROM nm WHERE a = 1.5;
EXPLAIN (COSTS OFF) SELECT id, a, c FROM nm WHERE a BETWEEN -1.5 AND 2 AND c > 0.5;
SELECT id, a, b, c FROM nm WHERE a = 1.5 ORDER BY id;
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a = 1.5');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a = 1.50');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a = 1.500000');
-- 1.505 has more digits than the column: = is never true, <> always
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a = 1.505');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a <> 1.505 AND g = 1');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a < 1.505 AND g = 1');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a <= 1.505 AND g = 1');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a > 1.505 AND g = 1');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a >= 1.505 AND g = 1');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a < -1.505 AND g = 1');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a >= -1.505 AND g = 1');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a > -1.495 AND g = 1');
-- the constant written first
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE 1.505 < a AND g = 1');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE -1.5 >= a AND g = 1');
-- integer constants, folded to numeric by the parser
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a = 2');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a > 200');
SELECT * FROM gpu_diff('SELECT id, b FROM nm WHERE b = 999999999999999999');
SELECT * FROM gpu_diff('SELECT id, b FROM nm WHERE b < -500000::int8');
SELECT * FROM gpu_diff('SELECT id, b FROM nm WHERE b > 0.5 AND b < 2.5');
SELECT * FROM gpu_diff('SELECT id, c FROM nm WHERE c > 0.0000005 AND c < 0.0000015');
SELECT * FROM gpu_diff('SELECT id, c FROM nm WHERE c <= -142857.1428571');
-- BETWEEN, IN, NOT IN, IS DISTINCT FROM, IS NULL
SELECT * FROM gpu_diff('SELECT id, a, c FROM nm WHERE a BETWEEN -1.5 AND 2 AND c > 0.5');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a BETWEEN SYMMETRIC 3.333 AND -2.5');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a IN (1.5, 2, -3.25, 1.505, NULL)');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a NOT IN (1.5, 2, -3.25, 1.505) AND g = 3');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a IS DISTINCT FROM 1.5 AND g = 1');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a IS NULL OR a = -1.50');
-- NaN: equal to itself, above every number; constants beyond the type
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a = ''NaN''');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a <> ''NaN'' AND g = 2');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a > 249.75');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a < 1e30 AND g = 3');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a > 1e30');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a > -1e30 AND g = 4');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a < ''Infinity'' AND g = 5');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a > ''-Infinity'' AND a <> ''Infinity'' AND g = 6');
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a = ''-Infinity''');
-- two columns of the same scale
SELECT * FROM gpu_diff('SELECT id, a, d FROM nm WHERE a = d');
SELECT * FROM gpu_diff('SELECT id, a, d FROM nm WHERE a < d AND g = 0');
SELECT * FROM gpu_diff('SELECT id, a, d FROM nm WHERE d >= a AND g = 0');

-- ---- GpudbAgg: group keys and aggregates ----
EXPLAIN (COSTS OFF)
  SELECT g, count(*), count(a), sum(a), avg(a), min(a), max(a) FROM nm GROUP BY g;
SELECT g, count(*), count(a), sum(a), avg(a), min(a), max(a) FROM nm GROUP BY g ORDER BY g;
SELECT * FROM gpu_diff('SELECT g, count(*), count(a), sum(a), avg(a), min(a), max(a) FROM nm GROUP BY g');
SELECT g, sum(a), avg(a), sum(b), avg(b), sum(c), avg(c) FROM nm WHERE a <> 'NaN' AND c <> 'NaN' AND g < 3 GROUP BY g ORDER BY g;
SELECT * FROM gpu_diff('SELECT g, sum(b), avg(b), min(b), max(b), sum(c), avg(c), min(c), max(c) FROM nm GROUP BY g');
SELECT * FROM gpu_diff('SELECT sum(a), avg(a), sum(b), avg(b), sum(c), avg(c), sum(d), avg(d) FROM nm WHERE a <> ''NaN'' AND c <> ''NaN''');
SELECT * FROM gpu_diff('SELECT g, sum(a), avg(a), max(a) FROM nm WHERE a <> ''NaN'' GROUP BY g');
SELECT * FROM gpu_diff('SELECT g, sum(a), avg(a) FROM nm WHERE a > 240 GROUP BY g');
SELECT * FROM gpu_diff('SELECT sum(b), avg(b) FROM nm WHERE b > 0');
-- past 2^63: the exact 128-bit sum
SELECT sum(b), avg(b), count(b) FROM nm WHERE b > 900000000000000000;
SELECT * FROM gpu_diff('SELECT a, count(*), sum(c), min(d) FROM nm GROUP BY a');
SELECT * FROM gpu_diff('SELECT a, d, count(*) FROM nm WHERE g < 3 GROUP BY a, d');
SELECT * FROM gpu_diff('SELECT c, count(*) FROM nm WHERE g = 1 GROUP BY c');
SELECT * FROM gpu_diff('SELECT g, avg(a) FROM nm WHERE a <> ''NaN'' GROUP BY g HAVING sum(a) > 0');
-- no rows: NULL sums
SELECT * FROM gpu_diff('SELECT sum(a), avg(a), min(a), max(c) FROM nm WHERE a > 1e30');
SELECT * FROM gpu_diff('SELECT g, sum(a), avg(a) FROM nm WHERE a IS NULL GROUP BY g');

-- ---- ORDER BY: GpudbSort and the ordered GpudbAgg ----
EXPLAIN (COSTS OFF) SELECT id, a FROM nm ORDER BY a DESC NULLS FIRST, id LIMIT 12;
SELECT id, a FROM nm ORDER BY a DESC NULLS LAST, id LIMIT 12;
SELECT * FROM gpu_diff('SELECT id, a FROM nm ORDER BY a DESC NULLS FIRST, id LIMIT 12', true);
SELECT * FROM gpu_diff('SELECT id, a FROM nm ORDER BY a DESC NULLS LAST, id LIMIT 40', true);
SELECT * FROM gpu_diff('SELECT id, a FROM nm ORDER BY a, id LIMIT 40', true);
SELECT * FROM gpu_diff('SELECT id, c, b FROM nm WHERE g = 2 ORDER BY c NULLS FIRST, b DESC, id', true);
EXPLAIN (COSTS OFF)
  SELECT a, count(*) FROM nm GROUP BY a ORDER BY a DESC NULLS FIRST LIMIT 5;
SELECT * FROM gpu_diff('SELECT a, count(*) FROM nm GROUP BY a ORDER BY a DESC NULLS FIRST LIMIT 5', true);
SELECT * FROM gpu_diff('SELECT g, max(c), min(a) FROM nm GROUP BY g ORDER BY max(c) DESC, g LIMIT 3', true);
SELECT * FROM gpu_diff('SELECT g, min(a) FROM nm GROUP BY g ORDER BY min(a), g', true);

-- ---- several batches ----
SET gpudb.batch_rows = 1024;
SELECT * FROM gpu_diff('SELECT g, count(a), sum(a), avg(a), min(a), max(a), sum(b), avg(c) FROM nm GROUP BY g');
SELECT * FROM gpu_diff('SELECT a, count(*) FROM nm GROUP BY a ORDER BY a DESC NULLS FIRST LIMIT 5', true);
SELECT * FROM gpu_diff('SELECT id, c FROM nm ORDER BY c DESC NULLS LAST, id LIMIT 30', true);
SELECT * FROM gpu_diff('SELECT id, a, b, c FROM nm WHERE a > 200.005 OR c < -100000');
RESET gpudb.batch_rows;

-- ---- the SQL functions: their rows as text against the same SQL's ----
CREATE FUNCTION nm_same(gpu text, sql text, OUT gpu_minus_sql int, OUT sql_minus_gpu int)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT count(*) FROM (SELECT t::text FROM (%s) t EXCEPT ALL SELECT x::text FROM (%s) x) y', gpu, sql)
    INTO gpu_minus_sql;
  EXECUTE format('SELECT count(*) FROM (SELECT x::text FROM (%s) x EXCEPT ALL SELECT t::text FROM (%s) t) y', sql, gpu)
    INTO sql_minus_gpu;
END $$;
SELECT * FROM nm_same($$SELECT * FROM gpu_groupby('nm', 'g', 'sum(a), avg(a), min(a), max(c), count(c)', 'a < 100.125') AS t(g int4, s numeric, av numeric, mn numeric, mx numeric, n bigint)$$,
                      'SELECT g, sum(a), avg(a), min(a), max(c), count(c) FROM nm WHERE a < 100.125 GROUP BY g');
SELECT * FROM nm_same($$SELECT * FROM gpu_groupby('nm', 'a, d', 'count(*), sum(c), avg(b)') AS t(a numeric(10,2), d numeric(10,2), n bigint, s numeric, av numeric)$$,
                      'SELECT a, d, count(*), sum(c), avg(b) FROM nm GROUP BY a, d');
SELECT * FROM nm_same($$SELECT * FROM gpu_sort('nm', 'id, a, c', 'c DESC NULLS LAST, id', 7) AS t(id int4, a numeric(10,2), c numeric(18,6))$$,
                      'SELECT id, a, c FROM nm ORDER BY c DESC NULLS LAST, id LIMIT 7');
SELECT * FROM gpu_select('nm', 'id, a, b', 'a = 1.5 OR b = -1 OR a IN (1.505, ''NaN'') AND id < 200') AS t(id int4, a numeric, b numeric) ORDER BY id;
SELECT * FROM nm_same($$SELECT * FROM gpu_select('nm', 'id, a, b, c', 'a = 1.5 OR b = -1 OR a IN (1.505, ''NaN'') OR c > 99999999999') AS t(id int4, a numeric, b numeric, c numeric)$$,
                      $$SELECT id, a, b, c FROM nm WHERE a = 1.5 OR b = -1 OR a IN (1.505, 'NaN') OR c > 99999999999$$);

-- ---- what keeps PostgreSQL's plan ----
SET gpudb.debug_unsupported = on;
EXPLAIN (COSTS OFF) SELECT id FROM nm WHERE u > 3;
EXPLAIN (COSTS OFF) SELECT id FROM nm WHERE w > 3;
EXPLAIN (COSTS OFF) SELECT sum(w) FROM nm;
EXPLAIN (COSTS OFF) SELECT u, count(*) FROM nm GROUP BY u;
EXPLAIN (COSTS OFF) SELECT id, w FROM nm ORDER BY w LIMIT 3;
EXPLAIN (COSTS OFF) SELECT var_samp(a) FROM nm;
-- columns of different scales, and numeric expressions
EXPLAIN (COSTS OFF) SELECT id FROM nm WHERE a < c;
EXPLAIN (COSTS OFF) SELECT id FROM nm WHERE a + 1 > 3;
EXPLAIN (COSTS OFF) SELECT id FROM nm WHERE g > 1.5;
SELECT * FROM gpu_diff('SELECT id, a FROM nm WHERE a < c AND g = 1');
SELECT * FROM gpu_diff('SELECT g, var_samp(a), stddev(c) FROM nm GROUP BY g');
-- count() of an unsupported numeric reads only its NULL flags
SELECT * FROM gpu_diff('SELECT g, count(u), count(w) FROM nm GROUP BY g');
SELECT * FROM gpu_groupby('nm', 'u', 'count(*)') AS t(u numeric, n bigint);
SELECT * FROM gpu_groupby('nm', 'g', 'sum(w)') AS t(g int4, s numeric);
SELECT * FROM gpu_groupby('nm', 'g', 'var_pop(a)') AS t(g int4, s numeric);
CREATE TABLE nneg (x numeric(5,-2), y numeric(3,5));
INSERT INTO nneg VALUES (12345, 0.00123), (-98700, -0.00999), (NULL, NULL);
ANALYZE nneg;
EXPLAIN (COSTS OFF) SELECT x FROM nneg WHERE x > 100;
RESET gpudb.debug_unsupported;
SELECT * FROM gpu_diff('SELECT x, y FROM nneg WHERE y > 0.001');
SELECT * FROM gpu_diff('SELECT y FROM nneg WHERE y > 0.001 OR y < -0.009');
SELECT * FROM gpu_diff('SELECT y, count(*), sum(y) FROM nneg GROUP BY y');

-- ---- the cached path (with shared_preload_libraries = gpudb) ----
SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
DO $$ BEGIN
  IF current_setting('shared_preload_libraries') LIKE '%gpudb%' THEN
    PERFORM gpu_cache_load('nm');
  END IF;
END $$;
\i sql/include/explain_analyze.sql
SELECT gpu_source('SELECT g, sum(a), avg(c) FROM nm GROUP BY g')
       = CASE WHEN :'preloaded'::bool THEN 'cache' ELSE 'heap' END AS expected_source;
SELECT * FROM gpu_diff('SELECT g, count(a), sum(a), avg(a), min(a), max(a), sum(b), avg(c) FROM nm GROUP BY g');
SELECT * FROM gpu_diff('SELECT id, a, c FROM nm WHERE a > 1.505 AND c <> ''NaN'' AND g = 2');
SELECT * FROM gpu_diff('SELECT id, a FROM nm ORDER BY a DESC NULLS FIRST, id LIMIT 12', true);
SELECT * FROM gpu_diff('SELECT a, count(*) FROM nm GROUP BY a ORDER BY a DESC NULLS FIRST LIMIT 5', true);
-- committed changes reach the cache (captured by its triggers)
INSERT INTO nm VALUES (9101, 1, 'NaN', 5, 1.25, 1.25, NULL, NULL),
                      (9102, 4, -0.01, -5, -1.25, NULL, NULL, NULL);
UPDATE nm SET a = 77.77, c = 'NaN' WHERE id = 9003;
DELETE FROM nm WHERE id = 9005;
SELECT gpu_source('SELECT g, sum(a), avg(c) FROM nm GROUP BY g')
       = CASE WHEN :'preloaded'::bool THEN 'cache' ELSE 'heap' END AS expected_source;
SELECT * FROM gpu_diff('SELECT g, count(a), sum(a), avg(a), min(a), max(a), sum(b), avg(c) FROM nm GROUP BY g');
SELECT * FROM gpu_diff('SELECT id, a, c FROM nm WHERE a = 77.77 OR a = -0.01 OR id > 9000');
-- the histogram aggregates over numeric(p,s): values at the column's scale, NaN last
SELECT * FROM gpu_diff('SELECT g, count(DISTINCT a), mode() WITHIN GROUP (ORDER BY a), percentile_disc(0.3) WITHIN GROUP (ORDER BY c), count(DISTINCT b) FROM nm GROUP BY g');
SELECT * FROM gpu_diff('SELECT count(DISTINCT d), percentile_disc(0.9) WITHIN GROUP (ORDER BY a) FROM nm');
-- a type change that needs no rewrite: the cached copy stops answering
ALTER TABLE nm ALTER COLUMN a TYPE numeric(30,2);
INSERT INTO nm VALUES (9103, 1, 1e20, 5, 1.25, 1.25, NULL, NULL);
SELECT gpu_source('SELECT g, sum(c) FROM nm GROUP BY g') AS source_after_alter;
SELECT * FROM gpu_diff('SELECT g, count(a), sum(c), avg(c) FROM nm GROUP BY g');
SELECT * FROM gpu_diff('SELECT g, sum(a) FROM nm GROUP BY g');
DO $$ BEGIN
  IF current_setting('shared_preload_libraries') LIKE '%gpudb%' THEN
    PERFORM gpu_cache_drop('nm');
  END IF;
END $$;

DROP TABLE nm, nneg;
DROP FUNCTION gpu_diff, gpu_diff_rows, gpu_source, gpu_analyze, nm_same;
