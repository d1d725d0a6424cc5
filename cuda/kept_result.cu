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
 * gdb_result_alloc (result_batch.cu) lays such a result out in an
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
 * A translation of one dictionary's codes into another's, kept on the
 * device (gdb_cuda_code_map_*, gpudb_device.h): codes[c] is the other
 * dictionary's code of code c, -1 while unknown; missing is a bitmap of
 * the codes a call found unknown, count their number.  One allocation
 * holds the three.
 */
struct GdbDeviceCodeMap
{
	unsigned long long *count;	/* the allocation's start */
	int64_t    *codes;			/* cap entries */
	unsigned int *missing;		/* (cap + 31) / 32 words */
	uint64_t	cap;
	int			ordinal;
	uint32_t	epoch;			/* gdb_cuda_epoch(ordinal) when made */
};

/*
 * Bytes of a map of cap codes: the counter, then the codes, then the
 * bitmap, so that the 8-byte counter and codes are 8-byte aligned (a
 * bitmap of an odd number of words in front of the counter put it on a
 * 4-byte boundary: a misaligned atomic).
 */
static size_t
gdb_code_map_bytes(uint64_t cap)
{
	return sizeof(unsigned long long) + (size_t) cap * sizeof(int64_t) +
		(size_t) ((cap + 31) / 32) * sizeof(unsigned int);
}

/* Is map's allocation still there, on exec's device? */
static bool
gdb_code_map_live(const GdbDeviceCodeMap *map, const GdbCudaExec *exec)
{
	return map != NULL && map->codes != NULL && map->ordinal == exec->ordinal &&
		map->epoch == gdb_cuda_epoch(map->ordinal);
}

/*
 * Make *map (anew when absent, lost or on another device) hold at least
 * ncodes entries: grown by a quarter at least, its translations copied,
 * the new entries -1.
 */
static int
gdb_code_map_reserve(GdbCudaExec *exec, GdbDeviceCodeMap **map, uint64_t ncodes, GdbError *err)
{
	GdbDeviceCodeMap *m = *map;
	uint64_t	keep = 0;
	uint64_t	cap;
	char	   *p = NULL;
	int			rc = GDB_OK;

	if (m != NULL && !gdb_code_map_live(m, exec))
	{
		gdb_cuda_code_map_free(m);
		*map = m = NULL;
	}
	if (m != NULL && m->cap >= ncodes)
		return GDB_OK;
	if (m == NULL)
	{
		m = (GdbDeviceCodeMap *) calloc(1, sizeof(GdbDeviceCodeMap));
		if (m == NULL)
			return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY, "out of memory for a code map");
		*map = m;
	}
	else
		keep = m->cap;
	cap = keep + keep / 4 > ncodes ? keep + keep / 4 : ncodes;
	if (cudaMalloc((void **) &p, gdb_code_map_bytes(cap)) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "out of device memory for a map of %llu codes",
							 (unsigned long long) cap);
	}
	do
	{
		char	   *codes = p + sizeof(unsigned long long);

		if (keep > 0)
			GDB_CUDA_CHECK_BREAK(rc, err, cudaMemcpyAsync(codes, m->codes, (size_t) keep * sizeof(int64_t),
														  cudaMemcpyDeviceToDevice, exec->stream));
		/* all ones: -1 */
		GDB_CUDA_CHECK_BREAK(rc, err, cudaMemsetAsync(codes + keep * sizeof(int64_t), 0xff,
													  (size_t) (cap - keep) * sizeof(int64_t),
													  exec->stream));
		GDB_CUDA_CHECK_BREAK(rc, err, cudaStreamSynchronize(exec->stream));
	} while (0);
	if (rc != GDB_OK)
	{
		(void) cudaFree(p);
		return rc;
	}
	if (m->count != NULL)
		(void) cudaFree(m->count);
	m->count = (unsigned long long *) p;
	m->codes = (int64_t *) (p + sizeof(unsigned long long));
	m->missing = (unsigned int *) (p + sizeof(unsigned long long) + (size_t) cap * sizeof(int64_t));
	m->cap = cap;
	m->ordinal = exec->ordinal;
	m->epoch = exec->epoch;
	return GDB_OK;
}

/*
 * gdb_code_map_missing_kernel: bit v of missing for every value v in [0,
 * ncodes) of a row not NULL (nulls, or none) that codes does not
 * translate, *count incremented once per bit set.  The plain read first
 * spares the atomic to the rows of a code already marked.
 */
__global__ void
gdb_code_map_missing_kernel(const int64_t *vals, const uint8_t *nulls, uint64_t nrows,
							uint64_t ncodes, const int64_t *codes, unsigned int *missing,
							unsigned long long *count)
{
	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; row < nrows;
		 row += (uint64_t) gridDim.x * blockDim.x)
	{
		int64_t		v = vals[row];
		unsigned int bit;

		if ((nulls != NULL && nulls[row]) || v < 0 || (uint64_t) v >= ncodes || codes[v] >= 0)
			continue;
		bit = 1u << (v % 32);
		if ((missing[v / 32] & bit) == 0 && (atomicOr(&missing[v / 32], bit) & bit) == 0)
			atomicAdd(count, 1ULL);
	}
}

/* gdb_code_map_set_kernel: codes[from[i]] = to[i] for i < n. */
__global__ void
gdb_code_map_set_kernel(int64_t *codes, const int64_t *from, const int64_t *to, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		codes[from[i]] = to[i];
}

/*
 * gdb_code_map_apply_kernel: each value v in [0, ncodes) of a row not NULL
 * replaced by codes[v] where that is known (a gather).
 */
__global__ void
gdb_code_map_apply_kernel(int64_t *vals, const uint8_t *nulls, uint64_t nrows,
						  const int64_t *codes, uint64_t ncodes)
{
	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; row < nrows;
		 row += (uint64_t) gridDim.x * blockDim.x)
	{
		int64_t		v = vals[row];

		if ((nulls != NULL && nulls[row]) || v < 0 || (uint64_t) v >= ncodes)
			continue;
		if (codes[v] >= 0)
			vals[row] = codes[v];
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

/* gdb_cuda_code_map_missing: see gpudb_device.h. */
extern "C" int
gdb_cuda_code_map_missing(GdbCudaExec *exec, GdbDeviceCodeMap **map, uint64_t ncodes,
						  const GdbDeviceBuffer *buf, const GdbBatch *hdr,
						  const uint32_t *cols, uint32_t ncols, GdbAllocFn alloc,
						  void *alloc_arg, int64_t **missing, uint64_t *nmissing,
						  GdbError *err)
{
	GdbDeviceCodeMap *m;
	unsigned long long count = 0;
	size_t		nwords = (size_t) ((ncodes + 31) / 32);
	unsigned int *words;
	uint64_t	n = 0;
	uint32_t	i;

	*missing = NULL;
	*nmissing = 0;
	for (i = 0; i < ncols; i++)
		GDB_TRY(gdb_buffer_col_ok(exec, buf, hdr, cols[i], "gdb_cuda_code_map_missing", err));
	if (ncodes == 0 || hdr->nrows == 0 || ncols == 0)
		return GDB_OK;
	GDB_TRY(gdb_code_map_reserve(exec, map, ncodes, err));
	m = *map;
	GDB_CUDA_CHECK(err, cudaMemsetAsync(m->missing, 0, nwords * sizeof(unsigned int), exec->stream));
	GDB_CUDA_CHECK(err, cudaMemsetAsync(m->count, 0, sizeof(unsigned long long), exec->stream));
	for (i = 0; i < ncols; i++)
		gdb_code_map_missing_kernel<<<gdb_blocks(exec, hdr->nrows), GDB_BLOCK, 0, exec->stream>>>(
			GDB_COL_PTR(buf->ptr, hdr, cols[i], const int64_t),
			GDB_NULL_PTR(buf->ptr, hdr, cols[i]), hdr->nrows, ncodes, m->codes, m->missing,
			m->count);
	GDB_CUDA_CHECK(err, cudaGetLastError());
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(&count, m->count, sizeof(count), cudaMemcpyDeviceToHost,
										exec->stream));
	GDB_CUDA_CHECK(err, cudaStreamSynchronize(exec->stream));
	if (count == 0)
		return GDB_OK;
	words = (unsigned int *) malloc(nwords * sizeof(unsigned int));
	*missing = (int64_t *) alloc(alloc_arg, (size_t) count * sizeof(int64_t));
	if (words == NULL || *missing == NULL)
	{
		free(words);
		*missing = NULL;		/* (alloc's memory is its owner's) */
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "out of memory for %llu codes to translate", count);
	}
	if (cudaMemcpyAsync(words, m->missing, nwords * sizeof(unsigned int),
						cudaMemcpyDeviceToHost, exec->stream) != cudaSuccess ||
		cudaStreamSynchronize(exec->stream) != cudaSuccess)
	{
		free(words);
		*missing = NULL;
		return gdb_cuda_fail(err, "cudaMemcpyAsync", cudaGetLastError());
	}
	/* ascending, a word at a time: most words are empty */
	for (size_t w = 0; w < nwords && n < count; w++)
		for (unsigned int bits = words[w]; bits != 0; bits &= bits - 1)
			(*missing)[n++] = (int64_t) (w * 32 + (unsigned) __builtin_ctz(bits));
	free(words);
	*nmissing = n;
	return GDB_OK;
}

/* gdb_cuda_code_map_apply: see gpudb_device.h. */
extern "C" int
gdb_cuda_code_map_apply(GdbCudaExec *exec, GdbDeviceCodeMap *map, const int64_t *from,
						const int64_t *to, uint64_t n, const GdbDeviceBuffer *buf,
						const GdbBatch *hdr, const uint32_t *cols, uint32_t ncols,
						GdbError *err)
{
	int64_t    *d_pairs = NULL;
	int			rc = GDB_OK;
	uint32_t	i;

	for (i = 0; i < ncols; i++)
		GDB_TRY(gdb_buffer_col_ok(exec, buf, hdr, cols[i], "gdb_cuda_code_map_apply", err));
	if (hdr->nrows == 0 || ncols == 0)
		return GDB_OK;
	/* an empty dictionary: no map was made, and no row holds a code */
	if (map == NULL && n == 0)
		return GDB_OK;
	if (!gdb_code_map_live(map, exec))
		return gdb_error_set(err, GDB_ERR_DEVICE, "a code map was lost in a device reset");
	for (uint64_t k = 0; k < n; k++)
		if (from[k] < 0 || (uint64_t) from[k] >= map->cap)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "code %lld is outside a code map of %llu codes",
								 (long long) from[k], (unsigned long long) map->cap);
	do
	{
		if (n > 0)
		{
			if (cudaMalloc((void **) &d_pairs, (size_t) n * 2 * sizeof(int64_t)) != cudaSuccess)
			{
				(void) cudaGetLastError();
				rc = gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
								   "out of device memory for %llu translated codes",
								   (unsigned long long) n);
				break;
			}
			GDB_CUDA_CHECK_BREAK(rc, err, cudaMemcpyAsync(d_pairs, from, (size_t) n * sizeof(int64_t),
														  cudaMemcpyHostToDevice, exec->stream));
			GDB_CUDA_CHECK_BREAK(rc, err, cudaMemcpyAsync(d_pairs + n, to, (size_t) n * sizeof(int64_t),
														  cudaMemcpyHostToDevice, exec->stream));
			gdb_code_map_set_kernel<<<gdb_blocks(exec, n), GDB_BLOCK, 0, exec->stream>>>(
				map->codes, d_pairs, d_pairs + n, n);
			GDB_CUDA_CHECK_BREAK(rc, err, cudaGetLastError());
		}
		for (i = 0; i < ncols; i++)
			gdb_code_map_apply_kernel<<<gdb_blocks(exec, hdr->nrows), GDB_BLOCK, 0, exec->stream>>>(
				GDB_COL_PTR(buf->ptr, hdr, cols[i], int64_t), GDB_NULL_PTR(buf->ptr, hdr, cols[i]),
				hdr->nrows, map->codes, map->cap);
		GDB_CUDA_CHECK_BREAK(rc, err, cudaGetLastError());
		GDB_CUDA_CHECK_BREAK(rc, err, cudaStreamSynchronize(exec->stream));
	} while (0);
	if (d_pairs != NULL)
		(void) cudaFree(d_pairs);
	return rc;
}

/* gdb_cuda_code_map_free: see gpudb_device.h. */
extern "C" void
gdb_cuda_code_map_free(GdbDeviceCodeMap *map)
{
	if (map == NULL)
		return;
	if (map->count != NULL && map->epoch == gdb_cuda_epoch(map->ordinal))
	{
		cudaSetDevice(map->ordinal);
		(void) cudaFree(map->count);	/* the allocation's start */
	}
	free(map);
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
