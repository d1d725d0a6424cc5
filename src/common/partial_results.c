/*-------------------------------------------------------------------------
 *
 * partial_results.c
 *	  Combining the partial results of one request run over parts of a
 *	  relation: concatenation, and the combine, unordered and re-sort
 *	  requests (see partial_results.h).  A GROUP BY combines its parts'
 *	  transition states as PostgreSQL's combine functions do (the request
 *	  over the concatenated states, input_is_states); a SORT sorts the
 *	  concatenated parts again; a SELECT keeps them in order.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "partial_results.h"

/*
 * Copy rows [from, from + n) of b, a batch of out's columns, to rows [at,
 * at + n) of out.
 */
static void
copy_rows(GdbBatch *out, uint64 at, const GdbBatch *b, uint64 from, uint64 n)
{
	uint32		c;

	for (c = 0; c < b->ncols; c++)
	{
		uint64		w = gdb_kind_width(b->cols[c].kind);

		memcpy(GDB_COL_PTR(out, out, c, char) + at * w,
			   GDB_COL_PTR(b, b, c, char) + from * w, n * w);
		if (b->cols[c].has_nulls)
			memcpy((char *) out + out->cols[c].nulls_off + at,
				   (const char *) b + b->cols[c].nulls_off + from, n);
	}
}

/* A batch of like's columns and rows rows from alloc (palloc: NULL). */
static GdbBatch *
batch_alloc(const GdbBatch *like, uint64 rows, GdbAllocFn alloc, void *arg)
{
	GdbBatch	layout;
	GdbBatch   *out;

	gdb_batch_layout_like(&layout, like, Max(rows, 1));
	out = alloc ? alloc(arg, layout.total_bytes) :
		palloc_extended(layout.total_bytes, MCXT_ALLOC_HUGE);
	if (out == NULL)
		return NULL;
	memcpy(out, &layout, sizeof(GdbBatch));
	out->nrows = rows;
	return out;
}

/* see partial_results.h */
GdbBatch *
gdb_batch_concat(List *parts, GdbAllocFn alloc, void *arg)
{
	const GdbBatch *first = (const GdbBatch *) linitial(parts);
	uint64		rows = 0;
	uint64		at = 0;
	GdbBatch   *out;
	ListCell   *lc;
	uint32		c;

	foreach(lc, parts)
	{
		const GdbBatch *b = (const GdbBatch *) lfirst(lc);

		if (b->ncols != first->ncols)
			elog(ERROR, "gpudb: partial results of different columns");
		for (c = 0; c < b->ncols; c++)
			if (b->cols[c].kind != first->cols[c].kind ||
				b->cols[c].has_nulls != first->cols[c].has_nulls)
				elog(ERROR, "gpudb: partial results of different columns");
		rows += b->nrows;
	}
	out = batch_alloc(first, rows, alloc, arg);
	if (out == NULL)
		return NULL;			/* alloc's failure: the caller's to report */
	foreach(lc, parts)
	{
		const GdbBatch *b = (const GdbBatch *) lfirst(lc);

		copy_rows(out, at, b, 0, b->nrows);
		at += b->nrows;
	}
	return out;
}

/* see partial_results.h */
GdbBatch *
gdb_batch_slice(const GdbBatch *batch, uint64 from, uint64 n, GdbAllocFn alloc, void *arg)
{
	GdbBatch   *out = batch_alloc(batch, n, alloc, arg);

	if (out != NULL)
		copy_rows(out, 0, batch, from, n);
	return out;
}

/* see partial_results.h */
GdbRequest *
gdb_combine_request(const GdbRequest *req, bool ordered)
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
	if (ordered)
	{
		comb->nsort = req->nsort;
		memcpy(comb->sort_keys, req->sort_keys, sizeof(comb->sort_keys));
		comb->limit = req->limit;
		comb->nhaving = req->nhaving;
		memcpy(comb->having, req->having, sizeof(comb->having));
		comb->distinct_last_key = req->distinct_last_key;
	}
	return comb;
}

/* see partial_results.h */
GdbRequest *
gdb_unordered_request(const GdbRequest *req)
{
	GdbRequest *u = palloc(sizeof(GdbRequest));

	memcpy(u, req, sizeof(GdbRequest));
	u->nsort = 0;
	memset(u->sort_keys, 0, sizeof(u->sort_keys));
	u->limit = 0;
	u->nhaving = 0;
	memset(u->having, 0, sizeof(u->having));
	u->distinct_last_key = 0;
	return u;
}

/* see partial_results.h */
GdbRequest *
gdb_resort_request(const GdbRequest *req)
{
	GdbRequest *rs = palloc0(sizeof(GdbRequest));
	uint32		i,
				k;

	rs->oper = GDB_OPER_SORT;
	rs->nout = req->nout;
	for (i = 0; i < req->nout; i++)
		rs->out_cols[i] = (int32) i;
	rs->nsort = req->nsort;
	rs->limit = req->limit;
	for (k = 0; k < req->nsort; k++)
	{
		rs->sort_keys[k] = req->sort_keys[k];
		rs->sort_keys[k].col = -1;
		for (i = 0; i < req->nout; i++)
			if (req->out_cols[i] == req->sort_keys[k].col)
			{
				rs->sort_keys[k].col = (int32) i;
				break;
			}
		if (rs->sort_keys[k].col < 0)
		{
			pfree(rs);
			return NULL;
		}
	}
	return rs;
}
