/*-------------------------------------------------------------------------
 *
 * query_run.c
 *	  Run a parsed query (GdbQuery: a GROUP BY, SELECT or SORT request over
 *	  one table) from the column cache or the heap, and turn its result
 *	  batches into PostgreSQL values.  Shared by the SQL functions
 *	  (gpu_groupby, gpu_select, gpu_sort) and the custom scan nodes.
 *
 * Flow: the cache first (cache.c: the GPU server runs the request over the
 * resident columns when they are valid for the query's snapshot); else read
 * the heap in batches (heap_batch.c; a large heap with parallel workers,
 * parallel_feed.c), run each batch on the chosen path
 * (device.c) while the next one is read, and combine the partial results:
 * GROUP BY runs the same request in combine mode over the concatenated
 * partial states; SORT sorts the concatenated partial results again (each
 * already cut to the limit); SELECT keeps the batches as they come.  An
 * ordered GROUP BY (sort keys and a limit on the group-by request, from a
 * GpudbAgg that took the ORDER BY) is ordered and cut only by the request
 * that sees every group: the request itself for a single batch or the
 * cache, else the last combine (see run_heap).
 * Aggregates are finished on the host (avg = sum / count through
 * numeric_div, so numeric results are PostgreSQL's digit for digit; the
 * sum of a numeric(p,s) column is its scaled integers' sum at scale s);
 * count(DISTINCT), the percentiles and mode come from histogram requests
 * run after the main one, from the same source (groupby_ordered_set.c).
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
#include "utils/tuplestore.h"

#include "groupby.h"
#include "parallel_feed.h"
#include "partial_results.h"
#include "server_client.h"

/* see groupby.h */
Relation
gdb_open_scannable_relation(Oid relid, const char *fname)
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
				 errdetail("%s reads one table's heap.", fname),
				 errhint("Call %s on each partition, or use plain SQL.", fname)));
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

/* executor-batch allocator of gdb_concat_batches */
static void *
concat_alloc(void *arg, size_t bytes)
{
	return gdb_executor_alloc_batch((GdbExecutor *) arg, bytes);
}

/* see groupby.h */
GdbBatch *
gdb_concat_batches(GdbExecutor *ex, List *parts)
{
	GdbBatch   *out = gdb_batch_concat(parts, ex ? concat_alloc : NULL, ex);

	if (out == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory for partial results")));
	return out;
}

/* A signed 128-bit integer (hi:lo) as numeric (display scale 0). */
static Numeric
int128_to_numeric_value(int64 hi, int64 lo)
{
	return DatumGetNumeric(gdb_scaled_int128_to_numeric(hi, lo, 0));
}

/* PostgreSQL's float accumulators raise on overflow from finite inputs. */
static void
check_float_sum(const GdbAggState *s, double value)
{
	if (isinf(value) && s->i0 == 0)
		float_overflow_error();
}

/* numeric a op b through PostgreSQL's own numeric functions. */
#define NUM2(fn, a, b) DirectFunctionCall2(fn, (a), (b))

/*
 * The square root of numeric v >= 0 rounded (half up) to rscale digits after
 * the point, as numeric.c's sqrt_var(v, rscale) returns it: numeric_sqrt
 * (at least rscale digits) rounded to rscale, then moved by one unit in
 * the last place while it is not the correctly rounded root, decided
 * exactly: c is right when (c - u/2)^2 <= v < (c + u/2)^2.
 */
static Datum
numeric_sqrt_rounded(Datum v, int rscale)
{
	Datum		r = NUM2(numeric_round, DirectFunctionCall1(numeric_sqrt, v),
						 Int32GetDatum(rscale));
	Datum		ulp = DirectFunctionCall3(numeric_in,
										  CStringGetDatum(psprintf("1e-%d", rscale)),
										  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	Datum		half = NUM2(numeric_div, ulp, NumericGetDatum(int64_to_numeric(2)));
	Datum		zero = NumericGetDatum(int64_to_numeric(0));
	Datum		hi,
				lo;

	for (;;)
	{
		hi = NUM2(numeric_add, r, half);
		if (DatumGetInt32(NUM2(numeric_cmp, NUM2(numeric_mul, hi, hi), v)) > 0)
			break;
		r = NUM2(numeric_add, r, ulp);
	}
	for (;;)
	{
		lo = NUM2(numeric_sub, r, half);
		if (DatumGetInt32(NUM2(numeric_cmp, lo, zero)) <= 0 ||
			DatumGetInt32(NUM2(numeric_cmp, NUM2(numeric_mul, lo, lo), v)) <= 0)
			break;
		r = NUM2(numeric_sub, r, ulp);
	}
	return r;					/* rscale digits: round, add and sub keep them */
}

/*
 * var_samp/var_pop/stddev_samp/stddev_pop of an integer column from N,
 * sum(x) and sum(x^2), exactly as numeric.c's numeric_stddev_internal:
 * (N * sumX2 - sumX^2) / (N * (N - 1)) (or N * N), 0 when the numerator is
 * not positive, the division at select_div_scale's scale (numeric_div),
 * the root at that same scale.  NULL below 2 rows (sample) or 1 (pop).
 */
static Datum
finish_int_variance(int64 n, Numeric sumx, Numeric sumx2, bool sample,
					bool root, bool *isnull)
{
	Datum		vn = NumericGetDatum(int64_to_numeric(n));
	Datum		num,
				var;

	if (n <= (sample ? 1 : 0))
	{
		*isnull = true;
		return (Datum) 0;
	}
	num = NUM2(numeric_sub, NUM2(numeric_mul, vn, NumericGetDatum(sumx2)),
			   NUM2(numeric_mul, NumericGetDatum(sumx), NumericGetDatum(sumx)));
	if (DatumGetInt32(NUM2(numeric_cmp, num, NumericGetDatum(int64_to_numeric(0)))) <= 0)
		return NumericGetDatum(int64_to_numeric(0));
	var = NUM2(numeric_div, num,
			   NUM2(numeric_mul, vn, sample ?
					NumericGetDatum(int64_to_numeric(n - 1)) : vn));
	if (!root)
		return var;
	return numeric_sqrt_rounded(var, DatumGetInt32(DirectFunctionCall1(numeric_scale, var)));
}

/*
 * The same of a float column from its VAR_FLOAT state, as float.c's
 * float8_var_samp & co.: Sxx / (N - 1) or Sxx / N, NaN after an infinite
 * or NaN input, PostgreSQL's overflow error when the sums overflowed from
 * finite inputs.
 */
static Datum
finish_float_variance(const GdbAggState *s, bool sample, bool root, bool *isnull)
{
	double		n = (double) s->count;
	double		sxx;
	double		r;

	memcpy(&sxx, &s->i0, sizeof(sxx));	/* VAR_FLOAT keeps Sxx's bits in i0 */
	if (s->count <= (sample ? 1 : 0))
	{
		*isnull = true;
		return (Datum) 0;
	}
	if (s->i1 > 0)
		sxx = get_float8_nan();
	else if (!isfinite(s->f) || !isfinite(sxx))
		float_overflow_error();
	r = sxx / (sample ? n - 1.0 : n);
	return Float8GetDatum(root ? sqrt(r) : r);
}

/*
 * sum or avg of a numeric(p,s) column (state s over the scaled integers,
 * count > 0; nan the hidden max of the column, GDB_NUMERIC_NAN when some
 * input was NaN), as numeric.c's numeric_sum and numeric_avg finish: NaN
 * after any NaN input; else the sum, whose display scale is the inputs',
 * s; avg = numeric_div(sum, count).
 */
static Datum
finish_numeric_sum(const GdbAggregate *agg, const GdbAggState *s,
				   const GdbAggState *nan, int scale)
{
	Datum		sum;

	if (nan->count > 0 && nan->i0 == GDB_NUMERIC_NAN)
		return gdb_scaled_to_numeric(GDB_NUMERIC_NAN, scale);
	sum = gdb_scaled_int128_to_numeric(s->i1, s->i0, scale);
	if (agg->fn == GDB_FN_SUM)
		return sum;
	return DirectFunctionCall2(numeric_div, sum,
							   NumericGetDatum(int64_to_numeric(s->count)));
}

/*
 * Final value of one aggregate from its transition state (row row of the
 * result batch res), as the equivalent SQL aggregate's final function
 * computes it.
 */
static Datum
finish_aggregate(const GdbQuery *q, int j, const GdbBatch *res, uint64 row,
				 bool *isnull)
{
	const GdbAggregate *agg = &q->aggs[j];
	const GdbAggState *s = &GDB_COL_PTR(res, res, q->nkeys + j, GdbAggState)[row];
	uint32		kind = q->req->aggs[j].kind;

	*isnull = false;
	if (GDB_FN_IS_ORDERED_SET(agg->fn))
		return gdb_ordered_set_value(q, j, res, row, isnull);
	if (agg->fn == GDB_FN_COUNT_STAR || agg->fn == GDB_FN_COUNT)
		return Int64GetDatum(s->count);
	if (s->count == 0)
	{
		*isnull = true;
		return (Datum) 0;
	}

	if (gdb_aggregate_nan_companion(agg->fn, agg->argtype))
	{
		Datum		v;

		if (agg->companion < 0)
			elog(ERROR, "gpudb: numeric %s without its NaN check", agg->label);
		v = finish_numeric_sum(agg, s,
							   &GDB_COL_PTR(res, res, q->nkeys + agg->companion,
											GdbAggState)[row],
							   gdb_column_numeric_scale(&q->cs, q->req->aggs[j].input_col));
		if (agg->dscale_companion >= 0)
		{
			/*
			 * the largest display scale of the values added: the digits
			 * past it are zeros, so rounding to it only sets the scale
			 */
			const GdbAggState *d = &GDB_COL_PTR(res, res, q->nkeys + agg->dscale_companion,
												GdbAggState)[row];

			if (d->count > 0 && !numeric_is_nan(DatumGetNumeric(v)))
				v = DirectFunctionCall2(numeric_round, v, Int32GetDatum((int32) d->i0));
		}
		return v;
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
			if (kind == GDB_AGG_SUM_FLOAT4)
			{
				/* float4pl raised at the step that overflowed */
				if (s->i1 != 0)
					float_overflow_error();
				return Float4GetDatum((float4) s->f);
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
		case GDB_FN_VAR_SAMP:
		case GDB_FN_VAR_POP:
		case GDB_FN_STDDEV_SAMP:
		case GDB_FN_STDDEV_POP:
			{
				bool		sample = agg->fn == GDB_FN_VAR_SAMP ||
					agg->fn == GDB_FN_STDDEV_SAMP;
				bool		root = agg->fn == GDB_FN_STDDEV_SAMP ||
					agg->fn == GDB_FN_STDDEV_POP;
				const GdbAggState *sum;

				if (kind == GDB_AGG_VAR_FLOAT)
					return finish_float_variance(s, sample, root, isnull);
				if (agg->companion < 0)
					elog(ERROR, "gpudb: integer variance without its sum");
				sum = &GDB_COL_PTR(res, res, q->nkeys + agg->companion, GdbAggState)[row];
				return finish_int_variance(s->count,
										   int128_to_numeric_value(sum->i1, sum->i0),
										   int128_to_numeric_value(s->i1, s->i0),
										   sample, root, isnull);
			}
		default:
			break;
	}
	elog(ERROR, "gpudb: unexpected aggregate %d", (int) agg->fn);
	pg_unreachable();
}

/* see groupby.h */
int
gdb_query_natts(const GdbQuery *q)
{
	return q->req->oper == GDB_OPER_GROUPBY ? q->nkeys + q->naggs : q->nout;
}

/* see groupby.h */
void
gdb_result_row_values(const GdbQuery *q, const GdbBatch *res, uint64 row,
					  Datum *values, bool *nulls)
{
	int			nvals = q->req->oper == GDB_OPER_GROUPBY ? q->nkeys : q->nout;
	int			k,
				j;

	/* group keys or output columns: copies of input columns */
	for (k = 0; k < nvals; k++)
	{
		const uint8_t *kn = GDB_NULL_PTR(res, res, k);

		nulls[k] = kn ? kn[row] != 0 : false;
		values[k] = nulls[k] ? (Datum) 0 :
			gdb_value_to_datum(&q->cs, gdb_request_result_source(q->req, k),
							   GDB_COL_PTR(res, res, k, int64)[row],
							   GDB_COL_PTR(res, res, k, double)[row]);
	}
	if (q->req->oper != GDB_OPER_GROUPBY)
		return;
	for (j = 0; j < q->naggs; j++)
		values[q->nkeys + j] = finish_aggregate(q, j, res, row, &nulls[q->nkeys + j]);
}

/*
 * Text constants of the filter were interned into the request's own
 * dictionary before any row, so for batches read into that dictionary a
 * constant's code is its index there.
 */
static void
bind_text_constants(GdbQuery *q)
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

/* The re-sort of a SORT's partial results (gdb_resort_request). */
static GdbRequest *
make_resort_request(const GdbRequest *req)
{
	GdbRequest *rs = gdb_resort_request(req);

	if (rs == NULL)
		elog(ERROR, "gpudb: a sort key is not an output column");
	return rs;
}

/*
 * Fold a partial result of the heap run into the accumulated ones.  A
 * group-by's parts wait until their rows reach the first one's (the
 * groups combined so far), then combine with it in one combine request:
 * with many groups a part mostly adds groups, and combining at every
 * batch would sort every group again per batch (batches x groups); waiting
 * for as many rows as are combined makes that work geometric (combines
 * after 2, 4, 8 ... parts), for twice the partial results' memory at most.
 * The last part of an ordered group-by (final_combine not NULL) combines
 * every part by final_combine, and then sets *ordered_done; an unordered
 * one's parts left over are combined by run_heap.
 */
static List *
accumulate(GdbQuery *q, GdbExecutor *ex, List *acc, GdbBatch *part,
		   GdbRequest *combine, GdbRequest *final_combine, bool *ordered_done)
{
	uint64		pending = 0;
	ListCell   *lc;

	if (acc == NIL || q->req->oper != GDB_OPER_GROUPBY)
		return lappend(acc, part);	/* (SORT: sorted together at the end) */
	acc = lappend(acc, part);
	for_each_from(lc, acc, 1)
		pending += ((GdbBatch *) lfirst(lc))->nrows;
	if (final_combine == NULL && pending < ((GdbBatch *) linitial(acc))->nrows)
		return acc;
	if (final_combine)
		*ordered_done = true;
	return list_make1(gdb_executor_combine(ex, final_combine ? final_combine : combine,
										   gdb_concat_batches(ex, acc)));
}

/*
 * Run the request over the whole heap; returns the result batches.  Two
 * batch buffers: the backend reads the next batch from the heap while the
 * GPU server works on the last one (copy and kernels overlap the heap
 * read); partial results are combined as they come back.
 *
 * An ordered group-by (gdb_request_ordered: sort keys, or a group
 * qualifier) is cut and filtered only once every partial result is in: a
 * table read in one batch runs the ordered request itself; with several
 * batches each runs it without the order, limit and qualifier, the
 * combines of the partial results likewise, except the last, which
 * carries them (or, when the last batch's result was the only one, an
 * ordered combine over it alone).
 *
 * A heap that gdb_parallel_feed_workers finds large enough is read by
 * parallel workers and this backend together instead (parallel_feed.c);
 * their partial results then meet here: a GROUP BY's in one final combine
 * (the ordered one for an ordered group-by), a SORT's in the re-sort.
 * *workers_planned and *workers_launched say how many workers were asked
 * for and started (0 and unchanged for the single-backend read).
 */
static List *
run_heap(GdbQuery *q, GdbExecutor *ex, int *nbatches, int *workers_planned,
		 int *workers_launched)
{
	GdbRequest *combine = q->req->oper == GDB_OPER_GROUPBY ?
		gdb_combine_request(q->req, false) : NULL;
	bool		ordered = gdb_request_ordered(q->req);
	GdbRequest *final_combine = ordered ? gdb_combine_request(q->req, true) : NULL;
	GdbRequest *batch_req = ordered ? gdb_unordered_request(q->req) : q->req;
	bool		ordered_done = false;
	BlockNumber nblocks = RelationGetNumberOfBlocks(q->rel);
	uint64		capacity;
	GdbBatch	layout;
	GdbBatch   *input[2];
	List	   *acc = NIL;
	GdbHeapReader *reader;
	GdbTableMemo *memo = NULL;
	bool		in_flight = false;
	int			cur = 0;
	int			i;

	/*
	 * A large heap: parallel workers read it with this backend
	 * (parallel_feed.c), and their partial results come back together; a
	 * GROUP BY's as one batch of states for one (final) combine (a join
	 * probe's build sides go to the workers in the segment).
	 */
	*workers_planned = gdb_parallel_feed_workers(q->rel, nblocks);
	if (*workers_planned > 0)
	{
		acc = gdb_parallel_feed(q, ex, batch_req, combine, nblocks,
								*workers_planned, nbatches, workers_launched);
		if (q->req->oper == GDB_OPER_GROUPBY)
			acc = list_make1(gdb_executor_combine(ex, ordered ? final_combine : combine,
												  linitial(acc)));
		ordered_done = true;
		goto combined;
	}

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
	if (q->req->ntables > 0)
		memo = gdb_table_memo_create();
	reader = gdb_heap_reader_begin(q->rel, &q->cs, capacity, gdb_query_snapshot(q));
	for (;;)
	{
		uint64		n = gdb_heap_reader_next(reader, input[cur], NULL);
		GdbRequest *run_req;

		if (in_flight)
		{
			/* n == 0: the batch in flight was the last one */
			in_flight = false;
			acc = accumulate(q, ex, acc, gdb_executor_groupby_finish(ex), combine,
							 n == 0 ? final_combine : NULL, &ordered_done);
		}
		/* an empty table still runs once: no keys give one row */
		if (n == 0 && *nbatches > 0)
			break;
		/* the only batch: the request itself, ordered if it is */
		run_req = *nbatches == 0 && n < capacity ? q->req : batch_req;
		if (run_req == q->req)
			ordered_done = ordered;
		/* code tables: every string the dictionary holds now, this batch's */
		if (memo)
			gdb_tables_bind(memo, q->cs.dict, run_req);
		gdb_executor_groupby_start(ex, run_req, input[cur]);
		in_flight = true;
		(*nbatches)++;
		cur = 1 - cur;
		CHECK_FOR_INTERRUPTS();
		if (n < capacity)
		{
			acc = accumulate(q, ex, acc, gdb_executor_groupby_finish(ex), combine,
							 final_combine, &ordered_done);
			break;
		}
	}
	gdb_heap_reader_end(reader);

combined:

	/*
	 * an ordered group-by whose last combine was not ordered yet; its input
	 * is copied into an executor batch (the GPU server reads only those)
	 */
	if (ordered && !ordered_done)
		acc = list_make1(gdb_executor_combine(ex, final_combine,
											  gdb_concat_batches(ex, acc)));
	/* an unordered group-by's parts that accumulate left waiting */
	else if (q->req->oper == GDB_OPER_GROUPBY && list_length(acc) > 1)
		acc = list_make1(gdb_executor_combine(ex, combine, gdb_concat_batches(ex, acc)));

	if (q->req->oper == GDB_OPER_SORT && list_length(acc) > 1)
	{
		GdbBatch   *all = gdb_concat_batches(ex, acc);

		/* text sort keys: each part ranked under its own dictionary state */
		gdb_result_fill_ranks(&q->cs, q->req, all);
		acc = list_make1(gdb_executor_combine(ex, make_resort_request(q->req), all));
	}
	return acc;
}

/*
 * add_companions: give each visible aggregate j with needs(q, j) a hidden
 * companion state of kind over its input column: an aggregate of the query
 * (or an earlier companion) of that kind over that column when there is
 * one, else a new one after the visible aggregates.  what names the
 * aggregates that count twice, for the 54000 error past
 * GDB_MAX_AGGREGATES.
 */
static void
add_companions(GdbQuery *q, bool (*needs) (const GdbQuery *q, int j),
			   uint32 kind, const char *what)
{
	GdbRequest *req = q->req;
	uint32		a;
	int			j;

	for (j = 0; req->oper == GDB_OPER_GROUPBY && j < q->naggs; j++)
	{
		GdbAggregate *agg = &q->aggs[j];

		if (!needs(q, j) || agg->companion >= 0)
			continue;
		for (a = 0; a < req->naggs; a++)
			if (req->aggs[a].kind == kind &&
				req->aggs[a].input_col == req->aggs[j].input_col)
				break;
		if (a < req->naggs)
		{
			agg->companion = (int) a;
			continue;
		}
		if (req->naggs >= GDB_MAX_AGGREGATES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many aggregates"),
					 errdetail("gpudb accepts at most %d aggregates; %s counts twice.",
							   GDB_MAX_AGGREGATES, what)));
		req->aggs[req->naggs].kind = kind;
		req->aggs[req->naggs].input_col = req->aggs[j].input_col;
		agg->companion = (int) req->naggs++;
	}
}

/*
 * A numeric sum over a CASE of arms of different scales (GdbAggregate.
 * dscale_col) needs the largest display scale of its values: a MAX_INT
 * state over dscale_col.
 */
static void
add_dscale_companions(GdbQuery *q)
{
	GdbRequest *req = q->req;
	uint32		a;
	int			j;

	for (j = 0; req->oper == GDB_OPER_GROUPBY && j < q->naggs; j++)
	{
		GdbAggregate *agg = &q->aggs[j];

		if (agg->dscale_col < 0 || agg->dscale_companion >= 0)
			continue;
		for (a = 0; a < req->naggs; a++)
			if (req->aggs[a].kind == GDB_AGG_MAX_INT &&
				req->aggs[a].input_col == agg->dscale_col)
				break;
		if (a == req->naggs)
		{
			if (req->naggs >= GDB_MAX_AGGREGATES)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("too many aggregates"),
						 errdetail("gpudb accepts at most %d aggregates; a numeric sum over a CASE of arms of different scales counts three times.",
								   GDB_MAX_AGGREGATES)));
			req->aggs[a].kind = GDB_AGG_MAX_INT;
			req->aggs[a].input_col = agg->dscale_col;
			req->naggs++;
		}
		agg->dscale_companion = (int) a;
	}
}

/* An integer variance needs the sum of its input (a SUM_INT companion). */
static bool
needs_sum_companion(const GdbQuery *q, int j)
{
	return q->req->aggs[j].kind == GDB_AGG_SUMSQ_INT;
}

/*
 * A numeric sum or avg needs a MAX_INT companion, which tells a NaN input
 * (gdb_aggregate_nan_companion).
 */
static bool
needs_nan_companion(const GdbQuery *q, int j)
{
	return gdb_aggregate_nan_companion(q->aggs[j].fn, q->aggs[j].argtype);
}

/* Input column col among req's result columns (a hidden one if new). */
static void
add_result_column(GdbRequest *req, int32 col)
{
	uint32		i;

	for (i = 0; i < req->nout; i++)
		if (req->out_cols[i] == col)
			return;
	if (req->nout >= GDB_MAX_COLUMNS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many output and sort columns"),
				 errdetail("gpudb returns at most %d columns.", GDB_MAX_COLUMNS)));
	req->out_cols[req->nout++] = col;
}

/* see groupby.h */
void
gdb_query_prepare(GdbQuery *q)
{
	GdbRequest *req = q->req;
	uint32		k;

	/* hidden companion states, after the visible aggregates */
	add_companions(q, needs_sum_companion, GDB_AGG_SUM_INT,
				   "an integer variance or stddev");
	add_companions(q, needs_nan_companion, GDB_AGG_MAX_INT, "a numeric sum or avg");
	add_dscale_companions(q);

	/*
	 * an ordered group-by's numeric sum keys (numeric(p,s), int8): ordered
	 * by their low 64 bits where that is exact, else the request fails
	 * with GDB_ERR_FIXED_POINT (GDB_SORT_EXACT_SUM; the plan allows such
	 * keys only to a node with PostgreSQL's plan behind it)
	 */
	for (k = 0; req->oper == GDB_OPER_GROUPBY && k < req->nsort; k++)
	{
		GdbSortKey *sk = &req->sort_keys[k];
		int			j = sk->col - (int) q->nkeys;

		sk->exact = 0;
		if (j < 0 || j >= q->naggs || req->aggs[j].kind != GDB_AGG_SUM_INT ||
			q->aggs[j].result_type == INT8OID)
			continue;
		sk->exact = GDB_SORT_EXACT_SUM |
			(q->aggs[j].companion >= 0 &&
			 req->aggs[q->aggs[j].companion].kind == GDB_AGG_MAX_INT ?
			 (uint16) (q->aggs[j].companion + 1) : 0);
	}
	if (req->oper != GDB_OPER_SORT)
		return;

	/*
	 * every sort key travels in the result, for the final sort; a text key's
	 * rank column with its text column, from which the final sort recomputes
	 * the ranks (gdb_result_fill_ranks)
	 */
	for (k = 0; k < req->nsort; k++)
	{
		add_result_column(req, req->sort_keys[k].col);
		if (req->sort_keys[k].col >= 0 && req->sort_keys[k].col < q->cs.ncols &&
			q->cs.rank_of[req->sort_keys[k].col] > 0)
			add_result_column(req, q->cs.rank_of[req->sort_keys[k].col] - 1);
	}
}

/* see groupby.h */
void
gdb_query_run_source(GdbQuery *q, GdbRunInfo *info, GdbRunSource source)
{
	GdbExecutor *ex;
	GdbBatch   *result = NULL;

	memset(info, 0, sizeof(GdbRunInfo));
	gdb_query_prepare(q);

	/* the cache first; it needs the filter's text constants unbound */
	if (source != GDB_SOURCE_HEAP)
		result = gdb_cache_groupby(q, &info->stats, &info->cache_state);
	else
		info->cache_state = GDB_CACHE_ABSENT;
	if (result)
	{
		const GdbHelloReply *hello = gdb_server_hello();

		info->batches = list_make1(result);
		info->from_cache = true;
		snprintf(info->path, sizeof(info->path), "%s:%s",
				 hello && hello->use_gpu ? "gpu" : "cpu",
				 hello && hello->use_gpu ? hello->devs[0].name : "GPU server in CPU mode");
	}
	else if (source != GDB_SOURCE_CACHE)
	{
		ex = gdb_executor_begin();

		/*
		 * build sides the GPU server keeps: into join_data where they hold
		 * the cache's text codes, or where the backend runs the batches
		 * itself (the CPU path without the server)
		 */
		if (q->unkeep != NULL && (q->kept_text || !ex->use_gpu))
		{
			void		(*unkeep) (GdbQuery *q, void *arg) = q->unkeep;

			q->unkeep = NULL;
			unkeep(q, q->unkeep_arg);
		}
		bind_text_constants(q);
		info->batches = run_heap(q, ex, &info->nbatches, &info->workers_planned,
								 &info->workers_launched);
		info->stats = ex->stats;
		snprintf(info->path, sizeof(info->path), "%s:%s",
				 ex->use_gpu ? "gpu" : "cpu", ex->device_name);
	}
}

/* see groupby.h */
void
gdb_query_run(GdbQuery *q, GdbRunInfo *info)
{
	instr_time	start,
				elapsed;

	INSTR_TIME_SET_CURRENT(start);
	gdb_query_run_source(q, info, GDB_SOURCE_ANY);
	/* count(DISTINCT), percentiles, mode: histograms from the same source */
	if (!gdb_ordered_set_run(q, info))
	{
		gdb_query_run_source(q, info, GDB_SOURCE_HEAP);
		if (!gdb_ordered_set_run(q, info))
			elog(ERROR, "gpudb: histogram request failed on the heap");
	}
	INSTR_TIME_SET_CURRENT(elapsed);
	INSTR_TIME_SUBTRACT(elapsed, start);
	info->total_ms = INSTR_TIME_GET_MILLISEC(elapsed);

	/* what gpu_last_execution() reports */
	gdb_last_stats = info->stats;
	gdb_last_batches = info->nbatches;
	gdb_last_total_ms = info->total_ms;
	strlcpy(gdb_last_path, info->path, sizeof(gdb_last_path));
	strlcpy(gdb_last_source, info->from_cache ? "cache" : "heap",
			sizeof(gdb_last_source));
}

/* see groupby.h */
void
gdb_emit_result(GdbQuery *q, ReturnSetInfo *rsinfo)
{
	GdbRunInfo	info;
	int			natts = gdb_query_natts(q);
	Datum	   *values = palloc(sizeof(Datum) * Max(natts, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(natts, 1));
	ListCell   *lc;

	gdb_query_run(q, &info);
	foreach(lc, info.batches)
	{
		const GdbBatch *res = (const GdbBatch *) lfirst(lc);
		uint64		row;

		for (row = 0; row < res->nrows; row++)
		{
			gdb_result_row_values(q, res, row, values, nulls);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
}
