/*-------------------------------------------------------------------------
 *
 * custom_scan.h
 *	  The custom scan provider's plan nodes, shared by the path side
 *	  (custom_scan_path.c: planner hooks and plans, custom_scan_order.c:
 *	  the ORDER BY nodes; custom_scan_cost.c:
 *	  the cost model) and the executor side (custom_scan_exec.c: run,
 *	  tuples, EXPLAIN).
 *
 * Three nodes, one set of executor methods:
 *	 GpudbScan	a base relation's WHERE quals (the longest prefix, in the
 *				executor's evaluation order, that the device runs) and the
 *				columns the plan needs; quals after that prefix stay in the
 *				node's ordinary qual, evaluated on the CPU per row
 *	 GpudbAgg	GROUP BY plain columns with count/sum/avg/min/max, the
 *				variance family, count(DISTINCT) and percentile_cont/
 *				percentile_disc/mode WITHIN GROUP (a histogram request per
 *				argument column, groupby_ordered_set.c) of plain columns
 *				over one table, all its quals on the device; HAVING
 *				is the node's ordinary qual over the groups.  At
 *				UPPERREL_ORDERED it may also order its groups by group keys
 *				and aggregates on the device and cut them to the LIMIT
 *				(sort keys and limit as GpudbSort's)
 *	 GpudbSort	ORDER BY plain non-text columns over one table, all its
 *				quals on the device, cut to the LIMIT (plus OFFSET) when the
 *				planner knows it (a device top-k)
 *	 GpudbJoin	GpudbAgg's GROUP BY and aggregates over a join tree of base
 *				relations that PostgreSQL's planner chose: one relation's
 *				batches (the probe side) probed against hash tables of the
 *				others (build sides: inner, semi, anti and left equi-joins),
 *				every relation's quals on the device (custom_scan_join.c
 *				plans it, join_build.c reads the build sides)
 *
 * custom_private of a plan (all copyable nodes) is the list indexed by
 * GdbPrivateField.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_CUSTOM_SCAN_H
#define GPUDB_CUSTOM_SCAN_H

#include "nodes/execnodes.h"
#include "nodes/extensible.h"

#include "groupby.h"

typedef enum GdbNodeKind
{
	GDB_NODE_SCAN = 0,
	GDB_NODE_AGG = 1,
	GDB_NODE_SORT = 2,
	GDB_NODE_JOIN = 3
} GdbNodeKind;

/* The node kinds (the size of the method tables). */
#define GDB_NODE__COUNT 4

/*
 * The attnum of a group key or aggregate argument that is an expression
 * (a computed column of the request), in GDB_PRIV_KEYS / GDB_PRIV_AGGS.
 */
#define GDB_ATTNUM_EXPR (-1)

typedef enum GdbPrivateField
{
	GDB_PRIV_KIND = 0,			/* Integer: GdbNodeKind */
	GDB_PRIV_QUALS,				/* List of Expr: device quals, Vars of varno 1 */
	GDB_PRIV_KEYS,				/* IntList: group key attnums (AGG);
								 * GDB_ATTNUM_EXPR: the key is the
								 * expression of its custom_scan_tlist entry */
	GDB_PRIV_AGGS,				/* IntList: (GdbAggFunc, attnum) pairs (AGG);
								 * a percentile's fraction is read from its
								 * Aggref in custom_scan_tlist, and so is the
								 * argument of attnum GDB_ATTNUM_EXPR */
	GDB_PRIV_OUTPUT,			/* IntList: output column attnums (SCAN, SORT) */
	GDB_PRIV_SORT,				/* IntList: (column, descending, nulls_first):
								 * SORT a table attnum, AGG a result column
								 * (group key, then nkeys + aggregate) */
	GDB_PRIV_LIMIT,				/* String: top-k row / group count, "0" for
								 * all */
	GDB_PRIV_JOIN,				/* List: the join tree (JOIN; NIL for the
								 * others): see custom_scan_join.c */
	GDB_PRIV_HOST_ORDER,		/* Integer: 1 when an AGG or JOIN orders its
								 * groups by GDB_PRIV_SORT on the host after
								 * finishing them (a count(DISTINCT) or a
								 * text key among the sort keys), not on
								 * the device */
	GDB_PRIV__COUNT
} GdbPrivateField;

/* ---- GpudbJoin's build sides (join_build.c) ---- */

/*
 * One build side of a GpudbJoin: its query (a SELECT of its relation's
 * keys and payload, or of a nested join tree's result) and what EXPLAIN
 * shows.
 */
typedef struct GdbJoinBuild
{
	GdbJoinType type;
	Index		varno;			/* the executor's range table index */
	GdbQuery	q;				/* SELECT keys, payload WHERE its quals */
	List	   *quals;			/* its device quals (Vars of varno 1) */
	char	   *label;			/* "Inner Join d ON (f.k = d.id)" */
	uint64		rows;			/* build rows (after gdb_join_build) */
	uint64		bytes;			/* its batch and hash table, bytes */
	double		ms;				/* reading it (its query), wall clock */
	bool		from_cache;
	int			cache_state;
	bool		kept;			/* the GPU server kept it (EXPLAIN) */
	uint64		kept_id;		/* kept by the GPU server under this id
								 * (GdbQuery.keep_id) until released; 0: its
								 * rows are in the request's join_data */
	struct GdbJoinState *sub;	/* a nested tree's build sides, or NULL */

	/*
	 * A derived table's build side: its plan (custom plan index derived,
	 * 0 for a table's), its output position of each column of q's result,
	 * and its rows, read once (gdb_join_read_derived)
	 */
	int			derived;
	List	   *derived_cols;
	PlanState  *derived_ps;
	GdbBatch   *derived_part;	/* its rows as a batch, or NULL */
} GdbJoinBuild;

/* The build sides of a GpudbJoin, in probe order. */
typedef struct GdbJoinState
{
	int			njoins;
	GdbJoinBuild builds[GDB_MAX_JOINS];
} GdbJoinState;

/*
 * gdb_join_begin: from the plan's join tree join (GDB_PRIV_JOIN) of a
 * node whose scan relation is range table entry scanrelid, register the
 * payload columns in q->cs (q->rel is the probe relation), fill q->req's
 * join specs (all but where their build sides lie), compile the INNER
 * joins' other quals as its computed column 0 (join_filter; before any
 * other computed column is added) and build one SELECT
 * query per build side (relations opened through estate, read under its
 * snapshot); rtable_names (select_rtable_names_for_explain) and
 * deparse_cxt name the range table for the EXPLAIN labels.
 * Raises what compiling the queries raises (the planner checked them).
 */
extern GdbJoinState *gdb_join_begin(GdbQuery *q, List *join, Index scanrelid,
									EState *estate, List *rtable_names,
									List *deparse_cxt);

/*
 * gdb_join_init_derived: start the plans of js's derived tables' build
 * sides (nested trees included), custom plans of the node (custom_plans,
 * with the executor flags eflags); returns their plan states, for the
 * node's custom_ps (EXPLAIN shows them under it).
 */
extern List *gdb_join_init_derived(GdbJoinState *js, List *custom_plans,
								   EState *estate, int eflags);

/*
 * gdb_join_read_derived: run each derived table's plan of js that has not
 * run yet to its end, its rows laid out as a batch for the build sides
 * (of every run of the node: the plans take no parameter), text as codes
 * of q's dictionary (a nested tree's, of its own query's).  False, with
 * *why, when a numeric value does not have its column's planned scale
 * exactly (an aggregate's result, whose scale the planner expected:
 * gdb_numeric_result_typmod), and the node answers with PostgreSQL's plan.
 * Raises what those plans raise; the node calls it before the request,
 * outside any subtransaction.
 */
extern bool gdb_join_read_derived(GdbJoinState *js, GdbQuery *q, const char **why);

/*
 * gdb_host_order (host_order.c): the row indexes of result batch res of
 * group-by q (its keys and finished aggregates, count(DISTINCT) included:
 * gdb_ordered_set_run ran) in the order of the nk sort keys keys (a result
 * column each: a group key of any type, text in its collation's order, or
 * a count, count(*) or count(DISTINCT); descending and NULLS FIRST as
 * GdbSortKey says), ties in res's order; res->nrows entries, palloc'd.
 * Raises only what palloc and the collation's comparison raise.
 */
extern int64 *gdb_host_order(const GdbQuery *q, const GdbBatch *res,
							 const GdbSortKey *keys, int nk);

/*
 * gdb_direct_rows_begin/next/end (custom_scan_exec.c): a derived table's
 * rows straight from its plan's GpudbAgg or GpudbJoin result batches,
 * where the plan state ps is that node, or a SubqueryScan that only
 * renames its columns, with no qual: gdb_direct_rows_next gives the
 * values of the output columns at positions (0-based, the list given to
 * begin) of the next row, as the slots would have held them, without a
 * tuple or a projection per row; false after the last.  begin runs the
 * node's request and returns false (nothing to end) where ps is of
 * another shape or the node answers with PostgreSQL's plan: the caller
 * then reads ps's slots.  EXPLAIN ANALYZE counts the rows on both nodes.
 * Values live until the next call.
 */
typedef struct GdbDirectRows
{
	void	   *scan;			/* the GdbScanState; NULL once ended */
	PlanState  *ps;
	int		   *attrs;			/* scan attribute of each position */
	int			ncols;
	int			bi;				/* batch, and row in it, of the next row */
	uint64		row;
	uint64		nrows;			/* rows handed out */
	Datum	   *values;			/* one row of the scan's attributes */
	bool	   *nulls;
	MemoryContext tmp;			/* that row's values */
} GdbDirectRows;

extern bool gdb_direct_rows_begin(PlanState *ps, List *positions, GdbDirectRows *d);
extern bool gdb_direct_rows_next(GdbDirectRows *d, Datum *values, bool *nulls);
extern void gdb_direct_rows_end(GdbDirectRows *d);

/*
 * gdb_join_end_derived: end the plans started by gdb_join_init_derived.
 */
extern void gdb_join_end_derived(GdbJoinState *js);

/*
 * gdb_join_build: run every build side's query (cache or heap) and lay
 * their rows out as q->req's build sides (join_data, in the current
 * memory context; text payload re-encoded into q->cs.dict).  With
 * check_unique, returns false with *why when an INNER or LEFT join's build
 * side has two rows with equal keys (the node then answers with
 * PostgreSQL's plan), checked in the backend with the CPU path's table;
 * without it, the request that probes them reports such a build side
 * itself (GDB_ERR_JOIN_DUPLICATE, raised as GDB_JOIN_DUPLICATE_MESSAGE),
 * which a caller in a subtransaction rolls back.  Raises what the queries
 * raise.
 */
extern bool gdb_join_build(GdbJoinState *js, GdbQuery *q, bool check_unique,
						   const char **why);

/*
 * gdb_join_release: free the build sides of js (nested trees included) that
 * the GPU server keeps (GdbJoinBuild.kept_id), once the query that probes
 * them has run.  Raises only what an interrupt raises.
 */
extern void gdb_join_release(GdbJoinState *js);

/*
 * gdb_join_exprs: the expressions of a plan's join tree (GDB_PRIV_JOIN; NIL
 * for none) that the executor compiles: every build side's quals and the
 * INNER joins' other quals, nested trees included.  Never raises.
 */
extern List *gdb_join_exprs(List *join);

/*
 * gdb_join_level_quals: the computed columns one level of a join tree
 * (GDB_PRIV_JOIN, or a nested tree's list) adds to its request, in the
 * order they are compiled: the INNER joins' other quals (join_filter), then
 * each other join's own (GdbJoinSpec.qual).  NIL for none.  Never raises.
 */
extern List *gdb_join_level_quals(List *join);

/* The node methods, one per node name (custom_scan_exec.c). */
extern CustomScanMethods gdb_scan_methods[GDB_NODE__COUNT];

/* custom_scan_exec.c: register the node methods (for plan copy/readfuncs) */
extern void gdb_custom_exec_init(void);

/*
 * gdb_plan_device_label: what EXPLAIN shows as the device a plan would run
 * on now ("CPU path" or the GPU's name); never raises.
 */
extern const char *gdb_plan_device_label(void);

/*
 * gdb_ordered_set_aggref_function (groupby_ordered_set.c): the GdbAggFunc
 * of an Aggref of count(DISTINCT x) or of the ordered-set aggregates
 * percentile_cont, percentile_disc and mode; -1 otherwise.  Never raises.
 */
extern int	gdb_ordered_set_aggref_function(Aggref *aggref);

/*
 * gdb_ordered_set_aggref_ok (groupby_ordered_set.c): can GpudbAgg run aggref
 * (count(DISTINCT x), or percentile_cont(f) / percentile_disc(f) / mode()
 * WITHIN GROUP (ORDER BY x) with f one float8 constant) over a column of
 * relid or an expression?  Sets *fn and *arg (gdb_ordered_set_arg: a Var,
 * or an expression the caller must check with the expression compiler;
 * text only as a column), or *why.  Never raises.
 */
extern bool gdb_ordered_set_aggref_ok(Aggref *aggref, Index relid, int *fn,
									  Expr **arg, const char **why);

/*
 * gdb_ordered_set_arg: the argument of ordered-set or DISTINCT aggregate
 * aggref (GdbAggFunc fn), seen through percentile_cont's implicit cast of
 * an integer or real to double precision (the histogram groups the
 * uncast values).
 */
extern Expr *gdb_ordered_set_arg(Aggref *aggref, int fn);

/*
 * gdb_ordered_set_aggref_fraction: the constant fraction of a percentile
 * Aggref that gdb_ordered_set_aggref_ok accepted (0, not NULL, for mode
 * and count(DISTINCT)).
 */
extern void gdb_ordered_set_aggref_fraction(Aggref *aggref, bool *isnull,
											double *fraction);

/* ---- the cost model (custom_scan_cost.c) ---- */

/*
 * gdb_plan_on_gpu: whether the nodes would run on the GPU now (else the
 * CPU path): gpudb.device is not cpu, the library is preloaded and the GPU
 * server's hello reports a usable GPU (one round trip, cached per backend).
 */
extern bool gdb_plan_on_gpu(void);

/*
 * gdb_device_row_cost: what a device row costs per unit of work:
 * gpudb.gpu_tuple_cost, times GPUDB_CPU_PATH_FACTOR on the CPU path, so
 * that the nodes win there only when the cost constants are set to force
 * them (as the tests do).
 */
extern Cost gdb_device_row_cost(void);

/*
 * gdb_result_row_cost: what a row that GpudbScan or GpudbSort returns costs:
 * cpu_tuple_cost plus its rebuilding from the result batch
 * (GPUDB_RESULT_ROW_FACTOR * gpudb.gpu_tuple_cost).
 */
extern Cost gdb_result_row_cost(void);

/*
 * gdb_text_result_cost: what ngroups result groups cost for the text
 * values of their group keys key_exprs (a List of Expr; those of a text
 * type count), decoded for each group: GPUDB_RESULT_TEXT_VALUE_FACTOR
 * bytes at gpudb.gpu_transfer_cost each.
 */
extern Cost gdb_text_result_cost(List *key_exprs, double ngroups);

/*
 * gdb_device_cost: startup cost of reading baserel's (relation relid's)
 * ncols columns with work units per row (baserel->tuples rows, at least
 * 1).  An uncached heap adds GPUDB_UNCACHED_SETUP_FACTOR setups, its pages
 * at the tablespace's seq_page_cost, and a per-row part
 * (GPUDB_HEAP_ROW_FACTOR * cpu_tuple_cost and 9 bytes a column at
 * gpudb.gpu_transfer_cost) divided among the processes that read it
 * (gdb_parallel_feed_participants); its pages, as in PostgreSQL's parallel
 * scan, are not divided.
 */
extern Cost gdb_device_cost(RelOptInfo *baserel, Oid relid, int ncols,
							bool cached, double work);

/*
 * gdb_cheapest_existing: the cheapest total cost among rel's paths so far
 * (PostgreSQL's own; the hooks run after them), or 1e30 when there is none.
 * A node whose cost cannot be below it is not built, and the planner is
 * spared the qual compilation and the cache lookup (a GPU server round
 * trip): small tables plan as fast as without gpudb.
 */
extern Cost gdb_cheapest_existing(RelOptInfo *rel);

/*
 * gdb_worth_and_cached: false when the node, costed as cached (its lower
 * bound, gdb_device_cost over attnums' columns, plus disabled, the
 * gdb_disabled_cost of the node), cannot beat existing; else true, with
 * *cached from the GPU server (are all of attnums cached for relid?).
 * *cached is false whenever it returns false.
 */
extern bool gdb_worth_and_cached(RelOptInfo *baserel, Oid relid,
								 Bitmapset *attnums, double work,
								 Cost disabled, Cost existing, bool *cached);

/*
 * gdb_grouped_rows: the groups of the query's GROUP BY over input_rows
 * rows, as the planner estimates them for its own grouping paths: over the
 * group clause it kept (gdb_processed_group_clause, pg_compat.h: without the
 * keys it proved redundant or dependent on a primary key, which split no
 * group; 18 keeps the latter in parse->groupClause), 1 without GROUP BY.
 * Not the node's own keys, which may hold such keys: estimated over them, a
 * node came out with more groups than PostgreSQL's equivalent path.
 */
extern double gdb_grouped_rows(PlannerInfo *root, double input_rows);

/*
 * gdb_disabled_cost: PostgreSQL's disable_cost once for each of the
 * planner's enable_* switches that is off and covers what the node does,
 * as PostgreSQL's own paths are penalised (costsize.c): every node reads
 * its table whole (enable_seqscan); sorts: it sorts (enable_sort); hashes:
 * it groups rows by hashing them into slots (enable_hashagg).  0 when all
 * of those are on.
 */
extern Cost gdb_disabled_cost(bool sorts, bool hashes);


#endif							/* GPUDB_CUSTOM_SCAN_H */
