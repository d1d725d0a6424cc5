/*-------------------------------------------------------------------------
 *
 * qual_order.c
 *	  The order in which the compiler emits a WHERE's top-level conditions
 *	  (filter_compile.c): PostgreSQL's own order of evaluation, so that the
 *	  rows that raise an error are the same (gdb_quals_in_scan_order), then the
 *	  comparisons of a column with a constant moved ahead of conditions
 *	  that cannot raise, for the device's predicate prefix
 *	  (gdb_column_terms_first, filter_vm.cu).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

#include "gpudb.h"
#include "custom_scan_path.h"
#include "expr_compile.h"

/* Array size from which the planner hashes an IN list (clauses.c). */
#define GDB_HASHED_SAOP_MIN		9

/* A top-level condition and its planner cost, for gdb_quals_in_scan_order. */
typedef struct QualItem
{
	Node	   *qual;
	double		cost;
} QualItem;

/* procost * cpu_operator_cost of funcid, as add_function_cost adds it. */
static double
func_cost(Oid funcid)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	double		cost;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", funcid);
	cost = ((Form_pg_proc) GETSTRUCT(tup))->procost * cpu_operator_cost;
	ReleaseSysCache(tup);
	return cost;
}

/*
 * Per-row cost of an expression, summed in the order and with the
 * arithmetic of cost_qual_eval_walker (ties between conditions are broken
 * by rounding, so the sums must be bit-identical) for the node kinds a
 * filter can hold: a function or operator costs func_cost; x op ANY
 * (array) half the array length times the operator, or one hash and one
 * comparison where convert_saop_to_hashed_saop would hash the array.
 */
static bool
qual_cost_walker(Node *node, double *cost)
{
	if (node == NULL)
		return false;
	if (IsA(node, FuncExpr))
		*cost += func_cost(((FuncExpr *) node)->funcid);
	else if (IsA(node, OpExpr) || IsA(node, DistinctExpr) ||
			 IsA(node, NullIfExpr))
	{
		set_opfuncid((OpExpr *) node);
		*cost += func_cost(((OpExpr *) node)->opfuncid);
	}
	else if (IsA(node, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *saop = (ScalarArrayOpExpr *) node;
		Node	   *array = (Node *) lsecond(saop->args);
		int			nelems = gdb_estimate_array_length(array);
		Oid			hashop = saop->useOr ? saop->opno : get_negator(saop->opno);
		Oid			lhash,
					rhash;

		set_sa_opfuncid(saop);
		if (IsA(array, Const) && !((Const *) array)->constisnull &&
			nelems >= GDB_HASHED_SAOP_MIN && OidIsValid(hashop) &&
			get_op_hash_functions(hashop, &lhash, &rhash) && lhash == rhash)
			*cost += func_cost(lhash) + func_cost(saop->opfuncid);
		else
			*cost += func_cost(saop->opfuncid) * nelems * 0.5;
	}
	return expression_tree_walker(node, qual_cost_walker, (void *) cost);
}

/*
 * The cost of a top-level condition.  make_restrictinfo gives the arms of a
 * top-level OR (through nested ANDs and ORs) RestrictInfos of their own,
 * each costed from zero and then added up.
 */
static void
qual_cost(Node *qual, bool in_or, double *cost)
{
	if ((in_or && is_andclause(qual)) || is_orclause(qual))
	{
		ListCell   *lc;

		foreach(lc, ((BoolExpr *) qual)->args)
			qual_cost((Node *) lfirst(lc), true, cost);
	}
	else if (in_or)
	{
		double		arm = 0.0;

		(void) qual_cost_walker(qual, &arm);
		*cost += arm;
	}
	else
		(void) qual_cost_walker(qual, cost);
}

/*
 * gdb_quals_in_scan_order: the top-level conditions of the filter (the implicit-AND
 * list of make_ands_implicit) in the order in which PostgreSQL's executor
 * evaluates them for a sequential scan, so that the rows that raise an
 * error (division by zero, overflow) are the same: in
 * "c - 1 < 0 AND c > 0" the cheaper "c > 0" runs first and shields
 * "c - 1" from the minimum value.  Two planner steps decide the order:
 *
 *	- distribute_qual_to_rels hands each mergejoinable equality "a = b"
 *	  (no volatile function) to the equivalence-class machinery, which adds
 *	  it back after all other conditions ("a = a" instead becomes
 *	  "a IS NOT NULL" in place, if the operator is strict).  We move such
 *	  equalities to the end in their order; where several share a member,
 *	  PostgreSQL may instead derive other equalities from their class.
 *	- order_qual_clauses stable-sorts by per-row cost (qual_cost), cheapest
 *	  first.
 *
 * With an index scan, PostgreSQL tests the index conditions first instead.
 */
List *
gdb_quals_in_scan_order(List *quals)
{
	int			n = list_length(quals);
	QualItem   *items;
	List	   *eqs = NIL;
	List	   *result = NIL;
	ListCell   *lc;
	int			i = 0;

	if (n <= 1)
		return quals;
	foreach(lc, quals)
	{
		OpExpr	   *op = (OpExpr *) lfirst(lc);

		if (!IsA(op, OpExpr) || list_length(op->args) != 2 ||
			!op_mergejoinable(op->opno, exprType(linitial(op->args))) ||
			contain_volatile_functions((Node *) op))
			result = lappend(result, op);
		else if (!equal(linitial(op->args), lsecond(op->args)))
			eqs = lappend(eqs, op);
		else
		{
			NullTest   *nt = makeNode(NullTest);

			set_opfuncid(op);
			nt->arg = (Expr *) linitial(op->args);
			nt->nulltesttype = IS_NOT_NULL;
			nt->location = -1;
			result = lappend(result, func_strict(op->opfuncid) ? (Node *) nt :
							 (Node *) op);
		}
	}
	result = list_concat(result, eqs);

	/* insertion sort by cost, stable like order_qual_clauses' */
	items = (QualItem *) palloc(n * sizeof(QualItem));
	foreach(lc, result)
	{
		QualItem	item;
		int			j;

		item.qual = (Node *) lfirst(lc);
		item.cost = 0.0;
		qual_cost(item.qual, false, &item.cost);
		for (j = i++; j > 0 && item.cost < items[j - 1].cost; j--)
			items[j] = items[j - 1];
		items[j] = item;
	}
	result = NIL;
	for (i = 0; i < n; i++)
		result = lappend(result, items[i].qual);
	pfree(items);
	return result;
}

/*
 * Is qual a comparison of a column with a non-NULL constant that cannot
 * raise, of a type the device's predicate fast path tests (integers,
 * dates, timestamps, floats, booleans; text, varchar and char(n) by = and
 * <> only)?  (filter_vm.cu decides from the instructions what it runs so.)
 */
static bool
is_column_term(Node *qual)
{
	OpExpr	   *op = (OpExpr *) qual;
	Node	   *l,
			   *r;
	Var		   *v;
	TypeCacheEntry *tc;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2 || gdb_expr_may_raise(qual, NULL))
		return false;
	l = fc_strip_relabel((Node *) linitial(op->args));
	r = fc_strip_relabel((Node *) lsecond(op->args));
	if (IsA(l, Var) && IsA(r, Const))
		v = (Var *) l;
	else if (IsA(r, Var) && IsA(l, Const))
	{
		v = (Var *) r;
		r = l;
	}
	else
		return false;
	if (((Const *) r)->constisnull)
		return false;
	switch (v->vartype)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case FLOAT4OID:
		case FLOAT8OID:
		case BOOLOID:
			return true;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			tc = lookup_type_cache(v->vartype, TYPECACHE_EQ_OPR);
			return op->opno == tc->eq_opr || op->opno == get_negator(tc->eq_opr);
		default:
			return false;
	}
}

/*
 * The top-level conditions quals (in PostgreSQL's order of evaluation)
 * with the comparisons of a column with a constant (is_column_term) moved
 * ahead of the conditions before them, as long as those cannot raise
 * (gdb_expr_may_raise); the rest in their order.  The same rows pass and
 * the same first error is raised: a condition moved ahead raises nothing,
 * and a row it rejects raised nothing in the conditions it passed over.
 * The device then runs those comparisons first, by the predicate fast
 * path, and its interpreter over the rows they pass only (filter_vm.cu).
 */
List *
gdb_column_terms_first(List *quals)
{
	List	   *terms = NIL;
	List	   *others = NIL;
	bool		barrier = false;	/* a condition that may raise was passed */
	ListCell   *lc;

	foreach(lc, quals)
	{
		Node	   *q = (Node *) lfirst(lc);

		if (!barrier && is_column_term(q))
			terms = lappend(terms, q);
		else
		{
			others = lappend(others, q);
			if (gdb_expr_may_raise(q, NULL))
				barrier = true;
		}
	}
	return list_concat(terms, others);
}
