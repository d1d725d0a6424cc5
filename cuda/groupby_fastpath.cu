/*-------------------------------------------------------------------------
 *
 * groupby_fastpath.cu
 *	  Two fast paths of gdb_groupby_on_device (groupby_kernels.cu) that skip
 *	  the sort-based pipeline and produce the same result batch: the same
 *	  groups in the same order, the same key values and NULL flags, integer,
 *	  count, min and max states bit-identical, float sums equal up to the
 *	  order of the additions.  Both run after the filter kernel was queued
 *	  (flags valid when the request has a program) and only for
 *	  !req->input_is_states; gdb_groupby_run picks them (see
 *	  gdb_fast_paths_enabled: GPUDB_FAST_PATHS=0 disables them).
 *
 *	 No group keys (gdb_fast_nokeys; with a predicate filter the fused
 *	   pass of fused_filter_agg.cu replaces the first kernel and the
 *	   filter's flags): one kernel over a 2-D grid, x the row
 *	   range (grid-stride), y the aggregate (plus a last COUNT_STAR that
 *	   counts the selected rows): each thread folds its rows of the selected
 *	   set into a register accumulator specialised per aggregate kind, the
 *	   block reduces with cub::BlockReduce and gdb_state_combine, and writes
 *	   a partial state; a second kernel (one block per aggregate) combines
 *	   the partials straight into the device result batch.  No compaction,
 *	   no per-row state array.
 *
 *	 Small key domain (gdb_fast_smallkeys): every key column INT64.
 *	   1. For a column store whose key columns have range hints (the
 *		  ranges an earlier unfiltered call measured; see
 *		  gdb_range_hint_find), nothing: step 2 checks every row against
 *		  them and the selected-row count is summed from the slots.
 *		  Otherwise gdb_key_range_kernel: min and max key encodings over the selected
 *		  rows with a non-NULL key, and the selected-row count (warp
 *		  shuffles, then one atomic per warp); read back with the filter's
 *		  error.  The key of k has radix (max - min + 1) + (1 if the column
 *		  has NULL flags); when the product exceeds GDB_FAST_MAX_SLOTS the
 *		  caller falls back to sorting (flags and nsel stay valid).
 *	   2. gdb_slot_agg_kernel: each selected row's dense slot, the mixed
 *		  radix number of its key digits (first key most significant; a
 *		  value's digit is value - min, NULL's is the range, i.e. after
 *		  every value, as the sort orders them), so ascending slots are the
 *		  sort path's group order.  Per slot: a row count and one GdbAcc per
 *		  aggregate (aggregates of the same kind over the same column, as
 *		  sum(v) and avg(v), share the first one's), updated with atomics (see gdb_acc_atomic_add), in a
 *		  per-block shared-memory table merged into the global one at the
 *		  block's end when the table fits, else in the global table.  The
 *		  tables are structures of arrays (GdbAccRef), so that a warp's
 *		  random slots fall in different shared-memory banks; each thread
 *		  takes GDB_FAST_UNROLL rows per step, loads first.  With one key
 *		  column, slot_agg_onekey.cu's lean form runs instead where it
 *		  qualifies (gdb_slot1_launch): the same table and results.
 *	   3. cub::DeviceSelect::If: the non-empty slots in slot order.
 *	   4. gdb_slot_output_kernel: each group's key values (min + digit:
 *		  INT64 keys group by raw equality, so every row of a group -- the
 *		  first included -- holds exactly these values) and states.
 *	   A row whose key falls outside the ranges (cannot happen unless the
 *	   data changed under us) sets fast_bad and the call falls back.
 *	   When the domain is too large, the ranges stay in the run
 *	   (r->kmin, r->kmax) and the sort path radix-sorts only their bits.
 *
 * GdbAcc, the accumulator of one aggregate, and its fold are in
 * fast_acc.cuh (shared with fused_filter_agg.cu); the slot tables, their
 * atomics and the aggregates' arguments in slot_table.cuh (shared with
 * slot_agg_onekey.cu); in slot tables its count
 * is not used for COUNT_STAR (the slot's row count is its count).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda_exec.cuh"
#include "fast_acc.cuh"
#include "fused_filter_agg.cuh"
#include "gpudb_semantics.h"
#include "slot_table.cuh"

/* Result state column of each aggregate (device addresses in d_res). */
struct GdbFastOut
{
	GdbAggState *col[GDB_MAX_AGGREGATES];
};

/* DeviceSelect::If predicate: slot i holds rows. */
struct GdbSlotNonEmpty
{
	const unsigned *rowcount;

	__host__ __device__ bool
	operator()(const uint32_t &i) const
	{
		return rowcount[i] != 0;
	}
};

/* Threads per block of the shared-memory slot kernel (fewer, fuller blocks). */
#define GDB_SLOT_SMEM_BLOCK 1024

/* Rows per step of a thread in the fast paths' row loops. */
#define GDB_FAST_UNROLL 4

/* Blocks along x of the no-keys kernel: at most this many per SM. */
#define GDB_NOKEYS_BLOCKS_PER_SM 4


/* ---- no keys ---- */

/*
 * One thread's fold of its grid-stride rows for aggregate ag of kind K,
 * GDB_FAST_UNROLL rows per step with their loads issued together (memory-
 * level parallelism: a step's loads do not wait on each other).
 */
template <int K>
__device__ __forceinline__ GdbAggState
gdb_nokeys_rows(const GdbFastAgg &ag, const uint8_t *flags, uint64_t nrows)
{
	GdbAcc		acc = gdb_acc_init(K);
	const int64_t *col = ag.col;
	const uint8_t *nulls = ag.nulls;
	const uint64_t stride = (uint64_t) gridDim.x * blockDim.x;
	uint64_t	row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;

	for (; row + (GDB_FAST_UNROLL - 1) * stride < nrows; row += GDB_FAST_UNROLL * stride)
	{
		uint8_t		sel[GDB_FAST_UNROLL];
		uint8_t		isnull[GDB_FAST_UNROLL];
		int64_t		v[GDB_FAST_UNROLL];

#pragma unroll
		for (int u = 0; u < GDB_FAST_UNROLL; u++)
		{
			uint64_t	r = row + u * stride;

			sel[u] = flags ? flags[r] : 1;
			isnull[u] = (K != GDB_AGG_COUNT_STAR && nulls) ? nulls[r] : 0;
			v[u] = K != GDB_AGG_COUNT_STAR ? col[r] : 0;
		}
#pragma unroll
		for (int u = 0; u < GDB_FAST_UNROLL; u++)
			if (sel[u])
				gdb_acc_add<K>(acc, v[u], isnull[u] != 0);
	}
	for (; row < nrows; row += stride)
	{
		if (flags && !flags[row])
			continue;
		if (K == GDB_AGG_COUNT_STAR)
			gdb_acc_add<K>(acc, 0, 0);
		else
			gdb_acc_add<K>(acc, col[row], nulls ? nulls[row] != 0 : 0);
	}
	return gdb_acc_state(K, acc);
}

/*
 * gdb_nokeys_partial_kernel: grid (nblk, naggs + 1).  Block (x, a) folds
 * the selected rows x, x + nblk * blockDim, ... of aggregate a and writes
 * the block's state to partials[a * nblk + x].  flags NULL: every row.
 */
__global__ void __launch_bounds__(GDB_BLOCK)
gdb_nokeys_partial_kernel(GdbFastAggs aggs, const uint8_t *flags, uint64_t nrows,
						  GdbAggState *partials)
{
	typedef cub::BlockReduce<GdbAggState, GDB_BLOCK> BlockReduce;
	__shared__ typename BlockReduce::TempStorage tmp;
	const GdbFastAgg ag = aggs.a[blockIdx.y];
	GdbFastCombine op;
	GdbAggState s;

	switch (ag.kind)
	{
		case GDB_AGG_COUNT_STAR:
			s = gdb_nokeys_rows<GDB_AGG_COUNT_STAR>(ag, flags, nrows);
			break;
		case GDB_AGG_COUNT:
			s = gdb_nokeys_rows<GDB_AGG_COUNT>(ag, flags, nrows);
			break;
		case GDB_AGG_SUM_INT:
			s = gdb_nokeys_rows<GDB_AGG_SUM_INT>(ag, flags, nrows);
			break;
		case GDB_AGG_SUM_FLOAT:
			s = gdb_nokeys_rows<GDB_AGG_SUM_FLOAT>(ag, flags, nrows);
			break;
		case GDB_AGG_MIN_INT:
			s = gdb_nokeys_rows<GDB_AGG_MIN_INT>(ag, flags, nrows);
			break;
		case GDB_AGG_MAX_INT:
			s = gdb_nokeys_rows<GDB_AGG_MAX_INT>(ag, flags, nrows);
			break;
		case GDB_AGG_MIN_FLOAT:
			s = gdb_nokeys_rows<GDB_AGG_MIN_FLOAT>(ag, flags, nrows);
			break;
		default:
			s = gdb_nokeys_rows<GDB_AGG_MAX_FLOAT>(ag, flags, nrows);
			break;
	}
	op.kind = ag.kind;
	s = BlockReduce(tmp).Reduce(s, op);
	if (threadIdx.x == 0)
		partials[(uint64_t) blockIdx.y * gridDim.x + blockIdx.x] = s;
}

/*
 * gdb_nokeys_final_kernel: block a < naggs combines the nblk partials of
 * aggregate a into out.col[a][0]; block naggs (the row count) writes its
 * count to *nsel.
 */
__global__ void __launch_bounds__(GDB_BLOCK)
gdb_nokeys_final_kernel(GdbFastAggs aggs, const GdbAggState *partials,
						uint32_t nblk, GdbFastOut out, unsigned long long *nsel)
{
	typedef cub::BlockReduce<GdbAggState, GDB_BLOCK> BlockReduce;
	__shared__ typename BlockReduce::TempStorage tmp;
	uint32_t	a = blockIdx.x;
	GdbFastCombine op;
	GdbAggState s;

	op.kind = aggs.a[a].kind;
	s = gdb_state_identity(op.kind);
	for (uint32_t i = threadIdx.x; i < nblk; i += blockDim.x)
		s = op(s, partials[(uint64_t) a * nblk + i]);
	s = BlockReduce(tmp).Reduce(s, op);
	if (threadIdx.x == 0)
	{
		if (a + 1 == aggs.n)
			*nsel = (unsigned long long) s.count;
		else
			out.col[a][0] = s;
	}
}

/* Aggregate descriptors of r's request (+ the row count as the last). */
static void
gdb_fast_aggs(const GdbRun *r, GdbFastAggs *fa)
{
	const GdbRequest *req = r->req;
	const GdbBatch *in = r->input;

	memset(fa, 0, sizeof(*fa));
	for (uint32_t a = 0; a < req->naggs; a++)
	{
		const GdbAggSpec *sp = &req->aggs[a];

		fa->a[a].kind = (int) sp->kind;
		if (sp->kind != GDB_AGG_COUNT_STAR)
		{
			fa->a[a].col = (const int64_t *) (r->d_in + in->cols[sp->input_col].values_off);
			fa->a[a].nulls = GDB_NULL_PTR(r->d_in, in, sp->input_col);
		}
		fa->a[a].same = a;
		for (uint32_t b = 0; b < a; b++)
			if (fa->a[b].kind == fa->a[a].kind && fa->a[b].col == fa->a[a].col &&
				fa->a[b].nulls == fa->a[a].nulls)
			{
				fa->a[a].same = b;
				break;
			}
	}
	fa->a[req->naggs].kind = GDB_AGG_COUNT_STAR;
	fa->a[req->naggs].same = req->naggs;
	fa->n = req->naggs + 1;
}

/* Host layout of r's result batch for ngroups groups, into *b. */
static void
gdb_fast_layout(const GdbRun *r, uint64_t ngroups, GdbBatch *b)
{
	const GdbRequest *req = r->req;
	uint32_t	kinds[GDB_MAX_COLUMNS];
	uint32_t	has_nulls[GDB_MAX_COLUMNS];

	for (uint32_t k = 0; k < req->nkeys; k++)
	{
		kinds[k] = r->input->cols[req->key_cols[k]].kind;
		has_nulls[k] = r->input->cols[req->key_cols[k]].has_nulls;
	}
	for (uint32_t a = 0; a < req->naggs; a++)
	{
		kinds[req->nkeys + a] = GDB_KIND_STATE;
		has_nulls[req->nkeys + a] = 0;
	}
	gdb_batch_layout(b, req->nkeys + req->naggs, kinds, has_nulls, ngroups);
}

/* gdb_fast_nokeys: see cuda_exec.cuh and the file header. */
int
gdb_fast_nokeys(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
				GdbBatch **result, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	cudaStream_t s = ex->stream;
	GdbFastAggs fa;
	GdbFastOut	fo;
	GdbBatch	lay;
	GdbBatch   *host = NULL;
	GdbAggState *partials;
	char	   *d_res,
			   *d_res2 = NULL;
	const uint8_t *flags = req->ninstr > 0 ? r->flags : NULL;
	uint64_t	nblk64 = (r->nrows + GDB_BLOCK - 1) / GDB_BLOCK;
	uint64_t	cap = (uint64_t) (ex->multiprocessors > 0 ? ex->multiprocessors : 1) *
		GDB_NOKEYS_BLOCKS_PER_SM;
	uint32_t	nblk = (uint32_t) (nblk64 < 1 ? 1 : (nblk64 > cap ? cap : nblk64));

	if (r->fused)
		nblk = gdb_fused_nokeys_blocks(ex, r->fused, r->nrows);

	if (req->nkeys != 0 || req->naggs > GDB_MAX_AGGREGATES)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST, "gdb_fast_nokeys: bad request");
	gdb_fast_aggs(r, &fa);
	gdb_fast_layout(r, 1, &lay);
	memset(&fo, 0, sizeof(fo));
	/* every buffer before the kernels: growing one waits for the stream */
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_RESULT, (size_t) lay.total_bytes, (void **) &d_res, err));
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_STATES,
							 (size_t) fa.n * nblk * sizeof(GdbAggState),
							 (void **) &partials, err));
	for (uint32_t a = 0; a < req->naggs; a++)
		fo.col[a] = GDB_COL_PTR(d_res, &lay, a, GdbAggState);

	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_AGGREGATE, err));
	if (r->fused)
	{
		/* the filter wrote no flags: the fused pass tests the predicate */
		if (r->fused->nout != fa.n)
			return gdb_error_set(err, GDB_ERR_DEVICE, "gdb_fast_nokeys: fused plan mismatch");
		GDB_TRY(gdb_fused_nokeys_launch(ex, r->fused, r->nrows, nblk, partials, err));
	}
	else
	{
		gdb_nokeys_partial_kernel<<<dim3(nblk, fa.n), GDB_BLOCK, 0, s>>>(fa, flags, r->nrows,
																		 partials);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_nokeys_partial_kernel");
	}
	gdb_nokeys_final_kernel<<<fa.n, GDB_BLOCK, 0, s>>>(fa, partials, nblk, fo,
													   &r->d_counters->nsel);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_nokeys_final_kernel");
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(ex->host_counters, r->d_counters,
										sizeof(GdbDevCounters),
										cudaMemcpyDeviceToHost, s));
	r->from_device += sizeof(GdbDevCounters);
	GDB_TRY(gdb_phase_end(r, err));
	GDB_TRY(gdb_filter_status(ex, err));
	r->nsel = ex->host_counters->nsel;
	r->ngroups = 1;
	if (r->nsel > r->nrows)
		return gdb_error_set(err, GDB_ERR_DEVICE,
							  "gdb_fast_nokeys: %llu rows selected of %llu",
							  (unsigned long long) r->nsel, (unsigned long long) r->nrows);
	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_AGGREGATE, err));

	/* same size as above: the RESULT scratch (and its contents) stays */
	GDB_TRY(gdb_result_alloc(r, 1, alloc, alloc_arg, &host, &d_res2, err));
	if (d_res2 != d_res || host->total_bytes != lay.total_bytes)
		return gdb_error_set(err, GDB_ERR_DEVICE,
							  "gdb_fast_nokeys: result buffer moved");
	GDB_TRY(gdb_result_finish(r, host, d_res, err));
	*result = host;
	return GDB_OK;
}

/* ---- small key domain ---- */

/* Warp-wide min / max / sum of 64-bit values (full warp). */
__device__ __forceinline__ unsigned long long
gdb_warp_min(unsigned long long v)
{
	for (int o = 16; o > 0; o >>= 1)
	{
		unsigned long long w = __shfl_xor_sync(0xffffffffu, v, o);

		v = w < v ? w : v;
	}
	return v;
}

__device__ __forceinline__ unsigned long long
gdb_warp_max(unsigned long long v)
{
	for (int o = 16; o > 0; o >>= 1)
	{
		unsigned long long w = __shfl_xor_sync(0xffffffffu, v, o);

		v = w > v ? w : v;
	}
	return v;
}

__device__ __forceinline__ unsigned long long
gdb_warp_sum(unsigned long long v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

/*
 * gdb_key_range_kernel: over the selected rows (flags NULL: all), the
 * count into c->nsel and, per key, the min / max gdb_key_encode_int of
 * the non-NULL values into c->kmin / c->kmax (preset to ~0 / 0).
 * Blocks are whole warps; every thread reaches the shuffles.
 */
__global__ void __launch_bounds__(GDB_BLOCK)
gdb_key_range_kernel(GdbDevKeys keys, const uint8_t *flags, uint64_t nrows,
					 GdbDevCounters *c)
{
	unsigned long long mn[GDB_MAX_GROUP_KEYS],
				mx[GDB_MAX_GROUP_KEYS],
				n = 0;
	uint32_t	nkeys = keys.nkeys;
	const uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

#pragma unroll
	for (int k = 0; k < GDB_MAX_GROUP_KEYS; k++)
	{
		mn[k] = ~0ULL;
		mx[k] = 0;
	}
	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 row < nrows; row += GDB_FAST_UNROLL * stride)
	{
		bool		take[GDB_FAST_UNROLL];

#pragma unroll
		for (int u = 0; u < GDB_FAST_UNROLL; u++)
		{
			uint64_t	r = row + u * stride;

			take[u] = r < nrows && (flags == NULL || flags[r]);
			n += take[u];
		}
#pragma unroll
		for (int k = 0; k < GDB_MAX_GROUP_KEYS; k++)
		{
			if ((uint32_t) k >= nkeys)
				break;

			unsigned long long e[GDB_FAST_UNROLL];
			bool		has[GDB_FAST_UNROLL];

#pragma unroll
			for (int u = 0; u < GDB_FAST_UNROLL; u++)
			{
				uint64_t	r = row + u * stride;

				has[u] = take[u] && !(keys.nulls[k] && keys.nulls[k][r]);
				e[u] = has[u] ? gdb_key_encode_int(keys.vals[k][r]) : 0;
			}
#pragma unroll
			for (int u = 0; u < GDB_FAST_UNROLL; u++)
			{
				if (has[u])
				{
					mn[k] = e[u] < mn[k] ? e[u] : mn[k];
					mx[k] = e[u] > mx[k] ? e[u] : mx[k];
				}
			}
		}
	}
	n = gdb_warp_sum(n);
#pragma unroll
	for (int k = 0; k < GDB_MAX_GROUP_KEYS; k++)
	{
		if ((uint32_t) k < nkeys)
		{
			mn[k] = gdb_warp_min(mn[k]);
			mx[k] = gdb_warp_max(mx[k]);
		}
	}
	if ((threadIdx.x & 31) == 0)
	{
		if (n)
			atomicAdd(&c->nsel, n);
#pragma unroll
		for (int k = 0; k < GDB_MAX_GROUP_KEYS; k++)
		{
			if ((uint32_t) k < nkeys && mn[k] <= mx[k])
			{
				atomicMin(&c->kmin[k], mn[k]);
				atomicMax(&c->kmax[k], mx[k]);
			}
		}
	}
}

/* gdb_slot_init_kernel: every table entry to its kind's start, counts to 0. */
__global__ void
gdb_slot_init_kernel(GdbFastAggs aggs, uint32_t naggs, uint32_t nslots,
					 unsigned long long *table, unsigned *rowcount)
{
	uint64_t	n = (uint64_t) naggs * nslots + nslots;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		if (i < (uint64_t) naggs * nslots)
			gdb_slot_store(gdb_slot_ref(table, (uint32_t) (i / nslots), nslots,
										(uint32_t) (i % nslots)),
						   gdb_acc_init(aggs.a[i / nslots].kind));
		else
			rowcount[i - (uint64_t) naggs * nslots] = 0;
	}
}

/*
 * gdb_slot_agg_kernel: fold every selected row into its slot's row count
 * and accumulators (see the file header).  SHARED: a per-block table in
 * dynamic shared memory (naggs * nslots GdbAccs as a structure of arrays,
 * then nslots counts), merged into the global table (table, rowcount) at
 * the end; else the global table directly.  A row outside the key ranges
 * sets *bad.  In the shared-memory table an accumulator's count counts its
 * NULL inputs (gdb_acc_atomic_add_counting_nulls), turned into the
 * non-NULL count at the merge.  Each thread takes GDB_FAST_UNROLL
 * grid-stride rows per step:
 * their flags and slots first, then, aggregate by aggregate, their values
 * (loads together) and the atomics.
 */
template <bool SHARED>
__global__ void __launch_bounds__(SHARED ? GDB_SLOT_SMEM_BLOCK : GDB_BLOCK)
gdb_slot_agg_kernel(GdbSlotKeys keys, GdbFastAggs aggs, uint32_t naggs,
					const uint8_t *flags, uint64_t nrows, uint32_t nslots,
					unsigned long long *table, unsigned *rowcount,
					unsigned long long *bad)
{
	extern __shared__ unsigned long long gdb_fast_smem[];
	unsigned long long *tab = table;
	unsigned   *cnt = rowcount;
	const uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

	if (SHARED)
	{
		tab = gdb_fast_smem;
		cnt = gdb_slot_init_block(aggs, naggs, [](uint32_t j) { return j; }, nslots, tab);
	}
	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 row < nrows; row += GDB_FAST_UNROLL * stride)
	{
		unsigned long long slot[GDB_FAST_UNROLL];
		bool		take[GDB_FAST_UNROLL];

#pragma unroll
		for (int u = 0; u < GDB_FAST_UNROLL; u++)
		{
			uint64_t	r = row + u * stride;
			bool		ok = true;

			take[u] = r < nrows && (flags == NULL || flags[r]);
			slot[u] = take[u] ? gdb_slot_of(keys, r, &ok) : 0;
			if (take[u] && (!ok || slot[u] >= nslots))
			{
				gdb_flag_raise(bad);	/* read first: maybe every row */
				take[u] = false;
			}
		}
#pragma unroll
		for (int u = 0; u < GDB_FAST_UNROLL; u++)
			if (take[u])
				atomicAdd(&cnt[slot[u]], 1u);
		for (uint32_t a = 0; a < naggs; a++)
		{
			const GdbFastAgg &ag = aggs.a[a];
			int64_t		v[GDB_FAST_UNROLL];
			uint8_t		isnull[GDB_FAST_UNROLL];

			if (ag.kind == GDB_AGG_COUNT_STAR || ag.same != a)
				continue;
#pragma unroll
			for (int u = 0; u < GDB_FAST_UNROLL; u++)
			{
				uint64_t	r = row + u * stride;

				v[u] = take[u] ? ag.col[r] : 0;
				isnull[u] = take[u] && ag.nulls ? ag.nulls[r] : 0;
			}
#pragma unroll
			for (int u = 0; u < GDB_FAST_UNROLL; u++)
			{
				if (!take[u])
					continue;
				if (SHARED)
					gdb_acc_atomic_add_counting_nulls(ag.kind,
													  gdb_slot_ref(tab, a, nslots, (uint32_t) slot[u]),
													  v[u], isnull[u] != 0);
				else
					gdb_acc_atomic_add(ag.kind,
									   gdb_slot_ref(tab, a, nslots, (uint32_t) slot[u]),
									   v[u], isnull[u] != 0);
			}
		}
	}
	if (SHARED)
		gdb_slot_merge_block(aggs, naggs, [](uint32_t j) { return j; }, nslots, tab, cnt,
							 table, rowcount);
}

/*
 * gdb_slot_output_kernel: group g's slot is slot_ids[g]; write its key
 * values (min + digit, or NULL: 0 and flag 1) and its states into the
 * result columns.
 */
__global__ void
gdb_slot_output_kernel(GdbSlotKeys keys, GdbFastAggs aggs, uint32_t naggs,
					   const uint32_t *slot_ids, uint64_t ngroups, uint32_t nslots,
					   unsigned long long *table, const unsigned *rowcount,
					   GdbDevOutKeys ok, GdbFastOut out)
{
	for (uint64_t g = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 g < ngroups; g += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	slot = slot_ids[g];
		unsigned long long rem = slot;

#pragma unroll
		for (uint32_t k = 0; k < GDB_MAX_GROUP_KEYS; k++)
		{
			if (k >= keys.nkeys)
				break;

			unsigned long long digit = rem / keys.stride[k];
			bool		isnull = keys.nulls[k] != NULL && digit == keys.range[k];

			rem -= digit * keys.stride[k];
			ok.vals[k][g] = isnull ? 0 :
				(int64_t) ((unsigned long long) keys.minv[k] + digit);
			if (ok.nulls[k])
				ok.nulls[k][g] = isnull ? 1 : 0;
		}
		for (uint32_t a = 0; a < naggs; a++)
		{
			int			kind = aggs.a[a].kind;
			GdbAcc		acc = gdb_slot_load(gdb_slot_ref(table, aggs.a[a].same, nslots, slot));

			if (kind == GDB_AGG_COUNT_STAR)
				acc.count = rowcount[slot];
			out.col[a][g] = gdb_acc_state(kind, acc);
		}
	}
}

/* gdb_fast_smallkeys_eligible: see cuda_exec.cuh. */
int
gdb_fast_smallkeys_eligible(const GdbRun *r)
{
	const GdbRequest *req = r->req;

	if (req->input_is_states || req->nkeys == 0 || req->nkeys > GDB_MAX_GROUP_KEYS ||
		req->naggs > GDB_MAX_AGGREGATES || r->nrows == 0)
		return 0;
	for (uint32_t k = 0; k < req->nkeys; k++)
		if (r->input->cols[req->key_cols[k]].kind != GDB_KIND_INT64)
			return 0;
	return 1;
}

/* Shared-memory bytes of a block's slot table (0: does not fit). */
static size_t
gdb_slot_smem(GdbCudaExec *ex, uint32_t naggs, uint32_t nslots)
{
	size_t		bytes = (size_t) naggs * nslots * sizeof(GdbAcc) +
		(((size_t) nslots * sizeof(unsigned) + 7) & ~(size_t) 7);
	int			optin = 0;

	if (bytes <= 48 * 1024)
		return bytes;
	if (bytes > GDB_FAST_SMEM_MAX)
		return 0;
	if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
							   ex->ordinal) != cudaSuccess || (size_t) optin < bytes ||
		cudaFuncSetAttribute(gdb_slot_agg_kernel<true>,
							 cudaFuncAttributeMaxDynamicSharedMemorySize,
							 (int) bytes) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return 0;
	}
	return bytes;
}

/*
 * Key-range hints: per exec, the ranges gdb_key_range_kernel last found
 * for a column store's key columns, keyed by the column's device address,
 * the row count and the store's generation (GdbStore.gen, new for every
 * buffer and every change of its rows), so a hint matches only the very
 * rows it was measured on.  A hint saves the range pass; should one be
 * wrong all the same, every row outside the hinted ranges sets fast_bad
 * and the call measures the ranges after all.  Only for key columns inside
 * a column store's buffer (r->store_gen): a batch buffer, and the scratch
 * of computed and join payload columns, hold other rows at the same
 * address every time.
 */
static int
gdb_range_hint_usable(const GdbRun *r)
{
	if (r->store_gen == 0)
		return 0;
	for (uint32_t k = 0; k < r->req->nkeys; k++)
	{
		const char *v = (const char *) r->keys.vals[k];

		if (v < r->store_buf || v >= r->store_buf + r->store_bytes)
			return 0;
	}
	return 1;
}

static int
gdb_range_hint_find(GdbRun *r)
{
	GdbCudaExec *ex = r->ex;

	if (!gdb_range_hint_usable(r))
		return 0;
	for (uint32_t k = 0; k < r->req->nkeys; k++)
	{
		int			h;

		for (h = 0; h < GDB_RANGE_HINTS; h++)
			if (ex->range_hint[h].vals == r->keys.vals[k] &&
				ex->range_hint[h].nrows == r->nrows &&
				ex->range_hint[h].gen == r->store_gen)
				break;
		if (h == GDB_RANGE_HINTS)
			return 0;
		r->kmin[k] = ex->range_hint[h].kmin;
		r->kmax[k] = ex->range_hint[h].kmax;
	}
	return 1;
}

/* Remember (or, forget: drop) the ranges in r->kmin/kmax as hints. */
static void
gdb_range_hint_store(GdbRun *r, int forget)
{
	GdbCudaExec *ex = r->ex;

	if (!gdb_range_hint_usable(r))
		return;
	for (uint32_t k = 0; k < r->req->nkeys; k++)
	{
		int			h;

		for (h = 0; h < GDB_RANGE_HINTS; h++)
			if (ex->range_hint[h].vals == r->keys.vals[k])
				break;
		if (h == GDB_RANGE_HINTS)
		{
			if (forget)
				continue;
			h = (int) (ex->range_hint_next++ % GDB_RANGE_HINTS);
		}
		ex->range_hint[h].vals = forget ? NULL : r->keys.vals[k];
		ex->range_hint[h].nrows = r->nrows;
		ex->range_hint[h].gen = r->store_gen;
		ex->range_hint[h].kmin = r->kmin[k];
		ex->range_hint[h].kmax = r->kmax[k];
	}
}

/*
 * The slot domain of the ranges in r->kmin/kmax (last key least
 * significant) into *sk and *nslots; 0 when it exceeds GDB_FAST_MAX_SLOTS
 * (or a key has neither values nor NULLs).
 */
static int
gdb_slot_domain(const GdbRun *r, GdbSlotKeys *sk, unsigned long long *nslots)
{
	const GdbRequest *req = r->req;

	memset(sk, 0, sizeof(*sk));
	sk->nkeys = req->nkeys;
	*nslots = 1;
	for (uint32_t k = 0; k < req->nkeys; k++)
	{
		unsigned long long range = 0,
					radix;

		if (r->kmin[k] <= r->kmax[k])
		{
			unsigned long long diff = r->kmax[k] - r->kmin[k];

			if (diff >= GDB_FAST_MAX_SLOTS)
				return 0;
			range = diff + 1;
		}
		sk->vals[k] = r->keys.vals[k];
		sk->nulls[k] = r->keys.nulls[k];
		sk->minv[k] = range ? (int64_t) (r->kmin[k] ^ GDB_SIGN) : 0;
		sk->range[k] = range;
		radix = range + (r->keys.nulls[k] ? 1 : 0);
		if (radix == 0)
			return 0;			/* no value and no NULL: unexpected */
		*nslots *= radix;
		if (*nslots > GDB_FAST_MAX_SLOTS)
			return 0;
	}
	for (int k = (int) req->nkeys - 1, stride = 1; k >= 0; k--)
	{
		sk->stride[k] = (unsigned long long) stride;
		stride *= (int) (sk->range[k] + (r->keys.nulls[k] ? 1 : 0));
	}
	return 1;
}

/* An empty result (no row selected): *taken, nothing to aggregate. */
static int
gdb_fast_empty(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
			   GdbBatch **result, int *taken, GdbError *err)
{
	GdbBatch   *host = NULL;
	char	   *d_res;

	r->ngroups = 0;
	GDB_TRY(gdb_result_alloc(r, 0, alloc, alloc_arg, &host, &d_res, err));
	GDB_TRY(gdb_result_finish(r, host, d_res, err));
	*result = host;
	*taken = 1;
	return GDB_OK;
}

/*
 * gdb_fast_smallkeys_run: gdb_fast_smallkeys, with the key ranges from a
 * hint when use_hint and the exec has one for these keys (then the
 * selected-row count is the sum of the slot row counts, and the filter
 * error is read back with it), else measured by gdb_key_range_kernel.
 */
static int
gdb_fast_smallkeys_run(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
					   GdbBatch **result, int *taken, int use_hint,
					   GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	cudaStream_t s = ex->stream;
	const uint8_t *flags = req->ninstr > 0 ? r->flags : NULL;
	GdbDevCounters *hc = ex->host_counters;
	GdbSlotKeys sk;
	GdbFastAggs fa;
	GdbFastOut	fo;
	GdbDevOutKeys ok;
	GdbBatch   *host = NULL;
	char	   *d_res;
	char	   *scr;
	unsigned long long *table;
	unsigned   *rowcount;
	uint32_t   *slot_ids;
	unsigned long long nslots = 1;
	uint32_t	ns32;
	uint32_t	naggs = req->naggs;
	size_t		tbytes,
				smem;
	int			hinted,
				lean;

	*taken = 0;
	if (!gdb_fast_smallkeys_eligible(r))
		return GDB_OK;

	GDB_CUDA_CHECK(err, cudaMemsetAsync(&r->d_counters->fast_bad, 0,
										sizeof(unsigned long long), s));
	hinted = use_hint && gdb_range_hint_find(r) && gdb_slot_domain(r, &sk, &nslots);
	if (hinted)
	{
		/* the filter phase ends here; its error is read back after step 3 */
		GDB_TRY(gdb_phase_end(r, err));
		GDB_TRY(gdb_phase_begin(r, GDB_PHASE_AGGREGATE, err));
	}
	else
	{
		/* 1. key ranges and the selected-row count (zeroed: a stale hint's
		 * pass may have written it) */
		GDB_CUDA_CHECK(err, cudaMemsetAsync(&r->d_counters->nsel, 0,
											sizeof(unsigned long long), s));
		GDB_CUDA_CHECK(err, cudaMemsetAsync(r->d_counters->kmin, 0xff,
											sizeof(r->d_counters->kmin), s));
		GDB_CUDA_CHECK(err, cudaMemsetAsync(r->d_counters->kmax, 0,
											sizeof(r->d_counters->kmax), s));
		gdb_key_range_kernel<<<gdb_blocks(ex, r->nrows), GDB_BLOCK, 0, s>>>(
			r->keys, flags, r->nrows, r->d_counters);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_key_range_kernel");
		GDB_CUDA_CHECK(err, cudaMemcpyAsync(hc, r->d_counters, sizeof(GdbDevCounters),
											cudaMemcpyDeviceToHost, s));
		r->from_device += sizeof(GdbDevCounters);
		GDB_TRY(gdb_phase_end(r, err));
		GDB_TRY(gdb_filter_status(ex, err));
		GDB_TRY(gdb_phase_begin(r, GDB_PHASE_AGGREGATE, err));
		r->nsel = hc->nsel;
		/* the sort path, if it comes to that, sorts only these ranges' bits */
		r->key_range_known = 1;
		for (uint32_t k = 0; k < req->nkeys; k++)
		{
			r->kmin[k] = hc->kmin[k];
			r->kmax[k] = hc->kmax[k];
		}
		if (r->nsel > r->nrows)
			return gdb_error_set(err, GDB_ERR_DEVICE,
								  "gdb_fast_smallkeys: %llu rows selected of %llu",
								  (unsigned long long) r->nsel, (unsigned long long) r->nrows);
		if (r->nsel == 0)
			return gdb_fast_empty(r, alloc, alloc_arg, result, taken, err);
		/* a filtered range is narrower than the store's: no hint from it */
		if (flags == NULL)
			gdb_range_hint_store(r, 0);
		if (!gdb_slot_domain(r, &sk, &nslots))
			return GDB_OK;		/* not taken: sort */
	}
	ns32 = (uint32_t) nslots;

	/* 2. the slot tables, in the STATES scratch: table, counts, slot ids */
	gdb_fast_aggs(r, &fa);
	tbytes = (size_t) naggs * ns32 * sizeof(GdbAcc);
	{
		size_t		cnt_off = tbytes;
		size_t		ids_off = cnt_off + (((size_t) ns32 * sizeof(unsigned) + 255) & ~(size_t) 255);
		size_t		total = ids_off + (size_t) ns32 * sizeof(uint32_t);

		GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_STATES, total, (void **) &scr, err));
		table = (unsigned long long *) scr;
		rowcount = (unsigned *) (scr + cnt_off);
		slot_ids = (uint32_t *) (scr + ids_off);
	}
	gdb_slot_init_kernel<<<gdb_blocks(ex, (uint64_t) naggs * ns32 + ns32), GDB_BLOCK, 0, s>>>(
		fa, naggs, ns32, table, rowcount);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_slot_init_kernel");
	smem = 0;
	/* a handful of slots: warp-aggregated; else one key: the lean form */
	GDB_TRY(gdb_slot_warp_launch(ex, sk, fa, naggs, flags, r->nrows, ns32, table,
								 rowcount, &r->d_counters->fast_bad, &lean, err));
	if (!lean)
		GDB_TRY(gdb_slot1_launch(ex, sk, fa, naggs, flags, r->nrows, ns32, table, rowcount,
								 &r->d_counters->fast_bad, &lean, err));
	if (!lean)
		smem = gdb_slot_smem(ex, naggs, ns32);
	if (smem > 0)
	{
		int			per_sm = 0;
		uint64_t	want = (r->nrows + GDB_SLOT_SMEM_BLOCK - 1) / GDB_SLOT_SMEM_BLOCK;
		uint64_t	grid;

		if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gdb_slot_agg_kernel<true>,
														  GDB_SLOT_SMEM_BLOCK, smem) != cudaSuccess)
		{
			(void) cudaGetLastError();
			per_sm = 0;
		}
		grid = (uint64_t) (per_sm > 0 ? per_sm : 0) *
			(uint64_t) (ex->multiprocessors > 0 ? ex->multiprocessors : 1);
		if (grid > want)
			grid = want;
		if (grid > 0)
		{
			gdb_slot_agg_kernel<true><<<(unsigned) grid, GDB_SLOT_SMEM_BLOCK, smem, s>>>(
				sk, fa, naggs, flags, r->nrows, ns32, table, rowcount,
				&r->d_counters->fast_bad);
			GDB_CUDA_CHECK_LAUNCH(err, "gdb_slot_agg_kernel<shared>");
		}
		else
			smem = 0;
	}
	if (smem == 0 && !lean)
	{
		gdb_slot_agg_kernel<false><<<gdb_blocks(ex, r->nrows), GDB_BLOCK, 0, s>>>(
			sk, fa, naggs, flags, r->nrows, ns32, table, rowcount,
			&r->d_counters->fast_bad);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_slot_agg_kernel<global>");
	}

	/* 3. the non-empty slots, ascending (hinted: and the selected rows) */
	{
		GdbSlotNonEmpty pred;
		unsigned long long *nseg = &r->d_counters->nseg;
		unsigned long long *nsel = &r->d_counters->nsel;

		pred.rowcount = rowcount;
		GDB_TRY(gdb_cub(ex, "cub::DeviceSelect::If", [&](void *t, size_t &b) {
			return cub::DeviceSelect::If(t, b, thrust::counting_iterator<uint32_t>(0),
										 slot_ids, nseg, (int64_t) ns32, pred, s);
		}, err));
		if (hinted)
			GDB_TRY(gdb_cub(ex, "cub::DeviceReduce::Sum", [&](void *t, size_t &b) {
				return cub::DeviceReduce::Sum(t, b, rowcount, nsel, (int64_t) ns32, s);
			}, err));
	}
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(hc, r->d_counters, sizeof(GdbDevCounters),
										cudaMemcpyDeviceToHost, s));
	r->from_device += sizeof(GdbDevCounters);
	GDB_TRY(gdb_phase_end(r, err));
	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_AGGREGATE, err));
	if (hinted)
	{
		if (hc->fast_bad != 0)
		{
			/* the hint was stale: measure the ranges */
			gdb_range_hint_store(r, 1);
			return gdb_fast_smallkeys_run(r, alloc, alloc_arg, result, taken, 0, err);
		}
		GDB_TRY(gdb_filter_status(ex, err));
		r->nsel = hc->nsel;
		if (r->nsel == 0)
			return gdb_fast_empty(r, alloc, alloc_arg, result, taken, err);
	}
	if (hc->fast_bad != 0 || hc->nseg == 0 || hc->nseg > ns32 || hc->nseg > r->nsel)
	{
		r->key_range_known = 0; /* the ranges did not hold */
		return GDB_OK;			/* not taken: the sort path redoes it */
	}
	r->ngroups = hc->nseg;

	/* 4. keys and states of each group */
	GDB_TRY(gdb_result_alloc(r, r->ngroups, alloc, alloc_arg, &host, &d_res, err));
	memset(&ok, 0, sizeof(ok));
	memset(&fo, 0, sizeof(fo));
	for (uint32_t k = 0; k < req->nkeys; k++)
	{
		ok.vals[k] = GDB_COL_PTR(d_res, host, k, int64_t);
		ok.nulls[k] = GDB_NULL_PTR(d_res, host, k);
	}
	for (uint32_t a = 0; a < naggs; a++)
		fo.col[a] = GDB_COL_PTR(d_res, host, req->nkeys + a, GdbAggState);
	gdb_slot_output_kernel<<<gdb_blocks(ex, r->ngroups), GDB_BLOCK, 0, s>>>(
		sk, fa, naggs, slot_ids, r->ngroups, ns32, table, rowcount, ok, fo);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_slot_output_kernel");
	GDB_TRY(gdb_result_finish(r, host, d_res, err));
	*result = host;
	*taken = 1;
	return GDB_OK;
}

/* gdb_fast_smallkeys: see cuda_exec.cuh and the file header. */
int
gdb_fast_smallkeys(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
				   GdbBatch **result, int *taken, GdbError *err)
{
	return gdb_fast_smallkeys_run(r, alloc, alloc_arg, result, taken, 1, err);
}
