--
-- 08_cache: the column cache.  gpu_cache_load / gpu_cache_drop, the gpu_cache
-- view, gpudb.use_cache, gpu_last_execution().source; what invalidates an
-- entry; privileges; transactions; errors.  Every cached answer is compared
-- with plain SQL (EXCEPT ALL both ways).
--
-- The cache needs shared_preload_libraries = gpudb.  With it the cache tests
-- run (expected/08_cache.out); without it the cache functions raise 55000 and
-- gpu_groupby still reads the heap (expected/08_cache_1.out).
--

-- Plain SQL is this file's reference, so it keeps PostgreSQL's own plans
-- (the plan nodes are tested against gpudb.enabled = off in 12_plan_nodes).
SET gpudb.enable_gpuscan = off;
SET gpudb.enable_gpuagg = off;
SET gpudb.enable_gpusort = off;
SET gpudb.enable_gpujoin = off;

-- gdb_exec runs a statement returning one value and shows the value, or the
-- error's SQLSTATE, message, detail and hint (gdb_try of 05_errors counts rows)
\i sql/include/exec_value.sql

-- gdb_cache_diff: gdb_diff, plus where each of the two gpu_groupby runs read
-- its rows (gpu_last_execution().source right after each run)
CREATE FUNCTION gdb_cache_diff(gpu_query text, sql_query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    a bigint; b bigint; n bigint;
    s1 text; s2 text;
BEGIN
    EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', gpu_query, sql_query) INTO a;
    SELECT source INTO s1 FROM gpu_last_execution();
    EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', sql_query, gpu_query) INTO b;
    SELECT source INTO s2 FROM gpu_last_execution();
    EXECUTE format('SELECT count(*) FROM (%s) x', sql_query) INTO n;
    RETURN CASE WHEN a = 0 AND b = 0 THEN format('same (%s rows)', n)
                ELSE format('DIFFERENT: %s rows only in gpu_groupby, %s only in SQL', a, b) END
        || ', source ' || CASE WHEN s1 IS NOT DISTINCT FROM s2 THEN coalesce(s1, '?')
                               ELSE coalesce(s1, '?') || '/' || coalesce(s2, '?') END;
END $$;

-- gdb_cache_entry: the stable part of a relation's gpu_cache row
CREATE FUNCTION gdb_cache_entry(rel regclass) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce((SELECT format('%s, %s rows, columns %s', state, rows, columns)
                       FROM gpu_cache WHERE relation = rel), 'no entry')
$$;

CREATE TABLE ca (
    id  int8 NOT NULL,
    g   int4 NOT NULL,
    i2  int2,
    v   int8,
    f4  float4,
    f8  float8,
    b   bool,
    d   date,
    ts  timestamp,
    tz  timestamptz,
    t   text,
    vc  varchar(10),
    n   numeric,
    j   jsonb
);
-- float values are multiples of 1/8, so sums are exact in any order
INSERT INTO ca
SELECT i, i % 7,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 100) - 50 END,
       CASE WHEN i % 13 = 0 THEN NULL ELSE i::int8 * 1000003 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 40) * 0.25 END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE ((i % 400) - 200) * 0.125 END,
       CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END,
       date '2024-01-01' + (i % 90),
       timestamp '2024-01-01' + i * interval '17 minutes',
       timestamptz '2024-01-01 00:00+00' + i * interval '23 minutes',
       CASE WHEN i % 9 = 0 THEN NULL WHEN i % 97 = 0 THEN '' WHEN i % 89 = 0 THEN 'k 1'
            ELSE 'k' || (i % 8) END,
       CASE WHEN i % 10 = 0 THEN NULL ELSE 'v' || (i % 3) END,
       i / 7.0,
       jsonb_build_object('i', i)
FROM generate_series(1, 6000) i;

-- the role the extension creates for cache administration; the GUCs (LOAD:
-- without shared_preload_libraries no gpudb function has run in this session)
LOAD 'gpudb';
SELECT rolname, rolcanlogin, rolsuper, rolinherit
FROM pg_roles WHERE rolname = 'gpudb_cache_admin';
SHOW gpudb.use_cache;

SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
\if :preloaded

-- ===========================================================================
-- preloaded: the cache
-- ===========================================================================

-- nothing is cached in a new database
SELECT count(*) FROM gpu_cache;
SELECT gdb_cache_entry('ca');
SELECT gpu_cache_drop('ca');

-- a query before any load reads the heap
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);

-- load every column of a supported type (n numeric and j jsonb are left out);
-- the result is the number of rows
SELECT gpu_cache_load('ca');
SELECT count(*) FROM ca;
SELECT relation, columns, rows, state, hits,
       device_bytes + host_bytes > 0 AS holds_bytes,
       device_bytes >= 0 AND host_bytes >= 0 AS bytes_nonnegative,
       load_ms >= 0 AS load_ms_ok,
       loaded_at <= now() AS loaded_before_now,
       loaded_at > now() - interval '1 hour' AS loaded_recently
FROM gpu_cache;

-- cached answers equal plain SQL: keys of every kind, aggregates, filters,
-- text keys, and text filter constants (present, absent, empty, near misses)
SELECT q, gdb_cache_diff(gq, sq)
FROM (VALUES
  (1, $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v), avg(f8), min(d), max(ts)') AS t(g int4, n bigint, s numeric, a float8, d date, ts timestamp)$$,
      $$SELECT g, count(*), sum(v), avg(f8), min(d), max(ts) FROM ca GROUP BY g$$),
  (2, $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), count(i2), sum(i2), max(f4), min(tz)') AS t(t text, n bigint, c bigint, s bigint, m float4, tz timestamptz)$$,
      $$SELECT t, count(*), count(i2), sum(i2), max(f4), min(tz) FROM ca GROUP BY t$$),
  (3, $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)', 't = ''k3''') AS t(t text, n bigint, s numeric)$$,
      $$SELECT t, count(*), sum(v) FROM ca WHERE t = 'k3' GROUP BY t$$),
  (4, $$SELECT * FROM gpu_groupby('ca', 't', 'count(*)', 't IN (''k1'', ''k5'', ''absent'')') AS t(t text, n bigint)$$,
      $$SELECT t, count(*) FROM ca WHERE t IN ('k1', 'k5', 'absent') GROUP BY t$$),
  (5, $$SELECT * FROM gpu_groupby('ca', 't', 'count(*)', 't = ''absent''') AS t(t text, n bigint)$$,
      $$SELECT t, count(*) FROM ca WHERE t = 'absent' GROUP BY t$$),
  (6, $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*)', 't <> ''absent''') AS t(g int4, n bigint)$$,
      $$SELECT g, count(*) FROM ca WHERE t <> 'absent' GROUP BY g$$),
  (7, $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*)', 't NOT IN (''k2'', ''absent'', '''')') AS t(g int4, n bigint)$$,
      $$SELECT g, count(*) FROM ca WHERE t NOT IN ('k2', 'absent', '') GROUP BY g$$),
  (8, $$SELECT * FROM gpu_groupby('ca', 't', 'count(*)', 't = '''' OR t = ''k 1'' OR t = ''K1'' OR t = ''k1 ''') AS t(t text, n bigint)$$,
      $$SELECT t, count(*) FROM ca WHERE t = '' OR t = 'k 1' OR t = 'K1' OR t = 'k1 ' GROUP BY t$$),
  (9, $$SELECT * FROM gpu_groupby('ca', 'vc, b', 'count(*), min(f8), max(i2)', 'vc = ''v1'' OR t = ''k2''') AS t(vc varchar, b bool, n bigint, m float8, x int2)$$,
      $$SELECT vc, b, count(*), min(f8), max(i2) FROM ca WHERE vc = 'v1' OR t = 'k2' GROUP BY vc, b$$),
  (10, $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*)', 't = vc OR vc = ''absent''') AS t(g int4, n bigint)$$,
       $$SELECT g, count(*) FROM ca WHERE t = vc OR vc = 'absent' GROUP BY g$$),
  (11, $$SELECT * FROM gpu_groupby('ca', '', 'count(*), sum(v), avg(i2), sum(f4)', 'f8 > 10 AND g IN (1, 3)') AS t(n bigint, s numeric, a numeric, f float4)$$,
       $$SELECT count(*), sum(v), avg(i2), sum(f4) FROM ca WHERE f8 > 10 AND g IN (1, 3)$$),
  (12, $$SELECT * FROM gpu_groupby('ca', 'd, b', 'count(f4), max(tz)', 'ts >= ''2024-01-20'' AND tz < ''2024-02-20 00:00+00''') AS t(d date, b bool, c bigint, m timestamptz)$$,
       $$SELECT d, b, count(f4), max(tz) FROM ca WHERE ts >= '2024-01-20' AND tz < '2024-02-20 00:00+00' GROUP BY d, b$$),
  (13, $$SELECT * FROM gpu_groupby('ca', 'i2, g, b, d, t, vc', 'count(*)') AS t(i2 int2, g int4, b bool, d date, t text, vc varchar, n bigint)$$,
       $$SELECT i2, g, b, d, t, vc, count(*) FROM ca GROUP BY i2, g, b, d, t, vc$$),
  (14, $$SELECT * FROM gpu_groupby('ca', 'f4, f8', 'count(*), sum(id)', 't IS NULL OR i2 IS NULL') AS t(f4 float4, f8 float8, n bigint, s numeric)$$,
       $$SELECT f4, f8, count(*), sum(id) FROM ca WHERE t IS NULL OR i2 IS NULL GROUP BY f4, f8$$),
  (15, $$SELECT * FROM gpu_groupby('ca', 'ts, tz', 'count(*)', 'id % 50 = 0') AS t(ts timestamp, tz timestamptz, n bigint)$$,
       $$SELECT ts, tz, count(*) FROM ca WHERE id % 50 = 0 GROUP BY ts, tz$$),
  (16, $$SELECT * FROM gpu_groupby('ca', '', 'count(*), sum(v)', 'false') AS t(n bigint, s numeric)$$,
       $$SELECT count(*), sum(v) FROM ca WHERE false$$),
  (17, $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*)') AS t(g int4, n bigint)$$,
       $$SELECT g, count(*) FROM ca GROUP BY g$$)
) AS x(q, gq, sq) ORDER BY q;
SELECT source, rows_in, groups FROM gpu_last_execution();

-- the answer itself, from the cache
SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(i2), min(v)', 't IN (''k1'', ''k 1'', '''', ''absent'')')
    AS t(t text, n bigint, s bigint, m int8) ORDER BY t COLLATE "C";
SELECT source, rows_in, rows_selected, groups FROM gpu_last_execution();

-- hits are counted
SELECT hits > 0 AS hit, last_use IS NOT NULL AS used, last_use >= loaded_at AS used_after_load
FROM gpu_cache WHERE relation = 'ca'::regclass;

-- several batches of gpudb.batch_rows: the same answer from the cache
SET gpudb.batch_rows = 1024;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'i2, t', 'count(*), count(f4), sum(v), avg(i2), min(f8), max(ts), sum(f8)') AS t(i2 int2, t text, n bigint, c bigint, s numeric, a numeric, m float8, x timestamp, sf float8)$$,
    $$SELECT i2, t, count(*), count(f4), sum(v), avg(i2), min(f8), max(ts), sum(f8) FROM ca GROUP BY i2, t$$);
-- and a load in batches of 1024 rows gives the same cache
SELECT gpu_cache_load('ca');
RESET gpudb.batch_rows;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'i2, t', 'count(*), count(f4), sum(v), avg(i2), min(f8), max(ts), sum(f8)', 'vc <> ''v2''') AS t(i2 int2, t text, n bigint, c bigint, s numeric, a numeric, m float8, x timestamp, sf float8)$$,
    $$SELECT i2, t, count(*), count(f4), sum(v), avg(i2), min(f8), max(ts), sum(f8) FROM ca WHERE vc <> 'v2' GROUP BY i2, t$$);

-- gpudb.use_cache = off reads the heap, with the same answer
SET gpudb.use_cache = off;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)', 't <> ''k3''') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca WHERE t <> 'k3' GROUP BY t$$);
RESET gpudb.use_cache;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)', 't <> ''k3''') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca WHERE t <> 'k3' GROUP BY t$$);
-- gpudb.enabled = off: the same answer, wherever it is read from
SET gpudb.enabled = off;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)', 't <> ''k3''') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca WHERE t <> 'k3' GROUP BY t$$);
RESET gpudb.enabled;

-- chosen columns only (a load replaces the entry); the order given does not
-- matter; a query needing a column that is not cached reads the heap
SELECT gpu_cache_load('ca', ARRAY['v', 'g', 't']);
SELECT gdb_cache_entry('ca');
SELECT q, gdb_cache_diff(gq, sq)
FROM (VALUES
  (1, $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
      $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$),
  (2, $$SELECT * FROM gpu_groupby('ca', 't', 'count(v)', 't <> ''k0'' AND g > 2') AS t(t text, n bigint)$$,
      $$SELECT t, count(v) FROM ca WHERE t <> 'k0' AND g > 2 GROUP BY t$$),
  (3, $$SELECT * FROM gpu_groupby('ca', '', 'count(*)') AS t(n bigint)$$,
      $$SELECT count(*) FROM ca$$),
  (4, $$SELECT * FROM gpu_groupby('ca', 'g', 'sum(i2)') AS t(g int4, s bigint)$$,
      $$SELECT g, sum(i2) FROM ca GROUP BY g$$),
  (5, $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*)', 'f8 > 0') AS t(g int4, n bigint)$$,
      $$SELECT g, count(*) FROM ca WHERE f8 > 0 GROUP BY g$$),
  (6, $$SELECT * FROM gpu_groupby('ca', 'vc', 'sum(v)') AS t(vc varchar, s numeric)$$,
      $$SELECT vc, sum(v) FROM ca GROUP BY vc$$)
) AS x(q, gq, sq) ORDER BY q;
-- a column named twice
SELECT gdb_exec($$SELECT gpu_cache_load('ca', ARRAY['g', 'g', 'v'])$$);
SELECT gdb_cache_entry('ca');

-- ---------------------------------------------------------------------------
-- writes after the load.  INSERT, UPDATE, DELETE and COPY, committed or rolled
-- back, are followed by the cache; TRUNCATE and what rewrites the table
-- (VACUUM FULL, CLUSTER, ALTER TABLE) make the entry stale: the heap answers
-- until the next load.  Either way the answer is plain SQL's.
-- ---------------------------------------------------------------------------
SELECT gpu_cache_load('ca');
SELECT gdb_cache_entry('ca');

-- INSERT
INSERT INTO ca (id, g, v, t, vc) VALUES (6001, 1, 100, 'new-after-load', 'v9'), (6002, 9, NULL, 'k3', NULL);
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)', 't IN (''k3'', ''new-after-load'')') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca WHERE t IN ('k3', 'new-after-load') GROUP BY t$$);
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);
-- reloading: the new rows are loaded; the change-tracking triggers are
-- installed once, however often the table is loaded
SELECT gpu_cache_load('ca');
SELECT gpu_cache_load('ca');
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid = 'ca'::regclass;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)', 't IN (''k3'', ''new-after-load'')') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca WHERE t IN ('k3', 'new-after-load') GROUP BY t$$);

-- UPDATE (of a key, a value, and a text key to a string the load never saw)
UPDATE ca SET g = g + 10, v = v * 2, t = 'updated' WHERE id % 10 = 3;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g, t', 'count(*), sum(v)') AS t(g int4, t text, n bigint, s numeric)$$,
    $$SELECT g, t, count(*), sum(v) FROM ca GROUP BY g, t$$);
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*)', 't = ''updated''') AS t(g int4, n bigint)$$,
    $$SELECT g, count(*) FROM ca WHERE t = 'updated' GROUP BY g$$);
SELECT gpu_cache_load('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*)', 't = ''updated''') AS t(g int4, n bigint)$$,
    $$SELECT g, count(*) FROM ca WHERE t = 'updated' GROUP BY g$$);

-- DELETE
DELETE FROM ca WHERE id % 10 = 7;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v), min(f8)') AS t(g int4, n bigint, s numeric, m float8)$$,
    $$SELECT g, count(*), sum(v), min(f8) FROM ca GROUP BY g$$);
SELECT gpu_cache_load('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v), min(f8)') AS t(g int4, n bigint, s numeric, m float8)$$,
    $$SELECT g, count(*), sum(v), min(f8) FROM ca GROUP BY g$$);

-- a rolled-back DELETE
BEGIN;
DELETE FROM ca WHERE g = 1;
ROLLBACK;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);
SELECT gpu_cache_load('ca');
SELECT gdb_cache_entry('ca');

-- a rolled-back UPDATE, and a rolled-back INSERT
BEGIN;
UPDATE ca SET t = 'never-committed' WHERE g = 2;
ROLLBACK;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*)', 't <> ''never-committed''') AS t(t text, n bigint)$$,
    $$SELECT t, count(*) FROM ca WHERE t <> 'never-committed' GROUP BY t$$);
SELECT gpu_cache_load('ca');
BEGIN;
INSERT INTO ca (id, g) VALUES (7000, 99);
ROLLBACK;
SELECT gdb_cache_entry('ca');
SELECT gpu_cache_load('ca');

-- a write inside the loading transaction, after the load
BEGIN;
SELECT gpu_cache_load('ca');
UPDATE ca SET v = 0 WHERE id = 1;
COMMIT;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v), min(v)') AS t(g int4, n bigint, s numeric, m int8)$$,
    $$SELECT g, count(*), sum(v), min(v) FROM ca GROUP BY g$$);
SELECT gpu_cache_load('ca');

-- COPY
COPY ca (id, g, i2, v, t, vc) FROM stdin;
8001	2	7	77	copied	v1
8002	2	\N	\N	\N	\N
\.
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(i2), sum(v)') AS t(t text, n bigint, s bigint, sv numeric)$$,
    $$SELECT t, count(*), sum(i2), sum(v) FROM ca GROUP BY t$$);
SELECT gpu_cache_load('ca');

-- own uncommitted writes, and savepoints rolled back and released
BEGIN;
UPDATE ca SET v = v + 1 WHERE id % 5 = 0;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);
SAVEPOINT s1;
DELETE FROM ca WHERE g = 3;
INSERT INTO ca (id, g, v, t) VALUES (9001, 3, 1, 'in-savepoint');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);
ROLLBACK TO SAVEPOINT s1;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);
SAVEPOINT s2;
UPDATE ca SET v = v - 1 WHERE id % 5 = 0;
RELEASE SAVEPOINT s2;
UPDATE ca SET t = 'in-transaction' WHERE id % 7 = 0;
COMMIT;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca GROUP BY t$$);
-- one row changed several times in one transaction
BEGIN;
UPDATE ca SET v = 1 WHERE id = 10;
UPDATE ca SET v = 2 WHERE id = 10;
UPDATE ca SET g = 99 WHERE id = 10;
DELETE FROM ca WHERE id = 20;
INSERT INTO ca (id, g, v) VALUES (20, 98, 3);
UPDATE ca SET v = 4 WHERE id = 20;
COMMIT;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);
-- gpu_groupby in the statement that writes (a data-modifying CTE): both
-- sides see the rows as they were before the statement
WITH u AS (UPDATE ca SET v = v + 1000 WHERE id < 100 RETURNING 1),
     gq AS (SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)),
     sq AS (SELECT g, count(*) AS n, sum(v) AS s FROM ca GROUP BY g)
SELECT (SELECT count(*) FROM u) AS updated,
       (SELECT count(*) FROM (TABLE gq EXCEPT ALL TABLE sq) x) AS only_gpu,
       (SELECT count(*) FROM (TABLE sq EXCEPT ALL TABLE gq) x) AS only_sql;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);

-- plain VACUUM and ANALYZE change no row: the answer is the same whatever
-- they do to the entry
DELETE FROM ca WHERE id % 10 = 9;
SELECT gpu_cache_load('ca');
VACUUM ca;
ANALYZE ca;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);

-- VACUUM FULL and CLUSTER rewrite the table
SELECT gpu_cache_load('ca');
VACUUM FULL ca;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);
SELECT gpu_cache_load('ca');
CREATE INDEX ca_t_idx ON ca (t);
CLUSTER ca USING ca_t_idx;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca GROUP BY t$$);
SELECT gpu_cache_load('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca GROUP BY t$$);

-- TRUNCATE, then rows again (still stale until the next load)
TRUNCATE ca;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', '', 'count(*), sum(v)') AS t(n bigint, s numeric)$$,
    $$SELECT count(*), sum(v) FROM ca$$);
INSERT INTO ca (id, g, v, t) SELECT i, i % 4, i, 'r' || (i % 3) FROM generate_series(1, 500) i;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca GROUP BY t$$);
SELECT gpu_cache_load('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)', 't <> ''k1''') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca WHERE t <> 'k1' GROUP BY t$$);
-- a rolled-back TRUNCATE
BEGIN;
TRUNCATE ca;
ROLLBACK;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca GROUP BY t$$);

-- ALTER TABLE: a type change rewrites the table (and changes the key type)
SELECT gpu_cache_load('ca');
ALTER TABLE ca ALTER COLUMN g TYPE int8;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int8, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);
SELECT gpu_cache_load('ca');
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v)') AS t(g int8, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ca GROUP BY g$$);
-- a column added with a volatile default rewrites the table
ALTER TABLE ca ADD COLUMN r int4 DEFAULT (random() * 0)::int4 + 5;
SELECT gdb_cache_entry('ca');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v), sum(r)') AS t(g int8, n bigint, s numeric, sr bigint)$$,
    $$SELECT g, count(*), sum(v), sum(r) FROM ca GROUP BY g$$);

-- ---------------------------------------------------------------------------
-- other ways to write: INSERT ... ON CONFLICT, MERGE, cascades of foreign
-- keys, partitions written through their parent, triggers disabled
-- ---------------------------------------------------------------------------
CREATE TABLE cu (id int4 PRIMARY KEY, g int4, v int8);
INSERT INTO cu SELECT i, i % 4, i FROM generate_series(1, 200) i;
SELECT gpu_cache_load('cu');
INSERT INTO cu SELECT i, 9, -i FROM generate_series(150, 250) i
    ON CONFLICT (id) DO UPDATE SET v = cu.v + 1000, g = excluded.g;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cu', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM cu GROUP BY g$$);
MERGE INTO cu USING (SELECT i FROM generate_series(100, 300) i) s ON cu.id = s.i
    WHEN MATCHED AND s.i % 3 = 0 THEN DELETE
    WHEN MATCHED THEN UPDATE SET v = v + 1
    WHEN NOT MATCHED THEN INSERT VALUES (s.i, 5, s.i);
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cu', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM cu GROUP BY g$$);
-- writes while the triggers are disabled
SELECT gpu_cache_load('cu');
ALTER TABLE cu DISABLE TRIGGER ALL;
UPDATE cu SET v = 0 WHERE id <= 20;
DELETE FROM cu WHERE id BETWEEN 21 AND 30;
ALTER TABLE cu ENABLE TRIGGER ALL;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('cu', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM cu GROUP BY g$$);

-- a cached referencing table, changed by ON DELETE / ON UPDATE CASCADE
CREATE TABLE cparent (id int4 PRIMARY KEY);
INSERT INTO cparent SELECT generate_series(0, 9);
CREATE TABLE cchild (pid int4 REFERENCES cparent ON DELETE CASCADE ON UPDATE CASCADE, v int8);
INSERT INTO cchild SELECT i % 10, i FROM generate_series(1, 300) i;
SELECT gpu_cache_load('cchild');
DELETE FROM cparent WHERE id IN (2, 3);
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cchild', 'pid', 'count(*), sum(v)') AS t(pid int4, n bigint, s numeric)$$,
    $$SELECT pid, count(*), sum(v) FROM cchild GROUP BY pid$$);
UPDATE cparent SET id = 42 WHERE id = 4;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cchild', 'pid', 'count(*), sum(v)') AS t(pid int4, n bigint, s numeric)$$,
    $$SELECT pid, count(*), sum(v) FROM cchild GROUP BY pid$$);

-- a cached partition written through its partitioned table
CREATE TABLE cpt (k int4, v int8) PARTITION BY RANGE (k);
CREATE TABLE cpt1 PARTITION OF cpt FOR VALUES FROM (0) TO (100);
CREATE TABLE cpt2 PARTITION OF cpt FOR VALUES FROM (100) TO (200);
INSERT INTO cpt SELECT i % 200, i FROM generate_series(1, 1000) i;
SELECT gpu_cache_load('cpt1');
INSERT INTO cpt VALUES (5, 1), (150, 2);
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('cpt1', '', 'count(*), sum(v)') AS t(n bigint, s numeric)$$,
    $$SELECT count(*), sum(v) FROM cpt1$$);
UPDATE cpt SET v = v + 1 WHERE k % 10 = 0;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('cpt1', '', 'count(*), sum(v)') AS t(n bigint, s numeric)$$,
    $$SELECT count(*), sum(v) FROM cpt1$$);
-- rows moving out of the cached partition, and into it
UPDATE cpt SET k = k + 100 WHERE k < 10;
UPDATE cpt SET k = k - 100 WHERE k >= 190;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('cpt1', '', 'count(*), sum(v)') AS t(n bigint, s numeric)$$,
    $$SELECT count(*), sum(v) FROM cpt1$$);
DELETE FROM cpt WHERE k BETWEEN 20 AND 25;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('cpt1', '', 'count(*), sum(v)') AS t(n bigint, s numeric)$$,
    $$SELECT count(*), sum(v) FROM cpt1$$);
-- and written directly
INSERT INTO cpt1 VALUES (7, 7);
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('cpt1', '', 'count(*), sum(v)') AS t(n bigint, s numeric)$$,
    $$SELECT count(*), sum(v) FROM cpt1$$);
SELECT gpu_cache_drop('cpt1'), gpu_cache_drop('cu'), gpu_cache_drop('cchild');

-- ---------------------------------------------------------------------------
-- columns dropped, added and renamed without a rewrite: the cache must not
-- answer with another column's values
-- ---------------------------------------------------------------------------
CREATE TABLE cb (id int4, g int4, a int8, b int8, "Mixed Case" int4, t text);
INSERT INTO cb SELECT i, i % 3, i, 1000 * i, i % 2, 'x' || (i % 4) FROM generate_series(1, 300) i;
SELECT gpu_cache_load('cb');
SELECT gdb_cache_entry('cb');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cb', 'g', 'sum(a), sum(b)') AS t(g int4, a numeric, b numeric)$$,
    $$SELECT g, sum(a), sum(b) FROM cb GROUP BY g$$);
-- swap the names of a and b
ALTER TABLE cb RENAME COLUMN a TO tmp;
ALTER TABLE cb RENAME COLUMN b TO a;
ALTER TABLE cb RENAME COLUMN tmp TO b;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cb', 'g', 'sum(a), sum(b)') AS t(g int4, a numeric, b numeric)$$,
    $$SELECT g, sum(a), sum(b) FROM cb GROUP BY g$$);
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('cb', 'g', 'count(*)', 'a > 150000') AS t(g int4, n bigint)$$,
    $$SELECT g, count(*) FROM cb WHERE a > 150000 GROUP BY g$$);
-- drop a cached column and add one of the same name (no rewrite)
SELECT gpu_cache_load('cb');
ALTER TABLE cb DROP COLUMN a;
ALTER TABLE cb ADD COLUMN a int8 DEFAULT 7;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('cb', 'g', 'sum(a), sum(b)') AS t(g int4, a numeric, b numeric)$$,
    $$SELECT g, sum(a), sum(b) FROM cb GROUP BY g$$);
SELECT * FROM gpu_groupby('cb', 'g', 'sum(a), min(a)') AS t(g int4, a numeric, m int8) ORDER BY g;
-- a text column dropped and re-added as an integer of the same name
SELECT gpu_cache_load('cb');
ALTER TABLE cb DROP COLUMN t;
ALTER TABLE cb ADD COLUMN t int4;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('cb', 't', 'count(*)') AS t(t int4, n bigint)$$,
    $$SELECT t, count(*) FROM cb GROUP BY t$$);
-- loading after the drop leaves the dropped column out
SELECT gpu_cache_load('cb');
SELECT gdb_cache_entry('cb');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cb', 'g', 'sum(a), sum(b), count(t)') AS t(g int4, a numeric, b numeric, c bigint)$$,
    $$SELECT g, sum(a), sum(b), count(t) FROM cb GROUP BY g$$);
-- quoted names: the array holds names, not SQL identifiers
SELECT gpu_cache_load('cb', ARRAY['Mixed Case', 'g']);
SELECT gdb_cache_entry('cb');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cb', '"Mixed Case"', 'count(*), sum(g)') AS t(m int4, n bigint, s bigint)$$,
    $$SELECT "Mixed Case", count(*), sum(g) FROM cb GROUP BY "Mixed Case"$$);
SELECT gdb_exec($$SELECT gpu_cache_load('cb', ARRAY['"Mixed Case"'])$$);
SELECT gdb_exec($$SELECT gpu_cache_load('cb', ARRAY['mixed case'])$$);

-- ---------------------------------------------------------------------------
-- gpu_cache_drop, DROP TABLE
-- ---------------------------------------------------------------------------
SELECT gpu_cache_drop('cb');
SELECT gpu_cache_drop('cb');
SELECT gdb_cache_entry('cb');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cb', 'g', 'count(*)') AS t(g int4, n bigint)$$,
    $$SELECT g, count(*) FROM cb GROUP BY g$$);
SELECT gpu_cache_load('cb');
SELECT count(*) AS entries FROM gpu_cache;
DROP TABLE cb;
SELECT count(*) AS entries FROM gpu_cache;
SELECT relation::text FROM gpu_cache ORDER BY 1;
-- a new table of the same name is not cached
CREATE TABLE cb (g int4, a int8);
INSERT INTO cb VALUES (1, 10), (1, 20), (2, 30);
SELECT gdb_cache_entry('cb');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cb', 'g', 'count(*), sum(a)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(a) FROM cb GROUP BY g$$);
-- a table dropped in a transaction that rolls back keeps its entry, stale:
-- dropping its change-capture triggers may have let changes go uncaptured
SELECT gpu_cache_load('cb');
BEGIN;
DROP TABLE cb;
ROLLBACK;
SELECT gdb_cache_entry('cb');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cb', 'g', 'count(*), sum(a)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(a) FROM cb GROUP BY g$$);

-- an empty table, and a table with no column of a supported type
CREATE TABLE cempty (g int4, v float8);
SELECT gpu_cache_load('cempty');
SELECT gdb_cache_entry('cempty');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cempty', '', 'count(*), sum(v)') AS t(n bigint, s float8)$$,
    $$SELECT count(*), sum(v) FROM cempty$$);
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cempty', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s float8)$$,
    $$SELECT g, count(*), sum(v) FROM cempty GROUP BY g$$);
SELECT gpu_cache_drop('cempty');
CREATE TABLE cnone (n numeric, j jsonb);
INSERT INTO cnone VALUES (1, '{}');
SELECT gdb_exec($$SELECT gpu_cache_load('cnone')$$);
SELECT gdb_cache_entry('cnone');

-- ---------------------------------------------------------------------------
-- transactions
-- ---------------------------------------------------------------------------
CREATE TABLE ct (g int4, v int8, t text);
INSERT INTO ct SELECT i % 5, i, 'c' || (i % 2) FROM generate_series(1, 1000) i;
CREATE TABLE cother (x int4);

-- not in a transaction that already modified data (0A000; the SQLSTATE only)
BEGIN;
INSERT INTO ct VALUES (5, 5, 'c5');
SELECT split_part(gdb_exec($$SELECT gpu_cache_load('ct')$$), ':', 1) AS sqlstate;
ROLLBACK;
BEGIN;
INSERT INTO cother VALUES (1);
SELECT split_part(gdb_exec($$SELECT gpu_cache_load('ct')$$), ':', 1) AS sqlstate;
ROLLBACK;
SELECT gdb_cache_entry('ct');

-- a rolled-back load leaves nothing; inside its transaction the entry is
-- loading, not usable, and the table is locked in SHARE ROW EXCLUSIVE mode
BEGIN;
SELECT gpu_cache_load('ct');
SELECT gdb_cache_entry('ct');
SELECT bool_or(mode = 'ShareRowExclusiveLock' AND granted) AS share_row_exclusive
FROM pg_locks WHERE locktype = 'relation' AND relation = 'ct'::regclass AND pid = pg_backend_pid();
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ct', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ct GROUP BY g$$);
ROLLBACK;
SELECT gdb_cache_entry('ct');
SELECT count(*) AS entries_for_ct FROM gpu_cache WHERE relation = 'ct'::regclass;

-- a load in a subtransaction that rolls back leaves nothing either
BEGIN;
SAVEPOINT s1;
SELECT gpu_cache_load('ct');
ROLLBACK TO SAVEPOINT s1;
COMMIT;
SELECT gdb_cache_entry('ct');

-- a load refuses to run in a transaction that has written: here the first
-- load created the change-capture triggers (a catalog write), so the second
-- is refused and the transaction rolls back with both
BEGIN;
SELECT gpu_cache_load('ct', ARRAY['g']);
SELECT gpu_cache_load('ct', ARRAY['g', 'v']);
COMMIT;
SELECT gdb_cache_entry('ct');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ct', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ct GROUP BY g$$);
SELECT gpu_cache_load('ct', ARRAY['g', 'v']);

-- a failed reload (an error) leaves the previous entry as it was
SELECT gdb_exec($$SELECT gpu_cache_load('ct', ARRAY['g', 'nope'])$$);
SELECT gdb_cache_entry('ct');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ct', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ct GROUP BY g$$);

-- REPEATABLE READ: a snapshot taken after the load reads the cache, and the
-- transaction's own write is part of its answer
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ct', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ct GROUP BY g$$);
UPDATE ct SET v = -v WHERE g = 1;
SELECT gdb_cache_entry('ct');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ct', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ct GROUP BY g$$);
COMMIT;
SELECT gdb_cache_entry('ct');

-- ---------------------------------------------------------------------------
-- other kinds of relation
-- ---------------------------------------------------------------------------
CREATE VIEW ct_view AS SELECT * FROM ct;
CREATE TABLE ct_part (k int4, v int4) PARTITION BY RANGE (k);
CREATE SEQUENCE ct_seq;
SELECT gdb_exec($$SELECT gpu_cache_load('ct_view')$$);
SELECT gdb_exec($$SELECT gpu_cache_load('ct_part')$$);
SELECT gdb_exec($$SELECT gpu_cache_load('ct_seq')$$);
-- a system catalog cannot carry the invalidation: refused, or else right
-- (the same rows, how many depends on the version's catalog contents)
SELECT gdb_exec($$SELECT gpu_cache_load('pg_class')$$);
CREATE TABLE cnew (x int4);
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('pg_class', 'relnatts', 'count(*)') AS t(n int2, c bigint)$$,
    $$SELECT relnatts, count(*) FROM pg_class GROUP BY relnatts$$) ~ '^same \([1-9][0-9]* rows\)$' AS same;
DROP TABLE cnew;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('pg_class', 'relnatts', 'count(*)') AS t(n int2, c bigint)$$,
    $$SELECT relnatts, count(*) FROM pg_class GROUP BY relnatts$$) ~ '^same \([1-9][0-9]* rows\)$' AS same;
SELECT gdb_exec($$SELECT gpu_cache_drop('pg_class')$$);
-- a materialized view: REFRESH replaces its rows
CREATE MATERIALIZED VIEW ct_mv AS SELECT g, v FROM ct WHERE v > 500;
SELECT gdb_exec($$SELECT gpu_cache_load('ct_mv')$$);
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ct_mv', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ct_mv GROUP BY g$$);
UPDATE ct SET v = v + 1000 WHERE g = 2;
REFRESH MATERIALIZED VIEW ct_mv;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ct_mv', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ct_mv GROUP BY g$$);
-- a temporary table
CREATE TEMP TABLE ctemp AS SELECT g, v FROM ct;
SELECT gdb_exec($$SELECT gpu_cache_load('ctemp')$$);
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ctemp', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ctemp GROUP BY g$$);
DELETE FROM ctemp WHERE g = 3;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ctemp', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(v) FROM ctemp GROUP BY g$$);

-- ---------------------------------------------------------------------------
-- errors
-- ---------------------------------------------------------------------------
SELECT gdb_exec($$SELECT gpu_cache_load('ct', ARRAY['nope'])$$);
SELECT gdb_exec($$SELECT gpu_cache_load('ca', ARRAY['g', 'n'])$$);
SELECT gdb_exec($$SELECT gpu_cache_load('ca', ARRAY['j'])$$);
SELECT gdb_exec($$SELECT gpu_cache_load(NULL)$$);
SELECT gdb_exec($$SELECT gpu_cache_load(NULL, ARRAY['g'])$$);
SELECT gdb_exec($$SELECT gpu_cache_load('ct', ARRAY[NULL]::name[])$$);
SELECT gdb_exec($$SELECT gpu_cache_load('ct', '{}')$$);
SELECT gdb_exec($$SELECT gpu_cache_load('ct', ARRAY['ctid'])$$);
SELECT gdb_exec($$SELECT gpu_cache_load('ct', ARRAY['xmin'])$$);
SELECT gdb_exec($$SELECT gpu_cache_load('no_such_table')$$);
SELECT gdb_exec($$SELECT gpu_cache_load(0::oid::regclass)$$);
SELECT gdb_exec($$SELECT gpu_cache_drop(NULL)$$);
SELECT gdb_exec($$SELECT gpu_cache_drop(0::oid::regclass)$$);
SELECT gdb_exec($$SELECT gpu_cache_drop('ct_view')$$);
-- none of them changed the entry of ct
SELECT gdb_cache_entry('ct');

-- ---------------------------------------------------------------------------
-- privileges: loading and dropping need ownership or gpudb_cache_admin (and
-- loading, SELECT on the columns it loads and TRIGGER or ownership);
-- reading through the cache needs what reading the heap needs
-- ---------------------------------------------------------------------------
CREATE TABLE cp (id int4, g int4, secret int8, t text);
INSERT INTO cp SELECT i, i % 3, i * 10, 'p' || (i % 2) FROM generate_series(1, 90) i;
CREATE ROLE regress_gpudb_cache_none;
CREATE ROLE regress_gpudb_cache_reader;
CREATE ROLE regress_gpudb_cache_cols;
CREATE ROLE regress_gpudb_cache_admin;
CREATE ROLE regress_gpudb_cache_owner;
GRANT SELECT ON cp TO regress_gpudb_cache_reader;
GRANT SELECT (id, g, t) ON cp TO regress_gpudb_cache_cols;
GRANT gpudb_cache_admin TO regress_gpudb_cache_admin;
SELECT gpu_cache_load('cp');

-- no privilege at all
SET ROLE regress_gpudb_cache_none;
SELECT gdb_exec($$SELECT gpu_cache_load('cp')$$);
SELECT gdb_exec($$SELECT gpu_cache_drop('cp')$$);
SELECT gdb_try($$SELECT * FROM gpu_groupby('cp', 'g', 'count(*)') AS t(g int4, n bigint)$$);
RESET ROLE;

-- SELECT on the table: reads through the cache, but may not load or drop
SET ROLE regress_gpudb_cache_reader;
SELECT gdb_exec($$SELECT gpu_cache_load('cp')$$);
SELECT gdb_exec($$SELECT gpu_cache_drop('cp')$$);
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cp', 'g', 'count(*), sum(secret)', 't = ''p1''') AS t(g int4, n bigint, s numeric)$$,
    $$SELECT g, count(*), sum(secret) FROM cp WHERE t = 'p1' GROUP BY g$$);
RESET ROLE;
SELECT gdb_cache_entry('cp');

-- column privileges: the cached columns it may read, and no other
SET ROLE regress_gpudb_cache_cols;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cp', 'g', 'count(*), sum(id)', 't = ''p0''') AS t(g int4, n bigint, s bigint)$$,
    $$SELECT g, count(*), sum(id) FROM cp WHERE t = 'p0' GROUP BY g$$);
SELECT gdb_try($$SELECT * FROM gpu_groupby('cp', 'g', 'sum(secret)') AS t(g int4, s numeric)$$);
SELECT gdb_try($$SELECT * FROM gpu_groupby('cp', 'g', 'count(*)', 'secret > 100') AS t(g int4, n bigint)$$);
RESET ROLE;

-- a member of gpudb_cache_admin may drop a table it does not own, and load
-- the columns it may read where it may create triggers
-- (24_cache_privileges has the rest)
SET ROLE regress_gpudb_cache_admin;
SELECT gdb_exec($$SELECT gpu_cache_drop('cp')$$);
SELECT gdb_exec($$SELECT gpu_cache_load('cp')$$);
RESET ROLE;
GRANT SELECT (g, t), TRIGGER ON cp TO regress_gpudb_cache_admin;
SET ROLE regress_gpudb_cache_admin;
SELECT gdb_exec($$SELECT gpu_cache_load('cp')$$);
SELECT gdb_exec($$SELECT gpu_cache_load('cp', ARRAY['g', 't'])$$);
-- but reading needs SELECT, cached or not
SELECT gdb_try($$SELECT * FROM gpu_groupby('cp', 'g', 'sum(secret)') AS t(g int4, s numeric)$$);
RESET ROLE;
SELECT gdb_cache_entry('cp');

-- the owner (not a superuser) may load and drop its own table
ALTER TABLE cp OWNER TO regress_gpudb_cache_owner;
SET ROLE regress_gpudb_cache_owner;
SELECT gdb_exec($$SELECT gpu_cache_drop('cp')$$);
SELECT gdb_exec($$SELECT gpu_cache_load('cp')$$);
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cp', 't', 'count(*), max(secret)') AS t(t text, n bigint, m int8)$$,
    $$SELECT t, count(*), max(secret) FROM cp GROUP BY t$$);
-- and another role's table stays out of its reach
SELECT gdb_exec($$SELECT gpu_cache_load('ct')$$);
SELECT gdb_exec($$SELECT gpu_cache_drop('ct')$$);
RESET ROLE;

-- row-level security that applies to the caller: refused, even when cached
ALTER TABLE cp ENABLE ROW LEVEL SECURITY;
CREATE POLICY cp_even ON cp FOR SELECT USING (id % 2 = 0);
SELECT gpu_cache_load('cp');
SET ROLE regress_gpudb_cache_reader;
SELECT gdb_try($$SELECT * FROM gpu_groupby('cp', 'g', 'count(*)') AS t(g int4, n bigint)$$);
SELECT g, count(*) FROM cp GROUP BY g ORDER BY g;
RESET ROLE;
-- the owner is not subject to the policy
SET ROLE regress_gpudb_cache_owner;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cp', 'g', 'count(*)') AS t(g int4, n bigint)$$,
    $$SELECT g, count(*) FROM cp GROUP BY g$$);
-- a load by a cache admin to whom the policy applies still caches every row
RESET ROLE;
GRANT SELECT ON cp TO regress_gpudb_cache_admin;
SET ROLE regress_gpudb_cache_admin;
SELECT gdb_exec($$SELECT gpu_cache_load('cp')$$);
SET ROLE regress_gpudb_cache_owner;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cp', 'g', 'count(*), sum(id)') AS t(g int4, n bigint, s bigint)$$,
    $$SELECT g, count(*), sum(id) FROM cp GROUP BY g$$);
RESET ROLE;
ALTER TABLE cp DISABLE ROW LEVEL SECURITY;

-- ---------------------------------------------------------------------------
-- gpudb.cache_size: a load that does not fit raises 53200 and changes nothing
-- ---------------------------------------------------------------------------
SELECT count(gpu_cache_drop(relation)) AS dropped FROM gpu_cache;
SELECT count(*) AS entries FROM gpu_cache;
CREATE TABLE cbig AS SELECT i::int8 AS a, i::int8 AS b FROM generate_series(1, 200000) i;
CREATE TABLE csmall AS SELECT i::int8 AS a FROM generate_series(1, 100) i;
ALTER SYSTEM SET gpudb.cache_size = '1MB';
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW gpudb.cache_size;
SELECT CASE WHEN r ~ '^[0-9]+$' THEN 'loaded ' || r ELSE split_part(r, ':', 1) END AS result
FROM gdb_exec($$SELECT gpu_cache_load('cbig')$$) AS r;
SELECT gdb_cache_entry('cbig');
SELECT gpu_cache_load('csmall');
SELECT gdb_cache_entry('csmall');
SELECT coalesce(sum(device_bytes + host_bytes) <= 1024 * 1024, true) AS within_cache_size FROM gpu_cache;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cbig', '', 'count(*), sum(a)') AS t(n bigint, s numeric)$$,
    $$SELECT count(*), sum(a) FROM cbig$$);
-- a table growing past gpudb.cache_size through its writes: still right
SELECT gpu_cache_load('csmall');
INSERT INTO csmall SELECT i FROM generate_series(101, 200000) i;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('csmall', '', 'count(*), sum(a)') AS t(n bigint, s numeric)$$,
    $$SELECT count(*), sum(a) FROM csmall$$);
ALTER SYSTEM RESET gpudb.cache_size;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW gpudb.cache_size;
SELECT gpu_cache_load('cbig');
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cbig', '', 'count(*), sum(a)') AS t(n bigint, s numeric)$$,
    $$SELECT count(*), sum(a) FROM cbig$$);

-- text columns whose distinct strings pass one dictionary message (1 GB;
-- 64 bytes under the fault point) raise 54000 naming the table, leave no
-- entry behind, and the next load works (it failed with "out of memory:
-- Cannot enlarge string buffer" after reading every row)
CREATE TABLE cdict AS SELECT i AS id, 'distinct string ' || i AS t FROM generate_series(1, 100) i;
SELECT gpu_debug_fault('dictionary_limit');
SELECT gpu_cache_load('cdict');
SELECT count(*) AS entries FROM gpu_cache WHERE relation = 'cdict'::regclass;
SELECT count(*) AS loaded FROM (SELECT gpu_cache_load('cdict')) x;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('cdict', '', 'count(*), count(DISTINCT t)') AS t(n bigint, d bigint)$$,
    $$SELECT count(*), count(DISTINCT t) FROM cdict$$);
SELECT gpu_cache_drop('cdict');
DROP TABLE cdict;

-- clean up: no entry and no role is left behind
SELECT count(gpu_cache_drop(relation)) AS dropped FROM gpu_cache;
SELECT count(*) AS entries FROM gpu_cache;
DROP TABLE cp, cbig, csmall;
DROP ROLE regress_gpudb_cache_none, regress_gpudb_cache_reader, regress_gpudb_cache_cols,
          regress_gpudb_cache_admin, regress_gpudb_cache_owner;

\else

-- ===========================================================================
-- not preloaded: the cache functions raise 55000; gpu_groupby reads the heap
-- ===========================================================================
SELECT gdb_exec($$SELECT gpu_cache_load('ca')$$);
SELECT gdb_exec($$SELECT gpu_cache_load('ca', ARRAY['g', 't'])$$);
SELECT gdb_exec($$SELECT gpu_cache_drop('ca')$$);
SELECT gdb_try($$SELECT * FROM gpu_cache$$);
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 't', 'count(*), sum(v)', 't IN (''k1'', ''absent'')') AS t(t text, n bigint, s numeric)$$,
    $$SELECT t, count(*), sum(v) FROM ca WHERE t IN ('k1', 'absent') GROUP BY t$$);
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*), sum(v), avg(f8)', 'vc <> ''v1''') AS t(g int4, n bigint, s numeric, a float8)$$,
    $$SELECT g, count(*), sum(v), avg(f8) FROM ca WHERE vc <> 'v1' GROUP BY g$$);
SET gpudb.use_cache = off;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', 'g', 'count(*)') AS t(g int4, n bigint)$$,
    $$SELECT g, count(*) FROM ca GROUP BY g$$);
RESET gpudb.use_cache;
-- writes work as usual (the invalidation trigger, if any, is harmless)
INSERT INTO ca (id, g, v, t) VALUES (6001, 1, 5, 'k1');
UPDATE ca SET v = v + 1 WHERE id = 6001;
DELETE FROM ca WHERE id = 6001;
TRUNCATE ca;
SELECT gdb_cache_diff(
    $$SELECT * FROM gpu_groupby('ca', '', 'count(*)') AS t(n bigint)$$,
    $$SELECT count(*) FROM ca$$);

\endif

DROP TABLE ca;
