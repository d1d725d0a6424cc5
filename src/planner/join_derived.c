/*-------------------------------------------------------------------------
 *
 * join_derived.c
 *	  GpudbJoin's derived tables (custom_scan_join.c): which scans of a
 *	  subquery may be a build side, the types of their columns, and the
 *	  build side they make.
 *
 * A derived table (a subquery in FROM, or the relation of an IN or EXISTS
 * subquery PostgreSQL could not pull up) is a build side whose rows come
 * from its own plan, one more custom plan of the node, run once before the
 * request (join_build.c read_derived).  Its subquery must be safe to plan
 * and run twice (gdb_join_is_derived), since PostgreSQL's plan behind the
 * node holds another copy; its numeric columns without a typmod (an
 * aggregate's result) are laid out at the scale their values are expected
 * to have (gdb_join_column_type, gdb_join_derived_typmods).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "custom_scan_path.h"
#include "expr_compile.h"
#include "join_tree.h"

/*
 * Does root's grouping offer a min/max aggregate's path (MinMaxAggPath),
 * whose InitPlans PostgreSQL makes while it builds the plan?
 */
static bool
has_minmax_path(PlannerInfo *root)
{
	ListCell   *lc;

	foreach(lc, root->upper_rels[UPPERREL_GROUP_AGG])
	{
		RelOptInfo *rel = (RelOptInfo *) lfirst(lc);
		ListCell   *lc2;

		foreach(lc2, rel->pathlist)
			if (IsA(lfirst(lc2), MinMaxAggPath))
				return true;
	}
	return false;
}

/*
 * Is the planned query of root (a derived table's subquery, or one of its
 * own subqueries: set operations' arms, subqueries in its FROM) safe to
 * plan and run twice, as a derived build side is (its own plan, and the
 * copy in PostgreSQL's plan behind the node)?  Not with plan states that
 * both plans would share and the second run would find spent (an InitPlan,
 * a min/max aggregate's InitPlan made while its plan is built, a SubPlan,
 * a CTE), nor with volatile functions (their side effects would happen
 * twice when the node answers with the plan behind it).
 */
static bool
subroot_runs_twice(PlannerInfo *root)
{
	Query	   *q = root->parse;
	int			i;

	if (root->init_plans != NIL || q == NULL || has_minmax_path(root) ||
		q->cteList != NIL || contain_subplans((Node *) q->targetList) ||
		contain_subplans((Node *) q->jointree) || contain_subplans(q->havingQual) ||
		contain_volatile_functions((Node *) q))
		return false;
	for (i = 1; i < root->simple_rel_array_size; i++)
	{
		RelOptInfo *r = root->simple_rel_array[i];

		if (r == NULL)
			continue;
		if (r->rtekind == RTE_CTE)
			return false;
		if (r->rtekind == RTE_SUBQUERY && r->subroot != NULL &&
			!subroot_runs_twice(r->subroot))
			return false;
	}
	return true;
}

/*
 * a scan of a derived table (a subquery in FROM, or an IN subquery's
 * relation) whose plan PostgreSQL runs as it planned it, once, with no
 * parameter: not LATERAL, reading no outer query's column; and whose
 * subquery may be planned and run twice (subroot_runs_twice)
 */
bool
gdb_join_is_derived(Path *p)
{
	if (!IsA(p, SubqueryScanPath) || p->param_info != NULL || p->parent == NULL ||
		p->parent->reloptkind != RELOPT_BASEREL || p->parent->rtekind != RTE_SUBQUERY ||
		p->parent->subroot == NULL || !bms_is_empty(p->parent->lateral_relids) ||
		!bms_is_empty(p->parent->subroot->outer_params))
		return false;
	return subroot_runs_twice(p->parent->subroot);
}

/*
 * The type, typmod and collation of column attnum of range table entry
 * varno: a table's attribute, or a derived table's output column.
 */
void
gdb_join_column_type(PlannerInfo *root, Index varno, AttrNumber attnum, Oid *typid,
			int32 *typmod, Oid *collid)
{
	RangeTblEntry *rte = planner_rt_fetch(varno, root);

	if (rte->rtekind == RTE_SUBQUERY)
	{
		TargetEntry *te = get_tle_by_resno(rte->subquery->targetList, attnum);

		if (te == NULL || te->resjunk)
			elog(ERROR, "gpudb: column %d of a derived table not found", attnum);
		*typid = exprType((Node *) te->expr);
		/* an aggregate's numeric: its expected scale (read_derived checks) */
		*typmod = gdb_numeric_result_typmod((Node *) te->expr);
		*collid = exprCollation((Node *) te->expr);
		return;
	}
	get_atttypetypmodcoll(rte->relid, attnum, typid, typmod, collid);
}

/*
 * expression_tree_mutator callback of gdb_join_derived_typmods: a Var of a
 * derived table's numeric column without a typmod (an aggregate's result) as a
 * copy with the typmod gdb_join_column_type gives it, the scale its values are
 * expected to have (gdb_numeric_result_typmod; read_derived checks every
 * value), so that gpudb computes the quals that read it as fixed point.
 */
static Node *
derived_typmod_mutator(Node *node, void *context)
{
	PlannerInfo *root = (PlannerInfo *) context;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		Oid			typid;
		int32		typmod;
		Oid			collid;

		if (v->varlevelsup != 0 || v->varattno <= 0 || v->vartype != NUMERICOID ||
			v->vartypmod >= 0 || planner_rt_fetch(v->varno, root)->rtekind != RTE_SUBQUERY)
			return (Node *) v;
		gdb_join_column_type(root, v->varno, v->varattno, &typid, &typmod, &collid);
		v = copyObject(v);
		v->vartypmod = typmod;
		return (Node *) v;
	}
	return expression_tree_mutator(node, derived_typmod_mutator, context);
}

/*
 * The other quals of every join of tree (nested trees too) with their
 * derived tables' numeric columns typed as read_derived lays them out
 * (derived_typmod_mutator): copies only for gpudb's own compilation; the
 * query and PostgreSQL's plan behind the node keep the columns' own
 * typmod, -1, which PostgreSQL's simplifier reads (a cast to numeric(p,s)
 * of a column already of that typmod is dropped).
 */
void
gdb_join_derived_typmods(PlannerInfo *root, JoinTree *tree)
{
	ListCell   *lc;

	foreach(lc, tree->steps)
	{
		JoinStep   *step = (JoinStep *) lfirst(lc);

		step->extra = (List *) derived_typmod_mutator((Node *) step->extra, root);
		if (step->sub != NULL)
			gdb_join_derived_typmods(root, step->sub);
	}
}

/*
 * The position in derived's output (its target list) of column attnum of
 * its relation, or -1.
 */
static int
derived_position(Path *derived, AttrNumber attnum)
{
	ListCell   *lc;

	foreach(lc, derived->pathtarget->exprs)
	{
		Var		   *v = (Var *) lfirst(lc);

		if (IsA(v, Var) && v->varno == derived->parent->relid && v->varattno == attnum &&
			v->varlevelsup == 0)
			return foreach_current_index(lc);
	}
	return -1;
}

/*
 * Is the derived table of step distinct on its join keys, as its query
 * shows (grouped or DISTINCT on them: query_is_distinct_for)?
 */
bool
gdb_join_derived_distinct(PlannerInfo *root, JoinStep *step)
{
	RangeTblEntry *rte = planner_rt_fetch(step->relid, root);
	List	   *colnos = NIL;
	List	   *opids = NIL;
	int			t;

	for (t = 0; t + 3 < list_length(step->quads); t += 4)
	{
		OpExpr	   *op = (OpExpr *) list_nth(step->clauses, t / 4);

#if PG_VERSION_NUM >= 190000
		/* 19: (column, operator, its collation) per column */
		DistinctColInfo *d = palloc(sizeof(DistinctColInfo));

		d->colno = list_nth_int(step->quads, t + 3);
		d->opid = op->opno;
		d->collid = op->inputcollid;
		colnos = lappend(colnos, d);
#else
		colnos = lappend_int(colnos, list_nth_int(step->quads, t + 3));
		opids = lappend_oid(opids, op->opno);
#endif
	}
	if (rte->subquery == NULL)
		return false;
#if PG_VERSION_NUM >= 190000
	(void) opids;
	return query_is_distinct_for(rte->subquery, colnos);
#else
	return query_is_distinct_for(rte->subquery, colnos, opids);
#endif
}

/*
 * A derived table's build side (step->derived): its plan is one more of
 * the node's custom paths (appended to *derived, after PostgreSQL's plan
 * behind the node), run by the executor before the request, its rows
 * the build side's (join_build.c).  *dinfo: (that path's custom plan
 * index, then the output position, type, typmod and collation of each
 * key, then of each payload column); its cost and bytes go to *jc.  False with *why when a column
 * is not in its output.
 */
bool
gdb_join_derived_build_side(PlannerInfo *root, JoinStep *step, List *payload, List **derived,
				   List **dinfo, JoinCost *jc, const char **why)
{
	int			t;
	int			ncols = list_length(step->quads) / 4 + list_length(payload) / 2;

	List	   *attnums = NIL;
	ListCell   *lc;

	for (t = 0; t + 3 < list_length(step->quads); t += 4)
		attnums = lappend_int(attnums, list_nth_int(step->quads, t + 3));
	for (t = 0; t + 1 < list_length(payload); t += 2)
	{
		if (list_nth_int(payload, t) != (int) step->relid)
		{
			*why = "a derived table's build side carries another relation's column";
			return false;
		}
		attnums = lappend_int(attnums, list_nth_int(payload, t + 1));
	}
	*derived = lappend(*derived, step->derived);
	*dinfo = list_make1_int(list_length(*derived));
	foreach(lc, attnums)
	{
		AttrNumber	attnum = (AttrNumber) lfirst_int(lc);
		int			pos = derived_position(step->derived, attnum);
		Oid			typid;
		int32		typmod;
		Oid			collid;

		if (pos < 0)
		{
			*why = "a derived table does not output a column the join needs";
			return false;
		}
		gdb_join_column_type(root, step->relid, attnum, &typid, &typmod, &collid);
		if (!gdb_type_supported(typid, typmod))
		{
			*why = psprintf("a derived table's column of type %s is needed",
							format_type_with_typemod(typid, typmod));
			return false;
		}
		*dinfo = lappend_int(*dinfo, pos);
		*dinfo = lappend_int(*dinfo, (int) typid);
		*dinfo = lappend_int(*dinfo, typmod);
		*dinfo = lappend_int(*dinfo, (int) collid);
	}
	/* its plan, then its rows through the backend (never kept) */
	jc->read += step->derived->total_cost;
	jc->bytes += step->derived->rows * 9.0 * ncols;
	return true;
}

