/*-------------------------------------------------------------------------
 *
 * column_store.h
 *	  Internal to the two implementations of the column store of
 *	  gpudb_device.h: the layout of struct GdbStore (shared by the CPU store,
 *	  src/cpu/cpu_store.c, and the CUDA store, cuda/column_store.cu) and the
 *	  helpers both use.  Plain C99; no PostgreSQL or CUDA header, so gcc and
 *	  nvcc both compile it.  The PostgreSQL side sees GdbStore as opaque and
 *	  must not include this header.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_COLUMN_STORE_H
#define GPUDB_COLUMN_STORE_H

#include "gpudb_device.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Rows a store gets when created with capacity 0. */
#define GDB_STORE_DEFAULT_CAPACITY	1024

/*
 * Most rows a CPU store may hold: keeps every size computation of
 * gdb_batch_layout (at most 128 columns of 8 + 1 bytes per row) far from
 * 64-bit overflow.  The CUDA store is limited to UINT32_MAX rows (row ids
 * of its group-by are uint32).
 */
#define GDB_STORE_MAX_ROWS		((uint64_t) 1 << 48)

/*
 * A column store.  Both kinds keep the rows in one buffer in the GdbBatch
 * layout (gdb_batch_layout with header.capacity rows):
 *	 CPU store	buf is host memory (malloc); its own header is kept equal to
 *				header, so buf is a valid GdbBatch of header.nrows rows;
 *	 CUDA store buf is device memory on device ordinal; the device copy of
 *				the header (read by the kernels for the column offsets) is
 *				rewritten after every append, and header is the host copy
 *				that gives offsets, nrows and capacity without a copy back.
 * header.nrows is the number of stored rows, header.total_bytes the bytes
 * held.  epoch is the device's reset epoch at creation (CUDA store only):
 * after gdb_cuda_recover reset the device, buf is gone and the store only
 * accepts *_store_free.  gen (CUDA store only) is a process-wide number
 * taken anew whenever buf or its rows change (creation, growth, append,
 * scatter), never 0 and never reused: device-side memos of the rows
 * (key-range hints, cuda/groupby_fastpath.cu) are keyed by it, so a store
 * freed and made again at the same address, or changed in place, cannot
 * match a memo of the old rows.
 */
struct GdbStore
{
	int			on_device;		/* 0: CPU store, 1: CUDA store */
	int			ordinal;		/* CUDA device ordinal (CUDA store) */
	uint32_t	epoch;			/* device reset epoch at creation */
	uint32_t	pad_;
	GdbBatch   *buf;			/* the buffer (host or device address) */
	uint64_t	gen;			/* generation of buf's rows (CUDA store) */
	GdbBatch	header;			/* host copy of the buffer's header */
};

/*
 * gdb_store_layout_check: validate ncols, kinds (INT64, FLOAT64, or STATE:
 * partial results gathered for a combine) and
 * has_nulls (0 or 1) for a new store.  Returns GDB_OK or
 * GDB_ERR_BAD_REQUEST with the problem in err->message.
 */
extern int	gdb_store_layout_check(uint32_t ncols, const uint32_t *kinds,
								   const uint32_t *has_nulls, GdbError *err);

/*
 * gdb_store_batch_check: check that batch is a valid batch (header, offsets
 * within total_bytes) with the store's columns (same ncols, and per column
 * the same kind and NULL-flag presence).  Returns GDB_OK or
 * GDB_ERR_BAD_REQUEST.
 */
extern int	gdb_store_batch_check(const GdbStore *store, const GdbBatch *batch,
								  GdbError *err);

/*
 * gdb_store_grown_capacity: the capacity (rows) a store of capacity cap
 * needs to hold need rows: cap doubled until it reaches need (cap itself
 * when it already does; 1 when cap is 0).  need must be at most
 * GDB_STORE_MAX_ROWS.
 */
extern uint64_t gdb_store_grown_capacity(uint64_t cap, uint64_t need);

/*
 * gdb_store_relayout: fill *hdr with the layout of the store's columns
 * (those of old) at capacity rows, nrows copied from old; returns
 * hdr->total_bytes.
 */
extern uint64_t gdb_store_relayout(GdbBatch *hdr, const GdbBatch *old,
								   uint64_t capacity);

/*
 * gdb_store_scatter_check: the argument checks of *_store_scatter for a
 * store of either kind: col below ncols and an INT64 column, rows and vals
 * not NULL when n > 0, every rows[i] below the stored row count.  Returns
 * GDB_OK or GDB_ERR_BAD_REQUEST ("what" names the caller in the message).
 */
extern int	gdb_store_scatter_check(const GdbStore *store, uint32_t col,
									const uint32_t *rows, const int64_t *vals,
									uint64_t n, const char *what, GdbError *err);

/*
 * Shared with the CPU path (src/cpu/cpu_path.c): gdb_cpu_validate_batch checks
 * a batch header (magic, ncols, nrows <= capacity, every column's arrays
 * within total_bytes); GDB_OK or GDB_ERR_BAD_REQUEST.
 */
extern int	gdb_cpu_validate_batch(const GdbBatch *batch, GdbError *err);

/*
 * gdb_cuda_debug_fault: test hook of the device self-test.  Launches, on
 * exec's stream, a kernel that writes to an invalid device address, leaving
 * the context with a sticky cudaErrorIllegalAddress, and waits for it.
 * Returns the GdbStatus of that wait (GDB_ERR_DEVICE on a real device;
 * GDB_ERR_NO_DEVICE in a build without CUDA).  Never call it elsewhere.
 */
extern int	gdb_cuda_debug_fault(GdbCudaExec *exec, GdbError *err);

#ifdef __cplusplus
}
#endif

#endif							/* GPUDB_COLUMN_STORE_H */
