/*-------------------------------------------------------------------------
 *
 * host_order.c
 *	  A GpudbAgg's or GpudbJoin's finished groups ordered on the host, where
 *	  a sort key is one the device cannot order by (GDB_PRIV_HOST_ORDER,
 *	  custom_scan_order.c): a text group key in its collation's order, or a
 *	  count(DISTINCT), finished on the host from its histogram.
 *
 * Algorithm: every key of every group becomes a (NULL rank, 64-bit
 * encoding) pair as the device's sort makes them (gdb_sort_null_rank,
 * gdb_sort_encode; descending inverts the encoding), except that a text
 * key's encoding is the rank of its string among the distinct strings of
 * that column's groups (text_ranks: the distinct codes sorted once by
 * varstr_cmp under the column's collation, char(n) without its trailing
 * blanks as bpcharcmp compares, equal strings one rank), and a
 * count(DISTINCT)'s is its finished value's; then one comparison sort
 * (qsort_arg with gdb_order_cmp, the CPU path's comparator) of the group
 * indexes, ties in the result's order.  A
 * PostgreSQL Sort above the node would compare the strings at every
 * comparison, through the tuples' varlena columns.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/varlena.h"

#include "custom_scan.h"
#include "gpudb_semantics.h"

/* qsort_arg context of text codes compared by their strings. */
typedef struct TextRankCtx
{
	GdbDictionary *dict;
	Oid			collation;
	bool		bpchar;			/* trailing blanks ignored, as bpcharcmp */
} TextRankCtx;

static int
text_code_cmp(const void *a, const void *b, void *arg)
{
	const TextRankCtx *ctx = (const TextRankCtx *) arg;
	text	   *ta = DatumGetTextPP(gdb_dict_datum(ctx->dict, *(const int64 *) a));
	text	   *tb = DatumGetTextPP(gdb_dict_datum(ctx->dict, *(const int64 *) b));
	const char *pa = VARDATA_ANY(ta);
	const char *pb = VARDATA_ANY(tb);
	int			la = VARSIZE_ANY_EXHDR(ta);
	int			lb = VARSIZE_ANY_EXHDR(tb);

	if (ctx->bpchar)
	{
		while (la > 0 && pa[la - 1] == ' ')
			la--;
		while (lb > 0 && pb[lb - 1] == ' ')
			lb--;
	}
	return varstr_cmp(pa, la, pb, lb, ctx->collation);
}

static int
int64_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * The rank of each of n text codes of query q's source column src (NULL
 * flags nulls, NULL when none: a NULL's rank is 0) among the distinct
 * strings the non-NULL ones name, in the column's collation: strings that
 * compare equal share a rank.  The distinct codes are sorted once by
 * string, then each row looks its code up.
 */
static uint64 *
text_ranks(const GdbQuery *q, int src, const int64 *codes, const uint8 *nulls, int64 n)
{
	int64	   *u = palloc(sizeof(int64) * Max(n, 1));
	int64	   *bystr;
	uint64	   *ranks_of_u;
	uint64	   *out = palloc0(sizeof(uint64) * Max(n, 1));
	TextRankCtx ctx;
	int64		m = 0,
				i;
	uint64		rank = 0;

	for (i = 0; i < n; i++)
		if (!(nulls && nulls[i]))
			u[m++] = codes[i];
	qsort(u, m, sizeof(int64), int64_cmp);
	if (m > 0)
	{
		int64		w = 1;

		for (i = 1; i < m; i++)
			if (u[i] != u[w - 1])
				u[w++] = u[i];
		m = w;
	}
	ctx.dict = q->cs.dict;
	ctx.collation = q->cs.collations[src];
	ctx.bpchar = q->cs.typids[src] == BPCHAROID;
	bystr = palloc(sizeof(int64) * Max(m, 1));
	memcpy(bystr, u, sizeof(int64) * m);
	qsort_arg(bystr, m, sizeof(int64), text_code_cmp, &ctx);
	ranks_of_u = palloc(sizeof(uint64) * Max(m, 1));
	for (i = 0; i < m; i++)
	{
		int64	   *at;

		if (i > 0 && text_code_cmp(&bystr[i - 1], &bystr[i], &ctx) != 0)
			rank++;
		at = bsearch(&bystr[i], u, m, sizeof(int64), int64_cmp);
		ranks_of_u[at - u] = rank;
	}
	for (i = 0; i < n; i++)
		if (!(nulls && nulls[i]))
			out[i] = ranks_of_u[(int64 *) bsearch(&codes[i], u, m, sizeof(int64),
												  int64_cmp) - u];
	pfree(u);
	pfree(bystr);
	pfree(ranks_of_u);
	return out;
}

/* see custom_scan.h */
int64 *
gdb_host_order(const GdbQuery *q, const GdbBatch *res, const GdbSortKey *keys, int nk)
{
	int64		n = (int64) res->nrows;
	uint64	   *enc = palloc(sizeof(uint64) * Max(n, 1) * nk);
	uint8	   *rank = palloc(sizeof(uint8) * Max(n, 1) * nk);
	size_t	   *order = palloc(sizeof(size_t) * Max(n, 1));
	int64	   *result = palloc(sizeof(int64) * Max(n, 1));
	GdbOrderCtx ctx;
	int64		r;
	int			k;

	for (k = 0; k < nk; k++)
	{
		const GdbSortKey *sk = &keys[k];
		int			col = sk->col;
		const uint8 *nulls = GDB_NULL_PTR(res, res, col);
		uint64	   *ranks = NULL;

		if (col < q->nkeys)
		{
			int			src = (int) gdb_request_result_source(q->req, (uint32) col);

			if (gdb_type_class(q->cs.typids[src]) == GDB_TYPE_TEXT)
				ranks = text_ranks(q, src, GDB_COL_PTR(res, res, col, const int64), nulls, n);
		}
		for (r = 0; r < n; r++)
		{
			bool		isnull;
			uint64		e;

			if (col < q->nkeys)
			{
				isnull = nulls && nulls[r];
				e = isnull ? 0 : ranks ? (sk->descending ? ~ranks[r] : ranks[r]) :
					gdb_sort_encode(res->cols[col].kind,
									GDB_COL_PTR(res, res, col, const int64)[r],
									sk->descending);
			}
			else
			{
				int			j = col - q->nkeys;
				uint32		kind = q->req->aggs[j].kind;
				int64		v;

				/* count(DISTINCT): finished here; count, count(*): as the device */
				if (q->aggs[j].fn == GDB_FN_COUNT_DISTINCT)
				{
					isnull = false;
					v = DatumGetInt64(gdb_ordered_set_value(q, j, res, (uint64) r, &isnull));
					kind = GDB_AGG_COUNT;
				}
				else
					isnull = gdb_order_agg_value(kind,
												 GDB_COL_PTR(res, res, col, const GdbAggState)[r],
												 &v);
				e = gdb_sort_encode(gdb_order_agg_value_kind(kind), v, sk->descending);
			}
			rank[r * nk + k] = (uint8) gdb_sort_null_rank(isnull, sk->nulls_first);
			enc[r * nk + k] = isnull ? 0 : e;
		}
		if (ranks)
			pfree(ranks);
	}
	for (r = 0; r < n; r++)
		order[r] = (size_t) r;
	ctx.enc = enc;
	ctx.rank = rank;
	ctx.nkeys = (uint32_t) nk;
	qsort_arg(order, n, sizeof(size_t), gdb_order_cmp, &ctx);
	for (r = 0; r < n; r++)
		result[r] = (int64) order[r];
	pfree(enc);
	pfree(rank);
	pfree(order);
	return result;
}
