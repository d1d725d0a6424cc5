/*-------------------------------------------------------------------------
 *
 * custom_scan_order.c
 *	  ORDER BY on the device, at UPPERREL_ORDERED: GpudbSort (a query over
 *	  one table ordered by columns or expressions, cut to its LIMIT as a
 *	  device top-k) and a GpudbAgg that orders its groups by group keys and
 *	  aggregates and cuts them to the LIMIT.  Both must reproduce which
 *	  expressions PostgreSQL's plan evaluates for which rows, so that the
 *	  same rows raise the same errors (gdb_expr_may_raise).  The helpers
 *	  they share with the other nodes are in custom_scan_path.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

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

/* ---- GpudbSort ---- */

/*
 * Append (col, descending, nulls_first) of pathkey pk to *sort when pk
 * orders a value of type type by the type's default btree order, ascending
 * or descending (as the device sorts); else false with *why.
 */
static bool
append_sort_key(PathKey *pk, Oid type, int col, List **sort, const char **why)
{
	Oid			opclass = GetDefaultOpClass(type, BTREE_AM_OID);

	if (!OidIsValid(opclass) || get_opclass_family(opclass) != pk->pk_opfamily ||
		(!gdb_pathkey_is_asc(pk) && !gdb_pathkey_is_desc(pk)))
	{
		*why = "a sort key uses a non-default ordering operator";
		return false;
	}
	*sort = lappend_int(*sort, col);
	*sort = lappend_int(*sort, gdb_pathkey_is_desc(pk));
	*sort = lappend_int(*sort, pk->pk_nulls_first);
	return true;
}

/*
 * An ORDER BY pathkey whose key is an expression over relid's columns (no
 * member of its equivalence class is a plain column): a computed column
 * of the request when the expression compiler takes it and its value is
 * not text, appended to *sort as (GDB_ATTNUM_EXPR, descending,
 * nulls_first) and its expression to *key_exprs.
 */
static bool
expr_pathkey_ok(PathKey *pk, Index relid, Oid reloid, List **sort,
				List **key_exprs, Bitmapset **attnums, const char **why)
{
	EquivalenceClass *ec = pk->pk_eclass;
	Expr	   *expr = NULL;
	char	   *reason = NULL;
	ListCell   *lc;

	foreach(lc, ec->ec_members)
	{
		EquivalenceMember *em = (EquivalenceMember *) lfirst(lc);

		if (!em->em_is_const && !em->em_is_child &&
			bms_equal(em->em_relids, bms_make_singleton(relid)))
		{
			expr = em->em_expr;
			break;
		}
	}
	if (expr == NULL)
	{
		*why = "a sort key is not over the scanned relation";
		return false;
	}
	if (gdb_type_class(exprType((Node *) expr)) == GDB_TYPE_TEXT)
	{
		*why = "a sort key is a text-valued expression";
		return false;
	}
	if (!gdb_expr_columns_ok((Node *) expr, relid, reloid, attnums, &reason))
	{
		*why = psprintf("a sort key expression cannot run on the device: %s", reason);
		return false;
	}
	if (!append_sort_key(pk, exprType((Node *) expr), GDB_ATTNUM_EXPR, sort, why))
		return false;
	*key_exprs = lappend(*key_exprs, expr);
	return true;
}

/*
 * The column, direction and NULL order of one ORDER BY pathkey over
 * relid, appended to *sort as (attnum, descending, nulls_first).  A text
 * column is accepted when the key orders it by its own collation and that
 * is C or POSIX (it sorts by its byte-order rank, text_rank.c, a hidden
 * column); *ntext counts those keys.
 */
static bool
pathkey_ok(PathKey *pk, Index relid, Oid reloid, List **sort,
		   List **key_exprs, Bitmapset **attnums, int *ntext, const char **why)
{
	EquivalenceClass *ec = pk->pk_eclass;
	Var		   *var = NULL;
	ListCell   *lc;

	if (ec->ec_has_volatile)
	{
		*why = "a sort key is volatile";
		return false;
	}
	foreach(lc, ec->ec_members)
	{
		EquivalenceMember *em = (EquivalenceMember *) lfirst(lc);
		Expr	   *e = em->em_expr;

		while (e && IsA(e, RelabelType) && !fc_is_bpchar_relabel((Node *) e))
			e = ((RelabelType *) e)->arg;
		if (e && IsA(e, Var) && ((Var *) e)->varno == relid &&
			((Var *) e)->varlevelsup == 0)
		{
			var = (Var *) e;
			break;
		}
	}
	if (var == NULL)
		return expr_pathkey_ok(pk, relid, reloid, sort, key_exprs, attnums, why);
	if (!gdb_var_ok(var, relid, true, attnums, why))
		return false;
	if (gdb_type_class(var->vartype) == GDB_TYPE_TEXT)
	{
		/* byte order (text_rank.c): the C and POSIX collations only */
		if (!gdb_text_sort_collation_ok(ec->ec_collation))
		{
			*why = OidIsValid(ec->ec_collation) ?
				psprintf("text sort keys in collation \"%s\" stay on the CPU "
						 "(the device orders text in the C collation only)",
						 get_collation_name(ec->ec_collation)) :
				"a text sort key has no collation";
			return false;
		}
		if (ec->ec_collation != var->varcollid)
		{
			/* e.g. ORDER BY t COLLATE "C" over a column of another one */
			*why = "a text sort key's collation is not its column's";
			return false;
		}
		(*ntext)++;
	}
	return append_sort_key(pk, var->vartype, var->varattno, sort, why);
}

/*
 * The expressions of a GpudbSort's target list that the device computes,
 * appended to *exprs (after the sort key expressions), and whether the
 * target can run at all.  PostgreSQL's plan computes its sort input
 * target for every row before the Sort, but postpones past it (for the
 * returned rows only) a target column that is not a sort key when the
 * query has a LIMIT and the column costs more than 10 operators
 * (make_sort_input_target).  An expression that can raise an error must
 * be computed for the same rows: on the device, for every selected row,
 * when PostgreSQL would not postpone it; by the node's projection, for the
 * returned rows, when it would.  One it would not postpone that the device
 * cannot compute refuses the node (*why).  Expressions that cannot raise
 * run on the device when the expression compiler takes them (numeric-
 * valued ones), else in the projection.
 */
static bool
sort_target_ok(PlannerInfo *root, PathTarget *target, Index relid, Oid reloid,
			   List **exprs, Bitmapset **attnums, const char **why)
{
	ListCell   *lc;

	foreach(lc, target->exprs)
	{
		Node	   *e = (Node *) lfirst(lc);
		bool		raises = gdb_expr_may_raise(e, NULL);
		bool		postponed = false;
		char	   *reason = NULL;
		Bitmapset  *cols = NULL;

		while (IsA(e, RelabelType) && !fc_is_bpchar_relabel(e))
			e = (Node *) ((RelabelType *) e)->arg;
		if (IsA(e, Var) || IsA(e, Const) || list_member(*exprs, e))
			continue;
		if (raises && root->parse->limitCount != NULL)
		{
			QualCost	cost;

			cost_qual_eval_node(&cost, e, root);
			postponed = cost.per_tuple > 10 * cpu_operator_cost;
		}
		if (postponed)
			continue;			/* the projection, for the returned rows */
		if (gdb_type_class(exprType(e)) != GDB_TYPE_TEXT &&
			list_length(*exprs) < GDB_MAX_EXPRS &&
			gdb_expr_columns_ok(e, relid, reloid, &cols, &reason))
		{
			*exprs = lappend(*exprs, e);
			*attnums = bms_add_members(*attnums, cols);
			continue;
		}
		if (raises)
		{
			*why = "the target list holds an expression that can raise an error "
				"and does not run on the device";
			return false;
		}
	}
	return true;
}

/* see custom_scan_path.h */
void
gdb_try_gpusort(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel)
{
	Query	   *parse = root->parse;
	const char *why = NULL;
	RangeTblEntry *rte;
	List	   *sort = NIL;
	List	   *exprs = NIL;
	List	   *device = NIL;
	Bitmapset  *attnums = NULL;
	bool		cached;
	int			ntext = 0;
	double		limit = 0;
	double		rows_out;
	PathTarget *target;
	Cost		startup;
	Cost		disabled;
	CustomPath *path;
	ListCell   *lc;

	if (root->sort_pathkeys == NIL ||
		gpudb_gpu_setup_cost >= gdb_cheapest_existing(output_rel))
		return;
	if (parse->hasAggs || parse->groupClause || parse->groupingSets ||
		parse->distinctClause || parse->hasWindowFuncs || parse->hasTargetSRFs ||
		root->hasHavingQual)
	{
		/* a GpudbAgg may order its own groups (gdb_try_gpuagg_ordered) */
		why = "the query groups, aggregates or has DISTINCT, windows or SRFs";
		goto refused;
	}
	if (!gdb_offload_possible(&why) || !gdb_base_rel_ok(root, input_rel, false, &why))
		goto refused;
	if (list_length(root->sort_pathkeys) > GDB_MAX_SORT_KEYS)
	{
		why = "too many sort keys";
		goto refused;
	}
	rte = planner_rt_fetch(input_rel->relid, root);
	foreach(lc, root->sort_pathkeys)
		if (!pathkey_ok((PathKey *) lfirst(lc), input_rel->relid, rte->relid,
						&sort, &exprs, &attnums, &ntext, &why))
			goto refused;
	target = root->upper_targets[UPPERREL_ORDERED];
	if (target == NULL || !gdb_vars_ok(target->exprs, input_rel->relid, &attnums, &why) ||
		!sort_target_ok(root, target, input_rel->relid, rte->relid, &exprs,
						&attnums, &why))
		goto refused;
	/* each text sort key adds its rank column */
	if (bms_num_members(attnums) + ntext + list_length(exprs) >= GDB_MAX_COLUMNS ||
		list_length(exprs) > GDB_MAX_EXPRS)
	{
		why = "too many columns";
		goto refused;
	}

	if (!gdb_all_quals_on_device(root, input_rel, rte->relid, &attnums, &device, &why))
		goto refused;
	/* the computed columns together within one request's limits */
	if (!gdb_exprs_fit(exprs, rte->relid, &why))
		goto refused;
	disabled = gdb_disabled_cost(true, false);
	if (!gdb_worth_and_cached(input_rel, rte->relid, attnums,
							  2.0 * list_length(root->sort_pathkeys), disabled,
							  gdb_cheapest_existing(output_rel), &cached))
		return;
	/* a text sort key reads the heap (gdb_cache_groupby: no ranks there) */
	if (ntext > 0)
		cached = false;

	/* WITH TIES needs the rows past the limit: sort them all */
	if (root->limit_tuples > 0 && root->limit_tuples < 1e15 &&
		parse->limitOption != LIMIT_OPTION_WITH_TIES)
		limit = root->limit_tuples;
	rows_out = limit > 0 ? Min(limit, input_rel->rows) : input_rel->rows;
	startup = gdb_device_cost(input_rel, rte->relid, bms_num_members(attnums), cached,
							  2.0 * list_length(root->sort_pathkeys)) + disabled;
	path = gdb_make_path(GDB_NODE_SORT, output_rel, target,
						 input_rel->rows, startup,
						 startup + rows_out * gdb_result_row_cost(),
						 root->sort_pathkeys, input_rel->relid, device, NIL,
						 list_make3(sort, makeString(psprintf("%.0f", limit)),
									exprs));
	if (gdb_needs_fallback((Node *) list_make2(exprs, device)) &&
		!gdb_set_fallback(path, gdb_sort_fallback_path(root, input_rel, output_rel,
													   target, limit), &why))
		goto refused;
	add_path(output_rel, &path->path);
	return;

refused:
	gdb_not_offered(GDB_NODE_SORT, why);
}

/* ---- GpudbAgg with ORDER BY (and LIMIT) on the device ---- */

/* NOTICE of why a GpudbAgg's groups are not ordered (or cut) on the device. */
static void
order_not_offered(const char *what, const char *why)
{
	if (gpudb_debug_unsupported)
		ereport(NOTICE,
				(errmsg("gpudb: GpudbAgg %s not used: %s", what, why)));
}

/* check_functions_in_node callback: true for a function that can leak. */
static bool
function_may_raise(Oid funcid, void *context)
{
	return !get_func_leakproof(funcid);
}

/*
 * Can evaluating node over a group's keys and finished aggregates raise an
 * error?  False only for Vars, Consts, whole Aggrefs (their arguments run
 * on the device), and trees of relabelings, AND/OR/NOT, NULL and boolean
 * tests, lists, and operators and functions that are all leakproof (a
 * leakproof function raises no error that depends on its arguments): e.g.
 * count(*) > 10 cannot raise, sum(h) / count(*) can.
 */
/* see custom_scan_path.h */
bool
gdb_expr_may_raise(Node *node, void *context)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_Aggref:
			return false;
		case T_RelabelType:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_List:
			break;
		case T_OpExpr:
		case T_FuncExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
			if (check_functions_in_node(node, function_may_raise, NULL))
				return true;
			break;
		default:
			return true;
	}
	return expression_tree_walker(node, gdb_expr_may_raise, context);
}

/*
 * The result column (a group key, or nkeys + an aggregate) that ORDER BY
 * pathkey pk sorts by, appended to *sort as (column, descending,
 * nulls_first); false with *why when it is neither a non-text group key nor
 * an aggregate with an orderable value (count, min, max, sum of smallint,
 * integer or double precision: gdb_order_agg_value; with exact_sums, for a
 * node with PostgreSQL's plan behind it, also sum of bigint or numeric,
 * which the device orders where it is exact and else leaves to that plan:
 * GDB_SORT_EXACT_SUM), or not in the type's default order.  A text group
 * key or a count(DISTINCT) sets *host (the groups are ordered on the host:
 * add_ordered_path), an aggregate other than count or count(DISTINCT)
 * sets *device (only the device orders those).
 */
static bool
order_pathkey_ok(PathKey *pk, List *key_vars, List *aggrefs, bool exact_sums,
				 List **sort, bool *host, bool *device, const char **why)
{
	EquivalenceClass *ec = pk->pk_eclass;
	int			col = -1;
	Oid			type = InvalidOid;
	ListCell   *lc;

	if (ec->ec_has_volatile)
	{
		*why = "a sort key is volatile";
		return false;
	}
	foreach(lc, ec->ec_members)
	{
		Expr	   *e = ((EquivalenceMember *) lfirst(lc))->em_expr;
		ListCell   *lk;

		while (e && IsA(e, RelabelType) && !fc_is_bpchar_relabel((Node *) e))
			e = ((RelabelType *) e)->arg;
		if (e && !IsA(e, Aggref))
		{
			/* a group key: a Var (of any type's Relabel), or an expression */
			foreach(lk, key_vars)
			{
				Node	   *k = (Node *) lfirst(lk);

				while (k && IsA(k, RelabelType) && !fc_is_bpchar_relabel(k))
					k = (Node *) ((RelabelType *) k)->arg;
				if (IsA(e, Var) && IsA(k, Var) ?
					(((Var *) k)->varno == ((Var *) e)->varno &&
					 ((Var *) k)->varattno == ((Var *) e)->varattno &&
					 ((Var *) k)->varlevelsup == ((Var *) e)->varlevelsup) :
					equal(k, e))
				{
					col = foreach_current_index(lk);
					type = exprType((Node *) lfirst(lk));
					break;
				}
			}
		}
		else if (e && IsA(e, Aggref))
		{
			foreach(lk, aggrefs)
				if (equal(lfirst(lk), e))
				{
					Aggref	   *ag = lfirst_node(Aggref, lk);
					int			fn = gdb_aggref_function(ag);
					Oid			argtype = fn == GDB_FN_COUNT_STAR ? InvalidOid :
						exprType((Node *) linitial_node(TargetEntry, ag->args)->expr);

					if (fn == GDB_FN_COUNT_DISTINCT)
						*host = true;
					else if (fn != GDB_FN_COUNT_STAR && fn != GDB_FN_COUNT)
						*device = true;
					if (!(fn == GDB_FN_COUNT_STAR || fn == GDB_FN_COUNT ||
						  fn == GDB_FN_COUNT_DISTINCT ||
						  fn == GDB_FN_MIN || fn == GDB_FN_MAX ||
						  (fn == GDB_FN_SUM && (argtype == INT2OID || argtype == INT4OID ||
												argtype == FLOAT8OID)) ||
						  (exact_sums && fn == GDB_FN_SUM &&
						   (argtype == INT8OID || argtype == NUMERICOID))))
					{
						*why = psprintf("the device has no exact order for %s",
										format_procedure(ag->aggfnoid));
						return false;
					}
					col = list_length(key_vars) + foreach_current_index(lk);
					type = ag->aggtype;
					break;
				}
		}
		if (col >= 0)
			break;
	}
	if (col < 0)
	{
		*why = "a sort key is neither a group key nor an aggregate of the node";
		return false;
	}
	/* text in its collation's order: ranks of its strings, on the host */
	if (gdb_type_class(type) == GDB_TYPE_TEXT)
		*host = true;
	return append_sort_key(pk, type, col, sort, why);
}

/*
 * The LIMIT plus OFFSET the device may cut the groups to, or 0: a constant
 * LIMIT without WITH TIES (which needs the rows past the limit) and a
 * constant or no OFFSET (root->limit_tuples is not set for grouped
 * queries, so the constants are read here, as preprocess_limit reads them:
 * LIMIT NULL is no limit, a LIMIT below 1 counts as 1, a negative or NULL
 * OFFSET as 0, since the Limit node above raises or returns nothing then),
 * and no HAVING (it filters groups after the cut, so fewer than LIMIT
 * would be left).
 */
static double
order_limit(PlannerInfo *root, List *having, const char **why)
{
	Query	   *parse = root->parse;
	Const	   *count = (Const *) parse->limitCount;
	Const	   *offset = (Const *) parse->limitOffset;
	double		limit;

	if (count == NULL || (IsA(count, Const) && count->constisnull))
	{
		*why = "no LIMIT";
		return 0;
	}
	if (parse->limitOption == LIMIT_OPTION_WITH_TIES || !IsA(count, Const) ||
		count->consttype != INT8OID ||
		(offset != NULL && (!IsA(offset, Const) || offset->consttype != INT8OID)))
	{
		*why = "the LIMIT is not a constant row count without ties";
		return 0;
	}
	if (having != NIL)
	{
		*why = "HAVING filters the groups after the limit";
		return 0;
	}
	limit = (double) Max(DatumGetInt64(count->constvalue), 1);
	if (offset != NULL && !offset->constisnull)
		limit += (double) Max(DatumGetInt64(offset->constvalue), 0);
	if (limit >= 1e15)
	{
		*why = "the LIMIT is too large";
		return 0;
	}
	return limit;
}

/*
 * At UPPERREL_ORDERED (input_rel the grouped relation): a GpudbAgg (or
 * GpudbJoin) path of input_rel whose ORDER BY pathkeys all map to its
 * group keys or orderable aggregates becomes a GpudbAgg (GpudbJoin) that
 * orders its groups on the device (the pathkeys are root->sort_pathkeys),
 * cut to the LIMIT when order_limit allows; a GpudbJoin's text keys are
 * then decoded for the groups it returns only, and PostgreSQL's plan
 * behind it is sorted as well.  Only where every error PostgreSQL's plan
 * (aggregation, HAVING
 * and projection of every group, then the sort) could raise is still
 * raised: HAVING and the node's target may not hold expressions that can
 * raise (gdb_expr_may_raise), since groups past the limit, or never fetched,
 * are not evaluated; and sum(real), whose float4 overflow the device does
 * not check for every group, keeps the ordinary sort.  Costed as the
 * GpudbAgg path plus a device sort of its groups (2 work units per key and
 * group), and the rows it returns.  Where a sort key is a text group key
 * (its collation's order) or a count(DISTINCT) (finished on the host), the
 * node orders its finished groups on the host instead (custom_scan_exec.c
 * host_order: text keys by the ranks of their strings, the values
 * encoded as the device encodes them), costed as a comparison sort; the
 * other sort keys may then be group keys, count and count(*) only.
 */
/*
 * The ordered variant of agg, a GpudbAgg or GpudbJoin path of the grouped
 * relation (see gdb_try_gpuagg_ordered), added to output_rel, the ordered
 * relation, when its ORDER BY can run on the device.
 */
static void
add_ordered_path(PlannerInfo *root, CustomPath *agg, RelOptInfo *output_rel)
{
	Query	   *parse = root->parse;
	CustomPath *cp;
	GdbNodeKind kind = GDB_NODE_AGG;
	List	   *node;
	List	   *key_vars;
	List	   *aggrefs;
	List	   *having;
	List	   *sort = NIL;
	PathTarget *target = root->upper_targets[UPPERREL_ORDERED];
	const char *why = NULL;
	bool		host = false;	/* ordered on the host (order_pathkey_ok) */
	bool		device = false;
	double		limit;
	double		rows_out;
	double		row_cost;
	Cost		startup;
	Cost		per_row;
	Path	   *path;
	ListCell   *lc;

	kind = gdb_path_is_kind(&agg->path, GDB_NODE_JOIN) ? GDB_NODE_JOIN : GDB_NODE_AGG;
	if (agg->custom_paths != NIL && kind == GDB_NODE_AGG)
	{
		/* its fallback is an Agg, not ordered: PostgreSQL's Sort goes above */
		order_not_offered("ORDER BY", "the GpudbAgg has PostgreSQL's plan behind it for its numeric arithmetic");
		return;
	}
	/*
	 * node: keys, aggs, key Vars (a GpudbJoin's: key expressions), Aggrefs,
	 * HAVING (a GpudbJoin's: then its join tree)
	 */
	node = (List *) list_nth(agg->custom_private, GDB_PATH_NODE);
	key_vars = (List *) lthird(node);
	aggrefs = (List *) lfourth(node);
	having = (List *) list_nth(node, 4);

	if (list_length(root->sort_pathkeys) > GDB_MAX_SORT_KEYS)
	{
		order_not_offered("ORDER BY", "too many sort keys");
		return;
	}
	foreach(lc, root->sort_pathkeys)
		if (!order_pathkey_ok((PathKey *) lfirst(lc), key_vars, aggrefs,
							  kind == GDB_NODE_JOIN && agg->custom_paths != NIL, &sort,
							  &host, &device, &why))
		{
			order_not_offered("ORDER BY", why);
			return;
		}
	if (host && device)
	{
		order_not_offered("ORDER BY", "text or count(DISTINCT) sort keys are ordered on the host, which orders no other aggregate than count");
		return;
	}
	if (gdb_expr_may_raise((Node *) having, NULL) ||
		gdb_expr_may_raise((Node *) agg->path.pathtarget->exprs, NULL))
	{
		order_not_offered("ORDER BY", "HAVING or the target list holds an expression that can raise an error");
		return;
	}
	foreach(lc, aggrefs)
	{
		Aggref	   *ag = lfirst_node(Aggref, lc);

		if (gdb_aggref_function(ag) == GDB_FN_SUM &&
			exprType((Node *) linitial_node(TargetEntry, ag->args)->expr) == FLOAT4OID)
		{
			order_not_offered("ORDER BY", "sum(real) may overflow in a group the device does not check");
			return;
		}
	}
	limit = order_limit(root, having, &why);
	if (limit == 0 && parse->limitCount != NULL)
		order_not_offered("Top-k Limit", why);

	rows_out = limit > 0 ? Min(limit, agg->path.rows) : agg->path.rows;
	row_cost = gdb_device_row_cost();
	startup = agg->path.startup_cost + (enable_sort ? 0 : disable_cost) +
		(host ?
	/* one comparison of encoded keys per step (cost_sort's charges two) */
		 agg->path.rows * cpu_operator_cost * log2(Max(agg->path.rows, 2.0)) :
		 agg->path.rows * row_cost * 2.0 * list_length(root->sort_pathkeys));
	/* a GpudbJoin decodes the text keys of the groups it returns only */
	if (kind == GDB_NODE_JOIN)
		startup += gdb_text_result_cost(key_vars, rows_out) -
			gdb_text_result_cost(key_vars, agg->path.rows);
	per_row = (agg->path.total_cost - agg->path.startup_cost) / Max(agg->path.rows, 1.0);
	node = list_copy(node);
	node = lappend(node, sort);
	node = lappend(node, makeString(psprintf("%.0f", limit)));
	node = lappend(node, makeInteger(host ? 1 : 0));
	cp = gdb_make_path(kind, output_rel, agg->path.pathtarget, rows_out,
					   startup, startup + rows_out * per_row, root->sort_pathkeys,
					   (Index) intVal(list_nth(agg->custom_private, GDB_PATH_BASEREL)),
					   (List *) list_nth(agg->custom_private, GDB_PATH_DEVICE),
					   NIL, node);

	/*
	 * a GpudbJoin's plan behind it (a build side with duplicate keys, ...)
	 * is ordered too, so that what it returns has the pathkeys
	 */
	if (agg->custom_paths != NIL)
		cp->custom_paths =
			lcons(create_sort_path(root, output_rel,
								   (Path *) linitial(agg->custom_paths),
								   root->sort_pathkeys, limit > 0 ? limit : -1.0),
				  list_copy_tail(agg->custom_paths, 1));
	path = &cp->path;
	if (!equal(path->pathtarget->exprs, target->exprs))
		path = (Path *) create_projection_path(root, output_rel, path, target);
	add_path(output_rel, path);
}

/*
 * Does the query order its groups themselves: ORDER BY over a grouped
 * query without DISTINCT or window functions (the ordered relation's
 * input is the grouped relation)?
 */
static bool
orders_groups(PlannerInfo *root)
{
	Query	   *parse = root->parse;

	return root->sort_pathkeys != NIL && root->upper_targets[UPPERREL_ORDERED] != NULL &&
		(parse->hasAggs || parse->groupClause || root->hasHavingQual) &&
		parse->distinctClause == NIL && !parse->hasWindowFuncs;
}

/* see custom_scan_path.h */
bool
gdb_ordered_limit_possible(PlannerInfo *root)
{
	return gpudb_enable_gpusort && orders_groups(root) &&
		root->parse->limitCount != NULL && IsA(root->parse->limitCount, Const);
}

/* see custom_scan_path.h */
void
gdb_try_gpuagg_ordered(PlannerInfo *root, RelOptInfo *input_rel,
					   RelOptInfo *output_rel)
{
	ListCell   *lc;

	/* the input must be the grouped relation itself (no DISTINCT, windows) */
	if (!orders_groups(root) || input_rel != fetch_upper_rel(root, UPPERREL_GROUP_AGG, NULL))
		return;
	foreach(lc, input_rel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);

		if ((gpudb_enable_gpuagg && gdb_path_is_kind(p, GDB_NODE_AGG)) ||
			(gpudb_enable_gpujoin && gdb_path_is_kind(p, GDB_NODE_JOIN)))
		{
			add_ordered_path(root, (CustomPath *) p, output_rel);
			return;
		}
	}
}

/* see custom_scan_path.h */
void
gdb_try_gpujoin_ordered(PlannerInfo *root, CustomPath *join)
{
	if (!gdb_ordered_limit_possible(root))
		return;
	add_ordered_path(root, join, fetch_upper_rel(root, UPPERREL_ORDERED, NULL));
}
