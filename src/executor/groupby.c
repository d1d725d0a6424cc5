/*-------------------------------------------------------------------------
 *
 * groupby.c
 *	  gpu_groupby(): grouped aggregation of one table on the GPU or the CPU
 *	  path, answered with PostgreSQL's own result types and values.
 *
 * Flow: parse the arguments (groupby_parse.c, filter_compile.c) into a
 * GdbQuery; check privileges and the column definition list; run it from
 * the cache or the heap and emit the tuples (query_run.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "groupby.h"
#include "server_client.h"

/*
 * gpu_groupby(relation regclass, group_by text, aggregates text,
 *			   filter text DEFAULT NULL) RETURNS SETOF record
 *
 * One row per group: the group keys, then the aggregates, typed as the
 * equivalent SELECT keys, aggs FROM relation WHERE filter GROUP BY keys
 * would type them (the column definition list must say so).  Row order is
 * unspecified.  NULL keys form one group; with no keys there is exactly one
 * row, even over no rows.  Errors: 22004 for a NULL relation, group_by or
 * aggregates; those of groupby_parse.c and filter_compile.c; 42501 without
 * privileges; 0A000 under row-level security; 42809 for relations that are
 * not tables; the SQL errors PostgreSQL would raise evaluating the filter
 * (division by zero, out of range); 55000 when gpudb.device = gpu and no
 * GPU is usable.
 */
PG_FUNCTION_INFO_V1(gpu_groupby);
Datum
gpu_groupby(PG_FUNCTION_ARGS)
{
	static const char *const argnames[] = {"relation", "group_by", "aggregates"};
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext work,
				old;
	GdbQuery	q;
	int			i;

	for (i = 0; i < 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s argument of gpu_groupby must not be NULL", argnames[i])));

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);

	work = AllocSetContextCreate(CurrentMemoryContext, "gpu_groupby",
								 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(work);

	memset(&q, 0, sizeof(q));
	q.req = palloc0(sizeof(GdbRequest));
	q.rel = gdb_open_scannable_relation(PG_GETARG_OID(0), "gpu_groupby");
	gdb_parse_group_keys(&q, text_to_cstring(PG_GETARG_TEXT_PP(1)));
	gdb_parse_aggregates(&q, text_to_cstring(PG_GETARG_TEXT_PP(2)));
	if (!PG_ARGISNULL(3))
		gdb_compile_filter(text_to_cstring(PG_GETARG_TEXT_PP(3)), q.rel,
						   &q.cs, q.req, "gpu_groupby");
	gdb_check_privileges(&q);
	gdb_check_result_desc(&q, rsinfo->setDesc, "gpu_groupby");

	gdb_emit_result(&q, rsinfo);	/* the tuplestore copies each row */

	relation_close(q.rel, NoLock);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
	return (Datum) 0;
}
