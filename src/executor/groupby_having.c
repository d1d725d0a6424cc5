/*-------------------------------------------------------------------------
 *
 * groupby_having.c
 *	  The group qualifier: the HAVING quals of a GpudbAgg or GpudbJoin that
 *	  the device evaluates over the groups it built, so that the groups
 *	  they drop never travel back (TPC-H Q11's sum(...) > (SELECT ...),
 *	  Q18's subquery's sum(l_quantity) > 300 over millions of groups).
 *
 * A HAVING qual runs on the device when it compares one aggregate of the
 * node with a constant, or with a parameter that is fixed for the query
 * and that the node may evaluate early (param_values.c; the planner puts
 * such parameters in custom_exprs), by a built-in btree comparison
 * operator (<, <=, =, <>, >=, >), and the aggregate's finished value is
 * exact on the device:
 *	 count(*), count(x)					against integers;
 *	 sum of smallint, integer (int8)	against integers (a sum outside int64
 *										wraps in PostgreSQL: such a group
 *										is left to the HAVING);
 *	 sum of bigint or numeric(p,s)		against numeric, over the 128-bit
 *										sum (a group that summed a NaN is
 *										left to the HAVING);
 *	 min, max of integers				against integers;
 *	 min, max of numeric(p,s)			against numeric (NaN is the largest
 *										word, as PostgreSQL orders it);
 *	 min, max of real, double			against real or double precision, in
 *										PostgreSQL's float order.
 * A numeric constant becomes the integer threshold of the aggregate's
 * fixed point: x > c is x > floor(c * 10^s), x >= c is x >= ceil(...), and
 * so on; x = c with more digits than the scale holds is false for every
 * group, x <> c true for every non-NULL one.  A float NaN constant is
 * compared in PostgreSQL's float order (NaN above every number).
 * Anything else (avg, a float sum, an OR, an expression over aggregates,
 * a NULL constant, a numeric NaN, a numeric threshold past 10^18) stays
 * with PostgreSQL only.
 *
 * The node keeps its HAVING as its qual: the device only drops groups the
 * HAVING would drop (GdbHavingTerm), so a qual the device cannot decide
 * exactly for some group keeps that group.  The terms are the last step
 * of the group-by with its order and cut (gdb_request_ordered): per-batch
 * and per-shard requests run without them, the final combine with them.
 * Not with the histogram aggregates (count(DISTINCT), percentiles, mode),
 * whose second pass pairs its groups with the first's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "expr_compile.h"
#include "groupby.h"
#include "pg_compat.h"

/* The comparison of a built-in btree operator, or -1. */
static int
comparison_op(Oid opno)
{
	char	   *name;
	int			op = -1;

	if (opno >= FirstNormalObjectId || gdb_op_btree_interpretation(opno) == NIL)
		return -1;
	name = get_opname(opno);
	if (name == NULL)
		return -1;
	if (strcmp(name, "<") == 0)
		op = GDB_HAVING_LT;
	else if (strcmp(name, "<=") == 0)
		op = GDB_HAVING_LE;
	else if (strcmp(name, "=") == 0)
		op = GDB_HAVING_EQ;
	else if (strcmp(name, "<>") == 0)
		op = GDB_HAVING_NE;
	else if (strcmp(name, ">=") == 0)
		op = GDB_HAVING_GE;
	else if (strcmp(name, ">") == 0)
		op = GDB_HAVING_GT;
	pfree(name);
	return op;
}

/* c op x as x op' c */
static int
commuted_op(int op)
{
	switch (op)
	{
		case GDB_HAVING_LT:
			return GDB_HAVING_GT;
		case GDB_HAVING_LE:
			return GDB_HAVING_GE;
		case GDB_HAVING_GE:
			return GDB_HAVING_LE;
		case GDB_HAVING_GT:
			return GDB_HAVING_LT;
		default:
			return op;
	}
}

/*
 * The aggregate (index into q->aggs) that operand e names: a Var of the
 * scan tuple (INDEX_VAR) whose scan tlist entry is an Aggref; -1 else.
 */
static int
operand_aggregate(const GdbQuery *q, Node *e, List *scan_tlist)
{
	Var		   *v = (Var *) fc_strip_relabel(e);
	int			j;

	if (v == NULL || !IsA(v, Var) || v->varno != INDEX_VAR ||
		v->varattno < 1 || v->varattno > list_length(scan_tlist) ||
		!IsA(list_nth_node(TargetEntry, scan_tlist, v->varattno - 1)->expr, Aggref))
		return -1;
	j = v->varattno - 1 - q->nkeys;
	return j >= 0 && j < q->naggs ? j : -1;
}

/*
 * The value operand e stands for: a Const, or a Param of params (its value
 * in values, when given); false for anything else.  *known is false for a
 * Param without a value yet.
 */
static bool
operand_value(Node *e, List *params, List *values, Const **value, bool *known)
{
	ListCell   *lp,
			   *lv;

	e = fc_strip_relabel(e);
	*value = NULL;
	*known = true;
	if (IsA(e, Const))
	{
		*value = (Const *) e;
		return true;
	}
	if (!IsA(e, Param))
		return false;
	foreach(lp, params)
	{
		Param	   *p = (Param *) lfirst(lp);

		if (p->paramkind != ((Param *) e)->paramkind || p->paramid != ((Param *) e)->paramid)
			continue;
		lv = values != NIL ? list_nth_cell(values, foreach_current_index(lp)) : NULL;
		*value = lv ? (Const *) lfirst(lv) : NULL;
		*known = lv != NULL;
		return true;
	}
	return false;
}

static bool
integer_type(Oid t)
{
	return t == INT2OID || t == INT4OID || t == INT8OID;
}

static bool
float_type(Oid t)
{
	return t == FLOAT4OID || t == FLOAT8OID;
}

/*
 * Does aggregate j of q compare exactly with a value of type ctype on the
 * device (the file header's table)?
 */
static bool
aggregate_comparable(const GdbQuery *q, int j, Oid ctype)
{
	const GdbAggregate *agg = &q->aggs[j];
	uint32		kind = q->req->aggs[j].kind;

	switch (kind)
	{
		case GDB_AGG_COUNT_STAR:
		case GDB_AGG_COUNT:
			return integer_type(ctype);
		case GDB_AGG_SUM_INT:
			if (agg->fn != GDB_FN_SUM)
				return false;
			return agg->result_type == INT8OID ? integer_type(ctype) :
				(agg->result_type == NUMERICOID && ctype == NUMERICOID);
		case GDB_AGG_MIN_INT:
		case GDB_AGG_MAX_INT:
			if (agg->fn != GDB_FN_MIN && agg->fn != GDB_FN_MAX)
				return false;
			if (integer_type(agg->argtype))
				return integer_type(ctype);
			return agg->argtype == NUMERICOID && ctype == NUMERICOID;
		case GDB_AGG_MIN_FLOAT:
		case GDB_AGG_MAX_FLOAT:
			return (agg->fn == GDB_FN_MIN || agg->fn == GDB_FN_MAX) &&
				float_type(agg->argtype) && float_type(ctype);
		default:
			return false;
	}
}

/*
 * The term for aggregate j op constant c (not NULL) into *t; false when
 * the device cannot decide it exactly (the qual stays PostgreSQL's alone).
 * Before gdb_query_prepare (prepared false) a numeric sum's NaN finder is
 * not known yet and is not asked for.
 */
static bool
make_term(const GdbQuery *q, int j, int op, const Const *c, bool prepared,
		  GdbHavingTerm *t)
{
	const GdbAggregate *agg = &q->aggs[j];
	uint32		kind = q->req->aggs[j].kind;

	memset(t, 0, sizeof(GdbHavingTerm));
	t->agg = (uint32) j;
	t->op = (uint8) op;
	if (kind == GDB_AGG_SUM_INT && agg->result_type == INT8OID)
		t->wraps = 1;
	if (kind == GDB_AGG_SUM_INT && agg->companion >= 0 &&
		q->req->aggs[agg->companion].kind == GDB_AGG_MAX_INT)
		t->nan_state = (uint16) (agg->companion + 1);
	if (prepared && kind == GDB_AGG_SUM_INT && agg->result_type == NUMERICOID &&
		agg->argtype == NUMERICOID && t->nan_state == 0)
		return false;			/* no NaN finder: cannot tell a NaN sum */

	switch (c->consttype)
	{
		case INT2OID:
			t->value = DatumGetInt16(c->constvalue);
			return true;
		case INT4OID:
			t->value = DatumGetInt32(c->constvalue);
			return true;
		case INT8OID:
			t->value = DatumGetInt64(c->constvalue);
			return true;
		case FLOAT4OID:
		case FLOAT8OID:
			{
				double		d = c->consttype == FLOAT4OID ?
					(double) DatumGetFloat4(c->constvalue) : DatumGetFloat8(c->constvalue);

				memcpy(&t->value, &d, sizeof(double));
				return true;
			}
		case NUMERICOID:
			{
				int			scale = agg->argtype == NUMERICOID ?
					gdb_column_numeric_scale(&q->cs, q->req->aggs[j].input_col) : 0;
				int64		f;
				GdbNumericFit fit = gdb_numeric_to_scaled(c->constvalue, scale, &f);
				bool		exact = fit == GDB_NUMFIT_EXACT;

				/* NaN, or beyond 10^18 at the scale: left to PostgreSQL */
				if (fit != GDB_NUMFIT_EXACT && fit != GDB_NUMFIT_INEXACT)
					return false;
				/* f = floor(c * 10^s); ceil is f + 1 when inexact */
				switch (op)
				{
					case GDB_HAVING_GE:
					case GDB_HAVING_LT:
						t->value = exact ? f : f + 1;
						break;
					case GDB_HAVING_EQ:
						t->value = f;
						if (!exact)
							t->op = GDB_HAVING_NEVER;
						break;
					case GDB_HAVING_NE:
						t->value = f;
						if (!exact)
							t->op = GDB_HAVING_NOT_NULL;
						break;
					default:	/* GT, LE */
						t->value = f;
						break;
				}
				return true;
			}
		default:
			return false;
	}
}

/* see groupby.h */
int
gdb_having_compile(GdbQuery *q, List *qual, List *scan_tlist, List *params,
				   List *values, bool fill)
{
	ListCell   *lc;
	int			nquals = 0;
	int			j;

	if (fill)
	{
		q->req->nhaving = 0;
		memset(q->req->having, 0, sizeof(q->req->having));
		gdb_query_prepare(q);
	}
	if (q->req->oper != GDB_OPER_GROUPBY || q->req->input_is_states ||
		list_length(scan_tlist) != q->nkeys + q->naggs)
		return 0;
	for (j = 0; j < q->naggs; j++)
		if (GDB_FN_IS_ORDERED_SET(q->aggs[j].fn))
			return 0;

	foreach(lc, qual)
	{
		OpExpr	   *op = (OpExpr *) lfirst(lc);
		Node	   *a,
				   *b;
		int			cmp,
					agg;
		Const	   *c;
		bool		known;
		GdbHavingTerm t;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2 ||
			(cmp = comparison_op(op->opno)) < 0)
			continue;
		a = (Node *) linitial(op->args);
		b = (Node *) lsecond(op->args);
		if ((agg = operand_aggregate(q, a, scan_tlist)) < 0)
		{
			Node	   *tmp = a;

			a = b;
			b = tmp;
			cmp = commuted_op(cmp);
			if ((agg = operand_aggregate(q, a, scan_tlist)) < 0)
				continue;
		}
		if (!operand_value(b, params, values, &c, &known) ||
			!aggregate_comparable(q, agg, exprType(fc_strip_relabel(b))) ||
			nquals >= GDB_MAX_HAVING)
			continue;
		/* a parameter not evaluated yet counts; a constant as it compiles */
		if (known && (c->constisnull || !make_term(q, agg, cmp, c, fill, &t)))
			continue;
		if (fill && !known)
			continue;
		if (fill)
			q->req->having[q->req->nhaving++] = t;
		nquals++;
	}
	return nquals;
}
