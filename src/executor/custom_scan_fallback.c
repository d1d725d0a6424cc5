/*-------------------------------------------------------------------------
 *
 * custom_scan_fallback.c
 *	  PostgreSQL's own plan as a node's fallback, for what the device
 *	  cannot know until it runs: a computed numeric value is 64-bit fixed
 *	  point, which stops at 10^18 at its scale, where PostgreSQL's numeric
 *	  goes on; and timestamp with time zone is computed in the session's
 *	  time zone at execution, which must then have a fixed offset.  A
 *	  GpudbAgg or GpudbSort whose expressions do numeric arithmetic
 *	  carries, as its one custom path, a plain (non-parallel) path of
 *	  PostgreSQL's for the same relation and target: an Agg over the input
 *	  relation's cheapest path for GpudbAgg, a Sort (and a projection) for
 *	  GpudbSort; a GpudbJoin always carries one, serial where the join
 *	  relation still has a serial path, else its cheapest (which may hold a
 *	  Gather).  The executor (custom_scan_exec.c) runs the device request
 *	  in a subtransaction; when it fails with the fixed-point error alone
 *	  (or, for a GpudbJoin, a duplicate build key or build sides that do
 *	  not fit the device), it rolls that back and returns the fallback
 *	  plan's rows instead, so the answer is PostgreSQL's, never that error.
 *
 * The fallback path is built here rather than taken from the relation's
 * path list: add_path may free a path that ours dominates, and the
 * cheapest there may be parallel (a Gather needs parallel mode for the
 * whole query, in which no subtransaction can start).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/tlist.h"

#include "custom_scan.h"
#include "custom_scan_path.h"
#include "expr_compile.h"

/*
 * Walker for gdb_fixed_point_arithmetic: a numeric expression (not a
 * column or a constant) whose fixed-point value, or an intermediate one,
 * cannot be bounded under 10^18 (gdb_numeric_digits).
 */
static bool
fixed_point_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if ((IsA(node, OpExpr) || IsA(node, FuncExpr) || IsA(node, CaseExpr) ||
		 IsA(node, CoalesceExpr) || IsA(node, MinMaxExpr) || IsA(node, NullIfExpr)) &&
		exprType(node) == NUMERICOID &&
		gdb_numeric_digits(node) > GDB_NUMERIC_MAX_PRECISION)
		return true;
	return expression_tree_walker(node, fixed_point_walker, context);
}

/* see custom_scan_path.h */
bool
gdb_fixed_point_arithmetic(Node *node)
{
	return fixed_point_walker(node, NULL);
}

/* see custom_scan_path.h */
bool
gdb_needs_fallback(Node *node)
{
	return fixed_point_walker(node, NULL) || gdb_uses_session_timezone(node);
}

/*
 * The cheapest unparameterised path of rel that holds no Gather (a plain
 * scan, or a GpudbScan), or NULL.
 */
static Path *
cheapest_serial_path(RelOptInfo *rel)
{
	Path	   *best = NULL;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (p->param_info != NULL || IsA(p, GatherPath) || IsA(p, GatherMergePath) ||
			(p->parallel_workers > 0))
			continue;
		/* a projection or sort over a Gather (the final scan/join target) */
		if ((IsA(p, ProjectionPath) &&
			 (IsA(((ProjectionPath *) p)->subpath, GatherPath) ||
			  IsA(((ProjectionPath *) p)->subpath, GatherMergePath))) ||
			(IsA(p, SortPath) &&
			 (IsA(((SortPath *) p)->subpath, GatherPath) ||
			  IsA(((SortPath *) p)->subpath, GatherMergePath))))
			continue;
		if (best == NULL || p->total_cost < best->total_cost)
			best = p;
	}
	return best;
}

/* Has any aggregate of aggrefs DISTINCT, ORDER BY or WITHIN GROUP? */
static bool
has_ordered_aggregates(List *aggrefs)
{
	ListCell   *lc;

	foreach(lc, aggrefs)
	{
		Aggref	   *a = lfirst_node(Aggref, lc);

		if (a->aggdistinct != NIL || a->aggorder != NIL || a->aggkind != AGGKIND_NORMAL)
			return true;
	}
	return false;
}

/* The Agg of the query over sub (a path of input_rel), or NULL. */
static Path *
agg_over(PlannerInfo *root, Path *sub, RelOptInfo *output_rel,
		 GroupPathExtraData *extra, List *aggrefs, double ngroups)
{
	Query	   *parse = root->parse;
	List	   *group_clause = gdb_processed_group_clause(root);

	if (sub == NULL)
		return NULL;
	if (parse->groupClause == NIL)
		return (Path *) create_agg_path(root, output_rel, sub, output_rel->reltarget,
										AGG_PLAIN, AGGSPLIT_SIMPLE, NIL,
										(List *) extra->havingQual,
										&extra->agg_final_costs, 1.0);
	if (group_clause != NIL && grouping_is_hashable(group_clause) &&
		!has_ordered_aggregates(aggrefs))
		return (Path *) create_agg_path(root, output_rel, sub, output_rel->reltarget,
										AGG_HASHED, AGGSPLIT_SIMPLE, group_clause,
										(List *) extra->havingQual,
										&extra->agg_final_costs, ngroups);
	if (!grouping_is_sortable(group_clause))
		return NULL;
	if (!pathkeys_contained_in(root->group_pathkeys, sub->pathkeys))
		sub = (Path *) create_sort_path(root, output_rel, sub, root->group_pathkeys, -1.0);
	return (Path *) create_agg_path(root, output_rel, sub, output_rel->reltarget,
									AGG_SORTED, AGGSPLIT_SIMPLE, group_clause,
									(List *) extra->havingQual,
									&extra->agg_final_costs, ngroups);
}

/* see custom_scan_path.h */
Path *
gdb_agg_fallback_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
					  GroupPathExtraData *extra, List *aggrefs, double ngroups)
{
	return agg_over(root, cheapest_serial_path(input_rel), output_rel, extra, aggrefs,
					ngroups);
}

/* see custom_scan_path.h */
Path *
gdb_join_fallback_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
					   GroupPathExtraData *extra, List *aggrefs, double ngroups)
{
	Path	   *sub = cheapest_serial_path(input_rel);

	if (sub == NULL)
		sub = input_rel->cheapest_total_path;
	return agg_over(root, sub, output_rel, extra, aggrefs, ngroups);
}

/* see custom_scan_path.h */
Path *
gdb_sort_fallback_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
					   PathTarget *target, double limit)
{
	Path	   *sub = cheapest_serial_path(input_rel);

	if (sub == NULL)
		return NULL;
	sub = (Path *) create_sort_path(root, output_rel, sub, root->sort_pathkeys,
									limit > 0 ? limit : -1.0);
	return (Path *) create_projection_path(root, output_rel, sub, target);
}
