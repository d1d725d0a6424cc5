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
 * Words of a slot in a copy: the row count, then per accumulated aggregate
 * (same == a, not COUNT_STAR) its kind's words -- SUM_INT the low and high
 * halves of its 128-bit sum, SUM_FLOAT the sum and the infinite inputs,
 * MIN/MAX the extreme (floats as gdb_fenc), COUNT none -- and, when its
 * column has NULL flags, its NULL inputs (the non-NULL count is the row
 * count less them).
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

/* Shared memory of a block's private copies, at most (bytes): 3 blocks an SM. */
#define GDB_PRIV_SMEM_MAX (72 * 1024)

/* Slots at most: above, the shared-memory atomics of the block table rarely collide. */
#define GDB_PRIV_MAX_SLOTS 32

/* Rows per thread per step. */
#define GDB_PRIV_UNROLL 8

/* One accumulated aggregate of the private pass. */
struct GdbPrivAcc
{
	uint32_t	agg;			/* index into the request's aggregates */
	int			kind;
	int			off;			/* its first word within a slot */
	int			nullw;			/* its NULL-input count's word, or -1 */
};

/* The private pass's plan: the accumulated aggregates and the slot's words. */
struct GdbPrivPlan
{
	uint32_t	nacc;
	uint32_t	wps;			/* words per slot: the row count and the rest */
	GdbPrivAcc	acc[GDB_MAX_AGGREGATES];
};

/* Words of one accumulator of kind in a private copy. */
__host__ __device__ static inline int
gdb_priv_words(int kind)
{
	switch (kind)
	{
		case GDB_AGG_SUM_INT:
		case GDB_AGG_SUM_FLOAT:
			return 2;
		case GDB_AGG_MIN_INT:
		case GDB_AGG_MAX_INT:
		case GDB_AGG_MIN_FLOAT:
		case GDB_AGG_MAX_FLOAT:
			return 1;
		default:
			return 0;			/* COUNT: the row count less the NULLs */
	}
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

/* Accumulator of kind's words at w (a thread's copy: stride words apart). */
__device__ __forceinline__ GdbAcc
gdb_priv_load(int kind, const unsigned long long *w, uint32_t stride)
{
	GdbAcc		a = gdb_acc_init(kind);
	int			nw = gdb_priv_words(kind);

	if (kind == GDB_AGG_SUM_FLOAT)
	{
		a.f = __longlong_as_double((long long) w[0]);
		a.w0 = w[stride];
	}
	else if (nw >= 1)
	{
		a.w0 = w[0];
		if (nw == 2)
			a.w1 = w[stride];
	}
	return a;
}

/*
 * gdb_slot_private_kernel: fold every selected row (flags[row] != 0, or
 * every row when flags is NULL) into its slot in the thread's private
 * copy (see the file header), then merge the block's copies into the
 * global table (table, rowcount; entries already at their start).  A row
 * outside the key ranges sets *bad.  Dynamic shared memory: nslots *
 * p.wps words per thread.
 */
__global__ void __launch_bounds__(GDB_PRIV_BLOCK)
gdb_slot_private_kernel(GdbSlotKeys keys, GdbFastAggs aggs, GdbPrivPlan p,
						const uint8_t *flags, uint64_t nrows, uint32_t nslots,
						unsigned long long *table, unsigned *rowcount,
						unsigned long long *bad)
{
	extern __shared__ unsigned long long gdb_priv_smem[];
	const uint32_t bd = blockDim.x;
	unsigned long long *mine = gdb_priv_smem + threadIdx.x;
	const uint64_t stride = (uint64_t) gridDim.x * bd;

#define GDB_PW(k) mine[(size_t) (k) * bd]
	for (uint32_t s = 0; s < nslots; s++)
	{
		GDB_PW(s * p.wps) = 0;
		for (uint32_t j = 0; j < p.nacc; j++)
		{
			GdbAcc		init = gdb_acc_init(p.acc[j].kind);
			uint32_t	k = s * p.wps + p.acc[j].off;

			if (p.acc[j].kind == GDB_AGG_SUM_FLOAT)
			{
				GDB_PW(k) = (unsigned long long) __double_as_longlong(init.f);
				GDB_PW(k + 1) = 0;
			}
			else if (gdb_priv_words(p.acc[j].kind) >= 1)
			{
				GDB_PW(k) = init.w0;
				if (gdb_priv_words(p.acc[j].kind) == 2)
					GDB_PW(k + 1) = 0;
			}
			if (p.acc[j].nullw >= 0)
				GDB_PW(s * p.wps + p.acc[j].nullw) = 0;
		}
	}

	for (uint64_t row = blockIdx.x * (uint64_t) bd + threadIdx.x;
		 row < nrows; row += GDB_PRIV_UNROLL * stride)
	{
		uint32_t	base[GDB_PRIV_UNROLL];
		bool		take[GDB_PRIV_UNROLL];

#pragma unroll
		for (int u = 0; u < GDB_PRIV_UNROLL; u++)
		{
			uint64_t	r = row + u * stride;
			bool		ok = true;
			unsigned long long slot;

			take[u] = r < nrows && (flags == NULL || flags[r]);
			slot = take[u] ? gdb_slot_of(keys, r, &ok) : 0;
			if (take[u] && (!ok || slot >= nslots))
			{
				atomicOr(bad, 1ULL);
				take[u] = false;
			}
			base[u] = (uint32_t) slot * p.wps;
		}
#pragma unroll
		for (int u = 0; u < GDB_PRIV_UNROLL; u++)
			if (take[u])
				GDB_PW(base[u])++;
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
				uint32_t	k = base[u] + off;

				if (!take[u])
					continue;
				if (isnull[u])
				{
					GDB_PW(base[u] + p.acc[j].nullw)++;
					continue;
				}
				switch (kind)
				{
					case GDB_AGG_SUM_INT:
						{
							unsigned long long w0 = GDB_PW(k);
							unsigned long long lo = w0 + (unsigned long long) v[u];

							GDB_PW(k + 1) += (unsigned long long) (lo < w0) +
								(v[u] < 0 ? ~0ULL : 0ULL);
							GDB_PW(k) = lo;
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
								GDB_PW(k + 1)++;
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
				c += gdb_priv_smem[(size_t) (s * p.wps) * bd + t];
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
				unsigned long long nulls = 0;

				for (uint32_t t = lane; t < bd; t += 32)
				{
					GdbAcc		one = gdb_priv_load(kind,
													gdb_priv_smem + (size_t) (s * p.wps + p.acc[j].off) * bd + t,
													bd);

					acc = gdb_acc_combine(kind, acc, one);
					if (p.acc[j].nullw >= 0)
						nulls += gdb_priv_smem[(size_t) (s * p.wps + p.acc[j].nullw) * bd + t];
				}
				for (int o = 16; o > 0; o /= 2)
				{
					GdbAcc		other;

					other.count = __shfl_down_sync(0xffffffffu, acc.count, o);
					other.w0 = __shfl_down_sync(0xffffffffu, acc.w0, o);
					other.w1 = __shfl_down_sync(0xffffffffu, acc.w1, o);
					other.f = __shfl_down_sync(0xffffffffu, acc.f, o);
					nulls += __shfl_down_sync(0xffffffffu, nulls, o);
					acc = gdb_acc_combine(kind, acc, other);
				}
				if (lane == 0)
				{
					acc.count = c - nulls;
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
		p.acc[p.nacc].nullw = -1;
		if (ag.nulls)
			p.acc[p.nacc].nullw = (int) p.wps++;
		p.nacc++;
	}
	bd = GDB_PRIV_BLOCK;
	smem = (size_t) nslots * p.wps * bd * sizeof(unsigned long long);
	if (smem > GDB_PRIV_SMEM_MAX)
	{
		bd = GDB_PRIV_BLOCK / 2;
		smem /= 2;
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
