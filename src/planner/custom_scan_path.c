/*-------------------------------------------------------------------------
 *
 * custom_scan_path.c
 *	  The planner side of the custom scan provider: set_rel_pathlist_hook
 *	  offers GpudbScan for a base relation, create_upper_paths_hook offers
 *	  GpudbAgg (UPPERREL_GROUP_AGG) and GpudbSort (UPPERREL_ORDERED) for
 *	  queries over one table, and at UPPERREL_ORDERED a GpudbAgg that orders its
 *	  groups on the device and cuts them to the LIMIT (gdb_try_gpuagg_ordered);
 *	  the cost model decides against PostgreSQL's own paths, and
 *	  PlanCustomPath turns a chosen path into a CustomScan.
 *
 * What is offered is exactly what the device runs with PostgreSQL's
 * semantics; anything else leaves the query's ordinary plan alone (never an
 * ERROR): gpudb.debug_unsupported reports why, as a NOTICE.
 *
 * Quals.  The executor evaluates a scan's quals in the order of
 * order_qual_clauses (security level, where a leakproof qual cheaper than
 * 10 cpu_operator_cost counts as level 0, then cost, stable), stopping at
 * the first that is not TRUE.  gdb_order_quals
 * reproduces that order, and the device program runs the quals in it, so
 * the same rows raise the same errors and row-level security quals are
 * applied before any non-leakproof user qual.  GpudbScan puts the longest
 * compilable prefix on the device and leaves the rest, in order, to the
 * CPU; GpudbAgg and GpudbSort need every qual on the device.
 *
 * Cost model: custom_scan_cost.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/planner.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

#include "custom_scan.h"
#include "custom_scan_path.h"
#include "expr_compile.h"
#include "server_client.h"

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;
static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;

static Plan *gdb_plan_custom_path(PlannerInfo *root, RelOptInfo *rel,
								  CustomPath *best_path, List *tlist,
								  List *clauses, List *custom_plans);

static const CustomPathMethods gdb_path_methods[GDB_NODE__COUNT] = {
	{"GpudbScan", gdb_plan_custom_path, NULL},
	{"GpudbAgg", gdb_plan_custom_path, NULL},
	{"GpudbSort", gdb_plan_custom_path, NULL},
	{"GpudbJoin", gdb_plan_custom_path, NULL},
};

static const char *const gdb_node_names[GDB_NODE__COUNT] =
{"GpudbScan", "GpudbAgg", "GpudbSort", "GpudbJoin"};


/* NOTICE of why a node was not offered, under gpudb.debug_unsupported. */
void
gdb_not_offered(GdbNodeKind kind, const char *why)
{
	if (gpudb_debug_unsupported)
		ereport(NOTICE,
				(errmsg("gpudb: %s not used: %s", gdb_node_names[kind], why)));
}

/*
 * May the planner offer device nodes now?  gpudb.enabled; gpudb.device gpu
 * or cpu (cpu: the nodes run on the CPU path, which is how CI tests them);
 * auto: only when the GPU server runs in GPU mode.
 */
bool
gdb_offload_possible(const char **why)
{
	const GdbHelloReply *hello;

	if (!gpudb_enabled)
	{
		*why = "gpudb.enabled is off";
		return false;
	}
	if (gpudb_device_mode != GPUDB_DEVICE_AUTO)
		return true;
	if (!gpudb_preloaded || (hello = gdb_server_hello()) == NULL || !hello->use_gpu)
	{
		*why = "no GPU is usable and gpudb.device is auto (set gpudb.device = cpu to plan the CPU path)";
		return false;
	}
	return true;
}

/* see custom_scan.h */
const char *
gdb_plan_device_label(void)
{
	const GdbHelloReply *hello;

	if (!gpudb_enabled || gpudb_device_mode == GPUDB_DEVICE_CPU ||
		!gpudb_preloaded || (hello = gdb_server_hello()) == NULL ||
		!hello->use_gpu)
		return "CPU path";
	return pstrdup(hello->devs[0].name);
}

/*
 * Is rel a plain table (or partition, or materialised view) the nodes can
 * read?  allow_member: an appendrel member (a partition planned under its
 * parent) is fine for GpudbScan.
 */
bool
gdb_base_rel_ok(PlannerInfo *root, RelOptInfo *rel, bool allow_member,
				const char **why)
{
	RangeTblEntry *rte;

	if (rel->reloptkind != RELOPT_BASEREL &&
		!(allow_member && rel->reloptkind == RELOPT_OTHER_MEMBER_REL))
	{
		*why = "the query does not read exactly one table";
		return false;
	}
	rte = planner_rt_fetch(rel->relid, root);
	if (rte->rtekind != RTE_RELATION ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
	{
		*why = "the relation is not a table";
		return false;
	}
	if (rte->inh)
	{
		*why = "the table has partitions or inheritance children";
		return false;
	}
	if (rte->tablesample)
	{
		*why = "TABLESAMPLE";
		return false;
	}
	if (root->parse->commandType != CMD_SELECT || root->parse->rowMarks != NIL)
	{
		*why = "the statement is not a plain SELECT";
		return false;
	}
	if (IS_DUMMY_REL(rel))
	{
		*why = "the relation is provably empty";
		return false;
	}
	return true;
}

/*
 * Is var a column of relid the batch can carry (text_ok: text too)?
 * Adds its attnum to *attnums.
 */
bool
gdb_var_ok(Var *var, Index relid, bool text_ok, Bitmapset **attnums,
		   const char **why)
{
	GdbTypeClass cls;

	if (var->varno != relid || var->varlevelsup != 0 || var->varattno <= 0)
	{
		*why = "a system column, whole-row reference or outer reference is needed";
		return false;
	}
	cls = gdb_type_class(var->vartype);
	if (!gdb_type_supported(var->vartype, var->vartypmod) ||
		(!text_ok && cls == GDB_TYPE_TEXT))
	{
		*why = psprintf("a column of type %s is needed",
						format_type_with_typemod(var->vartype, var->vartypmod));
		return false;
	}
	*attnums = bms_add_member(*attnums, var->varattno);
	return true;
}

/* Every Var (and nothing opaque) in exprs is var_ok. */
bool
gdb_vars_ok(List *exprs, Index relid, Bitmapset **attnums, const char **why)
{
	List	   *vars = pull_var_clause((Node *) exprs, PVC_INCLUDE_PLACEHOLDERS |
									   PVC_INCLUDE_AGGREGATES |
									   PVC_INCLUDE_WINDOWFUNCS);
	ListCell   *lc;

	foreach(lc, vars)
	{
		Node	   *n = (Node *) lfirst(lc);

		if (!IsA(n, Var))
		{
			*why = "the target list holds a placeholder, aggregate or window function";
			return false;
		}
		if (!gdb_var_ok((Var *) n, relid, true, attnums, why))
			return false;
	}
	return true;
}

/* The order in which order_qual_clauses puts rinfos (see file header). */
static List *
gdb_order_quals(PlannerInfo *root, List *rinfos)
{
	int			n = list_length(rinfos);
	RestrictInfo **items;
	double	   *costs;
	Index	   *levels;
	List	   *result = NIL;
	ListCell   *lc;
	int			i = 0;

	if (n <= 1)
		return list_copy(rinfos);
	items = palloc(n * sizeof(RestrictInfo *));
	costs = palloc(n * sizeof(double));
	levels = palloc(n * sizeof(Index));
	foreach(lc, rinfos)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		QualCost	qcost;
		Index		level;
		int			j;

		cost_qual_eval_node(&qcost, (Node *) ri, root);
		/* only a leakproof qual that is also cheap jumps the security levels */
		level = ri->leakproof && qcost.per_tuple < 10 * cpu_operator_cost ?
			0 : ri->security_level;
		for (j = i++; j > 0; j--)
		{
			if (level > levels[j - 1] ||
				(level == levels[j - 1] && qcost.per_tuple >= costs[j - 1]))
				break;
			items[j] = items[j - 1];
			costs[j] = costs[j - 1];
			levels[j] = levels[j - 1];
		}
		items[j] = ri;
		costs[j] = qcost.per_tuple;
		levels[j] = level;
	}
	for (i = 0; i < n; i++)
		result = lappend(result, items[i]);
	return result;
}

/* The clauses of rinfos, without pseudoconstant ones (gating quals). */
static List *
real_quals(List *rinfos, bool *has_pseudo)
{
	List	   *out = NIL;
	ListCell   *lc;

	*has_pseudo = false;
	foreach(lc, rinfos)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (ri->pseudoconstant)
			*has_pseudo = true;
		else
			out = lappend(out, ri);
	}
	return out;
}

/*
 * How many of the ordered RestrictInfos, from the first, the device runs
 * (the longest prefix that compiles); *why says what stopped it.  With
 * error_free, the prefix also stops at the first qual that can raise an
 * error: when quals remain for the CPU, the device evaluates its part for
 * every row before the CPU sees any, so a raising device qual of a later
 * row would win over a raising CPU qual of an earlier one, where
 * PostgreSQL, evaluating row by row, raises the earlier row's error.
 */
static int
device_prefix_of(Relation rel, List *ordered, bool error_free, bool scan,
				 const char **why)
{
	GdbColumnSet cs;
	GdbRequest *req = palloc0(sizeof(GdbRequest));
	List	   *clauses = NIL;
	ListCell   *lc;
	char	   *reason = NULL;
	int			k = 0;

	memset(&cs, 0, sizeof(cs));
	foreach(lc, ordered)
	{
		Expr	   *clause = lfirst_node(RestrictInfo, lc)->clause;

		req->ntables = 0;		/* as a request of this clause alone */

		/*
		 * A GpudbScan has no PostgreSQL plan behind it
		 * (custom_scan_fallback.c): numeric arithmetic, whose value may pass
		 * the fixed point, stays on the CPU
		 */
		if (scan && gdb_fixed_point_arithmetic((Node *) clause))
		{
			*why = "a qual computes numeric arithmetic (a GpudbScan leaves it to the CPU: its value may pass gpudb's 64-bit fixed point)";
			break;
		}
		if (scan && gdb_uses_session_timezone((Node *) clause))
		{
			*why = "a qual computes timestamp with time zone in the session's time zone (a GpudbScan leaves it to the CPU)";
			break;
		}
		if (!gdb_compile_quals(list_make1(clause), rel, &cs, req, "GpudbScan",
							   true, &reason))
		{
			*why = reason;
			break;
		}
		if (error_free && gdb_program_may_raise(req))
		{
			*why = "a qual that can raise an error is followed by quals the device cannot run";
			break;
		}
		clauses = lappend(clauses, clause);
		k++;
	}
	/* together they may still exceed the program's limits */
	while (k > 0)
	{
		memset(&cs, 0, sizeof(cs));
		req->ntables = 0;
		if (gdb_compile_quals(clauses, rel, &cs, req, "GpudbScan", true, &reason))
			break;
		*why = reason;
		clauses = list_truncate(clauses, --k);
	}
	pfree(req);
	return k;
}

/*
 * The device's prefix of the ordered quals: the longest that compiles, or,
 * when that leaves quals to the CPU, the longest that cannot raise (see
 * device_prefix_of).
 */
static int
device_prefix(Relation rel, List *ordered, bool scan, const char **why)
{
	int			k = device_prefix_of(rel, ordered, false, scan, why);

	if (k < list_length(ordered))
		k = device_prefix_of(rel, ordered, true, scan, why);
	return k;
}

/* Clauses of the first n RestrictInfos, Vars renumbered to varno 1. */
static List *
device_clauses(List *ordered, int n, Index relid)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, ordered)
	{
		Expr	   *e;

		if (foreach_current_index(lc) >= n)
			break;
		e = copyObject(lfirst_node(RestrictInfo, lc)->clause);
		if (relid != 1)
			ChangeVarNodes((Node *) e, relid, 1, 0);
		out = lappend(out, e);
	}
	return out;
}

/* Columns (attnums) the clauses read. */

static Bitmapset *
clause_attnums(List *clauses, Index relid)
{
	Bitmapset  *raw = NULL;
	Bitmapset  *out = NULL;
	int			x = -1;

	pull_varattnos((Node *) clauses, relid, &raw);
	while ((x = bms_next_member(raw, x)) >= 0)
		out = bms_add_member(out, x + FirstLowInvalidHeapAttributeNumber);
	return out;
}

/*
 * GpudbAgg and GpudbSort run every qual of the base relation on the device:
 * none may be pseudoconstant (a gating qual) and all must compile.  Sets
 * *device to them (device_clauses) and adds the columns they read to
 * *attnums.
 */
bool
gdb_all_quals_on_device(PlannerInfo *root, RelOptInfo *baserel, Oid relid,
						Bitmapset **attnums, List **device, const char **why)
{
	bool		has_pseudo;
	List	   *ordered = gdb_order_quals(root, real_quals(baserel->baserestrictinfo,
														   &has_pseudo));
	Relation	relation;
	int			ndev;

	if (has_pseudo)
	{
		*why = "a qual does not depend on the table's rows";
		return false;
	}
	if (!gdb_params_fixed(root, ordered, why))
		return false;
	relation = table_open(relid, NoLock);
	ndev = device_prefix(relation, ordered, false, why);
	table_close(relation, NoLock);
	if (ndev != list_length(ordered))
		return false;
	*device = device_clauses(ordered, ndev, baserel->relid);
	*attnums = bms_union(*attnums, clause_attnums(*device, 1));
	return true;
}



/* see custom_scan_path.h */
bool
gdb_exprs_fit(List *exprs, Oid reloid, const char **why)
{
	Relation	rel;
	char	   *reason = NULL;
	bool		ok;

	if (exprs == NIL)
		return true;
	rel = table_open(reloid, NoLock);	/* the planner holds a lock */
	ok = gdb_exprs_supported(exprs, rel, &reason);
	table_close(rel, NoLock);
	if (!ok)
		*why = psprintf("the expressions together do not fit one request: %s", reason);
	return ok;
}

/* see custom_scan_path.h */
bool
gdb_set_fallback(CustomPath *path, Path *fallback, const char **why)
{
	if (fallback == NULL)
	{
		*why = "the node needs PostgreSQL's plan behind it (numeric arithmetic, timestamptz), and none could be built";
		return false;
	}
	path->custom_paths = list_make1(fallback);
	return true;
}

/* see custom_scan_path.h */
bool
gdb_path_is_kind(Path *path, GdbNodeKind kind)
{
	return IsA(path, CustomPath) &&
		((CustomPath *) path)->methods == &gdb_path_methods[kind];
}

/* see custom_scan_path.h */
CustomPath *
gdb_make_path(GdbNodeKind kind, RelOptInfo *rel, PathTarget *target, double rows,
			  Cost startup, Cost total, List *pathkeys, Index baserel,
			  List *device, List *cpu, List *node)
{
	CustomPath *cp = makeNode(CustomPath);

	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = target;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = false;
	cp->path.parallel_safe = false; /* one GPU server request per query */
	cp->path.parallel_workers = 0;
	cp->path.rows = rows;
	cp->path.startup_cost = startup;
	cp->path.total_cost = total;
	cp->path.pathkeys = pathkeys;
	/* the node holds its whole result: it can scan it backward */
	cp->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN |
		(kind == GDB_NODE_SCAN ? CUSTOMPATH_SUPPORT_PROJECTION : 0);
	cp->custom_private = list_make5(makeInteger(kind), makeInteger(baserel),
									device, cpu, node);
	cp->methods = &gdb_path_methods[kind];
	return cp;
}

/* ---- GpudbScan ---- */

static void
gdb_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					 RangeTblEntry *rte)
{
	const char *why = NULL;
	Relation	relation;
	List	   *quals;
	List	   *ordered;
	List	   *device;
	List	   *cpu_rinfos = NIL;
	List	   *cpu_clauses;
	Bitmapset  *attnums = NULL;
	bool		has_pseudo;
	bool		cached;
	int			ndev;
	int			nfixed;
	double		dev_rows;
	QualCost	cpu_cost;
	Cost		startup;
	Cost		disabled;
	ListCell   *lc;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);
	if (!gpudb_enable_gpuscan || rte->rtekind != RTE_RELATION ||
		rel->baserestrictinfo == NIL ||
		gpudb_gpu_setup_cost >= gdb_cheapest_existing(rel))
		return;
	if (!gdb_offload_possible(&why) || !gdb_base_rel_ok(root, rel, true, &why))
	{
		gdb_not_offered(GDB_NODE_SCAN, why);
		return;
	}

	/*
	 * A GpudbScan is not parallel-aware: under an aggregate that PostgreSQL
	 * could run in its parallel workers (the relation has partial paths),
	 * it leaves the aggregation to one process.  On the H200 flights run
	 * (d366ed3, f1844d7) such plans took 1.5-2x PostgreSQL's time; a
	 * GpudbAgg, when the aggregate runs on the device, is offered apart.
	 */
	if (rel->partial_pathlist != NIL &&
		(root->parse->hasAggs || root->parse->groupClause != NIL ||
		 root->parse->groupingSets != NIL || root->hasHavingQual))
	{
		gdb_not_offered(GDB_NODE_SCAN,
					"PostgreSQL's parallel plan aggregates above this scan in its workers; a GpudbScan would leave the aggregate to one process");
		return;
	}
	/*
	 * Nor in a subquery, where PostgreSQL could run it in parallel workers:
	 * a SubPlan holding a GpudbScan is not parallel-safe, and the outer
	 * query's scan that evaluates it then runs in one process.  TPC-H Q16
	 * at SF 10 on the H100 (91cfaa5): a GpudbScan of supplier in the NOT IN
	 * subquery made partsupp's scan serial, 5.6 s against 1.05 s.
	 */
	if (root->query_level > 1 && rel->consider_parallel)
	{
		gdb_not_offered(GDB_NODE_SCAN,
					"in a subquery PostgreSQL could run in parallel workers, a GpudbScan would keep the outer query's scan in one process");
		return;
	}
	if (!gdb_vars_ok(rel->reltarget->exprs, rel->relid, &attnums, &why))
	{
		gdb_not_offered(GDB_NODE_SCAN, why);
		return;
	}

	quals = real_quals(rel->baserestrictinfo, &has_pseudo);
	ordered = gdb_order_quals(root, quals);
	/*
	 * the device takes the quals before the first one with a parameter
	 * that can change while the query runs (that one and the rest stay
	 * with the scan's CPU quals)
	 */
	nfixed = 0;
	foreach(lc, ordered)
	{
		if (!gdb_params_fixed(root, list_make1(lfirst(lc)), &why))
			break;
		nfixed++;
	}
	relation = table_open(rte->relid, NoLock);
	ndev = nfixed == 0 ? 0 :
		device_prefix(relation, list_truncate(list_copy(ordered), nfixed), true, &why);
	table_close(relation, NoLock);
	if (ndev == 0)
	{
		gdb_not_offered(GDB_NODE_SCAN, why ? why : "no qual runs on the device");
		return;
	}
	foreach(lc, ordered)
		if (foreach_current_index(lc) >= ndev)
			cpu_rinfos = lappend(cpu_rinfos, lfirst(lc));
	cpu_clauses = extract_actual_clauses(cpu_rinfos, false);
	if (!gdb_vars_ok(cpu_clauses, rel->relid, &attnums, &why))
	{
		gdb_not_offered(GDB_NODE_SCAN, why);
		return;
	}
	device = device_clauses(ordered, ndev, rel->relid);
	attnums = bms_union(attnums, clause_attnums(device, 1));
	disabled = gdb_disabled_cost(false, false);
	if (!gdb_worth_and_cached(rel, rte->relid, attnums, 1.0, disabled,
							  gdb_cheapest_existing(rel), &cached))
		return;

	dev_rows = clamp_row_est(rel->tuples *
							 clauselist_selectivity(root, list_truncate(list_copy(ordered), ndev),
													rel->relid, JOIN_INNER, NULL));
	cost_qual_eval(&cpu_cost, cpu_clauses, root);
	startup = gdb_device_cost(rel, rte->relid, bms_num_members(attnums), cached, 1.0) +
		disabled;
	add_path(rel, &gdb_make_path(GDB_NODE_SCAN, rel, rel->reltarget, rel->rows,
							 startup,
							 startup + dev_rows * (gdb_result_row_cost() + cpu_cost.per_tuple) +
							 cpu_cost.startup,
							 NIL, rel->relid, device, cpu_rinfos, NIL)->path);
}

/* ---- GpudbAgg ---- */

/*
 * Can expr (over relid's columns) be a computed column of the request?
 * Its columns must be carried (gdb_var_ok, added to *attnums) and the
 * expression compiler must take it (gdb_expr_supported); *why says why not.
 */
bool
gdb_expr_columns_ok(Node *expr, Index relid, Oid reloid, Bitmapset **attnums,
					char **why)
{
	Relation	rel;
	bool		ok;
	List	   *vars = pull_var_clause(expr, PVC_INCLUDE_PLACEHOLDERS |
									   PVC_INCLUDE_AGGREGATES |
									   PVC_INCLUDE_WINDOWFUNCS);
	ListCell   *lc;
	const char *r = NULL;

	if (contain_volatile_functions(expr) || contain_subplans(expr))
	{
		*why = "it is volatile or holds a subquery";
		return false;
	}
	foreach(lc, vars)
	{
		Node	   *n = (Node *) lfirst(lc);

		if (!IsA(n, Var))
		{
			*why = "it holds an aggregate, window function or placeholder";
			return false;
		}
		if (!gdb_var_ok((Var *) n, relid, true, attnums, &r))
		{
			*why = (char *) r;
			return false;
		}
	}
	rel = table_open(reloid, NoLock);	/* the planner holds a lock */
	ok = gdb_expr_supported(expr, rel, why);
	table_close(rel, NoLock);
	return ok;
}

/* Mutator for strip_key_exprs: each key expression becomes a NULL. */
static Node *
strip_key_exprs_mutator(Node *node, List *keys)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	/* an aggregate's argument runs on the device whole, keys or not */
	if (IsA(node, Aggref))
		return node;
	foreach(lc, keys)
		if (!IsA(lfirst(lc), Var) && equal(node, lfirst(lc)))
			return (Node *) makeNullConst(exprType(node), exprTypmod(node),
										  exprCollation(node));
	return expression_tree_mutator(node, strip_key_exprs_mutator, (void *) keys);
}

/*
 * exprs with every occurrence of an expression group key outside an
 * aggregate replaced by a constant: what remains must be aggregates (whole)
 * and Var group keys.
 */
static List *
strip_key_exprs(List *exprs, List *keys)
{
	return (List *) strip_key_exprs_mutator((Node *) exprs, keys);
}

/*
 * The GdbAggFunc of a built-in aggregate call, or -1.  count(DISTINCT x)
 * and the ordered-set aggregates map to their own GdbAggFunc values, which
 * the device cannot order groups by.
 */
int
gdb_aggref_function(Aggref *aggref)
{
	if (aggref->aggdistinct != NIL || aggref->aggkind != AGGKIND_NORMAL)
		return gdb_ordered_set_aggref_function(aggref);
	if (get_func_namespace(aggref->aggfnoid) != PG_CATALOG_NAMESPACE)
		return -1;
	return gdb_aggregate_function(get_func_name(aggref->aggfnoid), aggref->aggstar);
}

/*
 * Check one Aggref; appends (fn, attnum) to *aggs and the column to
 * *attnums.
 */
static bool
aggref_ok(Aggref *aggref, Index relid, Oid reloid, List **aggs,
		  Bitmapset **attnums, int *nstates, const char **why)
{
	int			fn = gdb_aggref_function(aggref);
	Var		   *arg = NULL;
	uint32		kind;
	Oid			rtype;

	/* count(DISTINCT x), percentile_cont, percentile_disc, mode */
	if (aggref->aggdistinct != NIL || aggref->aggkind != AGGKIND_NORMAL)
	{
		Expr	   *e;
		char	   *reason = NULL;

		if (!gdb_ordered_set_aggref_ok(aggref, relid, &fn, &e, why))
			return false;
		if (!IsA(e, Var) &&
			!gdb_expr_columns_ok((Node *) e, relid, reloid, attnums, &reason))
		{
			*why = psprintf("an aggregate's argument cannot be computed on the device: %s",
							reason);
			return false;
		}
		if (IsA(e, Var))
			*attnums = bms_add_member(*attnums, ((Var *) e)->varattno);
		*aggs = lappend_int(*aggs, fn);
		*aggs = lappend_int(*aggs, IsA(e, Var) ? ((Var *) e)->varattno : GDB_ATTNUM_EXPR);
		*nstates += 1;			/* a count(x) holds its place */
		return true;
	}
	if (fn < 0)
	{
		*why = psprintf("aggregate %s is not one of count, sum, avg, min, max, the variance and stddev family, count(DISTINCT), percentile_cont, percentile_disc or mode",
						format_procedure(aggref->aggfnoid));
		return false;
	}
	if (aggref->aggdistinct || aggref->aggorder || aggref->aggfilter ||
		aggref->aggkind != AGGKIND_NORMAL || aggref->aggvariadic ||
		aggref->agglevelsup != 0 || aggref->aggsplit != AGGSPLIT_SIMPLE)
	{
		*why = "an aggregate has ORDER BY, FILTER or an unusual form";
		return false;
	}
	if (fn != GDB_FN_COUNT_STAR)
	{
		TargetEntry *te;

		if (list_length(aggref->args) != 1)
		{
			*why = "an aggregate has several arguments";
			return false;
		}
		te = linitial_node(TargetEntry, aggref->args);
		if (!IsA(te->expr, Var))
		{
			/* an expression: a computed column of the request */
			Oid			argtype = exprType((Node *) te->expr);
			char	   *reason = NULL;
			ListCell   *lc;

			foreach(lc, gdb_sum_arg_exprs((Node *) te->expr,
										  fn == GDB_FN_SUM && argtype == NUMERICOID))
				if (!gdb_expr_columns_ok((Node *) lfirst(lc), relid, reloid, attnums, &reason))
				{
					*why = psprintf("an aggregate's argument cannot be computed on the device: %s",
									reason);
					return false;
				}
			if (!gdb_aggregate_kind((GdbAggFunc) fn, argtype, &kind, &rtype) ||
				rtype != aggref->aggtype)
			{
				*why = psprintf("%s over this type does not run on the device",
								format_procedure(aggref->aggfnoid));
				return false;
			}
			*aggs = lappend_int(*aggs, fn);
			*aggs = lappend_int(*aggs, GDB_ATTNUM_EXPR);
			/* (a sum over a CASE of two scales: its display scale's state) */
			*nstates += gdb_aggregate_states((GdbAggFunc) fn, argtype, kind) +
				list_length(gdb_sum_arg_exprs((Node *) te->expr,
											  fn == GDB_FN_SUM && argtype == NUMERICOID)) - 1;
			return true;
		}
		arg = (Var *) te->expr;
		if (arg->varno != relid || arg->varlevelsup != 0 || arg->varattno <= 0)
		{
			*why = "an aggregate's argument is not a column of the table";
			return false;
		}
		if (fn != GDB_FN_COUNT && !gdb_var_ok(arg, relid, false, attnums, why))
			return false;
		*attnums = bms_add_member(*attnums, arg->varattno);
	}
	if (!gdb_aggregate_kind((GdbAggFunc) fn, arg ? arg->vartype : InvalidOid,
							&kind, &rtype) || rtype != aggref->aggtype)
	{
		*why = psprintf("%s over this type does not run on the device",
						format_procedure(aggref->aggfnoid));
		return false;
	}
	*aggs = lappend_int(*aggs, fn);
	*aggs = lappend_int(*aggs, arg ? arg->varattno : 0);
	/* an integer variance carries a hidden sum, a numeric sum a hidden max */
	*nstates += gdb_aggregate_states((GdbAggFunc) fn, arg ? arg->vartype : InvalidOid, kind);
	return true;
}

/* Is the grouping equality of sgc over var the type's default one? */
static bool
group_key_ok(SortGroupClause *sgc, Node *key, const char **why)
{
	Oid			type = exprType(key);
	Oid			collid = exprCollation(key);
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_EQ_OPR);

	if (sgc->eqop != tc->eq_opr)
	{
		*why = "a group key uses a non-default equality operator";
		return false;
	}
	if (gdb_type_class(type) == GDB_TYPE_TEXT &&
		(!OidIsValid(collid) || !get_collation_isdeterministic(collid)))
	{
		*why = "a text group key has a nondeterministic collation";
		return false;
	}
	return true;
}

static void
try_gpuagg(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
		   GroupPathExtraData *extra)
{
	Query	   *parse = root->parse;
	const char *why = NULL;
	RangeTblEntry *rte;
	List	   *keys = NIL;
	List	   *key_vars = NIL;
	List	   *aggs = NIL;
	List	   *aggrefs = NIL;
	int			nstates = 0;	/* transition states, hidden ones included */
	int			nhist = 0;		/* histogram aggregates */
	List	   *having = extra ? (List *) extra->havingQual : NIL;
	List	   *items;
	CustomPath *path;
	List	   *device = NIL;
	Bitmapset  *attnums = NULL;
	bool		cached;
	double		ngroups;
	double		work;
	QualCost	having_cost;
	Cost		startup;
	Cost		disabled;
	ListCell   *lc;

	if (gpudb_gpu_setup_cost >= gdb_cheapest_existing(output_rel))
		return;
	if (!gdb_offload_possible(&why) || !gdb_base_rel_ok(root, input_rel, false, &why))
		goto refused;
	if (parse->groupingSets || parse->hasTargetSRFs || extra == NULL ||
		extra->patype != PARTITIONWISE_AGGREGATE_NONE ||
		contain_subplans((Node *) having))
	{
		why = "grouping sets, set-returning functions or subqueries in HAVING";
		goto refused;
	}
	rte = planner_rt_fetch(input_rel->relid, root);

	/* group keys: plain columns with default equality */
	if (list_length(parse->groupClause) > GDB_MAX_GROUP_KEYS)
	{
		why = "too many group keys";
		goto refused;
	}
	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Node	   *e = get_sortgroupclause_expr(sgc, root->processed_tlist);

		if (!IsA(e, Var))
		{
			/* an expression: a computed column of the request */
			char	   *reason = NULL;

			if (!gdb_expr_columns_ok(e, input_rel->relid, rte->relid, &attnums, &reason))
			{
				why = psprintf("a group key cannot be computed on the device: %s",
							   reason);
				goto refused;
			}
			if (!group_key_ok(sgc, e, &why))
				goto refused;
			key_vars = lappend(key_vars, e);
			keys = lappend_int(keys, GDB_ATTNUM_EXPR);
			continue;
		}
		if (!gdb_var_ok((Var *) e, input_rel->relid, true, &attnums, &why) ||
			!group_key_ok(sgc, e, &why))
			goto refused;
		key_vars = lappend(key_vars, e);
		keys = lappend_int(keys, ((Var *) e)->varattno);
	}

	/* aggregates, and Vars outside them (group keys only) */
	items = pull_var_clause((Node *) strip_key_exprs(list_concat(list_copy(output_rel->reltarget->exprs),
																 having), key_vars),
							PVC_INCLUDE_AGGREGATES | PVC_INCLUDE_WINDOWFUNCS |
							PVC_INCLUDE_PLACEHOLDERS);
	foreach(lc, items)
	{
		Node	   *n = (Node *) lfirst(lc);

		if (IsA(n, Aggref))
		{
			if (list_member(aggrefs, n))
				continue;
			if (!aggref_ok((Aggref *) n, input_rel->relid, rte->relid, &aggs, &attnums,
						   &nstates, &why))
				goto refused;
			aggrefs = lappend(aggrefs, n);
		}
		else if (!IsA(n, Var) || !list_member(key_vars, n))
		{
			why = "the target list reads a column that is not a group key";
			goto refused;
		}
	}

	if (nstates > GDB_MAX_AGGREGATES ||
		bms_num_members(attnums) >= GDB_MAX_COLUMNS)
	{
		why = "too many aggregates or columns";
		goto refused;
	}
	/* a histogram aggregate groups by the keys and its argument */
	foreach(lc, aggrefs)
		if (GDB_FN_IS_ORDERED_SET(gdb_aggref_function(lfirst_node(Aggref, lc))))
		{
			if (list_length(keys) >= Min(GDB_MAX_GROUP_KEYS, GDB_MAX_SORT_KEYS))
			{
				why = "count(DISTINCT), percentile_cont, percentile_disc or mode with too many group keys";
				goto refused;
			}
			nhist++;
		}

	/* every qual on the device */
	if (!gdb_all_quals_on_device(root, input_rel, rte->relid, &attnums, &device, &why))
		goto refused;

	/* the computed columns together within one request's limits */
	{
		List	   *exprs = NIL;

		foreach(lc, key_vars)
			if (!IsA(lfirst(lc), Var))
				exprs = lappend(exprs, lfirst(lc));
		foreach(lc, aggrefs)
		{
			Aggref	   *ag = lfirst_node(Aggref, lc);
			int			fn = gdb_aggref_function(ag);
			Node	   *arg = GDB_FN_IS_ORDERED_SET(fn) ?
				(Node *) gdb_ordered_set_arg(ag, fn) :
				ag->args != NIL ? (Node *) linitial_node(TargetEntry, ag->args)->expr : NULL;

			if (arg != NULL && !IsA(arg, Var))
				exprs = list_concat(exprs,
									gdb_sum_arg_exprs(arg, fn == GDB_FN_SUM &&
													  exprType(arg) == NUMERICOID));
		}
		if (!gdb_exprs_fit(exprs, rte->relid, &why))
			goto refused;
	}

	/*
	 * the code tables of the text operations of keys, arguments and quals
	 * together (each part was compiled alone)
	 */
	if (gdb_text_operations((Node *) key_vars) + gdb_text_operations((Node *) aggrefs) +
		gdb_text_operations((Node *) device) > GDB_MAX_CODE_TABLES)
	{
		why = psprintf("more than %d text operations (LIKE, text comparisons, lengths, text functions) in one request",
					   GDB_MAX_CODE_TABLES);
		goto refused;
	}
	/* each histogram aggregate: at most one more group-by, one key more */
	work = 1.0 + list_length(aggrefs) / 4.0 + list_length(keys) +
		nhist * (2.0 + list_length(keys));
	disabled = gdb_disabled_cost(false, keys != NIL);
	if (!gdb_worth_and_cached(input_rel, rte->relid, attnums, work, disabled,
							  gdb_cheapest_existing(output_rel), &cached))
		return;

	ngroups = gdb_grouped_rows(root, input_rel->rows);
	cost_qual_eval(&having_cost, having, root);
	startup = gdb_device_cost(input_rel, rte->relid, bms_num_members(attnums), cached, work) +
		disabled + having_cost.startup;
	path = gdb_make_path(GDB_NODE_AGG, output_rel, output_rel->reltarget,
						 ngroups, startup,
						 startup + ngroups * (cpu_tuple_cost + having_cost.per_tuple),
						 NIL, input_rel->relid, device, NIL,
						 list_make5(keys, aggs, key_vars, aggrefs, having));
	if (gdb_needs_fallback((Node *) list_make3(key_vars, aggrefs, device)) &&
		!gdb_set_fallback(path, gdb_agg_fallback_path(root, input_rel, output_rel, extra,
													  aggrefs, ngroups), &why))
		goto refused;
	add_path(output_rel, &path->path);
	return;

refused:
	gdb_not_offered(GDB_NODE_AGG, why);
}

static void
gdb_create_upper_paths(PlannerInfo *root, UpperRelationKind stage,
					   RelOptInfo *input_rel, RelOptInfo *output_rel,
					   void *extra)
{
	if (prev_create_upper_paths_hook)
		prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage == UPPERREL_GROUP_AGG && input_rel->reloptkind == RELOPT_JOINREL)
	{
		if (gpudb_enable_gpujoin)
			gdb_try_gpujoin(root, input_rel, output_rel, (GroupPathExtraData *) extra);
	}
	else if (stage == UPPERREL_GROUP_AGG && gpudb_enable_gpuagg)
		try_gpuagg(root, input_rel, output_rel, (GroupPathExtraData *) extra);
	else if (stage == UPPERREL_ORDERED && gpudb_enable_gpusort)
	{
		gdb_try_gpusort(root, input_rel, output_rel);
		if (gpudb_enable_gpuagg || gpudb_enable_gpujoin)
			gdb_try_gpuagg_ordered(root, input_rel, output_rel);
	}
}

/* ---- plans ---- */

/* The attnums of the Vars of exprs (all of relid) as an IntList. */
static List *
attnum_list(Bitmapset *attnums)
{
	List	   *out = NIL;
	int			x = -1;

	while ((x = bms_next_member(attnums, x)) >= 0)
		out = lappend_int(out, x);
	return out;
}

/*
 * The scan tuple of a node that returns computed columns: a Var for each
 * attnum of *output (relation baserelid's columns), then exprs; *output
 * gets a GDB_ATTNUM_EXPR for each of exprs.  set_plan_references then
 * points the target list's matching expressions at the computed columns.
 */
static List *
computed_scan_tlist(PlannerInfo *root, Index baserelid, List **output, List *exprs)
{
	Oid			reloid = planner_rt_fetch(baserelid, root)->relid;
	List	   *tlist = NIL;
	ListCell   *lc;

	foreach(lc, *output)
	{
		AttrNumber	attnum = (AttrNumber) lfirst_int(lc);
		Oid			typid;
		int32		typmod;
		Oid			collid;

		get_atttypetypmodcoll(reloid, attnum, &typid, &typmod, &collid);
		tlist = lappend(tlist,
						makeTargetEntry((Expr *) makeVar(baserelid, attnum, typid,
														 typmod, collid, 0),
										list_length(tlist) + 1, NULL, false));
	}
	foreach(lc, exprs)
	{
		tlist = lappend(tlist,
						makeTargetEntry((Expr *) copyObject(lfirst(lc)),
										list_length(tlist) + 1, NULL, false));
		*output = lappend_int(*output, GDB_ATTNUM_EXPR);
	}
	return tlist;
}

/*
 * PlanCustomPath for all three nodes, from what the path decided: the
 * device quals (Vars renumbered to varno 1: they are compiled by attribute
 * number and shown through a one-relation deparse context), the CPU quals
 * and HAVING as the node's ordinary qual; the rest (target list, Vars of
 * the quals) is left to set_plan_references.  (clauses, the base
 * relation's RestrictInfos, were all placed by the path already.)
 */
static Plan *
gdb_plan_custom_path(PlannerInfo *root, RelOptInfo *rel,
					 CustomPath *best_path, List *tlist, List *clauses,
					 List *custom_plans)
{
	List	   *path_private = best_path->custom_private;
	GdbNodeKind kind = (GdbNodeKind) intVal(list_nth(path_private, GDB_PATH_KIND));
	Index		baserelid = (Index) intVal(list_nth(path_private, GDB_PATH_BASEREL));
	List	   *device = (List *) list_nth(path_private, GDB_PATH_DEVICE);
	List	   *node = (List *) list_nth(path_private, GDB_PATH_NODE);
	CustomScan *cscan = makeNode(CustomScan);
	List	   *keys = NIL,
			   *aggs = NIL,
			   *output = NIL,
			   *sort = NIL;
	Bitmapset  *out_attnums = NULL;
	const char *why = NULL;
	char	   *limit = "0";
	int			host_order = 0;
	List	   *join = NIL;

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.scanrelid = baserelid;
	/*
	 * the parameters the device quals compare with (param_values.c), and a
	 * GpudbAgg's or GpudbJoin's HAVING's, where the node may evaluate them
	 * at its first run (the device's group qualifier, groupby_having.c)
	 */
	cscan->custom_exprs = gdb_quals_params(device);
	if (kind == GDB_NODE_AGG || kind == GDB_NODE_JOIN)
	{
		List	   *having = (List *) list_nth(node, 4);
		const char *why_not;

		if (gdb_contains_param((Node *) having) &&
			gdb_params_fixed(root, having, &why_not))
			cscan->custom_exprs = gdb_quals_params(list_concat(list_copy(device),
															   having));
	}
	/* PostgreSQL's plan behind the node (custom_scan_fallback.c), if any */
	cscan->custom_plans = custom_plans;
	cscan->flags = best_path->flags;
	cscan->methods = &gdb_scan_methods[kind];

	switch (kind)
	{
		case GDB_NODE_SCAN:
			cscan->scan.plan.qual =
				extract_actual_clauses((List *) list_nth(path_private, GDB_PATH_CPU), false);
			(void) gdb_vars_ok(best_path->path.pathtarget->exprs, baserelid,
						   &out_attnums, &why);
			(void) gdb_vars_ok(cscan->scan.plan.qual, baserelid, &out_attnums, &why);
			output = attnum_list(out_attnums);
			if (output == NIL)	/* e.g. count(*) above: one column */
				output = list_make1_int(linitial_int(attnum_list(clause_attnums(device, 1))));
			break;
		case GDB_NODE_AGG:
		case GDB_NODE_JOIN:
			{
				/* node: keys, aggs, key Vars, Aggrefs, HAVING[, sort, limit] */
				List	   *scan_tlist = NIL;
				ListCell   *lc;

				keys = (List *) linitial(node);
				aggs = (List *) lsecond(node);
				if (kind == GDB_NODE_JOIN)
				{
					/*
					 * node: keys, aggs, key exprs, Aggrefs, HAVING, join
					 * tree[, sort, limit]
					 */
					ListCell   *rc;

					join = (List *) list_nth(node, 5);
					/* every relation of the join tree, for EXPLAIN's names */
					foreach(rc, (List *) lsecond(join))
						cscan->custom_relids = bms_add_member(cscan->custom_relids,
															  lfirst_int(rc));
					if (list_length(node) > 6)
					{
						/* ordered on the device, as a GpudbAgg below */
						sort = (List *) list_nth(node, 6);
						limit = strVal(list_nth(node, 7));
						host_order = intVal(list_nth(node, 8));
					}
				}
				else if (list_length(node) > 5)
				{
					/*
					 * ordered on the device (or the host): (result column,
					 * desc, nulls_first)
					 */
					sort = (List *) list_nth(node, 5);
					limit = strVal(list_nth(node, 6));
					host_order = intVal(list_nth(node, 7));
				}
				foreach(lc, list_concat(list_copy((List *) lthird(node)),
										(List *) lfourth(node)))
					scan_tlist = lappend(scan_tlist,
										 makeTargetEntry((Expr *) copyObject(lfirst(lc)),
														 list_length(scan_tlist) + 1,
														 NULL, false));
				cscan->custom_scan_tlist = scan_tlist;
				cscan->scan.plan.qual = (List *) copyObject(list_nth(node, 4));
			}
			break;
		case GDB_NODE_SORT:
			/* node: sort keys, limit, computed columns */
			sort = (List *) linitial(node);
			limit = strVal(lsecond(node));
			(void) gdb_vars_ok(best_path->path.pathtarget->exprs, baserelid,
						   &out_attnums, &why);
			output = attnum_list(out_attnums);
			if (lthird(node) != NIL)
				cscan->custom_scan_tlist =
					computed_scan_tlist(root, baserelid, &output, (List *) lthird(node));
			else if (output == NIL)
				output = list_make1_int(linitial_int(sort));
			break;
	}

	cscan->custom_private = list_make1(makeInteger(kind));
	cscan->custom_private = lappend(cscan->custom_private, device);
	cscan->custom_private = lappend(cscan->custom_private, keys);
	cscan->custom_private = lappend(cscan->custom_private, aggs);
	cscan->custom_private = lappend(cscan->custom_private, output);
	cscan->custom_private = lappend(cscan->custom_private, sort);
	cscan->custom_private = lappend(cscan->custom_private, makeString(pstrdup(limit)));
	cscan->custom_private = lappend(cscan->custom_private, join);
	cscan->custom_private = lappend(cscan->custom_private, makeInteger(host_order));
	Assert(list_length(cscan->custom_private) == GDB_PRIV__COUNT);
	return &cscan->scan.plan;
}

/* see gpudb.h */
void
gdb_custom_scan_init(void)
{
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = gdb_set_rel_pathlist;
	prev_create_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = gdb_create_upper_paths;
	gdb_not_in_rewrite_init();
	gdb_scalar_subquery_rewrite_init();
	gdb_eager_aggregate_rewrite_init();
	gdb_custom_exec_init();
}
