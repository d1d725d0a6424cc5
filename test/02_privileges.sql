-- 02_privileges.sql — gpu_groupby reads a table only with the caller's
-- privileges: SELECT on the table, or on every column it reads (keys,
-- aggregate arguments, filter), and never a table whose row-level security
-- applies to the caller.  Roles and tables are created inside the test's
-- transaction and rolled back with it.
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS gpudb;

SELECT plan(17);

-- role names unique to this run
SELECT 'gpudb_tap_' || pg_backend_pid() || '_' || (random() * 1e6)::int AS sfx \gset
SELECT :'sfx' || '_none' AS r_none, :'sfx' || '_table' AS r_table,
       :'sfx' || '_cols' AS r_cols, :'sfx' || '_rls' AS r_rls \gset
CREATE ROLE :"r_none" NOLOGIN;
CREATE ROLE :"r_table" NOLOGIN;
CREATE ROLE :"r_cols" NOLOGIN;
CREATE ROLE :"r_rls" NOLOGIN;

-- A schema of our own, usable by every test role, so that a refusal can only
-- come from the table's privileges (not from the schema's).
CREATE SCHEMA gpudb_tap;
GRANT USAGE ON SCHEMA gpudb_tap TO :"r_none", :"r_table", :"r_cols", :"r_rls";

CREATE TABLE gpudb_tap.t (k int, v int, s text, secret int);
INSERT INTO gpudb_tap.t VALUES (1, 10, 'a', 100), (1, 20, 'b', 200), (2, 30, 'a', 300), (NULL, 40, 'c', 400);
GRANT SELECT ON gpudb_tap.t TO :"r_table";
GRANT SELECT (k, v, s) ON gpudb_tap.t TO :"r_cols";

CREATE TABLE gpudb_tap.t_rls (k int, v int);
INSERT INTO gpudb_tap.t_rls VALUES (1, 10), (2, 20), (3, 30);
ALTER TABLE gpudb_tap.t_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY t_rls_some ON gpudb_tap.t_rls FOR SELECT USING (k > 1);
GRANT SELECT ON gpudb_tap.t_rls TO :"r_rls";

-- the baseline, as the table owner (a superuser)
SELECT results_eq(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', 'k', 'count(*), sum(v)') AS g(k int, n bigint, sv bigint) ORDER BY k$$,
    $$VALUES (1, 2::bigint, 30::bigint), (2, 1, 30), (NULL, 1, 40)$$,
    'the owner reads the table');

-- no privilege at all
SET LOCAL ROLE :"r_none";
SELECT throws_ok(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', 'k', 'count(*)') AS g(k int, n bigint)$$,
    '42501', NULL, 'a role without SELECT on the table gets 42501');
SELECT throws_ok(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', '', 'count(*)') AS g(n bigint)$$,
    '42501', NULL, 'a role without SELECT gets 42501 for count(*) over no column');
SELECT throws_ok(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', 'k', 'sum(v)', 'v > 0') AS g(k int, sv bigint)$$,
    '42501', NULL, 'a role without SELECT gets 42501 with a filter');
SELECT throws_ok($$SELECT count(*) FROM gpudb_tap.t$$, '42501', NULL,
                 'control: plain SQL refuses the same role');
RESET ROLE;

-- table-level SELECT
SET LOCAL ROLE :"r_table";
SELECT results_eq(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', 's', 'count(*), max(secret)', 'k IS NOT NULL') AS g(s text, n bigint, m int) ORDER BY s$$,
    $$VALUES ('a', 2::bigint, 300), ('b', 1, 200)$$,
    'a role with SELECT on the table reads every column');
RESET ROLE;

-- column-level SELECT on k, v, s only
SET LOCAL ROLE :"r_cols";
SELECT results_eq(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', 'k', 'count(*), sum(v)', 'v > 10') AS g(k int, n bigint, sv bigint) ORDER BY k$$,
    $$VALUES (1, 1::bigint, 20::bigint), (2, 1, 30), (NULL, 1, 40)$$,
    'SELECT on exactly the columns used (key, aggregate, filter) is enough');
SELECT results_eq(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', 's', 'count(k), min(v)', $f$s <> 'c'$f$) AS g(s text, n bigint, mv int) ORDER BY s$$,
    $$SELECT s, count(k), min(v) FROM gpudb_tap.t WHERE s <> 'c' GROUP BY s ORDER BY s$$,
    'column privileges: text key and text filter, same answer as plain SQL');
SELECT results_eq(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', '', 'count(*)') AS g(n bigint)$$,
    $$VALUES (4::bigint)$$,
    'count(*) over no column needs SELECT on some column, as in SQL');
SELECT throws_ok(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', 'k', 'sum(v)', 'secret > 0') AS g(k int, sv bigint)$$,
    '42501', NULL, 'a column used only in the filter without SELECT: 42501');
SELECT throws_ok(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', 'k', 'sum(secret)') AS g(k int, ss bigint)$$,
    '42501', NULL, 'an aggregate argument without SELECT: 42501');
SELECT throws_ok(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', 'k', 'count(secret)') AS g(k int, n bigint)$$,
    '42501', NULL, 'count(col) of a column without SELECT: 42501');
SELECT throws_ok(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t', 'secret', 'count(*)') AS g(secret int, n bigint)$$,
    '42501', NULL, 'a group key without SELECT: 42501');
SELECT throws_ok($$SELECT count(*) FROM gpudb_tap.t WHERE secret > 0$$, '42501', NULL,
                 'control: plain SQL refuses the filter column too');
RESET ROLE;

-- row-level security that applies to the caller
SET LOCAL ROLE :"r_rls";
SELECT throws_ok(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t_rls', 'k', 'count(*)') AS g(k int, n bigint)$$,
    '0A000', NULL, 'a table whose row-level security applies to the caller is refused with 0A000');
SELECT throws_ok(
    $$SELECT * FROM gpu_groupby('gpudb_tap.t_rls', '', 'sum(v)') AS g(sv bigint)$$,
    '0A000', NULL, 'row-level security: refused for an aggregate over the whole table too');
SELECT results_eq($$SELECT count(*) FROM gpudb_tap.t_rls$$, $$VALUES (2::bigint)$$,
                  'control: plain SQL applies the policy for that role');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
