-- 31_having: HAVING on the device (src/executor/groupby_having.c): the
-- quals that compare one aggregate with a constant or a fixed parameter
-- become the group-by's group qualifier, so only the groups that pass
-- come back; the node keeps its HAVING as its qual.  Every query: the
-- plan with gpudb on ("HAVING Quals on Device"), its answer against
-- gpudb off (gpu_diff), and for some the groups the device returned
-- (EXPLAIN ANALYZE's Groups, through gpu_analyze) and the rows the node's
-- own HAVING still removed (none where the device decided every qual).  Covered: each
-- comparison, numeric thresholds with more digits than the aggregate's
-- scale, NULL and NaN inputs, sums past int64, integer sums that wrap,
-- floats with -0 and NaN, constants on either side, several batches and
-- the cache (the qualifier runs after the final combine), a prepared
-- statement's $1, a scalar subquery over a join (TPC-H Q11's shape), a
-- GpudbJoin, and what stays with PostgreSQL (avg, a float sum, OR).
\i sql/include/plan_node_settings.sql

CREATE TABLE hv (g int4, v numeric(10,2), iv int4, b int8, f float8, r real);
INSERT INTO hv
SELECT i % 100, (i % 7)::numeric(10,2) + 0.25, CASE WHEN i % 13 = 0 THEN NULL ELSE i % 50 END,
       i % 5, (i % 11)::float8, (i % 3)::real
FROM generate_series(1, 10000) i;
INSERT INTO hv VALUES (200, 'NaN', 1, 1, 'NaN', 'NaN'), (200, 2, 1, 1, 1, 1),
  (201, NULL, NULL, NULL, NULL, NULL),
  (202, 1.5, 2147483647, 9223372036854775807, 0, 0),
  (202, 1.5, 2147483647, 9223372036854775807, 0, 0),
  (203, -1.5, -2147483648, -9223372036854775807, -5, -5);
CREATE TABLE hd (k int4 PRIMARY KEY, name text, w numeric(8,3));
INSERT INTO hd SELECT k, 'n' || (k % 7), k / 8.0 FROM generate_series(0, 299) k;
ANALYZE hv, hd;
\i sql/include/differential.sql

\i sql/include/explain_analyze.sql

EXPLAIN (COSTS OFF) SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > 326.5;
SELECT btrim(l) AS having_rows FROM gpu_analyze('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > 326.5') l
WHERE l ~ 'Groups:|Rows Removed by Filter|HAVING Quals';

-- each comparison, numeric constants of more digits than the scale
SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > 326.5'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > 326.505'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) >= 326.505'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) < 326.505'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) <= 326.495'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) = 325.001'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) <> 325.001'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) = 325'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) <> 325'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING 326.5 < sum(v)'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > -326.505'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > 1e30'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > ''NaN'''),
  ('SELECT g, count(*) FROM hv GROUP BY g HAVING count(*) >= 100'),
  ('SELECT g, count(iv) FROM hv GROUP BY g HAVING count(iv) <= 92'),
  ('SELECT g, sum(iv) FROM hv GROUP BY g HAVING sum(iv) > 2400'),
  ('SELECT g, sum(iv) FROM hv GROUP BY g HAVING sum(iv) < 0'),
  ('SELECT g, sum(b) FROM hv GROUP BY g HAVING sum(b) > 200'),
  ('SELECT g, sum(b) FROM hv GROUP BY g HAVING sum(b) > 9223372036854775807'),
  ('SELECT g, sum(b) FROM hv GROUP BY g HAVING sum(b) < -9223372036854775807'),
  ('SELECT g, min(v), max(v) FROM hv GROUP BY g HAVING max(v) > 6 AND min(v) < 1'),
  ('SELECT g, max(v) FROM hv GROUP BY g HAVING max(v) >= 6.25'),
  ('SELECT g, max(f) FROM hv GROUP BY g HAVING max(f) > 9.5'),
  ('SELECT g, max(f) FROM hv GROUP BY g HAVING max(f) >= ''NaN'''),
  ('SELECT g, max(r) FROM hv GROUP BY g HAVING max(r) > 1.5::real'),
  ('SELECT g, max(iv) FROM hv GROUP BY g HAVING max(iv) = 49 AND count(*) > 1'),
  ('SELECT g, max(iv) FROM hv GROUP BY g HAVING max(iv) IS NULL'),
  ('SELECT sum(v) FROM hv HAVING sum(v) > 1e9'),
  ('SELECT sum(v) FROM hv HAVING sum(v) > 1')
) t(q);

-- ordered and cut on the device after the qualifier
SELECT (gpu_diff('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > 326.5 ORDER BY 2 DESC, 1 LIMIT 5', true)).*;

-- left to PostgreSQL: avg, a float sum, OR, an expression over aggregates
EXPLAIN (COSTS OFF) SELECT g, avg(v) FROM hv GROUP BY g HAVING avg(v) > 4 OR sum(f) > 500;
SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT g, avg(v) FROM hv GROUP BY g HAVING avg(v) > 4'),
  ('SELECT g, sum(f) FROM hv GROUP BY g HAVING sum(f) > 500'),
  ('SELECT g, count(*) FROM hv GROUP BY g HAVING count(*) > 101 OR sum(v) > 326'),
  ('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) - count(*) > 300')
) t(q);

-- several batches: the qualifier after the final combine
SET gpudb.batch_rows = 1024;
SELECT btrim(l) AS having_rows FROM gpu_analyze('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > 326.5') l
WHERE l ~ 'Groups:|Rows Removed by Filter|HAVING Quals';
SELECT (gpu_diff('SELECT g, sum(v), count(*) FROM hv GROUP BY g HAVING sum(v) > 326.5 AND count(*) >= 100')).*;
RESET gpudb.batch_rows;

-- the cache
SELECT gpu_cache_load('hv') > 0 AS loaded;
SELECT btrim(l) AS having_rows FROM gpu_analyze('SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > 326.5') l
WHERE l ~ 'Groups:|Rows Removed by Filter|HAVING Quals';
SELECT (gpu_diff('SELECT g, sum(v), count(*) FROM hv GROUP BY g HAVING sum(v) > 326.5 AND count(*) >= 100')).*;

-- a prepared statement's $1 under a generic plan
SET plan_cache_mode = force_generic_plan;
PREPARE hq(numeric) AS SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > $1;
EXPLAIN (COSTS OFF) EXECUTE hq(326.5);
CREATE TEMP TABLE on_rows AS EXECUTE hq(326.5);
SET gpudb.enabled = off;
CREATE TEMP TABLE off_rows AS SELECT g, sum(v) FROM hv GROUP BY g HAVING sum(v) > 326.5;
SET gpudb.enabled = on;
SELECT (SELECT count(*) FROM on_rows) AS nrows,
       (SELECT count(*) FROM (TABLE on_rows EXCEPT ALL TABLE off_rows) x) AS on_minus_off,
       (SELECT count(*) FROM (TABLE off_rows EXCEPT ALL TABLE on_rows) x) AS off_minus_on;
DROP TABLE on_rows;
CREATE TEMP TABLE on_rows AS EXECUTE hq(NULL);
SELECT count(*) AS nrows FROM on_rows;
DROP TABLE on_rows, off_rows;
DEALLOCATE hq;
RESET plan_cache_mode;

-- a scalar subquery over a join (TPC-H Q11's shape, tables listed in FROM):
-- a GpudbJoin whose HAVING compares with the InitPlan's output
SELECT btrim(l) AS having_rows FROM gpu_analyze($q$
SELECT g, sum(v * hd.w) FROM hv JOIN hd ON hd.k = hv.iv WHERE hd.name <> 'n3' AND hv.g < 100
GROUP BY g HAVING sum(v * hd.w) > (SELECT sum(v * hd.w) * 0.011 FROM hv, hd
                                   WHERE hd.k = hv.iv AND hd.name <> 'n3' AND hv.g < 100)$q$) l
WHERE l ~ 'Groups:|Rows Removed by Filter|HAVING Quals';
SELECT (gpu_diff($q$
SELECT g, sum(v * hd.w) FROM hv JOIN hd ON hd.k = hv.iv WHERE hd.name <> 'n3' AND hv.g < 100
GROUP BY g HAVING sum(v * hd.w) > (SELECT sum(v * hd.w) * 0.011 FROM hv, hd
                                   WHERE hd.k = hv.iv AND hd.name <> 'n3' AND hv.g < 100)$q$)).*;
-- a subquery that can raise (a division) stays PostgreSQL's: with no
-- group it is never evaluated, and nothing raises
SELECT btrim(l) AS having_rows FROM gpu_analyze($q$
SELECT g, sum(v) FROM hv WHERE g > 1000 GROUP BY g
HAVING sum(v) > (SELECT count(*) / 0 FROM hv WHERE g > 1000)$q$) l
WHERE l ~ 'HAVING Quals';
SELECT (gpu_diff($q$
SELECT g, sum(v) FROM hv WHERE g > 1000 GROUP BY g
HAVING sum(v) > (SELECT count(*) / 0 FROM hv WHERE g > 1000)$q$)).*;
-- one that cannot: a sum of bounded numerics times a constant

SELECT (gpu_diff($q$
SELECT g, sum(v) FROM hv WHERE g < 100 GROUP BY g
HAVING sum(v) > (SELECT sum(v * iv) * 0.000443 FROM hv WHERE g < 100)$q$)).*;
DROP FUNCTION gpu_source(text);
DROP FUNCTION gpu_analyze(text);
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP TABLE hv, hd;
