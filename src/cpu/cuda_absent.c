/*-------------------------------------------------------------------------
 *
 * cuda_absent.c
 *	  The CUDA entry points of gpudb_device.h for a build without nvcc
 *	  (WITH_CUDA=0): every call reports that there is no device, so the
 *	  PostgreSQL side falls back to the CPU path (or raises 55000 when the
 *	  GPU was demanded).  Plain C, no PostgreSQL or CUDA header.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include "gpudb_device.h"
#include "column_store.h"

#define GDB_NO_CUDA_MESSAGE "this gpudb build has no CUDA support (built without nvcc)"

static int
gdb_no_cuda(GdbError *err)
{
	if (err)
	{
		err->status = GDB_ERR_NO_DEVICE;
		snprintf(err->message, sizeof(err->message), "%s", GDB_NO_CUDA_MESSAGE);
	}
	return GDB_ERR_NO_DEVICE;
}

/* gdb_cuda_built: always 0 in this build. */
int
gdb_cuda_built(void)
{
	return 0;
}

/* gdb_cuda_probe: no devices; *ndev = 0, GDB_ERR_NO_DEVICE. */
int
gdb_cuda_probe(GdbDeviceInfo *devs, int max, int *ndev, GdbError *err)
{
	(void) devs;
	(void) max;
	if (ndev)
		*ndev = 0;
	return gdb_no_cuda(err);
}

/* gdb_cuda_open: *exec = NULL, GDB_ERR_NO_DEVICE. */
int
gdb_cuda_open(int ordinal, GdbCudaExec **exec, GdbError *err)
{
	(void) ordinal;
	if (exec)
		*exec = NULL;
	return gdb_no_cuda(err);
}

/* gdb_cuda_close: nothing to release. */
void
gdb_cuda_close(GdbCudaExec *exec)
{
	(void) exec;
}

/* gdb_cuda_host_alloc: no pinned memory without CUDA; NULL. */
void *
gdb_cuda_host_alloc(GdbCudaExec *exec, size_t bytes)
{
	(void) exec;
	(void) bytes;
	return NULL;
}

/* gdb_cuda_host_free: no-op. */
void
gdb_cuda_host_free(GdbCudaExec *exec, void *p)
{
	(void) exec;
	(void) p;
}

/* gdb_cuda_host_register: nothing to page-lock for; 0. */
int
gdb_cuda_host_register(GdbCudaExec *exec, void *p, size_t bytes)
{
	(void) exec;
	(void) p;
	(void) bytes;
	return 0;
}

/* gdb_cuda_host_unregister: no-op. */
void
gdb_cuda_host_unregister(GdbCudaExec *exec, void *p)
{
	(void) exec;
	(void) p;
}

/* gdb_cuda_execute: *result = NULL, GDB_ERR_NO_DEVICE. */
int
gdb_cuda_execute(GdbCudaExec *exec, const GdbRequest *req,
				 const GdbBatch *input, GdbAllocFn alloc,
				 void *alloc_arg, GdbBatch **result,
				 GdbStats *stats, GdbError *err)
{
	(void) exec;
	(void) req;
	(void) input;
	(void) alloc;
	(void) alloc_arg;
	(void) stats;
	if (result)
		*result = NULL;
	return gdb_no_cuda(err);
}

/* gdb_cuda_store_create: *store = NULL, GDB_ERR_NO_DEVICE. */
int
gdb_cuda_store_create(GdbCudaExec *exec, uint32_t ncols,
					  const uint32_t *kinds, const uint32_t *has_nulls,
					  uint64_t capacity, GdbStore **store, GdbError *err)
{
	(void) exec;
	(void) ncols;
	(void) kinds;
	(void) has_nulls;
	(void) capacity;
	if (store)
		*store = NULL;
	return gdb_no_cuda(err);
}

/* gdb_cuda_store_append: GDB_ERR_NO_DEVICE; nothing is copied. */
int
gdb_cuda_store_append(GdbCudaExec *exec, GdbStore *store,
					  const GdbBatch *batch, GdbStats *stats, GdbError *err)
{
	(void) exec;
	(void) store;
	(void) batch;
	(void) stats;
	return gdb_no_cuda(err);
}

/* gdb_cuda_store_execute: *result = NULL, GDB_ERR_NO_DEVICE. */
int
gdb_cuda_store_execute(GdbCudaExec *exec, GdbStore *store,
					   const GdbRequest *req, GdbAllocFn alloc,
					   void *alloc_arg, GdbBatch **result,
					   GdbStats *stats, GdbError *err)
{
	(void) exec;
	(void) store;
	(void) req;
	(void) alloc;
	(void) alloc_arg;
	(void) stats;
	if (result)
		*result = NULL;
	return gdb_no_cuda(err);
}

/* gdb_cuda_store_scatter: GDB_ERR_NO_DEVICE; nothing is written. */
int
gdb_cuda_store_scatter(GdbCudaExec *exec, GdbStore *store, uint32_t col,
					   const uint32_t *rows, const int64_t *vals, uint64_t n,
					   GdbStats *stats, GdbError *err)
{
	(void) exec;
	(void) store;
	(void) col;
	(void) rows;
	(void) vals;
	(void) n;
	(void) stats;
	return gdb_no_cuda(err);
}

/*
 * gdb_cuda_store_free: no CUDA store can exist in this build; a CPU store
 * is handed to gdb_cpu_store_free.  NULL is allowed.
 */
void
gdb_cuda_store_free(GdbStore *store)
{
	if (store && !store->on_device)
		gdb_cpu_store_free(store);
}

/* gdb_cuda_recover: GDB_ERR_NO_DEVICE (there is no device to recover). */
int
gdb_cuda_recover(GdbCudaExec *exec, GdbError *err)
{
	(void) exec;
	return gdb_no_cuda(err);
}

/* gdb_cuda_debug_fault (self-test hook, column_store.h): GDB_ERR_NO_DEVICE. */
int
gdb_cuda_debug_fault(GdbCudaExec *exec, GdbError *err)
{
	(void) exec;
	return gdb_no_cuda(err);
}

/* gdb_cuda_scratch_bytes: 0 (no CUDA executor can exist in this build). */
uint64_t
gdb_cuda_scratch_bytes(GdbCudaExec *exec)
{
	(void) exec;
	return 0;
}

/* gdb_cuda_release_scratch: 0 (no CUDA executor can exist in this build). */
uint64_t
gdb_cuda_release_scratch(GdbCudaExec *exec, uint64_t keep)
{
	(void) exec;
	(void) keep;
	return 0;
}

/* gdb_cuda_keep_result: nothing to do (no CUDA executor in this build). */
void
gdb_cuda_keep_result(GdbCudaExec *exec, int on)
{
	(void) exec;
	(void) on;
}

/* gdb_cuda_take_result: NULL (no result can stay on a device). */
GdbDeviceBuffer *
gdb_cuda_take_result(GdbCudaExec *exec)
{
	(void) exec;
	return NULL;
}

/* gdb_cuda_buffer_address: NULL (no device buffer can exist). */
const void *
gdb_cuda_buffer_address(const GdbDeviceBuffer *buf)
{
	(void) buf;
	return NULL;
}

/* gdb_cuda_buffer_to_host: GDB_ERR_NO_DEVICE. */
int
gdb_cuda_buffer_to_host(GdbCudaExec *exec, const GdbDeviceBuffer *buf,
						GdbBatch *host, GdbError *err)
{
	(void) exec;
	(void) buf;
	(void) host;
	return gdb_no_cuda(err);
}

/* gdb_cuda_buffer_free: nothing to free. */
void
gdb_cuda_buffer_free(GdbDeviceBuffer *buf)
{
	(void) buf;
}

/* gdb_cuda_store_append_kept: GDB_ERR_NO_DEVICE. */
int
gdb_cuda_store_append_kept(GdbCudaExec *exec, GdbStore *store, const GdbBatch *hdr,
						   const GdbDeviceBuffer *buf, GdbStats *stats, GdbError *err)
{
	(void) exec;
	(void) store;
	(void) hdr;
	(void) buf;
	(void) stats;
	return gdb_no_cuda(err);
}

/* gdb_cuda_code_map_missing: GDB_ERR_NO_DEVICE. */
int
gdb_cuda_code_map_missing(GdbCudaExec *exec, GdbDeviceCodeMap **map, uint64_t ncodes,
						  const GdbDeviceBuffer *buf, const GdbBatch *hdr,
						  const uint32_t *cols, uint32_t ncols, GdbAllocFn alloc,
						  void *alloc_arg, int64_t **missing, uint64_t *nmissing,
						  GdbError *err)
{
	(void) exec;
	(void) map;
	(void) ncodes;
	(void) buf;
	(void) hdr;
	(void) cols;
	(void) ncols;
	(void) alloc;
	(void) alloc_arg;
	*missing = NULL;
	*nmissing = 0;
	return gdb_no_cuda(err);
}

/* gdb_cuda_code_map_apply: GDB_ERR_NO_DEVICE. */
int
gdb_cuda_code_map_apply(GdbCudaExec *exec, GdbDeviceCodeMap *map, const int64_t *from,
						const int64_t *to, uint64_t n, const GdbDeviceBuffer *buf,
						const GdbBatch *hdr, const uint32_t *cols, uint32_t ncols,
						GdbError *err)
{
	(void) exec;
	(void) map;
	(void) from;
	(void) to;
	(void) n;
	(void) buf;
	(void) hdr;
	(void) cols;
	(void) ncols;
	return gdb_no_cuda(err);
}

/* gdb_cuda_code_map_free: nothing to free (no map is ever made). */
void
gdb_cuda_code_map_free(GdbDeviceCodeMap *map)
{
	(void) map;
}
