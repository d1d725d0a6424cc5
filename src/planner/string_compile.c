/*-------------------------------------------------------------------------
 *
 * string_compile.c
 *	  Text operations of filters and computed columns: LIKE, ILIKE and
 *	  their negations (text, varchar, char(n)), starts_with (and ^@),
 *	  <, <=, >, >= against a text constant in the C collation (and the
 *	  ~<~ family in any collation), length, char_length and octet_length;
 *	  and the text-valued lower, upper, substr, left and right of a column
 *	  (computed columns such as group keys).
 *
 * Text reaches the device as dictionary codes (dictionary.c), so none of
 * these can look at a string on the device.  Each becomes a code table of
 * the request (GdbCodeTable, gpudb_device.h): the operation applied once
 * to every distinct string of the dictionary on the host, before each
 * batch (text_tables.c), as a bit or a word per code; the program pushes
 * the column's code and looks it up (TEXT_IN_SET for the predicates,
 * TEXT_MAP for the lengths and for the text-valued functions, whose word
 * is the code of the result, added to the same dictionary), so the
 * row-level work touches codes only.
 * Equal codes are byte-equal strings, and every operation here gives one
 * answer per byte string under a deterministic collation, so the lookup
 * is exactly PostgreSQL's result; a NULL row stays NULL (every operation
 * here is strict).
 *
 * What keeps PostgreSQL's plan (fc_unsupported, the planner says why):
 * an operand that is not a text column (or a char(n) column cast to
 * text), a pattern or comparand that is not a constant, a
 * nondeterministic collation (PostgreSQL refuses it for LIKE and
 * starts_with, and its order is not by bytes), a comparison under a
 * collation whose order is not byte order, a LIKE pattern ending with its
 * escape character (PostgreSQL raises that only for the rows whose
 * matching reaches the end of the pattern, which a per-string evaluation
 * cannot reproduce), a substr of negative length (an error likewise), and
 * integer arguments that are not constants.  ESCAPE clauses are folded
 * into the pattern by the planner (like_escape of constants) before this
 * sees them.
 *
 * char(n): values are stored blank-padded to n (heap_batch.c), as
 * PostgreSQL stores them.  LIKE on char(n) (bpcharlike) matches the padded
 * value; comparisons of char(n) (bpcharlt, ...) and length() ignore the
 * trailing blanks of both sides, as does a char(n) column cast to text
 * (GDB_TF_RTRIM); octet_length counts the padding.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "regex/regex.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/selfuncs.h"

#include "expr_compile.h"

/* How an operation is compiled. */
typedef enum StrKind
{
	SK_MATCH,					/* column LIKE / ILIKE pattern, starts_with */
	SK_COMPARE,					/* column op constant, either order */
	SK_VALUE,					/* f(column), an integer */
	SK_TEXTVALUE				/* f(column [, integer constants]), text */
} StrKind;

typedef struct StringFunc
{
	Oid			funcid;
	uint8		kind;			/* StrKind */
	uint8		fn;				/* GdbTextFn */
	bool		negate;			/* NOT LIKE: the table's bit negated */
	bool		trim;			/* char(n) semantics: trailing blanks of the
								 * value (and of the constant) ignored */
	bool		bytes;			/* byte order under every collation (~<~) */
} StringFunc;

#define SF(f, k, fn, neg, trim, bytes) \
	{F_##f, SK_##k, GDB_TFN_##fn, neg, trim, bytes}

static const StringFunc string_funcs[] = {
	/* LIKE and ILIKE; bpcharlike is textlike over the padded value */
	SF(TEXTLIKE, MATCH, LIKE, false, false, false),
	SF(TEXTNLIKE, MATCH, LIKE, true, false, false),
	SF(BPCHARLIKE, MATCH, LIKE, false, false, false),
	SF(BPCHARNLIKE, MATCH, LIKE, true, false, false),
	SF(TEXTICLIKE, MATCH, ILIKE, false, false, false),
	SF(TEXTICNLIKE, MATCH, ILIKE, true, false, false),
	SF(BPCHARICLIKE, MATCH, ILIKE, false, false, false),
	SF(BPCHARICNLIKE, MATCH, ILIKE, true, false, false),
	/* regular expressions: ~, !~, ~*, !~* (char(n) with its padding, as
	 * PostgreSQL's bpcharregexeq is textregexeq over the padded value) */
	SF(TEXTREGEXEQ, MATCH, REGEX, false, false, false),
	SF(TEXTREGEXNE, MATCH, REGEX, true, false, false),
	SF(BPCHARREGEXEQ, MATCH, REGEX, false, false, false),
	SF(BPCHARREGEXNE, MATCH, REGEX, true, false, false),
	SF(TEXTICREGEXEQ, MATCH, IREGEX, false, false, false),
	SF(TEXTICREGEXNE, MATCH, IREGEX, true, false, false),
	SF(BPCHARICREGEXEQ, MATCH, IREGEX, false, false, false),
	SF(BPCHARICREGEXNE, MATCH, IREGEX, true, false, false),
	/* starts_with(text, text) and ^@ */
	SF(STARTS_WITH, MATCH, PREFIX, false, false, false),
	/* comparisons: the collation's order (C only), or bytes (~<~) */
	SF(TEXT_LT, COMPARE, LT, false, false, false),
	SF(TEXT_LE, COMPARE, LE, false, false, false),
	SF(TEXT_GT, COMPARE, GT, false, false, false),
	SF(TEXT_GE, COMPARE, GE, false, false, false),
	SF(BPCHARLT, COMPARE, LT, false, true, false),
	SF(BPCHARLE, COMPARE, LE, false, true, false),
	SF(BPCHARGT, COMPARE, GT, false, true, false),
	SF(BPCHARGE, COMPARE, GE, false, true, false),
	SF(TEXT_PATTERN_LT, COMPARE, LT, false, false, true),
	SF(TEXT_PATTERN_LE, COMPARE, LE, false, false, true),
	SF(TEXT_PATTERN_GT, COMPARE, GT, false, false, true),
	SF(TEXT_PATTERN_GE, COMPARE, GE, false, false, true),
	SF(BPCHAR_PATTERN_LT, COMPARE, LT, false, true, true),
	SF(BPCHAR_PATTERN_LE, COMPARE, LE, false, true, true),
	SF(BPCHAR_PATTERN_GT, COMPARE, GT, false, true, true),
	SF(BPCHAR_PATTERN_GE, COMPARE, GE, false, true, true),
	/* lengths: characters (char(n) without its padding) and bytes */
	SF(LENGTH_TEXT, VALUE, CHAR_LENGTH, false, false, false),
	SF(CHAR_LENGTH_TEXT, VALUE, CHAR_LENGTH, false, false, false),
	SF(CHARACTER_LENGTH_TEXT, VALUE, CHAR_LENGTH, false, false, false),
	SF(LENGTH_BPCHAR, VALUE, CHAR_LENGTH, false, true, false),
	SF(CHAR_LENGTH_BPCHAR, VALUE, CHAR_LENGTH, false, true, false),
	SF(CHARACTER_LENGTH_BPCHAR, VALUE, CHAR_LENGTH, false, true, false),
	SF(OCTET_LENGTH_TEXT, VALUE, OCTET_LENGTH, false, false, false),
	SF(OCTET_LENGTH_BPCHAR, VALUE, OCTET_LENGTH, false, false, false),
	/* text results: the code of the result string */
	SF(LOWER_TEXT, TEXTVALUE, LOWER, false, false, false),
	SF(UPPER_TEXT, TEXTVALUE, UPPER, false, false, false),
	SF(SUBSTR_TEXT_INT4_INT4, TEXTVALUE, SUBSTR, false, false, false),
	SF(SUBSTR_TEXT_INT4, TEXTVALUE, SUBSTR, false, false, false),
	SF(SUBSTRING_TEXT_INT4_INT4, TEXTVALUE, SUBSTR, false, false, false),
	SF(SUBSTRING_TEXT_INT4, TEXTVALUE, SUBSTR, false, false, false),
	SF(LEFT, TEXTVALUE, LEFT, false, false, false),
	SF(RIGHT, TEXTVALUE, RIGHT, false, false, false),
};

#undef SF

/* The entry of string_funcs for funcid, or NULL. */
static const StringFunc *
lookup_string_func(Oid funcid)
{
	int			i;

	for (i = 0; i < lengthof(string_funcs); i++)
		if (string_funcs[i].funcid == funcid)
			return &string_funcs[i];
	return NULL;
}

/* see expr_compile.h */
bool
fc_string_function(Oid funcid)
{
	return lookup_string_func(funcid) != NULL;
}

/*
 * The batch column of a text operand: a text, varchar or char(n) column,
 * or a char(n) column cast to text (which loses its trailing blanks:
 * *flags gets GDB_TF_RTRIM); -1 for anything else.
 */
static int
operand_column(FilterCompiler *fc, Node *node, uint16 *flags)
{
	node = fc_strip_relabel(node);
	if (IsA(node, FuncExpr) && ((FuncExpr *) node)->funcid == F_TEXT_BPCHAR &&
		list_length(((FuncExpr *) node)->args) == 1)
	{
		Node	   *arg = fc_strip_relabel((Node *) linitial(((FuncExpr *) node)->args));

		if (!IsA(arg, Var) || ((Var *) arg)->vartype != BPCHAROID)
			return -1;
		*flags |= GDB_TF_RTRIM;
		node = arg;
	}
	if (!IsA(node, Var) ||
		gdb_type_class(((Var *) node)->vartype) != GDB_TYPE_TEXT)
		return -1;
	return fc_var_column(fc, (Var *) node, false);
}

/* Is node a constant of a text type (text, varchar, char)? */
static bool
is_text_const(Node *node)
{
	Oid			type;

	node = fc_strip_relabel(node);
	if (!IsA(node, Const))
		return false;
	type = getBaseType(((Const *) node)->consttype);
	return type == TEXTOID || type == VARCHAROID || type == BPCHAROID;
}

/* Does a LIKE pattern end with its escape character (a lone backslash)? */
static bool
ends_with_escape(const char *p, int len)
{
	int			i = 0;

	while (i < len)
	{
		if (p[i] == '\\')
		{
			if (i + 1 == len)
				return true;
			i += 2;
		}
		else
			i++;
	}
	return false;
}

/* The request's code table for the description, added if new. */
static int
add_table(FilterCompiler *fc, uint16 fn, uint16 flags, int32 text_arg,
		  Oid collation, const int32 *iarg)
{
	GdbRequest *req = fc->req;
	int32		encoding = GetDatabaseEncoding();
	uint32		j;

	for (j = 0; j < req->ntables; j++)
	{
		GdbCodeTable *t = &req->tables[j];

		if (t->fn == fn && t->flags == flags && t->text_arg == text_arg &&
			t->collation == collation && t->encoding == encoding &&
			t->iarg[0] == iarg[0] && t->iarg[1] == iarg[1])
			return (int) j;
	}
	if (req->ntables >= GDB_MAX_CODE_TABLES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s uses too many text operations", fc->fname),
				 errdetail("At most %d distinct LIKE, ILIKE, starts_with, text comparisons and lengths run in one request.",
						   GDB_MAX_CODE_TABLES)));
	j = req->ntables++;
	memset(&req->tables[j], 0, sizeof(GdbCodeTable));
	req->tables[j].fn = fn;
	req->tables[j].flags = flags;
	req->tables[j].text_arg = text_arg;
	req->tables[j].collation = collation;
	req->tables[j].encoding = encoding;
	req->tables[j].iarg[0] = iarg[0];
	req->tables[j].iarg[1] = iarg[1];
	return (int) j;
}

/* The commuted comparison: c op x is x op' c. */
static uint8
commute_fn(uint8 fn)
{
	switch (fn)
	{
		case GDB_TFN_LT:
			return GDB_TFN_GT;
		case GDB_TFN_LE:
			return GDB_TFN_GE;
		case GDB_TFN_GT:
			return GDB_TFN_LT;
		case GDB_TFN_GE:
			return GDB_TFN_LE;
		default:
			return fn;
	}
}

/*
 * Does pattern compile as a regular expression (advanced, case-insensitive
 * when icase) under collation coll?  PostgreSQL compiles it when the first
 * row reaches it, and raises there; the code table would compile it for
 * every string of the dictionary, rows filtered out before included, so
 * one that fails keeps PostgreSQL's plan.
 */
static bool
regex_compiles(Datum pattern, bool icase, Oid coll)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	volatile bool ok = true;

	PG_TRY();
	{
		(void) RE_compile_and_cache(DatumGetTextPP(pattern),
									REG_ADVANCED | (icase ? REG_ICASE : 0), coll);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_INVALID_REGULAR_EXPRESSION)
			PG_RE_THROW();
		FlushErrorState();
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/*
 * Refuse what the operation's collation does not allow on the device,
 * as PostgreSQL would raise or order otherwise.
 */
static void
check_collation(FilterCompiler *fc, const StringFunc *sf, const char *what,
				Oid coll, int location)
{
	bool		needs_coll = sf->fn == GDB_TFN_ILIKE || sf->fn == GDB_TFN_PREFIX ||
		sf->fn == GDB_TFN_REGEX || sf->fn == GDB_TFN_IREGEX ||
		(sf->kind == SK_COMPARE && !sf->bytes);

	if (sf->kind == SK_VALUE || sf->kind == SK_TEXTVALUE ||
		(sf->kind == SK_COMPARE && sf->bytes))
		return;
	if (!OidIsValid(coll))
	{
		if (!needs_coll)
			return;				/* LIKE: no collation is needed */
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_COLLATION),
				 errmsg("could not determine which collation to use for %s", what),
				 errhint("Use the COLLATE clause to set the collation explicitly."),
				 parser_errposition(fc->pstate, location)));
	}
	if (!get_collation_isdeterministic(coll))
		fc_unsupported(fc, psprintf("%s under the nondeterministic collation \"%s\"",
									what, get_collation_name(coll)),
					   "The device compares text by its bytes, which only deterministic collations do.",
					   location);
	if (sf->kind == SK_COMPARE && !gdb_collate_is_c(coll))
		fc_unsupported(fc, psprintf("%s under the collation \"%s\"",
									what, get_collation_name(coll)),
					   "The device orders text by its bytes, which is the order of the C and POSIX collations only.",
					   location);
}

/*
 * A text-valued function of a column (lower, upper, substr, left, right)
 * with integer constants: PUSH_COL, TEXT_MAP of a table whose word is the
 * result's code.
 */
static bool
compile_text_value(FilterCompiler *fc, const StringFunc *sf, const char *what,
				   List *args, Oid inputcollid, int location)
{
	uint16		flags = 0;
	int32		iarg[2] = {0, 0};
	int			nargs = list_length(args);
	int			col;
	int			i;
	int			j;

	if (nargs < 1 || nargs > 3)
		elog(ERROR, "%s called with %d arguments", what, nargs);
	if (sf->fn == GDB_TFN_LOWER || sf->fn == GDB_TFN_UPPER)
	{
		/* lower() and upper() refuse an unknown collation */
		if (!OidIsValid(inputcollid))
			ereport(ERROR,
					(errcode(ERRCODE_INDETERMINATE_COLLATION),
					 errmsg("could not determine which collation to use for %s() function", what),
					 errhint("Use the COLLATE clause to set the collation explicitly."),
					 parser_errposition(fc->pstate, location)));
		if (gdb_ctype_is_c(inputcollid))
			flags |= GDB_TF_CTYPE_C;
	}
	col = operand_column(fc, (Node *) linitial(args), &flags);
	if (col < 0)
		fc_unsupported(fc, psprintf("%s of an expression", what),
					   "The device evaluates text functions of a text column, or of a char(n) column cast to text.",
					   exprLocation((Node *) linitial(args)));
	for (i = 1; i < nargs; i++)
	{
		Const	   *c = (Const *) fc_strip_relabel((Node *) list_nth(args, i));

		if (!IsA(c, Const) || c->consttype != INT4OID)
			fc_unsupported(fc, psprintf("%s whose integer arguments are not constants", what),
						   NULL, exprLocation((Node *) c));
		if (c->constisnull)
		{
			/* strict: NULL (the column cannot raise) */
			fc_emit(fc, GDB_OP_PUSH_NULL, 0, 0, 0, 0.0);
			return true;
		}
		iarg[i - 1] = DatumGetInt32(c->constvalue);
	}
	if (sf->fn == GDB_TFN_SUBSTR && nargs == 3 && iarg[1] < 0)
		fc_unsupported(fc, psprintf("%s with a negative length", what),
					   "PostgreSQL raises this error for the rows it evaluates it for.",
					   location);
	if (sf->fn == GDB_TFN_SUBSTR && nargs == 2)
		flags |= GDB_TF_NOLEN;
	j = add_table(fc, sf->fn, flags, -1,
				  sf->fn == GDB_TFN_LOWER || sf->fn == GDB_TFN_UPPER ? inputcollid : InvalidOid,
				  iarg);
	fc_emit(fc, GDB_OP_PUSH_COL, 0, col, 0, 0.0);
	fc_emit(fc, GDB_OP_TEXT_MAP, 0, j, 0, 0.0);
	return true;
}

/* see expr_compile.h */
bool
fc_text_valued(Node *expr)
{
	const StringFunc *sf;

	expr = fc_strip_relabel(expr);
	if (!IsA(expr, FuncExpr))
		return false;
	sf = lookup_string_func(((FuncExpr *) expr)->funcid);
	return sf != NULL && sf->kind == SK_TEXTVALUE;
}

/* see expr_compile.h */
bool
fc_compile_string_call(FilterCompiler *fc, Oid funcid, List *args,
					   Oid inputcollid, int location)
{
	const StringFunc *sf = lookup_string_func(funcid);
	const char *what;
	uint16		flags = 0;
	uint8		fn;
	Node	   *colarg;
	Node	   *constarg = NULL;
	Const	   *c;
	int			col;
	int			j;
	struct varlena *s;
	const char *data;
	int			len;
	int32		text_arg;
	static const int32 no_iarg[2] = {0, 0};

	if (sf == NULL)
		return false;
	what = sf->fn == GDB_TFN_LIKE ? "LIKE" :
		sf->fn == GDB_TFN_ILIKE ? "ILIKE" :
		sf->fn == GDB_TFN_REGEX || sf->fn == GDB_TFN_IREGEX ? "a regular expression" :
		sf->fn == GDB_TFN_PREFIX ? "starts_with" :
		sf->kind == SK_VALUE ? "a text length" :
		sf->kind == SK_TEXTVALUE ? get_func_name(funcid) : "a text comparison";
	if (fc->req == NULL)
		fc_unsupported(fc, psprintf("%s here", what), NULL, location);
	if (sf->kind == SK_TEXTVALUE)
		return compile_text_value(fc, sf, what, args, inputcollid, location);
	if (list_length(args) != (sf->kind == SK_VALUE ? 1 : 2))
		elog(ERROR, "function %u called with %d arguments",
			 funcid, list_length(args));
	check_collation(fc, sf, what, inputcollid, location);
	fn = sf->fn;

	/* the column, and the constant on its other side */
	colarg = (Node *) linitial(args);
	if (sf->kind != SK_VALUE)
	{
		constarg = (Node *) lsecond(args);
		if (sf->kind == SK_COMPARE && is_text_const(colarg) &&
			!is_text_const(constarg))
		{
			Node	   *t = colarg;

			colarg = constarg;
			constarg = t;
			fn = commute_fn(fn);
		}
		if (!is_text_const(constarg))
			fc_unsupported(fc, psprintf("%s whose %s is not a constant", what,
										sf->kind == SK_MATCH && fn != GDB_TFN_PREFIX ?
										"pattern" : "other operand"),
						   "The device evaluates text operations of a text column with a constant.",
						   location);
	}
	col = operand_column(fc, colarg, &flags);
	if (col < 0)
		fc_unsupported(fc, psprintf("%s of an expression", what),
					   "The device evaluates text operations of a text column, or of a char(n) column cast to text.",
					   exprLocation(colarg));
	if (sf->trim)
		flags |= GDB_TF_RTRIM;

	if (sf->kind == SK_VALUE)
	{
		j = add_table(fc, fn, flags, -1, InvalidOid, no_iarg);
		fc_emit(fc, GDB_OP_PUSH_COL, 0, col, 0, 0.0);
		fc_emit(fc, GDB_OP_TEXT_MAP, 4, j, 0, 0.0);
		return true;
	}

	c = (Const *) fc_strip_relabel(constarg);
	if (c->constisnull)
	{
		/* a strict operation of a NULL: NULL (the column cannot raise) */
		fc_emit(fc, GDB_OP_PUSH_NULL, 0, 0, 0, 0.0);
		return true;
	}
	s = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(c->constvalue));
	data = VARDATA_ANY(s);
	len = VARSIZE_ANY_EXHDR(s);
	if ((fn == GDB_TFN_LIKE || fn == GDB_TFN_ILIKE) && ends_with_escape(data, len))
		fc_unsupported(fc, "a LIKE pattern that ends with its escape character",
					   "PostgreSQL raises this error only for the rows whose matching reaches the end of the pattern.",
					   c->location);
	if (sf->trim && sf->kind == SK_COMPARE)
	{
		/* char(n) comparisons ignore the constant's trailing blanks too */
		while (len > 0 && data[len - 1] == ' ')
			len--;
	}
	if ((fn == GDB_TFN_REGEX || fn == GDB_TFN_IREGEX) &&
		!regex_compiles(c->constvalue, fn == GDB_TFN_IREGEX, inputcollid))
		fc_unsupported(fc, "a regular expression that does not compile",
					   "PostgreSQL raises its error only when a row reaches it.",
					   c->location);
	if ((fn == GDB_TFN_ILIKE || fn == GDB_TFN_REGEX || fn == GDB_TFN_IREGEX) &&
		gdb_ctype_is_c(inputcollid))
		flags |= GDB_TF_CTYPE_C;
	if (fc->cs->dict == NULL)
		fc->cs->dict = gdb_dict_create();
	text_arg = (int32) gdb_dict_intern(fc->cs->dict, data, len);
	/* ILIKE's and a regular expression's answers depend on the collation */
	j = add_table(fc, fn, flags, text_arg,
				  fn == GDB_TFN_ILIKE || fn == GDB_TFN_REGEX || fn == GDB_TFN_IREGEX ?
				  inputcollid : InvalidOid, no_iarg);
	fc_emit(fc, GDB_OP_PUSH_COL, 0, col, 0, 0.0);
	fc_emit(fc, GDB_OP_TEXT_IN_SET, 0, j, 0, 0.0);
	if (sf->negate)
		fc_emit(fc, GDB_OP_NOT, 0, 0, 0, 0.0);
	return true;
}

/* Walker of gdb_text_operations: counts into *n. */
static bool
text_operations_walker(Node *node, int *n)
{
	if (node == NULL)
		return false;
	if (IsA(node, OpExpr) || IsA(node, FuncExpr))
	{
		Oid			funcid = IsA(node, OpExpr) ?
			get_opcode(((OpExpr *) node)->opno) : ((FuncExpr *) node)->funcid;

		if (lookup_string_func(funcid) != NULL)
			(*n)++;
	}
	else if (IsA(node, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *saop = (ScalarArrayOpExpr *) node;

		/* one operation per element of the (constant) array */
		if (lookup_string_func(get_opcode(saop->opno)) != NULL)
			*n += Max(gdb_estimate_array_length((Node *) lsecond(saop->args)), 1);
	}
	return expression_tree_walker(node, text_operations_walker, (void *) n);
}

/* see gpudb.h */
int
gdb_text_operations(Node *node)
{
	int			n = 0;

	(void) text_operations_walker(node, &n);
	return n;
}

