/*-------------------------------------------------------------------------
 *
 * select_sort_kernels.cu
 *	  The SELECT (selection + projection) and SORT (stable ordered
 *	  selection, optional top-k) operators of gpudb_device.h on a CUDA
 *	  device.  Same contract and byte-identical result (values and NULL
 *	  flags) as gdb_cpu_select_sort (src/cpu/cpu_select_sort.c).
 *
 * Pipeline (all on the execution's one stream; nsel = selected rows):
 *
 *	 Phase A, selection (shared with the group-by, groupby_kernels.cu)
 *	   1. gdb_phase_filter: copy the input in (unless resident in a column
 *		  store) and run the filter VM kernel -> uint8 flags, the lowest
 *		  failing row's SQL status in the counters;
 *	   2. gdb_phase_compact: cub::DeviceSelect::Flagged over a counting
 *		  iterator -> ascending uint32 ids of the selected rows (the flag +
 *		  prefix sum + scatter compaction of the CUDADB line of work); read
 *		  back {error, nsel}; a filter error ends the call.
 *	 Phase B, ordering (SORT only, nsel > 1)
 *	   (top-k: with a limit small against nsel, gdb_topk_candidates of
 *	   topk_select.cu first keeps only the rows whose first key is at most
 *	   the k-th smallest -- a radix select -- and step 3 sorts those)
 *	   3. from the last sort key to the first, gdb_sort_by_column: a stable
 *		  LSD pass of cub::DeviceRadixSort::SortPairs over the 64-bit
 *		  gdb_sort_encode of each id's row (0 for NULL), then, for a
 *		  nullable column, a 1-bit pass over gdb_sort_null_rank.  The ids
 *		  start ascending and every pass is stable, so ties keep input
 *		  order, as the CPU path's row-id tie-break does.
 *	 Phase C, projection
 *	   4. nret = nsel for SELECT, min(limit, nsel) for SORT (limit 0: nsel);
 *		  the result batch is laid out for nret rows (host buffer from
 *		  alloc(), device copy in scratch);
 *	   5. per output column, gdb_gather_rows_kernel copies the 64-bit words
 *		  and NULL flags of rows perm[0..nret) into the device result;
 *	   6. one cudaMemcpyAsync copies the result arrays back behind the
 *		  header the host already wrote.
 *	 Device time (CUDA events around each phase) goes to stats->device_ms.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include "cuda_exec.cuh"
#include "gpudb_semantics.h"

/* ---- kernels ---- */

/*
 * gdb_gather_rows_kernel: out[i] = vals[ids[i]] and, when out_nulls is not
 * NULL, out_nulls[i] = nulls[ids[i]], for i in [0, n).  vals/out: 64-bit
 * words of an INT64 or FLOAT64 column (copied bit for bit, the word under
 * a NULL included); nulls/out_nulls: uint8 flags, both NULL or both set.
 * A gather (projection) through the selected / sorted row ids.
 */
__global__ void
gdb_gather_rows_kernel(const int64_t *vals, const uint8_t *nulls,
					   const uint32_t *ids, uint64_t n, int64_t *out,
					   uint8_t *out_nulls)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	row = ids[i];

		out[i] = vals[row];
		if (out_nulls)
			out_nulls[i] = nulls[row];
	}
}

/* ---- host side ---- */

/*
 * Phase B: order perm[cur] by the sort keys, last key first (stable LSD).
 * With a small limit, gdb_topk_candidates (topk_select.cu) first narrows
 * perm[cur] to the candidates of the top k (radix select on the first
 * key, input order kept) and only those are sorted; the first key's passes
 * are skipped when every candidate ties on it, and its NULL-rank pass when
 * no candidate is NULL there.  r->nsel is left as selected.
 */
static int
gdb_phase_order(GdbRun *r, GdbError *err)
{
	const GdbRequest *req = r->req;
	const GdbBatch *in = r->input;
	uint64_t	nsel = r->nsel;
	GdbTopkCut	cut;

	GDB_TRY(gdb_topk_candidates(r, &cut, err));
	r->nsel = cut.ncand;		/* gdb_sort_by_column orders r->nsel ids */
	for (int k = (int) req->nsort - 1; k >= 0; k--)
	{
		const GdbSortKey *sk = &req->sort_keys[k];
		const uint8_t *nulls = GDB_NULL_PTR(r->d_in, in, sk->col);
		int			st;

		if (k == 0 && cut.key0_tied)
			break;
		if (k == 0 && cut.key0_no_nulls)
			nulls = NULL;
		st = gdb_sort_by_column(r, (const int64_t *) (r->d_in + in->cols[sk->col].values_off),
								nulls, in->cols[sk->col].kind, sk->descending,
								sk->nulls_first, err);
		if (st != GDB_OK)
		{
			r->nsel = nsel;
			return st;
		}
	}
	r->nsel = nsel;
	return GDB_OK;
}

/* Phase C: gather the first nret ids' output columns; copy the result back. */
static int
gdb_phase_project(GdbRun *r, uint64_t nret, GdbAllocFn alloc, void *alloc_arg,
				  GdbBatch **result, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	const GdbBatch *in = r->input;
	GdbBatch   *host;
	char	   *d_res;

	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_AGGREGATE, err));
	GDB_TRY(gdb_result_alloc(r, nret, alloc, alloc_arg, &host, &d_res, err));
	for (uint32_t c = 0; c < req->nout && nret > 0; c++)
	{
		int32_t		ic = req->out_cols[c];

		gdb_gather_rows_kernel<<<gdb_blocks(ex, nret), GDB_BLOCK, 0, ex->stream>>>(
			(const int64_t *) (r->d_in + in->cols[ic].values_off),
			GDB_NULL_PTR(r->d_in, in, ic), r->perm[r->cur], nret,
			GDB_COL_PTR(d_res, host, c, int64_t), GDB_NULL_PTR(d_res, host, c));
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_gather_rows_kernel");
	}
	GDB_TRY(gdb_result_finish(r, host, d_res, err));
	*result = host;
	return GDB_OK;
}

/*
 * gdb_select_sort_run: see cuda_exec.cuh.  The result has req->nout
 * columns, column i of the kind and NULL flags of input column out_cols[i],
 * one row per returned row: SELECT the selected rows in input order; SORT
 * the first min(limit, nsel) (limit 0: all) in sort-key order, NULLs first
 * or last per key, ties in input order.  Values are the input's 64-bit
 * words (NaN payloads, -0.0 and the words under NULLs kept), so the batch
 * equals gdb_cpu_select_sort's byte for byte outside padding.  Errors: the
 * filter's SQL status of the lowest failing row, GDB_ERR_OUT_OF_MEMORY
 * (alloc() or a device allocation), GDB_ERR_DEVICE.  Algorithm (file
 * header): filter VM, flag + prefix-sum + scatter compaction, stable LSD
 * radix sort of the row ids per key (the CUDADB line of work), gather.
 * Scratch: 9 bytes per input row, plus 18 bytes per selected row for SORT,
 * plus CUB's temporary storage.
 */
int
gdb_select_sort_run(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
					GdbBatch **result, GdbError *err)
{
	const GdbRequest *req = r->req;

	GDB_TRY(gdb_phase_filter(r, err));
	GDB_TRY(gdb_phase_compact(r, 1, err));
	if (req->oper == GDB_OPER_SORT)
		GDB_TRY(gdb_phase_order(r, err));
	r->ngroups = r->nsel;
	if (req->oper == GDB_OPER_SORT && req->limit > 0 && req->limit < r->nsel)
		r->ngroups = req->limit;
	return gdb_phase_project(r, r->ngroups, alloc, alloc_arg, result, err);
}
