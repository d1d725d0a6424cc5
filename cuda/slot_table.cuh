/*-------------------------------------------------------------------------
 *
 * slot_table.cuh
 *	  The fast paths' aggregate arguments and slot tables, shared by
 *	  groupby_fastpath.cu (no keys; the small key domain's slot pass over
 *	  any keys) and slot_agg_onekey.cu (its lean one-key form): each
 *	  aggregate's input, the dense slot digits of the keys, and per slot one
 *	  GdbAcc per aggregate (fast_acc.cuh) updated with atomics, in a
 *	  block's shared-memory table merged into the global one.  No
 *	  PostgreSQL header.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_SLOT_TABLE_CUH
#define GPUDB_SLOT_TABLE_CUH

#include "cuda_exec.cuh"
#include "fast_acc.cuh"
#include "gpudb_semantics.h"

/* Shared-memory slot tables up to this size (bytes; opt-in above 48 KiB). */
#define GDB_FAST_SMEM_MAX (192 * 1024)

/* One aggregate's input: kind, column values and NULL flags (or NULL). */
struct GdbFastAgg
{
	int			kind;
	const int64_t *col;			/* NULL for COUNT_STAR */
	const uint8_t *nulls;		/* NULL: no NULL flags */
	uint32_t	same;			/* the first aggregate of the same kind over
								 * the same column (this one's index when
								 * none): the slot path accumulates only
								 * that one (sum(v) and avg(v) share) */
};

/* The aggregates of a request, plus one COUNT_STAR for the row count. */
struct GdbFastAggs
{
	uint32_t	n;
	GdbFastAgg	a[GDB_MAX_AGGREGATES + 1];
};

/* Key digits of the slot path. */
struct GdbSlotKeys
{
	uint32_t	nkeys;
	const int64_t *vals[GDB_MAX_GROUP_KEYS];
	const uint8_t *nulls[GDB_MAX_GROUP_KEYS];
	int64_t		minv[GDB_MAX_GROUP_KEYS];
	unsigned long long range[GDB_MAX_GROUP_KEYS];	/* values max - min + 1 */
	unsigned long long stride[GDB_MAX_GROUP_KEYS];	/* mixed-radix weight */
};

/*
 * One accumulator's four words in a slot table.  A table holds, for
 * aggregate a and slot i of nslots, word w at [(a * 4 + w) * nslots + i]
 * (a structure of arrays): random slots of a warp then hit different
 * shared-memory banks, where 32-byte GdbAccs side by side would put every
 * slot's word w in one of four bank pairs.
 */
struct GdbAccRef
{
	unsigned long long *count;
	unsigned long long *w0;
	unsigned long long *w1;
	double	   *f;
};

__device__ __forceinline__ GdbAccRef
gdb_slot_ref(unsigned long long *table, uint32_t a, uint32_t nslots, uint32_t i)
{
	unsigned long long *p = table + (size_t) a * 4 * nslots + i;
	GdbAccRef	r;

	r.count = p;
	r.w0 = p + nslots;
	r.w1 = p + 2 * (size_t) nslots;
	r.f = (double *) (p + 3 * (size_t) nslots);
	return r;
}

__device__ __forceinline__ GdbAcc
gdb_slot_load(const GdbAccRef &r)
{
	GdbAcc		a;

	a.count = *r.count;
	a.w0 = *r.w0;
	a.w1 = *r.w1;
	a.f = *r.f;
	return a;
}

__device__ __forceinline__ void
gdb_slot_store(const GdbAccRef &r, const GdbAcc &a)
{
	*r.count = a.count;
	*r.w0 = a.w0;
	*r.w1 = a.w1;
	*r.f = a.f;
}

/*
 * Fold non-NULL value v into a's words other than count, with atomics;
 * exact for every kind but SUM_FLOAT's sum.  SUM_INT: the low word by
 * atomicAdd, its carry found from the old value, carry plus the sign
 * extension added to the high word: exact in any order.
 */
__device__ __forceinline__ void
gdb_acc_atomic_fold(int kind, GdbAccRef a, int64_t v)
{
	switch (kind)
	{
		case GDB_AGG_SUM_INT:
			{
				unsigned long long uv = (unsigned long long) v;
				unsigned long long old = atomicAdd(a.w0, uv);
				unsigned long long hi = (unsigned long long) (old + uv < old) +
					(v < 0 ? ~0ULL : 0ULL);

				if (hi)
					atomicAdd(a.w1, hi);
			}
			break;
		case GDB_AGG_MIN_INT:
			atomicMin((long long *) a.w0, (long long) v);
			break;
		case GDB_AGG_MAX_INT:
			atomicMax((long long *) a.w0, (long long) v);
			break;
		case GDB_AGG_SUM_FLOAT:
			{
				double		d = __longlong_as_double((long long) v);

				atomicAdd(a.f, d);
				if (isinf(d))
					atomicAdd(a.w0, 1ULL);
			}
			break;
		case GDB_AGG_MIN_FLOAT:
			atomicMin(a.w0, gdb_fenc(__longlong_as_double((long long) v)));
			break;
		case GDB_AGG_MAX_FLOAT:
			atomicMax(a.w0, gdb_fenc(__longlong_as_double((long long) v)));
			break;
		default:
			break;
	}
}

/*
 * Fold one row into an accumulator in shared or global memory with
 * atomics.  COUNT_STAR is counted by the slot's row count instead.
 */
__device__ __forceinline__ void
gdb_acc_atomic_add(int kind, GdbAccRef a, int64_t v, int isnull)
{
	if (kind == GDB_AGG_COUNT_STAR || isnull)
		return;
	atomicAdd(a.count, 1ULL);
	gdb_acc_atomic_fold(kind, a, v);
}

/*
 * gdb_acc_atomic_add_counting_nulls: gdb_acc_atomic_add for a block's
 * shared-memory table, where a.count counts the NULL inputs instead: the
 * slot's row count less them is the non-NULL count (at the merge), so a
 * non-NULL value costs one atomic fewer and count(x) none at all.
 */
__device__ __forceinline__ void
gdb_acc_atomic_add_counting_nulls(int kind, GdbAccRef a, int64_t v, int isnull)
{
	if (kind == GDB_AGG_COUNT_STAR)
		return;
	if (isnull)
		atomicAdd(a.count, 1ULL);
	else
		gdb_acc_atomic_fold(kind, a, v);
}

/* Merge accumulator s (a block's) into d with atomics. */
__device__ __forceinline__ void
gdb_acc_atomic_merge(int kind, GdbAccRef d, const GdbAcc &s)
{
	if (kind == GDB_AGG_COUNT_STAR || s.count == 0)
		return;
	atomicAdd(d.count, s.count);
	switch (kind)
	{
		case GDB_AGG_SUM_INT:
			{
				unsigned long long old = atomicAdd(d.w0, s.w0);
				unsigned long long hi = s.w1 + (unsigned long long) (old + s.w0 < old);

				if (hi)
					atomicAdd(d.w1, hi);
			}
			break;
		case GDB_AGG_MIN_INT:
			atomicMin((long long *) d.w0, (long long) s.w0);
			break;
		case GDB_AGG_MAX_INT:
			atomicMax((long long *) d.w0, (long long) s.w0);
			break;
		case GDB_AGG_SUM_FLOAT:
			atomicAdd(d.f, s.f);
			if (s.w0)
				atomicAdd(d.w0, s.w0);
			break;
		case GDB_AGG_MIN_FLOAT:
			atomicMin(d.w0, s.w0);
			break;
		case GDB_AGG_MAX_FLOAT:
			atomicMax(d.w0, s.w0);
			break;
		default:
			break;
	}
}


/*
 * A block's shared-memory slot table (gdb_slot_agg_kernel<true>,
 * gdb_slot1_agg_kernel): n * nslots GdbAccs at tab as a structure of
 * arrays, accumulator j for the request's aggregate agg(j), then nslots
 * row counts.  gdb_slot_init_block sets every entry to its kind's start
 * and the counts to 0 (returning the counts' address);
 * gdb_slot_merge_block adds the block's table into the global one (table,
 * rowcount; aggregate a at a, the layout of gdb_slot_ref) after the
 * block's rows, skipping aggregates that share another's accumulator.  In
 * the block's table an accumulator's count counts its NULL inputs
 * (gdb_acc_atomic_add_counting_nulls), made the non-NULL count here.
 */
template <typename AggOf>
__device__ __forceinline__ unsigned *
gdb_slot_init_block(const GdbFastAggs &aggs, uint32_t n, AggOf agg, uint32_t nslots,
					unsigned long long *tab)
{
	unsigned   *cnt = (unsigned *) (tab + (size_t) n * 4 * nslots);

	for (uint32_t i = threadIdx.x; i < n * nslots; i += blockDim.x)
		gdb_slot_store(gdb_slot_ref(tab, i / nslots, nslots, i % nslots),
					   gdb_acc_init(aggs.a[agg(i / nslots)].kind));
	for (uint32_t i = threadIdx.x; i < nslots; i += blockDim.x)
		cnt[i] = 0;
	__syncthreads();
	return cnt;
}

template <typename AggOf>
__device__ __forceinline__ void
gdb_slot_merge_block(const GdbFastAggs &aggs, uint32_t n, AggOf agg, uint32_t nslots,
					 unsigned long long *tab, const unsigned *cnt,
					 unsigned long long *table, unsigned *rowcount)
{
	__syncthreads();
	for (uint32_t i = threadIdx.x; i < nslots; i += blockDim.x)
	{
		if (cnt[i] == 0)
			continue;
		atomicAdd(&rowcount[i], cnt[i]);
		for (uint32_t j = 0; j < n; j++)
		{
			uint32_t	a = agg(j);
			GdbAcc		acc;

			if (aggs.a[a].same != a)
				continue;
			/* count held the NULL inputs: the rest are non-NULL */
			acc = gdb_slot_load(gdb_slot_ref(tab, j, nslots, i));
			acc.count = cnt[i] - acc.count;
			gdb_acc_atomic_merge(aggs.a[a].kind, gdb_slot_ref(table, a, nslots, i), acc);
		}
	}
}

/*
 * The dense slot of row (the mixed radix number of its key digits, first key most
 * significant; NULL's digit is the range: see groupby_fastpath.cu); *ok = 0 when a key falls
 * outside its range.
 */
__device__ __forceinline__ unsigned long long
gdb_slot_of(const GdbSlotKeys &keys, uint64_t row, bool *ok)
{
	unsigned long long slot = 0;

	for (uint32_t k = 0; k < keys.nkeys; k++)
	{
		unsigned long long digit;

		if (keys.nulls[k] && keys.nulls[k][row])
			digit = keys.range[k];
		else
		{
			digit = (unsigned long long) keys.vals[k][row] -
				(unsigned long long) keys.minv[k];
			*ok = *ok && digit < keys.range[k];
		}
		slot += digit * keys.stride[k];
	}
	return slot;
}

/*
 * gdb_slot_warp_launch (slot_agg_warp.cu): queue the warp-aggregated slot
 * pass over rows [0, nrows) on ex's stream, with gdb_slot1_launch's
 * arguments and results, when the fast paths are enabled, there are at
 * most a few slots (its block table within 48 KiB) and at most 8
 * aggregates accumulate; *launched says
 * whether it did.  Returns GDB_OK, or GDB_ERR_DEVICE when the launch
 * fails.
 */
int			gdb_slot_warp_launch(GdbCudaExec *ex, const GdbSlotKeys &sk,
								 const GdbFastAggs &fa, uint32_t naggs,
								 const uint8_t *flags, uint64_t nrows, uint32_t nslots,
								 unsigned long long *table, unsigned *rowcount,
								 unsigned long long *bad, int *launched, GdbError *err);

/*
 * gdb_slot1_launch (slot_agg_onekey.cu): queue the one-key slot pass over
 * rows [0, nrows) on ex's stream -- every selected row (flags[row] != 0,
 * or every row when flags is NULL) folded into the global slot table
 * (table, rowcount; nslots slots, the layout of gdb_slot_ref, entries
 * already at their start), a key outside sk's range setting *bad -- when
 * the lean forms are enabled (gdb_fast_lean_enabled), sk has one key, the
 * aggregates read at most two distinct columns, the arrays are aligned
 * for its pair loads and its block table fits in shared memory.
 * *launched says whether it did; when not, the caller runs
 * gdb_slot_agg_kernel.  Returns GDB_OK, or GDB_ERR_DEVICE when the launch
 * fails.
 */
int			gdb_slot1_launch(GdbCudaExec *ex, const GdbSlotKeys &sk,
							 const GdbFastAggs &fa, uint32_t naggs,
							 const uint8_t *flags, uint64_t nrows, uint32_t nslots,
							 unsigned long long *table, unsigned *rowcount,
							 unsigned long long *bad, int *launched, GdbError *err);

#endif							/* GPUDB_SLOT_TABLE_CUH */
