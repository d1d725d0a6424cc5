/*-------------------------------------------------------------------------
 *
 * custom_scan_join.c
 *	  The planner side of GpuJoin: at UPPERREL_GROUP_AGG over a join
 *	  relation, offer one node that runs the join tree PostgreSQL's planner
 *	  chose together with the GROUP BY and aggregates above it, as a hash
 *	  join probe step of the one device request (gpudb_device.h).
 *
 * The join tree is read off one of the join relation's paths (gdb does
 * not reorder joins): a chain of hash, merge or nested-loop joins whose
 * inner sides are base relations, and whose outermost leaf -- the probe
 * side -- is a base relation too.  Each inner relation becomes a build
 * side: its rows after its own quals, hashed on the join keys, with the
 * columns the query needs above the join as payload.  What is accepted:
 *	 - inner, left (a right join is a left join with the sides swapped),
 *	   semi (EXISTS, IN; also an inner join against a unique-ified inner
 *	   relation) and anti (NOT EXISTS) joins; an inner join's sides
 *	   commute, so its probe side is the one holding the chain of earlier
 *	   joins, or the larger relation;
 *	 - join quals that are equalities of two columns, one of the inner
 *	   relation and one of the relations joined before it (the probe
 *	   relation or an earlier inner or left join's build side, whose
 *	   column then travels as payload), of one integer family (smallint,
 *	   integer, bigint), date, timestamp, timestamp with time zone,
 *	   boolean, numeric(p,s) of the same scale on both sides, or text and
 *	   varchar (char(n) of the same n) under a deterministic collation,
 *	   compared as codes of the probe query's one dictionary; an INNER
 *	   join's other quals (any expression the device computes, over the
 *	   relations joined so far) are evaluated after the probes, over the
 *	   probe row and its one match (the build side being unique);
 *	 - the aggregate as GpuAgg takes it (count/sum/avg/min/max and the
 *	   variance family of columns or expressions, group keys that are
 *	   columns or expressions), over columns of every relation that is
 *	   visible above the joins; text columns of a build side as payload;
 *	   columns that the planner left out of the GROUP BY because they
 *	   depend on a grouped primary key (TPC-H Q10's customer columns) are
 *	   group keys again (they split no group);
 *	 - every relation's quals on the device.
 * Anything else keeps PostgreSQL's plan (gpudb.debug_unsupported says
 * why): other join types, a qual other than such an equality in an
 * outer, semi or anti join, a
 * bushy tree (a join on the inner side of a join), parameterised or
 * LATERAL paths, count(DISTINCT) and the ordered-set
 * aggregates, more than GDB_MAX_JOINS joins.
 *
 * An INNER or LEFT join needs a build side unique on its keys: the node
 * always carries PostgreSQL's own plan for the query behind it
 * (custom_scan_fallback.c), and the executor answers with it when a
 * build side turns out to have duplicate keys (join_build.c).
 *
 * custom_private's node list for GpuJoin: keys (all GDB_ATTNUM_EXPR),
 * aggs ((GdbAggFunc, GDB_ATTNUM_EXPR or 0) pairs), key expressions,
 * Aggrefs, HAVING, then the join tree:
 *	 (Integer probe relid, IntList every relid, the INNER joins' other
 *	  quals as one Expr or NULL, step...)
 * with one step per join, in probe order:
 *	 (Integer GdbJoinType, Integer build relid, List build quals (Vars of
 *	  varno 1, in the executor's order), IntList (probe varno, probe
 *	  attnum, build attnum) per key, IntList payload attnums, List key
 *	  clauses and other quals (for EXPLAIN))
 * Range table indexes are the planner's; the executor adds the offset by
 * which set_plan_references moved the scan relation.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

#include "custom_scan.h"
#include "custom_scan_path.h"
#include "expr_compile.h"

/* One join of the tree, as the walk finds it. */
typedef struct JoinStep
{
	GdbJoinType type;
	Index		relid;			/* the build side */
	List	   *triples;		/* (probe varno, probe attnum, build attnum) */
	List	   *clauses;		/* the key equalities, for EXPLAIN */
	List	   *extra;			/* an INNER join's other quals */
} JoinStep;

/* The join tree: the probe relation and the joins in probe order. */
typedef struct JoinTree
{
	Index		probe;
	Relids		relids;			/* relations joined so far */
	Relids		visible;		/* relations whose columns are seen above */
	List	   *steps;			/* JoinStep */
} JoinTree;

/*
 * path below projections, materialisations, sorts, memoize nodes and
 * gathers: the join tree is the same in PostgreSQL's parallel plan, whose
 * partial paths the node runs in one request
 */
static Path *
strip_path(Path *p)
{
	for (;;)
	{
		if (IsA(p, GatherPath))
			p = ((GatherPath *) p)->subpath;
		else if (IsA(p, GatherMergePath))
			p = ((GatherMergePath *) p)->subpath;
		else if (IsA(p, ProjectionPath))
			p = ((ProjectionPath *) p)->subpath;
		else if (IsA(p, MaterialPath))
			p = ((MaterialPath *) p)->subpath;
		else if (IsA(p, SortPath) || IsA(p, IncrementalSortPath))
			p = ((SortPath *) p)->subpath;
		else if (IsA(p, MemoizePath))
			p = ((MemoizePath *) p)->subpath;
		else
			return p;
	}
}

static bool
is_join_path(Path *p)
{
	return IsA(p, NestPath) || IsA(p, MergePath) || IsA(p, HashPath);
}

/* a scan of one base relation (not a join, not unique-ified) */
static bool
is_leaf(Path *p)
{
	return !is_join_path(p) && !IsA(p, UniquePath) && p->parent != NULL &&
		p->parent->reloptkind == RELOPT_BASEREL;
}

/*
 * Can a join key of type typid (typmod) on one side meet one of ltype on
 * the other as int64 values: the integers among themselves, or the same
 * type (numeric(p,s): the same scale)?
 */
static bool
key_types_ok(Var *a, Var *b, Oid collid, const char **why)
{
	Oid			ta = a->vartype;
	Oid			tb = b->vartype;
	int			sa,
				sb;

	if (!gdb_type_supported(ta, a->vartypmod) || !gdb_type_supported(tb, b->vartypmod))
	{
		*why = "a join key's type is not carried by the device";
		return false;
	}
	if ((ta == INT2OID || ta == INT4OID || ta == INT8OID) &&
		(tb == INT2OID || tb == INT4OID || tb == INT8OID))
		return true;

	/*
	 * text and varchar keys meet as codes of the probe query's dictionary
	 * (join_build.c re-encodes the build side's): equal bytes, which is
	 * equality under a deterministic collation; char(n) only against the
	 * same n (its values are stored blank-padded to n)
	 */
	if ((ta == TEXTOID || ta == VARCHAROID) && (tb == TEXTOID || tb == VARCHAROID))
	{
		if (!OidIsValid(collid) || !get_collation_isdeterministic(collid))
		{
			*why = "a text join key compares under a nondeterministic collation";
			return false;
		}
		return true;
	}
	if (ta == BPCHAROID && tb == BPCHAROID)
	{
		if (a->vartypmod != b->vartypmod || a->vartypmod < 0 ||
			!OidIsValid(collid) || !get_collation_isdeterministic(collid))
		{
			*why = "a char(n) join key against another length, or under a nondeterministic collation";
			return false;
		}
		return true;
	}
	if (ta != tb)
	{
		*why = "a join compares keys of different types";
		return false;
	}
	switch (ta)
	{
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case BOOLOID:
			return true;
		case NUMERICOID:
			if (gdb_numeric_typmod_scale(a->vartypmod, &sa) &&
				gdb_numeric_typmod_scale(b->vartypmod, &sb) && sa == sb)
				return true;
			*why = "a numeric join key of different scales on its two sides";
			return false;
		default:
			*why = psprintf("a join key of type %s (integers, dates, timestamps, booleans and numeric(p,s) join on the device)",
							format_type_be(ta));
			return false;
	}
}

/*
 * The join's quals as key triples: each an equality of a Var of the build
 * relation relid and a Var of a relation in tree->visible.
 */
static bool
step_keys(JoinTree *tree, JoinStep *step, List *rinfos, bool outer_join,
		  const char **why)
{
	ListCell   *lc;

	foreach(lc, rinfos)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		OpExpr	   *op = (OpExpr *) ri->clause;
		Node	   *l,
				   *r;
		Var		   *pv,
				   *bv;

		if (ri->pseudoconstant || (outer_join && ri->is_pushed_down))
		{
			*why = "a qual is evaluated above an outer join";
			return false;
		}
		l = r = NULL;
		if (is_opclause(op) && list_length(op->args) == 2 &&
			op_mergejoinable(op->opno, exprType(linitial(op->args))) &&
			op_hashjoinable(op->opno, exprType(linitial(op->args))))
		{
			l = fc_strip_relabel((Node *) linitial(op->args));
			r = fc_strip_relabel((Node *) lsecond(op->args));
		}
		if (l == NULL || !IsA(l, Var) || !IsA(r, Var) ||
			((Var *) l)->varlevelsup != 0 || ((Var *) r)->varlevelsup != 0 ||
			((Var *) l)->varattno <= 0 || ((Var *) r)->varattno <= 0 ||
			(((Var *) l)->varno == step->relid) == (((Var *) r)->varno == step->relid))
		{
			/*
			 * an INNER join's other quals: evaluated over the probe row and
			 * its one match (join_filter), over the relations seen so far
			 */
			if (step->type != GDB_JOIN_INNER)
			{
				*why = "an outer, semi or anti join has a qual other than an equality of two columns";
				return false;
			}
			step->extra = lappend(step->extra, ri->clause);
			continue;
		}
		if (((Var *) l)->varno == step->relid)
		{
			bv = (Var *) l;
			pv = (Var *) r;
		}
		else
		{
			bv = (Var *) r;
			pv = (Var *) l;
		}
		if (!bms_is_member(pv->varno, tree->visible))
		{
			*why = "a join qual does not compare the inner relation with one joined before it";
			return false;
		}
		if (!key_types_ok(pv, bv, op->inputcollid, why))
		{
			/* other key types: as a qual of an INNER join */
			if (step->type != GDB_JOIN_INNER)
				return false;
			step->extra = lappend(step->extra, ri->clause);
			continue;
		}
		step->triples = lappend_int(step->triples, pv->varno);
		step->triples = lappend_int(step->triples, pv->varattno);
		step->triples = lappend_int(step->triples, bv->varattno);
		step->clauses = lappend(step->clauses, copyObject(op));
	}
	if (step->triples == NIL)
	{
		*why = "a join without an equality of columns (a cross join)";
		return false;
	}
	if (list_length(step->triples) / 3 > GDB_MAX_JOIN_KEYS)
	{
		*why = "a join on too many keys";
		return false;
	}
	return true;
}

/*
 * Read the join tree off path (see the file header) into tree; false with
 * *why when it is not one GpuJoin runs.
 */
static bool
walk_join(PlannerInfo *root, Path *path, JoinTree *tree, const char **why)
{
	JoinPath   *jp;
	Path	   *outer;
	Path	   *inner;
	JoinType	jt;
	JoinStep   *step;
	List	   *rinfos;

	path = strip_path(path);
	if (path->param_info != NULL)
	{
		*why = "a parameterised path (LATERAL or a nested loop's inner index scan under a join)";
		return false;
	}
	if (!is_join_path(path))
	{
		if (!is_leaf(path))
		{
			*why = "the join tree's outermost relation is not a table scan";
			return false;
		}
		tree->probe = path->parent->relid;
		tree->relids = bms_make_singleton(tree->probe);
		tree->visible = bms_copy(tree->relids);
		return true;
	}
	jp = (JoinPath *) path;
	outer = strip_path(jp->outerjoinpath);
	inner = strip_path(jp->innerjoinpath);
	jt = jp->jointype;
	if (jt == JOIN_RIGHT)
	{
		Path	   *t = outer;

		outer = inner;
		inner = t;
		jt = JOIN_LEFT;
	}
	if (jt == JOIN_INNER)
	{
		/* an inner join's sides commute: the chain, or the larger, probes */
		bool		swap = false;

		if (IsA(outer, UniquePath) && !IsA(inner, UniquePath))
			swap = true;
		else if (is_leaf(outer) && !is_leaf(inner) && !IsA(inner, UniquePath))
			swap = true;
		else if (is_leaf(outer) && is_leaf(inner) &&
				 inner->parent->rows > outer->parent->rows)
			swap = true;
		if (swap)
		{
			Path	   *t = outer;

			outer = inner;
			inner = t;
		}
		if (IsA(inner, UniquePath))
		{
			/* an inner join against distinct inner keys: a semi join */
			inner = strip_path(((UniquePath *) inner)->subpath);
			jt = JOIN_SEMI;
		}
	}
	if (jt != JOIN_INNER && jt != JOIN_LEFT && jt != JOIN_SEMI && jt != JOIN_ANTI)
	{
		*why = "a full or unique-ified outer join";
		return false;
	}
	if (!is_leaf(inner))
	{
		*why = "the inner side of a join is itself a join (a bushy join tree)";
		return false;
	}
	if (!walk_join(root, outer, tree, why))
		return false;
	if (list_length(tree->steps) >= GDB_MAX_JOINS)
	{
		*why = psprintf("more than %d joins", GDB_MAX_JOINS);
		return false;
	}
	step = palloc0(sizeof(JoinStep));
	step->relid = inner->parent->relid;
	step->type = jt == JOIN_INNER ? GDB_JOIN_INNER : jt == JOIN_LEFT ? GDB_JOIN_LEFT :
		jt == JOIN_SEMI ? GDB_JOIN_SEMI : GDB_JOIN_ANTI;
	/* a parameterised inner path enforces its join quals itself */
	rinfos = list_copy(jp->joinrestrictinfo);
	if (inner->param_info)
		rinfos = list_concat(rinfos, inner->param_info->ppi_clauses);
	if (!step_keys(tree, step, rinfos, jt == JOIN_LEFT || jt == JOIN_ANTI, why))
		return false;
	tree->relids = bms_add_member(tree->relids, step->relid);
	if (step->type == GDB_JOIN_INNER || step->type == GDB_JOIN_LEFT)
		tree->visible = bms_add_member(tree->visible, step->relid);
	tree->steps = lappend(tree->steps, step);
	return true;
}

/*
 * A path of joinrel whose tree GpuJoin runs, into tree: the cheapest
 * total path first, then the others (a parameterised or bushy cheapest
 * path may have an acceptable sibling).
 */
static bool
find_join_tree(PlannerInfo *root, RelOptInfo *joinrel, JoinTree *tree,
			   const char **why)
{
	ListCell   *lc;

	memset(tree, 0, sizeof(JoinTree));
	if (joinrel->cheapest_total_path &&
		walk_join(root, joinrel->cheapest_total_path, tree, why))
		return true;
	foreach(lc, joinrel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (p == joinrel->cheapest_total_path)
			continue;
		memset(tree, 0, sizeof(JoinTree));
		if (walk_join(root, p, tree, why) && bms_equal(tree->relids, joinrel->relids))
			return true;
	}
	return false;
}

/* Is every Var of node a user column of a relation in visible? */
static bool
vars_visible(Node *node, Relids visible, const char **why)
{
	List	   *vars = pull_var_clause(node, PVC_INCLUDE_PLACEHOLDERS |
									   PVC_RECURSE_AGGREGATES |
									   PVC_INCLUDE_WINDOWFUNCS);
	ListCell   *lc;

	foreach(lc, vars)
	{
		Var		   *v = (Var *) lfirst(lc);

		if (!IsA(v, Var))
		{
			*why = "the query reads a placeholder (an outer join's expression) or a window function";
			return false;
		}
		if (v->varlevelsup != 0 || v->varattno <= 0 || !bms_is_member(v->varno, visible))
		{
			*why = "the query reads a system column, a whole row or an outer query's column";
			return false;
		}
		if (!gdb_type_supported(v->vartype, v->vartypmod))
		{
			*why = psprintf("a column of type %s is needed",
							format_type_with_typemod(v->vartype, v->vartypmod));
			return false;
		}
	}
	return true;
}

/* Add each Var of node of relation relid to the IntList *attnums once. */
static void
collect_attnums(Node *node, Index relid, List **attnums)
{
	List	   *vars = pull_var_clause(node, PVC_RECURSE_AGGREGATES |
									   PVC_RECURSE_PLACEHOLDERS |
									   PVC_RECURSE_WINDOWFUNCS);
	ListCell   *lc;

	foreach(lc, vars)
	{
		Var		   *v = (Var *) lfirst(lc);

		if (v->varno == relid)
			*attnums = list_append_unique_int(*attnums, v->varattno);
	}
}

/* The Bitmapset of an IntList of attnums. */
static Bitmapset *
attnum_set(List *attnums)
{
	Bitmapset  *out = NULL;
	ListCell   *lc;

	foreach(lc, attnums)
		out = bms_add_member(out, lfirst_int(lc));
	return out;
}

/* see custom_scan_path.h */
void
gdb_try_gpujoin(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
				GroupPathExtraData *extra)
{
	Query	   *parse = root->parse;
	const char *why = NULL;
	JoinTree	tree;
	List	   *having = extra ? (List *) extra->havingQual : NIL;
	List	   *keys = NIL;
	List	   *key_exprs = NIL;
	List	   *aggs = NIL;
	List	   *aggrefs = NIL;
	List	   *items;
	List	   *exprs = NIL;
	List	   *join_quals = NIL;
	List	   *payload[GDB_MAX_JOINS];
	List	   *build_quals[GDB_MAX_JOINS];
	List	   *probe_device = NIL;
	List	   *join;
	List	   *needed;
	Bitmapset  *probe_attnums = NULL;
	GdbColumnSet *tmpl;
	RangeTblEntry *probe_rte;
	RelOptInfo *probe_rel;
	Relation	probe_relation;
	CustomPath *path;
	Cost		startup;
	Cost		disabled;
	double		ngroups;
	double		work;
	QualCost	having_cost;
	int			nstates = 0;
	int			npayload = 0;
	int			j;
	ListCell   *lc;

	if (gpudb_gpu_setup_cost >= gdb_cheapest_existing(output_rel))
		return;
	if (!gdb_offload_possible(&why))
		goto refused;
	if (parse->groupingSets || parse->hasTargetSRFs || extra == NULL ||
		extra->patype != PARTITIONWISE_AGGREGATE_NONE ||
		contain_subplans((Node *) having) || parse->rowMarks != NIL)
	{
		why = "grouping sets, set-returning functions, subqueries in HAVING or FOR UPDATE";
		goto refused;
	}
	if (!find_join_tree(root, input_rel, &tree, &why))
		goto refused;
	if (!bms_equal(tree.relids, input_rel->relids))
	{
		why = "the join tree does not cover the query's relations";
		goto refused;
	}

	/* every relation a table whose quals all run on the device */
	probe_rel = find_base_rel(root, tree.probe);
	if (!gdb_base_rel_ok(root, probe_rel, false, &why))
		goto refused;
	probe_rte = planner_rt_fetch(tree.probe, root);
	if (!gdb_all_quals_on_device(root, probe_rel, probe_rte->relid, &probe_attnums,
								 &probe_device, &why))
		goto refused;
	foreach(lc, tree.steps)
	{
		JoinStep   *step = (JoinStep *) lfirst(lc);
		RelOptInfo *brel = find_base_rel(root, step->relid);
		Bitmapset  *battnums = NULL;

		j = foreach_current_index(lc);
		build_quals[j] = NIL;
		payload[j] = NIL;
		if (!gdb_base_rel_ok(root, brel, false, &why) ||
			!gdb_all_quals_on_device(root, brel, planner_rt_fetch(step->relid, root)->relid,
									 &battnums, &build_quals[j], &why))
			goto refused;
	}

	/*
	 * the INNER joins' other quals, one boolean computed column evaluated
	 * after the probes (join_filter): over the relations seen by then
	 */
	foreach(lc, tree.steps)
	{
		JoinStep   *step = (JoinStep *) lfirst(lc);

		if (step->extra == NIL)
			continue;
		if (contain_volatile_functions((Node *) step->extra) ||
			contain_subplans((Node *) step->extra) ||
			!vars_visible((Node *) step->extra, tree.visible, &why))
			goto refused;
		join_quals = list_concat(join_quals, list_copy(step->extra));
	}
	if (join_quals != NIL)
		exprs = lappend(exprs, make_ands_explicit(join_quals));

	/* group keys and aggregates, over the relations visible above */
	if (list_length(parse->groupClause) > GDB_MAX_GROUP_KEYS)
	{
		why = "too many group keys";
		goto refused;
	}
	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Node	   *e = get_sortgroupclause_expr(sgc, root->processed_tlist);
		TypeCacheEntry *tc = lookup_type_cache(exprType(e), TYPECACHE_EQ_OPR);

		if (sgc->eqop != tc->eq_opr)
		{
			why = "a group key uses a non-default equality operator";
			goto refused;
		}
		if (gdb_type_class(exprType(e)) == GDB_TYPE_TEXT &&
			(!OidIsValid(exprCollation(e)) ||
			 !get_collation_isdeterministic(exprCollation(e))))
		{
			why = "a text group key has a nondeterministic collation";
			goto refused;
		}
		if (contain_volatile_functions(e) || !vars_visible(e, tree.visible, &why))
			goto refused;
		key_exprs = lappend(key_exprs, e);
		keys = lappend_int(keys, GDB_ATTNUM_EXPR);
		if (!IsA(e, Var))
			exprs = lappend(exprs, e);
	}
	items = pull_var_clause((Node *) list_concat(list_copy(output_rel->reltarget->exprs),
												 having),
							PVC_INCLUDE_AGGREGATES | PVC_INCLUDE_WINDOWFUNCS |
							PVC_INCLUDE_PLACEHOLDERS);
	foreach(lc, items)
	{
		Node	   *n = (Node *) lfirst(lc);
		Aggref	   *ag;
		int			fn;
		uint32		kind;
		Oid			rtype;
		Node	   *arg = NULL;

		if (!IsA(n, Aggref))
		{
			Var		   *v = (Var *) n;

			/* a Var outside the aggregates must be (in) a group key */
			if (!IsA(n, Var))
			{
				why = "the target list reads a placeholder or window function";
				goto refused;
			}
			if (list_member(pull_var_clause((Node *) key_exprs, 0), n))
				continue;

			/*
			 * else it depends on a group key (the parser checked that: a
			 * primary key of its relation is grouped, and the planner left
			 * the dependent columns out of the GROUP BY); as one more group
			 * key it splits no group
			 */
			if (list_length(keys) >= GDB_MAX_GROUP_KEYS)
			{
				why = "the target list reads too many columns that depend on the group keys";
				goto refused;
			}
			if (!vars_visible(n, tree.visible, &why))
				goto refused;
			if (gdb_type_class(v->vartype) == GDB_TYPE_TEXT &&
				(!OidIsValid(v->varcollid) ||
				 !get_collation_isdeterministic(v->varcollid)))
			{
				why = "a text group key has a nondeterministic collation";
				goto refused;
			}
			key_exprs = lappend(key_exprs, n);
			keys = lappend_int(keys, GDB_ATTNUM_EXPR);
			continue;
		}
		ag = (Aggref *) n;
		if (list_member(aggrefs, ag))
			continue;
		fn = gdb_aggref_function(ag);
		if (fn < 0 || GDB_FN_IS_ORDERED_SET(fn))
		{
			why = "an aggregate other than count, sum, avg, min, max and the variance family over a join";
			goto refused;
		}
		if (ag->aggdistinct || ag->aggorder || ag->aggfilter ||
			ag->aggkind != AGGKIND_NORMAL || ag->aggvariadic ||
			ag->agglevelsup != 0 || ag->aggsplit != AGGSPLIT_SIMPLE)
		{
			why = "an aggregate has ORDER BY, FILTER or an unusual form";
			goto refused;
		}
		if (fn != GDB_FN_COUNT_STAR)
		{
			if (list_length(ag->args) != 1)
			{
				why = "an aggregate has several arguments";
				goto refused;
			}
			arg = (Node *) linitial_node(TargetEntry, ag->args)->expr;
			if (contain_volatile_functions(arg) || contain_subplans(arg) ||
				!vars_visible(arg, tree.visible, &why))
				goto refused;
			if (!IsA(fc_strip_relabel(arg), Var))
				exprs = lappend(exprs, arg);
		}
		if (!gdb_aggregate_kind((GdbAggFunc) fn, arg ? exprType(arg) : InvalidOid,
								&kind, &rtype) || rtype != ag->aggtype)
		{
			why = psprintf("%s over this type does not run on the device",
						   format_procedure(ag->aggfnoid));
			goto refused;
		}
		nstates += gdb_aggregate_states((GdbAggFunc) fn, arg ? exprType(arg) : InvalidOid,
										kind);
		aggs = lappend_int(aggs, fn);
		aggs = lappend_int(aggs, arg ? GDB_ATTNUM_EXPR : 0);
		aggrefs = lappend(aggrefs, ag);
	}
	if (nstates > GDB_MAX_AGGREGATES)
	{
		why = "too many aggregates";
		goto refused;
	}

	/*
	 * payload: each build side's columns that the keys, the aggregates or a
	 * later join read
	 */
	needed = list_concat(list_concat(list_copy(key_exprs), aggrefs), join_quals);
	foreach(lc, tree.steps)
	{
		JoinStep   *step = (JoinStep *) lfirst(lc);

		j = foreach_current_index(lc);
		if (step->type == GDB_JOIN_INNER || step->type == GDB_JOIN_LEFT)
		{
			ListCell   *lc2;

			collect_attnums((Node *) needed, step->relid, &payload[j]);
			for_each_cell(lc2, tree.steps, lnext(tree.steps, lc))
			{
				JoinStep   *later = (JoinStep *) lfirst(lc2);
				int			t;

				for (t = 0; t + 2 < list_length(later->triples); t += 3)
					if (list_nth_int(later->triples, t) == (int) step->relid)
						payload[j] = list_append_unique_int(payload[j],
															list_nth_int(later->triples, t + 1));
			}
		}
		npayload += list_length(payload[j]);
	}
	if (npayload > GDB_MAX_JOIN_COLS)
	{
		why = "too many columns of the joined relations";
		goto refused;
	}

	/* the computed columns together, payload columns registered */
	tmpl = palloc0(sizeof(GdbColumnSet));
	tmpl->probe_varno = tree.probe;
	foreach(lc, tree.steps)
	{
		JoinStep   *step = (JoinStep *) lfirst(lc);
		Relation	brel;
		ListCell   *lc2;

		j = foreach_current_index(lc);
		brel = table_open(planner_rt_fetch(step->relid, root)->relid, NoLock);
		foreach(lc2, payload[j])
			(void) gdb_columnset_add_join_col(tmpl, brel, step->relid,
											  (AttrNumber) lfirst_int(lc2));
		table_close(brel, NoLock);
	}
	probe_relation = table_open(probe_rte->relid, NoLock);
	{
		char	   *reason = NULL;
		bool		ok;

		ok = gdb_exprs_supported_in(exprs, probe_relation, tmpl, &reason);
		table_close(probe_relation, NoLock);
		if (!ok)
		{
			why = psprintf("an expression cannot be computed on the device: %s", reason);
			goto refused;
		}
	}
	if (gdb_text_operations((Node *) key_exprs) + gdb_text_operations((Node *) aggrefs) +
		gdb_text_operations((Node *) probe_device) > GDB_MAX_CODE_TABLES)
	{
		why = psprintf("more than %d text operations in one request", GDB_MAX_CODE_TABLES);
		goto refused;
	}

	/* the cost: the probe side's pass, plus each build side read whole */
	{
		List	   *pa = NIL;

		collect_attnums((Node *) needed, tree.probe, &pa);
		foreach(lc, tree.steps)
		{
			JoinStep   *step = (JoinStep *) lfirst(lc);
			int			t;

			for (t = 0; t + 2 < list_length(step->triples); t += 3)
				if (list_nth_int(step->triples, t) == (int) tree.probe)
					pa = list_append_unique_int(pa, list_nth_int(step->triples, t + 1));
		}
		probe_attnums = bms_union(probe_attnums, attnum_set(pa));
	}
	work = 1.0 + list_length(aggrefs) / 4.0 + list_length(keys) + list_length(tree.steps);
	disabled = gdb_disabled_cost(false, keys != NIL);
	startup = gdb_device_cost(probe_rel, probe_rte->relid, bms_num_members(probe_attnums),
							  false, work) + disabled;
	foreach(lc, tree.steps)
	{
		JoinStep   *step = (JoinStep *) lfirst(lc);
		RelOptInfo *brel = find_base_rel(root, step->relid);

		j = foreach_current_index(lc);
		startup += gdb_device_cost(brel, planner_rt_fetch(step->relid, root)->relid,
								   list_length(step->triples) / 3 + list_length(payload[j]),
								   false, 1.0);
	}
	if (startup >= gdb_cheapest_existing(output_rel))
		return;
	ngroups = keys == NIL ? 1.0 :
		estimate_num_groups(root, key_exprs, input_rel->rows, NULL, NULL);
	cost_qual_eval(&having_cost, having, root);
	startup += having_cost.startup;

	/* the join tree for the plan (see the file header) */
	join = list_make3(makeInteger(tree.probe), NIL,
					  join_quals ? make_ands_explicit(join_quals) : NULL);
	{
		List	   *relids = NIL;
		int			x = -1;

		while ((x = bms_next_member(tree.relids, x)) >= 0)
			relids = lappend_int(relids, x);
		lsecond(join) = relids;
	}
	foreach(lc, tree.steps)
	{
		JoinStep   *step = (JoinStep *) lfirst(lc);
		List	   *st;

		j = foreach_current_index(lc);
		st = list_make5(makeInteger(step->type), makeInteger(step->relid),
						build_quals[j], step->triples, payload[j]);
		st = lappend(st, list_concat(list_copy(step->clauses), step->extra));
		join = lappend(join, st);
	}
	path = gdb_make_path(GDB_NODE_JOIN, output_rel, output_rel->reltarget,
						 ngroups, startup,
						 startup + ngroups * (cpu_tuple_cost + having_cost.per_tuple),
						 NIL, tree.probe, probe_device, NIL,
						 lappend(list_make5(keys, aggs, key_exprs, aggrefs, having),
								 join));
	/* PostgreSQL's plan behind it: a build side may have duplicate keys */
	if (!gdb_set_fallback(path, gdb_agg_fallback_path(root, input_rel, output_rel, extra,
													  aggrefs, ngroups), &why))
		goto refused;
	add_path(output_rel, &path->path);
	return;

refused:
	gdb_not_offered(GDB_NODE_JOIN, why);
}
