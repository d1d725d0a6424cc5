/*-------------------------------------------------------------------------
 *
 * partial_results.h
 *	  Partial results of one request, run over parts of a relation (heap
 *	  batches, parallel workers, the shards of a cached relation), the
 *	  requests that combine them into the result of the whole relation, and
 *	  batches cut into such parts or put together from them.
 *	  Used by the executor (backend) and the GPU server alike.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_PARTIAL_RESULTS_H
#define GPUDB_PARTIAL_RESULTS_H

#include "nodes/pg_list.h"

#include "gpudb_device.h"

/*
 * gdb_batch_concat: all rows of parts (a List of GdbBatch *, result batches
 * of one request: the same column kinds and NULL flags), in list order, in
 * one batch packed to its rows, allocated by alloc(arg, bytes) (palloc'd
 * in the current memory context when alloc is NULL, raising 53200 when
 * memory is short); NULL when alloc returns NULL.  XX000 when the parts'
 * columns differ.
 */
extern GdbBatch *gdb_batch_concat(List *parts, GdbAllocFn alloc, void *arg);

/*
 * gdb_batch_slice: rows [from, from + n) of batch (within its rows) in a
 * batch of their own, allocated as gdb_batch_concat allocates; NULL when
 * alloc returns NULL.
 */
extern GdbBatch *gdb_batch_slice(const GdbBatch *batch, uint64 from, uint64 n,
								 GdbAllocFn alloc, void *arg);

/*
 * gdb_combine_request: the GROUPBY request that combines partial results
 * of req (their group keys, then one transition state per aggregate) with
 * input_is_states; with ordered, it also carries req's sort keys, limit
 * and group qualifier (they name result columns and aggregates, which the
 * combine's result has at the same positions): the final combine of an
 * ordered group-by (gdb_request_ordered).  palloc'd.
 */
extern GdbRequest *gdb_combine_request(const GdbRequest *req, bool ordered);

/*
 * gdb_unordered_request: a palloc'd copy of req without its order, limit
 * and group qualifier: what each part of an ordered group-by runs, so that
 * no group is cut or filtered before every partial result has been
 * combined.
 */
extern GdbRequest *gdb_unordered_request(const GdbRequest *req);

/*
 * gdb_resort_request: the SORT request that sorts the concatenated partial
 * results of SORT request req (each part already cut to req's limit) into
 * req's result: the parts' columns are its input and its output, its sort
 * keys name their positions there.  Stable, so rows that tie keep the
 * parts' order.  palloc'd; NULL when a sort key of req is not one of its
 * output columns.
 */
extern GdbRequest *gdb_resort_request(const GdbRequest *req);

#endif							/* GPUDB_PARTIAL_RESULTS_H */
