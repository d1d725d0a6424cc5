/*-------------------------------------------------------------------------
 *
 * rewrite_choice.c
 *	  What the query rewrites before planning share (scalar_subquery_rewrite.c,
 *	  eager_aggregate_rewrite.c): applying one query level's rewrite to
 *	  every query of a tree, and planning a query both rewritten and as
 *	  written to keep the cheaper plan.
 *
 * A rewrite that is the same query need not be the faster one: a derived
 * table groups every row of its tables, where the query as written may read
 * a few rows through an index.  So where a rewrite applies, the query is
 * planned twice, by the planner_hooks below the caller's (then
 * PostgreSQL's), and the plan of lower total cost is kept (the query's own
 * on a tie).  Planning scribbles on its query, hence the copy of the
 * original, taken before either is planned.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/planner.h"

#include "gpudb.h"
#include "custom_scan_path.h"
#include "pg_compat.h"

typedef struct RewriteWalk
{
	GdbQueryRewrite rewrite;
	bool		apply;
} RewriteWalk;

static bool
rewrite_walker(Node *node, void *context)
{
	RewriteWalk *w = (RewriteWalk *) context;

	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		if (w->rewrite((Query *) node, w->apply) && !w->apply)
			return true;
		return query_tree_walker((Query *) node, rewrite_walker, context, 0);
	}
	return expression_tree_walker(node, rewrite_walker, context);
}

/* see custom_scan_path.h */
bool
gdb_rewrite_tree(Node *node, GdbQueryRewrite rewrite, bool apply)
{
	RewriteWalk w = {rewrite, apply};

	return rewrite_walker(node, &w);
}

/* see custom_scan_path.h */
PlannedStmt *
gdb_plan_cheaper_rewrite(GdbQueryRewrite rewrite, const char *what,
						 planner_hook_type next, GDB_PLANNER_ARGS)
{
	Query	   *original;
	PlannedStmt *rewritten_plan;
	PlannedStmt *original_plan;

	if (!gpudb_enabled || !gpudb_enable_gpujoin ||
		!gdb_rewrite_tree((Node *) parse, rewrite, false))
		return GDB_PLANNER_CALL(next);
	original = copyObject(parse);
	(void) gdb_rewrite_tree((Node *) parse, rewrite, true);
	rewritten_plan = GDB_PLANNER_CALL(next);
	parse = original;
	original_plan = GDB_PLANNER_CALL(next);
	elog(DEBUG1, "gpudb: %s: cost %.2f, as written %.2f", what,
		 rewritten_plan->planTree->total_cost, original_plan->planTree->total_cost);
	if (rewritten_plan->planTree->total_cost < original_plan->planTree->total_cost)
		return rewritten_plan;
	return original_plan;
}
