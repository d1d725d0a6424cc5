/*-------------------------------------------------------------------------
 *
 * topk_select.cu
 *	  Top-k for SORT requests with a small limit: radix select of the k-th
 *	  first-key value, so that the stable multi-key sort of the SORT
 *	  operator (select_sort_kernels.cu) runs over a few candidate rows
 *	  instead of every selected row.
 *
 * Algorithm: radix select, the k-th-value search of Govindaraju, Lloyd,
 * Wang, Lin and Manocha, "Fast computation of database operations using
 * graphics processors" (SIGMOD 2004), done with digit histograms instead of
 * occlusion-query counts.  For the FIRST sort key only, rows compare by
 * (NULL rank, encoding) where the encoding is gdb_sort_encode (descending
 * keys inverted, floats in PostgreSQL's order: -0 = +0, NaN above +Inf) and
 * NULL ranks gdb_sort_null_rank, exactly as the full sort orders them.
 *
 *	 1. first key with NULLs FIRST: count the NULL rows (cub::DeviceReduce::
 *		Sum).  nnull >= k: the candidates are the NULL rows, done (step 4);
 *		else every NULL row is a candidate and the search below looks for
 *		the (k - nnull)-th smallest value among the non-NULL rows;
 *	 2. MSB-first digit passes over the 64-bit encodings of the non-NULL
 *		rows that match the prefix found so far (gdb_topk_histogram_kernel:
 *		an 11-bit digit histogram in shared memory, warp-aggregated with
 *		__match_any_sync, flushed with global atomics, plus the AND and OR
 *		of the matching encodings).  The host reads the histogram back and
 *		picks the bucket that holds the k-th value; rows of lower buckets
 *		are all candidates ("below", always fewer than k).  Bits on which
 *		every matching row agrees (AND == OR) join the prefix at once, so a
 *		column whose values share their high bits (small integers, one
 *		float exponent) costs no pass per constant digit;
 *	 3. stop when below + (rows in the bucket) <= the cap (gdb_topk_cap:
 *		max(4k, nw/64 clamped to [2^16, 2^20])) or all 64 bits are known.
 *		Between passes, when the rows that can still be candidates are at
 *		most a quarter of the working list, the list is compacted to them
 *		(cub::DeviceSelect::If, order kept) so later passes read less;
 *	 4. the candidates, {rows whose (NULL rank, encoding) <= the
 *		threshold}, are compacted from the working list in input order
 *		(cub::DeviceSelect::If); with NULLs LAST the NULL rows are not
 *		candidates unless fewer than k rows are non-NULL (then every row
 *		is, and nothing is narrowed).
 * Every row of the true top k has a first key <= the k-th first key, and
 * every row tying with the threshold is kept, so the candidates contain the
 * top k; compaction keeps the ascending row-id order, so the stable sort of
 * the candidates by all keys gives the same first k rows as the stable sort
 * of every selected row.
 *
 * cub::DeviceHistogram is not used for step 2: it cannot fold the AND / OR
 * masks into the same pass (a second full pass would cost as much as a
 * digit pass), nor skip rows outside the prefix without a transform
 * iterator that does the same work as the kernel here.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda_exec.cuh"
#include "gpudb_semantics.h"

/* Digit width of one histogram pass, and its buckets. */
#define GDB_TOPK_DIGIT		11
#define GDB_TOPK_BINS		(1u << GDB_TOPK_DIGIT)
/* Rows each thread loads per loop step of the histogram kernel. */
#define GDB_TOPK_ITEMS		4
/* Bucket value of a row a histogram pass does not count. */
#define GDB_TOPK_NONE		0xffffffffu

/* Default eligibility: selected rows, and the largest limit, that pay off. */
#define GDB_TOPK_MIN_ROWS	((uint64_t) 1 << 16)
#define GDB_TOPK_MAX_K		((uint64_t) 1 << 20)

/*
 * Device state of the selection (the TOPK scratch slot): the histogram of
 * the current pass, the AND and OR of the encodings it counted, and the
 * count written by the NULL reduction and by the compactions.
 */
struct GdbTopkDev
{
	unsigned int hist[GDB_TOPK_BINS];	/* rows per digit value */
	unsigned long long or_bits; /* OR of the counted encodings (0: none) */
	unsigned long long and_bits;	/* AND of them (all ones: none) */
	unsigned long long count;	/* NULL rows / rows a compaction kept */
};

/* The first sort key's column on the device. */
struct GdbTopkCol
{
	const int64_t *vals;		/* raw 64-bit words [rows] */
	const uint8_t *nulls;		/* NULL flags [rows], or NULL: none */
	uint32_t	kind;			/* GDB_KIND_INT64 / FLOAT64 */
	int			descending;
};

/*
 * GdbTopkKeep: the candidate predicate over a row id: a NULL row is kept
 * when null_ok, a non-NULL one when values_ok and its gdb_sort_encode is
 * <= thresh.  The functor of cub::DeviceSelect::If (compactions, step 4).
 * With values_ok the flag and the value are loaded unconditionally (two
 * independent loads); without, the values are not read at all.
 */
struct GdbTopkKeep
{
	GdbTopkCol	col;
	int			null_ok;
	int			values_ok;
	uint64_t	thresh;

	__host__ __device__ bool
	operator()(const uint32_t &row) const
	{
		uint8_t		isnull;
		int64_t		raw;

		if (!values_ok)
			return null_ok && col.nulls && col.nulls[row];
		isnull = col.nulls ? col.nulls[row] : 0;
		raw = col.vals[row];
		if (isnull)
			return null_ok != 0;
		return gdb_sort_encode(col.kind, raw, col.descending) <= thresh;
	}
};

/* GdbTopkIsNull: 1 for a row whose NULL flag is set, else 0 (a reduction input). */
struct GdbTopkIsNull
{
	const uint8_t *nulls;

	__host__ __device__ unsigned long long
	operator()(const uint32_t &row) const
	{
		return nulls[row] != 0;
	}
};

/* Test hook state (gdb_cuda_set_topk, gdb_cuda_last_topk). */
static int	gdb_topk_mode = -1;
static thread_local long long gdb_topk_last = -1;

/* ---- kernels ---- */

/*
 * gdb_topk_histogram_kernel: one MSB-first digit pass of the radix select.
 * For each position i in [0, n) (row ids[i], or row i when ids is NULL),
 * a row whose first-key value is not NULL and whose 64-bit encoding e
 * (gdb_sort_encode of col) has e >> shift == prefix (any e when shift is
 * 64) adds 1 to dev->hist[(e >> (shift - dbits)) & (2^dbits - 1)] and
 * folds e into dev->and_bits and dev->or_bits; NULL rows and rows outside
 * the prefix count nowhere.  dbits in [1, GDB_TOPK_DIGIT], shift in
 * [dbits, 64].  dev->hist and or_bits must be 0 and and_bits all ones
 * before the launch.  Algorithm: per-block histogram in shared memory
 * (lanes of a warp with the same digit merged by __match_any_sync, one
 * shared atomic per distinct digit), then one global atomicAdd per non-empty
 * bin per block; AND / OR by warp shuffles, one shared then one global
 * atomic per block.  Every thread of a block runs the same loop trips, so
 * the full-warp __match_any_sync is legal; launch with GDB_BLOCK threads.
 */
__global__ void __launch_bounds__(GDB_BLOCK)
gdb_topk_histogram_kernel(GdbTopkCol col, const uint32_t *ids, uint64_t n,
						  uint64_t prefix, int shift, int dbits, GdbTopkDev *dev)
{
	__shared__ unsigned int hist[GDB_TOPK_BINS];
	__shared__ unsigned long long s_and;
	__shared__ unsigned long long s_or;
	const unsigned lane = threadIdx.x & 31;
	const unsigned mask = (1u << dbits) - 1;
	const int	low = shift - dbits;
	const uint64_t tile = (uint64_t) GDB_BLOCK * GDB_TOPK_ITEMS;
	unsigned long long acc_and = ~0ULL;
	unsigned long long acc_or = 0;

	for (unsigned i = threadIdx.x; i < GDB_TOPK_BINS; i += blockDim.x)
		hist[i] = 0;
	if (threadIdx.x == 0)
	{
		s_and = ~0ULL;
		s_or = 0;
	}
	__syncthreads();

	for (uint64_t base = blockIdx.x * tile; base < n; base += (uint64_t) gridDim.x * tile)
	{
		uint32_t	row[GDB_TOPK_ITEMS];
		int64_t		raw[GDB_TOPK_ITEMS];
		uint8_t		isnull[GDB_TOPK_ITEMS];
		bool		in[GDB_TOPK_ITEMS];

		/* all loads first, so that each thread has several in flight */
#pragma unroll
		for (int j = 0; j < GDB_TOPK_ITEMS; j++)
		{
			uint64_t	i = base + (uint64_t) j * GDB_BLOCK + threadIdx.x;

			in[j] = i < n;
			row[j] = in[j] ? (ids ? ids[i] : (uint32_t) i) : 0;
		}
#pragma unroll
		for (int j = 0; j < GDB_TOPK_ITEMS; j++)
		{
			isnull[j] = (in[j] && col.nulls) ? col.nulls[row[j]] : 0;
			raw[j] = in[j] ? col.vals[row[j]] : 0;
		}
#pragma unroll
		for (int j = 0; j < GDB_TOPK_ITEMS; j++)
		{
			unsigned	b = GDB_TOPK_NONE;
			unsigned	peers;

			if (in[j] && !isnull[j])
			{
				uint64_t	e = gdb_sort_encode(col.kind, raw[j], col.descending);

				if (shift == 64 || (e >> shift) == prefix)
				{
					b = (unsigned) (e >> low) & mask;
					acc_and &= e;
					acc_or |= e;
				}
			}
			peers = __match_any_sync(0xffffffffu, b);
			if (b != GDB_TOPK_NONE && lane == (unsigned) (__ffs(peers) - 1))
				atomicAdd(&hist[b], (unsigned) __popc(peers));
		}
	}

	for (int o = 16; o > 0; o >>= 1)
	{
		acc_and &= __shfl_xor_sync(0xffffffffu, acc_and, o);
		acc_or |= __shfl_xor_sync(0xffffffffu, acc_or, o);
	}
	if (lane == 0 && acc_and != ~0ULL)
		atomicAnd(&s_and, acc_and);
	if (lane == 0 && acc_or != 0)
		atomicOr(&s_or, acc_or);
	__syncthreads();
	for (unsigned i = threadIdx.x; i <= mask; i += blockDim.x)
		if (hist[i])
			atomicAdd(&dev->hist[i], hist[i]);
	if (threadIdx.x == 0)
	{
		if (s_and != ~0ULL)
			atomicAnd(&dev->and_bits, s_and);
		if (s_or != 0)
			atomicOr(&dev->or_bits, s_or);
	}
}

/* ---- host side ---- */

/* The low s bits set (s in [0, 64]). */
static inline uint64_t
gdb_topk_low_mask(int s)
{
	return s >= 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << s) - 1);
}

/*
 * gdb_topk_upper: the largest encoding with high bits prefix, i.e. prefix
 * followed by shift one bits (shift in [0, 64]; 64: no prefix, all ones).
 */
static inline uint64_t
gdb_topk_upper(uint64_t prefix, int shift)
{
	return shift >= 64 ? ~(uint64_t) 0 : (prefix << shift) | gdb_topk_low_mask(shift);
}

/*
 * gdb_topk_eligible: whether a SORT of r->nsel selected rows with
 * req->limit = k should narrow to candidates first: 0 < k < nsel always;
 * by default (hook mode -1) also nsel >= GDB_TOPK_MIN_ROWS, k <= nsel / 8
 * and k <= GDB_TOPK_MAX_K, where the digit passes cost less than sorting
 * every row.  Hook mode 0: never; 1 and 2: whenever 0 < k < nsel.
 */
static int
gdb_topk_eligible(const GdbRun *r)
{
	uint64_t	k = r->req->limit;
	uint64_t	n = r->nsel;

	if (r->req->oper != GDB_OPER_SORT || r->req->nsort == 0 || gdb_topk_mode == 0 ||
		k == 0 || k >= n)
		return 0;
	if (gdb_topk_mode > 0)
		return 1;
	return n >= GDB_TOPK_MIN_ROWS && k <= n / 8 && k <= GDB_TOPK_MAX_K;
}

/*
 * gdb_topk_cap: stop refining once at most this many non-NULL candidates
 * remain, for limit k over a working list of nw rows: max(4k, nw / 64
 * clamped to [2^16, 2^20]) -- another digit pass over nw rows costs about
 * as much as sorting nw / 64 candidates by a few keys.  Hook mode 2: 0,
 * i.e. refine until every bit is known (exercises the deepest passes).
 */
static uint64_t
gdb_topk_cap(uint64_t k, uint64_t nw)
{
	uint64_t	c = nw / 64;

	if (gdb_topk_mode == 2)
		return 0;
	c = c < ((uint64_t) 1 << 16) ? ((uint64_t) 1 << 16) : c;
	c = c > ((uint64_t) 1 << 20) ? ((uint64_t) 1 << 20) : c;
	return c > 4 * k ? c : 4 * k;
}

/*
 * gdb_topk_compact: out[0..m) = the entries of the working list (w[0..nw),
 * or 0..nw-1 when w is NULL) that keep accepts, in their order; m lands in
 * dev->count (the caller knows it from the histograms).  out must not
 * overlap w.  cub::DeviceSelect::If; queues work without waiting.
 */
static int
gdb_topk_compact(GdbRun *r, const uint32_t *w, uint64_t nw, const GdbTopkKeep &keep,
				 uint32_t *out, GdbTopkDev *dev, GdbError *err)
{
	cudaStream_t s = r->ex->stream;
	unsigned long long *cnt = &dev->count;

	if (w)
		return gdb_cub(r->ex, "cub::DeviceSelect::If", [&](void *t, size_t &b) {
			return cub::DeviceSelect::If(t, b, w, out, cnt, (int64_t) nw, keep, s);
		}, err);
	return gdb_cub(r->ex, "cub::DeviceSelect::If", [&](void *t, size_t &b) {
		return cub::DeviceSelect::If(t, b, thrust::counting_iterator<uint32_t>(0), out, cnt,
									 (int64_t) nw, keep, s);
	}, err);
}

/*
 * gdb_topk_count_nulls: *nnull = the rows of the working list (w[0..nw),
 * or 0..nw-1 when w is NULL) whose flag in nulls is set.
 * cub::DeviceReduce::Sum over a transform iterator, then a wait for the
 * 8-byte readback (counted in r->from_device).
 */
static int
gdb_topk_count_nulls(GdbRun *r, const uint32_t *w, uint64_t nw, const uint8_t *nulls,
					 GdbTopkDev *dev, uint64_t *nnull, GdbError *err)
{
	cudaStream_t s = r->ex->stream;
	unsigned long long *cnt = &dev->count;
	unsigned long long h = 0;
	GdbTopkIsNull isnull = {nulls};

	if (w)
		GDB_TRY(gdb_cub(r->ex, "cub::DeviceReduce::Sum", [&](void *t, size_t &b) {
			return cub::DeviceReduce::Sum(t, b, thrust::make_transform_iterator(w, isnull),
										  cnt, (int64_t) nw, s);
		}, err));
	else
		GDB_TRY(gdb_cub(r->ex, "cub::DeviceReduce::Sum", [&](void *t, size_t &b) {
			return cub::DeviceReduce::Sum(t, b,
										  thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0),
																		  isnull),
										  cnt, (int64_t) nw, s);
		}, err));
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(&h, cnt, sizeof(h), cudaMemcpyDeviceToHost, s));
	GDB_CUDA_CHECK(err, cudaStreamSynchronize(s));
	r->from_device += sizeof(h);
	*nnull = h;
	return GDB_OK;
}

/*
 * gdb_topk_histogram: run one digit pass (gdb_topk_histogram_kernel) over
 * the working list and copy dev's histogram, AND and OR back into *host
 * (waits for the stream; the bytes count in r->from_device).  The grid is
 * at most 8 blocks per multiprocessor, which bounds the global atomics of
 * the flush.
 */
static int
gdb_topk_histogram(GdbRun *r, const GdbTopkCol &col, const uint32_t *w, uint64_t nw,
				   uint64_t prefix, int shift, int dbits, GdbTopkDev *dev,
				   GdbTopkDev *host, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	cudaStream_t s = ex->stream;
	size_t		bytes = offsetof(GdbTopkDev, count);
	unsigned	grid = gdb_blocks(ex, (nw + GDB_TOPK_ITEMS - 1) / GDB_TOPK_ITEMS);
	unsigned	cap = (unsigned) (ex->multiprocessors > 0 ? ex->multiprocessors : 1) * 8;

	if (grid > cap)
		grid = cap;
	GDB_CUDA_CHECK(err, cudaMemsetAsync(dev, 0, offsetof(GdbTopkDev, and_bits), s));
	GDB_CUDA_CHECK(err, cudaMemsetAsync(&dev->and_bits, 0xff, sizeof(dev->and_bits), s));
	gdb_topk_histogram_kernel<<<grid, GDB_BLOCK, 0, s>>>(col, w, nw, prefix, shift, dbits, dev);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_topk_histogram_kernel");
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s));
	GDB_CUDA_CHECK(err, cudaStreamSynchronize(s));
	r->from_device += bytes;
	return GDB_OK;
}

/*
 * gdb_topk_candidates: see cuda_exec.cuh.  Steps 1-4 of the file header.
 * Working list: the selected row ids in perm[cur] (read as the identity
 * 0..nsel-1 when the request has no filter, as gdb_phase_compact then
 * wrote a sequence); compactions alternate between perm[0] and perm[1],
 * the last one leaving the candidates in perm[r->cur].  Scratch: the TOPK
 * slot (sizeof(GdbTopkDev), about 8 KiB) and CUB's TEMP.  Device time: the
 * histogram readbacks wait with cudaStreamSynchronize inside the current
 * phase, so the host's bucket choice between passes counts in it.
 */
int
gdb_topk_candidates(GdbRun *r, GdbTopkCut *cut, GdbError *err)
{
	const GdbRequest *req = r->req;
	const GdbBatch *in = r->input;
	const GdbSortKey *sk = &req->sort_keys[0];
	uint64_t	k = req->limit;
	uint64_t	nsel = r->nsel;
	const uint32_t *w = req->ninstr == 0 ? NULL : r->perm[r->cur];
	int			wi = r->cur;	/* perm[wi] holds the working list */
	uint64_t	nw = nsel;
	uint64_t	nnull = 0;
	uint64_t	kk = k;			/* rank sought among the non-NULL values */
	uint64_t	below = 0;		/* non-NULL rows under the prefix */
	uint64_t	inbucket = 0;	/* non-NULL rows matching the prefix */
	uint64_t	prefix = 0;
	int			shift = 64;		/* bits below the prefix */
	uint64_t	ncand;
	GdbTopkCol	col;
	GdbTopkKeep keep;
	GdbTopkDev *dev;
	GdbTopkDev	host;			/* histogram readback (8 KiB, pageable) */

	cut->ncand = nsel;
	cut->key0_tied = 0;
	cut->key0_no_nulls = 0;
	gdb_topk_last = -1;
	if (!gdb_topk_eligible(r))
		return GDB_OK;

	col.vals = (const int64_t *) (r->d_in + in->cols[sk->col].values_off);
	col.nulls = GDB_NULL_PTR(r->d_in, in, sk->col);
	col.kind = in->cols[sk->col].kind;
	col.descending = sk->descending;
	keep.col = col;
	keep.null_ok = col.nulls != NULL && sk->nulls_first;
	keep.values_ok = 1;
	keep.thresh = ~(uint64_t) 0;
	GDB_TRY(gdb_cuda_scratch(r->ex, GDB_SCR_TOPK, sizeof(GdbTopkDev), (void **) &dev, err));

	/* 1. NULLs first: they all precede every value */
	if (keep.null_ok)
	{
		GDB_TRY(gdb_topk_count_nulls(r, w, nw, col.nulls, dev, &nnull, err));
		if (nnull >= k)
			keep.values_ok = 0;
		else
			kk = k - nnull;
	}

	/* 2-3. digit passes for the kk-th smallest non-NULL encoding */
	for (int pass = 0; keep.values_ok; pass++)
	{
		int			dbits = shift < GDB_TOPK_DIGIT ? shift : GDB_TOPK_DIGIT;
		uint64_t	cum = 0;
		uint64_t	total = 0;
		uint64_t	varying;
		unsigned	b;

		GDB_TRY(gdb_topk_histogram(r, col, w, nw, prefix, shift, dbits, dev, &host, err));
		for (b = 0; b <= gdb_topk_low_mask(dbits); b++)
			total += host.hist[b];
		if (pass == 0 && !keep.null_ok && total < k)
		{
			/* NULLs last and fewer than k values: every row is a candidate */
			gdb_topk_last = (long long) nsel;
			return GDB_OK;
		}
		if (below + total < kk)
			return gdb_error_set(err, GDB_ERR_DEVICE,
								 "top-k selection: %llu rows under the prefix, %llu sought",
								 (unsigned long long) (below + total),
								 (unsigned long long) kk);
		for (b = 0; below + cum + host.hist[b] < kk; b++)
			cum += host.hist[b];
		below += cum;
		inbucket = host.hist[b];
		prefix = (shift == 64 ? 0 : prefix << dbits) | b;
		shift -= dbits;
		/* bits every counted row agrees on join the prefix at once */
		varying = (host.and_bits ^ host.or_bits) & gdb_topk_low_mask(shift);
		if (varying == 0)
		{
			prefix = shift == 0 ? prefix :
				(prefix << shift) | (host.and_bits & gdb_topk_low_mask(shift));
			shift = 0;
		}
		else
		{
			int			h = 63 - __builtin_clzll((unsigned long long) varying);
			int			nconst = shift - (h + 1);

			if (nconst > 0)
			{
				prefix = (prefix << nconst) |
					((host.and_bits >> (h + 1)) & gdb_topk_low_mask(nconst));
				shift = h + 1;
			}
		}
		if (shift == 0 || below + inbucket <= gdb_topk_cap(k, nw))
			break;
		/* shrink the working list when few of its rows can still qualify */
		ncand = (keep.null_ok ? nnull : 0) + below + inbucket;
		if (ncand * 4 <= nw)
		{
			keep.thresh = gdb_topk_upper(prefix, shift);
			GDB_TRY(gdb_topk_compact(r, w, nw, keep, r->perm[wi ^ 1], dev, err));
			wi ^= 1;
			w = r->perm[wi];
			nw = ncand;
		}
	}

	/* 4. the candidates, in input order, into perm[r->cur] */
	keep.thresh = keep.values_ok ? gdb_topk_upper(prefix, shift) : 0;
	ncand = (keep.null_ok ? nnull : 0) + (keep.values_ok ? below + inbucket : 0);
	if (ncand < nw)
	{
		GDB_TRY(gdb_topk_compact(r, w, nw, keep, r->perm[wi ^ 1], dev, err));
		wi ^= 1;
	}
	r->cur = wi;
	cut->ncand = ncand;
	/* NULL rows only, or one encoding and nothing under it: all tie */
	cut->key0_tied = !keep.values_ok ||
		(!keep.null_ok && shift == 0 && below == 0);
	cut->key0_no_nulls = !keep.null_ok;
	gdb_topk_last = (long long) ncand;
	return GDB_OK;
}

/* Test hooks: see cuda_exec.cuh. */
extern "C" void
gdb_cuda_set_topk(int mode)
{
	gdb_topk_mode = mode < 0 ? -1 : (mode > 2 ? 2 : mode);
}

extern "C" long long
gdb_cuda_last_topk(void)
{
	return gdb_topk_last;
}
