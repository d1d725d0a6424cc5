-- 05_security.sql — gpudb cannot be used to read, load or drop what the
-- caller may not: SELECT privileges on the table or its columns (keys,
-- aggregates, filter), through the heap and through the column cache;
-- row-level security; who may load and drop; what the gpu_cache view shows;
-- the functions' search_path (proconfig), and the caller's search_path not
-- reaching into a filter.
--
-- Everything runs in one transaction that is rolled back, with roles created
-- in it and used through SET LOCAL ROLE.  One exception: reading through the
-- cache needs an entry loaded by a committed transaction (gpu_cache_load
-- refuses to run in a transaction that has written), so with gpudb preloaded
-- a table owned by a throwaway role is created and loaded before BEGIN, and
-- dropped at the end.  The tests that need the GPU server are skipped when
-- gpudb is not preloaded.
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
-- names unique to this run
SELECT 'gpudb_tap_sec_' || pg_backend_pid() || '_' || (random() * 1e6)::int AS sfx \gset
SELECT :'sfx' || '_owner' AS r_owner, :'sfx' || '_none' AS r_none, :'sfx' || '_cols' AS r_cols,
       :'sfx' || '_reader' AS r_reader, :'sfx' || '_admin' AS r_admin, :'sfx' || '_rls' AS r_rls,
       :'sfx' || '_bypass' AS r_bypass, :'sfx' AS sch \gset

-- ---------------------------------------------------------------------------
-- Before the transaction (preloaded only): the cached table, loaded by its
-- owner, a role that is neither superuser nor cache admin.
-- ---------------------------------------------------------------------------
SELECT NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'gpudb') AS created_gpudb \gset
CREATE EXTENSION IF NOT EXISTS gpudb;
CREATE ROLE :"r_owner" NOLOGIN;
CREATE SCHEMA :"sch";
GRANT USAGE ON SCHEMA :"sch" TO PUBLIC;
CREATE TABLE :"sch".c (k int, v int8, secret int8, t text);
INSERT INTO :"sch".c SELECT i % 4, i, i * 1000, 't' || (i % 3) FROM generate_series(1, 400) i;
ALTER TABLE :"sch".c OWNER TO :"r_owner";
\if :preloaded
SET ROLE :"r_owner";
SELECT gpu_cache_load(:'sch' || '.c') AS loaded_rows \gset
RESET ROLE;
\endif

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;

SELECT plan(46);

CREATE ROLE :"r_none" NOLOGIN;
CREATE ROLE :"r_cols" NOLOGIN;
CREATE ROLE :"r_reader" NOLOGIN;
CREATE ROLE :"r_admin" NOLOGIN;
CREATE ROLE :"r_rls" NOLOGIN;
CREATE ROLE :"r_bypass" NOLOGIN BYPASSRLS;
GRANT gpudb_cache_admin TO :"r_admin";
GRANT SELECT ON :"sch".c TO :"r_reader";
GRANT SELECT (k, v, t) ON :"sch".c TO :"r_cols";

-- an uncached table, with row-level security for r_rls and r_bypass
CREATE TABLE :"sch".h (k int, v int8, secret int8);
INSERT INTO :"sch".h SELECT i % 3, i, -i FROM generate_series(1, 60) i;
GRANT SELECT ON :"sch".h TO :"r_reader", :"r_rls", :"r_bypass";
GRANT SELECT (k, v) ON :"sch".h TO :"r_cols";
CREATE TABLE :"sch".r (k int, v int8);
INSERT INTO :"sch".r SELECT i % 3, i FROM generate_series(1, 30) i;
ALTER TABLE :"sch".r ENABLE ROW LEVEL SECURITY;
CREATE POLICY r_some ON :"sch".r FOR SELECT USING (k > 0);
GRANT SELECT ON :"sch".r TO :"r_rls", :"r_bypass";
SET LOCAL search_path = :"sch", public;

-- ===========================================================================
-- the functions: search_path pinned, nothing SECURITY DEFINER
-- ===========================================================================
CREATE TEMP TABLE gpudb_funcs AS
SELECT p.oid::regprocedure::text AS sig, p.proname::text AS proname, p.proconfig, p.prosecdef,
       p.prorettype = 'trigger'::regtype AS is_trigger, l.lanname
  FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid JOIN pg_language l ON l.oid = p.prolang
 WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gpudb') AND d.deptype = 'e';
SELECT ok((SELECT count(*) >= 8 FROM gpudb_funcs), 'the extension''s functions are found');
SELECT is_empty($$SELECT sig FROM gpudb_funcs
                   WHERE NOT is_trigger
                     AND (proconfig IS NULL OR NOT 'search_path=pg_catalog, pg_temp' = ANY (proconfig))$$,
                'every gpudb function but the trigger function runs with search_path = pg_catalog, pg_temp');
SELECT set_eq($$SELECT proname FROM gpudb_funcs WHERE proconfig IS NULL$$,
              ARRAY['gpudb_cache_invalidate'],
              'only the trigger function gpudb_cache_invalidate has no proconfig');
SELECT is_empty($$SELECT sig FROM gpudb_funcs WHERE is_trigger AND lanname <> 'c'$$,
                'the trigger function is written in C: it resolves no name through the search_path');
SELECT is_empty($$SELECT sig FROM gpudb_funcs WHERE prosecdef$$,
                'no gpudb function is SECURITY DEFINER');

-- ===========================================================================
-- gpu_groupby on an uncached table: SELECT on the table or on every column
-- ===========================================================================
SET LOCAL ROLE :"r_none";
SELECT throws_ok($$SELECT * FROM gpu_groupby('h', 'k', 'count(*)') AS t(k int, n bigint)$$,
                 '42501', NULL, 'no privilege: a group key is refused (42501)');
SELECT throws_ok($$SELECT * FROM gpu_groupby('h', '', 'sum(v)') AS t(s numeric)$$,
                 '42501', NULL, 'no privilege: an aggregate is refused (42501)');
SELECT throws_ok($$SELECT * FROM gpu_groupby('h', '', 'count(*)', 'secret < 0') AS t(n bigint)$$,
                 '42501', NULL, 'no privilege: a filter is refused (42501)');
SELECT throws_ok($$SELECT * FROM gpu_groupby('h', '', 'count(*)') AS t(n bigint)$$,
                 '42501', NULL, 'no privilege: even count(*) is refused (42501)');
RESET ROLE;
SET LOCAL ROLE :"r_cols";
SELECT throws_ok($$SELECT * FROM gpu_groupby('h', 'secret', 'count(*)') AS t(s int8, n bigint)$$,
                 '42501', NULL, 'SELECT on other columns: a key it may not read is refused (42501)');
SELECT throws_ok($$SELECT * FROM gpu_groupby('h', 'k', 'max(secret)') AS t(k int, m int8)$$,
                 '42501', NULL, '... an aggregate of it is refused (42501)');
SELECT throws_ok($$SELECT * FROM gpu_groupby('h', 'k', 'count(*)', 'secret IS NULL') AS t(k int, n bigint)$$,
                 '42501', NULL, '... a filter on it, even IS NULL, is refused (42501)');
SELECT results_eq($$SELECT * FROM gpu_groupby('h', 'k', 'count(*), sum(v)', 'v > 10') AS t(k int, n bigint, s numeric) ORDER BY k$$,
                  $$SELECT k, count(*), sum(v) FROM h WHERE v > 10 GROUP BY k ORDER BY k$$,
                  '... and the columns it may read give the same answer as plain SQL');
RESET ROLE;

-- ===========================================================================
-- row-level security
-- ===========================================================================
SET LOCAL ROLE :"r_rls";
SELECT throws_ok($$SELECT * FROM gpu_groupby('r', 'k', 'count(*)') AS t(k int, n bigint)$$,
                 '0A000', NULL, 'a role subject to row-level security is refused (0A000)');
SELECT throws_ok($$SELECT * FROM gpu_groupby('r', '', 'count(*)', 'k = 0') AS t(n bigint)$$,
                 '0A000', NULL, '... whatever the filter (0A000)');
SELECT is((SELECT count(*) FROM r)::int, 20, 'control: plain SQL applies the policy for that role');
RESET ROLE;
SET LOCAL ROLE :"r_bypass";
SELECT results_eq($$SELECT * FROM gpu_groupby('r', 'k', 'count(*)') AS t(k int, n bigint) ORDER BY k$$,
                  $$VALUES (0, 10::bigint), (1, 10), (2, 10)$$,
                  'a BYPASSRLS role reads every row, as in plain SQL');
RESET ROLE;
ALTER TABLE r OWNER TO :"r_owner";
ALTER TABLE r FORCE ROW LEVEL SECURITY;
SET LOCAL ROLE :"r_owner";
SELECT throws_ok($$SELECT * FROM gpu_groupby('r', 'k', 'count(*)') AS t(k int, n bigint)$$,
                 '0A000', NULL, 'FORCE ROW LEVEL SECURITY: refused for the (non-superuser) owner too (0A000)');
RESET ROLE;
ALTER TABLE r NO FORCE ROW LEVEL SECURITY;

-- ===========================================================================
-- the caller's search_path does not reach into a filter
-- ===========================================================================
CREATE SCHEMA gpudb_tap_sec_evil;
CREATE FUNCTION gpudb_tap_sec_evil.int4eq_evil(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT true';
CREATE OPERATOR gpudb_tap_sec_evil.= (LEFTARG = int, RIGHTARG = int, FUNCTION = gpudb_tap_sec_evil.int4eq_evil);
CREATE FUNCTION gpudb_tap_sec_evil.sec_one(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 1';
GRANT USAGE ON SCHEMA gpudb_tap_sec_evil TO PUBLIC;
SET LOCAL search_path = gpudb_tap_sec_evil, pg_catalog, :"sch", public;
SELECT is((SELECT count(*) FROM h WHERE k = 1)::int, 60,
          'control: plain SQL resolves = to the operator of the caller''s search_path');
SELECT is((SELECT n FROM gpu_groupby('h', '', 'count(*)', 'k = 1') AS t(n bigint))::int, 20,
          'gpu_groupby''s filter uses pg_catalog''s =, not the caller''s');
SELECT throws_ok($$SELECT * FROM gpu_groupby('h', '', 'count(*)', 'sec_one(k) = 1') AS t(n bigint)$$,
                 '42883', NULL, 'a function found only through the caller''s search_path does not exist for a filter (42883)');
SELECT throws_ok($$SELECT * FROM gpu_groupby('h', '', 'count(*)', 'k OPERATOR(gpudb_tap_sec_evil.=) 1') AS t(n bigint)$$,
                 '0A000', NULL, 'nor name a user-defined operator explicitly (0A000)');
SET LOCAL search_path = :"sch", public;

-- ===========================================================================
-- the gpu_cache view: readable by anyone, metadata only, and only the entries
-- of tables the reader may read
-- ===========================================================================
SELECT is((SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)
             FROM pg_attribute WHERE attrelid = 'gpu_cache'::regclass AND attnum > 0),
          'relation regclass, columns name[], rows bigint, device_bytes bigint, host_bytes bigint, '
          'load_ms double precision, state text, hits bigint, last_use timestamp with time zone, '
          'loaded_at timestamp with time zone, shard_devices integer[], shard_rows bigint[], '
          'shard_bytes bigint[]',
          'gpu_cache shows names, sizes, times and counts: no column holds data values');
SET LOCAL ROLE :"r_none";
SELECT lives_ok($$SELECT * FROM gpu_cache$$, 'a role without any privilege may read gpu_cache');
RESET ROLE;

-- ===========================================================================
-- the cache (preloaded): who may load and drop, and reading through it
-- ===========================================================================
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 2)
       ELSE collect_tap(
           is((SELECT state FROM gpu_cache WHERE relation = 'c'::regclass), 'ready',
              'the table loaded by its owner (not a superuser) is cached'),
           ok((SELECT bool_and(tgfoid = 'public.gpudb_cache_invalidate()'::regprocedure)
                 FROM pg_trigger WHERE tgrelid = 'c'::regclass AND tgname LIKE 'gpudb%'),
              'its change-capture triggers call the extension''s function (by OID)'))
       END;
SET LOCAL ROLE :"r_none";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 4)
       ELSE collect_tap(
           throws_ok($$SELECT * FROM gpu_groupby('c', 'k', 'count(*)') AS t(k int, n bigint)$$,
                     '42501', NULL, 'cached: a role without SELECT cannot read through the cache (42501)'),
           throws_ok($$SELECT * FROM gpu_groupby('c', '', 'sum(v)', 't = ''t1''') AS t(s numeric)$$,
                     '42501', NULL, 'cached: ... neither an aggregate with a text filter (42501)'),
           throws_ok($$SELECT gpu_cache_load('c')$$, '42501', NULL,
                     'a role that neither owns the table nor is a cache admin cannot load (42501)'),
           throws_ok($$SELECT gpu_cache_drop('c')$$, '42501', NULL,
                     '... nor drop (42501)'))
       END;
SELECT is((SELECT count(*) FROM gpu_cache WHERE relation = 'c'::regclass)::int, 0,
          'gpu_cache hides the entry from a role that may not read the table');
RESET ROLE;
SET LOCAL ROLE :"r_cols";
SELECT is((SELECT count(*) FROM gpu_cache WHERE relation = 'c'::regclass)::int,
          CASE WHEN :'preloaded'::bool THEN 1 ELSE 0 END,
          'gpu_cache shows the entry to a role that may read some of its columns');
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 4)
       ELSE collect_tap(
           throws_ok($$SELECT * FROM gpu_groupby('c', 'k', 'sum(secret)') AS t(k int, s numeric)$$,
                     '42501', NULL, 'cached: an aggregate of a column it may not read (42501)'),
           throws_ok($$SELECT * FROM gpu_groupby('c', 'k', 'count(*)', 'secret > 0') AS t(k int, n bigint)$$,
                     '42501', NULL, 'cached: a filter on a column it may not read (42501)'),
           results_eq($$SELECT * FROM gpu_groupby('c', 't', 'count(*), sum(v)', 'k <> 2') AS x(t text, n bigint, s numeric) ORDER BY t$$,
                      $$SELECT t, count(*), sum(v) FROM c WHERE k <> 2 GROUP BY t ORDER BY t$$,
                      'cached: the columns it may read give plain SQL''s answer'),
           is((SELECT source FROM gpu_last_execution()), 'cache', '... read from the cache'))
       END;
RESET ROLE;
SET LOCAL ROLE :"r_reader";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 3)
       ELSE collect_tap(
           results_eq($$SELECT * FROM gpu_groupby('c', 'k', 'count(*), sum(secret)') AS x(k int, n bigint, s numeric) ORDER BY k$$,
                      $$SELECT k, count(*), sum(secret) FROM c GROUP BY k ORDER BY k$$,
                      'cached: SELECT on the table reads every column'),
           is((SELECT source FROM gpu_last_execution()), 'cache', '... from the cache'),
           throws_ok($$SELECT gpu_cache_drop('c')$$, '42501', NULL,
                     'SELECT on the table does not allow dropping its cache (42501)'))
       END;
RESET ROLE;
-- privileges are checked at each call: revoked, refused
REVOKE SELECT ON c FROM :"r_reader";
SET LOCAL ROLE :"r_reader";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 1)
       ELSE collect_tap(
           throws_ok($$SELECT * FROM gpu_groupby('c', 'k', 'count(*)') AS x(k int, n bigint)$$,
                     '42501', NULL, 'cached: once SELECT is revoked, reading is refused (42501)'))
       END;
RESET ROLE;
-- row-level security on the cached table
GRANT SELECT ON c TO :"r_rls";
ALTER TABLE c ENABLE ROW LEVEL SECURITY;
CREATE POLICY c_some ON c FOR SELECT USING (k = 1);
SET LOCAL ROLE :"r_rls";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 1)
       ELSE collect_tap(
           throws_ok($$SELECT * FROM gpu_groupby('c', 'k', 'count(*)') AS x(k int, n bigint)$$,
                     '0A000', NULL, 'cached: a role subject to row-level security is refused (0A000)'))
       END;
RESET ROLE;
ALTER TABLE c DISABLE ROW LEVEL SECURITY;
-- the owner and a cache admin pass the privilege check: their loads are
-- refused only because this transaction has written (0A000, not 42501)
SET LOCAL ROLE :"r_owner";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 1)
       ELSE collect_tap(
           throws_ok($$SELECT gpu_cache_load('c')$$, '0A000', NULL,
                     'the owner passes the privilege check of gpu_cache_load'))
       END;
RESET ROLE;
SET LOCAL ROLE :"r_admin";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 2)
       ELSE collect_tap(
           throws_ok($$SELECT gpu_cache_load('c')$$, '42501', NULL,
                     'a member of gpudb_cache_admin without SELECT and TRIGGER on the table cannot load it (42501)'),
           throws_ok($$SELECT * FROM gpu_groupby('c', 'k', 'count(*)') AS x(k int, n bigint)$$,
                     '42501', NULL, 'a cache admin without SELECT cannot read the table (42501)'))
       END;
RESET ROLE;
GRANT SELECT, TRIGGER ON c TO :"r_admin";
SET LOCAL ROLE :"r_admin";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 2)
       ELSE collect_tap(
           throws_ok($$SELECT gpu_cache_load('c')$$, '0A000', NULL,
                     'a member of gpudb_cache_admin with SELECT and TRIGGER passes the privilege check of gpu_cache_load'),
           is(gpu_cache_drop('c'), true, 'a cache admin may drop the cache of a table it does not own'))
       END;
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;

-- clean up what was committed before the transaction
\if :preloaded
SELECT gpu_cache_drop(:'sch' || '.c') IS NOT NULL AS dropped \gset
\endif
DROP SCHEMA :"sch" CASCADE;
DROP ROLE :"r_owner";
\if :created_gpudb
DROP EXTENSION gpudb;
\endif
