/*-------------------------------------------------------------------------
 *
 * kept_result.cu
 *	  Results kept in device memory (gdb_cuda_keep_result and the
 *	  GdbDeviceBuffer functions of gpudb_device.h): the GPU server keeps a
 *	  GpudbJoin's build side, answered from the column cache, where the
 *	  device produced it, so that neither the build side's copy back to the
 *	  host nor its copy to the device again for the probe's hash table
 *	  crosses PCIe (hash_join.cu reads it through
 *	  GdbRequest.build_sides_dev).  No PostgreSQL header.
 *
 * gdb_result_alloc (groupby_kernels.cu) lays such a result out in an
 * allocation of its own (gdb_kept_result_alloc) instead of the RESULT
 * scratch, and gdb_result_finish writes the host's header in front of it
 * instead of copying the arrays back.  A buffer remembers the device
 * ordinal and reset epoch it was made in: after a reset
 * (gdb_cuda_recover) its address is gone and freeing it releases host
 * memory only.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_exec.cuh"

/*
 * Check a CUDA call inside a do { } while (0) that frees temporaries after
 * it: on failure, rc gets its status and the loop is left (no do-while of
 * its own here, so that the break leaves the caller's).
 */
#define GDB_CUDA_CHECK_BREAK(rc, err, call) \
	if (1) { \
		cudaError_t gdb_rc_ = (call); \
		if (gdb_rc_ != cudaSuccess) \
		{ \
			(rc) = gdb_cuda_fail((err), #call, gdb_rc_); \
			break; \
		} \
	} else (void) 0

struct GdbDeviceBuffer
{
	void	   *ptr;			/* device address, header first */
	size_t		bytes;
	int			ordinal;
	uint32_t	epoch;			/* gdb_cuda_epoch(ordinal) when made */
};

/* Is buf's allocation still there (no reset of its device since)? */
static bool
gdb_buffer_live(const GdbDeviceBuffer *buf)
{
	return buf != NULL && buf->ptr != NULL && buf->epoch == gdb_cuda_epoch(buf->ordinal);
}

/* Free the result ex kept and nobody took. */
static void
gdb_kept_drop(GdbCudaExec *ex)
{
	if (ex->kept != NULL && ex->epoch == gdb_cuda_epoch(ex->ordinal))
	{
		cudaSetDevice(ex->ordinal);
		(void) cudaFree(ex->kept);
	}
	free(ex->kept_buf);
	ex->kept = NULL;
	ex->kept_buf = NULL;
	ex->kept_bytes = 0;
	ex->kept_done = 0;
}

/* gdb_kept_result_alloc: see cuda_exec.cuh. */
char *
gdb_kept_result_alloc(GdbCudaExec *ex, size_t total)
{
	GdbDeviceBuffer *buf;
	void	   *p = NULL;

	if (!ex->keep_result || ex->kept != NULL ||
		(ex->keep_result > 1 && total < (size_t) ex->keep_result))
		return NULL;
	/* the handle first: once the result is there, taking it cannot fail */
	buf = (GdbDeviceBuffer *) malloc(sizeof(GdbDeviceBuffer));
	if (buf == NULL)
		return NULL;
	if (cudaMalloc(&p, total) != cudaSuccess)
	{
		(void) cudaGetLastError();	/* not sticky: the scratch path goes on */
		free(buf);
		return NULL;
	}
	buf->ptr = p;
	buf->bytes = total;
	buf->ordinal = ex->ordinal;
	buf->epoch = ex->epoch;
	ex->kept = p;
	ex->kept_buf = buf;
	ex->kept_bytes = total;
	ex->kept_done = 0;
	return (char *) p;
}

/* gdb_buffer_source: see cuda_exec.cuh. */
bool
gdb_buffer_source(const GdbDeviceBuffer *buf, const void **ptr, int *ordinal)
{
	if (!gdb_buffer_live(buf))
		return false;
	*ptr = buf->ptr;
	*ordinal = buf->ordinal;
	return true;
}

/* gdb_cuda_keep_result: see gpudb_device.h. */
extern "C" void
gdb_cuda_keep_result(GdbCudaExec *exec, int on)
{
	if (exec == NULL)
		return;
	gdb_kept_drop(exec);
	exec->keep_result = on > 0 ? on : 0;
}

/* gdb_cuda_take_result: see gpudb_device.h. */
extern "C" GdbDeviceBuffer *
gdb_cuda_take_result(GdbCudaExec *exec)
{
	GdbDeviceBuffer *buf;

	if (exec == NULL || exec->kept == NULL)
		return NULL;
	if (!exec->kept_done)
	{
		gdb_kept_drop(exec);
		return NULL;
	}
	buf = exec->kept_buf;
	exec->kept = NULL;
	exec->kept_buf = NULL;
	exec->kept_bytes = 0;
	exec->kept_done = 0;
	return buf;
}

/* gdb_cuda_buffer_address: see gpudb_device.h. */
extern "C" const void *
gdb_cuda_buffer_address(const GdbDeviceBuffer *buf)
{
	return gdb_buffer_live(buf) ? buf->ptr : NULL;
}

/* gdb_cuda_buffer_to_host: see gpudb_device.h. */
extern "C" int
gdb_cuda_buffer_to_host(GdbCudaExec *exec, const GdbDeviceBuffer *buf,
						GdbBatch *host, GdbError *err)
{
	size_t		hdr = (size_t) gdb_align_up(sizeof(GdbBatch));

	GDB_TRY(gdb_cuda_check_exec(exec, "gdb_cuda_buffer_to_host", err));
	if (!gdb_buffer_live(buf))
		return gdb_error_set(err, GDB_ERR_DEVICE,
							 "a result kept on the device was lost in a device reset");
	if (buf->bytes > hdr)
	{
		GDB_CUDA_CHECK(err, cudaMemcpyAsync((char *) host + hdr, (const char *) buf->ptr + hdr,
											buf->bytes - hdr, cudaMemcpyDeviceToHost,
											exec->stream));
		GDB_CUDA_CHECK(err, cudaStreamSynchronize(exec->stream));
	}
	return GDB_OK;
}

/*
 * gdb_codes_present_kernel: bit v of words for every value v in [0,
 * ncodes) of rows [0, nrows) whose NULL flag (nulls, or none) is clear.
 */
__global__ void
gdb_codes_present_kernel(const int64_t *vals, const uint8_t *nulls, uint64_t nrows,
						 uint64_t ncodes, unsigned int *words)
{
	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; row < nrows;
		 row += (uint64_t) gridDim.x * blockDim.x)
	{
		int64_t		v = vals[row];

		if ((nulls == NULL || !nulls[row]) && v >= 0 && (uint64_t) v < ncodes)
			atomicOr(&words[v / 32], 1u << (v % 32));
	}
}

/*
 * gdb_recode_kernel: each value of a row not NULL found in from[0, n)
 * (ascending; binary search) replaced by the to of its position.
 */
__global__ void
gdb_recode_kernel(int64_t *vals, const uint8_t *nulls, uint64_t nrows,
				  const int64_t *from, const int64_t *to, uint64_t n)
{
	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; row < nrows;
		 row += (uint64_t) gridDim.x * blockDim.x)
	{
		int64_t		v = vals[row];
		uint64_t	lo = 0,
					hi = n;

		if (nulls != NULL && nulls[row])
			continue;
		while (lo < hi)
		{
			uint64_t	mid = lo + (hi - lo) / 2;

			if (from[mid] < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && from[lo] == v)
			vals[row] = to[lo];
	}
}

/* Check buf, col against hdr before a kernel reads buf's column col. */
static int
gdb_buffer_col_ok(GdbCudaExec *exec, const GdbDeviceBuffer *buf, const GdbBatch *hdr,
				  uint32_t col, const char *what, GdbError *err)
{
	GDB_TRY(gdb_cuda_check_exec(exec, what, err));
	if (!gdb_buffer_live(buf))
		return gdb_error_set(err, GDB_ERR_DEVICE,
							 "a result kept on the device was lost in a device reset");
	if (col >= hdr->ncols || hdr->total_bytes > buf->bytes ||
		hdr->cols[col].kind != GDB_KIND_INT64)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "%s: column %u is not an INT64 column of the kept result",
							 what, (unsigned) col);
	return GDB_OK;
}

/* gdb_cuda_buffer_codes: see gpudb_device.h. */
extern "C" int
gdb_cuda_buffer_codes(GdbCudaExec *exec, const GdbDeviceBuffer *buf,
					  const GdbBatch *hdr, uint32_t col, uint64_t ncodes,
					  uint8_t *bitmap, GdbError *err)
{
	size_t		nwords = (size_t) ((ncodes + 31) / 32);
	unsigned int *d_words = NULL;
	unsigned int *words;
	int			rc = GDB_OK;

	GDB_TRY(gdb_buffer_col_ok(exec, buf, hdr, col, "gdb_cuda_buffer_codes", err));
	if (ncodes == 0 || hdr->nrows == 0)
		return GDB_OK;
	words = (unsigned int *) malloc(nwords * sizeof(unsigned int));
	if (words == NULL)
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "out of memory for a bitmap of %llu codes",
							 (unsigned long long) ncodes);
	if (cudaMalloc((void **) &d_words, nwords * sizeof(unsigned int)) != cudaSuccess)
	{
		(void) cudaGetLastError();
		free(words);
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "out of device memory for a bitmap of %llu codes",
							 (unsigned long long) ncodes);
	}
	do
	{
		GDB_CUDA_CHECK_BREAK(rc, err, cudaMemsetAsync(d_words, 0, nwords * sizeof(unsigned int),
													  exec->stream));
		gdb_codes_present_kernel<<<gdb_blocks(exec, hdr->nrows), GDB_BLOCK, 0, exec->stream>>>(
			GDB_COL_PTR(buf->ptr, hdr, col, const int64_t),
			GDB_NULL_PTR(buf->ptr, hdr, col), hdr->nrows, ncodes, d_words);
		GDB_CUDA_CHECK_BREAK(rc, err, cudaGetLastError());
		GDB_CUDA_CHECK_BREAK(rc, err, cudaMemcpyAsync(words, d_words, nwords * sizeof(unsigned int),
													  cudaMemcpyDeviceToHost, exec->stream));
		GDB_CUDA_CHECK_BREAK(rc, err, cudaStreamSynchronize(exec->stream));
		for (uint64_t c = 0; c < ncodes; c++)
			if (words[c / 32] & (1u << (c % 32)))
				bitmap[c / 8] |= (uint8_t) (1u << (c % 8));
	} while (0);
	(void) cudaFree(d_words);
	free(words);
	return rc;
}

/* gdb_cuda_buffer_recode: see gpudb_device.h. */
extern "C" int
gdb_cuda_buffer_recode(GdbCudaExec *exec, const GdbDeviceBuffer *buf,
					   const GdbBatch *hdr, uint32_t col, const int64_t *from,
					   const int64_t *to, uint64_t n, GdbError *err)
{
	int64_t    *d_map = NULL;
	int			rc = GDB_OK;

	GDB_TRY(gdb_buffer_col_ok(exec, buf, hdr, col, "gdb_cuda_buffer_recode", err));
	if (n == 0 || hdr->nrows == 0)
		return GDB_OK;
	if (cudaMalloc((void **) &d_map, (size_t) n * 2 * sizeof(int64_t)) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "out of device memory for a map of %llu codes",
							 (unsigned long long) n);
	}
	do
	{
		GDB_CUDA_CHECK_BREAK(rc, err, cudaMemcpyAsync(d_map, from, (size_t) n * sizeof(int64_t),
													  cudaMemcpyHostToDevice, exec->stream));
		GDB_CUDA_CHECK_BREAK(rc, err, cudaMemcpyAsync(d_map + n, to, (size_t) n * sizeof(int64_t),
													  cudaMemcpyHostToDevice, exec->stream));
		gdb_recode_kernel<<<gdb_blocks(exec, hdr->nrows), GDB_BLOCK, 0, exec->stream>>>(
			GDB_COL_PTR(buf->ptr, hdr, col, int64_t), GDB_NULL_PTR(buf->ptr, hdr, col),
			hdr->nrows, d_map, d_map + n, n);
		GDB_CUDA_CHECK_BREAK(rc, err, cudaGetLastError());
		GDB_CUDA_CHECK_BREAK(rc, err, cudaStreamSynchronize(exec->stream));
	} while (0);
	(void) cudaFree(d_map);
	return rc;
}

/* gdb_cuda_buffer_free: see gpudb_device.h. */
extern "C" void
gdb_cuda_buffer_free(GdbDeviceBuffer *buf)
{
	if (buf == NULL)
		return;
	if (gdb_buffer_live(buf))
	{
		cudaSetDevice(buf->ordinal);
		(void) cudaFree(buf->ptr);
	}
	free(buf);
}
