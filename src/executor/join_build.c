/*-------------------------------------------------------------------------
 *
 * join_build.c
 *	  The executor side of GpudbJoin's build sides: from the plan's join tree
 *	  (custom_scan_join.c), the probe request's join specs and payload
 *	  columns, one SELECT query per build side (its join keys, then its
 *	  payload columns, after its quals), and, when the node runs, those
 *	  queries run from the column cache or the heap under the query's
 *	  snapshot and laid out as the request's build sides (GdbJoinSpec,
 *	  gpudb_device.h).
 *
 * A build side is read whole before the probe side's first batch, the
 * way PostgreSQL's hash join reads its inner relation into its hash
 * table first.  Text keys and payload columns come back as codes of the
 * build query's dictionary; they are re-encoded into the probe query's,
 * so that equal strings have equal codes on both sides and the result
 * decodes them through one dictionary.  An INNER or LEFT join's build side
 * must be unique on its keys: where the request cannot be rolled back,
 * gdb_join_build checks it with the CPU path's own table
 * (gdb_cpu_join_build) and reports a duplicate so the node can answer with
 * PostgreSQL's plan instead; elsewhere the request's own build (device or
 * CPU path) reports it, without the backend hashing every build row once
 * more.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "portability/instr_time.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "cpu_hash_join.h"
#include "custom_scan.h"
#include "gpudb_defaults.h"
#include "server_client.h"

/* see gpudb.h */
int
gdb_columnset_add_join_col(GdbColumnSet *cs, Relation rel, Index varno,
						   AttrNumber attnum)
{
	Form_pg_attribute att = gdb_columnset_attribute(rel, attnum, true);

	return gdb_columnset_add_join_col_type(cs, varno, attnum, att->atttypid,
										   att->atttypmod, att->attcollation);
}

/* see gpudb.h */
int
gdb_columnset_add_join_col_type(GdbColumnSet *cs, Index varno, AttrNumber attnum,
								Oid typid, int32 typmod, Oid collation)
{
	int			i;

	for (i = 0; i < cs->njoincols; i++)
		if (cs->joinvarnos[i] == varno && cs->attnums[GDB_JOIN_COL(i)] == attnum)
			return GDB_JOIN_COL(i);
	if (cs->njoincols >= GDB_MAX_JOIN_COLS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many columns of joined relations in one gpudb request"),
				 errdetail("At most %d columns of build sides can be read.",
						   GDB_MAX_JOIN_COLS)));
	if (!gdb_type_supported(typid, typmod))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpudb does not carry columns of type %s",
						format_type_with_typemod(typid, typmod))));
	if (gdb_type_class(typid) == GDB_TYPE_TEXT && cs->dict == NULL)
		cs->dict = gdb_dict_create();
	i = cs->njoincols++;
	cs->joinvarnos[i] = varno;
	cs->attnums[GDB_JOIN_COL(i)] = attnum;
	cs->typids[GDB_JOIN_COL(i)] = typid;
	cs->typmods[GDB_JOIN_COL(i)] = typmod;
	cs->collations[GDB_JOIN_COL(i)] = collation;
	cs->nulls_only[GDB_JOIN_COL(i)] = false;
	cs->rank_of[GDB_JOIN_COL(i)] = 0;
	return GDB_JOIN_COL(i);
}

/* see gpudb.h */
int
gdb_columnset_join_col(const GdbColumnSet *cs, Index varno, AttrNumber attnum)
{
	int			i;

	for (i = 0; i < cs->njoincols; i++)
		if (cs->joinvarnos[i] == varno && cs->attnums[GDB_JOIN_COL(i)] == attnum)
			return GDB_JOIN_COL(i);
	elog(ERROR, "gpudb: column %d of range table entry %u is not a join payload column",
		 attnum, varno);
	pg_unreachable();
}

static const char *const join_type_names[] = {"Inner", "Semi", "Anti", "Left"};

/*
 * The next GdbRequest.join_id of this backend: random at its first join
 * (pg_strong_random), then counted up, so that no two build sides of any
 * backends, past or present, share one: the GPU server keeps a join_id's
 * hash tables for the next request that names it.
 */
static uint64 next_join_id = 0;

/* A join_id for new build sides (never 0). */
static uint64
new_join_id(void)
{
	while (next_join_id == 0)
	{
		if (!pg_strong_random(&next_join_id, sizeof(next_join_id)))
			next_join_id = ((uint64) MyProcPid << 32) ^ (uint64) MyStartTimestamp;
	}
	return next_join_id++;
}

/*
 * The batch column of q's view that holds column attnum of range table
 * entry varno: a column of q's own relation (q->cs.probe_varno), or a
 * payload column of one of its joins.
 */
static int
view_column(GdbQuery *q, Index varno, AttrNumber attnum)
{
	if (varno == q->cs.probe_varno)
		return gdb_columnset_add(&q->cs, q->rel, attnum, false);
	return gdb_columnset_join_col(&q->cs, varno, attnum);
}

/*
 * The relations of a join tree (the plan's list), in probe order, joined
 * by " JOIN " into buf: a nested build side's name in EXPLAIN.
 */
static void
tree_names(StringInfo buf, List *join, int rtoffset, List *rtable_names)
{
	ListCell   *lc;

	appendStringInfoString(buf, quote_identifier((char *) list_nth(rtable_names,
																	intVal(linitial(join)) + rtoffset - 1)));
	for_each_from(lc, join, 3)
	{
		List	   *step = (List *) lfirst(lc);

		appendStringInfoString(buf, " JOIN ");
		if (list_nth(step, 6) != NIL)
			tree_names(buf, (List *) list_nth(step, 6), rtoffset, rtable_names);
		else
			appendStringInfoString(buf, quote_identifier((char *) list_nth(rtable_names,
																			intVal(list_nth(step, 1)) + rtoffset - 1)));
	}
}

/*
 * The range table indexes of a join tree (the plan's list): its probe
 * relation and every build side's, nested trees included.
 */
static Bitmapset *
tree_varnos(List *join, int rtoffset)
{
	Bitmapset  *varnos = bms_make_singleton(intVal(linitial(join)) + rtoffset);
	ListCell   *lc;

	for_each_from(lc, join, 3)
	{
		List	   *step = (List *) lfirst(lc);

		if (list_nth(step, 6) != NIL)
			varnos = bms_join(varnos, tree_varnos((List *) list_nth(step, 6), rtoffset));
		else
			varnos = bms_add_member(varnos, intVal(list_nth(step, 1)) + rtoffset);
	}
	return varnos;
}

/* expression_tree_walker callback: the varnos of the Vars of this level */
static bool
collect_varnos(Node *node, Bitmapset **varnos)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		if (((Var *) node)->varlevelsup == 0)
			*varnos = bms_add_member(*varnos, ((Var *) node)->varno);
		return false;
	}
	return expression_tree_walker(node, collect_varnos, (void *) varnos);
}

/*
 * A build side's join clauses as EXPLAIN shows them: each equality (an
 * operator that can hash or merge a join) whose left operand reads only the
 * build side (build) and whose right one reads only relations outside it is
 * written the other way round, with its commutator, so that the probe side
 * comes first ("f.k = d.id"), as PostgreSQL's Hash Cond does.  The planner's
 * own orientation of an equivalence-class clause differs between versions;
 * the label does not.  Other clauses are kept as written.
 */
static List *
probe_side_first(List *clauses, Bitmapset *build)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, clauses)
	{
		Node	   *clause = (Node *) lfirst(lc);

		if (IsA(clause, OpExpr) && list_length(((OpExpr *) clause)->args) == 2)
		{
			OpExpr	   *op = (OpExpr *) clause;
			Oid			commutator = get_commutator(op->opno);
			Bitmapset  *left = NULL;
			Bitmapset  *right = NULL;

			(void) collect_varnos((Node *) linitial(op->args), &left);
			(void) collect_varnos((Node *) lsecond(op->args), &right);
			if (OidIsValid(commutator) &&
				(op_hashjoinable(op->opno, exprType((Node *) linitial(op->args))) ||
				 op_mergejoinable(op->opno, exprType((Node *) linitial(op->args)))) &&
				left != NULL && right != NULL &&
				bms_is_subset(left, build) && !bms_overlap(right, build))
			{
				OpExpr	   *swapped = (OpExpr *) copyObject(op);

				swapped->opno = commutator;
				swapped->opfuncid = InvalidOid;
				swapped->args = list_make2(lsecond(op->args), linitial(op->args));
				clause = (Node *) swapped;
			}
		}
		out = lappend(out, clause);
	}
	return out;
}

/* see custom_scan.h */
GdbJoinState *
gdb_join_begin(GdbQuery *q, List *join, Index scanrelid, EState *estate,
			   List *rtable_names, List *deparse_cxt)
{
	GdbJoinState *js = palloc0(sizeof(GdbJoinState));
	int			rtoffset = (int) scanrelid - intVal(linitial(join));
	ListCell   *lc;

	q->cs.probe_varno = scanrelid;
	for_each_from(lc, join, 3)
	{
		List	   *step = (List *) lfirst(lc);
		GdbJoinBuild *b = &js->builds[js->njoins];
		GdbJoinSpec *spec = &q->req->joins[js->njoins];
		Index		varno = (Index) (intVal(list_nth(step, 1)) + rtoffset);
		List	   *quads = (List *) list_nth(step, 3);
		List	   *payload = (List *) list_nth(step, 4);
		List	   *clauses = (List *) copyObject(list_nth(step, 5));
		List	   *sub = (List *) list_nth(step, 6);
		List	   *dinfo = (List *) list_nth(step, 8);
		List	   *ptypes = (List *) list_nth(step, 9);
		int			njoincols;
		int			t;

		if (js->njoins >= GDB_MAX_JOINS)
			elog(ERROR, "gpudb: too many joins in a GpudbJoin plan");
		b->type = (GdbJoinType) intVal(linitial(step));
		b->varno = varno;
		b->quals = (List *) list_nth(step, 2);

		/*
		 * the build side's query: a SELECT of its keys, then its payload
		 * columns, from its relation (its quals the filter) or, for a
		 * nested tree, from that tree's probe relation joined to its own
		 * build sides
		 */
		b->q.snapshot = estate->es_snapshot;
		b->q.req = palloc0(sizeof(GdbRequest));
		b->q.req->oper = GDB_OPER_SELECT;
		b->q.cs.probe_varno = varno;
		if (dinfo != NIL)
		{
			/*
			 * a derived table's: no relation; its result's columns (keys,
			 * then payload) are filled from its plan's rows
			 */
			b->derived = linitial_int(dinfo);
			for (t = 1; t + 3 < list_length(dinfo); t += 4)
			{
				int			c = b->q.cs.ncols++;

				b->derived_cols = lappend_int(b->derived_cols, list_nth_int(dinfo, t));
				b->q.cs.typids[c] = (Oid) list_nth_int(dinfo, t + 1);
				b->q.cs.typmods[c] = list_nth_int(dinfo, t + 2);
				b->q.cs.collations[c] = (Oid) list_nth_int(dinfo, t + 3);
				b->q.req->out_cols[b->q.req->nout++] = c;
			}
			b->q.nout = (int) b->q.req->nout;
		}
		else
		{
			b->q.rel = gdb_exec_get_rt_relation(estate, varno);
			if (sub != NIL)
				b->sub = gdb_join_begin(&b->q, sub, varno, estate, rtable_names,
										deparse_cxt);
			for (t = 0; t + 3 < list_length(quads); t += 4)
				b->q.req->out_cols[b->q.req->nout++] =
					view_column(&b->q, (Index) (list_nth_int(quads, t + 2) + rtoffset),
								(AttrNumber) list_nth_int(quads, t + 3));
			for (t = 0; t + 1 < list_length(payload); t += 2)
				b->q.req->out_cols[b->q.req->nout++] =
					view_column(&b->q, (Index) (list_nth_int(payload, t) + rtoffset),
								(AttrNumber) list_nth_int(payload, t + 1));
			b->q.nout = (int) b->q.req->nout;
			/* its relation's quals read that relation's columns only */
			njoincols = b->q.cs.njoincols;
			b->q.cs.njoincols = 0;
			(void) gdb_compile_quals(b->quals, b->q.rel, &b->q.cs, b->q.req, "GpudbJoin",
									 false, NULL);
			b->q.cs.njoincols = njoincols;
		}

		/* the probe step: keys of the probe relation or earlier payload */
		spec->type = b->type;
		spec->nkeys = (uint32) (list_length(quads) / 4);
		spec->payload_first = (uint32) q->cs.njoincols;
		spec->npayload = (uint32) (list_length(payload) / 2);
		for (t = 0; t + 3 < list_length(quads); t += 4)
			spec->probe_cols[t / 4] =
				view_column(q, (Index) (list_nth_int(quads, t) + rtoffset),
							(AttrNumber) list_nth_int(quads, t + 1));
		for (t = 0; t + 1 < list_length(payload); t += 2)
		{
			Index		pvarno = (Index) (list_nth_int(payload, t) + rtoffset);
			int			y = (t / 2) * 3;

			(void) gdb_columnset_add_join_col_type(&q->cs, pvarno,
												   (AttrNumber) list_nth_int(payload, t + 1),
												   (Oid) list_nth_int(ptypes, y),
												   list_nth_int(ptypes, y + 1),
												   (Oid) list_nth_int(ptypes, y + 2));
		}

		/* EXPLAIN: "Inner Join d ON (f.k = d.id)", its quals apart */
		if (rtoffset != 0)
			OffsetVarNodes((Node *) clauses, rtoffset, 0);
		{
			StringInfoData name;

			initStringInfo(&name);
			if (sub != NIL)
			{
				appendStringInfoChar(&name, '(');
				tree_names(&name, sub, rtoffset, rtable_names);
				appendStringInfoChar(&name, ')');
			}
			else
				appendStringInfoString(&name, quote_identifier((char *) list_nth(rtable_names,
																				  varno - 1)));
			clauses = probe_side_first(clauses,
									   sub != NIL ? tree_varnos(sub, rtoffset) :
									   bms_make_singleton((int) varno));
			b->label = psprintf("%s Join %s ON %s", join_type_names[b->type], name.data,
								deparse_expression((Node *) make_ands_explicit(clauses),
												   deparse_cxt, true, false));
		}
		js->njoins++;
	}
	q->req->njoins = (uint32) js->njoins;
	q->req->njoin_cols = (uint32) q->cs.njoincols;

	/* the INNER joins' other quals: computed column 0 (join_filter) */
	if (lthird(join) != NULL)
	{
		Node	   *jf = (Node *) copyObject(lthird(join));

		if (rtoffset != 0)
			OffsetVarNodes(jf, rtoffset, 0);
		if (gdb_columnset_add_expr(&q->cs, q->rel, jf, q->req, "GpudbJoin") != GDB_EXPR_COL(0))
			elog(ERROR, "gpudb: the join quals are not the first computed column");
		q->req->join_filter = 1;
	}

	/* a left, semi or anti join's other quals: a computed column of its own */
	for_each_from(lc, join, 3)
	{
		List	   *step = (List *) lfirst(lc);
		GdbJoinSpec *spec = &q->req->joins[foreach_current_index(lc) - 3];
		Node	   *qual = (Node *) list_nth(step, 7);

		if (qual == NULL)
			continue;
		qual = (Node *) copyObject(qual);
		if (rtoffset != 0)
			OffsetVarNodes(qual, rtoffset, 0);
		spec->qual = 1;
		spec->qual_expr = (uint32) (gdb_columnset_add_expr(&q->cs, q->rel, qual, q->req,
														   "GpudbJoin") - GDB_EXPR_COL(0));
	}
	return js;
}

/* see custom_scan.h */
List *
gdb_join_exprs(List *join)
{
	List	   *out = NIL;
	ListCell   *lc;

	if (join == NIL)
		return NIL;
	out = gdb_join_level_quals(join);
	for_each_from(lc, join, 3)
	{
		List	   *step = (List *) lfirst(lc);

		out = list_concat(out, (List *) list_nth(step, 2));
		out = list_concat(out, gdb_join_exprs((List *) list_nth(step, 6)));
	}
	return out;
}

/* see custom_scan.h */
List *
gdb_join_level_quals(List *join)
{
	List	   *out = NIL;
	ListCell   *lc;

	if (join == NIL)
		return NIL;
	if (lthird(join) != NULL)
		out = lappend(out, lthird(join));
	for_each_from(lc, join, 3)
	{
		List	   *step = (List *) lfirst(lc);

		if (list_nth(step, 7) != NULL)
			out = lappend(out, list_nth(step, 7));
	}
	return out;
}

/* Re-encode column col of batch b (codes of from) into codes of to. */
static void
recode_text(GdbBatch *b, uint32 col, GdbDictionary *from, GdbDictionary *to)
{
	int64	   *vals = GDB_COL_PTR(b, b, col, int64);
	uint8	   *nulls = GDB_NULL_PTR(b, b, col);
	uint64		row;

	for (row = 0; row < b->nrows; row++)
	{
		text	   *t;

		if (nulls && nulls[row])
			continue;
		t = DatumGetTextPP(gdb_dict_datum(from, vals[row]));
		vals[row] = gdb_dict_intern(to, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	}
}

/*
 * Rescale numeric key column col of build batch b from scale from to the
 * probe key's scale to, so that the device's integer comparison is
 * numeric equality: up by 10^(to - from), or down where the value is a
 * multiple of 10^(from - to).  A value the other scale cannot hold (a
 * remainder, or past 10^18 at the larger scale) equals no probe value: it
 * becomes INT64_MIN + row, below every value a column holds (|v| < 10^18,
 * or NaN's PG_INT64_MAX) and distinct from row to row, so that the build
 * side stays unique.  NaN stays NaN (numeric's NaN equals NaN).
 */
static void
rescale_numeric_key(GdbBatch *b, uint32 col, int from, int to)
{
	int64	   *vals = GDB_COL_PTR(b, b, col, int64);
	uint8	   *nulls = GDB_NULL_PTR(b, b, col);
	int64		f = 1;
	uint64		row;
	int			k;

	for (k = 0; k < (to > from ? to - from : from - to); k++)
		f *= 10;
	for (row = 0; row < b->nrows; row++)
	{
		int64		v = vals[row];

		if ((nulls && nulls[row]) || v == GDB_NUMERIC_NAN)
			continue;
		if (to > from)
			vals[row] = (v >= INT64CONST(1000000000000000000) / f ||
						 v <= -INT64CONST(1000000000000000000) / f) ?
				PG_INT64_MIN + (int64) row : v * f;
		else
			vals[row] = v % f != 0 ? PG_INT64_MIN + (int64) row : v / f;
	}
}

/*
 * The build sides the GPU server keeps for this backend (GdbQuery.keep_id),
 * until their node releases them (gdb_join_release) or the transaction
 * ends; at most GDB_MAX_KEPT at once, past which build sides travel
 * through the backend.
 */
#define GDB_MAX_KEPT 256
static uint64 kept_ids[GDB_MAX_KEPT];
static int	nkept;
static bool kept_callback_registered;

/* Forget id (released). */
static void
kept_forget(uint64 id)
{
	int			i;

	for (i = 0; i < nkept; i++)
		if (kept_ids[i] == id)
		{
			kept_ids[i] = kept_ids[--nkept];
			return;
		}
}

/*
 * At the end of a transaction (an error that skipped gdb_join_release):
 * the server frees what it still keeps for us.  Never raises; the wait is
 * bounded (a lost connection freed them anyway).
 */
static void
kept_xact_callback(XactEvent event, void *arg)
{
	GdbMsgPart	part;

	if (nkept == 0 || (event != XACT_EVENT_ABORT && event != XACT_EVENT_COMMIT &&
					   event != XACT_EVENT_PREPARE))
		return;
	part.data = (const char *) kept_ids;
	part.len = sizeof(uint64) * nkept;
	(void) gdb_server_bounded_call(GDB_MSG_JOIN_RELEASE, &part, 1, GPUDB_XACT_END_WAIT_MS);
	nkept = 0;
}

/*
 * Does join j's build side b need its numeric keys rescaled to the probe
 * keys' scale (spec's probe columns in q)?  For key column c: *from and *to.
 */
static bool
key_rescale(const GdbJoinBuild *b, const GdbQuery *q, const GdbJoinSpec *spec,
			uint32 c, int *from, int *to)
{
	int32		bsrc = b->q.req->out_cols[c];
	int32		psrc = spec->probe_cols[c];

	return b->q.cs.typids[bsrc] == NUMERICOID && q->cs.typids[psrc] == NUMERICOID &&
		gdb_numeric_typmod_scale(b->q.cs.typmods[bsrc], from) &&
		gdb_numeric_typmod_scale(q->cs.typmods[psrc], to) && *from != *to;
}

/* Does b's result have a text column? */
static bool
build_has_text(const GdbJoinBuild *b)
{
	uint32		c;

	for (c = 0; c < b->q.req->nout; c++)
		if (gdb_column_is_text(&b->q.cs, b->q.req->out_cols[c]))
			return true;
	return false;
}

/* see custom_scan.h */
List *
gdb_join_init_derived(GdbJoinState *js, List *custom_plans, EState *estate, int eflags)
{
	List	   *states = NIL;
	int			j;

	if (js == NULL)
		return NIL;
	for (j = 0; j < js->njoins; j++)
	{
		GdbJoinBuild *b = &js->builds[j];

		states = list_concat(states, gdb_join_init_derived(b->sub, custom_plans, estate,
														   eflags));
		if (b->derived == 0)
			continue;
		if (b->derived >= list_length(custom_plans))
			elog(ERROR, "gpudb: a derived table's plan is missing");
		b->derived_ps = ExecInitNode((Plan *) list_nth(custom_plans, b->derived), estate,
									 eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK));
		states = lappend(states, b->derived_ps);
	}
	return states;
}

/*
 * Is numeric datum value (not NULL) one that a column of display scale
 * scale holds as PostgreSQL shows it: NaN, or a finite value below 10^18
 * at that scale whose own display scale is scale?  Then *word is its
 * column word (the scaled integer, or GDB_NUMERIC_NAN), converted once.
 * A derived table's aggregate result has the scale
 * gdb_numeric_result_typmod expected unless its values say otherwise (an
 * average's grows for a quotient below 1); laid out at another scale, its
 * text and what it adds up to would differ.
 */
static bool
derived_numeric_word(Datum value, int scale, int64 *word)
{
	GdbNumericFit fit = gdb_numeric_to_scaled(value, scale, word);

	if (fit == GDB_NUMFIT_NAN)
	{
		*word = GDB_NUMERIC_NAN;
		return true;
	}
	return fit == GDB_NUMFIT_EXACT &&
		DatumGetInt32(DirectFunctionCall1(numeric_scale, value)) == scale;
}

/* Rows of one chunk of a derived table's batch (read_derived). */
#define GDB_DERIVED_CHUNK_ROWS	65536

/*
 * Run derived table build side b's plan to its end, unless it ran (or b
 * is a table's), its rows laid out as they come as a batch of b->q's
 * result columns (b->derived_part): text as codes of the probe query q's
 * dictionary (made here when needed; a query's dictionary is never
 * replaced, only grown), numeric as b's column's fixed point.  Chunks of
 * GDB_DERIVED_CHUNK_ROWS rows, concatenated at the end into one batch of
 * exactly its rows: no tuple is stored and read back.  False, with *why,
 * at the first numeric value whose display scale is not its column's
 * (derived_numeric_word): the plan is not run further.
 */
static bool
read_derived(GdbJoinBuild *b, GdbQuery *q, const char **why)
{
	GdbColumnSet cs = b->q.cs;
	GdbBatch	layout;
	List	   *chunks = NIL;
	GdbBatch   *chunk = NULL;
	GdbDirectRows direct;
	bool		is_direct;
	int			ncols = list_length(b->derived_cols);
	Datum	   *values;
	bool	   *nulls;
	uint64		size;
	int			c;

	if (b->derived == 0 || b->derived_part != NULL)
		return true;
	values = palloc(sizeof(Datum) * Max(ncols, 1));
	nulls = palloc(sizeof(bool) * Max(ncols, 1));
	for (c = 0; c < cs.ncols; c++)
		if (gdb_type_class(cs.typids[c]) == GDB_TYPE_TEXT && q->cs.dict == NULL)
			q->cs.dict = gdb_dict_create();
	cs.dict = q->cs.dict;
	size = gdb_columnset_layout(&cs, &layout, GDB_DERIVED_CHUNK_ROWS, false);
	/* a GpudbAgg's or GpudbJoin's result batches read directly, else slots */
	is_direct = gdb_direct_rows_begin(b->derived_ps, b->derived_cols, &direct);
	for (;;)
	{
		bool		more;

		if (is_direct)
			more = gdb_direct_rows_next(&direct, values, nulls);
		else
		{
			TupleTableSlot *slot = ExecProcNode(b->derived_ps);
			ListCell   *lc;

			more = !TupIsNull(slot);
			if (more)
			{
				slot_getallattrs(slot);
				foreach(lc, b->derived_cols)
				{
					values[foreach_current_index(lc)] = slot->tts_values[lfirst_int(lc)];
					nulls[foreach_current_index(lc)] = slot->tts_isnull[lfirst_int(lc)];
				}
			}
		}

		/* a chunk first (an empty table is one empty chunk), then as filled */
		if (chunk == NULL || (more && chunk->nrows == GDB_DERIVED_CHUNK_ROWS))
		{
			chunk = MemoryContextAllocHuge(CurrentMemoryContext, size);
			memcpy(chunk, &layout, sizeof(GdbBatch));
			chunk->nrows = 0;
			chunks = lappend(chunks, chunk);
		}
		if (!more)
			break;
		for (c = 0; c < ncols; c++)
		{
			int64		word;

			if (cs.typids[c] != NUMERICOID || nulls[c])
			{
				gdb_batch_store_value(&cs, chunk, c, chunk->nrows, values[c], nulls[c]);
				continue;
			}
			/* a numeric: checked and converted once, its word stored as is */
			if (!derived_numeric_word(values[c], gdb_column_numeric_scale(&cs, c), &word))
			{
				*why = psprintf("a derived table's numeric value does not have the display scale %d that its column was planned with",
								gdb_column_numeric_scale(&cs, c));
				if (is_direct)
					gdb_direct_rows_end(&direct);
				/* its parallel workers stopped: PostgreSQL's plan runs next */
				ExecShutdownNode(b->derived_ps);
				list_free_deep(chunks);
				return false;
			}
			GDB_COL_PTR(chunk, chunk, c, int64)[chunk->nrows] = word;
			GDB_NULL_PTR(chunk, chunk, c)[chunk->nrows] = 0;
		}
		chunk->nrows++;
	}
	if (is_direct)
		gdb_direct_rows_end(&direct);
	/* its parallel workers, if any, done (the request may need a subxact) */
	ExecShutdownNode(b->derived_ps);
	/* one batch of exactly its rows (a small table sends no empty chunk) */
	b->derived_part = gdb_concat_batches(NULL, chunks);
	list_free_deep(chunks);
	return true;
}

/* see custom_scan.h */
bool
gdb_join_read_derived(GdbJoinState *js, GdbQuery *q, const char **why)
{
	int			j;

	if (js == NULL)
		return true;
	for (j = 0; j < js->njoins; j++)
	{
		GdbJoinBuild *b = &js->builds[j];

		/* a nested tree's build sides code text as its own query does */
		if (!gdb_join_read_derived(b->sub, &b->q, why) || !read_derived(b, q, why))
			return false;
	}
	return true;
}

/* see custom_scan.h */
void
gdb_join_end_derived(GdbJoinState *js)
{
	int			j;

	if (js == NULL)
		return;
	for (j = 0; j < js->njoins; j++)
	{
		GdbJoinBuild *b = &js->builds[j];

		gdb_join_end_derived(b->sub);
		if (b->derived_ps != NULL)
			ExecEndNode(b->derived_ps);
		b->derived_ps = NULL;
		if (b->derived_part != NULL)
			pfree(b->derived_part);
		b->derived_part = NULL;
	}
}

/*
 * A derived table's build side b as a batch of b->q's result columns, in
 * the probe query q's dictionary: a copy of the rows read_derived laid
 * out (read first if they were not), which the caller may change (its
 * numeric keys rescaled) and build_sides may ask for again.
 */
static GdbBatch *
derived_batch(GdbJoinBuild *b, GdbQuery *q)
{
	GdbBatch   *part;
	const char *why;

	/* (read before the request: gdb_join_read_derived) */
	if (!read_derived(b, q, &why))
		elog(ERROR, "gpudb: %s", why);
	part = MemoryContextAllocHuge(CurrentMemoryContext, b->derived_part->total_bytes);
	memcpy(part, b->derived_part, b->derived_part->total_bytes);
	return part;
}

static bool build_sides(GdbJoinState *js, GdbQuery *q, bool check_unique, bool keep,
						const char **why);

/*
 * GdbQuery.unkeep of a probe over kept build sides with text codes of the
 * cache, about to read the heap: every build side again, through the
 * backend (the kept ones are released with the node's others).
 */
static void
unkeep_build_sides(GdbQuery *q, void *arg)
{
	const char *why = NULL;

	gdb_join_release((GdbJoinState *) arg);
	(void) build_sides((GdbJoinState *) arg, q, false, false, &why);
}

/* see custom_scan.h */
bool
gdb_join_build(GdbJoinState *js, GdbQuery *q, bool check_unique, const char **why)
{
	/*
	 * Build sides the server may keep: answered from the cache, and not
	 * needed here (an inner or left join's, checked for uniqueness here
	 * outside a subtransaction)
	 */
	return build_sides(js, q, check_unique, gpudb_use_cache, why);
}

/*
 * Is join j's build side part (in the backend) unique on its keys?  The CPU
 * path's own table of that one join, as the request would build it.
 * Raises what building it raises (out of memory).
 */
static bool
build_side_unique(const GdbRequest *req, int j, const GdbBatch *part)
{
	GdbRequest *one = palloc0(sizeof(GdbRequest));
	GdbHashSide sides[GDB_MAX_JOINS];
	GdbError	err;
	int			st;

	one->njoins = 1;
	one->joins[0] = req->joins[j];
	one->joins[0].build_off = 0;
	one->joins[0].build_bytes = part->total_bytes;
	one->joins[0].build_keep = 0;
	one->join_data = part;
	one->njoin_bytes = part->total_bytes;
	memset(&err, 0, sizeof(err));
	st = gdb_cpu_join_build(one, sides, &err);
	pfree(one);
	if (st == GDB_ERR_JOIN_DUPLICATE)
		return false;
	if (st != GDB_OK)
	{
		err.status = st;
		gdb_raise_status(&err);
	}
	gdb_cpu_join_free(sides);
	return true;
}

/*
 * gdb_join_build's work; with keep, a build side answered from the cache
 * whose keys need no rescaling, and that check_unique does not need here
 * (a semi or anti join's, or any without check_unique), stays in the GPU
 * server (GdbJoinSpec.build_keep) instead of coming here.
 */
static bool
build_sides(GdbJoinState *js, GdbQuery *q, bool check_unique, bool keep, const char **why)
{
	GdbBatch   *parts[GDB_MAX_JOINS];
	uint64		total = 0;
	char	   *data;
	bool		unique_needed = false;
	int			j;

	q->unkeep = NULL;
	q->kept_text = false;
	for (j = 0; j < js->njoins; j++)
	{
		GdbJoinBuild *b = &js->builds[j];
		GdbJoinSpec *spec = &q->req->joins[j];
		GdbRunInfo	info;
		uint32		c;
		int			bs,
					ps;
		bool		keep_this;
		uint64		keep_id;
		instr_time	start,
					elapsed;

		/* a nested tree: its own build sides first */
		INSTR_TIME_SET_CURRENT(start);
		if (b->sub != NULL && !build_sides(b->sub, &b->q, check_unique, keep, why))
			return false;
		/* (after the nested tree's own, which may have kept some) */
		keep_this = keep && nkept < GDB_MAX_KEPT && b->derived == 0 &&
			(!check_unique || b->type == GDB_JOIN_SEMI || b->type == GDB_JOIN_ANTI);
		for (c = 0; c < spec->nkeys && keep_this; c++)
			if (key_rescale(b, q, spec, c, &bs, &ps))
				keep_this = false;
		keep_id = keep_this ? new_join_id() : 0;
		if (keep_id != 0)
		{
			/* noted first: an error from here on still frees it */
			if (!kept_callback_registered)
			{
				RegisterXactCallback(kept_xact_callback, NULL);
				kept_callback_registered = true;
			}
			kept_ids[nkept++] = keep_id;
		}
		spec->build_keep = 0;
		b->kept_id = 0;
		b->kept = false;
		parts[j] = NULL;
		if (b->derived != 0)
		{
			/* a derived table's rows, in the probe query's dictionary */
			parts[j] = derived_batch(b, q);
			b->from_cache = false;
		}
		else
		{
			b->q.keep_id = keep_id;
			b->q.keep_for = RelationGetRelid(q->rel);
			gdb_query_run_source(&b->q, &info, GDB_SOURCE_ANY);
			b->q.keep_id = 0;
			if (info.batches == NIL)
				elog(ERROR, "gpudb: a join's build side returned no result");
			b->from_cache = info.from_cache;
			b->cache_state = info.cache_state;
			if (keep_id != 0 && !b->q.kept)
				kept_forget(keep_id);
			if (b->q.kept)
			{
				/* kept by the server: only its header came back */
				const GdbBatch *hdr = (const GdbBatch *) linitial(info.batches);

				b->kept_id = keep_id;
				b->kept = true;
				spec->build_keep = keep_id;
				b->rows = hdr->nrows;
				b->bytes = hdr->total_bytes + gdb_hj_slot_count(hdr->nrows) * sizeof(uint32);
				/* its text codes are the probe relation's cached copy's */
				q->unkeep = unkeep_build_sides;
				q->unkeep_arg = js;
				if (build_has_text(b))
					q->kept_text = true;
			}
			else
			{
				parts[j] = list_length(info.batches) == 1 ?
					(GdbBatch *) linitial(info.batches) : gdb_concat_batches(NULL, info.batches);
				/* text keys and payload: codes of the probe query's dictionary */
				for (c = 0; c < parts[j]->ncols; c++)
					if (gdb_column_is_text(&b->q.cs, b->q.req->out_cols[c]))
					{
						if (q->cs.dict == NULL)
							q->cs.dict = gdb_dict_create();
						recode_text(parts[j], c, b->q.cs.dict, q->cs.dict);
					}
			}
		}
		if (parts[j] != NULL)
		{
			b->rows = parts[j]->nrows;
			/* numeric keys of another scale than the probe key's: rescaled */
			for (c = 0; c < spec->nkeys && c < parts[j]->ncols; c++)
				if (key_rescale(b, q, spec, c, &bs, &ps))
					rescale_numeric_key(parts[j], c, bs, ps);
			b->bytes = parts[j]->total_bytes +
				gdb_hj_slot_count(parts[j]->nrows) * sizeof(uint32);
		}
		INSTR_TIME_SET_CURRENT(elapsed);
		INSTR_TIME_SUBTRACT(elapsed, start);
		b->ms = INSTR_TIME_GET_MILLISEC(elapsed);
		if (check_unique && (b->type == GDB_JOIN_INNER || b->type == GDB_JOIN_LEFT))
			unique_needed = true;
	}
	for (j = 0; j < js->njoins; j++)
	{
		GdbJoinSpec *spec = &q->req->joins[j];

		spec->build_off = total;
		spec->build_bytes = parts[j] ? parts[j]->total_bytes : 0;
		total += gdb_align_up(spec->build_bytes);
	}
	data = MemoryContextAllocHuge(CurrentMemoryContext, Max(total, 1));
	for (j = 0; j < js->njoins; j++)
		if (parts[j])
			memcpy(data + q->req->joins[j].build_off, parts[j], parts[j]->total_bytes);
	q->req->join_data = data;
	q->req->njoin_bytes = total;
	/* these build sides' identity: equal bytes wherever the id goes */
	q->req->join_id = new_join_id();

	/* an INNER or LEFT join expands no row: its keys must be unique */
	for (j = 0; unique_needed && j < js->njoins; j++)
		if ((js->builds[j].type == GDB_JOIN_INNER || js->builds[j].type == GDB_JOIN_LEFT) &&
			parts[j] != NULL && !build_side_unique(q->req, j, parts[j]))
		{
			*why = GDB_JOIN_DUPLICATE_MESSAGE;
			return false;
		}
	return true;
}

/* see custom_scan.h */
void
gdb_join_release(GdbJoinState *js)
{
	uint64		ids[GDB_MAX_JOINS];
	int			n = 0;
	int			j;

	if (js == NULL)
		return;
	for (j = 0; j < js->njoins; j++)
	{
		GdbJoinBuild *b = &js->builds[j];

		gdb_join_release(b->sub);
		if (b->kept_id != 0 && n < lengthof(ids))
		{
			ids[n++] = b->kept_id;
			kept_forget(b->kept_id);
			b->kept_id = 0;
		}
	}
	gdb_cache_release_kept(ids, n);
}
