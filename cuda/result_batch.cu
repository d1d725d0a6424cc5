/*-------------------------------------------------------------------------
 *
 * result_batch.cu
 *	  The result batch of a request on the device (cuda_exec.cuh's
 *	  gdb_result_alloc and gdb_result_finish), shared by every pipeline:
 *	  the group-by (groupby_kernels.cu, groupby_fastpath.cu), the ordered
 *	  cut (groupby_order.cu) and SELECT/SORT (select_sort_kernels.cu).
 *	  The batch is laid out for its rows in the RESULT scratch, or in an
 *	  allocation of its own when the GPU server keeps it on the device
 *	  (kept_result.cu); its arrays' alignment padding is zeroed so that no
 *	  byte of an earlier request travels; a large result comes back
 *	  through pinned staging chunks copied by turns (gdb_copy_out), a
 *	  small one in one direct copy.  No PostgreSQL header.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_exec.cuh"

/* Padding runs of a result batch, each [start, next GDB_BATCH_ALIGN). */
#define GDB_PAD_RUNS 64

struct GdbPadRuns
{
	uint32_t	n;
	uint64_t	start[GDB_PAD_RUNS];	/* never GDB_BATCH_ALIGN-aligned */
};

/*
 * gdb_zero_padding_kernel: zero the bytes from each run's start up to the
 * next GDB_BATCH_ALIGN boundary (fewer than GDB_BATCH_ALIGN each): item i
 * is byte i % GDB_BATCH_ALIGN of run i / GDB_BATCH_ALIGN.
 */
__global__ void
gdb_zero_padding_kernel(char *d_res, GdbPadRuns runs)
{
	uint64_t	n = (uint64_t) runs.n * GDB_BATCH_ALIGN;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	s = runs.start[i / GDB_BATCH_ALIGN];
		uint64_t	b = s + i % GDB_BATCH_ALIGN;

		if (b < ((s + GDB_BATCH_ALIGN - 1) & ~(uint64_t) (GDB_BATCH_ALIGN - 1)))
			d_res[b] = 0;
	}
}

/* gdb_result_alloc: see cuda_exec.cuh. */
int
gdb_result_alloc(GdbRun *r, uint64_t ngroups, GdbAllocFn alloc, void *alloc_arg,
				 GdbBatch **hostp, char **d_res, GdbError *err)
{
	const GdbRequest *req = r->req;
	const GdbBatch *in = r->input;
	uint32_t	kinds[GDB_MAX_COLUMNS];
	uint32_t	has_nulls[GDB_MAX_COLUMNS];
	uint32_t	nout = req->oper == GDB_OPER_GROUPBY ? req->nkeys + req->naggs : req->nout;
	uint64_t	total;
	GdbBatch   *host;

	*hostp = NULL;
	for (uint32_t c = 0; c < nout; c++)
	{
		int32_t		src = gdb_request_result_source(req, c);

		/* a copied input column keeps its kind and NULL flags */
		kinds[c] = src >= 0 ? in->cols[src].kind : (uint32_t) GDB_KIND_STATE;
		has_nulls[c] = src >= 0 ? in->cols[src].has_nulls : 0;
	}
	total = gdb_batch_layout(NULL, nout, kinds, has_nulls, ngroups);
	/*
	 * a SELECT's or an unordered GROUPBY's result kept on the device (a
	 * build side, a shard's partial states) has an allocation of its own
	 */
	*d_res = (req->oper == GDB_OPER_SELECT || req->oper == GDB_OPER_GROUPBY) &&
		!gdb_request_ordered(req) ?
		gdb_kept_result_alloc(r->ex, (size_t) total) : NULL;
	/* the device copy first: growing it may wait for the stream */
	if (*d_res == NULL)
		GDB_TRY(gdb_cuda_scratch(r->ex, GDB_SCR_RESULT, (size_t) total, (void **) d_res, err));
	if (gdb_request_ordered(req))
	{
		/* ordered: a header only; gdb_order_groups allocates the cut result */
		gdb_batch_layout(&r->order_hdr, nout, kinds, has_nulls, ngroups);
		r->order_hdr.nrows = ngroups;
		r->order_d_res = *d_res;
		*hostp = &r->order_hdr;
		return GDB_OK;
	}
	host = (GdbBatch *) alloc(alloc_arg, (size_t) total);
	if (host == NULL)
	{
		err->status = GDB_ERR_OUT_OF_MEMORY;
		snprintf(err->message, sizeof(err->message),
				 "could not allocate a result batch of %llu bytes",
				 (unsigned long long) total);
		return GDB_ERR_OUT_OF_MEMORY;
	}
	gdb_batch_layout(host, nout, kinds, has_nulls, ngroups);
	host->nrows = ngroups;
	*hostp = host;
	return GDB_OK;
}

/* Results from this size on come back through pinned staging buffers. */
#define GDB_STAGE_MIN_BYTES ((size_t) 4 << 20)
/* The size of each of the two staging chunks. */
#define GDB_STAGE_CHUNK ((size_t) 8 << 20)

/*
 * Copy bytes from device address src to host address dst on ex's stream,
 * waiting for it.  Pageable destination memory (the GPU server's result
 * buffers) is copied at a fraction of the bus's speed, so a large copy goes
 * through two pinned chunks by turns: the device fills one while the host
 * moves the other to dst (the double-buffered staging of CUDA's best
 * practices guide).  A pinned dst, or staging that cannot be had, gets one
 * direct copy.
 */
static int
gdb_copy_out(GdbCudaExec *ex, char *dst, const char *src, size_t bytes, GdbError *err)
{
	cudaPointerAttributes attr;
	size_t		done[2] = {0, 0};	/* each chunk's pending copy: its offset */
	size_t		len[2] = {0, 0};
	size_t		off;
	int			i;

	bool		direct = bytes < GDB_STAGE_MIN_BYTES ||
		(cudaPointerGetAttributes(&attr, dst) == cudaSuccess &&
		 attr.type == cudaMemoryTypeHost);

	(void) cudaGetLastError();
	if (!direct && ex->stage[0] == NULL)
	{
		char	   *p = (char *) gdb_cuda_host_alloc(ex, 2 * GDB_STAGE_CHUNK);

		if (p == NULL ||
			cudaEventCreateWithFlags(&ex->stage_ev[0], cudaEventDisableTiming) != cudaSuccess ||
			cudaEventCreateWithFlags(&ex->stage_ev[1], cudaEventDisableTiming) != cudaSuccess)
		{
			(void) cudaGetLastError();
			if (p != NULL)
				gdb_cuda_host_free(ex, p);
			direct = true;
		}
		else
		{
			ex->stage[0] = p;
			ex->stage[1] = p + GDB_STAGE_CHUNK;
		}
	}
	if (direct)
	{
		GDB_CUDA_CHECK(err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost,
											ex->stream));
		return GDB_OK;
	}
	for (off = 0, i = 0; off < bytes; off += GDB_STAGE_CHUNK, i ^= 1)
	{
		size_t		n = bytes - off < GDB_STAGE_CHUNK ? bytes - off : GDB_STAGE_CHUNK;

		if (len[i] > 0)
		{
			/* this chunk's last copy: to dst before it is filled again */
			GDB_CUDA_CHECK(err, cudaEventSynchronize(ex->stage_ev[i]));
			memcpy(dst + done[i], ex->stage[i], len[i]);
		}
		GDB_CUDA_CHECK(err, cudaMemcpyAsync(ex->stage[i], src + off, n,
											cudaMemcpyDeviceToHost, ex->stream));
		GDB_CUDA_CHECK(err, cudaEventRecord(ex->stage_ev[i], ex->stream));
		done[i] = off;
		len[i] = n;
	}
	/* the last two chunks, in order */
	for (int k = 0; k < 2; k++, i ^= 1)
		if (len[i] > 0)
		{
			GDB_CUDA_CHECK(err, cudaEventSynchronize(ex->stage_ev[i]));
			memcpy(dst + done[i], ex->stage[i], len[i]);
			len[i] = 0;
		}
	return GDB_OK;
}

/*
 * Zero the alignment padding behind each column array of the result batch
 * laid out as host says at d_res (values, then NULL flags, each padded to
 * GDB_BATCH_ALIGN by gdb_batch_layout).  No kernel writes those bytes, and
 * d_res is most often the reused RESULT scratch, so they would otherwise
 * carry an earlier request's bytes to the host: the same result, different
 * bytes.  Only the padding: every result batch has nrows == capacity
 * (gdb_result_alloc, gdb_order_groups), and its kernels write each array
 * whole.
 */
static int
gdb_result_zero_padding(GdbRun *r, const GdbBatch *host, char *d_res, GdbError *err)
{
	GdbPadRuns	runs;
	uint64_t	cap = host->capacity;

	runs.n = 0;
	for (uint32_t c = 0; c < host->ncols && c < GDB_MAX_BATCH_COLS; c++)
	{
		const GdbColumnDesc *cd = &host->cols[c];
		uint64_t	ends[2];
		int			nends = 0;

		ends[nends++] = cd->values_off + cap * gdb_kind_width(cd->kind);
		if (cd->has_nulls)
			ends[nends++] = cd->nulls_off + cap;
		for (int e = 0; e < nends; e++)
			if (ends[e] % GDB_BATCH_ALIGN != 0)
				runs.start[runs.n++] = ends[e];
		/* full (room for fewer than a column's two runs), or the last column */
		if (runs.n > 0 &&
			(runs.n + 2 > GDB_PAD_RUNS || c + 1 == host->ncols || c + 1 == GDB_MAX_BATCH_COLS))
		{
			gdb_zero_padding_kernel<<<gdb_blocks(r->ex, (uint64_t) runs.n * GDB_BATCH_ALIGN),
				GDB_BLOCK, 0, r->ex->stream>>>(d_res, runs);
			GDB_CUDA_CHECK_LAUNCH(err, "gdb_zero_padding_kernel");
			runs.n = 0;
		}
	}
	return GDB_OK;
}

/* gdb_result_finish: see cuda_exec.cuh. */
int
gdb_result_finish(GdbRun *r, GdbBatch *host, const char *d_res, GdbError *err)
{
	uint64_t	hdr = gdb_align_up(sizeof(GdbBatch));

	if (host == &r->order_hdr)
		return gdb_phase_end(r, err);	/* ordered: gdb_order_groups goes on */
	if (d_res != NULL && host->total_bytes > hdr)
		GDB_TRY(gdb_result_zero_padding(r, host, (char *) d_res, err));
	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_TRANSFER_OUT, err));
	if (d_res != NULL && d_res == r->ex->kept)
	{
		/* kept on the device: its header joins it there, nothing comes back */
		GDB_CUDA_CHECK(err, cudaMemcpyAsync((char *) d_res, host, sizeof(GdbBatch),
											cudaMemcpyHostToDevice, r->ex->stream));
		GDB_CUDA_CHECK(err, cudaStreamSynchronize(r->ex->stream));
		r->to_device += sizeof(GdbBatch);
		r->ex->kept_done = 1;
		return gdb_phase_end(r, err);
	}
	if (host->total_bytes > hdr)
	{
		GDB_TRY(gdb_copy_out(r->ex, (char *) host + hdr, d_res + hdr,
							 host->total_bytes - hdr, err));
		r->from_device += host->total_bytes - hdr;
	}
	return gdb_phase_end(r, err);
}

