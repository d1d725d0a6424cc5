-- 00_signatures.sql — the SQL API of gpudb as installed by CREATE EXTENSION:
-- function signatures, result types, OUT columns, attributes.
-- Runs in one transaction that is rolled back; works in any database.
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS gpudb;

SELECT plan(52);

-- the extension
SELECT has_extension('gpudb', 'extension gpudb is installed');
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'gpudb'), '0.1.0',
          'gpudb version is 0.1.0');
SELECT is((SELECT n.nspname::text FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
            WHERE e.extname = 'gpudb'), 'public', 'gpudb is installed in schema public');
SELECT set_eq(
    $$SELECT p.oid::regprocedure::text
        FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
       WHERE d.classid = 'pg_proc'::regclass
         AND d.refclassid = 'pg_extension'::regclass
         AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gpudb')
         AND d.deptype = 'e'$$,
    ARRAY['gpu_groupby(regclass,text,text,text)', 'gpu_devices()',
          'gpu_active_path()', 'gpu_last_execution()',
          'gpu_cache_load(regclass,name[])', 'gpu_cache_drop(regclass)',
          'gpu_cache_status()', 'gpudb_cache_invalidate()',
          'gpu_debug_fault(text,integer,integer)', 'gpu_server_status()',
          'gpu_select(regclass,text,text)', 'gpu_sort(regclass,text,text,bigint,text)'],
    'the extension contains exactly the twelve documented functions');

-- gpu_select(relation regclass, columns text, filter text DEFAULT NULL)
SELECT function_returns('public', 'gpu_select', ARRAY['regclass', 'text', 'text'],
                        'setof record', 'gpu_select returns setof record');
SELECT is(pg_get_function_arguments('public.gpu_select(regclass,text,text)'::regprocedure),
          'relation regclass, columns text, filter text DEFAULT NULL::text',
          'gpu_select argument names, and filter defaults to NULL');
SELECT isnt_strict('public', 'gpu_select', ARRAY['regclass', 'text', 'text'],
                   'gpu_select is called on NULL input (it raises 22004 itself)');
SELECT isnt_definer('public', 'gpu_select', ARRAY['regclass', 'text', 'text'],
                    'gpu_select runs with the caller''s privileges');
-- gpu_sort(relation, columns, order_by, lim bigint DEFAULT NULL, filter DEFAULT NULL)
SELECT function_returns('public', 'gpu_sort', ARRAY['regclass', 'text', 'text', 'bigint', 'text'],
                        'setof record', 'gpu_sort returns setof record');
SELECT is(pg_get_function_arguments('public.gpu_sort(regclass,text,text,bigint,text)'::regprocedure),
          'relation regclass, columns text, order_by text, lim bigint DEFAULT NULL::bigint, filter text DEFAULT NULL::text',
          'gpu_sort argument names; lim and filter default to NULL');
SELECT isnt_strict('public', 'gpu_sort', ARRAY['regclass', 'text', 'text', 'bigint', 'text'],
                   'gpu_sort is called on NULL input (it raises 22004 itself)');
SELECT isnt_definer('public', 'gpu_sort', ARRAY['regclass', 'text', 'text', 'bigint', 'text'],
                    'gpu_sort runs with the caller''s privileges');

-- gpu_groupby(relation regclass, group_by text, aggregates text, filter text DEFAULT NULL)
SELECT has_function('public', 'gpu_groupby', ARRAY['regclass', 'text', 'text', 'text'],
                    'gpu_groupby(regclass, text, text, text) exists');
SELECT function_returns('public', 'gpu_groupby', ARRAY['regclass', 'text', 'text', 'text'],
                        'setof record', 'gpu_groupby returns setof record');
SELECT is(pg_get_function_arguments('public.gpu_groupby(regclass,text,text,text)'::regprocedure),
          'relation regclass, group_by text, aggregates text, filter text DEFAULT NULL::text',
          'gpu_groupby argument names, and filter defaults to NULL');
SELECT function_lang_is('public', 'gpu_groupby', ARRAY['regclass', 'text', 'text', 'text'], 'c',
                        'gpu_groupby is written in C');
SELECT isnt_strict('public', 'gpu_groupby', ARRAY['regclass', 'text', 'text', 'text'],
                   'gpu_groupby is called on NULL input (it raises 22004 itself)');
SELECT volatility_is('public', 'gpu_groupby', ARRAY['regclass', 'text', 'text', 'text'], 'volatile',
                     'gpu_groupby is volatile');
SELECT isnt_definer('public', 'gpu_groupby', ARRAY['regclass', 'text', 'text', 'text'],
                    'gpu_groupby runs with the caller''s privileges (not SECURITY DEFINER)');

-- gpu_devices()
SELECT has_function('public', 'gpu_devices', ARRAY[]::name[], 'gpu_devices() exists');
SELECT function_returns('public', 'gpu_devices', ARRAY[]::name[], 'setof record',
                        'gpu_devices returns setof record');
SELECT is(pg_get_function_arguments('public.gpu_devices()'::regprocedure),
          'OUT ordinal integer, OUT name text, OUT compute_capability text, '
          'OUT memory_total bigint, OUT memory_free bigint, OUT driver_version text, '
          'OUT runtime_version text, OUT multiprocessors integer, OUT active_path text, '
          'OUT reason text',
          'gpu_devices OUT columns');
SELECT function_lang_is('public', 'gpu_devices', ARRAY[]::name[], 'c', 'gpu_devices is written in C');
SELECT volatility_is('public', 'gpu_devices', ARRAY[]::name[], 'volatile', 'gpu_devices is volatile');
SELECT isnt_definer('public', 'gpu_devices', ARRAY[]::name[], 'gpu_devices is not SECURITY DEFINER');

-- gpu_active_path()
SELECT has_function('public', 'gpu_active_path', ARRAY[]::name[], 'gpu_active_path() exists');
SELECT function_returns('public', 'gpu_active_path', ARRAY[]::name[], 'text',
                        'gpu_active_path returns text');
SELECT function_lang_is('public', 'gpu_active_path', ARRAY[]::name[], 'c', 'gpu_active_path is written in C');
SELECT volatility_is('public', 'gpu_active_path', ARRAY[]::name[], 'volatile',
                     'gpu_active_path is volatile (it depends on GUCs and devices)');
SELECT isnt_definer('public', 'gpu_active_path', ARRAY[]::name[], 'gpu_active_path is not SECURITY DEFINER');

-- gpu_last_execution()
SELECT has_function('public', 'gpu_last_execution', ARRAY[]::name[], 'gpu_last_execution() exists');
SELECT function_returns('public', 'gpu_last_execution', ARRAY[]::name[], 'setof record',
                        'gpu_last_execution returns setof record');
SELECT is(pg_get_function_arguments('public.gpu_last_execution()'::regprocedure),
          'OUT path text, OUT device text, OUT rows_in bigint, OUT rows_selected bigint, '
          'OUT groups bigint, OUT batches integer, OUT bytes_to_device bigint, '
          'OUT bytes_from_device bigint, OUT device_ms double precision, '
          'OUT total_ms double precision, OUT source text',
          'gpu_last_execution OUT columns');
SELECT function_lang_is('public', 'gpu_last_execution', ARRAY[]::name[], 'c', 'gpu_last_execution is written in C');
SELECT volatility_is('public', 'gpu_last_execution', ARRAY[]::name[], 'volatile',
                     'gpu_last_execution is volatile');
SELECT isnt_definer('public', 'gpu_last_execution', ARRAY[]::name[], 'gpu_last_execution is not SECURITY DEFINER');

-- attributes shared by the four functions above (the cache functions: 04_cache.sql)
SELECT is((SELECT count(*)::int FROM pg_proc
            WHERE oid IN ('public.gpu_groupby(regclass,text,text,text)'::regprocedure,
                          'public.gpu_devices()'::regprocedure,
                          'public.gpu_active_path()'::regprocedure,
                          'public.gpu_last_execution()'::regprocedure)
              AND proparallel = 'r'),
          4, 'all four functions are PARALLEL RESTRICTED');
SELECT is((SELECT count(*)::int FROM pg_proc
            WHERE oid IN ('public.gpu_groupby(regclass,text,text,text)'::regprocedure,
                          'public.gpu_devices()'::regprocedure,
                          'public.gpu_active_path()'::regprocedure,
                          'public.gpu_last_execution()'::regprocedure)
              AND proconfig = ARRAY['search_path=pg_catalog, pg_temp']),
          4, 'all four functions pin search_path = pg_catalog, pg_temp');
SELECT is((SELECT array_agg(proname::text ORDER BY proname) FROM pg_proc
            WHERE oid IN ('public.gpu_devices()'::regprocedure,
                          'public.gpu_active_path()'::regprocedure,
                          'public.gpu_last_execution()'::regprocedure)
              AND proisstrict),
          ARRAY['gpu_active_path', 'gpu_devices', 'gpu_last_execution'],
          'the argument-less functions are STRICT');
SELECT ok(has_function_privilege('public', 'public.gpu_groupby(regclass,text,text,text)', 'EXECUTE'),
          'PUBLIC may execute gpu_groupby (table privileges are checked inside)');

-- the testing aids: gpu_debug_fault (superusers only) and gpu_server_status
SELECT has_function('public', 'gpu_debug_fault', ARRAY['text', 'integer', 'integer'],
                    'gpu_debug_fault(text, integer, integer) exists');
SELECT function_returns('public', 'gpu_debug_fault', ARRAY['text', 'integer', 'integer'], 'void',
                        'gpu_debug_fault returns void');
SELECT is(pg_get_function_arguments('public.gpu_debug_fault(text,integer,integer)'::regprocedure),
          'point text, count integer DEFAULT 1, delay_ms integer DEFAULT 0',
          'gpu_debug_fault argument names and defaults');
SELECT function_lang_is('public', 'gpu_debug_fault', ARRAY['text', 'integer', 'integer'], 'c',
                        'gpu_debug_fault is written in C');
SELECT isnt_strict('public', 'gpu_debug_fault', ARRAY['text', 'integer', 'integer'],
                   'gpu_debug_fault is called on NULL input (it raises 22004 itself)');
SELECT isnt_definer('public', 'gpu_debug_fault', ARRAY['text', 'integer', 'integer'],
                    'gpu_debug_fault is not SECURITY DEFINER');
SELECT ok(NOT has_function_privilege('public', 'public.gpu_debug_fault(text,integer,integer)', 'EXECUTE'),
          'PUBLIC may not execute gpu_debug_fault (it also checks superuser itself)');
SELECT has_function('public', 'gpu_server_status', ARRAY[]::name[], 'gpu_server_status() exists');
SELECT function_returns('public', 'gpu_server_status', ARRAY[]::name[], 'setof record',
                        'gpu_server_status returns setof record');
SELECT is(pg_get_function_arguments('public.gpu_server_status()'::regprocedure),
          'OUT mode text, OUT device text, OUT cache_bytes bigint, OUT scratch_bytes bigint, '
          'OUT requests bigint, OUT process_starts integer, OUT kept_bytes bigint',
          'gpu_server_status OUT columns');
SELECT volatility_is('public', 'gpu_server_status', ARRAY[]::name[], 'volatile',
                     'gpu_server_status is volatile');
SELECT ok(has_function_privilege('public', 'public.gpu_server_status()', 'EXECUTE'),
          'PUBLIC may execute gpu_server_status');

SELECT * FROM finish();
ROLLBACK;
