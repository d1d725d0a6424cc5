-- 35_derived_join: a GpudbJoin whose build side is a derived table (a
-- subquery in FROM, or the relation of an IN or EXISTS subquery that
-- PostgreSQL could not pull up): its plan, as PostgreSQL made it (a
-- GpudbAgg, say), runs under the node first and its rows are the build
-- side (custom_scan_join.c, join_build.c).  TPC-H Q18's shape: orders
-- semi-joined to lineitem grouped with HAVING, under lineitem's probe.
-- Every query: its Gpudb nodes with gpudb on and its answer against gpudb
-- off (gpu_diff).
\i sql/include/plan_node_settings.sql

CREATE TABLE dj_f (id int4, k int4, g int4, v numeric(10,2), t text);
INSERT INTO dj_f SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE i % 300 END, i % 5,
  (i % 40) / 4.0, 'tag' || (i % 4) FROM generate_series(1, 6000) i;
CREATE TABLE dj_d (k int4, w int4, name text, x numeric(8,2));
INSERT INTO dj_d SELECT CASE WHEN j % 31 = 0 THEN NULL ELSE j % 300 END, j % 11,
  'n' || (j % 300), (j % 40) / 4.0 FROM generate_series(1, 900) j;
CREATE TABLE dj_o (ok int4 PRIMARY KEY, ck int4, price numeric(12,2), dt date);
INSERT INTO dj_o SELECT o, o % 70, (o * 37 % 1000) / 4.0, date '2024-01-01' + o % 90
  FROM generate_series(1, 1000) o;
CREATE TABLE dj_c (ck int4 PRIMARY KEY, name text);
INSERT INTO dj_c SELECT c, 'customer ' || c FROM generate_series(0, 69) c;
CREATE TABLE dj_l (ok int4, qty numeric(8,2));
INSERT INTO dj_l SELECT 1 + i % 1000, (i * 7 % 50) / 2.0 FROM generate_series(1, 7000) i;
ANALYZE dj_f, dj_d, dj_o, dj_c, dj_l;
\i sql/include/differential.sql
\i sql/include/explain_plan.sql

-- TPC-H Q18's shape: the IN subquery's grouped relation is the build side
-- of the nested tree (orders probing it and customer), under lineitem
EXPLAIN (COSTS OFF)
SELECT c.name, c.ck, o.ok, o.dt, o.price, sum(l.qty) FROM dj_c c, dj_o o, dj_l l
WHERE o.ok IN (SELECT ok FROM dj_l GROUP BY ok HAVING sum(qty) > 105)
  AND c.ck = o.ck AND o.ok = l.ok
GROUP BY c.ck, o.ok, c.name, o.dt, o.price ORDER BY o.price DESC, o.dt LIMIT 10;
SELECT (gpu_diff($q$
SELECT c.name, c.ck, o.ok, o.dt, o.price, sum(l.qty) FROM dj_c c, dj_o o, dj_l l
WHERE o.ok IN (SELECT ok FROM dj_l GROUP BY ok HAVING sum(qty) > 105)
  AND c.ck = o.ck AND o.ok = l.ok
GROUP BY c.ck, o.ok, c.name, o.dt, o.price ORDER BY o.price DESC, o.dt LIMIT 10$q$, true)).*;

-- a grouped subquery in FROM, its aggregate a payload column and group key
EXPLAIN (COSTS OFF)
SELECT f.g, t.mw, count(*), sum(f.v) FROM dj_f f
JOIN (SELECT k, max(w) AS mw FROM dj_d GROUP BY k) t ON t.k = f.k GROUP BY f.g, t.mw;

SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT f.g, t.mw, count(*), sum(f.v) FROM dj_f f JOIN (SELECT k, max(w) AS mw FROM dj_d GROUP BY k) t ON t.k = f.k GROUP BY f.g, t.mw'),
  -- a left join: NULL payload for the probe rows without a group (NULL k too)
  ('SELECT f.g, t.c, count(*) FROM dj_f f LEFT JOIN (SELECT k, count(*) AS c FROM dj_d WHERE w > 3 GROUP BY k) t ON t.k = f.k GROUP BY f.g, t.c'),
  -- text payload of a DISTINCT subquery, as a group key
  ('SELECT t.name, count(*), sum(f.v) FROM dj_f f JOIN (SELECT DISTINCT k, name FROM dj_d WHERE k < 100) t ON t.k = f.k GROUP BY t.name'),
  -- EXISTS and NOT EXISTS over a grouped subquery: semi and anti joins
  ('SELECT g, count(*) FROM dj_f f WHERE EXISTS (SELECT 1 FROM (SELECT k FROM dj_d GROUP BY k HAVING count(*) > 2) t WHERE t.k = f.k) GROUP BY g'),
  ('SELECT g, count(*) FROM dj_f f WHERE NOT EXISTS (SELECT 1 FROM (SELECT k FROM dj_d GROUP BY k HAVING count(*) > 2) t WHERE t.k = f.k) GROUP BY g'),
  -- a UNION (distinct on its one column)
  ('SELECT g, count(*) FROM dj_f f JOIN (SELECT k FROM dj_d WHERE w < 3 UNION SELECT k + 1 FROM dj_d WHERE w > 8) u ON u.k = f.k GROUP BY g'),
  -- no group passes: an empty build side
  ('SELECT g, count(*) FROM dj_f f WHERE f.k IN (SELECT k FROM dj_d GROUP BY k HAVING count(*) > 100) GROUP BY g'),
  -- numeric keys of two scales
  ('SELECT f.g, t.n, count(*) FROM dj_f f JOIN (SELECT x, count(*) AS n FROM dj_d GROUP BY x) t ON t.x = f.v GROUP BY f.g, t.n'),
  -- duplicate keys (a subquery not pulled up): PostgreSQL's plan answers
  ('SELECT g, count(*) FROM dj_f f JOIN (SELECT k, w FROM dj_d OFFSET 0) t ON t.k = f.k GROUP BY g'),
  -- the derived table's plan raises: the same error
  ('SELECT g, count(*), sum(t.z) FROM dj_f f JOIN (SELECT k, max(100 / (w - 5)) AS z FROM dj_d GROUP BY k) t ON t.k = f.k GROUP BY g'),
  -- a derived table with a subquery of its own (an InitPlan, whose state
  -- its two plans would share): PostgreSQL's join; and with a duplicate
  -- build key behind it, PostgreSQL's plan behind the node
  ('SELECT g, count(*) FROM dj_f f JOIN (SELECT DISTINCT k FROM dj_d WHERE w <= (SELECT max(w) - 2 FROM dj_d)) t ON t.k = f.k GROUP BY g'),
  ('SELECT f.g, d.w, count(*) FROM dj_f f JOIN (SELECT DISTINCT k FROM dj_d WHERE w <= (SELECT max(w) - 2 FROM dj_d)) t ON t.k = f.k, dj_d d WHERE d.k = t.k AND d.w = f.g GROUP BY 1, 2'),
  -- a derived table PostgreSQL put on the probe side: the build side
  ('SELECT t.k % 3, count(*) FROM (SELECT k, sum(v) AS s FROM dj_f GROUP BY k) t JOIN dj_d d ON d.k = t.k GROUP BY 1')
) t(q);

-- a min/max aggregate over an index (PostgreSQL makes its InitPlan while
-- building the plan: both plans of the derived table would share it) and a
-- volatile function: not derived build sides; with a sum past the fixed
-- point, PostgreSQL's plan answers either way
CREATE TABLE dj_m (x int4, n numeric(18,0));
INSERT INTO dj_m SELECT i % 300, 900000000000000000 FROM generate_series(1, 3000) i;
CREATE INDEX ON dj_m (x);
ANALYZE dj_m;
SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT f.g, count(*) FROM dj_f f JOIN (SELECT max(x) AS m FROM dj_m) d ON f.k = d.m GROUP BY f.g'),
  ('SELECT m.x % 5, sum(m.n) FROM dj_m m JOIN (SELECT max(x) AS mx FROM dj_m) d ON m.x <= d.mx AND m.x = d.mx - m.x % 2 GROUP BY 1'),
  ('SELECT f.g, count(*) FROM dj_f f JOIN (SELECT k, max(w) AS mw FROM dj_d WHERE random() >= 0 GROUP BY k) t ON t.k = f.k GROUP BY f.g')
) t(q);
DROP TABLE dj_m;

-- in a transaction that changed the derived table's relation: its rows as
-- the transaction sees them
BEGIN;
DELETE FROM dj_l WHERE ok % 2 = 0;
SELECT (gpu_diff($q$
SELECT c.name, o.ok, sum(l.qty) FROM dj_c c, dj_o o, dj_l l
WHERE o.ok IN (SELECT ok FROM dj_l GROUP BY ok HAVING sum(qty) > 100)
  AND c.ck = o.ck AND o.ok = l.ok GROUP BY c.name, o.ok$q$)).*;
ROLLBACK;

-- the cache, every table
SELECT gpu_cache_load('dj_f') > 0 AS loaded;
SELECT gpu_cache_load('dj_d') > 0 AS loaded;
SELECT gpu_cache_load('dj_l') > 0 AS loaded;
SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT c.name, o.ok, sum(l.qty) FROM dj_c c, dj_o o, dj_l l WHERE o.ok IN (SELECT ok FROM dj_l GROUP BY ok HAVING sum(qty) > 100) AND c.ck = o.ck AND o.ok = l.ok GROUP BY c.name, o.ok'),
  ('SELECT t.name, count(*), sum(f.v) FROM dj_f f JOIN (SELECT DISTINCT k, name FROM dj_d WHERE k < 100) t ON t.k = f.k GROUP BY t.name')
) t(q);
SELECT gpu_cache_drop('dj_f');
SELECT gpu_cache_drop('dj_d');
SELECT gpu_cache_drop('dj_l');

-- a derived table's GpudbAgg that answers with PostgreSQL's plan (x * 2
-- passes the 64-bit fixed point): its plan states, under the GpudbJoin,
-- live in the query's memory, not the node's, which gdb_end deletes before
-- the executor clears its tuple table (a use after free, found when such a
-- fallback's rows were copied into its slots)
CREATE TABLE dj_x (k int4, x numeric(18,0));
INSERT INTO dj_x SELECT i % 10, 600000000000000000 FROM generate_series(0, 29) i;
CREATE TABLE dj_y (k int4 PRIMARY KEY, w int4);
INSERT INTO dj_y SELECT i, i % 4 FROM generate_series(0, 9) i;
ANALYZE dj_x, dj_y;
SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT dj_y.w, count(*) FROM dj_y JOIN (SELECT k, sum(x * 2 - x) AS s FROM dj_x GROUP BY k) d ON d.k = dj_y.k WHERE d.s > 5 GROUP BY dj_y.w'),
  ('SELECT dj_y.w, count(*), min(d.n) FROM dj_y JOIN (SELECT k, count(*) AS n, sum(x * 2 - x) AS s FROM dj_x GROUP BY k) d ON d.k = dj_y.k GROUP BY dj_y.w')
) t(q);
SELECT l FROM gpu_explain('SELECT dj_y.w, count(*) FROM dj_y JOIN (SELECT k, sum(x * 2 - x) AS s FROM dj_x GROUP BY k) d ON d.k = dj_y.k WHERE d.s > 5 GROUP BY dj_y.w') l
  WHERE l::text ~ 'Gpudb|Fallback|Source';
DROP TABLE dj_x, dj_y;

DROP FUNCTION gpu_explain(text);
DROP FUNCTION gpu_explain_format(text, text);
DROP FUNCTION gpu_plan_nodes(text);
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP TABLE dj_f, dj_d, dj_o, dj_c, dj_l;
