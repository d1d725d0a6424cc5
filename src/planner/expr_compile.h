/*-------------------------------------------------------------------------
 *
 * expr_compile.h
 *	  The expression compiler's state and helpers, shared by the filter
 *	  compiler (filter_compile.c: booleans, comparisons, AND/OR) and the
 *	  value compiler (expr_compile.c: numeric fixed point, dates, CASE,
 *	  COALESCE and the other value expressions of computed columns).
 *	  Both emit the opcode program of gpudb_device.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_EXPR_COMPILE_H
#define GPUDB_EXPR_COMPILE_H

#include "gpudb.h"
#include "nodes/parsenodes.h"
#include "parser/parse_node.h"

/* State of one compilation. */
typedef struct FilterCompiler
{
	ParseState *pstate;			/* for error positions */
	Relation	rel;
	GdbColumnSet *cs;
	const char *filter;			/* the text, for error positions */
	const char *fname;			/* the calling SQL function, for messages */
	GdbInstr   *code;			/* req->program, or a computed column's part
								 * of req->eprogram */
	GdbRequest *req;			/* the request: its code tables
								 * (string_compile.c) */
	int			maxinstr;		/* room at code (0: GDB_MAX_INSTR) */
	Node	   *case_arg;		/* the CASE arg a CaseTestExpr stands for */
	int			varno;			/* range table index of rel's Vars; 0: any */
	int			ninstr;			/* emitted; stored only below GDB_MAX_INSTR */
	int			depth;			/* VM stack depth after the last one */
	int			maxdepth;
} FilterCompiler;


/*
 * gdb_quals_in_scan_order (qual_order.c): a WHERE's top-level conditions (an
 * implicit-AND list) in the order PostgreSQL's executor evaluates them for
 * a sequential scan (equivalence-class equalities last, then a stable
 * sort by per-row cost), so that the same rows raise.
 */
extern List *gdb_quals_in_scan_order(List *quals);

/*
 * gdb_column_terms_first (qual_order.c): quals with the comparisons of a
 * column with a non-NULL constant that cannot raise moved ahead of the
 * conditions before them, as long as those cannot raise either; the rest
 * in their order.  The same rows pass and the same first error is raised.
 */
extern List *gdb_column_terms_first(List *quals);

/* Append one instruction, tracking the VM stack depth; its index. */
extern int	fc_emit(FilterCompiler *fc, GdbOpcode op, int width, int32 arg,
					int64 ival, double fval);

/* ERROR 0A000 for what is outside the supported set; never returns. */
pg_noreturn extern void fc_unsupported(FilterCompiler *fc, const char *what,
									   const char *detail, int location);

/* Point the jumps at the instruction indexes in jumps at the next one. */
extern void fc_patch_jumps(FilterCompiler *fc, List *jumps);

/*
 * node below any RelabelType or CollateExpr, but not below a varchar or
 * text value relabelled as char(n) (fc_is_bpchar_relabel)
 */
extern Node *fc_strip_relabel(Node *node);

/*
 * Is node a RelabelType of a non-char(n) value (varchar, text) to char(n)?
 * Its trailing blanks stop counting: nothing compiles it as its argument.
 */
extern bool fc_is_bpchar_relabel(Node *node);

/* the batch column of a Var (nulls_ok: only its NULL flag is read) */
extern int	fc_var_column(FilterCompiler *fc, Var *var, bool nulls_ok);

/*
 * fc_precheck: the checks made on a whole expression before it is
 * compiled (system columns, unsupported column types, user functions)
 */
extern void fc_precheck(FilterCompiler *fc, Node *node);

/* emit the program of one expression node, leaving its value on top */
extern void fc_compile_node(FilterCompiler *fc, Node *node);
extern void fc_compile_const(FilterCompiler *fc, Const *c);

/*
 * expr_compile.c: the value expressions.
 *
 * gdb_numeric_scale: the display scale of every value of numeric
 * expression node (the column's scale, the constant's, the sum of the
 * factors' scales of a product, ...), or -1 when gpudb cannot compute it
 * as fixed point (a different scale per row, division, an unconstrained
 * column); GDB_SCALE_ANY for a NULL constant.
 */
#define GDB_SCALE_ANY (-2)
extern int	gdb_numeric_scale(Node *node);

/*
 * gdb_numeric_result_typmod: a typmod, numeric(18, s), for the values of
 * numeric expression expr of a derived table's output (a grouped
 * subquery's select list), whose own typmod is -1 (an aggregate's result,
 * an expression over one): s the display scale gdb_numeric_scale gives
 * once each sum, min, max and avg is replaced by its result's expected
 * scale (an avg's, 16, depends on its values: 12 from about 10^4 up, 20
 * for some averages of 1; the executor checks every value against s and
 * falls back to PostgreSQL's plan on a mismatch).
 * expr's own typmod where it has one or is not numeric; -1 where s is
 * unknown or above 18.  Never raises.
 */
extern int32 gdb_numeric_result_typmod(Node *expr);

/*
 * gdb_numeric_case_rescaled: for sum(expr) whose expr is a CASE whose arms
 * are numeric of different scales (TPC-H Q8 and Q14: THEN a price times a
 * discount, ELSE 0), the same CASE with every arm rounded up to the
 * largest scale s (round(arm, s): the same value), which gpudb computes as
 * fixed point, and in *dscale an integer CASE over the same conditions
 * giving each row's own display scale (NULL where the arm is NULL):
 * PostgreSQL's numeric sum shows the largest display scale of the values
 * it added, which MAX of *dscale per group gives back.  NULL (and *dscale
 * untouched) for any other expr.  Never raises.
 */
extern Node *gdb_numeric_case_rescaled(Node *expr, Node **dscale);

/*
 * gdb_sum_arg_exprs: the computed columns of the argument arg of a sum
 * (is_numeric_sum) or other aggregate: arg, or gdb_numeric_case_rescaled's
 * two expressions.  Never raises.
 */
extern List *gdb_sum_arg_exprs(Node *arg, bool is_numeric_sum);

/*
 * gdb_numeric_digits: a bound, in decimal digits, of the fixed-point value
 * (the value times 10^gdb_numeric_scale) of numeric expression node and of
 * every intermediate value computing it needs, from the columns'
 * precisions and the constants' digits: a + b one more than the larger, a
 * * b the sum; GDB_DIGITS_UNKNOWN where it cannot be bounded.  Above 18
 * (GDB_NUMERIC_MAX_PRECISION), a value may pass the 64-bit fixed point.
 */
#define GDB_DIGITS_UNKNOWN 99
extern int	gdb_numeric_digits(Node *node);

/*
 * gdb_uses_session_timezone: does node compute with timestamp with time
 * zone in the session's time zone (casts from and to date and timestamp,
 * date_trunc, date_part and extract, interval arithmetic)?  The compiler
 * takes those only in a fixed-offset zone, which may differ between
 * planning and execution.
 */
extern bool gdb_uses_session_timezone(Node *node);

/*
 * fc_compile_value_call: emit funcid(args) when it is one of the value
 * functions (numeric arithmetic and casts, date and timestamp arithmetic,
 * date_trunc, extract, abs, round...); false when it is none of them.
 */
extern bool fc_compile_value_call(FilterCompiler *fc, Oid funcid, List *args,
								  int location);

/*
 * fc_compile_value_node: emit a CASE, COALESCE, NULLIF, GREATEST, LEAST
 * or CaseTestExpr node; false for other node types.
 */
extern bool fc_compile_value_node(FilterCompiler *fc, Node *node);

/*
 * string_compile.c: text operations over a code table of the request
 * (TEXT_IN_SET, TEXT_MAP), evaluated once per dictionary string.
 *
 * fc_string_function: is funcid one of them (LIKE, ILIKE and their
 * negations on text, varchar and char(n); starts_with; <, <=, >, >= and
 * the ~<~ family against a text constant; length, char_length,
 * octet_length; lower, upper, substr, left and right, whose values are
 * the codes of their results)?  Never raises.
 *
 * fc_compile_string_call: emit funcid(args) when fc_string_function
 * says so and return true; false for any other function.  Raises 0A000
 * (fc_unsupported) for such an operation that cannot run on the device:
 * an operand that is not a text column (or a char(n) column cast to
 * text) or whose other operand is not a constant, a nondeterministic
 * collation, a comparison under a collation other than C or POSIX, a
 * LIKE pattern ending with its escape character; 42P22 for ILIKE or
 * starts_with without a collation; 54000 past GDB_MAX_CODE_TABLES.
 */
extern bool fc_string_function(Oid funcid);

/*
 * fc_text_valued: is expr (below relabelling) a call of a text-valued
 * function that string_compile.c computes (lower, upper, substr, left,
 * right of a column): a computed column of dictionary codes?  Never
 * raises.
 */
extern bool fc_text_valued(Node *expr);
extern bool fc_compile_string_call(FilterCompiler *fc, Oid funcid, List *args,
								   Oid inputcollid, int location);

/*
 * fc_compile_numeric_at: emit numeric expression node rescaled to scale
 * (at least its own, gdb_numeric_scale).
 */
extern void fc_compile_numeric_at(FilterCompiler *fc, Node *node, int scale);

/*
 * fc_compile_numeric_compared_at: the same for an operand of a comparison:
 * a value that the rescale would carry past the fixed point's range
 * saturates (NUM_RESCALE width 1) instead of raising, which keeps its order
 * against every value in range (PostgreSQL compares such values exactly).
 */
extern void fc_compile_numeric_compared_at(FilterCompiler *fc, Node *node, int scale);

#endif							/* GPUDB_EXPR_COMPILE_H */
