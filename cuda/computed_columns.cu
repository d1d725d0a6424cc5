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
 * filter_vm.cu), into the run's flags; then the computed columns'
 * programs run for the selected rows in the same tile interpreter
 * (gdb_values_launch: a thread evaluates a tile of rows instruction by
 * instruction, the tops of their stacks in registers), each opcode being
 * gdb_vm_step of gpudb_semantics.h, which the CPU path runs too, so both
 * paths compute the same values and raise for the same rows.  A row that
 * raises does atomicMin(err_key, row << 4 | status), so the error
 * reported is the lowest failing row's, as on the CPU path and in
 * PostgreSQL's sequential scan.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "cuda_exec.cuh"
#include "gpudb_semantics.h"

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
	GdbValuesArgs a;

	if (r->copy_src)
	{
		GDB_TRY(gdb_phase_begin(r, GDB_PHASE_TRANSFER_IN, err));
		GDB_TRY(gdb_copy_in(r, err));
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
	for (uint32_t j = 0; j < req->nexprs; j++)
	{
		char	   *p = (char *) scr + hdrbytes + j * colbytes;

		a.start[j] = req->exprs[j].start;
		a.len[j] = req->exprs[j].len;
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
		GDB_TRY(gdb_values_launch(ex, r->d_in, req->eprogram,
								  (const GdbInstr *) d_prog + req->ninstr,
								  (int) req->neinstr, &a, n,
								  &r->d_counters->err_key, err));
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
