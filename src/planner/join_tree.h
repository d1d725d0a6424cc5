/*-------------------------------------------------------------------------
 *
 * join_tree.h
 *	  The join tree GpudbJoin's planner reads off PostgreSQL's join path
 *	  (custom_scan_join.c) and what its derived tables' build sides need
 *	  (join_derived.c).  Internal to src/planner.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_JOIN_TREE_H
#define GPUDB_JOIN_TREE_H

#include "nodes/pathnodes.h"

/*
 * What the build sides of a join tree cost (prepare_tree): reading them,
 * the bytes of their rows' keys and payload (9 a column), which pass
 * through the backend (GPUDB_JOIN_BUILD_FACTOR) or, read from the cache,
 * stay in the GPU server (GPUDB_JOIN_KEPT_FACTOR), and the distinct strings
 * of their text payload, each re-encoded into the probe's dictionary
 * (GPUDB_JOIN_TEXT_VALUE_FACTOR; gpudb_defaults.h).
 */
typedef struct JoinCost
{
	Cost		read;
	double		bytes;			/* build sides read from the heap */
	double		kept_bytes;		/* build sides read from the cache */
	double		text_values;	/* distinct strings of their text payload */
} JoinCost;

/* One join of the tree, as the walk finds it. */
typedef struct JoinTree JoinTree;

typedef struct JoinStep
{
	GdbJoinType type;
	Index		relid;			/* the build side's relation, or its join
								 * tree's probe relation */
	JoinTree   *sub;			/* a join on the inner side: its tree (the
								 * build side is that join's result), or NULL */
	Path	   *derived;		/* a derived table's scan (the build side is
								 * its plan's rows), or NULL */
	Relids		inner;			/* the build side's visible relations */
	List	   *quads;			/* (probe varno, probe attnum, build varno,
								 * build attnum) per key */
	List	   *clauses;		/* the key equalities, for EXPLAIN */
	List	   *extra;			/* the join's other quals */
} JoinStep;

/* The join tree: the probe relation and the joins in probe order. */
struct JoinTree
{
	Index		probe;
	Relids		relids;			/* relations joined so far */
	Relids		visible;		/* relations whose columns are seen above */
	List	   *steps;			/* JoinStep */
};

/*
 * gdb_join_is_derived: is p a scan of a derived table (a subquery in FROM,
 * or an IN subquery's relation) whose plan PostgreSQL runs as it planned
 * it, once, with no parameter, and whose subquery may be planned and run
 * twice (no InitPlan, min/max index path, SubPlan, CTE or volatile
 * function in it or its own subqueries)?
 */
extern bool gdb_join_is_derived(Path *p);

/*
 * gdb_join_column_type: the type, typmod and collation of column attnum
 * of range table entry varno: a table's attribute, or a derived table's
 * output column (an aggregate's numeric with the typmod of the scale its
 * values are expected to have, gdb_numeric_result_typmod).
 */
extern void gdb_join_column_type(PlannerInfo *root, Index varno, AttrNumber attnum,
								 Oid *typid, int32 *typmod, Oid *collid);

/*
 * gdb_join_derived_typmods: the other quals of every join of tree (nested
 * trees too) with their derived tables' numeric Vars copied with the
 * typmod gdb_join_column_type gives, for gpudb's own compilation only.
 */
extern void gdb_join_derived_typmods(PlannerInfo *root, JoinTree *tree);

/*
 * gdb_join_derived_distinct: is the derived table of step distinct on its
 * join keys, as its query shows (grouped or DISTINCT on them)?
 */
extern bool gdb_join_derived_distinct(PlannerInfo *root, JoinStep *step);

/*
 * gdb_join_derived_build_side: a derived table's build side (step->derived)
 * as one more custom path of the node (appended to *derived), *dinfo its
 * (custom plan index, then output position, type, typmod and collation of
 * each key and payload column), its cost into *jc; false with *why when a
 * column it needs is not in its output or of a type gpudb lacks.
 */
extern bool gdb_join_derived_build_side(PlannerInfo *root, JoinStep *step, List *payload,
										List **derived, List **dinfo, JoinCost *jc,
										const char **why);

#endif							/* GPUDB_JOIN_TREE_H */
