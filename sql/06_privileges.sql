--
-- 06_privileges: gpu_groupby reads exactly what a plain SELECT may read.
--
CREATE TABLE pv (id int4, g int4, secret int4, t text);
INSERT INTO pv SELECT i, i % 3, i * 10, 'x' || (i % 2) FROM generate_series(1, 30) i;
CREATE ROLE regress_gpudb_none;
CREATE ROLE regress_gpudb_table;
CREATE ROLE regress_gpudb_cols;
GRANT SELECT ON pv TO regress_gpudb_table;
GRANT SELECT (id, g, t) ON pv TO regress_gpudb_cols;

-- Plain SQL is this file's reference, so it keeps PostgreSQL's own plans
-- (the plan nodes are tested against gpudb.enabled = off in 12_plan_nodes).
SET gpudb.enable_gpuscan = off;
SET gpudb.enable_gpuagg = off;
SET gpudb.enable_gpusort = off;
SET gpudb.enable_gpujoin = off;

-- no privilege at all
SET ROLE regress_gpudb_none;
SELECT * FROM gpu_groupby('pv', 'g', 'count(*)') AS t(g int4, n bigint);
SELECT * FROM gpu_groupby('pv', '', 'count(*)') AS t(n bigint);
RESET ROLE;

-- table privilege
SET ROLE regress_gpudb_table;
SELECT * FROM gpu_groupby('pv', 'g', 'count(*), sum(secret)') AS t(g int4, n bigint, s bigint) ORDER BY g;
RESET ROLE;

-- column privileges: allowed columns work, any other column is refused,
-- whether it is a key, an aggregate input or only in the filter
SET ROLE regress_gpudb_cols;
SELECT * FROM gpu_groupby('pv', 'g', 'count(*), sum(id)', 't = ''x1''') AS t(g int4, n bigint, s bigint) ORDER BY g;
SELECT * FROM gpu_groupby('pv', '', 'count(*)') AS t(n bigint);
SELECT count(*) FROM pv;
SELECT * FROM gpu_groupby('pv', 'secret', 'count(*)') AS t(s int4, n bigint);
SELECT * FROM gpu_groupby('pv', 'g', 'sum(secret)') AS t(g int4, s bigint);
SELECT * FROM gpu_groupby('pv', 'g', 'count(secret)') AS t(g int4, s bigint);
SELECT * FROM gpu_groupby('pv', 'g', 'count(*)', 'secret > 100') AS t(g int4, n bigint);
SELECT sum(secret) FROM pv;
RESET ROLE;

-- row-level security: refused for a role it applies to, plain SQL filters
ALTER TABLE pv ENABLE ROW LEVEL SECURITY;
CREATE POLICY pv_even ON pv FOR SELECT USING (id % 2 = 0);
SET ROLE regress_gpudb_table;
SELECT * FROM gpu_groupby('pv', 'g', 'count(*)') AS t(g int4, n bigint);
SELECT g, count(*) FROM pv GROUP BY g ORDER BY g;
RESET ROLE;
-- the owner (a superuser here) is not subject to the policy
SELECT * FROM gpu_groupby('pv', 'g', 'count(*)') AS t(g int4, n bigint) ORDER BY g;
ALTER TABLE pv DISABLE ROW LEVEL SECURITY;

-- the function resolves nothing through the caller's search_path
CREATE SCHEMA regress_gpudb_evil;
CREATE FUNCTION regress_gpudb_evil.int4gt_evil(int4, int4) RETURNS bool
    LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR regress_gpudb_evil.> (LEFTARG = int4, RIGHTARG = int4, FUNCTION = regress_gpudb_evil.int4gt_evil);
SET search_path = regress_gpudb_evil, pg_catalog, public;
-- plain SQL now finds the caller's operator first; gpu_groupby does not
SELECT count(*) FROM pv WHERE g > 1;
SELECT * FROM gpu_groupby('pv', '', 'count(*)', 'g > 1') AS t(n bigint);
SELECT count(*) FROM pv WHERE g OPERATOR(pg_catalog.>) 1;
RESET search_path;

DROP SCHEMA regress_gpudb_evil CASCADE;
DROP TABLE pv;
DROP ROLE regress_gpudb_none, regress_gpudb_table, regress_gpudb_cols;
