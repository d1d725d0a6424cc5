/*-------------------------------------------------------------------------
 *
 * gpudb_defaults.h
 *	  The one place where every GUC default of gpudb is defined.
 *
 * README.md's GUC table is checked against these by
 * test/check_guc_table.sh (run by test/run_tests.sh).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_DEFAULTS_H
#define GPUDB_DEFAULTS_H

/* gpudb.enabled: run gpudb operators on the device when true */
#define GPUDB_DEFAULT_ENABLED		true

/* gpudb.device: auto | gpu | cpu */
#define GPUDB_DEFAULT_DEVICE		GPUDB_DEVICE_AUTO

/* gpudb.batch_rows: rows per column batch sent to the device */
#define GPUDB_DEFAULT_BATCH_ROWS	4194304
#define GPUDB_MIN_BATCH_ROWS		1024
#define GPUDB_MAX_BATCH_ROWS		67108864

/* gpudb.use_cache: answer from the column cache when it is valid */
#define GPUDB_DEFAULT_USE_CACHE		true

/* gpudb.cache_size: memory for cached columns, kB (4GB) */
#define GPUDB_DEFAULT_CACHE_SIZE_KB	(4 * 1024 * 1024)

/* gpudb.device_memory_limit: kB of device memory the server may use; 0 = all */
#define GPUDB_DEFAULT_DEVICE_MEMORY_LIMIT_KB 0

/*
 * gpudb.devices: the CUDA device ordinals the GPU server uses, comma
 * separated; empty for every visible device.  An ordinal may repeat: each
 * entry is a logical device (its own execution state and stream), so that
 * the sharded cache can be tested over several logical devices of one GPU.
 * Read by the GPU server process when it starts (a reload changes nothing
 * until the server process restarts).
 */
#define GPUDB_DEFAULT_DEVICES		""

/*
 * gpudb.cache_shards: shards a cached relation's rows are split into, shard
 * s on logical device s % (number of devices); 0 for one per logical
 * device (one in CPU mode)
 */
#define GPUDB_DEFAULT_CACHE_SHARDS	0
#define GPUDB_MAX_CACHE_SHARDS		16

/*
 * gpudb.enable_gpuscan / enable_gpuagg / enable_gpusort / enable_gpujoin:
 * offer the plan nodes
 */
#define GPUDB_DEFAULT_ENABLE_GPUSCAN	true
#define GPUDB_DEFAULT_ENABLE_GPUAGG		true
#define GPUDB_DEFAULT_ENABLE_GPUSORT	true
#define GPUDB_DEFAULT_ENABLE_GPUJOIN	true

/*
 * Cost constants of the custom scan nodes, in the planner's cost units
 * (seq_page_cost = 1 is one sequential page read).  How they were measured
 * is in README.md ("Cost model").
 *	 gpudb.gpu_setup_cost		per query: the GPU server round trip
 *	 gpudb.gpu_tuple_cost		per input row processed on the device
 *	 gpudb.gpu_transfer_cost	per byte of column data sent to the device,
 *								deforming the heap into batches included
 *								(uncached relations only)
 */
#define GPUDB_DEFAULT_GPU_SETUP_COST	50.0
#define GPUDB_DEFAULT_GPU_TUPLE_COST	0.00002
#define GPUDB_DEFAULT_GPU_TRANSFER_COST	0.0006

/*
 * Not a GUC: how many times gpudb.gpu_setup_cost an uncached request costs
 * on top of the round trip: its batch buffers are shared memory that the
 * GPU server maps and registers with the device for every query.  From
 * the H200 small-table runs: at 3e2c19f the planner chose an uncached
 * 10,000-row GpudbSort that took 1.56 ms against PostgreSQL's 0.89 ms; with
 * this factor (then 2, f1844d7) that query keeps PostgreSQL's plan, while
 * the 100,000-row one still takes GpudbSort and wins (7.5 ms against 8.7
 * ms).  With a heap tuple at half a cpu_tuple_cost (GPUDB_HEAP_ROW_FACTOR)
 * 2 took GpudbSort again at 10,000 rows (bc80908: 1.59 ms against 1.07 ms);
 * at 3 the 10,000-row queries keep PostgreSQL's plan and the 100,000-row
 * ones still go to the device, where they win (bc80908: 0.62-0.86x).
 */
#define GPUDB_UNCACHED_SETUP_FACTOR		3.0

/*
 * Not a GUC: what visiting a heap tuple costs the uncached device path, in
 * cpu_tuple_cost units (its columns cost gpudb.gpu_transfer_cost a byte on
 * top).  The heap reader (heap_deform.c) takes each page's visible tuples
 * at once and deforms only the columns read, with no slot per tuple.  From
 * the H200 run at e72ca4f, 100M rows in shared_buffers, 17 processes
 * each: forced onto the device, the filter + sum at 1 % took 304 ms
 * against PostgreSQL's 476 ms, whose model charges it cpu_tuple_cost and
 * two quals a row; the group-by 447 ms against 1,177 ms.
 */
#define GPUDB_HEAP_ROW_FACTOR			0.5

/*
 * Not GUCs: what a GpudbJoin build row costs, as its columns' bytes (9 a
 * column, as a heap row's) times gpudb.gpu_transfer_cost times
 * GPUDB_JOIN_BUILD_FACTOR, and that again GPUDB_JOIN_REBUILD_FACTOR times
 * for every further batch of a probe read from the heap.  The build
 * query's result crosses the GPU server's connection, its text is
 * re-encoded, and it travels again with the probe request; with a heap
 * probe, each batch's request carries the build sides again (the device
 * keeps their hash tables from batch to batch by join_id, but the bytes
 * cross the server's connection every time).  From the H200 TPC-H SF 10
 * run at 1c56996 (test/bench/results/, the tpch22 time run at SF 10),
 * set against PostgreSQL's own estimates of the same queries' plans (the
 * planner compares the two): Q4's cached probe with ~38M one-column build
 * rows took 1,625 ms where PostgreSQL's plan, estimated at ~390,000 units,
 * took 527 ms, so a build row must cost ~0.03 units (the factor 5 makes it
 * 0.027); Q3's, ~7M rows of two and three columns, took 444 ms against
 * 1,674 ms and stays on the device (~75,000 units against PostgreSQL's
 * ~87,000 at SF 1); Q3 over the heap (15 batches of 4M rows) took 17.6 s
 * against 1.7 s.
 */
#define GPUDB_JOIN_BUILD_FACTOR			5.0
#define GPUDB_JOIN_REBUILD_FACTOR		2.0

/*
 * Not a GUC: the same for a build side read from the column cache, which
 * the GPU server keeps (server_join_keep.c), on a GPU in device memory
 * where the device selected it (kept_result.cu): its bytes never cross
 * PCIe, its cost is the device's select and hash build.  From the H100
 * TPC-H SF 10 run at ee2da7a: Q4's ~38M one-column build rows (341 MB)
 * took 2.75 ms (575 ms before, through host memory), Q21's 60M rows of
 * two columns (1.08 GB) 1.76 ms, where PostgreSQL's plans run ~740 units
 * a ms: ~0.000006 units a byte, a hundredth of gpudb.gpu_transfer_cost
 * (0.0006); twice that here for the per-query allocation and the text
 * columns' re-encoding.
 */
#define GPUDB_JOIN_KEPT_FACTOR			0.02

/*
 * Not a GUC: the same where the GPU server runs the CPU path (no GPU, or
 * gpudb.device = cpu): a kept build side stays in its host memory, and
 * its bytes are copied and hashed there.  From the H100 TPC-H SF 10 run
 * at 3c7edaa, when build sides were kept in host memory on a GPU too:
 * Q4's ~38M one-column build rows (341 MB) took 463 ms to keep, Q12's 15M
 * rows of two columns (270 MB, one of text codes re-encoded) 527 ms, at
 * ~740 units a ms: ~0.001 to 0.0014 units a byte, gpu_transfer_cost twice.
 */
#define GPUDB_JOIN_KEPT_HOST_FACTOR		2.0

/*
 * Not a GUC: what one distinct string of a build side's text payload
 * costs, in bytes at gpudb.gpu_transfer_cost (re-encoded, string by
 * string, into the probe relation's dictionary; its groups' strings
 * decoded again for the result).  From the same H100 run at 2b8873b:
 * Q10's customer build side, four text columns of ~1.5M distinct strings
 * each, made the query ~2.9 s where the device took 61 ms and PostgreSQL
 * 2.4 s: ~0.3 microseconds a string, ~0.25 units, 400 bytes at 0.0006.
 */
#define GPUDB_JOIN_TEXT_VALUE_FACTOR	400.0

/*
 * Not a GUC: after every request, the GPU server keeps at most this
 * fraction (1 / divisor) of a device's memory in the scratch buffers of
 * its execution state (gdb_cuda_release_scratch, the largest first): the
 * buffers of the queries that come again stay allocated, a large sort's
 * go back to the device, so that a cache load after it finds the memory.
 * A column store that still does not fit frees every scratch buffer and
 * tries once more (column_store.cu).
 */
#define GPUDB_SCRATCH_KEPT_DIVISOR		8

/*
 * Not a GUC: the most bytes of GpudbJoin build sides the GPU server keeps
 * at once for the queries of every backend (server_join_keep.c), and half
 * of gpudb.cache_size if that is less; a build side past it travels
 * through its backend instead.
 */
#define GPUDB_JOIN_KEPT_BYTES			((uint64) 16 * 1024 * 1024 * 1024)

/*
 * Not a GUC: what each row GpudbScan or GpudbSort returns costs on top of
 * cpu_tuple_cost, in gpudb.gpu_tuple_cost units (so that zeroing the cost
 * GUCs still forces the nodes): its values are rebuilt from the result
 * batch (text through the query's dictionary) into a tuple.  From the H200
 * run at d366ed3: a GpudbScan returning 300,000 flights rows to a sort made
 * the plan 44 ms slower than PostgreSQL's parallel scan, about 150 ns (2.5
 * cpu_tuple_cost at ~6 us a page) more per row than PostgreSQL's own;
 * 1000 * 2e-05 = 0.02, twice cpu_tuple_cost.
 */
#define GPUDB_RESULT_ROW_FACTOR			1000.0

/*
 * Not a GUC: what each text group key of each group a GpudbJoin returns
 * costs, in bytes at gpudb.gpu_transfer_cost: the GPU server decodes its
 * string from the dictionary into the reply, and the backend rebuilds it
 * into the group's tuple.  From the H100 TPC-H SF 10 run at 34482bc: Q10's
 * 381,105 groups of five text keys (1.9M strings) took ~1,080 ms of its
 * request beyond the device's 42 ms: ~0.57 us a string, ~0.42 units at
 * ~740 units a ms, 700 bytes at 0.0006.
 */
#define GPUDB_RESULT_TEXT_VALUE_FACTOR	700.0

/*
 * Not a GUC: how many times gpudb.gpu_tuple_cost a row costs when the nodes
 * run on the CPU path (gpudb.device = cpu): the CPU path is one backend's
 * loop, slower per row than PostgreSQL's own plans, so it only wins when the
 * cost constants are zeroed to force it (tests).
 */
#define GPUDB_CPU_PATH_FACTOR			1000.0

/*
 * gpudb.parallel_workers: PostgreSQL parallel workers that read an uncached
 * relation's heap into batches alongside the backend (parallel_feed.c);
 * 0 reads it in the backend alone.  Capped at run time by
 * max_parallel_workers and max_worker_processes.
 */
#define GPUDB_DEFAULT_PARALLEL_WORKERS	8
#define GPUDB_MAX_PARALLEL_WORKERS		1024

/*
 * gpudb.min_parallel_table_size: the heap size, in blocks (8MB), from which
 * the parallel workers are used; smaller relations are read by the backend
 * alone (starting workers costs more than they save).
 */
#define GPUDB_DEFAULT_MIN_PARALLEL_TABLE_SIZE	1024

/* gpudb.explain_hardware: EXPLAIN shows the device name and timings */
#define GPUDB_DEFAULT_EXPLAIN_HARDWARE	true

/* gpudb.debug_unsupported: say (NOTICE) what kept a query off the device */
#define GPUDB_DEFAULT_DEBUG_UNSUPPORTED	false

/*
 * How long (ms) a transaction's end waits for the GPU server to confirm
 * the commit or abort of a cache load (cache.c: end_pending), with
 * interrupts held off: a server busy with another session's long request
 * is not waited for beyond this, and a cancel or termination ends the wait
 * at once; the load is then dropped, never half-applied.
 */
#define GPUDB_XACT_END_WAIT_MS			2000

#endif							/* GPUDB_DEFAULTS_H */
