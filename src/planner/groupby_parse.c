/*-------------------------------------------------------------------------
 *
 * groupby_parse.c
 *	  Parse the text arguments of gpu_groupby(): group keys, aggregates,
 *	  the column definition list they imply, and the privileges they need.
 *
 * Nothing here runs SQL.  Column lists go through SplitIdentifierString
 * (PostgreSQL's identifier rules: unquoted names fold to lower case, quoted
 * ones keep their case); the aggregate list goes through PostgreSQL's raw
 * parser and is then checked to be nothing but calls of count, sum, avg,
 * min, max and the variance family on plain column names, count(DISTINCT
 * col), and percentile_cont(f), percentile_disc(f) and mode() WITHIN GROUP
 * (ORDER BY col) with f a constant.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
#include "parser/scansup.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/varlena.h"

#include "nodes/nodeFuncs.h"

#include "expr_compile.h"
#include "groupby.h"

/* Resolve a column name of q->rel; raises 42703 if there is none. */
static AttrNumber
resolve_column(GdbQuery *q, const char *name, const char *what)
{
	AttrNumber	attnum = get_attnum(RelationGetRelid(q->rel), name);

	if (attnum == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						name, RelationGetRelationName(q->rel)),
				 errdetail("It was named in the %s argument.", what)));
	if (attnum < 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("system column \"%s\" cannot be used in gpu_groupby",
						name)));
	return attnum;
}

/* see groupby.h */
void
gdb_query_add_key(GdbQuery *q, AttrNumber attnum, const char *name)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(q->rel), attnum - 1);
	int			k = q->nkeys;

	if (k >= GDB_MAX_GROUP_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many group keys: %d", k + 1),
				 errdetail("gpudb accepts at most %d group keys.",
						   GDB_MAX_GROUP_KEYS)));
	if (!gdb_type_supported(att->atttypid, att->atttypmod))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("group key \"%s\" has unsupported type %s",
						name, format_type_with_typemod(att->atttypid, att->atttypmod)),
				 errhint("Group keys may be smallint, integer, bigint, real, "
						 "double precision, boolean, date, timestamp, "
						 "timestamp with time zone, text, varchar or "
						 "numeric(p,s) with p <= %d and s >= 0.",
						 GDB_NUMERIC_MAX_PRECISION)));
	q->req->key_cols[k] = gdb_columnset_add(&q->cs, q->rel, attnum, false);
	q->key_types[k] = att->atttypid;
	q->key_names[k] = pstrdup(name);
	q->nkeys++;
	q->req->nkeys = q->nkeys;
}

/* see groupby.h */
void
gdb_query_add_key_expr(GdbQuery *q, Node *expr, const char *name)
{
	int			k = q->nkeys;

	if (k >= GDB_MAX_GROUP_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many group keys: %d", k + 1),
				 errdetail("gpudb accepts at most %d group keys.",
						   GDB_MAX_GROUP_KEYS)));
	q->req->key_cols[k] = gdb_columnset_add_expr(&q->cs, q->rel, expr, q->req,
												 "GpudbAgg");
	q->key_types[k] = exprType(expr);
	q->key_names[k] = pstrdup(name);
	q->nkeys++;
	q->req->nkeys = q->nkeys;
}

/* see groupby.h */
void
gdb_parse_group_keys(GdbQuery *q, const char *group_by)
{
	char	   *copy = pstrdup(group_by);
	List	   *names = NIL;
	ListCell   *lc;

	if (!SplitIdentifierString(copy, ',', &names))
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("invalid group_by list: \"%s\"", group_by),
				 errhint("Give comma-separated column names, e.g. 'origin, month', "
						 "or '' for one group.")));
	if (list_length(names) > GDB_MAX_GROUP_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many group keys: %d", list_length(names)),
				 errdetail("gpu_groupby accepts at most %d group keys.",
						   GDB_MAX_GROUP_KEYS)));

	foreach(lc, names)
	{
		char	   *name = (char *) lfirst(lc);
		AttrNumber	attnum;

		if (name[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("invalid group_by list: \"%s\"", group_by),
					 errdetail("A column name is empty.")));
		attnum = resolve_column(q, name, "group_by");
		gdb_query_add_key(q, attnum, name);
	}
	q->req->nkeys = q->nkeys;
}

/* see groupby.h */
int
gdb_aggregate_function(const char *name, bool star)
{
	static const struct
	{
		const char *name;
		GdbAggFunc	fn;
	}			names[] = {
		{"count", GDB_FN_COUNT}, {"sum", GDB_FN_SUM}, {"avg", GDB_FN_AVG},
		{"min", GDB_FN_MIN}, {"max", GDB_FN_MAX},
		{"variance", GDB_FN_VAR_SAMP}, {"var_samp", GDB_FN_VAR_SAMP},
		{"var_pop", GDB_FN_VAR_POP}, {"stddev", GDB_FN_STDDEV_SAMP},
		{"stddev_samp", GDB_FN_STDDEV_SAMP}, {"stddev_pop", GDB_FN_STDDEV_POP}
	};
	int			i;

	if (star)
		return strcmp(name, "count") == 0 ? GDB_FN_COUNT_STAR : -1;
	for (i = 0; i < lengthof(names); i++)
		if (strcmp(name, names[i].name) == 0)
			return names[i].fn;
	return -1;
}

/* see groupby.h */
bool
gdb_aggregate_kind(GdbAggFunc fn, Oid argtype, uint32 *kind, Oid *result_type)
{
	GdbTypeClass cls = OidIsValid(argtype) ?
		gdb_type_class(argtype) : GDB_TYPE_UNSUPPORTED;

	switch (fn)
	{
		case GDB_FN_COUNT_STAR:
		case GDB_FN_COUNT:
			*result_type = INT8OID;
			*kind = fn == GDB_FN_COUNT_STAR ? GDB_AGG_COUNT_STAR : GDB_AGG_COUNT;
			return true;
		case GDB_FN_SUM:
		case GDB_FN_AVG:
			if (cls == GDB_TYPE_INT)
			{
				*kind = GDB_AGG_SUM_INT;
				*result_type = (fn == GDB_FN_AVG || argtype == INT8OID) ?
					NUMERICOID : INT8OID;
				return true;
			}
			if (cls == GDB_TYPE_FLOAT)
			{
				/* sum(real) adds in float4 steps (float4pl); avg(real) in float8 */
				*kind = fn == GDB_FN_SUM && argtype == FLOAT4OID ?
					GDB_AGG_SUM_FLOAT4 : GDB_AGG_SUM_FLOAT;
				*result_type = (fn == GDB_FN_SUM) ? argtype : FLOAT8OID;
				return true;
			}
			if (cls == GDB_TYPE_NUMERIC)
			{
				/* the scaled integers, plus a hidden max for NaN */
				*kind = GDB_AGG_SUM_INT;
				*result_type = NUMERICOID;
				return true;
			}
			return false;
		case GDB_FN_MIN:
		case GDB_FN_MAX:
			*result_type = argtype;
			if (cls == GDB_TYPE_INT || cls == GDB_TYPE_DATETIME ||
				cls == GDB_TYPE_NUMERIC)
			{
				*kind = fn == GDB_FN_MIN ? GDB_AGG_MIN_INT : GDB_AGG_MAX_INT;
				return true;
			}
			if (cls == GDB_TYPE_FLOAT)
			{
				*kind = fn == GDB_FN_MIN ? GDB_AGG_MIN_FLOAT : GDB_AGG_MAX_FLOAT;
				return true;
			}
			return false;
		case GDB_FN_VAR_SAMP:
		case GDB_FN_VAR_POP:
		case GDB_FN_STDDEV_SAMP:
		case GDB_FN_STDDEV_POP:
			if (argtype == INT2OID || argtype == INT4OID)
			{
				*kind = GDB_AGG_SUMSQ_INT;
				*result_type = NUMERICOID;
				return true;
			}
			if (cls == GDB_TYPE_FLOAT)
			{
				*kind = GDB_AGG_VAR_FLOAT;
				*result_type = FLOAT8OID;
				return true;
			}
			return false;
		default:
			/* the histogram aggregates: gdb_query_add_ordered_set */
			break;
	}
	return false;
}

/* see groupby.h */
bool
gdb_aggregate_nan_companion(GdbAggFunc fn, Oid argtype)
{
	return (fn == GDB_FN_SUM || fn == GDB_FN_AVG) &&
		OidIsValid(argtype) && gdb_type_class(argtype) == GDB_TYPE_NUMERIC;
}

/* see groupby.h */
int
gdb_aggregate_states(GdbAggFunc fn, Oid argtype, uint32 kind)
{
	return (kind == GDB_AGG_SUMSQ_INT ||
			gdb_aggregate_nan_companion(fn, argtype)) ? 2 : 1;
}

/* Result type and device transition kind of agg; raises when unsupported. */
static void
aggregate_types(GdbAggregate *agg, uint32 *kind)
{
	static const char *const fnames[] = GDB_AGG_FUNC_NAMES;
	GdbTypeClass cls = OidIsValid(agg->argtype) ?
		gdb_type_class(agg->argtype) : GDB_TYPE_UNSUPPORTED;
	const char *pgname = fnames[agg->fn];
	bool		numeric_only = agg->fn == GDB_FN_SUM || agg->fn == GDB_FN_AVG ||
		agg->fn >= GDB_FN_VAR_SAMP;

	if (gdb_aggregate_kind(agg->fn, agg->argtype, kind, &agg->result_type))
		return;

	/* PostgreSQL has no such aggregate for these types at all */
	if (cls == GDB_TYPE_BOOL ||
		(numeric_only && (cls == GDB_TYPE_DATETIME || cls == GDB_TYPE_TEXT)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("function %s(%s) does not exist",
						pgname, format_type_be(agg->argtype)),
				 errdetail("It was named in the aggregates argument as %s.",
						   agg->label)));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("gpu_groupby does not support %s(%s)",
					pgname, format_type_be(agg->argtype)),
			 errhint("sum and avg take smallint, integer, bigint, real, double "
					 "precision or numeric(p,s); min and max also dates and "
					 "timestamps; the variance and stddev family all but "
					 "bigint and numeric.")));
}

/*
 * The next aggregate of q, fn over an argument of type argtype (InvalidOid
 * for count(*)), its kind set; the caller sets its input column, then
 * counts it.  Raises 54000 past GDB_MAX_AGGREGATES.
 */
static GdbAggregate *
next_aggregate(GdbQuery *q, GdbAggFunc fn, Oid argtype, const char *label)
{
	GdbAggregate *agg = &q->aggs[q->naggs];
	uint32		kind;

	if (q->naggs >= GDB_MAX_AGGREGATES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many aggregates: %d", q->naggs + 1),
				 errdetail("gpudb accepts at most %d aggregates.",
						   GDB_MAX_AGGREGATES)));
	agg->fn = fn;
	agg->companion = -1;
	agg->dscale_col = -1;
	agg->dscale_companion = -1;
	agg->label = pstrdup(label);
	agg->attnum = 0;
	agg->argtype = argtype;
	aggregate_types(agg, &kind);
	q->req->aggs[q->naggs].kind = kind;
	return agg;
}

/* see groupby.h */
void
gdb_query_add_aggregate(GdbQuery *q, GdbAggFunc fn, AttrNumber attnum,
						const char *label)
{
	GdbAggregate *agg = next_aggregate(q, fn, attnum > 0 ?
									   TupleDescAttr(RelationGetDescr(q->rel),
													 attnum - 1)->atttypid : InvalidOid,
									   label);

	agg->attnum = attnum;
	q->req->aggs[q->naggs].input_col = attnum > 0 ?
		gdb_columnset_add(&q->cs, q->rel, attnum, fn == GDB_FN_COUNT) : -1;
	q->naggs++;
	q->req->naggs = q->naggs;
}

/* see groupby.h */
void
gdb_query_add_aggregate_expr(GdbQuery *q, GdbAggFunc fn, Node *expr,
							 const char *label)
{
	GdbAggregate *agg = next_aggregate(q, fn, exprType(expr), label);

	if (fn == GDB_FN_SUM && agg->argtype == NUMERICOID)
	{
		/* a CASE of arms of different scales: at the largest (TPC-H Q14) */
		Node	   *dscale = NULL;
		Node	   *rescaled = gdb_numeric_case_rescaled(expr, &dscale);

		if (rescaled != NULL)
		{
			expr = rescaled;
			agg->dscale_col = gdb_columnset_add_expr(&q->cs, q->rel, dscale, q->req,
													 "GpudbAgg");
		}
	}
	q->req->aggs[q->naggs].input_col = gdb_columnset_add_expr(&q->cs, q->rel, expr, q->req,
															  "GpudbAgg");
	q->naggs++;
	q->req->naggs = q->naggs;
}

/* Reject any part of a FuncCall beyond name(arg) or count(*). */
static void
check_plain_call(FuncCall *fc, const char *label)
{
	const char *what = NULL;

	if (fc->agg_distinct)
		what = "DISTINCT";
	else if (fc->agg_filter)
		what = "FILTER";
	else if (fc->agg_order)
		what = "ORDER BY";
	else if (fc->agg_within_group)
		what = "WITHIN GROUP";
	else if (fc->over)
		what = "OVER";
	else if (fc->func_variadic)
		what = "VARIADIC";
	if (what)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpu_groupby does not support %s in aggregate %s",
						what, label)));
}

/* The column name of a one-field ColumnRef, or NULL. */
static char *
plain_column_name(Node *n)
{
	ColumnRef  *cr = (ColumnRef *) n;

	if (n == NULL || !IsA(n, ColumnRef) || list_length(cr->fields) != 1 ||
		!IsA(linitial(cr->fields), String))
		return NULL;
	return strVal(linitial(cr->fields));
}

/*
 * Parse item (1-based) fc, a call with DISTINCT or WITHIN GROUP:
 * count(DISTINCT col), percentile_cont(f) / percentile_disc(f) WITHIN
 * GROUP (ORDER BY col [ASC] [NULLS ...]) with f a numeric constant or
 * NULL, or mode() WITHIN GROUP (ORDER BY col); appends it to q.
 */
static void
parse_ordered_set(GdbQuery *q, FuncCall *fc, const char *fname, int item)
{
	int			fn = gdb_ordered_set_function(fname, fc->agg_distinct,
											  fc->agg_within_group);
	char	   *colname;
	bool		fnull = false;
	double		f = 0;
	char	   *label;

	if (fc->agg_filter || fc->over || fc->func_variadic || fc->agg_star ||
		(fn == GDB_FN_COUNT_DISTINCT && fc->agg_order != NIL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpu_groupby does not support aggregates list item %d (%s with %s)",
						item, fname, fc->agg_within_group ? "WITHIN GROUP" : "DISTINCT"),
				 errhint("Use count(DISTINCT col), percentile_cont(f) or percentile_disc(f) "
						 "WITHIN GROUP (ORDER BY col), or mode() WITHIN GROUP (ORDER BY col).")));
	if (fn == GDB_FN_COUNT_DISTINCT)
	{
		colname = list_length(fc->args) == 1 ? plain_column_name(linitial(fc->args)) : NULL;
		if (colname == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("aggregates list item %d: the argument of count(DISTINCT) must be one column name",
							item)));
	}
	else
	{
		SortBy	   *sb = list_length(fc->agg_order) == 1 ?
			(SortBy *) linitial(fc->agg_order) : NULL;

		if (list_length(fc->args) != (fn == GDB_FN_MODE ? 0 : 1))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("%s takes %s direct argument", fname,
							fn == GDB_FN_MODE ? "no" : "one"),
					 errdetail("It was aggregates list item %d.", item)));
		colname = sb ? plain_column_name(sb->node) : NULL;
		if (colname == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("aggregates list item %d: %s must be ordered by one column name",
							item, fname)));
		if (sb->sortby_dir == SORTBY_DESC || sb->sortby_dir == SORTBY_USING)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("gpu_groupby does not support %s in aggregates list item %d",
							sb->sortby_dir == SORTBY_DESC ? "DESC" : "USING", item),
					 errhint("Order by the column ascending, or use SQL.")));
		if (fn != GDB_FN_MODE)
		{
			A_Const    *c = (A_Const *) linitial(fc->args);

			if (!IsA(c, A_Const) || (!c->isnull && !IsA(&c->val, Integer) &&
									 !IsA(&c->val, Float) && !IsA(&c->val, String)))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("aggregates list item %d: the fraction of %s must be a numeric constant",
								item, fname)));
			fnull = c->isnull;
			if (!fnull)
				f = IsA(&c->val, Integer) ? (double) intVal(&c->val) :
					DatumGetFloat8(DirectFunctionCall1(float8in,
													   CStringGetDatum(IsA(&c->val, Float) ?
																	   castNode(Float, &c->val)->fval :
																	   strVal(&c->val))));
		}
	}
	label = gdb_ordered_set_label((GdbAggFunc) fn, quote_identifier(colname), fnull, f);
	gdb_query_add_ordered_set(q, (GdbAggFunc) fn, resolve_column(q, colname, "aggregates"),
							  fnull, f, label);
}

/* see groupby.h */
void
gdb_parse_aggregates(GdbQuery *q, const char *aggregates)
{
	List	   *raw;
	SelectStmt *stmt;
	ListCell   *lc;
	const char *p;

	for (p = aggregates; *p && scanner_isspace(*p); p++)
		;
	if (*p == '\0')
	{
		if (q->nkeys == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("gpu_groupby needs at least one group key or aggregate"),
					 errhint("For example: gpu_groupby('t', '', 'count(*)').")));
		return;					/* distinct keys, like GROUP BY without aggregates */
	}

	raw = raw_parser(aggregates, RAW_PARSE_PLPGSQL_EXPR);
	stmt = (list_length(raw) == 1) ?
		(SelectStmt *) linitial_node(RawStmt, raw)->stmt : NULL;
	if (stmt == NULL || !IsA(stmt, SelectStmt) ||
		stmt->distinctClause || stmt->intoClause || stmt->fromClause ||
		stmt->whereClause || stmt->groupClause || stmt->havingClause ||
		stmt->windowClause || stmt->valuesLists || stmt->sortClause ||
		stmt->limitOffset || stmt->limitCount || stmt->lockingClause ||
		stmt->withClause || stmt->op != SETOP_NONE || stmt->targetList == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("invalid aggregates list: \"%s\"", aggregates),
				 errhint("Give comma-separated aggregate calls, e.g. "
						 "'count(*), avg(delay), max(distance)'.")));
	if (list_length(stmt->targetList) > GDB_MAX_AGGREGATES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many aggregates: %d", list_length(stmt->targetList)),
				 errdetail("gpu_groupby accepts at most %d aggregates.",
						   GDB_MAX_AGGREGATES)));

	foreach(lc, stmt->targetList)
	{
		ResTarget  *rt = lfirst_node(ResTarget, lc);
		GdbAggregate *agg = &q->aggs[q->naggs];
		FuncCall   *fc;
		char	   *fname;
		char	   *colname = NULL;
		int			fn;

		if (!IsA(rt->val, FuncCall))
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("aggregates list item %d is not an aggregate call",
							q->naggs + 1),
					 errhint("Use count(*), count(col), sum(col), avg(col), "
							 "min(col) or max(col).")));
		fc = (FuncCall *) rt->val;
		if (rt->name)
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("aggregates list item %d has an alias \"%s\"",
							q->naggs + 1, rt->name),
					 errhint("Name result columns in the column definition list.")));
		if (list_length(fc->funcname) != 1)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("gpu_groupby does not support aggregate %s",
							NameListToString(fc->funcname))));
		fname = strVal(linitial(fc->funcname));
		if (gdb_ordered_set_function(fname, fc->agg_distinct,
									 fc->agg_within_group) >= 0)
		{
			parse_ordered_set(q, fc, fname, q->naggs + 1);
			continue;
		}

		if (fc->agg_star)
			agg->label = psprintf("%s(*)", fname);
		else if (list_length(fc->args) == 1 && IsA(linitial(fc->args), ColumnRef) &&
				 list_length(((ColumnRef *) linitial(fc->args))->fields) == 1 &&
				 IsA(linitial(((ColumnRef *) linitial(fc->args))->fields), String))
		{
			colname = strVal(linitial(((ColumnRef *) linitial(fc->args))->fields));
			agg->label = psprintf("%s(%s)", fname, quote_identifier(colname));
		}
		else
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("aggregates list item %d: the argument of %s must be one column name",
							q->naggs + 1, fname),
					 errhint("Expressions are not supported as aggregate arguments.")));
		check_plain_call(fc, agg->label);

		fn = gdb_aggregate_function(fname, false);
		if (fc->agg_star && fn >= 0 && fn != GDB_FN_COUNT)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("%s(*) must be used to call a parameterless aggregate function",
							fname),
					 errdetail("Only count(*) takes *.")));
		if (fc->agg_star)
			fn = fn == GDB_FN_COUNT ? GDB_FN_COUNT_STAR : -1;
		if (fn < 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("gpu_groupby does not support aggregate %s", fname),
					 errhint("Use count, sum, avg, min, max, variance, var_samp, "
							 "var_pop, stddev, stddev_samp or stddev_pop.")));
		agg->fn = (GdbAggFunc) fn;

		gdb_query_add_aggregate(q, agg->fn,
								colname ? resolve_column(q, colname, "aggregates") : 0,
								agg->label);
	}
}

/* Name, type and typmod of result column i of q (see gdb_query_natts). */
static void
result_column(const GdbQuery *q, int i, const char **name, Oid *type,
			  int32 *typmod)
{
	int32		src = gdb_request_result_source(q->req, (uint32) i);
	Form_pg_attribute att = src >= 0 ?
		TupleDescAttr(RelationGetDescr(q->rel), q->cs.attnums[src] - 1) : NULL;

	if (q->req->oper == GDB_OPER_GROUPBY && i >= q->nkeys)
	{
		*name = q->aggs[i - q->nkeys].label;
		*type = q->aggs[i - q->nkeys].result_type;
		*typmod = -1;			/* aggregates have none */
		return;
	}
	*name = q->req->oper == GDB_OPER_GROUPBY ?
		psprintf("group key \"%s\"", q->key_names[i]) :
		psprintf("column \"%s\"", NameStr(att->attname));
	*type = att->atttypid;
	*typmod = att->atttypmod;
}

/* see groupby.h */
void
gdb_check_result_desc(const GdbQuery *q, TupleDesc desc, const char *fname)
{
	int			natts = gdb_query_natts(q);
	const char *name;
	Oid			want;
	int32		have;
	int			i;

	if (desc == NULL || desc->natts != natts)
	{
		StringInfoData expected;

		initStringInfo(&expected);
		for (i = 0; i < natts; i++)
		{
			result_column(q, i, &name, &want, &have);
			if (q->req->oper == GDB_OPER_GROUPBY && i >= q->nkeys)
				name = quote_identifier(name);
			else
				name = quote_identifier(NameStr(TupleDescAttr(RelationGetDescr(q->rel),
															  q->cs.attnums[gdb_request_result_source(q->req, i)] - 1)->attname));
			appendStringInfo(&expected, "%s%s %s", i ? ", " : "", name,
							 format_type_with_typemod(want, have));
		}
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column definition list has %d columns, but %s returns %d",
						desc ? desc->natts : 0, fname, natts),
				 errdetail("Expected: AS t(%s).", expected.data)));
	}
	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		result_column(q, i, &name, &want, &have);
		if (att->atttypid != want ||
			(att->atttypmod != -1 && att->atttypmod != have))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column %d (\"%s\") of the column definition list has type %s, but %s is %s",
							i + 1, NameStr(att->attname),
							format_type_with_typemod(att->atttypid, att->atttypmod),
							name, format_type_with_typemod(want, have)),
					 errhint("Declare column %d as %s.", i + 1,
							 format_type_with_typemod(want, have))));
	}
}

/* see groupby.h */
void
gdb_check_privileges(const GdbQuery *q)
{
	Oid			relid = RelationGetRelid(q->rel);
	Oid			userid = GetUserId();
	int			i;

	if (check_enable_rls(relid, InvalidOid, false) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s does not support row-level security, "
						"which applies to relation \"%s\" for this role",
						q->req->oper == GDB_OPER_GROUPBY ? "gpu_groupby" :
						q->req->oper == GDB_OPER_SELECT ? "gpu_select" : "gpu_sort",
						RelationGetRelationName(q->rel)),
				 errhint("Use plain SQL, which applies the row security policies.")));

	if (pg_class_aclcheck(relid, userid, ACL_SELECT) == ACLCHECK_OK)
		return;

	/* like the executor: column privileges on every column read */
	if (q->cs.ncols == 0)
	{
		if (pg_attribute_aclcheck_all(relid, userid, ACL_SELECT, ACLMASK_ANY) != ACLCHECK_OK)
			aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(q->rel->rd_rel->relkind),
						   RelationGetRelationName(q->rel));
		return;
	}
	for (i = 0; i < q->cs.ncols; i++)
	{
		if (pg_attribute_aclcheck(relid, q->cs.attnums[i], userid, ACL_SELECT) != ACLCHECK_OK)
			aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(q->rel->rd_rel->relkind),
						   RelationGetRelationName(q->rel));
	}
}
