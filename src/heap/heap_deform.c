/*-------------------------------------------------------------------------
 *
 * heap_deform.c
 *	  Column batches straight from heap pages.
 *
 * The heap reader's path for relations of the heap table access method
 * (heap_batch.c keeps the generic slot loop for others).  The reader takes
 * the scan's blocks itself, as PostgreSQL's page-mode scan does (a parallel
 * scan's from its shared block allocator, a serial scan's in order), and
 * has heapgetpage pin each page and list the tuples visible under the
 * scan's snapshot (an all-visible page it lists itself: read_page); it
 * then reads those tuples straight from the pinned
 * page, with no heap_getnext call, slot or buffer pin per tuple.  A scan
 * without page mode (a non-MVCC snapshot) goes through heap_getnext.  Only
 * the attributes the request reads are deformed, straight into the batch's
 * column arrays:
 *
 *	- A tuple without a NULL bitmap that has every attribute up to the
 *	  highest one read (its natts: ALTER TABLE ADD COLUMN leaves older
 *	  tuples shorter) has each attribute at a fixed offset as long as
 *	  every attribute before it is fixed-width: the offsets are computed
 *	  once per reader from the descriptor (the rule PostgreSQL's
 *	  attcacheoff follows: each fixed-width attribute aligned to its
 *	  typalign; a varlena may start at a fixed offset only when that offset
 *	  is already aligned, as a short varlena is stored unaligned).  When
 *	  every column read has one, such a tuple is read by offset alone.
 *	- Any other tuple is walked attribute by attribute up to the highest
 *	  one read (NULL bitmap, alignment, varlena lengths: the layout
 *	  heap_form_tuple writes), and attributes past the tuple's natts take
 *	  the attribute's missing value (getmissingattr: its ADD COLUMN
 *	  default, or NULL), as slot_getsomeattrs gives them.
 *
 * Each column's conversion is decided once (GdbStoreKind) instead of per
 * value by type oid, and values are stored row by row (storing the
 * fixed-width columns of a page column by column measured no faster).
 * Text is interned into the request's dictionary (codes in order of first
 * appearance, dictionary.c) through two per-column caches that hold codes
 * the dictionary gave: strings of up to 8 bytes by their bytes in a small
 * direct-mapped table, longer ones by the last string seen (runs of equal
 * values).  Compressed or out-of-line text and numerics are detoasted as
 * PostgreSQL's own accessors do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/syncscan.h"
#include "access/tupmacs.h"
#include "access/visibilitymap.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/rel.h"

#include "gpudb.h"
#include "heap_deform.h"
#include "server_protocol.h"

/*
 * Text columns cache their strings of at most SHORT_STRING_MAX bytes in a
 * direct-mapped table of 2^SHORT_CACHE_BITS slots (keyed by a word that
 * tells every such string apart, short_word: no hash of the bytes, no
 * compare loop), and remember the last longer string, so that most values
 * skip gdb_dict_intern; a slot holds the code the dictionary gave, so codes
 * stay in first-seen order.
 */
#define SHORT_STRING_MAX	8
#define SHORT_CACHE_BITS	10

typedef struct GdbShortString
{
	uint64		word;			/* short_word of the string */
	int64		tag;			/* code << 4 | length; -1: empty slot */
} GdbShortString;

/* the offset of an attribute that is NULL in the walked tuple */
#define OFF_NULL		(-1)
/* the offset of an attribute past the walked tuple's natts */
#define OFF_MISSING		(-2)

struct GdbHeapDeform
{
	TupleDesc	desc;			/* the relation's descriptor */
	GdbColumnSet *cs;
	int			nread;			/* columns read from the heap */
	int			max_att;		/* highest attribute number among them */
	bool		all_cached;		/* every one has a fixed offset */
	/* per column read, in batch order (rank columns left out) */
	int			col[GDB_MAX_COLUMNS];	/* batch column index */
	int			att[GDB_MAX_COLUMNS];	/* attribute index (attnum - 1) */
	GdbStoreKind kind[GDB_MAX_COLUMNS];
	int32		cacheoff[GDB_MAX_COLUMNS];	/* in a tuple without NULLs, or
											 * -1 */
	int			scale[GDB_MAX_COLUMNS]; /* numeric columns' scale */
	/* text columns: the short-string cache, and the last longer string */
	GdbDictionary *dict;		/* the dictionary the caches hold codes of */
	GdbShortString *short_cache[GDB_MAX_COLUMNS];
	const char *last_data[GDB_MAX_COLUMNS];
	int			last_len[GDB_MAX_COLUMNS];
	int64		last_code[GDB_MAX_COLUMNS];
	/* the batch being filled */
	int64	   *ivals[GDB_MAX_COLUMNS]; /* float columns: double */
	uint8	   *nulls[GDB_MAX_COLUMNS];
	/* the walk: per attribute up to max_att */
	int16	   *attlen;
	char	   *attalign;
	int32	   *offs;			/* offset, OFF_NULL or OFF_MISSING */
	/* page-at-a-time reading (fill_pages) */
	int			use_pages;		/* -1 until the first batch decides */
	bool		list_visible;	/* all-visible pages listed here (read_page) */
	Buffer		vmbuffer;		/* the visibility map page read_page holds */
	bool		blocks_started; /* next_block has begun */
	BlockNumber next_blk;		/* a serial scan's next block */
	BlockNumber blocks_left;	/* and how many it has left */
	int			vis_next;		/* next index into scan->rs_vistuples */
	int			vis_count;		/* the pinned page's visible tuples */
};

static void reset_text_caches(GdbHeapDeform *d);

/* see heap_deform.h */
GdbStoreKind
gdb_store_kind(const GdbColumnSet *cs, int col)
{
	if (cs->rank_of[col] != 0)
		return GDB_STORE_RANK;
	if (cs->nulls_only[col])
		return GDB_STORE_NULLS_ONLY;
	switch (cs->typids[col])
	{
		case INT2OID:
			return GDB_STORE_INT16;
		case INT4OID:
		case DATEOID:
			return GDB_STORE_INT32;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return GDB_STORE_INT64;
		case BOOLOID:
			return GDB_STORE_BOOL;
		case FLOAT4OID:
			return GDB_STORE_FLOAT4;
		case FLOAT8OID:
			return GDB_STORE_FLOAT8;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			return GDB_STORE_TEXT;
		case NUMERICOID:
			return GDB_STORE_NUMERIC;
	}
	elog(ERROR, "gpudb: unexpected column type %u", cs->typids[col]);
	pg_unreachable();
}

/*
 * The scaled integer of numeric datum value in a column of scale scale
 * (typid/typmod for the message): a typmod'd column holds only exact values
 * below 10^18, so anything else is corrupt data.
 */
static int64
numeric_value(Datum value, int scale, Oid typid, int32 typmod)
{
	int64		out;
	GdbNumericFit fit = gdb_numeric_to_scaled(value, scale, &out);

	if (fit == GDB_NUMFIT_NAN)
		return GDB_NUMERIC_NAN;
	if (fit != GDB_NUMFIT_EXACT)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("numeric value does not fit its column's type %s",
						format_type_with_typemod(typid, typmod))));
	return out;
}

/* see heap_deform.h */
void
gdb_store_datum(GdbColumnSet *cs, GdbStoreKind kind, GdbBatch *batch,
				int col, uint64 row, Datum value, bool isnull)
{
	int64	   *ivals = GDB_COL_PTR(batch, batch, col, int64);
	double	   *fvals = GDB_COL_PTR(batch, batch, col, double);
	uint8_t    *nulls = GDB_NULL_PTR(batch, batch, col);

	nulls[row] = isnull;
	if (isnull)
	{
		ivals[row] = 0;
		return;
	}
	switch (kind)
	{
		case GDB_STORE_INT16:
			ivals[row] = DatumGetInt16(value);
			break;
		case GDB_STORE_INT32:
			ivals[row] = DatumGetInt32(value);
			break;
		case GDB_STORE_INT64:
			ivals[row] = DatumGetInt64(value);
			break;
		case GDB_STORE_BOOL:
			ivals[row] = DatumGetBool(value) ? 1 : 0;
			break;
		case GDB_STORE_FLOAT4:
			fvals[row] = (double) DatumGetFloat4(value);
			break;
		case GDB_STORE_FLOAT8:
			fvals[row] = DatumGetFloat8(value);
			break;
		case GDB_STORE_TEXT:
			{
				struct varlena *p = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));

				ivals[row] = gdb_dict_intern(cs->dict, VARDATA_ANY(p),
											 VARSIZE_ANY_EXHDR(p));
				if (p != (struct varlena *) DatumGetPointer(value))
					pfree(p);
			}
			break;
		case GDB_STORE_NUMERIC:
			ivals[row] = numeric_value(value,
									   gdb_column_numeric_scale(cs, col),
									   cs->typids[col], cs->typmods[col]);
			break;
		case GDB_STORE_NULLS_ONLY:
			ivals[row] = 0;
			break;
		case GDB_STORE_RANK:
			elog(ERROR, "gpudb: rank column %d is not stored from a value", col);
	}
}

/* see heap_deform.h */
GdbHeapDeform *
gdb_heap_deform_create(Relation rel, GdbColumnSet *cs)
{
	GdbHeapDeform *d = palloc0(sizeof(GdbHeapDeform));
	int32		off = 0;
	int			a,
				i;

	Assert(rel->rd_tableam == GetHeapamTableAmRoutine());
	d->desc = RelationGetDescr(rel);
	d->cs = cs;
	for (i = 0; i < cs->ncols; i++)
	{
		GdbStoreKind kind = gdb_store_kind(cs, i);
		int			n;

		if (kind == GDB_STORE_RANK)
			continue;
		n = d->nread++;
		d->col[n] = i;
		d->att[n] = cs->attnums[i] - 1;
		d->kind[n] = kind;
		d->scale[n] = kind == GDB_STORE_NUMERIC ?
			gdb_column_numeric_scale(cs, i) : 0;
		if (kind == GDB_STORE_TEXT)
			d->short_cache[n] = palloc(sizeof(GdbShortString) *
									   (1 << SHORT_CACHE_BITS));
		d->max_att = Max(d->max_att, cs->attnums[i]);
	}

	/*
	 * Per attribute up to the highest read: its length and alignment for
	 * the walk, and its offset in a tuple without NULLs where that is fixed
	 * (-1 from the first attribute whose start depends on the data).
	 */
	d->attlen = palloc(sizeof(int16) * Max(d->max_att, 1));
	d->attalign = palloc(sizeof(char) * Max(d->max_att, 1));
	d->offs = palloc(sizeof(int32) * Max(d->max_att, 1));
	for (a = 0; a < d->max_att; a++)
	{
		Form_pg_attribute att = TupleDescAttr(d->desc, a);

		d->attlen[a] = att->attlen;
		d->attalign[a] = att->attalign;
		if (off < 0)
			d->offs[a] = -1;
		else if (att->attlen > 0)
		{
			off = att_align_nominal(off, att->attalign);
			d->offs[a] = off;
			off += att->attlen;
		}
		else if (att->attlen == -1 && off == att_align_nominal(off, att->attalign))
		{
			d->offs[a] = off;
			off = -1;
		}
		else
		{
			d->offs[a] = -1;
			off = -1;
		}
	}
	d->all_cached = true;
	for (i = 0; i < d->nread; i++)
	{
		d->cacheoff[i] = d->offs[d->att[i]];
		if (d->cacheoff[i] < 0)
			d->all_cached = false;
	}
	reset_text_caches(d);
	d->use_pages = -1;
	d->vmbuffer = InvalidBuffer;
	return d;
}

/*
 * A string of at most SHORT_STRING_MAX bytes as one word that, with the
 * length, tells it apart from every other such string: of 4 to 8 bytes,
 * its first four bytes and its last four (overlapping below 8); of 1 to 3,
 * its first, middle and last byte; 0 for the empty string.  Two loads
 * instead of a loop over the bytes, so nothing branches on the length but
 * the one test below 4.
 */
static inline uint64
short_word(const char *data, int len)
{
	if (likely(len >= 4))
	{
		uint32		lo,
					hi;

		memcpy(&lo, data, sizeof(lo));
		memcpy(&hi, data + len - 4, sizeof(hi));
		return (uint64) lo | ((uint64) hi << 32);
	}
	if (len == 0)
		return 0;
	return (uint64) (uint8) data[0] |
		((uint64) (uint8) data[len >> 1] << 8) |
		((uint64) (uint8) data[len - 1] << 16);
}

/* The slot of short_word w of a string of len bytes in a column's cache. */
static inline uint32
short_slot(uint64 w, int len)
{
	return (uint32) (((w + (uint64) len) * UINT64CONST(0x9E3779B97F4A7C15)) >>
					 (64 - SHORT_CACHE_BITS));
}

/* A short string missing from its slot e: interned, then cached there. */
static pg_noinline int64
short_code_miss(GdbHeapDeform *d, GdbShortString *e, uint64 w,
				const char *data, int len)
{
	int64		code = gdb_dict_intern(d->cs->dict, data, len);

	e->word = w;
	e->tag = (code << 4) | len;
	return code;
}

/* The code of text column i's string data[0..len), len <= SHORT_STRING_MAX. */
static pg_attribute_always_inline int64
short_code(GdbHeapDeform *d, int i, const char *data, int len)
{
	uint64		w = short_word(data, len);
	GdbShortString *e = &d->short_cache[i][short_slot(w, len)];

	if (likely(e->word == w && (e->tag & 15) == len))
		return e->tag >> 4;
	return short_code_miss(d, e, w, data, len);
}

/*
 * The code of text column i's string data[0..len) of any length: a short
 * one through the column's slots, a longer one through its last string
 * (runs of equal values), else gdb_dict_intern.
 */
static pg_noinline int64
text_code_bytes(GdbHeapDeform *d, int i, const char *data, int len)
{
	int64		code;

	if (len <= SHORT_STRING_MAX)
		return short_code(d, i, data, len);
	/* the last byte first: cheap, and it tells most different strings apart */
	if (len == d->last_len[i] &&
		data[len - 1] == d->last_data[i][len - 1] &&
		memcmp(data, d->last_data[i], len - 1) == 0)
		return d->last_code[i];
	code = gdb_dict_intern(d->cs->dict, data, len);
	d->last_code[i] = code;
	d->last_len[i] = len;
	d->last_data[i] = VARDATA(DatumGetPointer(gdb_dict_datum(d->cs->dict, code)));
	return code;
}

/*
 * Any other text value: a 4-byte header, or compressed or out of line
 * (detoasted, as PostgreSQL's own accessors do).
 */
static pg_noinline int64
text_code_other(GdbHeapDeform *d, int i, const struct varlena *v)
{
	struct varlena *copy;
	int64		code;

	if (!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v))
		return text_code_bytes(d, i, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	copy = pg_detoast_datum_packed((struct varlena *) v);
	code = text_code_bytes(d, i, VARDATA_ANY(copy), VARSIZE_ANY_EXHDR(copy));
	pfree(copy);
	return code;
}

/*
 * The dictionary code of text column i's varlena v (any header: short,
 * compressed, out of line).  Inline only for what heap tuples hold most:
 * a short (1-byte header) string of at most SHORT_STRING_MAX bytes.
 */
static pg_attribute_always_inline int64
text_code(GdbHeapDeform *d, int i, const struct varlena *v)
{
	if (likely(VARATT_IS_1B(v) && !VARATT_IS_1B_E(v)))
	{
		int			len = VARSIZE_1B(v) - VARHDRSZ_SHORT;

		if (likely(len <= SHORT_STRING_MAX))
			return short_code(d, i, VARDATA_1B(v), len);
		return text_code_bytes(d, i, VARDATA_1B(v), len);
	}
	return text_code_other(d, i, v);
}

/*
 * Store the non-NULL value at p (the attribute's bytes in the tuple) into
 * row r of read column i, as fetch_att and gdb_store_datum would.
 */
static pg_attribute_always_inline void
store_at(GdbHeapDeform *d, int i, uint64 r, const char *p)
{
	int64	   *iv = d->ivals[i];

	d->nulls[i][r] = 0;
	switch (d->kind[i])
	{
		case GDB_STORE_INT16:
			iv[r] = *(const int16 *) p;
			break;
		case GDB_STORE_INT32:
			iv[r] = *(const int32 *) p;
			break;
		case GDB_STORE_INT64:
			iv[r] = *(const int64 *) p;
			break;
		case GDB_STORE_BOOL:
			iv[r] = *p != 0 ? 1 : 0;
			break;
		case GDB_STORE_FLOAT4:
			((double *) iv)[r] = (double) *(const float4 *) p;
			break;
		case GDB_STORE_FLOAT8:
			((double *) iv)[r] = *(const float8 *) p;
			break;
		case GDB_STORE_TEXT:
			iv[r] = text_code(d, i, (const struct varlena *) p);
			break;
		case GDB_STORE_NUMERIC:
			iv[r] = numeric_value(PointerGetDatum(p), d->scale[i],
								  d->cs->typids[d->col[i]],
								  d->cs->typmods[d->col[i]]);
			break;
		case GDB_STORE_NULLS_ONLY:
		case GDB_STORE_RANK:
			iv[r] = 0;
			break;
	}
}

/*
 * Walk tuple tup (data at tp) up to attribute max_att, setting d->offs to
 * each attribute's offset, OFF_NULL or OFF_MISSING.
 */
static void
walk_tuple(GdbHeapDeform *d, HeapTupleHeader tup, const char *tp)
{
	int			natts = Min(HeapTupleHeaderGetNatts(tup), d->max_att);
	bool		hasnulls = (tup->t_infomask & HEAP_HASNULL) != 0;
	const uint8 *bp = tup->t_bits;
	uint32		off = 0;
	int			a;

	for (a = 0; a < natts; a++)
	{
		int16		len = d->attlen[a];

		if (hasnulls && att_isnull(a, bp))
		{
			d->offs[a] = OFF_NULL;
			continue;
		}
		if (len == -1)
			off = att_align_pointer(off, d->attalign[a], -1, tp + off);
		else
			off = att_align_nominal(off, d->attalign[a]);
		d->offs[a] = off;
		off = att_addlength_pointer(off, len, tp + off);
	}
	for (; a < d->max_att; a++)
		d->offs[a] = OFF_MISSING;
}

/* Empty the text caches of d: they hold codes of dict, now cs->dict. */
static void
reset_text_caches(GdbHeapDeform *d)
{
	int			i,
				j;

	for (i = 0; i < d->nread; i++)
	{
		d->last_len[i] = -1;
		if (d->short_cache[i])
			for (j = 0; j < (1 << SHORT_CACHE_BITS); j++)
			{
				d->short_cache[i][j].word = 0;
				d->short_cache[i][j].tag = -1;
			}
	}
	d->dict = d->cs->dict;
}

/*
 * Deform tuple tup (a visible tuple of a page the scan holds pinned) into
 * row n of batch: by the fixed offsets when it has them, else by walking
 * its attributes; attributes past its natts take their missing value.
 */
static pg_attribute_always_inline void
deform_tuple(GdbHeapDeform *d, GdbBatch *batch, uint64 n, HeapTupleHeader tup)
{
	const char *tp = (const char *) tup + tup->t_hoff;
	int			i;

	if (d->all_cached && (tup->t_infomask & HEAP_HASNULL) == 0 &&
		HeapTupleHeaderGetNatts(tup) >= d->max_att)
	{
		for (i = 0; i < d->nread; i++)
			store_at(d, i, n, tp + d->cacheoff[i]);
		return;
	}
	walk_tuple(d, tup, tp);
	for (i = 0; i < d->nread; i++)
	{
		int32		off = d->offs[d->att[i]];

		if (off >= 0)
			store_at(d, i, n, tp + off);
		else if (off == OFF_NULL)
		{
			d->nulls[i][n] = 1;
			d->ivals[i][n] = 0;
		}
		else
		{
			bool		isnull;
			Datum		value = getmissingattr(d->desc, d->att[i] + 1,
											   &isnull);

			gdb_store_datum(d->cs, d->kind[i], batch, d->col[i], n,
							value, isnull);
		}
	}
}

/*
 * Whether scan can be read page by page here: page mode (an MVCC snapshot:
 * heapgetpage then lists the visible tuples), and a serial scan that covers
 * the whole relation (no heap_setscanlimits).
 */
static bool
page_mode_usable(HeapScanDesc scan)
{
	if ((scan->rs_base.rs_flags & SO_ALLOW_PAGEMODE) == 0)
		return false;
	if (scan->rs_base.rs_parallel != NULL)
		return true;
	return scan->rs_numblocks == InvalidBlockNumber;
}

/*
 * The next block of scan to read, or InvalidBlockNumber when there is none:
 * a parallel scan's next block from its shared state (the way
 * heapgettup_pagemode takes them, so that leader and workers share the
 * relation exactly as PostgreSQL's own parallel scan does), a serial scan's
 * blocks from rs_startblock round to the block before it (the start is 0
 * unless the scan is synchronized, whose position it reports).
 */
static BlockNumber
next_block(GdbHeapDeform *d, HeapScanDesc scan)
{
	Relation	rel = scan->rs_base.rs_rd;
	BlockNumber blk;

	if (scan->rs_base.rs_parallel != NULL)
	{
		ParallelBlockTableScanDesc pbscan =
			(ParallelBlockTableScanDesc) scan->rs_base.rs_parallel;

		if (!d->blocks_started)
		{
			gdb_table_block_parallelscan_startblock_init(rel,
														 scan->rs_parallelworkerdata,
														 pbscan);
			d->blocks_started = true;
		}
		return table_block_parallelscan_nextpage(rel,
												 scan->rs_parallelworkerdata,
												 pbscan);
	}
	if (!d->blocks_started)
	{
		d->next_blk = scan->rs_startblock;
		d->blocks_left = scan->rs_nblocks;
		d->blocks_started = true;
	}
	if (d->blocks_left == 0)
		return InvalidBlockNumber;
	blk = d->next_blk;
	d->blocks_left--;
	if (++d->next_blk >= scan->rs_nblocks)
		d->next_blk = 0;
	if (scan->rs_base.rs_flags & SO_ALLOW_SYNC)
		ss_report_location(rel, d->next_blk);
	return blk;
}

/* Unpin the visibility map page read_page holds, if any. */
static void
release_vmbuffer(GdbHeapDeform *d)
{
	if (BufferIsValid(d->vmbuffer))
	{
		ReleaseBuffer(d->vmbuffer);
		d->vmbuffer = InvalidBuffer;
	}
}

/*
 * Pin block blk of scan and list its tuples visible under the scan's
 * snapshot in scan->rs_vistuples (rs_ntuples of them), as heapgetpage does.
 * With d->list_visible, a page marked all-visible (PD_ALL_VISIBLE: VACUUM
 * set it and no change since has cleared it, so every tuple on it is
 * visible to every MVCC snapshot) is listed here, under the share lock, by
 * its normal line pointers alone: heapgetpage would also try to prune it
 * (an all-visible page holds nothing to prune) and make a serializable
 * conflict check a tuple, which list_visible rules out.  Any other page
 * goes to heapgetpage.  Which way a page goes is first asked of the
 * visibility map (one of its pages, kept pinned, covers 32,672 heap
 * pages), so that a page that is not all-visible is pinned once, by
 * heapgetpage, and EXPLAIN (BUFFERS) counts it once, as PostgreSQL's own
 * scan does.  The map's bit is only a hint here: a set bit implies
 * PD_ALL_VISIBLE, but an inserter may clear both after the map was asked,
 * so PD_ALL_VISIBLE is tested again under the share lock.
 */
static void
read_page(GdbHeapDeform *d, HeapScanDesc scan, BlockNumber blk)
{
	Relation	rel = scan->rs_base.rs_rd;
	Buffer		buf;
	Page		page;
	OffsetNumber maxoff;
	OffsetNumber off;
	int			ntup = 0;

	if (!d->list_visible || !VM_ALL_VISIBLE(rel, blk, &d->vmbuffer))
	{
		gdb_heapgetpage(&scan->rs_base, blk);
		return;
	}
	if (BufferIsValid(scan->rs_cbuf))
	{
		ReleaseBuffer(scan->rs_cbuf);
		scan->rs_cbuf = InvalidBuffer;
	}
	CHECK_FOR_INTERRUPTS();
	buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, scan->rs_strategy);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (!PageIsAllVisible(page))
	{
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		ReleaseBuffer(buf);
		gdb_heapgetpage(&scan->rs_base, blk);
		return;
	}
	gdb_test_for_old_snapshot(scan->rs_base.rs_snapshot, rel, page);
	maxoff = PageGetMaxOffsetNumber(page);
	for (off = FirstOffsetNumber; off <= maxoff; off++)
		if (ItemIdIsNormal(PageGetItemId(page, off)))
			scan->rs_vistuples[ntup++] = off;
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	scan->rs_cbuf = buf;
	scan->rs_cblock = blk;
	scan->rs_ntuples = ntup;
}

/*
 * gdb_heap_deform_fill's page-at-a-time path: read_page pins each block
 * in turn and lists its tuples visible under the scan's snapshot in
 * scan->rs_vistuples (the list PostgreSQL's own page-mode scan returns
 * tuples from); they are read straight from the pinned page.  A page's
 * remaining tuples carry over to the next batch.
 */
static uint64
fill_pages(GdbHeapDeform *d, HeapScanDesc scan, GdbBatch *batch,
		   uint64 *ctids, bool *done)
{
	Relation	rel = scan->rs_base.rs_rd;
	uint64		capacity = batch->capacity;
	uint64		n = 0;

	while (n < capacity)
	{
		Page		page;
		BlockNumber blk;
		int			take;
		int			k;

		if (d->vis_next >= d->vis_count)
		{
			/* the page is done: the next one (read_page serves interrupts) */
			blk = next_block(d, scan);
			if (blk == InvalidBlockNumber)
			{
				if (BufferIsValid(scan->rs_cbuf))
				{
					ReleaseBuffer(scan->rs_cbuf);
					scan->rs_cbuf = InvalidBuffer;
				}
				release_vmbuffer(d);
				*done = true;
				break;
			}
			read_page(d, scan, blk);
			d->vis_next = 0;
			d->vis_count = scan->rs_ntuples;
			if (pgstat_should_count_relation(rel))
				gdb_pgstat_tuples_returned(rel->pgstat_info) += d->vis_count;
			continue;
		}
		page = BufferGetPage(scan->rs_cbuf);
		blk = scan->rs_cblock;
		take = (int) Min((uint64) (d->vis_count - d->vis_next), capacity - n);
		for (k = 0; k < take; k++)
		{
			OffsetNumber off = scan->rs_vistuples[d->vis_next + k];
			HeapTupleHeader tup = (HeapTupleHeader)
				PageGetItem(page, PageGetItemId(page, off));

			deform_tuple(d, batch, n + k, tup);
			if (ctids)
				ctids[n + k] = GDB_CTID(blk, off);
		}
		d->vis_next += take;
		n += take;
	}
	return n;
}

/* see heap_deform.h */
uint64
gdb_heap_deform_fill(GdbHeapDeform *d, TableScanDesc sscan, GdbBatch *batch,
					 uint64 *ctids, bool *done)
{
	HeapScanDesc scan = (HeapScanDesc) sscan;
	uint64		n = 0;
	int			i;

	if (d->dict != d->cs->dict)
		reset_text_caches(d);
	for (i = 0; i < d->nread; i++)
	{
		d->ivals[i] = GDB_COL_PTR(batch, batch, d->col[i], int64);
		d->nulls[i] = GDB_NULL_PTR(batch, batch, d->col[i]);
	}
	if (d->use_pages < 0)
	{
		d->use_pages = page_mode_usable(scan) ? 1 : 0;
		/* heapgetpage's own test for skipping visibility checks, and no SSI */
		d->list_visible = !scan->rs_base.rs_snapshot->takenDuringRecovery &&
			!IsolationIsSerializable();
	}
	if (d->use_pages)
		return fill_pages(d, scan, batch, ctids, done);

	/* tuple by tuple through heap_getnext (no page mode) */
	while (n < batch->capacity)
	{
		HeapTuple	tuple;

		if ((n & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		tuple = heap_getnext(sscan, ForwardScanDirection);
		if (tuple == NULL)
		{
			*done = true;
			break;
		}
		deform_tuple(d, batch, n, tuple->t_data);
		if (ctids)
			ctids[n] = GDB_CTID(ItemPointerGetBlockNumber(&tuple->t_self),
								ItemPointerGetOffsetNumber(&tuple->t_self));
		n++;
	}
	return n;
}

/* see heap_deform.h */
void
gdb_heap_deform_free(GdbHeapDeform *d)
{
	int			i;

	release_vmbuffer(d);
	pfree(d->attlen);
	pfree(d->attalign);
	pfree(d->offs);
	for (i = 0; i < d->nread; i++)
		if (d->short_cache[i])
			pfree(d->short_cache[i]);
	pfree(d);
}
