/*-------------------------------------------------------------------------
 *
 * custom_scan_join.c
 *	  The planner side of GpudbJoin: at UPPERREL_GROUP_AGG over a join
 *	  relation, offer one node that runs the join tree PostgreSQL's planner
 *	  chose together with the GROUP BY and aggregates above it, as a hash
 *	  join probe step of the one device request (gpudb_device.h).
 *
 * The join tree is read off one of the join relation's paths (gpudb does
 * not reorder joins): a chain of hash, merge or nested-loop joins whose
 * outermost leaf -- the probe side -- is a base relation.  Each inner
 * side becomes a build side, hashed on the join keys, with the columns
 * the query needs above the join as payload: a base relation's rows after
 * its own quals, or, where the inner side is itself a join (a bushy
 * tree, as PostgreSQL plans TPC-H Q3: lineitem probing the hash of orders
 * joined to customer), that join's result, computed first by a request
 * of its own over the same kind of tree; or, where the inner side is a
 * derived table (a subquery in FROM, or the relation of an IN subquery
 * PostgreSQL could not pull up: TPC-H Q18's grouped lineitem), that
 * table's rows: its plan, as PostgreSQL made it (a GpudbAgg, say), is one
 * more of the node's custom plans, run once before the request (it is
 * never the probe side, and is not offered with a parameter: LATERAL, or
 * an outer query's column).  What is accepted:
 *	 - inner, left (a right join is a left join with the sides swapped),
 *	   semi (EXISTS, IN; also an inner join against a unique-ified inner
 *	   relation) and anti (NOT EXISTS) joins; an inner join's sides
 *	   commute: of two tables, the one the planner proves unique on the
 *	   keys (innerrel_is_unique) is the build side, else the smaller one,
 *	   and a table not known unique above a join of others probes that
 *	   join's result;
 *	 - join quals that are equalities of two columns, one of the inner
 *	   relation and one of the relations joined before it (the probe
 *	   relation or an earlier inner or left join's build side, whose
 *	   column then travels as payload), of one integer family (smallint,
 *	   integer, bigint), date, timestamp, timestamp with time zone,
 *	   boolean, numeric(p,s) (of any scales: the build side's keys are
 *	   rescaled to the probe's, join_build.c), or text and
 *	   varchar (char(n) of the same n) under a deterministic collation,
 *	   compared as codes of the probe query's one dictionary; a join's
 *	   other quals (any expression the device computes, over the
 *	   relations joined so far and the build side): an INNER join's are
 *	   evaluated after the probes, over the probe row and its one match
 *	   (the build side being unique), a left, semi or anti join's during
 *	   its probe, over each build row with the probe row's keys;
 *	 - the aggregate as GpudbAgg takes it (count/sum/avg/min/max and the
 *	   variance family of columns or expressions, count(DISTINCT), the
 *	   percentiles and mode, group keys that are columns or expressions),
 *	   over columns of every relation visible above the joins; text
 *	   columns of a build side as payload;
 *	   columns that the planner left out of the GROUP BY because they
 *	   depend on a grouped primary key (TPC-H Q10's customer columns) are
 *	   group keys again (they split no group);
 *	 - every relation's quals on the device.
 * Anything else keeps PostgreSQL's plan (gpudb.debug_unsupported says
 * why): full joins, a join without one equality of two columns (keys of
 * other types, or expressions, only as other quals), parameterised or
 * LATERAL paths, a derived table as the probe side, a unique-ified join,
 * more than
 * GDB_MAX_JOINS joins on one level of the tree.
 *
 * An INNER or LEFT join needs a build side unique on its keys: a table
 * whose keys the planner estimates far from unique is not offered
 * (GDB_JOIN_UNIQUE_FRACTION), and the node always carries PostgreSQL's
 * own plan for the query behind it (custom_scan_fallback.c), with which
 * the executor answers when a build side turns out to have duplicate keys
 * (join_build.c).
 *
 * custom_private's node list for GpudbJoin: keys (all GDB_ATTNUM_EXPR),
 * aggs ((GdbAggFunc, GDB_ATTNUM_EXPR or 0 for count(*)) pairs), key
 * expressions, Aggrefs, HAVING, then the join tree:
 *	 (Integer probe relid, IntList every relid, the INNER joins' other
 *	  quals as one Expr or NULL, step...)
 * with one step per join, in probe order:
 *	 (Integer GdbJoinType, Integer build relid (a nested tree's probe
 *	  relation), List its quals (Vars of varno 1, in the executor's
 *	  order), IntList (probe varno, probe attnum, build varno, build
 *	  attnum) per key, IntList (varno, attnum) per payload column, List key
 *	  clauses and other quals (for EXPLAIN), List nested tree (NIL, or the
 *	  inner join's tree in this same form), Expr the other quals of a join
 *	  that is not INNER (its GdbJoinSpec.qual) or NULL, IntList a derived
 *	  table's (its custom plan index, then (position in that plan's output,
 *	  type, typmod, collation) of each key and payload column) or NIL, IntList (type, typmod,
 *	  collation) per payload column)
 * Range table indexes are the planner's; the executor adds the offset by
 * which set_plan_references moved the scan relation.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/table.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
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
#include "join_tree.h"
#include "gpudb_defaults.h"

/*
 * An inner or left join's build side whose keys the planner estimates
 * fewer than this fraction of its rows distinct is not offered (it would
 * have duplicates: the executor would answer with PostgreSQL's plan after
 * reading it).
 */
#define GDB_JOIN_UNIQUE_FRACTION 0.9

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

/* a scan of one table (not a join, not unique-ified, not a subquery) */
static bool
is_leaf(Path *p)
{
	return !is_join_path(p) && !IsA(p, UniquePath) && p->parent != NULL &&
		p->parent->reloptkind == RELOPT_BASEREL &&
		p->parent->rtekind == RTE_RELATION;
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
			/* of different scales: join_build.c rescales the build side's */
			if (gdb_numeric_typmod_scale(a->vartypmod, &sa) &&
				gdb_numeric_typmod_scale(b->vartypmod, &sb))
				return true;
			*why = "a numeric join key without a precision of at most 18 digits";
			return false;
		default:
			*why = psprintf("a join key of type %s (integers, dates, timestamps, booleans and numeric(p,s) join on the device)",
							format_type_be(ta));
			return false;
	}
}

/*
 * The join's quals as key quads: each an equality of a Var of the build
 * side (step->inner) and a Var of a relation in tree->visible; an INNER
 * join's other quals go to step->extra.
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
			bms_is_member(((Var *) l)->varno, step->inner) ==
			bms_is_member(((Var *) r)->varno, step->inner))
		{
			/*
			 * the join's other quals: an INNER join's evaluated over the
			 * probe row and its one match (join_filter), another join's
			 * over each build row with the probe row's keys (its qual)
			 */
			step->extra = lappend(step->extra, ri->clause);
			continue;
		}
		if (bms_is_member(((Var *) l)->varno, step->inner))
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
			/* other key types: as one of the join's other quals */
			step->extra = lappend(step->extra, ri->clause);
			continue;
		}
		step->quads = lappend_int(step->quads, pv->varno);
		step->quads = lappend_int(step->quads, pv->varattno);
		step->quads = lappend_int(step->quads, bv->varno);
		step->quads = lappend_int(step->quads, bv->varattno);
		step->clauses = lappend(step->clauses, copyObject(op));
	}
	if (step->quads == NIL)
	{
		*why = "a join without an equality of two columns, one of each side (expression keys, or a cross join)";
		return false;
	}
	if (list_length(step->quads) / 4 > GDB_MAX_JOIN_KEYS)
	{
		*why = "a join on too many keys";
		return false;
	}
	return true;
}

/*
 * Read the join tree off path (see the file header) into tree; false with
 * *why when it is not one GpudbJoin runs.
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

	/*
	 * a parameterised scan of one relation (a nested loop's inner index
	 * scan) enforces join quals, which the join it is under takes over;
	 * a parameterised join (LATERAL, or params from further up) is not run
	 */
	if (path->param_info != NULL && !is_leaf(path))
	{
		*why = "a parameterised join path (LATERAL or a nested loop's inner index scan under a join)";
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
	/* the join's quals, those a parameterised inner scan enforces too */
	rinfos = list_copy(jp->joinrestrictinfo);
	if (inner->param_info)
		rinfos = list_concat(rinfos, inner->param_info->ppi_clauses);
	if (gdb_join_type_swapped(jt) != jt)
	{
		/* a right join: the left one with the sides swapped */
		Path	   *t = outer;

		outer = inner;
		inner = t;
		jt = gdb_join_type_swapped(jt);
	}
	if (jt == JOIN_INNER)
	{
		/*
		 * an inner join's sides commute: a unique-ified side is the build
		 * side (a semi join), and so is the one of two tables that is
		 * unique on the keys, or else the smaller one
		 */
		bool		swap = false;

		if (IsA(outer, UniquePath) && !IsA(inner, UniquePath))
			swap = true;
		/* a derived table is read whole: it is the build side */
		else if (gdb_join_is_derived(outer) && !gdb_join_is_derived(inner) && !IsA(inner, UniquePath) &&
				 inner->param_info == NULL)
			swap = true;
		else if (is_leaf(outer) && is_leaf(inner) && outer->param_info == NULL)
		{
			/*
			 * two relations: the one unique on the join's keys is the build
			 * side (innerrel_is_unique, as the planner proves it for the
			 * inner side), else the smaller one
			 */
			bool		outer_unique = !jp->inner_unique &&
				innerrel_is_unique(root, path->parent->relids, inner->parent->relids,
								   outer->parent, JOIN_INNER, rinfos, false);

			if (outer_unique ||
				(jp->inner_unique == outer_unique &&
				 inner->parent->rows > outer->parent->rows))
				swap = true;
		}

		/*
		 * a table not known unique on the keys (jp->inner_unique), hashed
		 * above a join of others (a fact table over its dimensions' join):
		 * it probes the hash of that join's result instead, whose rows are
		 * unique on the keys when each of its own build sides is
		 */
		else if (!jp->inner_unique && is_leaf(inner) && is_join_path(outer) &&
				 outer->param_info == NULL)
			swap = true;

		/*
		 * a table unique on the keys that probes the hash of a join of
		 * others whose rows are not (TPC-H Q9's orders over lineitem's join
		 * to its dimensions, Q10's customer over lineitem's to orders): it
		 * is hashed instead, and that join's tree probes it, one more step
		 * keyed by that join's columns
		 */
		else if (!jp->inner_unique && is_leaf(outer) && is_join_path(inner) &&
				 outer->param_info == NULL && inner->param_info == NULL &&
				 innerrel_is_unique(root, path->parent->relids, inner->parent->relids,
									outer->parent, JOIN_INNER, rinfos, false))
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
			if (!is_leaf(inner) && !gdb_join_is_derived(inner))
			{
				*why = "a unique-ified join";
				return false;
			}
		}
	}
	if (jt != JOIN_INNER && jt != JOIN_LEFT && jt != JOIN_SEMI && jt != JOIN_ANTI)
	{
		*why = "a full or unique-ified outer join";
		return false;
	}
	step = palloc0(sizeof(JoinStep));
	if (is_join_path(inner))
	{
		/*
		 * a join on the inner side (a bushy tree): its result is the build
		 * side, computed by a request of its own (join_build.c)
		 */
		step->sub = palloc0(sizeof(JoinTree));
		if (!walk_join(root, inner, step->sub, why))
			return false;
		step->relid = step->sub->probe;
		step->inner = bms_copy(step->sub->visible);
	}
	else if (is_leaf(inner) || gdb_join_is_derived(inner))
	{
		step->relid = inner->parent->relid;
		step->inner = bms_make_singleton(step->relid);
		if (gdb_join_is_derived(inner))
			step->derived = inner;
	}
	else
	{
		*why = "the inner side of a join is neither a table scan, a derived table nor a join";
		return false;
	}
	if (!walk_join(root, outer, tree, why))
		return false;
	if (list_length(tree->steps) >= GDB_MAX_JOINS)
	{
		*why = psprintf("more than %d joins", GDB_MAX_JOINS);
		return false;
	}
	step->type = jt == JOIN_INNER ? GDB_JOIN_INNER : jt == JOIN_LEFT ? GDB_JOIN_LEFT :
		jt == JOIN_SEMI ? GDB_JOIN_SEMI : GDB_JOIN_ANTI;
	if (!step_keys(tree, step, rinfos, jt == JOIN_LEFT || jt == JOIN_ANTI, why))
		return false;
	tree->relids = bms_union(tree->relids,
							 step->sub ? step->sub->relids : step->inner);
	if (step->type == GDB_JOIN_INNER || step->type == GDB_JOIN_LEFT)
		tree->visible = bms_union(tree->visible, step->inner);
	tree->steps = lappend(tree->steps, step);
	return true;
}

/*
 * A path of joinrel whose tree GpudbJoin runs, into tree: the cheapest
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
		if (walk_join(root, p, tree, why) &&
			bms_equal(tree->relids, gdb_join_base_relids(root, joinrel->relids)))
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

/*
 * Add each Var of node of a relation in rels to *pairs, an IntList of
 * (varno, attnum) pairs, once.
 */
static void
collect_pairs(Node *node, Relids rels, List **pairs)
{
	List	   *vars = pull_var_clause(node, PVC_RECURSE_AGGREGATES |
									   PVC_RECURSE_PLACEHOLDERS |
									   PVC_RECURSE_WINDOWFUNCS);
	ListCell   *lc;

	foreach(lc, vars)
	{
		Var		   *v = (Var *) lfirst(lc);
		int			i;
		bool		seen = false;

		if (!bms_is_member(v->varno, rels))
			continue;
		for (i = 0; i + 1 < list_length(*pairs); i += 2)
			if (list_nth_int(*pairs, i) == (int) v->varno &&
				list_nth_int(*pairs, i + 1) == v->varattno)
				seen = true;
		if (!seen)
		{
			*pairs = lappend_int(*pairs, v->varno);
			*pairs = lappend_int(*pairs, v->varattno);
		}
	}
}

/* A Var for (varno, attnum), only to be collected again (collect_pairs). */
static Var *
pair_var(int varno, int attnum)
{
	return makeVar(varno, attnum, INT4OID, -1, InvalidOid, 0);
}

/*
 * Prepare one level of the join tree for the plan (the node list of the
 * file header, into *join): each build side's relation a table whose
 * quals all run on the device, the INNER joins' other quals (seen by then,
 * volatile-free, one computed column), each build side's payload: the
 * columns of its visible relations that needed (expressions the level
 * must output), the other quals or a later join's keys read; a nested
 * tree's own level, recursively, with its keys and payload as what it
 * must output.  *tmpl: a column set with this level's payload registered
 * (for compiling expressions over it; probe relation tree->probe); *jc
 * gets the build sides' cost terms (JoinCost).  False with *why when any
 * of it cannot run.
 */
static bool
prepare_tree(PlannerInfo *root, JoinTree *tree, List *needed, List **join,
			 GdbColumnSet **tmpl, JoinCost *jc, List **derived, const char **why)
{
	List	   *jquals = NIL;
	List	   *squals = NIL;	/* the other joins' quals, for the check */
	Node	   *jf = NULL;
	int			npayload = 0;
	ListCell   *lc;

	/*
	 * the INNER joins' other quals: one boolean computed column; another
	 * join's: one of its own, over the relations seen by then and its own
	 */
	foreach(lc, tree->steps)
	{
		JoinStep   *step = (JoinStep *) lfirst(lc);

		if (step->extra == NIL)
			continue;
		if (contain_volatile_functions((Node *) step->extra) ||
			contain_subplans((Node *) step->extra))
		{
			*why = "a join qual is volatile or holds a subquery";
			return false;
		}
		if (!vars_visible((Node *) step->extra, bms_union(tree->visible, step->inner), why))
			return false;
		if (step->type == GDB_JOIN_INNER)
			jquals = list_concat(jquals, list_copy(step->extra));
		else
			squals = lappend(squals, make_ands_explicit(step->extra));
	}
	if (jquals != NIL)
		jf = (Node *) make_ands_explicit(jquals);
	needed = list_concat(list_concat(list_copy(needed), jquals), squals);

	/* each build side's payload, and its quals */
	*tmpl = palloc0(sizeof(GdbColumnSet));
	(*tmpl)->probe_varno = tree->probe;
	*join = list_make3(makeInteger(tree->probe), NIL, jf);
	{
		List	   *relids = NIL;
		int			x = -1;

		while ((x = bms_next_member(tree->relids, x)) >= 0)
			relids = lappend_int(relids, x);
		lsecond(*join) = relids;
	}
	foreach(lc, tree->steps)
	{
		JoinStep   *step = (JoinStep *) lfirst(lc);
		RelOptInfo *brel = find_base_rel(root, step->relid);
		Oid			breloid = planner_rt_fetch(step->relid, root)->relid;
		List	   *payload = NIL;
		List	   *ptypes = NIL;
		List	   *dinfo = NIL;
		List	   *quals = NIL;
		List	   *sublist = NIL;
		List	   *st;
		Bitmapset  *battnums = NULL;
		bool		bcached;
		int			t;

		/* (a semi or anti join's columns: only its own qual reads them) */
		{
			ListCell   *lc2;

			collect_pairs((Node *) needed, step->inner, &payload);
			for_each_cell(lc2, tree->steps, lnext(tree->steps, lc))
			{
				JoinStep   *later = (JoinStep *) lfirst(lc2);

				for (t = 0; t + 3 < list_length(later->quads); t += 4)
					collect_pairs((Node *) pair_var(list_nth_int(later->quads, t),
													list_nth_int(later->quads, t + 1)),
								  step->inner, &payload);
			}
		}
		npayload += list_length(payload) / 2;
		if (npayload > GDB_MAX_JOIN_COLS)
		{
			*why = "too many columns of the joined relations";
			return false;
		}
		/* the payload's types, registered in this level's column set */
		for (t = 0; t + 1 < list_length(payload); t += 2)
		{
			Index		varno = (Index) list_nth_int(payload, t);
			AttrNumber	attnum = (AttrNumber) list_nth_int(payload, t + 1);
			Oid			typid;
			int32		typmod;
			Oid			collid;

			gdb_join_column_type(root, varno, attnum, &typid, &typmod, &collid);
			if (!gdb_type_supported(typid, typmod))
			{
				*why = psprintf("a column of type %s is needed",
								format_type_with_typemod(typid, typmod));
				return false;
			}
			(void) gdb_columnset_add_join_col_type(*tmpl, varno, attnum, typid, typmod,
												   collid);
			ptypes = lappend_int(ptypes, (int) typid);
			ptypes = lappend_int(ptypes, typmod);
			ptypes = lappend_int(ptypes, (int) collid);
			/* a text column's strings are re-encoded, each distinct one */
			if (gdb_type_class(typid) == GDB_TYPE_TEXT)
				jc->text_values +=
					estimate_num_groups(root, list_make1(makeVar(varno, attnum, typid, typmod,
																 collid, 0)),
										Max(root->simple_rel_array[varno]->rows, 1.0),
										NULL, NULL);
		}

		/* the build side's (or its tree's probe relation's) quals */
		if (step->derived != NULL)
		{
			/* a derived table's: its own plan's (run by PostgreSQL) */
			if (!gdb_join_derived_build_side(root, step, payload, derived, &dinfo, jc, why))
				return false;
		}
		else if (gdb_contains_param((Node *) brel->baserestrictinfo))
		{
			*why = "a build side's qual compares with a parameter";
			return false;
		}
		else if (!gdb_base_rel_ok(root, brel, false, why) ||
				 !gdb_all_quals_on_device(root, brel, breloid, &battnums, &quals, why))
			return false;

		/*
		 * an inner or left join's table's build side must be unique on its
		 * keys: where the planner's statistics say it is far from that (a
		 * many-to-many join), the node would only read it to answer with
		 * PostgreSQL's plan; else the executor checks it
		 */
		if ((step->type == GDB_JOIN_INNER || step->type == GDB_JOIN_LEFT) &&
			step->sub == NULL && brel->rows > 1.0 &&
			!(step->derived != NULL && gdb_join_derived_distinct(root, step)))
		{
			List	   *bkeys = NIL;
			double		ndistinct;

			for (t = 0; t + 3 < list_length(step->quads); t += 4)
			{
				Oid			typid;
				int32		typmod;
				Oid			collid;

				gdb_join_column_type(root, step->relid, (AttrNumber) list_nth_int(step->quads, t + 3),
							&typid, &typmod, &collid);
				bkeys = lappend(bkeys, makeVar(step->relid,
											   (AttrNumber) list_nth_int(step->quads, t + 3),
											   typid, typmod, collid, 0));
			}
			ndistinct = estimate_num_groups(root, bkeys, brel->rows, NULL, NULL);
			if (ndistinct < brel->rows * GDB_JOIN_UNIQUE_FRACTION)
			{
				*why = psprintf("an inner or left join's build side is not unique on its keys (the planner estimates %.0f distinct keys in %.0f rows)",
								ndistinct, brel->rows);
				return false;
			}
		}
		/*
		 * the columns it reads from its table: its quals', its keys', its
		 * payload's and, for a nested tree, its probes' keys; read from the
		 * column cache when the server holds them all
		 */
		for (t = 0; t + 3 < list_length(step->quads); t += 4)
			battnums = bms_add_member(battnums, list_nth_int(step->quads, t + 3));
		for (t = 0; t + 1 < list_length(payload); t += 2)
			if (list_nth_int(payload, t) == (int) step->relid)
				battnums = bms_add_member(battnums, list_nth_int(payload, t + 1));
		if (step->sub)
		{
			ListCell   *lc2;

			foreach(lc2, step->sub->steps)
			{
				JoinStep   *s2 = (JoinStep *) lfirst(lc2);

				for (t = 0; t + 3 < list_length(s2->quads); t += 4)
					if (list_nth_int(s2->quads, t) == (int) step->relid)
						battnums = bms_add_member(battnums, list_nth_int(s2->quads, t + 1));
			}
		}
		if (step->derived == NULL)
		{
			bcached = gdb_cache_plan_covers(breloid, battnums);
			jc->read += gdb_device_cost(brel, breloid, list_length(step->quads) / 4 +
										list_length(payload) / 2, bcached,
										1.0 + (step->sub ? list_length(step->sub->steps) : 0));
			/* a cached one stays in the GPU server (server_join_keep.c) */
			*(bcached ? &jc->kept_bytes : &jc->bytes) +=
				brel->rows * 9.0 * (list_length(step->quads) / 4 + list_length(payload) / 2);
		}

		/* a nested tree outputs this join's build keys and payload */
		if (step->sub)
		{
			List	   *sub_needed = NIL;
			GdbColumnSet *subtmpl;

			for (t = 0; t + 3 < list_length(step->quads); t += 4)
				sub_needed = lappend(sub_needed, pair_var(list_nth_int(step->quads, t + 2),
														  list_nth_int(step->quads, t + 3)));
			for (t = 0; t + 1 < list_length(payload); t += 2)
				sub_needed = lappend(sub_needed, pair_var(list_nth_int(payload, t),
														  list_nth_int(payload, t + 1)));
			if (!prepare_tree(root, step->sub, sub_needed, &sublist, &subtmpl, jc, derived,
							  why))
				return false;
			if (gdb_join_level_quals(sublist) != NIL)
			{
				Relation	prel = table_open(breloid, NoLock);
				char	   *reason = NULL;
				bool		ok = gdb_exprs_supported_in(gdb_join_level_quals(sublist),
													   prel, subtmpl, &reason);

				table_close(prel, NoLock);
				if (!ok)
				{
					*why = psprintf("a join qual cannot be computed on the device: %s",
									reason);
					return false;
				}
			}
		}
		st = list_make5(makeInteger(step->type), makeInteger(step->relid), quals,
						step->quads, payload);
		st = lappend(st, list_concat(list_copy(step->clauses), step->extra));
		st = lappend(st, sublist);
		st = lappend(st, step->type != GDB_JOIN_INNER && step->extra != NIL ?
					 make_ands_explicit(step->extra) : NULL);
		st = lappend(st, dinfo);
		st = lappend(st, ptypes);
		*join = lappend(*join, st);
	}
	return true;
}

/* why the cost model keeps a join tree off the device */
#define TOO_COSTLY "its cost (the probe relation's pass, every build side read whole, from the cache or the heap, and the groups' text keys decoded) is not below PostgreSQL's cheapest plan's"

/* see custom_scan_path.h */
void
gdb_try_gpujoin(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
				GroupPathExtraData *extra)
{
	bool		too_costly;
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
	List	   *probe_device = NIL;
	List	   *join;
	List	   *pa = NIL;
	List	   *derived = NIL;	/* derived tables' scans, build sides */
	Bitmapset  *probe_attnums = NULL;
	GdbColumnSet *tmpl;
	RangeTblEntry *probe_rte;
	RelOptInfo *probe_rel;
	Relation	probe_relation;
	CustomPath *path;
	Cost		startup;
	JoinCost	jc = {0, 0, 0, 0};
	bool		probe_cached;
	double		rebuilds = 0;
	Cost		disabled;
	double		ngroups;
	double		work;
	QualCost	having_cost;
	int			nstates = 0;
	int			nhist = 0;		/* histogram aggregates */
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
	gdb_join_derived_typmods(root, &tree);
	if (!bms_equal(tree.relids, gdb_join_base_relids(root, input_rel->relids)))
	{
		why = "the join tree does not cover the query's relations";
		goto refused;
	}

	/* the probe relation: a table whose quals all run on the device */
	probe_rel = find_base_rel(root, tree.probe);
	if (!gdb_base_rel_ok(root, probe_rel, false, &why))
		goto refused;
	probe_rte = planner_rt_fetch(tree.probe, root);
	if (!gdb_all_quals_on_device(root, probe_rel, probe_rte->relid, &probe_attnums,
								 &probe_device, &why))
		goto refused;

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
		{
			if (why == NULL)
				why = "a group key is volatile";
			goto refused;
		}
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
		if (fn >= 0 && GDB_FN_IS_ORDERED_SET(fn))
		{
			/*
			 * count(DISTINCT), percentiles, mode: a histogram request over
			 * the same joins, grouped by the keys and the argument
			 */
			Expr	   *e = gdb_ordered_set_arg(ag, fn);

			if (!vars_visible((Node *) e, tree.visible, &why) ||
				!gdb_ordered_set_aggref_ok(ag, IsA(e, Var) ? ((Var *) e)->varno : 0,
										   &fn, &e, &why))
				goto refused;
			if (contain_volatile_functions((Node *) e) || contain_subplans((Node *) e))
			{
				why = "an aggregate's argument is volatile or holds a subquery";
				goto refused;
			}
			if (!IsA(e, Var))
				exprs = lappend(exprs, e);
			nhist++;
			nstates += 1;
			aggs = lappend_int(aggs, fn);
			aggs = lappend_int(aggs, GDB_ATTNUM_EXPR);
			aggrefs = lappend(aggrefs, ag);
			continue;
		}
		if (fn < 0)
		{
			why = "an aggregate other than count, sum, avg, min, max, the variance family, count(DISTINCT), percentile_cont, percentile_disc and mode";
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
			if (contain_volatile_functions(arg) || contain_subplans(arg))
			{
				why = "an aggregate's argument is volatile or holds a subquery";
				goto refused;
			}
			if (!vars_visible(arg, tree.visible, &why))
				goto refused;
			if (!IsA(fc_strip_relabel(arg), Var))
				exprs = list_concat(exprs,
									gdb_sum_arg_exprs(arg, fn == GDB_FN_SUM &&
													  exprType(arg) == NUMERICOID));
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
		/* (a sum over a CASE of two scales: its display scale's state) */
		if (arg != NULL)
			nstates += list_length(gdb_sum_arg_exprs(arg, fn == GDB_FN_SUM &&
													 exprType(arg) == NUMERICOID)) - 1;
		aggs = lappend_int(aggs, fn);
		aggs = lappend_int(aggs, arg ? GDB_ATTNUM_EXPR : 0);
		aggrefs = lappend(aggrefs, ag);
	}
	if (nstates > GDB_MAX_AGGREGATES)
	{
		why = "too many aggregates";
		goto refused;
	}
	if (nhist > 0 && list_length(keys) >= Min(GDB_MAX_GROUP_KEYS, GDB_MAX_SORT_KEYS))
	{
		why = "count(DISTINCT), percentile_cont, percentile_disc or mode with too many group keys";
		goto refused;
	}

	/* the join tree: build sides, payload, nested trees */
	if (!prepare_tree(root, &tree, list_concat(list_copy(key_exprs), aggrefs),
					  &join, &tmpl, &jc, &derived, &why))
		goto refused;

	/* the computed columns together (the joins' other quals first) */
	exprs = list_concat(gdb_join_level_quals(join), exprs);
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
		gdb_text_operations((Node *) probe_device) +
		gdb_text_operations((Node *) lthird(join)) > GDB_MAX_CODE_TABLES)
	{
		why = psprintf("more than %d text operations in one request", GDB_MAX_CODE_TABLES);
		goto refused;
	}

	/*
	 * the cost: the probe relation's pass over the columns it reads (its
	 * quals', the keys' and aggregates', its join keys), from the cache
	 * when it holds them; each build side
	 * read whole (from the cache or the heap); each build row's bytes on
	 * their way through the backend, and again for every further probe
	 * batch of a heap read (gpudb_defaults.h)
	 */
	collect_pairs((Node *) list_concat(list_copy(key_exprs), aggrefs),
				  bms_make_singleton(tree.probe), &pa);
	foreach(lc, tree.steps)
	{
		JoinStep   *step = (JoinStep *) lfirst(lc);
		int			t;

		for (t = 0; t + 3 < list_length(step->quads); t += 4)
			if (list_nth_int(step->quads, t) == (int) tree.probe)
			{
				pa = lappend_int(pa, tree.probe);
				pa = lappend_int(pa, list_nth_int(step->quads, t + 1));
			}
	}
	for (int t = 0; t + 1 < list_length(pa); t += 2)
		probe_attnums = bms_add_member(probe_attnums, list_nth_int(pa, t + 1));
	work = 1.0 + list_length(aggrefs) / 4.0 + list_length(keys) + list_length(tree.steps) +
		nhist * (2.0 + list_length(keys) + list_length(tree.steps));
	disabled = gdb_disabled_cost(false, keys != NIL);
	probe_cached = gdb_cache_plan_covers(probe_rte->relid, probe_attnums);
	if (!probe_cached)
		rebuilds = Max(ceil(probe_rel->tuples / Max(gpudb_batch_rows, 1)) - 1.0, 0.0);
	startup = gdb_device_cost(probe_rel, probe_rte->relid, bms_num_members(probe_attnums),
							  probe_cached, work) +
		jc.read + jc.bytes * gpudb_gpu_transfer_cost * GPUDB_JOIN_BUILD_FACTOR *
		(1.0 + rebuilds * GPUDB_JOIN_REBUILD_FACTOR) +
		jc.kept_bytes * gpudb_gpu_transfer_cost *
		(gdb_plan_on_gpu() ? GPUDB_JOIN_KEPT_FACTOR : GPUDB_JOIN_KEPT_HOST_FACTOR) +
		jc.text_values * gpudb_gpu_transfer_cost * GPUDB_JOIN_TEXT_VALUE_FACTOR +
		disabled;
	/* the groups' text keys, decoded for the result */
	ngroups = gdb_grouped_rows(root, input_rel->rows);
	startup += gdb_text_result_cost(key_exprs, ngroups);
	/*
	 * too costly for the grouped relation, it may still be the cheapest
	 * ordered one: ORDER BY ... LIMIT on the device decodes the text keys
	 * of the groups it returns only (gdb_try_gpujoin_ordered)
	 */
	too_costly = startup >= gdb_cheapest_existing(output_rel);
	if (too_costly && !gdb_ordered_limit_possible(root))
	{
		/* said, as the join tree could run: the cost model's choice */
		why = TOO_COSTLY;
		goto refused;
	}
	cost_qual_eval(&having_cost, having, root);
	startup += having_cost.startup;

	path = gdb_make_path(GDB_NODE_JOIN, output_rel, output_rel->reltarget,
						 ngroups, startup,
						 startup + ngroups * (cpu_tuple_cost + having_cost.per_tuple),
						 NIL, tree.probe, probe_device, NIL,
						 lappend(list_make5(keys, aggs, key_exprs, aggrefs, having),
								 join));
	/*
	 * PostgreSQL's plan behind it, serial where the join relation still
	 * has a serial path: for a build side with duplicate keys, a numeric
	 * value past the fixed point or timestamptz in another zone
	 */
	if (!gdb_set_fallback(path,
						  gdb_join_fallback_path(root, input_rel, output_rel, extra,
												 aggrefs, ngroups),
						  &why))
		goto refused;
	/* the derived tables' plans after it (custom_plans 1, 2, ...) */
	path->custom_paths = list_concat(path->custom_paths, derived);
	if (too_costly)
	{
		gdb_try_gpujoin_ordered(root, path);
		why = TOO_COSTLY "; offered only ordered and cut to the LIMIT";
		goto refused;
	}
	add_path(output_rel, &path->path);
	return;

refused:
	gdb_not_offered(GDB_NODE_JOIN, why);
}
