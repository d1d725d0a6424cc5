--
-- 01_install: the extension installs, its objects exist, GUCs have their
-- defaults, and the helpers the later tests use are defined.
--
SELECT extname, extversion FROM pg_extension WHERE extname = 'gpudb';

SELECT p.proname, p.pronargs, p.proretset,
       pg_get_function_result(p.oid) AS result
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gpudb'
ORDER BY 1;

-- GUC defaults (the README table is checked against pg_settings too); LOAD
-- defines the GUCs in a session where no gpudb function ran yet and the
-- library is not preloaded
LOAD 'gpudb';
SELECT name, boot_val, vartype, min_val, max_val, enumvals
FROM pg_settings WHERE name LIKE 'gpudb.%' ORDER BY name;

-- bad GUC values are rejected
SET gpudb.device = 'tpu';
SET gpudb.batch_rows = 10;
SET gpudb.nonexistent = 1;

-- the extension can be dropped and created again
DROP EXTENSION gpudb;
CREATE EXTENSION gpudb;

-- gpu_active_path follows gpudb.device and gpudb.enabled
SET gpudb.device = cpu;
SELECT gpu_active_path();
RESET gpudb.device;
SET gpudb.enabled = off;
SELECT gpu_active_path();
RESET gpudb.enabled;

-- the device list always has at least one row and says which path is active
SELECT count(*) >= 1 AS has_rows,
       bool_or(active_path IN ('gpu', 'cpu')) AS path_known
FROM gpu_devices();

-- no execution yet in this session
SELECT count(*) FROM gpu_last_execution();

--
-- Differential helper used by every later test: runs two queries returning
-- the same columns and reports the rows of each that the other lacks
-- (EXCEPT ALL both ways).  'same' means both directions are empty.
--
CREATE FUNCTION gdb_diff(gpu_query text, sql_query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    a bigint;
    b bigint;
    n bigint;
BEGIN
    EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', gpu_query, sql_query) INTO a;
    EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', sql_query, gpu_query) INTO b;
    EXECUTE format('SELECT count(*) FROM (%s) x', sql_query) INTO n;
    IF a = 0 AND b = 0 THEN
        RETURN format('same (%s rows)', n);
    END IF;
    RETURN format('DIFFERENT: %s rows only in gpu_groupby, %s only in SQL', a, b);
END $$;

-- the helper itself detects a difference (a test that cannot fail is a defect)
SELECT gdb_diff('SELECT 1', 'SELECT 2');
SELECT gdb_diff('SELECT 1 UNION ALL SELECT 1', 'SELECT 1');
SELECT gdb_diff('SELECT 1', 'SELECT 1');
