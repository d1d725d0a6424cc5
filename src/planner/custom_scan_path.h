/*-------------------------------------------------------------------------
 *
 * custom_scan_path.h
 *	  The planner side's shared helpers: what custom_scan_path.c (GpudbScan,
 *	  GpudbAgg, the hooks, plans) and custom_scan_order.c (GpudbSort, the
 *	  ordered GpudbAgg) both use to decide whether a node can run a query.
 *	  Planner-internal: the executor side does not include it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_CUSTOM_SCAN_PATH_H
#define GPUDB_CUSTOM_SCAN_PATH_H

#include "nodes/pathnodes.h"
#include "optimizer/planner.h"

#include "custom_scan.h"
#include "pg_compat.h"

/*
 * custom_private of a CustomPath (gdb_make_path), what PlanCustomPath
 * needs: the base relation, the device clauses, the RestrictInfos left to
 * the CPU (GpudbScan only) and the node's own list.
 */
typedef enum GdbPathField
{
	GDB_PATH_KIND = 0,			/* Integer: GdbNodeKind */
	GDB_PATH_BASEREL,			/* Integer: range table index of the table */
	GDB_PATH_DEVICE,			/* List of Expr */
	GDB_PATH_CPU,				/* List of RestrictInfo */
	GDB_PATH_NODE				/* List: the node's own fields */
} GdbPathField;

/* NOTICE of why kind was not offered, under gpudb.debug_unsupported. */
extern void gdb_not_offered(GdbNodeKind kind, const char *why);

/*
 * gdb_params_fixed (param_values.c): false with *why when quals hold a
 * Param that can change while the query runs (only a $n and a top-level
 * InitPlan's output are fixed).  Never raises.
 */
extern bool gdb_params_fixed(PlannerInfo *root, List *quals, const char **why);

/*
 * One query level's rewrite before planning (rewrite_choice.c): with apply
 * false, whether q would be rewritten; with apply true, rewrite q in place
 * (its own level only) and return whether it was.
 */
typedef bool (*GdbQueryRewrite) (Query *q, bool apply);

/*
 * gdb_rewrite_tree (rewrite_choice.c): rewrite on every query of the tree
 * at node (subqueries in FROM, views, CTEs, sublinks: each judged at its
 * own level).  Without apply, true as soon as one query would be
 * rewritten, nothing changed; with apply, every such query rewritten.
 */
extern bool gdb_rewrite_tree(Node *node, GdbQueryRewrite rewrite, bool apply);

/*
 * gdb_plan_cheaper_rewrite (rewrite_choice.c): a planner_hook's work for a
 * rewrite that is the same query: where gpudb.enabled and
 * gpudb.enable_gpujoin are on and the tree has a query to rewrite, plan it
 * rewritten and as written with next (the hook below, or
 * standard_planner) and return the plan of lower total cost (the query's
 * own on a tie; DEBUG1 names what and both costs); else next's plan.
 * Raises what planning raises.
 */
extern PlannedStmt *gdb_plan_cheaper_rewrite(GdbQueryRewrite rewrite, const char *what,
											 planner_hook_type next, GDB_PLANNER_ARGS);

/*
 * gdb_not_in_rewrite_init (not_in_rewrite.c): install the planner_hook
 * that plans x NOT IN (SELECT y ...) as NOT EXISTS (an anti join) where
 * neither x nor y can be NULL.  Called once from _PG_init.
 */
extern void gdb_not_in_rewrite_init(void);

/*
 * gdb_scalar_subquery_rewrite_init (scalar_subquery_rewrite.c): install the
 * planner_hook, above not_in_rewrite.c's, that plans a correlated scalar
 * subquery of avg, sum, min or max compared in a WHERE conjunct as a join
 * with a derived table grouped on its correlation columns, where that is
 * the same query, keeping the cheaper of that plan and the query's own.
 * Called once from _PG_init, after gdb_not_in_rewrite_init.
 */
extern void gdb_scalar_subquery_rewrite_init(void);

/*
 * gdb_eager_aggregate_rewrite_init (eager_aggregate_rewrite.c): install the
 * planner_hook, above scalar_subquery_rewrite.c's, that plans a GROUP BY of
 * A's primary key over A LEFT JOIN B, aggregating B's columns, as A LEFT
 * JOIN a derived table grouping B on the join keys, where that is the same
 * query (TPC-H Q13), keeping the cheaper of that plan and the query's own.
 * Called once from _PG_init, after gdb_scalar_subquery_rewrite_init.
 */
extern void gdb_eager_aggregate_rewrite_init(void);

/*
 * May the planner offer device nodes now (gpudb.enabled; gpudb.device gpu
 * or cpu, or auto with the GPU server in GPU mode)?  Else *why.
 */
extern bool gdb_offload_possible(const char **why);

/*
 * Is rel a plain table (or partition, or materialised view) the nodes can
 * read?  allow_member: an appendrel member is fine (GpudbScan).  Else *why.
 */
extern bool gdb_base_rel_ok(PlannerInfo *root, RelOptInfo *rel, bool allow_member,
							const char **why);

/*
 * Is var a user column of relid of a supported type (text only when
 * text_ok)?  Adds its attnum to *attnums; else *why.
 */
extern bool gdb_var_ok(Var *var, Index relid, bool text_ok, Bitmapset **attnums,
					   const char **why);

/* Every Var (and nothing opaque) in exprs is gdb_var_ok. */
extern bool gdb_vars_ok(List *exprs, Index relid, Bitmapset **attnums, const char **why);

/*
 * Do all of baserel's quals run on the device (none pseudoconstant, all
 * compiled)?  Sets *device to them and adds their columns to *attnums;
 * else *why.
 */
extern bool gdb_all_quals_on_device(PlannerInfo *root, RelOptInfo *baserel, Oid relid,
									Bitmapset **attnums, List **device, const char **why);

/* A CustomPath of kind in rel with the common fields set (GdbPathField). */
extern CustomPath *gdb_make_path(GdbNodeKind kind, RelOptInfo *rel, PathTarget *target,
								 double rows, Cost startup, Cost total, List *pathkeys,
								 Index baserel, List *device, List *cpu, List *node);

/*
 * Do the computed columns exprs (over table reloid) fit one request
 * together (gdb_exprs_supported: their count and instructions)?  Else
 * *why.  True for NIL.
 */
extern bool gdb_exprs_fit(List *exprs, Oid reloid, const char **why);

/*
 * Put fallback, PostgreSQL's plan for the node's query
 * (custom_scan_fallback.c), behind path as its one custom path; false with
 * *why when there is none (NULL).
 */
extern bool gdb_set_fallback(CustomPath *path, Path *fallback, const char **why);

/* Is path one of gdb_make_path's of kind? */
extern bool gdb_path_is_kind(Path *path, GdbNodeKind kind);

/*
 * Can expr (over relid's columns) be a computed column of the request?
 * Its columns are added to *attnums; else *why.
 */
extern bool gdb_expr_columns_ok(Node *expr, Index relid, Oid reloid, Bitmapset **attnums,
								char **why);

/* The GdbAggFunc of a built-in aggregate call, or -1. */
extern int	gdb_aggref_function(Aggref *aggref);

/*
 * Can evaluating node raise an error (anything but Vars, Consts, whole
 * Aggrefs and leakproof operators and functions)?  An expression walker.
 */
extern bool gdb_expr_may_raise(Node *node, void *context);

/*
 * custom_scan_fallback.c: does node compute numeric values with fixed-point
 * arithmetic (which stops at 10^18, where PostgreSQL's numeric goes on)?
 */
extern bool gdb_fixed_point_arithmetic(Node *node);

/*
 * custom_scan_fallback.c: does a node running node need PostgreSQL's plan
 * behind it: fixed-point arithmetic, or timestamptz computed in the
 * session's time zone (gdb_uses_session_timezone), which executes in a
 * fixed-offset zone only?
 */
extern bool gdb_needs_fallback(Node *node);

/*
 * custom_scan_fallback.c: PostgreSQL's plain (non-parallel) path for a
 * GpudbAgg's query (an Agg over input_rel's cheapest serial path) or a
 * GpudbSort's (a Sort of it, projected to target), the node's one custom
 * path, which the executor runs when the device request fails with the
 * fixed-point error; NULL when none can be built.
 */
extern Path *gdb_agg_fallback_path(PlannerInfo *root, RelOptInfo *input_rel,
								   RelOptInfo *output_rel, GroupPathExtraData *extra,
								   List *aggrefs, double ngroups);
/*
 * custom_scan_fallback.c: GpudbJoin's: an Agg over the join relation's
 * cheapest serial path, or else over its cheapest path (which may hold a
 * Gather: the query then runs in parallel mode, and the node leaves it
 * for the subtransaction of its request while no workers run:
 * run_or_fall_back in custom_scan_exec.c).  NULL when none.
 */
extern Path *gdb_join_fallback_path(PlannerInfo *root, RelOptInfo *input_rel,
									RelOptInfo *output_rel, GroupPathExtraData *extra,
									List *aggrefs, double ngroups);
extern Path *gdb_sort_fallback_path(PlannerInfo *root, RelOptInfo *input_rel,
									RelOptInfo *output_rel, PathTarget *target,
									double limit);

/*
 * custom_scan_join.c: offer GpudbJoin for the aggregate (output_rel) over
 * join relation input_rel when its join tree, quals and aggregates run on
 * the device; else gpudb.debug_unsupported says why.  Never raises for
 * what it cannot run.
 */
extern void gdb_try_gpujoin(PlannerInfo *root, RelOptInfo *input_rel,
							RelOptInfo *output_rel, GroupPathExtraData *extra);

/* custom_scan_order.c: the UPPERREL_ORDERED paths. */
extern void gdb_try_gpusort(PlannerInfo *root, RelOptInfo *input_rel,
							RelOptInfo *output_rel);
extern void gdb_try_gpuagg_ordered(PlannerInfo *root, RelOptInfo *input_rel,
								   RelOptInfo *output_rel);

/*
 * gdb_ordered_limit_possible: whether the query's ORDER BY and LIMIT
 * could be taken by a GpudbAgg or GpudbJoin below them (ORDER BY over a
 * grouped query without DISTINCT or windows, a constant LIMIT).
 * gdb_try_gpujoin_ordered: the ordered GpudbJoin (gdb_try_gpuagg_ordered)
 * of join, a GpudbJoin path of the grouped relation too costly to be
 * added there, added to the ordered relation (fetch_upper_rel of
 * UPPERREL_ORDERED, which create_ordered_paths takes up).  Neither raises.
 */
extern bool gdb_ordered_limit_possible(PlannerInfo *root);
extern void gdb_try_gpujoin_ordered(PlannerInfo *root, CustomPath *join);

#endif							/* GPUDB_CUSTOM_SCAN_PATH_H */
