--
-- 05_errors: bad input gets a clear ERROR with the right SQLSTATE and the
-- offending name; nothing crashes, and the session stays usable.
--
-- gdb_try runs a statement and shows its SQLSTATE, message, detail and hint
CREATE FUNCTION gdb_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
    st text; msg text; det text; hin text;
BEGIN
    EXECUTE format('SELECT count(*) FROM (%s) x', q) INTO n;
    RETURN format('ok: %s rows', n);
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                            det = PG_EXCEPTION_DETAIL, hin = PG_EXCEPTION_HINT;
    RETURN st || ': ' || msg || coalesce(E'\n  DETAIL: ' || nullif(det, ''), '')
              || coalesce(E'\n  HINT: ' || nullif(hin, ''), '');
END $$;
CREATE TABLE er (id int4, g int4, v float8, t text, n numeric, j jsonb, "Mixed Case" int4);
INSERT INTO er VALUES (1, 1, 1.5, 'a', 1, '{}', 5), (2, 2, 2.5, 'b', 2, '[]', 6);
CREATE VIEW er_view AS SELECT * FROM er;
CREATE SEQUENCE er_seq;
CREATE TABLE er_part (k int4, v int4) PARTITION BY RANGE (k);
CREATE MATERIALIZED VIEW er_mv AS SELECT * FROM er WITH NO DATA;

-- Plain SQL is this file's reference, so it keeps PostgreSQL's own plans
-- (the plan nodes are tested against gpudb.enabled = off in 12_plan_nodes).
SET gpudb.enable_gpuscan = off;
SET gpudb.enable_gpuagg = off;
SET gpudb.enable_gpusort = off;
SET gpudb.enable_gpujoin = off;

-- NULL arguments
SELECT gdb_try($q$SELECT * FROM gpu_groupby(NULL, 'g', 'count(*)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', NULL, 'count(*)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', NULL) AS t(g int4, n bigint)$q$);
-- NULL filter means no filter
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', NULL) AS t(g int4, n bigint)$q$);
-- unknown relation, column; quoted identifiers
SELECT gdb_try($q$SELECT * FROM gpu_groupby('no_such_table', 'g', 'count(*)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'nope', 'count(*)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'sum(nope)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'nope > 1') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'Mixed Case', 'count(*)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', '"Mixed Case"', 'sum("Mixed Case")') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'G', 'count(*)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', '"G"', 'count(*)') AS t(g int4, n bigint)$q$);
-- system columns
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'ctid', 'count(*)') AS t(g tid, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'xmin = 1') AS t(g int4, n bigint)$q$);
-- empty and whitespace strings
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', '', '') AS t(n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', '   ', '  ') AS t(n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', '') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', '   ') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g,', 'count(*)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g,,id', 'count(*)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g id', 'count(*)') AS t(g int4, n bigint)$q$);
-- unsupported types and aggregates
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'n', 'count(*)') AS t(n numeric, c bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'j', 'count(*)') AS t(j jsonb, c bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'sum(n)') AS t(g int4, s numeric)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'sum(t)') AS t(g int4, s numeric)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'min(t)') AS t(g int4, s text)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'bool_and(v)') AS t(g int4, s bool)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'stddev(v), var_pop(g)') AS t(g int4, s float8, vp numeric)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'stddev(v), var_pop(g)') AS t(g int4, s float8, vp float8)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'sum(DISTINCT v)') AS t(g int4, s float8)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'sum(v) FILTER (WHERE v > 1)') AS t(g int4, s float8)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'sum(v + 1)') AS t(g int4, s float8)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'sum(*)') AS t(g int4, s float8)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'sum(v) AS total') AS t(g int4, s float8)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'v') AS t(g int4, s float8)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*) FROM pg_authid') AS t(g int4, s bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*); DROP TABLE er') AS t(g int4, s bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'pg_catalog.count(*)') AS t(g int4, s bigint)$q$);
-- column definition lists that do not match
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*), avg(g)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*), avg(g)') AS t(g int4, n bigint, a float8)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*), sum(g)') AS t(g int8, n bigint, s bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 't', 'count(*)') AS t(t varchar, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)')$q$);
-- relations that are not tables
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er_view', 'g', 'count(*)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er_seq', '', 'count(*)') AS t(n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er_part', 'k', 'count(*)') AS t(k int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er_mv', 'g', 'count(*)') AS t(g int4, n bigint)$q$);
REFRESH MATERIALIZED VIEW er_mv;
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er_mv', 'g', 'count(*)') AS t(g int4, n bigint)$q$);
-- filters that are not one supported expression: never executed
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'g > 0; DROP TABLE er') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'g > 0 -- comment') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'g > (SELECT 0)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'EXISTS (SELECT 1 FROM pg_authid)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'g IN (SELECT 1)') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'pg_terminate_backend(pg_backend_pid())') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'random() > 0.5') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'other.g > 1') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'count(*) > 1') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'g') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'g > 1 FROM er') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'g > 1, g < 5') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'n > 1') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'md5(t) = ''b''') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 't LIKE t') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'CASE WHEN g > 1 THEN true END') AS t(g int4, n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'g >') AS t(g int4, n bigint)$q$);
-- overlong lists
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'id, g, id, g, id, g, id, g, id', 'count(*)') AS t(n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', '', (SELECT string_agg('count(*)', ', ') FROM generate_series(1, 65))) AS t(n bigint)$q$);
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*)', 'g IN (' || (SELECT string_agg(i::text, ',') FROM generate_series(1, 2000) i) || ')') AS t(g int4, n bigint)$q$);
-- the session is still fine
SELECT gdb_try($q$SELECT * FROM gpu_groupby('er', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s float8)$q$);
SELECT count(*) FROM er;
