-- 04_cache.sql — the column cache's SQL API: gpu_cache_load, gpu_cache_drop,
-- gpu_cache_status() and the gpu_cache view, the trigger function
-- gpudb_cache_invalidate(), gpu_last_execution().source, the gpudb.use_cache,
-- gpudb.cache_size and gpudb.device_memory_limit GUCs, the gpudb_cache_admin
-- role, and who may load and drop.  The tests that need the GPU server (that
-- is, shared_preload_libraries = gpudb) run in one branch and are skipped in
-- the other, which checks the 55000 error instead.  Runs in one transaction
-- that is rolled back.
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

-- the GUCs exist once the library is loaded
LOAD 'gpudb';

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS gpudb;

SELECT plan(64);

SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset

-- gpu_cache_load(relation regclass, columns name[] DEFAULT NULL) RETURNS bigint
SELECT has_function('public', 'gpu_cache_load', ARRAY['regclass', 'name[]'],
                    'gpu_cache_load(regclass, name[]) exists');
SELECT function_returns('public', 'gpu_cache_load', ARRAY['regclass', 'name[]'], 'bigint',
                        'gpu_cache_load returns bigint');
SELECT is(pg_get_function_arguments('public.gpu_cache_load(regclass,name[])'::regprocedure),
          'relation regclass, columns name[] DEFAULT NULL::name[]',
          'gpu_cache_load argument names, and columns defaults to NULL');
SELECT function_lang_is('public', 'gpu_cache_load', ARRAY['regclass', 'name[]'], 'c',
                        'gpu_cache_load is written in C');
SELECT isnt_strict('public', 'gpu_cache_load', ARRAY['regclass', 'name[]'],
                   'gpu_cache_load is called on NULL input (NULL columns means all)');
SELECT volatility_is('public', 'gpu_cache_load', ARRAY['regclass', 'name[]'], 'volatile',
                     'gpu_cache_load is volatile');
SELECT isnt_definer('public', 'gpu_cache_load', ARRAY['regclass', 'name[]'],
                    'gpu_cache_load is not SECURITY DEFINER (it checks ownership itself)');

-- gpu_cache_drop(relation regclass) RETURNS boolean
SELECT has_function('public', 'gpu_cache_drop', ARRAY['regclass'], 'gpu_cache_drop(regclass) exists');
SELECT function_returns('public', 'gpu_cache_drop', ARRAY['regclass'], 'boolean',
                        'gpu_cache_drop returns boolean');
SELECT is(pg_get_function_arguments('public.gpu_cache_drop(regclass)'::regprocedure),
          'relation regclass', 'gpu_cache_drop argument name');
SELECT function_lang_is('public', 'gpu_cache_drop', ARRAY['regclass'], 'c', 'gpu_cache_drop is written in C');
SELECT volatility_is('public', 'gpu_cache_drop', ARRAY['regclass'], 'volatile', 'gpu_cache_drop is volatile');
SELECT isnt_definer('public', 'gpu_cache_drop', ARRAY['regclass'], 'gpu_cache_drop is not SECURITY DEFINER');

-- gpu_cache_status() RETURNS SETOF record, behind the gpu_cache view
SELECT has_function('public', 'gpu_cache_status', ARRAY[]::name[], 'gpu_cache_status() exists');
SELECT function_returns('public', 'gpu_cache_status', ARRAY[]::name[], 'setof record',
                        'gpu_cache_status returns setof record');
SELECT is(pg_get_function_arguments('public.gpu_cache_status()'::regprocedure),
          'OUT relation regclass, OUT columns name[], OUT rows bigint, OUT device_bytes bigint, '
          'OUT host_bytes bigint, OUT load_ms double precision, OUT state text, OUT hits bigint, '
          'OUT last_use timestamp with time zone, OUT loaded_at timestamp with time zone, '
          'OUT shard_devices integer[], OUT shard_rows bigint[], OUT shard_bytes bigint[]',
          'gpu_cache_status OUT columns');
SELECT function_lang_is('public', 'gpu_cache_status', ARRAY[]::name[], 'c', 'gpu_cache_status is written in C');
SELECT isnt_definer('public', 'gpu_cache_status', ARRAY[]::name[], 'gpu_cache_status is not SECURITY DEFINER');

-- gpudb_cache_invalidate() RETURNS trigger
SELECT has_function('public', 'gpudb_cache_invalidate', ARRAY[]::name[], 'gpudb_cache_invalidate() exists');
SELECT function_returns('public', 'gpudb_cache_invalidate', ARRAY[]::name[], 'trigger',
                        'gpudb_cache_invalidate returns trigger');
SELECT function_lang_is('public', 'gpudb_cache_invalidate', ARRAY[]::name[], 'c',
                        'gpudb_cache_invalidate is written in C');
SELECT throws_ok($$SELECT gpudb_cache_invalidate()$$, '39P01', NULL,
                 'gpudb_cache_invalidate() called as a plain function raises 39P01');

-- attributes shared by the three cache functions
SELECT is((SELECT count(*)::int FROM pg_proc
            WHERE oid IN ('public.gpu_cache_load(regclass,name[])'::regprocedure,
                          'public.gpu_cache_drop(regclass)'::regprocedure,
                          'public.gpu_cache_status()'::regprocedure)
              AND proconfig = ARRAY['search_path=pg_catalog, pg_temp']),
          3, 'the cache functions pin search_path = pg_catalog, pg_temp');
SELECT is((SELECT array_agg(proname::text || ':' || proparallel::text ORDER BY proname) FROM pg_proc
            WHERE oid IN ('public.gpu_cache_load(regclass,name[])'::regprocedure,
                          'public.gpu_cache_drop(regclass)'::regprocedure)),
          ARRAY['gpu_cache_drop:u', 'gpu_cache_load:u'],
          'gpu_cache_load and gpu_cache_drop are PARALLEL UNSAFE (they change the cache)');

-- the gpu_cache view: columns, in order, and their types
SELECT has_view('public', 'gpu_cache', 'view gpu_cache exists');
SELECT results_eq(
    $$SELECT attname::text COLLATE "default", format_type(atttypid, atttypmod) FROM pg_attribute
       WHERE attrelid = 'public.gpu_cache'::regclass AND attnum > 0 AND NOT attisdropped
       ORDER BY attnum$$,
    $$VALUES ('relation', 'regclass'), ('columns', 'name[]'), ('rows', 'bigint'),
             ('device_bytes', 'bigint'), ('host_bytes', 'bigint'), ('load_ms', 'double precision'),
             ('state', 'text'), ('hits', 'bigint'), ('last_use', 'timestamp with time zone'),
             ('loaded_at', 'timestamp with time zone'), ('shard_devices', 'integer[]'),
             ('shard_rows', 'bigint[]'), ('shard_bytes', 'bigint[]')$$,
    'gpu_cache columns and types');
SELECT ok(EXISTS (SELECT 1 FROM pg_depend
                   WHERE classid = 'pg_class'::regclass AND objid = 'public.gpu_cache'::regclass
                     AND refclassid = 'pg_extension'::regclass AND deptype = 'e'
                     AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gpudb')),
          'gpu_cache belongs to the extension');

-- gpu_last_execution() gains source, its last column
SELECT is((SELECT proargnames[array_length(proargnames, 1)]
             FROM pg_proc WHERE oid = 'public.gpu_last_execution()'::regprocedure),
          'source', 'gpu_last_execution() ends with the column source');
SELECT is((SELECT format_type(proallargtypes[array_length(proallargtypes, 1)], NULL)
             FROM pg_proc WHERE oid = 'public.gpu_last_execution()'::regprocedure),
          'text', 'gpu_last_execution().source is text');

-- the GUCs
SELECT is((SELECT vartype || ' ' || boot_val || ' ' || context FROM pg_settings WHERE name = 'gpudb.use_cache'),
          'bool on user', 'gpudb.use_cache: bool, on by default, user-settable');
SELECT is((SELECT vartype FROM pg_settings WHERE name = 'gpudb.cache_size'), 'integer',
          'gpudb.cache_size is an integer');
SELECT is((SELECT unit FROM pg_settings WHERE name = 'gpudb.cache_size'), 'kB',
          'gpudb.cache_size is a memory size in kB');
SELECT is((SELECT pg_size_bytes(boot_val || unit) FROM pg_settings WHERE name = 'gpudb.cache_size'),
          pg_size_bytes('4GB'), 'gpudb.cache_size defaults to 4GB');
SELECT is((SELECT min_val || '..' || max_val FROM pg_settings WHERE name = 'gpudb.cache_size'),
          '0..2147483647', 'gpudb.cache_size ranges over 0..2147483647 kB');
SELECT is((SELECT context FROM pg_settings WHERE name = 'gpudb.cache_size'), 'sighup',
          'gpudb.cache_size is set in postgresql.conf (sighup)');
SELECT is((SELECT vartype FROM pg_settings WHERE name = 'gpudb.device_memory_limit'), 'integer',
          'gpudb.device_memory_limit is an integer');
SELECT is((SELECT unit FROM pg_settings WHERE name = 'gpudb.device_memory_limit'), 'kB',
          'gpudb.device_memory_limit is a memory size in kB');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpudb.device_memory_limit'), '0',
          'gpudb.device_memory_limit defaults to 0 (the whole device)');
SELECT is((SELECT min_val || '..' || max_val FROM pg_settings WHERE name = 'gpudb.device_memory_limit'),
          '0..2147483647', 'gpudb.device_memory_limit ranges over 0..2147483647 kB');
SELECT is((SELECT context FROM pg_settings WHERE name = 'gpudb.device_memory_limit'), 'sighup',
          'gpudb.device_memory_limit is set in postgresql.conf (sighup)');
SELECT throws_ok($$SET gpudb.cache_size = '1GB'$$, '55P02', NULL,
                 'SET gpudb.cache_size is refused (55P02: only in postgresql.conf)');
SELECT throws_ok($$SET gpudb.device_memory_limit = '1GB'$$, '55P02', NULL,
                 'SET gpudb.device_memory_limit is refused (55P02)');
SELECT throws_ok($$SET gpudb.use_cache = 'sometimes'$$, '22023', NULL,
                 'SET gpudb.use_cache = ''sometimes'' fails with 22023');

-- roles of this test, unique to this run
SELECT 'gpudb_tap_cache_' || pg_backend_pid() || '_' || (random() * 1e6)::int AS sfx \gset
SELECT :'sfx' || '_none' AS r_none, :'sfx' || '_reader' AS r_reader,
       :'sfx' || '_admin' AS r_admin, :'sfx' || '_owner' AS r_owner \gset
CREATE ROLE :"r_none" NOLOGIN;
CREATE ROLE :"r_reader" NOLOGIN;
CREATE ROLE :"r_admin" NOLOGIN;
CREATE ROLE :"r_owner" NOLOGIN;
CREATE SCHEMA gpudb_tap_cache;
GRANT USAGE ON SCHEMA gpudb_tap_cache TO :"r_none", :"r_reader", :"r_admin", :"r_owner";
CREATE TABLE gpudb_tap_cache.t (k int, v int8, s text);
INSERT INTO gpudb_tap_cache.t SELECT i % 3, i, 's' || (i % 2) FROM generate_series(1, 30) i;
GRANT SELECT ON gpudb_tap_cache.t TO :"r_reader";
CREATE TABLE gpudb_tap_cache.t_owned (k int);
ALTER TABLE gpudb_tap_cache.t_owned OWNER TO :"r_owner";

-- gpudb_cache_admin
SELECT has_role('gpudb_cache_admin', 'role gpudb_cache_admin exists');
SELECT ok((SELECT NOT rolcanlogin AND NOT rolsuper AND NOT rolcreaterole AND NOT rolcreatedb
             FROM pg_roles WHERE rolname = 'gpudb_cache_admin'),
          'gpudb_cache_admin cannot log in and has no other attribute');
GRANT gpudb_cache_admin TO :"r_admin";
SELECT is_member_of('gpudb_cache_admin', :'r_admin', 'a role can be made a cache admin');
-- anyone may execute the functions: who may load and drop is checked inside
SELECT ok(has_function_privilege('public', 'public.gpu_cache_load(regclass,name[])', 'EXECUTE')
          AND has_function_privilege('public', 'public.gpu_cache_drop(regclass)', 'EXECUTE'),
          'PUBLIC may execute gpu_cache_load and gpu_cache_drop');
SELECT is(has_table_privilege('public', 'public.gpu_cache', 'SELECT'),
          has_function_privilege('public', 'public.gpu_cache_status()', 'EXECUTE'),
          'the gpu_cache view is readable by PUBLIC exactly when gpu_cache_status() is');
SELECT is((SELECT count(*)::int FROM gpu_cache WHERE relation = 'gpudb_tap_cache.t'::regclass), 0,
          'a new table has no cache entry');

-- with the GPU server (preloaded): who may load and drop
SET LOCAL ROLE :"r_none";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 3)
       ELSE collect_tap(
           throws_ok($$SELECT gpu_cache_load('gpudb_tap_cache.t')$$, '42501', NULL,
                     'a role that is neither owner nor cache admin cannot load: 42501'),
           throws_ok($$SELECT gpu_cache_drop('gpudb_tap_cache.t')$$, '42501', NULL,
                     'a role that is neither owner nor cache admin cannot drop: 42501'),
           throws_ok($$SELECT gpu_cache_load('gpudb_tap_cache.t', ARRAY['k'])$$, '42501', NULL,
                     '... nor load chosen columns: 42501'))
       END;
RESET ROLE;
SET LOCAL ROLE :"r_reader";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 2)
       ELSE collect_tap(
           throws_ok($$SELECT gpu_cache_load('gpudb_tap_cache.t')$$, '42501', NULL,
                     'SELECT on the table is not enough to load: 42501'),
           throws_ok($$SELECT gpu_cache_drop('gpudb_tap_cache.t')$$, '42501', NULL,
                     'SELECT on the table is not enough to drop: 42501'))
       END;
RESET ROLE;
SET LOCAL ROLE :"r_admin";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 1)
       ELSE collect_tap(
           is(gpu_cache_drop('gpudb_tap_cache.t'), false,
              'a cache admin may drop (false: nothing was cached)'))
       END;
RESET ROLE;
SET LOCAL ROLE :"r_owner";
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 2)
       ELSE collect_tap(
           is(gpu_cache_drop('gpudb_tap_cache.t_owned'), false,
              'the owner may drop (false: nothing was cached)'),
           throws_ok($$SELECT gpu_cache_drop('gpudb_tap_cache.t')$$, '42501', NULL,
                     'owning one table gives nothing on another: 42501'))
       END;
RESET ROLE;
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 1)
       ELSE collect_tap(
           throws_ok($$SELECT gpu_cache_load(NULL)$$, '22004', NULL,
                     'a NULL relation: 22004'))
       END;

-- without the GPU server: 55000, and gpu_groupby still reads the heap
SELECT CASE WHEN :'preloaded'::bool THEN skip('gpudb is preloaded', 4)
       ELSE collect_tap(
           throws_ok($$SELECT gpu_cache_load('gpudb_tap_cache.t')$$, '55000', NULL,
                     'not preloaded: gpu_cache_load raises 55000'),
           throws_ok($$SELECT gpu_cache_drop('gpudb_tap_cache.t')$$, '55000', NULL,
                     'not preloaded: gpu_cache_drop raises 55000'),
           is_empty($$SELECT * FROM gpu_cache$$, 'not preloaded: the gpu_cache view is empty'),
           throws_ok($$SELECT gpu_cache_load('gpudb_tap_cache.t', ARRAY['k'])$$, '55000', NULL,
                     'not preloaded: gpu_cache_load of chosen columns raises 55000'))
       END;

SELECT results_eq(
    $$SELECT * FROM gpu_groupby('gpudb_tap_cache.t', 's', 'count(*), sum(v)') AS g(s text, n bigint, sv numeric) ORDER BY s$$,
    $$SELECT s, count(*), sum(v) FROM gpudb_tap_cache.t GROUP BY s ORDER BY s$$,
    'gpu_groupby of an uncached table equals plain SQL');
SELECT is((SELECT source FROM gpu_last_execution()), 'heap', '... and reads the heap');

SELECT * FROM finish();
ROLLBACK;
