-- 01_gucs.sql — the gpudb.* GUCs: names, types, defaults, ranges, context,
-- and what SET accepts and refuses.  Defaults are checked as boot_val, so the
-- test is independent of the cluster's postgresql.conf (e.g. gpudb.device = gpu
-- on a GPU host).  Runs in one transaction that is rolled back.
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

-- The GUCs exist once the library is loaded; without shared_preload_libraries
-- nothing has loaded it yet in this session.
LOAD 'gpudb';

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS gpudb;

SELECT plan(63);

SELECT set_eq($$SELECT name::text FROM pg_settings WHERE name LIKE 'gpudb.%'$$,
              ARRAY['gpudb.enabled', 'gpudb.device', 'gpudb.batch_rows',
                    'gpudb.use_cache', 'gpudb.cache_size', 'gpudb.device_memory_limit',
                    'gpudb.enable_gpuscan', 'gpudb.enable_gpuagg', 'gpudb.enable_gpusort',
                    'gpudb.enable_gpujoin', 'gpudb.gpu_setup_cost', 'gpudb.gpu_tuple_cost', 'gpudb.gpu_transfer_cost',
                    'gpudb.explain_hardware', 'gpudb.debug_unsupported',
                    'gpudb.parallel_workers', 'gpudb.min_parallel_table_size',
                    'gpudb.devices', 'gpudb.cache_shards'],
              'the GUCs are exactly the nineteen documented ones');

-- the GPU server's devices and shards: fixed at server start
SELECT is((SELECT string_agg(name || '=' || boot_val || ':' || vartype || ':' || coalesce(min_val, '') || ':' ||
                             coalesce(max_val, '') || ':' || context, ' ' ORDER BY name)
             FROM pg_settings WHERE name IN ('gpudb.devices', 'gpudb.cache_shards')),
          'gpudb.cache_shards=0:integer:0:16:sighup gpudb.devices=:string:::sighup',
          'gpudb.devices defaults to every device, gpudb.cache_shards to one shard per device; both set in postgresql.conf');
SELECT throws_ok($$SET gpudb.devices = '0'$$, '55P02', NULL,
                 'gpudb.devices cannot be SET in a session');
SELECT is((SELECT count(*)::int FROM pg_settings WHERE name = 'gpudb.devices' AND setting ~ '^[0-9, ]*$'), 1,
          'gpudb.devices as configured is a list of ordinals (or empty)');

-- the planner's GUCs: user-settable, defaults from gpudb_defaults.h
SELECT is((SELECT string_agg(name || '=' || boot_val || ':' || vartype || ':' || context, ' ' ORDER BY name)
             FROM pg_settings WHERE name IN ('gpudb.enable_gpuscan', 'gpudb.enable_gpuagg',
                                             'gpudb.enable_gpusort', 'gpudb.enable_gpujoin',
                                             'gpudb.explain_hardware',
                                             'gpudb.debug_unsupported')),
          'gpudb.debug_unsupported=off:bool:user gpudb.enable_gpuagg=on:bool:user '
          'gpudb.enable_gpujoin=on:bool:user '
          'gpudb.enable_gpuscan=on:bool:user gpudb.enable_gpusort=on:bool:user '
          'gpudb.explain_hardware=on:bool:user',
          'the node switches default to on, the debug switch to off, all user-settable');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpudb.gpu_setup_cost'), '50',
          'gpudb.gpu_setup_cost defaults to 50');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpudb.gpu_tuple_cost'), '2e-05',
          'gpudb.gpu_tuple_cost defaults to 2e-05');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpudb.gpu_transfer_cost'), '0.0006',
          'gpudb.gpu_transfer_cost defaults to 0.0006');
SELECT is((SELECT string_agg(vartype || ':' || min_val || ':' || max_val || ':' || context, ' ')
             FROM pg_settings WHERE name LIKE 'gpudb.gpu\_%\_cost'),
          'real:0:1e+10:user real:0:1e+10:user real:0:1e+10:user',
          'the cost constants are reals in 0..1e10, user-settable');
SELECT throws_ok($$SET gpudb.gpu_setup_cost = -1$$, '22023', NULL, 'a negative cost is refused');
SELECT throws_ok($$SET gpudb.enable_gpuagg = 'sometimes'$$, '22023', NULL,
                 'gpudb.enable_gpuagg takes only booleans');
SELECT lives_ok($$SET LOCAL gpudb.gpu_tuple_cost = 0$$, 'SET gpudb.gpu_tuple_cost = 0');
SELECT is(current_setting('gpudb.gpu_tuple_cost'), '0', 'gpudb.gpu_tuple_cost reads back 0');
SELECT lives_ok($$SET LOCAL gpudb.enable_gpusort = off$$, 'SET gpudb.enable_gpusort = off');
SELECT is(current_setting('gpudb.enable_gpusort'), 'off', 'gpudb.enable_gpusort reads back off');
SELECT lives_ok($$SET LOCAL gpudb.explain_hardware = off$$, 'SET gpudb.explain_hardware = off');
SELECT lives_ok($$SET LOCAL gpudb.debug_unsupported = on$$, 'SET gpudb.debug_unsupported = on');
SELECT lives_ok($$SET LOCAL gpudb.gpu_setup_cost = 1e10$$, 'SET gpudb.gpu_setup_cost = 1e10 (the maximum)');
SELECT throws_ok($$SET gpudb.gpu_transfer_cost = 1e11$$, '22023', NULL, 'a cost above 1e10 is refused');

-- gpudb.enabled: bool, on, user
SELECT is((SELECT vartype FROM pg_settings WHERE name = 'gpudb.enabled'), 'bool', 'gpudb.enabled is a bool');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpudb.enabled'), 'on', 'gpudb.enabled defaults to on');
SELECT is((SELECT context FROM pg_settings WHERE name = 'gpudb.enabled'), 'user', 'gpudb.enabled is user-settable');
SELECT ok((SELECT min_val IS NULL AND max_val IS NULL AND enumvals IS NULL
             FROM pg_settings WHERE name = 'gpudb.enabled'), 'gpudb.enabled has no range');

-- gpudb.device: enum auto|gpu|cpu, auto, user
SELECT is((SELECT vartype FROM pg_settings WHERE name = 'gpudb.device'), 'enum', 'gpudb.device is an enum');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpudb.device'), 'auto', 'gpudb.device defaults to auto');
SELECT is((SELECT enumvals FROM pg_settings WHERE name = 'gpudb.device'), ARRAY['auto', 'gpu', 'cpu'],
          'gpudb.device accepts auto, gpu, cpu');
SELECT is((SELECT context FROM pg_settings WHERE name = 'gpudb.device'), 'user', 'gpudb.device is user-settable');
SELECT ok((SELECT min_val IS NULL AND max_val IS NULL FROM pg_settings WHERE name = 'gpudb.device'),
          'gpudb.device has no numeric range');

-- gpudb.batch_rows: integer 1024..67108864, 4194304, user, no unit
SELECT is((SELECT vartype FROM pg_settings WHERE name = 'gpudb.batch_rows'), 'integer', 'gpudb.batch_rows is an integer');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpudb.batch_rows'), '4194304',
          'gpudb.batch_rows defaults to 4194304');
SELECT is((SELECT min_val FROM pg_settings WHERE name = 'gpudb.batch_rows'), '1024', 'gpudb.batch_rows minimum is 1024');
SELECT is((SELECT max_val FROM pg_settings WHERE name = 'gpudb.batch_rows'), '67108864',
          'gpudb.batch_rows maximum is 67108864');
SELECT is((SELECT context FROM pg_settings WHERE name = 'gpudb.batch_rows'), 'user', 'gpudb.batch_rows is user-settable');
SELECT is((SELECT unit FROM pg_settings WHERE name = 'gpudb.batch_rows'), NULL, 'gpudb.batch_rows has no unit');
SELECT ok((SELECT enumvals IS NULL FROM pg_settings WHERE name = 'gpudb.batch_rows'),
          'gpudb.batch_rows has no enum values');

-- every GUC has a description
SELECT is((SELECT count(*)::int FROM pg_settings WHERE name LIKE 'gpudb.%' AND coalesce(short_desc, '') <> ''),
          19, 'every gpudb GUC has a description');

-- the parallel heap read: workers 0..1024 (8), threshold in blocks (8MB)
SELECT is((SELECT vartype || ':' || boot_val || ':' || min_val || ':' || max_val || ':' || context
             FROM pg_settings WHERE name = 'gpudb.parallel_workers'),
          'integer:8:0:1024:user', 'gpudb.parallel_workers is an integer 0..1024, 8, user-settable');
SELECT is((SELECT vartype || ':' || boot_val || ':' || min_val || ':' || unit || ':' || context
             FROM pg_settings WHERE name = 'gpudb.min_parallel_table_size'),
          'integer:1024:0:8kB:user', 'gpudb.min_parallel_table_size is 1024 blocks (8MB), user-settable');
SELECT lives_ok($$SET LOCAL gpudb.min_parallel_table_size = '64MB'$$, 'SET gpudb.min_parallel_table_size = ''64MB''');
SELECT is(current_setting('gpudb.min_parallel_table_size'), '64MB', 'gpudb.min_parallel_table_size reads back 64MB');
SELECT throws_ok($$SET gpudb.parallel_workers = -1$$, '22023', NULL, 'a negative gpudb.parallel_workers is refused');
SELECT throws_ok($$SET gpudb.parallel_workers = 1025$$, '22023', NULL, 'gpudb.parallel_workers above 1024 is refused');

-- SET refuses bad values with 22023 (invalid_parameter_value) ...
SELECT throws_ok($$SET gpudb.device = 'bogus'$$, '22023', NULL, 'SET gpudb.device = ''bogus'' fails with 22023');
SELECT throws_ok($$SET gpudb.device = ''$$, '22023', NULL, 'SET gpudb.device = '''' fails with 22023');
SELECT throws_ok($$SET gpudb.batch_rows = 10$$, '22023', NULL, 'SET gpudb.batch_rows = 10 fails with 22023');
SELECT throws_ok($$SET gpudb.batch_rows = 1023$$, '22023', NULL, 'SET gpudb.batch_rows = 1023 (below the minimum) fails');
SELECT throws_ok($$SET gpudb.batch_rows = 67108865$$, '22023', NULL, 'SET gpudb.batch_rows = 67108865 (above the maximum) fails');
SELECT throws_ok($$SET gpudb.batch_rows = -1$$, '22023', NULL, 'SET gpudb.batch_rows = -1 fails');
SELECT throws_ok($$SET gpudb.batch_rows = 'many'$$, '22023', NULL, 'SET gpudb.batch_rows = ''many'' fails');
SELECT throws_ok($$SET gpudb.enabled = 'maybe'$$, '22023', NULL, 'SET gpudb.enabled = ''maybe'' fails with 22023');
-- ... and the gpudb prefix is reserved once the library is loaded
SELECT throws_ok($$SET gpudb.no_such_setting = 1$$, '42602', NULL,
                 'an unknown gpudb.* name is refused (reserved prefix)');

-- ... and accepts the documented ones
SELECT lives_ok($$SET LOCAL gpudb.device = 'cpu'$$, 'SET gpudb.device = cpu');
SELECT is(current_setting('gpudb.device'), 'cpu', 'gpudb.device reads back cpu');
SELECT lives_ok($$SET LOCAL gpudb.device = 'gpu'$$, 'SET gpudb.device = gpu (accepted even without a GPU)');
SELECT lives_ok($$SET LOCAL gpudb.device = 'auto'$$, 'SET gpudb.device = auto');
SELECT lives_ok($$SET LOCAL gpudb.batch_rows = 1024$$, 'SET gpudb.batch_rows = 1024 (the minimum)');
SELECT lives_ok($$SET LOCAL gpudb.batch_rows = 67108864$$, 'SET gpudb.batch_rows = 67108864 (the maximum)');
SELECT is(current_setting('gpudb.batch_rows'), '67108864', 'gpudb.batch_rows reads back 67108864');
SELECT lives_ok($$SET LOCAL gpudb.enabled = off$$, 'SET gpudb.enabled = off');
SELECT is(current_setting('gpudb.enabled'), 'off', 'gpudb.enabled reads back off');

-- user-settable means an ordinary role may set them
SELECT 'gpudb_tap_guc_' || pg_backend_pid() || '_' || (random() * 1e6)::int AS guc_role \gset
CREATE ROLE :"guc_role" NOLOGIN NOSUPERUSER;
SET LOCAL ROLE :"guc_role";
SELECT lives_ok($$SET LOCAL gpudb.device = 'cpu'$$, 'an ordinary role may set gpudb.device');
SELECT lives_ok($$SET LOCAL gpudb.batch_rows = 2048$$, 'an ordinary role may set gpudb.batch_rows');
SELECT lives_ok($$SET LOCAL gpudb.enabled = on$$, 'an ordinary role may set gpudb.enabled');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
