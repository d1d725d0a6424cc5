/*-------------------------------------------------------------------------
 *
 * pg_compat.h
 *	  The one place where gpudb's C code meets differences between the
 *	  PostgreSQL major versions it builds against (15 to 19).
 *
 * Every PG_VERSION_NUM test of src/ is here: the code calls the gdb_
 * names below, which expand to each version's own API, so that the rest
 * of the tree reads the same on every version (and 18's pg_noreturn,
 * which older versions get here).  A name is added here
 * when a version renames, removes or changes a function, macro or field
 * the tree uses; each entry names the version that changed it.  The
 * expansion for the oldest version is the code as it was written for 15,
 * so nothing changes there.
 *
 * Macros that name a function or a field need the caller to include the
 * function's own header (as the code did before); only the headers a
 * version moved something into are included here.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_PG_COMPAT_H
#define GPUDB_PG_COMPAT_H

#include "postgres.h"

#include "nodes/nodes.h"

/* 16: the varlena macros (VARDATA, VARSIZE_ANY, ...) moved to varatt.h */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 17: an internal subtransaction may start in parallel mode (it assigns no
 * XID); before, BeginInternalSubTransaction raised an error there
 */
#if PG_VERSION_NUM >= 170000
#define GDB_SUBXACT_IN_PARALLEL_MODE true
#else
#define GDB_SUBXACT_IN_PARALLEL_MODE false
#endif

/* 16: PG_SETMASK removed; it was sigprocmask(SIG_SETMASK) on every Unix */
#ifndef PG_SETMASK
#define PG_SETMASK(mask)	sigprocmask(SIG_SETMASK, mask, NULL)
#endif

/* 16: RelFileNode became RelFileLocator (rd_node.relNode: rd_locator.relNumber) */
#if PG_VERSION_NUM >= 160000
#define gdb_rel_filenumber(rel)		((rel)->rd_locator.relNumber)
#else
#define gdb_rel_filenumber(rel)		((rel)->rd_node.relNode)
#endif

/*
 * 16: the per-catalog ownership and ACL checks became object_ownercheck and
 * object_aclcheck with the catalog's OID (callers include catalog/pg_class.h
 * or catalog/pg_proc.h, and utils/acl.h)
 */
#if PG_VERSION_NUM >= 160000
#define gdb_class_ownercheck(relid, roleid) \
	object_ownercheck(RelationRelationId, (relid), (roleid))
#define gdb_proc_aclcheck(funcid, roleid, mode) \
	object_aclcheck(ProcedureRelationId, (funcid), (roleid), (mode))
#else
#define gdb_class_ownercheck(relid, roleid) \
	pg_class_ownercheck((relid), (roleid))
#define gdb_proc_aclcheck(funcid, roleid, mode) \
	pg_proc_aclcheck((funcid), (roleid), (mode))
#endif

/*
 * 16: ExecCheckRTPerms became ExecCheckPermissions, with the permission
 * entries out of the range table (the parse state keeps them)
 */
#if PG_VERSION_NUM >= 160000
#define gdb_check_rt_perms(pstate, ereport_on_violation) \
	ExecCheckPermissions((pstate)->p_rtable, (pstate)->p_rteperminfos, \
						 (ereport_on_violation))
#else
#define gdb_check_rt_perms(pstate, ereport_on_violation) \
	ExecCheckRTPerms((pstate)->p_rtable, (ereport_on_violation))
#endif

/*
 * 16: EnableDisableTrigger takes the parent trigger's OID and whether to
 * recurse; 15's five-argument form was EnableDisableTriggerNew2 with no
 * parent and recursion on partitions, which is what is passed here
 */
#if PG_VERSION_NUM >= 160000
#define gdb_enable_disable_trigger(rel, tgname, fires_when, skip_system, lockmode) \
	EnableDisableTrigger((rel), (tgname), InvalidOid, (fires_when), \
						 (skip_system), true, (lockmode))
#else
#define gdb_enable_disable_trigger(rel, tgname, fires_when, skip_system, lockmode) \
	EnableDisableTrigger((rel), (tgname), (fires_when), (skip_system), (lockmode))
#endif

/* 16: PgStat_TableCounts' t_tuples_returned became tuples_returned */
#if PG_VERSION_NUM >= 160000
#define gdb_pgstat_tuples_returned(info)	((info)->counts.tuples_returned)
#else
#define gdb_pgstat_tuples_returned(info)	((info)->t_counts.t_tuples_returned)
#endif

/*
 * 16: a join relation's relids also hold the range table indexes of the
 * outer joins it computes (root->outer_join_rels); the base relations it
 * joins are the rest
 */
#if PG_VERSION_NUM >= 160000
#define gdb_join_base_relids(root, relids) \
	bms_difference((relids), (root)->outer_join_rels)
#else
#define gdb_join_base_relids(root, relids)	(relids)
#endif

/*
 * 16: the planner groups by root->processed_groupClause, parse->groupClause
 * less the items it proved redundant or useless (15 has parse->groupClause
 * only, which its planner edits in place); root->group_pathkeys and the
 * grouping input's sort group references follow it.  It may be empty where
 * parse->groupClause is not (every item redundant: still grouped, so no
 * row for no input).
 */
#if PG_VERSION_NUM >= 160000
#define gdb_processed_group_clause(root)	((root)->processed_groupClause)
#else
#define gdb_processed_group_clause(root)	((root)->parse->groupClause)
#endif

/*
 * 16: a query's permission entries left its range table for
 * Query.rteperminfos, each RTE_RELATION naming its own by perminfoindex.
 * gdb_copy_rte_perminfo(dst, src, rte): rte, a copy of an entry of query
 * src's range table bound for query dst's, gets a copy of its permission
 * entry appended to dst's (caller includes parser/parse_relation.h); 15
 * keeps the permissions in the entry itself, so nothing is done there.
 */
#if PG_VERSION_NUM >= 160000
#define gdb_copy_rte_perminfo(dst, src, rte) \
	do { \
		if ((rte)->perminfoindex != 0) \
		{ \
			(dst)->rteperminfos = \
				lappend((dst)->rteperminfos, \
						copyObject(getRTEPermissionInfo((src)->rteperminfos, \
														(rte)))); \
			(rte)->perminfoindex = list_length((dst)->rteperminfos); \
		} \
	} while (0)
#else
#define gdb_copy_rte_perminfo(dst, src, rte)	((void) 0)
#endif

/*
 * The join type whose sides, swapped, give jt: JOIN_LEFT for JOIN_RIGHT on
 * every version, JOIN_ANTI for 16's JOIN_RIGHT_ANTI and JOIN_SEMI for 18's
 * JOIN_RIGHT_SEMI (the rows kept are the inner side's); any other type is
 * its own.
 */
static inline JoinType
gdb_join_type_swapped(JoinType jt)
{
	switch (jt)
	{
		case JOIN_RIGHT:
			return JOIN_LEFT;
#if PG_VERSION_NUM >= 160000
		case JOIN_RIGHT_ANTI:
			return JOIN_ANTI;
#endif
#if PG_VERSION_NUM >= 180000
		case JOIN_RIGHT_SEMI:
			return JOIN_SEMI;
#endif
		default:
			return jt;
	}
}

/* 17: ShmemVariableCache became TransamVariables */
#if PG_VERSION_NUM >= 170000
#define gdb_transam_variables	TransamVariables
#else
#define gdb_transam_variables	ShmemVariableCache
#endif

/* 17: PGPROC's lxid moved into its vxid */
#if PG_VERSION_NUM >= 170000
#define gdb_my_lxid()	(MyProc->vxid.lxid)
#else
#define gdb_my_lxid()	(MyProc->lxid)
#endif

/*
 * 17: estimate_array_length takes the planner's root (NULL: no statistics,
 * the count of a constant or ARRAY[] as before, else 10) and returns a
 * double
 */
#if PG_VERSION_NUM >= 170000
#define gdb_estimate_array_length(arrayexpr) \
	((int) estimate_array_length(NULL, (arrayexpr)))
#else
#define gdb_estimate_array_length(arrayexpr) \
	estimate_array_length(arrayexpr)
#endif

/*
 * 17: heapgetpage is gone (page-mode scans read through a read stream);
 * what it did is: drop the pin of the previous page, pin block blk, and
 * let heap_prepare_pagescan prune it and list its visible tuples in
 * rs_vistuples.  17 also removed TestForOldSnapshot (old_snapshot_threshold).
 */
#if PG_VERSION_NUM >= 170000
#include "access/heapam.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"

static inline void
gdb_heapgetpage(TableScanDesc sscan, BlockNumber blk)
{
	HeapScanDesc scan = (HeapScanDesc) sscan;

	if (BufferIsValid(scan->rs_cbuf))
	{
		ReleaseBuffer(scan->rs_cbuf);
		scan->rs_cbuf = InvalidBuffer;
	}
	CHECK_FOR_INTERRUPTS();
	scan->rs_cbuf = ReadBufferExtended(sscan->rs_rd, MAIN_FORKNUM, blk,
									   RBM_NORMAL, scan->rs_strategy);
	scan->rs_cblock = blk;
	heap_prepare_pagescan(sscan);
}

#define gdb_test_for_old_snapshot(snapshot, rel, page)	((void) 0)
#else
#define gdb_heapgetpage(sscan, blk)		heapgetpage((sscan), (blk))
#define gdb_test_for_old_snapshot(snapshot, rel, page) \
	TestForOldSnapshot((snapshot), (rel), (page))
#endif

/*
 * 18: pg_attribute_noreturn(), written after a declaration, gave way to
 * pg_noreturn, written before it.  Older versions get the same GCC
 * attribute as a prefix (pg_attribute_noreturn() is empty for compilers
 * without it, and so is this).
 */
#if PG_VERSION_NUM < 180000
#if defined(__GNUC__) || defined(__SUNPRO_C) || defined(__IBMC__)
#define pg_noreturn __attribute__((noreturn))
#else
#define pg_noreturn
#endif
#endif

/*
 * 19: pg_fallthrough marks an intended fall through to the next case (19
 * builds with -Wimplicit-fallthrough=5, which takes no comment for it);
 * older versions get the same attribute here
 */
#ifndef pg_fallthrough
#if defined(__has_attribute)
#if __has_attribute(fallthrough)
#define pg_fallthrough __attribute__((fallthrough))
#endif
#endif
#ifndef pg_fallthrough
#define pg_fallthrough ((void) 0)
#endif
#endif

/*
 * 18: the ExplainProperty* functions are declared in
 * commands/explain_format.h
 */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#endif

/*
 * 18: extensions may add EXPLAIN options.  gpudb adds GPUDB_HARDWARE, the
 * per-statement form of gpudb.explain_hardware: EXPLAIN (GPUDB_HARDWARE)
 * shows the device, the bytes moved and the device times whatever the
 * setting, EXPLAIN (GPUDB_HARDWARE OFF) leaves them out.  Its value lives in
 * the ExplainState under the extension id "gpudb" (looked up by name: this
 * header has no state of its own).  Before 18 only the setting decides:
 * gdb_register_explain_options does nothing and gdb_explain_hardware
 * returns the setting.
 */
#if PG_VERSION_NUM >= 180000
#include "commands/defrem.h"
#include "commands/explain_state.h"

/* EXPLAIN (GPUDB_HARDWARE [boolean]): remember the value in es */
static inline void
gdb_explain_hardware_option(ExplainState *es, DefElem *opt, ParseState *pstate)
{
	bool	   *on = (bool *) palloc(sizeof(bool));

	*on = defGetBoolean(opt);
	SetExplainExtensionState(es, GetExplainExtensionId("gpudb"), on);
}

/*
 * _PG_init: add gpudb's EXPLAIN options (19: with the check of a value set
 * through a setting, which for a boolean option is PostgreSQL's own)
 */
static inline void
gdb_register_explain_options(void)
{
#if PG_VERSION_NUM >= 190000
	RegisterExtensionExplainOption("gpudb_hardware", gdb_explain_hardware_option,
								   GUCCheckBooleanExplainOption);
#else
	RegisterExtensionExplainOption("gpudb_hardware", gdb_explain_hardware_option);
#endif
}

/* whether es shows the hardware lines: its option if given, else setting */
static inline bool
gdb_explain_hardware(ExplainState *es, bool setting)
{
	bool	   *on = (bool *) GetExplainExtensionState(es, GetExplainExtensionId("gpudb"));

	return on != NULL ? *on : setting;
}
#else
#define gdb_register_explain_options()	((void) 0)
#define gdb_explain_hardware(es, setting)	(setting)
#endif

/*
 * 18: a PathKey's direction is a CompareType (COMPARE_LT, COMPARE_GT), no
 * longer a btree strategy number
 */
#if PG_VERSION_NUM >= 180000
#define gdb_pathkey_is_asc(pk)		((pk)->pk_cmptype == COMPARE_LT)
#define gdb_pathkey_is_desc(pk)		((pk)->pk_cmptype == COMPARE_GT)
#else
#define gdb_pathkey_is_asc(pk)		((pk)->pk_strategy == BTLessStrategyNumber)
#define gdb_pathkey_is_desc(pk)		((pk)->pk_strategy == BTGreaterStrategyNumber)
#endif

/*
 * 18: lc_collate_is_c and lc_ctype_is_c are gone; the collation's
 * pg_locale_t says whether it sorts (collate_is_c) and classifies
 * characters (ctype_is_c) as C.  As before, InvalidOid is not C.
 */
#if PG_VERSION_NUM >= 180000
#include "utils/pg_locale.h"

static inline bool
gdb_collate_is_c(Oid collid)
{
	return OidIsValid(collid) && pg_newlocale_from_collation(collid)->collate_is_c;
}

static inline bool
gdb_ctype_is_c(Oid collid)
{
	return OidIsValid(collid) && pg_newlocale_from_collation(collid)->ctype_is_c;
}
#else
#define gdb_collate_is_c(collid)	lc_collate_is_c(collid)
#define gdb_ctype_is_c(collid)		lc_ctype_is_c(collid)
#endif

/*
 * 18: ExecGetRangeTableRelation says whether the relation is a result
 * relation (gpudb's relations are only read)
 */
#if PG_VERSION_NUM >= 180000
#define gdb_exec_get_rt_relation(estate, rti) \
	ExecGetRangeTableRelation((estate), (rti), false)
#else
#define gdb_exec_get_rt_relation(estate, rti) \
	ExecGetRangeTableRelation((estate), (rti))
#endif

/*
 * 18: a process's latch support (the self-pipe or signalfd that SetLatch
 * wakes) is set up by InitializeWaitEventSupport (storage/waiteventset.h)
 */
#if PG_VERSION_NUM >= 180000
#include "storage/waiteventset.h"
#define gdb_initialize_latch_support()	InitializeWaitEventSupport()
#else
#define gdb_initialize_latch_support()	InitializeLatchSupport()
#endif

/*
 * 19: ShmemInitHash takes one size, the most entries (the table is made at
 * that size at once); older versions took an initial and a maximum size
 */
#if PG_VERSION_NUM >= 190000
#define gdb_shmem_init_hash(name, init_size, max_size, infoP, hash_flags) \
	ShmemInitHash((name), (max_size), (infoP), (hash_flags))
#else
#define gdb_shmem_init_hash(name, init_size, max_size, infoP, hash_flags) \
	ShmemInitHash((name), (init_size), (max_size), (infoP), (hash_flags))
#endif

/*
 * 19: table_beginscan_parallel takes the caller's ScanOptions (SO_NONE: a
 * plain scan; the function adds the sequential-scan ones itself), and
 * table_block_parallelscan_startblock_init a start block and a block count
 * (InvalidBlockNumber for both: the whole relation, from the synchronized
 * scan's position or block 0, as before)
 */
#if PG_VERSION_NUM >= 190000
#define gdb_table_beginscan_parallel(rel, pscan) \
	table_beginscan_parallel((rel), (pscan), SO_NONE)
#define gdb_table_block_parallelscan_startblock_init(rel, pbscanwork, pbscan) \
	table_block_parallelscan_startblock_init((rel), (pbscanwork), (pbscan), \
											 InvalidBlockNumber, InvalidBlockNumber)
#else
#define gdb_table_beginscan_parallel(rel, pscan) \
	table_beginscan_parallel((rel), (pscan))
#define gdb_table_block_parallelscan_startblock_init(rel, pbscanwork, pbscan) \
	table_block_parallelscan_startblock_init((rel), (pbscanwork), (pbscan))
#endif

/*
 * 19 also changes planner_hook's arguments and replaces
 * get_relation_info_hook; gpudb sets neither (its planner side is
 * set_rel_pathlist_hook and create_upper_paths_hook, unchanged), so nothing
 * here answers those.  bits8, which 19 renames uint8, is not used.  19's
 * funcapi.h no longer includes utils/tuplestore.h: the files that fill a
 * tuplestore include it themselves, as every version allows.
 */

/*
 * 19: pqsignal takes PG_SIG_IGN and PG_SIG_DFL where it took SIG_IGN and
 * SIG_DFL (PostgreSQL commit 3e2a1496ba); older versions have no such names
 */
#ifndef PG_SIG_IGN
#define PG_SIG_IGN	SIG_IGN
#define PG_SIG_DFL	SIG_DFL
#endif

/*
 * 18: get_op_btree_interpretation became get_op_index_interpretation (the
 * same List of the btree opfamilies an operator is a comparison of)
 */
#if PG_VERSION_NUM >= 180000
#define gdb_op_btree_interpretation(opno) get_op_index_interpretation(opno)
#else
#define gdb_op_btree_interpretation(opno) get_op_btree_interpretation(opno)
#endif

/*
 * 19: planner_hook and standard_planner take the EXPLAIN state too (its
 * optimizer/planner.h); GDB_PLANNER_ARGS declares a hook's arguments,
 * GDB_PLANNER_PASS names them in a call, GDB_PLANNER_CALL passes them on.
 */
#if PG_VERSION_NUM >= 190000
#define GDB_PLANNER_ARGS Query *parse, const char *query_string, \
	int cursorOptions, ParamListInfo boundParams, ExplainState *es
#define GDB_PLANNER_PASS parse, query_string, cursorOptions, boundParams, es
#else
#define GDB_PLANNER_ARGS Query *parse, const char *query_string, \
	int cursorOptions, ParamListInfo boundParams
#define GDB_PLANNER_PASS parse, query_string, cursorOptions, boundParams
#endif
#define GDB_PLANNER_CALL(fn) fn(GDB_PLANNER_PASS)

/*
 * gdb_att_not_null: does column attnum of rel carry a valid NOT NULL
 * constraint?  18 can mark one NOT VALID, its rows unchecked
 * (CompactAttribute.attnullability); before 18 attnotnull is always valid.
 */
#if PG_VERSION_NUM >= 180000
#define gdb_att_not_null(rel, attnum) \
	(TupleDescCompactAttr(RelationGetDescr(rel), (attnum) - 1)->attnullability == \
	 ATTNULLABLE_VALID)
#else
#define gdb_att_not_null(rel, attnum) \
	(TupleDescAttr(RelationGetDescr(rel), (attnum) - 1)->attnotnull)
#endif

#endif							/* GPUDB_PG_COMPAT_H */
