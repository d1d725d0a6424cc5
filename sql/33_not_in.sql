-- 33_not_in: x NOT IN (SELECT y ...) planned as an anti join
-- (src/planner/not_in_rewrite.c) where neither x nor y can be NULL (NOT
-- NULL columns), so that a GpudbJoin runs it; everywhere else PostgreSQL's
-- SubPlan, with NOT IN's NULL rules.  Every query: the plan with gpudb on
-- and its answer against gpudb off (gpu_diff; with gpudb off the query is
-- never rewritten).
\i sql/include/plan_node_settings.sql

CREATE TABLE nf (id int4 NOT NULL, sk int4 NOT NULL, nk int4, g int4, v numeric(10,2));
INSERT INTO nf SELECT i, i % 200, CASE WHEN i % 17 = 0 THEN NULL ELSE i % 200 END,
  i % 7, (i % 50) / 2.0 FROM generate_series(1, 5000) i;
CREATE TABLE ns (s int4 PRIMARY KEY, big int8 NOT NULL, ns int4, note text);
INSERT INTO ns SELECT k, k, CASE WHEN k = 150 THEN NULL ELSE k END,
  CASE WHEN k % 9 = 0 THEN 'complaint ' || k ELSE 'fine' END FROM generate_series(0, 199) k;
ANALYZE nf, ns;
\i sql/include/differential.sql
\i sql/include/explain_plan.sql

-- NOT NULL on both sides: an anti join, in the GpudbJoin
EXPLAIN (COSTS OFF)
SELECT g, count(*), sum(v) FROM nf
WHERE sk NOT IN (SELECT s FROM ns WHERE note LIKE 'complaint%') GROUP BY g;
SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT g, count(*), sum(v) FROM nf WHERE sk NOT IN (SELECT s FROM ns WHERE note LIKE ''complaint%'') GROUP BY g'),
  -- bigint against integer
  ('SELECT g, count(*) FROM nf WHERE sk NOT IN (SELECT big FROM ns WHERE big > 120) GROUP BY g'),
  -- the subquery empty: every row passes
  ('SELECT g, count(*) FROM nf WHERE sk NOT IN (SELECT s FROM ns WHERE s < 0) GROUP BY g'),
  -- with another conjunct and an inner join
  ('SELECT ns.note, count(*) FROM nf JOIN ns ON ns.s = nf.sk WHERE nf.g < 5 AND nf.id NOT IN (SELECT s FROM ns WHERE s % 3 = 0) GROUP BY ns.note')
) t(q);

-- inside a view and a CTE: each query judged at its own level
CREATE VIEW nv AS
  SELECT * FROM nf WHERE sk NOT IN (SELECT s FROM ns WHERE note LIKE 'complaint%');
SELECT gpu_plan_nodes('SELECT g, count(*), sum(v) FROM nv GROUP BY g');
SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT g, count(*), sum(v) FROM nv GROUP BY g'),
  ('WITH c AS MATERIALIZED (SELECT g, v FROM nf WHERE id NOT IN (SELECT s FROM ns WHERE s % 2 = 0)) SELECT g, count(*) FROM c GROUP BY g'),
  ('SELECT count(*) FROM ns WHERE EXISTS (SELECT 1 FROM nf WHERE nf.g = ns.s AND nf.sk NOT IN (SELECT s FROM ns WHERE s > 3))')
) t(q);
DROP VIEW nv;

-- left to PostgreSQL (a SubPlan): a nullable column on either side, an
-- outer join above, a correlated or DISTINCT subquery, gpudb off
SELECT gpu_plan_nodes($q$
SELECT g, count(*) FROM nf WHERE nk NOT IN (SELECT s FROM ns WHERE s > 100) GROUP BY g$q$);
SELECT gpu_plan_nodes($q$
SELECT g, count(*) FROM nf WHERE sk NOT IN (SELECT ns FROM ns WHERE s > 100) GROUP BY g$q$);
SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT g, count(*) FROM nf WHERE nk NOT IN (SELECT s FROM ns WHERE s > 100) GROUP BY g'),
  ('SELECT g, count(*) FROM nf WHERE sk NOT IN (SELECT ns FROM ns WHERE s > 100) GROUP BY g'),
  ('SELECT g, count(*) FROM nf WHERE sk NOT IN (SELECT ns FROM ns WHERE s > 160) GROUP BY g'),
  ('SELECT g, count(*) FROM nf LEFT JOIN ns ON ns.s = nf.g WHERE nf.sk NOT IN (SELECT s FROM ns WHERE s > 100) GROUP BY g'),
  ('SELECT g, count(*) FROM nf WHERE sk NOT IN (SELECT s FROM ns WHERE s > nf.g * 20) GROUP BY g'),
  ('SELECT g, count(*) FROM nf WHERE sk NOT IN (SELECT DISTINCT s FROM ns WHERE s > 100) GROUP BY g')
) t(q);
-- a plain inheritance parent's NOT NULL does not bind its child (15-17: the
-- child drops it; 18: a NO INHERIT constraint): PostgreSQL's SubPlan, both
-- ways; a partitioned table's does
DO $$ BEGIN
  BEGIN
    EXECUTE 'CREATE TABLE ip (a int NOT NULL)';
    EXECUTE 'CREATE TABLE ic () INHERITS (ip)';
    EXECUTE 'ALTER TABLE ic ALTER a DROP NOT NULL';
  EXCEPTION WHEN others THEN
    -- (the block's tables are gone with its subtransaction)
    EXECUTE 'CREATE TABLE ip (a int CONSTRAINT ip_nn NOT NULL NO INHERIT)';
    EXECUTE 'CREATE TABLE ic () INHERITS (ip)';
  END;
END $$;
INSERT INTO ip VALUES (1), (2);
INSERT INTO ic VALUES (NULL), (3);
CREATE TABLE pp (a int NOT NULL) PARTITION BY RANGE (a);
CREATE TABLE pp1 PARTITION OF pp FOR VALUES FROM (0) TO (100);
INSERT INTO pp SELECT k FROM generate_series(0, 40) k;
ANALYZE ip, ic, pp;
SELECT q, (gpu_diff(q)).* FROM (VALUES
  ('SELECT count(*) FROM ip WHERE a NOT IN (SELECT s FROM ns WHERE s > 2)'),
  ('SELECT g, count(*) FROM nf WHERE sk NOT IN (SELECT a FROM ip) GROUP BY g'),
  ('SELECT g, count(*) FROM nf WHERE sk NOT IN (SELECT a FROM pp) GROUP BY g')
) t(q);
DROP TABLE ic, ip, pp;

-- gpudb off: never rewritten (no anti join in PostgreSQL's plan)
SET gpudb.enabled = off;
SELECT count(*) AS anti_joins FROM gpu_explain_format('text', $q$
SELECT g, count(*) FROM nf WHERE sk NOT IN (SELECT s FROM ns WHERE note LIKE 'complaint%') GROUP BY g$q$) l
WHERE l."QUERY PLAN" ~ 'Anti';
SET gpudb.enabled = on;

-- the cache, both tables
SELECT gpu_cache_load('nf') > 0 AS loaded;
SELECT gpu_cache_load('ns') > 0 AS loaded;
SELECT (gpu_diff($q$
SELECT g, count(*), sum(v) FROM nf WHERE sk NOT IN (SELECT s FROM ns WHERE note LIKE 'complaint%')
GROUP BY g$q$)).*;
SELECT gpu_cache_drop('nf');
SELECT gpu_cache_drop('ns');

DROP FUNCTION gpu_explain(text);
DROP FUNCTION gpu_explain_format(text, text);
DROP FUNCTION gpu_plan_nodes(text);
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP TABLE nf, ns;
