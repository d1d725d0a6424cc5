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

/* see partial_results.h */
GdbBatch *
gdb_batch_concat(List *parts, GdbAllocFn alloc, void *arg)
{
	const GdbBatch *first = (const GdbBatch *) linitial(parts);
	uint32		kinds[GDB_MAX_COLUMNS];
	uint32		has_nulls[GDB_MAX_COLUMNS];
	uint64		rows = 0;
	uint64		at = 0;
	GdbBatch	layout;
	GdbBatch   *out;
	ListCell   *lc;
	uint32		c;

	for (c = 0; c < first->ncols; c++)
	{
		kinds[c] = first->cols[c].kind;
		has_nulls[c] = first->cols[c].has_nulls;
	}
	foreach(lc, parts)
	{
		const GdbBatch *b = (const GdbBatch *) lfirst(lc);

		if (b->ncols != first->ncols)
			elog(ERROR, "gpudb: partial results of different columns");
		for (c = 0; c < b->ncols; c++)
			if (b->cols[c].kind != kinds[c] || b->cols[c].has_nulls != has_nulls[c])
				elog(ERROR, "gpudb: partial results of different columns");
		rows += b->nrows;
	}
	gdb_batch_layout(&layout, first->ncols, kinds, has_nulls, Max(rows, 1));
	out = alloc ? alloc(arg, layout.total_bytes) :
		palloc_extended(layout.total_bytes, MCXT_ALLOC_HUGE);
	if (out == NULL)
		return NULL;			/* alloc's failure: the caller's to report */
	memcpy(out, &layout, sizeof(GdbBatch));
	out->nrows = rows;
	foreach(lc, parts)
	{
		const GdbBatch *b = (const GdbBatch *) lfirst(lc);

		for (c = 0; c < b->ncols; c++)
		{
			uint64		w = gdb_kind_width(kinds[c]);

			memcpy(GDB_COL_PTR(out, out, c, char) + at * w,
				   GDB_COL_PTR(b, b, c, char), b->nrows * w);
			if (has_nulls[c])
				memcpy((char *) out + out->cols[c].nulls_off + at,
					   (const char *) b + b->cols[c].nulls_off, b->nrows);
		}
		at += b->nrows;
	}
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
