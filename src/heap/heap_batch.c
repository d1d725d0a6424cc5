/*-------------------------------------------------------------------------
 *
 * heap_batch.c
 *	  Heap scan -> column batches.
 *
 * A request names the relation columns it reads (a GdbColumnSet); the
 * reader scans the table under the active snapshot (the caller's, so the
 * answer is the one a plain SELECT in the same statement would see) and
 * deforms each visible tuple into the batch's column arrays, widening every
 * value to int64 or float64 (gpudb_device.h), replacing text by
 * dictionary codes (dictionary.c) and numeric(p,s) by its fixed-point
 * integer (numeric_fixed.c).  A reader may also take its share of a
 * parallel block scan (parallel_feed.c: the leader and its workers each
 * read batches from the same scan).  Relations of the heap access method
 * are read straight from their pages (heap_deform.c); others through a
 * tuple slot.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/tableam.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "gpudb.h"
#include "heap_deform.h"
#include "server_protocol.h"

struct GdbHeapReader
{
	Relation	rel;
	GdbColumnSet *cs;
	TableScanDesc scan;
	GdbHeapDeform *deform;		/* heap AM: read from the pages */
	/* other table AMs: through a slot */
	TupleTableSlot *slot;
	GdbStoreKind kinds[GDB_MAX_COLUMNS];
	AttrNumber	max_attnum;
	bool		done;
};

/* see gpudb.h */
GdbTypeClass
gdb_type_class(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return GDB_TYPE_INT;
		case FLOAT4OID:
		case FLOAT8OID:
			return GDB_TYPE_FLOAT;
		case BOOLOID:
			return GDB_TYPE_BOOL;
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return GDB_TYPE_DATETIME;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			return GDB_TYPE_TEXT;
		case NUMERICOID:
			return GDB_TYPE_NUMERIC;
		default:
			return GDB_TYPE_UNSUPPORTED;
	}
}

/* see gpudb.h */
Form_pg_attribute
gdb_columnset_attribute(Relation rel, AttrNumber attnum, bool check_type)
{
	Form_pg_attribute att;

	if (attnum <= 0 || attnum > RelationGetNumberOfAttributes(rel))
		elog(ERROR, "gpudb: attribute number %d out of range", attnum);
	att = TupleDescAttr(RelationGetDescr(rel), attnum - 1);
	if (check_type && !gdb_type_supported(att->atttypid, att->atttypmod))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"%s\" of relation \"%s\" has unsupported type %s",
						NameStr(att->attname), RelationGetRelationName(rel),
						format_type_with_typemod(att->atttypid, att->atttypmod)),
				 errhint("Supported types: smallint, integer, bigint, real, "
						 "double precision, boolean, date, timestamp, "
						 "timestamp with time zone, text, varchar, "
						 "numeric(p,s) with p <= %d and s >= 0.",
						 GDB_NUMERIC_MAX_PRECISION)));
	return att;
}

/* see gpudb.h */
int
gdb_columnset_add(GdbColumnSet *cs, Relation rel, AttrNumber attnum,
				  bool nulls_only)
{
	/* a column read for its values must be of a supported type */
	Form_pg_attribute att = gdb_columnset_attribute(rel, attnum, !nulls_only);
	int			i;

	for (i = 0; i < cs->ncols; i++)
	{
		if (cs->attnums[i] == attnum && cs->rank_of[i] == 0)
		{
			if (!nulls_only)
				cs->nulls_only[i] = false;
			return i;
		}
	}

	if (gdb_type_class(att->atttypid) == GDB_TYPE_TEXT &&
		!nulls_only && !get_collation_isdeterministic(att->attcollation))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"%s\" uses a nondeterministic collation",
						NameStr(att->attname)),
				 errdetail("gpudb compares text by its bytes, which only "
						   "deterministic collations agree with.")));
	if (cs->ncols >= GDB_MAX_COLUMNS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many columns in one gpudb request"),
				 errdetail("At most %d distinct columns can be read.",
						   GDB_MAX_COLUMNS)));
	if (cs->dict == NULL)
		cs->dict = gdb_dict_create();
	i = cs->ncols++;
	cs->attnums[i] = attnum;
	cs->typids[i] = att->atttypid;
	cs->typmods[i] = att->atttypmod;
	cs->collations[i] = att->attcollation;
	cs->nulls_only[i] = nulls_only;
	cs->rank_of[i] = 0;
	return i;
}

/* see gpudb.h */
int
gdb_column_numeric_scale(const GdbColumnSet *cs, int col)
{
	int			scale;

	if (cs->typids[col] != NUMERICOID ||
		!gdb_numeric_typmod_scale(cs->typmods[col], &scale))
		elog(ERROR, "gpudb: column %d is not a fixed-point numeric", col);
	return scale;
}

/* see gpudb.h */
uint32
gdb_column_kind(const GdbColumnSet *cs, int col)
{
	if (!cs->nulls_only[col] && gdb_type_class(cs->typids[col]) == GDB_TYPE_FLOAT)
		return GDB_KIND_FLOAT64;
	return GDB_KIND_INT64;
}

/* see gpudb.h */
bool
gdb_column_is_text(const GdbColumnSet *cs, int32 col)
{
	bool		stored = col >= 0 && col < cs->ncols;
	bool		computed = col >= GDB_MAX_COLUMNS && col < GDB_EXPR_COL(cs->nexprs);
	bool		joined = col >= GDB_JOIN_COL(0) && col < GDB_JOIN_COL(cs->njoincols);

	return (stored || computed || joined) && !cs->nulls_only[col] &&
		gdb_type_class(cs->typids[col]) == GDB_TYPE_TEXT;
}

/* see gpudb.h */
Datum
gdb_value_to_datum(const GdbColumnSet *cs, int col, int64 ival, double fval)
{
	switch (cs->typids[col])
	{
		case INT2OID:
			return Int16GetDatum((int16) ival);
		case INT4OID:
			return Int32GetDatum((int32) ival);
		case INT8OID:
			return Int64GetDatum(ival);
		case BOOLOID:
			return BoolGetDatum(ival != 0);
		case DATEOID:
			return DateADTGetDatum((DateADT) ival);
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return TimestampGetDatum((Timestamp) ival);
		case FLOAT4OID:
			return Float4GetDatum((float4) fval);
		case FLOAT8OID:
			return Float8GetDatum(fval);
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			return gdb_dict_datum(cs->dict, ival);
		case NUMERICOID:
			return gdb_scaled_to_numeric(ival, gdb_column_numeric_scale(cs, col));
	}
	elog(ERROR, "gpudb: no datum conversion for type %u", cs->typids[col]);
	pg_unreachable();
}

/* see gpudb.h */
uint64
gdb_columnset_layout(const GdbColumnSet *cs, GdbBatch *batch, uint64 capacity,
					 bool with_visibility)
{
	uint32		kinds[GDB_MAX_COLUMNS + 1];
	uint32		has_nulls[GDB_MAX_COLUMNS + 1];
	int			i;

	for (i = 0; i < cs->ncols; i++)
	{
		kinds[i] = gdb_column_kind(cs, i);
		has_nulls[i] = 1;
	}
	if (!with_visibility)
		return gdb_batch_layout(batch, cs->ncols, kinds, has_nulls, capacity);
	kinds[cs->ncols] = GDB_KIND_INT64;
	has_nulls[cs->ncols] = 0;
	return gdb_batch_layout(batch, cs->ncols + 1, kinds, has_nulls, capacity);
}

/* A reader of rel's columns cs, without its scan yet. */
static GdbHeapReader *
reader_new(Relation rel, GdbColumnSet *cs)
{
	GdbHeapReader *reader = palloc0(sizeof(GdbHeapReader));
	int			i;

	reader->rel = rel;
	reader->cs = cs;
	if (rel->rd_tableam == GetHeapamTableAmRoutine())
	{
		reader->deform = gdb_heap_deform_create(rel, cs);
		return reader;
	}
	for (i = 0; i < cs->ncols; i++)
	{
		reader->max_attnum = Max(reader->max_attnum, cs->attnums[i]);
		reader->kinds[i] = gdb_store_kind(cs, i);
	}
	reader->slot = table_slot_create(rel, NULL);
	return reader;
}

/* see gpudb.h */
GdbHeapReader *
gdb_heap_reader_begin(Relation rel, GdbColumnSet *cs, uint64 capacity,
					  Snapshot snapshot)
{
	GdbHeapReader *reader = reader_new(rel, cs);

	/*
	 * No synchronized scan: a cache load records heap addresses in
	 * ascending order, and the server searches them that way.
	 */
	reader->scan = table_beginscan_strat(rel, snapshot, 0, NULL, true, false);
	(void) capacity;
	return reader;
}

/* see gpudb.h */
GdbHeapReader *
gdb_heap_reader_begin_parallel(Relation rel, GdbColumnSet *cs,
							   struct ParallelTableScanDescData *pscan)
{
	GdbHeapReader *reader = reader_new(rel, cs);

	/* the snapshot is the one serialised into pscan by the leader */
	reader->scan = gdb_table_beginscan_parallel(rel, pscan);
	return reader;
}

/* see gpudb.h */
uint64
gdb_heap_reader_next(GdbHeapReader *reader, GdbBatch *batch, uint64 *ctids)
{
	GdbColumnSet *cs = reader->cs;
	TupleTableSlot *slot = reader->slot;
	uint64		n = 0;

	if (reader->deform)
	{
		if (!reader->done)
			n = gdb_heap_deform_fill(reader->deform, reader->scan, batch,
									 ctids, &reader->done);
		batch->nrows = n;
		gdb_batch_fill_ranks(cs, batch);
		return n;
	}
	while (!reader->done && n < batch->capacity)
	{
		int			c;

		if ((n & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!table_scan_getnextslot(reader->scan, ForwardScanDirection, slot))
		{
			reader->done = true;
			break;
		}
		if (reader->max_attnum > 0)
			slot_getsomeattrs(slot, reader->max_attnum);
		for (c = 0; c < cs->ncols; c++)
		{
			int			a = cs->attnums[c] - 1;

			if (reader->kinds[c] != GDB_STORE_RANK)
				gdb_store_datum(cs, reader->kinds[c], batch, c, n,
								slot->tts_values[a], slot->tts_isnull[a]);
		}
		if (ctids)
			ctids[n] = GDB_CTID(ItemPointerGetBlockNumber(&slot->tts_tid),
								ItemPointerGetOffsetNumber(&slot->tts_tid));
		n++;
	}
	batch->nrows = n;
	/* text sort keys: ranks under the dictionary that now has every row */
	gdb_batch_fill_ranks(cs, batch);
	return n;
}

/* see gpudb.h */
void
gdb_batch_store_value(GdbColumnSet *cs, GdbBatch *batch, int col, uint64 row,
					  Datum value, bool isnull)
{
	gdb_store_datum(cs, gdb_store_kind(cs, col), batch, col, row, value,
					isnull);
}

/* see gpudb.h */
void
gdb_heap_reader_end(GdbHeapReader *reader)
{
	if (reader->deform)
		gdb_heap_deform_free(reader->deform);
	else
		ExecDropSingleTupleTableSlot(reader->slot);
	table_endscan(reader->scan);
	pfree(reader);
}
