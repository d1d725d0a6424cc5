/*-------------------------------------------------------------------------
 *
 * slot_agg_warp.cu
 *	  The small key domain's slot pass (groupby_fastpath.cu, step 2) for a
 *	  handful of slots, where the block table of gdb_slot_agg_kernel<true>
 *	  is a hot spot: with few groups, and one of them holding most rows
 *	  (TPC-H Q1: 4 groups, half the rows in one), the lanes of a warp
 *	  update the same words with shared-memory atomics, which the hardware
 *	  serialises.  Same block table, same merge into the global table, same
 *	  results.  No PostgreSQL header.
 *
 * Algorithm: warp-aggregated atomics.  A warp takes 32 consecutive rows a
 * step; while some of its selected rows are not folded, the lowest such
 * lane's slot is broadcast (__shfl_sync), the lanes of that slot found
 * (__ballot_sync), and each aggregate's values of those lanes reduced
 * across the warp with shuffles (others contribute the identity) before
 * one lane updates the block table once: one atomic per distinct slot of
 * the warp and aggregate, not one per row.  The loop runs once per
 * distinct slot among the 32 rows, so the pass is taken for at most
 * GDB_WARP_MAX_SLOTS slots.  SUM_INT is exact: when every lane's value
 * lies within +-2^58 the 64-bit sum of 32 of them cannot wrap, else the
 * values' high and low 32-bit halves are summed apart and the 128-bit sum
 * put together.  A lane loads its row's values of every accumulated
 * aggregate (at most GDB_WARP_MAX_ACCS) before the loop, so that they are
 * in flight together.  SUM_FLOAT's sum is the tree's (equal up to the order of
 * the additions, as every other pass's; lanes without a value add -0.0,
 * the exact identity).
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "cuda_exec.cuh"
#include "fast_acc.cuh"
#include "gpudb_semantics.h"
#include "slot_table.cuh"

/* Slots at most: the warp loop runs once per distinct slot of 32 rows. */
#define GDB_WARP_MAX_SLOTS 16

/* Threads per block of the warp-aggregated pass. */
#define GDB_WARP_BLOCK 512

#define GDB_FULL_MASK 0xffffffffu

/* Accumulated aggregates at most (their values loaded before the fold). */
#define GDB_WARP_MAX_ACCS 8

/*
 * The aggregates that accumulate (not COUNT_STAR, nor one sharing another's
 * accumulator, as avg(v) shares sum(v)'s): indexes into the request's.
 */
struct GdbWarpAccs
{
	uint32_t	n;
	uint32_t	agg[GDB_WARP_MAX_ACCS];
};

/* The warp's sum of v (each lane's own) as a 64-bit value, on every lane. */
__device__ __forceinline__ unsigned long long
gdb_warp_sum_u64(unsigned long long v)
{
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_xor_sync(GDB_FULL_MASK, v, o);
	return v;
}

/* The warp's minimum (is_min) or maximum of v as signed, on every lane. */
__device__ __forceinline__ long long
gdb_warp_extreme_i64(long long v, bool is_min)
{
	for (int o = 16; o > 0; o /= 2)
	{
		long long	w = __shfl_xor_sync(GDB_FULL_MASK, v, o);

		v = is_min ? (w < v ? w : v) : (w > v ? w : v);
	}
	return v;
}

/* The same over unsigned encodings. */
__device__ __forceinline__ unsigned long long
gdb_warp_extreme_u64(unsigned long long v, bool is_min)
{
	for (int o = 16; o > 0; o /= 2)
	{
		unsigned long long w = __shfl_xor_sync(GDB_FULL_MASK, v, o);

		v = is_min ? (w < v ? w : v) : (w > v ? w : v);
	}
	return v;
}

/*
 * gdb_slot_warp_kernel: fold every selected row (flags[row] != 0, or every
 * row when flags is NULL) into its slot's row count and accumulators in
 * the block table (gdb_slot_init_block's layout: naggs * nslots GdbAccs,
 * each count counting NULL inputs, then the row counts), warp-aggregated
 * (see the file header), then merge the block table into the global one
 * (table, rowcount).  A row outside the key ranges sets *bad.  Every lane
 * of a warp runs every step, so the shuffles see full warps.
 */
__global__ void __launch_bounds__(GDB_WARP_BLOCK)
gdb_slot_warp_kernel(GdbSlotKeys keys, GdbFastAggs aggs, uint32_t naggs,
					 GdbWarpAccs acc, const uint8_t *flags, uint64_t nrows, uint32_t nslots,
					 unsigned long long *table, unsigned *rowcount,
					 unsigned long long *bad)
{
	extern __shared__ unsigned long long gdb_warp_smem[];
	unsigned long long *tab = gdb_warp_smem;
	unsigned   *cnt;
	const int	lane = threadIdx.x % 32;
	const uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

	cnt = gdb_slot_init_block(aggs, naggs, [](uint32_t j) { return j; }, nslots, tab);
	/* base is the same for every lane of a block: the loop is warp-uniform */
	for (uint64_t base = blockIdx.x * (uint64_t) blockDim.x; base < nrows; base += stride)
	{
		uint64_t	row = base + threadIdx.x;
		bool		take = row < nrows && (flags == NULL || flags[row]);
		bool		ok = true;
		uint32_t	slot = 0;
		unsigned	todo;
		int64_t		pv[GDB_WARP_MAX_ACCS];
		uint8_t		pn[GDB_WARP_MAX_ACCS];

		if (take)
		{
			unsigned long long sl = gdb_slot_of(keys, row, &ok);

			if (!ok || sl >= nslots)
			{
				gdb_flag_raise(bad);	/* read first: maybe every row */
				take = false;
			}
			slot = (uint32_t) sl;
		}
		/* every value of the row first: the loads in flight together */
#pragma unroll
		for (int k = 0; k < GDB_WARP_MAX_ACCS; k++)
		{
			const GdbFastAgg &ag = aggs.a[acc.agg[k < (int) acc.n ? k : 0]];

			pv[k] = take && k < (int) acc.n && ag.col ? ag.col[row] : 0;
			pn[k] = take && k < (int) acc.n && ag.nulls ? ag.nulls[row] : 0;
		}
		todo = __ballot_sync(GDB_FULL_MASK, take);
		while (todo)
		{
			const int	first = __ffs(todo) - 1;
			const uint32_t s = __shfl_sync(GDB_FULL_MASK, slot, first);
			const bool	in = take && slot == s;
			const unsigned m = __ballot_sync(GDB_FULL_MASK, in);

			todo &= ~m;
			if (lane == first)
				atomicAdd(&cnt[s], (unsigned) __popc(m));
#pragma unroll
			for (int k = 0; k < GDB_WARP_MAX_ACCS; k++)
			{
				const uint32_t a = acc.agg[k < (int) acc.n ? k : 0];
				const int	kind = aggs.a[a].kind;
				GdbAccRef	ref;
				const int64_t v = pv[k];
				const bool	isnull = pn[k] != 0;
				bool		val;
				unsigned	nulls;

				if (k >= (int) acc.n)
					break;
				val = in && !isnull;
				nulls = __ballot_sync(GDB_FULL_MASK, in && isnull);
				ref = gdb_slot_ref(tab, a, nslots, s);
				if (lane == first && nulls)
					atomicAdd(ref.count, (unsigned long long) __popc(nulls));
				if (__ballot_sync(GDB_FULL_MASK, val) == 0 || kind == GDB_AGG_COUNT)
					continue;
				switch (kind)
				{
					case GDB_AGG_SUM_INT:
						{
							const long long lim = 1LL << 58;
							long long	x = val ? v : 0;

							if (__all_sync(GDB_FULL_MASK, x < lim && x > -lim))
							{
								/* 32 values within 2^58: the 64-bit sum is exact */
								long long	sum = (long long) gdb_warp_sum_u64((unsigned long long) x);

								if (lane == first)
									gdb_acc_atomic_fold(GDB_AGG_SUM_INT, ref, sum);
							}
							else
							{
								/* halves: x = hi * 2^32 + lo, lo unsigned */
								long long	hi = (long long) gdb_warp_sum_u64((unsigned long long) (x >> 32));
								unsigned long long lo = gdb_warp_sum_u64((unsigned long long) (x & 0xffffffffLL));

								if (lane == first)
								{
									/* sum = hi * 2^32 + lo as 128 bits: w0 and w1 */
									unsigned long long w0 = ((unsigned long long) hi << 32) + lo;
									unsigned long long w1 = (unsigned long long) (hi >> 32) +
										(w0 < lo ? 1ULL : 0ULL);
									unsigned long long old = atomicAdd(ref.w0, w0);

									w1 += (unsigned long long) (old + w0 < old);
									if (w1)
										atomicAdd(ref.w1, w1);
								}
							}
						}
						break;
					case GDB_AGG_MIN_INT:
					case GDB_AGG_MAX_INT:
						{
							bool		is_min = kind == GDB_AGG_MIN_INT;
							long long	x = val ? v : (is_min ? INT64_MAX : INT64_MIN);

							x = gdb_warp_extreme_i64(x, is_min);
							if (lane == first)
								gdb_acc_atomic_fold(kind, ref, x);
						}
						break;
					case GDB_AGG_SUM_FLOAT:
						{
							double		d = val ? __longlong_as_double((long long) v) : -0.0;
							unsigned	infs = __ballot_sync(GDB_FULL_MASK, val && isinf(d));
							double		f = d;

							for (int o = 16; o > 0; o /= 2)
								f += __shfl_xor_sync(GDB_FULL_MASK, f, o);
							if (lane == first)
							{
								atomicAdd(ref.f, f);
								if (infs)
									atomicAdd(ref.w0, (unsigned long long) __popc(infs));
							}
						}
						break;
					case GDB_AGG_MIN_FLOAT:
					case GDB_AGG_MAX_FLOAT:
						{
							bool		is_min = kind == GDB_AGG_MIN_FLOAT;
							unsigned long long e = val ? gdb_fenc(__longlong_as_double((long long) v)) :
								(is_min ? ~0ULL : 0ULL);

							e = gdb_warp_extreme_u64(e, is_min);
							if (lane == first)
							{
								if (is_min)
									atomicMin(ref.w0, e);
								else
									atomicMax(ref.w0, e);
							}
						}
						break;
					default:
						break;
				}
			}
		}
	}
	gdb_slot_merge_block(aggs, naggs, [](uint32_t j) { return j; }, nslots, tab, cnt,
						 table, rowcount);
}

/*
 * The warp-aggregated pass's switch: a benchmark hook (1 on, the default;
 * 0 off: the block table's pass instead).  A plain int: every writer
 * stores the same value.
 */
static int	gdb_warp_slots = 1;

extern "C" void
gdb_cuda_set_warp_slots(int on)
{
	gdb_warp_slots = on != 0;
}

/* gdb_slot_warp_launch: see slot_table.cuh. */
int
gdb_slot_warp_launch(GdbCudaExec *ex, const GdbSlotKeys &sk, const GdbFastAggs &fa,
					 uint32_t naggs, const uint8_t *flags, uint64_t nrows,
					 uint32_t nslots, unsigned long long *table, unsigned *rowcount,
					 unsigned long long *bad, int *launched, GdbError *err)
{
	size_t		smem = (size_t) naggs * nslots * sizeof(GdbAcc) +
		(((size_t) nslots * sizeof(unsigned) + 7) & ~(size_t) 7);
	int			per_sm = 0;
	uint64_t	grid,
				want = (nrows + GDB_WARP_BLOCK - 1) / GDB_WARP_BLOCK;

	GdbWarpAccs acc;

	*launched = 0;
	if (!gdb_warp_slots || !gdb_fast_paths_enabled() || nslots == 0 ||
		nslots > GDB_WARP_MAX_SLOTS || nrows == 0 || smem > 48 * 1024)
		return GDB_OK;
	memset(&acc, 0, sizeof(acc));
	for (uint32_t a = 0; a < naggs; a++)
	{
		if (fa.a[a].kind == GDB_AGG_COUNT_STAR || fa.a[a].same != a)
			continue;
		if (acc.n >= GDB_WARP_MAX_ACCS)
			return GDB_OK;
		acc.agg[acc.n++] = a;
	}
	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gdb_slot_warp_kernel,
													  GDB_WARP_BLOCK, smem) != cudaSuccess ||
		per_sm < 1)
	{
		(void) cudaGetLastError();
		return GDB_OK;
	}
	grid = (uint64_t) per_sm * (uint64_t) (ex->multiprocessors > 0 ? ex->multiprocessors : 1);
	if (grid > want)
		grid = want;
	gdb_slot_warp_kernel<<<(unsigned) grid, GDB_WARP_BLOCK, smem, ex->stream>>>(
		sk, fa, naggs, acc, flags, nrows, nslots, table, rowcount, bad);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_slot_warp_kernel");
	*launched = 1;
	return GDB_OK;
}
