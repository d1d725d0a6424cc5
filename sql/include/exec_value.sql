-- include/exec_value.sql: gdb_exec(q) runs a statement returning one value
-- and shows the value, or the error's SQLSTATE, message, detail and hint
-- (\i'd by the cache tests; pg_regress does not run it alone).
CREATE OR REPLACE FUNCTION gdb_exec(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
    st text; msg text; det text; hin text;
BEGIN
    EXECUTE q INTO r;
    RETURN coalesce(r, 'NULL');
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                            det = PG_EXCEPTION_DETAIL, hin = PG_EXCEPTION_HINT;
    RETURN st || ': ' || msg || coalesce(E'\n  DETAIL: ' || nullif(det, ''), '')
              || coalesce(E'\n  HINT: ' || nullif(hin, ''), '');
END $$;
