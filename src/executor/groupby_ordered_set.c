/*-------------------------------------------------------------------------
 *
 * groupby_ordered_set.c
 *	  count(DISTINCT x), percentile_cont(f), percentile_disc(f) and mode()
 *	  WITHIN GROUP (ORDER BY x) for GpudbAgg and gpu_groupby(), computed from
 *	  a histogram that the device's ordered group-by builds.
 *
 * Algorithm: every one of these aggregates is a function of the sorted
 * multiset of a group's non-NULL x values.  For each column x that such an
 * aggregate reads, a secondary GROUP BY request runs over the same rows
 * (same columns, filter and dictionary, from the same source as the main
 * request: the cache when the main one used it, else the heap) with the
 * group keys plus x as keys and count(*) as its only aggregate, ordered on
 * the device by (keys, x) ascending with NULLs last.  Its result, the
 * histogram, lists each group's distinct x values in order with their
 * multiplicities, one group after another.  Where every such aggregate
 * of x is count(DISTINCT x), the histogram is collapsed where it was
 * ordered (on the device, or the CPU path) to one row per group with its
 * number of distinct non-NULL x (GdbRequest.distinct_last_key): TPC-H Q16
 * at SF 10 brings back 27,840 rows instead of 2.4M.  One pass over it
 * finishes the aggregates of every group as PostgreSQL's final functions do
 * (orderedsetaggs.c; NULL inputs are ignored, a group without non-NULL
 * input gives NULL, or 0 for count):
 *	 count(DISTINCT x)	the number of distinct non-NULL x;
 *	 mode()				the first x in sort order whose multiplicity is
 *						strictly the largest;
 *	 percentile_disc(f)	the value at row ceil(f * n) of the n sorted
 *						values (the first row when that is below 1);
 *	 percentile_cont(f)	float8 interpolation between rows floor(f * (n-1))
 *						and ceil(f * (n-1)) (0-based): lo + p * (hi - lo),
 *						p the fractional part, PostgreSQL's float8_lerp.
 * The histogram's x order is the group keys' order (gdb_key_encode_*:
 * integers by value, floats with -0 = +0 and NaN above +Infinity), which is
 * PostgreSQL's; text x comes ordered by dictionary code, so each group's
 * text values are sorted here again with varstr_cmp under the column's
 * collation.  The finished values are kept in a hash table keyed by the
 * group keys' encodings and NULL flags (text keys by dictionary code: both
 * requests share the query's dictionary), and the main result's rows look
 * them up (gdb_ordered_set_value); the main request carries a count(x)
 * state in each such aggregate's place.
 *
 * Sharing the dictionary has one cost on the cache path: the GPU server is
 * sent every string the query's dictionary holds by then (the filter's
 * constants first, so their codes stay valid), not only the constants.
 *
 * The percentile fraction must be a constant (folded by the planner); a
 * fraction outside [0, 1] raises for every group, as PostgreSQL's final
 * function does, and a NULL one gives NULL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "parser/parse_coerce.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/typcache.h"
#include "utils/varlena.h"

#include "custom_scan.h"
#include "gpudb_semantics.h"

/* A group's identity: its keys' sort encodings and NULL flags. */
typedef struct OsetGroupKey
{
	uint64		enc[GDB_MAX_GROUP_KEYS];
	uint8		isnull[GDB_MAX_GROUP_KEYS];
} OsetGroupKey;

/* The finished histogram aggregates of one group. */
typedef struct OsetGroup
{
	OsetGroupKey key;			/* hash key; must be first */
	int			pass;			/* the histogram that last filled it */
	Datum	   *values;			/* [q->naggs]; histogram aggregates only */
	bool	   *nulls;
} OsetGroup;

struct GdbOrderedSetResult
{
	HTAB	   *groups;			/* OsetGroupKey -> OsetGroup */
	MemoryContext mcxt;			/* where the values live: the query's */
};

/* One distinct non-NULL x of a group, with its multiplicity. */
typedef struct OsetValue
{
	int64		raw;			/* the batch word: int64, or a double's bits */
	int64		count;
} OsetValue;

/* see groupby.h */
int
gdb_ordered_set_function(const char *name, bool distinct, bool within_group)
{
	if (distinct && !within_group)
		return strcmp(name, "count") == 0 ? GDB_FN_COUNT_DISTINCT : -1;
	if (!within_group || distinct)
		return -1;
	if (strcmp(name, "percentile_cont") == 0)
		return GDB_FN_PERCENTILE_CONT;
	if (strcmp(name, "percentile_disc") == 0)
		return GDB_FN_PERCENTILE_DISC;
	if (strcmp(name, "mode") == 0)
		return GDB_FN_MODE;
	return -1;
}

/* see groupby.h */
char *
gdb_ordered_set_label(GdbAggFunc fn, const char *colname, bool fraction_null,
					  double fraction)
{
	const char *f = fraction_null ? "NULL" : float8out_internal(fraction);

	switch (fn)
	{
		case GDB_FN_COUNT_DISTINCT:
			return psprintf("count(DISTINCT %s)", colname);
		case GDB_FN_PERCENTILE_CONT:
			return psprintf("percentile_cont(%s) WITHIN GROUP (ORDER BY %s)", f, colname);
		case GDB_FN_PERCENTILE_DISC:
			return psprintf("percentile_disc(%s) WITHIN GROUP (ORDER BY %s)", f, colname);
		case GDB_FN_MODE:
			return psprintf("mode() WITHIN GROUP (ORDER BY %s)", colname);
		default:
			break;
	}
	elog(ERROR, "gpudb: %d is not a histogram aggregate", (int) fn);
	pg_unreachable();
}

/* see groupby.h */
void
gdb_query_add_ordered_set(GdbQuery *q, GdbAggFunc fn, AttrNumber attnum,
						  bool fraction_null, double fraction,
						  const char *label)
{
	gdb_query_add_ordered_set_expr(q, fn, attnum, NULL, fraction_null, fraction, label);
}

/* see groupby.h */
void
gdb_query_add_ordered_set_expr(GdbQuery *q, GdbAggFunc fn, AttrNumber attnum,
							   Node *expr, bool fraction_null, double fraction,
							   const char *label)
{
	Oid			argtype = expr ? exprType(expr) :
		TupleDescAttr(RelationGetDescr(q->rel), attnum - 1)->atttypid;
	int32		argtypmod = expr ? exprTypmod(expr) :
		TupleDescAttr(RelationGetDescr(q->rel), attnum - 1)->atttypmod;
	GdbTypeClass cls = expr || gdb_type_supported(argtype, argtypmod) ?
		gdb_type_class(argtype) : GDB_TYPE_UNSUPPORTED;
	GdbAggregate *agg = &q->aggs[q->naggs];
	GdbAggSpec *spec = &q->req->aggs[q->naggs];

	if (q->naggs >= GDB_MAX_AGGREGATES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many aggregates: %d", q->naggs + 1),
				 errdetail("gpudb accepts at most %d aggregates.",
						   GDB_MAX_AGGREGATES)));
	if (q->nkeys >= GDB_MAX_GROUP_KEYS || q->nkeys >= GDB_MAX_SORT_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many group keys for %s", label),
				 errdetail("It groups by the keys and its argument, at most %d columns.",
						   Min(GDB_MAX_GROUP_KEYS, GDB_MAX_SORT_KEYS))));
	/* percentile_cont takes double precision (and interval) */
	if (fn == GDB_FN_PERCENTILE_CONT && cls != GDB_TYPE_INT && cls != GDB_TYPE_FLOAT &&
		cls != GDB_TYPE_UNSUPPORTED)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("function percentile_cont(double precision) within group (%s) does not exist",
						format_type_be(argtype)),
				 errdetail("It was named in the aggregates argument as %s.", label)));
	if (cls == GDB_TYPE_UNSUPPORTED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpu_groupby does not support %s over type %s",
						label, format_type_be(argtype)),
				 errhint("count(DISTINCT), percentile_disc and mode take smallint, "
						 "integer, bigint, real, double precision, boolean, date, "
						 "timestamp, timestamptz, text or varchar; percentile_cont "
						 "the numeric types but numeric.")));

	agg->fn = fn;
	agg->companion = -1;
	agg->dscale_col = -1;
	agg->dscale_companion = -1;
	agg->label = pstrdup(label);
	agg->attnum = expr ? 0 : attnum;	/* 0: a computed column */
	agg->argtype = argtype;
	agg->result_type = fn == GDB_FN_COUNT_DISTINCT ? INT8OID :
		fn == GDB_FN_PERCENTILE_CONT ? FLOAT8OID : argtype;
	agg->fraction = fraction;
	agg->fraction_null = fraction_null;
	/* the values, not only the NULL flags: the histogram groups by them */
	spec->kind = GDB_AGG_COUNT;
	spec->input_col = expr ?
		gdb_columnset_add_expr(&q->cs, q->rel, expr, q->req, "GpudbAgg") :
		gdb_columnset_add(&q->cs, q->rel, attnum, false);
	q->naggs++;
	q->req->naggs = q->naggs;
}

/* The identity of row row of batch b's first nkeys columns. */
static void
group_key(const GdbBatch *b, int nkeys, uint64 row, OsetGroupKey *key)
{
	int			k;

	memset(key, 0, sizeof(OsetGroupKey));
	for (k = 0; k < nkeys; k++)
	{
		const uint8_t *nulls = GDB_NULL_PTR(b, b, k);

		if (nulls && nulls[row])
			key->isnull[k] = 1;
		else
			key->enc[k] = gdb_sort_encode(b->cols[k].kind,
										  GDB_COL_PTR(b, b, k, int64)[row], 0);
	}
}

/*
 * Do rows a and c of batch b's first nkeys columns hold the same words and
 * NULL flags?  Then they are one group; when not, they may still be one
 * (a float key's -0 and +0), which group_key's encodings decide.
 */
static bool
same_words(const GdbBatch *b, int nkeys, uint64 a, uint64 c)
{
	int			k;

	for (k = 0; k < nkeys; k++)
	{
		const uint8_t *nulls = GDB_NULL_PTR(b, b, k);
		const int64 *vals = GDB_COL_PTR(b, b, k, int64);
		bool		anull = nulls && nulls[a];

		if (anull != (nulls && nulls[c]) || (!anull && vals[a] != vals[c]))
			return false;
	}
	return true;
}

/* qsort_arg comparator of text values (dictionary codes) by collation. */
typedef struct OsetTextCtx
{
	GdbDictionary *dict;
	Oid			collation;
} OsetTextCtx;

static int
compare_text_values(const void *a, const void *b, void *arg)
{
	OsetTextCtx *ctx = (OsetTextCtx *) arg;
	text	   *ta = DatumGetTextPP(gdb_dict_datum(ctx->dict, ((const OsetValue *) a)->raw));
	text	   *tb = DatumGetTextPP(gdb_dict_datum(ctx->dict, ((const OsetValue *) b)->raw));

	return varstr_cmp(VARDATA_ANY(ta), VARSIZE_ANY_EXHDR(ta),
					  VARDATA_ANY(tb), VARSIZE_ANY_EXHDR(tb), ctx->collation);
}

/* The value of 0-based row pos of the sorted values (pos < their count). */
static const OsetValue *
value_at(const OsetValue *vals, int nvals, int64 pos)
{
	int64		seen = 0;
	int			i;

	for (i = 0; i < nvals; i++)
	{
		seen += vals[i].count;
		if (pos < seen)
			return &vals[i];
	}
	elog(ERROR, "gpudb: missing row %lld in a histogram", (long long) pos);
	pg_unreachable();
}

/* A value of batch kind kind as a double, as float8(x) would give it. */
static double
value_as_double(uint32 kind, int64 raw)
{
	return kind == GDB_KIND_FLOAT64 ? gdb_bits_double(raw) : (double) raw;
}

/* A value of column col as a Datum of the column's type. */
static Datum
value_datum(const GdbColumnSet *cs, int col, uint32 kind, int64 raw)
{
	return gdb_value_to_datum(cs, col, raw, value_as_double(kind, raw));
}

/*
 * Finish the histogram aggregates of q over column col for one group: its
 * nvals distinct non-NULL values vals, in PostgreSQL's order, with
 * multiplicities (vals NULL when col's aggregates are all count(DISTINCT),
 * which needs nvals alone).  Writes g->values[j] and g->nulls[j].
 */
static void
finish_group(const GdbQuery *q, const GdbColumnSet *cs, int col, uint32 kind,
			 const OsetValue *vals, int nvals, OsetGroup *g)
{
	int64		n = 0;
	int			i,
				j;

	for (i = 0; vals != NULL && i < nvals; i++)
		n += vals[i].count;
	for (j = 0; j < q->naggs; j++)
	{
		const GdbAggregate *agg = &q->aggs[j];
		double		f = agg->fraction;

		if (!GDB_FN_IS_ORDERED_SET(agg->fn) || q->req->aggs[j].input_col != col)
			continue;
		g->nulls[j] = false;
		if (agg->fn == GDB_FN_COUNT_DISTINCT)
		{
			g->values[j] = Int64GetDatum((int64) nvals);
			continue;
		}
		/* no input, or a fraction PostgreSQL rejects (checked per row) */
		if (n == 0 ||
			((agg->fn == GDB_FN_PERCENTILE_CONT || agg->fn == GDB_FN_PERCENTILE_DISC) &&
			 (agg->fraction_null || isnan(f) || f < 0 || f > 1)))
		{
			g->nulls[j] = true;
			g->values[j] = (Datum) 0;
			continue;
		}
		switch (agg->fn)
		{
			case GDB_FN_MODE:
				{
					int			best = 0;

					for (i = 1; i < nvals; i++)
						if (vals[i].count > vals[best].count)
							best = i;
					g->values[j] = value_datum(cs, col, kind, vals[best].raw);
				}
				break;
			case GDB_FN_PERCENTILE_DISC:
				{
					/* the smallest K with K / n >= f, 1-based */
					int64		rownum = (int64) ceil(f * n);

					g->values[j] = value_datum(cs, col, kind,
											   value_at(vals, nvals,
														rownum > 1 ? rownum - 1 : 0)->raw);
				}
				break;
			case GDB_FN_PERCENTILE_CONT:
				{
					int64		first_row = (int64) floor(f * (n - 1));
					int64		second_row = (int64) ceil(f * (n - 1));
					double		lo = value_as_double(kind, value_at(vals, nvals, first_row)->raw);
					double		hi;
					double		proportion;

					if (first_row == second_row)
					{
						g->values[j] = Float8GetDatum(lo);
						break;
					}
					hi = value_as_double(kind, value_at(vals, nvals, second_row)->raw);
					proportion = (f * (n - 1)) - first_row;
					g->values[j] = Float8GetDatum(lo + (proportion * (hi - lo)));
				}
				break;
			default:
				elog(ERROR, "gpudb: unexpected histogram aggregate %d", (int) agg->fn);
		}
	}
}

/*
 * A group of the histogram of column col is complete: its nvals distinct
 * values vals (sorted here by collation for text), finished into the
 * entry of key in res (in the memory context res lives in).  pass tells
 * a group seen twice in one histogram, which must not happen.  vals is
 * NULL when col's only aggregates are count(DISTINCT): nvals alone counts.
 */
static void
complete_group(const GdbQuery *q, const GdbColumnSet *cs, int col, int pass,
			   GdbOrderedSetResult *res, const OsetGroupKey *key,
			   OsetValue *vals, int nvals)
{
	MemoryContext old = MemoryContextSwitchTo(res->mcxt);
	OsetGroup  *g;
	bool		found;

	if (vals != NULL && gdb_type_class(cs->typids[col]) == GDB_TYPE_TEXT && nvals > 1)
	{
		OsetTextCtx ctx = {cs->dict, cs->collations[col]};

		qsort_arg(vals, nvals, sizeof(OsetValue), compare_text_values, &ctx);
	}
	g = (OsetGroup *) hash_search(res->groups, key, HASH_ENTER, &found);
	if (!found)
	{
		g->values = palloc0(sizeof(Datum) * Max(q->naggs, 1));
		g->nulls = palloc0(sizeof(bool) * Max(q->naggs, 1));
	}
	else if (g->pass == pass)
		elog(ERROR, "gpudb: histogram groups are not contiguous");
	g->pass = pass;
	finish_group(q, cs, col, gdb_column_kind(cs, col), vals, nvals, g);
	MemoryContextSwitchTo(old);
}

/*
 * The histogram request of q over column col: q's filter, q's joins (a
 * GpudbJoin's probe step, col maybe a payload column), q's keys (and the
 * computed columns they may name) and col as keys, count(*), ordered by
 * every key ascending with NULLs last; with count_only (col's aggregates
 * all count(DISTINCT)), collapsed to one row per group of q's keys whose
 * count is its distinct non-NULL col (distinct_last_key), so that the
 * histogram never leaves the device.
 */
static GdbRequest *
histogram_request(const GdbQuery *q, int col, bool count_only)
{
	GdbRequest *h = palloc0(sizeof(GdbRequest));
	uint32		k;

	h->oper = GDB_OPER_GROUPBY;
	h->ninstr = q->req->ninstr;
	memcpy(h->program, q->req->program, sizeof(GdbInstr) * q->req->ninstr);
	/* the computed columns (keys or the argument), and the code tables */
	h->nexprs = q->req->nexprs;
	h->neinstr = q->req->neinstr;
	memcpy(h->exprs, q->req->exprs, sizeof(h->exprs));
	memcpy(h->eprogram, q->req->eprogram, sizeof(GdbInstr) * q->req->neinstr);
	h->ntables = q->req->ntables;
	memcpy(h->tables, q->req->tables, sizeof(h->tables));
	/* a GpudbJoin's probe step: the same joins over the same build sides */
	h->njoins = q->req->njoins;
	h->njoin_cols = q->req->njoin_cols;
	h->join_filter = q->req->join_filter;
	memcpy(h->joins, q->req->joins, sizeof(h->joins));
	h->njoin_bytes = q->req->njoin_bytes;
	h->join_id = q->req->join_id;
	h->join_data = q->req->join_data;
	h->nkeys = (uint32) q->nkeys + 1;
	for (k = 0; k < (uint32) q->nkeys; k++)
		h->key_cols[k] = q->req->key_cols[k];
	h->key_cols[q->nkeys] = col;
	h->naggs = 1;
	h->aggs[0].kind = GDB_AGG_COUNT_STAR;
	h->aggs[0].input_col = -1;
	h->nsort = h->nkeys;
	for (k = 0; k < h->nkeys; k++)
		h->sort_keys[k].col = (int32) k;
	h->distinct_last_key = count_only ? 1 : 0;
	return h;
}

/*
 * Run the histogram of column col (pass: its index among the columns) and
 * finish the group values into res.  False when source is the cache and
 * the cache could not answer.
 */
static bool
run_histogram(GdbQuery *q, int col, int pass, GdbRunSource source,
			  GdbOrderedSetResult *res, GdbRunInfo *info)
{
	MemoryContext outer = CurrentMemoryContext;
	MemoryContext work = AllocSetContextCreate(outer, "gpudb histogram",
											   ALLOCSET_DEFAULT_SIZES);
	GdbQuery	hq;
	GdbRunInfo	hinfo;
	OsetValue  *vals;
	int			nvals = 0;
	int			cap = 64;
	bool		have_group = false;
	bool		count_only = true;	/* count(DISTINCT) alone: nvals */
	int64		group_rows = 0; /* collapsed: rows of the current group */
	OsetGroupKey cur;
	ListCell   *lc;
	int			j;

	MemoryContextSwitchTo(work);
	/* the same columns and dictionary; keys + col, count(*) */
	hq = *q;
	hq.oset = NULL;
	hq.nkeys = q->nkeys + 1;
	hq.naggs = 1;
	memset(&hq.aggs[0], 0, sizeof(GdbAggregate));
	hq.aggs[0].fn = GDB_FN_COUNT_STAR;
	hq.aggs[0].companion = -1;
	hq.aggs[0].dscale_col = -1;
	hq.aggs[0].dscale_companion = -1;
	hq.aggs[0].label = "count(*)";
	for (j = 0; j < q->naggs; j++)
		if (GDB_FN_IS_ORDERED_SET(q->aggs[j].fn) && q->req->aggs[j].input_col == col &&
			q->aggs[j].fn != GDB_FN_COUNT_DISTINCT)
			count_only = false;
	hq.req = histogram_request(q, col, count_only);
	gdb_query_run_source(&hq, &hinfo, source);
	if (source == GDB_SOURCE_CACHE && !hinfo.from_cache)
	{
		MemoryContextSwitchTo(outer);
		MemoryContextDelete(work);
		return false;
	}

	/* EXPLAIN ANALYZE: every request's work; the groups are the main's */
	{
		uint64		groups = info->stats.groups_out;

		gdb_stats_add(&info->stats, &hinfo.stats);
		info->stats.groups_out = groups;
		info->nbatches += hinfo.nbatches;
	}

	vals = palloc(sizeof(OsetValue) * cap);
	foreach(lc, hinfo.batches)
	{
		const GdbBatch *b = (const GdbBatch *) lfirst(lc);
		const uint8_t *xnulls = GDB_NULL_PTR(b, b, q->nkeys);
		const int64 *xvals = GDB_COL_PTR(b, b, q->nkeys, int64);
		const GdbAggState *counts = GDB_COL_PTR(b, b, q->nkeys + 1, GdbAggState);
		uint64		row;

		for (row = 0; row < b->nrows; row++)
		{
			/* a new group?  (within a batch, compared with the row before) */
			if (row == 0 || !same_words(b, q->nkeys, row - 1, row))
			{
				OsetGroupKey key;

				group_key(b, q->nkeys, row, &key);
				if (have_group && memcmp(&key, &cur, sizeof(key)) != 0)
				{
					complete_group(q, &hq.cs, col, pass, res, &cur,
								   count_only ? NULL : vals, nvals);
					nvals = 0;
					group_rows = 0;
				}
				cur = key;
				have_group = true;
			}
			/*
			 * collapsed: the row's count is its group's distinct non-NULL x,
			 * and the group's only row (a second one would count its values
			 * twice)
			 */
			if (count_only)
			{
				if (++group_rows > 1)
					elog(ERROR, "gpudb: a collapsed histogram holds a group twice");
				nvals += counts[row].count;
				continue;
			}
			if (xnulls && xnulls[row])
				continue;		/* NULL inputs are ignored */
			if (nvals == cap)
			{
				cap *= 2;
				vals = repalloc_huge(vals, sizeof(OsetValue) * cap);
			}
			vals[nvals].raw = xvals[row];
			vals[nvals].count = counts[row].count;
			nvals++;
		}
	}
	if (have_group)
		complete_group(q, &hq.cs, col, pass, res, &cur,
					   count_only ? NULL : vals, nvals);
	MemoryContextSwitchTo(outer);
	MemoryContextDelete(work);
	return true;
}

/* see groupby.h */
bool
gdb_ordered_set_run(GdbQuery *q, GdbRunInfo *info)
{
	GdbOrderedSetResult *res;
	HASHCTL		ctl;
	bool		done[GDB_MAX_BATCH_COLS] = {0};
	GdbRunSource source = info->from_cache ? GDB_SOURCE_CACHE : GDB_SOURCE_HEAP;
	int			pass = 0;
	int			j;

	q->oset = NULL;
	for (j = 0; j < q->naggs; j++)
		if (GDB_FN_IS_ORDERED_SET(q->aggs[j].fn))
			break;
	if (j == q->naggs || q->req->oper != GDB_OPER_GROUPBY)
		return true;

	/* both requests' text codes must come from one dictionary */
	if (q->cs.dict == NULL)
		q->cs.dict = gdb_dict_create();
	res = palloc0(sizeof(GdbOrderedSetResult));
	res->mcxt = CurrentMemoryContext;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(OsetGroupKey);
	ctl.entrysize = sizeof(OsetGroup);
	ctl.hcxt = CurrentMemoryContext;
	res->groups = hash_create("gpudb histogram groups", 256, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	for (j = 0; j < q->naggs; j++)
	{
		int			col = q->req->aggs[j].input_col;

		if (!GDB_FN_IS_ORDERED_SET(q->aggs[j].fn) || done[col])
			continue;
		done[col] = true;
		if (!run_histogram(q, col, ++pass, source, res, info))
		{
			hash_destroy(res->groups);
			return false;
		}
	}
	q->oset = res;
	return true;
}

/* see groupby.h */
Datum
gdb_ordered_set_value(const GdbQuery *q, int j, const GdbBatch *res,
					  uint64 row, bool *isnull)
{
	const GdbAggregate *agg = &q->aggs[j];
	OsetGroupKey key;
	OsetGroup  *g;

	if ((agg->fn == GDB_FN_PERCENTILE_CONT || agg->fn == GDB_FN_PERCENTILE_DISC))
	{
		if (agg->fraction_null)
		{
			*isnull = true;
			return (Datum) 0;
		}
		if (agg->fraction < 0 || agg->fraction > 1 || isnan(agg->fraction))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("percentile value %g is not between 0 and 1",
							agg->fraction)));
	}
	if (q->oset == NULL)
		elog(ERROR, "gpudb: histogram aggregates were not run");
	group_key(res, q->nkeys, row, &key);
	g = (OsetGroup *) hash_search(q->oset->groups, &key, HASH_FIND, NULL);
	if (g == NULL)
	{
		/* only the one group of no keys can have no rows at all */
		if (q->nkeys > 0)
			elog(ERROR, "gpudb: a group is missing from its histogram");
		*isnull = agg->fn != GDB_FN_COUNT_DISTINCT;
		return Int64GetDatum(0);
	}
	*isnull = g->nulls[j];
	return g->values[j];
}

/* ---- the planner's check ---- */

/* The default ordering (lt) or equality operator of type. */
static Oid
default_operator(Oid type, int which)
{
	TypeCacheEntry *tc = lookup_type_cache(type, which);

	return which == TYPECACHE_LT_OPR ? tc->lt_opr : tc->eq_opr;
}

/* see custom_scan.h */
int
gdb_ordered_set_aggref_function(Aggref *aggref)
{
	if (get_func_namespace(aggref->aggfnoid) != PG_CATALOG_NAMESPACE ||
		aggref->aggstar)
		return -1;
	if (aggref->aggkind != AGGKIND_NORMAL && aggref->aggkind != AGGKIND_ORDERED_SET)
		return -1;
	return gdb_ordered_set_function(get_func_name(aggref->aggfnoid),
									aggref->aggdistinct != NIL,
									aggref->aggkind == AGGKIND_ORDERED_SET);
}

/* see custom_scan.h */
bool
gdb_ordered_set_aggref_ok(Aggref *aggref, Index relid, int *fn, Expr **arg,
						  const char **why)
{
	TargetEntry *te;
	Expr	   *e;
	Oid			argtype;
	int32		argtypmod;
	Oid			argcoll;
	SortGroupClause *sgc;
	GdbTypeClass cls;

	*fn = gdb_ordered_set_aggref_function(aggref);
	if (*fn < 0)
	{
		*why = psprintf("aggregate %s with DISTINCT or WITHIN GROUP is not count(DISTINCT), percentile_cont, percentile_disc or mode",
						format_procedure(aggref->aggfnoid));
		return false;
	}
	if (aggref->aggfilter || aggref->aggvariadic || aggref->agglevelsup != 0 ||
		aggref->aggsplit != AGGSPLIT_SIMPLE || list_length(aggref->args) != 1 ||
		(*fn == GDB_FN_COUNT_DISTINCT && aggref->aggorder != NIL))
	{
		*why = "an aggregate has FILTER, ORDER BY or an unusual form";
		return false;
	}
	te = linitial_node(TargetEntry, aggref->args);
	sgc = (SortGroupClause *) linitial(*fn == GDB_FN_COUNT_DISTINCT ?
									   aggref->aggdistinct : aggref->aggorder);
	if (list_length(*fn == GDB_FN_COUNT_DISTINCT ? aggref->aggdistinct : aggref->aggorder) != 1)
	{
		*why = "an aggregate's DISTINCT or WITHIN GROUP has an unusual form";
		return false;
	}

	/* the fraction: one float8 constant (the array forms stay) */
	if (*fn == GDB_FN_PERCENTILE_CONT || *fn == GDB_FN_PERCENTILE_DISC)
	{
		Node	   *f = list_length(aggref->aggdirectargs) == 1 ?
			(Node *) linitial(aggref->aggdirectargs) : NULL;

		if (f == NULL || !IsA(f, Const) || ((Const *) f)->consttype != FLOAT8OID)
		{
			*why = "a percentile's fraction is not one constant (arrays of fractions and parameters stay on the CPU)";
			return false;
		}
	}
	else if (aggref->aggdirectargs != NIL)
	{
		*why = "an aggregate has direct arguments";
		return false;
	}

	e = gdb_ordered_set_arg(aggref, *fn);
	if (IsA(e, Var))
	{
		Var		   *var = (Var *) e;

		if (var->varno != relid || var->varlevelsup != 0 || var->varattno <= 0)
		{
			*why = "an aggregate's argument is not a column of the table";
			return false;
		}
	}
	argtype = exprType((Node *) e);
	argtypmod = exprTypmod((Node *) e);
	argcoll = exprCollation((Node *) e);
	cls = gdb_type_class(argtype);
	if ((IsA(e, Var) && !gdb_type_supported(argtype, argtypmod)) ||
		(*fn == GDB_FN_PERCENTILE_CONT && cls != GDB_TYPE_INT && cls != GDB_TYPE_FLOAT))
	{
		*why = psprintf("%s over type %s does not run on the device",
						format_procedure(aggref->aggfnoid), format_type_be(argtype));
		return false;
	}
	if (cls == GDB_TYPE_TEXT &&
		(!IsA(e, Var) || !OidIsValid(argcoll) || !get_collation_isdeterministic(argcoll) ||
		 aggref->inputcollid != argcoll))
	{
		*why = "a text aggregate argument is an expression, or has a nondeterministic or different collation";
		return false;
	}
	/* the type's own equality (DISTINCT) or ascending order (WITHIN GROUP) */
	if (*fn == GDB_FN_COUNT_DISTINCT ?
		sgc->eqop != default_operator(argtype, TYPECACHE_EQ_OPR) :
		sgc->sortop != default_operator(exprType((Node *) te->expr), TYPECACHE_LT_OPR))
	{
		*why = "an aggregate's DISTINCT or WITHIN GROUP uses a non-default operator or DESC";
		return false;
	}
	if (aggref->aggtype != (*fn == GDB_FN_COUNT_DISTINCT ? INT8OID :
							*fn == GDB_FN_PERCENTILE_CONT ? FLOAT8OID : argtype))
	{
		*why = psprintf("%s over this type does not run on the device",
						format_procedure(aggref->aggfnoid));
		return false;
	}
	*arg = e;
	return true;
}

/* see custom_scan.h */
Expr *
gdb_ordered_set_arg(Aggref *aggref, int fn)
{
	Expr	   *e = linitial_node(TargetEntry, aggref->args)->expr;

	/* percentile_cont: a float8 value, or an implicit cast of an integer or real one */
	if (fn == GDB_FN_PERCENTILE_CONT && IsA(e, FuncExpr))
	{
		FuncExpr   *fe = (FuncExpr *) e;
		Oid			castfn = InvalidOid;

		if (fe->funcformat == COERCE_IMPLICIT_CAST && fe->funcresulttype == FLOAT8OID &&
			list_length(fe->args) == 1)
		{
			Oid			from = exprType(linitial(fe->args));

			if ((from == INT2OID || from == INT4OID || from == INT8OID || from == FLOAT4OID) &&
				find_coercion_pathway(FLOAT8OID, from, COERCION_IMPLICIT, &castfn) ==
				COERCION_PATH_FUNC && castfn == fe->funcid)
				e = (Expr *) linitial(fe->args);
		}
	}
	return e;
}

/* see custom_scan.h */
void
gdb_ordered_set_aggref_fraction(Aggref *aggref, bool *isnull, double *fraction)
{
	Const	   *c = aggref->aggdirectargs != NIL ?
		(Const *) linitial(aggref->aggdirectargs) : NULL;

	*isnull = false;
	*fraction = 0;
	if (c == NULL || !IsA(c, Const))
		return;
	*isnull = c->constisnull;
	if (!c->constisnull)
		*fraction = DatumGetFloat8(c->constvalue);
}
