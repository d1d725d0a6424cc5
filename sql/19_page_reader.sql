-- 19_page_reader: visibility through the page-at-a-time heap reader
-- (heap_deform.c reads the tuples heapgetpage lists as visible, straight
-- from the pinned page).  Pages hold dead tuples (DELETE), old versions of
-- updated rows (HOT chains and non-HOT updates, pruned or not), aborted
-- inserts and updates, the transaction's own changes, and all-visible pages
-- beside others; the snapshot of a cursor, and of a REPEATABLE READ
-- transaction while another session deletes, must be the one honoured.
-- Every query runs with gpudb.enabled on and off (EXCEPT ALL both ways
-- empty), EXPLAIN pinned so that the Gpudb node really reads the heap.
\i sql/include/plan_node_settings.sql
SET gpudb.parallel_workers = 0;
SET gpudb.use_cache = off;

\i sql/include/differential.sql

-- pr_check(): the same three queries (GpudbAgg by g, GpudbAgg of everything,
-- GpudbScan of whole rows) through gpu_diff, one row each
CREATE FUNCTION pr_check()
RETURNS TABLE (q text, node text, nrows int, on_minus_off int,
               off_minus_on int, error text)
LANGUAGE sql AS $$
  SELECT q, d.* FROM unnest(ARRAY[
      'SELECT g, count(*), sum(v), count(k), max(id) FROM pr_t GROUP BY g',
      'SELECT k, count(*), sum(id), sum(v) FROM pr_t GROUP BY k',
      'SELECT * FROM pr_t WHERE g % 3 = 1']) WITH ORDINALITY u(q, o),
    LATERAL gpu_diff(q) d
  ORDER BY o
$$;

-- pr_explain(query): EXPLAIN ANALYZE's lines that show where the node read
-- its rows (with workers, how many started and the batches depend on timing
-- and are masked; the rows in are the table's, whoever read them)
CREATE FUNCTION pr_explain(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    l := regexp_replace(l, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    l := regexp_replace(l, 'Workers Launched: [1-9][0-9]*', 'Workers Launched: >0');
    IF current_setting('gpudb.parallel_workers')::int > 0 THEN
      l := regexp_replace(l, 'Batches: [0-9]+', 'Batches: N');
    END IF;
    IF l ~ '(Custom Scan|Source|Cache|Workers Launched|Batches|Rows In)' THEN
      RETURN NEXT l;
    END IF;
  END LOOP;
END $$;

-- pr_fetch(cursor): every row left in the cursor, as text
CREATE FUNCTION pr_fetch(c refcursor) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  out text[] := '{}';
BEGIN
  LOOP
    FETCH c INTO r;
    EXIT WHEN NOT FOUND;
    out := out || r::text;
  END LOOP;
  RETURN out;
END $$;

-- about 45 rows a page (fillfactor leaves room for HOT updates); no
-- autovacuum, so that the dead tuples stay until this test vacuums
CREATE TABLE pr_t (id int8 PRIMARY KEY, g int4, v float8, k text, pad text)
  WITH (fillfactor = 70, autovacuum_enabled = off);
INSERT INTO pr_t
SELECT i, i % 17, CASE WHEN i % 23 = 0 THEN NULL ELSE (i % 1000) * 0.25 END,
       CASE WHEN i % 29 = 0 THEN NULL ELSE 'k' || (i % 41) END, repeat('p', 80)
FROM generate_series(1, 20000) i;
VACUUM (FREEZE, ANALYZE) pr_t;
SELECT * FROM pr_explain('SELECT g, count(*), sum(v) FROM pr_t GROUP BY g');
SELECT * FROM pr_check();

-- dead tuples and HOT chains on some pages (the others stay all-visible):
-- repeated updates of an unindexed column, non-HOT updates of the key
DELETE FROM pr_t WHERE id % 7 = 0 AND id < 12000;
UPDATE pr_t SET v = v + 1 WHERE id % 5 = 0 AND id < 9000;
UPDATE pr_t SET v = v * 2, k = 'hot' WHERE id % 5 = 0 AND id < 6000;
UPDATE pr_t SET v = -v WHERE id % 10 = 0 AND id < 3000;
UPDATE pr_t SET id = id + 100000 WHERE id % 13 = 0 AND id BETWEEN 4000 AND 10000;
SELECT * FROM pr_check();
-- the first scan pruned what it could; again, now over pruned pages
SELECT * FROM pr_check();
-- each page is pinned once, whether all-visible (listed by the reader) or
-- not (heapgetpage's): the node's shared blocks are the heap's, plus the
-- visibility map page it asks (a page that is not all-visible was pinned
-- twice before the map was asked first)
\i sql/include/node_buffers.sql
SELECT blocks IS NOT NULL AS warmed_up
FROM gpu_node_buffers('SELECT count(*), sum(v) FROM pr_t');
SELECT blocks - pg_relation_size('pr_t') / current_setting('block_size')::int8
       BETWEEN 0 AND 2 AS each_block_once,
       (SELECT count(*) FROM pr_t) AS nrows
FROM gpu_node_buffers('SELECT count(*), sum(v) FROM pr_t');
SELECT * FROM pr_explain('SELECT count(*), sum(v) FROM pr_t');
DROP FUNCTION gpu_node_buffers(text);

-- aborted inserts and updates, and a rolled-back subtransaction
BEGIN;
INSERT INTO pr_t SELECT i, i % 17, i, 'aborted', 'x' FROM generate_series(200001, 203000) i;
UPDATE pr_t SET v = 0, k = 'aborted' WHERE id % 3 = 0;
ROLLBACK;
BEGIN;
INSERT INTO pr_t SELECT i, 99, i, 'kept', 'x' FROM generate_series(300001, 300500) i;
SAVEPOINT s;
INSERT INTO pr_t SELECT i, 98, i, 'rolled back', 'x' FROM generate_series(300501, 301500) i;
DELETE FROM pr_t WHERE g = 4;
ROLLBACK TO SAVEPOINT s;
UPDATE pr_t SET k = 'own update' WHERE g = 6;
DELETE FROM pr_t WHERE g = 8;
-- the transaction's own changes, in the transaction
SELECT * FROM pr_check();
COMMIT;
SELECT * FROM pr_check();

-- batches of 1024 rows end in the middle of pages: a page's remaining
-- visible tuples go into the next batch
SET gpudb.batch_rows = 1024;
SELECT * FROM pr_explain('SELECT g, count(*), sum(v) FROM pr_t GROUP BY g');
SELECT * FROM pr_check();
-- the parallel feed: leader and workers take blocks of one parallel scan
SET gpudb.parallel_workers = 2;
SET gpudb.min_parallel_table_size = '64kB';
SELECT pg_relation_size('pr_t') >= 64 * 1024 AS above_threshold;
SELECT * FROM pr_explain('SELECT g, count(*), sum(v) FROM pr_t GROUP BY g');
SELECT * FROM pr_check();
RESET gpudb.batch_rows;
SELECT * FROM pr_check();
SET gpudb.parallel_workers = 0;
RESET gpudb.min_parallel_table_size;

-- ---------------------------------------------------------------------------
-- a cursor's snapshot: rows this transaction deletes, updates and inserts
-- after DECLARE stay invisible to it (their command ids are later); the
-- cursor planned with gpudb on and the one planned with it off agree, and
-- both differ from the state after the changes
-- ---------------------------------------------------------------------------
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(v), count(k) FROM pr_t GROUP BY g;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL gpudb.enabled = on;
DECLARE c_on NO SCROLL CURSOR FOR SELECT g, count(*), sum(v), count(k) FROM pr_t GROUP BY g;
SET LOCAL gpudb.enabled = off;
DECLARE c_off NO SCROLL CURSOR FOR SELECT g, count(*), sum(v), count(k) FROM pr_t GROUP BY g;
DELETE FROM pr_t WHERE g IN (1, 2);
UPDATE pr_t SET v = 1000 WHERE g = 3;
INSERT INTO pr_t SELECT i, 1, i, 'late', 'x' FROM generate_series(400001, 401000) i;
WITH c AS (SELECT pr_fetch('c_on') AS a, pr_fetch('c_off') AS b),
     now AS (SELECT array_agg(x::text) AS n
             FROM (SELECT g, count(*), sum(v), count(k) FROM pr_t GROUP BY g) x)
SELECT cardinality(a) AS nrows,
       (SELECT count(*) FROM (SELECT unnest(a) EXCEPT ALL SELECT unnest(b)) d) AS on_minus_off,
       (SELECT count(*) FROM (SELECT unnest(b) EXCEPT ALL SELECT unnest(a)) d) AS off_minus_on,
       (SELECT count(*) FROM (SELECT unnest(b) EXCEPT ALL SELECT unnest(n)) d) > 0 AS changed_since
FROM c, now;
ROLLBACK;

-- ---------------------------------------------------------------------------
-- REPEATABLE READ: another session deletes, updates and commits after the
-- transaction's snapshot; both sides still see the rows as they were
-- (the other session is dblink's, from PostgreSQL's contrib: the GPU host's
-- bundled server has no dblink, and runs this file without the section,
-- 19_page_reader_2.out)
-- ---------------------------------------------------------------------------
SELECT count(*) = 1 AS have_dblink FROM pg_available_extensions WHERE name = 'dblink' \gset
\if :have_dblink
CREATE EXTENSION dblink;
SELECT dblink_connect('pr_other',
  format('dbname=%s port=%s host=%s', current_database(), current_setting('port'),
         split_part(current_setting('unix_socket_directories'), ',', 1)));
SELECT count(*) AS rows_before, sum(v) AS sum_before FROM pr_t \gset
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) = :rows_before AS same_count FROM pr_t;
SELECT dblink_exec('pr_other', 'DELETE FROM pr_t WHERE g IN (5, 9) OR id % 4 = 0');
SELECT dblink_exec('pr_other', 'UPDATE pr_t SET v = v + 7 WHERE g = 10');
SELECT dblink_exec('pr_other', 'INSERT INTO pr_t SELECT i, 10, i, ''other'', ''x'' FROM generate_series(500001, 502000) i');
SELECT * FROM pr_check();
SET LOCAL gpudb.enabled = on;
SELECT count(*) = :rows_before AS same_count, sum(v) = :sum_before AS same_sum FROM pr_t;
COMMIT;
-- and after it, the other session's changes
SELECT count(*) < :rows_before AS fewer_rows FROM pr_t;
SELECT * FROM pr_check();
SELECT dblink_disconnect('pr_other');
DROP EXTENSION dblink;
\endif

-- ---------------------------------------------------------------------------
-- a cache load reads the same pages (its rows' heap addresses included:
-- later changes find their rows by them); queries from the cache agree
-- ---------------------------------------------------------------------------
SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
\if :preloaded
RESET gpudb.use_cache;
SELECT gpu_cache_load('pr_t') > 0 AS loaded;
SELECT * FROM pr_explain('SELECT g, count(*), sum(v) FROM pr_t GROUP BY g');
SELECT * FROM pr_check();
DELETE FROM pr_t WHERE g = 11;
UPDATE pr_t SET v = v + 1 WHERE g = 12;
UPDATE pr_t SET id = -id WHERE g = 13 AND id % 2 = 0;
SELECT * FROM pr_check();
SELECT gpu_cache_drop('pr_t');
SET gpudb.use_cache = off;
\endif

DROP TABLE pr_t;
DROP FUNCTION gpu_diff(text, bool), gpu_diff_rows(text, bool), pr_check(),
  pr_explain(text), pr_fetch(refcursor);
