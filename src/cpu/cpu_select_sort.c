/*-------------------------------------------------------------------------
 *
 * cpu_select_sort.c
 *	  The CPU path of the SELECT (selection + projection) and SORT (ordered
 *	  selection with an optional top-k limit) operators of gpudb_device.h.
 *
 * Plain C, no PostgreSQL header: the reference the CUDA path is checked
 * against (test/device_selftest.c) and the path used without a GPU.
 *
 * Algorithm: the filter VM (gpudb_semantics.h) over every row in row order
 * (so the first failing row raises, as PostgreSQL's scan would), then for
 * SORT a qsort_r of the selected row ids by (NULL rank, sort encoding) per
 * key with the row id as the last key, which makes the order total and the
 * sort stable; then a gather of the output columns of the first
 * min(limit, selected) rows.
 *
 *-------------------------------------------------------------------------
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "gpudb_device.h"
#include "gpudb_semantics.h"

extern int	gdb_cpu_select_rows(const GdbRequest *req, const GdbBatch *input,
								uint64_t **sel, uint64_t *nsel,
								const GdbBatch **view, GdbError *err);
extern const char *gdb_cpu_status_text(int status);
extern int	gdb_cpu_order_groups(const GdbRequest *req, const GdbBatch *groups,
								 GdbAllocFn alloc, void *alloc_arg,
								 GdbBatch **result, GdbError *err);

/*
 * Order the nsel selected row ids in sel by req's sort keys, in place.
 * Returns GDB_OK or GDB_ERR_OUT_OF_MEMORY.
 */
static int
gdb_cpu_order_rows(const GdbRequest *req, const GdbBatch *input,
				   uint64_t *sel, uint64_t nsel)
{
	const char *base = (const char *) input;
	uint32_t	nsort = req->nsort;
	uint64_t   *enc;
	uint8_t    *rank;
	size_t	   *order;
	uint64_t   *sorted;
	size_t		p;
	uint32_t	k;
	GdbOrderCtx ctx;

	if (nsel <= 1)
		return GDB_OK;
	enc = (uint64_t *) malloc((size_t) nsel * nsort * sizeof(uint64_t));
	rank = (uint8_t *) malloc((size_t) nsel * nsort);
	order = (size_t *) malloc((size_t) nsel * sizeof(size_t));
	sorted = (uint64_t *) malloc((size_t) nsel * sizeof(uint64_t));
	if (!enc || !rank || !order || !sorted)
	{
		free(enc);
		free(rank);
		free(order);
		free(sorted);
		return GDB_ERR_OUT_OF_MEMORY;
	}
	for (p = 0; p < nsel; p++)
	{
		for (k = 0; k < nsort; k++)
		{
			const GdbSortKey *sk = &req->sort_keys[k];
			const uint8_t *nulls = GDB_NULL_PTR(base, input, sk->col);
			int			isnull = nulls ? nulls[sel[p]] != 0 : 0;

			rank[p * nsort + k] = (uint8_t) gdb_sort_null_rank(isnull, sk->nulls_first);
			enc[p * nsort + k] = isnull ? 0 :
				gdb_sort_encode(input->cols[sk->col].kind,
								GDB_COL_PTR(base, input, sk->col, const int64_t)[sel[p]],
								sk->descending);
		}
		order[p] = p;
	}
	ctx.enc = enc;
	ctx.rank = rank;
	ctx.nkeys = nsort;
	qsort_r(order, (size_t) nsel, sizeof(size_t), gdb_order_cmp, &ctx);
	for (p = 0; p < nsel; p++)
		sorted[p] = sel[order[p]];
	memcpy(sel, sorted, (size_t) nsel * sizeof(uint64_t));
	free(enc);
	free(rank);
	free(order);
	free(sorted);
	return GDB_OK;
}

/*
 * gdb_cpu_select_sort: see gpudb_device.h.  Scratch: 8 bytes per input row
 * for the selected row ids, plus for SORT 9 * nsort + 16 bytes per
 * selected row.  On error *result is NULL and nothing is leaked.
 */
int
gdb_cpu_select_sort(const GdbRequest *req, const GdbBatch *input,
					GdbAllocFn alloc, void *alloc_arg,
					GdbBatch **result, GdbStats *stats, GdbError *err)
{
	GdbError	dummy;
	const char *base = (const char *) input;
	uint64_t   *sel;
	uint64_t	nrows,
				nsel = 0,
				nout_rows,
				r;
	uint32_t	kinds[GDB_MAX_COLUMNS];
	uint32_t	has_nulls[GDB_MAX_COLUMNS];
	uint32_t	c;
	uint64_t	total;
	GdbBatch   *out;
	int			st;

	if (err == NULL)
		err = &dummy;
	err->status = GDB_OK;
	err->message[0] = '\0';
	if (result)
		*result = NULL;
	if (result == NULL || alloc == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "gdb_cpu_select_sort: result and alloc must not be NULL");
	if (req == NULL || (req->oper != GDB_OPER_SELECT && req->oper != GDB_OPER_SORT))
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "gdb_cpu_select_sort: the request is not SELECT or SORT");

	/* 1. selection (validates the request) */
	st = gdb_cpu_select_rows(req, input, &sel, &nsel, &input, err);
	if (st != GDB_OK)
		return st;
	base = (const char *) input;
	nrows = input->nrows;

	/* 2. order */
	if (req->oper == GDB_OPER_SORT &&
		gdb_cpu_order_rows(req, input, sel, nsel) != GDB_OK)
		goto oom;
	nout_rows = nsel;
	if (req->oper == GDB_OPER_SORT && req->limit > 0 && req->limit < nout_rows)
		nout_rows = req->limit;

	/* 3. projection: gather the output columns */
	for (c = 0; c < req->nout; c++)
	{
		kinds[c] = input->cols[req->out_cols[c]].kind;
		has_nulls[c] = input->cols[req->out_cols[c]].has_nulls;
	}
	total = gdb_batch_layout(NULL, req->nout, kinds, has_nulls, nout_rows);
	out = (GdbBatch *) alloc(alloc_arg, (size_t) total);
	if (out == NULL)
	{
		free(sel);
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "could not allocate a result batch of %llu bytes",
							 (unsigned long long) total);
	}
	memset(out, 0, (size_t) total);
	gdb_batch_layout(out, req->nout, kinds, has_nulls, nout_rows);
	out->nrows = nout_rows;
	for (c = 0; c < req->nout; c++)
	{
		int32_t		ic = req->out_cols[c];
		const int64_t *vals = GDB_COL_PTR(base, input, ic, const int64_t);
		const uint8_t *nulls = GDB_NULL_PTR(base, input, ic);
		int64_t    *ovals = GDB_COL_PTR(out, out, c, int64_t);
		uint8_t    *onulls = GDB_NULL_PTR(out, out, c);

		for (r = 0; r < nout_rows; r++)
		{
			ovals[r] = vals[sel[r]];
			if (onulls)
				onulls[r] = nulls[sel[r]];
		}
	}
	free(sel);
	if (stats)
	{
		stats->rows_in += nrows;
		stats->rows_selected += nsel;
		stats->groups_out += nout_rows;
	}
	*result = out;
	return GDB_OK;

oom:
	free(sel);
	return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
						 "out of memory for the CPU %s of %llu rows",
						 req->oper == GDB_OPER_SORT ? "sort" : "selection",
						 (unsigned long long) nrows);
}

/* ---- ordered GROUPBY: order and cut the groups of a result batch ---- */

/*
 * gdb_cpu_order_groups: the last step of an ordered GROUPBY (req->oper
 * GROUPBY, gdb_request_ordered: sort keys, a group qualifier or both) on
 * the CPU path.
 *	 groups		the unordered result of req (req->nkeys key columns, then
 *				one STATE column per aggregate; groups->nrows groups in the
 *				group-by's order), in the caller's memory; not modified
 *	 *result	on GDB_OK, a batch from alloc (called once) with the same
 *				columns (kinds and NULL flags) and, of the groups that pass
 *				every term of the group qualifier (gdb_having_keep), the
 *				first min(limit, passing) (every one when limit == 0),
 *				ordered (when nsort > 0) by
 *				req->sort_keys: per key (gdb_sort_null_rank, gdb_sort_encode)
 *				of the result column or of the aggregate's finished value
 *				(gdb_order_agg_value), the group index last, so ties keep
 *				the unordered order (stable); with distinct_last_key, of
 *				those, one row per run (GdbRequest), its count(*) state
 *				the run's non-NULL last keys
 * First every state of every group is checked with gdb_order_state_status
 * (cut groups included): GDB_ERR_FLOAT_OVERFLOW for the first failing
 * group in group order, before anything is allocated; then the sums of
 * the sort keys with GDB_SORT_EXACT_SUM with gdb_order_key_status
 * (GDB_ERR_FIXED_POINT).  Other errors:
 * GDB_ERR_BAD_REQUEST (a sort key outside the result columns, or an
 * aggregate kind that is not orderable: the validator checks both),
 * GDB_ERR_OUT_OF_MEMORY (malloc, or alloc returned NULL).  On error
 * *result is NULL and nothing is leaked.  Scratch: 9 * nsort + 8 bytes
 * per group (16 with distinct_last_key).
 */
int
gdb_cpu_order_groups(const GdbRequest *req, const GdbBatch *groups,
					 GdbAllocFn alloc, void *alloc_arg, GdbBatch **result,
					 GdbError *err)
{
	const char *base = (const char *) groups;
	uint64_t	n = groups->nrows;
	uint64_t	nkept = 0;
	uint64_t	k;
	uint32_t	nsort = req->nsort;
	uint32_t	ncols = groups->ncols;
	uint64_t   *enc = NULL;
	uint8_t    *rank = NULL;
	size_t	   *order = NULL;
	int64_t    *nonnull = NULL; /* distinct_last_key: per run */
	GdbOrderCtx ctx;
	GdbBatch   *out;
	uint64_t	total,
				g,
				p,
				i;
	uint32_t	a,
				c;

	*result = NULL;
	if (req->nkeys + req->naggs != ncols || nsort > GDB_MAX_SORT_KEYS ||
		(nsort == 0 && req->nhaving == 0) || req->nhaving > GDB_MAX_HAVING)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "gdb_cpu_order_groups: the result does not match the ordered request");
	for (i = 0; i < nsort; i++)
	{
		int32_t		col = req->sort_keys[i].col;

		if (col < 0 || (uint32_t) col >= ncols ||
			((uint32_t) col >= req->nkeys &&
			 !gdb_order_agg_kind_ok(req->aggs[col - req->nkeys].kind)))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "gdb_cpu_order_groups: sort key %u names result column %d",
								 (unsigned) i, (int) col);
	}

	/* 1. what the host would raise when finishing any group */
	for (g = 0; g < n; g++)
		for (a = 0; a < req->naggs; a++)
		{
			int			st = gdb_order_state_status(req->aggs[a].kind,
													GDB_COL_PTR(base, groups, req->nkeys + a,
																const GdbAggState)[g]);

			if (st != GDB_OK)
				return gdb_error_set(err, st, "%s", gdb_cpu_status_text(st));
		}

	/* ... and the numeric sums a sort key orders by, exact within int64 */
	for (i = 0; i < nsort; i++)
	{
		const GdbSortKey *sk = &req->sort_keys[i];
		int			nan = GDB_SORT_NAN_STATE(sk->exact);

		if (!(sk->exact & GDB_SORT_EXACT_SUM))
			continue;
		for (g = 0; g < n; g++)
		{
			int			st = gdb_order_key_status(sk->exact,
												  GDB_COL_PTR(base, groups, sk->col,
															  const GdbAggState)[g],
												  nan >= 0 ?
												  &GDB_COL_PTR(base, groups, req->nkeys + nan,
															   const GdbAggState)[g] : NULL);

			if (st != GDB_OK)
				return gdb_error_set(err, st, "%s", gdb_cpu_status_text(st));
		}
	}

	/* 2. the groups that pass the qualifier, in the unordered order */
	if (n > 0)
	{
		if (nsort > 0)
		{
			enc = (uint64_t *) malloc((size_t) n * nsort * sizeof(uint64_t));
			rank = (uint8_t *) malloc((size_t) n * nsort);
		}
		order = (size_t *) malloc((size_t) n * sizeof(size_t));
		if ((nsort > 0 && (!enc || !rank)) || !order)
			goto oom;
	}
	for (g = 0; g < n; g++)
	{
		int			keep = 1;

		for (i = 0; i < req->nhaving && keep; i++)
		{
			const GdbHavingTerm *t = &req->having[i];

			keep = gdb_having_keep(t, req->aggs[t->agg].kind,
								   GDB_COL_PTR(base, groups, req->nkeys + t->agg,
											   const GdbAggState)[g],
								   t->nan_state > 0 ?
								   &GDB_COL_PTR(base, groups, req->nkeys + t->nan_state - 1,
												const GdbAggState)[g] : NULL);
		}
		if (keep)
			order[nkept++] = (size_t) g;
	}
	k = req->limit > 0 && req->limit < nkept ? req->limit : nkept;

	/* 3. (NULL rank, encoding) of every sort key of every kept group */
	for (p = 0; p < nkept && nsort > 0; p++)
	{
		g = order[p];
		for (i = 0; i < nsort; i++)
		{
			const GdbSortKey *sk = &req->sort_keys[i];
			uint32_t	col = (uint32_t) sk->col;
			uint32_t	vkind;
			int64_t		raw;
			int			isnull;

			if (col < req->nkeys)
			{
				const uint8_t *nulls = GDB_NULL_PTR(base, groups, col);

				vkind = groups->cols[col].kind;
				isnull = nulls ? nulls[g] != 0 : 0;
				raw = GDB_COL_PTR(base, groups, col, const int64_t)[g];
			}
			else
			{
				uint32_t	kind = req->aggs[col - req->nkeys].kind;

				vkind = gdb_order_agg_value_kind(kind);
				isnull = gdb_order_agg_value(kind,
											 GDB_COL_PTR(base, groups, col, const GdbAggState)[g],
											 &raw);
			}
			rank[g * nsort + i] = (uint8_t) gdb_sort_null_rank(isnull, sk->nulls_first);
			enc[g * nsort + i] = isnull ? 0 : gdb_sort_encode(vkind, raw, sk->descending);
		}
	}

	/* 4. a stable sort of the kept group indexes: the index is the last key */
	if (nkept > 1 && nsort > 0)
	{
		ctx.enc = enc;
		ctx.rank = rank;
		ctx.nkeys = nsort;
		qsort_r(order, (size_t) nkept, sizeof(size_t), gdb_order_cmp, &ctx);
	}

	/*
	 * 4b. distinct_last_key: one row per run of the ordered groups that
	 * agree on every key but the last (order[] keeps each run's first
	 * group; nonnull[] counts the run's non-NULL last keys)
	 */
	if (req->distinct_last_key && k > 0)
	{
		const uint8_t *xnulls = GDB_NULL_PTR(base, groups, req->nkeys - 1);
		uint32_t	kinds[GDB_MAX_GROUP_KEYS];
		const int64_t *vals[GDB_MAX_GROUP_KEYS];
		const uint8_t *nulls[GDB_MAX_GROUP_KEYS];
		uint64_t	m = 0;

		for (c = 0; c + 1 < req->nkeys; c++)
		{
			kinds[c] = groups->cols[c].kind;
			vals[c] = GDB_COL_PTR(base, groups, c, const int64_t);
			nulls[c] = GDB_NULL_PTR(base, groups, c);
		}
		nonnull = (int64_t *) calloc((size_t) k, sizeof(int64_t));
		if (nonnull == NULL)
			goto oom;
		for (i = 0; i < k; i++)
		{
			if (i == 0 || !gdb_same_key_prefix(req->nkeys - 1, kinds, vals, nulls,
												order[i - 1], order[i]))
				order[m++] = order[i];
			/* (order[m - 1] may be order[i]: read before the next write) */
			if (!(xnulls && xnulls[order[i]]))
				nonnull[m - 1]++;
		}
		k = m;
	}

	/* 5. the first k of them, every column */
	total = gdb_batch_layout_like(NULL, groups, k);
	out = (GdbBatch *) alloc(alloc_arg, (size_t) total);
	if (out == NULL)
	{
		free(enc);
		free(rank);
		free(order);
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "could not allocate a result batch of %llu bytes",
							 (unsigned long long) total);
	}
	memset(out, 0, (size_t) total);
	gdb_batch_layout_like(out, groups, k);
	out->nrows = k;
	for (c = 0; c < ncols; c++)
	{
		size_t		w = (size_t) gdb_kind_width(groups->cols[c].kind);
		const char *src = GDB_COL_PTR(base, groups, c, const char);
		char	   *dst = GDB_COL_PTR(out, out, c, char);
		const uint8_t *snulls = GDB_NULL_PTR(base, groups, c);
		uint8_t    *dnulls = GDB_NULL_PTR(out, out, c);

		for (i = 0; i < k; i++)
		{
			memcpy(dst + i * w, src + order[i] * w, w);
			if (dnulls)
				dnulls[i] = snulls[order[i]];
		}
	}
	/* ... and a run's count(*) state: its distinct non-NULL last keys */
	if (nonnull != NULL)
	{
		GdbAggState *states = GDB_COL_PTR(out, out, req->nkeys, GdbAggState);

		for (i = 0; i < k; i++)
		{
			memset(&states[i], 0, sizeof(GdbAggState));
			states[i].count = nonnull[i];
		}
	}
	free(nonnull);
	free(enc);
	free(rank);
	free(order);
	*result = out;
	return GDB_OK;

oom:
	free(nonnull);
	free(enc);
	free(rank);
	free(order);
	return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
						 "out of memory for ordering %llu groups",
						 (unsigned long long) n);
}
