/*-------------------------------------------------------------------------
 *
 * slot_agg_private.cu
 *	  The small key domain's slot pass (groupby_fastpath.cu, step 2) for a
 *	  handful of slots, where the shared-memory table of
 *	  gdb_slot_agg_kernel<true> is a hot spot: every thread of a block
 *	  updates the same few words with shared-memory atomics, which the
 *	  hardware serialises (TPC-H Q1: 4 groups, 5 numeric sums a row).
 *	  Same global slot table, same merge, same results.  No PostgreSQL
 *	  header.
 *
 * Algorithm: per-thread privatisation.  Each thread owns a private copy
 * of the block's slot table in shared memory -- word k of thread t at
 * [k * blockDim + t], so that a warp's accesses to one word fall in
 * consecutive banks -- and folds its rows into it with plain loads and
 * stores, no atomics and no contention.  At the block's end each warp
 * takes slots in turn: its lanes fold the threads' copies of the slot
 * (lane l the threads l, l + 32, ...), a shuffle tree combines the lanes
 * (gdb_acc_combine, exact for the integer kinds), and lane 0 merges the
 * result into the global table with atomics (gdb_acc_atomic_merge), as the
 * block tables of gdb_slot_agg_kernel<true> do.  The privatised histogram
 * of the GPU literature taken to one copy per thread, which pays when the
 * copies are small: slots x words fit GDB_PRIV_SMEM_MAX at the block size.
 * A thread takes GDB_PRIV_UNROLL grid-stride rows a step, their flags,
 * slots and then each accumulated column's values loaded together.
 *
 * Words of a slot in a copy: the row count, then one word per accumulated
 * aggregate (same == a, not COUNT_STAR): SUM_INT a signed 64-bit running
 * sum, SUM_FLOAT the sum, MIN/MAX the extreme (floats as gdb_fenc), COUNT
 * none.  What is rare stays out of the copies, in one block-wide table
 * updated with shared-memory atomics: a SUM_INT's carries (a running sum
 * that wraps adds +-1 to its high word, so the exact 128-bit sum is the
 * copies' sum plus 2^64 times it), a SUM_FLOAT's infinite inputs, and the
 * NULL inputs of an aggregate whose column has NULL flags (the non-NULL
 * count is the row count less them).
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "cuda_exec.cuh"
#include "fast_acc.cuh"
#include "gpudb_semantics.h"
#include "slot_table.cuh"

/* Threads per block of the private pass (64 when 128 do not fit). */
#define GDB_PRIV_BLOCK 128

/* Shared memory of a block's private copies, at most (bytes): 2 blocks an SM. */
#define GDB_PRIV_SMEM_MAX (96 * 1024)

/* Slots at most: above, the shared-memory atomics of the block table rarely collide. */
#define GDB_PRIV_MAX_SLOTS 32

/* Rows per thread per step. */
#define GDB_PRIV_UNROLL 8

/* One accumulated aggregate of the private pass. */
struct GdbPrivAcc
{
	uint32_t	agg;			/* index into the request's aggregates */
	int			kind;
	int			off;			/* its word within a slot (COUNT: none) */
};

/* The private pass's plan: the accumulated aggregates and the slot's words. */
struct GdbPrivPlan
{
	uint32_t	nacc;
	uint32_t	wps;			/* words per slot: the row count, one per
								 * aggregate but COUNT */
	GdbPrivAcc	acc[GDB_MAX_AGGREGATES];
};

/* Words of one accumulator of kind in a private copy. */
__host__ __device__ static inline int
gdb_priv_words(int kind)
{
	return kind == GDB_AGG_COUNT ? 0 : 1;
}

/*
 * gdb_acc_combine: the accumulator of the rows of a and b (kind's words;
 * count is the non-NULL count), exact but for SUM_FLOAT's sum.
 */
__device__ __forceinline__ GdbAcc
gdb_acc_combine(int kind, GdbAcc a, const GdbAcc &b)
{
	a.count += b.count;
	switch (kind)
	{
		case GDB_AGG_SUM_INT:
			{
				unsigned long long lo = a.w0 + b.w0;

				a.w1 += b.w1 + (unsigned long long) (lo < a.w0);
				a.w0 = lo;
			}
			break;
		case GDB_AGG_MIN_INT:
			a.w0 = (long long) b.w0 < (long long) a.w0 ? b.w0 : a.w0;
			break;
		case GDB_AGG_MAX_INT:
			a.w0 = (long long) b.w0 > (long long) a.w0 ? b.w0 : a.w0;
			break;
		case GDB_AGG_SUM_FLOAT:
			a.f += b.f;
			a.w0 += b.w0;
			break;
		case GDB_AGG_MIN_FLOAT:
			a.w0 = b.w0 < a.w0 ? b.w0 : a.w0;
			break;
		case GDB_AGG_MAX_FLOAT:
			a.w0 = b.w0 > a.w0 ? b.w0 : a.w0;
			break;
		default:
			break;
	}
	return a;
}

/*
 * The accumulator of one copy's word w of kind (count left 0): a SUM_INT's
 * running sum sign-extended to 128 bits.
 */
__device__ __forceinline__ GdbAcc
gdb_priv_load(int kind, unsigned long long w)
{
	GdbAcc		a = gdb_acc_init(kind);

	if (kind == GDB_AGG_SUM_FLOAT)
		a.f = __longlong_as_double((long long) w);
	else if (kind != GDB_AGG_COUNT)
	{
		a.w0 = w;
		if (kind == GDB_AGG_SUM_INT)
			a.w1 = (long long) w < 0 ? ~0ULL : 0ULL;
	}
	return a;
}

/*
 * gdb_slot_private_kernel: fold every selected row (flags[row] != 0, or
 * every row when flags is NULL) into its slot in the thread's private
 * copy (see the file header), then merge the block's copies into the
 * global table (table, rowcount; entries already at their start).  A row
 * outside the key ranges sets *bad.  Dynamic shared memory: the block-wide
 * table (2 * nslots * p.nacc words: the high words or infinite inputs,
 * then the NULL inputs), then nslots * p.wps words per thread.
 */
__global__ void __launch_bounds__(GDB_PRIV_BLOCK)
gdb_slot_private_kernel(GdbSlotKeys keys, GdbFastAggs aggs, GdbPrivPlan p,
						const uint8_t *flags, uint64_t nrows, uint32_t nslots,
						unsigned long long *table, unsigned *rowcount,
						unsigned long long *bad)
{
	extern __shared__ unsigned long long gdb_priv_smem[];
	const uint32_t bd = blockDim.x;
	const uint32_t nblock = nslots * p.nacc;	/* entries of each block-wide array */
	unsigned long long *rare = gdb_priv_smem;	/* [slot * nacc + j] */
	unsigned long long *nullcnt = gdb_priv_smem + nblock;
	unsigned long long *copies = gdb_priv_smem + 2 * (size_t) nblock;
	unsigned long long *mine = copies + threadIdx.x;
	const uint64_t stride = (uint64_t) gridDim.x * bd;

	for (uint32_t i = threadIdx.x; i < 2 * nblock; i += bd)
		gdb_priv_smem[i] = 0;
#define GDB_PW(k) mine[(size_t) (k) * bd]
	for (uint32_t s = 0; s < nslots; s++)
	{
		GDB_PW(s * p.wps) = 0;
		for (uint32_t j = 0; j < p.nacc; j++)
		{
			GdbAcc		init = gdb_acc_init(p.acc[j].kind);

			if (p.acc[j].kind == GDB_AGG_SUM_FLOAT)
				GDB_PW(s * p.wps + p.acc[j].off) =
					(unsigned long long) __double_as_longlong(init.f);
			else if (p.acc[j].kind != GDB_AGG_COUNT)
				GDB_PW(s * p.wps + p.acc[j].off) = init.w0;
		}
	}
	__syncthreads();

	for (uint64_t row = blockIdx.x * (uint64_t) bd + threadIdx.x;
		 row < nrows; row += GDB_PRIV_UNROLL * stride)
	{
		uint32_t	slot[GDB_PRIV_UNROLL];
		bool		take[GDB_PRIV_UNROLL];

#pragma unroll
		for (int u = 0; u < GDB_PRIV_UNROLL; u++)
		{
			uint64_t	r = row + u * stride;
			bool		ok = true;
			unsigned long long sl;

			take[u] = r < nrows && (flags == NULL || flags[r]);
			sl = take[u] ? gdb_slot_of(keys, r, &ok) : 0;
			if (take[u] && (!ok || sl >= nslots))
			{
				atomicOr(bad, 1ULL);
				take[u] = false;
			}
			slot[u] = (uint32_t) sl;
		}
#pragma unroll
		for (int u = 0; u < GDB_PRIV_UNROLL; u++)
			if (take[u])
				GDB_PW(slot[u] * p.wps)++;
		for (uint32_t j = 0; j < p.nacc; j++)
		{
			const GdbFastAgg &ag = aggs.a[p.acc[j].agg];
			const int	kind = p.acc[j].kind;
			const int	off = p.acc[j].off;
			int64_t		v[GDB_PRIV_UNROLL];
			uint8_t		isnull[GDB_PRIV_UNROLL];

#pragma unroll
			for (int u = 0; u < GDB_PRIV_UNROLL; u++)
			{
				uint64_t	r = row + u * stride;

				v[u] = take[u] && ag.col ? ag.col[r] : 0;
				isnull[u] = take[u] && ag.nulls ? ag.nulls[r] : 0;
			}
#pragma unroll
			for (int u = 0; u < GDB_PRIV_UNROLL; u++)
			{
				uint32_t	k = slot[u] * p.wps + off;

				if (!take[u])
					continue;
				if (isnull[u])
				{
					atomicAdd(&nullcnt[slot[u] * p.nacc + j], 1ULL);
					continue;
				}
				switch (kind)
				{
					case GDB_AGG_SUM_INT:
						{
							long long	w = (long long) GDB_PW(k);
							long long	sum = (long long) ((unsigned long long) w +
														   (unsigned long long) v[u]);

							/* wrapped: carry +-1 into the high word */
							if (v[u] >= 0 ? sum < w : sum > w)
								atomicAdd(&rare[slot[u] * p.nacc + j],
										  v[u] >= 0 ? 1ULL : ~0ULL);
							GDB_PW(k) = (unsigned long long) sum;
						}
						break;
					case GDB_AGG_MIN_INT:
						if (v[u] < (long long) GDB_PW(k))
							GDB_PW(k) = (unsigned long long) v[u];
						break;
					case GDB_AGG_MAX_INT:
						if (v[u] > (long long) GDB_PW(k))
							GDB_PW(k) = (unsigned long long) v[u];
						break;
					case GDB_AGG_SUM_FLOAT:
						{
							double		d = __longlong_as_double((long long) v[u]);
							double		f = __longlong_as_double((long long) GDB_PW(k));

							GDB_PW(k) = (unsigned long long) __double_as_longlong(f + d);
							if (isinf(d))
								atomicAdd(&rare[slot[u] * p.nacc + j], 1ULL);
						}
						break;
					case GDB_AGG_MIN_FLOAT:
					case GDB_AGG_MAX_FLOAT:
						{
							unsigned long long e = gdb_fenc(__longlong_as_double((long long) v[u]));

							if (kind == GDB_AGG_MIN_FLOAT ? e < GDB_PW(k) : e > GDB_PW(k))
								GDB_PW(k) = e;
						}
						break;
					default:
						break;
				}
			}
		}
	}
#undef GDB_PW
	__syncthreads();

	/* merge: a warp per slot; lane l folds the copies of threads l, l + 32, ... */
	{
		const uint32_t lane = threadIdx.x % 32;
		const uint32_t nwarps = bd / 32;

		for (uint32_t s = threadIdx.x / 32; s < nslots; s += nwarps)
		{
			unsigned long long c = 0;

			for (uint32_t t = lane; t < bd; t += 32)
				c += copies[(size_t) (s * p.wps) * bd + t];
			for (int o = 16; o > 0; o /= 2)
				c += __shfl_down_sync(0xffffffffu, c, o);
			c = __shfl_sync(0xffffffffu, c, 0);
			if (c == 0)
				continue;
			if (lane == 0)
				atomicAdd(&rowcount[s], (unsigned) c);
			for (uint32_t j = 0; j < p.nacc; j++)
			{
				const int	kind = p.acc[j].kind;
				GdbAcc		acc = gdb_acc_init(kind);

				if (kind != GDB_AGG_COUNT)
					for (uint32_t t = lane; t < bd; t += 32)
						acc = gdb_acc_combine(kind, acc,
											  gdb_priv_load(kind,
															copies[(size_t) (s * p.wps + p.acc[j].off) * bd + t]));
				for (int o = 16; o > 0; o /= 2)
				{
					GdbAcc		other;

					other.count = __shfl_down_sync(0xffffffffu, acc.count, o);
					other.w0 = __shfl_down_sync(0xffffffffu, acc.w0, o);
					other.w1 = __shfl_down_sync(0xffffffffu, acc.w1, o);
					other.f = __shfl_down_sync(0xffffffffu, acc.f, o);
					acc = gdb_acc_combine(kind, acc, other);
				}
				if (lane == 0)
				{
					unsigned long long r = rare[s * p.nacc + j];

					if (kind == GDB_AGG_SUM_INT)
						acc.w1 += r;	/* the carries, in units of 2^64 */
					else if (kind == GDB_AGG_SUM_FLOAT)
						acc.w0 = r;		/* the infinite inputs */
					acc.count = c - nullcnt[s * p.nacc + j];
					gdb_acc_atomic_merge(kind, gdb_slot_ref(table, p.acc[j].agg, nslots, s), acc);
				}
			}
		}
	}
}

/* gdb_slot_private_launch: see slot_table.cuh. */
int
gdb_slot_private_launch(GdbCudaExec *ex, const GdbSlotKeys &sk, const GdbFastAggs &fa,
						uint32_t naggs, const uint8_t *flags, uint64_t nrows,
						uint32_t nslots, unsigned long long *table, unsigned *rowcount,
						unsigned long long *bad, int *launched, GdbError *err)
{
	GdbPrivPlan p;
	uint32_t	bd;
	size_t		smem;
	int			per_sm = 0;
	uint64_t	grid,
				want;

	*launched = 0;
	if (!gdb_fast_paths_enabled() || nslots == 0 || nslots > GDB_PRIV_MAX_SLOTS ||
		nrows == 0)
		return GDB_OK;
	memset(&p, 0, sizeof(p));
	p.wps = 1;
	for (uint32_t a = 0; a < naggs; a++)
	{
		const GdbFastAgg &ag = fa.a[a];

		if (ag.kind == GDB_AGG_COUNT_STAR || ag.same != a)
			continue;
		if (ag.kind > GDB_AGG_MAX_FLOAT)
			return GDB_OK;
		p.acc[p.nacc].agg = a;
		p.acc[p.nacc].kind = ag.kind;
		p.acc[p.nacc].off = (int) p.wps;
		p.wps += gdb_priv_words(ag.kind);
		p.nacc++;
	}
	bd = GDB_PRIV_BLOCK;
	smem = ((size_t) nslots * p.wps * bd + 2 * (size_t) nslots * p.nacc) *
		sizeof(unsigned long long);
	if (smem > GDB_PRIV_SMEM_MAX)
	{
		bd = GDB_PRIV_BLOCK / 2;
		smem = ((size_t) nslots * p.wps * bd + 2 * (size_t) nslots * p.nacc) *
			sizeof(unsigned long long);
		if (smem > GDB_PRIV_SMEM_MAX)
			return GDB_OK;
	}
	if (smem > 48 * 1024 &&
		cudaFuncSetAttribute(gdb_slot_private_kernel,
							 cudaFuncAttributeMaxDynamicSharedMemorySize,
							 (int) smem) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return GDB_OK;
	}
	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gdb_slot_private_kernel,
													  (int) bd, smem) != cudaSuccess ||
		per_sm <= 0)
	{
		(void) cudaGetLastError();
		return GDB_OK;
	}
	want = (nrows + (uint64_t) bd * GDB_PRIV_UNROLL - 1) / ((uint64_t) bd * GDB_PRIV_UNROLL);
	grid = (uint64_t) per_sm * (uint64_t) (ex->multiprocessors > 0 ? ex->multiprocessors : 1);
	if (grid > want)
		grid = want;
	gdb_slot_private_kernel<<<(unsigned) grid, bd, smem, ex->stream>>>(
		sk, fa, p, flags, nrows, nslots, table, rowcount, bad);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_slot_private_kernel");
	*launched = 1;
	return GDB_OK;
}
