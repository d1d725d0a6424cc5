/*-------------------------------------------------------------------------
 *
 * parallel_feed.c
 *	  PostgreSQL parallel workers feed the device: an uncached relation's
 *	  heap is read into batches by the backend and its parallel workers
 *	  together.
 *
 * Data path: heap blocks (one parallel block scan: every participant takes
 * the next chunk of blocks as it goes) -> each participant's own column
 * batches (heap_batch.c) -> the device (each participant has its own
 * GdbExecutor: the GPU server, or the CPU path in that process) -> partial
 * results (GROUP BY: partial states, combined in the participant as they
 * come; SELECT and SORT: each batch's result) -> the leader, through one
 * shm_mq per worker -> the leader's combine (query_run.c: GROUP BY one
 * combine, ordered and cut for an ordered group-by; SORT the re-sort;
 * SELECT the batches as they are).  Heap deforming, the bottleneck of an
 * uncached query, is thus spread over the participants.
 *
 * The workers come from PostgreSQL's ParallelContext, used as parallel
 * CREATE INDEX uses it: they run in the leader's transaction under its
 * snapshot (they see what the query sees, the transaction's own changes
 * included), an ERROR in a worker is raised again in the leader, and an
 * error or cancel in the leader ends the workers and frees the shared
 * memory (transaction abort).  The leader reads its share too, so fewer
 * workers launched (or none) only leave it more to read.
 *
 * Text columns travel as dictionary codes, and each worker has its own
 * dictionary.  It starts with the leader's strings (the filter's text
 * constants, which the request's codes are bound to), so codes below that
 * count mean the same everywhere; a worker renumbers the other codes its
 * results carry densely from there and sends their strings along, and the
 * leader interns them into the query's dictionary and rewrites the codes.
 * So queries over text columns take this path too.  A join probe's build
 * sides (a GpudbJoin's) travel in the segment too; their text keys and
 * payload are codes of the leader's dictionary (join_build.c re-encodes
 * them before the workers start), below that count, so they mean the same
 * in every worker.
 *
 * The stream a worker sends: a FeedHeader message, then data_bytes bytes
 * in messages of at most FEED_CHUNK_BYTES: its result batches, each packed
 * to its rows (total_bytes), then its strings, each a uint32 length and the
 * bytes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "parallel_feed.h"

/* shm_toc keys */
#define FEED_KEY_SHARED		UINT64CONST(0xD6B0000000000001)
#define FEED_KEY_DICT		UINT64CONST(0xD6B0000000000002)
#define FEED_KEY_PSCAN		UINT64CONST(0xD6B0000000000003)
#define FEED_KEY_QUEUES		UINT64CONST(0xD6B0000000000004)
#define FEED_KEY_JOIN		UINT64CONST(0xD6B0000000000005)

/* one queue per worker; larger messages stream through it */
/* Batches a participant fills at least, and their least size (rows). */
#define FEED_BATCHES_PER_PARTICIPANT 4
#define FEED_MIN_BATCH_ROWS 65536

#define FEED_QUEUE_SIZE		((Size) 1024 * 1024)
#define FEED_CHUNK_BYTES	((Size) 8 * 1024 * 1024)

/* What the leader hands every worker. */
typedef struct FeedShared
{
	Oid			relid;
	uint64		capacity;		/* rows per batch */
	int			ncols;			/* the GdbColumnSet, less its dictionary */
	AttrNumber	attnums[GDB_MAX_COLUMNS];
	Oid			typids[GDB_MAX_COLUMNS];
	int32		typmods[GDB_MAX_COLUMNS];
	Oid			collations[GDB_MAX_COLUMNS];
	bool		nulls_only[GDB_MAX_COLUMNS];
	int			rank_of[GDB_MAX_COLUMNS];
	int			nexprs;			/* computed columns: their types (text ones
								 * carry codes, renumbered like columns') */
	Oid			expr_typids[GDB_MAX_EXPRS];
	bool		has_combine;
	TimestampTz launched_at;	/* the leader's clock at launch, for timings */
	int64		ndict;			/* the leader's strings, in FEED_KEY_DICT */
	GdbRequest	req;
	GdbRequest	combine;
} FeedShared;

/*
 * Where a participant's time went (ms), for the DEBUG1 report: the *_at
 * times from the leader's launch, the others summed over its batches.
 */
typedef struct FeedTimes
{
	double		started_at;		/* the worker's entry point ran */
	double		ready_at;		/* its executor and reader were set up */
	double		read_ms;		/* filling batches from the heap */
	double		wait_ms;		/* waiting on the device's results */
	double		done_at;		/* its share was read and run */
} FeedTimes;

/* The first message of a worker's stream. */
typedef struct FeedHeader
{
	uint64		data_bytes;		/* bytes that follow */
	int32		nparts;			/* result batches in them */
	int32		nbatches;		/* heap batches the worker read */
	int64		nstrings;		/* strings after the batches */
	GdbStats	stats;
	FeedTimes	times;
	BufferUsage bufusage;		/* the worker's, for EXPLAIN (BUFFERS) */
	WalUsage	walusage;		/* and for EXPLAIN (WAL) */
} FeedHeader;

/* The leader's state of one worker's stream. */
typedef struct FeedWorker
{
	shm_mq_handle *mqh;
	bool		have_header;
	bool		done;
	FeedHeader	header;
	char	   *data;
	uint64		got;
} FeedWorker;

/* The leader's state of the whole run. */
typedef struct FeedLeader
{
	ParallelContext *pcxt;
	GdbQuery   *q;
	GdbExecutor *ex;
	const GdbRequest *req;
	int64		nshared;		/* strings the workers' dictionaries start with */
	int			nworkers;		/* launched */
	FeedWorker *workers;
	List	   *parts;			/* the workers' results, in q->cs.dict codes */
	int			nbatches;
} FeedLeader;

/*
 * Workers gdb_parallel_feed asks for to read a heap of nblocks blocks,
 * local (temporary: in this backend's local buffers) or not.
 */
static int
feed_workers(bool local, BlockNumber nblocks)
{
	int			n = Max(0, Min(gpudb_parallel_workers,
							   Min(max_parallel_workers, max_worker_processes)));

	if (n == 0 || IsInParallelMode() || !IsUnderPostmaster || local ||
		nblocks < 2 || nblocks < (BlockNumber) gpudb_min_parallel_table_size)
		return 0;
	return Min(n, (int) Min(nblocks - 1, (BlockNumber) INT_MAX));
}

/* see parallel_feed.h */
int
gdb_parallel_feed_workers(Relation rel, BlockNumber nblocks)
{
	return feed_workers(RelationUsesLocalBuffers(rel), nblocks);
}

/* see parallel_feed.h */
int
gdb_parallel_feed_participants(Oid relid, BlockNumber nblocks)
{
	return 1 + feed_workers(get_rel_persistence(relid) == RELPERSISTENCE_TEMP,
							nblocks);
}

/* Does result column c of req carry dictionary codes of cs? */
static bool
text_result_column(const GdbRequest *req, const GdbColumnSet *cs, uint32 c)
{
	return gdb_column_is_text(cs, gdb_request_result_source(req, c));
}

static bool poll_workers_any(FeedLeader *fl);

/*
 * Fold part, a result of req, into a participant's results acc: a GROUP
 * BY's are combined into one batch by combine; others are kept in order.
 */
static List *
fold_part(GdbExecutor *ex, const GdbRequest *req, const GdbRequest *combine,
		  List *acc, GdbBatch *part)
{
	if (req->oper != GDB_OPER_GROUPBY || acc == NIL)
		return lappend(acc, part);
	return list_make1(gdb_executor_combine(ex, combine,
										   gdb_concat_batches(ex, lappend(acc, part))));
}

/* Milliseconds from the leader's launch (fs->launched_at) to now. */
static double
since_launch_ms(TimestampTz launched_at)
{
	return (double) (GetCurrentTimestamp() - launched_at) / 1000.0;
}

/* The device's result of the batch in flight, its wait added to times. */
static GdbBatch *
finish_timed(GdbExecutor *ex, FeedTimes *times)
{
	instr_time	t0;
	GdbBatch   *result;

	INSTR_TIME_SET_CURRENT(t0);
	result = gdb_executor_groupby_finish(ex);
	times->wait_ms += gdb_lap_ms(&t0);
	return result;
}

/*
 * One participant's share: read batches from reader, run req over each on
 * ex (the next batch is read while the device works on the last), and
 * return the partial results (a GROUP BY's combined with combine as they
 * come, so one batch).  With run_once, req runs even over no rows.  fl
 * (the leader only) has its workers' queues drained between batches.
 * req's code tables are bound to the participant's dictionary before
 * each batch (gdb_tables_bind), in a copy of req.
 */
static List *
feed_share(GdbExecutor *ex, GdbHeapReader *reader, const GdbColumnSet *cs,
		   const GdbRequest *req, const GdbRequest *combine, uint64 capacity,
		   bool run_once, FeedLeader *fl, int *nbatches, FeedTimes *times)
{
	GdbBatch	layout;
	GdbBatch   *input[2];
	List	   *acc = NIL;
	bool		in_flight = false;
	int			cur = 0;
	int			mine = 0;
	int			i;
	GdbRequest *bound = NULL;
	GdbTableMemo *memo = NULL;

	/*
	 * code tables: bound to this participant's dictionary before each
	 * batch, in a copy of the request (a worker's is in shared memory)
	 */
	if (req->ntables > 0)
	{
		bound = palloc(sizeof(GdbRequest));
		memcpy(bound, req, sizeof(GdbRequest));
		req = bound;
		memo = gdb_table_memo_create();
	}
	gdb_columnset_layout(cs, &layout, capacity, false);
	for (i = 0; i < 2; i++)
	{
		input[i] = gdb_executor_alloc_batch(ex, layout.total_bytes);
		memcpy(input[i], &layout, sizeof(GdbBatch));
	}
	for (;;)
	{
		instr_time	t0;
		uint64		n;

		INSTR_TIME_SET_CURRENT(t0);
		n = gdb_heap_reader_next(reader, input[cur], NULL);
		times->read_ms += gdb_lap_ms(&t0);

		if (in_flight)
		{
			/* n == 0: the batch in flight was the last one */
			in_flight = false;
			acc = fold_part(ex, req, combine, acc, finish_timed(ex, times));
		}
		if (n == 0 && (mine > 0 || !run_once))
			break;
		if (bound)
			gdb_tables_bind(memo, cs->dict, bound);
		gdb_executor_groupby_start(ex, req, input[cur]);
		in_flight = true;
		mine++;
		cur = 1 - cur;
		if (fl)
			(void) poll_workers_any(fl);
		CHECK_FOR_INTERRUPTS();
		if (n < capacity)
		{
			/* the scan is over: this was the last batch */
			in_flight = false;
			acc = fold_part(ex, req, combine, acc, finish_timed(ex, times));
			break;
		}
	}
	*nbatches += mine;
	return acc;
}

/* ---- worker side ---- */

/* Send len bytes at data in messages of at most FEED_CHUNK_BYTES. */
static void
send_bytes(shm_mq_handle *mqh, const char *data, uint64 len)
{
	while (len > 0)
	{
		Size		n = (Size) Min(len, (uint64) FEED_CHUNK_BYTES);

		if (shm_mq_send(mqh, n, data, false, true) != SHM_MQ_SUCCESS)
			ereport(ERROR,
					(errcode(ERRCODE_ADMIN_SHUTDOWN),
					 errmsg("gpudb: the leader of the parallel heap read is gone")));
		data += n;
		len -= n;
	}
}

/*
 * Send the worker's partial results: each packed to its rows, text codes
 * past the nshared strings renumbered densely from nshared in order of
 * first use, those strings after the batches.  h comes with the worker's
 * stats, batch count, times and buffer and WAL usage; the sizes are filled
 * in here.
 */
static void
send_results(shm_mq_handle *mqh, List *parts, const GdbColumnSet *cs,
			 const GdbRequest *req, int64 nshared, FeedHeader *h)
{
	int64		ndict = cs->dict ? gdb_dict_size(cs->dict) : 0;
	int64	   *map = NULL;
	char	   *strings = NULL;
	uint64		slen = 0;
	uint64		scap = 0;
	List	   *packed = NIL;
	ListCell   *lc;

	h->data_bytes = 0;
	h->nstrings = 0;
	foreach(lc, parts)
	{
		GdbBatch   *b = gdb_concat_batches(NULL, list_make1(lfirst(lc)));
		uint32		c;

		for (c = 0; c < b->ncols; c++)
		{
			int64	   *vals = GDB_COL_PTR(b, b, c, int64);
			const uint8_t *nulls = GDB_NULL_PTR(b, b, c);
			uint64		row;

			if (!text_result_column(req, cs, c))
				continue;
			if (map == NULL)
			{
				map = palloc_extended(sizeof(int64) * Max(ndict, 1), MCXT_ALLOC_HUGE);
				memset(map, 0xFF, sizeof(int64) * Max(ndict, 1));	/* -1 */
			}
			for (row = 0; row < b->nrows; row++)
			{
				int64		code = vals[row];

				if ((nulls && nulls[row]) || code < nshared)
					continue;
				if (code >= ndict)
					elog(ERROR, "gpudb: dictionary code " INT64_FORMAT " out of range", code);
				if (map[code] < 0)
				{
					text	   *t = (text *) DatumGetPointer(gdb_dict_datum(cs->dict, code));
					uint32		l = VARSIZE_ANY_EXHDR(t);

					while (slen + sizeof(uint32) + l > scap)
					{
						scap = Max(scap * 2, (uint64) 65536);
						strings = strings ? repalloc_huge(strings, scap) :
							palloc_extended(scap, MCXT_ALLOC_HUGE);
					}
					memcpy(strings + slen, &l, sizeof(uint32));
					memcpy(strings + slen + sizeof(uint32), VARDATA_ANY(t), l);
					slen += sizeof(uint32) + l;
					map[code] = nshared + h->nstrings++;
				}
				vals[row] = map[code];
			}
		}
		h->data_bytes += b->total_bytes;
		packed = lappend(packed, b);
	}
	h->data_bytes += slen;
	h->nparts = list_length(packed);
	if (shm_mq_send(mqh, sizeof(FeedHeader), h, false, true) != SHM_MQ_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_ADMIN_SHUTDOWN),
				 errmsg("gpudb: the leader of the parallel heap read is gone")));
	foreach(lc, packed)
	{
		const GdbBatch *b = (const GdbBatch *) lfirst(lc);

		send_bytes(mqh, (const char *) b, b->total_bytes);
	}
	send_bytes(mqh, strings, slen);
}


/* Does req name a build side the GPU server keeps (GdbJoinSpec.build_keep)? */
static bool
request_has_kept(const GdbRequest *req)
{
	uint32		j;

	for (j = 0; req != NULL && j < req->njoins && j < GDB_MAX_JOINS; j++)
		if (req->joins[j].build_keep != 0)
			return true;
	return false;
}

/* see parallel_feed.h */
void
gdb_parallel_feed_main(dsm_segment *seg, shm_toc *toc)
{
	FeedShared *fs = shm_toc_lookup(toc, FEED_KEY_SHARED, false);
	const char *dict = shm_toc_lookup(toc, FEED_KEY_DICT, false);
	ParallelTableScanDesc pscan = shm_toc_lookup(toc, FEED_KEY_PSCAN, false);
	char	   *queues = shm_toc_lookup(toc, FEED_KEY_QUEUES, false);
	shm_mq	   *mq = (shm_mq *) (queues + (Size) ParallelWorkerNumber * FEED_QUEUE_SIZE);
	GdbRequest *req = &fs->req;
	shm_mq_handle *mqh;
	GdbColumnSet cs;
	Relation	rel;
	GdbExecutor *ex;
	GdbHeapReader *reader;
	List	   *parts;
	int			nbatches = 0;
	FeedHeader	h;
	int64		i;

	memset(&h, 0, sizeof(h));
	h.times.started_at = since_launch_ms(fs->launched_at);
	shm_mq_set_sender(mq, MyProc);
	mqh = shm_mq_attach(mq, seg, NULL);
	/* count this worker's buffer and WAL use, for the leader's EXPLAIN */
	InstrStartParallelQuery();

	/* the leader holds AccessShareLock too; its lock group shares it */
	rel = table_open(fs->relid, AccessShareLock);
	memset(&cs, 0, sizeof(cs));
	cs.ncols = fs->ncols;
	memcpy(cs.attnums, fs->attnums, sizeof(cs.attnums));
	memcpy(cs.typids, fs->typids, sizeof(cs.typids));
	memcpy(cs.typmods, fs->typmods, sizeof(cs.typmods));
	memcpy(cs.collations, fs->collations, sizeof(cs.collations));
	memcpy(cs.nulls_only, fs->nulls_only, sizeof(cs.nulls_only));
	memcpy(cs.rank_of, fs->rank_of, sizeof(cs.rank_of));
	cs.nexprs = fs->nexprs;
	for (i = 0; i < fs->nexprs; i++)
		cs.typids[GDB_EXPR_COL(i)] = fs->expr_typids[i];
	/* the leader's strings first, so that their codes agree */
	cs.dict = gdb_dict_create();
	for (i = 0; i < fs->ndict; i++)
	{
		uint32		l;

		memcpy(&l, dict, sizeof(uint32));
		(void) gdb_dict_intern(cs.dict, dict + sizeof(uint32), (int) l);
		dict += sizeof(uint32) + l;
	}

	/*
	 * a join probe's build sides, in the segment (at this process's
	 * address of it: the request in shared memory stays as it is).  Their
	 * text codes are the leader's, which this dictionary starts with.
	 */
	if (fs->req.njoins > 0)
	{
		req = palloc(sizeof(GdbRequest));
		memcpy(req, &fs->req, sizeof(GdbRequest));
		req->join_data = shm_toc_lookup(toc, FEED_KEY_JOIN, false);
	}

	ex = gdb_executor_begin();
	h.times.ready_at = since_launch_ms(fs->launched_at);
	if (!ex->use_gpu && request_has_kept(req))
	{
		/*
		 * build sides kept by the GPU server, which this worker cannot
		 * reach: it reads no block, the others read them all
		 */
		parts = NIL;
		nbatches = 0;
	}
	else
	{
		reader = gdb_heap_reader_begin_parallel(rel, &cs, pscan);
		parts = feed_share(ex, reader, &cs, req,
						   fs->has_combine ? &fs->combine : NULL, fs->capacity,
						   false, NULL, &nbatches, &h.times);
		gdb_heap_reader_end(reader);
	}
	h.times.done_at = since_launch_ms(fs->launched_at);
	h.nbatches = nbatches;
	h.stats = ex->stats;
	InstrEndParallelQuery(&h.bufusage, &h.walusage);
	send_results(mqh, parts, &cs, req, fs->ndict, &h);
	table_close(rel, AccessShareLock);
}

/* ---- leader side ---- */

/*
 * A worker's whole stream is in: check its batches, intern its strings
 * into the query's dictionary, rewrite its codes, and keep its results.
 */
static void
take_results(FeedLeader *fl, FeedWorker *w)
{
	GdbColumnSet *cs = &fl->q->cs;
	char	   *p = w->data;
	char	   *end = w->data + w->header.data_bytes;
	List	   *parts = NIL;
	int64	   *map = NULL;
	int64		n = w->header.nstrings;
	int64		i;
	ListCell   *lc;

	for (i = 0; i < w->header.nparts; i++)
	{
		GdbBatch   *b = (GdbBatch *) p;

		if (end - p < (ptrdiff_t) sizeof(GdbBatch) || b->magic != GDB_BATCH_MAGIC ||
			b->ncols > GDB_MAX_COLUMNS || b->total_bytes > (uint64) (end - p) ||
			b->nrows > b->capacity)
			elog(ERROR, "gpudb: malformed result from a parallel worker");
		parts = lappend(parts, b);
		p += b->total_bytes;
	}
	if (n > 0)
	{
		if (cs->dict == NULL)
			cs->dict = gdb_dict_create();
		map = palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE);
	}
	for (i = 0; i < n; i++)
	{
		uint32		l;

		if (end - p < (ptrdiff_t) sizeof(uint32))
			elog(ERROR, "gpudb: malformed result from a parallel worker");
		memcpy(&l, p, sizeof(uint32));
		p += sizeof(uint32);
		if ((uint64) (end - p) < l)
			elog(ERROR, "gpudb: malformed result from a parallel worker");
		map[i] = gdb_dict_intern(cs->dict, p, (int) l);
		p += l;
	}
	foreach(lc, parts)
	{
		GdbBatch   *b = (GdbBatch *) lfirst(lc);
		uint32		c;

		for (c = 0; c < b->ncols; c++)
		{
			int64	   *vals = GDB_COL_PTR(b, b, c, int64);
			const uint8_t *nulls = GDB_NULL_PTR(b, b, c);
			uint64		row;

			if (!text_result_column(fl->req, cs, c))
				continue;
			for (row = 0; row < b->nrows; row++)
			{
				int64		code = vals[row];

				if ((nulls && nulls[row]) || code < fl->nshared)
					continue;
				if (code - fl->nshared >= n)
					elog(ERROR, "gpudb: malformed result from a parallel worker");
				vals[row] = map[code - fl->nshared];
			}
		}
	}
	fl->parts = list_concat(fl->parts, parts);
	fl->nbatches += w->header.nbatches;
	gdb_stats_add(&fl->ex->stats, &w->header.stats);
}

/*
 * Receive what worker w has sent so far, without waiting; true when
 * anything came.  A worker gone before its whole stream raises its error
 * (WaitForParallelWorkersToFinish rethrows it) or else XX000.
 */
static bool
poll_worker(FeedLeader *fl, FeedWorker *w)
{
	bool		progress = false;

	while (!w->done)
	{
		Size		nbytes;
		void	   *data;
		shm_mq_result res = shm_mq_receive(w->mqh, &nbytes, &data, true);

		if (res == SHM_MQ_WOULD_BLOCK)
			break;
		if (res == SHM_MQ_DETACHED)
		{
			WaitForParallelWorkersToFinish(fl->pcxt);
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpudb: a parallel worker exited without its result")));
		}
		progress = true;
		if (!w->have_header)
		{
			if (nbytes != sizeof(FeedHeader))
				elog(ERROR, "gpudb: malformed message from a parallel worker");
			memcpy(&w->header, data, sizeof(FeedHeader));
			w->have_header = true;

			/*
			 * The worker's buffer and WAL use joins this backend's, as
			 * Gather's workers' does (execParallel.c), so that the Gpudb node's
			 * EXPLAIN (ANALYZE, BUFFERS) counts the whole heap read.
			 */
			InstrAccumParallelQuery(&w->header.bufusage, &w->header.walusage);
			w->data = MemoryContextAllocExtended(fl->ex->mcxt,
												 Max(w->header.data_bytes, 1),
												 MCXT_ALLOC_HUGE);
			w->got = 0;
		}
		else
		{
			if (nbytes > w->header.data_bytes - w->got)
				elog(ERROR, "gpudb: malformed message from a parallel worker");
			memcpy(w->data + w->got, data, nbytes);
			w->got += nbytes;
		}
		if (w->got == w->header.data_bytes)
		{
			take_results(fl, w);
			w->done = true;
		}
	}
	return progress;
}

/* Drain every worker's queue without waiting; true if anything came. */
static bool
poll_workers_any(FeedLeader *fl)
{
	bool		progress = false;
	int			i;

	for (i = 0; i < fl->nworkers; i++)
		if (!fl->workers[i].done && poll_worker(fl, &fl->workers[i]))
			progress = true;
	return progress;
}

/* Wait until every launched worker's stream is in. */
static void
wait_workers(FeedLeader *fl)
{
	for (;;)
	{
		bool		all = true;
		int			i;

		if (!poll_workers_any(fl))
		{
			for (i = 0; i < fl->nworkers; i++)
				if (!fl->workers[i].done)
					all = false;
			if (all)
				break;
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1,
							 PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * DEBUG1 report of a finished parallel read of rel: where the leader's and
 * the workers' time went (FeedTimes), for the benchmarks' analysis.
 */
static void
report_feed(Relation rel, const FeedLeader *fl, int planned, uint64 capacity,
			double setup_ms, const FeedTimes *leader, double wait_ms,
			double shutdown_ms)
{
	FeedTimes	lo;
	FeedTimes	hi;
	FeedTimes	sum;
	int			i;

	if (!message_level_is_interesting(DEBUG1))
		return;
	memset(&lo, 0, sizeof(lo));
	memset(&hi, 0, sizeof(hi));
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < fl->nworkers; i++)
	{
		const FeedTimes *t = &fl->workers[i].header.times;

		if (i == 0)
			lo = hi = *t;
		lo.started_at = Min(lo.started_at, t->started_at);
		lo.ready_at = Min(lo.ready_at, t->ready_at);
		lo.done_at = Min(lo.done_at, t->done_at);
		hi.started_at = Max(hi.started_at, t->started_at);
		hi.ready_at = Max(hi.ready_at, t->ready_at);
		hi.read_ms = Max(hi.read_ms, t->read_ms);
		hi.wait_ms = Max(hi.wait_ms, t->wait_ms);
		hi.done_at = Max(hi.done_at, t->done_at);
		sum.read_ms += t->read_ms;
		sum.wait_ms += t->wait_ms;
	}
	elog(DEBUG1, "gpudb parallel read of \"%s\": %d of %d workers, " UINT64_FORMAT " rows a batch; "
		 "setup %.1f ms; leader: launch %.1f ms, read %.1f ms, waiting on the device %.1f ms, "
		 "done at %.1f ms, waiting for workers %.1f ms, shutdown %.1f ms; "
		 "workers: started at %.1f-%.1f ms, ready at %.1f-%.1f ms, read %.1f ms on average (%.1f at most), "
		 "waiting on the device %.1f ms on average (%.1f at most), done at %.1f-%.1f ms",
		 RelationGetRelationName(rel), fl->nworkers, planned, capacity,
		 setup_ms, leader->started_at, leader->read_ms, leader->wait_ms,
		 leader->done_at, wait_ms, shutdown_ms,
		 lo.started_at, hi.started_at, lo.ready_at, hi.ready_at,
		 fl->nworkers ? sum.read_ms / fl->nworkers : 0.0, hi.read_ms,
		 fl->nworkers ? sum.wait_ms / fl->nworkers : 0.0, hi.wait_ms,
		 lo.done_at, hi.done_at);
}

/* see parallel_feed.h */
List *
gdb_parallel_feed(GdbQuery *q, GdbExecutor *ex, const GdbRequest *req,
				  const GdbRequest *combine, BlockNumber nblocks, int nworkers,
				  int *nbatches, int *launched)
{
	Snapshot	snapshot = gdb_query_snapshot(q);
	int64		ndict = q->cs.dict ? gdb_dict_size(q->cs.dict) : 0;
	Size		dict_bytes = 0;
	Size		pscan_bytes;
	ParallelContext *pcxt;
	FeedShared *fs;
	char	   *dict;
	ParallelTableScanDesc pscan;
	char	   *queues;
	FeedLeader	fl;
	GdbHeapReader *reader;
	List	   *own;
	List	   *all;
	uint64		capacity;
	FeedTimes	times;
	instr_time	t0;
	double		setup_ms;
	double		wait_ms;
	double		shutdown_ms;
	int64		i;

	INSTR_TIME_SET_CURRENT(t0);
	memset(&times, 0, sizeof(times));

	/*
	 * A batch holds at most a quarter of a participant's share of the heap's
	 * rows (reltuples; nblocks full pages when the table was never
	 * analyzed), at least FEED_MIN_BATCH_ROWS: each participant then fills
	 * four or more batches, so that none is left filling one last big batch
	 * while the others wait (H200, 20M rows, 16 workers: 342-367 ms with
	 * batches of 4M rows, 219 ms with 1M).
	 */
	{
		double		tuples = q->rel->rd_rel->reltuples;
		uint64		est = tuples > 0 ? (uint64) tuples :
			(uint64) nblocks * MaxHeapTuplesPerPage;

		capacity = Min((uint64) gpudb_batch_rows,
					   Max((uint64) FEED_MIN_BATCH_ROWS,
						   est / ((uint64) (nworkers + 1) * FEED_BATCHES_PER_PARTICIPANT)));
	}
	for (i = 0; i < ndict; i++)
		dict_bytes += sizeof(uint32) +
			VARSIZE_ANY_EXHDR(DatumGetPointer(gdb_dict_datum(q->cs.dict, i)));

	EnterParallelMode();
	pcxt = CreateParallelContext("gpudb", "gdb_parallel_feed_main", nworkers);
	pscan_bytes = table_parallelscan_estimate(q->rel, snapshot);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(FeedShared));
	shm_toc_estimate_chunk(&pcxt->estimator, Max(dict_bytes, 1));
	shm_toc_estimate_chunk(&pcxt->estimator, pscan_bytes);
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(FEED_QUEUE_SIZE, nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator, Max(req->njoin_bytes, 1));
	shm_toc_estimate_keys(&pcxt->estimator, 5);
	InitializeParallelDSM(pcxt);

	fs = shm_toc_allocate(pcxt->toc, sizeof(FeedShared));
	memset(fs, 0, sizeof(FeedShared));
	fs->relid = RelationGetRelid(q->rel);
	fs->capacity = capacity;
	fs->ncols = q->cs.ncols;
	memcpy(fs->attnums, q->cs.attnums, sizeof(fs->attnums));
	memcpy(fs->typids, q->cs.typids, sizeof(fs->typids));
	memcpy(fs->typmods, q->cs.typmods, sizeof(fs->typmods));
	memcpy(fs->collations, q->cs.collations, sizeof(fs->collations));
	memcpy(fs->nulls_only, q->cs.nulls_only, sizeof(fs->nulls_only));
	memcpy(fs->rank_of, q->cs.rank_of, sizeof(fs->rank_of));
	fs->nexprs = q->cs.nexprs;
	for (i = 0; i < q->cs.nexprs; i++)
		fs->expr_typids[i] = q->cs.typids[GDB_EXPR_COL(i)];
	fs->ndict = ndict;
	fs->req = *req;
	fs->has_combine = combine != NULL;
	if (combine)
		fs->combine = *combine;
	shm_toc_insert(pcxt->toc, FEED_KEY_SHARED, fs);

	dict = shm_toc_allocate(pcxt->toc, Max(dict_bytes, 1));
	shm_toc_insert(pcxt->toc, FEED_KEY_DICT, dict);
	for (i = 0; i < ndict; i++)
	{
		text	   *t = (text *) DatumGetPointer(gdb_dict_datum(q->cs.dict, i));
		uint32		l = VARSIZE_ANY_EXHDR(t);

		memcpy(dict, &l, sizeof(uint32));
		memcpy(dict + sizeof(uint32), VARDATA_ANY(t), l);
		dict += sizeof(uint32) + l;
	}

	pscan = shm_toc_allocate(pcxt->toc, pscan_bytes);
	table_parallelscan_initialize(q->rel, pscan, snapshot);
	shm_toc_insert(pcxt->toc, FEED_KEY_PSCAN, pscan);

	queues = shm_toc_allocate(pcxt->toc, mul_size(FEED_QUEUE_SIZE, nworkers));
	shm_toc_insert(pcxt->toc, FEED_KEY_QUEUES, queues);
	{
		/* a join probe's build sides (the request's join_data is ours) */
		char	   *join = shm_toc_allocate(pcxt->toc, Max(req->njoin_bytes, 1));

		if (req->njoin_bytes > 0)
			memcpy(join, req->join_data, req->njoin_bytes);
		shm_toc_insert(pcxt->toc, FEED_KEY_JOIN, join);
	}
	for (i = 0; i < nworkers; i++)
	{
		shm_mq	   *mq = shm_mq_create(queues + i * FEED_QUEUE_SIZE, FEED_QUEUE_SIZE);

		shm_mq_set_receiver(mq, MyProc);
	}

	setup_ms = gdb_lap_ms(&t0);
	fs->launched_at = GetCurrentTimestamp();
	LaunchParallelWorkers(pcxt);
	times.started_at = since_launch_ms(fs->launched_at);

	memset(&fl, 0, sizeof(fl));
	fl.pcxt = pcxt;
	fl.q = q;
	fl.ex = ex;
	fl.req = req;
	fl.nshared = ndict;
	fl.nworkers = pcxt->nworkers_launched;
	fl.workers = palloc0(sizeof(FeedWorker) * Max(fl.nworkers, 1));
	for (i = 0; i < fl.nworkers; i++)
		fl.workers[i].mqh = shm_mq_attach((shm_mq *) (queues + i * FEED_QUEUE_SIZE),
										  pcxt->seg, pcxt->worker[i].bgwhandle);
	*launched = fl.nworkers;

	/* this backend's share, the workers' queues drained between batches */
	*nbatches = 0;
	reader = gdb_heap_reader_begin_parallel(q->rel, &q->cs, pscan);
	times.ready_at = since_launch_ms(fs->launched_at);
	own = feed_share(ex, reader, &q->cs, req, combine, capacity, true, &fl,
					 nbatches, &times);
	gdb_heap_reader_end(reader);
	times.done_at = since_launch_ms(fs->launched_at);

	INSTR_TIME_SET_CURRENT(t0);
	wait_workers(&fl);
	wait_ms = gdb_lap_ms(&t0);
	WaitForParallelWorkersToFinish(pcxt);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
	shutdown_ms = gdb_lap_ms(&t0);
	report_feed(q->rel, &fl, nworkers, capacity, setup_ms, &times, wait_ms,
				shutdown_ms);

	*nbatches += fl.nbatches;
	all = list_concat(own, fl.parts);
	if (req->oper == GDB_OPER_GROUPBY)
		return list_make1(gdb_concat_batches(ex, all));
	return all;
}
