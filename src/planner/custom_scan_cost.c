/*-------------------------------------------------------------------------
 *
 * custom_scan_cost.c
 *	  The cost model of the GPU plan nodes: what a GpudbScan, GpudbAgg or
 *	  GpudbSort path costs, in PostgreSQL's own units, so that the planner
 *	  weighs it against PostgreSQL's paths (custom_scan_path.c builds the
 *	  paths).
 *
 * Cost model (constants in gpudb_defaults.h; README "Cost model"):
 *	 startup = gpudb.gpu_setup_cost
 *			 + rows_in * gpudb.gpu_tuple_cost * work
 *			 + (uncached) 3 * gpudb.gpu_setup_cost (GPUDB_UNCACHED_SETUP_FACTOR)
 *						  + pages * seq_page_cost
 *						  + rows_in * (0.5 * cpu_tuple_cost (GPUDB_HEAP_ROW_FACTOR)
 *						  + ncols * 9 bytes * gpudb.gpu_transfer_cost) / readers
 * (gpu_transfer_cost covers the deforming of the heap into column batches
 * as well as the copy to the device; readers are the backend and the
 * parallel workers that read a heap of at least
 * gpudb.min_parallel_table_size)
 *	 total	 = startup + rows_out * cpu_tuple_cost (+ CPU quals per row)
 *			   (GpudbScan and GpudbSort: + rows_out * 1000 *
 *			   gpudb.gpu_tuple_cost, GPUDB_RESULT_ROW_FACTOR)
 * where work is 1 for a selection, 1 + aggregates/4 + keys for a group-by
 * and 2 per sort key for a sort.  The node produces every row before the
 * first, so it is all startup cost.  The planner's enable_* switches add
 * PostgreSQL's disable_cost as they do to its own paths (gdb_disabled_cost):
 * each node counts as a sequential scan, GpudbSort and an ordered GpudbAgg as a
 * sort, a GpudbAgg with group keys as a hashed aggregate.
 *
 * The constants come from the H100 and H200 measurements in
 * test/bench/results/ (README "Cost model" gives them and their sources).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/tlist.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"

#include "custom_scan.h"
#include "gpudb_defaults.h"
#include "parallel_feed.h"
#include "server_client.h"

/* see custom_scan.h */
bool
gdb_plan_on_gpu(void)
{
	const GdbHelloReply *hello;

	return gpudb_device_mode != GPUDB_DEVICE_CPU && gpudb_preloaded &&
		(hello = gdb_server_hello()) != NULL && hello->use_gpu;
}

/* see custom_scan.h */
Cost
gdb_device_row_cost(void)
{
	return gpudb_gpu_tuple_cost *
		(gdb_plan_on_gpu() ? 1.0 : GPUDB_CPU_PATH_FACTOR);
}

/* see custom_scan.h */
Cost
gdb_result_row_cost(void)
{
	return cpu_tuple_cost + GPUDB_RESULT_ROW_FACTOR * gpudb_gpu_tuple_cost;
}

/* see custom_scan.h */
Cost
gdb_text_result_cost(List *key_exprs, double ngroups)
{
	int			ntext = 0;
	ListCell   *lc;

	foreach(lc, key_exprs)
		if (gdb_type_class(exprType((Node *) lfirst(lc))) == GDB_TYPE_TEXT)
			ntext++;
	return ngroups * ntext * GPUDB_RESULT_TEXT_VALUE_FACTOR * gpudb_gpu_transfer_cost;
}

/* see custom_scan.h */
Cost
gdb_device_cost(RelOptInfo *baserel, Oid relid, int ncols, bool cached, double work)
{
	double		tuples = Max(baserel->tuples, 1.0);
	Cost		cost = gpudb_gpu_setup_cost + tuples * gdb_device_row_cost() * work;

	if (!cached)
	{
		double		spc_seq_page_cost;
		int			participants =
			gdb_parallel_feed_participants(relid, baserel->pages);

		get_tablespace_page_costs(baserel->reltablespace, NULL, &spc_seq_page_cost);
		cost += GPUDB_UNCACHED_SETUP_FACTOR * gpudb_gpu_setup_cost +
			spc_seq_page_cost * baserel->pages +
			tuples * (GPUDB_HEAP_ROW_FACTOR * cpu_tuple_cost +
					  ncols * 9.0 * gpudb_gpu_transfer_cost) / participants;
	}
	return cost;
}

/* see custom_scan.h */
Cost
gdb_cheapest_existing(RelOptInfo *rel)
{
	Cost		best = 1e30;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
		best = Min(best, ((Path *) lfirst(lc))->total_cost);
	return best;
}

/* see custom_scan.h */
bool
gdb_worth_and_cached(RelOptInfo *baserel, Oid relid, Bitmapset *attnums,
					 double work, Cost disabled, Cost existing, bool *cached)
{
	*cached = false;
	if (gdb_device_cost(baserel, relid, bms_num_members(attnums), true, work) +
		disabled >= existing)
		return false;
	*cached = gdb_cache_plan_covers(relid, attnums);
	return true;
}

/* see custom_scan.h */
double
gdb_grouped_rows(PlannerInfo *root, double input_rows)
{
	List	   *exprs;

	if (root->parse->groupClause == NIL)
		return 1.0;
	exprs = get_sortgrouplist_exprs(gdb_processed_group_clause(root),
									root->processed_tlist);
	/* none left (every key redundant): one group, as the planner says */
	return estimate_num_groups(root, exprs, input_rows, NULL, NULL);
}

/* see custom_scan.h */
Cost
gdb_disabled_cost(bool sorts, bool hashes)
{
	Cost		cost = 0;

	if (!enable_seqscan)
		cost += disable_cost;
	if (sorts && !enable_sort)
		cost += disable_cost;
	if (hashes && !enable_hashagg)
		cost += disable_cost;
	return cost;
}
