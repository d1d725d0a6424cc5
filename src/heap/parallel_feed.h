/*-------------------------------------------------------------------------
 *
 * parallel_feed.h
 *	  PostgreSQL parallel workers that read an uncached relation's heap into
 *	  batches alongside the backend (parallel_feed.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_PARALLEL_FEED_H
#define GPUDB_PARALLEL_FEED_H

#include "access/parallel.h"
#include "storage/block.h"

#include "groupby.h"

/*
 * gdb_parallel_feed_workers: how many parallel workers to ask for to read
 * rel's heap of nblocks blocks (0: the backend reads it alone).  0 when
 * gpudb.parallel_workers is 0, the heap is below
 * gpudb.min_parallel_table_size, rel is temporary (its pages live in this
 * backend's local buffers), or this process is already in parallel mode
 * (a parallel worker, or inside a parallel plan); else
 * gpudb.parallel_workers capped by max_parallel_workers and
 * max_worker_processes.  Never raises.
 */
extern int	gdb_parallel_feed_workers(Relation rel, BlockNumber nblocks);

/*
 * gdb_parallel_feed_participants: the processes that would read the heap
 * of relation relid, nblocks blocks (its RelOptInfo's pages), at plan
 * time: 1 (the backend) plus the workers gdb_parallel_feed_workers would
 * ask for under the same rules and current settings.  The cost model
 * divides the heap's per-row cost by it, as PostgreSQL's parallel divisor
 * does its own.  Never raises (an unknown relid counts as permanent).
 */
extern int	gdb_parallel_feed_participants(Oid relid, BlockNumber nblocks);


/*
 * gdb_parallel_feed: read q's relation (nblocks blocks) with nworkers
 * parallel workers and this backend, each running req (an unordered
 * request: q->req without its order, or q->req itself) over its own
 * batches of up to gpudb.batch_rows rows on its own executor, a GROUP BY
 * combining its partial states with combine as they come.  Returns the
 * partial results, text codes in q->cs.dict: for a GROUP BY one batch (an
 * executor batch of ex) holding every participant's partial states, to be
 * combined once more by the caller; for SELECT and SORT the result
 * batches of every participant (each SORT batch ordered and cut on its
 * own, to be sorted together by the caller).  Never an empty list: this
 * backend runs req at least once, over no rows if it reads none.
 * *nbatches counts every participant's batches, *launched the workers
 * that started (fewer than nworkers, even none, only leave more to this
 * backend).  ex->stats adds up every participant's.  Raises what a
 * participant's request raises (a worker's error is raised again here),
 * and 53200 / XX000 when shared memory or a worker's message fails.
 */
extern List *gdb_parallel_feed(GdbQuery *q, GdbExecutor *ex,
							   const GdbRequest *req, const GdbRequest *combine,
							   BlockNumber nblocks, int nworkers,
							   int *nbatches, int *launched);

/*
 * gdb_parallel_feed_main: a parallel worker's entry point (by name, through
 * CreateParallelContext): its share of the scan, then its partial results
 * to the leader.
 */
extern PGDLLEXPORT void gdb_parallel_feed_main(dsm_segment *seg, shm_toc *toc);

#endif							/* GPUDB_PARALLEL_FEED_H */
