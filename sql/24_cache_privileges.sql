--
-- 24_cache_privileges: what the column cache tells about a table, and to
-- whom.  gpu_cache_load needs SELECT on every column it loads and the right
-- to create triggers on the table (owner or TRIGGER), on top of being the
-- owner or a gpudb_cache_admin member; the gpu_cache view shows only the
-- entries of tables the viewer may read.  A DROP DATABASE that fails leaves
-- the cache alone; one that succeeds drops that database's entries.
--
-- Needs shared_preload_libraries = gpudb (expected/24_cache_privileges.out);
-- without it the cache functions raise 55000 first
-- (expected/24_cache_privileges_1.out).
--

-- gdb_exec: the statement's one value, or the error's SQLSTATE, message,
-- detail and hint
\i sql/include/exec_value.sql

-- cpr_entries: the gpu_cache rows the current role sees (stable columns)
CREATE FUNCTION cpr_entries() RETURNS TABLE (relation text, columns name[], rows bigint, state text)
LANGUAGE sql AS $$
    SELECT relation::text, columns, rows, state FROM gpu_cache ORDER BY 1
$$;

-- gpudb's triggers on a table
CREATE FUNCTION cpr_triggers(rel regclass) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM pg_trigger WHERE tgrelid = rel AND tgname LIKE '%gpudb%'
$$;

CREATE TABLE cpr (id int4, g int4, secret int8, t text);
INSERT INTO cpr SELECT i, i % 3, i * 10, 'p' || (i % 2) FROM generate_series(1, 90) i;
CREATE TABLE cpr_fresh (id int4, v int8);
INSERT INTO cpr_fresh SELECT i, i FROM generate_series(1, 40) i;

CREATE ROLE regress_gpudb_cpr_none;       -- nothing at all
CREATE ROLE regress_gpudb_cpr_colreader;  -- SELECT on one column, not an admin
CREATE ROLE regress_gpudb_cpr_admin;      -- cache admin with TRIGGER, without SELECT
CREATE ROLE regress_gpudb_cpr_seltab;     -- cache admin with SELECT, without TRIGGER
CREATE ROLE regress_gpudb_cpr_cols;       -- cache admin with SELECT (id, g) and TRIGGER
CREATE ROLE regress_gpudb_cpr_full;       -- cache admin with SELECT and TRIGGER
GRANT gpudb_cache_admin TO regress_gpudb_cpr_admin, regress_gpudb_cpr_seltab,
                           regress_gpudb_cpr_cols, regress_gpudb_cpr_full;
GRANT SELECT (t) ON cpr TO regress_gpudb_cpr_colreader;
GRANT TRIGGER ON cpr, cpr_fresh TO regress_gpudb_cpr_admin;
GRANT SELECT ON cpr, cpr_fresh TO regress_gpudb_cpr_seltab;
GRANT SELECT (id, g), TRIGGER ON cpr TO regress_gpudb_cpr_cols;
GRANT SELECT, TRIGGER ON cpr, cpr_fresh TO regress_gpudb_cpr_full;

SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
\if :preloaded

-- ===========================================================================
-- preloaded
-- ===========================================================================
SELECT gpu_cache_load('cpr');
SELECT * FROM cpr_entries();

-- ---------------------------------------------------------------------------
-- the gpu_cache view: entries of the tables the viewer may read, and no other
-- ---------------------------------------------------------------------------
SET ROLE regress_gpudb_cpr_none;
SELECT * FROM cpr_entries();
SELECT count(*) AS entries_seen FROM gpu_cache;
RESET ROLE;
SET ROLE regress_gpudb_cpr_admin;
SELECT * FROM cpr_entries();
RESET ROLE;
-- SELECT on one column is enough to see the entry
SET ROLE regress_gpudb_cpr_colreader;
SELECT * FROM cpr_entries();
RESET ROLE;
SET ROLE regress_gpudb_cpr_full;
SELECT * FROM cpr_entries();
RESET ROLE;

-- ---------------------------------------------------------------------------
-- loading needs SELECT on the columns loaded
-- ---------------------------------------------------------------------------
-- a cache admin without SELECT may not load (it would learn the row count)
SET ROLE regress_gpudb_cpr_admin;
SELECT gdb_exec($$SELECT gpu_cache_load('cpr')$$);
SELECT gdb_exec($$SELECT gpu_cache_load('cpr', ARRAY['g'])$$);
SELECT gdb_exec($$SELECT gpu_cache_load('cpr_fresh')$$);
SELECT * FROM cpr_entries();
-- dropping stays an administrator's right
SELECT gdb_exec($$SELECT gpu_cache_drop('cpr_fresh')$$);
RESET ROLE;
-- column privileges: the readable columns, and no others
SET ROLE regress_gpudb_cpr_cols;
SELECT gdb_exec($$SELECT gpu_cache_load('cpr', ARRAY['g', 'id'])$$);
SELECT * FROM cpr_entries();
SELECT gdb_exec($$SELECT gpu_cache_load('cpr', ARRAY['g', 'secret'])$$);
SELECT gdb_exec($$SELECT gpu_cache_load('cpr')$$);
RESET ROLE;
-- the refused loads changed nothing
SELECT * FROM cpr_entries();

-- ---------------------------------------------------------------------------
-- loading installs triggers: ownership or TRIGGER
-- ---------------------------------------------------------------------------
SET ROLE regress_gpudb_cpr_seltab;
SELECT gdb_exec($$SELECT gpu_cache_load('cpr_fresh')$$);
RESET ROLE;
SELECT cpr_triggers('cpr_fresh') AS triggers_on_cpr_fresh;
SELECT count(*) AS entries_of_cpr_fresh FROM gpu_cache WHERE relation = 'cpr_fresh'::regclass;
-- with SELECT and TRIGGER a cache admin may
SET ROLE regress_gpudb_cpr_full;
SELECT gdb_exec($$SELECT gpu_cache_load('cpr_fresh')$$);
SELECT gdb_exec($$SELECT gpu_cache_load('cpr')$$);
SELECT * FROM cpr_entries();
RESET ROLE;
SELECT cpr_triggers('cpr_fresh') AS triggers_on_cpr_fresh;
-- so may the owner, without any grant to itself
ALTER TABLE cpr_fresh OWNER TO regress_gpudb_cpr_none;
SET ROLE regress_gpudb_cpr_none;
SELECT gdb_exec($$SELECT gpu_cache_load('cpr_fresh', ARRAY['v'])$$);
SELECT * FROM cpr_entries();
RESET ROLE;
ALTER TABLE cpr_fresh OWNER TO CURRENT_USER;

-- clean up
SELECT count(gpu_cache_drop(relation::regclass)) AS dropped FROM cpr_entries();

\else

-- ===========================================================================
-- not preloaded: no server, so 55000 comes first; the view is empty
-- ===========================================================================
SET ROLE regress_gpudb_cpr_admin;
SELECT gdb_exec($$SELECT gpu_cache_load('cpr')$$);
RESET ROLE;
SET ROLE regress_gpudb_cpr_full;
SELECT gdb_exec($$SELECT gpu_cache_load('cpr')$$);
SELECT * FROM cpr_entries();
RESET ROLE;

\endif

DROP TABLE cpr, cpr_fresh;
DROP FUNCTION gdb_exec(text), cpr_entries(), cpr_triggers(regclass);
DROP ROLE regress_gpudb_cpr_none, regress_gpudb_cpr_colreader, regress_gpudb_cpr_admin,
          regress_gpudb_cpr_seltab, regress_gpudb_cpr_cols, regress_gpudb_cpr_full;
