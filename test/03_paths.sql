-- 03_paths.sql — path selection (gpudb.device, gpudb.enabled), gpu_devices(),
-- gpu_active_path(), gpu_last_execution(), NULL arguments.  The tests that
-- depend on the presence of a GPU run in one branch and are skipped in the
-- other: "a GPU is present" means gpu_devices() lists a device (ordinal IS NOT
-- NULL).  Runs in one transaction that is rolled back.
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS gpudb;

SELECT plan(26);

-- This is a new session: no gpu_groupby has run in it yet.
SELECT is_empty($$SELECT * FROM gpu_last_execution()$$,
                'gpu_last_execution() has no row before the first gpu_groupby of the session');

CREATE TEMP TABLE gpudb_tap_paths (g int, x float8, d date);
INSERT INTO gpudb_tap_paths
SELECT i % 3, i / 4.0, date '2024-01-01' + i FROM generate_series(1, 100) AS i;

-- gpu_devices(): at least one row; either a device or one row saying why not
SELECT ok((SELECT count(*) >= 1 FROM gpu_devices()), 'gpu_devices() returns at least one row');
SELECT ok((SELECT bool_and(active_path IN ('gpu', 'cpu')) FROM gpu_devices()),
          'gpu_devices().active_path is gpu or cpu');
SELECT ok((SELECT CASE WHEN bool_or(ordinal IS NULL)
                       THEN count(*) = 1 AND bool_and(reason IS NOT NULL AND reason <> '' AND active_path = 'cpu')
                       ELSE bool_and(name IS NOT NULL AND memory_total > 0 AND multiprocessors > 0)
                  END
             FROM gpu_devices()),
          'gpu_devices(): one row with a reason when there is no GPU, else device details');

-- gpudb.device = cpu forces the CPU path
SET LOCAL gpudb.device = 'cpu';
SELECT is(gpu_active_path(), 'cpu', 'gpu_active_path() is cpu under gpudb.device = cpu');
SELECT ok((SELECT bool_and(active_path = 'cpu' AND reason IS NOT NULL) FROM gpu_devices()),
          'gpu_devices() reports the CPU path, with a reason, under gpudb.device = cpu');
SELECT results_eq(
    $$SELECT * FROM gpu_groupby('gpudb_tap_paths', 'g', 'count(*), sum(x), min(d)', 'x > 2') AS t(g int, n bigint, sx float8, md date) ORDER BY g$$,
    $$SELECT g, count(*), sum(x), min(d) FROM gpudb_tap_paths WHERE x > 2 GROUP BY g ORDER BY g$$,
    'gpu_groupby on the CPU path equals plain SQL');
SELECT results_eq(
    $$SELECT path, rows_in, rows_selected, groups, batches, device_ms FROM gpu_last_execution()$$,
    $$VALUES ('cpu', 100::bigint, 92::bigint, 3::bigint, 1, 0::float8)$$,
    'gpu_last_execution(): cpu path, 100 rows in, 92 selected, 3 groups, 1 batch, no device time');
SELECT ok((SELECT total_ms >= 0 AND bytes_to_device = 0 AND bytes_from_device = 0 FROM gpu_last_execution()),
          'gpu_last_execution() on the CPU path: no bytes moved, total_ms >= 0');

-- gpudb.enabled = off forces the CPU path too, whatever gpudb.device says
SET LOCAL gpudb.device = 'auto';
SET LOCAL gpudb.enabled = off;
SELECT is(gpu_active_path(), 'cpu', 'gpu_active_path() is cpu under gpudb.enabled = off');
SELECT results_eq(
    $$SELECT * FROM gpu_groupby('gpudb_tap_paths', '', 'count(*)') AS t(n bigint)$$,
    $$VALUES (100::bigint)$$,
    'gpu_groupby works under gpudb.enabled = off');
SELECT is((SELECT path FROM gpu_last_execution()), 'cpu', '... and takes the CPU path');
SET LOCAL gpudb.device = 'gpu';
SELECT is(gpu_active_path(), 'cpu', 'gpudb.enabled = off wins over gpudb.device = gpu');
SET LOCAL gpudb.enabled = on;

-- gpudb.device = gpu: an error without a GPU, the GPU with one
SELECT EXISTS (SELECT 1 FROM gpu_devices() WHERE ordinal IS NOT NULL) AS have_gpu \gset
SET LOCAL gpudb.device = 'gpu';
SELECT CASE WHEN :'have_gpu'::bool THEN skip('a GPU is present', 3)
       ELSE collect_tap(
           throws_ok($$SELECT * FROM gpu_groupby('gpudb_tap_paths', 'g', 'count(*)') AS t(g int, n bigint)$$,
                     '55000', NULL, 'gpudb.device = gpu without a GPU: gpu_groupby raises 55000'),
           throws_ok($$SELECT gpu_active_path()$$,
                     '55000', NULL, 'gpudb.device = gpu without a GPU: gpu_active_path() raises 55000'),
           ok((SELECT bool_and(active_path = 'cpu' AND reason IS NOT NULL) FROM gpu_devices()),
              'gpudb.device = gpu without a GPU: gpu_devices() still answers, with a reason'))
       END;
SELECT CASE WHEN NOT :'have_gpu'::bool THEN skip('no GPU is present', 3)
       ELSE collect_tap(
           is(gpu_active_path(), 'gpu', 'gpudb.device = gpu with a GPU: gpu_active_path() is gpu'),
           results_eq($$SELECT * FROM gpu_groupby('gpudb_tap_paths', 'g', 'count(*), sum(x), min(d)', 'x > 2') AS t(g int, n bigint, sx float8, md date) ORDER BY g$$,
                      $$SELECT g, count(*), sum(x), min(d) FROM gpudb_tap_paths WHERE x > 2 GROUP BY g ORDER BY g$$,
                      'gpudb.device = gpu with a GPU: gpu_groupby equals plain SQL'),
           is((SELECT path FROM gpu_last_execution()), 'gpu',
              'gpudb.device = gpu with a GPU: gpu_last_execution().path is gpu'))
       END;

-- gpudb.device = auto: the GPU exactly when one is present
SET LOCAL gpudb.device = 'auto';
SELECT is(gpu_active_path(), CASE WHEN :'have_gpu'::bool THEN 'gpu' ELSE 'cpu' END,
          'gpudb.device = auto takes the GPU exactly when one is present');
SELECT results_eq(
    $$SELECT * FROM gpu_groupby('gpudb_tap_paths', 'g', 'max(x)') AS t(g int, mx float8) ORDER BY g$$,
    $$SELECT g, max(x) FROM gpudb_tap_paths GROUP BY g ORDER BY g$$,
    'gpudb.device = auto: gpu_groupby equals plain SQL');
SELECT is((SELECT path FROM gpu_last_execution()), gpu_active_path(),
          'gpu_last_execution().path is the path gpu_active_path() announced');

-- NULL arguments
SELECT throws_ok($$SELECT * FROM gpu_groupby(NULL, 'g', 'count(*)') AS t(g int, n bigint)$$,
                 '22004', NULL, 'NULL relation: 22004');
SELECT throws_ok($$SELECT * FROM gpu_groupby('gpudb_tap_paths', NULL, 'count(*)') AS t(g int, n bigint)$$,
                 '22004', NULL, 'NULL group_by: 22004');
SELECT throws_ok($$SELECT * FROM gpu_groupby('gpudb_tap_paths', 'g', NULL) AS t(g int, n bigint)$$,
                 '22004', NULL, 'NULL aggregates: 22004');
SELECT results_eq(
    $$SELECT * FROM gpu_groupby('gpudb_tap_paths', 'g', 'count(*)', NULL) AS t(g int, n bigint) ORDER BY g$$,
    $$SELECT g, count(*) FROM gpudb_tap_paths GROUP BY g ORDER BY g$$,
    'a NULL filter means no filter');

SELECT * FROM finish();
ROLLBACK;
