--
-- 09_faults: failures of the device layer, injected with gpu_debug_fault
-- (a superuser-only testing aid).  Each failure must end in a clear ERROR;
-- the session stays usable, the same query works again, and the GPU
-- server's memory (gpu_server_status) is back at its baseline.
--
-- The server-side points need shared_preload_libraries = gpudb
-- (expected/09_faults.out); without it they raise 55000
-- (expected/09_faults_1.out).  gdb_try (05_errors), gdb_exec, gdb_cache_diff
-- and gdb_cache_entry (08_cache) are reused.  Without a GPU the server runs
-- in CPU mode, where uncached gpu_groupby runs in the backend: the server's
-- faults are therefore shown on cached queries, and on uncached ones only
-- as "what the active path does".
--

-- Plain SQL is this file's reference, so it keeps PostgreSQL's own plans
-- (the plan nodes are tested against gpudb.enabled = off in 12_plan_nodes).
SET gpudb.enable_gpuscan = off;
SET gpudb.enable_gpuagg = off;
SET gpudb.enable_gpusort = off;
SET gpudb.enable_gpujoin = off;

-- gdb_try_cancel: like gdb_try, but a cancelled statement (57014, which
-- WHEN OTHERS does not catch) is shown too
CREATE FUNCTION gdb_try_cancel(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
    st text; msg text;
BEGIN
    EXECUTE format('SELECT count(*) FROM (%s) x', q) INTO n;
    RETURN format('ok: %s rows', n);
EXCEPTION WHEN query_canceled OR OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    RETURN st || ': ' || msg;
END $$;

-- gdb_fault_uncached: an uncached query while a server fault is armed.  On
-- the GPU path the server runs it and it must fail with err (a prefix); on
-- the CPU path it runs in the backend and must succeed (the fault stays
-- armed).  Prints only whether that held, so both modes print the same.
CREATE FUNCTION gdb_fault_uncached(q text, err text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
    gpu bool := gpu_active_path() = 'gpu';
BEGIN
    r := gdb_try(q);
    IF (gpu AND r LIKE err || '%') OR (NOT gpu AND r LIKE 'ok: %') THEN
        RETURN 'as expected for the active path';
    END IF;
    RETURN format('UNEXPECTED on the %s path: %s', CASE WHEN gpu THEN 'GPU' ELSE 'CPU' END, r);
END $$;

CREATE TABLE fault_t (id int8 NOT NULL, g int4, v int8, t text);
INSERT INTO fault_t SELECT i, i % 5, i * 3, 't' || (i % 4) FROM generate_series(1, 3000) i;
CREATE TABLE fault_t2 (id int8, g int4);
INSERT INTO fault_t2 SELECT i, i % 3 FROM generate_series(1, 2000) i;
ANALYZE fault_t, fault_t2;

-- ===========================================================================
-- privileges and arguments
-- ===========================================================================
SELECT has_function_privilege('public', 'gpu_debug_fault(text, int, int)', 'EXECUTE')
       AS public_may_inject,
       has_function_privilege('public', 'gpu_server_status()', 'EXECUTE')
       AS public_may_see_status;
CREATE ROLE gdb_fault_user;
SET ROLE gdb_fault_user;
SELECT gdb_try($$SELECT gpu_debug_fault('kernel')$$);
RESET ROLE;
-- granted EXECUTE, still not a superuser: refused by the function itself
GRANT EXECUTE ON FUNCTION gpu_debug_fault(text, int, int) TO gdb_fault_user;
SET ROLE gdb_fault_user;
SELECT gdb_try($$SELECT gpu_debug_fault('kernel')$$);
SELECT gdb_try($$SELECT gpu_debug_fault('none')$$);
SELECT gdb_try($$SELECT * FROM gpu_server_status()$$);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION gpu_debug_fault(text, int, int) FROM gdb_fault_user;
DROP ROLE gdb_fault_user;

SELECT gdb_try($$SELECT gpu_debug_fault('nope')$$);
SELECT gdb_try($$SELECT gpu_debug_fault('Kernel')$$);
SELECT gdb_try($$SELECT gpu_debug_fault(NULL)$$);
SELECT gdb_try($$SELECT gpu_debug_fault('copy', NULL)$$);
SELECT gdb_try($$SELECT gpu_debug_fault('copy', -1)$$);
SELECT gdb_try($$SELECT gpu_debug_fault('slow', 1, -1)$$);
SELECT gdb_try($$SELECT gpu_debug_fault('slow', 1, 600001)$$);
SELECT gdb_try($$SELECT gpu_debug_fault('none')$$);

-- ===========================================================================
-- host_alloc: the backend's shared batch buffers (memfd) for the GPU server.
-- On the CPU path gpu_groupby does not use them, so the fault stays armed.
-- ===========================================================================
SELECT gpu_debug_fault('host_alloc');
SELECT gdb_fault_uncached(
    $$SELECT * FROM gpu_groupby('fault_t', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$,
    '53200: gpudb: could not allocate a shared batch buffer');
SELECT gpu_debug_fault('none');
SELECT gdb_try($$SELECT * FROM gpu_groupby('fault_t', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$);

SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
\if :preloaded

-- ===========================================================================
-- preloaded: faults in the GPU server
-- ===========================================================================

-- gdb_fault_base: the server's memory after the queries below have run once
-- each (device scratch only grows, to the largest query's need), and the
-- bytes of fault_t's own entry (the server's total counts every database's)
CREATE TABLE gdb_fault_base (cache_bytes bigint, scratch_bytes bigint, process_starts int,
                             entry_bytes bigint);
CREATE FUNCTION gdb_fault_entry_bytes() RETURNS bigint LANGUAGE sql AS $$
    SELECT device_bytes + host_bytes FROM gpu_cache WHERE relation = 'fault_t'::regclass
$$;
CREATE FUNCTION gdb_fault_rebase() RETURNS void LANGUAGE sql AS $$
    DELETE FROM gdb_fault_base;
    INSERT INTO gdb_fault_base
    SELECT cache_bytes, scratch_bytes, process_starts, gdb_fault_entry_bytes()
    FROM gpu_server_status();
$$;
-- gdb_fault_baseline: 'at baseline', or what differs
CREATE FUNCTION gdb_fault_baseline() RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN s.cache_bytes = b.cache_bytes AND s.scratch_bytes = b.scratch_bytes
                     AND s.process_starts = b.process_starts
                THEN 'at baseline'
                ELSE format('NOT at baseline: cache %s -> %s bytes, scratch %s -> %s bytes, process starts %s -> %s',
                            b.cache_bytes, s.cache_bytes, b.scratch_bytes, s.scratch_bytes,
                            b.process_starts, s.process_starts) END
    FROM gpu_server_status() s, gdb_fault_base b
$$;
-- gdb_wait_server: wait (up to 60 s) until a server process numbered at
-- least starts answers
CREATE FUNCTION gdb_wait_server(starts int) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
    p int;
BEGIN
    FOR i IN 1 .. 600 LOOP
        BEGIN
            SELECT process_starts INTO p FROM gpu_server_status() WHERE mode <> 'none';
        EXCEPTION WHEN OTHERS THEN
            p := NULL;          -- it went away while answering
        END;
        IF p >= starts THEN
            RETURN true;
        END IF;
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN false;
END $$;
-- the query and its plain SQL twin
CREATE FUNCTION gdb_fq() RETURNS text LANGUAGE sql AS
$f$ SELECT $$SELECT * FROM gpu_groupby('fault_t', 'g', 'count(*), sum(v)', 'v > 30') AS t(g int4, n bigint, s numeric)$$ $f$;
CREATE FUNCTION gdb_fsq() RETURNS text LANGUAGE sql AS
$f$ SELECT $$SELECT g, count(*), sum(v) FROM fault_t WHERE v > 30 GROUP BY g$$ $f$;

SELECT mode IN ('gpu', 'cpu') AS server_answers, cache_bytes >= 0 AS cache_bytes_known,
       scratch_bytes >= 0 AS scratch_bytes_known, requests > 0 AS counts_requests,
       process_starts >= 1 AS counts_processes
FROM gpu_server_status();
SELECT gdb_wait_server(1);
SELECT gpu_cache_load('fault_t');
-- warm up: the cached query, and the same query on the heap
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
SET gpudb.use_cache = off;
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
RESET gpudb.use_cache;
SELECT gdb_fault_rebase();
SELECT gdb_fault_baseline();

-- ---------------------------------------------------------------------------
-- device_alloc
-- ---------------------------------------------------------------------------
-- a cached query's scratch
SELECT gpu_debug_fault('device_alloc');
SELECT gdb_try(gdb_fq());
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
SELECT gdb_fault_baseline();
-- count 2: two queries fail, the third works
SELECT gpu_debug_fault('device_alloc', 2);
SELECT gdb_try(gdb_fq());
SELECT gdb_try(gdb_fq());
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
SELECT gdb_fault_baseline();
-- the store of a new cache entry: the load fails and leaves nothing
SELECT gpu_debug_fault('device_alloc');
SELECT gdb_exec($$SELECT gpu_cache_load('fault_t2')$$);
SELECT gdb_cache_entry('fault_t2');
SELECT gdb_fault_baseline();
-- an uncached query: the server's scratch on the GPU path
SET gpudb.use_cache = off;
SELECT gpu_debug_fault('device_alloc');
SELECT gdb_fault_uncached(gdb_fq(), '53200: gpudb: out of memory');
SELECT gpu_debug_fault('none');
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
RESET gpudb.use_cache;
SELECT gdb_fault_baseline();
-- count 0 disarms the point; 'none' disarms every point
SELECT gpu_debug_fault('device_alloc', 0);
SELECT gdb_try(gdb_fq());
SELECT gpu_debug_fault('device_alloc', 3);
SELECT gpu_debug_fault('copy', 3);
SELECT gpu_debug_fault('none');
SELECT gdb_try(gdb_fq());

-- ---------------------------------------------------------------------------
-- host_alloc during a load: the backend fails after the server made the
-- entry; nothing of it may stay behind
-- ---------------------------------------------------------------------------
SELECT gpu_debug_fault('host_alloc');
SELECT gdb_exec($$SELECT gpu_cache_load('fault_t2')$$);
SELECT gdb_cache_entry('fault_t2');
SELECT gdb_fault_baseline();
-- and in a transaction of its own
SELECT gpu_debug_fault('host_alloc');
BEGIN;
SELECT gpu_cache_load('fault_t2');
ROLLBACK;
SELECT gdb_cache_entry('fault_t2');
SELECT gdb_fault_baseline();
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());

-- ---------------------------------------------------------------------------
-- copy: a copy error, without restart; the cache stays
-- ---------------------------------------------------------------------------
SELECT gpu_debug_fault('copy');
SELECT gdb_try(gdb_fq());
SELECT gdb_cache_entry('fault_t');
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
SELECT gdb_fault_baseline();
-- during a load: the load fails and leaves nothing
SELECT gpu_debug_fault('copy');
SELECT gdb_exec($$SELECT gpu_cache_load('fault_t2')$$);
SELECT gdb_cache_entry('fault_t2');
SELECT gdb_fault_baseline();
-- the rows inserted into a cached table: the write succeeds, the cached copy
-- that could not follow is dropped, and queries read the heap
SELECT gpu_debug_fault('copy');
INSERT INTO fault_t VALUES (3001, 1, 9003, 't1');
SELECT gdb_cache_entry('fault_t');
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
DELETE FROM fault_t WHERE id = 3001;
SELECT gpu_cache_load('fault_t');
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
SELECT gdb_fault_baseline();

-- ---------------------------------------------------------------------------
-- slow: the request waits in the server; statement_timeout cancels the
-- statement at once, and the server's reply is dropped
-- ---------------------------------------------------------------------------
SELECT gpu_debug_fault('slow', 1, 3000);
SET statement_timeout = '300ms';
SELECT clock_timestamp() AS slow_t0 \gset
SELECT gdb_try_cancel(gdb_fq());
RESET statement_timeout;
SELECT clock_timestamp() - :'slow_t0'::timestamptz < interval '2 s' AS cancelled_within_2s;
-- the next statement waits for the server to finish the slow request
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
SELECT gdb_fault_baseline();
-- slow but not cancelled: the answer comes, later
SELECT gpu_debug_fault('slow', 1, 200);
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());

-- ---------------------------------------------------------------------------
-- kernel: a kernel fault; the request fails, the server process restarts
-- (one more process start), the cache is lost and must be loaded again
-- ---------------------------------------------------------------------------
SELECT process_starts AS starts_before FROM gpu_server_status() \gset
SELECT gpu_debug_fault('kernel');
SELECT gdb_try(gdb_fq());
SELECT gdb_wait_server(:starts_before + 1);
SELECT process_starts - :starts_before AS new_processes, cache_bytes AS cache_bytes_after_restart
FROM gpu_server_status();
SELECT count(*) AS cache_entries FROM gpu_cache;
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
SELECT gpu_cache_load('fault_t');
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
-- the reloaded entry holds what it held before the fault
SELECT gdb_fault_entry_bytes() = entry_bytes AS entry_bytes_as_before FROM gdb_fault_base;
-- a new process: a new baseline once the same queries ran
SET gpudb.use_cache = off;
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());
RESET gpudb.use_cache;
SELECT gdb_fault_rebase();
-- a kernel fault during a load: the load fails and the server restarts
SELECT process_starts AS starts_before FROM gpu_server_status() \gset
SELECT gpu_debug_fault('kernel');
SELECT gdb_exec($$SELECT gpu_cache_load('fault_t2')$$);
SELECT gdb_wait_server(:starts_before + 1);
SELECT process_starts - :starts_before AS new_processes FROM gpu_server_status();
SELECT gdb_cache_entry('fault_t'), gdb_cache_entry('fault_t2');
SELECT gpu_cache_load('fault_t');
SELECT gdb_cache_diff(gdb_fq(), gdb_fsq());

-- the session is still fine; nothing stays armed
SELECT gpu_debug_fault('none');
SELECT gpu_cache_drop('fault_t');
SELECT gdb_cache_entry('fault_t'), gdb_cache_entry('fault_t2');
SELECT cache_bytes FROM gpu_server_status();
DROP TABLE gdb_fault_base CASCADE;
DROP FUNCTION gdb_fault_rebase(), gdb_fault_baseline(), gdb_fault_entry_bytes(), gdb_wait_server(int),
              gdb_fq(), gdb_fsq();

\else

-- ===========================================================================
-- not preloaded: no server to inject into; gpu_server_status says so
-- ===========================================================================
SELECT * FROM gpu_server_status();
SELECT gdb_try($$SELECT gpu_debug_fault('device_alloc')$$);
SELECT gdb_try($$SELECT gpu_debug_fault('kernel')$$);
SELECT gdb_try($$SELECT gpu_debug_fault('copy')$$);
SELECT gdb_try($$SELECT gpu_debug_fault('slow', 1, 100)$$);
-- host_alloc is armed in the backend, where the CPU path never needs it
SELECT gpu_debug_fault('host_alloc');
SELECT gdb_try($$SELECT * FROM gpu_groupby('fault_t', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$);
SELECT gpu_debug_fault('none');

\endif

SELECT gdb_try($$SELECT * FROM gpu_groupby('fault_t', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)$$);
DROP TABLE fault_t, fault_t2;
DROP FUNCTION gdb_try_cancel(text), gdb_fault_uncached(text, text);
