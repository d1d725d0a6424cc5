/*-------------------------------------------------------------------------
 *
 * code_tables.cu
 *	  A request's code tables on the device: the per-code bits and words
 *	  that TEXT_IN_SET and TEXT_MAP read (a LIKE, a text comparison, a
 *	  length, evaluated by the host once per dictionary string), copied
 *	  to device memory and attached to the header the programs run over.
 *	  No PostgreSQL header.
 *
 * The programs find a table through a slot of the batch header
 * (GDB_TABLE_COL, gdb_batch_attach_tables), so the kernels need no new
 * argument: this step copies the input in (when it comes from the host),
 * then writes a view of the input's header whose stored columns stay
 * where they are and whose table slots point at the words in the TABLES
 * scratch, and makes that view the input of the rest of the pipeline
 * (computed columns, filter, operator), as gdb_compute_columns does with
 * its own view.
 *
 * The words of a cached relation's tables stay in the TABLES scratch from
 * one request to the next: the GPU server's memo names their content
 * (GdbRequest.table_words_key, text_tables.c), and a request with the key
 * the scratch holds copies only the header (TPC-H Q22's SUBSTRING over
 * customer's dictionary: 48 MB a request before).
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "cuda_exec.cuh"

/* gdb_attach_tables: see cuda_exec.cuh. */
int
gdb_attach_tables(GdbRun *r, GdbBatch *view, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	cudaStream_t s = ex->stream;
	size_t		hdrbytes = (size_t) gdb_align_up(sizeof(GdbBatch));
	size_t		wbytes = (size_t) req->ntable_words * sizeof(uint64_t);
	void	   *scr;

	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_TRANSFER_IN, err));
	GDB_TRY(gdb_copy_in(r, err));
	/*
	 * the words, unless the scratch still holds them: the same key (the
	 * GPU server's memo of a cached relation: equal keys, equal words) in
	 * a scratch that was not regrown or released since (gdb_cuda_scratch
	 * and gdb_cuda_release_scratch forget the key then)
	 */
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_TABLES, hdrbytes + wbytes, &scr, err));
	if (wbytes > 0 &&
		!(req->table_words_key != 0 && req->table_words_key == ex->tables_key &&
		  wbytes == ex->tables_bytes))
	{
		ex->tables_key = 0;		/* (until the copy is queued) */
		GDB_CUDA_CHECK(err, cudaMemcpyAsync((char *) scr + hdrbytes, req->table_words,
											wbytes, cudaMemcpyHostToDevice, s));
		ex->tables_key = req->table_words_key;
		ex->tables_bytes = wbytes;
		r->to_device += wbytes;
	}

	/* the input's columns where they are, the tables in scratch */
	gdb_batch_view(r->input, r->d_in, view, scr, 0, NULL, NULL, NULL);
	gdb_batch_attach_tables(view, scr, req,
							(const uint64_t *) ((char *) scr + hdrbytes));
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(scr, view, sizeof(GdbBatch),
										cudaMemcpyHostToDevice, s));
	r->to_device += sizeof(GdbBatch);
	r->input = view;
	r->d_in = (char *) scr;
	return GDB_OK;
}
