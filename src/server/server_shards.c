/*-------------------------------------------------------------------------
 *
 * server_shards.c
 *	  A cached relation's rows split into shards over the GPU server's
 *	  devices (gpudb.devices, gpudb.cache_shards): the column store of every
 *	  cache entry, as the rest of the server sees it (SrvStore).
 *
 * Placement.  Shard s is a column store (gpudb_device.h) on execution state
 * s % srv_nexecs (a device, or a logical device of gpudb.devices' repeated
 * ordinal), or a host store in CPU mode.  Shards hold consecutive row
 * ranges: rows are appended to the current shard until it holds its share
 * of the heap's estimated rows (shard_rows / nshards; a batch that crosses
 * the share is split), then to the next; the last shard takes what the
 * estimate missed, and rows appended by later changes go where appends
 * stand.  Shard order is therefore row order, the cache's row numbers
 * (the ctids array's) map onto (shard, row) by ranges, and results
 * concatenated in shard order are in row order.
 *
 * Queries.  A request over one non-empty shard runs as it is.  Over
 * several, each shard runs it, at once: a worker thread per further lane,
 * kept from one request to the next (on the GPU a lane is an execution
 * state, whose shards run in order; on the CPU path a shard, a join's
 * hash tables built by each).  The partial results combine as the heap path's batches do
 * (partial_results.h): a GROUP BY's states by the combine request (ordered
 * and cut there when the request is; each shard runs it unordered; on the
 * GPU each shard's states stay on its device and, when there are many,
 * are gathered on the first device, device to device, and combined there,
 * so that only the combine's result crosses PCIe), a SORT's rows by the
 * re-sort (each shard's cut to the limit first), a SELECT's rows
 * concatenated.  The first shard's error wins, as the first row's error
 * does in one store.
 * Float sums combine per shard (partial sums added), as PostgreSQL's
 * parallel aggregates do.
 *
 * GPU server process only.  Worker threads call only the paths' functions
 * of gpudb_device.h (the CUDA and CPU stores) and malloc; everything else
 * runs in the main thread.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "utils/memutils.h"

#include "gpu_server.h"
#include "gpudb_defaults.h"
#include "partial_results.h"

/* Partial results of at least this many rows combine on the device. */
#define SRV_DEVICE_COMBINE_ROWS 65536

/*
 * A shard's partial states of at least this many bytes stay on its device
 * for the combine (smaller ones come back at once: a device allocation of
 * their own would cost more than their copy).
 */
#define SRV_KEEP_PART_BYTES (4 << 20)

struct SrvStore
{
	int			nshards;
	int			cur;			/* the shard appends go to */
	uint64		share;			/* rows a shard takes before the next */
	uint64		first[GPUDB_MAX_CACHE_SHARDS];	/* its first row number */
	GdbStore   *shards[GPUDB_MAX_CACHE_SHARDS];
};

/* the execution state of shard s (NULL in CPU mode) */
static GdbCudaExec *
shard_exec(int s)
{
	return srv_use_gpu ? srv_execs[s % srv_nexecs] : NULL;
}

/* see gpu_server.h */
int
srv_store_create(uint32 ncols, const uint32 *kinds, const uint32 *has_nulls,
				 uint64 est_rows, uint64 shard_rows, SrvStore **out, GdbError *err)
{
	SrvStore   *ss = MemoryContextAllocZero(TopMemoryContext, sizeof(SrvStore));
	int			s;
	int			rc = GDB_OK;

	ss->nshards = Max(Min(srv_nshards, GPUDB_MAX_CACHE_SHARDS), 1);
	ss->share = Max((shard_rows + ss->nshards - 1) / ss->nshards, 1);
	for (s = 0; s < ss->nshards && rc == GDB_OK; s++)
	{
		uint64		cap = ss->nshards == 1 ? est_rows : Min(ss->share, 1024);

		rc = srv_use_gpu ?
			gdb_cuda_store_create(shard_exec(s), ncols, kinds, has_nulls, cap,
								  &ss->shards[s], err) :
			gdb_cpu_store_create(ncols, kinds, has_nulls, cap, &ss->shards[s], err);
		if (rc != GDB_OK)
			ss->shards[s] = NULL;
	}
	if (rc != GDB_OK)
	{
		srv_store_free(ss);
		return rc;
	}
	*out = ss;
	return GDB_OK;
}

/* see gpu_server.h */
void
srv_store_free(SrvStore *ss)
{
	int			s;

	if (ss == NULL)
		return;
	for (s = 0; s < ss->nshards; s++)
	{
		if (ss->shards[s] == NULL)
			continue;
		if (srv_use_gpu)
			gdb_cuda_store_free(ss->shards[s]);
		else
			gdb_cpu_store_free(ss->shards[s]);
	}
	pfree(ss);
}

/* The sum of fn over the shards, or with max their largest value. */
static uint64
shards_fold(const SrvStore *ss, uint64 (*fn) (const GdbStore *), bool max)
{
	uint64		n = 0;
	int			s;

	for (s = 0; s < ss->nshards; s++)
		n = max ? Max(n, fn(ss->shards[s])) : n + fn(ss->shards[s]);
	return n;
}

/* see gpu_server.h */
uint64
srv_store_rows(const SrvStore *ss)
{
	return shards_fold(ss, gdb_store_rows, false);
}

/* see gpu_server.h */
uint64
srv_store_bytes(const SrvStore *ss)
{
	return shards_fold(ss, gdb_store_bytes, false);
}

/* see gpu_server.h */
uint64
srv_store_max_shard_rows(const SrvStore *ss)
{
	return shards_fold(ss, gdb_store_rows, true);
}

/* see gpu_server.h */
int
srv_store_nshards(const SrvStore *ss)
{
	return ss->nshards;
}

/* see gpu_server.h */
void
srv_store_shard_info(const SrvStore *ss, int s, int *ordinal, uint64 *rows,
					 uint64 *bytes)
{
	*ordinal = srv_use_gpu ? srv_exec_ordinals[s % srv_nexecs] : -1;
	*rows = gdb_store_rows(ss->shards[s]);
	*bytes = gdb_store_bytes(ss->shards[s]);
}

/* see gpu_server.h */
void *
srv_palloc_no_oom(void *arg, size_t bytes)
{
	return MemoryContextAllocExtended(CurrentMemoryContext, bytes,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

/* Append batch's rows to shard s, on its device or the CPU path. */
static int
shard_append(SrvStore *ss, int s, const GdbBatch *batch, GdbStats *stats, GdbError *err)
{
	return srv_use_gpu ?
		gdb_cuda_store_append(shard_exec(s), ss->shards[s], batch, stats, err) :
		gdb_cpu_store_append(ss->shards[s], batch, err);
}

/* *_store_scatter into shard s (rows numbered within the shard). */
static int
shard_scatter(SrvStore *ss, int s, uint32 col, const uint32 *rows, const int64 *vals,
			  uint64 n, GdbStats *stats, GdbError *err)
{
	return srv_use_gpu ?
		gdb_cuda_store_scatter(shard_exec(s), ss->shards[s], col, rows, vals, n, stats, err) :
		gdb_cpu_store_scatter(ss->shards[s], col, rows, vals, n, err);
}

/*
 * Run req over shard s, on its device or the CPU path (*_store_groupby's
 * contract).  kept (may be NULL): on the GPU, a result of at least
 * keep_bytes bytes (1: any) stays on the device in *kept
 * (gdb_cuda_keep_result), else *kept is NULL.
 */
static int
shard_groupby(SrvStore *ss, int s, const GdbRequest *req, int keep_bytes,
			  GdbAllocFn alloc, void *alloc_arg, GdbBatch **result,
			  GdbDeviceBuffer **kept, GdbStats *stats, GdbError *err)
{
	GdbCudaExec *ex = shard_exec(s);
	int			rc;

	if (kept)
		*kept = NULL;
	if (!srv_use_gpu)
		return gdb_cpu_store_execute(ss->shards[s], req, alloc, alloc_arg, result,
									 stats, err);
	if (kept)
		gdb_cuda_keep_result(ex, keep_bytes);
	rc = gdb_cuda_store_execute(ex, ss->shards[s], req, alloc, alloc_arg, result,
								stats, err);
	if (kept)
	{
		*kept = gdb_cuda_take_result(ex);
		gdb_cuda_keep_result(ex, 0);
		if (rc != GDB_OK)
		{
			gdb_cuda_buffer_free(*kept);
			*kept = NULL;
		}
	}
	return rc;
}

/* see gpu_server.h */
int
srv_store_append(SrvStore *ss, const GdbBatch *batch, GdbStats *stats, GdbError *err)
{
	uint64		done = 0;

	/* the entry's row numbers are 32-bit (ctids' index, visibility) */
	if (batch->nrows > (uint64) UINT32_MAX - srv_store_rows(ss))
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "a cached relation of " UINT64_FORMAT " rows cannot take " UINT64_FORMAT " more (at most %u)",
							 srv_store_rows(ss), (uint64) batch->nrows, (unsigned) UINT32_MAX);
	while (done < batch->nrows || (batch->nrows == 0 && done == 0))
	{
		int			s = ss->cur;
		uint64		have = gdb_store_rows(ss->shards[s]);
		uint64		take = batch->nrows - done;
		const GdbBatch *part = batch;
		GdbBatch   *slice = NULL;
		int			rc;

		if (s < ss->nshards - 1 && have >= ss->share)
		{
			ss->cur++;
			ss->first[ss->cur] = ss->first[s] + have;
			continue;
		}
		if (s < ss->nshards - 1)
			take = Min(take, ss->share - have);
		if (take < batch->nrows)
		{
			slice = gdb_batch_slice(batch, done, take, srv_palloc_no_oom, NULL);
			if (slice == NULL)
				return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
									 "out of host memory for a shard's rows");
			part = slice;
		}
		rc = shard_append(ss, s, part, stats, err);
		if (slice)
			pfree(slice);
		if (rc != GDB_OK)
			return rc;
		done += take;
		if (batch->nrows == 0)
			break;
	}
	return GDB_OK;
}

/* the shard of row number row, and the row's number in it (*local) */
static int
shard_of(const SrvStore *ss, uint64 row, uint64 *local)
{
	int			s;

	for (s = ss->cur; s > 0 && row < ss->first[s]; s--)
		;
	*local = row - ss->first[s];
	return s;
}

/* see gpu_server.h */
int
srv_store_scatter(SrvStore *ss, uint32 col, const uint32 *rows, const int64 *vals,
				  uint64 n, GdbStats *stats, GdbError *err)
{
	uint32	   *lrows;
	int64	   *lvals;
	int			s;
	int			rc = GDB_OK;

	if (ss->cur == 0)
		return shard_scatter(ss, 0, col, rows, vals, n, stats, err);
	lrows = MemoryContextAllocExtended(CurrentMemoryContext, sizeof(uint32) * Max(n, 1),
									   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	lvals = MemoryContextAllocExtended(CurrentMemoryContext, sizeof(int64) * Max(n, 1),
									   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (lrows == NULL || lvals == NULL)
	{
		if (lrows)
			pfree(lrows);
		if (lvals)
			pfree(lvals);
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "out of host memory for the shards' visibility changes");
	}
	for (s = 0; s <= ss->cur && rc == GDB_OK; s++)
	{
		uint64		m = 0;
		uint64		i;

		for (i = 0; i < n; i++)
		{
			uint64		local;

			if (shard_of(ss, rows[i], &local) == s)
			{
				lrows[m] = (uint32) local;
				lvals[m++] = vals[i];
			}
		}
		if (m == 0)
			continue;
		rc = shard_scatter(ss, s, col, lrows, lvals, m, stats, err);
	}
	pfree(lrows);
	pfree(lvals);
	return rc;
}

/*
 * Thread-safe result allocator of the shards' partial results: malloc,
 * the block recorded at arg (a shard's slot), so that a run that fails
 * after its result was allocated leaves nothing behind.
 */
static void *
part_alloc(void *arg, size_t bytes)
{
	void	   *p = malloc(bytes);

	if (p != NULL && arg != NULL)
	{
		free(*(void **) arg);	/* (one result per run; never a second) */
		*(void **) arg = p;
	}
	return p;
}

/* The shards' runs of one request: what each thread reads and writes. */
typedef struct ShardRun
{
	SrvStore   *ss;
	const GdbRequest *req;
	GdbBatch   *parts[GPUDB_MAX_CACHE_SHARDS];
	GdbStats	stats[GPUDB_MAX_CACHE_SHARDS];
	GdbError	errs[GPUDB_MAX_CACHE_SHARDS];
	int			rcs[GPUDB_MAX_CACHE_SHARDS];
	double		ms[GPUDB_MAX_CACHE_SHARDS];	/* wall-clock ms of each run */
	void	   *allocs[GPUDB_MAX_CACHE_SHARDS];	/* part_alloc's block of each run */
	/* keep: each shard's result stays on its device (parts[s]: header) */
	bool		keep;
	/*
	 * lanes that run at once, shard s in lane s % nlanes: one per
	 * execution state on the GPU (lane = its index), one per shard on the
	 * CPU path
	 */
	int			nlanes;
	GdbDeviceBuffer *kept[GPUDB_MAX_CACHE_SHARDS];
} ShardRun;

/*
 * A worker thread per further lane (ShardRun.nlanes: on the GPU an
 * execution state, srv_execs[1..]; on the CPU path a shard), started at
 * the first request over several shards and kept for the process's life,
 * so that a request pays neither a thread's start nor the CUDA runtime's
 * first call in a new thread.  A request is posted (run set, done clear),
 * the worker runs that execution state's shards and sets done.
 */
typedef struct ShardWorker
{
	pthread_t	thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	ShardRun   *run;			/* the request posted; NULL when idle */
	bool		done;			/* its shards ran */
	bool		started;
	bool		failed;			/* no thread: run its shards in the caller */
	int			exec;
} ShardWorker;

static ShardWorker workers[SRV_MAX_EXECS];

/*
 * run run->req over the non-empty shards of lane exec (on the GPU, of
 * execution state exec), in order
 */
static void
run_shards_of(ShardRun *run, int exec)
{
	SrvStore   *ss = run->ss;
	struct timespec t0,
				t1;
	int			s;

	for (s = 0; s < ss->nshards; s++)
	{
		if (s % run->nlanes != exec || run->parts[s] != NULL ||
			gdb_store_rows(ss->shards[s]) == 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		run->rcs[s] = shard_groupby(ss, s, run->req, SRV_KEEP_PART_BYTES, part_alloc,
									&run->allocs[s], &run->parts[s],
									run->keep ? &run->kept[s] : NULL, &run->stats[s],
									&run->errs[s]);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		run->ms[s] = (t1.tv_sec - t0.tv_sec) * 1000.0 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
		if (run->rcs[s] != GDB_OK)
		{
			/* a result allocated before the failure is ours to free */
			free(run->allocs[s]);
			run->allocs[s] = NULL;
			run->parts[s] = NULL;
		}
	}
}

static void *
shard_worker_main(void *arg)
{
	ShardWorker *w = (ShardWorker *) arg;

	pthread_mutex_lock(&w->lock);
	for (;;)
	{
		ShardRun   *run;

		while (w->run == NULL || w->done)
			pthread_cond_wait(&w->cond, &w->lock);
		run = w->run;
		pthread_mutex_unlock(&w->lock);
		run_shards_of(run, w->exec);
		pthread_mutex_lock(&w->lock);
		w->done = true;
		pthread_cond_broadcast(&w->cond);
	}
	return NULL;
}

/* Start the worker of execution state exec (signals blocked in it). */
static void
start_worker(int exec)
{
	ShardWorker *w = &workers[exec];
	sigset_t	all,
				old;

	w->exec = exec;
	w->started = true;
	if (pthread_mutex_init(&w->lock, NULL) != 0 || pthread_cond_init(&w->cond, NULL) != 0)
	{
		w->failed = true;
		return;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	w->failed = pthread_create(&w->thread, NULL, shard_worker_main, w) != 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (w->failed)
		ereport(LOG,
				(errmsg("gpudb server: no worker thread for shard lane %d: its shards run in the main thread",
						exec)));
}

/*
 * Run run->req over every non-empty shard: each further lane's shards by
 * its worker, the first lane's in this thread, at the same time.
 */
static void
run_all_shards(ShardRun *run)
{
	int			nexec = run->nlanes;
	int			i;

	for (i = 1; i < nexec; i++)
	{
		ShardWorker *w = &workers[i];

		if (!w->started)
			start_worker(i);
		if (w->failed)
			continue;
		pthread_mutex_lock(&w->lock);
		w->run = run;
		w->done = false;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
	}
	run_shards_of(run, 0);
	for (i = 1; i < nexec; i++)
	{
		ShardWorker *w = &workers[i];

		if (w->failed)
		{
			run_shards_of(run, i);
			continue;
		}
		pthread_mutex_lock(&w->lock);
		while (!w->done)
			pthread_cond_wait(&w->cond, &w->lock);
		w->run = NULL;
		pthread_mutex_unlock(&w->lock);
	}
}

/*
 * Combine the shards' partial states on the first device: gathered into a
 * column store there (results kept on their devices copied device to
 * device, the others from the host), then comb over it, which returns
 * only what it cuts (an ordered group-by's first groups).  What the
 * combine moves and takes goes to *cst.
 */
static int
combine_on_device(SrvStore *ss, ShardRun *run, const GdbRequest *comb, uint64 prows,
				  GdbAllocFn alloc, void *alloc_arg, GdbBatch **result, GdbStats *cst,
				  GdbError *err)
{
	const GdbBatch *first = NULL;
	uint32		kinds[GDB_MAX_COLUMNS];
	uint32		has_nulls[GDB_MAX_COLUMNS];
	GdbStore   *all = NULL;
	uint32		c;
	int			s;
	int			rc;

	for (s = 0; s < ss->nshards && first == NULL; s++)
		first = run->parts[s];
	for (c = 0; c < first->ncols; c++)
	{
		kinds[c] = first->cols[c].kind;
		has_nulls[c] = first->cols[c].has_nulls;
	}
	rc = gdb_cuda_store_create(srv_exec, first->ncols, kinds, has_nulls, Max(prows, 1),
							   &all, err);
	for (s = 0; s < ss->nshards && rc == GDB_OK; s++)
	{
		if (run->parts[s] == NULL)
			continue;
		rc = run->kept[s] ?
			gdb_cuda_store_append_kept(srv_exec, all, run->parts[s], run->kept[s], cst, err) :
			gdb_cuda_store_append(srv_exec, all, run->parts[s], cst, err);
	}
	if (rc == GDB_OK)
		rc = gdb_cuda_store_execute(srv_exec, all, comb, alloc, alloc_arg, result, cst, err);
	gdb_cuda_store_free(all);
	return rc;
}

/* see gpu_server.h */
bool
srv_store_can_run(const SrvStore *ss, const GdbRequest *req)
{
	GdbRequest *rs;

	if (ss->cur == 0 || req->oper != GDB_OPER_SORT)
		return true;
	rs = gdb_resort_request(req);
	if (rs == NULL)
		return false;
	pfree(rs);
	return true;
}

/* see gpu_server.h */
int
srv_store_run(SrvStore *ss, const GdbRequest *req, GdbAllocFn alloc, void *alloc_arg,
			  GdbBatch **result, GdbDeviceBuffer **keep, GdbStats *stats, GdbError *err)
{
	ShardRun   *run;
	GdbRequest *comb;
	GdbBatch   *all;
	GdbStats	cst;
	List	   *parts = NIL;
	uint64		prows = 0;
	int			nonempty = 0;
	int			only = 0;
	int			s;
	int			rc;

	if (keep)
		*keep = NULL;
	for (s = 0; s < ss->nshards; s++)
		if (gdb_store_rows(ss->shards[s]) > 0)
		{
			nonempty++;
			only = s;
		}

	/* one shard with rows (or none): the request as it is */
	if (nonempty <= 1)
		return shard_groupby(ss, only, req, 1, alloc, alloc_arg, result, keep, stats, err);

	run = palloc0(sizeof(ShardRun));
	run->ss = ss;
	run->req = req->oper == GDB_OPER_GROUPBY && gdb_request_ordered(req) ?
		gdb_unordered_request(req) : req;
	/* a group-by's partial states stay on their devices until combined */
	run->keep = srv_use_gpu && req->oper == GDB_OPER_GROUPBY;
	run->nlanes = srv_use_gpu ? Min(srv_nexecs, ss->nshards) : ss->nshards;
	if (!srv_use_gpu && run->req->njoins > 0)
	{
		/*
		 * the CPU path keeps one join's hash tables per process for a
		 * join_id's next batches: each shard's thread builds its own
		 * instead (a request runs once per shard: nothing to keep)
		 */
		GdbRequest *copy = palloc(sizeof(GdbRequest));

		memcpy(copy, run->req, sizeof(GdbRequest));
		copy->join_id = 0;
		run->req = copy;
	}
	run_all_shards(run);

	/* a device fault in any shard: recovered, or the server restarts */
	for (s = 0; s < ss->nshards; s++)
		if (run->rcs[s] == GDB_ERR_DEVICE)
		{
			srv_check_device(run->rcs[s]);
			break;
		}

	/* the first shard's error is the query's */
	rc = GDB_OK;
	for (s = 0; s < ss->nshards; s++)
	{
		if (run->parts[s] != NULL)
		{
			gdb_stats_add(stats, &run->stats[s]);
			parts = lappend(parts, run->parts[s]);
			prows += run->parts[s]->nrows;
		}
		else if (rc == GDB_OK && gdb_store_rows(ss->shards[s]) > 0)
		{
			rc = run->rcs[s];
			*err = run->errs[s];
		}
	}
	stats->nshards = Min(ss->nshards, GDB_STATS_MAX_SHARDS);
	for (s = 0; s < (int) stats->nshards; s++)
		stats->shard_ms[s] = run->ms[s];
	if (rc == GDB_OK)
	{
		memset(&cst, 0, sizeof(cst));
		if (req->oper == GDB_OPER_SELECT)
		{
			*result = gdb_batch_concat(parts, alloc, alloc_arg);
			if (*result == NULL)
				rc = gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
								   "could not allocate a result batch of " UINT64_FORMAT " rows",
								   prows);
			comb = NULL;
		}
		else if (run->keep && prows >= SRV_DEVICE_COMBINE_ROWS)
		{
			comb = gdb_combine_request(req, gdb_request_ordered(req));
			rc = combine_on_device(ss, run, comb, prows, alloc, alloc_arg, result, &cst, err);
		}
		else
		{
			/* few partial rows: their arrays come to the host */
			for (s = 0; s < ss->nshards && rc == GDB_OK; s++)
				if (run->kept[s] != NULL)
					rc = gdb_cuda_buffer_to_host(shard_exec(s), run->kept[s], run->parts[s],
												 err);
			comb = req->oper == GDB_OPER_GROUPBY ?
				gdb_combine_request(req, gdb_request_ordered(req)) :
				gdb_resort_request(req);
			all = rc == GDB_OK ? gdb_batch_concat(parts, srv_palloc_no_oom, NULL) : NULL;
			if (rc == GDB_OK && all == NULL)
				rc = gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
								   "out of host memory for " UINT64_FORMAT " rows of partial results",
								   prows);
			if (rc != GDB_OK)
				;
			else if (comb == NULL)
				rc = gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								   "a sort key of a sharded cache's SORT is not an output column");
			else if (srv_use_gpu && prows >= SRV_DEVICE_COMBINE_ROWS)
				rc = gdb_cuda_execute(srv_exec, comb, all, alloc, alloc_arg, result, &cst,
									  err);
			else
				rc = gdb_cpu_execute(comb, all, alloc, alloc_arg, result, &cst, err);
			if (all)
				pfree(all);
		}
		stats->device_ms += cst.device_ms;
		for (s = 0; s < GDB_PHASE__COUNT; s++)
			stats->phase_ms[s] += cst.phase_ms[s];
		stats->bytes_to_device += cst.bytes_to_device;
		stats->bytes_from_device += cst.bytes_from_device;
		if (rc == GDB_OK)
			stats->groups_out = (*result)->nrows;
	}
	for (s = 0; s < ss->nshards; s++)
	{
		free(run->parts[s]);	/* (= allocs[s] after a run that succeeded) */
		gdb_cuda_buffer_free(run->kept[s]);
	}
	list_free(parts);
	pfree(run);
	return rc;
}

/* see gpu_server.h */
bool
srv_single_device(void)
{
	int			i;

	for (i = 1; i < srv_nexecs; i++)
		if (srv_exec_ordinals[i] != srv_exec_ordinals[0])
			return false;
	return true;
}
