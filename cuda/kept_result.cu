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
	ex->kept = NULL;
	ex->kept_bytes = 0;
	ex->kept_done = 0;
}

/* gdb_kept_result_alloc: see cuda_exec.cuh. */
char *
gdb_kept_result_alloc(GdbCudaExec *ex, size_t total)
{
	void	   *p = NULL;

	if (!ex->keep_result || ex->kept != NULL)
		return NULL;
	if (cudaMalloc(&p, total) != cudaSuccess)
	{
		(void) cudaGetLastError();	/* not sticky: the scratch path goes on */
		return NULL;
	}
	ex->kept = p;
	ex->kept_bytes = total;
	ex->kept_done = 0;
	return (char *) p;
}

/* gdb_cuda_keep_result: see gpudb_device.h. */
extern "C" void
gdb_cuda_keep_result(GdbCudaExec *exec, int on)
{
	if (exec == NULL)
		return;
	gdb_kept_drop(exec);
	exec->keep_result = on != 0;
}

/* gdb_cuda_take_result: see gpudb_device.h. */
extern "C" GdbDeviceBuffer *
gdb_cuda_take_result(GdbCudaExec *exec)
{
	GdbDeviceBuffer *buf;

	if (exec == NULL || exec->kept == NULL)
		return NULL;
	if (!exec->kept_done || (buf = (GdbDeviceBuffer *) malloc(sizeof(GdbDeviceBuffer))) == NULL)
	{
		gdb_kept_drop(exec);
		return NULL;
	}
	buf->ptr = exec->kept;
	buf->bytes = exec->kept_bytes;
	buf->ordinal = exec->ordinal;
	buf->epoch = exec->epoch;
	exec->kept = NULL;
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
