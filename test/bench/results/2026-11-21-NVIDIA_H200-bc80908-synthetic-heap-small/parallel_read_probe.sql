\timing on
SET max_parallel_workers_per_gather = 0; SET gpudb.enabled = off; SET enable_seqscan = off;
SELECT count(*) FROM tp WHERE ctid >= '(0,0)'::tid;
RESET enable_seqscan; SET gpudb.enabled = on;
SET gpudb.use_cache = off;
SET gpudb.parallel_workers = 16; SET max_parallel_workers_per_gather = 16;
\echo === planner choice, new cost model
EXPLAIN SELECT g, count(*), sum(v), avg(v) FROM tp GROUP BY g;
EXPLAIN SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
EXPLAIN SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.5;
SET gpudb.enabled = off;
EXPLAIN SELECT g, count(*), sum(v), avg(v) FROM tp GROUP BY g;
EXPLAIN SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SET gpudb.enabled = on;
\echo === forced, DEBUG1 feed reports
SET gpudb.gpu_setup_cost = 0; SET gpudb.gpu_tuple_cost = 0; SET gpudb.gpu_transfer_cost = 0; SET max_parallel_workers_per_gather = 0;
SET client_min_messages = debug1;
\echo --- B2 1% workers 16 gpu
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
\echo --- B2 1% workers 15 gpu
SET gpudb.parallel_workers = 15;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
\echo --- B2 1% workers 14 gpu
SET gpudb.parallel_workers = 14;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
\echo --- B2 1% workers 12 gpu
SET gpudb.parallel_workers = 12;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SET gpudb.parallel_workers = 16;
\echo --- B2 1% workers 16 device=cpu
SET gpudb.device = cpu;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SET gpudb.device = gpu;
\echo --- B2 1% workers 8 gpu
SET gpudb.parallel_workers = 8;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
\echo --- B2 1% workers 0 gpu
SET gpudb.parallel_workers = 0;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SET gpudb.parallel_workers = 16;
\echo --- B2 1% workers 16 gpu batch_rows 262144
SET gpudb.batch_rows = 262144;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
RESET gpudb.batch_rows;
\echo --- B1 workers 16 gpu
SELECT g, count(*), sum(v), avg(v) FROM tp GROUP BY g \g /dev/null
SELECT g, count(*), sum(v), avg(v) FROM tp GROUP BY g \g /dev/null
\echo --- B1 workers 16 cpu
SET gpudb.device = cpu;
SELECT g, count(*), sum(v), avg(v) FROM tp GROUP BY g \g /dev/null
SET gpudb.device = gpu;
RESET client_min_messages;
\echo --- B2 1% EXPLAIN ANALYZE workers 16 gpu
EXPLAIN (ANALYZE, VERBOSE) SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
\echo === PostgreSQL 16 workers
ALTER TABLE tp SET (parallel_workers = 16);
SET gpudb.enabled = off; SET max_parallel_workers_per_gather = 16;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
EXPLAIN (ANALYZE) SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SELECT g, count(*), sum(v), avg(v) FROM tp GROUP BY g \g /dev/null
SELECT g, count(*), sum(v), avg(v) FROM tp GROUP BY g \g /dev/null
\echo === planner choice with the table's parallel_workers = 16
SET gpudb.enabled = on;
EXPLAIN SELECT g, count(*), sum(v), avg(v) FROM tp GROUP BY g;
EXPLAIN SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
SET gpudb.enabled = off;
EXPLAIN SELECT g, count(*), sum(v), avg(v) FROM tp GROUP BY g;
EXPLAIN SELECT count(*), sum(v) FROM tp WHERE v BETWEEN 0 AND 0.01;
\echo === small tables: planner choice (uncached)
RESET ALL; SET gpudb.use_cache = off; SET gpudb.parallel_workers = 16; SET max_parallel_workers_per_gather = 16;
EXPLAIN SELECT g, count(*), sum(v), avg(v) FROM tp100k GROUP BY g;
EXPLAIN SELECT count(*), sum(v) FROM tp100k WHERE v BETWEEN 0 AND 0.01;
EXPLAIN SELECT id, v FROM tp100k ORDER BY v DESC, id LIMIT 10;
EXPLAIN SELECT g, count(*), sum(v), avg(v) FROM tp10k GROUP BY g;
EXPLAIN SELECT g, count(*), sum(v), avg(v) FROM tp1m GROUP BY g;
EXPLAIN SELECT count(*), sum(v) FROM tp1m WHERE v BETWEEN 0 AND 0.01;
\echo --- timings 100k/1m on and off
SELECT g, count(*), sum(v), avg(v) FROM tp100k GROUP BY g \g /dev/null
SELECT g, count(*), sum(v), avg(v) FROM tp100k GROUP BY g \g /dev/null
SELECT g, count(*), sum(v), avg(v) FROM tp1m GROUP BY g \g /dev/null
SELECT g, count(*), sum(v), avg(v) FROM tp1m GROUP BY g \g /dev/null
SELECT count(*), sum(v) FROM tp1m WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp1m WHERE v BETWEEN 0 AND 0.01;
SET gpudb.enabled = off;
SELECT g, count(*), sum(v), avg(v) FROM tp100k GROUP BY g \g /dev/null
SELECT g, count(*), sum(v), avg(v) FROM tp100k GROUP BY g \g /dev/null
SELECT g, count(*), sum(v), avg(v) FROM tp1m GROUP BY g \g /dev/null
SELECT g, count(*), sum(v), avg(v) FROM tp1m GROUP BY g \g /dev/null
SELECT count(*), sum(v) FROM tp1m WHERE v BETWEEN 0 AND 0.01;
SELECT count(*), sum(v) FROM tp1m WHERE v BETWEEN 0 AND 0.01;
