/*-------------------------------------------------------------------------
 *
 * groupby.c
 *	  gpu_groupby(): grouped aggregation of one table on the GPU or the CPU
 *	  path, answered with PostgreSQL's own result types and values.
 *
 * Flow: parse the arguments (groupby_parse.c, filter_compile.c) into a
 * GdbRequest; check privileges and the column definition list; read the
 * heap in batches (heap_batch.c); run each batch on the chosen path
 * (device.c); combine the partial results of successive batches by running
 * the same request in combine mode over them; finish every aggregate on the
 * host (avg = sum / count through numeric_div, so numeric results are
 * PostgreSQL's digit for digit) and emit the tuples.
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

/* Open the relation and check that gpu_groupby can scan it. */
static Relation
open_scannable_relation(Oid relid)
{
	Relation	rel;
	char		kind;

	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	rel = relation_open(relid, AccessShareLock);
	kind = rel->rd_rel->relkind;
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary tables of other sessions")));

	if (kind == RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a partitioned table", RelationGetRelationName(rel)),
				 errdetail("gpu_groupby reads one table's heap."),
				 errhint("Call gpu_groupby on each partition, or use plain SQL.")));
	if (kind != RELKIND_RELATION && kind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table or materialized view",
						RelationGetRelationName(rel))));
	if (!RelationIsScannable(rel))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("materialized view \"%s\" has not been populated",
						RelationGetRelationName(rel)),
				 errhint("Use the REFRESH MATERIALIZED VIEW command.")));
	return rel;
}

/* Concatenate two batches of the same column layout (a may be NULL). */
static GdbBatch *
concat_batches(GdbExecutor *ex, const GdbBatch *a, const GdbBatch *b)
{
	uint32		kinds[GDB_MAX_COLUMNS];
	uint32		has_nulls[GDB_MAX_COLUMNS];
	uint64		na = a ? a->nrows : 0;
	uint64		rows = na + b->nrows;
	GdbBatch	layout;
	GdbBatch   *out;
	uint32		c;

	for (c = 0; c < b->ncols; c++)
	{
		kinds[c] = b->cols[c].kind;
		has_nulls[c] = b->cols[c].has_nulls;
	}
	gdb_batch_layout(&layout, b->ncols, kinds, has_nulls, Max(rows, 1));
	out = gdb_executor_alloc_batch(ex, layout.total_bytes);
	memcpy(out, &layout, sizeof(GdbBatch));
	out->nrows = rows;
	for (c = 0; c < b->ncols; c++)
	{
		uint64		w = gdb_kind_width(kinds[c]);
		char	   *dst = GDB_COL_PTR(out, out, c, char);

		if (a)
			memcpy(dst, GDB_COL_PTR(a, a, c, char), na * w);
		memcpy(dst + na * w, GDB_COL_PTR(b, b, c, char), b->nrows * w);
		if (has_nulls[c])
		{
			char	   *ndst = (char *) out + out->cols[c].nulls_off;

			if (a)
				memcpy(ndst, (const char *) a + a->cols[c].nulls_off, na);
			memcpy(ndst + na, (const char *) b + b->cols[c].nulls_off, b->nrows);
		}
	}
	return out;
}

/* The request that combines partial results (keys, then states). */
static GdbRequest *
make_combine_request(const GdbRequest *req)
{
	GdbRequest *comb = palloc0(sizeof(GdbRequest));
	uint32		i;

	comb->nkeys = req->nkeys;
	comb->naggs = req->naggs;
	comb->input_is_states = 1;
	for (i = 0; i < req->nkeys; i++)
		comb->key_cols[i] = i;
	for (i = 0; i < req->naggs; i++)
	{
		comb->aggs[i].kind = req->aggs[i].kind;
		comb->aggs[i].input_col = req->nkeys + i;
	}
	return comb;
}

/* A signed 128-bit integer (hi:lo) as numeric. */
static Numeric
int128_to_numeric_value(int64 hi, int64 lo)
{
	int128		v;
	char		buf[48];
	char	   *p = buf + sizeof(buf) - 1;
	bool		neg;
	uint128		u;

	if (hi == (lo < 0 ? -1 : 0))
		return int64_to_numeric(lo);

	v = (int128) (((uint128) (uint64) hi << 64) | (uint64) lo);
	neg = v < 0;
	u = neg ? (uint128) 0 - (uint128) v : (uint128) v;
	*p = '\0';
	do
	{
		*--p = '0' + (int) (u % 10);
		u /= 10;
	} while (u != 0);
	if (neg)
		*--p = '-';
	return DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(p),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1)));
}

/* PostgreSQL's float accumulators raise on overflow from finite inputs. */
static void
check_float_sum(const GdbAggState *s, double value)
{
	if (isinf(value) && s->i0 == 0)
		float_overflow_error();
}

/*
 * Final value of one aggregate from its transition state, as the
 * equivalent SQL aggregate's final function computes it.
 */
static Datum
finish_aggregate(const GdbGroupByQuery *q, int j, const GdbAggState *s,
				 bool *isnull)
{
	const GdbAggregate *agg = &q->aggs[j];
	uint32		kind = q->req->aggs[j].kind;

	*isnull = false;
	if (agg->fn == GDB_FN_COUNT_STAR || agg->fn == GDB_FN_COUNT)
		return Int64GetDatum(s->count);
	if (s->count == 0)
	{
		*isnull = true;
		return (Datum) 0;
	}

	switch (agg->fn)
	{
		case GDB_FN_SUM:
			if (kind == GDB_AGG_SUM_INT)
			{
				if (agg->result_type == INT8OID)
					return Int64GetDatum(s->i0);
				return NumericGetDatum(int128_to_numeric_value(s->i1, s->i0));
			}
			if (agg->result_type == FLOAT4OID)
			{
				float4		f = (float4) s->f;

				check_float_sum(s, f);
				return Float4GetDatum(f);
			}
			check_float_sum(s, s->f);
			return Float8GetDatum(s->f);
		case GDB_FN_AVG:
			if (kind == GDB_AGG_SUM_INT)
				return DirectFunctionCall2(numeric_div,
										   NumericGetDatum(int128_to_numeric_value(s->i1, s->i0)),
										   NumericGetDatum(int64_to_numeric(s->count)));
			check_float_sum(s, s->f);
			return Float8GetDatum(s->f / (double) s->count);
		case GDB_FN_MIN:
		case GDB_FN_MAX:
			{
				int			col = q->req->aggs[j].input_col;

				return gdb_value_to_datum(&q->cs, col, s->i0, s->f);
			}
		default:
			break;
	}
	elog(ERROR, "gpudb: unexpected aggregate %d", (int) agg->fn);
	pg_unreachable();
}

/* Emit one tuple per group of the final result batch. */
static void
emit_groups(const GdbGroupByQuery *q, const GdbBatch *res, ReturnSetInfo *rsinfo)
{
	int			natts = q->nkeys + q->naggs;
	Datum	   *values = palloc(sizeof(Datum) * Max(natts, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(natts, 1));
	uint64		g;

	for (g = 0; g < res->nrows; g++)
	{
		int			k,
					j;

		for (k = 0; k < q->nkeys; k++)
		{
			const uint8_t *kn = GDB_NULL_PTR(res, res, k);

			nulls[k] = kn ? kn[g] != 0 : false;
			values[k] = nulls[k] ? (Datum) 0 :
				gdb_value_to_datum(&q->cs, q->req->key_cols[k],
								   GDB_COL_PTR(res, res, k, int64)[g],
								   GDB_COL_PTR(res, res, k, double)[g]);
		}
		for (j = 0; j < q->naggs; j++)
		{
			const GdbAggState *s = &GDB_COL_PTR(res, res, q->nkeys + j, GdbAggState)[g];

			values[q->nkeys + j] = finish_aggregate(q, j, s, &nulls[q->nkeys + j]);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * Text constants of the filter were interned into the request's own
 * dictionary before any row, so for batches read into that dictionary a
 * constant's code is its index there.
 */
static void
bind_text_constants(GdbGroupByQuery *q)
{
	int64		n = q->cs.dict ? gdb_dict_size(q->cs.dict) : 0;
	int64	   *codes = palloc(sizeof(int64) * Max(n, 1));
	int64		i;

	for (i = 0; i < n; i++)
		codes[i] = i;
	if (gdb_request_bind_text(q->req, codes, (uint32) n) != GDB_OK)
		elog(ERROR, "gpudb: filter text constant out of range");
	pfree(codes);
}

/*
 * Run the request over the whole heap; returns the combined result.  Two
 * batch buffers: the backend reads the next batch from the heap while the
 * GPU server works on the last one (copy and kernels overlap the heap
 * read); partial results are combined as they come back.
 */
static GdbBatch *
run_groupby(GdbGroupByQuery *q, GdbExecutor *ex, int *nbatches)
{
	GdbRequest *combine = make_combine_request(q->req);
	BlockNumber nblocks = RelationGetNumberOfBlocks(q->rel);
	uint64		capacity;
	GdbBatch	layout;
	GdbBatch   *input[2];
	GdbBatch   *acc = NULL;
	GdbHeapReader *reader;
	bool		in_flight = false;
	int			cur = 0;
	int			i;

	/* a heap page holds at most MaxHeapTuplesPerPage rows */
	capacity = Min((uint64) gpudb_batch_rows,
				   Max((uint64) 1024, (uint64) nblocks * MaxHeapTuplesPerPage));
	gdb_columnset_layout(&q->cs, &layout, capacity, false);
	for (i = 0; i < 2; i++)
	{
		input[i] = gdb_executor_alloc_batch(ex, layout.total_bytes);
		memcpy(input[i], &layout, sizeof(GdbBatch));
	}

	*nbatches = 0;
	reader = gdb_heap_reader_begin(q->rel, &q->cs, capacity);
	for (;;)
	{
		uint64		n = gdb_heap_reader_next(reader, input[cur], NULL);

		if (in_flight)
		{
			GdbBatch   *part = gdb_executor_groupby_finish(ex);

			in_flight = false;
			acc = acc ? gdb_executor_groupby(ex, combine, concat_batches(ex, acc, part)) : part;
		}
		/* an empty table still runs once: no keys give one row */
		if (n == 0 && *nbatches > 0)
			break;
		gdb_executor_groupby_start(ex, q->req, input[cur]);
		in_flight = true;
		(*nbatches)++;
		cur = 1 - cur;
		CHECK_FOR_INTERRUPTS();
		if (n < capacity)
		{
			GdbBatch   *part = gdb_executor_groupby_finish(ex);

			acc = acc ? gdb_executor_groupby(ex, combine, concat_batches(ex, acc, part)) : part;
			break;
		}
	}
	gdb_heap_reader_end(reader);
	return acc;
}

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
	GdbGroupByQuery q;
	GdbExecutor *ex;
	GdbBatch   *result;
	GdbStats	cache_stats = {0};
	GdbStats	last_stats;
	int			cache_state;
	instr_time	start,
				elapsed;
	int			nbatches;
	int			i;

	INSTR_TIME_SET_CURRENT(start);
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
	q.rel = open_scannable_relation(PG_GETARG_OID(0));
	gdb_parse_group_keys(&q, text_to_cstring(PG_GETARG_TEXT_PP(1)));
	gdb_parse_aggregates(&q, text_to_cstring(PG_GETARG_TEXT_PP(2)));
	if (!PG_ARGISNULL(3))
		gdb_compile_filter(text_to_cstring(PG_GETARG_TEXT_PP(3)), q.rel,
						   &q.cs, q.req, "gpu_groupby");
	gdb_check_privileges(&q);
	gdb_check_result_desc(&q, rsinfo->setDesc);

	/* the cache first; it needs the filter's text constants unbound */
	result = gdb_cache_groupby(&q, &cache_stats, &cache_state);
	if (result)
	{
		const GdbHelloReply *hello = gdb_server_hello();

		nbatches = 0;
		last_stats = cache_stats;
		snprintf(gdb_last_path, sizeof(gdb_last_path), "%s:%s",
				 hello && hello->use_gpu ? "gpu" : "cpu",
				 hello && hello->use_gpu ? hello->devs[0].name : "GPU server in CPU mode");
		strlcpy(gdb_last_source, "cache", sizeof(gdb_last_source));
	}
	else
	{
		bind_text_constants(&q);
		ex = gdb_executor_begin();
		result = run_groupby(&q, ex, &nbatches);
		last_stats = ex->stats;
		snprintf(gdb_last_path, sizeof(gdb_last_path), "%s:%s",
				 ex->use_gpu ? "gpu" : "cpu", ex->device_name);
		strlcpy(gdb_last_source, "heap", sizeof(gdb_last_source));
	}

	emit_groups(&q, result, rsinfo);	/* the tuplestore copies each row */

	INSTR_TIME_SET_CURRENT(elapsed);
	INSTR_TIME_SUBTRACT(elapsed, start);
	gdb_last_stats = last_stats;
	gdb_last_batches = nbatches;
	gdb_last_total_ms = INSTR_TIME_GET_MILLISEC(elapsed);

	relation_close(q.rel, NoLock);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
	return (Datum) 0;
}
