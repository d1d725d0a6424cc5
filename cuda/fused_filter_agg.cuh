/*-------------------------------------------------------------------------
 *
 * fused_filter_agg.cuh
 *	  The fused filter + aggregation pass of a group-by without keys
 *	  (fused_filter_agg.cu): its arguments and its three entry points, for
 *	  groupby_kernels.cu (which plans it before the filter phase) and
 *	  groupby_fastpath.cu (gdb_fast_nokeys, which runs it in place of the
 *	  two-pass predicate + aggregation).  No PostgreSQL header.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_FUSED_FILTER_AGG_CUH
#define GPUDB_FUSED_FILTER_AGG_CUH

#include "cuda_exec.cuh"
#include "predicate.cuh"

/* Distinct columns (predicate and aggregates together) the pass loads. */
#define GDB_FUSED_MAX_COLS	3

/* Distinct accumulators other than the row count (see GdbFusedArgs). */
#define GDB_FUSED_MAX_ACCS	4

/*
 * What the fused kernel needs, all by value (a kernel parameter).
 *	 vals, nulls	the distinct columns' device values (16-byte aligned)
 *					and NULL flags (NULL: none; 2-byte aligned)
 *	 t, tcol		the predicate's terms; term k tests column tcol[k]
 *					(t[k].vals / nulls are not used by the kernel)
 *	 akind, acol	one register accumulator per distinct (kind, column)
 *					pair among the request's aggregates other than
 *					COUNT_STAR (sum(v) and avg(v) share one)
 *	 out_acc		for each output o in [0, nout) -- the request's
 *					aggregates, then the selected-row count as output
 *					naggs, the layout of gdb_fast_nokeys' partials -- the
 *					accumulator it copies, or -1: the row count (every
 *					COUNT_STAR, which needs no column)
 *	 ftest, fr		ftest 1 when every term is a float range test (no
 *					modulus, not negated): term k then passes a non-NULL
 *					value x when gdb_float_range_pass(x, fr[k])
 *					(gpudb_semantics.h), the same rows as its encoded test
 */
struct GdbFusedArgs
{
	uint32_t	ncols;
	uint32_t	nterms;
	uint32_t	naccs;
	uint32_t	nout;
	const int64_t *vals[GDB_FUSED_MAX_COLS];
	const uint8_t *nulls[GDB_FUSED_MAX_COLS];
	GdbPredTerm t[GDB_PRED_MAX_TERMS];
	int			tcol[GDB_PRED_MAX_TERMS];
	int			akind[GDB_FUSED_MAX_ACCS];
	int			acol[GDB_FUSED_MAX_ACCS];
	int8_t		out_acc[GDB_MAX_AGGREGATES + 1];
	int			ftest;
	GdbFloatRange fr[GDB_PRED_MAX_TERMS];
};

/*
 * gdb_fused_nokeys_plan: 1 when r's request is fused -- a GROUPBY without
 * keys over values (not states), the fast paths enabled
 * (gdb_fast_paths_enabled) and fusion not turned off (GPUDB_FUSED=0 in the
 * server's environment, or the gdb_cuda_set_fused hook), every aggregate
 * of a fast kind (gdb_fast_kinds), a filter program that
 * gdb_predicate_compile accepts (such a program never raises, so the
 * filter has no error to report), at most GDB_FUSED_MAX_COLS distinct
 * columns and GDB_FUSED_MAX_ACCS distinct accumulators, and aligned column
 * arrays -- then *f holds the pass's arguments (device addresses in
 * r->d_in).  0 otherwise: the two-pass path runs.  Host only; queues
 * nothing.
 */
int			gdb_fused_nokeys_plan(const GdbRun *r, GdbFusedArgs *f);

/*
 * gdb_fused_nokeys_blocks: the grid of the fused pass over nrows rows --
 * the device's SMs times the kernel's resident blocks per SM
 * (cudaOccupancyMaxActiveBlocksPerMultiprocessor, asked once per kernel
 * instantiation), at most one block per tile of rows, at least 1.  The
 * caller sizes the partials by it (nout * blocks GdbAggStates).
 */
uint32_t	gdb_fused_nokeys_blocks(GdbCudaExec *ex, const GdbFusedArgs *f, uint64_t nrows);

/*
 * gdb_fused_nokeys_launch: queue the fused pass over rows [0, nrows) on
 * ex's stream with nblk blocks (gdb_fused_nokeys_blocks): for output o and
 * block b, partials[o * nblk + b] = the gdb_state_combine of the rows of
 * block b that pass the predicate (NULL inputs skipped per aggregate),
 * which gdb_nokeys_final_kernel then combines in block order.  The same
 * rows go to the same block on every run, so results are deterministic.
 * Returns GDB_OK or GDB_ERR_DEVICE (launch failure).
 */
int			gdb_fused_nokeys_launch(GdbCudaExec *ex, const GdbFusedArgs *f,
									uint64_t nrows, uint32_t nblk,
									GdbAggState *partials, GdbError *err);

#endif							/* GPUDB_FUSED_FILTER_AGG_CUH */
