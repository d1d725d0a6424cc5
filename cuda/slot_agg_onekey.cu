/*-------------------------------------------------------------------------
 *
 * slot_agg_onekey.cu
 *	  The small key domain's slot pass (groupby_fastpath.cu, step 2) in a
 *	  lean form for the common case of one key column: the same slot table,
 *	  the same merge and the same results as gdb_slot_agg_kernel<true>,
 *	  with fewer instructions a row -- a 32-bit slot and no loop over keys,
 *	  16-byte loads of row pairs (2-byte loads of their NULL and filter
 *	  flags), a thread's pairs of a step all loaded before any is folded,
 *	  SUM_FLOAT's atomics unrolled, and a block table holding only the
 *	  aggregates that accumulate (not COUNT_STAR, nor one that shares
 *	  another's accumulator, as avg(v) shares sum(v)'s), so that more
 *	  blocks fit an SM.  No PostgreSQL header.
 *
 * Algorithm: privatised shared-memory histograms (a block's table of
 * per-slot accumulators updated with shared-memory atomics, merged into
 * the global table with global atomics at the block's end), the usual GPU
 * histogram scheme.
 *
 * Measured (H200, 100M cached rows, test/bench/kernel_bw, B1 = 1,000
 * groups, count(*), sum(v), avg(v)): the aggregate phase 0.75 ms with
 * gdb_slot_agg_kernel<true>, 0.53 ms here with 512-thread blocks and 2
 * pairs a thread a step (0.55 with 4 pairs, 0.59 with 256-thread blocks).
 * ncu: the L1/shared-memory pipe 95 % busy -- three shared-memory
 * operations a row (the row count's atomic add, and the double sum's load
 * and compare-and-swap: sm_90 has no native shared-memory double add) --
 * and DRAM 56 %: bound by shared-memory atomics, not by loads.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "cuda_exec.cuh"
#include "fast_acc.cuh"
#include "gpudb_semantics.h"
#include "slot_table.cuh"

/* Distinct value columns the one-key slot pass loads. */
#define GDB_SLOT1_MAX_COLS 2

/* Threads per block of the one-key slot pass. */
#ifndef GDB_SLOT1_BLOCK
#define GDB_SLOT1_BLOCK 512
#endif

/*
 * Row pairs a thread takes per step in the one-key slot pass with one
 * value column (two: 2 pairs, more spill).
 */
#ifndef GDB_SLOT1_PAIRS
#define GDB_SLOT1_PAIRS 2
#endif

/*
 * The one-key slot pass's arguments (gdb_slot1_plan): the key column
 * (values 16-byte aligned, NULL flags 2-byte aligned or NULL), the value
 * of its first digit and its range (gdb_slot_domain's minv and range: the
 * NULL digit is range), and the accumulated aggregates -- those with
 * same == a, not COUNT_STAR -- each an index into the request's aggregates,
 * its kind and which of the distinct value columns vals / nulls it reads.
 */
struct GdbSlot1Args
{
	const int64_t *key;
	const uint8_t *key_nulls;
	unsigned long long kmin;
	unsigned long long range;
	uint32_t	ncols;
	const int64_t *vals[GDB_SLOT1_MAX_COLS];
	const uint8_t *nulls[GDB_SLOT1_MAX_COLS];
	uint32_t	nacc;
	uint32_t	agg[GDB_MAX_AGGREGATES];
	int			kind[GDB_MAX_AGGREGATES];
	int			col[GDB_MAX_AGGREGATES];
};

/*
 * Fold R loaded rows into a block's shared table tab / cnt: row u has key
 * word key[u] and NULL flag kn[u], is selected when take[u], and has
 * x[c][u] / n[c][u] in value column c.  Its slot is key - kmin in 32 bits
 * (range <= GDB_FAST_MAX_SLOTS), range for a NULL key; a selected row
 * whose key is out of range sets *bad and is skipped.  SUM_FLOAT, the
 * benchmark's common kind, is unrolled here; the other kinds go through
 * gdb_acc_atomic_add_counting_nulls.
 */
template <int NC, int R>
__device__ __forceinline__ void
gdb_slot1_fold(const GdbSlot1Args &k, uint32_t nslots, unsigned long long *tab,
			   unsigned *cnt, const int64_t (&key)[R], const uint8_t (&kn)[R],
			   bool (&take)[R], const int64_t (&x)[NC][R], const uint8_t (&n)[NC][R],
			   unsigned long long *bad)
{
	uint32_t	slot[R];

#pragma unroll
	for (int u = 0; u < R; u++)
	{
		unsigned long long d = (unsigned long long) key[u] - k.kmin;

		slot[u] = kn[u] ? (uint32_t) k.range : (uint32_t) d;
		if (take[u] && !kn[u] && d >= k.range)
		{
			gdb_flag_raise(bad);	/* read first: maybe every row */
			take[u] = false;
		}
	}
#pragma unroll
	for (int u = 0; u < R; u++)
		if (take[u])
			atomicAdd(&cnt[slot[u]], 1u);
	for (uint32_t j = 0; j < k.nacc; j++)
	{
		GdbAccRef	t = gdb_slot_ref(tab, j, nslots, 0);
		int			c = k.col[j];
		int			kind = k.kind[j];

		if (kind == GDB_AGG_SUM_FLOAT)
		{
#pragma unroll
			for (int u = 0; u < R; u++)
			{
				double		v = __longlong_as_double(gdb_pick<NC, R>(x, c, u));

				if (!take[u])
					continue;
				if (gdb_pick<NC, R>(n, c, u))
					atomicAdd(t.count + slot[u], 1ULL);
				else
				{
					atomicAdd(t.f + slot[u], v);
					if (isinf(v))
						atomicAdd(t.w0 + slot[u], 1ULL);
				}
			}
		}
		else
		{
#pragma unroll
			for (int u = 0; u < R; u++)
				if (take[u])
					gdb_acc_atomic_add_counting_nulls(kind,
													  gdb_slot_ref(tab, j, nslots, slot[u]),
													  gdb_pick<NC, R>(x, c, u),
													  gdb_pick<NC, R>(n, c, u) != 0);
		}
	}
}

/*
 * gdb_slot1_agg_kernel<NC, FLAGS>: gdb_slot_agg_kernel<true> for one key
 * column and NC distinct value columns, with fewer instructions a row:
 * 32-bit slots, no loop over keys, and 16-byte loads of row pairs (2-byte
 * loads of their NULL flags and, with FLAGS, of their filter flags), a
 * thread's GDB_SLOT1_PAIRS pairs of a step all loaded before any is
 * folded.  Thread t of the grid takes pairs t, t + grid, ... in steps; the
 * last row of an odd count is block 0's thread 0's.  Same table, same
 * merge, same results as gdb_slot_agg_kernel<true>.
 */
template <int NC, bool FLAGS>
__global__ void __launch_bounds__(GDB_SLOT1_BLOCK, 2)
gdb_slot1_agg_kernel(GdbSlot1Args k, GdbFastAggs aggs, uint32_t naggs,
					 const uint8_t *flags, uint64_t nrows, uint32_t nslots,
					 unsigned long long *table, unsigned *rowcount,
					 unsigned long long *bad)
{
	extern __shared__ unsigned long long gdb_fast_smem[];
	constexpr int P = NC == 1 ? GDB_SLOT1_PAIRS : 2;
	unsigned long long *tab = gdb_fast_smem;
	auto		agg_of = [&k](uint32_t j) { return k.agg[j]; };
	unsigned   *cnt = gdb_slot_init_block(aggs, k.nacc, agg_of, nslots, tab);
	const uint64_t npairs = nrows / 2;
	const uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

	for (uint64_t p0 = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; p0 < npairs;
		 p0 += P * stride)
	{
		const int	R = 2 * P;
		longlong2	kv[P];
		longlong2	vv[NC][P];
		unsigned short knb[P],
					fb[P],
					nb[NC][P];
		int64_t		key[R],
					x[NC][R];
		uint8_t		kn[R],
					n[NC][R];
		bool		take[R];

#pragma unroll
		for (int j = 0; j < P; j++)
		{
			uint64_t	p = p0 + j * stride;
			bool		in = p < npairs;

			kv[j] = in ? __ldg((const longlong2 *) k.key + p) : make_longlong2(0, 0);
			knb[j] = in && k.key_nulls ? __ldg((const unsigned short *) k.key_nulls + p) : 0;
			fb[j] = !in ? 0 : FLAGS ? __ldg((const unsigned short *) flags + p) : 0x0101;
#pragma unroll
			for (int c = 0; c < NC; c++)
			{
				vv[c][j] = in ? __ldg((const longlong2 *) k.vals[c] + p) : make_longlong2(0, 0);
				nb[c][j] = in && k.nulls[c] ? __ldg((const unsigned short *) k.nulls[c] + p) : 0;
			}
		}
		/* row 2p is a pair's first word and (little-endian) low flag byte */
#pragma unroll
		for (int j = 0; j < P; j++)
		{
			key[2 * j] = kv[j].x;
			key[2 * j + 1] = kv[j].y;
			kn[2 * j] = (uint8_t) (knb[j] & 0xff);
			kn[2 * j + 1] = (uint8_t) (knb[j] >> 8);
			take[2 * j] = (fb[j] & 0xff) != 0;
			take[2 * j + 1] = (fb[j] >> 8) != 0;
#pragma unroll
			for (int c = 0; c < NC; c++)
			{
				x[c][2 * j] = vv[c][j].x;
				x[c][2 * j + 1] = vv[c][j].y;
				n[c][2 * j] = (uint8_t) (nb[c][j] & 0xff);
				n[c][2 * j + 1] = (uint8_t) (nb[c][j] >> 8);
			}
		}
		gdb_slot1_fold<NC, R>(k, nslots, tab, cnt, key, kn, take, x, n, bad);
	}
	if ((nrows & 1) && blockIdx.x == 0 && threadIdx.x == 0)
	{
		uint64_t	row = nrows - 1;
		int64_t		key[1] = {k.key[row]};
		uint8_t		kn[1] = {(uint8_t) (k.key_nulls ? k.key_nulls[row] : 0)};
		bool		take[1] = {!FLAGS || flags[row] != 0};
		int64_t		x[NC][1];
		uint8_t		n[NC][1];

#pragma unroll
		for (int c = 0; c < NC; c++)
		{
			x[c][0] = k.vals[c][row];
			n[c][0] = k.nulls[c] ? k.nulls[c][row] : 0;
		}
		gdb_slot1_fold<NC, 1>(k, nslots, tab, cnt, key, kn, take, x, n, bad);
	}
	gdb_slot_merge_block(aggs, k.nacc, agg_of, nslots, tab, cnt, table, rowcount);
}

typedef void (*GdbSlot1Kernel) (GdbSlot1Args, GdbFastAggs, uint32_t, const uint8_t *,
								uint64_t, uint32_t, unsigned long long *, unsigned *,
								unsigned long long *);

/* The instantiation for [ncols - 1][flags != NULL]. */
static const GdbSlot1Kernel gdb_slot1_kernels[GDB_SLOT1_MAX_COLS][2] = {
	{gdb_slot1_agg_kernel<1, false>, gdb_slot1_agg_kernel<1, true>},
	{gdb_slot1_agg_kernel<2, false>, gdb_slot1_agg_kernel<2, true>}
};

/*
 * gdb_slot1_plan: the one-key pass's arguments for r (one key, sk from
 * gdb_slot_domain, fa from gdb_fast_aggs) into *k, and its kernel; NULL
 * when r does not qualify (more keys, more than GDB_SLOT1_MAX_COLS
 * distinct value columns, or arrays not aligned for the pair loads): then
 * gdb_slot_agg_kernel<true> runs.  flags: the filter's, or NULL.
 */
static GdbSlot1Kernel
gdb_slot1_plan(const GdbSlotKeys &sk, const GdbFastAggs &fa, uint32_t naggs,
			   const uint8_t *flags, GdbSlot1Args *k)
{
	if (sk.nkeys != 1 || ((uintptr_t) sk.vals[0] & 15) != 0 ||
		((uintptr_t) sk.nulls[0] & 1) != 0 || ((uintptr_t) flags & 1) != 0)
		return NULL;
	memset(k, 0, sizeof(*k));
	k->key = sk.vals[0];
	k->key_nulls = sk.nulls[0];
	k->kmin = (unsigned long long) sk.minv[0];
	k->range = sk.range[0];
	for (uint32_t a = 0; a < naggs; a++)
	{
		const GdbFastAgg &ag = fa.a[a];
		uint32_t	c;

		if (ag.kind == GDB_AGG_COUNT_STAR || ag.same != a)
			continue;
		for (c = 0; c < k->ncols; c++)
			if (k->vals[c] == ag.col && k->nulls[c] == ag.nulls)
				break;
		if (c == k->ncols)
		{
			if (k->ncols == GDB_SLOT1_MAX_COLS || ((uintptr_t) ag.col & 15) != 0 ||
				((uintptr_t) ag.nulls & 1) != 0)
				return NULL;
			k->vals[c] = ag.col;
			k->nulls[c] = ag.nulls;
			k->ncols++;
		}
		k->agg[k->nacc] = a;
		k->kind[k->nacc] = ag.kind;
		k->col[k->nacc] = (int) c;
		k->nacc++;
	}
	/*
	 * no value column (count(*) alone): the kernel of one column loads the
	 * key's values again, a valid address, and folds nothing from them
	 */
	if (k->ncols == 0)
	{
		k->vals[0] = k->key;
		k->nulls[0] = NULL;
	}
	return gdb_slot1_kernels[k->ncols > 0 ? k->ncols - 1 : 0][flags != NULL];
}

/* gdb_slot1_launch: see slot_table.cuh. */
int
gdb_slot1_launch(GdbCudaExec *ex, const GdbSlotKeys &sk, const GdbFastAggs &fa,
				 uint32_t naggs, const uint8_t *flags, uint64_t nrows, uint32_t nslots,
				 unsigned long long *table, unsigned *rowcount,
				 unsigned long long *bad, int *launched, GdbError *err)
{
	GdbSlot1Args k;
	GdbSlot1Kernel kernel;
	size_t		smem;
	int			optin = 0,
				per_sm = 0;
	uint64_t	grid,
				want = (nrows / 2 + GDB_SLOT1_BLOCK - 1) / GDB_SLOT1_BLOCK + 1;

	*launched = 0;
	if (!gdb_fast_lean_enabled() || (kernel = gdb_slot1_plan(sk, fa, naggs, flags, &k)) == NULL)
		return GDB_OK;
	smem = (size_t) k.nacc * nslots * sizeof(GdbAcc) +
		(((size_t) nslots * sizeof(unsigned) + 7) & ~(size_t) 7);
	if (smem > 48 * 1024 &&
		(smem > GDB_FAST_SMEM_MAX ||
		 cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
								ex->ordinal) != cudaSuccess || (size_t) optin < smem ||
		 cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
							  (int) smem) != cudaSuccess))
	{
		(void) cudaGetLastError();
		return GDB_OK;
	}
	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, GDB_SLOT1_BLOCK,
													  smem) != cudaSuccess || per_sm < 1)
	{
		(void) cudaGetLastError();
		return GDB_OK;
	}
	grid = (uint64_t) per_sm * (uint64_t) (ex->multiprocessors > 0 ? ex->multiprocessors : 1);
	if (grid > want)
		grid = want;
	kernel<<<(unsigned) grid, GDB_SLOT1_BLOCK, smem, ex->stream>>>(
		k, fa, naggs, flags, nrows, nslots, table, rowcount, bad);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_slot1_agg_kernel");
	*launched = 1;
	return GDB_OK;
}

