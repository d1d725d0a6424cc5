/*-------------------------------------------------------------------------
 *
 * column_store.cu
 *	  The column store of gpudb_device.h on a CUDA device
 *	  (gdb_cuda_store_*): a relation's columns resident in device memory,
 *	  appended to batch by batch and grouped without copying them again.
 *	  gdb_store_rows / gdb_store_bytes, shared with the CPU store, are in
 *	  src/cpu/cpu_store.c.  No PostgreSQL header.
 *
 * Layout (struct GdbStore, src/column_store.h): one device buffer in the
 * GdbBatch layout of header.capacity rows, whose first sizeof(GdbBatch)
 * bytes hold the header (the filter kernel reads column offsets there), and
 * a host copy of that header in the struct, so offsets and row counts are
 * known without a copy back.  The device header is rewritten after every
 * append, so the buffer is always a valid batch of header.nrows rows.
 *
 * Append: every column's new rows (values, and NULL flags when the column
 * has them) are copied by cudaMemcpyAsync on the exec's stream to row
 * offset nrows of the column's array, then the header; the call waits for
 * the stream.  When the rows do not fit, the buffer first grows by doubling
 * its capacity (if that cudaMalloc fails, exactly the needed rows are
 * tried): cudaMalloc of the new layout, device-to-device copies of each
 * column's used part, the new header, a wait, cudaFree of the old buffer.
 * Old and new buffers coexist while copying.  A failure before the store's
 * header is updated leaves the store as it was.
 *
 * Group-by: gdb_groupby_on_device (groupby_kernels.cu) over the resident
 * buffer: Phase A starts at the filter, nothing of the store is copied.
 *
 * Scatter: rows and vals are copied into the exec's GDB_SCR_TEMP scratch
 * slot (vals first, then rows; the slot only holds CUB temporary storage
 * within one group-by call, so nothing relies on it between calls) and
 * gdb_scatter_int64_kernel writes them into the column; the call waits for
 * the stream.  The device header is not touched (nrows is unchanged).
 *
 * Row ids of the device group-by are uint32, so a CUDA store holds at most
 * UINT32_MAX rows.  A store belongs to the device its exec was opened on,
 * and to that device's reset epoch (gdb_cuda_recover).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_exec.cuh"

/*
 * The last store generation handed out (GdbStore.gen): every creation and
 * every change of a store's rows takes the next one, so a generation names
 * one content of one buffer for the life of the process (64 bits: never
 * wraps).  Freeing needs none: the next store made, at whatever address,
 * takes a new one.
 */
static uint64_t gdb_store_gen_last = 0;

static uint64_t
gdb_store_next_gen(void)
{
	return __atomic_add_fetch(&gdb_store_gen_last, 1, __ATOMIC_RELAXED);
}

/* Was store's device reset (gdb_cuda_recover) since the store was made? */
static bool
gdb_store_lost(const GdbStore *store)
{
	return store->epoch != gdb_cuda_epoch(store->ordinal);
}

/*
 * Common checks of the store operations: store is a live CUDA store, exec
 * a live exec on the store's device (made current).  GDB_OK,
 * GDB_ERR_BAD_REQUEST or GDB_ERR_DEVICE (lost in a reset).
 */
static int
gdb_store_check(GdbCudaExec *exec, const GdbStore *store, const char *what,
				GdbError *err)
{
	if (store == NULL || !store->on_device)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST, "%s: %s", what,
							  store ? "not a CUDA store" : "store is NULL");
	if (gdb_store_lost(store))
		return gdb_error_set(err, GDB_ERR_DEVICE,
							  "%s: CUDA device %d was reset; this column store is lost",
							  what, store->ordinal);
	GDB_TRY(gdb_cuda_check_exec(exec, what, err));
	if (exec->ordinal != store->ordinal)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							  "%s: the store is on CUDA device %d, the execution state on %d",
							  what, store->ordinal, exec->ordinal);
	return GDB_OK;
}

static void
gdb_store_set_ok(GdbError *err)
{
	if (err)
	{
		err->status = GDB_OK;
		err->message[0] = '\0';
	}
}

/*
 * cudaMalloc for a store's buffer; when the device is out of memory, the
 * execution state's scratch buffers (kept between requests, none in use
 * by a store request) are freed and the allocation tried once more, so
 * that an earlier large query's scratch never keeps a cache load out.
 */
static cudaError_t
gdb_store_malloc(GdbCudaExec *exec, void **ptr, size_t bytes)
{
	cudaError_t rc = cudaMalloc(ptr, bytes);

	if (rc == cudaErrorMemoryAllocation && gdb_cuda_scratch_bytes(exec) > 0)
	{
		(void) cudaGetLastError();
		(void) gdb_cuda_release_scratch(exec, 0);
		rc = cudaMalloc(ptr, bytes);
	}
	return rc;
}

/*
 * gdb_cuda_store_create: see gpudb_device.h.  Allocates (cudaMalloc) a
 * device buffer laid out for ncols columns (INT64/FLOAT64, NULL flags 0/1)
 * and capacity rows (0: GDB_STORE_DEFAULT_CAPACITY), writes its header
 * and waits for that copy.  The store lives on exec's device; exec is only
 * used for its stream here.  Errors: GDB_ERR_BAD_REQUEST (store or exec
 * NULL, bad layout, capacity over UINT32_MAX rows), GDB_ERR_OUT_OF_MEMORY
 * (host or device allocation), GDB_ERR_DEVICE (a CUDA failure, or exec lost
 * in a device reset).  On error *store is NULL and nothing is leaked.
 */
extern "C" int
gdb_cuda_store_create(GdbCudaExec *exec, uint32_t ncols, const uint32_t *kinds,
					  const uint32_t *has_nulls, uint64_t capacity,
					  GdbStore **store, GdbError *err)
{
	GdbStore   *s;
	void	   *buf = NULL;
	uint64_t	total;
	cudaError_t rc;

	if (store == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							  "gdb_cuda_store_create: store must not be NULL");
	*store = NULL;
	GDB_TRY(gdb_store_layout_check(ncols, kinds, has_nulls, err));
	if (capacity == 0)
		capacity = GDB_STORE_DEFAULT_CAPACITY;
	if (capacity > (uint64_t) UINT32_MAX)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							  "CUDA column store capacity %llu exceeds %u rows",
							  (unsigned long long) capacity, (unsigned) UINT32_MAX);
	GDB_TRY(gdb_cuda_check_exec(exec, "gdb_cuda_store_create", err));
	s = (GdbStore *) calloc(1, sizeof(GdbStore));
	if (s == NULL)
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							  "out of host memory for a CUDA column store");
	total = gdb_batch_layout(&s->header, ncols, kinds, has_nulls, capacity);
	rc = gdb_store_malloc(exec, &buf, (size_t) total);
	if (rc == cudaSuccess)
		rc = cudaMemcpyAsync(buf, &s->header, sizeof(GdbBatch),
							 cudaMemcpyHostToDevice, exec->stream);
	if (rc == cudaSuccess)
		rc = cudaStreamSynchronize(exec->stream);
	if (rc != cudaSuccess)
	{
		int			st = gdb_cuda_fail(err, rc == cudaErrorMemoryAllocation ?
									   "cudaMalloc" : "cudaMemcpyAsync", rc);

		if (rc == cudaErrorMemoryAllocation && err)
			snprintf(err->message, sizeof(err->message),
					 "out of device memory for a CUDA column store of %llu bytes",
					 (unsigned long long) total);
		if (buf)
			(void) cudaFree(buf);
		(void) cudaGetLastError();
		free(s);
		return st;
	}
	s->on_device = 1;
	s->ordinal = exec->ordinal;
	s->epoch = exec->epoch;
	s->buf = (GdbBatch *) buf;
	s->gen = gdb_store_next_gen();
	*store = s;
	gdb_store_set_ok(err);
	return GDB_OK;
}

/*
 * Grow store to hold need rows (need > capacity, need <= UINT32_MAX):
 * new buffer of the doubled capacity (exactly need rows if that does not
 * fit), each column's stored rows copied device to device, the stream
 * waited for, the old buffer freed.  The store is changed only on GDB_OK.
 * The new buffer's device header is left for the caller to write (the
 * append writes it after its rows; on failure it restores it).
 */
static int
gdb_cuda_store_grow(GdbCudaExec *exec, GdbStore *store, uint64_t need,
					GdbError *err)
{
	const GdbBatch *h = &store->header;
	cudaStream_t s = exec->stream;
	uint64_t	cap = gdb_store_grown_capacity(h->capacity, need);
	uint64_t	total;
	GdbBatch	nh;
	char	   *nb = NULL;
	cudaError_t rc;
	uint32_t	c;

	if (cap > (uint64_t) UINT32_MAX)
		cap = UINT32_MAX;
	total = gdb_store_relayout(&nh, h, cap);
	rc = gdb_store_malloc(exec, (void **) &nb, (size_t) total);
	if (rc == cudaErrorMemoryAllocation && cap > need)
	{
		(void) cudaGetLastError();
		total = gdb_store_relayout(&nh, h, need);
		rc = gdb_store_malloc(exec, (void **) &nb, (size_t) total);
	}
	if (rc != cudaSuccess)
	{
		int			st = gdb_cuda_fail(err, "cudaMalloc", rc);

		if (st == GDB_ERR_OUT_OF_MEMORY && err)
			snprintf(err->message, sizeof(err->message),
					 "out of device memory growing a CUDA column store of %llu bytes to %llu rows (%llu bytes)",
					 (unsigned long long) h->total_bytes, (unsigned long long) need,
					 (unsigned long long) total);
		return st;
	}
	for (c = 0; c < h->ncols && rc == cudaSuccess; c++)
	{
		uint64_t	w = gdb_kind_width(h->cols[c].kind);

		if (h->nrows == 0)
			break;
		rc = cudaMemcpyAsync(nb + nh.cols[c].values_off,
							 (const char *) store->buf + h->cols[c].values_off,
							 (size_t) (h->nrows * w), cudaMemcpyDeviceToDevice, s);
		if (rc == cudaSuccess && h->cols[c].has_nulls)
			rc = cudaMemcpyAsync(nb + nh.cols[c].nulls_off,
								 (const char *) store->buf + h->cols[c].nulls_off,
								 (size_t) h->nrows, cudaMemcpyDeviceToDevice, s);
	}
	if (rc == cudaSuccess)
		rc = cudaStreamSynchronize(s);
	if (rc != cudaSuccess)
	{
		int			st = gdb_cuda_fail(err, "cudaMemcpyAsync", rc);

		(void) cudaStreamSynchronize(s);
		(void) cudaFree(nb);
		(void) cudaGetLastError();
		return st;
	}
	(void) cudaFree(store->buf);	/* a failure here only leaks */
	(void) cudaGetLastError();
	store->buf = (GdbBatch *) nb;
	store->header = nh;
	store->gen = gdb_store_next_gen();	/* a new buffer */
	return GDB_OK;
}

/* Queue the copies of batch's rows behind the stored ones and the header. */
static int
gdb_cuda_store_copy_in(GdbCudaExec *exec, GdbStore *store, const GdbBatch *batch,
					   const GdbBatch *nh, uint64_t *bytes, GdbError *err)
{
	const GdbBatch *h = &store->header;
	char	   *base = (char *) store->buf;
	cudaStream_t s = exec->stream;
	uint64_t	n = batch->nrows;
	uint32_t	c;

	for (c = 0; c < h->ncols; c++)
	{
		uint64_t	w = gdb_kind_width(h->cols[c].kind);

		GDB_CUDA_CHECK(err, cudaMemcpyAsync(base + h->cols[c].values_off + h->nrows * w,
											(const char *) batch + batch->cols[c].values_off,
											(size_t) (n * w), cudaMemcpyHostToDevice, s));
		*bytes += n * w;
		if (h->cols[c].has_nulls)
		{
			GDB_CUDA_CHECK(err, cudaMemcpyAsync(base + h->cols[c].nulls_off + h->nrows,
												(const char *) batch + batch->cols[c].nulls_off,
												(size_t) n, cudaMemcpyHostToDevice, s));
			*bytes += n;
		}
	}
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(base, nh, sizeof(GdbBatch),
										cudaMemcpyHostToDevice, s));
	*bytes += sizeof(GdbBatch);
	return GDB_OK;
}

/*
 * The checks of an append of batch's rows (batch: a host batch, or the
 * header of a kept result) to store: gdb_store_check, the batch's columns
 * the store's, and room for its rows within UINT32_MAX; err set to OK.
 */
static int
gdb_store_append_check(GdbCudaExec *exec, const GdbStore *store, const GdbBatch *batch,
					   const char *what, GdbError *err)
{
	GDB_TRY(gdb_store_check(exec, store, what, err));
	GDB_TRY(gdb_store_batch_check(store, batch, err));
	if (batch->nrows > (uint64_t) UINT32_MAX - store->header.nrows)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							  "CUDA column store of %llu rows cannot take %llu more (at most %u)",
							  (unsigned long long) store->header.nrows,
							  (unsigned long long) batch->nrows, (unsigned) UINT32_MAX);
	gdb_store_set_ok(err);
	return GDB_OK;
}

/*
 * After a failed append: once stream s is idle, put store->header back
 * into the device buffer (the append may already have written a header of
 * more rows), so that the buffer stays consistent with store->header.
 */
static void
gdb_store_restore_header(GdbStore *store, cudaStream_t s)
{
	(void) cudaStreamSynchronize(s);
	(void) cudaMemcpy(store->buf, &store->header, sizeof(GdbBatch),
					  cudaMemcpyHostToDevice);
	(void) cudaGetLastError();
}

/*
 * gdb_cuda_store_append: see gpudb_device.h.  Copies batch->nrows rows of
 * the host batch batch (pinned by gdb_cuda_host_alloc: asynchronous copies;
 * pageable: staged by CUDA) behind the stored rows on exec's stream, growing
 * the device buffer first when needed (see the file header), rewrites the
 * device header, and returns after the stream is idle.  An empty batch is
 * only checked.  stats (may be NULL): bytes_to_device += the bytes copied
 * from the host (each column's new values and NULL flags, and the header);
 * device_ms += the event time of growth and copies.  Errors:
 * GDB_ERR_BAD_REQUEST (NULL or CPU store, invalid batch, columns different
 * from the store's, more than UINT32_MAX rows in all, exec on another
 * device), GDB_ERR_OUT_OF_MEMORY (growth: store unchanged),
 * GDB_ERR_DEVICE (CUDA failure, or store/exec lost in a device reset); on
 * any error the stored rows are unchanged.
 */
extern "C" int
gdb_cuda_store_append(GdbCudaExec *exec, GdbStore *store, const GdbBatch *batch,
					  GdbStats *stats, GdbError *err)
{
	uint64_t	n,
				need,
				bytes = 0;
	GdbBatch	nh;
	float		t = 0.0f;
	int			st;

	GDB_TRY(gdb_store_append_check(exec, store, batch, "gdb_cuda_store_append", err));
	n = batch->nrows;
	if (n == 0)
		return GDB_OK;
	(void) cudaGetLastError();	/* a stale non-sticky error is not ours */
	need = store->header.nrows + n;
	GDB_CUDA_CHECK(err, cudaEventRecord(exec->ev_start, exec->stream));
	if (need > store->header.capacity)
		GDB_TRY(gdb_cuda_store_grow(exec, store, need, err));
	nh = store->header;
	nh.nrows = need;
	st = gdb_cuda_store_copy_in(exec, store, batch, &nh, &bytes, err);
	if (st == GDB_OK)
	{
		cudaError_t rc = cudaEventRecord(exec->ev_stop, exec->stream);

		if (rc == cudaSuccess)
			rc = cudaStreamSynchronize(exec->stream);
		if (rc == cudaSuccess)
			rc = cudaEventElapsedTime(&t, exec->ev_start, exec->ev_stop);
		if (rc != cudaSuccess)
			st = gdb_cuda_fail(err, "cudaStreamSynchronize", rc);
	}
	if (st != GDB_OK)
	{
		gdb_store_restore_header(store, exec->stream);
		return st;
	}
	store->header.nrows = need;
	store->gen = gdb_store_next_gen();	/* more rows */
	if (stats)
	{
		stats->bytes_to_device += bytes;
		stats->device_ms += t;
		stats->phase_ms[GDB_PHASE_TRANSFER_IN] += t;
	}
	gdb_store_set_ok(err);
	return GDB_OK;
}

/*
 * gdb_cuda_store_append_kept: see gpudb_device.h.  As gdb_cuda_store_append,
 * with the rows' arrays in a result kept on a device (buf, laid out as hdr
 * says): each column's rows copied by cudaMemcpyPeerAsync from buf's device
 * (the store's own, or another: peer to peer where the devices allow it,
 * else CUDA stages the copy) on exec's stream.
 */
extern "C" int
gdb_cuda_store_append_kept(GdbCudaExec *exec, GdbStore *store, const GdbBatch *hdr,
						   const GdbDeviceBuffer *buf, GdbStats *stats, GdbError *err)
{
	const GdbBatch *h;
	const void *src = NULL;
	int			src_ordinal = -1;
	uint64_t	n,
				need,
				bytes = 0;
	GdbBatch	nh;
	cudaStream_t s;
	int			st = GDB_OK;

	GDB_TRY(gdb_store_append_check(exec, store, hdr, "gdb_cuda_store_append_kept", err));
	if (!gdb_buffer_source(buf, &src, &src_ordinal))
		return gdb_error_set(err, GDB_ERR_DEVICE,
							 "a result kept on the device was lost in a device reset");
	n = hdr->nrows;
	if (n == 0)
		return GDB_OK;
	(void) cudaGetLastError();
	need = store->header.nrows + n;
	if (need > store->header.capacity)
		GDB_TRY(gdb_cuda_store_grow(exec, store, need, err));
	h = &store->header;
	s = exec->stream;
	nh = *h;
	nh.nrows = need;
	for (uint32_t c = 0; c < h->ncols && st == GDB_OK; c++)
	{
		uint64_t	w = gdb_kind_width(h->cols[c].kind);
		cudaError_t rc;

		rc = cudaMemcpyPeerAsync((char *) store->buf + h->cols[c].values_off + h->nrows * w,
								 exec->ordinal,
								 (const char *) src + hdr->cols[c].values_off, src_ordinal,
								 (size_t) (n * w), s);
		bytes += n * w;
		if (rc == cudaSuccess && h->cols[c].has_nulls)
		{
			rc = cudaMemcpyPeerAsync((char *) store->buf + h->cols[c].nulls_off + h->nrows,
									 exec->ordinal,
									 (const char *) src + hdr->cols[c].nulls_off, src_ordinal,
									 (size_t) n, s);
			bytes += n;
		}
		if (rc != cudaSuccess)
			st = gdb_cuda_fail(err, "cudaMemcpyPeerAsync", rc);
	}
	if (st == GDB_OK)
	{
		cudaError_t rc = cudaMemcpyAsync(store->buf, &nh, sizeof(GdbBatch),
										 cudaMemcpyHostToDevice, s);

		if (rc == cudaSuccess)
			rc = cudaStreamSynchronize(s);
		if (rc != cudaSuccess)
			st = gdb_cuda_fail(err, "cudaStreamSynchronize", rc);
	}
	if (st != GDB_OK)
	{
		gdb_store_restore_header(store, s);
		return st;
	}
	store->header.nrows = need;
	store->gen = gdb_store_next_gen();	/* more rows */
	if (stats)
		stats->bytes_to_device += src_ordinal == exec->ordinal ? 0 : bytes;
	gdb_store_set_ok(err);
	return GDB_OK;
}

/* Threads per block and most blocks per SM of the scatter kernel. */
#define GDB_SCATTER_BLOCK	256
#define GDB_SCATTER_BLOCKS_PER_SM	8

/*
 * gdb_scatter_int64_kernel: values[rows[i]] = vals[i] for i < n (grid
 * stride), clearing nulls[rows[i]] when the column has NULL flags (nulls
 * not NULL).  rows[i] are checked on the host.  A row given twice gets one
 * of its values (unspecified which).
 */
__global__ static void
gdb_scatter_int64_kernel(int64_t *values, uint8_t *nulls, const uint32_t *rows,
						 const int64_t *vals, uint64_t n)
{
	uint64_t	i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
	uint64_t	stride = (uint64_t) gridDim.x * blockDim.x;

	for (; i < n; i += stride)
	{
		uint32_t	r = rows[i];

		values[r] = vals[i];
		if (nulls)
			nulls[r] = 0;
	}
}

/* Queue the copies of vals and rows into scratch, and the scatter kernel. */
static int
gdb_cuda_scatter_queue(GdbCudaExec *exec, GdbStore *store, uint32_t col,
					   const uint32_t *rows, const int64_t *vals, uint64_t n,
					   char *d_tmp, GdbError *err)
{
	const GdbBatch *h = &store->header;
	cudaStream_t s = exec->stream;
	int64_t    *d_vals = (int64_t *) d_tmp;
	uint32_t   *d_rows = (uint32_t *) (d_tmp + n * sizeof(int64_t));
	uint8_t    *d_nulls = NULL;
	uint64_t	blocks = (n + GDB_SCATTER_BLOCK - 1) / GDB_SCATTER_BLOCK;
	uint64_t	maxb = (uint64_t) (exec->multiprocessors > 0 ? exec->multiprocessors : 1) *
		GDB_SCATTER_BLOCKS_PER_SM;

	if (blocks > maxb)
		blocks = maxb;
	if (h->cols[col].has_nulls)
		d_nulls = (uint8_t *) store->buf + h->cols[col].nulls_off;
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(d_vals, vals, (size_t) (n * sizeof(int64_t)),
										cudaMemcpyHostToDevice, s));
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(d_rows, rows, (size_t) (n * sizeof(uint32_t)),
										cudaMemcpyHostToDevice, s));
	gdb_scatter_int64_kernel<<<(unsigned) blocks, GDB_SCATTER_BLOCK, 0, s>>>(
		(int64_t *) ((char *) store->buf + h->cols[col].values_off), d_nulls,
		d_rows, d_vals, n);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_scatter_int64_kernel");
	return GDB_OK;
}

/*
 * gdb_cuda_store_scatter: see gpudb_device.h.  After the checks (those of
 * gdb_store_check, then gdb_store_scatter_check: nothing is copied or
 * written on error), copies vals and rows to the exec's GDB_SCR_TEMP
 * scratch, runs gdb_scatter_int64_kernel on exec's stream (column col's
 * values set, NULL flags cleared when the column has them) and returns
 * after the stream is idle.  n == 0 is a no-op.  stats (may be NULL):
 * bytes_to_device += n * 12 (vals and rows), device_ms += the event time.
 * Errors: GDB_ERR_BAD_REQUEST (NULL or CPU store, exec on another device,
 * column out of range or not INT64, a row out of range, rows/vals NULL
 * with n > 0), GDB_ERR_OUT_OF_MEMORY (scratch), GDB_ERR_DEVICE (CUDA
 * failure, or store/exec lost in a device reset).  Duplicate rows get one
 * of their values, unspecified which (the CPU store keeps the last).
 */
extern "C" int
gdb_cuda_store_scatter(GdbCudaExec *exec, GdbStore *store, uint32_t col,
					   const uint32_t *rows, const int64_t *vals, uint64_t n,
					   GdbStats *stats, GdbError *err)
{
	void	   *d_tmp = NULL;
	float		t = 0.0f;
	cudaError_t rc;
	int			st;

	GDB_TRY(gdb_store_check(exec, store, "gdb_cuda_store_scatter", err));
	GDB_TRY(gdb_store_scatter_check(store, col, rows, vals, n,
									"gdb_cuda_store_scatter", err));
	if (n == 0)
	{
		gdb_store_set_ok(err);
		return GDB_OK;
	}
	/* rows are below nrows <= UINT32_MAX, but n may repeat them */
	if (n > ((uint64_t) SIZE_MAX - 16) / (sizeof(int64_t) + sizeof(uint32_t)))
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							  "gdb_cuda_store_scatter: %llu rows is too many",
							  (unsigned long long) n);
	(void) cudaGetLastError();	/* a stale non-sticky error is not ours */
	/* rows change in place (or may have, on a failure after the launch) */
	store->gen = gdb_store_next_gen();
	GDB_TRY(gdb_cuda_scratch(exec, GDB_SCR_TEMP,
							 (size_t) (n * (sizeof(int64_t) + sizeof(uint32_t))),
							 &d_tmp, err));
	GDB_CUDA_CHECK(err, cudaEventRecord(exec->ev_start, exec->stream));
	st = gdb_cuda_scatter_queue(exec, store, col, rows, vals, n, (char *) d_tmp, err);
	if (st == GDB_OK)
	{
		rc = cudaEventRecord(exec->ev_stop, exec->stream);
		if (rc == cudaSuccess)
			rc = cudaStreamSynchronize(exec->stream);
		if (rc == cudaSuccess)
			rc = cudaEventElapsedTime(&t, exec->ev_start, exec->ev_stop);
		if (rc != cudaSuccess)
			st = gdb_cuda_fail(err, "cudaStreamSynchronize", rc);
	}
	if (st != GDB_OK)
	{
		(void) cudaStreamSynchronize(exec->stream);	/* leave the stream idle */
		(void) cudaGetLastError();
		return st;
	}
	if (stats)
	{
		stats->bytes_to_device += n * (sizeof(int64_t) + sizeof(uint32_t));
		stats->device_ms += t;
		stats->phase_ms[GDB_PHASE_TRANSFER_IN] += t;
	}
	gdb_store_set_ok(err);
	return GDB_OK;
}

/*
 * gdb_cuda_store_execute: see gpudb_device.h: gdb_cuda_execute's contract
 * (result, order, statistics, errors) over all stored rows, run on the
 * resident buffer with gdb_groupby_on_device (which runs every operator:
 * SELECT and SORT requests too): nothing of the store is copied, so
 * stats->bytes_to_device counts only the filter program (and the code
 * tables with their view's header, for a request that has some).  Extra
 * errors: GDB_ERR_BAD_REQUEST (NULL or CPU store, exec on another device),
 * GDB_ERR_DEVICE (store or exec lost in a device reset).
 */
extern "C" int
gdb_cuda_store_execute(GdbCudaExec *exec, GdbStore *store, const GdbRequest *req,
					   GdbAllocFn alloc, void *alloc_arg, GdbBatch **result,
					   GdbStats *stats, GdbError *err)
{
	GdbError	dummy;

	if (err == NULL)
		err = &dummy;
	if (result)
		*result = NULL;
	GDB_TRY(gdb_store_check(exec, store, "gdb_cuda_store_execute", err));
	return gdb_groupby_on_device(exec, req, &store->header, (char *) store->buf,
								 NULL, store->gen, alloc, alloc_arg, result, stats,
								 err);
}

/*
 * gdb_cuda_store_free: cudaFree the store's device buffer (on its device,
 * made current) and free the store.  NULL is allowed; a CPU store is handed
 * to gdb_cpu_store_free; a store lost in a device reset only has its host
 * memory freed.  CUDA errors are ignored (and cleared).
 */
extern "C" void
gdb_cuda_store_free(GdbStore *store)
{
	if (store == NULL)
		return;
	if (!store->on_device)
	{
		gdb_cpu_store_free(store);
		return;
	}
	if (!gdb_store_lost(store) && store->buf)
	{
		(void) cudaSetDevice(store->ordinal);
		(void) cudaFree(store->buf);
		(void) cudaGetLastError();
	}
	free(store);
}
