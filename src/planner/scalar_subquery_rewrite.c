/*-------------------------------------------------------------------------
 *
 * scalar_subquery_rewrite.c
 *	  A correlated scalar-aggregate subquery as a join with a derived table
 *	  grouped on its correlation columns, where that is the same query.
 *	  PostgreSQL never decorrelates an expression subquery: TPC-H Q17's
 *	  l_quantity < (SELECT 0.2 * avg(l_quantity) FROM lineitem WHERE
 *	  l_partkey = p_partkey), Q20's and Q2's run as a SubPlan per outer
 *	  row.  Written as a join with
 *		(SELECT l_partkey, 0.2 * avg(l_quantity) FROM lineitem
 *		 GROUP BY l_partkey)
 *	  the derived table is one group-by, which a GpudbAgg (a GpudbJoin
 *	  under it for Q2's joined one) runs on the device.
 *
 * Before planning (planner_hook, above not_in_rewrite.c's), a
 * top-level WHERE conjunct of the query planned, or of any query inside it
 * (a subquery in FROM, a view, a CTE, a sublink's subquery: each judged at
 * its own level),
 *	 x op (SELECT e FROM f WHERE c AND i1 = o1 AND ... AND in = on)
 * (or the sublink on the left) becomes x op g.v, the query's FROM gaining
 * the inner join item
 *	 (SELECT i1, ..., in, e AS v FROM f WHERE c GROUP BY i1, ..., in) g
 * and its WHERE the conjuncts o1 = g.i1 AND ... AND on = g.in, when all of
 * this holds, so that the two answer alike for every row:
 *	 - gpudb.enabled and gpudb.enable_gpujoin are on (with either off, the
 *	   plan is PostgreSQL's own, as the differential tests want);
 *	 - the query is a SELECT that locks no rows; the conjunct is a direct
 *	   operand of its WHERE's top-level AND (not under OR, NOT or CASE, not
 *	   in a join's ON); op is a built-in comparison (< <= = <> >= >) with a
 *	   strict function, and x holds no sublink and no volatile function;
 *	   the sublink is an expression sublink (below relabelling and
 *	   built-in strict casts): a NULL result makes the conjunct NULL and
 *	   rejects the row, which is what the join does to a row that finds
 *	   no group;
 *	 - the subquery is a plain SELECT (no grouping, HAVING, DISTINCT,
 *	   ORDER BY, LIMIT, window, set operation, set-returning function, CTE,
 *	   locking clause, sublink or volatile function) over tables joined by
 *	   inner joins only (no subquery, function or VALUES in its FROM, no
 *	   TABLESAMPLE), of one column e: an aggregate, built in, without
 *	   DISTINCT, ORDER BY or FILTER, min or max, or avg or sum of an
 *	   integer or numeric, or numeric + - * and casts to numeric of such
 *	   aggregates and constants in which a NULL aggregate makes e NULL.
 *	   Such a subquery is one row, whose e is NULL over no rows (never
 *	   count, whose empty answer is 0, not no row: the "count bug"), so no
 *	   group and a group whose e is NULL reject alike.  e raises no error
 *	   (no division, no float or integer overflow) for a group no outer
 *	   row asks for, and no sum adds floats in another order;
 *	 - the subquery references the query only in conjuncts of its WHERE
 *	   i = o (either order), at least one, i a column expression of the
 *	   subquery (a column, below relabelling or COLLATE), o a column of
 *	   the query (level 1 exactly: nothing further out), of the same type,
 *	   op that type's default equality (its type cache's, the one GROUP BY
 *	   groups by), with a deterministic collation where the type has one:
 *	   the rows of the group of keys (k1, ..., kn) are then exactly the
 *	   subquery's rows for an outer row whose o's equal those keys
 *	   (equality is transitive), a NULL o matches no group (= is strict)
 *	   as it matches no row, and each outer row meets at most one group
 *	   (the groups' keys differ), so the join neither drops nor repeats a
 *	   row.
 * What can differ is only what no plan promises: the derived table reads
 * the subquery's rows of every key, so c is evaluated on rows of keys no
 * outer row asks for (as it may be in the SubPlan's own scan).  Anything
 * else is left as PostgreSQL wrote it.
 *
 * The derived table is restricted to the keys the query can ask for (a
 * "magic set", a semi-join reduction): for each table R of the query that
 * holds correlation columns o1, ..., om (in the order of the first), where
 *	 - R is a table (or materialized view) that is an item of the query's
 *	   FROM list itself (inner-joined, under no outer join), with no
 *	   TABLESAMPLE, no row-level security quals, and not an inheritance
 *	   parent with children;
 *	 - the query's other top-level WHERE conjuncts include some that read
 *	   columns of R and nothing else of the query (no other relation, no
 *	   query further out, no volatile function; a sublink in one may read
 *	   its own queries only, not the query's: uncorrelated);
 * the derived table's WHERE gains
 *	 (i1, ..., im) IN (SELECT o1, ..., om FROM R WHERE r1 AND ... AND rk)
 * r1, ..., rk being all those conjuncts in the query's order, the IN's =
 * the correlations' own.  It is the same query: a row of the query that
 * meets the group of keys (k1, ..., kn) has R's row pass r1, ..., rk (they
 * are conjuncts of the query's WHERE, R is inner-joined) with each oj =
 * its kj; every row of that group has its ij = kj, so the group is in the
 * IN, whole (= is transitive, and the group's rows are = to each other).
 * A group that is not is met by no row, and removing it changes no
 * result.  The IN reads R through a scan of its own, which evaluates r1,
 * ..., rk over R's rows as the query's scan of R does: an error the IN
 * raises, that scan raises too, but where the query's plan filters R's
 * rows first by a clause it derived, or reads none of R (its join's other
 * side empty), or stops early (LIMIT), the IN may raise an error that
 * plan does not: any plan of the query may, as SQL and PostgreSQL leave
 * the order of evaluation free.
 *
 * R's own restrictions stay in the query's WHERE although the join with
 * the restricted derived table implies those that read only R's
 * correlation columns: the planner counts such a restriction twice
 * (its estimate of the join's rows falls short), but it is also the
 * access path to R (TPC-H Q20's ps_partkey IN (SELECT p_partkey FROM part
 * WHERE ...) reads partsupp through its index; dropped, partsupp was
 * scanned whole, 8M rows at SF 10, 0.33 s -> 2.2 s).
 *
 * The derived table reads every row of f once, where the SubPlan reads the
 * rows of each outer row's keys (through an index, maybe only a few):
 * where a rewrite is made the hook plans both queries and keeps the
 * cheaper plan (gdb_scalar_planner).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/transam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parse_oper.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "gpudb.h"
#include "custom_scan_path.h"
#include "expr_compile.h"
#include "pg_compat.h"

static planner_hook_type prev_planner_hook = NULL;

/* One correlation conjunct i = o of the subquery's WHERE. */
typedef struct CorrelationEq
{
	OpExpr	   *op;				/* the conjunct */
	int			inner_arg;		/* 0 or 1: which argument is i */
} CorrelationEq;

/*
 * Where *arg (an operand) is an expression sublink below relabelling and
 * casts (built-in, strict: a NULL stays NULL), the pointer to it, else
 * NULL.
 */
static Node **
sublink_slot(Node **arg)
{
	for (;;)
	{
		if (*arg && IsA(*arg, RelabelType))
			arg = (Node **) &((RelabelType *) *arg)->arg;
		else if (*arg && IsA(*arg, FuncExpr) &&
				 (((FuncExpr *) *arg)->funcformat == COERCE_IMPLICIT_CAST ||
				  ((FuncExpr *) *arg)->funcformat == COERCE_EXPLICIT_CAST) &&
				 ((FuncExpr *) *arg)->args != NIL &&
				 ((FuncExpr *) *arg)->funcid < FirstNormalObjectId &&
				 func_strict(((FuncExpr *) *arg)->funcid))
			arg = (Node **) &linitial(((FuncExpr *) *arg)->args);
		else
			break;
	}
	if (*arg && IsA(*arg, SubLink) &&
		((SubLink *) *arg)->subLinkType == EXPR_SUBLINK)
		return arg;
	return NULL;
}

/* Does node reference a level above its own (levelsup > 0 anywhere)? */
static bool
refs_upper_level(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varlevelsup > 0;
	if (IsA(node, Aggref))
	{
		if (((Aggref *) node)->agglevelsup > 0)
			return true;
	}
	else if (IsA(node, GroupingFunc))
	{
		if (((GroupingFunc *) node)->agglevelsup > 0)
			return true;
	}
	else if (IsA(node, PlaceHolderVar))
	{
		if (((PlaceHolderVar *) node)->phlevelsup > 0)
			return true;
	}
	else if (IsA(node, Query) || IsA(node, SubLink))
		return true;			/* never in the subqueries accepted */
	return expression_tree_walker(node, refs_upper_level, context);
}

/*
 * Is a one of avg, sum, min or max, built in, at this level, without
 * DISTINCT, ORDER BY or FILTER (NULL over no rows)?
 */
static bool
null_on_empty_aggregate(Aggref *a)
{
	char	   *name;
	bool		ok;

	if (a->aggfnoid >= FirstNormalObjectId || a->agglevelsup != 0 ||
		a->aggkind != AGGKIND_NORMAL || a->aggfilter != NULL ||
		a->aggdistinct != NIL || a->aggorder != NIL || a->aggstar)
		return false;
	name = get_func_name(a->aggfnoid);
	if (name == NULL)
		return false;
	if (strcmp(name, "avg") == 0 || strcmp(name, "sum") == 0)
	{
		/* of integers or numeric: no overflow error, no float rounding */
		Oid			argtype = list_length(a->aggargtypes) == 1 ?
			linitial_oid(a->aggargtypes) : InvalidOid;

		ok = argtype == INT2OID || argtype == INT4OID || argtype == INT8OID ||
			argtype == NUMERICOID;
	}
	else
		ok = strcmp(name, "min") == 0 || strcmp(name, "max") == 0;
	pfree(name);
	return ok;
}

/*
 * Is e the subquery's column as the file header allows (aggregates, casts
 * to numeric, numeric + - * and constants)?  *nullable: a NULL aggregate
 * makes e NULL.
 */
static bool
aggregate_expression_ok(Node *e, bool *nullable)
{
	ListCell   *lc;
	List	   *args;
	Oid			funcid;

	*nullable = false;
	if (e == NULL)
		return false;
	if (IsA(e, Const))
		return true;
	if (IsA(e, RelabelType))
		return aggregate_expression_ok((Node *) ((RelabelType *) e)->arg, nullable);
	if (IsA(e, Aggref))
	{
		*nullable = true;
		return null_on_empty_aggregate((Aggref *) e);
	}
	if (IsA(e, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) e;
		char	   *name;
		bool		arith;

		/* numeric's: no overflow error */
		if (op->opno >= FirstNormalObjectId || op->opresulttype != NUMERICOID)
			return false;
		name = get_opname(op->opno);
		arith = name != NULL && (strcmp(name, "+") == 0 || strcmp(name, "-") == 0 ||
								 strcmp(name, "*") == 0);
		if (!arith)
			return false;
		funcid = get_opcode(op->opno);
		args = op->args;
	}
	else if (IsA(e, FuncExpr))
	{
		FuncExpr   *f = (FuncExpr *) e;

		/* to numeric, without a typmod: no error */
		if ((f->funcformat != COERCE_IMPLICIT_CAST &&
			 f->funcformat != COERCE_EXPLICIT_CAST) ||
			f->funcresulttype != NUMERICOID || list_length(f->args) != 1)
			return false;
		funcid = f->funcid;
		args = f->args;
	}
	else
		return false;
	if (funcid >= FirstNormalObjectId || !func_strict(funcid))
		return false;
	foreach(lc, args)
	{
		bool		arg_nullable;

		if (!aggregate_expression_ok((Node *) lfirst(lc), &arg_nullable))
			return false;
		*nullable = *nullable || arg_nullable;
	}
	return true;
}

/*
 * Is jt (an item of the subquery's FROM) a table, or tables joined by inner
 * joins whose ON references no outer query?
 */
static bool
inner_joined_tables(Query *sub, Node *jt)
{
	if (jt == NULL)
		return false;
	if (IsA(jt, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) jt)->rtindex, sub->rtable);

		return rte->rtekind == RTE_RELATION && rte->tablesample == NULL;
	}
	if (IsA(jt, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) jt;

		return j->jointype == JOIN_INNER && !refs_upper_level(j->quals, NULL) &&
			inner_joined_tables(sub, j->larg) && inner_joined_tables(sub, j->rarg);
	}
	return false;
}

/*
 * Is conjunct (of the subquery's WHERE) a correlation i = o of the file
 * header?  Then *corr describes it.
 */
static bool
correlation_eq(Node *conjunct, CorrelationEq *corr)
{
	OpExpr	   *op;
	Node	   *args[2];
	Var		   *vars[2];
	Oid			type;
	Oid			ltype,
				rtype;
	TypeCacheEntry *tc;
	int			inner;
	int			i;

	if (!IsA(conjunct, OpExpr))
		return false;
	op = (OpExpr *) conjunct;
	if (list_length(op->args) != 2 || op->opretset)
		return false;
	args[0] = (Node *) linitial(op->args);
	args[1] = (Node *) lsecond(op->args);
	for (i = 0; i < 2; i++)
	{
		Node	   *v = fc_strip_relabel(args[i]);

		if (!IsA(v, Var) || ((Var *) v)->varattno <= 0)
			return false;
		vars[i] = (Var *) v;
	}
	if (vars[0]->varlevelsup == 0 && vars[1]->varlevelsup == 1)
		inner = 0;
	else if (vars[0]->varlevelsup == 1 && vars[1]->varlevelsup == 0)
		inner = 1;
	else
		return false;
	/* the same type on both sides, op that type's default equality */
	type = exprType(args[0]);
	op_input_types(op->opno, &ltype, &rtype);
	if (exprType(args[1]) != type || ltype != type || rtype != type)
		return false;
	tc = lookup_type_cache(type, TYPECACHE_EQ_OPR);
	if (!OidIsValid(tc->eq_opr) || tc->eq_opr != op->opno)
		return false;
	/* a deterministic collation: the conjunct's and the GROUP BY's = alike */
	if (OidIsValid(op->inputcollid) &&
		!get_collation_isdeterministic(op->inputcollid))
		return false;
	if (OidIsValid(exprCollation(args[inner])) &&
		!get_collation_isdeterministic(exprCollation(args[inner])))
		return false;
	corr->op = op;
	corr->inner_arg = inner;
	return true;
}

/*
 * The subquery's correlation conjuncts (CorrelationEq *) and its other
 * WHERE conjuncts (*others), or NIL when sub is not one the file header
 * allows.
 */
static List *
decorrelatable_subquery(Query *sub, List **others)
{
	List	   *conjuncts;
	List	   *corrs = NIL;
	ListCell   *lc;
	TargetEntry *te;
	bool		nullable;

	*others = NIL;
	if (sub->commandType != CMD_SELECT || sub->utilityStmt != NULL ||
		sub->setOperations != NULL || !sub->hasAggs ||
		sub->groupClause != NIL || sub->groupingSets != NIL ||
		sub->havingQual != NULL || sub->distinctClause != NIL ||
		sub->sortClause != NIL || sub->limitCount != NULL ||
		sub->limitOffset != NULL || sub->hasWindowFuncs ||
		sub->hasTargetSRFs || sub->cteList != NIL || sub->rowMarks != NIL ||
		sub->hasModifyingCTE || sub->hasSubLinks || sub->hasRecursive ||
		sub->jointree == NULL || sub->jointree->quals == NULL ||
		list_length(sub->targetList) != 1)
		return NIL;
	te = linitial_node(TargetEntry, sub->targetList);
	if (te->resjunk || refs_upper_level((Node *) te->expr, NULL) ||
		!aggregate_expression_ok((Node *) te->expr, &nullable) || !nullable)
		return NIL;
	if (sub->jointree->fromlist == NIL || contain_volatile_functions((Node *) sub))
		return NIL;
	foreach(lc, sub->jointree->fromlist)
		if (!inner_joined_tables(sub, (Node *) lfirst(lc)))
			return NIL;

	conjuncts = make_ands_implicit((Expr *) sub->jointree->quals);
	foreach(lc, conjuncts)
	{
		Node	   *c = (Node *) lfirst(lc);
		CorrelationEq corr;

		if (!refs_upper_level(c, NULL))
			*others = lappend(*others, c);
		else if (correlation_eq(c, &corr))
		{
			CorrelationEq *copy = palloc(sizeof(CorrelationEq));

			*copy = corr;
			corrs = lappend(corrs, copy);
		}
		else
			return NIL;
	}
	return corrs;
}

/*
 * Is conjunct (a top-level WHERE qual of q) x op (sublink) or (sublink) op x
 * as the file header allows?  Then *sublink_arg is the sublink's argument
 * (0 or 1) and *sublink the sublink.
 */
static bool
comparison_with_sublink(Node *conjunct, int *sublink_arg, SubLink **sublink)
{
	OpExpr	   *op;
	char	   *name;
	bool		cmp;
	int			i;

	if (!IsA(conjunct, OpExpr))
		return false;
	op = (OpExpr *) conjunct;
	if (list_length(op->args) != 2 || op->opno >= FirstNormalObjectId ||
		op->opretset || !func_strict(get_opcode(op->opno)))
		return false;
	name = get_opname(op->opno);
	cmp = name != NULL && (strcmp(name, "<") == 0 || strcmp(name, "<=") == 0 ||
						   strcmp(name, "=") == 0 || strcmp(name, "<>") == 0 ||
						   strcmp(name, ">=") == 0 || strcmp(name, ">") == 0);
	if (!cmp)
		return false;
	for (i = 0; i < 2; i++)
	{
		Node	  **s = sublink_slot((Node **) &lfirst(list_nth_cell(op->args, i)));
		Node	   *x = (Node *) list_nth(op->args, 1 - i);

		if (s != NULL && !checkExprHasSubLink(x) && !contain_volatile_functions(x))
		{
			*sublink_arg = i;
			*sublink = (SubLink *) *s;
			return true;
		}
	}
	return false;
}

/* restriction_walker's state */
typedef struct RestrictionContext
{
	Index		relid;			/* R's range table index in q */
	int			sublevels_up;	/* how far below q the walk is */
} RestrictionContext;

/*
 * Does node, a conjunct of q's WHERE (or a part of one), read anything of
 * q but columns of its relation cxt->relid, or anything of a query above
 * q, or a volatile function?  Sublinks inside may read their own queries'
 * columns (and CTEs) only: uncorrelated with q.
 */
static bool
restriction_walker(Node *node, RestrictionContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varlevelsup < cxt->sublevels_up)
			return false;		/* a sublink's own column */
		return cxt->sublevels_up > 0 || v->varlevelsup > 0 ||
			v->varno != cxt->relid;
	}
	if (IsA(node, Aggref))
		return ((Aggref *) node)->agglevelsup >= cxt->sublevels_up;
	if (IsA(node, GroupingFunc))
		return ((GroupingFunc *) node)->agglevelsup >= cxt->sublevels_up;
	if (IsA(node, PlaceHolderVar))
		return ((PlaceHolderVar *) node)->phlevelsup >= cxt->sublevels_up;
	if (IsA(node, CurrentOfExpr))
		return true;
	if (IsA(node, Param))
	{
		/* a sublink's own output (its test's) or a statement parameter */
		return ((Param *) node)->paramkind != PARAM_EXTERN &&
			((Param *) node)->paramkind != PARAM_SUBLINK;
	}
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		/* a CTE of q or above */
		return rte->rtekind == RTE_CTE &&
			rte->ctelevelsup >= (Index) cxt->sublevels_up;
	}
	if (IsA(node, Query))
	{
		bool		result;

		cxt->sublevels_up++;
		result = query_tree_walker((Query *) node, restriction_walker,
								   (void *) cxt, QTW_EXAMINE_RTES_BEFORE);
		cxt->sublevels_up--;
		return result;
	}
	return expression_tree_walker(node, restriction_walker, (void *) cxt);
}

/*
 * The conjuncts of q's WHERE but skip that restrict q's relation relid
 * alone (file header), in their order, when relid is a table of q the
 * header allows and one of them reads a column of it; else NIL.
 */
static List *
outer_restrictions(Query *q, Index relid, Node *skip)
{
	RangeTblEntry *rte;
	List	   *result = NIL;
	bool		reads_relid = false;
	bool		direct = false;
	ListCell   *lc;

	if (relid < 1 || relid > list_length(q->rtable))
		return NIL;
	rte = rt_fetch(relid, q->rtable);
	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL ||
		rte->securityQuals != NIL ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return NIL;
	/* inh is set for every table named without ONLY: ask the catalog */
	if (rte->inh && has_subclass(rte->relid))
		return NIL;
	/* an item of q's FROM itself: inner-joined, under no outer join */
	foreach(lc, q->jointree->fromlist)
	{
		Node	   *item = (Node *) lfirst(lc);

		if (IsA(item, RangeTblRef) && ((RangeTblRef *) item)->rtindex == relid)
			direct = true;
	}
	if (!direct)
		return NIL;
	foreach(lc, make_ands_implicit((Expr *) q->jointree->quals))
	{
		Node	   *c = (Node *) lfirst(lc);
		RestrictionContext cxt;

		if (c == skip)
			continue;
		cxt.relid = relid;
		cxt.sublevels_up = 0;
		if (restriction_walker(c, &cxt) || contain_volatile_functions(c))
			continue;
		result = lappend(result, c);
		reads_relid = reads_relid || contain_vars_of_level(c, 0);
	}
	return reads_relid ? result : NIL;
}

/*
 * The key restriction of the file header for q's relation relid:
 *	 (i1, ..., im) IN (SELECT o1, ..., om FROM R WHERE restrictions)
 * over the correlation conjuncts corrs whose o is a column of relid, a
 * sublink for the derived table's WHERE (i of its level, the restrictions
 * q's, copied).
 */
static SubLink *
key_restriction(Query *q, Index relid, List *corrs, List *restrictions)
{
	Query	   *rq = makeNode(Query);
	RangeTblEntry *rte = copyObject(rt_fetch(relid, q->rtable));
	RangeTblRef *rtr = makeNode(RangeTblRef);
	SubLink    *sl = makeNode(SubLink);
	List	   *tests = NIL;
	List	   *quals;
	ListCell   *lc;
	int			k = 0;

	/* SELECT o1, ..., om FROM R WHERE restrictions, R its range table's 1 */
	rq->commandType = CMD_SELECT;
	rq->querySource = QSRC_ORIGINAL;
	rq->canSetTag = true;
	gdb_copy_rte_perminfo(rq, q, rte);
	rq->rtable = list_make1(rte);
	rtr->rtindex = 1;

	/*
	 * The restrictions read R at q's level alone, and their sublinks none of
	 * q: as conjuncts of rq (level 0 too) only their R is renumbered.
	 */
	quals = copyObject(restrictions);
	ChangeVarNodes((Node *) quals, relid, 1, 0);
	rq->jointree = makeFromExpr(list_make1(rtr),
								(Node *) make_ands_explicit(quals));
	rq->hasSubLinks = checkExprHasSubLink((Node *) quals);

	foreach(lc, corrs)
	{
		CorrelationEq *corr = (CorrelationEq *) lfirst(lc);
		Node	   *o = copyObject((Node *) list_nth(corr->op->args,
													 1 - corr->inner_arg));
		Node	   *i = copyObject((Node *) list_nth(corr->op->args,
													 corr->inner_arg));
		OpExpr	   *test = copyObject(corr->op);
		Param	   *param = makeNode(Param);

		k++;
		/* o, of the level above the subquery, is of rq's now */
		IncrementVarSublevelsUp(o, -1, 1);
		ChangeVarNodes(o, relid, 1, 0);
		rq->targetList = lappend(rq->targetList,
								 makeTargetEntry((Expr *) o, k,
												 psprintf("o%d", k), false));

		/*
		 * i = $k, the parser's shape of IN's test (the outer side left);
		 * op's two input types are one, so either order is the same
		 * operator
		 */
		param->paramkind = PARAM_SUBLINK;
		param->paramid = k;
		param->paramtype = exprType(o);
		param->paramtypmod = exprTypmod(o);
		param->paramcollid = exprCollation(o);
		param->location = -1;
		test->args = list_make2(i, param);
		test->location = -1;
		tests = lappend(tests, test);
	}

	sl->subLinkType = ANY_SUBLINK;
	sl->subLinkId = 0;
	sl->testexpr = list_length(tests) == 1 ? (Node *) linitial(tests) :
		(Node *) make_andclause(tests);
	sl->operName = list_make1(makeString("="));
	sl->subselect = (Node *) rq;
	sl->location = -1;
	return sl;
}

/*
 * Rewrite one conjunct of q (its sublink is argument sublink_arg) as the
 * file header says: the derived table joins q's FROM; returns the
 * conjuncts that replace it.
 */
static List *
decorrelate(Query *q, OpExpr *conjunct, int sublink_arg, SubLink *sl,
			List *corrs, List *others)
{
	Query	   *sub = copyObject(castNode(Query, sl->subselect));
	TargetEntry *value_te = linitial_node(TargetEntry, sub->targetList);
	List	   *tlist = NIL;
	List	   *group = NIL;
	List	   *result = NIL;
	List	   *quals;
	ListCell   *lc;
	ParseState *pstate;
	ParseNamespaceItem *nsitem;
	RangeTblRef *rtr;
	OpExpr	   *outer;
	Node	  **slot;
	int			rtindex;
	int			i = 0;

	/* the derived table: the keys, then the value, grouped by the keys */
	foreach(lc, corrs)
	{
		CorrelationEq *corr = (CorrelationEq *) lfirst(lc);
		Node	   *key = copyObject((Node *) list_nth(corr->op->args, corr->inner_arg));
		TargetEntry *te;
		SortGroupClause *sgc = makeNode(SortGroupClause);
		Oid			sortop;
		Oid			eqop;
		bool		hashable;

		i++;
		te = makeTargetEntry((Expr *) key, i, psprintf("k%d", i), false);
		te->ressortgroupref = i;
		tlist = lappend(tlist, te);
		get_sort_group_operators(exprType(key), false, true, false,
								 &sortop, &eqop, NULL, &hashable);
		sgc->tleSortGroupRef = i;
		sgc->eqop = eqop;
		sgc->sortop = sortop;
		sgc->nulls_first = false;
		sgc->hashable = hashable;
		group = lappend(group, sgc);
	}
	value_te->resno = i + 1;
	value_te->resname = pstrdup("v");
	value_te->ressortgroupref = 0;
	tlist = lappend(tlist, value_te);
	sub->targetList = tlist;
	sub->groupClause = group;
	quals = copyObject(others);

	/*
	 * The key restrictions: for each table R of q holding correlation
	 * columns o, in the order of the first, the keys restricted to the o's
	 * of R's rows that q's own restrictions of R keep.
	 */
	foreach(lc, corrs)
	{
		CorrelationEq *corr = (CorrelationEq *) lfirst(lc);
		Var		   *o = (Var *) fc_strip_relabel((Node *) list_nth(corr->op->args,
																	 1 - corr->inner_arg));
		List	   *same_rel = NIL;
		List	   *restrictions;
		ListCell   *lc2;
		bool		seen = false;

		foreach(lc2, corrs)
		{
			CorrelationEq *corr2 = (CorrelationEq *) lfirst(lc2);
			Var		   *o2 = (Var *) fc_strip_relabel((Node *) list_nth(corr2->op->args,
																		 1 - corr2->inner_arg));

			if (o2->varno != o->varno)
				continue;
			if (corr2 == corr)
				break;
			seen = true;		/* done with an earlier one of R */
			break;
		}
		if (seen)
			continue;
		for_each_cell(lc2, corrs, lc)
		{
			CorrelationEq *corr2 = (CorrelationEq *) lfirst(lc2);
			Var		   *o2 = (Var *) fc_strip_relabel((Node *) list_nth(corr2->op->args,
																		 1 - corr2->inner_arg));

			if (o2->varno == o->varno)
				same_rel = lappend(same_rel, corr2);
		}
		restrictions = outer_restrictions(q, o->varno, (Node *) conjunct);
		if (restrictions == NIL)
			continue;
		quals = lappend(quals, key_restriction(q, o->varno, same_rel,
											   restrictions));
		sub->hasSubLinks = true;
	}
	sub->jointree->quals = quals == NIL ? NULL :
		(Node *) make_ands_explicit(quals);

	/* as a FROM item of q, an inner join */
	pstate = make_parsestate(NULL);
	nsitem = addRangeTableEntryForSubquery(pstate, sub,
										   makeAlias("scalar_subquery", NIL),
										   false, true);
	q->rtable = lappend(q->rtable, nsitem->p_rte);
	rtindex = list_length(q->rtable);
	rtr = makeNode(RangeTblRef);
	rtr->rtindex = rtindex;
	q->jointree->fromlist = lappend(q->jointree->fromlist, rtr);
	free_parsestate(pstate);

	/*
	 * x op v, the sublink replaced by the value column, with the value's
	 * own typmod (-1 for an aggregate's numeric): a typmod it does not have
	 * would let PostgreSQL's simplifier drop a cast of v to numeric(p,s)
	 * as a no-op.  gpudb reads the scale its values are expected to have
	 * from the derived table itself (join_derived.c gdb_join_derived_typmods).
	 */
	outer = copyObject(conjunct);
	slot = sublink_slot((Node **) &lfirst(list_nth_cell(outer->args, sublink_arg)));
	*slot = (Node *) makeVar(rtindex, i + 1, exprType((Node *) value_te->expr),
							 exprTypmod((Node *) value_te->expr),
							 exprCollation((Node *) value_te->expr), 0);
	result = lappend(result, outer);

	/* o = k for each correlation conjunct, o now of q's level */
	i = 0;
	foreach(lc, corrs)
	{
		CorrelationEq *corr = (CorrelationEq *) lfirst(lc);
		OpExpr	   *eq = copyObject(corr->op);
		Node	   *key = (Node *) list_nth(eq->args, corr->inner_arg);

		i++;
		IncrementVarSublevelsUp((Node *) eq, -1, 1);
		lfirst(list_nth_cell(eq->args, corr->inner_arg)) =
			makeVar(rtindex, i, exprType(key), exprTypmod(key),
					exprCollation(key), 0);
		result = lappend(result, eq);
	}
	return result;
}

/*
 * Rewrite q's own top-level WHERE conjuncts (file header), in place, when
 * apply; else only tell whether one would be.
 */
static bool
rewrite_query(Query *q, bool apply)
{
	List	   *conjuncts;
	List	   *out = NIL;
	ListCell   *lc;
	bool		changed = false;

	if (q->commandType != CMD_SELECT || q->utilityStmt != NULL ||
		q->setOperations != NULL || q->jointree == NULL ||
		q->jointree->quals == NULL || !q->hasSubLinks || q->rowMarks != NIL)
		return false;
	conjuncts = make_ands_implicit((Expr *) q->jointree->quals);
	foreach(lc, conjuncts)
	{
		Node	   *c = (Node *) lfirst(lc);
		SubLink    *sl;
		int			arg;
		List	   *corrs;
		List	   *others;

		if (comparison_with_sublink(c, &arg, &sl) &&
			(corrs = decorrelatable_subquery(castNode(Query, sl->subselect),
											 &others)) != NIL)
		{
			if (!apply)
				return true;
			out = list_concat(out, decorrelate(q, (OpExpr *) c, arg, sl,
											   corrs, others));
			changed = true;
		}
		else
			out = lappend(out, c);
	}
	if (!changed)
		return false;
	q->jointree->quals = out == NIL ? NULL : (Node *) make_ands_explicit(out);
	return true;
}

/*
 * The planner_hook: the query as the file header rewrites it, planned by
 * the hooks below this one (not_in_rewrite.c's, then PostgreSQL's), or as
 * written where that plan is cheaper.
 */
static PlannedStmt *
gdb_scalar_planner(GDB_PLANNER_ARGS)
{
	return gdb_plan_cheaper_rewrite(rewrite_query, "correlated scalar subquery as a join",
									prev_planner_hook ? prev_planner_hook : standard_planner,
									GDB_PLANNER_PASS);
}

/* see custom_scan_path.h */
void
gdb_scalar_subquery_rewrite_init(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = gdb_scalar_planner;
}
