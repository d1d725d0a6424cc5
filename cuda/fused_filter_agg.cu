/*-------------------------------------------------------------------------
 *
 * fused_filter_agg.cu
 *	  A group-by without keys whose filter is a predicate (predicate.cuh:
 *	  a conjunction of column-versus-constant range tests, e.g. WHERE v
 *	  BETWEEN a AND b) in one pass over the columns: each row is tested
 *	  and, when it passes, folded into register accumulators, so no flags
 *	  array is written or read again.  Same results as the two-pass path
 *	  it replaces (gdb_predicate_kernel, then gdb_nokeys_partial_kernel of
 *	  groupby_fastpath.cu): the same GdbAcc fold (fast_acc.cuh), the same
 *	  term test (gdb_pred_term_pass), the same partials layout and final
 *	  kernel.  No PostgreSQL header.
 *
 * Algorithm: a bandwidth-bound streaming reduction.  The rows are cut into
 * tiles of GDB_FUSED_ROWS * GDB_BLOCK rows; block b takes tiles b, b +
 * grid, ... (a grid of one full wave: SMs times the resident blocks per
 * SM).  Per tile a thread owns GDB_FUSED_ROWS / 2 pairs of adjacent rows,
 * the pairs of a warp contiguous, and first issues every load it needs:
 * one 16-byte load per pair for each distinct column (the predicate's and
 * the aggregates' columns are loaded once: B2's range test and sum read
 * the same v) and one 2-byte load per pair of each column's NULL flags.
 * Only then does it test the rows and fold the passing ones, so the loads
 * of a tile are all in flight together and none waits on another (the
 * memory-level parallelism the reverted first attempt, 945038d, lacked:
 * it loaded the aggregate columns only after the predicate's, one row
 * per load).  The rows past the last whole tile (fewer than a tile) are
 * taken one per thread, grid-stride.  Then each accumulator is reduced
 * over the block (cub::BlockReduce with gdb_state_combine) into one
 * partial state per block, combined in block order by
 * gdb_nokeys_final_kernel: the same input gives the same bits every run.
 *
 * Registers: the kernel is instantiated per number of distinct columns
 * (1 .. GDB_FUSED_MAX_COLS) and of accumulators (0 .. GDB_FUSED_MAX_ACCS),
 * so loaded values and accumulators live in registers with no local
 * memory; the aggregate kind is a run-time switch around each
 * accumulator's row loop (uniform across the grid).  COUNT_STAR needs no
 * accumulator: every one is the pass count.  Check with -Xptxas -v: with
 * nvcc 13.0 for sm_90, B2's instantiation <1, 1> takes 64 registers (4
 * blocks, 1,024 threads and 72 KiB of loads in flight per SM), no
 * instantiation spills.
 *
 * Measured (H200, 100M cached rows, test/bench/kernel_bw, ncu): B2's
 * kernel runs 347 us at 54 % of DRAM peak while the SMs are 70 % busy
 * (0.63 warp instructions issued per scheduler per cycle): it is bound by
 * instructions per row (the term test's key encoding, the 64-bit
 * accumulator words), not by loads in flight.  16 or 32 rows per thread
 * (98 / 128 registers, fewer blocks), 4 rows, and register caps for 5, 6
 * or 8 blocks per SM (spills) were all slower; the final kernel adds
 * 5 us.  The next gains are fewer instructions per row.
 *
 * Errors: a predicate program never raises (gdb_predicate_compile
 * accepts no division and no modulus by zero), so the pass sets no
 * err_key and the filter's status stays GDB_OK, as the two passes'.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include <cub/block/block_reduce.cuh>

#include "cuda_exec.cuh"
#include "fast_acc.cuh"
#include "fused_filter_agg.cuh"
#include "gpudb_semantics.h"

/* Rows per thread per tile: GDB_FUSED_ROWS / 2 pairs, 16 bytes a load. */
#define GDB_FUSED_ROWS	8
#define GDB_FUSED_PAIRS (GDB_FUSED_ROWS / 2)

/* Rows of a tile (one step of a block). */
#define GDB_FUSED_TILE	((uint64_t) GDB_FUSED_ROWS * GDB_BLOCK)

/*
 * A thread's count of passing rows: 32 bits (one register, one add a row;
 * measured 1-2 % faster on B2 than 64 bits on the H200), except with 4
 * accumulators, where 32 bits made ptxas spill in <2, 4>.  A thread takes
 * at most nrows / (blocks * GDB_BLOCK) + GDB_FUSED_TILE rows, far below
 * 2^32 for any store a device holds; the block reduction widens it.
 */
template <int NA>
using GdbFusedCount = typename std::conditional<(NA < 4), unsigned int,
												unsigned long long>::type;

/*
 * The fusion switch: GPUDB_FUSED read once ("0" disables, anything else
 * or unset enables); gdb_cuda_set_fused overrides it (a test hook: 1 on,
 * 0 off, -1 back to the environment).  GPUDB_FAST_PATHS=0 disables it too.
 * Plain ints: every writer stores the same value, a race is benign.
 */
static int	gdb_fused_env = -1;
static int	gdb_fused_override = -1;

static int
gdb_fused_enabled(void)
{
	return gdb_env_switch("GPUDB_FUSED", &gdb_fused_env, gdb_fused_override);
}

extern "C" void
gdb_cuda_set_fused(int mode)
{
	gdb_fused_override = mode < 0 ? -1 : (mode ? 1 : 0);
}

/*
 * Fold the passing rows of R into accumulator a of kind K.  With LEAN,
 * COUNT and SUM_FLOAT without branches: their counts in 32 bits over the
 * R rows, then added once, and a row that does not count adds -0.0, the
 * exact identity (the same additions in the same order as gdb_acc_add's).
 * gdb_fused_rows asks for LEAN with the float range test and fewer than 4
 * accumulators: there it is faster and no instantiation spills (ptxas -v);
 * with the encoded test it measured 6 % slower on B2's shape (H200).
 */
template <int K, int R, bool LEAN>
__device__ __forceinline__ void
gdb_fused_add(GdbAcc &a, const int64_t (&y)[R], const uint8_t (&n)[R],
			  const bool (&pass)[R])
{
	if constexpr (LEAN && (K == GDB_AGG_COUNT || K == GDB_AGG_SUM_FLOAT))
	{
		unsigned	c = 0,
					ninf = 0;

#pragma unroll
		for (int u = 0; u < R; u++)
		{
			bool		t = pass[u] && n[u] == 0;

			c += t ? 1 : 0;
			if constexpr (K == GDB_AGG_SUM_FLOAT)
			{
				double		d = __longlong_as_double((long long) y[u]);

				ninf += (t && isinf(d)) ? 1 : 0;
				a.f += t ? d : -0.0;
			}
		}
		a.count += c;
		a.w0 += ninf;
	}
	else
	{
#pragma unroll
		for (int u = 0; u < R; u++)
			if (pass[u])
				gdb_acc_add<K>(a, y[u], n[u]);
	}
}

/*
 * gdb_fused_rows: test R rows whose values x[c][u] and NULL flags n[c][u]
 * (column c of f) are loaded, count the passing ones into *npass and fold
 * them into every accumulator (NULL inputs skipped by gdb_acc_add).
 */
template <int NC, int NA, int R, bool FT>
__device__ __forceinline__ void
gdb_fused_rows(const GdbFusedArgs &f, const int64_t (&x)[NC][R],
			   const uint8_t (&n)[NC][R], GdbAcc (&acc)[NA > 0 ? NA : 1],
			   GdbFusedCount<NA> *npass)
{
	const bool	LEAN = FT && NA < 4;
	bool		pass[R];

#pragma unroll
	for (int u = 0; u < R; u++)
		pass[u] = true;
	/* a run-time loop: unrolled, 8 terms cost code size and spills */
	for (int k = 0; k < (int) f.nterms; k++)
	{
#pragma unroll
		for (int u = 0; u < R; u++)
		{
			int64_t		xv = gdb_pick<NC, R>(x, f.tcol[k], u);
			bool		isnull = gdb_pick<NC, R>(n, f.tcol[k], u) != 0;

			if (FT)
				pass[u] = pass[u] && !isnull &&
					gdb_float_range_pass(__longlong_as_double(xv), f.fr[k]);
			else
				pass[u] = pass[u] && gdb_pred_term_pass(f.t[k], xv, isnull);
		}
	}
#pragma unroll
	for (int u = 0; u < R; u++)
		*npass += pass[u] ? 1 : 0;
#pragma unroll
	for (int a = 0; a < NA; a++)
	{
		int64_t		y[R];
		uint8_t		m[R];

#pragma unroll
		for (int u = 0; u < R; u++)
		{
			y[u] = gdb_pick<NC, R>(x, f.acol[a], u);
			m[u] = gdb_pick<NC, R>(n, f.acol[a], u);
		}
		switch (f.akind[a])
		{
			case GDB_AGG_COUNT:
				gdb_fused_add<GDB_AGG_COUNT, R, LEAN>(acc[a], y, m, pass);
				break;
			case GDB_AGG_SUM_INT:
				gdb_fused_add<GDB_AGG_SUM_INT, R, LEAN>(acc[a], y, m, pass);
				break;
			case GDB_AGG_SUM_FLOAT:
				gdb_fused_add<GDB_AGG_SUM_FLOAT, R, LEAN>(acc[a], y, m, pass);
				break;
			case GDB_AGG_MIN_INT:
				gdb_fused_add<GDB_AGG_MIN_INT, R, LEAN>(acc[a], y, m, pass);
				break;
			case GDB_AGG_MAX_INT:
				gdb_fused_add<GDB_AGG_MAX_INT, R, LEAN>(acc[a], y, m, pass);
				break;
			case GDB_AGG_MIN_FLOAT:
				gdb_fused_add<GDB_AGG_MIN_FLOAT, R, LEAN>(acc[a], y, m, pass);
				break;
			default:
				gdb_fused_add<GDB_AGG_MAX_FLOAT, R, LEAN>(acc[a], y, m, pass);
				break;
		}
	}
}

/*
 * gdb_fused_nokeys_kernel<NC, NA>: f has NC columns and NA accumulators.
 * Block b folds tiles b, b + gridDim.x, ... (thread t: the row pairs
 * tile * GDB_FUSED_TILE / 2 + t + j * GDB_BLOCK, j < GDB_FUSED_PAIRS), then
 * rows past the last whole tile grid-stride, and writes, for each output
 * o, its state to partials[o * gridDim.x + b] (the file header).
 */
template <int NC, int NA, bool FT>
__global__ void __launch_bounds__(GDB_BLOCK)
gdb_fused_nokeys_kernel(GdbFusedArgs f, uint64_t nrows, GdbAggState *partials)
{
	typedef cub::BlockReduce<GdbAggState, GDB_BLOCK> BlockReduce;
	__shared__ typename BlockReduce::TempStorage tmp;
	const uint64_t ntiles = nrows / GDB_FUSED_TILE;
	GdbFusedCount<NA> npass = 0;
	GdbAcc		acc[NA > 0 ? NA : 1];

#pragma unroll
	for (int a = 0; a < NA; a++)
		acc[a] = gdb_acc_init(f.akind[a]);

	for (uint64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x)
	{
		const uint64_t p0 = tile * (GDB_FUSED_TILE / 2) + threadIdx.x;
		longlong2	v[NC][GDB_FUSED_PAIRS];
		unsigned short nb[NC][GDB_FUSED_PAIRS];
		int64_t		x[NC][GDB_FUSED_ROWS];
		uint8_t		n[NC][GDB_FUSED_ROWS];

		/* every load of the tile first */
#pragma unroll
		for (int c = 0; c < NC; c++)
#pragma unroll
			for (int j = 0; j < GDB_FUSED_PAIRS; j++)
				v[c][j] = __ldg((const longlong2 *) f.vals[c] + p0 + j * GDB_BLOCK);
#pragma unroll
		for (int c = 0; c < NC; c++)
#pragma unroll
			for (int j = 0; j < GDB_FUSED_PAIRS; j++)
				nb[c][j] = f.nulls[c] ?
					__ldg((const unsigned short *) f.nulls[c] + p0 + j * GDB_BLOCK) : 0;
		/* row 2p is a pair's first word and (little-endian) its low flag byte */
#pragma unroll
		for (int c = 0; c < NC; c++)
#pragma unroll
			for (int j = 0; j < GDB_FUSED_PAIRS; j++)
			{
				x[c][2 * j] = v[c][j].x;
				x[c][2 * j + 1] = v[c][j].y;
				n[c][2 * j] = (uint8_t) (nb[c][j] & 0xff);
				n[c][2 * j + 1] = (uint8_t) (nb[c][j] >> 8);
			}
		gdb_fused_rows<NC, NA, GDB_FUSED_ROWS, FT>(f, x, n, acc, &npass);
	}

	/* the rows after the last whole tile: one per thread */
	for (uint64_t row = ntiles * GDB_FUSED_TILE + blockIdx.x * (uint64_t) GDB_BLOCK +
		 threadIdx.x; row < nrows; row += (uint64_t) gridDim.x * GDB_BLOCK)
	{
		int64_t		x[NC][1];
		uint8_t		n[NC][1];

#pragma unroll
		for (int c = 0; c < NC; c++)
		{
			x[c][0] = f.vals[c][row];
			n[c][0] = f.nulls[c] ? f.nulls[c][row] : 0;
		}
		gdb_fused_rows<NC, NA, 1, FT>(f, x, n, acc, &npass);
	}

	/* output -1 (the row count) first, then each accumulator */
#pragma unroll
	for (int a = -1; a < NA; a++)
	{
		GdbFastCombine op;
		GdbAggState s;

		if (a < 0)
		{
			GdbAcc		cnt = gdb_acc_init(GDB_AGG_COUNT_STAR);

			cnt.count = npass;
			op.kind = GDB_AGG_COUNT_STAR;
			s = gdb_acc_state(GDB_AGG_COUNT_STAR, cnt);
		}
		else
		{
			op.kind = f.akind[a];
			s = gdb_acc_state(op.kind, acc[a]);
		}
		s = BlockReduce(tmp).Reduce(s, op);
		if (threadIdx.x == 0)
			for (uint32_t o = 0; o < f.nout; o++)
				if (f.out_acc[o] == a)
					partials[(uint64_t) o * gridDim.x + blockIdx.x] = s;
		__syncthreads();		/* tmp is reused by the next reduction */
	}
}

typedef void (*GdbFusedKernel) (GdbFusedArgs, uint64_t, GdbAggState *);

#define GDB_FUSED_ROW(nc, ft) \
	{gdb_fused_nokeys_kernel<nc, 0, ft>, gdb_fused_nokeys_kernel<nc, 1, ft>, \
	 gdb_fused_nokeys_kernel<nc, 2, ft>, gdb_fused_nokeys_kernel<nc, 3, ft>, \
	 gdb_fused_nokeys_kernel<nc, 4, ft>}

/* The instantiation for [ftest][ncols - 1][naccs]. */
static const GdbFusedKernel gdb_fused_kernels[2][GDB_FUSED_MAX_COLS][GDB_FUSED_MAX_ACCS + 1] = {
	{GDB_FUSED_ROW(1, false), GDB_FUSED_ROW(2, false), GDB_FUSED_ROW(3, false)},
	{GDB_FUSED_ROW(1, true), GDB_FUSED_ROW(2, true), GDB_FUSED_ROW(3, true)}
};

static_assert(GDB_FUSED_MAX_COLS == 3 && GDB_FUSED_MAX_ACCS == 4,
			  "gdb_fused_kernels lists every instantiation");

/* Resident blocks per SM of each instantiation (0: not asked yet). */
static int	gdb_fused_occupancy[2][GDB_FUSED_MAX_COLS][GDB_FUSED_MAX_ACCS + 1];

/*
 * Index of the column whose values are vals in f, added (with its NULL
 * flags nulls) when new; -1 when f already has GDB_FUSED_MAX_COLS others.
 */
static int
gdb_fused_col(GdbFusedArgs *f, const int64_t *vals, const uint8_t *nulls)
{
	for (uint32_t c = 0; c < f->ncols; c++)
		if (f->vals[c] == vals)
			return (int) c;
	if (f->ncols >= GDB_FUSED_MAX_COLS)
		return -1;
	f->vals[f->ncols] = vals;
	f->nulls[f->ncols] = nulls;
	return (int) f->ncols++;
}

/* gdb_fused_nokeys_plan: see fused_filter_agg.cuh. */
int
gdb_fused_nokeys_plan(const GdbRun *r, GdbFusedArgs *f)
{
	const GdbRequest *req = r->req;
	const GdbBatch *in = r->input;
	GdbPredicate p;

	if (req->oper != GDB_OPER_GROUPBY || req->nkeys != 0 || req->input_is_states ||
		req->ninstr == 0 || req->naggs > GDB_MAX_AGGREGATES ||
		!gdb_fast_paths_enabled() || !gdb_fused_enabled() || !gdb_fast_kinds(req))
		return 0;
	if (!gdb_predicate_compile(req->program, (int) req->ninstr, in, r->d_in, &p))
		return 0;
	memset(f, 0, sizeof(*f));
	for (int k = 0; k < p.nterms; k++)
	{
		int			c = gdb_fused_col(f, p.t[k].vals, p.t[k].nulls);

		if (c < 0)
			return 0;
		f->t[k] = p.t[k];
		f->tcol[k] = c;
	}
	f->nterms = (uint32_t) p.nterms;
	f->ftest = gdb_fast_lean_enabled();
	for (int k = 0; k < p.nterms; k++)
	{
		if (!p.t[k].is_float || p.t[k].modulus != 0 || p.t[k].negate)
			f->ftest = 0;
		else
			f->fr[k] = gdb_float_range(p.t[k].lo, p.t[k].hi);
	}
	for (uint32_t o = 0; o < req->naggs; o++)
	{
		const GdbAggSpec *sp = &req->aggs[o];
		int			kind = (int) sp->kind;
		int			c,
					a;

		if (kind == GDB_AGG_COUNT_STAR)
		{
			f->out_acc[o] = -1;
			continue;
		}
		c = gdb_fused_col(f, (const int64_t *) (r->d_in + in->cols[sp->input_col].values_off),
						  GDB_NULL_PTR(r->d_in, in, sp->input_col));
		if (c < 0)
			return 0;
		for (a = 0; a < (int) f->naccs; a++)
			if (f->akind[a] == kind && f->acol[a] == c)
				break;
		if (a == (int) f->naccs)
		{
			if (f->naccs >= GDB_FUSED_MAX_ACCS)
				return 0;
			f->akind[a] = kind;
			f->acol[a] = c;
			f->naccs++;
		}
		f->out_acc[o] = (int8_t) a;
	}
	f->out_acc[req->naggs] = -1;	/* the selected-row count */
	f->nout = req->naggs + 1;
	/* the 16-byte pair loads and 2-byte flag loads need aligned arrays */
	for (uint32_t c = 0; c < f->ncols; c++)
		if (((uintptr_t) f->vals[c] & 15) != 0 || ((uintptr_t) f->nulls[c] & 1) != 0)
			return 0;
	return 1;
}

/* gdb_fused_nokeys_blocks: see fused_filter_agg.cuh. */
uint32_t
gdb_fused_nokeys_blocks(GdbCudaExec *ex, const GdbFusedArgs *f, uint64_t nrows)
{
	int		   *occ = &gdb_fused_occupancy[f->ftest][f->ncols - 1][f->naccs];
	uint64_t	want = (nrows + GDB_FUSED_TILE - 1) / GDB_FUSED_TILE;
	uint64_t	cap;

	if (*occ == 0)
	{
		int			n = 0;

		if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n,
														  gdb_fused_kernels[f->ftest][f->ncols - 1][f->naccs],
														  GDB_BLOCK, 0) != cudaSuccess || n < 1)
		{
			(void) cudaGetLastError();
			n = 1;
		}
		*occ = n;
	}
	cap = (uint64_t) (ex->multiprocessors > 0 ? ex->multiprocessors : 1) * (uint64_t) *occ;
	return (uint32_t) (want < 1 ? 1 : (want > cap ? cap : want));
}

/* gdb_fused_nokeys_launch: see fused_filter_agg.cuh. */
int
gdb_fused_nokeys_launch(GdbCudaExec *ex, const GdbFusedArgs *f, uint64_t nrows,
						uint32_t nblk, GdbAggState *partials, GdbError *err)
{
	GdbFusedKernel kernel;

	if (f->ncols < 1 || f->ncols > GDB_FUSED_MAX_COLS || f->naccs > GDB_FUSED_MAX_ACCS)
		return gdb_error_set(err, GDB_ERR_DEVICE, "gdb_fused_nokeys_launch: bad plan");
	kernel = gdb_fused_kernels[f->ftest != 0][f->ncols - 1][f->naccs];
	kernel<<<nblk, GDB_BLOCK, 0, ex->stream>>>(*f, nrows, partials);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_fused_nokeys_kernel");
	return GDB_OK;
}
