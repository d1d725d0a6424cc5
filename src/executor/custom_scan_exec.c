/*-------------------------------------------------------------------------
 *
 * custom_scan_exec.c
 *	  The executor side of the custom scan nodes GpudbScan, GpudbAgg and
 *	  GpudbSort (see custom_scan.h): build the query from the plan, run it
 *	  from the cache or the heap on the first fetch (query_run.c), hand out
 *	  result rows as virtual tuples, and describe the node in EXPLAIN through
 *	  the property API (so TEXT, JSON, YAML and XML all carry it).
 *
 * Scan tuples: GpudbAgg's are its custom_scan_tlist (group keys, then
 * aggregates), which set_plan_references made the target list and HAVING
 * refer to; GpudbScan's and GpudbSort's have the relation's row type with the
 * columns the plan reads filled and the others NULL.  Result values are
 * formed in the per-tuple memory context.
 *
 * Rescan replays the rows already computed (the nodes take no parameters),
 * and, since a node holds its whole result, it scans backward too, as
 * PostgreSQL's Sort and SeqScan do: a cursor over it is scrollable without
 * SCROLL, and FETCH BACKWARD / PRIOR / ABSOLUTE work without a Material
 * node.  The nodes are not parallel-safe (one GPU server request per
 * query), but over a large uncached heap they start parallel workers of
 * their own to read it (parallel_feed.c; "Workers Launched" in EXPLAIN
 * ANALYZE).
 *
 * A node planned with PostgreSQL's plan behind it (its one custom plan,
 * custom_scan_fallback.c) runs its request in a subtransaction; when that
 * fails with the fixed-point error, or when the query runs in parallel
 * mode (where no subtransaction can start), it runs that plan instead and
 * hands out its rows, kept in a tuplestore (run_or_fall_back,
 * fallback_next).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "pgtime.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/ruleutils.h"
#include "utils/tuplestore.h"

#include "cpu_hash_join.h"
#include "pg_compat.h"
#include "custom_scan.h"
#include "custom_scan_path.h"
#include "expr_compile.h"
#include "server_protocol.h"

/* Execution state of one node. */
typedef struct GdbScanState
{
	CustomScanState css;
	GdbNodeKind kind;
	GdbQuery	q;
	List	   *device_quals;	/* for EXPLAIN */
	List	   *params;			/* custom_exprs: the quals' parameters */
	List	   *param_states;	/* their ExprStates */
	int			nout;
	AttrNumber	out_attnums[GDB_MAX_COLUMNS];	/* SCAN/SORT: slot columns */
	char	   *sort_labels[GDB_MAX_SORT_KEYS];
	int			having_quals;	/* HAVING quals the device can evaluate */
	MemoryContext run_cxt;		/* query and results */
	bool		ran;
	bool		expect_gpu;		/* the device was usable at executor start */
	int			fallbacks;		/* runs that took the CPU path anyway */
	GdbRunInfo	info;

	/*
	 * Position in the result: the batches in order, the one holding the
	 * current row (bi, whose first row is row number bstart), and the
	 * current row's number, cur: the row last returned, -1 before the first
	 * and nrows after the last (as a scan's position after running off
	 * either end).
	 */
	const GdbBatch **batches;
	int			nbatches;
	int			bi;
	int64		bstart;
	int64		cur;
	int64		nrows;

	/*
	 * Groups ordered on the host (GDB_PRIV_HOST_ORDER): the sort keys the
	 * request does not carry, the LIMIT (0: none), and once run the result
	 * rows (of one batch) in that order, nrows of them
	 */
	int			nhost;
	GdbSortKey	host_keys[GDB_MAX_SORT_KEYS];
	uint64		host_limit;
	int64	   *order;
	uint64		rows_out;
	Datum	   *values;
	bool	   *nulls;

	/*
	 * PostgreSQL's plan behind the node (custom_scan_fallback.c): run, and
	 * its rows kept for rescans and backward fetches, once the device
	 * request failed with the fixed-point error
	 */
	bool		fell_back;
	bool		fell_back_early;	/* at executor start: no query built */
	bool		fallback_filled;
	char	   *fallback_why;
	PlanState  *fallback_ps;
	Tuplestorestate *fallback_rows;
	TupleTableSlot *fallback_slot;
	int			eflags;

	/* GpudbJoin: its build sides, and the range table's names for labels */
	GdbJoinState *join;
	List	   *deparse_cxt;
	bool		join_needs_rollback;	/* may meet the fixed point or the
										 * time zone (gdb_needs_fallback) */
} GdbScanState;

static Node *gdb_create_scan_state(CustomScan *cscan);
static void gdb_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *gdb_exec(CustomScanState *node);
static void gdb_end(CustomScanState *node);
static void gdb_rescan(CustomScanState *node);
static void gdb_explain(CustomScanState *node, List *ancestors,
						ExplainState *es);
static void fallback_init(GdbScanState *s);

CustomScanMethods gdb_scan_methods[GDB_NODE__COUNT] = {
	{"GpudbScan", gdb_create_scan_state},
	{"GpudbAgg", gdb_create_scan_state},
	{"GpudbSort", gdb_create_scan_state},
	{"GpudbJoin", gdb_create_scan_state},
};

static CustomExecMethods gdb_exec_methods = {
	.CustomName = "gpudb",
	.BeginCustomScan = gdb_begin,
	.ExecCustomScan = gdb_exec,
	.EndCustomScan = gdb_end,
	.ReScanCustomScan = gdb_rescan,
	.ExplainCustomScan = gdb_explain,
};

static const char *const agg_names[] = GDB_AGG_FUNC_NAMES;

static Node *
gdb_create_scan_state(CustomScan *cscan)
{
	GdbScanState *s = (GdbScanState *) newNode(sizeof(GdbScanState),
											   T_CustomScanState);

	s->css.methods = &gdb_exec_methods;
	s->kind = (GdbNodeKind) intVal(list_nth(cscan->custom_private, GDB_PRIV_KIND));
	return (Node *) s;
}

/* A column's name, quoted as needed. */
static char *
column_name(Relation rel, AttrNumber attnum)
{
	return pstrdup(quote_identifier(NameStr(TupleDescAttr(RelationGetDescr(rel),
														  attnum - 1)->attname)));
}

/*
 * An expression over rel (Vars of range table index varno) as SQL, for
 * EXPLAIN's labels.
 */
static char *
expr_label(Node *expr, Relation rel, Index varno)
{
	Node	   *e = copyObject(expr);

	if (varno != 1)
		ChangeVarNodes(e, (int) varno, 1, 0);
	return deparse_expression(e, deparse_context_for(RelationGetRelationName(rel),
													 RelationGetRelid(rel)),
							  false, false);
}

/*
 * An expression of a node's scan tuple as SQL: over its relation (Vars of
 * range table index varno), or, for GpudbJoin, over any relation of the
 * plan, qualified by its name.
 */
static char *
node_label(GdbScanState *s, Node *expr, Relation rel, Index varno)
{
	if (s->kind == GDB_NODE_JOIN)
		return deparse_expression(expr, s->deparse_cxt, true, false);
	return expr_label(expr, rel, varno);
}

/* How many of an IntList of attnums are GDB_ATTNUM_EXPR. */
static int
list_count_expr(List *attnums)
{
	int			n = 0;
	ListCell   *lc;

	foreach(lc, attnums)
		n += lfirst_int(lc) == GDB_ATTNUM_EXPR;
	return n;
}

/*
 * The sort keys of the plan, (column, descending, nulls_first) triples,
 * into s's request and EXPLAIN labels.  GpudbSort (result_cols false): the
 * column is a table attnum, added to the query's columns, or
 * GDB_ATTNUM_EXPR for the next computed column of the scan tlist (a
 * sort key expression, compiled by gdb_columnset_add_expr).  GpudbAgg
 * (result_cols true): it is a result column of the group-by, a group key
 * (0..nkeys-1) or nkeys + an aggregate, labelled by the key's or the
 * aggregate's name; the keys and aggregates must be in q already.
 */
static void
set_sort_keys(GdbScanState *s, List *sort, bool result_cols)
{
	GdbQuery   *q = &s->q;
	Relation	rel = s->css.ss.ss_currentRelation;
	List	   *output = (List *) list_nth(((CustomScan *) s->css.ss.ps.plan)->custom_private,
										   GDB_PRIV_OUTPUT);
	int			first_expr = 0;
	int			nexpr = 0;
	int			i;

	/* GpudbSort: the computed columns follow the Vars in the scan tlist */
	if (!result_cols)
		first_expr = list_length(output) - list_count_expr(output);
	for (i = 0; i + 2 < list_length(sort) && q->req->nsort < GDB_MAX_SORT_KEYS; i += 3)
	{
		int			col = list_nth_int(sort, i);
		bool		desc = list_nth_int(sort, i + 1) != 0;
		bool		nf = list_nth_int(sort, i + 2) != 0;
		GdbSortKey *sk = &q->req->sort_keys[q->req->nsort];
		const char *name;

		if (!result_cols && col == GDB_ATTNUM_EXPR)
		{
			/* the next computed column of the scan tlist (after its Vars) */
			CustomScan *cscan = (CustomScan *) s->css.ss.ps.plan;
			Node	   *e = (Node *) list_nth_node(TargetEntry, cscan->custom_scan_tlist,
												   first_expr + nexpr++)->expr;

			sk->col = gdb_columnset_add_expr(&q->cs, rel, e, q->req, "GpudbSort");
			name = expr_label(e, rel, cscan->scan.scanrelid);
		}
		else if (!result_cols)
		{
			sk->col = gdb_columnset_add_sort_key(&q->cs, rel, (AttrNumber) col);
			name = column_name(rel, (AttrNumber) col);
		}
		else if (col >= 0 && col < q->nkeys + q->naggs)
		{
			sk->col = col;
			name = col < q->nkeys ? q->key_names[col] : q->aggs[col - q->nkeys].label;
		}
		else
			elog(ERROR, "gpudb: sort key %d is not a result column", col);
		sk->descending = desc;
		sk->nulls_first = nf;
		s->sort_labels[q->req->nsort] =
			psprintf("%s%s%s", name, desc ? " DESC" : "",
					 nf != desc ? (nf ? " NULLS FIRST" : " NULLS LAST") : "");
		q->req->nsort++;
	}
}

/* Has the session's time zone one offset from UTC (UTC, a fixed offset)? */
static bool
session_zone_fixed(void)
{
	long		gmtoff;

	return session_timezone != NULL && pg_get_timezone_offset(session_timezone, &gmtoff);
}

/*
 * Build the query from the plan: the same GdbQuery the SQL functions
 * build, so both run through the same code.
 */
/*
 * The device quals into the request's filter program (with the values of
 * their parameters where q->cs holds them, param_values.c): the probe
 * relation's own columns only, not a GpudbJoin's payload.
 */
static void
compile_device_quals(GdbScanState *s)
{
	GdbQuery   *q = &s->q;
	int			njoincols = q->cs.njoincols;

	q->cs.njoincols = 0;
	(void) gdb_compile_quals(s->device_quals, q->rel, &q->cs, q->req,
							 gdb_scan_methods[s->kind].CustomName, false, NULL);
	q->cs.njoincols = njoincols;
}

static void
gdb_begin(CustomScanState *node, EState *estate, int eflags)
{
	GdbScanState *s = (GdbScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *priv = cscan->custom_private;
	Relation	rel = node->ss.ss_currentRelation;
	GdbQuery   *q = &s->q;
	MemoryContext old;
	ListCell   *lc;
	int			natts;

	s->expect_gpu = strcmp(gdb_plan_device_label(), "CPU path") != 0;
	s->eflags = eflags;
	s->run_cxt = AllocSetContextCreate(estate->es_query_cxt, "gpudb custom scan",
									   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(s->run_cxt);
	memset(q, 0, sizeof(GdbQuery));
	q->rel = rel;
	/* the executor's snapshot, as a SeqScan's (not whatever is active) */
	q->snapshot = estate->es_snapshot;
	q->req = palloc0(sizeof(GdbRequest));
	s->device_quals = (List *) list_nth(priv, GDB_PRIV_QUALS);

	/*
	 * timestamptz computed in the session's time zone needs a fixed offset
	 * now (planning may have seen another zone): else PostgreSQL's plan
	 */
	if (cscan->custom_plans != NIL && !session_zone_fixed() &&
		gdb_uses_session_timezone((Node *) list_make3(cscan->custom_scan_tlist,
													  s->device_quals,
													  gdb_join_exprs((List *) list_nth(priv, GDB_PRIV_JOIN)))))
	{
		s->fell_back = true;
		s->fell_back_early = true;
		s->ran = true;
		s->fallback_why = "the session time zone has daylight-saving rules";
		MemoryContextSwitchTo(old);
		fallback_init(s);
		return;
	}

	switch (s->kind)
	{
		case GDB_NODE_AGG:
		case GDB_NODE_JOIN:
			q->req->oper = GDB_OPER_GROUPBY;
			if (s->kind == GDB_NODE_JOIN)
			{
				/* the build sides and payload columns, before the keys */
				List	   *names = select_rtable_names_for_explain(estate->es_range_table,
																		cscan->custom_relids);

				s->deparse_cxt = deparse_context_for_plan_tree(estate->es_plannedstmt, names);
				s->join = gdb_join_begin(q, (List *) list_nth(priv, GDB_PRIV_JOIN),
										 cscan->scan.scanrelid, estate, names,
										 s->deparse_cxt);
				/*
				 * derived tables' plans, shown under the node: in the
				 * query's memory, as every plan state (their slots are in
				 * the executor's tuple table, cleared at ExecutorEnd after
				 * gdb_end has deleted run_cxt)
				 */
				{
					MemoryContext node_cxt = MemoryContextSwitchTo(estate->es_query_cxt);

					s->css.custom_ps = gdb_join_init_derived(s->join, cscan->custom_plans,
															 estate, eflags);
					MemoryContextSwitchTo(node_cxt);
				}
				s->join_needs_rollback =
					gdb_needs_fallback((Node *) list_make3(cscan->custom_scan_tlist,
														   s->device_quals,
														   gdb_join_exprs((List *) list_nth(priv, GDB_PRIV_JOIN))));
			}
			foreach(lc, (List *) list_nth(priv, GDB_PRIV_KEYS))
			{
				AttrNumber	attnum = (AttrNumber) lfirst_int(lc);

				if (attnum == GDB_ATTNUM_EXPR)
				{
					/* the key's expression: its custom_scan_tlist entry */
					Node	   *e = (Node *) list_nth_node(TargetEntry, cscan->custom_scan_tlist,
														   q->nkeys)->expr;

					gdb_query_add_key_expr(q, e, node_label(s, e, rel, cscan->scan.scanrelid));
				}
				else
					gdb_query_add_key(q, attnum, column_name(rel, attnum));
			}
			{
				/* (GdbAggFunc, attnum) pairs */
				List	   *aggs = (List *) list_nth(priv, GDB_PRIV_AGGS);
				int			i;

				for (i = 0; i + 1 < list_length(aggs); i += 2)
				{
					GdbAggFunc	fn = (GdbAggFunc) list_nth_int(aggs, i);
					AttrNumber	attnum = (AttrNumber) list_nth_int(aggs, i + 1);

					if (GDB_FN_IS_ORDERED_SET(fn))
					{
						/* the fraction: from the Aggref in the scan tuple */
						TargetEntry *te = list_nth_node(TargetEntry, cscan->custom_scan_tlist,
														q->nkeys + i / 2);
						bool		fnull;
						double		f;

						gdb_ordered_set_aggref_fraction(castNode(Aggref, te->expr), &fnull, &f);
						if (attnum == GDB_ATTNUM_EXPR)
						{
							/* the aggregate's argument, as the planner saw it */
							Node	   *arg = (Node *) gdb_ordered_set_arg(castNode(Aggref, te->expr),
																		   fn);

							gdb_query_add_ordered_set_expr(q, fn, 0, arg, fnull, f,
														   gdb_ordered_set_label(fn,
																				 node_label(s, arg, rel, cscan->scan.scanrelid),
																				 fnull, f));
							continue;
						}
						gdb_query_add_ordered_set(q, fn, attnum, fnull, f,
												  gdb_ordered_set_label(fn, column_name(rel, attnum),
																		fnull, f));
						continue;
					}
					if (attnum == GDB_ATTNUM_EXPR)
					{
						/* the argument of the Aggref in the scan tuple */
						TargetEntry *te = list_nth_node(TargetEntry, cscan->custom_scan_tlist,
														q->nkeys + i / 2);
						Aggref	   *aggref = castNode(Aggref, te->expr);
						Node	   *arg = (Node *) linitial_node(TargetEntry, aggref->args)->expr;

						gdb_query_add_aggregate_expr(q, fn, arg,
													 psprintf("%s(%s)", agg_names[fn],
															  node_label(s, arg, rel, cscan->scan.scanrelid)));
						continue;
					}
					gdb_query_add_aggregate(q, fn, attnum,
											attnum > 0 ?
											psprintf("%s(%s)", agg_names[fn], column_name(rel, attnum)) :
											psprintf("%s(*)", agg_names[fn]));
				}
			}
			/* ordered on the device: result columns (keys, then aggregates) */
			set_sort_keys(s, (List *) list_nth(priv, GDB_PRIV_SORT), true);
			/* ... or on the host, once the groups are finished (host_order) */
			if (intVal(list_nth(priv, GDB_PRIV_HOST_ORDER)) != 0)
			{
				s->nhost = (int) q->req->nsort;
				memcpy(s->host_keys, q->req->sort_keys, sizeof(GdbSortKey) * s->nhost);
				s->host_limit = (uint64) strtoull(strVal(list_nth(priv, GDB_PRIV_LIMIT)),
												  NULL, 10);
				q->req->nsort = 0;
			}
			break;
		case GDB_NODE_SCAN:
		case GDB_NODE_SORT:
			q->req->oper = s->kind == GDB_NODE_SCAN ? GDB_OPER_SELECT : GDB_OPER_SORT;
			foreach(lc, (List *) list_nth(priv, GDB_PRIV_OUTPUT))
			{
				AttrNumber	attnum = (AttrNumber) lfirst_int(lc);
				int			i = foreach_current_index(lc);

				if (cscan->custom_scan_tlist != NIL)
				{
					/* the scan tuple is the scan tlist: column i + 1 */
					s->out_attnums[s->nout++] = i + 1;
					q->req->out_cols[q->req->nout++] = attnum == GDB_ATTNUM_EXPR ?
						gdb_columnset_add_expr(&q->cs, rel,
											   (Node *) list_nth_node(TargetEntry,
																	  cscan->custom_scan_tlist,
																	  i)->expr,
											   q->req, gdb_scan_methods[s->kind].CustomName) :
						gdb_columnset_add(&q->cs, rel, attnum, false);
					continue;
				}
				s->out_attnums[s->nout++] = attnum;
				q->req->out_cols[q->req->nout++] =
					gdb_columnset_add(&q->cs, rel, attnum, false);
			}
			q->nout = s->nout;
			if (s->kind == GDB_NODE_SORT)
				set_sort_keys(s, (List *) list_nth(priv, GDB_PRIV_SORT), false);
			break;
	}
	q->req->limit = q->req->nsort > 0 ?
		(uint64) strtoull(strVal(list_nth(priv, GDB_PRIV_LIMIT)), NULL, 10) : 0;
	compile_device_quals(s);
	/* parameters the quals compare with: evaluated at the first run */
	s->params = cscan->custom_exprs;
	s->param_states = ExecInitExprList(cscan->custom_exprs, &s->css.ss.ps);
	/* the HAVING quals the device may evaluate (groupby_having.c) */
	if (q->req->oper == GDB_OPER_GROUPBY)
		s->having_quals = gdb_having_compile(q, cscan->scan.plan.qual,
											 cscan->custom_scan_tlist, s->params,
											 NIL, false);
	natts = gdb_query_natts(q);
	s->values = palloc(sizeof(Datum) * Max(natts, 1));
	s->nulls = palloc(sizeof(bool) * Max(natts, 1));
	MemoryContextSwitchTo(old);
}

/*
 * The node's request: a GpudbJoin's build sides first, then the query.
 * Outside a subtransaction (in_subxact false) the build sides are checked
 * for duplicate keys first (false, with s->fallback_why, when one is not
 * unique); inside one the request's own build reports them, and the
 * caller rolls that back.
 */
static bool
run_query(GdbScanState *s, bool in_subxact)
{
	if (s->join != NULL &&
		!gdb_join_build(s->join, &s->q, !in_subxact, (const char **) &s->fallback_why))
		return false;
	gdb_query_run(&s->q, &s->info);
	gdb_join_release(s->join);
	return true;
}

/*
 * Run the node's request (run_query).  With PostgreSQL's plan behind the
 * node (a custom plan, custom_scan_fallback.c), run it in a
 * subtransaction, as PL/pgSQL's exception blocks do: when it fails with the
 * fixed-point error (or a device's duplicate build key, or, for a
 * GpudbJoin, gpudb's out of memory: build sides that do not fit the device),
 * roll that back and return false (the caller runs the fallback plan); any
 * other error, a cancel included, is raised again as it was.  A GpudbJoin's
 * build side that is not unique on its keys returns false too.
 *
 * Parallel mode (a Gather anywhere in the plan, PostgreSQL's plan behind
 * the node included, or debug_parallel_query): before 17 no subtransaction
 * can start in parallel mode.  While no parallel workers run (no
 * ParallelContext: the node runs before the Gathers below it start), the
 * request leaves parallel mode for the subtransaction and enters it again
 * after, which is safe because parallel mode only guards state the workers
 * share.  While workers run, a GpudbJoin whose expressions cannot meet the
 * fixed point or the time zone runs as it is, its inner and left joins'
 * build sides checked for duplicate keys in the backend before the
 * request, and any other node answers with PostgreSQL's plan at once.  From
 * 17 on an internal subtransaction may start in parallel mode.
 */
static bool
run_or_fall_back(GdbScanState *s)
{
	CustomScan *cscan = (CustomScan *) s->css.ss.ps.plan;
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		ok = true;
	bool		left_parallel_mode = false;

	if (cscan->custom_plans == NIL)
		return run_query(s, false);
	if (IsInParallelMode() && !GDB_SUBXACT_IN_PARALLEL_MODE)
	{
		if (ParallelContextActive())
		{
			if (s->join != NULL && !s->join_needs_rollback)
				return run_query(s, false);
			s->fallback_why = pstrdup("parallel workers are running: the request cannot run in a subtransaction");
			return false;
		}
		ExitParallelMode();
		left_parallel_mode = true;
	}
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		ok = run_query(s, true);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (left_parallel_mode)
			EnterParallelMode();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (left_parallel_mode)
			EnterParallelMode();
		if (edata->message == NULL ||
			!((edata->sqlerrcode == ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE &&
			   strcmp(edata->message, GDB_FIXED_POINT_MESSAGE) == 0) ||
			  (edata->sqlerrcode == ERRCODE_CARDINALITY_VIOLATION &&
			   strcmp(edata->message, GDB_JOIN_DUPLICATE_MESSAGE) == 0) ||
			  (s->join != NULL && edata->sqlerrcode == ERRCODE_OUT_OF_MEMORY &&
			   strcmp(edata->message, "gpudb: out of memory") == 0)))
			ReThrowError(edata);
		/* a GpudbJoin's build sides that do not fit: said as such */
		s->fallback_why = edata->sqlerrcode == ERRCODE_OUT_OF_MEMORY ?
			psprintf("%s (the join's build sides and probe do not fit: %s)",
					 edata->message, edata->detail ? edata->detail : "no detail") :
			pstrdup(edata->message);
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/*
 * Start PostgreSQL's plan behind the node (once): its plan state, shown
 * under the node by EXPLAIN, the tuplestore for its rows and their slot.
 */
static void
fallback_init(GdbScanState *s)
{
	CustomScan *cscan = (CustomScan *) s->css.ss.ps.plan;
	EState	   *estate = s->css.ss.ps.state;
	MemoryContext old;

	if (s->fallback_ps != NULL)
		return;
	old = MemoryContextSwitchTo(estate->es_query_cxt);
	s->fallback_ps = ExecInitNode((Plan *) linitial(cscan->custom_plans), estate,
								  s->eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK));
	s->css.custom_ps = lappend(s->css.custom_ps, s->fallback_ps);
	s->fallback_rows = tuplestore_begin_heap(true, false, work_mem);
	s->fallback_slot = MakeSingleTupleTableSlot(ExecGetResultType(s->fallback_ps),
												&TTSOpsMinimalTuple);
	MemoryContextSwitchTo(old);
}

/*
 * The next row of PostgreSQL's plan behind the node, in the scan's
 * direction; the first call runs that plan to its end into a tuplestore
 * (the node holds its whole result either way, and may be scanned
 * backward or rescanned).  Its rows are the node's output rows as they
 * are: the plan has the node's target list (and its HAVING).
 */
static TupleTableSlot *
fallback_next(GdbScanState *s)
{
	EState	   *estate = s->css.ss.ps.state;
	bool		forward = !ScanDirectionIsBackward(estate->es_direction);
	TupleTableSlot *out;

	if (!s->fallback_filled)
	{
		TupleTableSlot *slot;

		fallback_init(s);
		for (;;)
		{
			CHECK_FOR_INTERRUPTS();
			slot = ExecProcNode(s->fallback_ps);
			if (TupIsNull(slot))
				break;
			tuplestore_puttupleslot(s->fallback_rows, slot);
			s->rows_out++;
		}
		tuplestore_rescan(s->fallback_rows);
		s->fallback_filled = true;
	}
	/*
	 * the row goes out in the node's own result slot: its parents compiled
	 * their expressions for that slot's kind (virtual: no deforming step),
	 * not for the tuplestore's minimal tuples
	 */
	out = s->css.ss.ps.ps_ProjInfo ? s->css.ss.ps.ps_ResultTupleSlot :
		s->css.ss.ss_ScanTupleSlot;
	if (!tuplestore_gettupleslot(s->fallback_rows, forward, false, s->fallback_slot))
		return ExecClearTuple(out);
	return ExecCopySlot(out, s->fallback_slot);
}

/*
 * The quals' parameters (param_values.c) evaluated now, at the node's
 * first run (an InitPlan behind one runs here), and the quals compiled
 * again with their values in place of the placeholders they were compiled
 * with at the start.  They cannot change while the query runs (the
 * planner takes no other parameter), so a rescan reuses the result.
 */
static void
bind_params(GdbScanState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	GdbQuery   *q = &s->q;
	List	   *values = NIL;
	ListCell   *lp,
			   *ls;

	forboth(lp, s->params, ls, s->param_states)
	{
		Param	   *p = (Param *) lfirst(lp);
		bool		isnull;
		Datum		v;
		int16		typlen;
		bool		typbyval;

		v = ExecEvalExprSwitchContext((ExprState *) lfirst(ls), econtext, &isnull);
		get_typlenbyval(p->paramtype, &typlen, &typbyval);
		values = lappend(values,
						 makeConst(p->paramtype, p->paramtypmod, p->paramcollid, typlen,
								   isnull ? (Datum) 0 : datumCopy(v, typbyval, typlen),
								   isnull, typbyval));
	}
	q->cs.params = s->params;
	q->cs.param_values = values;
	compile_device_quals(s);
	ResetExprContext(econtext);
}

/*
 * Order the node's finished groups on the host (gdb_host_order) into
 * s->order, cut to s->host_limit; the several batches of a heap run are
 * concatenated first.
 */
static void
host_order(GdbScanState *s)
{
	if (s->nbatches > 1)
	{
		List	   *parts = NIL;
		int			b;

		for (b = 0; b < s->nbatches; b++)
			parts = lappend(parts, (void *) s->batches[b]);
		s->batches[0] = gdb_concat_batches(NULL, parts);
		s->nbatches = 1;
	}
	if (s->nrows == 0)
		return;
	s->order = gdb_host_order(&s->q, s->batches[0], s->host_keys, s->nhost);
	if (s->host_limit > 0 && s->host_limit < (uint64) s->nrows)
		s->nrows = (int64) s->host_limit;
}

/*
 * Run the node's request once (its parameters bound, its derived tables
 * read first): its result batches in s->batches, before the first row.
 * False when the node answers with PostgreSQL's plan instead
 * (s->fell_back).
 */
static bool
run_node(GdbScanState *s)
{
	MemoryContext old;
	ListCell   *lc;

	if (s->ran)
		return !s->fell_back;
	old = MemoryContextSwitchTo(s->run_cxt);
	if (s->params != NIL)
		bind_params(s);
	/* the qualifier with the parameters' values: what EXPLAIN shows now */
	if (s->having_quals > 0)
		s->having_quals =
			gdb_having_compile(&s->q, s->css.ss.ps.plan->qual,
							   ((CustomScan *) s->css.ss.ps.plan)->custom_scan_tlist,
							   s->params, s->q.cs.param_values, true);
	/* derived tables' rows first, outside the request's subtransaction */
	if (!gdb_join_read_derived(s->join, &s->q, (const char **) &s->fallback_why) ||
		!run_or_fall_back(s))
	{
		/* gdb_exec hands out the fallback plan's rows instead */
		MemoryContextSwitchTo(old);
		s->ran = true;
		s->fell_back = true;
		return false;
	}
	s->batches = palloc(sizeof(GdbBatch *) * Max(list_length(s->info.batches), 1));
	s->nbatches = 0;
	s->nrows = 0;
	foreach(lc, s->info.batches)
	{
		s->batches[s->nbatches++] = (const GdbBatch *) lfirst(lc);
		s->nrows += ((const GdbBatch *) lfirst(lc))->nrows;
	}
	if (s->nhost > 0)
		host_order(s);
	MemoryContextSwitchTo(old);
	s->ran = true;
	if (s->expect_gpu && strncmp(s->info.path, "gpu:", 4) != 0)
		s->fallbacks++;
	s->bi = 0;
	s->bstart = 0;
	s->cur = -1;
	return true;
}

/* The next result row into the scan slot, or an empty slot at the end. */
static TupleTableSlot *
gdb_next(ScanState *ss)
{
	GdbScanState *s = (GdbScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	ExprContext *econtext = ss->ps.ps_ExprContext;
	const GdbBatch *res;
	uint64		row;
	MemoryContext old;
	int			i;

	if (!run_node(s))
		return ExecClearTuple(slot);
	ExecClearTuple(slot);
	/* one step in the scan's direction; past either end it stays there */
	if (ScanDirectionIsBackward(ss->ps.state->es_direction))
	{
		if (s->cur < 0)
			return slot;
		s->cur--;
	}
	else
	{
		if (s->cur >= s->nrows)
			return slot;
		s->cur++;
	}
	if (s->cur < 0 || s->cur >= s->nrows)
		return slot;
	if (s->order != NULL)
	{
		/* ordered on the host: one batch, rows in s->order */
		res = s->batches[0];
		row = (uint64) s->order[s->cur];
	}
	else
	{
		while (s->cur < s->bstart)
			s->bstart -= s->batches[--s->bi]->nrows;
		while (s->cur >= s->bstart + (int64) s->batches[s->bi]->nrows)
			s->bstart += s->batches[s->bi++]->nrows;
		res = s->batches[s->bi];
		row = (uint64) (s->cur - s->bstart);
	}

	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	if (s->kind == GDB_NODE_AGG || s->kind == GDB_NODE_JOIN)
		gdb_result_row_values(&s->q, res, row, slot->tts_values, slot->tts_isnull);
	else
	{
		gdb_result_row_values(&s->q, res, row, s->values, s->nulls);
		memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
		for (i = 0; i < s->nout; i++)
		{
			slot->tts_values[s->out_attnums[i] - 1] = s->values[i];
			slot->tts_isnull[s->out_attnums[i] - 1] = s->nulls[i];
		}
	}
	MemoryContextSwitchTo(old);
	s->rows_out++;
	return ExecStoreVirtualTuple(slot);
}

/*
 * The GpudbAgg or GpudbJoin (GdbScanState) whose result rows are the rows
 * of derived table plan state ps, ps itself or the plan of a SubqueryScan
 * that only renames them, and in attrs[] (palloc'd) the node's scan
 * attribute (0-based, gdb_result_row_values's order) of each output
 * position of ps in positions; NULL where any step computes, filters or
 * reorders (a qual, an expression in a target list, another node).
 */
static GdbScanState *
direct_scan(PlanState *ps, List *positions, int **attrs)
{
	PlanState  *sub = ps;
	List	   *outer_tlist = NIL;
	GdbScanState *s;
	List	   *tlist;
	ListCell   *lc;
	int			i = 0;

	if (IsA(ps, SubqueryScanState))
	{
		if (ps->qual != NULL)
			return NULL;
		outer_tlist = ps->plan->targetlist;
		sub = ((SubqueryScanState *) ps)->subplan;
	}
	if (!IsA(sub, CustomScanState) ||
		((CustomScanState *) sub)->methods != &gdb_exec_methods)
		return NULL;
	s = (GdbScanState *) sub;
	if ((s->kind != GDB_NODE_AGG && s->kind != GDB_NODE_JOIN) || sub->qual != NULL ||
		s->nhost > 0)
		return NULL;
	tlist = sub->ps_ProjInfo ? sub->plan->targetlist : NIL;
	*attrs = palloc(sizeof(int) * Max(list_length(positions), 1));
	foreach(lc, positions)
	{
		int			a = lfirst_int(lc) + 1;	/* 1-based output column of ps */

		if (outer_tlist != NIL)
		{
			TargetEntry *te = list_nth_node(TargetEntry, outer_tlist, a - 1);

			if (!IsA(te->expr, Var) || ((Var *) te->expr)->varattno <= 0)
				return NULL;
			a = ((Var *) te->expr)->varattno;
		}
		else if (IsA(ps, SubqueryScanState))
			return NULL;
		if (tlist != NIL)
		{
			TargetEntry *te = list_nth_node(TargetEntry, tlist, a - 1);

			if (!IsA(te->expr, Var) || ((Var *) te->expr)->varno != INDEX_VAR ||
				((Var *) te->expr)->varattno <= 0)
				return NULL;
			a = ((Var *) te->expr)->varattno;
		}
		if (a > gdb_query_natts(&s->q))
			return NULL;
		(*attrs)[i++] = a - 1;
	}
	return s;
}

/* see custom_scan.h */
bool
gdb_direct_rows_begin(PlanState *ps, List *positions, GdbDirectRows *d)
{
	GdbScanState *s;
	int		   *attrs = NULL;

	memset(d, 0, sizeof(GdbDirectRows));
	s = direct_scan(ps, positions, &attrs);
	if (s == NULL)
		return false;
	/* EXPLAIN ANALYZE: both nodes ran, once, for all their rows */
	if (ps->instrument)
		InstrStartNode(ps->instrument);
	if (ps != &s->css.ss.ps && s->css.ss.ps.instrument)
		InstrStartNode(s->css.ss.ps.instrument);
	if (!run_node(s))
	{
		/* PostgreSQL's plan answers: its rows through the plan states */
		if (ps != &s->css.ss.ps && s->css.ss.ps.instrument)
			InstrStopNode(s->css.ss.ps.instrument, 0);
		if (ps->instrument)
			InstrStopNode(ps->instrument, 0);
		return false;
	}
	d->scan = s;
	d->ps = ps;
	d->attrs = attrs;
	d->ncols = list_length(positions);
	d->values = palloc(sizeof(Datum) * Max(gdb_query_natts(&s->q), 1));
	d->nulls = palloc(sizeof(bool) * Max(gdb_query_natts(&s->q), 1));
	d->tmp = AllocSetContextCreate(CurrentMemoryContext, "gpudb derived rows",
								   ALLOCSET_DEFAULT_SIZES);
	return true;
}

/* see custom_scan.h */
bool
gdb_direct_rows_next(GdbDirectRows *d, Datum *values, bool *nulls)
{
	GdbScanState *s = (GdbScanState *) d->scan;
	const GdbBatch *res;
	MemoryContext old;
	int			c;

	CHECK_FOR_INTERRUPTS();
	while (d->bi < s->nbatches && d->row >= s->batches[d->bi]->nrows)
	{
		d->bi++;
		d->row = 0;
	}
	if (d->bi >= s->nbatches)
		return false;
	res = s->batches[d->bi];
	MemoryContextReset(d->tmp);
	old = MemoryContextSwitchTo(d->tmp);
	gdb_result_row_values(&s->q, res, d->row, d->values, d->nulls);
	MemoryContextSwitchTo(old);
	for (c = 0; c < d->ncols; c++)
	{
		values[c] = d->values[d->attrs[c]];
		nulls[c] = d->nulls[d->attrs[c]];
	}
	d->row++;
	d->nrows++;
	return true;
}

/* see custom_scan.h */
void
gdb_direct_rows_end(GdbDirectRows *d)
{
	GdbScanState *s = (GdbScanState *) d->scan;

	if (s == NULL)
		return;
	s->rows_out += d->nrows;
	s->cur = s->nrows;			/* past the last row, as a scan to its end */
	if (d->ps != &s->css.ss.ps && s->css.ss.ps.instrument)
		InstrStopNode(s->css.ss.ps.instrument, (double) d->nrows);
	if (d->ps->instrument)
		InstrStopNode(d->ps->instrument, (double) d->nrows);
	MemoryContextDelete(d->tmp);
	d->scan = NULL;
}

/* No parameters or locking: every row the node returns is final. */
static bool
gdb_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
gdb_exec(CustomScanState *node)
{
	GdbScanState *s = (GdbScanState *) node;
	TupleTableSlot *slot;

	if (s->fell_back)
		return fallback_next(s);
	slot = ExecScan(&node->ss, gdb_next, gdb_recheck);
	/* the first fetch ran PostgreSQL's plan instead: its rows are final */
	if (s->fell_back)
		return fallback_next(s);
	return slot;
}

static void
gdb_end(CustomScanState *node)
{
	GdbScanState *s = (GdbScanState *) node;

	/* a GpudbJoin's hash tables the CPU path kept for its batches */
	if (s->join != NULL && s->q.req != NULL && s->q.req->join_id != 0)
		gdb_cpu_join_cache_release(s->q.req->join_id);

	gdb_join_end_derived(s->join);
	if (s->fallback_ps)
		ExecEndNode(s->fallback_ps);
	if (s->fallback_rows)
		tuplestore_end(s->fallback_rows);
	if (s->fallback_slot)
		ExecDropSingleTupleTableSlot(s->fallback_slot);
	s->fallback_ps = NULL;
	s->fallback_rows = NULL;
	s->fallback_slot = NULL;

	if (s->run_cxt)
		MemoryContextDelete(s->run_cxt);
	s->run_cxt = NULL;
}

static void
gdb_rescan(CustomScanState *node)
{
	GdbScanState *s = (GdbScanState *) node;

	if (s->fallback_rows)
		tuplestore_rescan(s->fallback_rows);

	s->bi = 0;
	s->bstart = 0;
	s->cur = -1;
}

/* GDB_CACHE_* as words, for EXPLAIN. */
static const char *
cache_state_name(int state)
{
	switch (state)
	{
		case GDB_CACHE_USED:
			return "used";
		case GDB_CACHE_ABSENT:
			return "not cached";
		case GDB_CACHE_SNAPSHOT:
			return "snapshot older than the load";
		case GDB_CACHE_OWN_CHANGES:
			return "changed by this transaction";
		case GDB_CACHE_NOT_READY:
			return "load not committed";
		case GDB_CACHE_STALE:
			return "stale";
		case GDB_CACHE_TEXT_ORDER:
			return "text sort key (read from the heap)";
		case GDB_CACHE_SERIALIZABLE:
			return "serializable isolation (read from the heap)";
		case GDB_CACHE_JOIN_TEXT:
			return "the join's build sides hold too many strings for one request (read from the heap)";
		case GDB_CACHE_TEXT_COLLATION:
			return "ILIKE, lower or upper under a collation the cache cannot apply (read from the heap)";
		default:
			return "not usable";
	}
}

/*
 * EXPLAIN's lines of a GpudbJoin's build sides: "<prefix>N" with the join
 * (type, relation, keys and other quals), "<prefix>N Filter" with the
 * build relation's quals, a nested tree's joins as "<prefix>N.M", and
 * with built (ANALYZE, after the build sides were read) their rows and
 * source, and with gpudb.explain_hardware the bytes of each one's batch
 * and hash table and the time its query took.
 */
static void
explain_joins(GdbJoinState *js, const char *prefix, bool built, ExplainState *es)
{
	int			i;

	for (i = 0; i < js->njoins; i++)
	{
		GdbJoinBuild *b = &js->builds[i];
		char	   *name = psprintf("%s%d", prefix, i + 1);

		ExplainPropertyText(name, b->label, es);
		if (b->quals != NIL)
			ExplainPropertyText(psprintf("%s Filter", name),
								deparse_expression((Node *) make_ands_explicit(b->quals),
												   deparse_context_for(RelationGetRelationName(b->q.rel),
																	   RelationGetRelid(b->q.rel)),
												   false, false),
								es);
		if (b->sub != NULL)
			explain_joins(b->sub, psprintf("%s.", name), built, es);
		if (built)
		{
			ExplainPropertyInteger(psprintf("%s Build Rows", name), NULL, (int64) b->rows, es);
			ExplainPropertyText(psprintf("%s Source", name),
								b->derived != 0 ? "derived table's plan" :
								!b->from_cache ? "heap" :
								b->kept ? "cache, kept by the GPU server" : "cache", es);
			if (gdb_explain_hardware(es, gpudb_explain_hardware))
			{
				ExplainPropertyInteger(psprintf("%s Hash Table", name), "bytes",
									   (int64) b->bytes, es);
				ExplainPropertyFloat(psprintf("%s Build Time", name), "ms", b->ms, 3, es);
			}
		}
	}
}

static void
gdb_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	static const char *const phase_names[GDB_PHASE__COUNT] = GDB_PHASE_NAMES;

	/* the phases in the pipeline's order */
	static const GdbPhase order[GDB_PHASE__COUNT] = {
		GDB_PHASE_TRANSFER_IN, GDB_PHASE_JOIN, GDB_PHASE_FILTER, GDB_PHASE_SORT,
		GDB_PHASE_AGGREGATE, GDB_PHASE_TRANSFER_OUT
	};

	GdbScanState *s = (GdbScanState *) node;
	GdbQuery   *q = &s->q;
	Relation	rel = node->ss.ss_currentRelation;
	List	   *items = NIL;
	int			i;

	if (s->fell_back_early)
	{
		/* fell back before building the query (gdb_begin) */
		ExplainPropertyText("Fallback", psprintf("PostgreSQL's plan below: %s",
												 s->fallback_why), es);
		return;
	}
	if (gdb_explain_hardware(es, gpudb_explain_hardware))
		ExplainPropertyText("Device",
							s->fell_back ? "none (PostgreSQL's plan answered)" :
							s->ran ? (strncmp(s->info.path, "gpu:", 4) == 0 ?
									  s->info.path + 4 : "CPU path") :
							gdb_plan_device_label(), es);
	if (s->device_quals != NIL)
	{
		Node	   *quals = (Node *) make_ands_explicit(s->device_quals);
		List	   *ctx;

		if (s->params != NIL)
		{
			/*
			 * an InitPlan's output names its plan (18: "(InitPlan 1).col1"):
			 * the plan's own context, the quals over its scan relation
			 */
			quals = copyObject(quals);
			ChangeVarNodes(quals, 1, ((Scan *) node->ss.ps.plan)->scanrelid, 0);
			ctx = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
		}
		else
			ctx = deparse_context_for(RelationGetRelationName(rel), RelationGetRelid(rel));
		ExplainPropertyText("GPU Filter", deparse_expression(quals, ctx, false, false), es);
	}
	if (s->join != NULL)
		explain_joins(s->join, "Join ", es->analyze && s->ran && s->q.req->join_data != NULL,
					  es);
	if (s->kind == GDB_NODE_AGG || s->kind == GDB_NODE_JOIN)
	{
		for (i = 0; i < q->nkeys; i++)
			items = lappend(items, q->key_names[i]);
		if (items)
			ExplainPropertyList("Group Keys", items, es);
		items = NIL;
		for (i = 0; i < q->naggs; i++)
			items = lappend(items, q->aggs[i].label);
		if (items)
			ExplainPropertyList("Aggregates", items, es);
		/* the HAVING quals the device evaluates too (groupby_having.c) */
		if (s->having_quals > 0)
			ExplainPropertyText("HAVING Quals on Device",
								psprintf("%d of %d", s->having_quals,
										 list_length(s->css.ss.ps.plan->qual)),
								es);
	}
	/* the order and cut: the device's, or the host's (host_order) */
	if (s->kind == GDB_NODE_SORT || q->req->nsort > 0 || s->nhost > 0)
	{
		int			nsort = s->nhost > 0 ? s->nhost : (int) q->req->nsort;
		uint64		limit = s->nhost > 0 ? s->host_limit : q->req->limit;

		items = NIL;
		for (i = 0; i < nsort; i++)
			items = lappend(items, s->sort_labels[i]);
		ExplainPropertyList(s->nhost > 0 ? "Host Sort Keys" : "Sort Keys", items, es);
		if (limit > 0)
			ExplainPropertyInteger("Top-k Limit", NULL, (int64) limit, es);
	}
	if (!es->analyze || !s->ran)
		return;
	if (s->fell_back)
	{
		/* the plan below answered (custom_scan_fallback.c) */
		ExplainPropertyText("Fallback", psprintf("PostgreSQL's plan below: %s",
												 s->fallback_why), es);
		return;
	}
	ExplainPropertyText("Source", s->info.from_cache ? "cache" : "heap", es);
	if (!s->info.from_cache)
		ExplainPropertyText("Cache", !gpudb_use_cache ? "off (gpudb.use_cache)" :
							cache_state_name(s->info.cache_state), es);
	ExplainPropertyInteger("Batches", NULL, s->info.nbatches, es);
	if (s->info.workers_planned > 0)
		ExplainPropertyInteger("Workers Launched", NULL,
							   s->info.workers_launched, es);
	ExplainPropertyInteger("Fallbacks", NULL, s->fallbacks, es);
	ExplainPropertyInteger("Rows In", NULL, (int64) s->info.stats.rows_in, es);
	ExplainPropertyInteger("Rows Selected", NULL,
						   (int64) s->info.stats.rows_selected, es);
	ExplainPropertyInteger(s->kind == GDB_NODE_AGG || s->kind == GDB_NODE_JOIN ?
						   "Groups" : "Rows Out", NULL,
						   (int64) s->info.stats.groups_out, es);
	if (gdb_explain_hardware(es, gpudb_explain_hardware))
	{
		ExplainPropertyInteger("Bytes To Device", "bytes",
							   (int64) s->info.stats.bytes_to_device, es);
		ExplainPropertyInteger("Bytes From Device", "bytes",
							   (int64) s->info.stats.bytes_from_device, es);
		ExplainPropertyFloat("Device Time", "ms", s->info.stats.device_ms, 3, es);
		/* a cache in shards: each shard's run, on its own device */
		if (s->info.stats.nshards > 1)
		{
			StringInfoData times;

			initStringInfo(&times);
			for (i = 0; i < (int) Min(s->info.stats.nshards, GDB_STATS_MAX_SHARDS); i++)
				appendStringInfo(&times, "%s%.3f", i > 0 ? ", " : "",
								 s->info.stats.shard_ms[i]);
			ExplainPropertyInteger("Shards", NULL, s->info.stats.nshards, es);
			ExplainPropertyText("Shard Times (ms)", times.data, es);
		}
		/* the join probe step's time is a GpudbJoin's only */
		for (i = 0; i < GDB_PHASE__COUNT; i++)
		{
			char		label[64];

			if (order[i] == GDB_PHASE_JOIN && s->kind != GDB_NODE_JOIN)
				continue;
			snprintf(label, sizeof(label), "%s Time", phase_names[order[i]]);
			ExplainPropertyFloat(label, "ms", s->info.stats.phase_ms[order[i]], 3, es);
		}
		ExplainPropertyFloat("Run Time", "ms", s->info.total_ms, 3, es);
	}
}

/* see custom_scan.h */
void
gdb_custom_exec_init(void)
{
	int			i;

	for (i = 0; i < GDB_NODE__COUNT; i++)
		RegisterCustomScanMethods(&gdb_scan_methods[i]);
}
