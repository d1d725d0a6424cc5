/*-------------------------------------------------------------------------
 *
 * heap_deform.h
 *	  Column batches straight from heap pages (heap_deform.c): the heap
 *	  reader's path for relations of the heap table access method.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_HEAP_DEFORM_H
#define GPUDB_HEAP_DEFORM_H

#include "access/tableam.h"

#include "gpudb.h"

/*
 * How one batch column is stored, decided once per reader from the
 * column's type (gdb_store_kind) so that the per-value path switches on a
 * small dense enum instead of a type oid.
 */
typedef enum GdbStoreKind
{
	GDB_STORE_INT16,			/* int2 -> int64 */
	GDB_STORE_INT32,			/* int4, date -> int64 */
	GDB_STORE_INT64,			/* int8, timestamp, timestamptz -> int64 */
	GDB_STORE_BOOL,				/* bool -> 0/1 */
	GDB_STORE_FLOAT4,			/* float4 -> double */
	GDB_STORE_FLOAT8,			/* float8 -> double */
	GDB_STORE_TEXT,				/* text, varchar -> dictionary code */
	GDB_STORE_NUMERIC,			/* numeric(p,s) -> scaled int64 */
	GDB_STORE_NULLS_ONLY,		/* only NULL-ness: value 0 */
	GDB_STORE_RANK				/* not read: text_rank.c fills it */
} GdbStoreKind;

/*
 * gdb_store_kind: the store kind of column col of cs (GDB_STORE_RANK for
 * a rank column, GDB_STORE_NULLS_ONLY for a nulls-only one).  Raises an
 * internal error for a type the reader does not convert.
 */
extern GdbStoreKind gdb_store_kind(const GdbColumnSet *cs, int col);

/*
 * gdb_store_datum: store value (a datum of the column's type; ignored if
 * isnull) into row row of column col of batch, whose store kind is kind;
 * text through cs->dict, numeric through numeric_fixed.c.  The batch must
 * be laid out by gdb_columnset_layout (every column has NULL flags).
 * Raises ERRCODE_DATA_CORRUPTED for a numeric that does not fit its
 * column's scale.
 */
extern void gdb_store_datum(GdbColumnSet *cs, GdbStoreKind kind,
							GdbBatch *batch, int col, uint64 row,
							Datum value, bool isnull);

/* Per-reader state of the heap-AM path; opaque outside heap_deform.c. */
typedef struct GdbHeapDeform GdbHeapDeform;

/*
 * gdb_heap_deform_create: the heap-AM path's state for reading the columns
 * cs of rel (which must use the heap table access method) in
 * CurrentMemoryContext: store kinds and attribute offsets computed once.
 */
extern GdbHeapDeform *gdb_heap_deform_create(Relation rel, GdbColumnSet *cs);

/*
 * gdb_heap_deform_fill: read up to batch->capacity tuples of scan visible
 * under its snapshot into batch, from row 0, in the scan's block order;
 * ctids (may be NULL, else batch->capacity entries) receives each row's
 * GDB_CTID.  scan is a heap scan (serial or parallel) begun on the
 * relation given to gdb_heap_deform_create and read by nothing else: in
 * page mode the reader takes its blocks and pins them through heapgetpage
 * (the visibility list PostgreSQL's own page-mode scan uses), a page's
 * remaining tuples carrying over to the next call; otherwise tuples come
 * from heap_getnext.  Serves interrupts at least once a page.  Sets *done
 * when the scan is exhausted (its last page then unpinned).  Returns the
 * number of rows; does not fill rank columns.
 */
extern uint64 gdb_heap_deform_fill(GdbHeapDeform *d, TableScanDesc scan,
								   GdbBatch *batch, uint64 *ctids,
								   bool *done);

/* gdb_heap_deform_free: release d. */
extern void gdb_heap_deform_free(GdbHeapDeform *d);

#endif							/* GPUDB_HEAP_DEFORM_H */
