/*-------------------------------------------------------------------------
 *
 * not_in_rewrite.c
 *	  NOT IN (subquery) as an anti join, where that is the same query.
 *	  PostgreSQL plans x NOT IN (SELECT y ...) as a filter over a (hashed)
 *	  SubPlan, never as a join, because of NOT IN's NULL rules: a NULL x,
 *	  or a NULL among the y, makes the test NULL instead of TRUE.  Where
 *	  neither can be NULL the test is NOT EXISTS (SELECT ... WHERE y = x),
 *	  which PostgreSQL's own pull_up_sublinks plans as an anti join, and
 *	  a GpudbJoin runs anti joins on the device (TPC-H Q16's ps_suppkey NOT
 *	  IN (SELECT s_suppkey FROM supplier WHERE s_comment LIKE ...)).
 *
 * Before planning (planner_hook), a top-level WHERE conjunct of the query
 * planned, or of any query inside it (a subquery in FROM, a view, a CTE,
 * a sublink's subquery: each judged at its own level),
 *	 NOT (x op ANY (SELECT y FROM ... WHERE ...))
 * becomes
 *	 NOT EXISTS (SELECT y FROM ... WHERE ... AND x op y)
 * when all of this holds, so that the two answer alike for every row:
 *	 - gpudb.enabled and gpudb.enable_gpujoin are on (with either off, the
 *	   plan is PostgreSQL's own, as the differential tests want);
 *	 - op is a built-in btree equality (the IN's = of x's and y's types),
 *	   x a column (below relabelling) of a table of the query whose FROM
 *	   has no outer join (so x is that column's value), y likewise a column
 *	   of a table of the subquery's FROM, which has no outer join either;
 *	 - both columns carry a valid NOT NULL constraint, so neither x nor
 *	   any y is NULL: x NOT IN (S) is then TRUE exactly when no y of S
 *	   equals x, S empty included (not a foreign table's, which the
 *	   remote side may not keep; not a plain inheritance parent's, which
 *	   its children may not have);
 *	 - the query locks no rows (FOR UPDATE and the like);
 *	 - the subquery is a plain SELECT of that one column (no aggregate,
 *	   grouping, DISTINCT, LIMIT, set operation, window, set-returning
 *	   function, CTE or locking clause), not correlated, with no volatile
 *	   function (run once as a SubPlan, or per outer row as the anti
 *	   join's inner side: the same rows).
 * Anything else is left as PostgreSQL wrote it.  From 19 PostgreSQL
 * plans such a NOT IN as an anti join itself, and the hook leaves it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/transam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "gpudb.h"
#include "custom_scan_path.h"
#include "pg_compat.h"

static planner_hook_type prev_planner_hook = NULL;

/* Does jointree (a FromExpr's fromlist item or the tree) hold an outer join? */
static bool
has_outer_join(Node *jt)
{
	if (jt == NULL || IsA(jt, RangeTblRef))
		return false;
	if (IsA(jt, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) jt)->fromlist)
			if (has_outer_join((Node *) lfirst(lc)))
				return true;
		return false;
	}
	if (IsA(jt, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) jt;

		return j->jointype != JOIN_INNER || has_outer_join(j->larg) ||
			has_outer_join(j->rarg);
	}
	return true;
}

/*
 * Is e (below relabelling) a column of a table of q's range table (level
 * 0) with a valid NOT NULL constraint?
 */
static bool
not_null_column(Query *q, Node *e)
{
	Var		   *v;
	RangeTblEntry *rte;
	Relation	rel;
	bool		ok;

	while (e && IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	if (e == NULL || !IsA(e, Var))
		return false;
	v = (Var *) e;
	if (v->varlevelsup != 0 || v->varattno <= 0 ||
		v->varno < 1 || v->varno > list_length(q->rtable))
		return false;
	rte = rt_fetch(v->varno, q->rtable);
	if (rte->rtekind != RTE_RELATION || rte->relkind == RELKIND_FOREIGN_TABLE)
		return false;

	/*
	 * a plain inheritance parent's NOT NULL does not bind its children (15
	 * to 17 let a child drop it, 18 has NO INHERIT ones); a partitioned
	 * table's does (a partition can neither drop nor lack it).  inh is
	 * still set for every table named without ONLY: ask the catalog.
	 */
	if (rte->inh && rte->relkind != RELKIND_PARTITIONED_TABLE &&
		has_subclass(rte->relid))
		return false;
	/* the parser locked every relation of the query */
	rel = table_open(rte->relid, NoLock);
	ok = v->varattno <= RelationGetNumberOfAttributes(rel) &&
		gdb_att_not_null(rel, v->varattno);
	table_close(rel, NoLock);
	return ok;
}

/* The subquery's one output column, if sub is the plain SELECT above. */
static Node *
plain_subselect_column(Query *sub)
{
	TargetEntry *te;

	if (sub->commandType != CMD_SELECT || sub->setOperations != NULL ||
		sub->hasAggs || sub->groupClause != NIL || sub->groupingSets != NIL ||
		sub->havingQual != NULL || sub->distinctClause != NIL ||
		sub->limitCount != NULL || sub->limitOffset != NULL ||
		sub->hasWindowFuncs || sub->hasTargetSRFs || sub->cteList != NIL ||
		sub->rowMarks != NIL || sub->hasModifyingCTE || sub->hasSubLinks ||
		list_length(sub->targetList) != 1 || sub->jointree == NULL ||
		has_outer_join((Node *) sub->jointree))
		return NULL;
	te = linitial_node(TargetEntry, sub->targetList);
	if (te->resjunk || contain_volatile_functions((Node *) sub) ||
		contain_vars_of_level((Node *) sub, 1))
		return NULL;
	return (Node *) te->expr;
}

/*
 * The NOT EXISTS that conjunct (a top-level WHERE qual of q) means, or NULL
 * when it is not a NOT IN the file header's rules allow.
 */
static Node *
not_exists_for(Query *q, Node *conjunct)
{
	BoolExpr   *not = (BoolExpr *) conjunct;
	SubLink    *sl;
	OpExpr	   *op;
	Query	   *sub;
	Node	   *x,
			   *p,
			   *y;
	Node	   *eq;
	List	   *opfamilies;
	SubLink    *exists;

	if (!IsA(not, BoolExpr) || not->boolop != NOT_EXPR || list_length(not->args) != 1 ||
		!IsA(linitial(not->args), SubLink))
		return NULL;
	sl = (SubLink *) linitial(not->args);
	if (sl->subLinkType != ANY_SUBLINK || sl->testexpr == NULL ||
		!IsA(sl->testexpr, OpExpr))
		return NULL;
	op = (OpExpr *) sl->testexpr;
	if (list_length(op->args) != 2 || op->opno >= FirstNormalObjectId ||
		!op_mergejoinable(op->opno, exprType((Node *) linitial(op->args))))
		return NULL;
	/* = of a btree family: an equality */
	opfamilies = get_mergejoin_opfamilies(op->opno);
	if (opfamilies == NIL)
		return NULL;
	x = (Node *) linitial(op->args);
	p = (Node *) lsecond(op->args);
	while (p && IsA(p, RelabelType))
		p = (Node *) ((RelabelType *) p)->arg;
	if (p == NULL || !IsA(p, Param) || ((Param *) p)->paramkind != PARAM_SUBLINK ||
		((Param *) p)->paramid != 1)
		return NULL;
	sub = castNode(Query, sl->subselect);
	y = plain_subselect_column(sub);
	if (y == NULL || !not_null_column(q, x) || !not_null_column(sub, y))
		return NULL;

	/* the subquery, its WHERE ANDed with x op y (x now an outer reference) */
	sub = copyObject(sub);
	eq = copyObject(sl->testexpr);
	IncrementVarSublevelsUp(eq, 1, 0);
	/* the Param (the subquery's output) is y itself */
	{
		OpExpr	   *e = (OpExpr *) eq;
		Node	   *r = (Node *) lsecond(e->args);

		if (IsA(r, RelabelType))
		{
			RelabelType *rl = (RelabelType *) copyObject(r);

			rl->arg = (Expr *) copyObject(y);
			lsecond(e->args) = rl;
		}
		else
			lsecond(e->args) = copyObject(y);
	}
	sub->jointree->quals = sub->jointree->quals == NULL ? eq :
		(Node *) make_andclause(list_make2(sub->jointree->quals, eq));
	exists = makeNode(SubLink);
	exists->subLinkType = EXISTS_SUBLINK;
	exists->subLinkId = 0;
	exists->testexpr = NULL;
	exists->operName = NIL;
	exists->subselect = (Node *) sub;
	exists->location = sl->location;
	return (Node *) make_notclause((Expr *) exists);
}

/*
 * Rewrite q's own top-level WHERE conjuncts (file header), in place (a
 * GdbQueryRewrite that always applies); whether one was.
 */
static bool
rewrite_not_in(Query *q, bool apply)
{
	Node	   *quals;
	List	   *conjuncts;
	ListCell   *lc;
	bool		changed = false;

#if PG_VERSION_NUM >= 190000
	/* 19 plans such a NOT IN as an anti join itself (subselect.c) */
	return false;
#endif
	if (q->commandType != CMD_SELECT || q->jointree == NULL ||
		q->jointree->quals == NULL || !q->hasSubLinks || q->rowMarks != NIL ||
		has_outer_join((Node *) q->jointree))
		return false;
	quals = q->jointree->quals;
	conjuncts = is_andclause(quals) ? list_copy(((BoolExpr *) quals)->args) :
		list_make1(quals);
	foreach(lc, conjuncts)
	{
		Node	   *ne = not_exists_for(q, (Node *) lfirst(lc));

		if (ne != NULL)
		{
			lfirst(lc) = ne;
			changed = true;
		}
	}
	if (changed)
		q->jointree->quals = list_length(conjuncts) == 1 ? (Node *) linitial(conjuncts) :
			(Node *) make_andclause(conjuncts);
	return changed;
}

static PlannedStmt *
gdb_planner(GDB_PLANNER_ARGS)
{
	/* every query of the tree, each judged at its own level */
	if (gpudb_enabled && gpudb_enable_gpujoin)
		(void) gdb_rewrite_tree((Node *) parse, rewrite_not_in, true);
	if (prev_planner_hook)
		return GDB_PLANNER_CALL(prev_planner_hook);
	return GDB_PLANNER_CALL(standard_planner);
}

/* see custom_scan_path.h */
void
gdb_not_in_rewrite_init(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = gdb_planner;
}
