/*-------------------------------------------------------------------------
 *
 * select_sort.c
 *	  gpu_select() and gpu_sort(): selection with projection, and ordered
 *	  selection with a top-k limit, of one table on the GPU or the CPU
 *	  path, as set-returning functions.
 *
 * They build the same GdbQuery as the GpudbScan and GpudbSort plan nodes and
 * run it through query_run.c; the filter goes through filter_compile.c
 * exactly as gpu_groupby's does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/varlena.h"

#include "groupby.h"

/* A column of q->rel by name; 42703 if there is none, 0A000 for system ones. */
static AttrNumber
lookup_column(GdbQuery *q, const char *name, const char *what, const char *fname)
{
	AttrNumber	attnum = get_attnum(RelationGetRelid(q->rel), name);

	if (attnum == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						name, RelationGetRelationName(q->rel)),
				 errdetail("It was named in the %s argument of %s.", what, fname)));
	if (attnum < 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("system column \"%s\" cannot be used in %s", name, fname)));
	return attnum;
}

/* The columns argument: comma-separated (possibly quoted) column names. */
static void
parse_columns(GdbQuery *q, const char *columns, const char *fname)
{
	char	   *copy = pstrdup(columns);
	List	   *names = NIL;
	ListCell   *lc;

	if (!SplitIdentifierString(copy, ',', &names) || names == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("invalid columns list: \"%s\"", columns),
				 errhint("Give comma-separated column names, e.g. 'id, v'.")));
	if (list_length(names) > GDB_MAX_COLUMNS - GDB_MAX_SORT_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many columns: %d", list_length(names)),
				 errdetail("%s returns at most %d columns.", fname,
						   GDB_MAX_COLUMNS - GDB_MAX_SORT_KEYS)));
	foreach(lc, names)
	{
		char	   *name = (char *) lfirst(lc);
		AttrNumber	attnum;
		Oid			type;
		int32		typmod;

		if (name[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("invalid columns list: \"%s\"", columns),
					 errdetail("A column name is empty.")));
		attnum = lookup_column(q, name, "columns", fname);
		type = TupleDescAttr(RelationGetDescr(q->rel), attnum - 1)->atttypid;
		typmod = TupleDescAttr(RelationGetDescr(q->rel), attnum - 1)->atttypmod;
		if (!gdb_type_supported(type, typmod))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" has unsupported type %s", name,
							format_type_with_typemod(type, typmod)),
					 errhint("Columns may be smallint, integer, bigint, real, "
							 "double precision, boolean, date, timestamp, "
							 "timestamp with time zone, text, varchar or "
							 "numeric(p,s) with p <= %d and s >= 0.",
							 GDB_NUMERIC_MAX_PRECISION)));
		q->req->out_cols[q->req->nout++] =
			gdb_columnset_add(&q->cs, q->rel, attnum, false);
		q->nout++;
	}
}

/*
 * The order_by argument, parsed by PostgreSQL's grammar as the ORDER BY
 * clause of "SELECT 1 ORDER BY <order_by>": plain column names, each with
 * ASC/DESC and NULLS FIRST/LAST (PostgreSQL's defaults).
 */
static void
parse_order_by(GdbQuery *q, const char *order_by)
{
	char	   *sql = psprintf("SELECT 1 ORDER BY %s", order_by);
	List	   *raw = NIL;
	SelectStmt *stmt = NULL;
	ListCell   *lc;

	raw = raw_parser(sql, RAW_PARSE_DEFAULT);
	if (list_length(raw) == 1)
		stmt = (SelectStmt *) linitial_node(RawStmt, raw)->stmt;
	if (stmt == NULL || !IsA(stmt, SelectStmt) || stmt->sortClause == NIL ||
		stmt->limitCount || stmt->limitOffset || stmt->lockingClause ||
		stmt->intoClause || stmt->withClause || stmt->op != SETOP_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("invalid order_by: \"%s\"", order_by),
				 errhint("Write it as after ORDER BY, e.g. 'v DESC NULLS LAST, id'.")));
	if (list_length(stmt->sortClause) > GDB_MAX_SORT_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many sort keys: %d", list_length(stmt->sortClause)),
				 errdetail("gpu_sort accepts at most %d sort keys.", GDB_MAX_SORT_KEYS)));
	foreach(lc, stmt->sortClause)
	{
		SortBy	   *sb = lfirst_node(SortBy, lc);
		ColumnRef  *cr = (ColumnRef *) sb->node;
		GdbSortKey *sk = &q->req->sort_keys[q->req->nsort];
		char	   *name;
		AttrNumber	attnum;
		Oid			type;
		int32		typmod;
		GdbTypeClass cls;

		if (!IsA(cr, ColumnRef) || list_length(cr->fields) != 1 ||
			!IsA(linitial(cr->fields), String))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("gpu_sort orders by column names only"),
					 errdetail("order_by item %d is an expression.",
							   foreach_current_index(lc) + 1)));
		if (sb->sortby_dir == SORTBY_USING)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("gpu_sort does not support ORDER BY ... USING")));
		name = strVal(linitial(cr->fields));
		attnum = lookup_column(q, name, "order_by", "gpu_sort");
		type = TupleDescAttr(RelationGetDescr(q->rel), attnum - 1)->atttypid;
		typmod = TupleDescAttr(RelationGetDescr(q->rel), attnum - 1)->atttypmod;
		cls = gdb_type_class(type);
		if (!gdb_type_supported(type, typmod))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("gpu_sort cannot order by column \"%s\" of type %s",
							name, format_type_with_typemod(type, typmod)),
					 errhint("Sort keys may be smallint, integer, bigint, real, "
							 "double precision, boolean, date, timestamp, "
							 "timestamp with time zone, text or varchar (in "
							 "the C or POSIX collation) or numeric(p,s) with "
							 "p <= %d and s >= 0.", GDB_NUMERIC_MAX_PRECISION)));
		if (cls == GDB_TYPE_TEXT &&
			!gdb_text_sort_collation_ok(TupleDescAttr(RelationGetDescr(q->rel),
													  attnum - 1)->attcollation))
		{
			Oid			coll = TupleDescAttr(RelationGetDescr(q->rel),
											 attnum - 1)->attcollation;

			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("gpu_sort cannot order by column \"%s\" in collation \"%s\"",
							name, OidIsValid(coll) ? get_collation_name(coll) : "none"),
					 errdetail("The device orders text in the C or POSIX collation only."),
					 errhint("Use plain SQL (ORDER BY), or a column declared COLLATE \"C\".")));
		}
		sk->col = gdb_columnset_add_sort_key(&q->cs, q->rel, attnum);
		sk->descending = sb->sortby_dir == SORTBY_DESC;
		sk->nulls_first = sb->sortby_nulls == SORTBY_NULLS_DEFAULT ?
			sk->descending : sb->sortby_nulls == SORTBY_NULLS_FIRST;
		q->req->nsort++;
	}
}

/* Shared body of the two functions. */
static Datum
run_select_sort(FunctionCallInfo fcinfo, GdbOperator oper)
{
	const char *fname = oper == GDB_OPER_SELECT ? "gpu_select" : "gpu_sort";
	int			filter_arg = oper == GDB_OPER_SELECT ? 2 : 4;
	int			nrequired = oper == GDB_OPER_SELECT ? 2 : 3;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext work,
				old;
	GdbQuery	q;
	bool		no_rows = false;
	int			i;

	for (i = 0; i < nrequired; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument %d of %s must not be NULL", i + 1, fname)));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);

	work = AllocSetContextCreate(CurrentMemoryContext, "gpu_select or gpu_sort",
								 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(work);
	memset(&q, 0, sizeof(q));
	q.req = palloc0(sizeof(GdbRequest));
	q.req->oper = oper;
	q.rel = gdb_open_scannable_relation(PG_GETARG_OID(0), fname);
	parse_columns(&q, text_to_cstring(PG_GETARG_TEXT_PP(1)), fname);
	if (oper == GDB_OPER_SORT)
	{
		parse_order_by(&q, text_to_cstring(PG_GETARG_TEXT_PP(2)));
		if (!PG_ARGISNULL(3))
		{
			int64		lim = PG_GETARG_INT64(3);

			if (lim < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_ROW_COUNT_IN_LIMIT_CLAUSE),
						 errmsg("LIMIT must not be negative"),
						 errdetail("gpu_sort was called with lim = " INT64_FORMAT ".", lim)));
			no_rows = lim == 0; /* as LIMIT 0, after every check */
			q.req->limit = (uint64) lim;
		}
	}
	if (PG_NARGS() > filter_arg && !PG_ARGISNULL(filter_arg))
		gdb_compile_filter(text_to_cstring(PG_GETARG_TEXT_PP(filter_arg)), q.rel,
						   &q.cs, q.req, fname);
	gdb_check_privileges(&q);
	gdb_check_result_desc(&q, rsinfo->setDesc, fname);

	if (!no_rows)
		gdb_emit_result(&q, rsinfo);

	relation_close(q.rel, NoLock);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
	return (Datum) 0;
}

/*
 * gpu_select(relation regclass, columns text, filter text DEFAULT NULL)
 *	 RETURNS SETOF record
 *
 * The rows of relation for which filter is TRUE (all rows for NULL),
 * projected to columns (comma-separated names, typed as the columns: the
 * column definition list must say so), as "SELECT columns FROM relation
 * WHERE filter" returns them; row order unspecified.  Errors: 22004 for a
 * NULL relation or columns; 42601 for a bad list; 42703 unknown column;
 * 0A000 for a column of an unsupported type or under row-level security;
 * 42804 for a wrong column definition list; 42501 without SELECT
 * privilege; the filter's errors as for gpu_groupby.
 */
PG_FUNCTION_INFO_V1(gpu_select);
Datum
gpu_select(PG_FUNCTION_ARGS)
{
	return run_select_sort(fcinfo, GDB_OPER_SELECT);
}

/*
 * gpu_sort(relation regclass, columns text, order_by text,
 *			lim bigint DEFAULT NULL, filter text DEFAULT NULL)
 *	 RETURNS SETOF record
 *
 * As "SELECT columns FROM relation WHERE filter ORDER BY order_by LIMIT
 * lim": order_by is a list of column names with ASC/DESC and NULLS
 * FIRST/LAST (PostgreSQL's defaults), lim NULL for every row.  Rows that
 * tie on every sort key come in an unspecified order (as in PostgreSQL;
 * add a unique column to make the order total).  A text sort key orders
 * by bytes (text_rank.c), so its column's collation must be C or POSIX
 * (0A000 otherwise: plain SQL orders by other collations).
 * Errors as gpu_select's, plus 42601 for a bad order_by and 2201W for a
 * negative lim.
 */
PG_FUNCTION_INFO_V1(gpu_sort);
Datum
gpu_sort(PG_FUNCTION_ARGS)
{
	return run_select_sort(fcinfo, GDB_OPER_SORT);
}
