-- 30_params: parameters in device quals (src/planner/param_values.c): a
-- prepared statement's $n under a generic plan and the output of a
-- top-level InitPlan (a scalar subquery), compared with a column.  The
-- quals compile with a placeholder while planning and again with the
-- values at the node's first run.  Every query: the plan with gpudb on
-- (the Gpudb node must be in it) and EXCEPT ALL both ways against the
-- same query with the values written as literals and gpudb off.  A
-- parameter that can change while the query runs (a correlated subquery's
-- reference to the outer row) keeps PostgreSQL's plan.
\i sql/include/plan_node_settings.sql

CREATE TABLE pt (id int8, g int4, v numeric(12,2), f float8, d date, n int4);
INSERT INTO pt
SELECT i, i % 5, ((i * 37) % 1000) / 10.0, (i % 17) / 4.0,
       date '2000-01-01' + (i % 400), CASE WHEN i % 11 = 0 THEN NULL ELSE i % 13 END
FROM generate_series(1, 3000) i;
CREATE TABLE pd (k int4 PRIMARY KEY, name text);
INSERT INTO pd SELECT k, 'n' || k FROM generate_series(0, 9) k;
ANALYZE pt, pd;
\i sql/include/differential.sql

-- $n under a generic plan: numeric at another scale, date, float, int
SET plan_cache_mode = force_generic_plan;
PREPARE pq(numeric, date, float8, int) AS
  SELECT g, count(*), sum(v), min(d) FROM pt
  WHERE v > $1 AND d < $2 AND f <> $3 AND n >= $4 GROUP BY g;
EXPLAIN (COSTS OFF) EXECUTE pq(10.555, '2000-06-01', 1.25, 3);
CREATE TEMP TABLE on_rows AS EXECUTE pq(10.555, '2000-06-01', 1.25, 3);
SET gpudb.enabled = off;
CREATE TEMP TABLE off_rows AS
  SELECT g, count(*), sum(v), min(d) FROM pt
  WHERE v > 10.555 AND d < '2000-06-01' AND f <> 1.25 AND n >= 3 GROUP BY g;
SET gpudb.enabled = on;
SELECT (SELECT count(*) FROM on_rows) AS nrows,
       (SELECT count(*) FROM (TABLE on_rows EXCEPT ALL TABLE off_rows) x) AS on_minus_off,
       (SELECT count(*) FROM (TABLE off_rows EXCEPT ALL TABLE on_rows) x) AS off_minus_on;
-- the same plan with other values, NULL among them (no row passes)
DROP TABLE on_rows, off_rows;
CREATE TEMP TABLE on_rows AS EXECUTE pq(90, '2001-01-01', 0, NULL);
SELECT count(*) AS nrows FROM on_rows;
DROP TABLE on_rows;
CREATE TEMP TABLE on_rows AS EXECUTE pq(-1, 'infinity', 'NaN', -5);
SET gpudb.enabled = off;
CREATE TEMP TABLE off_rows AS
  SELECT g, count(*), sum(v), min(d) FROM pt
  WHERE v > -1 AND d < 'infinity' AND f <> 'NaN' AND n >= -5 GROUP BY g;
SET gpudb.enabled = on;
SELECT (SELECT count(*) FROM on_rows) AS nrows,
       (SELECT count(*) FROM (TABLE on_rows EXCEPT ALL TABLE off_rows) x) AS on_minus_off,
       (SELECT count(*) FROM (TABLE off_rows EXCEPT ALL TABLE on_rows) x) AS off_minus_on;
DROP TABLE on_rows, off_rows;
-- a selection, and a join's probe relation
PREPARE ps(int) AS SELECT id, v FROM pt WHERE n = $1 AND g < 2;
EXPLAIN (COSTS OFF) EXECUTE ps(7);
CREATE TEMP TABLE on_rows AS EXECUTE ps(7);
SELECT count(*) AS nrows,
       (SELECT count(*) FROM (TABLE on_rows EXCEPT ALL
                              SELECT id, v FROM pt WHERE n = 7 AND g < 2) x) AS on_minus_off
FROM on_rows;
DROP TABLE on_rows;
PREPARE pj(numeric) AS
  SELECT pd.name, count(*), sum(pt.v) FROM pt JOIN pd ON pt.n = pd.k
  WHERE pt.v >= $1 GROUP BY pd.name;
EXPLAIN (COSTS OFF) EXECUTE pj(50);
CREATE TEMP TABLE on_rows AS EXECUTE pj(50);
SET gpudb.enabled = off;
CREATE TEMP TABLE off_rows AS
  SELECT pd.name, count(*), sum(pt.v) FROM pt JOIN pd ON pt.n = pd.k
  WHERE pt.v >= 50 GROUP BY pd.name;
SET gpudb.enabled = on;
SELECT (SELECT count(*) FROM on_rows) AS nrows,
       (SELECT count(*) FROM (TABLE on_rows EXCEPT ALL TABLE off_rows) x) AS on_minus_off,
       (SELECT count(*) FROM (TABLE off_rows EXCEPT ALL TABLE on_rows) x) AS off_minus_on;
DROP TABLE on_rows, off_rows;
DEALLOCATE pq;
DEALLOCATE ps;
DEALLOCATE pj;
RESET plan_cache_mode;

-- InitPlan outputs (TPC-H Q22's c_acctbal > (SELECT avg(c_acctbal) ...)).
-- The node evaluates them at its first run, PostgreSQL only when a row
-- reaches the qual: only an InitPlan that returns one row and cannot raise
-- (an aggregate over one table of comparisons: the first, fourth and fifth
-- queries) is taken; one with arithmetic that may overflow (max(d) - 3,
-- min(n) + 2) or that is not an aggregate keeps PostgreSQL's plan for the
-- outer scan, so that the last query returns its 0 rows where evaluating
-- the subquery would raise "more than one row returned" (a GpudbScan runs
-- the quals before that one, PostgreSQL the rest)
SELECT q, d.node, d.nrows, d.on_minus_off, d.off_minus_on, d.error FROM (VALUES
  ($$SELECT g, count(*), sum(v) FROM pt WHERE v > (SELECT avg(v) FROM pt WHERE g = 1) GROUP BY g$$),
  ($$SELECT id FROM pt WHERE d >= (SELECT max(d) - 3 FROM pt) AND n < (SELECT min(n) + 2 FROM pt)$$),
  ($$SELECT count(*) FROM pt WHERE f > (SELECT f FROM pt WHERE id = -1)$$),
  ($$SELECT pd.name, sum(pt.v) FROM pt JOIN pd ON pt.n = pd.k WHERE pt.v < (SELECT avg(v) FROM pt) GROUP BY pd.name$$),
  ($$SELECT g, count(*) FROM pt WHERE NOT EXISTS (SELECT 1 FROM pd WHERE pd.k = pt.n) AND v > (SELECT avg(v) FROM pt) GROUP BY g$$),
  ($$SELECT count(*) FROM pt WHERE n < 0 AND v > (SELECT v FROM pt WHERE g = 1)$$)
) v(q), LATERAL gpu_diff(q) d;
-- a correlated subquery's reference to the outer row keeps PostgreSQL's plan
-- for the subquery's scan
EXPLAIN (COSTS OFF)
SELECT k, (SELECT count(*) FROM pt WHERE pt.n = pd.k AND pt.v > 10) FROM pd;
SELECT * FROM gpu_diff($$SELECT k, (SELECT count(*) FROM pt WHERE pt.n = pd.k AND pt.v > 10) FROM pd$$);

DROP TABLE pt, pd;
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
