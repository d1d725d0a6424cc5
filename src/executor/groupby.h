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

#include "funcapi.h"
#include "nodes/bitmapset.h"
#include "utils/snapmgr.h"

/* SQL aggregate functions gpu_groupby accepts. */
typedef enum GdbAggFunc
{
	GDB_FN_COUNT_STAR,
	GDB_FN_COUNT,
	GDB_FN_SUM,
	GDB_FN_AVG,
	GDB_FN_MIN,
	GDB_FN_MAX,
	GDB_FN_VAR_SAMP,			/* also variance() */
	GDB_FN_VAR_POP,
	GDB_FN_STDDEV_SAMP,			/* also stddev() */
	GDB_FN_STDDEV_POP,
	/* computed from a histogram of (keys, x): groupby_ordered_set.c */
	GDB_FN_COUNT_DISTINCT,		/* count(DISTINCT x) */
	GDB_FN_PERCENTILE_CONT,		/* percentile_cont(f) WITHIN GROUP (ORDER BY x) */
	GDB_FN_PERCENTILE_DISC,		/* percentile_disc(f) WITHIN GROUP (ORDER BY x) */
	GDB_FN_MODE					/* mode() WITHIN GROUP (ORDER BY x) */
} GdbAggFunc;

/* PostgreSQL's names of the GdbAggFunc values, by value (count thrice). */
#define GDB_AGG_FUNC_NAMES \
	{"count", "count", "sum", "avg", "min", "max", \
	 "var_samp", "var_pop", "stddev_samp", "stddev_pop", \
	 "count", "percentile_cont", "percentile_disc", "mode"}

/* Is fn one of the histogram aggregates (count DISTINCT, ordered-set)? */
#define GDB_FN_IS_ORDERED_SET(fn) ((fn) >= GDB_FN_COUNT_DISTINCT)

/* One aggregate of the aggregates list. */
typedef struct GdbAggregate
{
	GdbAggFunc	fn;
	AttrNumber	attnum;			/* 0 for count(*) */
	Oid			argtype;		/* InvalidOid for count(*) */
	Oid			result_type;	/* the equivalent SQL's result type */
	char	   *label;			/* e.g. "avg(delay)", for messages */
	int			companion;		/* req->aggs index of a hidden helper state
								 * (the SUM_INT of an integer variance, the
								 * MAX_INT that finds a NaN input of a
								 * numeric sum or avg), or -1; set by
								 * gdb_query_prepare */
	int			dscale_col;		/* a numeric sum over a CASE of arms of
								 * different scales: the computed column of
								 * each row's display scale
								 * (gdb_numeric_case_rescaled), or -1 */
	int			dscale_companion;	/* req->aggs index of the MAX_INT state
									 * over dscale_col (gdb_query_prepare),
									 * or -1 */
	double		fraction;		/* percentile_cont/disc: the constant f */
	bool		fraction_null;	/* percentile_cont/disc: f is NULL */
} GdbAggregate;

/* Per-group values of the histogram aggregates (groupby_ordered_set.c). */
typedef struct GdbOrderedSetResult GdbOrderedSetResult;

/*
 * A parsed query over one table: a GROUP BY (gpu_groupby, GpudbAgg), a
 * SELECT (gpu_select, GpudbScan) or a SORT (gpu_sort, GpudbSort), by
 * req->oper.
 */
typedef struct GdbQuery
{
	Relation	rel;
	GdbColumnSet cs;			/* columns read; keys first */
	int			nkeys;
	Oid			key_types[GDB_MAX_GROUP_KEYS];
	char	   *key_names[GDB_MAX_GROUP_KEYS];
	int			naggs;
	GdbAggregate aggs[GDB_MAX_AGGREGATES];
	int			nout;			/* SELECT/SORT: visible output columns */
	GdbRequest *req;			/* the device request being built */
	GdbOrderedSetResult *oset;	/* count(DISTINCT), percentile and mode
								 * values per group, filled by gdb_query_run;
								 * NULL before, or without such aggregates */
	Snapshot	snapshot;		/* what the query reads under: a plan node's
								 * es_snapshot; NULL: the active snapshot */

	/*
	 * A GpudbJoin's build side: with keep_id, a SELECT answered from the
	 * cache stays in the GPU server under that id (kept set, the result
	 * only its header), its text codes those of keep_for's cached copy,
	 * the relation that probes it (server_join_keep.c)
	 */
	uint64		keep_id;
	Oid			keep_for;
	bool		kept;

	/*
	 * A probe over kept build sides: called (once) before the query reads
	 * the heap instead, where they hold text codes of the cache
	 * (kept_text) or the backend runs the batches itself, to lay every
	 * build side out in join_data (join_build.c)
	 */
	void		(*unkeep) (struct GdbQuery *q, void *arg);
	void	   *unkeep_arg;
	bool		kept_text;
} GdbQuery;

/* The snapshot q reads under (see GdbQuery.snapshot). */
#define gdb_query_snapshot(q) \
	((q)->snapshot != NULL ? (q)->snapshot : GetActiveSnapshot())

/* What gdb_query_run did. */
typedef struct GdbRunInfo
{
	List	   *batches;		/* result batches, in order */
	bool		from_cache;
	int			cache_state;	/* GDB_CACHE_*: why the cache (not) */
	int			nbatches;		/* heap batches read */
	int			workers_planned;	/* parallel workers asked for (heap) */
	int			workers_launched;	/* of those, started */
	GdbStats	stats;
	double		total_ms;		/* wall time of the run */
	char		path[300];		/* "gpu:<device>" or "cpu:<why>" */
} GdbRunInfo;

/*
 * gdb_open_scannable_relation: open relid with AccessShareLock and check
 * that it is a table or populated materialized view that fname (the SQL
 * function, for messages) can read: 42P01, 42809, 55000, 0A000 otherwise.
 */
extern Relation gdb_open_scannable_relation(Oid relid, const char *fname);

/*
 * gdb_query_add_key / gdb_query_add_aggregate: append a group key (column
 * attnum, named name in messages) or an aggregate fn over column attnum (0
 * for count(*)), labelled label, to q and its request.  Raise 0A000 for an
 * unsupported type (or 42883 where PostgreSQL has no such aggregate), 54000
 * past the limits.
 */
extern void gdb_query_add_key(GdbQuery *q, AttrNumber attnum, const char *name);
extern void gdb_query_add_aggregate(GdbQuery *q, GdbAggFunc fn, AttrNumber attnum,
									const char *label);

/*
 * gdb_query_add_key_expr / gdb_query_add_aggregate_expr: the same with an
 * expression over q->rel's columns (a computed column of q->req:
 * gdb_columnset_add_expr) in place of a column; name and label as above.
 * Raise as gdb_columnset_add_expr and gdb_query_add_aggregate.
 */
extern void gdb_query_add_key_expr(GdbQuery *q, Node *expr, const char *name);
extern void gdb_query_add_aggregate_expr(GdbQuery *q, GdbAggFunc fn, Node *expr,
										 const char *label);

/*
 * gdb_aggregate_function: the GdbAggFunc PostgreSQL's aggregate name (as
 * in pg_catalog: count, sum, avg, min, max, variance, var_samp, var_pop,
 * stddev, stddev_samp, stddev_pop) stands for; star for count(*); -1 for
 * any other name.  Never raises.
 */
extern int	gdb_aggregate_function(const char *name, bool star);

/*
 * gdb_aggregate_kind: the device transition kind and SQL result type of fn
 * over argtype (InvalidOid for count(*)); false when gpudb does not run it.
 * Never raises.  The variance family (var_samp, var_pop, stddev_samp,
 * stddev_pop) takes smallint and integer (result numeric, exact: a 128-bit
 * sum of squares plus a hidden 128-bit sum) and real and double precision
 * (result double precision: N, Sx, Sxx states); bigint and numeric stay
 * with PostgreSQL (their squares need more than 128 bits).  sum, avg, min
 * and max take numeric (only numeric(p,s) columns are carried: see
 * gdb_type_supported): SUM_INT and MIN/MAX_INT over the scaled integers.
 */
extern bool gdb_aggregate_kind(GdbAggFunc fn, Oid argtype, uint32 *kind,
							   Oid *result_type);

/*
 * gdb_aggregate_nan_companion: does fn over argtype need a hidden MAX_INT
 * state of its column (GdbAggregate.companion) to tell a NaN input?  True
 * for sum and avg of numeric(p,s), whose SUM_INT state adds the scaled
 * integers and cannot carry NaN.  Never raises.
 *
 * gdb_aggregate_states: the device states fn over argtype (device kind
 * kind) takes, hidden companions included: 1 or 2.  Never raises.
 */
extern bool gdb_aggregate_nan_companion(GdbAggFunc fn, Oid argtype);
extern int	gdb_aggregate_states(GdbAggFunc fn, Oid argtype, uint32 kind);

/*
 * gdb_having_compile: the group qualifier of q's GROUPBY request
 * (GdbHavingTerm) from qual, the node's HAVING as set_plan_references left
 * it (an implicit-AND List whose aggregates are INDEX_VAR Vars of
 * scan_tlist, q's group keys then its aggregates), for the quals
 * groupby_having.c's header lists.  A Param counts only when it is in
 * params (the node's custom_exprs), with its value at the same position
 * of values (Consts; NIL before they are known).  With fill, q->req's
 * terms are replaced (gdb_query_prepare runs first, for the NaN finders)
 * and the quals turned into terms are counted; without, q->req is not
 * touched and the quals that qualify are counted (a parameter's whatever
 * its value, a constant's as it would compile), at most GDB_MAX_HAVING.
 * Returns that count.  Raises only out of memory.
 */
extern int	gdb_having_compile(GdbQuery *q, List *qual, List *scan_tlist,
							   List *params, List *values, bool fill);

/*
 * gdb_query_prepare: complete q->req before it runs (a SORT's keys are
 * added to its result columns, after the q->nout visible ones; a
 * GROUPBY's hidden companion states, after the q->naggs visible
 * aggregates).  Run by gdb_query_run; idempotent.
 */
extern void gdb_query_prepare(GdbQuery *q);

/*
 * gdb_query_run: run q from the cache when it holds every column q reads
 * and is valid for the active snapshot, else over the heap in
 * gpudb.batch_rows batches (read by parallel workers too when the heap
 * reaches gpudb.min_parallel_table_size: parallel_feed.h); fills info and what gpu_last_execution()
 * reports.  Result batches are palloc'd in the current memory context.
 * Raises the SQL errors of the filter, 55000 (no GPU with gpudb.device =
 * gpu), 08006 (GPU server lost), 53200 (out of memory).
 */
extern void gdb_query_run(GdbQuery *q, GdbRunInfo *info);

/* Where gdb_query_run_source may read the table. */
typedef enum GdbRunSource
{
	GDB_SOURCE_ANY = 0,			/* the cache when usable, else the heap */
	GDB_SOURCE_CACHE,			/* the cache only: no batches when unusable */
	GDB_SOURCE_HEAP				/* the heap only */
} GdbRunSource;

/*
 * gdb_query_run_source: gdb_query_run's run of q's own request, from
 * source, without the histogram aggregates and without setting what
 * gpu_last_execution() reports.  With GDB_SOURCE_CACHE and an unusable
 * cache, info->batches is NIL and info->from_cache false.  Same errors.
 */
extern void gdb_query_run_source(GdbQuery *q, GdbRunInfo *info,
								 GdbRunSource source);

/*
 * gdb_concat_batches: all rows of parts (a list of result batches of one
 * request: the same columns), in order, in one batch packed to its rows:
 * an executor batch of ex (what the GPU server reads), or palloc'd when ex
 * is NULL.  XX000 when the parts' columns differ.
 */
extern GdbBatch *gdb_concat_batches(GdbExecutor *ex, List *parts);

/* gdb_query_natts: values per result row (keys + aggregates, or nout). */
extern int	gdb_query_natts(const GdbQuery *q);

/*
 * gdb_result_row_values: values[] and nulls[] (gdb_query_natts entries) of
 * row of result batch res: key or output column values as their column's
 * type, then finished aggregates typed as the equivalent SQL's.  Raises
 * 22003 where PostgreSQL's aggregate would (float sum overflow).  Datums
 * are allocated in the current memory context.
 */
extern void gdb_result_row_values(const GdbQuery *q, const GdbBatch *res,
								  uint64 row, Datum *values, bool *nulls);

/*
 * gdb_emit_result: gdb_query_run, then every result row into the
 * materialised set-returning function's tuplestore.
 */
extern void gdb_emit_result(GdbQuery *q, ReturnSetInfo *rsinfo);

/*
 * gdb_parse_group_keys: resolve group_by (comma-separated, possibly quoted
 * column names; empty for one global group) against q->rel; fills the key
 * fields of q and q->req->key_cols.  Raises 42601 (bad list), 42703
 * (unknown column), 0A000 (unsupported type), 54000 (more than
 * GDB_MAX_GROUP_KEYS keys).
 */
extern void gdb_parse_group_keys(GdbQuery *q, const char *group_by);

/*
 * gdb_parse_aggregates: parse aggregates ("count(*), avg(delay), ...") with
 * PostgreSQL's parser; fills q->aggs and q->req->aggs.  Raises 42601 (not
 * a list of aggregate calls), 42703 (unknown column), 42883 (no such
 * aggregate for the type, as PostgreSQL says), 0A000 (DISTINCT, FILTER,
 * ORDER BY, unsupported type), 54000 (more than GDB_MAX_AGGREGATES).
 */
extern void gdb_parse_aggregates(GdbQuery *q, const char *aggregates);

/*
 * gdb_check_result_desc: the column definition list must be the keys'
 * types followed by each aggregate's result type (GROUP BY), or the output
 * columns' types (SELECT, SORT); fname names the SQL function.  Raises 42804 naming the
 * first column that differs and the type expected.
 */
extern void gdb_check_result_desc(const GdbQuery *q, TupleDesc desc,
								  const char *fname);

/*
 * gdb_check_privileges: SELECT on the table, or on every column the call
 * reads (any column for count(*) alone), as a plain SELECT needs; and no
 * row-level security for the caller.  Raises 42501 or 0A000.
 */
extern void gdb_check_privileges(const GdbQuery *q);

/*
 * gdb_cache_groupby (cache.c): answer q from the GPU server's cache when the
 * relation is cached with every column q reads and the copy is valid for
 * the active snapshot.  Returns the result batch (text keys re-encoded into
 * q->cs.dict) and fills stats, or returns NULL with *cache_state saying why
 * not (GDB_CACHE_*).  q->req must still hold unbound PUSH_TEXT constants.
 * Raises the SQL errors of the filter and 08006 when the server is lost.
 */
extern GdbBatch *gdb_cache_groupby(GdbQuery *q, GdbStats *stats,
								   int *cache_state);

/*
 * gdb_cache_release_kept (cache_query.c): free the build sides the GPU
 * server keeps under ids[n] (GdbQuery.keep_id) for this backend.  Never
 * raises but what an interrupt raises; a lost connection freed them.
 */
extern void gdb_cache_release_kept(const uint64 *ids, int n);

/*
 * gdb_cache_capture_entry (cache.c): for change capture, the server's
 * entry for rel's current relfilenode that is loaded, or loading past its
 * first batch (not LOADING), into *info: 1 found, 0 none, -1 unknown (the
 * server cannot be asked).  From the per-backend list of entries the
 * planner keeps too, asked of the server again (on the capture channel)
 * only when the shared cache generation moved (a load, a drop, a restart),
 * so a writer's statement normally makes no round trip for it.  Raises
 * only what an interrupt raises.
 */
struct GdbCacheInfo;
extern int	gdb_cache_capture_entry(Relation rel, struct GdbCacheInfo *info);

/*
 * gdb_cache_plan_covers (cache.c): at plan time, whether the GPU server
 * holds a ready, unchanged cached copy of relid with every column in
 * attnums (attribute numbers).  A cheap guess for the cost model: the
 * executor still checks the copy against its snapshot.  Never raises; false
 * without a server.
 */
extern bool gdb_cache_plan_covers(Oid relid, const Bitmapset *attnums);

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

/* ---- groupby_ordered_set.c: count(DISTINCT x), percentiles, mode ---- */

/*
 * gdb_ordered_set_function: the GdbAggFunc of pg_catalog aggregate name
 * called with DISTINCT (count only) or WITHIN GROUP (percentile_cont,
 * percentile_disc, mode); -1 for anything else.  Never raises.
 */
extern int	gdb_ordered_set_function(const char *name, bool distinct,
									 bool within_group);

/*
 * gdb_ordered_set_label: the aggregate as SQL spells it, for EXPLAIN and
 * messages: "count(DISTINCT x)", "percentile_cont(0.5) WITHIN GROUP (ORDER
 * BY x)", "mode() WITHIN GROUP (ORDER BY x)"; colname already quoted.
 */
extern char *gdb_ordered_set_label(GdbAggFunc fn, const char *colname,
								   bool fraction_null, double fraction);

/*
 * gdb_query_add_ordered_set: append histogram aggregate fn over column
 * attnum (percentile_cont/disc: with the constant fraction, or NULL) to q.
 * The device request gets a count(x) state in its place; the value comes
 * from the histogram run by gdb_ordered_set_run.  Raises 42883 where
 * PostgreSQL has no such aggregate for the column's type, 0A000 for an
 * unsupported type (or a nondeterministic collation), 54000 past
 * GDB_MAX_AGGREGATES or with GDB_MAX_GROUP_KEYS keys (the histogram needs
 * one more key).
 */
extern void gdb_query_add_ordered_set(GdbQuery *q, GdbAggFunc fn,
									  AttrNumber attnum, bool fraction_null,
									  double fraction, const char *label);

/*
 * gdb_query_add_ordered_set_expr: the same over expr (a computed column,
 * gdb_columnset_add_expr) when it is not NULL, else over column attnum.
 * Raises as gdb_query_add_ordered_set and gdb_columnset_add_expr.
 */
extern void gdb_query_add_ordered_set_expr(GdbQuery *q, GdbAggFunc fn,
										   AttrNumber attnum, Node *expr,
										   bool fraction_null, double fraction,
										   const char *label);

/*
 * gdb_ordered_set_run: after q's own request ran (info), run one histogram
 * request per column that q's histogram aggregates read, from the same
 * source (the cache when q ran from it, else the heap), and fill q->oset;
 * adds their statistics and batches to info.  Returns false, having done
 * nothing, when q ran from the cache but a histogram request could not
 * (the caller then runs everything from the heap).  Does nothing for a q
 * without histogram aggregates.  Raises as gdb_query_run.
 */
extern bool gdb_ordered_set_run(GdbQuery *q, GdbRunInfo *info);

/*
 * gdb_ordered_set_value: the finished value of histogram aggregate j of q
 * for row row of q's result batch res, as PostgreSQL's final function
 * computes it.  Raises 22003 for a percentile fraction outside [0, 1] (or
 * NaN), as percentile_cont_final / percentile_disc_final do for every
 * group.
 */
extern Datum gdb_ordered_set_value(const GdbQuery *q, int j,
								   const GdbBatch *res, uint64 row,
								   bool *isnull);

#endif							/* GPUDB_GROUPBY_H */
