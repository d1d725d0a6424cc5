/*-------------------------------------------------------------------------
 *
 * groupby.h
 *	  The parsed form of a gpu_groupby() call, shared by the argument
 *	  parser (groupby_parse.c) and the executor (groupby.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_GROUPBY_H
#define GPUDB_GROUPBY_H

#include "gpudb.h"

/* SQL aggregate functions gpu_groupby accepts. */
typedef enum GdbAggFunc
{
	GDB_FN_COUNT_STAR,
	GDB_FN_COUNT,
	GDB_FN_SUM,
	GDB_FN_AVG,
	GDB_FN_MIN,
	GDB_FN_MAX
} GdbAggFunc;

/* One aggregate of the aggregates list. */
typedef struct GdbAggregate
{
	GdbAggFunc	fn;
	AttrNumber	attnum;			/* 0 for count(*) */
	Oid			argtype;		/* InvalidOid for count(*) */
	Oid			result_type;	/* the equivalent SQL's result type */
	char	   *label;			/* e.g. "avg(delay)", for messages */
} GdbAggregate;

/* A parsed gpu_groupby() call. */
typedef struct GdbGroupByQuery
{
	Relation	rel;
	GdbColumnSet cs;			/* columns read; keys first */
	int			nkeys;
	Oid			key_types[GDB_MAX_GROUP_KEYS];
	char	   *key_names[GDB_MAX_GROUP_KEYS];
	int			naggs;
	GdbAggregate aggs[GDB_MAX_AGGREGATES];
	GdbRequest *req;			/* the device request being built */
} GdbGroupByQuery;

/*
 * gdb_parse_group_keys: resolve group_by (comma-separated, possibly quoted
 * column names; empty for one global group) against q->rel; fills the key
 * fields of q and q->req->key_cols.  Raises 42601 (bad list), 42703
 * (unknown column), 0A000 (unsupported type), 54000 (more than
 * GDB_MAX_GROUP_KEYS keys).
 */
extern void gdb_parse_group_keys(GdbGroupByQuery *q, const char *group_by);

/*
 * gdb_parse_aggregates: parse aggregates ("count(*), avg(delay), ...") with
 * PostgreSQL's parser; fills q->aggs and q->req->aggs.  Raises 42601 (not
 * a list of aggregate calls), 42703 (unknown column), 42883 (no such
 * aggregate for the type, as PostgreSQL says), 0A000 (DISTINCT, FILTER,
 * ORDER BY, unsupported type), 54000 (more than GDB_MAX_AGGREGATES).
 */
extern void gdb_parse_aggregates(GdbGroupByQuery *q, const char *aggregates);

/*
 * gdb_check_result_desc: the column definition list must be the keys'
 * types followed by each aggregate's result type.  Raises 42804 naming the
 * first column that differs and the type expected.
 */
extern void gdb_check_result_desc(const GdbGroupByQuery *q, TupleDesc desc);

/*
 * gdb_check_privileges: SELECT on the table, or on every column the call
 * reads (any column for count(*) alone), as a plain SELECT needs; and no
 * row-level security for the caller.  Raises 42501 or 0A000.
 */
extern void gdb_check_privileges(const GdbGroupByQuery *q);

/*
 * gdb_cache_groupby (cache.c): answer q from the GPU server's cache when the
 * relation is cached with every column q reads and the copy is valid for
 * the active snapshot.  Returns the result batch (text keys re-encoded into
 * q->cs.dict) and fills stats, or returns NULL with *cache_state saying why
 * not (GDB_CACHE_*).  q->req must still hold unbound PUSH_TEXT constants.
 * Raises the SQL errors of the filter and 08006 when the server is lost.
 */
extern GdbBatch *gdb_cache_groupby(GdbGroupByQuery *q, GdbStats *stats,
								   int *cache_state);

/*
 * gdb_capture_pending (cache_capture.c): this transaction captured changes
 * of relid that no statement trigger has sent yet; its own cached answer
 * would miss them, so the query must read the heap.
 */
extern bool gdb_capture_pending(Oid relid);

/*
 * gdb_cache_bump: mark every cached copy of relid stale (the shared change
 * counter); used for TRUNCATE and for changes that could not be sent.
 */
extern void gdb_cache_bump(Oid relid);

/* gdb_cache_batch_set_visible: set the visibility column of every row. */
extern void gdb_cache_batch_set_visible(GdbBatch *batch, int vis_col,
										int64 value);

#endif							/* GPUDB_GROUPBY_H */
