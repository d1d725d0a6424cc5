/*-------------------------------------------------------------------------
 *
 * cache_query.c
 *	  The column cache answering a query (gdb_cache_groupby): the request
 *	  and the query's snapshot go to the GPU server, which checks that its
 *	  copy is valid for that snapshot, asks back for the statuses of the
 *	  xids of the rows changed since the load (gdb_xid_statuses, resolved
 *	  here against the snapshot), and runs the request over the copy; text
 *	  keys come back as strings and are interned into the query's
 *	  dictionary.  Loads, drops and change tracking are in cache.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/procarray.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "cache_internal.h"
#include "groupby.h"
#include "server_client.h"

/*
 * gdb_xid_statuses: for each full xid of xids[n], what the snapshot snap
 * makes of it (GDB_XID_*), in the order of heapam's visibility test: the
 * current transaction first, then "still running for the snapshot", then
 * commit status.  Committed xids older than every snapshot's horizon are
 * GDB_XID_ALL_VISIBLE.  An xid too old to map safely is reported as
 * GDB_XID_OWN so that the query reads the heap.
 */
static void
gdb_xid_statuses(const uint64 *xids, uint64 n, Snapshot snap, Relation rel,
				 GdbXidStatus *out)
{
	FullTransactionId next = ReadNextFullTransactionId();
	TransactionId horizon = GetOldestNonRemovableTransactionId(rel);
	uint64		i;

	for (i = 0; i < n; i++)
	{
		FullTransactionId fxid = FullTransactionIdFromU64(xids[i]);
		TransactionId xid = XidFromFullTransactionId(fxid);

		if (!FullTransactionIdPrecedes(fxid, next) ||
			U64FromFullTransactionId(next) - xids[i] > ((uint64) 1 << 31) - ((uint64) 1 << 24) ||
			!TransactionIdIsNormal(xid))
			out[i] = GDB_XID_OWN;
		else if (TransactionIdIsCurrentTransactionId(xid))
			out[i] = GDB_XID_OWN;
		else if (TransactionIdPrecedes(xid, gdb_transam_variables->oldestClogXid))
			out[i] = GDB_XID_OWN;	/* its status is gone: read the heap */
		else if (XidInMVCCSnapshot(xid, snap))
			out[i] = GDB_XID_INVISIBLE;
		else if (TransactionIdDidCommit(xid))
			out[i] = TransactionIdPrecedes(xid, horizon) ?
				GDB_XID_ALL_VISIBLE : GDB_XID_VISIBLE;
		else
			out[i] = GDB_XID_ABORTED;
	}
}

/*
 * Which build columns of q's joins hold codes of q's own dictionary (text
 * keys and text payload columns), into mask[j] bit c for join j's build
 * column c: the server re-encodes them into its entry's dictionary.
 */
static void
join_text_columns(const GdbQuery *q, uint64 *mask)
{
	uint32		j,
				k;

	for (j = 0; j < q->req->njoins && j < GDB_MAX_JOINS; j++)
	{
		const GdbJoinSpec *spec = &q->req->joins[j];

		mask[j] = 0;
		if (spec->build_keep != 0)
			continue;			/* kept: the server's own codes */
		for (k = 0; k < spec->nkeys && k < GDB_MAX_JOIN_KEYS; k++)
			if (gdb_column_is_text(&q->cs, spec->probe_cols[k]))
				mask[j] |= UINT64CONST(1) << k;
		for (k = 0; k < spec->npayload && spec->nkeys + k < 64; k++)
			if (gdb_column_is_text(&q->cs, GDB_JOIN_COL(spec->payload_first + k)))
				mask[j] |= UINT64CONST(1) << (spec->nkeys + k);
	}
}

/* see groupby.h */
GdbBatch *
gdb_cache_groupby(GdbQuery *q, GdbStats *stats, int *cache_state)
{
	GdbCacheQuery *cq;
	StringInfoData xids;
	StringInfoData texts;
	GdbMsgPart	parts[4];
	GdbReply   *r;
	GdbBatch   *result;
	int64		ntext;
	Size		text_limit;
	int64		i;
	char	   *p;
	char	   *end;

	*cache_state = GDB_CACHE_ABSENT;
	q->kept = false;
	if (!gpudb_use_cache || !gpudb_enabled || !gpudb_preloaded)
		return NULL;

	/*
	 * text sort keys sort by byte-order ranks of the query's dictionary
	 * (text_rank.c), which the server's cached columns do not have
	 */
	if (gdb_columnset_has_ranks(&q->cs))
	{
		*cache_state = GDB_CACHE_TEXT_ORDER;
		return NULL;
	}

	/*
	 * the server evaluates text operations without the catalog: not ILIKE
	 * under a collation whose LC_CTYPE is not C (text_tables.c)
	 */
	if (!gdb_tables_server_ok(q->req))
	{
		*cache_state = GDB_CACHE_TEXT_COLLATION;
		return NULL;
	}

	/*
	 * Serializable snapshot isolation needs a predicate lock on what the
	 * query read and a check of every row version a concurrent transaction
	 * wrote that the snapshot does not see (heapam's
	 * PredicateLockRelation and HeapCheckForSerializableConflictOut); the
	 * cache keeps no such record of its rows, so a SERIALIZABLE transaction
	 * reads the heap, through a scan that does both.
	 */
	if (IsolationIsSerializable())
	{
		*cache_state = GDB_CACHE_SERIALIZABLE;
		return NULL;
	}
	if (!gdb_server_connect())
		return NULL;
	if (gdb_capture_pending(RelationGetRelid(q->rel)))
	{
		*cache_state = GDB_CACHE_OWN_CHANGES;
		return NULL;
	}

	cq = palloc0(sizeof(GdbCacheQuery));
	cq->key.dbid = MyDatabaseId;
	cq->key.relid = RelationGetRelid(q->rel);
	cq->relfilenode = gdb_rel_filenumber(q->rel);
	cq->change_count = gdb_cache_change_count(cq->key.relid);
	cq->ncols = q->cs.ncols;
	for (i = 0; i < q->cs.ncols; i++)
	{
		cq->attnums[i] = q->cs.attnums[i];
		cq->typids[i] = q->cs.typids[i];
		cq->typmods[i] = q->cs.typids[i] == NUMERICOID ? q->cs.typmods[i] : -1;
	}
	for (i = 0; i < GDB_MAX_COLUMNS; i++)
	{
		int32		src = gdb_request_result_source(q->req, (uint32) i);

		cq->key_is_text[i] = gdb_column_is_text(&q->cs, src);
	}
	cq->req = *q->req;
	cq->keep_id = q->keep_id;
	if (q->keep_id != 0)
	{
		cq->keep_for.dbid = MyDatabaseId;
		cq->keep_for.relid = q->keep_for;
	}

	/*
	 * a join probe's text keys and payload: codes of this query's
	 * dictionary, all of whose strings travel below (the build sides were
	 * read first), for the server to re-encode
	 */
	join_text_columns(q, cq->join_text);
	initStringInfo(&xids);
	gdb_cache_snapshot_info(gdb_query_snapshot(q), &cq->snapshot, &xids);

	/*
	 * the dictionary's strings: the filter's text constants and a join's
	 * build-side strings
	 */
	initStringInfo(&texts);
	ntext = q->cs.dict ? gdb_dict_size(q->cs.dict) : 0;
	text_limit = GDB_CACHE_TEXT_PART_LIMIT;
	if (q->req->njoins > 0 && ntext > 0 && gdb_fault_dictionary_limit > 0)
	{
		gdb_fault_dictionary_limit--;
		text_limit = GDB_FAULT_DICTIONARY_BYTES;
	}
	for (i = 0; i < ntext; i++)
	{
		text	   *t = DatumGetTextPP(gdb_dict_datum(q->cs.dict, i));
		uint32		l = VARSIZE_ANY_EXHDR(t);

		/*
		 * one message part holds them (a StringInfo): a join whose build
		 * sides bring more strings than that reads the heap
		 */
		if ((Size) texts.len + sizeof(l) + l >= text_limit)
		{
			*cache_state = GDB_CACHE_JOIN_TEXT;
			return NULL;
		}
		appendBinaryStringInfo(&texts, (char *) &l, sizeof(l));
		appendBinaryStringInfo(&texts, VARDATA_ANY(t), l);
	}
	cq->ntext = ntext;

	parts[0].data = (const char *) cq;
	parts[0].len = sizeof(GdbCacheQuery);
	parts[1].data = xids.data;
	parts[1].len = xids.len;
	parts[2].data = texts.data;
	parts[2].len = texts.len;
	/* a join probe's build sides */
	parts[3].data = (const char *) q->req->join_data;
	parts[3].len = q->req->njoin_bytes;
	r = gdb_server_call(GDB_MSG_CACHE_GROUPBY, parts, q->req->njoin_bytes > 0 ? 4 : 3, -1);
	if (r->status->err.status == GDB_OK &&
		r->status->cache_state == GDB_CACHE_NEED_XIDS)
	{
		/* rows changed since the load: their xids, seen by our snapshot */
		uint64		n = (uint64) r->status->value;
		GdbXidStatus *st;
		GdbMsgPart	xpart;

		/*
		 * The server now waits for our answer: an error before it is sent
		 * (a cancel while the statuses are looked up) closes the
		 * connection, so that the server stops waiting at once.
		 */
		PG_TRY();
		{
			if (n * sizeof(uint64) > r->rest_len)
				elog(ERROR, "gpudb: malformed cache reply");
			st = palloc(Max(n, 1));
			gdb_xid_statuses((const uint64 *) r->rest, n, gdb_query_snapshot(q),
							 q->rel, st);
		}
		PG_CATCH();
		{
			gdb_server_disconnect();
			PG_RE_THROW();
		}
		PG_END_TRY();
		xpart.data = (const char *) st;
		xpart.len = n;
		r = gdb_server_call(GDB_MSG_CACHE_XIDS, &xpart, 1, -1);
	}
	*cache_state = r->status->cache_state;
	if (r->status->err.status != GDB_OK)
		gdb_raise_status(&r->status->err);
	if (r->status->cache_state != GDB_CACHE_USED)
		return NULL;
	if (r->status->result_bytes + r->status->strings_bytes > r->rest_len ||
		r->status->result_bytes < sizeof(GdbBatch))
		elog(ERROR, "gpudb: malformed cache reply");

	/*
	 * the result where it came, in the reply's payload (memory of this
	 * context too, freed with it, and nothing frees a result batch on its
	 * own): no second copy of a large result and of its pages; a copy only
	 * where the payload would leave its words less aligned than palloc's
	 */
	if ((uintptr_t) r->rest % MAXIMUM_ALIGNOF == 0)
		result = (GdbBatch *) r->rest;
	else
	{
		result = MemoryContextAllocHuge(CurrentMemoryContext, r->status->result_bytes);
		memcpy(result, r->rest, r->status->result_bytes);
	}
	*stats = r->status->stats;
	if (q->keep_id != 0 && r->status->value == 1)
	{
		/* kept by the server: only its header came (GdbCacheQuery) */
		if (r->status->result_bytes != sizeof(GdbBatch))
			elog(ERROR, "gpudb: malformed cache reply");
		q->kept = true;
		return result;
	}

	/* text keys: the server's codes become codes of this query's dictionary */
	p = r->rest + r->status->result_bytes;
	end = p + r->status->strings_bytes;
	for (i = 0; i < GDB_MAX_COLUMNS && i < result->ncols; i++)
	{
		int64	   *vals = GDB_COL_PTR(result, result, i, int64);
		uint64		row;

		if (!cq->key_is_text[i])
			continue;
		if (q->cs.dict == NULL)
			q->cs.dict = gdb_dict_create();
		for (row = 0; row < result->nrows; row++)
		{
			uint32		l;

			if (p + sizeof(uint32) > end)
				elog(ERROR, "gpudb: malformed cache reply");
			memcpy(&l, p, sizeof(uint32));
			p += sizeof(uint32);
			if (l == 0xFFFFFFFF)
				continue;
			if (p + l > end)
				elog(ERROR, "gpudb: malformed cache reply");
			vals[row] = gdb_dict_intern(q->cs.dict, p, l);
			p += l;
		}
	}
	return result;
}

/* see groupby.h */
void
gdb_cache_release_kept(const uint64 *ids, int n)
{
	GdbMsgPart	part;

	if (n <= 0)
		return;
	part.data = (const char *) ids;
	part.len = sizeof(uint64) * n;
	(void) gdb_server_try_call(GDB_MSG_JOIN_RELEASE, &part, 1, -1);
}
