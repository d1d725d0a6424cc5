/*-------------------------------------------------------------------------
 *
 * cpu_hash_join.c
 *	  The join probe step of a request on the CPU path: validating its
 *	  joins and build sides, and building their hash tables.  The probe
 *	  itself (gdb_hj_probe_row, join_semantics.h) runs per row inside
 *	  gdb_cpu_select_rows (cpu_path.c), between the filter and the
 *	  computed columns.
 *
 * Plain C99: no PostgreSQL header, no longjmp (the device self-test links
 * it standalone).  Scratch memory comes from malloc.
 *
 * Algorithm: a build side's rows are inserted in row order into an
 * open-addressing table with linear probing (join_semantics.h, after
 * Knuth's algorithm L); rows with a NULL key are left out.  The tables of
 * a request with a join_id are kept for the query's next batches (one
 * entry per process, gdb_cpu_join_cache_release frees it).  An INNER or
 * LEFT join then checks, row by row, that each row is the one its own
 * keys find (gdb_hj_unique_row), which fails exactly when two rows have
 * equal keys: GDB_ERR_JOIN_DUPLICATE, since a probe row would need two
 * output rows.  cuda/hash_join.cu builds the same tables with atomicCAS
 * and checks them with the same function.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_hash_join.h"

/*
 * Is col a payload column slot (GDB_JOIN_COL) of shape: NULL flags set,
 * INT64 or FLOAT64?
 */
static int
join_col_ok(const GdbBatch *shape, int32_t col)
{
	return col >= GDB_JOIN_COL(0) && col < GDB_JOIN_COL(GDB_MAX_JOIN_COLS) &&
		shape->cols[col].has_nulls == 1 &&
		(shape->cols[col].kind == GDB_KIND_INT64 ||
		 shape->cols[col].kind == GDB_KIND_FLOAT64);
}

/* see cpu_hash_join.h */
int
gdb_cpu_validate_joins(const GdbRequest *req, GdbBatch *shape, GdbError *err)
{
	uint32_t	j;
	uint32_t	next_col = 0;

	memset(&shape->cols[GDB_JOIN_COL(0)], 0,
		   sizeof(GdbColumnDesc) * (GDB_MAX_JOIN_COLS + 1));
	if (req->join_filter > 1 ||
		(req->join_filter && (req->njoins == 0 || req->nexprs == 0 ||
							  req->exprs[0].kind != GDB_KIND_INT64)))
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "request's join filter %u needs joins and an INT64 computed column 0",
							 (unsigned) req->join_filter);
	if (req->njoins == 0)
	{
		if (req->njoin_cols != 0)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "request has %u join columns but no join",
								 (unsigned) req->njoin_cols);
		return GDB_OK;
	}
	if (req->njoins > GDB_MAX_JOINS || req->njoin_cols > GDB_MAX_JOIN_COLS)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "request has %u joins with %u payload columns (at most %d and %d)",
							 (unsigned) req->njoins, (unsigned) req->njoin_cols,
							 GDB_MAX_JOINS, GDB_MAX_JOIN_COLS);
	for (j = 0; j < req->njoins; j++)
		if (req->build_sides[j] == NULL && req->join_data == NULL)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "request has joins but no address for their build sides");
	if ((req->oper != GDB_OPER_GROUPBY && req->oper != GDB_OPER_SELECT) ||
		req->input_is_states)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "only a group-by over values or a select runs joins");
	for (j = 0; j < req->njoins; j++)
	{
		const GdbJoinSpec *spec = &req->joins[j];
		const GdbBatch *b;
		GdbError	berr;
		uint32_t	k;
		uint32_t	p;

		if (spec->type > GDB_JOIN_LEFT || spec->nkeys == 0 ||
			spec->nkeys > GDB_MAX_JOIN_KEYS)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "join %u has type %u and %u keys", j,
								 (unsigned) spec->type, (unsigned) spec->nkeys);
		if (spec->qual > 1 ||
			(spec->qual && (spec->qual_expr >= req->nexprs ||
							req->exprs[spec->qual_expr].kind != GDB_KIND_INT64)))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "join %u's qual (%u, computed column %u) is not an INT64 computed column",
								 j, (unsigned) spec->qual, (unsigned) spec->qual_expr);
		if (spec->payload_first != next_col ||
			spec->npayload > req->njoin_cols - next_col)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "join %u's payload columns [%u, +%u) do not follow the earlier joins' within %u",
								 j, (unsigned) spec->payload_first,
								 (unsigned) spec->npayload, (unsigned) req->njoin_cols);
		if (spec->build_keep != 0)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "join %u's build side %llu, kept by the server, is not bound",
								 j, (unsigned long long) spec->build_keep);
		if (req->build_sides[j] != NULL ?
			((uintptr_t) req->build_sides[j] % 8 != 0 ||
			 spec->build_bytes < sizeof(GdbBatch)) :
			(spec->build_off % 8 != 0 || spec->build_bytes < sizeof(GdbBatch) ||
			 spec->build_off > req->njoin_bytes ||
			 spec->build_bytes > req->njoin_bytes - spec->build_off))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "join %u's build side (%llu bytes at %llu) is not within the %llu bytes",
								 j, (unsigned long long) spec->build_bytes,
								 (unsigned long long) spec->build_off,
								 (unsigned long long) req->njoin_bytes);
		b = gdb_join_build_side(req, j);
		if (gdb_cpu_validate_batch(b, &berr) != GDB_OK ||
			b->total_bytes > spec->build_bytes)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "join %u's build side: %s", j, berr.message);
		if (b->ncols != spec->nkeys + spec->npayload || b->nrows >= UINT32_MAX)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "join %u's build side has %u columns and %llu rows (%u keys and %u payload columns expected)",
								 j, (unsigned) b->ncols, (unsigned long long) b->nrows,
								 (unsigned) spec->nkeys, (unsigned) spec->npayload);
		for (k = 0; k < spec->nkeys; k++)
		{
			int32_t		c = spec->probe_cols[k];
			int			stored = c >= 0 && (uint32_t) c < shape->ncols &&
				shape->cols[c].kind == GDB_KIND_INT64;

			if (b->cols[k].kind != GDB_KIND_INT64)
				return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
									 "join %u's build key %u is not an INT64 column", j, k);
			/* an earlier join's payload: its slot is set in shape already */
			if (!stored && !(join_col_ok(shape, c) &&
							 shape->cols[c].kind == GDB_KIND_INT64))
				return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
									 "join %u's probe key %u names column %d, not an INT64 column of the batch or of an earlier join",
									 j, k, (int) c);
		}
		for (p = 0; p < spec->npayload; p++)
		{
			const GdbColumnDesc *d = &b->cols[spec->nkeys + p];
			GdbColumnDesc *s = &shape->cols[GDB_JOIN_COL(spec->payload_first + p)];

			if (d->kind != GDB_KIND_INT64 && d->kind != GDB_KIND_FLOAT64)
				return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
									 "join %u's payload column %u has kind %u",
									 j, p, (unsigned) d->kind);
			s->kind = d->kind;
			s->has_nulls = 1;
		}
		next_col += spec->npayload;
	}
	if (next_col != req->njoin_cols)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "the joins have %u payload columns, the request says %u",
							 (unsigned) next_col, (unsigned) req->njoin_cols);
	return GDB_OK;
}

/*
 * The tables this process built last, for the request's join_id: the
 * next batches of the same query find them here instead of building them
 * again.  The slots hold build row numbers, not addresses, so they stay
 * right for a copy of the same build sides at another address (the GPU
 * server gets a new copy with every request).  One entry; a plain static:
 * the paths run one request at a time per process.
 */
static struct
{
	uint64_t	join_id;		/* 0: empty */
	uint32_t	njoins;
	uint32_t   *slots[GDB_MAX_JOINS];
	uint64_t	mask[GDB_MAX_JOINS];
}			join_cache;

/* see cpu_hash_join.h */
void
gdb_cpu_join_cache_release(uint64_t join_id)
{
	uint32_t	j;

	if (join_cache.join_id == 0 || (join_id != 0 && join_cache.join_id != join_id))
		return;
	for (j = 0; j < GDB_MAX_JOINS; j++)
	{
		free(join_cache.slots[j]);
		join_cache.slots[j] = NULL;
	}
	join_cache.join_id = 0;
	join_cache.njoins = 0;
}

/* see cpu_hash_join.h */
int
gdb_cpu_join_build(const GdbRequest *req, GdbHashSide *sides, GdbError *err)
{
	uint32_t	j;

	memset(sides, 0, sizeof(GdbHashSide) * GDB_MAX_JOINS);
	if (req->join_id != 0 && req->join_id == join_cache.join_id &&
		req->njoins == join_cache.njoins)
	{
		/* this query's tables, built for an earlier batch */
		for (j = 0; j < req->njoins; j++)
		{
			sides[j].build = gdb_join_build_side(req, j);
			sides[j].slots = join_cache.slots[j];
			sides[j].mask = join_cache.mask[j];
		}
		return GDB_OK;
	}
	for (j = 0; j < req->njoins; j++)
	{
		const GdbJoinSpec *spec = &req->joins[j];
		const GdbBatch *b = gdb_join_build_side(req, j);
		uint64_t	nslots = gdb_hj_slot_count(b->nrows);
		uint32_t   *slots = (uint32_t *) calloc((size_t) nslots, sizeof(uint32_t));
		uint64_t	r;

		if (slots == NULL)
		{
			gdb_cpu_join_free(sides);
			return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
								 "out of memory for the hash table of %llu build rows",
								 (unsigned long long) b->nrows);
		}
		sides[j].build = b;
		sides[j].slots = slots;
		sides[j].mask = nslots - 1;
		for (r = 0; r < b->nrows; r++)
		{
			int64_t		keys[GDB_MAX_JOIN_KEYS];
			uint64_t	i;

			if (!gdb_hj_build_keys(b, spec->nkeys, r, keys))
				continue;
			i = gdb_hj_hash(keys, spec->nkeys) & sides[j].mask;
			while (slots[i] != GDB_HJ_EMPTY)
				i = (i + 1) & sides[j].mask;
			slots[i] = (uint32_t) (r + 1);
		}
		if (spec->type == GDB_JOIN_INNER || spec->type == GDB_JOIN_LEFT)
			for (r = 0; r < b->nrows; r++)
				if (!gdb_hj_unique_row(&sides[j], spec->nkeys, r))
				{
					gdb_cpu_join_free(sides);
					return gdb_error_set(err, GDB_ERR_JOIN_DUPLICATE,
										 "join %u: build row %llu's keys are not unique",
										 j, (unsigned long long) r);
				}
	}

	/* kept for the query's next batches (the one entry replaced) */
	if (req->join_id != 0)
	{
		gdb_cpu_join_cache_release(0);
		for (j = 0; j < req->njoins; j++)
		{
			join_cache.slots[j] = (uint32_t *) sides[j].slots;
			join_cache.mask[j] = sides[j].mask;
		}
		join_cache.njoins = req->njoins;
		join_cache.join_id = req->join_id;
	}
	return GDB_OK;
}

/* see cpu_hash_join.h */
void
gdb_cpu_join_free(GdbHashSide *sides)
{
	uint32_t	j,
				k;

	for (j = 0; j < GDB_MAX_JOINS; j++)
	{
		for (k = 0; k < join_cache.njoins; k++)
			if (join_cache.join_id != 0 && sides[j].slots == join_cache.slots[k])
				break;
		if (k == join_cache.njoins || join_cache.join_id == 0)
			free((void *) sides[j].slots);
		sides[j].slots = NULL;
	}
}
