/*-------------------------------------------------------------------------
 *
 * join_semantics.h
 *	  The hash join probe step of a request (GdbJoinSpec, gpudb_device.h),
 *	  written once for the CPU path (src/cpu/cpu_hash_join.c) and the device
 *	  (cuda/hash_join.cu): the hash of a key tuple, the open-addressing
 *	  table's layout and lookup, and what one probe row does.
 *
 * Plain C99 with GDB_HOSTDEV (gpudb_semantics.h), so gcc and nvcc compile
 * the same code and the two paths keep the same rows with the same
 * payload.  No PostgreSQL header, no CUDA header.
 *
 * The hash table: open addressing with linear probing over a power-of-two
 * array of uint32 slots (GDB_HJ_EMPTY, or a build row number + 1), at
 * least twice as many slots as build rows, so a lookup ends at an empty
 * slot after a few probes on average (Knuth, TAOCP vol. 3, 6.4,
 * algorithm L).  A key tuple of nkeys int64 values hashes by folding each
 * value into a 64-bit state with the splitmix64 finaliser (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014) as the mixing function.  Build rows whose keys hold a NULL are
 * never inserted, and probe rows whose keys hold a NULL never look up:
 * NULL keys never match, as SQL's = is never true for them.  Where two
 * build rows have equal keys, a lookup finds one of them (which one
 * depends on the order of insertion); INNER and LEFT joins need a build
 * side unique on its keys, which gdb_hj_unique_row checks row by row.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_JOIN_SEMANTICS_H
#define GPUDB_JOIN_SEMANTICS_H

#include "gpudb_semantics.h"

#define GDB_HJ_EMPTY 0u

/* One build side as a probe reads it: its batch and its hash table. */
typedef struct GdbHashSide
{
	const GdbBatch *build;		/* header and arrays (address of the batch) */
	const uint32_t *slots;		/* mask + 1 slots */
	uint64_t	mask;
} GdbHashSide;

/* splitmix64's finaliser: a bijective 64-bit mix. */
GDB_HOSTDEV uint64_t
gdb_hj_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* The hash of a key tuple of n values. */
GDB_HOSTDEV uint64_t
gdb_hj_hash(const int64_t *keys, uint32_t n)
{
	uint64_t	h = 0x9e3779b97f4a7c15ULL;
	uint32_t	k;

	for (k = 0; k < n; k++)
		h = gdb_hj_mix(h ^ (uint64_t) keys[k]);
	return h;
}

/*
 * gdb_hj_slot_count: the slots of the table of a build side of nrows
 * rows: the smallest power of two at least 2 * nrows, and at least 16.
 */
GDB_HOSTDEV uint64_t
gdb_hj_slot_count(uint64_t nrows)
{
	uint64_t	n = 16;

	while (n < 2 * nrows)
		n <<= 1;
	return n;
}

/*
 * gdb_hj_row_keys: out[k] = value of column cols[k] (INT64) at row of the
 * batch with header hdr at base, for k < n; 0 when one of them is NULL
 * (the row matches nothing), else 1.
 */
GDB_HOSTDEV int
gdb_hj_row_keys(const GdbBatch *hdr, const void *base, const int32_t *cols,
				uint32_t n, uint64_t row, int64_t *out)
{
	uint32_t	k;

	for (k = 0; k < n; k++)
	{
		const uint8_t *nulls = GDB_NULL_PTR(base, hdr, cols[k]);

		if (nulls && nulls[row])
			return 0;
		out[k] = GDB_COL_PTR(base, hdr, cols[k], const int64_t)[row];
	}
	return 1;
}

/* Build row brow's keys (columns 0..n-1) against keys. */
GDB_HOSTDEV int
gdb_hj_keys_equal(const GdbBatch *build, uint32_t n, uint64_t brow,
				  const int64_t *keys)
{
	uint32_t	k;

	for (k = 0; k < n; k++)
		if (GDB_COL_PTR(build, build, k, const int64_t)[brow] != keys[k])
			return 0;
	return 1;
}

/*
 * gdb_hj_build_keys: the keys of build row brow into out (n of them): 0
 * when one is NULL (the row is not inserted), else 1.
 */
GDB_HOSTDEV int
gdb_hj_build_keys(const GdbBatch *build, uint32_t n, uint64_t brow, int64_t *out)
{
	int32_t		cols[GDB_MAX_JOIN_KEYS];
	uint32_t	k;

	for (k = 0; k < n && k < GDB_MAX_JOIN_KEYS; k++)
		cols[k] = (int32_t) k;
	return gdb_hj_row_keys(build, build, cols, n, brow, out);
}

/*
 * gdb_hj_next: the next build row of side whose n keys equal keys, probing
 * linearly from slot *pos (start at hash & mask), or -1 at the first empty
 * slot; *pos moves past the row returned, so that calling again gives the
 * next row with those keys.
 */
GDB_HOSTDEV int64_t
gdb_hj_next(const GdbHashSide *side, uint32_t n, const int64_t *keys, uint64_t *pos)
{
	for (;;)
	{
		uint32_t	s = side->slots[*pos];

		if (s == GDB_HJ_EMPTY)
			return -1;
		*pos = (*pos + 1) & side->mask;
		if (gdb_hj_keys_equal(side->build, n, (uint64_t) (s - 1), keys))
			return (int64_t) (s - 1);
	}
}

/*
 * gdb_hj_find: the (first found) build row of side whose n keys equal
 * keys (hash h), or -1.
 */
GDB_HOSTDEV int64_t
gdb_hj_find(const GdbHashSide *side, uint32_t n, const int64_t *keys, uint64_t h)
{
	uint64_t	pos = h & side->mask;

	return gdb_hj_next(side, n, keys, &pos);
}

/* Write build row m's payload (m < 0: NULLs) as the row's payload of spec. */
GDB_HOSTDEV void
gdb_hj_set_payload(const GdbJoinSpec *spec, const GdbBatch *b, int64_t m,
				   uint64_t row, int64_t *const *pvals, uint8_t *const *pnulls)
{
	uint32_t	p;

	for (p = 0; p < spec->npayload; p++)
	{
		uint32_t	bc = spec->nkeys + p;
		uint32_t	i = spec->payload_first + p;
		const uint8_t *bn = GDB_NULL_PTR(b, b, bc);

		if (m >= 0 && !(bn && bn[m]))
		{
			pvals[i][row] = GDB_COL_PTR(b, b, bc, const int64_t)[m];
			pnulls[i][row] = 0;
		}
		else
		{
			pvals[i][row] = 0;
			pnulls[i][row] = 1;
		}
	}
}

/*
 * gdb_hj_unique_row: after every row of side was inserted, is build row
 * brow the only one with its keys?  Rows with a NULL key are.  A side
 * has two rows with equal keys exactly when some row is not: then the
 * one found for those keys is another row (or, for the row found, some
 * other row's lookup finds it instead of itself).
 */
GDB_HOSTDEV int
gdb_hj_unique_row(const GdbHashSide *side, uint32_t n, uint64_t brow)
{
	int64_t		keys[GDB_MAX_JOIN_KEYS];

	if (!gdb_hj_build_keys(side->build, n, brow, keys))
		return 1;
	return gdb_hj_find(side, n, keys, gdb_hj_hash(keys, n)) == (int64_t) brow;
}

/*
 * gdb_hj_probe_row: the probe step for one row that the filter selected:
 * each of the njoins joins (a request's joins, njoin_cols payload columns
 * in all) in order looks the row's keys up in sides[j] (view columns
 * probe_cols, read through hdr at base, which must already show the
 * payload columns at pvals/pnulls), trying the build rows with those keys
 * against the join's qual (computed column qual_expr: eprog and exprs are
 * the request's eprogram and exprs) when it has one, and the row is
 * dropped by the first INNER or SEMI join without a match or ANTI join
 * with one.  Writes payload column i's value and NULL flag for row into
 * pvals[i][row] and pnulls[i][row] (a FLOAT64 payload's bits as int64):
 * the match's values, NULL for a join without one (a LEFT join's
 * NULL-extension) and for a SEMI or ANTI join (whose payload serves its
 * qual only: which of several matching build rows passed it first depends
 * on the table's order), and NULL in every payload column of a dropped
 * row.  Returns 1 when the row is kept, else 0; *status gets
 * the SQL status of a qual that raised (the row then counts as dropped),
 * else is left alone.
 */
GDB_HOSTDEV int
gdb_hj_probe_row(const GdbJoinSpec *joins, uint32_t njoins, uint32_t njoin_cols,
				 const GdbHashSide *sides, const GdbInstr *eprog,
				 const GdbExprSpec *exprs, const GdbBatch *hdr, const void *base,
				 uint64_t row, int64_t *const *pvals, uint8_t *const *pnulls,
				 int *status)
{
	uint32_t	j;
	uint32_t	p;
	int			keep = 1;

	for (j = 0; j < njoins && keep; j++)
	{
		const GdbJoinSpec *spec = &joins[j];
		const GdbBatch *b = sides[j].build;
		int64_t		keys[GDB_MAX_JOIN_KEYS];
		int64_t		m = -1;

		if (gdb_hj_row_keys(hdr, base, spec->probe_cols, spec->nkeys, row, keys))
		{
			uint64_t	pos = gdb_hj_hash(keys, spec->nkeys) & sides[j].mask;

			for (;;)
			{
				int64_t		c = gdb_hj_next(&sides[j], spec->nkeys, keys, &pos);
				GdbValue	v;
				int			st;

				if (c < 0 || !spec->qual)
				{
					m = c;
					break;
				}
				/* the candidate's payload in place, then the join's qual */
				gdb_hj_set_payload(spec, b, c, row, pvals, pnulls);
				st = gdb_vm_value(eprog + exprs[spec->qual_expr].start,
								  (int) exprs[spec->qual_expr].len, hdr, base, row, &v);
				if (st != GDB_OK)
				{
					*status = st;
					keep = 0;
					break;
				}
				if (!v.isnull && v.v.i != 0)
				{
					m = c;
					break;
				}
			}
		}
		if ((spec->type == GDB_JOIN_INNER || spec->type == GDB_JOIN_SEMI) && m < 0)
			keep = 0;
		else if (spec->type == GDB_JOIN_ANTI && m >= 0)
			keep = 0;
		/* a semi or anti join's payload served its qual only: NULL after */
		gdb_hj_set_payload(spec, b,
						   keep && (spec->type == GDB_JOIN_INNER ||
									spec->type == GDB_JOIN_LEFT) ? m : -1,
						   row, pvals, pnulls);
	}
	if (!keep)
		for (p = 0; p < njoin_cols && p < GDB_MAX_JOIN_COLS; p++)
		{
			pvals[p][row] = 0;
			pnulls[p][row] = 1;
		}
	return keep;
}

#endif							/* GPUDB_JOIN_SEMANTICS_H */
