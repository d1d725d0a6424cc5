-- 16_parallel_feed: PostgreSQL parallel workers read an uncached relation's
-- heap into batches alongside the backend (parallel_feed.c).  On the CPU
-- path every worker runs the CPU operator, so this runs in CI.  Every query
-- runs with gpudb.enabled on and off; EXCEPT ALL both ways must be empty
-- (ordered queries compare their rows in order), and EXPLAIN is pinned so
-- the node, and the workers, are really under test.  How many workers start
-- depends on free worker slots, so EXPLAIN shows "Workers Launched: >0"
-- (and the batch count, which depends on who read what, is masked too; the
-- rows in and selected are the table's, whoever read them).
\i sql/include/plan_node_settings.sql
SET gpudb.use_cache = off;
SET gpudb.parallel_workers = 3;
-- the table is about 500 blocks: below the default threshold (8MB)
SET gpudb.min_parallel_table_size = '1MB';

-- g: 64 groups of distinct sizes (floor(sqrt(i % 4096)) is k for 2k+1 of
-- every 4096 values), so ORDER BY count(*) has no ties; f: quarters, whose
-- sums are exact in any order
CREATE TABLE pf (id int8, g int4, v int4, f float8, s text, t varchar(8));
INSERT INTO pf
SELECT i, floor(sqrt(i % 4096))::int4,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919) % 1000 END,
       CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 1000) * 0.25 - 100 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE 'k' || (i % 7) END,
       'w' || (i % 300)
FROM generate_series(1, 60000) i;
ANALYZE pf;
SELECT pg_relation_size('pf') >= 1024 * 1024 AS above_threshold;

-- gpu_diff(query, ordered): the Gpudb nodes in the plan with gpudb on, and how
-- many rows differ between gpudb on and off (sql/include/differential.sql)
\i sql/include/differential.sql

-- EXPLAIN ANALYZE with what depends on the workers' timing masked
CREATE FUNCTION pf_explain(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    l := regexp_replace(l, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    l := regexp_replace(l, 'Workers Launched: [1-9][0-9]*', 'Workers Launched: >0');
    l := regexp_replace(l, 'Batches: [0-9]+', 'Batches: N');
    RETURN NEXT l;
  END LOOP;
END $$;

-- the benchmark shapes: B1 (group-by) and B2 (filter + aggregate)
SELECT * FROM pf_explain('SELECT g, count(*), sum(v), avg(v) FROM pf GROUP BY g');
SELECT * FROM pf_explain('SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700');
SELECT * FROM gpu_diff('SELECT g, count(*), sum(v), avg(v) FROM pf GROUP BY g');
SELECT * FROM gpu_diff('SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700');
SELECT * FROM gpu_diff('SELECT g, count(v), min(v), max(v), sum(f), avg(f), min(f), max(f) FROM pf WHERE id % 3 <> 1 GROUP BY g');
SELECT * FROM gpu_diff('SELECT count(*), sum(id), min(f), max(id) FROM pf WHERE f > 0');
-- no row passes: one row of no-key aggregates, no group of a keyed one
SELECT * FROM gpu_diff('SELECT count(*), sum(v), max(f) FROM pf WHERE v > 5000');
SELECT * FROM gpu_diff('SELECT g, count(*) FROM pf WHERE v > 5000 GROUP BY g');

-- selection, and ORDER BY ... LIMIT (GpudbSort): every participant's top-k
-- sorted together again
SELECT * FROM pf_explain('SELECT id, v, s FROM pf WHERE v < 20');
SELECT * FROM gpu_diff('SELECT id, v, s FROM pf WHERE v < 20');
SELECT * FROM gpu_diff('SELECT id, f, t, s FROM pf WHERE f < -95');
SELECT * FROM pf_explain('SELECT id, v FROM pf WHERE v > 900 ORDER BY v DESC, id LIMIT 20');
SELECT * FROM gpu_diff('SELECT id, v FROM pf WHERE v > 900 ORDER BY v DESC, id LIMIT 20', true);
SELECT * FROM gpu_diff('SELECT id, f, v FROM pf ORDER BY f NULLS FIRST, id LIMIT 50', true);
SELECT * FROM gpu_diff('SELECT id, v FROM pf WHERE id % 97 = 0 ORDER BY v, id', true);

-- ordered GpudbAgg: the groups are ordered and cut once, after every
-- participant's partial states are combined
SELECT * FROM pf_explain('SELECT g, count(*) FROM pf GROUP BY g ORDER BY count(*) DESC LIMIT 5');
SELECT * FROM gpu_diff('SELECT g, count(*) FROM pf GROUP BY g ORDER BY count(*) DESC LIMIT 5', true);
SELECT * FROM gpu_diff('SELECT g, sum(v), count(*) FROM pf GROUP BY g ORDER BY g DESC LIMIT 7', true);
SELECT g, count(*) FROM pf GROUP BY g ORDER BY count(*) DESC LIMIT 5;

-- text keys and text output: each worker's dictionary codes are rewritten
-- into the leader's (filter constants keep theirs)
SELECT * FROM pf_explain('SELECT s, count(*), sum(v) FROM pf WHERE s <> ''k3'' GROUP BY s');
SELECT * FROM gpu_diff('SELECT s, count(*), sum(v) FROM pf WHERE s <> ''k3'' GROUP BY s');
SELECT * FROM gpu_diff('SELECT t, s, count(*), min(id) FROM pf GROUP BY t, s');
SELECT * FROM gpu_diff('SELECT id, s, t FROM pf WHERE t = ''w17'' OR s = ''k5'' AND id < 2000');
SELECT * FROM gpu_diff('SELECT t, count(*) FROM pf WHERE t IN (''w1'', ''nowhere'', ''w299'') GROUP BY t');
SELECT s, count(*), sum(v) FROM pf WHERE s <> 'k3' GROUP BY s ORDER BY s;

-- NULL keys group together, NULL values are not counted
SELECT * FROM gpu_diff('SELECT v, count(*), count(f) FROM pf GROUP BY v');
SELECT * FROM gpu_diff('SELECT s, g, count(*), count(v), sum(f) FROM pf WHERE g < 10 GROUP BY s, g');
SELECT * FROM gpu_diff('SELECT f, count(*) FROM pf WHERE id % 5 = 0 GROUP BY f');

-- small batches: many batches per participant, combined as they come
SET gpudb.batch_rows = 1024;
SELECT * FROM pf_explain('SELECT g, count(*), sum(v), avg(v) FROM pf GROUP BY g');
SELECT * FROM gpu_diff('SELECT g, count(*), sum(v), avg(v) FROM pf GROUP BY g');
SELECT * FROM gpu_diff('SELECT s, t, count(*) FROM pf GROUP BY s, t');
SELECT * FROM gpu_diff('SELECT id, v FROM pf WHERE v > 990');
SELECT * FROM gpu_diff('SELECT id, v FROM pf WHERE v > 900 ORDER BY v DESC, id LIMIT 20', true);
SELECT * FROM gpu_diff('SELECT g, count(*) FROM pf GROUP BY g ORDER BY count(*) DESC LIMIT 5', true);
RESET gpudb.batch_rows;

-- parallel_workers = 0, or a threshold above the table: the backend reads
-- the heap alone (no Workers Launched), same answers
SET gpudb.parallel_workers = 0;
SELECT * FROM pf_explain('SELECT g, count(*), sum(v), avg(v) FROM pf GROUP BY g');
SELECT * FROM gpu_diff('SELECT g, count(*), sum(v), avg(v) FROM pf GROUP BY g');
SELECT * FROM gpu_diff('SELECT s, count(*), sum(v) FROM pf WHERE s <> ''k3'' GROUP BY s');
RESET gpudb.parallel_workers;
SET gpudb.min_parallel_table_size = '64MB';
SELECT * FROM pf_explain('SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700');
SET gpudb.min_parallel_table_size = '1MB';
-- as many workers as the server allows (max_parallel_workers caps the GUC)
SET gpudb.parallel_workers = 1024;
SELECT * FROM gpu_diff('SELECT g, count(*), sum(v), avg(v) FROM pf GROUP BY g');
SET gpudb.parallel_workers = 3;

-- errors inside the workers arrive as PostgreSQL's errors: a division by
-- zero on one row, integer and bigint overflows on many
SELECT * FROM gpu_diff('SELECT count(*) FROM pf WHERE 1000 / (id - 59000) > -1000');
SELECT * FROM gpu_diff('SELECT g, count(*) FROM pf WHERE v * 3000000 > 0 GROUP BY g');
SELECT * FROM gpu_diff('SELECT id FROM pf WHERE id * 200000000000000 > 0');
-- (a worker's error carries CONTEXT "parallel worker"; who read the row varies)
\set SHOW_CONTEXT never
SELECT count(*) FROM pf WHERE 1000 / (id - 59000) > -1000;
-- and the session goes on
SELECT * FROM gpu_diff('SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700');

-- The cost model divides an uncached heap's per-row cost among its readers
-- (custom_scan_cost.c, gdb_device_cost): with the gpudb cost constants zeroed,
-- a count(*) GpudbAgg starts at pages * seq_page_cost + rows * 0.5 *
-- cpu_tuple_cost / readers, readers being the backend and the
-- gpudb.parallel_workers it would start (none for a temporary table)
CREATE FUNCTION pf_startup(q text) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j->0->'Plan'->>'Startup Cost')::float8;
END $$;
SELECT relpages AS pf_pages, reltuples AS pf_rows FROM pg_class WHERE relname = 'pf' \gset
SET gpudb.parallel_workers = 0;
SELECT pf_startup('SELECT count(*) FROM pf') - :pf_pages AS alone \gset
SET gpudb.parallel_workers = 3;
SELECT pf_startup('SELECT count(*) FROM pf') - :pf_pages AS four \gset
CREATE TEMP TABLE pf_cost_tmp AS SELECT * FROM pf;
ANALYZE pf_cost_tmp;
SELECT relpages AS tmp_pages, reltuples AS tmp_rows FROM pg_class WHERE relname = 'pf_cost_tmp' \gset
SELECT pf_startup('SELECT count(*) FROM pf_cost_tmp') - :tmp_pages AS tmp \gset
SELECT round(:alone::numeric, 4) = round((:pf_rows * 0.005)::numeric, 4) AS one_reader,
       round((:alone / :four)::numeric, 6) AS readers_with_3_workers,
       round((:tmp / (:tmp_rows * 0.005))::numeric, 6) AS temp_readers_inverse;
DROP TABLE pf_cost_tmp;
DROP FUNCTION pf_startup(text);

-- EXPLAIN (ANALYZE, BUFFERS): each worker's buffer use is passed back and
-- joins the node's, as Gather's workers' does.  The node's shared blocks
-- then cover the whole heap, and exceed the same query's with the backend
-- reading alone by the workers' own catalog reads at start-up (counted
-- under Gather too).  Without them the leader's share alone is counted,
-- which is at most the backend's own count: on a small table the leader
-- may read every block before a worker starts.
\i sql/include/node_buffers.sql
SELECT pg_relation_size('pf') / current_setting('block_size')::int8 AS pf_blocks \gset
SET gpudb.parallel_workers = 0;
SELECT blocks >= :pf_blocks AS whole_heap
FROM gpu_node_buffers('SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700');
SELECT blocks AS alone_blocks
FROM gpu_node_buffers('SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700') \gset
SET gpudb.parallel_workers = 3;
SELECT workers > 0 AS workers_launched, blocks >= :pf_blocks AS whole_heap,
       blocks > :alone_blocks AS workers_counted
FROM gpu_node_buffers('SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700');
DROP FUNCTION gpu_node_buffers(text);

-- a read-write transaction: the workers see its own inserted and updated
-- rows (its snapshot and command ids travel to them)
BEGIN;
INSERT INTO pf SELECT 100000 + i, 500, i, i, 'new', 'x' FROM generate_series(1, 3000) i;
UPDATE pf SET v = v + 1 WHERE id % 100 = 0;
DELETE FROM pf WHERE id % 1000 = 7;
SELECT * FROM pf_explain('SELECT g, count(*), sum(v), avg(v) FROM pf GROUP BY g');
SELECT * FROM gpu_diff('SELECT g, count(*), sum(v), avg(v) FROM pf GROUP BY g');
SELECT * FROM gpu_diff('SELECT s, count(*), sum(v) FROM pf GROUP BY s');
SELECT g, count(*), sum(v) FROM pf WHERE g = 500 GROUP BY g;
SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700;
SET gpudb.enabled = off;
SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700;
SET gpudb.enabled = on;
ROLLBACK;
SELECT count(*) FROM pf WHERE g = 500;

-- in a cursor
BEGIN;
DECLARE c CURSOR FOR SELECT g, count(*), sum(v) FROM pf GROUP BY g ORDER BY count(*) DESC LIMIT 6;
FETCH 2 FROM c;
FETCH 10 FROM c;
CLOSE c;
DECLARE d CURSOR FOR SELECT s, count(*) FROM pf WHERE s IS NOT NULL GROUP BY s ORDER BY s;
FETCH ALL FROM d;
COMMIT;

-- in a subtransaction that fails in a worker, then succeeds
BEGIN;
SAVEPOINT a;
SELECT count(*) FROM pf WHERE 1000 / (id - 59000) > -1000;
ROLLBACK TO SAVEPOINT a;
\set SHOW_CONTEXT errors
SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700;
COMMIT;

-- serializable and repeatable read transactions
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM gpu_diff('SELECT g, count(*), sum(v), avg(v) FROM pf GROUP BY g');
COMMIT;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM gpu_diff('SELECT s, count(*), sum(v) FROM pf WHERE s <> ''k3'' GROUP BY s');
COMMIT;

-- no column read (count(*) alone), and the SQL function over the heap
SELECT * FROM pf_explain('SELECT count(*) FROM pf');
SELECT * FROM gpu_diff('SELECT count(*) FROM pf');
SELECT * FROM gpu_groupby('pf', 's', 'count(*), sum(v)', 'v > 10')
  AS r(s text, n int8, sv int8) ORDER BY s;
SELECT s, count(*), sum(v) FROM pf WHERE v > 10 GROUP BY s ORDER BY s;

-- a temporary table's pages are in this backend's local buffers: no workers
CREATE TEMP TABLE pf_tmp AS SELECT * FROM pf;
ANALYZE pf_tmp;
SELECT * FROM pf_explain('SELECT g, count(*), sum(v) FROM pf_tmp GROUP BY g');
SELECT * FROM gpu_diff('SELECT g, count(*), sum(v) FROM pf_tmp GROUP BY g');
DROP TABLE pf_tmp;

-- every row deleted (the heap keeps its blocks): no key, one row
DELETE FROM pf;
SELECT * FROM pf_explain('SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700');
SELECT * FROM gpu_diff('SELECT count(*), sum(v) FROM pf WHERE v BETWEEN 100 AND 700');
SELECT * FROM gpu_diff('SELECT g, count(*), sum(v) FROM pf GROUP BY g');
SELECT * FROM gpu_diff('SELECT id, v FROM pf WHERE v > 900 ORDER BY v DESC, id LIMIT 20', true);

DROP FUNCTION pf_explain(text);
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP TABLE pf;
