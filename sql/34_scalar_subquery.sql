-- 34_scalar_subquery: a correlated scalar subquery of avg, sum, min or max
-- compared in a WHERE conjunct (TPC-H Q2, Q17, Q20) planned as a join with
-- a derived table grouped on its correlation columns
-- (src/planner/scalar_subquery_rewrite.c), so that a GpudbAgg (a GpudbJoin
-- under it for a joined subquery) runs the group-by; everywhere else
-- PostgreSQL's SubPlan.  Every query: the plan with gpudb on and its answer
-- against gpudb off (gpu_diff; with gpudb off the query is never
-- rewritten).  No NOT NULL anywhere: NULL outer keys, NULL inner keys,
-- NULL aggregate inputs, keys with no inner row, keys whose rows are all
-- NULL.
\i sql/include/plan_node_settings.sql

-- so: outer rows (k 0..59, NULL every 13th; x NULL every 11th);
-- si: inner rows (k 0..49 only, so 50..59 have no group; k NULL every 19th;
-- v NULL every 7th, and all NULL for k = 5)
CREATE TABLE so (id int4, k int4, k2 int4, x numeric(10,2), t varchar(8));
INSERT INTO so SELECT i, CASE WHEN i % 13 = 0 THEN NULL ELSE i % 60 END, i % 3,
  CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 40) * 1.5 END, 'n' || (i % 25)
  FROM generate_series(1, 600) i;
CREATE TABLE si (k int4, k2 int4, v numeric(10,2), q int4, d int4, t varchar(8));
INSERT INTO si SELECT CASE WHEN i % 19 = 0 THEN NULL ELSE i % 50 END, i % 3,
  CASE WHEN i % 7 = 0 OR i % 50 = 5 THEN NULL ELSE (i % 37) * 1.25 END,
  i % 23, i % 5, 'n' || (i % 30)
  FROM generate_series(1, 1000) i;
CREATE TABLE sd (dk int4, name text);
INSERT INTO sd VALUES (0, 'a'), (1, 'b'), (2, 'a'), (3, NULL), (NULL, 'a');
ANALYZE so, si, sd;
\i sql/include/differential.sql
\i sql/include/explain_plan.sql
-- explain_lines(query): EXPLAIN (COSTS OFF)'s lines.
CREATE FUNCTION explain_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    RETURN NEXT l;
  END LOOP;
END $$;
-- has_subplan(query): does EXPLAIN (COSTS OFF) show a SubPlan?
CREATE FUNCTION has_subplan(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l ~ 'SubPlan' THEN
      RETURN true;
    END IF;
  END LOOP;
  RETURN false;
END $$;

-- Q17's shape: a GpudbAgg groups si by k, joined to so
EXPLAIN (COSTS OFF)
SELECT id, x FROM so WHERE x < (SELECT 0.5 * avg(v) FROM si WHERE si.k = so.k);
-- Q2's shape: the derived table joins three tables, its group-by over a join
EXPLAIN (COSTS OFF)
SELECT so.id FROM so, sd WHERE sd.dk = so.k2 AND sd.name = 'a'
  AND so.x = (SELECT min(v) FROM si, sd WHERE si.d = sd.dk AND sd.name = 'a' AND si.k = so.k);

SELECT q, has_subplan(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT id, x FROM so WHERE x < (SELECT 0.5 * avg(v) FROM si WHERE si.k = so.k)'),
  -- the sublink on the left, the outer column on the right of its =
  ('SELECT id, x FROM so WHERE (SELECT max(v) FROM si WHERE so.k = si.k) >= x'),
  ('SELECT so.id FROM so, sd WHERE sd.dk = so.k2 AND sd.name = ''a'' AND so.x = (SELECT min(v) FROM si, sd WHERE si.d = sd.dk AND sd.name = ''a'' AND si.k = so.k)'),
  -- the inner tables joined by JOIN ... ON
  ('SELECT so.id FROM so WHERE so.x > (SELECT min(v) FROM si JOIN sd ON si.d = sd.dk WHERE sd.name = ''a'' AND si.k = so.k)'),
  -- two correlation columns and an uncorrelated conjunct (Q20's), inside IN
  ('SELECT count(*) FROM so WHERE id IN (SELECT o2.id FROM so o2 WHERE o2.id % 2 = 0 AND o2.x > (SELECT 0.5 * sum(v) FROM si WHERE si.k = o2.k AND si.k2 = o2.k2 AND si.q < 15))'),
  -- sum of an int4 (an int8) against an int4, <>, a group's own filter
  ('SELECT id FROM so WHERE id * 3 > (SELECT sum(q) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE x <> (SELECT max(v) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE x >= (SELECT max(v) FROM si WHERE si.k = so.k AND si.q = 3)'),
  -- an expression of several aggregates and constants
  ('SELECT id FROM so WHERE x <= (SELECT min(v) - 1 + max(v) * 2 FROM si WHERE si.k = so.k)'),
  -- a varchar key (texteq over relabelled columns; deterministic
  -- collations), a varchar value (the sublink relabelled)
  ('SELECT id FROM so WHERE x >= (SELECT avg(v) FROM si WHERE si.t = so.t)'),
  ('SELECT id FROM so WHERE x >= (SELECT avg(v) FROM si WHERE so.t = si.t COLLATE "C")'),
  ('SELECT id FROM so WHERE t < (SELECT max(t)::varchar FROM si WHERE si.k = so.k)'),
  -- the sublink cast (int4 to numeric)
  ('SELECT id FROM so WHERE (SELECT min(q) FROM si WHERE si.k = so.k) < x'),
  -- two subqueries in one WHERE, an aggregate over the join
  ('SELECT k2, count(*), sum(x) FROM so WHERE x > (SELECT min(v) FROM si WHERE si.k = so.k) AND x < (SELECT max(v) FROM si WHERE si.k2 = so.k2 AND si.k = so.k) GROUP BY k2'),
  -- the same key twice
  ('SELECT id FROM so WHERE x < (SELECT avg(v) FROM si WHERE si.k = so.k AND si.k = so.id)'),
  -- an outer join in the query (the conjunct in its WHERE), the key on
  -- either side of it
  ('SELECT so.id, sd.name FROM so LEFT JOIN sd ON sd.dk = so.k2 WHERE so.x < (SELECT avg(v) FROM si WHERE si.k = so.k)'),
  ('SELECT sd.dk, so.id FROM sd LEFT JOIN so ON so.k2 = sd.dk AND so.id < 100 WHERE coalesce(so.x, 0) < (SELECT avg(v) FROM si WHERE si.k = so.k)')
) t(q);

-- inside a view, a CTE and an EXISTS: each query judged at its own level
CREATE VIEW sv AS
  SELECT * FROM so WHERE x < (SELECT 0.5 * avg(v) FROM si WHERE si.k = so.k);
SELECT q, has_subplan(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT k2, count(*) FROM sv GROUP BY k2'),
  ('WITH c AS MATERIALIZED (SELECT * FROM so WHERE x > (SELECT avg(v) FROM si WHERE si.k = so.k)) SELECT k2, count(*) FROM c GROUP BY k2'),
  ('SELECT count(*) FROM sd WHERE EXISTS (SELECT 1 FROM so WHERE so.k2 = sd.dk AND so.x > (SELECT avg(v) FROM si WHERE si.k = so.k))')
) t(q);
DROP VIEW sv;

-- left to PostgreSQL (a SubPlan): count (0 over no rows, not NULL), under
-- OR, correlated two levels up, a non-equality correlation or one of
-- expressions, an outer reference in the aggregate, an outer join in the
-- subquery or the sublink in an outer join's ON, a division, integer
-- arithmetic (an overflow could raise for a group no row asks for), a
-- float average, a grouped or limited subquery, FILTER, DISTINCT, a
-- volatile function
SELECT q, has_subplan(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT id FROM so WHERE k2 < (SELECT count(*) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE k2 < (SELECT count(v) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE x < (SELECT avg(v) FROM si WHERE si.k = so.k) OR id < 10'),
  ('SELECT count(*) FROM sd WHERE EXISTS (SELECT 1 FROM so WHERE so.k2 = sd.dk AND so.x > (SELECT avg(v) FROM si WHERE si.d = sd.dk))'),
  ('SELECT id FROM so WHERE x < (SELECT avg(v) FROM si WHERE si.k < so.k)'),
  ('SELECT id FROM so WHERE x < (SELECT avg(v) FROM si WHERE si.k::int8 = so.k::int8 + 0)'),
  ('SELECT id FROM so WHERE x < (SELECT avg(v + so.k2) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE x < (SELECT avg(v) FROM si LEFT JOIN sd ON si.d = sd.dk WHERE si.k = so.k)'),
  ('SELECT so.id, sd.name FROM so LEFT JOIN sd ON sd.dk = so.k2 AND so.x < (SELECT avg(v) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE x < (SELECT 100 / sum(v) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE x < (SELECT max(q) * 100000 FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE x < (SELECT avg(v::float8) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE x < (SELECT avg(v) FROM si WHERE si.k = so.k GROUP BY si.k2 ORDER BY 1 LIMIT 1)'),
  ('SELECT id FROM so WHERE x < (SELECT avg(v) FILTER (WHERE q > 3) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE x < (SELECT avg(DISTINCT v) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so WHERE x < (SELECT avg(v) FROM si WHERE si.k = so.k AND random() >= 0)')
) t(q);

-- the cheaper plan is kept: one outer row and an index on the key make
-- PostgreSQL's SubPlan cheaper than grouping all of sb
CREATE TABLE sb (k int4, v numeric(10,2));
INSERT INTO sb SELECT i % 5000, i % 97 FROM generate_series(1, 20000) i;
CREATE INDEX ON sb (k);
ANALYZE sb;
SELECT q, has_subplan(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT id FROM so WHERE id = 7 AND x < (SELECT avg(v) FROM sb WHERE sb.k = so.k)'),
  ('SELECT id FROM so WHERE x < (SELECT avg(v) FROM sb WHERE sb.k = so.k)')
) t(q);
DROP TABLE sb;

-- the derived table restricted to the keys the query's own restrictions of
-- the correlation column's table keep (a semi join on a copy of it):
-- Q17's shape (sd.name = 'a' keeps keys 0, 2 and NULL of sd, key 1 gone)
EXPLAIN (COSTS OFF)
SELECT count(*), sum(so.x) FROM so, sd WHERE sd.dk = so.k2 AND sd.name = 'a'
  AND so.x < (SELECT 0.5 * avg(v) FROM si WHERE si.k2 = sd.dk);
-- Q20's shape: two correlation columns of one table, one IN of both; the
-- restriction an uncorrelated IN, copied with it
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sd WHERE sd.dk IN (SELECT so.k2 FROM so
  WHERE so.k IN (SELECT k FROM si WHERE si.t LIKE 'n1%')
    AND so.x > (SELECT 0.5 * sum(v) FROM si WHERE si.k = so.k AND si.k2 = so.k2 AND si.q < 15));
-- not copied: a conjunct of two tables (so.id > sd.dk), a volatile one,
-- a sublink correlated with the query; the table under an outer join: no
-- restriction at all
-- (18 prints the NOT IN's SubPlan in the Join Filter as ANY (x = (SubPlan
-- 1).col1): shown as 15-17 print it)
SELECT regexp_replace(l, '\(ANY \([^()]* = \(SubPlan ([0-9]+)\)\.col1\)\)', '(SubPlan \1)')
  AS "QUERY PLAN"
FROM explain_lines($q$
SELECT so.id FROM so, sd WHERE sd.dk = so.k2 AND so.t = 'n3' AND so.id > sd.dk
  AND so.id > random() - 1 AND so.id NOT IN (SELECT q FROM si WHERE si.d = sd.dk)
  AND so.x < (SELECT avg(v) FROM si WHERE si.k = so.k)$q$) l;
EXPLAIN (COSTS OFF)
SELECT so.id FROM sd LEFT JOIN so ON so.k2 = sd.dk WHERE so.t = 'n3'
  AND so.x < (SELECT avg(v) FROM si WHERE si.k = so.k);
SELECT q, has_subplan(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT count(*), sum(so.x) FROM so, sd WHERE sd.dk = so.k2 AND sd.name = ''a'' AND so.x < (SELECT 0.5 * avg(v) FROM si WHERE si.k2 = sd.dk)'),
  ('SELECT so.id, sd.dk FROM so, sd WHERE sd.dk = so.k2 AND sd.name IS NOT DISTINCT FROM NULL AND so.x < (SELECT 0.5 * avg(v) FROM si WHERE si.k2 = sd.dk)'),
  ('SELECT id, x FROM so WHERE so.t = ''n3'' AND x < (SELECT 0.5 * avg(v) FROM si WHERE si.k = so.k)'),
  ('SELECT id, x FROM so WHERE so.t IN (''n3'', ''n13'') AND so.k IS NULL AND x < (SELECT 0.5 * avg(v) FROM si WHERE si.k = so.k)'),
  ('SELECT count(*) FROM sd WHERE sd.dk IN (SELECT so.k2 FROM so WHERE so.k IN (SELECT k FROM si WHERE si.t LIKE ''n1%'') AND so.x > (SELECT 0.5 * sum(v) FROM si WHERE si.k = so.k AND si.k2 = so.k2 AND si.q < 15))'),
  ('SELECT so.id FROM so WHERE so.k > 40 AND so.x > (SELECT avg(v) FROM si WHERE si.k = so.k AND si.t = so.t)'),
  -- an uncorrelated scalar subquery in the restriction; a CTE of the query
  -- read by one (not copied)
  ('SELECT so.id FROM so WHERE so.x > (SELECT avg(x) FROM so) AND so.x > (SELECT avg(v) FROM si WHERE si.k = so.k)'),
  ('WITH c AS MATERIALIZED (SELECT k FROM si WHERE q < 3) SELECT so.id FROM so WHERE so.k IN (SELECT k FROM c) AND so.x > (SELECT avg(v) FROM si WHERE si.k = so.k)'),
  ('SELECT so.id FROM so, sd WHERE sd.dk = so.k2 AND so.t = ''n3'' AND so.id > sd.dk AND so.id > random() - 1 AND so.id NOT IN (SELECT q FROM si WHERE si.d = sd.dk) AND so.x < (SELECT avg(v) FROM si WHERE si.k = so.k)'),
  ('SELECT so.id FROM sd LEFT JOIN so ON so.k2 = sd.dk WHERE so.t = ''n3'' AND so.x < (SELECT avg(v) FROM si WHERE si.k = so.k)'),
  ('SELECT so.id FROM sd LEFT JOIN so ON so.k2 = sd.dk WHERE coalesce(so.t, ''n3'') = ''n3'' AND coalesce(so.x, 0) < (SELECT avg(v) FROM si WHERE si.k = so.k)'),
  -- a restriction that raises an error: both sides raise it
  ('SELECT id FROM so WHERE 1 / (so.k2 - 1) > 0 AND x < (SELECT avg(v) FROM si WHERE si.k = so.k)'),
  ('SELECT id FROM so, sd WHERE sd.dk = so.k2 AND 1 / (sd.dk - 1) > 0 AND x < (SELECT avg(v) FROM si WHERE si.k2 = sd.dk)')
) t(q);

-- an inheritance parent with a child: no restriction (ONLY: one)
CREATE TABLE spa (k int4, t text);
CREATE TABLE spc () INHERITS (spa);
INSERT INTO spa SELECT i % 40, 'a' || (i % 4) FROM generate_series(1, 200) i;
INSERT INTO spc SELECT i % 60, 'a' || (i % 4) FROM generate_series(1, 200) i;
ANALYZE spa, spc;
SELECT q, has_subplan(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT count(*) FROM spa WHERE spa.t = ''a1'' AND spa.k < (SELECT avg(v) + 10 FROM si WHERE si.k = spa.k)'),
  ('SELECT count(*) FROM ONLY spa WHERE spa.t = ''a1'' AND spa.k < (SELECT avg(v) + 10 FROM si WHERE si.k = spa.k)')
) t(q);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM spa WHERE spa.t = 'a1' AND spa.k < (SELECT avg(v) + 10 FROM si WHERE si.k = spa.k);
DROP TABLE spa, spc;

-- a derived table's numeric aggregate result, unconstrained, laid out at
-- the scale the planner expected (gdb_numeric_result_typmod: a sum's, min's,
-- max's is its argument's, a product's the sum of its factors', an avg's
-- 16 digits) and checked value by value: an average below 1 has 20 digits
-- in PostgreSQL, and the node answers with PostgreSQL's plan (its
-- Fallback line) with the same rows
CREATE TABLE sm (k int4, v numeric(10,2));
INSERT INTO sm SELECT i % 10,
  CASE WHEN i % 10 < 3 THEN 0.01 * (i % 3) ELSE (i % 17) * 2.5 END
  FROM generate_series(1, 300) i;
ANALYZE sm;
SELECT q, has_subplan(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT count(*), sum(so.x) FROM so WHERE so.x < (SELECT avg(v) FROM sm WHERE sm.k = so.k)'),
  ('SELECT count(*), sum(so.x) FROM so WHERE so.k >= 3 AND so.x < (SELECT avg(v) FROM sm WHERE sm.k = so.k)'),
  ('SELECT count(*), sum(so.x) FROM so WHERE so.x > (SELECT 0.5 * sum(v) - 1 FROM sm WHERE sm.k = so.k)'),
  ('SELECT count(*), sum(so.x) FROM so WHERE so.x >= (SELECT max(v) * 0.1 + min(v) FROM sm WHERE sm.k = so.k)')
) t(q);
-- the value cast to numeric(p,s) by the query: the outer query's column
-- keeps its own typmod, so PostgreSQL's simplifier keeps the cast (a
-- rounded 0.2 * avg, compared with x at 17 digits)
CREATE TABLE smo (k int4, x numeric(20,17));
INSERT INTO smo SELECT 2 + i % 50, 0.5 FROM generate_series(1, 500) i;
INSERT INTO smo VALUES (1, 0.06666666666666667);
CREATE TABLE smi (k int4, q numeric(15,2));
INSERT INTO smi SELECT 2 + i % 50, i % 7 FROM generate_series(1, 500) i;
INSERT INTO smi VALUES (1, 0), (1, 1), (1, 0);
ANALYZE smo, smi;
SELECT q, has_subplan(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT count(*) FROM smo WHERE x <= (SELECT 0.2 * avg(q) FROM smi WHERE smi.k = smo.k)::numeric(20,17)'),
  ('SELECT count(*) FROM smo WHERE x::numeric(18,2) <= (SELECT sum(q) FROM smi WHERE smi.k = smo.k)::numeric(18,2)')
) t(q);
SELECT l FROM explain_lines('SELECT count(*) FROM smo WHERE x <= (SELECT 0.2 * avg(q) FROM smi WHERE smi.k = smo.k)::numeric(20,17)') l
  WHERE l ~ 'Filter';
DROP TABLE smo, smi;
SELECT l FROM gpu_explain('SELECT count(*), sum(so.x) FROM so WHERE so.x < (SELECT avg(v) FROM sm WHERE sm.k = so.k)') l
  WHERE l::text ~ 'GpudbJoin|Fallback';
SELECT l FROM gpu_explain('SELECT count(*), sum(so.x) FROM so WHERE so.k >= 3 AND so.x < (SELECT avg(v) FROM sm WHERE sm.k = so.k)') l
  WHERE l::text ~ 'GpudbJoin|Fallback';
DROP TABLE sm;

-- gpudb off: never rewritten
SET gpudb.enabled = off;
SELECT has_subplan('SELECT id, x FROM so WHERE x < (SELECT 0.5 * avg(v) FROM si WHERE si.k = so.k)');
SET gpudb.enabled = on;

DROP FUNCTION has_subplan(text);
DROP FUNCTION explain_lines(text);
DROP FUNCTION gpu_explain(text);
DROP FUNCTION gpu_explain_format(text, text);
DROP FUNCTION gpu_plan_nodes(text);
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP TABLE so, si, sd;
