/*-------------------------------------------------------------------------
 *
 * text_rank.c
 *	  Text sort keys in the C collation: hidden rank columns.
 *
 * Text travels to the device as dictionary codes (dictionary.c), numbered
 * in order of first appearance, so the device cannot order text by them.
 * A text sort key whose collation is C or POSIX (byte order: memcmp, a
 * proper prefix first) sorts instead by a hidden INT64 column of the
 * request, the rank column: for each row, the position of its string
 * among the dictionary's strings in byte order (gdb_dict_ranks).  Ranks
 * are computed on the host after each batch is read, from the dictionary
 * as it is then, so they order the rows of that batch correctly; partial
 * results of different batches (or of parallel workers, whose
 * dictionaries differ) carry ranks from different dictionary states, so
 * the final re-sort of a SORT recomputes them from the text codes under
 * the final dictionary first (query_run.c).  The device sees an ordinary
 * INT64 sort key; the text column itself still returns codes.
 *
 * Other collations order text by rules the device does not implement and
 * keep PostgreSQL's plan (custom_scan_path.c); gpu_sort refuses them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"

#include "gpudb.h"

/* see gpudb.h */
bool
gdb_text_sort_collation_ok(Oid collid)
{
	return OidIsValid(collid) && gdb_collate_is_c(collid);
}

/* see gpudb.h */
int
gdb_columnset_add_sort_key(GdbColumnSet *cs, Relation rel, AttrNumber attnum)
{
	int			col = gdb_columnset_add(cs, rel, attnum, false);
	int			i;

	if (gdb_type_class(cs->typids[col]) != GDB_TYPE_TEXT)
		return col;
	if (!gdb_text_sort_collation_ok(cs->collations[col]))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot sort column \"%s\" on the device",
						NameStr(TupleDescAttr(RelationGetDescr(rel), attnum - 1)->attname)),
				 errdetail("Its collation \"%s\" is not C or POSIX.",
						   get_collation_name(cs->collations[col]))));
	for (i = 0; i < cs->ncols; i++)
		if (cs->rank_of[i] == col + 1)
			return i;
	if (cs->ncols >= GDB_MAX_COLUMNS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many columns in one gpudb request"),
				 errdetail("At most %d columns can be read; a text sort key "
						   "counts twice.", GDB_MAX_COLUMNS)));
	i = cs->ncols++;
	cs->attnums[i] = attnum;	/* for privileges and names */
	cs->typids[i] = INT8OID;
	cs->typmods[i] = -1;
	cs->collations[i] = InvalidOid;
	cs->nulls_only[i] = false;
	cs->rank_of[i] = col + 1;
	return i;
}

/* see gpudb.h */
bool
gdb_columnset_has_ranks(const GdbColumnSet *cs)
{
	int			i;

	for (i = 0; i < cs->ncols; i++)
		if (cs->rank_of[i] > 0)
			return true;
	return false;
}

/*
 * rank[r] = ranks[code[r]] over n rows (rank 0 and the NULL flag for NULL
 * rows); nulls and rank_nulls may be NULL (no NULL flags).
 */
static void
fill_column(const int64 *ranks, int64 nranks, const int64 *codes,
			const uint8_t *nulls, int64 *rank, uint8_t *rank_nulls, uint64 n)
{
	uint64		r;

	for (r = 0; r < n; r++)
	{
		bool		isnull = nulls != NULL && nulls[r] != 0;

		if (rank_nulls)
			rank_nulls[r] = isnull;
		if (isnull)
		{
			rank[r] = 0;
			continue;
		}
		if (codes[r] < 0 || codes[r] >= nranks)
			elog(ERROR, "gpudb: dictionary code " INT64_FORMAT " out of range",
				 codes[r]);
		rank[r] = ranks[codes[r]];
	}
}

/* see gpudb.h */
void
gdb_batch_fill_ranks(GdbColumnSet *cs, GdbBatch *batch)
{
	const int64 *ranks = NULL;
	int			i;

	for (i = 0; i < cs->ncols; i++)
	{
		int			src = cs->rank_of[i] - 1;

		if (src < 0)
			continue;
		if (ranks == NULL)
			ranks = gdb_dict_ranks(cs->dict);
		fill_column(ranks, gdb_dict_size(cs->dict),
					GDB_COL_PTR(batch, batch, src, int64),
					GDB_NULL_PTR(batch, batch, src),
					GDB_COL_PTR(batch, batch, i, int64),
					GDB_NULL_PTR(batch, batch, i), batch->nrows);
	}
}

/* see gpudb.h */
void
gdb_result_fill_ranks(GdbColumnSet *cs, const GdbRequest *req, GdbBatch *batch)
{
	const int64 *ranks = NULL;
	uint32		c,
				t;

	for (c = 0; c < batch->ncols; c++)
	{
		int32		src = gdb_request_result_source(req, c);
		int			text_col;

		if (src < 0 || src >= cs->ncols || cs->rank_of[src] == 0)
			continue;
		text_col = cs->rank_of[src] - 1;
		for (t = 0; t < batch->ncols; t++)
			if (gdb_request_result_source(req, t) == text_col)
				break;
		if (t == batch->ncols)
			elog(ERROR, "gpudb: text column %d of a sort key is not in the result",
				 text_col);
		if (ranks == NULL)
			ranks = gdb_dict_ranks(cs->dict);
		fill_column(ranks, gdb_dict_size(cs->dict),
					GDB_COL_PTR(batch, batch, t, int64),
					GDB_NULL_PTR(batch, batch, t),
					GDB_COL_PTR(batch, batch, c, int64),
					GDB_NULL_PTR(batch, batch, c), batch->nrows);
	}
}
