/*-------------------------------------------------------------------------
 *
 * filter_compile.c
 *	  Compile a filter (one boolean SQL expression over the columns of a
 *	  relation) into the opcode program of gpudb_device.h.
 *
 * The text goes through PostgreSQL's own front end and planner
 * preprocessing, so it means exactly what "SELECT ... FROM rel WHERE
 * <filter>" means:
 *
 *	1. raw_parser(RAW_PARSE_PLPGSQL_EXPR): one expression, no clauses; the
 *	   raw tree is searched for subqueries before any name is looked up, so
 *	   no other relation is ever opened.
 *	2. transformExpr(EXPR_KIND_WHERE) with rel as the only range table
 *	   entry, coerce_to_boolean, assign_expr_collations: PostgreSQL's own
 *	   name resolution, casts and errors (aggregates, window and
 *	   set-returning functions are refused there).  SELECT privilege on the
 *	   columns read is checked as the executor would.
 *	3. eval_const_expressions, canonicalize_qual, make_ands_implicit: the
 *	   planner's preprocessing of a WHERE clause (so "f8 > 1.5" compares
 *	   with a float8 constant and "x IN (1, 2)" has a constant array), then
 *	   the cost order of order_qual_clauses (qual_order.c).  Only
 *	   built-in functions may appear, so folding never runs user code.
 *	4. A recursive walker emits the program that gdb_vm_eval
 *	   (gpudb_semantics.h) runs.  Each node is compiled with PostgreSQL's
 *	   exact semantics (result width, NULLs, errors, evaluation order and
 *	   short-circuits) or refused with ERRCODE_FEATURE_NOT_SUPPORTED,
 *	   naming what is refused.
 *
 * Functions and operators are recognised by function OID (fmgroids.h), never
 * by name, so nothing resolved through the caller's search_path can pass
 * for a built-in.  The VM has no POP: where PostgreSQL evaluates an operand
 * whose value is not needed (x in "x = ANY('{}')"), the operand is compiled,
 * made a non-NULL boolean by IS_NULL and absorbed by a constant AND/OR, so
 * it raises what PostgreSQL would raise.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "parser/parse_collate.h"
#include "parser/parse_expr.h"
#include "parser/parse_node.h"
#include "parser/parse_relation.h"
#include "parser/parser.h"
#include "parser/scansup.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "gpudb.h"
#include "expr_compile.h"
#include "custom_scan_path.h"

#define GDB_FILTER_HINT \
	"A filter may use columns and constants of types smallint, integer, " \
	"bigint, real, double precision, boolean, date, timestamp and " \
	"timestamptz; + - * / and unary minus on integers and floats, % on " \
	"integers; comparisons; AND, OR, NOT; IS [NOT] NULL, IS [NOT] TRUE, " \
	"FALSE or UNKNOWN; IS [NOT] DISTINCT FROM; IN, = ANY and <> ALL with " \
	"constant lists; = or <> between a text column and a text column " \
	"or constant; LIKE, ILIKE, regular expressions (~, ~*) and " \
	"starts_with of a text column with a constant pattern, and <, <=, " \
	">, >= with a text constant in the C " \
	"collation; length and octet_length of a text column; and " \
	"comparisons of a numeric(p,s) column (p <= 18) with a constant or a " \
	"numeric column of the same scale."

/* Stack effect of every opcode, from the shared X-macro list. */
static const int8 gdb_op_effect[GDB_OP__COUNT] = {
#define GDB_OP_EFFECT(name, effect, raises, doc) effect,
	GDB_OPCODE_LIST(GDB_OP_EFFECT)
#undef GDB_OP_EFFECT
};

/* How a supported function is compiled. */
typedef enum CallKind
{
	CALL_NOOP,					/* widening cast or unary plus: the argument */
	CALL_UNARY,					/* argument, then op */
	CALL_BINARY,				/* both arguments, then op */
	CALL_TEXT,					/* texteq/textne through the dictionary */
	CALL_NUMERIC				/* numeric comparison as fixed point */
} CallKind;

typedef struct FuncMap
{
	Oid			funcid;
	uint8		kind;			/* CallKind */
	uint8		op;				/* GdbOpcode */
	uint8		width;			/* SQL result width in bytes; 0: boolean */
} FuncMap;

#define FM(f, kind, op, w) {F_##f, CALL_##kind, GDB_OP_##op, w}
#define CMP6(p, k) \
	FM(p##EQ, BINARY, k##_EQ, 0), FM(p##NE, BINARY, k##_NE, 0), \
	FM(p##LT, BINARY, k##_LT, 0), FM(p##LE, BINARY, k##_LE, 0), \
	FM(p##GT, BINARY, k##_GT, 0), FM(p##GE, BINARY, k##_GE, 0)
#define ARITH4(p, k, w) \
	FM(p##PL, BINARY, k##_ADD, w), FM(p##MI, BINARY, k##_SUB, w), \
	FM(p##MUL, BINARY, k##_MUL, w), FM(p##DIV, BINARY, k##_DIV, w)

static const FuncMap func_map[] = {
	/* integer comparisons, every cross-type combination PostgreSQL has */
	CMP6(INT2, INT), CMP6(INT4, INT), CMP6(INT8, INT),
	CMP6(INT24, INT), CMP6(INT42, INT), CMP6(INT28, INT),
	CMP6(INT82, INT), CMP6(INT48, INT), CMP6(INT84, INT),
	/* types carried as int64: bool (0/1), date, timestamp, timestamptz */
	CMP6(BOOL, INT), CMP6(DATE_, INT), CMP6(TIMESTAMP_, INT),
	CMP6(TIMESTAMPTZ_, INT),
	/* float comparisons (PostgreSQL's NaN rules are in the VM) */
	CMP6(FLOAT4, FLT), CMP6(FLOAT8, FLT), CMP6(FLOAT48, FLT),
	CMP6(FLOAT84, FLT),
	/* integer arithmetic, checked at the SQL result width */
	ARITH4(INT2, INT, 2), ARITH4(INT4, INT, 4), ARITH4(INT8, INT, 8),
	ARITH4(INT24, INT, 4), ARITH4(INT42, INT, 4), ARITH4(INT28, INT, 8),
	ARITH4(INT82, INT, 8), ARITH4(INT48, INT, 8), ARITH4(INT84, INT, 8),
	FM(INT2MOD, BINARY, INT_MOD, 2), FM(INT2UM, UNARY, INT_NEG, 2),
	FM(INT4MOD, BINARY, INT_MOD, 4), FM(INT4UM, UNARY, INT_NEG, 4),
	FM(INT8MOD, BINARY, INT_MOD, 8), FM(INT8UM, UNARY, INT_NEG, 8),
	/* float arithmetic; mixed float4/float8 computes in float8 */
	ARITH4(FLOAT4, FLT, 4), ARITH4(FLOAT8, FLT, 8),
	ARITH4(FLOAT48, FLT, 8), ARITH4(FLOAT84, FLT, 8),
	FM(FLOAT4UM, UNARY, FLT_NEG, 4), FM(FLOAT8UM, UNARY, FLT_NEG, 8),
	/* unary plus and exact widening casts: nothing to emit (op unused) */
	FM(INT2UP, NOOP, PUSH_COL, 2), FM(INT4UP, NOOP, PUSH_COL, 4),
	FM(INT8UP, NOOP, PUSH_COL, 8), FM(FLOAT4UP, NOOP, PUSH_COL, 4),
	FM(FLOAT8UP, NOOP, PUSH_COL, 8), FM(INT4_INT2, NOOP, PUSH_COL, 4),
	FM(INT8_INT2, NOOP, PUSH_COL, 8), FM(INT8_INT4, NOOP, PUSH_COL, 8),
	FM(FLOAT8_FLOAT4, NOOP, PUSH_COL, 8),
	/* integer to float casts (to float4: rounded as PostgreSQL rounds) */
	FM(FLOAT4_INT2, UNARY, INT_TO_FLT, 4), FM(FLOAT8_INT2, UNARY, INT_TO_FLT, 8),
	FM(FLOAT4_INT4, UNARY, INT_TO_FLT, 4), FM(FLOAT8_INT4, UNARY, INT_TO_FLT, 8),
	FM(FLOAT4_INT8, UNARY, INT_TO_FLT, 4), FM(FLOAT8_INT8, UNARY, INT_TO_FLT, 8),
	/* text equality: dictionary codes are equal iff the bytes are */
	FM(TEXTEQ, TEXT, INT_EQ, 0), FM(TEXTNE, TEXT, INT_NE, 0),
	/* char(n): values are stored padded to n, so padded bytes compare */
	FM(BPCHAREQ, TEXT, INT_EQ, 0), FM(BPCHARNE, TEXT, INT_NE, 0),
	/* numeric(p,s) columns compare as their scaled integers */
	FM(NUMERIC_EQ, NUMERIC, INT_EQ, 0), FM(NUMERIC_NE, NUMERIC, INT_NE, 0),
	FM(NUMERIC_LT, NUMERIC, INT_LT, 0), FM(NUMERIC_LE, NUMERIC, INT_LE, 0),
	FM(NUMERIC_GT, NUMERIC, INT_GT, 0), FM(NUMERIC_GE, NUMERIC, INT_GE, 0),
};

#undef FM
#undef CMP6
#undef ARITH4


/*
 * Error context: positions inside the filter are reported in an internal
 * query (the client's statement is not the filter text).
 */
static void
filter_error_callback(void *arg)
{
	FilterCompiler *fc = (FilterCompiler *) arg;
	int			pos = geterrposition();

	if (pos > 0)
	{
		errposition(0);
		internalerrposition(pos);
		internalerrquery(fc->filter);
	}
	errcontext("compiling the filter of %s", fc->fname);
}

/* ERROR for anything outside the supported set; never returns. */
void
fc_unsupported(FilterCompiler *fc, const char *what, const char *detail,
			int location)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s filter cannot use %s", fc->fname, what),
			 detail ? errdetail("%s", detail) : 0,
			 errhint("%s", GDB_FILTER_HINT),
			 parser_errposition(fc->pstate, location)));
}

/* Append one instruction, tracking the VM stack depth. */
int
fc_emit(FilterCompiler *fc, GdbOpcode op, int width, int32 arg, int64 ival,
	 double fval)
{
	int			idx = fc->ninstr++;

	if (idx < (fc->maxinstr > 0 ? fc->maxinstr : GDB_MAX_INSTR))
	{
		GdbInstr   *in = &fc->code[idx];

		memset(in, 0, sizeof(GdbInstr));
		in->op = (uint16) op;
		in->width = (uint16) width;
		in->arg = arg;
		in->ival = ival;
		in->fval = fval;
	}
	fc->depth += gdb_op_effect[op];
	Assert(fc->depth >= 1);
	fc->maxdepth = Max(fc->maxdepth, fc->depth);
	return idx;
}

/* Point the jumps at instruction indexes in list jumps at the next one. */
void
fc_patch_jumps(FilterCompiler *fc, List *jumps)
{
	ListCell   *lc;

	foreach(lc, jumps)
	{
		int			idx = lfirst_int(lc);

		if (idx < (fc->maxinstr > 0 ? fc->maxinstr : GDB_MAX_INSTR))
			fc->code[idx].arg = fc->ninstr;
	}
}

/* see expr_compile.h */
bool
fc_is_bpchar_relabel(Node *node)
{
	return node != NULL && IsA(node, RelabelType) &&
		((RelabelType *) node)->resulttype == BPCHAROID &&
		exprType((Node *) ((RelabelType *) node)->arg) != BPCHAROID;
}

/*
 * The node below any binary-compatible relabelling or COLLATE, but not
 * below a varchar or text value relabelled as char(n) (bpchar): char(n)
 * compares, groups and sorts with its trailing blanks ignored, which the
 * value below does not ('b' and 'b ' are one char(n) value, two varchar
 * values).  Such a relabelling is itself left for the caller to refuse.
 */
Node *
fc_strip_relabel(Node *node)
{
	for (;;)
	{
		if (fc_is_bpchar_relabel(node))
			return node;
		if (node && IsA(node, RelabelType))
			node = (Node *) ((RelabelType *) node)->arg;
		else if (node && IsA(node, CollateExpr))
			node = (Node *) ((CollateExpr *) node)->arg;
		else
			return node;
	}
}

/* The entry of func_map for funcid, or NULL. */
static const FuncMap *
lookup_func(Oid funcid)
{
	int			i;

	for (i = 0; i < lengthof(func_map); i++)
		if (func_map[i].funcid == funcid)
			return &func_map[i];
	return NULL;
}

/* A phrase naming a node kind we do not compile, for the ERROR. */
static const char *
describe_node(Node *node)
{
	static const struct
	{
		NodeTag		tag;
		const char *what;
	}			names[] = {
		{T_CaseExpr, "CASE"}, {T_CoalesceExpr, "COALESCE"},
		{T_MinMaxExpr, "GREATEST or LEAST"}, {T_NullIfExpr, "NULLIF"},
		{T_ArrayExpr, "an ARRAY constructor"}, {T_RowExpr, "a row constructor"},
		{T_RowCompareExpr, "a row comparison"},
		{T_CoerceViaIO, "a cast through the text form of a type"},
		{T_ArrayCoerceExpr, "an array cast"},
		{T_CoerceToDomain, "a cast to a domain"},
		{T_SQLValueFunction, "CURRENT_DATE, CURRENT_TIMESTAMP or a similar function"},
		{T_Param, "a parameter"}, {T_SubPlan, "a subquery"},
		{T_FieldSelect, "a field selection"}, {T_SubscriptingRef, "a subscript"},
	};
	int			i;

	for (i = 0; i < lengthof(names); i++)
		if (names[i].tag == nodeTag(node))
			return names[i].what;
	return psprintf("an expression of node type %d", (int) nodeTag(node));
}

/*
 * The batch column of a Var of rel, added to the column set if new.
 * nulls_ok: only the NULL flag is read (IS [NOT] NULL), so the column is
 * read with nulls_only (any type, any collation).
 */
int
fc_var_column(FilterCompiler *fc, Var *var, bool nulls_ok)
{
	bool		nulls_only;

	if ((fc->varno != 0 && var->varno != fc->varno) ||
		var->varlevelsup != 0 || var->varattno <= 0)
		elog(ERROR, "unexpected Var %d.%d (level %u) in filter",
			 var->varno, var->varattno, var->varlevelsup);
	/* a join's payload column: another relation's Var (GpudbJoin) */
	if (fc->cs->njoincols > 0 && var->varno != fc->cs->probe_varno)
		return gdb_columnset_join_col(fc->cs, var->varno, var->varattno);
	/* IS [NOT] NULL reads only the NULL flags, whatever the type or collation */
	nulls_only = nulls_ok;
	return gdb_columnset_add(fc->cs, fc->rel, var->varattno, nulls_only);
}

/* PUSH_INT / PUSH_FLOAT / PUSH_NULL of a constant of a carried type. */
void
fc_compile_const(FilterCompiler *fc, Const *c)
{
	Datum		v = c->constvalue;
	Oid			type = getBaseType(c->consttype);

	if (c->constisnull)
		fc_emit(fc, GDB_OP_PUSH_NULL, 0, 0, 0, 0.0);
	else if (type == INT2OID)
		fc_emit(fc, GDB_OP_PUSH_INT, 2, 0, DatumGetInt16(v), 0.0);
	else if (type == INT4OID || type == DATEOID)
		fc_emit(fc, GDB_OP_PUSH_INT, 4, 0, DatumGetInt32(v), 0.0);
	else if (type == INT8OID || type == TIMESTAMPOID || type == TIMESTAMPTZOID)
		fc_emit(fc, GDB_OP_PUSH_INT, 8, 0, DatumGetInt64(v), 0.0);
	else if (type == BOOLOID)
		fc_emit(fc, GDB_OP_PUSH_INT, 0, 0, DatumGetBool(v) ? 1 : 0, 0.0);
	else if (type == FLOAT4OID)
		fc_emit(fc, GDB_OP_PUSH_FLOAT, 4, 0, 0, (double) DatumGetFloat4(v));
	else if (type == FLOAT8OID)
		fc_emit(fc, GDB_OP_PUSH_FLOAT, 8, 0, 0, DatumGetFloat8(v));
	else if (type == NUMERICOID)
	{
		int			scale = gdb_numeric_scale((Node *) c);
		int64		iv;

		if (scale < 0 ||
			gdb_numeric_to_scaled(v, scale, &iv) == GDB_NUMFIT_INEXACT)
			fc_unsupported(fc, "this numeric constant",
						   "Numeric constants must have fewer than 19 digits.",
						   c->location);
		if (gdb_numeric_to_scaled(v, scale, &iv) == GDB_NUMFIT_NAN)
			iv = GDB_NUMERIC_NAN;
		fc_emit(fc, GDB_OP_PUSH_INT, 8, 0, iv, 0.0);
	}
	else if (type == TEXTOID || type == VARCHAROID || type == BPCHAROID)
		fc_unsupported(fc, "a text constant here",
					"Text constants may only be compared with = or <> to a text column.",
					c->location);
	else
		fc_unsupported(fc, psprintf("a constant of type %s",
								 format_type_be(c->consttype)),
					NULL, c->location);
}

/*
 * texteq / textne: both sides are text columns, text-valued functions of
 * a column (lower, upper, substr, left, right: the codes of their results,
 * string_compile.c) or text constants, at least one not a constant.
 * Constants are interned into the shared dictionary, so the comparison is
 * of codes, which is byte equality: the equality of every deterministic
 * collation.
 */
static void
compile_text_compare(FilterCompiler *fc, const FuncMap *m, List *args,
					 Oid inputcollid, int location)
{
	ListCell   *lc;
	int			nvars = 0;
	int32		padlen = -1;	/* char(n): n */

	if (!OidIsValid(inputcollid))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_COLLATION),
				 errmsg("could not determine which collation to use for string comparison"),
				 errhint("Use the COLLATE clause to set the collation explicitly."),
				 parser_errposition(fc->pstate, location)));
	if (!get_collation_isdeterministic(inputcollid))
		fc_unsupported(fc, psprintf("text comparison under the nondeterministic collation \"%s\"",
									get_collation_name(inputcollid)),
					   "Text is compared by its bytes, which only deterministic collations do.",
					   location);

	/* char(n) columns: every one of the same n (values padded alike) */
	/* CASE x WHEN 'a' ...: the WHEN compares x itself */
	if (fc->case_arg)
	{
		List	   *resolved = NIL;

		foreach(lc, args)
		{
			Node	   *a = fc_strip_relabel((Node *) lfirst(lc));

			resolved = lappend(resolved, IsA(a, CaseTestExpr) ? fc->case_arg : a);
		}
		args = resolved;
	}
	foreach(lc, args)
	{
		Var		   *v = (Var *) fc_strip_relabel((Node *) lfirst(lc));

		/*
		 * A text or varchar column relabeled as char(n): PostgreSQL compares
		 * it ignoring trailing blanks, which its dictionary codes do not
		 */
		if (IsA(v, Var) && v->vartype != BPCHAROID &&
			exprType((Node *) lfirst(lc)) == BPCHAROID)
			fc_unsupported(fc, "a char(n) comparison of a text or varchar column",
						   "char(n) comparisons ignore trailing blanks; only char(n) columns of one length and constants are compared on the device.",
						   location);
		if (IsA(v, Var) && v->vartype == BPCHAROID)
		{
			if (padlen >= 0 && padlen != v->vartypmod - VARHDRSZ)
				fc_unsupported(fc, "a comparison of char(n) columns of different lengths",
							   NULL, location);
			padlen = v->vartypmod - VARHDRSZ;
		}
	}
	if (fc->cs->dict == NULL)
		fc->cs->dict = gdb_dict_create();
	foreach(lc, args)
	{
		Node	   *a = fc_strip_relabel((Node *) lfirst(lc));
		Const	   *c = (Const *) a;
		Oid			ctype = IsA(a, Const) ? getBaseType(c->consttype) : InvalidOid;
		struct varlena *s;

		if (IsA(a, Var) &&
			gdb_type_class(((Var *) a)->vartype) == GDB_TYPE_TEXT)
		{
			fc_emit(fc, GDB_OP_PUSH_COL, 0, fc_var_column(fc, (Var *) a, false),
					0, 0.0);
			nvars++;
		}
		else if (fc_text_valued(a) && padlen < 0 &&
				 exprType((Node *) lfirst(lc)) != BPCHAROID)
		{
			/*
			 * lower, upper, substr, left or right of a column: the code of
			 * its result, in the same dictionary as the constants' codes
			 * (string_compile.c), so that equal codes are equal strings
			 */
			fc_compile_node(fc, a);
			nvars++;
		}
		else if (!IsA(a, Const) ||
				 (ctype != TEXTOID && ctype != VARCHAROID && ctype != BPCHAROID))
			fc_unsupported(fc, "a text comparison of an expression",
						   "Text can only be compared as a text column with a text column or a text constant.",
						   exprLocation(a));
		else if (c->constisnull)
			fc_emit(fc, GDB_OP_PUSH_NULL, 0, 0, 0, 0.0);
		else
		{
			const char *data;
			int			len;

			s = pg_detoast_datum_packed((struct varlena *)
										DatumGetPointer(c->constvalue));
			data = VARDATA_ANY(s);
			len = VARSIZE_ANY_EXHDR(s);
			if (padlen >= 0)
			{
				/* bpchar equality ignores trailing blanks: pad to n */
				StringInfoData buf;
				int			nchars;

				while (len > 0 && data[len - 1] == ' ')
					len--;
				nchars = pg_mbstrlen_with_len(data, len);
				initStringInfo(&buf);
				appendBinaryStringInfo(&buf, data, len);
				while (nchars++ < padlen)
					appendStringInfoChar(&buf, ' ');
				data = buf.data;
				len = buf.len;
			}
			/* bound to the code in the executing side's dictionary later */
			fc_emit(fc, GDB_OP_PUSH_TEXT, 8,
					(int32) gdb_dict_intern(fc->cs->dict, data, len), 0, 0.0);
		}
	}
	if (nvars == 0)
		fc_unsupported(fc, "a text comparison without a text column",
					   "Text can only be compared as a text column with a text column or a text constant.",
					   location);
	fc_emit(fc, (GdbOpcode) m->op, 0, 0, 0, 0.0);
}

/* The commuted comparison opcode: a op b is b op' a. */
static GdbOpcode
commute_compare(GdbOpcode op)
{
	switch (op)
	{
		case GDB_OP_INT_LT:
			return GDB_OP_INT_GT;
		case GDB_OP_INT_LE:
			return GDB_OP_INT_GE;
		case GDB_OP_INT_GT:
			return GDB_OP_INT_LT;
		case GDB_OP_INT_GE:
			return GDB_OP_INT_LE;
		default:
			return op;			/* = and <> */
	}
}

/*
 * A numeric comparison (m->op one of INT_EQ ... INT_GE) of a numeric(p,s)
 * column with a constant or with a column of the same scale, compiled over
 * the scaled integers (numeric_fixed.c), the column always first (the
 * operator commuted when the constant is written first; comparisons raise
 * nothing, so the order is unobservable).  A constant c is compared at the
 * column's scale s:
 *	 - exact at s: its scaled integer;
 *	 - NaN: GDB_NUMERIC_NAN, which only NaN rows equal and nothing exceeds;
 *	 - beyond 10^18 at s, or +-Infinity: GDB_NUMERIC_ABOVE (BELOW), which
 *	   no row equals, above (below) every number and below NaN;
 *	 - more digits than s: with f = floor(c * 10^s), x < c and x <= c are
 *	   x <= f, x > c and x >= c are x > f (no column value lies between f
 *	   and c), and x = c (x <> c) is FALSE (TRUE) for every non-NULL x,
 *	   compiled as a test against GDB_NUMERIC_BELOW, which no row holds.
 */
static void
compile_numeric_compare(FilterCompiler *fc, const FuncMap *m, Oid funcid,
						Oid opno, List *args, int location)
{
	const char *what = OidIsValid(opno) ?
		psprintf("operator %s", format_operator(opno)) :
		psprintf("function %s", format_procedure(funcid));
	Node	   *a = fc_strip_relabel((Node *) linitial(args));
	Node	   *b = fc_strip_relabel((Node *) lsecond(args));
	GdbOpcode	op = (GdbOpcode) m->op;
	int			sa = IsA(a, Const) ? -1 : gdb_numeric_scale(a);
	int			sb = IsA(b, Const) ? -1 : gdb_numeric_scale(b);
	Const	   *c;
	int64		v;

	if (sa >= 0 && sb >= 0)
	{
		/* two expressions: compared at the larger scale */
		int			s = Max(sa, sb);

		fc_compile_numeric_compared_at(fc, a, s);
		fc_compile_numeric_compared_at(fc, b, s);
		fc_emit(fc, op, 0, 0, 0, 0.0);
		return;
	}
	if (sa < 0 && sb >= 0)
	{
		Node	   *t = a;

		a = b;
		b = t;
		sa = sb;
		op = commute_compare(op);
	}
	if (sa < 0 || !IsA(b, Const))
		fc_unsupported(fc, psprintf("%s on an expression", what),
					   "numeric compares only as fixed point: numeric(p,s) columns (p <= 18, s >= 0), constants and their sums, differences and products.",
					   location);
	c = (Const *) b;
	fc_compile_node(fc, a);
	if (c->constisnull)
	{
		fc_emit(fc, GDB_OP_PUSH_NULL, 0, 0, 0, 0.0);
		fc_emit(fc, op, 0, 0, 0, 0.0);
		return;
	}
	switch (gdb_numeric_to_scaled(c->constvalue, sa, &v))
	{
		case GDB_NUMFIT_EXACT:
			break;
		case GDB_NUMFIT_NAN:
			v = GDB_NUMERIC_NAN;
			break;
		case GDB_NUMFIT_ABOVE:
			v = GDB_NUMERIC_ABOVE;
			break;
		case GDB_NUMFIT_BELOW:
			v = GDB_NUMERIC_BELOW;
			break;
		case GDB_NUMFIT_INEXACT:
			if (op == GDB_OP_INT_EQ || op == GDB_OP_INT_NE)
				v = GDB_NUMERIC_BELOW;
			else
				op = (op == GDB_OP_INT_LT || op == GDB_OP_INT_LE) ?
					GDB_OP_INT_LE : GDB_OP_INT_GT;
			break;
	}
	fc_emit(fc, GDB_OP_PUSH_INT, 8, 0, v, 0.0);
	fc_emit(fc, op, 0, 0, 0, 0.0);
}

/*
 * A call of funcid (an operator's function when opno is valid) on args.
 */
static void
compile_call(FilterCompiler *fc, Oid funcid, Oid opno, List *args,
			 Oid inputcollid, int location)
{
	const FuncMap *m = lookup_func(funcid);
	AclResult	aclresult;
	ListCell   *lc;

	if (m == NULL &&
		(fc_compile_string_call(fc, funcid, args, inputcollid, location) ||
		 fc_compile_value_call(fc, funcid, args, location)))
	{
		/* the executor checks EXECUTE on every function it will call */
		aclresult = gdb_proc_aclcheck(funcid, GetUserId(), ACL_EXECUTE);
		if (aclresult != ACLCHECK_OK)
			aclcheck_error(aclresult, OBJECT_FUNCTION, get_func_name(funcid));
		return;
	}
	if (m == NULL)
	{
		const char *detail = NULL;

		foreach(lc, args)
			if (exprType((Node *) lfirst(lc)) == NUMERICOID)
				detail = "numeric values can only be compared (a numeric(p,s) column with a constant or a column of the same scale); write a float constant such as 1.5 as 1.5::float8.";
		fc_unsupported(fc, OidIsValid(opno) ?
					psprintf("operator %s", format_operator(opno)) :
					psprintf("function %s", format_procedure(funcid)),
					detail, location);
	}

	/* the executor checks EXECUTE on every function it will call */
	aclresult = gdb_proc_aclcheck(funcid, GetUserId(), ACL_EXECUTE);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_FUNCTION, get_func_name(funcid));

	if (list_length(args) != (m->kind == CALL_BINARY || m->kind == CALL_TEXT ||
							  m->kind == CALL_NUMERIC ? 2 : 1))
		elog(ERROR, "function %u called with %d arguments",
			 funcid, list_length(args));

	switch ((CallKind) m->kind)
	{
		case CALL_NOOP:
			fc_compile_node(fc, (Node *) linitial(args));
			break;
		case CALL_UNARY:
			fc_compile_node(fc, (Node *) linitial(args));
			fc_emit(fc, (GdbOpcode) m->op, m->width, 0, 0, 0.0);
			break;
		case CALL_BINARY:
			fc_compile_node(fc, (Node *) linitial(args));
			fc_compile_node(fc, (Node *) lsecond(args));
			fc_emit(fc, (GdbOpcode) m->op, m->width, 0, 0, 0.0);
			break;
		case CALL_TEXT:
			compile_text_compare(fc, m, args, inputcollid, location);
			break;
		case CALL_NUMERIC:
			compile_numeric_compare(fc, m, funcid, opno, args, location);
			break;
	}
}

/*
 * Between the operands of an AND (OR) chain: combine with the previous
 * result unless first, then jump to the end on FALSE (TRUE) unless last.
 */
static void
chain_link(FilterCompiler *fc, bool first, bool last, bool is_and,
		   List **jumps)
{
	if (!first)
		fc_emit(fc, is_and ? GDB_OP_AND : GDB_OP_OR, 0, 0, 0, 0.0);
	if (!last)
		*jumps = lappend_int(*jumps,
							 fc_emit(fc, is_and ? GDB_OP_JUMP_IF_FALSE :
								  GDB_OP_JUMP_IF_TRUE, 0, -1, 0, 0.0));
}

/*
 * AND / OR of args with PostgreSQL's short-circuit: for AND(a, b, c)
 *	 a, JUMP_IF_FALSE L, b, AND, JUMP_IF_FALSE L, c, AND, L:
 * and OR symmetrically with JUMP_IF_TRUE.  A NULL does not jump: a later
 * FALSE (TRUE) still decides.
 *
 * top_level: args are the implicitly AND-ed conditions of a WHERE clause,
 * which the executor (ExecQual) abandons at the first FALSE *or NULL*; each
 * but the last is made non-NULL by IS_TRUE so that a NULL jumps too (the
 * row is rejected either way).
 */
static void
compile_chain(FilterCompiler *fc, List *args, bool is_and, bool top_level)
{
	List	   *jumps = NIL;
	ListCell   *lc;

	foreach(lc, args)
	{
		bool		last = (lnext(args, lc) == NULL);

		fc_compile_node(fc, (Node *) lfirst(lc));
		if (top_level && !last)
			fc_emit(fc, GDB_OP_IS_TRUE, 0, 0, 0, 0.0);
		chain_link(fc, foreach_current_index(lc) == 0, last, is_and, &jumps);
	}
	fc_patch_jumps(fc, jumps);
	list_free(jumps);
}

/*
 * A constant boolean result (0, 1, or -1 for NULL) of an expression whose
 * operand PostgreSQL still evaluates: compile the operand for its errors,
 * then absorb it.  A plain column or constant cannot raise and is skipped.
 */
static void
compile_absorbed(FilterCompiler *fc, Node *operand, int result)
{
	Node	   *s = fc_strip_relabel(operand);

	if (!IsA(s, Var) && !IsA(s, Const))
	{
		fc_compile_node(fc, operand);
		fc_emit(fc, GDB_OP_IS_NULL, 0, 0, 0, 0.0); /* non-NULL boolean */
		fc_emit(fc, GDB_OP_PUSH_INT, 0, 0, result == 0 ? 0 : 1, 0.0);
		fc_emit(fc, result == 0 ? GDB_OP_AND : GDB_OP_OR, 0, 0, 0, 0.0);
		if (result < 0)
		{
			fc_emit(fc, GDB_OP_PUSH_NULL, 0, 0, 0, 0.0);
			fc_emit(fc, GDB_OP_AND, 0, 0, 0, 0.0); /* TRUE AND NULL */
		}
	}
	else if (result < 0)
		fc_emit(fc, GDB_OP_PUSH_NULL, 0, 0, 0, 0.0);
	else
		fc_emit(fc, GDB_OP_PUSH_INT, 0, 0, result, 0.0);
}

/*
 * x op ANY/ALL (array): only a constant array (an IN list of constants is
 * one after eval_const_expressions).  Expanded into one comparison per
 * element, OR-ed (ANY) or AND-ed (ALL) with short-circuits; the results,
 * NULLs included, are those of ExecEvalScalarArrayOp.  x is evaluated once
 * per element, which raises the same errors as evaluating it once.
 */
static void
compile_saop(FilterCompiler *fc, ScalarArrayOpExpr *saop)
{
	Node	   *left = (Node *) linitial(saop->args);
	Node	   *right = (Node *) lsecond(saop->args);
	Const	   *c;
	ArrayType  *arr;
	Oid			elemtype;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;
	OpExpr	   *op;
	Const	   *elem;
	List	   *jumps = NIL;

	set_sa_opfuncid(saop);
	if (lookup_func(saop->opfuncid) == NULL &&
		!fc_string_function(saop->opfuncid))
		fc_unsupported(fc, psprintf("operator %s", format_operator(saop->opno)),
					NULL, saop->location);
	if (!IsA(right, Const))
		fc_unsupported(fc, psprintf("%s %s with an array that is not constant",
								 format_operator(saop->opno),
								 saop->useOr ? "ANY" : "ALL"),
					NULL, saop->location);
	c = (Const *) right;
	if (c->constisnull)
	{
		/* PostgreSQL: a NULL array gives NULL */
		compile_absorbed(fc, left, -1);
		return;
	}
	arr = DatumGetArrayTypeP(c->constvalue);
	elemtype = ARR_ELEMTYPE(arr);
	get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
	deconstruct_array(arr, elemtype, elmlen, elmbyval, elmalign,
					  &elems, &nulls, &n);
	if (n == 0)
	{
		/* PostgreSQL: FALSE for ANY, TRUE for ALL, even for a NULL x */
		compile_absorbed(fc, left, saop->useOr ? 0 : 1);
		return;
	}
	/* one comparison node, its constant replaced by each element in turn */
	op = makeNode(OpExpr);
	op->opno = saop->opno;
	op->opfuncid = saop->opfuncid;
	op->opresulttype = BOOLOID;
	op->inputcollid = saop->inputcollid;
	op->location = saop->location;
	elem = makeConst(elemtype, -1, c->constcollid, elmlen, (Datum) 0, true,
					 elmbyval);
	op->args = list_make2(left, elem);
	for (i = 0; i < n; i++)
	{
		elem->constvalue = elems[i];
		elem->constisnull = nulls[i];
		fc_compile_node(fc, (Node *) op);
		chain_link(fc, i == 0, i == n - 1, !saop->useOr, &jumps);
	}
	fc_patch_jumps(fc, jumps);
	list_free(jumps);
}

/*
 * a IS DISTINCT FROM b, compiled as
 *	 (a = b) IS FALSE OR ((a IS NULL) <> (b IS NULL))
 * with a short-circuit after the first part.  a and b are evaluated first,
 * in order, as PostgreSQL does; the second evaluation cannot raise.
 */
static void
compile_distinct(FilterCompiler *fc, DistinctExpr *d)
{
	ListCell   *lc;
	int			jump;

	set_opfuncid((OpExpr *) d);
	compile_call(fc, d->opfuncid, d->opno, d->args, d->inputcollid,
				 d->location);
	fc_emit(fc, GDB_OP_IS_FALSE, 0, 0, 0, 0.0);
	jump = fc_emit(fc, GDB_OP_JUMP_IF_TRUE, 0, -1, 0, 0.0);
	foreach(lc, d->args)
	{
		Node	   *a = fc_strip_relabel((Node *) lfirst(lc));

		if (IsA(a, Const))		/* only its NULL-ness matters */
			fc_emit(fc, ((Const *) a)->constisnull ? GDB_OP_PUSH_NULL :
				 GDB_OP_PUSH_INT, 0, 0, 0, 0.0);
		else
			fc_compile_node(fc, (Node *) lfirst(lc));
		fc_emit(fc, GDB_OP_IS_NULL, 0, 0, 0, 0.0);
	}
	fc_emit(fc, GDB_OP_INT_NE, 0, 0, 0, 0.0);
	fc_emit(fc, GDB_OP_OR, 0, 0, 0, 0.0);
	fc_patch_jumps(fc, list_make1_int(jump));
}

/* Emit the program for one expression node, leaving its value on top. */
void
fc_compile_node(FilterCompiler *fc, Node *node)
{
	check_stack_depth();

	switch (nodeTag(node))
	{
		case T_Var:
			fc_emit(fc, GDB_OP_PUSH_COL, 0, fc_var_column(fc, (Var *) node, false),
				 0, 0.0);
			break;
		case T_Const:
			fc_compile_const(fc, (Const *) node);
			break;
		case T_RelabelType:
			if (fc_is_bpchar_relabel(node))
				fc_unsupported(fc, "a varchar or text value cast to char(n)",
							   "char(n) ignores trailing blanks, which the value's own type compares.",
							   exprLocation(node));
			fc_compile_node(fc, (Node *) ((RelabelType *) node)->arg);
			break;
		case T_CollateExpr:
			fc_compile_node(fc, (Node *) ((CollateExpr *) node)->arg);
			break;
		case T_BoolExpr:
			{
				BoolExpr   *b = (BoolExpr *) node;

				if (b->boolop == NOT_EXPR)
				{
					fc_compile_node(fc, (Node *) linitial(b->args));
					fc_emit(fc, GDB_OP_NOT, 0, 0, 0, 0.0);
				}
				else
					compile_chain(fc, b->args, b->boolop == AND_EXPR, false);
			}
			break;
		case T_NullTest:
			{
				NullTest   *nt = (NullTest *) node;
				Node	   *arg = fc_strip_relabel((Node *) nt->arg);

				if (nt->argisrow || type_is_rowtype(exprType((Node *) nt->arg)))
					fc_unsupported(fc, "IS NULL on a row value", NULL,
								nt->location);
				if (IsA(arg, Var))	/* any column type: only the flag */
					fc_emit(fc, GDB_OP_PUSH_COL, 0,
						 fc_var_column(fc, (Var *) arg, true), 0, 0.0);
				else
					fc_compile_node(fc, (Node *) nt->arg);
				fc_emit(fc, nt->nulltesttype == IS_NULL ? GDB_OP_IS_NULL :
					 GDB_OP_IS_NOT_NULL, 0, 0, 0, 0.0);
			}
			break;
		case T_BooleanTest:
			{
				/* indexed by BoolTestType; IS [NOT] UNKNOWN is IS [NOT] NULL */
				static const GdbOpcode ops[] = {
					GDB_OP_IS_TRUE, GDB_OP_IS_NOT_TRUE, GDB_OP_IS_FALSE,
					GDB_OP_IS_NOT_FALSE, GDB_OP_IS_NULL, GDB_OP_IS_NOT_NULL
				};
				BooleanTest *bt = (BooleanTest *) node;

				StaticAssertStmt(IS_NOT_UNKNOWN == 5, "BoolTestType changed");
				fc_compile_node(fc, (Node *) bt->arg);
				fc_emit(fc, ops[bt->booltesttype], 0, 0, 0, 0.0);
			}
			break;
		case T_OpExpr:
			{
				OpExpr	   *op = (OpExpr *) node;

				set_opfuncid(op);
				compile_call(fc, op->opfuncid, op->opno, op->args,
							 op->inputcollid, op->location);
			}
			break;
		case T_FuncExpr:
			{
				FuncExpr   *f = (FuncExpr *) node;

				compile_call(fc, f->funcid, InvalidOid, f->args,
							 f->inputcollid, f->location);
			}
			break;
		case T_DistinctExpr:
			compile_distinct(fc, (DistinctExpr *) node);
			break;
		case T_ScalarArrayOpExpr:
			compile_saop(fc, (ScalarArrayOpExpr *) node);
			break;
		default:
			if (!fc_compile_value_node(fc, node))
				fc_unsupported(fc, describe_node(node), NULL, exprLocation(node));
	}
}

/*
 * Checks made on the whole analysed expression before it is folded or
 * compiled, so their errors come first: no system column or whole-row
 * reference, no column of a type the batch cannot carry (except directly
 * under IS [NOT] NULL), and no function that is not built in (the folding
 * of step 3 must not run user code).
 */
static bool
is_user_function(Oid funcid, void *context)
{
	if (funcid >= FirstNormalObjectId)
	{
		*(Oid *) context = funcid;
		return true;
	}
	return false;
}

static bool precheck_walker(Node *node, FilterCompiler *fc);

/* see expr_compile.h */
void
fc_precheck(FilterCompiler *fc, Node *node)
{
	(void) precheck_walker(node, fc);
}

static bool
precheck_walker(Node *node, FilterCompiler *fc)
{
	Oid			userfunc = InvalidOid;
	Var		   *var = NULL;
	bool		nulltest = false;

	if (node == NULL)
		return false;
	if (IsA(node, NullTest) &&
		IsA(fc_strip_relabel((Node *) ((NullTest *) node)->arg), Var))
	{
		var = (Var *) fc_strip_relabel((Node *) ((NullTest *) node)->arg);
		nulltest = true;		/* any column type is fine here */
	}
	else if (IsA(node, Var))
		var = (Var *) node;
	if (var)
	{
		if (var->varattno == 0)
			fc_unsupported(fc, "a whole-row reference", NULL, var->location);
		if (var->varattno < 0)
			fc_unsupported(fc, psprintf("system column \"%s\"",
									 get_attname(RelationGetRelid(fc->rel),
												 var->varattno, false)),
						NULL, var->location);
		if (!nulltest && !gdb_type_supported(var->vartype, var->vartypmod))
			fc_unsupported(fc, psprintf("column \"%s\" of type %s",
									 get_attname(RelationGetRelid(fc->rel),
												 var->varattno, false),
									 format_type_with_typemod(var->vartype,
															  var->vartypmod)),
						"Only IS [NOT] NULL can test a column of this type.",
						var->location);
		return false;
	}
	if (check_functions_in_node(node, is_user_function, &userfunc))
		fc_unsupported(fc, IsA(node, OpExpr) ?
					psprintf("operator %s",
							 format_operator(((OpExpr *) node)->opno)) :
					psprintf("function %s", format_procedure(userfunc)),
					"Only built-in functions and operators are supported.",
					exprLocation(node));
	return expression_tree_walker(node, precheck_walker, (void *) fc);
}

/* Raw-tree walker: the location of the first subquery, if any. */
static bool
raw_sublink_walker(Node *node, int *location)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
	{
		*location = ((SubLink *) node)->location;
		return true;
	}
	return raw_expression_tree_walker(node, raw_sublink_walker,
									  (void *) location);
}


/*
 * gdb_compile_filter
 *		Compile filter into req->program and req->ninstr.
 *
 * filter	the text of one boolean SQL expression over rel's columns, as it
 *			would be written after WHERE (column names may be qualified by
 *			the relation's name)
 * rel		the relation, opened and locked (at least AccessShareLock) by
 *			the caller
 * cs		the columns read: the filter's columns are added to it (IS NULL
 *			alone on a column of a type the batch cannot carry adds it as
 *			nulls_only); its text constants are interned into cs->dict,
 *			which is created here if it does not exist yet
 * req		only program and ninstr are written; ninstr is 0 when the
 *			filter is constantly TRUE
 * fname	the calling SQL function, for messages
 *
 * Errors: ERRCODE_INVALID_PARAMETER_VALUE for an empty filter;
 * ERRCODE_SYNTAX_ERROR for text that is not exactly one expression
 * (including several statements: no statement is ever executed, and the
 * only functions called are built-in immutable ones on constants, folded
 * as the planner folds them);
 * ERRCODE_FEATURE_NOT_SUPPORTED for a subquery and for any construct,
 * operator, function, column type or constant type outside the supported
 * set, naming it; ERRCODE_PROGRAM_LIMIT_EXCEEDED when the program exceeds
 * GDB_MAX_INSTR instructions or GDB_MAX_STACK stack entries;
 * PostgreSQL's own errors for unknown columns, other tables' columns, type
 * mismatches, aggregates, window and set-returning functions, missing
 * SELECT privilege on the columns read or EXECUTE privilege on a function,
 * and for errors raised while folding constants (such as "1/0").
 */
void
gdb_compile_filter(const char *filter, Relation rel, GdbColumnSet *cs,
				   GdbRequest *req, const char *fname)
{
	ErrorContextCallback errcallback;
	FilterCompiler fc;
	const char *p;
	List	   *raw;
	RawStmt    *rawstmt;
	SelectStmt *stmt;
	ResTarget  *target;
	ParseState *pstate;
	ParseNamespaceItem *nsitem;
	Node	   *expr;
	List	   *quals;
	int			sublink = -1;

	for (p = filter; p && *p && scanner_isspace(*p); p++)
		;
	if (p == NULL || *p == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s filter must not be empty", fname),
				 errhint("Pass NULL for no filter, or one boolean expression such as \"x > 0\".")));

	memset(&fc, 0, sizeof(fc));
	fc.varno = 1;
	fc.rel = rel;
	fc.cs = cs;
	fc.filter = filter;
	fc.fname = fname;
	fc.code = req->program;
	fc.req = req;
	errcallback.callback = filter_error_callback;
	errcallback.arg = &fc;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;

	/* 1. parse: one expression, nothing around it */
	raw = raw_parser(filter, RAW_PARSE_PLPGSQL_EXPR);
	rawstmt = list_length(raw) == 1 ? linitial_node(RawStmt, raw) : NULL;
	stmt = rawstmt && IsA(rawstmt->stmt, SelectStmt) ?
		(SelectStmt *) rawstmt->stmt : NULL;
	target = stmt && list_length(stmt->targetList) == 1 ?
		linitial_node(ResTarget, stmt->targetList) : NULL;
	if (target == NULL || target->name != NULL ||
		target->indirection != NIL || target->val == NULL ||
		stmt->distinctClause != NIL || stmt->intoClause != NULL ||
		stmt->fromClause != NIL || stmt->whereClause != NULL ||
		stmt->groupClause != NIL || stmt->groupDistinct ||
		stmt->havingClause != NULL || stmt->windowClause != NIL ||
		stmt->valuesLists != NIL || stmt->sortClause != NIL ||
		stmt->limitOffset != NULL || stmt->limitCount != NULL ||
		stmt->lockingClause != NIL || stmt->withClause != NULL ||
		stmt->op != SETOP_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("filter must be a single expression"),
				 errdetail("The %s filter is one boolean expression as written after WHERE, without an alias, a second expression or clauses such as FROM, GROUP BY, ORDER BY or LIMIT.",
						   fname)));

	fc.pstate = pstate = make_parsestate(NULL);
	pstate->p_sourcetext = filter;

	/* no subquery, so no other relation is ever looked up */
	if (raw_sublink_walker(target->val, &sublink))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("subqueries are not allowed in a %s filter", fname),
				 parser_errposition(pstate, sublink)));

	/* 2. analyse as a WHERE clause over rel alone */
	nsitem = addRangeTableEntryForRelation(pstate, rel, AccessShareLock,
										   NULL, false, false);
	addNSItemToQuery(pstate, nsitem, false, true, true);
	expr = transformExpr(pstate, target->val, EXPR_KIND_WHERE);
	expr = coerce_to_boolean(pstate, expr, "filter");
	assign_expr_collations(pstate, expr);

	/* SELECT privilege on the columns it reads, as the executor checks */
	(void) gdb_check_rt_perms(pstate, true);

	(void) precheck_walker(expr, &fc);

	/* 3. the planner's preprocessing of a WHERE clause */
	expr = eval_const_expressions(NULL, expr);
	expr = (Node *) canonicalize_qual((Expr *) expr, false);
	quals = gdb_column_terms_first(gdb_quals_in_scan_order(make_ands_implicit((Expr *) expr)));

	/* 4. emit; NIL (constantly TRUE) is the empty program */
	if (list_length(quals) == 1)
		fc_compile_node(&fc, (Node *) linitial(quals));
	else if (quals != NIL)
		compile_chain(&fc, quals, true, true);
	Assert(fc.ninstr == 0 || fc.depth == 1);

	if (fc.ninstr > GDB_MAX_INSTR || fc.maxdepth > GDB_MAX_STACK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s filter is too complex", fname),
				 errdetail("The compiled filter needs %d instructions and a stack of %d values; the limits are %d and %d.",
						   fc.ninstr, fc.maxdepth, GDB_MAX_INSTR,
						   GDB_MAX_STACK),
				 errhint("Shorten long IN lists or split the filter.")));
	req->ninstr = (uint32) fc.ninstr;

	free_parsestate(pstate);
	error_context_stack = errcallback.previous;
}

/*
 * Compile the planner's quals (see gdb_compile_quals) or raise.
 */
static void
compile_quals(FilterCompiler *fc, List *quals)
{
	ListCell   *lc;

	foreach(lc, quals)
		(void) precheck_walker((Node *) lfirst(lc), fc);
	quals = gdb_column_terms_first(quals);
	if (list_length(quals) == 1)
		fc_compile_node(fc, (Node *) linitial(quals));
	else if (quals != NIL)
		compile_chain(fc, quals, true, true);
	if (fc->ninstr > GDB_MAX_INSTR || fc->maxdepth > GDB_MAX_STACK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s filter is too complex", fc->fname),
				 errdetail("The compiled filter needs %d instructions and a stack of %d values; the limits are %d and %d.",
						   fc->ninstr, fc->maxdepth, GDB_MAX_INSTR,
						   GDB_MAX_STACK)));
}

/*
 * gdb_compile_quals
 *		Compile quals, an implicitly AND-ed list of planner-preprocessed
 *		conditions over rel's columns (Vars of any varno), in the order the
 *		executor would evaluate them, into req->program / req->ninstr.
 *		Used by the custom scan nodes; the program stops at the first
 *		condition that is FALSE or NULL, as ExecQual does.
 *
 * cs receives the columns read (text constants go into cs->dict).  With
 * soft, a construct outside the supported set (the errors 0A000, 54000,
 * 42P22 and 42501 of gdb_compile_filter) makes it return false with *why
 * set to the reason, leaving req (its code tables included), cs and the
 * caller's state as they were before any instruction was kept; other
 * errors propagate.  Text operations add code tables to req (see
 * string_compile.c); compiling the same quals again reuses them.  Without soft,
 * those errors are raised.  Returns true when compiled.  Nothing is
 * evaluated: the planner has folded constants already, and a parameter
 * compared with a column is its value from cs->param_values or a
 * placeholder of its type (param_values.c).
 */
bool
gdb_compile_quals(List *quals, Relation rel, GdbColumnSet *cs,
				  GdbRequest *req, const char *fname, bool soft, char **why)
{
	FilterCompiler fc;
	MemoryContext oldcxt = CurrentMemoryContext;
	GdbColumnSet saved_cs = *cs;
	uint32		saved_ntables = req->ntables;
	volatile bool ok = true;

	/* parameters compared with columns: their values, or placeholders */
	quals = gdb_quals_param_values(quals, cs);
	memset(&fc, 0, sizeof(fc));
	fc.varno = 0;
	fc.rel = rel;
	fc.cs = cs;
	fc.filter = "";
	fc.fname = fname;
	fc.code = req->program;
	fc.req = req;
	if (!soft)
	{
		compile_quals(&fc, quals);
		req->ninstr = (uint32) fc.ninstr;
		return true;
	}
	PG_TRY();
	{
		compile_quals(&fc, quals);
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
	if (!ok)
	{
		*cs = saved_cs;
		req->ninstr = 0;
		req->ntables = saved_ntables;
		return false;
	}
	req->ninstr = (uint32) fc.ninstr;
	return true;
}

/* Which opcodes can raise an SQL error, from the shared X-macro list. */
static const bool gdb_op_raises[GDB_OP__COUNT] = {
#define GDB_OP_RAISES(name, effect, raises, doc) raises,
	GDB_OPCODE_LIST(GDB_OP_RAISES)
#undef GDB_OP_RAISES
};

/*
 * gdb_program_may_raise: does req's filter program hold an instruction that
 * can raise an SQL error (overflow, division by zero)?
 */
bool
gdb_program_may_raise(const GdbRequest *req)
{
	uint32		i;

	for (i = 0; i < req->ninstr && i < GDB_MAX_INSTR; i++)
		if (req->program[i].op < GDB_OP__COUNT && gdb_op_raises[req->program[i].op])
			return true;
	return false;
}
