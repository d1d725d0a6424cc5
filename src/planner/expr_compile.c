/*-------------------------------------------------------------------------
 *
 * expr_compile.c
 *	  The value expressions of the opcode program: numeric fixed point
 *	  (+, -, *, casts, round/trunc/floor/ceil, typmod coercion), date and
 *	  timestamp arithmetic (cross-type comparisons, +/- interval
 *	  constants, date differences, date_trunc, extract and date_part),
 *	  abs, float rounding and casts, and the conditional expressions CASE,
 *	  COALESCE, NULLIF, GREATEST and LEAST.  Called by the filter compiler
 *	  (filter_compile.c) for the nodes and functions it does not compile
 *	  itself, so filters, computed columns, group keys and aggregate
 *	  arguments share one compiler.
 *
 * Numeric: every value of a numeric expression gpudb computes has one
 * display scale, known from the plan (gdb_numeric_scale): a numeric(p,s)
 * column's s, a constant's own, the larger of a sum's, the sum of a
 * product's (numeric_add and numeric_mul give exactly these), 0 for an
 * integer cast to numeric.  The value is carried as the int64 v * 10^s
 * (numeric_fixed.c) and PostgreSQL's text of the result is the same
 * digits at the same scale.  Where the scale differs per row (division,
 * CASE arms of different scales) the expression keeps PostgreSQL's plan.
 *
 * Conditionals are compiled so that a skipped part of the program has
 * stack effect 0 (the device's tile interpreter walks programs linearly):
 *	 CASE WHEN c1 THEN v1 WHEN c2 THEN v2 ELSE d END
 *	   c1 JUMP_IF_NOT_TRUE L1  v1 REPLACE  JUMP END
 *	L1: c2 REPLACE JUMP_IF_NOT_TRUE L2  v2 REPLACE  JUMP END
 *	L2: d REPLACE
 *	END:
 *	 COALESCE(a, b, c)
 *	   a JUMP_IF_NOT_NULL END  b REPLACE JUMP_IF_NOT_NULL END  c REPLACE
 *	END:
 * so arms and arguments that PostgreSQL does not evaluate raise nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "expr_compile.h"
#include "gpudb_semantics.h"

/* Digits after the point of a numeric constant's text (its dscale). */
static int
const_dscale(Datum value)
{
	char	   *t = DatumGetCString(DirectFunctionCall1(numeric_out, value));
	char	   *dot = strchr(t, '.');

	if (strcmp(t, "NaN") == 0)
		return 0;
	if (strchr(t, 'e') || strchr(t, 'E') || strstr(t, "Infinity"))
		return -1;
	return dot ? (int) strlen(dot + 1) : 0;
}

/* The common scale of a list of numeric expressions, or -1. */
static int
common_scale(List *args)
{
	ListCell   *lc;
	int			s = GDB_SCALE_ANY;

	foreach(lc, args)
	{
		int			t = gdb_numeric_scale((Node *) lfirst(lc));

		if (t == -1)
			return -1;
		if (t == GDB_SCALE_ANY)
			continue;
		if (s != GDB_SCALE_ANY && s != t)
			return -1;
		s = t;
	}
	return s;
}

/* The int4 value of a constant argument, or false. */
static bool
const_int4(Node *n, int32 *v)
{
	n = fc_strip_relabel(n);
	if (!IsA(n, Const) || ((Const *) n)->constisnull ||
		((Const *) n)->consttype != INT4OID)
		return false;
	*v = DatumGetInt32(((Const *) n)->constvalue);
	return true;
}

/*
 * The function and arguments of an operator or function call node (an
 * operator's function looked up where the planner has not set it); leaves
 * *funcid and *args alone for any other node.  args may be NULL.
 */
static void
call_parts(Node *node, Oid *funcid, List **args)
{
	if (IsA(node, OpExpr))
	{
		*funcid = ((OpExpr *) node)->opfuncid;
		if (!OidIsValid(*funcid))
			*funcid = get_opcode(((OpExpr *) node)->opno);
		if (args)
			*args = ((OpExpr *) node)->args;
	}
	else if (IsA(node, FuncExpr))
	{
		*funcid = ((FuncExpr *) node)->funcid;
		if (args)
			*args = ((FuncExpr *) node)->args;
	}
}

/* Decimal digits of |v| (0 for 0). */
static int
int64_digits(int64 v)
{
	uint64		u = v < 0 ? -(uint64) v : (uint64) v;
	int			d = 0;

	while (u > 0)
	{
		u /= 10;
		d++;
	}
	return d;
}

/* digits of node's value at scale s (gdb_numeric_digits rescaled) */
static int
digits_at(Node *node, int s)
{
	int			t = gdb_numeric_scale(node);
	int			d = gdb_numeric_digits(node);

	if (t == GDB_SCALE_ANY)
		return 0;
	if (t < 0 || d >= GDB_DIGITS_UNKNOWN)
		return GDB_DIGITS_UNKNOWN;
	return d + Max(s - t, 0);
}

/* see expr_compile.h */
int
gdb_numeric_digits(Node *node)
{
	int			s = gdb_numeric_scale(node);
	int			d = 0;
	int32		k;
	List	   *args = NIL;
	Oid			funcid = InvalidOid;
	ListCell   *lc;

	node = fc_strip_relabel(node);
	if (s == -1)
		return GDB_DIGITS_UNKNOWN;
	if (s == GDB_SCALE_ANY)
		return 0;
	switch (nodeTag(node))
	{
		case T_Var:
			{
				int32		tm = ((Var *) node)->vartypmod - VARHDRSZ;

				return (tm >> 16) & 0xFFFF;
			}
		case T_Const:
			{
				int64		v;

				if (gdb_numeric_to_scaled(((Const *) node)->constvalue, s, &v) != GDB_NUMFIT_EXACT)
					return GDB_DIGITS_UNKNOWN;
				return int64_digits(v);
			}
		case T_OpExpr:
		case T_FuncExpr:
			call_parts(node, &funcid, &args);
			break;
		case T_CaseExpr:
			{
				CaseExpr   *ce = (CaseExpr *) node;

				d = digits_at((Node *) ce->defresult, s);
				foreach(lc, ce->args)
					d = Max(d, digits_at((Node *) lfirst_node(CaseWhen, lc)->result, s));
				return d;
			}
		case T_CoalesceExpr:
			args = ((CoalesceExpr *) node)->args;
			pg_fallthrough;
		case T_MinMaxExpr:
			if (args == NIL)
				args = ((MinMaxExpr *) node)->args;
			foreach(lc, args)
				d = Max(d, digits_at((Node *) lfirst(lc), s));
			return d;
		case T_NullIfExpr:
			return digits_at((Node *) linitial(((NullIfExpr *) node)->args), s);
		default:
			return GDB_DIGITS_UNKNOWN;
	}
	switch (funcid)
	{
		case F_NUMERIC_ADD:
		case F_NUMERIC_SUB:
			return Max(digits_at(linitial(args), s), digits_at(lsecond(args), s)) + 1;
		case F_NUMERIC_MUL:
			return digits_at(linitial(args), gdb_numeric_scale(linitial(args))) +
				digits_at(lsecond(args), gdb_numeric_scale(lsecond(args)));
		case F_NUMERIC_UMINUS:
		case F_NUMERIC_UPLUS:
		case F_NUMERIC_ABS:
		case F_ABS_NUMERIC:
			return gdb_numeric_digits(linitial(args));
		case F_NUMERIC_INT2:
			return 5;
		case F_NUMERIC_INT4:
			return 10;
		case F_NUMERIC_NUMERIC_INT4:
			/* rescaled first, then checked against the typmod */
			d = digits_at(linitial(args), s);
			if (d > GDB_NUMERIC_MAX_PRECISION || !const_int4(lsecond(args), &k))
				return d;
			return Min(d, ((k - VARHDRSZ) >> 16) & 0xFFFF);
		case F_ROUND_NUMERIC:
		case F_TRUNC_NUMERIC:
		case F_CEIL_NUMERIC:
		case F_CEILING_NUMERIC:
		case F_FLOOR_NUMERIC:
		case F_ROUND_NUMERIC_INT4:
		case F_TRUNC_NUMERIC_INT4:
			{
				int			t = gdb_numeric_scale(linitial(args));

				/* the integer digits, one more for a carry, then s */
				d = gdb_numeric_digits(linitial(args));
				return d >= GDB_DIGITS_UNKNOWN ? d : Max(d - t, 0) + 1 + s;
			}
		case F_EXTRACT_TEXT_DATE:
		case F_EXTRACT_TEXT_TIMESTAMP:
		case F_EXTRACT_TEXT_TIMESTAMPTZ:
			{
				Node	   *f = fc_strip_relabel((Node *) linitial(args));

				/*
				 * the year of an infinite date or timestamp is +-Infinity,
				 * which the fixed point cannot carry (GDB_ERR_FIXED_POINT):
				 * unbounded, so that the node carries PostgreSQL's plan
				 */
				if (IsA(f, Const) && !((Const *) f)->constisnull &&
					(pg_strcasecmp(TextDatumGetCString(((Const *) f)->constvalue), "year") == 0 ||
					 pg_strcasecmp(TextDatumGetCString(((Const *) f)->constvalue), "years") == 0))
					return GDB_DIGITS_UNKNOWN;
			}
			/* an epoch in microseconds can pass 10^18; other fields are small */
			return s > 0 ? GDB_DIGITS_UNKNOWN : 10;
		default:
			return GDB_DIGITS_UNKNOWN;
	}
}

/* One arm of gdb_numeric_case_rescaled's display-scale CASE. */
static Node *
dscale_arm(Node *arm, int s)
{
	Node	   *a = fc_strip_relabel(arm);
	NullTest   *nt;
	CaseExpr   *ce;
	CaseWhen   *w;

	if (s == GDB_SCALE_ANY)
		return (Node *) makeNullConst(INT4OID, -1, InvalidOid);
	if (IsA(a, Const))
		return (Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
								  Int32GetDatum(s), false, true);
	/* CASE WHEN arm IS NOT NULL THEN s END */
	nt = makeNode(NullTest);
	nt->arg = (Expr *) copyObject(arm);
	nt->nulltesttype = IS_NOT_NULL;
	nt->argisrow = false;
	nt->location = -1;
	w = makeNode(CaseWhen);
	w->expr = (Expr *) nt;
	w->result = (Expr *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
								   Int32GetDatum(s), false, true);
	w->location = -1;
	ce = makeNode(CaseExpr);
	ce->casetype = INT4OID;
	ce->casecollid = InvalidOid;
	ce->args = list_make1(w);
	ce->defresult = (Expr *) makeNullConst(INT4OID, -1, InvalidOid);
	ce->location = -1;
	return (Node *) ce;
}

/* see expr_compile.h */
Node *
gdb_numeric_case_rescaled(Node *expr, Node **dscale)
{
	Node	   *e = fc_strip_relabel(expr);
	CaseExpr   *ce;
	CaseExpr   *out;
	CaseExpr   *ds;
	List	   *arms = NIL;
	List	   *scales = NIL;
	ListCell   *lc;
	int			max = -1;

	if (exprType(e) != NUMERICOID || !IsA(e, CaseExpr) || gdb_numeric_scale(e) != -1)
		return NULL;
	ce = (CaseExpr *) e;
	foreach(lc, ce->args)
		arms = lappend(arms, lfirst_node(CaseWhen, lc)->result);
	arms = lappend(arms, ce->defresult);
	foreach(lc, arms)
	{
		int			s = lfirst(lc) ? gdb_numeric_scale((Node *) lfirst(lc)) : GDB_SCALE_ANY;

		if (s == -1)
			return NULL;
		max = Max(max, s);
		scales = lappend_int(scales, s);
	}
	if (max < 0 || max > 18)
		return NULL;

	/* the value at scale max, and each row's own display scale */
	out = copyObject(ce);
	ds = copyObject(ce);
	ds->casetype = INT4OID;
	ds->casecollid = InvalidOid;
	for (int i = 0; i <= list_length(ce->args); i++)
	{
		Node	   *arm = (Node *) list_nth(arms, i);
		int			s = list_nth_int(scales, i);
		Node	   *val = arm;
		Node	   *d = dscale_arm(arm, s);

		if (s != GDB_SCALE_ANY && s < max)
			val = (Node *) makeFuncExpr(F_ROUND_NUMERIC_INT4, NUMERICOID,
										list_make2(copyObject(arm),
												   makeConst(INT4OID, -1, InvalidOid,
															 sizeof(int32), Int32GetDatum(max),
															 false, true)),
										InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
		if (i < list_length(ce->args))
		{
			list_nth_node(CaseWhen, out->args, i)->result = (Expr *) val;
			list_nth_node(CaseWhen, ds->args, i)->result = (Expr *) d;
		}
		else
		{
			out->defresult = (Expr *) val;
			ds->defresult = (Expr *) d;
		}
	}
	if (gdb_numeric_scale((Node *) out) != max)
		return NULL;
	*dscale = (Node *) ds;
	return (Node *) out;
}

/* see expr_compile.h */
List *
gdb_sum_arg_exprs(Node *arg, bool is_numeric_sum)
{
	Node	   *dscale = NULL;
	Node	   *rescaled = is_numeric_sum ? gdb_numeric_case_rescaled(arg, &dscale) : NULL;

	return rescaled ? list_make2(rescaled, dscale) : list_make1(arg);
}

/* The typmod of numeric(18, scale), or -1 where scale is not 0..18. */
static int32
fixed_point_typmod(int scale)
{
	if (scale < 0 || scale > GDB_NUMERIC_MAX_PRECISION)
		return -1;
	return (int32) ((GDB_NUMERIC_MAX_PRECISION << 16) | scale) + VARHDRSZ;
}

/*
 * expression_tree_mutator callback of gdb_numeric_result_typmod: each
 * numeric sum, min, max or avg of pg_catalog as a Var whose typmod carries
 * the display scale its values have (numeric.c): a sum's, min's or max's
 * is its argument's; an average is sum / count by numeric_div, whose
 * select_div_scale gives max(16 - 4 * qweight, the sum's scale) digits
 * after the point, qweight the quotient's estimated base-10000 weight: 16
 * for the usual average (sum and count of one base-10000 weight, the sum's
 * leading digit the larger), 12 from about 10^4 up, 20 where the sum's
 * leading digit is not above the count's (an average of 1).  The expected
 * 16 (or the argument's scale, if more); the executor checks every value
 * and a mismatch answers with PostgreSQL's plan.  Any other aggregate is a
 * Var of unknown scale.
 */
static Node *
aggref_as_scaled_var(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
	{
		Aggref	   *ag = (Aggref *) node;
		int			s = -1;

		if (ag->aggtype == NUMERICOID && ag->aggkind == AGGKIND_NORMAL &&
			!ag->aggstar && list_length(ag->args) == 1 &&
			get_func_namespace(ag->aggfnoid) == PG_CATALOG_NAMESPACE)
		{
			char	   *name = get_func_name(ag->aggfnoid);
			Node	   *arg = (Node *) linitial_node(TargetEntry, ag->args)->expr;
			Oid			argtype = exprType(arg);
			int			a = argtype == NUMERICOID ? gdb_numeric_scale(arg) :
				(argtype == INT2OID || argtype == INT4OID || argtype == INT8OID) ? 0 : -1;

			if (a >= 0 && (strcmp(name, "sum") == 0 || strcmp(name, "min") == 0 ||
						   strcmp(name, "max") == 0))
				s = a;
			else if (a >= 0 && strcmp(name, "avg") == 0)
				s = Max(a, 16);
		}
		return (Node *) makeVar(1, 1, NUMERICOID, fixed_point_typmod(s), InvalidOid, 0);
	}
	return expression_tree_mutator(node, aggref_as_scaled_var, context);
}

/* see expr_compile.h */
int32
gdb_numeric_result_typmod(Node *expr)
{
	if (exprType(expr) != NUMERICOID || exprTypmod(expr) >= 0)
		return exprTypmod(expr);
	return fixed_point_typmod(gdb_numeric_scale(aggref_as_scaled_var(expr, NULL)));
}

/* see expr_compile.h */
int
gdb_numeric_scale(Node *node)
{
	int			s,
				t;
	int32		k;
	List	   *args = NIL;
	Oid			funcid = InvalidOid;

	node = fc_strip_relabel(node);
	if (exprType(node) != NUMERICOID)
		return -1;
	switch (nodeTag(node))
	{
		case T_Var:
			return gdb_numeric_typmod_scale(((Var *) node)->vartypmod, &s) ? s : -1;
		case T_Const:
			{
				Const	   *c = (Const *) node;
				int64		v;

				if (c->constisnull)
					return GDB_SCALE_ANY;
				s = const_dscale(c->constvalue);
				if (s < 0 || s > 18 ||
					gdb_numeric_to_scaled(c->constvalue, s, &v) == GDB_NUMFIT_ABOVE ||
					gdb_numeric_to_scaled(c->constvalue, s, &v) == GDB_NUMFIT_BELOW)
					return -1;
				return s;
			}
		case T_OpExpr:
		case T_FuncExpr:
			call_parts(node, &funcid, &args);
			break;
		case T_CaseExpr:
			{
				CaseExpr   *ce = (CaseExpr *) node;
				ListCell   *lc;
				List	   *vals = list_make1(ce->defresult);

				foreach(lc, ce->args)
					vals = lappend(vals, lfirst_node(CaseWhen, lc)->result);
				return common_scale(vals);
			}
		case T_CoalesceExpr:
			return common_scale(((CoalesceExpr *) node)->args);
		case T_MinMaxExpr:
			return common_scale(((MinMaxExpr *) node)->args);
		case T_NullIfExpr:
			return gdb_numeric_scale((Node *) linitial(((NullIfExpr *) node)->args));
		default:
			return -1;
	}
	switch (funcid)
	{
		case F_NUMERIC_ADD:
		case F_NUMERIC_SUB:
			s = gdb_numeric_scale(linitial(args));
			t = gdb_numeric_scale(lsecond(args));
			if (s == -1 || t == -1)
				return -1;
			return Max(Max(s, t), 0);
		case F_NUMERIC_MUL:
			s = gdb_numeric_scale(linitial(args));
			t = gdb_numeric_scale(lsecond(args));
			if (s == -1 || t == -1)
				return -1;
			s = Max(s, 0) + Max(t, 0);
			return s <= 18 ? s : -1;
		case F_NUMERIC_UMINUS:
		case F_NUMERIC_UPLUS:
		case F_NUMERIC_ABS:
		case F_ABS_NUMERIC:
			return gdb_numeric_scale(linitial(args));
		case F_NUMERIC_INT2:
		case F_NUMERIC_INT4:
			return 0;			/* (bigint may pass the 18-digit fixed point) */
		case F_NUMERIC_NUMERIC_INT4:
			if (gdb_numeric_scale(linitial(args)) == -1 ||
				!const_int4(lsecond(args), &k) ||
				!gdb_numeric_typmod_scale(k, &s))
				return -1;
			return s;
		case F_ROUND_NUMERIC:
		case F_TRUNC_NUMERIC:
		case F_CEIL_NUMERIC:
		case F_CEILING_NUMERIC:
		case F_FLOOR_NUMERIC:
			return gdb_numeric_scale(linitial(args)) == -1 ? -1 : 0;
		case F_ROUND_NUMERIC_INT4:
		case F_TRUNC_NUMERIC_INT4:
			if (gdb_numeric_scale(linitial(args)) == -1 ||
				!const_int4(lsecond(args), &k) || k < -18 || k > 18)
				return -1;
			return Max(k, 0);
		case F_EXTRACT_TEXT_DATE:
		case F_EXTRACT_TEXT_TIMESTAMP:
		case F_EXTRACT_TEXT_TIMESTAMPTZ:
			{
				Node	   *f = fc_strip_relabel(linitial(args));

				if (!IsA(f, Const) || ((Const *) f)->constisnull)
					return -1;
				/* the epoch of a timestamp has microseconds */
				if ((funcid == F_EXTRACT_TEXT_TIMESTAMP || funcid == F_EXTRACT_TEXT_TIMESTAMPTZ) &&
					pg_strcasecmp(TextDatumGetCString(((Const *) f)->constvalue), "epoch") == 0)
					return 6;
				return 0;
			}
		default:
			return -1;
	}
}

/*
 * fold_constant_rescale: when the one instruction emitted since start is
 * the PUSH_INT of a constant, apply NUM_RESCALE (width, by 10^digits) to
 * its value now, as every row would at run time (gdb_vm_step_value: NaN
 * stays NaN, width 1 saturates), and return true; no instruction is
 * emitted, so the comparison that follows reads column against constant
 * (the device's predicate fast path, filter_vm.cu, takes that form).
 * False, with nothing changed, for anything else, and when a raising
 * rescale (width 0) would raise: the row that evaluates it raises then.
 */
static bool
fold_constant_rescale(FilterCompiler *fc, int start, int width, int digits)
{
	GdbInstr   *push;
	GdbInstr	op;
	GdbValue	x;

	if (fc->ninstr != start + 1 ||
		start >= (fc->maxinstr > 0 ? fc->maxinstr : GDB_MAX_INSTR))
		return false;
	push = &fc->code[start];
	if (push->op != GDB_OP_PUSH_INT)
		return false;
	memset(&op, 0, sizeof(op));
	op.op = GDB_OP_NUM_RESCALE;
	op.width = (uint16) width;
	op.ival = digits;
	x.isnull = 0;
	x.v.i = push->ival;
	if (gdb_vm_step_value(GDB_OP_NUM_RESCALE, &op, &x, &x) != GDB_OK)
		return false;
	push->ival = x.v.i;
	return true;
}

/*
 * The least date value x (an int64 holding a date: -infinity, a valid date
 * from julian day 0 on, or +infinity) whose DATE_TO_TS value in a
 * comparison (width 0: a date past timestamp's range just below infinity)
 * is at least t; INT32_MAX + 1 when none is.  DATE_TO_TS is monotone over
 * those values, so a binary search over the valid dates finds it.
 */
static int64
date_least_at_or_above(int64 t)
{
	int64		lo = GDB_DATE_MIN;
	int64		hi = (int64) PG_INT32_MAX + 1;
	GdbInstr	op;

	/* -infinity, then the valid dates (julian day 0 on) and +infinity */
	if (t <= GDB_TS_NOBEGIN)
		return PG_INT32_MIN;
	memset(&op, 0, sizeof(op));
	op.op = GDB_OP_DATE_TO_TS;
	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;
		GdbValue	x;

		x.isnull = 0;
		x.v.i = mid;
		(void) gdb_vm_step_value(GDB_OP_DATE_TO_TS, &op, &x, &x);
		if (x.v.i >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * compile_date_vs_timestamp_const: date_expr REL ts_expr, with REL (2 LT,
 * 3 LE, 4 GT, 5 GE) and ts_expr a non-NULL timestamp constant t, compiled
 * as date_expr against a date bound: f(x) < t is x < least(t), f(x) <= t
 * is x < least(t + 1), and their negations, f being the comparison's
 * DATE_TO_TS (monotone).  The same rows compare TRUE as through
 * DATE_TO_TS (NULL stays NULL), and a column against a constant is the
 * form the device's predicate fast path takes (TPC-H Q1's l_shipdate <=
 * date '1998-12-01' - interval '90' day).  False, with nothing emitted,
 * when ts_expr is not such a constant.
 */
static bool
compile_date_vs_timestamp_const(FilterCompiler *fc, Node *date_expr,
								Node *ts_expr, int rel)
{
	Node	   *n = fc_strip_relabel(ts_expr);
	Const	   *c;
	int64		t;
	int64		bound;

	if (!IsA(n, Const))
		return false;
	c = (Const *) n;
	if (c->constisnull || getBaseType(c->consttype) != TIMESTAMPOID)
		return false;
	t = DatumGetInt64(c->constvalue);
	if (rel == 2 || rel == 5)
		bound = date_least_at_or_above(t);
	else
		bound = t == PG_INT64_MAX ? (int64) PG_INT32_MAX + 1 :
			date_least_at_or_above(t + 1);
	fc_compile_node(fc, date_expr);
	fc_emit(fc, GDB_OP_PUSH_INT, 8, 0, bound, 0.0);
	fc_emit(fc, (rel == 2 || rel == 3) ? GDB_OP_INT_LT : GDB_OP_INT_GE, 0, 0, 0, 0.0);
	return true;
}

/* see expr_compile.h */
void
fc_compile_numeric_at(FilterCompiler *fc, Node *node, int scale)
{
	int			s = gdb_numeric_scale(node);
	int			start = fc->ninstr;

	if (s == -1)
		fc_unsupported(fc, "this numeric expression",
					   "numeric is computed as fixed point: numeric(p,s) columns (p <= 18), constants, +, -, *, casts from integers and to numeric(p,s), round, trunc, floor, ceil and abs; each value must have the same scale (no division).",
					   exprLocation(node));
	fc_compile_node(fc, node);
	if (s != GDB_SCALE_ANY && scale > s)
	{
		if (scale - s > 18)
			fc_unsupported(fc, "a numeric scale above 18", NULL, exprLocation(node));
		if (!fold_constant_rescale(fc, start, 0, scale - s))
			fc_emit(fc, GDB_OP_NUM_RESCALE, 0, 0, scale - s, 0.0);
	}
}

/* see expr_compile.h */
void
fc_compile_numeric_compared_at(FilterCompiler *fc, Node *node, int scale)
{
	int			s = gdb_numeric_scale(node);
	int			start;

	if (s == -1 || s == GDB_SCALE_ANY || scale <= s)
	{
		fc_compile_numeric_at(fc, node, scale);
		return;
	}
	if (scale - s > 18)
		fc_unsupported(fc, "a numeric scale above 18", NULL, exprLocation(node));
	start = fc->ninstr;
	fc_compile_node(fc, node);
	/* the operand's own value fits; only its rescale saturates */
	if (!fold_constant_rescale(fc, start, 1, scale - s))
		fc_emit(fc, GDB_OP_NUM_RESCALE, 1, 0, scale - s, 0.0);
}

/* The integer width (2, 4, 8) of an integer type, else 0. */
static int
int_width(Oid type)
{
	return type == INT2OID ? 2 : type == INT4OID ? 4 : type == INT8OID ? 8 : 0;
}

/*
 * The session time zone's offset from UTC in microseconds (east
 * positive), for timestamp with time zone: only a zone without
 * daylight-saving or other rule changes (UTC, a fixed offset) has one
 * offset for every timestamp; any other keeps PostgreSQL's plan.
 */
static int64
session_offset_usecs(FilterCompiler *fc, int location)
{
	long		gmtoff;

	if (session_timezone == NULL || !pg_get_timezone_offset(session_timezone, &gmtoff))
		fc_unsupported(fc, "timestamp with time zone in a time zone with daylight-saving rules",
					   "gpudb computes timestamptz in a fixed-offset time zone, such as UTC.",
					   location);
	return (int64) gmtoff * USECS_PER_SEC;
}

/*
 * Shift the timestamp on top by usecs (UTC to the session's local time
 * and back), infinities kept (TS_ADD_INTERVAL of no months).
 */
static void
tz_shift(FilterCompiler *fc, int64 usecs)
{
	if (usecs != 0)
		fc_emit(fc, GDB_OP_TS_ADD_INTERVAL, 0, 0, usecs, 0.0);
}

static bool tz_walker(Node *node, void *context);

/* see expr_compile.h */
bool
gdb_uses_session_timezone(Node *node)
{
	return tz_walker(node, NULL);
}

/* Walker for gdb_uses_session_timezone. */
static bool
tz_walker(Node *node, void *context)
{
	Oid			funcid = InvalidOid;

	if (node == NULL)
		return false;
	call_parts(node, &funcid, NULL);
	switch (funcid)
	{
		case F_TIMESTAMPTZ_DATE:
		case F_DATE_TIMESTAMPTZ:
		case F_TIMESTAMPTZ_TIMESTAMP:
		case F_TIMESTAMP_TIMESTAMPTZ:
		case F_DATE_TRUNC_TEXT_TIMESTAMPTZ:
		case F_DATE_PART_TEXT_TIMESTAMPTZ:
		case F_EXTRACT_TEXT_TIMESTAMPTZ:
		case F_TIMESTAMPTZ_PL_INTERVAL:
		case F_TIMESTAMPTZ_MI_INTERVAL:
			return true;
		default:
			break;
	}
	return expression_tree_walker(node, tz_walker, context);
}

/* A date field name, as date_trunc/extract spell it; -1 if not handled. */
static int
date_field(FilterCompiler *fc, Node *arg, bool trunc, bool from_date)
{
	static const struct
	{
		const char *name;
		int			field;
	}			names[] = {
		{"year", GDB_FIELD_YEAR}, {"years", GDB_FIELD_YEAR},
		{"quarter", GDB_FIELD_QUARTER}, {"month", GDB_FIELD_MONTH},
		{"months", GDB_FIELD_MONTH}, {"week", GDB_FIELD_WEEK},
		{"weeks", GDB_FIELD_WEEK}, {"day", GDB_FIELD_DAY},
		{"days", GDB_FIELD_DAY}, {"hour", GDB_FIELD_HOUR},
		{"hours", GDB_FIELD_HOUR}, {"minute", GDB_FIELD_MINUTE},
		{"minutes", GDB_FIELD_MINUTE}, {"second", GDB_FIELD_SECOND},
		{"dow", GDB_FIELD_DOW}, {"isodow", GDB_FIELD_ISODOW},
		{"doy", GDB_FIELD_DOY}, {"epoch", GDB_FIELD_EPOCH},
	};
	Node	   *a = fc_strip_relabel(arg);
	char	   *name;
	int			i;

	if (!IsA(a, Const) || ((Const *) a)->constisnull)
		fc_unsupported(fc, "a date field that is not a constant", NULL,
					   exprLocation(arg));
	name = TextDatumGetCString(((Const *) a)->constvalue);
	for (i = 0; i < lengthof(names); i++)
		if (pg_strcasecmp(name, names[i].name) == 0)
		{
			int			f = names[i].field;

			/* date_trunc: up to second; extract: no second (fractional) */
			if ((trunc && f > GDB_FIELD_SECOND) || (!trunc && f == GDB_FIELD_SECOND))
				break;
			/* extract from a date rejects time fields (PostgreSQL raises) */
			if (from_date && (f == GDB_FIELD_HOUR || f == GDB_FIELD_MINUTE))
				break;
			/* extract(week) is the ISO week number: not computed */
			if (!trunc && f == GDB_FIELD_WEEK)
				break;
			return f;
		}
	fc_unsupported(fc, psprintf("the date field \"%s\"", name),
				   "date_trunc takes year, quarter, month, week, day, hour and minute; extract and date_part year, quarter, month, day, hour, minute, dow, isodow, doy and epoch.",
				   exprLocation(arg));
	return -1;
}

/* The months and microseconds of a constant interval argument. */
static void
const_interval(FilterCompiler *fc, Node *arg, bool negate, int32 *months,
			   int64 *usecs)
{
	Node	   *a = fc_strip_relabel(arg);
	Interval   *iv;
	int64		u;

	if (!IsA(a, Const) || ((Const *) a)->constisnull)
		fc_unsupported(fc, "an interval that is not a constant", NULL,
					   exprLocation(arg));
	iv = DatumGetIntervalP(((Const *) a)->constvalue);
	if (pg_mul_s64_overflow((int64) iv->day, USECS_PER_DAY, &u) ||
		pg_add_s64_overflow(u, iv->time, &u))
		fc_unsupported(fc, "this interval", NULL, exprLocation(arg));
	*months = negate ? -iv->month : iv->month;
	*usecs = negate ? -u : u;
}

/* see expr_compile.h */
bool
fc_compile_value_call(FilterCompiler *fc, Oid funcid, List *args, int location)
{
	Node	   *a = list_length(args) >= 1 ? (Node *) linitial(args) : NULL;
	Node	   *b = list_length(args) >= 2 ? (Node *) lsecond(args) : NULL;
	int			s,
				t;
	int32		k,
				months;
	int64		usecs;
	int64		off;

	switch (funcid)
	{
			/* ---- numeric fixed point ---- */
		case F_NUMERIC_ADD:
		case F_NUMERIC_SUB:
			s = gdb_numeric_scale(a);
			t = gdb_numeric_scale(b);
			s = Max(Max(s, t), 0);
			fc_compile_numeric_at(fc, a, s);
			fc_compile_numeric_at(fc, b, s);
			fc_emit(fc, funcid == F_NUMERIC_ADD ? GDB_OP_NUM_ADD : GDB_OP_NUM_SUB,
					0, 0, 0, 0.0);
			return true;
		case F_NUMERIC_MUL:
			if (gdb_numeric_scale((Node *) makeFuncExpr(funcid, NUMERICOID, args,
														InvalidOid, InvalidOid,
														COERCE_EXPLICIT_CALL)) < 0)
				fc_unsupported(fc, "a numeric product of more than 18 digits after the point",
							   NULL, location);
			fc_compile_numeric_at(fc, a, 0);
			fc_compile_numeric_at(fc, b, 0);
			fc_emit(fc, GDB_OP_NUM_MUL, 0, 0, 0, 0.0);
			return true;
		case F_NUMERIC_UMINUS:
			fc_compile_numeric_at(fc, a, 0);
			fc_emit(fc, GDB_OP_NUM_NEG, 0, 0, 0, 0.0);
			return true;
		case F_NUMERIC_UPLUS:
			fc_compile_numeric_at(fc, a, 0);
			return true;
		case F_NUMERIC_ABS:
		case F_ABS_NUMERIC:
			fc_compile_numeric_at(fc, a, 0);
			fc_emit(fc, GDB_OP_NUM_ABS, 0, 0, 0, 0.0);
			return true;
		case F_NUMERIC_INT2:
		case F_NUMERIC_INT4:
			/* an integer is a numeric of scale 0: the same int64 */
			fc_compile_node(fc, a);
			return true;
		case F_INT2_NUMERIC:
		case F_INT4_NUMERIC:
		case F_INT8_NUMERIC:
			s = gdb_numeric_scale(a);
			fc_compile_numeric_at(fc, a, 0);
			fc_emit(fc, GDB_OP_NUM_TO_INT,
					funcid == F_INT2_NUMERIC ? 2 : funcid == F_INT4_NUMERIC ? 4 : 8,
					0, Max(s, 0), 0.0);
			return true;
		case F_FLOAT4_NUMERIC:
		case F_FLOAT8_NUMERIC:
			s = gdb_numeric_scale(a);
			fc_compile_numeric_at(fc, a, 0);
			fc_emit(fc, GDB_OP_NUM_TO_FLT, funcid == F_FLOAT4_NUMERIC ? 4 : 8,
					0, Max(s, 0), 0.0);
			return true;
		case F_NUMERIC_NUMERIC_INT4:
			{
				int			p;

				s = gdb_numeric_scale(a);
				if (!const_int4(b, &k) || !gdb_numeric_typmod_scale(k, &t))
					return false;
				p = ((k - VARHDRSZ) >> 16) & 0xFFFF;
				fc_compile_numeric_at(fc, a, 0);
				if (s != GDB_SCALE_ANY && t > s)
					fc_emit(fc, GDB_OP_NUM_RESCALE, 0, 0, t - s, 0.0);
				else if (s != GDB_SCALE_ANY && t < s)
					fc_emit(fc, GDB_OP_NUM_ROUND, 0, 0, s - t, 0.0);
				/* apply_typmod: at most p digits, "numeric field overflow" */
				if (p < 18)
					fc_emit(fc, GDB_OP_NUM_CHECK, 0, 0, (int64) gdb_pow10(p), 0.0);
				return true;
			}
		case F_ROUND_NUMERIC:
		case F_TRUNC_NUMERIC:
		case F_CEIL_NUMERIC:
		case F_CEILING_NUMERIC:
		case F_FLOOR_NUMERIC:
		case F_ROUND_NUMERIC_INT4:
		case F_TRUNC_NUMERIC_INT4:
			{
				int			mode = (funcid == F_ROUND_NUMERIC || funcid == F_ROUND_NUMERIC_INT4) ? 0 :
					(funcid == F_TRUNC_NUMERIC || funcid == F_TRUNC_NUMERIC_INT4) ? 1 :
					funcid == F_FLOOR_NUMERIC ? 2 : 3;

				k = 0;
				if (b && (!const_int4(b, &k) || k < -18 || k > 18))
					return false;
				s = gdb_numeric_scale(a);
				fc_compile_numeric_at(fc, a, 0);
				if (s == GDB_SCALE_ANY)
					return true;
				/* to k digits (k < 0: to 10^-k, printed at scale 0) */
				if (k < s)
				{
					if (s - k > 18)
						fc_unsupported(fc, "rounding by more than 18 digits", NULL, location);
					fc_emit(fc, GDB_OP_NUM_ROUND, mode, 0, s - k, 0.0);
				}
				else if (k > s)
					fc_emit(fc, GDB_OP_NUM_RESCALE, 0, 0, k - s, 0.0);
				if (k < 0)
					fc_emit(fc, GDB_OP_NUM_RESCALE, 0, 0, -k, 0.0);
				return true;
			}

			/* ---- integers and floats ---- */
		case F_INT4_INT8:
		case F_INT2_INT4:
		case F_INT2_INT8:
			/* narrowing: + 0 checked at the new width raises as PostgreSQL */
			fc_compile_node(fc, a);
			fc_emit(fc, GDB_OP_PUSH_INT, 8, 0, 0, 0.0);
			fc_emit(fc, GDB_OP_INT_ADD, funcid == F_INT4_INT8 ? 4 : 2, 0, 0, 0.0);
			return true;
		case F_INT2ABS:
		case F_INT4ABS:
		case F_INT8ABS:
		case F_ABS_INT2:
		case F_ABS_INT4:
		case F_ABS_INT8:
			fc_compile_node(fc, a);
			fc_emit(fc, GDB_OP_INT_ABS, int_width(exprType(a)), 0, 0, 0.0);
			return true;
		case F_FLOAT4ABS:
		case F_FLOAT8ABS:
		case F_ABS_FLOAT4:
		case F_ABS_FLOAT8:
			fc_compile_node(fc, a);
			fc_emit(fc, GDB_OP_FLT_ABS, 0, 0, 0, 0.0);
			return true;
		case F_ROUND_FLOAT8:
		case F_TRUNC_FLOAT8:
		case F_FLOOR_FLOAT8:
		case F_CEIL_FLOAT8:
		case F_CEILING_FLOAT8:
			fc_compile_node(fc, a);
			fc_emit(fc, GDB_OP_FLT_ROUND,
					funcid == F_ROUND_FLOAT8 ? 0 : funcid == F_TRUNC_FLOAT8 ? 1 :
					funcid == F_FLOOR_FLOAT8 ? 2 : 3, 0, 0, 0.0);
			return true;
		case F_INT4_FLOAT8:
		case F_INT8_FLOAT8:
		case F_INT4_FLOAT4:
		case F_INT8_FLOAT4:
			fc_compile_node(fc, a);
			fc_emit(fc, GDB_OP_FLT_TO_INT,
					(funcid == F_INT4_FLOAT8 || funcid == F_INT4_FLOAT4) ? 4 : 8,
					0, 0, 0.0);
			return true;

			/* ---- dates and timestamps ---- */
		case F_DATE_LT_TIMESTAMP:
		case F_DATE_LE_TIMESTAMP:
		case F_DATE_EQ_TIMESTAMP:
		case F_DATE_GT_TIMESTAMP:
		case F_DATE_GE_TIMESTAMP:
		case F_DATE_NE_TIMESTAMP:
		case F_TIMESTAMP_LT_DATE:
		case F_TIMESTAMP_LE_DATE:
		case F_TIMESTAMP_EQ_DATE:
		case F_TIMESTAMP_GT_DATE:
		case F_TIMESTAMP_GE_DATE:
		case F_TIMESTAMP_NE_DATE:
			{
				static const Oid date_ts[] = {
					F_DATE_EQ_TIMESTAMP, F_DATE_NE_TIMESTAMP, F_DATE_LT_TIMESTAMP,
					F_DATE_LE_TIMESTAMP, F_DATE_GT_TIMESTAMP, F_DATE_GE_TIMESTAMP
				};
				static const Oid ts_date[] = {
					F_TIMESTAMP_EQ_DATE, F_TIMESTAMP_NE_DATE, F_TIMESTAMP_LT_DATE,
					F_TIMESTAMP_LE_DATE, F_TIMESTAMP_GT_DATE, F_TIMESTAMP_GE_DATE
				};
				bool		date_first = false;
				int			rel = -1;
				int			i;

				for (i = 0; i < 6; i++)
				{
					if (date_ts[i] == funcid)
					{
						rel = i;
						date_first = true;
					}
					if (ts_date[i] == funcid)
						rel = i;
				}
				/* a timestamp constant: compare dates with a date bound */
				if (rel >= 2 &&
					compile_date_vs_timestamp_const(fc, date_first ? a : b,
													date_first ? b : a,
													date_first ? rel :
													rel < 4 ? rel + 2 : rel - 2))
					return true;
				/* a date past timestamp's range compares above every one */
				fc_compile_node(fc, a);
				if (date_first)
					fc_emit(fc, GDB_OP_DATE_TO_TS, 0, 0, 0, 0.0);
				fc_compile_node(fc, b);
				if (!date_first)
					fc_emit(fc, GDB_OP_DATE_TO_TS, 0, 0, 0, 0.0);
				fc_emit(fc, (GdbOpcode) (GDB_OP_INT_EQ + rel), 0, 0, 0, 0.0);
				return true;
			}
		case F_TIMESTAMP_DATE:	/* timestamp(date) */
			fc_compile_node(fc, a);
			fc_emit(fc, GDB_OP_DATE_TO_TS, 1, 0, 0, 0.0);
			return true;
		case F_DATE_TIMESTAMP:	/* date(timestamp) */
			fc_compile_node(fc, a);
			fc_emit(fc, GDB_OP_TS_TO_DATE, 0, 0, 0, 0.0);
			return true;
		case F_DATE_PL_INTERVAL:
		case F_DATE_MI_INTERVAL:
		case F_TIMESTAMP_PL_INTERVAL:
		case F_TIMESTAMP_MI_INTERVAL:
			const_interval(fc, b, funcid == F_DATE_MI_INTERVAL ||
						   funcid == F_TIMESTAMP_MI_INTERVAL, &months, &usecs);
			fc_compile_node(fc, a);
			if (funcid == F_DATE_PL_INTERVAL || funcid == F_DATE_MI_INTERVAL)
				fc_emit(fc, GDB_OP_DATE_TO_TS, 1, 0, 0, 0.0);
			fc_emit(fc, GDB_OP_TS_ADD_INTERVAL, 0, months, usecs, 0.0);
			return true;
		case F_DATE_MI:
			fc_compile_node(fc, a);
			fc_compile_node(fc, b);
			fc_emit(fc, GDB_OP_DATE_DIFF, 0, 0, 0, 0.0);
			return true;
		case F_DATE_PLI:
		case F_DATE_MII:
			fc_compile_node(fc, a);
			fc_compile_node(fc, b);
			fc_emit(fc, GDB_OP_DATE_ADD_DAYS, funcid == F_DATE_MII ? 1 : 0, 0, 0, 0.0);
			return true;
		case F_DATE_TRUNC_TEXT_TIMESTAMP:
			k = date_field(fc, a, true, false);
			fc_compile_node(fc, b);
			fc_emit(fc, GDB_OP_TS_TRUNC, 0, k, 0, 0.0);
			return true;

			/*
			 * timestamp with time zone, in a fixed-offset session zone: local
			 * time is UTC plus the offset, so each operation is the
			 * timestamp one between two shifts
			 */
		case F_TIMESTAMPTZ_DATE:	/* timestamptz(date): local midnight */
			off = session_offset_usecs(fc, location);
			fc_compile_node(fc, a);
			fc_emit(fc, GDB_OP_DATE_TO_TS, 1, 0, 0, 0.0);
			tz_shift(fc, -off);
			return true;
		case F_DATE_TIMESTAMPTZ:	/* date(timestamptz): the local date */
			off = session_offset_usecs(fc, location);
			fc_compile_node(fc, a);
			tz_shift(fc, off);
			fc_emit(fc, GDB_OP_TS_TO_DATE, 0, 0, 0, 0.0);
			return true;
		case F_TIMESTAMPTZ_TIMESTAMP:	/* timestamptz(timestamp): local */
			off = session_offset_usecs(fc, location);
			fc_compile_node(fc, a);
			tz_shift(fc, -off);
			return true;
		case F_TIMESTAMP_TIMESTAMPTZ:	/* timestamp(timestamptz) */
			off = session_offset_usecs(fc, location);
			fc_compile_node(fc, a);
			tz_shift(fc, off);
			return true;
		case F_DATE_TRUNC_TEXT_TIMESTAMPTZ:
			off = session_offset_usecs(fc, location);
			k = date_field(fc, a, true, false);
			fc_compile_node(fc, b);
			tz_shift(fc, off);
			fc_emit(fc, GDB_OP_TS_TRUNC, 0, k, 0, 0.0);
			tz_shift(fc, -off);
			return true;
		case F_DATE_PART_TEXT_TIMESTAMPTZ:
			off = session_offset_usecs(fc, location);
			k = date_field(fc, a, false, false);
			fc_compile_node(fc, b);
			if (k != GDB_FIELD_EPOCH)	/* the epoch is absolute */
				tz_shift(fc, off);
			fc_emit(fc, GDB_OP_DATE_PART, 2, k, 0, 0.0);
			return true;
		case F_EXTRACT_TEXT_TIMESTAMPTZ:
			off = session_offset_usecs(fc, location);
			k = date_field(fc, a, false, false);
			/* the year: GDB_ERR_FIXED_POINT where it is infinite */
			if (k == GDB_FIELD_EPOCH)
				fc_unsupported(fc, "extract(epoch), a numeric",
							   "An infinite date or timestamp gives Infinity, which the fixed point cannot carry; date_part() returns a float and runs on the device.",
							   location);
			fc_compile_node(fc, b);
			tz_shift(fc, off);
			fc_emit(fc, GDB_OP_DATE_PART, 0, k, 0, 0.0);
			return true;
		case F_TIMESTAMPTZ_PL_INTERVAL:
		case F_TIMESTAMPTZ_MI_INTERVAL:
			/* months and days in local time, then the microseconds */
			off = session_offset_usecs(fc, location);
			const_interval(fc, b, funcid == F_TIMESTAMPTZ_MI_INTERVAL, &months, &usecs);
			fc_compile_node(fc, a);
			tz_shift(fc, off);
			fc_emit(fc, GDB_OP_TS_ADD_INTERVAL, 0, months, usecs, 0.0);
			tz_shift(fc, -off);
			return true;
		case F_DATE_PART_TEXT_TIMESTAMP:
			k = date_field(fc, a, false, false);
			fc_compile_node(fc, b);
			fc_emit(fc, GDB_OP_DATE_PART, 2, k, 0, 0.0);
			return true;
		case F_EXTRACT_TEXT_DATE:
		case F_EXTRACT_TEXT_TIMESTAMP:
			k = date_field(fc, a, false, funcid == F_EXTRACT_TEXT_DATE);
			/* the year: GDB_ERR_FIXED_POINT where it is infinite */
			if (k == GDB_FIELD_EPOCH)
				fc_unsupported(fc, "extract(epoch), a numeric",
							   "An infinite date or timestamp gives Infinity, which the fixed point cannot carry; date_part() returns a float and runs on the device.",
							   location);
			fc_compile_node(fc, b);
			fc_emit(fc, GDB_OP_DATE_PART, funcid == F_EXTRACT_TEXT_DATE ? 1 : 0,
					k, 0, 0.0);
			return true;
		default:
			return false;
	}
}

/* The opcode family of a value of type typid: true for floats. */
static bool
is_float_type(Oid typid)
{
	return typid == FLOAT4OID || typid == FLOAT8OID;
}

/* Refuse conditional expressions of types they cannot carry. */
static void
check_value_type(FilterCompiler *fc, Node *node, const char *what)
{
	Oid			type = exprType(node);
	GdbTypeClass cls = gdb_type_class(type);

	if (cls == GDB_TYPE_UNSUPPORTED || cls == GDB_TYPE_TEXT)
		fc_unsupported(fc, psprintf("%s of type %s", what, format_type_be(type)),
					   "Conditional expressions are computed for numbers, booleans, dates and timestamps.",
					   exprLocation(node));
	if (type == NUMERICOID && gdb_numeric_scale(node) == -1)
		fc_unsupported(fc, psprintf("%s whose numeric values have different scales", what),
					   "Every value of a numeric expression must have the same number of digits after the point.",
					   exprLocation(node));
}

/* Emit a value of the conditional's type (numeric: at scale). */
static void
compile_arm(FilterCompiler *fc, Node *node, int scale)
{
	if (scale >= 0)
		fc_compile_numeric_at(fc, node, scale);
	else
		fc_compile_node(fc, node);
}

/* see expr_compile.h */
bool
fc_compile_value_node(FilterCompiler *fc, Node *node)
{
	int			scale = -1;
	ListCell   *lc;
	List	   *ends = NIL;

	if (IsA(node, CaseTestExpr))
	{
		if (fc->case_arg == NULL)
			return false;
		fc_compile_node(fc, fc->case_arg);
		return true;
	}
	if (!IsA(node, CaseExpr) && !IsA(node, CoalesceExpr) &&
		!IsA(node, NullIfExpr) && !IsA(node, MinMaxExpr))
		return false;
	if (exprType(node) == NUMERICOID)
		scale = Max(gdb_numeric_scale(node), 0);

	switch (nodeTag(node))
	{
		case T_CaseExpr:
			{
				CaseExpr   *ce = (CaseExpr *) node;
				Node	   *saved = fc->case_arg;
				bool		first = true;

				check_value_type(fc, node, "CASE");
				if (ce->arg)
				{
					Node	   *arg = fc_strip_relabel((Node *) ce->arg);

					/* the arg is evaluated once per WHEN: no side effects */
					if (!IsA(arg, Var) && !IsA(arg, Const) &&
						contain_volatile_functions((Node *) ce->arg))
						fc_unsupported(fc, "CASE with a volatile argument", NULL,
									   ce->location);
					fc->case_arg = (Node *) ce->arg;
				}
				foreach(lc, ce->args)
				{
					CaseWhen   *w = lfirst_node(CaseWhen, lc);
					int			skip;

					fc_compile_node(fc, (Node *) w->expr);
					if (!first)
						fc_emit(fc, GDB_OP_REPLACE, 0, 0, 0, 0.0);
					first = false;
					skip = fc_emit(fc, GDB_OP_JUMP_IF_NOT_TRUE, 0, -1, 0, 0.0);
					compile_arm(fc, (Node *) w->result, scale);
					fc_emit(fc, GDB_OP_REPLACE, 0, 0, 0, 0.0);
					ends = lappend_int(ends, fc_emit(fc, GDB_OP_JUMP, 0, -1, 0, 0.0));
					fc_patch_jumps(fc, list_make1_int(skip));
				}
				compile_arm(fc, (Node *) ce->defresult, scale);
				fc_emit(fc, GDB_OP_REPLACE, 0, 0, 0, 0.0);
				fc_patch_jumps(fc, ends);
				fc->case_arg = saved;
			}
			return true;
		case T_CoalesceExpr:
			{
				CoalesceExpr *ce = (CoalesceExpr *) node;

				check_value_type(fc, node, "COALESCE");
				foreach(lc, ce->args)
				{
					compile_arm(fc, (Node *) lfirst(lc), scale);
					if (foreach_current_index(lc) > 0)
						fc_emit(fc, GDB_OP_REPLACE, 0, 0, 0, 0.0);
					if (lnext(ce->args, lc) != NULL)
						ends = lappend_int(ends, fc_emit(fc, GDB_OP_JUMP_IF_NOT_NULL,
														 0, -1, 0, 0.0));
				}
				fc_patch_jumps(fc, ends);
			}
			return true;
		case T_MinMaxExpr:
			{
				MinMaxExpr *mm = (MinMaxExpr *) node;
				bool		flt = is_float_type(mm->minmaxtype);

				check_value_type(fc, node, mm->op == IS_GREATEST ? "GREATEST" : "LEAST");
				foreach(lc, mm->args)
				{
					compile_arm(fc, (Node *) lfirst(lc), scale);
					if (foreach_current_index(lc) > 0)
						fc_emit(fc, mm->op == IS_GREATEST ?
								(flt ? GDB_OP_FLT_GREATEST : GDB_OP_INT_GREATEST) :
								(flt ? GDB_OP_FLT_LEAST : GDB_OP_INT_LEAST),
								0, 0, 0, 0.0);
				}
			}
			return true;
		case T_NullIfExpr:
			{
				NullIfExpr *ni = (NullIfExpr *) node;
				Node	   *x = (Node *) linitial(ni->args);
				Node	   *y = (Node *) lsecond(ni->args);
				Oid			tx = exprType(x);

				check_value_type(fc, node, "NULLIF");
				if (tx != exprType(y))
					fc_unsupported(fc, "NULLIF of two different types", NULL, ni->location);
				if (tx == NUMERICOID)
				{
					int			sy = gdb_numeric_scale(y);

					if (sy == -1 || (sy != GDB_SCALE_ANY && sy > scale))
						fc_unsupported(fc, "NULLIF with a second numeric argument of a larger scale",
									   NULL, ni->location);
				}
				compile_arm(fc, x, scale);
				compile_arm(fc, y, scale);
				fc_emit(fc, is_float_type(tx) ? GDB_OP_FLT_NULLIF : GDB_OP_INT_NULLIF,
						0, 0, 0, 0.0);
			}
			return true;
		default:
			return false;
	}
}

/* see gpudb.h */
int
gdb_columnset_add_expr(GdbColumnSet *cs, Relation rel, Node *expr,
					   GdbRequest *req, const char *fname)
{
	Node	   *e = fc_strip_relabel(expr);
	Oid			type = exprType(expr);
	GdbTypeClass cls = gdb_type_class(type);
	FilterCompiler fc;
	GdbExprSpec *spec;
	int			scale = -1;
	int			j;
	int			col;

	if (IsA(e, Var) && ((Var *) e)->varattno > 0 && ((Var *) e)->varlevelsup == 0)
	{
		/* a join's payload column (GpudbJoin), or a column of rel */
		if (cs->njoincols > 0 && ((Var *) e)->varno != cs->probe_varno)
			return gdb_columnset_join_col(cs, ((Var *) e)->varno, ((Var *) e)->varattno);
		return gdb_columnset_add(cs, rel, ((Var *) e)->varattno, false);
	}
	for (j = 0; j < cs->nexprs; j++)
		if (equal(cs->exprs[j], expr))
			return GDB_EXPR_COL(j);

	memset(&fc, 0, sizeof(fc));
	fc.varno = 0;
	fc.rel = rel;
	fc.cs = cs;
	fc.filter = "";
	fc.fname = fname;
	fc.code = &req->eprogram[req->neinstr];
	fc.maxinstr = GDB_MAX_EXPR_INSTR - (int) req->neinstr;
	fc.req = req;
	if (cls == GDB_TYPE_UNSUPPORTED || (cls == GDB_TYPE_TEXT && !fc_text_valued(expr)))
		fc_unsupported(&fc, psprintf("an expression of type %s", format_type_be(type)),
					   "Computed columns may be numbers, booleans, dates and timestamps, or lower, upper, substr, left or right of a text column.",
					   exprLocation(expr));
	if (type == NUMERICOID)
	{
		scale = gdb_numeric_scale(expr);
		if (scale == GDB_SCALE_ANY)
			scale = 0;
	}
	if (cs->nexprs >= GDB_MAX_EXPRS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s computes too many expressions", fname),
				 errdetail("At most %d distinct expressions are computed per request.",
						   GDB_MAX_EXPRS)));
	fc_precheck(&fc, expr);
	if (type == NUMERICOID)
		fc_compile_numeric_at(&fc, expr, scale);
	else
		fc_compile_node(&fc, expr);
	if (fc.ninstr > fc.maxinstr || fc.maxdepth > GDB_MAX_STACK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s expressions are too complex", fname),
				 errdetail("The computed columns need %d more instructions and a stack of %d values; the limits are %d in all and %d.",
						   fc.ninstr, fc.maxdepth, GDB_MAX_EXPR_INSTR, GDB_MAX_STACK)));

	j = cs->nexprs++;
	col = GDB_EXPR_COL(j);
	spec = &req->exprs[j];
	spec->kind = cls == GDB_TYPE_FLOAT ? GDB_KIND_FLOAT64 : GDB_KIND_INT64;
	spec->start = req->neinstr;
	spec->len = (uint32) fc.ninstr;
	req->neinstr += (uint32) fc.ninstr;
	req->nexprs = (uint32) cs->nexprs;
	cs->exprs[j] = expr;
	cs->attnums[col] = 0;
	cs->typids[col] = type;
	/* a numeric value of scale s: carried as a numeric(18, s) column */
	cs->typmods[col] = type == NUMERICOID ?
		(int32) (((GDB_NUMERIC_MAX_PRECISION << 16) | scale) + VARHDRSZ) : -1;
	/* a text value (fc_text_valued): codes of cs->dict, of its collation */
	cs->collations[col] = cls == GDB_TYPE_TEXT ? exprCollation(expr) : InvalidOid;
	cs->nulls_only[col] = false;
	cs->rank_of[col] = 0;
	return col;
}

/* see gpudb.h */
bool
gdb_expr_supported(Node *expr, Relation rel, char **why)
{
	return gdb_exprs_supported(list_make1(expr), rel, why);
}

/* see gpudb.h */
bool
gdb_exprs_supported(List *exprs, Relation rel, char **why)
{
	return gdb_exprs_supported_in(exprs, rel, NULL, why);
}

/* see gpudb.h */
bool
gdb_exprs_supported_in(List *exprs, Relation rel, const GdbColumnSet *base,
					   char **why)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	GdbColumnSet *cs = palloc0(sizeof(GdbColumnSet));
	GdbRequest *req = palloc0(sizeof(GdbRequest));
	volatile bool ok = true;

	if (base)
		memcpy(cs, base, sizeof(GdbColumnSet));

	PG_TRY();
	{
		ListCell   *lc;

		foreach(lc, exprs)
			(void) gdb_columnset_add_expr(cs, rel, (Node *) lfirst(lc), req, "GpudbAgg");
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_FEATURE_NOT_SUPPORTED &&
			edata->sqlerrcode != ERRCODE_PROGRAM_LIMIT_EXCEEDED &&
			edata->sqlerrcode != ERRCODE_INDETERMINATE_COLLATION &&
			edata->sqlerrcode != ERRCODE_INSUFFICIENT_PRIVILEGE)
			PG_RE_THROW();
		FlushErrorState();
		if (why)
			*why = edata->message;
		ok = false;
	}
	PG_END_TRY();
	pfree(req);
	return ok;
}
