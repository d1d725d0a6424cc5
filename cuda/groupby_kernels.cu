/*-------------------------------------------------------------------------
 *
 * groupby_kernels.cu
 *	  gdb_cuda_execute: the group-by of gpudb_device.h on a CUDA device.
 *	  Same contract and same output as gdb_cpu_execute (src/cpu/cpu_path.c):
 *	  groups ascending by the key encodings of gpudb_semantics.h, NULL after
 *	  every value per key, each group's key values taken from its first row
 *	  in input order, aggregate states folded with gdb_state_combine.
 *
 * Pipeline (all on the execution's one stream; nsel = selected rows):
 *
 *	 Phase A, selection
 *	   1. cudaMemcpyAsync of the whole input batch buffer (header included,
 *		  input->total_bytes; truly asynchronous when the caller built it in
 *		  gdb_cuda_host_alloc memory) -- skipped for a column store, whose
 *		  buffer is already on the device -- and of the filter program;
 *	   2. gdb_filter_kernel (filter_vm.cu): the filter program for every
 *		  row by a tile interpreter -> uint8 flags; a failing row does
 *		  atomicMin on (row << 4 | status), so the reported error is that
 *		  of the lowest failing row, as on the CPU path;
 *	   3. cub::DeviceSelect::Flagged over a counting iterator -> ascending
 *		  uint32 ids of the selected rows (without a program: a sequence);
 *	   4. read back {error, nsel}; a filter error ends the call.
 *	 Phase B, ordering and segmentation (only with group keys)
 *	   5. least-significant key first, for each key: gdb_gather_key_kernel
 *		  writes the uint64 encoding of each row in the current permutation
 *		  (0 for NULL) and cub::DeviceRadixSort::SortPairs (stable) reorders
 *		  the row ids by it; for a nullable key, then
 *		  gdb_gather_null_rank_kernel and a 1-bit SortPairs pass (bits
 *		  [0,1)) move NULLs after values (gdb_sort_by_column, shared with
 *		  the SORT operator of select_sort_kernels.cu); when
 *		  gdb_fast_smallkeys measured the key ranges first (too many
 *		  groups for its slots), gdb_sort_by_key_range sorts 32-bit
 *		  offsets from each key's minimum on just the range's bits;
 *		  Stable LSD passes over ids that start ascending leave every group
 *		  in input order, so its first row is its first input row;
 *	   6. gdb_group_start_kernel flags row i when i == 0 or any key's
 *		  (null flag, encoding) differs from row i-1;
 *		  cub::DeviceSelect::Flagged -> segment start offsets;
 *		  gdb_close_segments_kernel appends the end offset nsel;
 *		  gdb_segment_max_kernel finds the longest segment;
 *	   7. read back the group count and the longest segment.
 *		  Without keys: one segment [0, nsel) (gdb_single_segment_kernel).
 *	 Phase C, aggregation and result
 *	   8. the result batch is laid out (gdb_batch_layout) for the groups;
 *		  the host buffer comes from alloc(), the device one is scratch;
 *	   9. gdb_group_keys_kernel writes each group's key values and null
 *		  flags from the row at its segment start;
 *	  10. per aggregate: gdb_row_states_kernel builds one GdbAggState per
 *		  sorted row (gdb_state_from_value, or the STATE column when
 *		  req->input_is_states), then cub::DeviceSegmentedReduce::Reduce
 *		  with GdbCombineOp (gdb_state_combine, commutative and
 *		  associative) and gdb_state_identity writes one state per group
 *		  straight into the device result batch.  When groups average
 *		  at most GDB_FOLD_MAX_AVG_ROWS rows (many small groups: a block
 *		  per segment would idle), gdb_segment_fold_kernel instead folds
 *		  each group's rows in one thread, without the per-row states,
 *		  and gdb_long_segment_fold_kernel gives each of the groups longer
 *		  than GDB_FOLD_MAX_ROWS (cub::DeviceSelect::If lists them; a NULL
 *		  key's group, say) a block.
 *		  No keys and nsel == 0:
 *		  gdb_identity_state_kernel writes the single identity state;
 *	  11. one cudaMemcpyAsync copies the result arrays back behind the
 *		  header that the host already wrote.
 *	 Phase D, ordered group-by only (gdb_request_ordered: sort keys or a
 *	   group qualifier): steps 8 and 11 lay the
 *	   result out in device memory only (gdb_result_alloc gives a header,
 *	   gdb_result_finish copies nothing), for every pipeline below too;
 *	   then gdb_order_groups (groupby_order.cu) orders and cuts the groups
 *	   and copies back the first limit of them.
 *	 Device time (CUDA events around each phase) goes to stats->device_ms.
 *
 * Fast paths (groupby_fastpath.cu; GPUDB_FAST_PATHS=0 turns them off):
 * after step 2, a request without keys skips everything else for one
 * reduction pass per aggregate (gdb_fast_nokeys; with a predicate filter,
 * planned before step 2 by gdb_fused_nokeys_plan, step 2 writes no flags
 * and one fused pass filters and aggregates, fused_filter_agg.cu; turned
 * off alone by GPUDB_FUSED=0), and one whose keys are
 * all INT64 with at most GDB_FAST_MAX_SLOTS combinations over the selected
 * rows aggregates into dense slots with atomics (gdb_fast_smallkeys);
 * otherwise, or when that finds the domain too large, steps 3-11 run.
 * Neither is used for input_is_states, nor for the variance family's
 * kinds (gdb_fast_kinds).
 *
 * Entry points: gdb_cuda_execute (a host batch: copied in, then the
 * pipeline) and gdb_groupby_on_device (the pipeline over a batch already in
 * device memory; also used by gdb_cuda_store_execute, column_store.cu).
 * Both run every operator: gdb_groupby_on_device hands SELECT and SORT
 * requests to gdb_select_sort_run (select_sort_kernels.cu) right
 * after validation, before any group-by path (fast or not) sees them.
 *
 * Scratch buffers live in the GdbCudaExec and only grow (see
 * gdb_cuda_scratch), so consecutive batches reuse them.  Row ids are
 * uint32, so a batch holds at most 2^32 - 1 rows on this path.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda_exec.cuh"
#include "fused_filter_agg.cuh"
#include "gpudb_semantics.h"

static_assert(sizeof(GdbBatch) % 8 == 0, "batch header must be 8-byte sized");
static_assert(sizeof(GdbInstr) % 8 == 0, "instruction must be 8-byte sized");

/* The reduction operator: the shared, commutative state combine. */
struct GdbCombineOp
{
	int			kind;

	__host__ __device__ GdbAggState
	operator()(const GdbAggState &a, const GdbAggState &b) const
	{
		return gdb_state_combine(kind, a, b);
	}
};

/* The order-preserving encoding of a raw key value of kind (see semantics). */
__device__ __forceinline__ uint64_t
gdb_dev_encode(uint32_t kind, int64_t raw)
{
	return kind == GDB_KIND_FLOAT64 ?
		gdb_key_encode_float(__longlong_as_double((long long) raw)) :
		gdb_key_encode_int(raw);
}

/*
 * The longest group (rows) that gdb_segment_fold_kernel folds in one
 * thread; longer ones get a block each (gdb_long_segment_fold_kernel).
 */
#define GDB_FOLD_MAX_ROWS 256

/*
 * Fold (a thread per group) rather than the segmented reduce (a block per
 * group) when groups average at most this many rows.
 */
#define GDB_FOLD_MAX_AVG_ROWS 32

/* ---- kernels (all grid-stride loops over their index range) ---- */

/* gdb_sequence_kernel: out[i] = i for i in [0, n) (all rows selected). */
__global__ void
gdb_sequence_kernel(uint32_t *out, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		out[i] = (uint32_t) i;
}

/*
 * gdb_gather_key_kernel: keys[i] = gdb_sort_encode of column (vals, nulls,
 * kind) at row perm[i] (bitwise inverted when descending; the group-by
 * passes 0, which is the plain key encoding), or 0 when that value is
 * NULL, for i in [0, n).  A gather through the current permutation,
 * feeding one radix-sort pass.
 */
__global__ void
gdb_gather_key_kernel(const int64_t *vals, const uint8_t *nulls, uint32_t kind,
					  int descending, const uint32_t *perm, uint64_t n,
					  uint64_t *keys)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	row = perm[i];

		keys[i] = (nulls && nulls[row]) ? 0 : gdb_sort_encode(kind, vals[row], descending);
	}
}

/*
 * gdb_gather_key_offset_kernel: keys[i] = gdb_key_encode_int of INT64
 * column (vals, nulls) at row perm[i] minus kmin, as 32 bits (the caller
 * knows every selected non-NULL encoding lies in [kmin, kmin + 2^32)), or
 * 0 when NULL; for i in [0, n).  Feeds a radix sort of only the range's
 * bits.
 */
__global__ void
gdb_gather_key_offset_kernel(const int64_t *vals, const uint8_t *nulls,
							 uint64_t kmin, const uint32_t *perm, uint64_t n,
							 uint32_t *keys)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	row = perm[i];

		keys[i] = (nulls && nulls[row]) ? 0 :
			(uint32_t) (gdb_key_encode_int(vals[row]) - kmin);
	}
}

/*
 * gdb_gather_null_rank_kernel: out[i] = gdb_sort_null_rank of row perm[i]'s
 * NULL flag (0 or 1; NULL ranks 1, after the values, unless nulls_first),
 * for i in [0, n).
 */
__global__ void
gdb_gather_null_rank_kernel(const uint8_t *nulls, int nulls_first,
							const uint32_t *perm, uint64_t n, uint8_t *out)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		out[i] = (uint8_t) gdb_sort_null_rank(nulls[perm[i]] != 0, nulls_first);
}

/*
 * gdb_group_start_kernel: flags[i] = 1 when sorted row i starts a group:
 * i == 0, or some key's (null flag, encoding) differs between rows perm[i]
 * and perm[i-1].  Adjacent-difference over the sorted order.
 */
__global__ void
gdb_group_start_kernel(GdbDevKeys keys, const uint32_t *perm, uint64_t n,
					   uint8_t *flags)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint8_t		start = (i == 0);

		if (!start)
		{
			uint32_t	r = perm[i];
			uint32_t	p = perm[i - 1];

			for (uint32_t k = 0; k < keys.nkeys && !start; k++)
			{
				const uint8_t *nl = keys.nulls[k];
				uint8_t		nr = nl ? nl[r] != 0 : 0;
				uint8_t		np = nl ? nl[p] != 0 : 0;

				if (nr != np)
					start = 1;
				else if (!nr &&
						 gdb_dev_encode(keys.kind[k], keys.vals[k][r]) !=
						 gdb_dev_encode(keys.kind[k], keys.vals[k][p]))
					start = 1;
			}
		}
		flags[i] = start;
	}
}

/* gdb_close_segments_kernel: offsets[*nseg] = nsel (one thread). */
__global__ void
gdb_close_segments_kernel(uint32_t *offsets, const unsigned long long *nseg,
						  uint32_t nsel)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		offsets[*nseg] = nsel;
}

/* gdb_single_segment_kernel: offsets = {0, nsel} (one thread; no keys). */
__global__ void
gdb_single_segment_kernel(uint32_t *offsets, uint32_t nsel)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
	{
		offsets[0] = 0;
		offsets[1] = nsel;
	}
}

/*
 * gdb_group_keys_kernel: for group g in [0, ngroups), copy each key's raw
 * value (0 when NULL) and null flag from row perm[offsets[g]], the group's
 * first row in input order, into the result key columns.
 */
__global__ void
gdb_group_keys_kernel(GdbDevKeys keys, const uint32_t *perm,
					  const uint32_t *offsets, uint64_t ngroups,
					  GdbDevOutKeys out)
{
	for (uint64_t g = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 g < ngroups; g += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	row = perm[offsets[g]];

		for (uint32_t k = 0; k < keys.nkeys; k++)
		{
			uint8_t		isnull = keys.nulls[k] ? keys.nulls[k][row] != 0 : 0;

			out.vals[k][g] = isnull ? 0 : keys.vals[k][row];
			if (out.nulls[k])
				out.nulls[k][g] = isnull;
		}
	}
}

/*
 * gdb_row_states_kernel: states[i] = the transition state that row perm[i]
 * contributes to an aggregate of kind, for i in [0, n): with input_is_states
 * the GdbAggState at col[row] (identity when flagged NULL), else
 * gdb_state_from_value of the raw 64-bit value (read as int64 and as
 * double; col is unused for count(*)).
 */
/* gdb_row_state: the state row contributes (see gdb_row_states_kernel). */
__device__ __forceinline__ GdbAggState
gdb_row_state(int kind, int input_is_states, const void *col,
			  const uint8_t *nulls, uint32_t row)
{
	int			isnull = nulls ? nulls[row] != 0 : 0;

	if (input_is_states)
		return isnull ? gdb_state_identity(kind) : ((const GdbAggState *) col)[row];
	if (kind == GDB_AGG_COUNT_STAR)
		return gdb_state_from_value(kind, 0, 0.0, 0);
	{
		int64_t		raw = ((const int64_t *) col)[row];

		return gdb_state_from_value(kind, raw,
									__longlong_as_double((long long) raw), isnull);
	}
}

__global__ void
gdb_row_states_kernel(int kind, int input_is_states, const void *col,
					  const uint8_t *nulls, const uint32_t *perm, uint64_t n,
					  GdbAggState *states)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		states[i] = gdb_row_state(kind, input_is_states, col, nulls, perm[i]);
}

/*
 * gdb_segment_fold_kernel: thread-per-segment reduction, for many short
 * groups (the segmented reduce gives each segment a thread block, which
 * idles on segments of a few rows).  Thread g folds the rows
 * perm[offsets[g] .. offsets[g+1]) in order with gdb_state_combine into
 * out[g]; the same states as gdb_row_states_kernel + the segmented reduce
 * (the fold order is the rows' input order, as on the CPU path).
 */
__global__ void
gdb_segment_fold_kernel(int kind, int input_is_states, const void *col,
						const uint8_t *nulls, const uint32_t *perm,
						const uint32_t *offsets, uint64_t nseg, GdbAggState *out)
{
	for (uint64_t g = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; g < nseg;
		 g += (uint64_t) gridDim.x * blockDim.x)
	{
		GdbAggState acc = gdb_state_identity(kind);
		uint64_t	end = offsets[g + 1];

		if (end - offsets[g] > GDB_FOLD_MAX_ROWS)
			continue;			/* gdb_long_segment_fold_kernel's */
		/*
		 * 64-bit row index, as in gdb_long_segment_fold_kernel: offsets are
		 * uint32 (nsel <= UINT32_MAX, see gdb_groupby_run), but the index
		 * must not be the type that wraps when a segment ends at 2^32 - 1
		 */
		for (uint64_t i = offsets[g]; i < end; i++)
			acc = gdb_state_combine(kind, acc,
									gdb_row_state(kind, input_is_states, col, nulls, perm[i]));
		out[g] = acc;
	}
}

/* Is segment g longer than GDB_FOLD_MAX_ROWS (a DeviceSelect predicate)? */
struct GdbLongSegment
{
	const uint32_t *offsets;

	__device__ bool
	operator()(uint32_t g) const
	{
		return offsets[g + 1] - offsets[g] > GDB_FOLD_MAX_ROWS;
	}
};

/*
 * gdb_long_segment_fold_kernel: the segments gdb_segment_fold_kernel left
 * (longer than GDB_FOLD_MAX_ROWS; ids long_ids[0 .. *nlong)), a block
 * each: the block's threads fold strided rows, then cub::BlockReduce with
 * gdb_state_combine (associative and commutative) gives out[g].
 */
__global__ void __launch_bounds__(GDB_BLOCK)
gdb_long_segment_fold_kernel(int kind, int input_is_states, const void *col,
							 const uint8_t *nulls, const uint32_t *perm,
							 const uint32_t *offsets, const uint32_t *long_ids,
							 const unsigned long long *nlong, GdbAggState *out)
{
	typedef cub::BlockReduce<GdbAggState, GDB_BLOCK> BlockReduce;
	__shared__ typename BlockReduce::TempStorage tmp;
	GdbCombineOp op;
	unsigned long long n = *nlong;

	op.kind = kind;
	for (unsigned long long j = blockIdx.x; j < n; j += gridDim.x)
	{
		uint32_t	g = long_ids[j];
		uint64_t	end = offsets[g + 1];
		GdbAggState acc = gdb_state_identity(kind);
		GdbAggState total;

		/* (64-bit: a 32-bit i + blockDim.x wraps for a segment ending near 2^32) */
		for (uint64_t i = offsets[g] + (uint64_t) threadIdx.x; i < end; i += blockDim.x)
			acc = gdb_state_combine(kind, acc,
									gdb_row_state(kind, input_is_states, col, nulls, perm[i]));
		total = BlockReduce(tmp).Reduce(acc, op);
		if (threadIdx.x == 0)
			out[g] = total;
		__syncthreads();		/* tmp is reused by the next segment */
	}
}

/*
 * gdb_segment_max_kernel: *maxseg = the most rows of any segment of
 * offsets[0 .. *nseg] (atomicMax; *maxseg starts at 0).
 */
__global__ void
gdb_segment_max_kernel(const uint32_t *offsets, const unsigned long long *nseg,
					   unsigned long long *maxseg)
{
	unsigned long long n = *nseg;
	unsigned long long m = 0;

	for (uint64_t g = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; g < n;
		 g += (uint64_t) gridDim.x * blockDim.x)
	{
		unsigned long long len = offsets[g + 1] - offsets[g];

		m = len > m ? len : m;
	}
	if (m > 0)
		atomicMax(maxseg, m);
}

/* gdb_identity_state_kernel: *out = gdb_state_identity(kind) (one thread). */
__global__ void
gdb_identity_state_kernel(GdbAggState *out, int kind)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		*out = gdb_state_identity(kind);
}

/* ---- host side ---- */


/* Blocks for a grid-stride kernel over n items (see cuda_exec.cuh). */
unsigned
gdb_blocks(const GdbCudaExec *ex, uint64_t n)
{
	uint64_t	b = (n + GDB_BLOCK - 1) / GDB_BLOCK;
	uint64_t	cap = (uint64_t) (ex->multiprocessors > 0 ? ex->multiprocessors : 1) * 32;

	return (unsigned) (b < 1 ? 1 : (b > cap ? cap : b));
}

/* gdb_phase_begin: see cuda_exec.cuh. */
int
gdb_phase_begin(GdbRun *r, int phase, GdbError *err)
{
	if (r->nmarks >= GDB_MAX_MARKS)
		return GDB_OK;
	GDB_CUDA_CHECK(err, cudaEventRecord(r->ex->ev_mark[r->nmarks], r->ex->stream));
	r->mark_phase[r->nmarks++] = phase;
	return GDB_OK;
}

/* gdb_phase_end: see cuda_exec.cuh. */
int
gdb_phase_end(GdbRun *r, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	int			n = r->nmarks;

	GDB_CUDA_CHECK(err, cudaEventRecord(ex->ev_stop, ex->stream));
	GDB_CUDA_CHECK(err, cudaStreamSynchronize(ex->stream));
	r->nmarks = 0;
	for (int i = 0; i < n; i++)
	{
		float		t = 0.0f;

		GDB_CUDA_CHECK(err, cudaEventElapsedTime(&t, ex->ev_mark[i],
												 i + 1 < n ? ex->ev_mark[i + 1] : ex->ev_stop));
		r->phase_ms[r->mark_phase[i]] += t;
		r->ms += t;
	}
	return GDB_OK;
}

/*
 * gdb_filter_status: see cuda_exec.cuh (host_counters must be fresh).
 */
int
gdb_filter_status(GdbCudaExec *ex, GdbError *err)
{
	if (ex->host_counters->err_key != ~0ULL)
	{
		int			st = (int) (ex->host_counters->err_key & ((1u << GDB_STATUS_BITS) - 1));

		err->status = st;
		snprintf(err->message, sizeof(err->message), "%s", gdb_cpu_status_text(st));
		return st;
	}
	return GDB_OK;
}

/* gdb_copy_in: see cuda_exec.cuh. */
int
gdb_copy_in(GdbRun *r, GdbError *err)
{
	if (r->copy_src == NULL)
		return GDB_OK;
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(r->d_in, r->copy_src, r->copy_src->total_bytes,
										cudaMemcpyHostToDevice, r->ex->stream));
	r->to_device += r->copy_src->total_bytes;
	r->copy_src = NULL;
	return GDB_OK;
}

/*
 * gdb_phase_filter: see cuda_exec.cuh.  Phase A, first half: reset the
 * counters, copy in (unless resident) and queue the filter kernel (flags),
 * without waiting.  Shared by the sort path, the fast paths and the
 * SELECT/SORT operators (select_sort_kernels.cu).
 */
int
gdb_phase_filter(GdbRun *r, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	cudaStream_t s = ex->stream;

	GDB_CUDA_CHECK(err, cudaMemsetAsync(&r->d_counters->err_key, 0xff,
										sizeof(unsigned long long), s));
	GDB_CUDA_CHECK(err, cudaMemsetAsync(&r->d_counters->nsel, 0,
										2 * sizeof(unsigned long long), s));
	if (r->copy_src)
	{
		GDB_TRY(gdb_phase_begin(r, GDB_PHASE_TRANSFER_IN, err));
		GDB_CUDA_CHECK(err, cudaMemcpyAsync(r->d_in, r->copy_src,
											r->copy_src->total_bytes,
											cudaMemcpyHostToDevice, s));
		r->to_device += r->copy_src->total_bytes;
	}
	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_FILTER, err));
	r->cur = 0;
	/* flags_ready: gdb_compute_columns copied and ran the filter already */
	if (req->ninstr > 0 && r->nrows > 0 && !r->flags_ready)
	{
		void	   *d_prog;
		size_t		pbytes = (size_t) req->ninstr * sizeof(GdbInstr);

		GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_PROGRAM, pbytes, &d_prog, err));
		GDB_CUDA_CHECK(err, cudaMemcpyAsync(d_prog, req->program, pbytes,
											cudaMemcpyHostToDevice, s));
		r->to_device += pbytes;
		/* fused: the aggregation pass tests the predicate (no flags) */
		if (r->fused == NULL)
			GDB_TRY(gdb_filter_launch(ex, r->input, r->d_in, req->program,
									  (const GdbInstr *) d_prog, (int) req->ninstr,
									  r->nrows, r->flags, &r->d_counters->err_key,
									  err));
	}
	return GDB_OK;
}

/*
 * gdb_phase_compact: see cuda_exec.cuh.  Phase A, second half: compact the
 * selected row ids into perm[0] (cub::DeviceSelect::Flagged over the flags;
 * without a program a sequence).  With readback, copy the counters back,
 * wait, check the filter's error and set r->nsel; without (the fast path
 * already did), r->nsel must already be right.
 */
int
gdb_phase_compact(GdbRun *r, int readback, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	cudaStream_t s = ex->stream;

	r->cur = 0;
	if (req->ninstr == 0)
	{
		r->nsel = r->nrows;
		if (r->nrows > 0)
		{
			gdb_sequence_kernel<<<gdb_blocks(ex, r->nrows), GDB_BLOCK, 0, s>>>(r->perm[0], r->nrows);
			GDB_CUDA_CHECK_LAUNCH(err, "gdb_sequence_kernel");
		}
		return gdb_phase_begin(r, GDB_PHASE_SORT, err);
	}
	if (r->nrows > 0)
	{
		uint32_t	n32 = (uint32_t) r->nrows;
		uint8_t    *flags = r->flags;
		uint32_t   *out = r->perm[0];
		unsigned long long *nsel = &r->d_counters->nsel;

		GDB_TRY(gdb_cub(ex, "cub::DeviceSelect::Flagged", [&](void *t, size_t &b) {
			return cub::DeviceSelect::Flagged(t, b, thrust::counting_iterator<uint32_t>(0),
											  flags, out, nsel, (int64_t) n32, s);
		}, err));
	}
	if (!readback)
		return GDB_OK;
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(ex->host_counters, r->d_counters,
										sizeof(GdbDevCounters),
										cudaMemcpyDeviceToHost, s));
	r->from_device += sizeof(GdbDevCounters);
	GDB_TRY(gdb_phase_end(r, err));
	GDB_TRY(gdb_filter_status(ex, err));
	r->nsel = ex->host_counters->nsel;
	return gdb_phase_begin(r, GDB_PHASE_SORT, err);
}

/* One stable radix-sort pass of perm[cur] by keys[0] (bits [0, end_bit)). */
template <typename KeyT>
static int
gdb_sort_pass(GdbRun *r, KeyT *k0, KeyT *k1, int end_bit, GdbError *err)
{
	uint32_t   *vin = r->perm[r->cur];
	uint32_t   *valt = r->perm[r->cur ^ 1];
	uint32_t   *vout = vin;
	uint32_t	n32 = (uint32_t) r->nsel;
	cudaStream_t s = r->ex->stream;

	GDB_TRY(gdb_cub(r->ex, "cub::DeviceRadixSort::SortPairs", [&](void *t, size_t &b) {
		cub::DoubleBuffer<KeyT> kb(k0, k1);
		cub::DoubleBuffer<uint32_t> vb(vin, valt);
		cudaError_t rc = cub::DeviceRadixSort::SortPairs(t, b, kb, vb, n32, 0, end_bit, s);

		vout = vb.Current();
		return rc;
	}, err));
	r->cur = (vout == r->perm[0]) ? 0 : 1;
	return GDB_OK;
}

/*
 * The double buffers of a sort by one column over r->nsel rows: keys (8
 * bytes a row) and, for a nullable column, NULL ranks; all allocated before
 * any work that fills them (growing a scratch buffer may wait).
 */
static int
gdb_sort_buffers(GdbRun *r, const uint8_t *nulls, void **k0, void **k1,
				 uint8_t **nk0, uint8_t **nk1, GdbError *err)
{
	size_t		n = (size_t) r->nsel;

	GDB_TRY(gdb_cuda_scratch(r->ex, GDB_SCR_KEYS0, n * sizeof(uint64_t), k0, err));
	GDB_TRY(gdb_cuda_scratch(r->ex, GDB_SCR_KEYS1, n * sizeof(uint64_t), k1, err));
	*nk0 = *nk1 = NULL;
	if (nulls)
	{
		GDB_TRY(gdb_cuda_scratch(r->ex, GDB_SCR_NULLKEYS0, n, (void **) nk0, err));
		GDB_TRY(gdb_cuda_scratch(r->ex, GDB_SCR_NULLKEYS1, n, (void **) nk1, err));
	}
	return GDB_OK;
}

/*
 * The last pass of a sort by a nullable column (none for a NOT NULL one):
 * gdb_gather_null_rank_kernel + a stable 1-bit SortPairs on the ranks.
 */
static int
gdb_sort_null_pass(GdbRun *r, const uint8_t *nulls, int nulls_first,
				   uint8_t *nk0, uint8_t *nk1, GdbError *err)
{
	if (nulls == NULL)
		return GDB_OK;
	gdb_gather_null_rank_kernel<<<gdb_blocks(r->ex, r->nsel), GDB_BLOCK, 0, r->ex->stream>>>(
		nulls, nulls_first, r->perm[r->cur], r->nsel, nk0);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_gather_null_rank_kernel");
	return gdb_sort_pass<uint8_t>(r, nk0, nk1, 1, err);
}

/*
 * gdb_sort_by_column: see cuda_exec.cuh.  Two stable LSD passes over the
 * r->nsel row ids of perm[cur]: gdb_gather_key_kernel + a 64-bit SortPairs
 * on the encodings, then (nullable column only) gdb_gather_null_rank_kernel
 * + a 1-bit SortPairs (bits [0, 1)) on the NULL ranks.
 */
int
gdb_sort_by_column(GdbRun *r, const int64_t *vals, const uint8_t *nulls,
				   uint32_t kind, int descending, int nulls_first, GdbError *err)
{
	void	   *k0,
			   *k1;
	uint8_t    *nk0,
			   *nk1;

	if (r->nsel <= 1)
		return GDB_OK;
	GDB_TRY(gdb_sort_buffers(r, nulls, &k0, &k1, &nk0, &nk1, err));
	gdb_gather_key_kernel<<<gdb_blocks(r->ex, r->nsel), GDB_BLOCK, 0, r->ex->stream>>>(
		vals, nulls, kind, descending, r->perm[r->cur], r->nsel, (uint64_t *) k0);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_gather_key_kernel");
	GDB_TRY(gdb_sort_pass<uint64_t>(r, (uint64_t *) k0, (uint64_t *) k1, 64, err));
	return gdb_sort_null_pass(r, nulls, nulls_first, nk0, nk1, err);
}

/*
 * gdb_sort_by_key_range: gdb_sort_by_column for group key k (INT64, NULLs
 * last) whose selected encodings gdb_fast_smallkeys found to span less
 * than 2^32: one stable radix sort on 32-bit offsets from the minimum,
 * over just the bits the range needs (none for a single value), then the
 * NULL-rank pass.  The same order, with fewer and narrower passes.
 */
static int
gdb_sort_by_key_range(GdbRun *r, int k, GdbError *err)
{
	const uint8_t *nulls = r->keys.nulls[k];
	uint64_t	range = r->kmax[k] - r->kmin[k];
	int			bits = range ? 64 - __builtin_clzll((unsigned long long) range) : 0;
	void	   *k0,
			   *k1;
	uint8_t    *nk0,
			   *nk1;

	if (r->nsel <= 1)
		return GDB_OK;
	GDB_TRY(gdb_sort_buffers(r, nulls, &k0, &k1, &nk0, &nk1, err));
	if (bits > 0)
	{
		gdb_gather_key_offset_kernel<<<gdb_blocks(r->ex, r->nsel), GDB_BLOCK, 0,
			r->ex->stream>>>(r->keys.vals[k], nulls, r->kmin[k], r->perm[r->cur],
							 r->nsel, (uint32_t *) k0);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_gather_key_offset_kernel");
		GDB_TRY(gdb_sort_pass<uint32_t>(r, (uint32_t *) k0, (uint32_t *) k1, bits, err));
	}
	return gdb_sort_null_pass(r, nulls, 0, nk0, nk1, err);
}

/* Phase B: order perm by the keys and find the group segments. */
static int
gdb_phase_segment(GdbRun *r, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	cudaStream_t s = ex->stream;
	unsigned	grid = gdb_blocks(ex, r->nsel);
	uint32_t	n32 = (uint32_t) r->nsel;
	uint8_t    *flags = r->flags;
	uint32_t   *offsets = r->offsets;
	unsigned long long *nseg = &r->d_counters->nseg;

	/* ascending, NULLs last: the group order of gdb_cpu_execute */
	for (int k = (int) req->nkeys - 1; k >= 0; k--)
	{
		if (r->key_range_known &&
			(r->kmin[k] > r->kmax[k] || r->kmax[k] - r->kmin[k] <= UINT32_MAX))
		{
			if (r->kmin[k] > r->kmax[k])
				r->kmin[k] = r->kmax[k] = 0;	/* only NULLs: no value bits */
			GDB_TRY(gdb_sort_by_key_range(r, k, err));
		}
		else
			GDB_TRY(gdb_sort_by_column(r, r->keys.vals[k], r->keys.nulls[k],
									   r->keys.kind[k], 0, 0, err));
	}

	gdb_group_start_kernel<<<grid, GDB_BLOCK, 0, s>>>(r->keys, r->perm[r->cur],
													  r->nsel, r->flags);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_group_start_kernel");
	GDB_TRY(gdb_cub(ex, "cub::DeviceSelect::Flagged", [&](void *t, size_t &b) {
		return cub::DeviceSelect::Flagged(t, b, thrust::counting_iterator<uint32_t>(0),
										  flags, offsets, nseg, (int64_t) n32, s);
	}, err));
	gdb_close_segments_kernel<<<1, 1, 0, s>>>(r->offsets, nseg, n32);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_close_segments_kernel");
	GDB_CUDA_CHECK(err, cudaMemsetAsync(&r->d_counters->maxseg, 0,
										sizeof(unsigned long long), s));
	gdb_segment_max_kernel<<<grid, GDB_BLOCK, 0, s>>>(r->offsets, nseg,
													  &r->d_counters->maxseg);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_segment_max_kernel");
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(ex->host_counters, r->d_counters,
										sizeof(GdbDevCounters),
										cudaMemcpyDeviceToHost, s));
	r->from_device += sizeof(GdbDevCounters);
	GDB_TRY(gdb_phase_end(r, err));
	r->ngroups = ex->host_counters->nseg;
	r->maxseg = ex->host_counters->maxseg;
	return gdb_phase_begin(r, GDB_PHASE_AGGREGATE, err);
}

/* Phase C: keys and states of each group into the result; copy it back. */
static int
gdb_phase_aggregate(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
					GdbBatch **result, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	const GdbBatch *in = r->input;
	cudaStream_t s = ex->stream;
	GdbBatch   *host;
	char	   *d_res;
	GdbAggState *states = NULL;

	/*
	 * many short groups: a thread per group instead of a block per group
	 * (and a block for each of the few long ones, when there are some)
	 */
	bool		fold = r->maxseg > 0 &&
		r->nsel <= r->ngroups * (uint64_t) GDB_FOLD_MAX_AVG_ROWS;
	bool		fold_long = fold && r->maxseg > GDB_FOLD_MAX_ROWS;
	uint32_t   *long_ids = NULL;
	unsigned long long *nlong = &r->d_counters->nlong;

	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_AGGREGATE, err));
	GDB_TRY(gdb_result_alloc(r, r->ngroups, alloc, alloc_arg, &host, &d_res, err));
	if (r->nsel > 0 && req->naggs > 0 && !fold)
		GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_STATES, (size_t) r->nsel * sizeof(GdbAggState),
								 (void **) &states, err));
	if (fold_long && req->naggs > 0)
	{
		/* the long segments' ids, in the STATES scratch (unused when folding) */
		const uint32_t *offsets = r->offsets;
		GdbLongSegment pred;

		GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_STATES, (size_t) r->ngroups * sizeof(uint32_t),
								 (void **) &long_ids, err));
		pred.offsets = offsets;
		GDB_TRY(gdb_cub(ex, "cub::DeviceSelect::If", [&](void *t, size_t &b) {
			return cub::DeviceSelect::If(t, b, thrust::counting_iterator<uint32_t>(0),
										 long_ids, nlong, (int64_t) r->ngroups, pred, s);
		}, err));
	}

	if (r->ngroups > 0 && req->nkeys > 0)
	{
		GdbDevOutKeys ok;

		memset(&ok, 0, sizeof(ok));
		for (uint32_t k = 0; k < req->nkeys; k++)
		{
			ok.vals[k] = GDB_COL_PTR(d_res, host, k, int64_t);
			ok.nulls[k] = GDB_NULL_PTR(d_res, host, k);
		}
		gdb_group_keys_kernel<<<gdb_blocks(ex, r->ngroups), GDB_BLOCK, 0, s>>>(
			r->keys, r->perm[r->cur], r->offsets, r->ngroups, ok);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_group_keys_kernel");
	}
	for (uint32_t a = 0; a < req->naggs && r->ngroups > 0; a++)
	{
		const GdbAggSpec *spec = &req->aggs[a];
		GdbAggState *out = GDB_COL_PTR(d_res, host, req->nkeys + a, GdbAggState);
		GdbCombineOp op;
		int64_t		nseg = (int64_t) r->ngroups;
		const uint32_t *offsets = r->offsets;

		op.kind = (int) spec->kind;
		if (r->nsel == 0)
		{
			/* no keys, no rows: the one group holds the identity */
			gdb_identity_state_kernel<<<1, 1, 0, s>>>(out, (int) spec->kind);
			GDB_CUDA_CHECK_LAUNCH(err, "gdb_identity_state_kernel");
			continue;
		}
		{
			const void *col = NULL;
			const uint8_t *nulls = NULL;

			if (req->input_is_states || spec->kind != GDB_AGG_COUNT_STAR)
			{
				col = r->d_in + in->cols[spec->input_col].values_off;
				nulls = GDB_NULL_PTR(r->d_in, in, spec->input_col);
			}
			if (fold)
			{
				gdb_segment_fold_kernel<<<gdb_blocks(ex, r->ngroups), GDB_BLOCK, 0, s>>>(
					(int) spec->kind, (int) req->input_is_states, col, nulls,
					r->perm[r->cur], offsets, r->ngroups, out);
				GDB_CUDA_CHECK_LAUNCH(err, "gdb_segment_fold_kernel");
				if (fold_long)
				{
					gdb_long_segment_fold_kernel<<<(unsigned) (ex->multiprocessors > 0 ?
															   ex->multiprocessors * 4 : 4),
						GDB_BLOCK, 0, s>>>((int) spec->kind, (int) req->input_is_states,
										   col, nulls, r->perm[r->cur], offsets,
										   long_ids, nlong, out);
					GDB_CUDA_CHECK_LAUNCH(err, "gdb_long_segment_fold_kernel");
				}
				continue;
			}
			gdb_row_states_kernel<<<gdb_blocks(ex, r->nsel), GDB_BLOCK, 0, s>>>(
				(int) spec->kind, (int) req->input_is_states, col, nulls,
				r->perm[r->cur], r->nsel, states);
			GDB_CUDA_CHECK_LAUNCH(err, "gdb_row_states_kernel");
		}
		GDB_TRY(gdb_cub(ex, "cub::DeviceSegmentedReduce::Reduce", [&](void *t, size_t &b) {
			return cub::DeviceSegmentedReduce::Reduce(t, b, states, out, nseg, offsets,
													  offsets + 1, op,
													  gdb_state_identity(op.kind), s);
		}, err));
	}
	GDB_TRY(gdb_result_finish(r, host, d_res, err));
	*result = host;
	return GDB_OK;
}

/* The whole pipeline; the caller cleans up after a failure. */
static int
gdb_groupby_run(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
				GdbBatch **result, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	const GdbBatch *in = r->input;
	size_t		n = (size_t) (r->nrows ? r->nrows : 1);
	void	   *p;
	int			compacted;
	GdbFusedArgs fused;

	/*
	 * Row ids (perm) and segment offsets are uint32: every offset is at
	 * most nsel <= nrows, so they cannot wrap while nrows <= UINT32_MAX,
	 * which the entry points check (gdb_too_many_rows); checked again here,
	 * an explicit error rather than a silent wrap should a caller not.
	 */
	if (r->nrows > (uint64_t) UINT32_MAX)
		return gdb_too_many_rows(err, r->nrows);
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_OFFSETS, (n + 2) * sizeof(uint32_t), &p, err));
	r->offsets = (uint32_t *) p;

	memset(&r->keys, 0, sizeof(r->keys));
	r->keys.nkeys = req->nkeys;
	for (uint32_t k = 0; k < req->nkeys; k++)
	{
		int32_t		c = req->key_cols[k];

		r->keys.kind[k] = in->cols[c].kind;
		r->keys.vals[k] = (const int64_t *) (r->d_in + in->cols[c].values_off);
		r->keys.nulls[k] = GDB_NULL_PTR(r->d_in, in, c);
	}

	/* no keys and a predicate filter: one fused pass (gdb_fast_nokeys) */
	r->fused = gdb_fused_nokeys_plan(r, &fused) ? &fused : NULL;
	GDB_TRY(gdb_phase_filter(r, err));
	r->path = GDB_PATH_SORT;
	compacted = 0;
	if (r->fused)
	{
		/* no flags were written: only the fused pass can follow */
		r->path = GDB_PATH_NOKEYS;
		return gdb_fast_nokeys(r, alloc, alloc_arg, result, err);
	}
	if (!req->input_is_states && gdb_fast_paths_enabled() && gdb_fast_kinds(req))
	{
		if (req->nkeys == 0)
		{
			r->path = GDB_PATH_NOKEYS;
			return gdb_fast_nokeys(r, alloc, alloc_arg, result, err);
		}
		if (gdb_fast_smallkeys_eligible(r))
		{
			int			taken = 0;

			GDB_TRY(gdb_fast_smallkeys(r, alloc, alloc_arg, result, &taken, err));
			if (taken)
			{
				r->path = GDB_PATH_SMALLKEYS;
				return GDB_OK;
			}
			/* too many slots: flags and r->nsel are valid, go on sorting */
			GDB_TRY(gdb_phase_compact(r, 0, err));
			compacted = 1;
		}
	}
	if (!compacted)
		GDB_TRY(gdb_phase_compact(r, 1, err));
	if (req->nkeys == 0)
	{
		r->ngroups = 1;
		if (r->nsel > 0)
		{
			gdb_single_segment_kernel<<<1, 1, 0, ex->stream>>>(r->offsets,
															   (uint32_t) r->nsel);
			GDB_CUDA_CHECK_LAUNCH(err, "gdb_single_segment_kernel");
		}
	}
	else if (r->nsel == 0)
		r->ngroups = 0;
	else
		GDB_TRY(gdb_phase_segment(r, err));
	return gdb_phase_aggregate(r, alloc, alloc_arg, result, err);
}

/*
 * The fast-path switch: GPUDB_FAST_PATHS read once ("0" disables, anything
 * else or unset enables); gdb_cuda_set_fast_paths overrides it (a test
 * hook: 1 on, 0 off, -1 back to the environment).  Plain ints: every
 * writer stores the same value, so a race between threads is benign.
 */
static int	gdb_fast_env = -1;	/* -1 not read yet */
static int	gdb_fast_override = -1;
static thread_local int gdb_last_path = GDB_PATH_SORT;
static thread_local int gdb_last_fused = 0;

/* gdb_env_switch: see cuda_exec.cuh. */
int
gdb_env_switch(const char *name, int *env, int override)
{
	if (override >= 0)
		return override;
	if (*env < 0)
	{
		const char *v = getenv(name);

		*env = (v != NULL && strcmp(v, "0") == 0) ? 0 : 1;
	}
	return *env;
}

int
gdb_fast_paths_enabled(void)
{
	return gdb_env_switch("GPUDB_FAST_PATHS", &gdb_fast_env, gdb_fast_override);
}

/*
 * gdb_fast_lean_enabled: GPUDB_LEAN (read once; "0" disables), or
 * gdb_cuda_set_lean's override.
 */
static int	gdb_lean_env = -1;
static int	gdb_lean_override = -1;

int
gdb_fast_lean_enabled(void)
{
	return gdb_env_switch("GPUDB_LEAN", &gdb_lean_env, gdb_lean_override);
}

extern "C" void
gdb_cuda_set_lean(int mode)
{
	gdb_lean_override = mode < 0 ? -1 : (mode ? 1 : 0);
}

extern "C" void
gdb_cuda_set_fast_paths(int mode)
{
	gdb_fast_override = mode < 0 ? -1 : (mode ? 1 : 0);
}

extern "C" int
gdb_cuda_last_path(void)
{
	return gdb_last_path;
}

/* Test hook: 1 when the last group-by on this thread ran the fused pass. */
extern "C" int
gdb_cuda_last_fused(void)
{
	return gdb_last_fused;
}

/*
 * The row-sized scratch every operator uses (counters, filter flags, the
 * row-id double buffer), sized for all of r's rows before any work is
 * queued, on r's device.
 */
static int
gdb_run_row_scratch(GdbRun *r, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	size_t		n = (size_t) (r->nrows ? r->nrows : 1);
	void	   *p;

	GDB_CUDA_CHECK(err, cudaSetDevice(ex->ordinal));
	/* every row-sized buffer is sized for all rows before work is queued */
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_COUNTERS, sizeof(GdbDevCounters), &p, err));
	r->d_counters = (GdbDevCounters *) p;
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_FLAGS, n, &p, err));
	r->flags = (uint8_t *) p;
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_PERM0, n * sizeof(uint32_t), &p, err));
	r->perm[0] = (uint32_t *) p;
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_PERM1, n * sizeof(uint32_t), &p, err));
	r->perm[1] = (uint32_t *) p;
	return GDB_OK;
}

/* gdb_fast_kinds: see cuda_exec.cuh. */
int
gdb_fast_kinds(const GdbRequest *req)
{
	for (uint32_t a = 0; a < req->naggs; a++)
		if (req->aggs[a].kind > GDB_AGG_MAX_FLOAT)
			return 0;
	return 1;
}

/* gdb_too_many_rows: see cuda_exec.cuh. */
int
gdb_too_many_rows(GdbError *err, uint64_t nrows)
{
	err->status = GDB_ERR_BAD_REQUEST;
	snprintf(err->message, sizeof(err->message),
			 "batch of %llu rows exceeds the CUDA path's limit of %u rows",
			 (unsigned long long) nrows, (unsigned) UINT32_MAX);
	return GDB_ERR_BAD_REQUEST;
}

/*
 * gdb_groupby_on_device: see cuda_exec.cuh.  Validates req against header
 * (gdb_cpu_validate_request: the header describes the device buffer, so
 * the checks bound every device access), runs the group-by's three phases
 * or, for a SELECT or SORT request, gdb_select_sort_run, and adds
 * rows_in, rows_selected, groups_out, bytes_to_device, bytes_from_device
 * and device_ms to stats (when not NULL) on success only.
 */
int
gdb_groupby_on_device(GdbCudaExec *exec, const GdbRequest *req,
					  const GdbBatch *header, char *d_base,
					  const GdbBatch *copy_src, uint64_t store_gen,
					  GdbAllocFn alloc, void *alloc_arg, GdbBatch **result,
					  GdbStats *stats, GdbError *err)
{
	GdbError	dummy;
	GdbRun		run;
	GdbBatch	view;			/* with computed columns (step 2) */
	GdbBatch	tview;			/* with the code tables */
	GdbBatch	jview;			/* with the join payload columns */
	int			st;

	if (err == NULL)
		err = &dummy;
	err->status = GDB_OK;
	err->message[0] = '\0';
	if (result)
		*result = NULL;
	if (result == NULL || alloc == NULL || d_base == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							  "gdb_groupby_on_device: result, alloc and the device buffer must not be NULL");
	st = gdb_cpu_validate_request(req, header, err);
	if (st != GDB_OK)
		return st;
	if (header->nrows > (uint64_t) UINT32_MAX)
		return gdb_too_many_rows(err, header->nrows);
	GDB_TRY(gdb_cuda_check_exec(exec, "gdb_cuda_execute", err));
	(void) cudaGetLastError();	/* a stale non-sticky error is not ours */

	memset(&run, 0, sizeof(run));
	run.ex = exec;
	run.req = req;
	run.input = header;
	run.copy_src = copy_src;
	run.d_in = d_base;
	run.nrows = header->nrows;
	if (copy_src == NULL && store_gen != 0)
	{
		run.store_gen = store_gen;
		run.store_buf = d_base;
		run.store_bytes = header->total_bytes;
	}
	/* the row-sized scratch of every operator, then its own pipeline */
	st = gdb_run_row_scratch(&run, err);
	if (st == GDB_OK && req->ntables > 0)
		st = gdb_attach_tables(&run, &tview, err);
	if (st == GDB_OK && req->njoins > 0)
		st = gdb_hash_join_step(&run, &jview, err);
	if (st == GDB_OK && req->nexprs > 0)
		st = gdb_compute_columns(&run, &view, err);
	if (st == GDB_OK && req->oper == GDB_OPER_GROUPBY)
	{
		st = gdb_groupby_run(&run, alloc, alloc_arg, result, err);
		if (st == GDB_OK && gdb_request_ordered(req))
			st = gdb_order_groups(&run, alloc, alloc_arg, result, err);
		gdb_last_path = run.path;	/* group-bys only (gdb_cuda_last_path) */
		gdb_last_fused = run.fused != NULL;
	}
	else if (st == GDB_OK)
	{
		/* SELECT and SORT: their own pipeline; no group-by path sees them */
		run.path = GDB_PATH_SORT;
		st = gdb_select_sort_run(&run, alloc, alloc_arg, result, err);
	}
	free(run.joined_req);
	if (st != GDB_OK)
	{
		/* let queued work finish before the caller frees its buffers */
		(void) cudaStreamSynchronize(exec->stream);
		(void) cudaGetLastError();
		*result = NULL;
		return st;
	}
	if (stats)
	{
		stats->rows_in += run.nrows;
		stats->rows_selected += run.nsel;
		stats->groups_out += run.ngroups;
		stats->bytes_to_device += run.to_device;
		stats->bytes_from_device += run.from_device;
		stats->device_ms += run.ms;
		for (int p = 0; p < GDB_PHASE__COUNT; p++)
			stats->phase_ms[p] += run.phase_ms[p];
	}
	err->status = GDB_OK;
	err->message[0] = '\0';
	return GDB_OK;
}

/*
 * gdb_cuda_execute: see gpudb_device.h.  Algorithm: the sort-based
 * group-by of the CUDADB line of work named there (filter, compact, stable
 * LSD radix sort on key encodings, segment, segmented reduce), in the
 * phases listed in this file's header.  input is a host batch (pinned or
 * pageable) of input->nrows rows, at most 2^32 - 1; its whole buffer
 * (total_bytes) is copied to the INPUT scratch buffer on the device, then
 * gdb_groupby_on_device runs the pipeline there.  On GDB_OK *result is a
 * batch from alloc() with ngroups rows (req->nkeys key columns as in the
 * input, then req->naggs STATE columns) identical to gdb_cpu_execute's,
 * except SUM_FLOAT sums whose rounding depends on the reduction order.
 * stats: rows_in, rows_selected, groups_out, bytes_to_device (input buffer
 * and filter program), bytes_from_device and device_ms (CUDA event time of
 * the three phases) are added.  Errors: GDB_ERR_BAD_REQUEST (validation, no
 * exec, too many rows), the filter's SQL status (lowest failing row),
 * GDB_ERR_OUT_OF_MEMORY (alloc() or a device allocation), GDB_ERR_DEVICE
 * ("<call>: <CUDA error>"; also an exec lost in a device reset).  On error
 * *result is NULL, the stream has been waited for, and a buffer already
 * obtained from alloc() is left to the allocator's owner.  A SELECT or
 * SORT request is copied in the same way and run by
 * gdb_select_sort_run (select_sort_kernels.cu), with the result of
 * gdb_cpu_select_sort.
 */
extern "C" int
gdb_cuda_execute(GdbCudaExec *exec, const GdbRequest *req,
				 const GdbBatch *input, GdbAllocFn alloc,
				 void *alloc_arg, GdbBatch **result,
				 GdbStats *stats, GdbError *err)
{
	GdbError	dummy;
	void	   *d_in;
	int			st;

	if (err == NULL)
		err = &dummy;
	err->status = GDB_OK;
	err->message[0] = '\0';
	if (result)
		*result = NULL;
	if (exec == NULL || result == NULL || alloc == NULL)
	{
		err->status = GDB_ERR_BAD_REQUEST;
		snprintf(err->message, sizeof(err->message),
				 "gdb_cuda_execute: exec, result and alloc must not be NULL");
		return GDB_ERR_BAD_REQUEST;
	}
	/* validate before sizing the device copy by input->total_bytes */
	st = gdb_cpu_validate_request(req, input, err);
	if (st != GDB_OK)
		return st;
	if (input->nrows > (uint64_t) UINT32_MAX)
		return gdb_too_many_rows(err, input->nrows);
	GDB_TRY(gdb_cuda_check_exec(exec, "gdb_cuda_execute", err));
	(void) cudaGetLastError();
	GDB_TRY(gdb_cuda_scratch(exec, GDB_SCR_INPUT, (size_t) input->total_bytes, &d_in, err));
	return gdb_groupby_on_device(exec, req, input, (char *) d_in, input, 0,
								 alloc, alloc_arg, result, stats, err);
}
