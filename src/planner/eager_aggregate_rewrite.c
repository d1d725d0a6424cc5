/*-------------------------------------------------------------------------
 *
 * eager_aggregate_rewrite.c
 *	  A GROUP BY over A LEFT JOIN B, grouped by A's primary key, as A LEFT
 *	  JOIN a derived table that groups B on its join keys, where that is
 *	  the same query.  TPC-H Q13's
 *		SELECT c_custkey, count(o_orderkey)
 *		FROM customer LEFT JOIN orders ON c_custkey = o_custkey
 *			AND o_comment NOT LIKE '%special%requests%'
 *		GROUP BY c_custkey
 *	  joins 1.5M customers to 15M orders (at SF 10) and groups the joined
 *	  rows; written as
 *		SELECT c_custkey, coalesce(t.cnt, 0)
 *		FROM customer LEFT JOIN
 *			(SELECT o_custkey, count(o_orderkey) AS cnt FROM orders
 *			 WHERE o_comment NOT LIKE '%special%requests%'
 *			 GROUP BY o_custkey) t ON c_custkey = t.o_custkey
 *	  the derived table is one group-by over orders, which a GpudbAgg runs
 *	  on the device, and the rest a join of customer's rows.
 *
 * Before planning (planner_hook, above scalar_subquery_rewrite.c's), a
 * query planned, or any query inside it (a subquery in FROM, a view, a
 * CTE, a sublink's subquery: each judged at its own level), of the form
 *	 SELECT <tlist> FROM A LEFT JOIN B ON a1 = b1 AND ... AND an = bn
 *		 AND <r> WHERE <w> GROUP BY <g> [ORDER BY ...]
 * becomes
 *	 SELECT <tlist'> FROM A LEFT JOIN
 *		 (SELECT b1, ..., bn, agg1, ..., aggm FROM B WHERE <r>
 *		  GROUP BY b1, ..., bn) t ON a1 = t.b1 AND ... AND an = t.bn
 *		 WHERE <w> [ORDER BY ...]
 * with no GROUP BY, each aggregate of <tlist> replaced by its column of t
 * (count's by coalesce(t.aggN, 0)), when all of this holds, so that the
 * two answer alike:
 *	 - gpudb.enabled and gpudb.enable_gpujoin are on (with either off, the
 *	   plan is PostgreSQL's own, as the differential tests want);
 *	 - the query is a SELECT with aggregates and a GROUP BY (no grouping
 *	   sets, HAVING, DISTINCT, window function, set-returning function,
 *	   LIMIT or OFFSET, set operation, CTE, sublink, locking clause or
 *	   volatile function);
 *	 - its FROM is exactly that one join: A and B plain tables or
 *	   partitioned tables (no TABLESAMPLE, no security quals, not an
 *	   inheritance parent with children), the join without USING or alias;
 *	   <w> (if any) reads A only;
 *	 - the ON clause is a conjunction of at least one ai = bi, ai a column
 *	   of A, bi a column of B (below relabelling or COLLATE), of one type,
 *	   the operator that type's default equality (the one GROUP BY groups
 *	   by), with a deterministic collation where the type has one, and of
 *	   conjuncts <r> that read B only and cannot raise an error: columns,
 *	   constants, AND/OR/NOT, IS [NOT] NULL, IS [NOT] TRUE..., ARRAY[...]
 *	   of one dimension, operators (and x op ANY (array), as IN lists
 *	   are) whose function is leakproof, and built-in comparisons (< <= = <>
 *	   >= >, of one type) and LIKE/ILIKE and their negations of a column
 *	   and a constant (a text pattern without a backslash, the default
 *	   escape: no invalid escape error).  <r> moves to t's WHERE, evaluated
 *	   for every row of B where PostgreSQL evaluates it only for rows the
 *	   join's keys pair with some row of A: it could differ only by an
 *	   error;
 *	 - every GROUP BY item is a column of A, under its type's default
 *	   equality, and they include every column of A's primary key (not
 *	   deferrable; its index of the columns' default btree operator
 *	   families and deterministic collations): then each row of A is a
 *	   group of its own, the joined rows of a row of A being its group;
 *	 - <tlist> (and ORDER BY through it) reads only columns of A and
 *	   aggregates that are built in, at this level, without DISTINCT, ORDER
 *	   BY or FILTER, of one argument, a column of B (below relabelling):
 *	   count(b) (never count(*), which counts the NULL-extended row of an
 *	   unmatched row of A as one, nor count of a constant), min(b), max(b),
 *	   and sum(b) or avg(b) of an integer or numeric b (no overflow error
 *	   for a group of B no row of A joins, no float sum in another order).
 * Then, for a row of A, the B rows its group aggregates are the rows of B
 * passing <r> whose b's equal its a's (equality is transitive, a NULL
 * matching nothing): exactly the rows of t's group of those keys, and t
 * has at most one such group.  A row of A that meets no row of B forms a
 * group of its one NULL-extended row, over which count(b) is 0 and the
 * others NULL, which is what the left join gives it from t: NULL, made 0
 * for count by the coalesce (count's result type, bigint, kept).  The
 * rows are the groups, so the GROUP BY goes (with it PostgreSQL 18's
 * RTE_GROUP, its Vars expanded to the grouped columns).  Anything else is
 * left as PostgreSQL wrote it.
 *
 * Both queries are planned and the plan of lower total cost is kept
 * (gdb_eager_planner): the derived table groups all of B, where a few
 * rows of A over a huge B may run faster as written, through an index.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/transam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "access/genam.h"
#include "access/relation.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parse_oper.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "gpudb.h"
#include "custom_scan_path.h"
#include "expr_compile.h"
#include "pg_compat.h"

static planner_hook_type prev_planner_hook = NULL;

/* What judging a query found: the parts the rewrite needs. */
typedef struct EagerShape
{
	JoinExpr   *join;			/* A LEFT JOIN B */
	int			a;				/* A's range table index */
	int			b;				/* B's */
	int			group_rti;		/* 18's RTE_GROUP, or 0 */
	List	   *keys;			/* the ai = bi conjuncts (OpExpr) */
	List	   *b_sides;		/* for each, 0 or 1: which argument is bi */
	List	   *b_quals;		/* <r> */
} EagerShape;

/* Context of vars_of_walker: every level-0 Var must be of rel varno. */
typedef struct VarsOfContext
{
	int			varno;
} VarsOfContext;

/*
 * Does node hold anything but level-0 Vars of context->varno (with no
 * nulling relations) among plain expressions?  (Walker: true = no.)
 */
static bool
vars_of_walker(Node *node, void *context)
{
	VarsOfContext *cxt = (VarsOfContext *) context;

	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varlevelsup != 0 || v->varno != cxt->varno)
			return true;
#if PG_VERSION_NUM >= 160000
		if (!bms_is_empty(v->varnullingrels))
			return true;
#endif
		return false;
	}
	if (IsA(node, Aggref) || IsA(node, GroupingFunc) ||
		IsA(node, WindowFunc) || IsA(node, SubLink) ||
		IsA(node, PlaceHolderVar) || IsA(node, Query))
		return true;
	return expression_tree_walker(node, vars_of_walker, context);
}

/* Does node read level-0 Vars of varno only (see vars_of_walker)? */
static bool
reads_only(Node *node, int varno)
{
	VarsOfContext cxt;

	cxt.varno = varno;
	return !vars_of_walker(node, &cxt);
}

/* Is collid no collation or a deterministic one? */
static bool
deterministic_or_none(Oid collid)
{
	return !OidIsValid(collid) || get_collation_isdeterministic(collid);
}

/* Is node (below relabelling) a Const? */
static bool
is_const(Node *node)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node != NULL && IsA(node, Const);
}

/* Is node (below relabelling and COLLATE) a Var? */
static bool
is_var(Node *node)
{
	node = fc_strip_relabel(node);
	return node != NULL && IsA(node, Var);
}

/*
 * Is op a built-in LIKE, ILIKE or their negation of a column and a
 * non-NULL text constant pattern without a backslash (no escape, so no
 * "invalid escape" error whatever the value), under a deterministic
 * collation?
 */
static bool
safe_like(OpExpr *op)
{
	char	   *name;
	bool		like;
	Const	   *pat;
	char	   *s;

	if (list_length(op->args) != 2)
		return false;
	name = get_opname(op->opno);
	like = name != NULL && (strcmp(name, "~~") == 0 || strcmp(name, "!~~") == 0 ||
							strcmp(name, "~~*") == 0 || strcmp(name, "!~~*") == 0);
	if (!like || !is_var((Node *) linitial(op->args)) ||
		!IsA(lsecond(op->args), Const) ||
		!deterministic_or_none(op->inputcollid))
		return false;
	pat = (Const *) lsecond(op->args);
	if (pat->constisnull || pat->consttype != TEXTOID)
		return false;
	s = TextDatumGetCString(pat->constvalue);
	return strchr(s, '\\') == NULL;
}

/*
 * Is op a built-in comparison (< <= = <> >= >) of a column and a
 * constant of its type (not across types, where a conversion could
 * overflow)?
 */
static bool
safe_comparison(OpExpr *op)
{
	char	   *name;
	Node	   *l;
	Node	   *r;
	Oid			ltype;
	Oid			rtype;

	if (list_length(op->args) != 2)
		return false;
	op_input_types(op->opno, &ltype, &rtype);
	if (ltype != rtype || !OidIsValid(ltype))
		return false;
	name = get_opname(op->opno);
	if (name == NULL || !(strcmp(name, "<") == 0 || strcmp(name, "<=") == 0 ||
						  strcmp(name, "=") == 0 || strcmp(name, "<>") == 0 ||
						  strcmp(name, ">=") == 0 || strcmp(name, ">") == 0))
		return false;
	l = (Node *) linitial(op->args);
	r = (Node *) lsecond(op->args);
	return (is_var(l) && is_const(r)) || (is_const(l) && is_var(r));
}

/*
 * Can node (a conjunct <r> of the file header) raise an error?  (Walker:
 * true = it may.)
 */
static bool
may_raise_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) || IsA(node, Const))
		return false;
	if (IsA(node, List) || IsA(node, RelabelType) || IsA(node, CollateExpr) ||
		IsA(node, BoolExpr) || IsA(node, NullTest) || IsA(node, BooleanTest) ||
		(IsA(node, ArrayExpr) && !((ArrayExpr *) node)->multidims))
		return expression_tree_walker(node, may_raise_walker, context);
	if (IsA(node, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) node;

		set_opfuncid(op);
		if (op->opretset)
			return true;
		if (get_func_leakproof(op->opfuncid))
			return expression_tree_walker(node, may_raise_walker, context);
		if (op->opno < FirstNormalObjectId &&
			(safe_like(op) || safe_comparison(op)))
			return false;
		return true;
	}
	if (IsA(node, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) node;

		set_sa_opfuncid(sa);
		if (get_func_leakproof(sa->opfuncid))
			return expression_tree_walker(node, may_raise_walker, context);
		return true;
	}
	return true;
}

/*
 * Is conjunct (of the ON clause) ai = bi of the file header?  Then *b_side
 * is the argument (0 or 1) that is bi.
 */
static bool
join_key_eq(Node *conjunct, int a, int b, int *b_side)
{
	OpExpr	   *op;
	Var		   *vars[2];
	Oid			type;
	Oid			ltype,
				rtype;
	TypeCacheEntry *tc;
	int			i;

	if (!IsA(conjunct, OpExpr))
		return false;
	op = (OpExpr *) conjunct;
	if (list_length(op->args) != 2 || op->opretset)
		return false;
	for (i = 0; i < 2; i++)
	{
		Node	   *v = fc_strip_relabel((Node *) list_nth(op->args, i));

		if (!IsA(v, Var) || ((Var *) v)->varattno <= 0 ||
			!reads_only(v, ((Var *) v)->varno))
			return false;
		vars[i] = (Var *) v;
	}
	if (vars[0]->varno == a && vars[1]->varno == b)
		*b_side = 1;
	else if (vars[0]->varno == b && vars[1]->varno == a)
		*b_side = 0;
	else
		return false;
	type = exprType((Node *) linitial(op->args));
	op_input_types(op->opno, &ltype, &rtype);
	if (exprType((Node *) lsecond(op->args)) != type || ltype != type ||
		rtype != type)
		return false;
	tc = lookup_type_cache(type, TYPECACHE_EQ_OPR);
	if (!OidIsValid(tc->eq_opr) || tc->eq_opr != op->opno)
		return false;
	return deterministic_or_none(op->inputcollid) &&
		deterministic_or_none(exprCollation((Node *) list_nth(op->args, *b_side)));
}

/*
 * Is range table entry rti of q a plain or partitioned table as the file
 * header wants?
 */
static bool
plain_table(Query *q, int rti)
{
	RangeTblEntry *rte = rt_fetch(rti, q->rtable);

	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL ||
		rte->securityQuals != NIL ||
		(rte->relkind != RELKIND_RELATION &&
		 rte->relkind != RELKIND_PARTITIONED_TABLE))
		return false;
	if (rte->inh && rte->relkind == RELKIND_RELATION && has_subclass(rte->relid))
		return false;
	return true;
}

/*
 * Does q's GROUP BY consist of columns of A under their default equality,
 * covering A's primary key as the file header wants?
 */
static bool
groups_by_primary_key(Query *q, EagerShape *s)
{
	RangeTblEntry *arte = rt_fetch(s->a, q->rtable);
	Bitmapset  *grouped = NULL;
	Bitmapset  *pk;
	Oid			conoid;
	Oid			indexoid;
	Relation	index;
	ListCell   *lc;
	bool		ok = true;
	int			i;

	foreach(lc, q->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Node	   *e = get_sortgroupclause_expr(sgc, q->targetList);
		Var		   *v;
		TypeCacheEntry *tc;

#if PG_VERSION_NUM >= 180000
		if (IsA(e, Var) && s->group_rti != 0 &&
			((Var *) e)->varno == s->group_rti && ((Var *) e)->varlevelsup == 0)
		{
			RangeTblEntry *grte = rt_fetch(s->group_rti, q->rtable);

			e = (Node *) list_nth(grte->groupexprs, ((Var *) e)->varattno - 1);
		}
#endif
		if (!IsA(e, Var) || !reads_only(e, s->a) || ((Var *) e)->varattno <= 0)
			return false;
		v = (Var *) e;
		tc = lookup_type_cache(v->vartype, TYPECACHE_EQ_OPR);
		if (!OidIsValid(tc->eq_opr) || sgc->eqop != tc->eq_opr ||
			!deterministic_or_none(v->varcollid))
			return false;
		grouped = bms_add_member(grouped,
								 v->varattno - FirstLowInvalidHeapAttributeNumber);
	}
	pk = get_primary_key_attnos(arte->relid, false, &conoid);
	if (pk == NULL || !bms_is_subset(pk, grouped))
		return false;

	/* the key's index: default btree families, deterministic collations */
	indexoid = get_constraint_index(conoid);
	if (!OidIsValid(indexoid))
		return false;
	index = index_open(indexoid, AccessShareLock);
	for (i = 0; i < index->rd_index->indnkeyatts; i++)
	{
		Oid			opclass = GetDefaultOpClass(index->rd_opcintype[i], BTREE_AM_OID);

		if (index->rd_rel->relam != BTREE_AM_OID || !OidIsValid(opclass) ||
			get_opclass_family(opclass) != index->rd_opfamily[i] ||
			!deterministic_or_none(index->rd_indcollation[i]))
			ok = false;
	}
	index_close(index, AccessShareLock);
	return ok;
}

/*
 * Is a an aggregate the file header allows (over a column of B, varno b)?
 */
static bool
eager_aggregate_ok(Aggref *a, int b)
{
	TargetEntry *arg;
	Node	   *v;
	char	   *name;
	Oid			argtype;
	bool		ok;

	if (a->aggfnoid >= FirstNormalObjectId || a->agglevelsup != 0 ||
		a->aggkind != AGGKIND_NORMAL || a->aggfilter != NULL ||
		a->aggdistinct != NIL || a->aggorder != NIL || a->aggstar ||
		a->aggvariadic || list_length(a->args) != 1 ||
		list_length(a->aggargtypes) != 1)
		return false;
	arg = linitial_node(TargetEntry, a->args);
	v = (Node *) arg->expr;
	while (IsA(v, RelabelType))
		v = (Node *) ((RelabelType *) v)->arg;
	if (!IsA(v, Var) || ((Var *) v)->varno != b ||
		((Var *) v)->varlevelsup != 0 || ((Var *) v)->varattno <= 0)
		return false;
	name = get_func_name(a->aggfnoid);
	if (name == NULL)
		return false;
	argtype = linitial_oid(a->aggargtypes);
	if (strcmp(name, "count") == 0)
		ok = a->aggtype == INT8OID;
	else if (strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0)
		ok = argtype == INT2OID || argtype == INT4OID || argtype == INT8OID ||
			argtype == NUMERICOID;
	else
		ok = strcmp(name, "min") == 0 || strcmp(name, "max") == 0;
	pfree(name);
	return ok;
}

/*
 * Does node (of the target list) hold anything but columns of A and
 * aggregates the file header allows?  (Walker: true = it does.)
 */
static bool
tlist_bad_walker(Node *node, void *context)
{
	EagerShape *s = (EagerShape *) context;

	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varlevelsup != 0)
			return true;
		if (v->varno == s->group_rti && s->group_rti != 0)
			return false;		/* a grouped column: of A (checked) */
		return !reads_only(node, s->a);
	}
	if (IsA(node, Aggref))
		return !eager_aggregate_ok((Aggref *) node, s->b);
	if (IsA(node, GroupingFunc) || IsA(node, WindowFunc) ||
		IsA(node, SubLink) || IsA(node, PlaceHolderVar) || IsA(node, Query))
		return true;
	return expression_tree_walker(node, tlist_bad_walker, context);
}

/*
 * Is q a query the file header rewrites?  Then *s describes it.
 */
static bool
eager_query(Query *q, EagerShape *s)
{
	JoinExpr   *j;
	RangeTblEntry *jrte;
	ListCell   *lc;

	memset(s, 0, sizeof(EagerShape));
	if (q->commandType != CMD_SELECT || q->utilityStmt != NULL ||
		q->setOperations != NULL || !q->hasAggs || q->groupClause == NIL ||
		q->groupingSets != NIL || q->havingQual != NULL ||
		q->distinctClause != NIL || q->hasWindowFuncs || q->hasTargetSRFs ||
		q->limitCount != NULL || q->limitOffset != NULL ||
		q->cteList != NIL || q->hasSubLinks || q->hasModifyingCTE ||
		q->hasRecursive || q->rowMarks != NIL || q->jointree == NULL ||
		list_length(q->jointree->fromlist) != 1 ||
		!IsA(linitial(q->jointree->fromlist), JoinExpr))
		return false;
	j = (JoinExpr *) linitial(q->jointree->fromlist);
	if (j->jointype != JOIN_LEFT || j->isNatural || j->usingClause != NIL ||
		j->alias != NULL || j->join_using_alias != NULL || j->quals == NULL ||
		j->rtindex <= 0 || !IsA(j->larg, RangeTblRef) ||
		!IsA(j->rarg, RangeTblRef))
		return false;
	jrte = rt_fetch(j->rtindex, q->rtable);
	if (jrte->rtekind != RTE_JOIN || jrte->joinmergedcols != 0)
		return false;
	s->join = j;
	s->a = ((RangeTblRef *) j->larg)->rtindex;
	s->b = ((RangeTblRef *) j->rarg)->rtindex;
	if (!plain_table(q, s->a) || !plain_table(q, s->b))
		return false;
#if PG_VERSION_NUM >= 180000
	if (q->hasGroupRTE)
	{
		int			rti = 0;

		foreach(lc, q->rtable)
		{
			rti++;
			if (lfirst_node(RangeTblEntry, lc)->rtekind == RTE_GROUP)
				s->group_rti = rti;
		}
		if (s->group_rti == 0)
			return false;
	}
#endif
	if (q->jointree->quals != NULL && !reads_only(q->jointree->quals, s->a))
		return false;
	if (contain_volatile_functions((Node *) q))
		return false;

	/* the ON clause: keys and error-free conjuncts over B */
	foreach(lc, make_ands_implicit((Expr *) j->quals))
	{
		Node	   *c = (Node *) lfirst(lc);
		int			b_side;

		if (join_key_eq(c, s->a, s->b, &b_side))
		{
			s->keys = lappend(s->keys, c);
			s->b_sides = lappend_int(s->b_sides, b_side);
		}
		else if (reads_only(c, s->b) && !may_raise_walker(c, NULL))
			s->b_quals = lappend(s->b_quals, c);
		else
			return false;
	}
	if (s->keys == NIL)
		return false;

	if (tlist_bad_walker((Node *) q->targetList, s))
		return false;
	return groups_by_primary_key(q, s);
}

/*
 * Mutator: B's Vars (varno *context) as Vars of the derived table's one
 * table (range table index 1), not nulled there.
 */
static Node *
to_derived_mutator(Node *node, void *context)
{
	int			b = *(int *) context;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		((Var *) node)->varno == b)
	{
		Var		   *v = (Var *) copyObject(node);

		v->varno = 1;
		v->varnosyn = 1;
#if PG_VERSION_NUM >= 160000
		v->varnullingrels = NULL;
#endif
		return (Node *) v;
	}
	return expression_tree_mutator(node, to_derived_mutator, context);
}

/* Context of tlist_mutator. */
typedef struct TlistContext
{
	EagerShape *s;
	Query	   *q;
	List	   *aggs;			/* the aggregates, t's columns nkeys+1... */
	int			nkeys;
} TlistContext;

/*
 * Mutator of the target list: each aggregate as its column of t (count's
 * coalesced with 0); on 18, each Var of the RTE_GROUP as its grouped
 * column.
 */
static Node *
tlist_mutator(Node *node, void *context)
{
	TlistContext *cxt = (TlistContext *) context;

	if (node == NULL)
		return NULL;
#if PG_VERSION_NUM >= 180000
	if (IsA(node, Var) && cxt->s->group_rti != 0 &&
		((Var *) node)->varno == cxt->s->group_rti &&
		((Var *) node)->varlevelsup == 0)
	{
		RangeTblEntry *grte = rt_fetch(cxt->s->group_rti, cxt->q->rtable);

		return copyObject(list_nth(grte->groupexprs,
								   ((Var *) node)->varattno - 1));
	}
#endif
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;
		int			pos = 0;
		ListCell   *lc;
		Var		   *v;
		char	   *name;
		bool		is_count;

		foreach(lc, cxt->aggs)
		{
			pos++;
			if (equal(lfirst(lc), a))
				break;
		}
		if (lc == NULL)
		{
			cxt->aggs = lappend(cxt->aggs, a);
			pos = list_length(cxt->aggs);
		}
		v = makeVar(cxt->s->b, cxt->nkeys + pos, exprType(node),
					exprTypmod(node), exprCollation(node), 0);
#if PG_VERSION_NUM >= 160000
		v->varnullingrels = bms_make_singleton(cxt->s->join->rtindex);
#endif
		name = get_func_name(a->aggfnoid);
		is_count = name != NULL && strcmp(name, "count") == 0;
		if (is_count)
		{
			CoalesceExpr *ce = makeNode(CoalesceExpr);

			ce->coalescetype = INT8OID;
			ce->coalescecollid = InvalidOid;
			ce->args = list_make2(v, makeConst(INT8OID, -1, InvalidOid,
											   sizeof(int64),
											   Int64GetDatum(0), false,
											   FLOAT8PASSBYVAL));
			ce->location = -1;
			return (Node *) ce;
		}
		return (Node *) v;
	}
	return expression_tree_mutator(node, tlist_mutator, context);
}

/*
 * Rewrite q, described by s, in place as the file header says.
 */
static void
eager_rewrite(Query *q, EagerShape *s)
{
	Query	   *sub = makeNode(Query);
	RangeTblEntry *brte = copyObject(rt_fetch(s->b, q->rtable));
	RangeTblEntry *jrte = rt_fetch(s->join->rtindex, q->rtable);
	RangeTblRef *rtr = makeNode(RangeTblRef);
	TlistContext cxt;
	List	   *tlist = NIL;
	List	   *group = NIL;
	List	   *on = NIL;
	List	   *aliasvars;
	List	   *colnames;
	List	   *rightcols = NIL;
	ListCell   *lc;
	ListCell   *lc2;
	ParseState *pstate;
	ParseNamespaceItem *nsitem;
	int			nleft = list_length(jrte->joinleftcols);
	int			i = 0;

	/* the outer target list first: it finds the aggregates */
	cxt.s = s;
	cxt.q = q;
	cxt.aggs = NIL;
	cxt.nkeys = list_length(s->keys);
	q->targetList = (List *) tlist_mutator((Node *) q->targetList, &cxt);

	/* t: the keys, grouped, then the aggregates */
	forboth(lc, s->keys, lc2, s->b_sides)
	{
		OpExpr	   *eq = (OpExpr *) copyObject(lfirst(lc));
		int			side = lfirst_int(lc2);
		Node	   *key = (Node *) list_nth(eq->args, side);
		TargetEntry *te;
		SortGroupClause *sgc = makeNode(SortGroupClause);
		Oid			sortop;
		Oid			eqop;
		bool		hashable;
		Var		   *tv;

		i++;
		te = makeTargetEntry((Expr *) to_derived_mutator(copyObject(key), &s->b),
							 i, psprintf("k%d", i), false);
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

		/* ai = t.ki in the ON clause (the join's own side: not nulled) */
		tv = makeVar(s->b, i, exprType(key), exprTypmod(key),
					 exprCollation(key), 0);
		lfirst(list_nth_cell(eq->args, side)) = tv;
		on = lappend(on, eq);
	}
	foreach(lc, cxt.aggs)
	{
		i++;
		tlist = lappend(tlist,
						makeTargetEntry((Expr *) to_derived_mutator(copyObject(lfirst(lc)),
																	&s->b),
										i, psprintf("agg%d", i - cxt.nkeys),
										false));
	}

#if PG_VERSION_NUM >= 160000
	/* B's permissions, checked in t now */
	if (brte->perminfoindex > 0)
	{
		sub->rteperminfos =
			list_make1(copyObject(list_nth(q->rteperminfos,
										   brte->perminfoindex - 1)));
		brte->perminfoindex = 1;
	}
#endif
	sub->commandType = CMD_SELECT;
	sub->querySource = QSRC_ORIGINAL;
	sub->canSetTag = true;
	sub->rtable = list_make1(brte);
	rtr->rtindex = 1;
	sub->jointree = makeFromExpr(list_make1(rtr),
								 s->b_quals == NIL ? NULL :
								 to_derived_mutator((Node *) make_ands_explicit(copyObject(s->b_quals)),
													&s->b));
	sub->targetList = tlist;
	sub->groupClause = group;
	sub->hasAggs = true;

	/* t in B's place in the range table */
	pstate = make_parsestate(NULL);
	nsitem = addRangeTableEntryForSubquery(pstate, sub,
										   makeAlias("eager_aggregate", NIL),
										   false, true);
	lfirst(list_nth_cell(q->rtable, s->b - 1)) = nsitem->p_rte;
	free_parsestate(pstate);
	s->join->quals = (Node *) make_ands_explicit(on);

	/* the join's columns: A's, then t's */
	aliasvars = list_copy_head(jrte->joinaliasvars, nleft);
	colnames = list_copy_head(jrte->eref->colnames, nleft);
	i = 0;
	foreach(lc, tlist)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		Var		   *v;

		i++;
		v = makeVar(s->b, i, exprType((Node *) te->expr),
					exprTypmod((Node *) te->expr),
					exprCollation((Node *) te->expr), 0);
#if PG_VERSION_NUM >= 160000
		v->varnullingrels = bms_make_singleton(s->join->rtindex);
#endif
		aliasvars = lappend(aliasvars, v);
		colnames = lappend(colnames, makeString(pstrdup(te->resname)));
		rightcols = lappend_int(rightcols, i);
	}
	jrte->joinaliasvars = aliasvars;
	jrte->joinrightcols = rightcols;
	jrte->eref->colnames = colnames;

	/* the rows are the groups */
	q->groupClause = NIL;
	q->groupDistinct = false;
	q->hasAggs = false;
#if PG_VERSION_NUM >= 180000
	if (s->group_rti != 0)
	{
		RangeTblEntry *grte = rt_fetch(s->group_rti, q->rtable);

		/* as subselect.c's simplify_EXISTS_query drops it */
		grte->rtekind = RTE_RESULT;
		grte->groupexprs = NIL;
		q->hasGroupRTE = false;
	}
#endif
}

/*
 * Rewrite q (file header), in place, when apply; else only tell whether
 * it would be.
 */
static bool
rewrite_query(Query *q, bool apply)
{
	EagerShape	s;

	if (!eager_query(q, &s))
		return false;
	if (apply)
		eager_rewrite(q, &s);
	return true;
}

/*
 * The planner_hook: the query as the file header rewrites it, planned by
 * the hooks below this one (scalar_subquery_rewrite.c's, ..., then
 * PostgreSQL's), or as written where that plan is cheaper.
 */
static PlannedStmt *
gdb_eager_planner(GDB_PLANNER_ARGS)
{
	return gdb_plan_cheaper_rewrite(rewrite_query, "eager aggregation below a left join",
									prev_planner_hook ? prev_planner_hook : standard_planner,
									GDB_PLANNER_PASS);
}

/* see custom_scan_path.h */
void
gdb_eager_aggregate_rewrite_init(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = gdb_eager_planner;
}
