/*-------------------------------------------------------------------------
 *
 * cpu_store.c
 *	  The column store of gpudb_device.h on the CPU path (gdb_cpu_store_*),
 *	  and what both kinds of store share: gdb_store_rows, gdb_store_bytes
 *	  and the layout helpers of column_store.h.  The CUDA store is in
 *	  cuda/column_store.cu.
 *
 * Plain C99, no PostgreSQL header, no longjmp (like cpu_path.c), so the
 * device self-test compiles it standalone.  Memory comes from malloc.
 *
 * A CPU store is one malloc'd buffer in the GdbBatch layout whose header's
 * nrows is the number of stored rows: it IS a batch, and a group-by over
 * the store is gdb_cpu_execute over that buffer.  An append that does not
 * fit grows the buffer by doubling its capacity: a new buffer is laid out,
 * each column's stored rows (values, NULL flags) are copied to their new
 * offsets and the old buffer is freed; if the doubled buffer cannot be
 * allocated, one of exactly the needed rows is tried before giving up.
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "column_store.h"

/* Shared with cpu_path.c. */
extern int	gdb_cpu_execute(const GdbRequest *req, const GdbBatch *input,
							GdbAllocFn alloc, void *alloc_arg,
							GdbBatch **result, GdbStats *stats, GdbError *err);

static int
gdb_store_ok(GdbError *err)
{
	if (err)
	{
		err->status = GDB_OK;
		err->message[0] = '\0';
	}
	return GDB_OK;
}

/* ---- shared by both kinds of store (declared in column_store.h) ---- */

int
gdb_store_layout_check(uint32_t ncols, const uint32_t *kinds,
					   const uint32_t *has_nulls, GdbError *err)
{
	uint32_t	c;

	if (ncols > GDB_MAX_COLUMNS)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "column store of %u columns (at most %d)",
							   (unsigned) ncols, GDB_MAX_COLUMNS);
	if (ncols > 0 && (kinds == NULL || has_nulls == NULL))
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "column store: kinds and has_nulls must not be NULL");
	for (c = 0; c < ncols; c++)
	{
		if (kinds[c] != GDB_KIND_INT64 && kinds[c] != GDB_KIND_FLOAT64 &&
			kinds[c] != GDB_KIND_STATE)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								   "column store column %u has kind %u (INT64, FLOAT64 or STATE)",
								   c, (unsigned) kinds[c]);
		if (has_nulls[c] > 1)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								   "column store column %u has null flag %u (0 or 1)",
								   c, (unsigned) has_nulls[c]);
	}
	return GDB_OK;
}

int
gdb_store_batch_check(const GdbStore *store, const GdbBatch *batch,
					  GdbError *err)
{
	const GdbBatch *h = &store->header;
	GdbError	dummy;
	uint32_t	c;
	int			st;

	if (err == NULL)
		err = &dummy;			/* gdb_cpu_validate_batch needs one */
	if (batch == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "column store append: batch is NULL");
	st = gdb_cpu_validate_batch(batch, err);
	if (st != GDB_OK)
		return st;
	if (batch->ncols != h->ncols)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "column store append: batch has %u columns, the store %u",
							   (unsigned) batch->ncols, (unsigned) h->ncols);
	for (c = 0; c < h->ncols; c++)
		if (batch->cols[c].kind != h->cols[c].kind ||
			batch->cols[c].has_nulls != h->cols[c].has_nulls)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								   "column store append: batch column %u is kind %u%s, the store's kind %u%s",
								   c, (unsigned) batch->cols[c].kind,
								   batch->cols[c].has_nulls ? " with NULLs" : "",
								   (unsigned) h->cols[c].kind,
								   h->cols[c].has_nulls ? " with NULLs" : "");
	return GDB_OK;
}

uint64_t
gdb_store_grown_capacity(uint64_t cap, uint64_t need)
{
	if (cap == 0)
		cap = 1;
	while (cap < need)
		cap *= 2;				/* need <= 2^48: cannot overflow */
	return cap;
}

uint64_t
gdb_store_relayout(GdbBatch *hdr, const GdbBatch *old, uint64_t capacity)
{
	uint64_t	total;

	memset(hdr, 0, sizeof(*hdr));
	total = gdb_batch_layout_like(hdr, old, capacity);
	hdr->nrows = old->nrows;
	return total;
}

/*
 * gdb_store_rows: rows stored in store (either kind); 0 for NULL.
 */
uint64_t
gdb_store_rows(const GdbStore *store)
{
	return store ? store->header.nrows : 0;
}

/*
 * gdb_store_bytes: bytes store holds (either kind): its whole buffer, i.e.
 * header plus capacity rows of every column, in host or device memory;
 * 0 for NULL.  The CUDA store's host copy of the header is not counted.
 */
uint64_t
gdb_store_bytes(const GdbStore *store)
{
	return store ? store->header.total_bytes : 0;
}

/* ---- the CPU store ---- */

/*
 * gdb_cpu_store_create: see gpudb_device.h.  *store gets a host buffer laid
 * out (gdb_batch_layout) for ncols columns (kinds INT64/FLOAT64, has_nulls
 * 0/1) and capacity rows (0: GDB_STORE_DEFAULT_CAPACITY), holding 0 rows.
 * Errors: GDB_ERR_BAD_REQUEST (store NULL, bad layout, capacity above
 * GDB_STORE_MAX_ROWS), GDB_ERR_OUT_OF_MEMORY (malloc).  On error *store is
 * NULL.
 */
int
gdb_cpu_store_create(uint32_t ncols, const uint32_t *kinds,
					 const uint32_t *has_nulls, uint64_t capacity,
					 GdbStore **store, GdbError *err)
{
	GdbStore   *s;
	uint64_t	total;
	int			st;

	if (store == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "gdb_cpu_store_create: store must not be NULL");
	*store = NULL;
	st = gdb_store_layout_check(ncols, kinds, has_nulls, err);
	if (st != GDB_OK)
		return st;
	if (capacity == 0)
		capacity = GDB_STORE_DEFAULT_CAPACITY;
	if (capacity > GDB_STORE_MAX_ROWS)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "column store capacity %llu exceeds %llu rows",
							   (unsigned long long) capacity,
							   (unsigned long long) GDB_STORE_MAX_ROWS);
	s = (GdbStore *) calloc(1, sizeof(GdbStore));
	if (s == NULL)
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							   "out of memory for a column store");
	total = gdb_batch_layout(&s->header, ncols, kinds, has_nulls, capacity);
	if (total > (uint64_t) SIZE_MAX ||
		(s->buf = (GdbBatch *) malloc((size_t) total)) == NULL)
	{
		free(s);
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							   "out of memory for a column store of %llu bytes",
							   (unsigned long long) total);
	}
	memcpy(s->buf, &s->header, sizeof(GdbBatch));
	s->on_device = 0;
	*store = s;
	return gdb_store_ok(err);
}

/* Allocate a host buffer laid out like h at capacity rows; copy h's rows. */
static GdbBatch *
gdb_cpu_store_regrow(const GdbStore *s, uint64_t capacity, GdbBatch *nh)
{
	const GdbBatch *h = &s->header;
	uint64_t	total = gdb_store_relayout(nh, h, capacity);
	GdbBatch   *nb;
	uint32_t	c;

	if (total > (uint64_t) SIZE_MAX)
		return NULL;
	nb = (GdbBatch *) malloc((size_t) total);
	if (nb == NULL)
		return NULL;
	memcpy(nb, nh, sizeof(GdbBatch));
	for (c = 0; c < h->ncols; c++)
	{
		uint64_t	w = gdb_kind_width(h->cols[c].kind);

		memcpy((char *) nb + nh->cols[c].values_off,
			   (const char *) s->buf + h->cols[c].values_off,
			   (size_t) (h->nrows * w));
		if (h->cols[c].has_nulls)
			memcpy((char *) nb + nh->cols[c].nulls_off,
				   (const char *) s->buf + h->cols[c].nulls_off,
				   (size_t) h->nrows);
	}
	return nb;
}

/*
 * gdb_cpu_store_append: see gpudb_device.h.  Copies batch->nrows rows of
 * batch (values of every column, NULL flags of the nullable ones) behind
 * the stored rows, growing the buffer first when they do not fit (capacity
 * doubled until they do; if that allocation fails, exactly the needed
 * rows).  Errors: GDB_ERR_BAD_REQUEST (store NULL or a CUDA store, invalid
 * batch, columns different from the store's, more than GDB_STORE_MAX_ROWS
 * rows in all), GDB_ERR_OUT_OF_MEMORY (growth failed; store unchanged).
 */
int
gdb_cpu_store_append(GdbStore *store, const GdbBatch *batch, GdbError *err)
{
	GdbBatch   *h;
	uint64_t	n,
				need;
	uint32_t	c;
	int			st;

	if (store == NULL || store->on_device)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "gdb_cpu_store_append: %s",
							   store ? "a CUDA store" : "store is NULL");
	st = gdb_store_batch_check(store, batch, err);
	if (st != GDB_OK)
		return st;
	h = &store->header;
	n = batch->nrows;
	if (n > GDB_STORE_MAX_ROWS - h->nrows)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "column store of %llu rows cannot take %llu more (at most %llu)",
							   (unsigned long long) h->nrows, (unsigned long long) n,
							   (unsigned long long) GDB_STORE_MAX_ROWS);
	need = h->nrows + n;
	if (need > h->capacity)
	{
		GdbBatch	nh;
		GdbBatch   *nb;

		nb = gdb_cpu_store_regrow(store, gdb_store_grown_capacity(h->capacity, need), &nh);
		if (nb == NULL)
			nb = gdb_cpu_store_regrow(store, need, &nh);
		if (nb == NULL)
			return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
								   "out of memory growing a column store of %llu bytes to %llu rows",
								   (unsigned long long) h->total_bytes,
								   (unsigned long long) need);
		free(store->buf);
		store->buf = nb;
		store->header = nh;
	}
	for (c = 0; c < h->ncols; c++)
	{
		uint64_t	w = gdb_kind_width(h->cols[c].kind);

		memcpy((char *) store->buf + h->cols[c].values_off + h->nrows * w,
			   (const char *) batch + batch->cols[c].values_off, (size_t) (n * w));
		if (h->cols[c].has_nulls)
			memcpy((char *) store->buf + h->cols[c].nulls_off + h->nrows,
				   (const char *) batch + batch->cols[c].nulls_off, (size_t) n);
	}
	h->nrows = need;
	store->buf->nrows = need;
	return gdb_store_ok(err);
}

/*
 * gdb_cpu_store_execute: see gpudb_device.h: gdb_cpu_execute over the
 * store's buffer (a batch of gdb_store_rows(store) rows), with the same
 * result, statistics and errors, plus GDB_ERR_BAD_REQUEST for a NULL or
 * CUDA store.
 */
int
gdb_cpu_store_execute(GdbStore *store, const GdbRequest *req,
					  GdbAllocFn alloc, void *alloc_arg,
					  GdbBatch **result, GdbStats *stats, GdbError *err)
{
	if (store == NULL || store->on_device)
	{
		if (result)
			*result = NULL;
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "gdb_cpu_store_execute: %s",
							   store ? "a CUDA store" : "store is NULL");
	}
	return gdb_cpu_execute(req, store->buf, alloc, alloc_arg, result, stats, err);
}

/*
 * gdb_store_scatter_check (column_store.h): the checks of *_store_scatter
 * shared by both kinds of store: col an INT64 column of store, rows and
 * vals not NULL when n > 0, every rows[i] below the stored row count.
 * GDB_OK or GDB_ERR_BAD_REQUEST ("what" names the caller).
 */
int
gdb_store_scatter_check(const GdbStore *store, uint32_t col,
						const uint32_t *rows, const int64_t *vals, uint64_t n,
						const char *what, GdbError *err)
{
	const GdbBatch *h = &store->header;
	uint64_t	i;

	if (col >= h->ncols)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "%s: column %u of a store of %u columns",
							   what, (unsigned) col, (unsigned) h->ncols);
	if (h->cols[col].kind != GDB_KIND_INT64)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "%s: column %u is kind %u, not INT64",
							   what, (unsigned) col, (unsigned) h->cols[col].kind);
	if (n > 0 && (rows == NULL || vals == NULL))
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "%s: rows and vals must not be NULL", what);
	for (i = 0; i < n; i++)
		if ((uint64_t) rows[i] >= h->nrows)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								   "%s: row %u of a store of %llu rows (entry %llu)",
								   what, (unsigned) rows[i],
								   (unsigned long long) h->nrows,
								   (unsigned long long) i);
	return GDB_OK;
}

/*
 * gdb_cpu_store_scatter: see gpudb_device.h.  After the checks of
 * gdb_store_scatter_check (nothing written on error), sets values[rows[i]]
 * = vals[i] in column col and clears its NULL flag when the column has
 * NULL flags, in order (a row given twice keeps the last value).  n == 0
 * is a no-op.  Errors: GDB_ERR_BAD_REQUEST (store NULL or a CUDA store, or
 * a failed check).
 */
int
gdb_cpu_store_scatter(GdbStore *store, uint32_t col, const uint32_t *rows,
					  const int64_t *vals, uint64_t n, GdbError *err)
{
	const GdbBatch *h;
	int64_t    *values;
	uint8_t    *nulls = NULL;
	uint64_t	i;
	int			st;

	if (store == NULL || store->on_device)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							   "gdb_cpu_store_scatter: %s",
							   store ? "a CUDA store" : "store is NULL");
	st = gdb_store_scatter_check(store, col, rows, vals, n,
								 "gdb_cpu_store_scatter", err);
	if (st != GDB_OK)
		return st;
	h = &store->header;
	values = (int64_t *) ((char *) store->buf + h->cols[col].values_off);
	if (h->cols[col].has_nulls)
		nulls = (uint8_t *) store->buf + h->cols[col].nulls_off;
	for (i = 0; i < n; i++)
	{
		values[rows[i]] = vals[i];
		if (nulls)
			nulls[rows[i]] = 0;
	}
	return gdb_store_ok(err);
}

/*
 * gdb_cpu_store_free: free store's buffer and the store.  NULL is allowed;
 * a CUDA store is handed to gdb_cuda_store_free.
 */
void
gdb_cpu_store_free(GdbStore *store)
{
	if (store == NULL)
		return;
	if (store->on_device)
	{
		gdb_cuda_store_free(store);
		return;
	}
	free(store->buf);
	free(store);
}
