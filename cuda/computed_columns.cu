/*-------------------------------------------------------------------------
 *
 * computed_columns.cu
 *	  Step 2 of the request pipeline on the device: the computed columns
 *	  of a request (expressions over the batch's columns: arithmetic,
 *	  numeric fixed point, CASE, dates...), evaluated once per selected
 *	  row into device columns that the operator then reads as stored ones
 *	  through a view of the batch (gdb_batch_view).  No PostgreSQL header.
 *
 * Algorithm: the filter program runs first, as in gdb_phase_filter
 * (gdb_filter_launch: the predicate fast path or the tile interpreter of
 * filter_vm.cu), into the run's flags; then one thread per row
 * (grid-stride) runs each computed column's program for a selected row
 * with gdb_vm_value, the interpreter of gpudb_semantics.h that the CPU
 * path runs too, so both paths compute the same values and raise for the
 * same rows.  A row that raises does
 * atomicMin(err_key, row << 4 | status), so the error reported is the
 * lowest failing row's, as on the CPU path and in PostgreSQL's sequential
 * scan.  The batch header is staged in shared memory (its column offsets
 * are read per instruction); the programs are read through the read-only
 * cache.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "cuda_exec.cuh"
#include "gpudb_semantics.h"

/* Threads per block of the computed-column kernel. */
#define GDB_EXPR_BLOCK 128

/* The computed columns of one request, as the kernel takes them. */
struct GdbExprArgs
{
	uint32_t	nexprs;
	int32_t		ninstr;			/* filter instructions, at prog[0] */
	const uint8_t *flags;		/* the filter's flags (gdb_filter_launch),
								 * or NULL: every row is selected */
	GdbExprSpec exprs[GDB_MAX_EXPRS];	/* start relative to prog + ninstr */
	int64_t    *vals[GDB_MAX_EXPRS];
	uint8_t    *nulls[GDB_MAX_EXPRS];
};

/*
 * gdb_computed_columns_kernel: for rows [0, nrows) of the batch at base,
 * vals/nulls of every computed column: the program's value for a row the
 * filter selects, NULL for the others.
 */
__global__ void __launch_bounds__(GDB_EXPR_BLOCK)
gdb_computed_columns_kernel(const char *base, const GdbInstr *prog,
							GdbExprArgs a, uint64_t nrows,
							unsigned long long *err_key)
{
	__shared__ unsigned long long smem[sizeof(GdbBatch) / 8];
	const GdbBatch *hdr = (const GdbBatch *) smem;
	const unsigned long long *src = (const unsigned long long *) base;
	const GdbInstr *eprog = prog + a.ninstr;

	for (size_t i = threadIdx.x; i < sizeof(GdbBatch) / 8; i += blockDim.x)
		smem[i] = src[i];
	__syncthreads();

	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 row < nrows; row += (uint64_t) gridDim.x * blockDim.x)
	{
		int			st = GDB_OK;
		int			selected = 1;

		if (a.flags)
			selected = a.flags[row] != 0;
		for (uint32_t j = 0; j < a.nexprs; j++)
		{
			GdbValue	v;

			v.isnull = 1;
			v.v.i = 0;
			if (selected && st == GDB_OK)
				st = gdb_vm_value(eprog + a.exprs[j].start, (int) a.exprs[j].len,
								  hdr, base, row, &v);
			a.vals[j][row] = v.isnull ? 0 : v.v.i;
			a.nulls[j][row] = v.isnull != 0;
		}
		if (st != GDB_OK)
			atomicMin(err_key, (unsigned long long) (row << GDB_STATUS_BITS) | (unsigned) st);
	}
}

/* gdb_compute_columns: see cuda_exec.cuh. */
int
gdb_compute_columns(GdbRun *r, GdbBatch *view, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	cudaStream_t s = ex->stream;
	uint64_t	n = r->nrows;
	size_t		colbytes = (size_t) (gdb_align_up(n * 8) + gdb_align_up(n));
	size_t		hdrbytes = (size_t) gdb_align_up(sizeof(GdbBatch));
	size_t		pbytes = (size_t) (req->ninstr + req->neinstr) * sizeof(GdbInstr);
	void	   *scr;
	void	   *d_prog;
	void	   *vals[GDB_MAX_EXPRS];
	void	   *nulls[GDB_MAX_EXPRS];
	uint32_t	kinds[GDB_MAX_EXPRS];
	GdbExprArgs a;

	if (r->copy_src)
	{
		GDB_TRY(gdb_phase_begin(r, GDB_PHASE_TRANSFER_IN, err));
		GDB_CUDA_CHECK(err, cudaMemcpyAsync(r->d_in, r->copy_src,
											r->copy_src->total_bytes,
											cudaMemcpyHostToDevice, s));
		r->to_device += r->copy_src->total_bytes;
		r->copy_src = NULL;
	}
	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_FILTER, err));
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_EXPRS, hdrbytes + req->nexprs * colbytes,
							 &scr, err));
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_EPROGRAM, pbytes, &d_prog, err));
	if (n > 0)
	{
		/* the programs (an empty batch runs none) */
		if (req->ninstr > 0)
			GDB_CUDA_CHECK(err, cudaMemcpyAsync(d_prog, req->program,
												req->ninstr * sizeof(GdbInstr),
												cudaMemcpyHostToDevice, s));
		GDB_CUDA_CHECK(err, cudaMemcpyAsync((GdbInstr *) d_prog + req->ninstr,
											req->eprogram,
											req->neinstr * sizeof(GdbInstr),
											cudaMemcpyHostToDevice, s));
		r->to_device += pbytes;
	}

	memset(&a, 0, sizeof(a));
	a.nexprs = req->nexprs;
	a.ninstr = (int32_t) req->ninstr;
	for (uint32_t j = 0; j < req->nexprs; j++)
	{
		char	   *p = (char *) scr + hdrbytes + j * colbytes;

		a.exprs[j] = req->exprs[j];
		a.vals[j] = (int64_t *) p;
		a.nulls[j] = (uint8_t *) (p + gdb_align_up(n * 8));
		vals[j] = a.vals[j];
		nulls[j] = a.nulls[j];
		kinds[j] = req->exprs[j].kind;
	}
	GDB_CUDA_CHECK(err, cudaMemsetAsync(&r->d_counters->err_key, 0xff,
										sizeof(unsigned long long), s));
	if (req->ninstr > 0 && n > 0)
	{
		/*
		 * the filter first, into the run's flags (the predicate fast path
		 * where the program is one, else the tile interpreter); its errors
		 * and the computed columns' meet in err_key, the lowest row's
		 * winning, and gdb_phase_filter does not run it again
		 */
		GDB_TRY(gdb_filter_launch(ex, r->input, r->d_in, req->program,
								  (const GdbInstr *) d_prog, (int) req->ninstr, n,
								  r->flags, &r->d_counters->err_key, err));
		a.flags = r->flags;
		r->flags_ready = 1;
	}
	if (n > 0)
	{
		gdb_computed_columns_kernel<<<gdb_blocks(ex, n), GDB_EXPR_BLOCK, 0, s>>>(
			r->d_in, (const GdbInstr *) d_prog, a, n, &r->d_counters->err_key);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_computed_columns_kernel");
	}

	/* the view: stored columns where they are, computed ones in scratch */
	gdb_batch_view(r->input, r->d_in, view, scr, req->nexprs, kinds, vals, nulls);
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(scr, view, sizeof(GdbBatch),
										cudaMemcpyHostToDevice, s));
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(ex->host_counters, r->d_counters,
										sizeof(GdbDevCounters),
										cudaMemcpyDeviceToHost, s));
	r->from_device += sizeof(GdbDevCounters);
	GDB_TRY(gdb_phase_end(r, err));
	GDB_TRY(gdb_filter_status(ex, err));
	r->input = view;
	r->d_in = (char *) scr;
	return GDB_OK;
}
