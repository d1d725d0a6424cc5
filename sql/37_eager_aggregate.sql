-- 37_eager_aggregate: a GROUP BY covering A's primary key over A LEFT JOIN
-- B, aggregating B's columns (TPC-H Q13), planned as A LEFT JOIN a derived
-- table grouping B on its join keys (src/planner/eager_aggregate_rewrite.c),
-- so that a GpudbAgg runs the group-by; everywhere else PostgreSQL's plan.
-- Every query: whether it was rewritten, and its answer with gpudb on
-- against gpudb off (gpu_diff; with gpudb off the query is never
-- rewritten).  NULL keys on both sides, rows of A without a match, rows of
-- B whose aggregated column is NULL, several rows of B per key.
\i sql/include/plan_node_settings.sql

-- ea: A (id 1..60, k NULL every 7th, name functionally dependent on id);
-- eb: B (a_id 0..69, so ids 50..60 partly unmatched and 61..69 match no
-- row of A; a_id NULL every 17th; v NULL every 5th, and all NULL for
-- a_id 3; t a comment with 'special requests' now and then)
CREATE TABLE ea (id int4 PRIMARY KEY, k int4, grp int4, name text);
INSERT INTO ea SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 45 END, i % 4, 'a' || i
  FROM generate_series(1, 60) i;
CREATE TABLE eb (a_id int4, v numeric(10,2), q int4, f float8, t varchar(40));
INSERT INTO eb SELECT CASE WHEN i % 17 = 0 THEN NULL WHEN i % 100 < 50 THEN i % 50 ELSE i % 70 END,
  CASE WHEN i % 5 = 0 OR i % 50 = 3 THEN NULL ELSE (i % 37) * 1.25 END, i % 23, i / 7.0,
  CASE WHEN i % 9 = 0 THEN 'a special x requests' ELSE 'n' || (i % 30) END
  FROM generate_series(1, 8000) i;
-- a composite primary key, a table without one
CREATE TABLE ec (id1 int4, id2 text, PRIMARY KEY (id1, id2));
INSERT INTO ec SELECT i % 20, 'n' || (i % 3) FROM generate_series(1, 60) i;
CREATE TABLE enopk (id int4, grp int4);
INSERT INTO enopk SELECT i, i % 4 FROM generate_series(1, 60) i;
ANALYZE ea, eb, ec, enopk;
\i sql/include/differential.sql
\i sql/include/explain_plan.sql
-- is_eager(q): does the plan show the derived table, or a group-by on
-- eb's key (a_id: never a group key as written)?
CREATE FUNCTION is_eager(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || q LOOP
    IF l ~ 'eager_aggregate' OR l ~ 'Group Keys?: .*\ma_id' THEN
      RETURN true;
    END IF;
  END LOOP;
  RETURN false;
END $$;

-- Q13's shape: a GpudbAgg groups eb by a_id below the left join
EXPLAIN (COSTS OFF)
SELECT c, count(*) FROM (SELECT ea.id, count(eb.q) FROM ea LEFT JOIN eb
  ON ea.id = eb.a_id AND eb.t NOT LIKE '%special%requests%' GROUP BY ea.id) s(id, c)
GROUP BY c ORDER BY 2 DESC, 1 DESC;

SELECT q, is_eager(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT c, count(*) FROM (SELECT ea.id, count(eb.q) FROM ea LEFT JOIN eb ON ea.id = eb.a_id AND eb.t NOT LIKE ''%special%requests%'' GROUP BY ea.id) s(id, c) GROUP BY c'),
  -- every aggregate allowed, a column functionally dependent on the key
  ('SELECT ea.id, ea.name, count(eb.v), sum(eb.v), avg(eb.q) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id'),
  ('SELECT ea.id, sum(eb.q), avg(eb.v), max(eb.f), min(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id'),
  ('SELECT ea.id, min(eb.t), max(eb.t) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id'),
  -- the equality's sides swapped, the key not A's primary key (NULLs)
  ('SELECT ea.id, count(eb.v), max(eb.v) FROM ea LEFT JOIN eb ON eb.a_id = ea.k GROUP BY ea.id'),
  -- a WHERE over A, grouped by more than the key, expressions of aggregates
  ('SELECT ea.id, ea.grp, count(eb.v) + 1, coalesce(max(eb.v), -1) FROM ea LEFT JOIN eb ON ea.id = eb.a_id WHERE ea.grp <> 2 GROUP BY ea.grp, ea.id'),
  -- quals over B: comparisons, IS NOT NULL, IN, LIKE, ILIKE
  ('SELECT ea.id, count(eb.v), sum(eb.q) FROM ea LEFT JOIN eb ON ea.id = eb.a_id AND eb.q > 5 AND eb.v IS NOT NULL GROUP BY ea.id'),
  ('SELECT ea.id, count(eb.q) FROM ea LEFT JOIN eb ON ea.id = eb.a_id AND (eb.q IN (1, 2, 3) OR eb.t LIKE ''n1%'') GROUP BY ea.id'),
  ('SELECT ea.id, min(eb.t) FROM ea LEFT JOIN eb ON ea.id = eb.a_id AND eb.t ILIKE ''%SPECIAL%'' GROUP BY ea.id'),
  -- two key columns (a composite primary key, a text key)
  ('SELECT ec.id1, ec.id2, count(eb.q) FROM ec LEFT JOIN eb ON ec.id1 = eb.a_id AND ec.id2 = eb.t GROUP BY ec.id1, ec.id2')
) t(q);

-- ordered by an aggregate
SELECT is_eager('SELECT ea.id, count(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id ORDER BY count(eb.v) DESC, ea.id'),
  (gpu_diff('SELECT ea.id, count(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id ORDER BY count(eb.v) DESC, ea.id', true)).*;

-- inside a view and a CTE: each query judged at its own level
CREATE VIEW ev AS
  SELECT ea.id, count(eb.v) AS n FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id;
SELECT q, is_eager(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT n, count(*) FROM ev GROUP BY n'),
  ('WITH c AS MATERIALIZED (SELECT ea.id, sum(eb.q) AS s FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id) SELECT count(*), sum(s) FROM c')
) t(q);
DROP VIEW ev;

-- left to PostgreSQL: count(*) and count(1) (one for the NULL-extended
-- row), a qual over A in ON, a GROUP BY not covering the primary key, a
-- table without one, an aggregate over A, an inner join, an ON qual that
-- can raise (division), a LIKE pattern with an escape, a float sum, a
-- WHERE over B, DISTINCT in the aggregate, HAVING, a volatile function
SELECT q, is_eager(q), (gpu_diff(q)).* FROM (VALUES
  ('SELECT ea.id, count(*) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id'),
  ('SELECT ea.id, count(1) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id'),
  ('SELECT ea.id, count(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id AND ea.grp = 1 GROUP BY ea.id'),
  ('SELECT ea.grp, count(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.grp'),
  ('SELECT enopk.id, count(eb.v) FROM enopk LEFT JOIN eb ON enopk.id = eb.a_id GROUP BY enopk.id'),
  ('SELECT ea.id, count(eb.v), sum(ea.grp) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id'),
  ('SELECT ea.id, count(eb.v) FROM ea JOIN eb ON ea.id = eb.a_id GROUP BY ea.id'),
  ('SELECT ea.id, count(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id AND 100 / eb.q > 1 GROUP BY ea.id'),
  ('SELECT ea.id, count(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id AND eb.t LIKE ''n\_%'' GROUP BY ea.id'),
  ('SELECT ea.id, sum(eb.f) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id'),
  ('SELECT ea.id, count(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id WHERE eb.q IS NULL GROUP BY ea.id'),
  ('SELECT ea.id, count(DISTINCT eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id'),
  ('SELECT ea.id, count(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id HAVING count(eb.v) > 2'),
  ('SELECT ea.id, count(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id AND random() >= 0 GROUP BY ea.id')
) t(q);

-- gpudb off: never rewritten
SET gpudb.enabled = off;
SELECT is_eager('SELECT ea.id, count(eb.v) FROM ea LEFT JOIN eb ON ea.id = eb.a_id GROUP BY ea.id');
SET gpudb.enabled = on;

DROP FUNCTION is_eager(text);
DROP FUNCTION gpu_explain(text);
DROP FUNCTION gpu_explain_format(text, text);
DROP FUNCTION gpu_plan_nodes(text);
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP TABLE ea, eb, ec, enopk;
