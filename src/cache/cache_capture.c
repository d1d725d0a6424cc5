/*-------------------------------------------------------------------------
 *
 * cache_capture.c
 *	  Change capture for cached tables: the triggers that keep the GPU
 *	  server's copy of a table in step with INSERT, UPDATE and DELETE.
 *
 * gpu_cache_load installs gpudb_cache_invalidate() twice on a table it
 * caches (cache.c: ensure_trigger):
 *	 - AFTER ... FOR EACH ROW: the row trigger records, per statement, the
 *	   heap address (ctid) of each deleted row version and the cached
 *	   columns of each inserted one (an UPDATE is both), with the full xid
 *	   of the (sub)transaction that made the change;
 *	 - AFTER ... FOR EACH STATEMENT: the statement trigger sends what the
 *	   statement captured to the server in one CACHE_CHANGES message (rows
 *	   in a memfd batch), before the transaction can commit.  A TRUNCATE, or
 *	   a change that cannot be sent, bumps the table's change counter
 *	   instead: the cached copy then stops answering until the next load.
 * The server appends inserted rows (invisible until their xid is resolved)
 * and marks deleted ones; each query then resolves those xids against its
 * own snapshot (cache.c: gdb_xid_statuses), so the cache answers what a
 * heap scan under the same snapshot answers, rollbacks included, without
 * a reload.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "groupby.h"
#include "server_client.h"

/*
 * What one statement changed in one cached relation.  Everything of it is
 * in its own memory context, deleted when the statement's changes have
 * been sent (or abandoned): a transaction of many statements holds only
 * the captures of the statement running.
 */
typedef struct Capture
{
	MemoryContext cxt;			/* holds the Capture and all it points to */
	Oid			relid;
	Oid			relfilenode;
	bool		cached;			/* the server has a copy to keep in step */
	GdbColumnSet cs;			/* the cached columns, in the cache's order */
	GdbBatch   *batch;			/* inserted rows (+ visibility column) */
	uint64		capacity;
	uint64	   *ins;			/* ctid, xid per inserted row */
	uint64	   *del;			/* ctid, xid, inserts before it, version's xmin */
	uint64		ndel;
	uint64		del_capacity;
	struct Capture *next;
} Capture;

static Capture *captures = NULL;
static MemoryContext capture_cxt = NULL;
static LocalTransactionId capture_lxid = InvalidLocalTransactionId;
static bool callback_registered = false;

static void flush_capture(Capture *c, const char *relname);

/* Is the capture state from this transaction? */
static bool
capture_current(void)
{
	return capture_cxt != NULL && capture_lxid == gdb_my_lxid();
}

/*
 * Captures that no statement trigger of their own statement sent: rows
 * written into a cached partition through its parent (only the parent's
 * statement trigger fires), by logical replication apply (no statement
 * triggers), or by a statement that failed.  Replaying them later, out of
 * order with other sessions' changes, could give wrong answers, so the
 * cached copies of those relations are marked stale instead (queries read
 * the heap until the next load).  Runs before commit and PREPARE, and when
 * a subtransaction aborts.
 */
static void
abandon_captures(void)
{
	while (captures)
	{
		Capture    *c = captures;

		captures = c->next;
		if (c->cached)
			gdb_cache_bump(c->relid);
		MemoryContextDelete(c->cxt);
	}
}

/* see groupby.h */
bool
gdb_capture_pending(Oid relid)
{
	Capture    *c;

	if (!capture_current())
		return false;
	for (c = captures; c; c = c->next)
		if (c->relid == relid && c->cached)
			return true;
	return false;
}

static void
capture_xact_callback(XactEvent event, void *arg)
{
	if ((event == XACT_EVENT_PRE_COMMIT || event == XACT_EVENT_PARALLEL_PRE_COMMIT ||
		 event == XACT_EVENT_PRE_PREPARE) && capture_current())
		abandon_captures();
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_PREPARE)
	{
		/* the memory goes with the transaction */
		captures = NULL;
		capture_cxt = NULL;
	}
}

/*
 * A subtransaction rolled back with captures unsent (a statement that
 * failed after some of its rows were captured): mark those relations stale
 * rather than guess which rows the rollback undid.
 */
static void
capture_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB && capture_current())
		abandon_captures();
}

/*
 * Start capturing for this transaction.  Captures live in the top
 * transaction's memory: each captured row carries the xid of the
 * subtransaction that wrote it, so rows of a rolled-back savepoint are sent
 * too and simply never become visible.
 */
static void
reset_if_new_transaction(void)
{
	if (!callback_registered)
	{
		RegisterXactCallback(capture_xact_callback, NULL);
		RegisterSubXactCallback(capture_subxact_callback, NULL);
		callback_registered = true;
	}
	if (capture_current())
		return;
	captures = NULL;
	capture_cxt = AllocSetContextCreate(TopTransactionContext,
										"gpudb change capture",
										ALLOCSET_DEFAULT_SIZES);
	capture_lxid = gdb_my_lxid();
}

/*
 * Can a capture batch carry rel's column attnum (gdb_columnset_add would
 * accept it)?  Not after ALTER TABLE changed its type to one gpudb does not
 * carry without rewriting the table, nor for a dropped column.
 */
static bool
capture_column_ok(Relation rel, AttrNumber attnum)
{
	Form_pg_attribute att;

	if (attnum <= 0 || attnum > RelationGetNumberOfAttributes(rel))
		return false;
	att = TupleDescAttr(RelationGetDescr(rel), attnum - 1);
	return !att->attisdropped &&
		gdb_type_supported(att->atttypid, att->atttypmod) &&
		(gdb_type_class(att->atttypid) != GDB_TYPE_TEXT ||
		 get_collation_isdeterministic(att->attcollation));
}

/* The capture of rel in this statement, and what the server caches of it. */
static Capture *
capture_for(Relation rel)
{
	Capture    *c;
	GdbCacheInfo info;
	uint32		col;
	MemoryContext cxt;
	MemoryContext old;

	reset_if_new_transaction();
	for (c = captures; c; c = c->next)
		if (c->relid == RelationGetRelid(rel))
			return c;

	cxt = AllocSetContextCreate(capture_cxt, "gpudb statement capture",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	c = palloc0(sizeof(Capture));
	c->cxt = cxt;
	c->relid = RelationGetRelid(rel);
	c->relfilenode = gdb_rel_filenumber(rel);
	c->next = captures;
	captures = c;
	switch (gdb_cache_capture_entry(rel, &info))
	{
		case -1:
			/* the server went away: whatever it cached must stop answering */
			gdb_cache_bump(c->relid);
			break;
		case 1:
			for (col = 0; col < info.ncols; col++)
				if (!capture_column_ok(rel, info.attnums[col]))
					break;
			if (col < info.ncols || info.ncols > GDB_MAX_COLUMNS)
			{
				/* a column's type changed without a rewrite: stale copy */
				gdb_cache_bump(c->relid);
				break;
			}
			for (col = 0; col < info.ncols; col++)
				(void) gdb_columnset_add(&c->cs, rel, info.attnums[col], false);
			c->cached = true;
			break;
		default:
			break;
	}
	MemoryContextSwitchTo(old);
	return c;
}

static void
add_delete(Capture *c, HeapTuple old, uint64 xid)
{
	if (c->ndel == c->del_capacity)
	{
		c->del_capacity = Max(c->del_capacity * 2, 64);
		c->del = c->del ?
			repalloc_huge(c->del, sizeof(uint64) * 4 * c->del_capacity) :
			MemoryContextAllocHuge(c->cxt, sizeof(uint64) * 4 * c->del_capacity);
	}
	c->del[4 * c->ndel] = GDB_CTID(ItemPointerGetBlockNumber(&old->t_self),
								   ItemPointerGetOffsetNumber(&old->t_self));
	c->del[4 * c->ndel + 1] = xid;
	/* the server replays inserts and deletes in the order they happened */
	c->del[4 * c->ndel + 2] = c->batch ? c->batch->nrows : 0;
	/* which version: the server checks it is the one its row holds */
	c->del[4 * c->ndel + 3] = HeapTupleHeaderGetXmin(old->t_data);
	c->ndel++;
}

/* Make room for one more inserted row (doubling, columns copied). */
static void
grow_batch(Capture *c)
{
	GdbBatch	layout;
	GdbBatch   *nb;
	uint64		cap = Max(c->capacity * 2, 256);
	uint32		col;

	gdb_columnset_layout(&c->cs, &layout, cap, true);
	nb = MemoryContextAllocHuge(c->cxt, layout.total_bytes);
	memcpy(nb, &layout, sizeof(GdbBatch));
	if (c->batch)
	{
		nb->nrows = c->batch->nrows;
		for (col = 0; col < c->batch->ncols; col++)
		{
			memcpy(GDB_COL_PTR(nb, nb, col, char),
				   GDB_COL_PTR(c->batch, c->batch, col, char),
				   c->batch->nrows * gdb_kind_width(c->batch->cols[col].kind));
			if (c->batch->cols[col].has_nulls)
				memcpy((char *) nb + nb->cols[col].nulls_off,
					   (char *) c->batch + c->batch->cols[col].nulls_off,
					   c->batch->nrows);
		}
		pfree(c->batch);
	}
	c->ins = c->ins ?
		repalloc_huge(c->ins, sizeof(uint64) * 2 * cap) :
		MemoryContextAllocHuge(c->cxt, sizeof(uint64) * 2 * cap);
	c->batch = nb;
	c->capacity = cap;
}

static void
add_insert(Capture *c, Relation rel, HeapTuple tuple, uint64 xid)
{
	TupleDesc	desc = RelationGetDescr(rel);
	uint64		row;
	int			col;
	MemoryContext old;

	if (c->batch == NULL || c->batch->nrows == c->capacity)
		grow_batch(c);
	row = c->batch->nrows;
	old = MemoryContextSwitchTo(c->cxt);
	for (col = 0; col < c->cs.ncols; col++)
	{
		bool		isnull;
		Datum		d = heap_getattr(tuple, c->cs.attnums[col], desc, &isnull);

		gdb_batch_store_value(&c->cs, c->batch, col, row, d, isnull);
	}
	MemoryContextSwitchTo(old);
	GDB_COL_PTR(c->batch, c->batch, c->cs.ncols, int64)[row] = 0;
	c->ins[2 * row] = GDB_CTID(ItemPointerGetBlockNumber(&tuple->t_self),
							   ItemPointerGetOffsetNumber(&tuple->t_self));
	c->ins[2 * row + 1] = xid;
	c->batch->nrows++;
}

/*
 * Send one statement's changes of c.  False when the server could not be
 * reached or the connection broke; raises what gdb_server_try_call raises
 * (an interrupt) and 53200 when the batch buffer cannot be made.
 */
static bool
send_changes(Capture *c, const char *relname)
{
	GdbCacheChanges ch;
	StringInfoData body;
	GdbMsgPart	parts[2];
	GdbReply   *r;
	uint64		nins = c->batch ? c->batch->nrows : 0;
	int64		nstr = c->cs.dict ? gdb_dict_size(c->cs.dict) : 0;
	int			fd = -1;
	uint64		i;

	memset(&ch, 0, sizeof(ch));
	ch.key.dbid = MyDatabaseId;
	ch.key.relid = c->relid;
	ch.relfilenode = c->relfilenode;
	ch.ndeleted = c->ndel;
	ch.ninserted = nins;
	ch.nstrings = nstr;

	initStringInfo(&body);
	if (c->ndel > 0)
		appendBinaryStringInfo(&body, (char *) c->del, sizeof(uint64) * 4 * c->ndel);
	for (i = 0; i < nins; i++)
		appendBinaryStringInfo(&body, (char *) &c->ins[2 * i], sizeof(uint64));
	for (i = 0; i < nins; i++)
		appendBinaryStringInfo(&body, (char *) &c->ins[2 * i + 1], sizeof(uint64));
	for (i = 0; i < (uint64) nstr; i++)
	{
		text	   *t = DatumGetTextPP(gdb_dict_datum(c->cs.dict, i));
		uint32		l = VARSIZE_ANY_EXHDR(t);

		appendBinaryStringInfo(&body, (char *) &l, sizeof(l));
		appendBinaryStringInfo(&body, VARDATA_ANY(t), l);
	}
	if (nins > 0)
	{
		GdbBatch	layout;
		GdbBatch   *shared;
		uint32		col;

		gdb_columnset_layout(&c->cs, &layout, nins, true);
		shared = gdb_memfd_alloc(layout.total_bytes, &fd);
		memcpy(shared, &layout, sizeof(GdbBatch));
		shared->nrows = nins;
		for (col = 0; col < layout.ncols; col++)
		{
			memcpy(GDB_COL_PTR(shared, shared, col, char),
				   GDB_COL_PTR(c->batch, c->batch, col, char),
				   nins * gdb_kind_width(layout.cols[col].kind));
			if (layout.cols[col].has_nulls)
				memcpy((char *) shared + shared->cols[col].nulls_off,
					   (char *) c->batch + c->batch->cols[col].nulls_off, nins);
		}
	}
	parts[0].data = (const char *) &ch;
	parts[0].len = sizeof(ch);
	parts[1].data = body.data;
	parts[1].len = body.len;
	/* the capture channel: answered at once, whatever the server runs */
	r = gdb_capture_call(GDB_MSG_CACHE_CHANGES, parts, 2, fd);
	if (r == NULL)
		return false;
	if (r->status->err.status != GDB_OK)
		ereport(LOG,
				(errmsg("gpudb: the cached copy of \"%s\" could not follow a change and was dropped",
						relname ? relname : "?"),
				 errdetail("%s", r->status->err.message)));
	return true;
}

/*
 * Send what c captured, or mark the copy stale if that fails.  An error
 * (a cancel) marks it stale too, and is raised: the statement then fails,
 * and the copy stops answering until the next load.
 */
static void
flush_capture(Capture *c, const char *relname)
{
	volatile bool sent = false;

	if (!c->cached || (c->ndel == 0 && (c->batch == NULL || c->batch->nrows == 0)))
		return;
	PG_TRY();
	{
		sent = send_changes(c, relname);
	}
	PG_CATCH();
	{
		/* the copy can no longer follow: it must stop answering */
		gdb_cache_bump(c->relid);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (!sent)
	{
		gdb_cache_bump(c->relid);
		ereport(LOG,
				(errmsg("gpudb: could not send changes of \"%s\" to the GPU server; its cached copy stops answering until the next load",
						relname ? relname : "?")));
	}
}

/* End of a statement: send what it changed in rel. */
static void
flush_statement(Relation rel)
{
	Capture   **pp;

	if (!capture_current())
		return;
	for (pp = &captures; *pp; pp = &(*pp)->next)
		if ((*pp)->relid == RelationGetRelid(rel))
		{
			Capture    *c = *pp;

			*pp = c->next;
			/* rewritten within the transaction: the rows are not comparable */
			if (c->relfilenode != gdb_rel_filenumber(rel))
				gdb_cache_bump(c->relid);
			else
				flush_capture(c, RelationGetRelationName(rel));
			MemoryContextDelete(c->cxt);
			return;
		}
}

/*
 * gpudb_cache_invalidate() RETURNS trigger: the row and statement triggers
 * that gpu_cache_load installs on a cached table (see the file header).
 * Row level: capture the change.  Statement level: send the captured
 * changes; TRUNCATE bumps the change counter.  Never fails the triggering
 * statement because the GPU server cannot be reached (it marks the copy
 * stale instead); an error of its own (an interrupt while it waits on the
 * server, out of memory) marks the copy stale and is raised; raises 39P01
 * when not called as a trigger.
 */
PG_FUNCTION_INFO_V1(gpudb_cache_invalidate);
Datum
gpudb_cache_invalidate(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation	rel;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("gpudb_cache_invalidate() must be called as a trigger")));
	if (!TRIGGER_FIRED_AFTER(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("gpudb_cache_invalidate() must be fired AFTER the change"),
				 errhint("gpu_cache_load installs it; it is not meant for other triggers.")));
	rel = td->tg_relation;

	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
	{
		gdb_cache_bump(RelationGetRelid(rel));
		return PointerGetDatum(NULL);
	}
	if (TRIGGER_FIRED_FOR_STATEMENT(td->tg_event))
	{
		flush_statement(rel);
		return PointerGetDatum(NULL);
	}

	/* a row: without a server there is no copy to keep in step */
	if (!gpudb_preloaded)
		return PointerGetDatum(NULL);
	PG_TRY();
	{
		Capture    *c = capture_for(rel);
		uint64		xid = U64FromFullTransactionId(GetCurrentFullTransactionId());

		if (c->cached)
		{
			if (TRIGGER_FIRED_BY_DELETE(td->tg_event) ||
				TRIGGER_FIRED_BY_UPDATE(td->tg_event))
				add_delete(c, td->tg_trigtuple, xid);
			if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
				add_insert(c, rel, td->tg_trigtuple, xid);
			else if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
				add_insert(c, rel, td->tg_newtuple, xid);
		}
	}
	PG_CATCH();
	{
		/* a change not captured (an interrupt, out of memory): stale copy */
		gdb_cache_bump(RelationGetRelid(rel));
		PG_RE_THROW();
	}
	PG_END_TRY();
	return PointerGetDatum(NULL);
}
