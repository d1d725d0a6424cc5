-- 06_shards.sql — a cached relation split into shards over the GPU server's
-- devices (gpudb.devices, gpudb.cache_shards; server_shards.c): the
-- gpu_cache view's shard columns, and every operator answered from the
-- shards (a group-by's partial states combined, an ordered group-by cut
-- after the combine, a selection in row order, a top-k re-sorted, a
-- GpudbJoin probing every shard) against the same query with gpudb off.
-- With one shard (the default on one device) the same answers hold; the
-- checks that need several shards are skipped.  Without the GPU server
-- (no shared_preload_libraries) everything is skipped.  Not one
-- transaction: gpu_cache_load must run in a transaction of its own; the
-- tables are dropped at the end.
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

LOAD 'gpudb';
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS gpudb;

SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset

DROP TABLE IF EXISTS gpudb_tap_shards, gpudb_tap_shards_dim, gpudb_tap_shards_big;
CREATE TABLE gpudb_tap_shards AS
SELECT i AS id, i % 97 AS g,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 13)::int8 END AS n,
       ((i * 7919) % 1000) * 0.25::float8 AS v,
       (i * 7919) % 30011 AS k,
       i % 50 AS d
  FROM generate_series(1, 30000) AS i;
CREATE TABLE gpudb_tap_shards_dim AS
SELECT j AS d, j * 3 AS w FROM generate_series(0, 39) AS j;
-- many groups in every shard: partial states of megabytes (on a GPU they
-- stay on their devices and combine on the first one)
CREATE TABLE gpudb_tap_shards_big AS
SELECT i % 150000 AS g, (i % 1000) * 0.5::float8 AS v FROM generate_series(1, 300000) AS i;
ANALYZE gpudb_tap_shards;
ANALYZE gpudb_tap_shards_dim;
ANALYZE gpudb_tap_shards_big;
\if :preloaded
SELECT gpu_cache_load('gpudb_tap_shards') AS loaded \gset
SELECT gpu_cache_load('gpudb_tap_shards_dim') AS loaded_dim \gset
SELECT gpu_cache_load('gpudb_tap_shards_big') AS loaded_big \gset
\endif

-- q's rows as text, in the order returned, with gpudb on or off
CREATE FUNCTION pg_temp.shard_rows(q text, gpu bool) RETURNS SETOF text
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('gpudb.enabled', CASE WHEN gpu THEN 'on' ELSE 'off' END, true);
  RETURN QUERY EXECUTE format('SELECT x::text FROM (%s) x', q);
END $$;

-- EXPLAIN ANALYZE of q with the nodes forced onto the device: does a
-- Gpudb node read the cache?
CREATE FUNCTION pg_temp.from_cache(q text) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
  l text;
  node bool := false;
  cache bool := false;
BEGIN
  PERFORM set_config('gpudb.enabled', 'on', true);
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ' || q LOOP
    node := node OR l ~ 'Custom Scan \(Gpudb';
    cache := cache OR l ~ 'Source: cache';
  END LOOP;
  RETURN node AND cache;
END $$;

SET gpudb.gpu_setup_cost = 0;
SET gpudb.gpu_tuple_cost = 0;
SET gpudb.gpu_transfer_cost = 0;
SET max_parallel_workers_per_gather = 0;

SELECT plan(17);

-- (coalesce: \gset unsets a variable for a NULL)
SELECT coalesce((SELECT cardinality(shard_rows) FROM gpu_cache
                  WHERE relation = 'gpudb_tap_shards'::regclass), 0) AS nshards \gset

-- the view: one element per shard, in row order, adding up
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 4)
       ELSE collect_tap(
           ok((SELECT rows = (SELECT sum(x) FROM unnest(shard_rows) x)
                 FROM gpu_cache WHERE relation = 'gpudb_tap_shards'::regclass),
              'the shards'' rows add up to the entry''s'),
           ok((SELECT cardinality(shard_rows) = cardinality(shard_bytes)
                      AND cardinality(shard_rows) = cardinality(shard_devices)
                 FROM gpu_cache WHERE relation = 'gpudb_tap_shards'::regclass),
              'one device, row count and byte count per shard'),
           ok((SELECT current_setting('gpudb.cache_shards')::int = 0
                      OR cardinality(shard_rows) = current_setting('gpudb.cache_shards')::int
                 FROM gpu_cache WHERE relation = 'gpudb_tap_shards'::regclass),
              'gpudb.cache_shards shards when it is set'),
           ok((SELECT (SELECT bool_and(x IS NULL) FROM unnest(shard_devices) x) =
                      ((SELECT mode FROM gpu_server_status()) = 'cpu')
                 FROM gpu_cache WHERE relation = 'gpudb_tap_shards'::regclass),
              'a shard names its CUDA device, NULL in CPU mode'))
       END;

SELECT CASE WHEN NOT :'preloaded'::bool OR :nshards < 2
            THEN skip('one shard: nothing is split', 1)
       ELSE collect_tap(
           ok((SELECT bool_and(x > 0) FROM gpu_cache, unnest(shard_rows) x
                WHERE relation = 'gpudb_tap_shards'::regclass),
              'an analyzed table fills every shard'))
       END;

-- every operator from the shards, as PostgreSQL answers
SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 9)
       ELSE collect_tap(
           ok(pg_temp.from_cache('SELECT g, count(*) FROM gpudb_tap_shards GROUP BY g'),
              'the group-by reads the cache'),
           results_eq($$SELECT * FROM pg_temp.shard_rows(
                          'SELECT g, count(*), count(n), sum(n), avg(v), min(k), max(v), sum(v)
                             FROM gpudb_tap_shards GROUP BY g ORDER BY g', true)$$,
                      $$SELECT * FROM pg_temp.shard_rows(
                          'SELECT g, count(*), count(n), sum(n), avg(v), min(k), max(v), sum(v)
                             FROM gpudb_tap_shards GROUP BY g ORDER BY g', false)$$,
                      'a group-by: the shards'' states combined'),
           results_eq($$SELECT * FROM pg_temp.shard_rows(
                          'SELECT count(*), sum(k), avg(n), round(stddev_samp(v)::numeric, 6)
                             FROM gpudb_tap_shards WHERE k % 3 = 1', true)$$,
                      $$SELECT * FROM pg_temp.shard_rows(
                          'SELECT count(*), sum(k), avg(n), round(stddev_samp(v)::numeric, 6)
                             FROM gpudb_tap_shards WHERE k % 3 = 1', false)$$,
                      'an aggregate without keys: one row from every shard'),
           results_eq($$SELECT * FROM pg_temp.shard_rows(
                          'SELECT n, count(*) FROM gpudb_tap_shards GROUP BY n
                            ORDER BY count(*) DESC, n LIMIT 4', true)$$,
                      $$SELECT * FROM pg_temp.shard_rows(
                          'SELECT n, count(*) FROM gpudb_tap_shards GROUP BY n
                            ORDER BY count(*) DESC, n LIMIT 4', false)$$,
                      'an ordered group-by is cut only after the shards combine'),
           ok(pg_temp.from_cache('SELECT id, k FROM gpudb_tap_shards WHERE k < 300'),
              'the selection reads the cache'),
           results_eq($$SELECT * FROM pg_temp.shard_rows(
                          'SELECT id, k, n FROM gpudb_tap_shards WHERE k < 300', true)$$,
                      $$SELECT * FROM pg_temp.shard_rows(
                          'SELECT id, k, n FROM gpudb_tap_shards WHERE k < 300', false)$$,
                      'a selection: the shards'' rows in the heap''s order'),
           results_eq($$SELECT * FROM pg_temp.shard_rows(
                          'SELECT id, v FROM gpudb_tap_shards ORDER BY v DESC, id LIMIT 25', true)$$,
                      $$SELECT * FROM pg_temp.shard_rows(
                          'SELECT id, v FROM gpudb_tap_shards ORDER BY v DESC, id LIMIT 25', false)$$,
                      'a top-k: each shard''s first rows sorted again'),
           ok(pg_temp.from_cache('SELECT s.g, sum(w) FROM gpudb_tap_shards s
                                    JOIN gpudb_tap_shards_dim t ON s.d = t.d GROUP BY s.g'),
              'the join reads the cache'),
           results_eq($$SELECT * FROM pg_temp.shard_rows(
                          'SELECT s.g, count(*), sum(w) FROM gpudb_tap_shards s
                             JOIN gpudb_tap_shards_dim t ON s.d = t.d GROUP BY s.g ORDER BY s.g', true)$$,
                      $$SELECT * FROM pg_temp.shard_rows(
                          'SELECT s.g, count(*), sum(w) FROM gpudb_tap_shards s
                             JOIN gpudb_tap_shards_dim t ON s.d = t.d GROUP BY s.g ORDER BY s.g', false)$$,
                      'a join probed over every shard, its groups combined'))
       END;

SELECT CASE WHEN NOT :'preloaded'::bool THEN skip('gpudb is not preloaded', 3)
       ELSE collect_tap(
           ok(pg_temp.from_cache('SELECT g, count(*) FROM gpudb_tap_shards_big GROUP BY g'),
              'the group-by of many groups reads the cache'),
           results_eq($$SELECT * FROM pg_temp.shard_rows(
                          'SELECT g, count(*), sum(v) FROM gpudb_tap_shards_big GROUP BY g
                            ORDER BY sum(v) DESC, g LIMIT 7', true)$$,
                      $$SELECT * FROM pg_temp.shard_rows(
                          'SELECT g, count(*), sum(v) FROM gpudb_tap_shards_big GROUP BY g
                            ORDER BY sum(v) DESC, g LIMIT 7', false)$$,
                      'many groups in every shard, ordered and cut after the combine'),
           results_eq($$SELECT * FROM pg_temp.shard_rows(
                          'SELECT count(*), sum(n), sum(s) FROM (SELECT g, count(*) AS n, sum(v) AS s
                             FROM gpudb_tap_shards_big GROUP BY g) x', true)$$,
                      $$SELECT * FROM pg_temp.shard_rows(
                          'SELECT count(*), sum(n), sum(s) FROM (SELECT g, count(*) AS n, sum(v) AS s
                             FROM gpudb_tap_shards_big GROUP BY g) x', false)$$,
                      'many groups in every shard, every group combined once'))
       END;

SELECT * FROM finish();
DROP TABLE gpudb_tap_shards, gpudb_tap_shards_dim, gpudb_tap_shards_big;
