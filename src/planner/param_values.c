/*-------------------------------------------------------------------------
 *
 * param_values.c
 *	  Parameters in device quals: a prepared statement's $n (PARAM_EXTERN)
 *	  and the output of an InitPlan of the top query level (PARAM_EXEC, as
 *	  TPC-H Q22's c_acctbal > (SELECT avg(c_acctbal) ...)), compared with
 *	  a column by a btree comparison operator.  Both are fixed for one run
 *	  of the query.  The filter compiler only knows constants: while
 *	  planning, and when the node starts, each such parameter is replaced
 *	  by a placeholder constant of its type (so that the quals compile as
 *	  they will with any value); at the node's first run the executor
 *	  evaluates the parameters (custom_exprs: the InitPlan runs then) and
 *	  compiles the quals again with their values (gdb_compile_quals reads
 *	  them from GdbColumnSet.param_values).
 *
 * A parameter anywhere else (an argument of arithmetic, of a function,
 * of LIKE), of another type (text included: its comparisons depend on the
 * value's bytes in ways the compiler refuses for some values), or that
 * can change while the query runs (a correlated subquery's reference to
 * the outer row, an InitPlan below the top level) stays a Param, which
 * the compiler refuses ("a parameter"): the query keeps PostgreSQL's plan.
 * So does an InitPlan that could raise an error or change something
 * (initplan_safe): PostgreSQL runs an InitPlan only when a row reaches
 * its qual, the node at its first run whatever the rows.  The device's
 * HAVING (groupby_having.c) compares with the same parameters.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "gpudb.h"
#include "custom_scan_path.h"
#include "pg_compat.h"

static bool
any_param_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, RestrictInfo))
		return any_param_walker((Node *) ((RestrictInfo *) node)->clause, context);
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, any_param_walker, context);
}

/*
 * gdb_contains_param: does node (an expression tree, or a List of them or
 * of RestrictInfos) hold a Param?
 */
bool
gdb_contains_param(Node *node)
{
	return any_param_walker(node, NULL);
}

/* Is param's type one whose comparisons compile for every value? */
static bool
param_type_ok(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return true;
		default:
			return false;
	}
}

/*
 * The Param that is one operand of a btree comparison (below relabelling
 * of the Param), its other operand not a Param; NULL for anything else.
 */
static Param *
compared_param(Node *node, Node *other)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node == NULL || !IsA(node, Param) || IsA(other, Param))
		return NULL;
	if (((Param *) node)->paramkind != PARAM_EXTERN &&
		((Param *) node)->paramkind != PARAM_EXEC)
		return NULL;
	return param_type_ok(((Param *) node)->paramtype) ? (Param *) node : NULL;
}

/* Is expr a comparison of two operands by a btree operator? */
static bool
is_btree_comparison(Node *node)
{
	OpExpr	   *op;

	if (!IsA(node, OpExpr))
		return false;
	op = (OpExpr *) node;
	return list_length(op->args) == 2 && op->opresulttype == BOOLOID &&
		gdb_op_btree_interpretation(op->opno) != NIL;
}

/* A placeholder constant of param's type: a value every compiler takes. */
static Const *
placeholder(const Param *p)
{
	Datum		v;
	int16		typlen;
	bool		typbyval;

	switch (p->paramtype)
	{
		case INT2OID:
			v = Int16GetDatum(0);
			break;
		case INT4OID:
		case DATEOID:
			v = Int32GetDatum(0);
			break;
		case FLOAT4OID:
			v = Float4GetDatum(0.0f);
			break;
		case FLOAT8OID:
			v = Float8GetDatum(0.0);
			break;
		case NUMERICOID:
			v = NumericGetDatum(int64_to_numeric(0));
			break;
		default:				/* INT8, TIMESTAMP, TIMESTAMPTZ */
			v = Int64GetDatum(0);
			break;
	}
	get_typlenbyval(p->paramtype, &typlen, &typbyval);
	return makeConst(p->paramtype, p->paramtypmod, p->paramcollid, typlen, v,
					 false, typbyval);
}

typedef struct ParamMutator
{
	const GdbColumnSet *cs;
} ParamMutator;

/* The value of p in cs->param_values, or a placeholder. */
static Node *
param_value(const Param *p, const GdbColumnSet *cs)
{
	ListCell   *lk,
			   *lv;

	if (cs != NULL)
		forboth(lk, cs->params, lv, cs->param_values)
		{
			const Param *k = (const Param *) lfirst(lk);

			if (k->paramkind == p->paramkind && k->paramid == p->paramid)
				return (Node *) copyObject(lfirst(lv));
		}
	return (Node *) placeholder(p);
}

static Node *
param_mutator(Node *node, ParamMutator *m)
{
	if (node == NULL)
		return NULL;
	if (is_btree_comparison(node))
	{
		OpExpr	   *op = (OpExpr *) copyObject(node);
		Node	   *a = (Node *) linitial(op->args);
		Node	   *b = (Node *) lsecond(op->args);
		Param	   *pa = compared_param(a, b);
		Param	   *pb = compared_param(b, a);

		linitial(op->args) = pa ? param_value(pa, m->cs) : param_mutator(a, m);
		lsecond(op->args) = pb ? param_value(pb, m->cs) : param_mutator(b, m);
		return (Node *) op;
	}
	return expression_tree_mutator(node, param_mutator, (void *) m);
}

/*
 * gdb_quals_param_values: a copy of quals (a List of Expr, not of
 * RestrictInfo) in which every parameter that param_values.c takes (see
 * the file header) is its value in cs->param_values, or a placeholder
 * constant of its type where cs is NULL or holds none for it; the other
 * nodes as they are.  quals itself when it holds no Param.
 */
List *
gdb_quals_param_values(List *quals, const GdbColumnSet *cs)
{
	ParamMutator m;

	if (!gdb_contains_param((Node *) quals))
		return quals;			/* (most quals: no copy) */
	m.cs = cs;
	return (List *) param_mutator((Node *) quals, &m);
}

static bool
collect_walker(Node *node, List **params)
{
	if (node == NULL)
		return false;
	if (is_btree_comparison(node))
	{
		OpExpr	   *op = (OpExpr *) node;
		Node	   *a = (Node *) linitial(op->args);
		Node	   *b = (Node *) lsecond(op->args);
		Param	   *pa = compared_param(a, b);
		Param	   *pb = compared_param(b, a);
		ListCell   *lc;

		foreach(lc, list_make2(pa, pb))
		{
			Param	   *p = (Param *) lfirst(lc);
			ListCell   *lc2;
			bool		seen = false;

			if (p == NULL)
				continue;
			foreach(lc2, *params)
				if (((Param *) lfirst(lc2))->paramkind == p->paramkind &&
					((Param *) lfirst(lc2))->paramid == p->paramid)
					seen = true;
			if (!seen)
				*params = lappend(*params, copyObject(p));
		}
	}
	return expression_tree_walker(node, collect_walker, (void *) params);
}

/*
 * gdb_quals_params: the distinct parameters of quals (a List of Expr, not
 * of RestrictInfo)
 * that gdb_quals_param_values replaces, in order of appearance: a List of
 * Param, the CustomScan's custom_exprs (so that PostgreSQL's executor
 * knows the node depends on them, and the node evaluates them).
 */
List *
gdb_quals_params(List *quals)
{
	List	   *params = NIL;

	(void) collect_walker((Node *) quals, &params);
	return params;
}

/*
 * Is node a numeric whose magnitude is bounded far below numeric's range,
 * so that +, - and * over such values (and their sums over any number of
 * rows) cannot overflow: a numeric(p,s) column, an integer column or
 * constant cast to numeric, a numeric constant of at most 1,000 digits,
 * sum, avg, min or max of such a value or of an integer column (over at
 * most 2^63 rows), or +, - and * of two such?  (numeric's range is
 * 10^131072.)
 */
static bool
numeric_bounded(Node *node)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node == NULL || exprType(node) != NUMERICOID)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->vartypmod >= 0;
	if (IsA(node, Const))
	{
		Const	   *c = (Const *) node;

		return !c->constisnull &&
			strlen(DatumGetCString(DirectFunctionCall1(numeric_out, c->constvalue))) <= 1000;
	}
	if (IsA(node, FuncExpr))
	{
		FuncExpr   *f = (FuncExpr *) node;
		Node	   *arg = list_length(f->args) == 1 ? (Node *) linitial(f->args) : NULL;

		/* numeric(smallint), numeric(integer), numeric(bigint): exact */
		return (f->funcid == F_NUMERIC_INT2 || f->funcid == F_NUMERIC_INT4 ||
				f->funcid == F_NUMERIC_INT8) &&
			arg != NULL && (IsA(arg, Var) || IsA(arg, Const)) &&
			(exprType(arg) == INT2OID || exprType(arg) == INT4OID ||
			 exprType(arg) == INT8OID);
	}
	if (IsA(node, Aggref))
	{
		Aggref	   *ag = (Aggref *) node;
		char	   *name = get_func_name(ag->aggfnoid);
		Node	   *arg;

		if (ag->aggfilter != NULL || ag->aggorder != NIL || ag->aggdistinct != NIL ||
			list_length(ag->args) != 1 ||
			(strcmp(name, "sum") != 0 && strcmp(name, "avg") != 0 &&
			 strcmp(name, "min") != 0 && strcmp(name, "max") != 0))
			return false;
		arg = (Node *) linitial_node(TargetEntry, ag->args)->expr;
		return numeric_bounded(arg) ||
			(IsA(arg, Var) && (exprType(arg) == INT2OID || exprType(arg) == INT4OID ||
							   exprType(arg) == INT8OID));
	}
	if (IsA(node, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) node;

		return (op->opfuncid == F_NUMERIC_ADD || op->opfuncid == F_NUMERIC_SUB ||
				op->opfuncid == F_NUMERIC_MUL) &&
			list_length(op->args) == 2 &&
			numeric_bounded((Node *) linitial(op->args)) &&
			numeric_bounded((Node *) lsecond(op->args));
	}
	return false;
}

/* Can evaluating node, per row of the InitPlan's tables, raise? */
static bool
initplan_expr_may_raise(Node *node, void *context)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_RelabelType:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_List:
		case T_TargetEntry:
			break;
		case T_Aggref:
			{
				/*
				 * count, min, max; sum and avg of integers and numeric (and
				 * of bounded numeric arithmetic: the walk goes on into the
				 * argument); * of such a sum by a bounded numeric above
				 */
				Aggref	   *ag = (Aggref *) node;
				char	   *name = get_func_name(ag->aggfnoid);
				Oid			argtype = ag->aggargtypes != NIL ?
					linitial_oid(ag->aggargtypes) : InvalidOid;

				if (ag->aggfilter != NULL || ag->aggorder != NIL || ag->aggdistinct != NIL)
					return true;
				if (strcmp(name, "count") != 0 && strcmp(name, "min") != 0 &&
					strcmp(name, "max") != 0 &&
					!((strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0) &&
					  (argtype == INT2OID || argtype == INT4OID || argtype == INT8OID ||
					   argtype == NUMERICOID)))
					return true;
			}
			break;
		case T_OpExpr:
		case T_ScalarArrayOpExpr:
			{
				/*
				 * comparisons (a btree's, or text equality) raise nothing,
				 * nor do +, - and * of bounded numerics (TPC-H Q11's
				 * sum(ps_supplycost * ps_availqty) * 0.0001)
				 */
				Oid			opno = IsA(node, OpExpr) ? ((OpExpr *) node)->opno :
					((ScalarArrayOpExpr *) node)->opno;

				if (IsA(node, OpExpr) && numeric_bounded(node))
					return false;
				if (gdb_op_btree_interpretation(opno) == NIL)
					return true;
			}
			break;
		case T_FuncExpr:
			{
				/*
				 * substr/substring of a constant start and length >= 0, and
				 * char(n)'s cast to text
				 */
				FuncExpr   *f = (FuncExpr *) node;
				char	   *name = get_func_name(f->funcid);
				ListCell   *lc;

				if (strcmp(name, "text") == 0 && list_length(f->args) == 1 &&
					exprType((Node *) linitial(f->args)) == BPCHAROID)
					break;
				if (strcmp(name, "substr") != 0 && strcmp(name, "substring") != 0)
					return true;
				if (exprType((Node *) linitial(f->args)) != TEXTOID &&
					exprType((Node *) linitial(f->args)) != BPCHAROID)
					return true;
				for_each_from(lc, f->args, 1)
				{
					Const	   *c = (Const *) lfirst(lc);

					if (!IsA(c, Const) || c->consttype != INT4OID || c->constisnull ||
						DatumGetInt32(c->constvalue) < 0)
						return true;
				}
			}
			break;
		default:
			return true;
	}
	return expression_tree_walker(node, initplan_expr_may_raise, context);
}

/*
 * Is an InitPlan over query sure to return one row without raising an
 * error or changing anything?  The node evaluates it at its first run,
 * where PostgreSQL evaluates it only when a row reaches the qual: it must
 * not matter whether it runs.  Only a plain aggregate (no GROUP BY,
 * HAVING, LIMIT, set operation, window or set-returning function) over
 * tables listed in FROM (inner joins by their WHERE quals), with no
 * volatile function, whose quals and result expressions are comparisons,
 * boolean logic, char(n) cast to text, substr of constant bounds and +,
 * - and * of bounded numerics (numeric_bounded), and whose aggregates
 * cannot overflow (count, min, max; sum and avg of integers and numeric):
 * TPC-H Q22's avg(c_acctbal), Q11's sum(ps_supplycost * ps_availqty) *
 * 0.0001 over partsupp, supplier and nation.
 */
static bool
initplan_safe(Query *query)
{
	ListCell   *lc;

	if (query == NULL || query->commandType != CMD_SELECT || !query->hasAggs ||
		query->groupClause != NIL || query->groupingSets != NIL ||
		query->havingQual != NULL || query->limitCount != NULL ||
		query->limitOffset != NULL || query->setOperations != NULL ||
		query->hasWindowFuncs || query->hasTargetSRFs || query->hasSubLinks ||
		query->distinctClause != NIL || query->cteList != NIL ||
		query->jointree == NULL || query->rtable == NIL ||
		list_length(query->rtable) != list_length(query->jointree->fromlist))
		return false;
	foreach(lc, query->jointree->fromlist)
		if (!IsA(lfirst(lc), RangeTblRef))
			return false;
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL)
			return false;
	}
	if (contain_volatile_functions((Node *) query->targetList) ||
		contain_volatile_functions(query->jointree->quals))
		return false;
	return !initplan_expr_may_raise((Node *) query->targetList, NULL) &&
		!initplan_expr_may_raise(query->jointree->quals, NULL);
}

typedef struct FixedContext
{
	PlannerInfo *root;
	const char *why;
} FixedContext;

static bool
fixed_walker(Node *node, FixedContext *c)
{
	if (node == NULL)
		return false;
	if (IsA(node, RestrictInfo))
		return fixed_walker((Node *) ((RestrictInfo *) node)->clause, c);
	if (IsA(node, Param))
	{
		Param	   *p = (Param *) node;
		ListCell   *lc;

		if (p->paramkind == PARAM_EXTERN)
			return false;
		if (p->paramkind == PARAM_EXEC && c->root->query_level == 1)
			foreach(lc, c->root->init_plans)
			{
				SubPlan    *sp = (SubPlan *) lfirst(lc);
				PlannerInfo *sub;

				if (!list_member_int(sp->setParam, p->paramid))
					continue;
				sub = sp->plan_id >= 1 && sp->plan_id <= list_length(c->root->glob->subroots) ?
					(PlannerInfo *) list_nth(c->root->glob->subroots, sp->plan_id - 1) : NULL;
				if (sub != NULL && initplan_safe(sub->parse))
					return false;
				c->why = "a subquery whose evaluation could raise an error or change something: the node would evaluate it where PostgreSQL may not";
				return true;
			}
		c->why = "a parameter that can change while the query runs (a correlated subquery's reference to the outer query)";
		return true;
	}
	return expression_tree_walker(node, fixed_walker, (void *) c);
}

/*
 * gdb_params_fixed: false with *why when quals (a List of Expr) hold a
 * Param that can change while the query runs: anything but a PARAM_EXTERN
 * and a PARAM_EXEC that an InitPlan of the top query level sets, which
 * initplan_safe must accept.
 */
bool
gdb_params_fixed(PlannerInfo *root, List *quals, const char **why)
{
	FixedContext c;

	c.root = root;
	c.why = NULL;
	if (!fixed_walker((Node *) quals, &c))
		return true;
	*why = c.why;
	return false;
}
