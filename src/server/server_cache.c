/*-------------------------------------------------------------------------
 *
 * server_cache.c
 *	  The GPU server's column cache: entries (one per cached relation),
 *	  loading, the memory budget with least-recently-used eviction, captured
 *	  changes and per-row visibility against each query's snapshot (the
 *	  queries answered from it: server_cache_query.c).  Runs in the GPU
 *	  server process only;
 *	  gpu_server.c dispatches the requests here.  The backend side is
 *	  cache.c (loading, queries) and cache_capture.c (change capture).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "gpudb.h"
#include "gpu_server.h"
#include "server_cache_internal.h"


/* A row whose visibility still depends on the snapshot. */
#define GDB_MAX_DELETERS 4		/* xmax candidates kept for one row version */

/*
 * A row whose visibility still depends on the snapshot.  A row version can
 * be deleted by several transactions in turn only when the earlier ones
 * aborted (the row lock), so it is deleted for a snapshot iff one of its
 * deleters is visible to it; all are kept, none overwritten.
 */
typedef struct PendingRow
{
	uint32		row;			/* hash key */
	uint32		nxmax;
	uint64		xmin;			/* inserting full xid, 0 = loaded */
	uint64		xmax[GDB_MAX_DELETERS];	/* deleting full xids */
} PendingRow;

typedef struct InsertedCtid
{
	uint64		ctid;			/* hash key */
	uint32		row;
	uint32		xmin;			/* its inserting xid, as the tuple header holds it */
} InsertedCtid;

static CacheEntry *entries = NULL;
static int64 next_cache_id = 1;

/* ---- the cache ---- */

static uint64
budget_bytes(void)
{
	uint64		b = (uint64) gpudb_cache_size_kb * 1024;

	if (gpudb_device_memory_limit_kb > 0)
		b = Min(b, (uint64) gpudb_device_memory_limit_kb * 1024);
	return b;
}

uint64
srv_cache_bytes(const CacheEntry *except)
{
	uint64		sum = 0;
	CacheEntry *e;

	for (e = entries; e; e = e->next)
		if (e != except && e->store)
			sum += srv_store_bytes(e->store);
	return sum;
}

static void
entry_free(CacheEntry *e)
{
	srv_store_free(e->store);
	gdb_cuda_code_map_free(e->dxlat);
	MemoryContextDelete(e->mcxt);
}

static void
entry_unlink(CacheEntry *victim, bool free_store)
{
	CacheEntry **pp;

	for (pp = &entries; *pp; pp = &(*pp)->next)
	{
		if (*pp == victim)
		{
			*pp = victim->next;
			break;
		}
	}
	if (!free_store)
		victim->store = NULL;
	entry_free(victim);
}

void
srv_cache_drop_all(const char *why)
{
	while (entries)
	{
		ereport(LOG,
				(errmsg("gpudb server: dropping cache of relation %u in database %u: %s",
						entries->key.relid, entries->key.dbid, why)));
		entry_unlink(entries, true);
	}
}

/* Evict ready entries, least recently used first, until need bytes fit. */
static bool
make_room(uint64 need, const CacheEntry *keep)
{
	while (srv_cache_bytes(keep) + need > budget_bytes())
	{
		CacheEntry *e,
				   *lru = NULL;

		for (e = entries; e; e = e->next)
			if (e != keep && e->state == GDB_CACHE_STATE_READY &&
				(lru == NULL || Max(e->last_use, e->loaded_at) <
				 Max(lru->last_use, lru->loaded_at)))
				lru = e;
		if (lru == NULL)
			return false;
		ereport(LOG,
				(errmsg("gpudb server: evicting cache of relation %u (least recently used)",
						lru->key.relid)));
		entry_unlink(lru, true);
	}
	return true;
}


/* see server_cache_internal.h */
CacheEntry *
srv_cache_entry_for(const GdbCacheKey *key, bool ready_only)
{
	CacheEntry *e;

	for (e = entries; e; e = e->next)
		if (e->key.dbid == key->dbid && e->key.relid == key->relid &&
			(!ready_only || e->state == GDB_CACHE_STATE_READY))
			return e;
	return NULL;
}
static CacheEntry *
find_entry_by_id(int64 id)
{
	CacheEntry *e;

	for (e = entries; e; e = e->next)
		if (e->id == id)
			return e;
	return NULL;
}

void
srv_handle_cache_create(int s, char *payload, size_t len)
{
	GdbCacheCreate *cc = (GdbCacheCreate *) payload;
	GdbStatusReply st;
	CacheEntry *e;
	uint64		est;
	int			rc;
	GdbError	err = {0};

	if (len < sizeof(GdbCacheCreate) || cc->ncols > GDB_MAX_COLUMNS ||
		cc->snapshot.nxip > GDB_MAX_XIP ||
		len < sizeof(GdbCacheCreate) + cc->snapshot.nxip * sizeof(uint32))
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed cache create request");
		return;
	}
	if (cc->ncols >= GDB_MAX_COLUMNS)
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "too many columns to cache");
		return;
	}
	/* the visibility column follows the cached ones */
	cc->kinds[cc->ncols] = GDB_KIND_INT64;
	cc->has_nulls[cc->ncols] = 0;
	est = gdb_batch_layout(NULL, cc->ncols + 1, cc->kinds, cc->has_nulls,
						   Max(cc->est_rows, 1)) + sizeof(uint64) * Max(cc->est_rows, 1);
	if (!make_room(est, NULL))
	{
		srv_reply_error(s, GDB_ERR_OUT_OF_MEMORY,
					"the load needs about " UINT64_FORMAT " MB but gpudb.cache_size leaves "
					UINT64_FORMAT " MB free of " UINT64_FORMAT " MB (entries being loaded cannot be evicted)",
					est >> 20, (budget_bytes() - Min(budget_bytes(), srv_cache_bytes(NULL))) >> 20,
					budget_bytes() >> 20);
		return;
	}

	e = MemoryContextAllocZero(TopMemoryContext, sizeof(CacheEntry));
	e->mcxt = AllocSetContextCreate(TopMemoryContext, "gpudb cache entry",
									ALLOCSET_DEFAULT_SIZES);
	e->id = next_cache_id++;
	e->key = cc->key;
	e->relfilenode = cc->relfilenode;
	e->state = GDB_CACHE_STATE_LOADING;
	e->owner = s;
	e->ncols = cc->ncols;
	memcpy(e->attnums, cc->attnums, sizeof(e->attnums));
	memcpy(e->typids, cc->typids, sizeof(e->typids));
	memcpy(e->typmods, cc->typmods, sizeof(e->typmods));
	memcpy(e->kinds, cc->kinds, sizeof(e->kinds));
	memcpy(e->has_nulls, cc->has_nulls, sizeof(e->has_nulls));
	e->change_count = cc->change_count;
	e->snap = cc->snapshot;
	e->xip = MemoryContextAlloc(e->mcxt, sizeof(uint32) * Max(cc->snapshot.nxip, 1));
	memcpy(e->xip, payload + sizeof(GdbCacheCreate), sizeof(uint32) * cc->snapshot.nxip);
	e->load_start = GetCurrentTimestamp();
	e->vis_col = cc->ncols;
	e->est_rows = Max(cc->est_rows, 1);
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(uint64);
		ctl.entrysize = sizeof(InsertedCtid);
		ctl.hcxt = e->mcxt;
		e->inserted = hash_create("gpudb inserted ctids", 1024, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		ctl.keysize = sizeof(uint32);
		ctl.entrysize = sizeof(PendingRow);
		e->pending = hash_create("gpudb pending rows", 1024, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}

	rc = srv_fault_alloc(&err);
	if (rc != GDB_OK)
		;
	else
		rc = srv_store_create(cc->ncols + 1, cc->kinds, cc->has_nulls,
							  Max(cc->est_rows, 1), Max(cc->shard_rows, 1), &e->store, &err);
	if (rc != GDB_OK)
	{
		e->store = NULL;
		MemoryContextDelete(e->mcxt);
		pfree(e);
		srv_check_device(rc);
		srv_reply_error(s, rc, "could not allocate the cache: %s", err.message);
		return;
	}
	e->next = entries;
	entries = e;
	memset(&st, 0, sizeof(st));
	st.value = e->id;
	srv_reply(s, &st, NULL, 0, NULL, 0);
}

/*
 * Record the heap addresses of rows appended to e's store.  The array
 * starts at the load's row estimate (so that a load whose estimate holds
 * allocates it once, instead of copying it at every doubling) and doubles
 * from there.
 */
static bool
add_ctids(CacheEntry *e, const uint64 *ctids, uint64 n)
{
	if (e->nctids + n > e->cap_ctids)
	{
		uint64		cap = Max(Max(e->cap_ctids * 2, e->nctids + n),
							  e->cap_ctids == 0 ? e->est_rows : 0);
		uint64	   *nc = MemoryContextAllocExtended(e->mcxt, sizeof(uint64) * cap,
												   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
		uint8	   *nd = MemoryContextAllocExtended(e->mcxt, cap / 8 + 1,
												   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM | MCXT_ALLOC_ZERO);

		if (nc == NULL || nd == NULL)
		{
			if (nc)
				pfree(nc);
			if (nd)
				pfree(nd);
			return false;
		}
		if (e->ctids)
		{
			memcpy(nc, e->ctids, sizeof(uint64) * e->nctids);
			memcpy(nd, e->dead, e->cap_ctids / 8 + 1);
			pfree(e->ctids);
			pfree(e->dead);
		}
		e->ctids = nc;
		e->dead = nd;
		e->cap_ctids = cap;
	}
	memcpy(e->ctids + e->nctids, ctids, sizeof(uint64) * n);
	e->nctids += n;
	return true;
}

void
srv_handle_cache_append(int s, char *payload, size_t len, int fd)
{
	GdbCacheRef *ref = (GdbCacheRef *) payload;
	GdbStatusReply st;
	CacheEntry *e;
	GdbBatch   *batch;
	struct stat fst;
	int			rc;

	memset(&st, 0, sizeof(st));
	e = len >= sizeof(GdbCacheRef) ? find_entry_by_id(ref->cache_id) : NULL;
	if (e == NULL || e->owner != s || e->state != GDB_CACHE_STATE_LOADING)
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "no cache entry being loaded by this session");
		return;
	}
	/* the rows' ctids follow the batch in its buffer (server_protocol.h) */
	batch = srv_map_batch(s, fd);
	if (batch == NULL || fstat(fd, &fst) < 0 ||
		(uint64) fst.st_size < batch->total_bytes ||
		((uint64) fst.st_size - batch->total_bytes) / sizeof(uint64) < batch->nrows)
	{
		if (batch)
			srv_unmap_batch(batch);
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed batch");
		return;
	}
	rc = srv_fault_request(&st.err);
	if (rc == GDB_OK)
		rc = srv_fault_alloc(&st.err);
	if (rc != GDB_OK)
		;
	else
		rc = srv_store_append(e->store, batch, &st.stats, &st.err);
	if (rc == GDB_OK &&
		!add_ctids(e, (const uint64 *) ((const char *) batch + batch->total_bytes),
				   batch->nrows))
	{
		rc = GDB_ERR_OUT_OF_MEMORY;
		snprintf(st.err.message, sizeof(st.err.message),
				 "out of host memory for the row addresses");
	}
	srv_unmap_batch(batch);
	if (rc == GDB_OK && srv_cache_bytes(NULL) > budget_bytes() &&
		!make_room(srv_store_bytes(e->store), e))
	{
		rc = GDB_ERR_OUT_OF_MEMORY;
		snprintf(st.err.message, sizeof(st.err.message),
				 "the cache of this relation has grown to " UINT64_FORMAT " MB, over gpudb.cache_size ("
				 UINT64_FORMAT " MB) with the other entries",
				 srv_store_bytes(e->store) >> 20, budget_bytes() >> 20);
	}
	srv_check_device(rc);
	st.err.status = rc;
	srv_reply(s, &st, NULL, 0, NULL, 0);
	/* a failed load is over: the backend raises the error */
	if (rc != GDB_OK && find_entry_by_id(ref->cache_id) == e)
		entry_unlink(e, true);
}

/* see server_cache_internal.h */
bool
srv_cache_intern_strings(CacheEntry *e, const char *p, const char *end, uint64 n,
			   int64 *codes)
{
	MemoryContext old = MemoryContextSwitchTo(e->mcxt);
	uint64		i;

	if (e->dict == NULL)
		e->dict = gdb_dict_create();
	for (i = 0; i < n; i++)
	{
		uint32		l;
		int64		code;

		if (p + sizeof(uint32) > end)
			break;
		memcpy(&l, p, sizeof(uint32));
		p += sizeof(uint32);
		if (l > (uint64) (end - p))
			break;
		code = gdb_dict_intern(e->dict, p, l);
		if (codes)
			codes[i] = code;
		p += l;
	}
	MemoryContextSwitchTo(old);
	return i == n;
}

void
srv_handle_cache_finish(int s, char *payload, size_t len)
{
	GdbCacheRef *ref = (GdbCacheRef *) payload;
	CacheEntry *e;
	char	   *end = payload + len;
	GdbStatusReply st;

	e = len >= sizeof(GdbCacheRef) ? find_entry_by_id(ref->cache_id) : NULL;
	if (e == NULL || e->owner != s || e->state != GDB_CACHE_STATE_LOADING)
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "no cache entry being loaded by this session");
		return;
	}
	if (!srv_cache_intern_strings(e, payload + sizeof(GdbCacheRef), end, ref->nstrings, NULL))
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed dictionary");
		return;
	}
	e->state = GDB_CACHE_STATE_LOADED;
	e->nloaded = e->nctids;
	e->loaded_at = GetCurrentTimestamp();
	e->load_ms = (double) (e->loaded_at - e->load_start) / 1000.0;
	memset(&st, 0, sizeof(st));
	st.value = (int64) srv_store_rows(e->store);
	srv_reply(s, &st, NULL, 0, NULL, 0);
}

/* COMMIT makes a loaded entry ready and replaces older ones; ABORT drops. */
void
srv_handle_cache_end(int s, char *payload, size_t len, bool commit)
{
	GdbCacheRef *ref = (GdbCacheRef *) payload;
	CacheEntry *e = len >= sizeof(GdbCacheRef) ? find_entry_by_id(ref->cache_id) : NULL;
	GdbStatusReply st;

	memset(&st, 0, sizeof(st));
	if (e && e->owner == s)
	{
		if (commit && e->state == GDB_CACHE_STATE_LOADED)
		{
			CacheEntry *o,
					   *next;

			for (o = entries; o; o = next)
			{
				next = o->next;
				if (o != e && o->key.dbid == e->key.dbid && o->key.relid == e->key.relid &&
					o->state == GDB_CACHE_STATE_READY)
					entry_unlink(o, true);
			}
			e->state = GDB_CACHE_STATE_READY;
			e->owner = -1;
			st.value = 1;
		}
		else
			entry_unlink(e, true);
	}
	srv_reply(s, &st, NULL, 0, NULL, 0);
}

void
srv_handle_cache_drop(int s, char *payload, size_t len)
{
	GdbCacheKey *key = (GdbCacheKey *) payload;
	GdbStatusReply st;
	CacheEntry *e,
			   *next;

	memset(&st, 0, sizeof(st));
	if (len >= sizeof(GdbCacheKey))
		for (e = entries; e; e = next)
		{
			next = e->next;
			/* relid 0: every entry of a dropped database */
			if (e->key.dbid == key->dbid &&
				(key->relid == 0 || (e->key.relid == key->relid &&
									 e->state == GDB_CACHE_STATE_READY)))
			{
				entry_unlink(e, true);
				st.value = 1;
			}
		}
	srv_reply(s, &st, NULL, 0, NULL, 0);
}

void
srv_handle_cache_status(int s, char *payload, size_t len)
{
	GdbCacheKey *key = (GdbCacheKey *) payload;
	GdbStatusReply st;
	int			n;
	GdbCacheInfo *info;

	info = srv_cache_status_array(len >= sizeof(GdbCacheKey) ? key->dbid : 0, &n);
	memset(&st, 0, sizeof(st));
	st.value = n;
	srv_reply(s, &st, info, sizeof(GdbCacheInfo) * n, NULL, 0);
	pfree(info);
}

/* see gpu_server.h */
GdbCacheInfo *
srv_cache_status_array(uint32 dbid, int *nout)
{
	CacheEntry *e;
	int			n = 0;
	GdbCacheInfo *info;
	uint32		c;

	for (e = entries; e; e = e->next)
		n++;
	info = palloc0(sizeof(GdbCacheInfo) * Max(n, 1));
	n = 0;
	for (e = entries; e; e = e->next)
	{
		GdbCacheInfo *i = &info[n];

		if (dbid != 0 && dbid != e->key.dbid)
			continue;
		i->key = e->key;
		i->state = e->state;
		i->ncols = e->ncols;
		memcpy(i->attnums, e->attnums, sizeof(i->attnums));
		i->change_count = e->change_count;
		i->rows = srv_store_rows(e->store);
		i->device_bytes = srv_use_gpu ? srv_store_bytes(e->store) : 0;
		i->host_bytes = (srv_use_gpu ? 0 : srv_store_bytes(e->store)) + e->cap_ctids / 8 +
			sizeof(uint64) * e->cap_ctids;
		i->load_ms = e->load_ms;
		i->hits = e->hits;
		i->last_use = e->last_use;
		i->loaded_at = e->loaded_at;
		i->relfilenode = e->relfilenode;
		i->nshards = Min(srv_store_nshards(e->store), GDB_INFO_MAX_SHARDS);
		for (c = 0; c < i->nshards; c++)
			srv_store_shard_info(e->store, c, &i->shard_device[c], &i->shard_rows[c],
								 &i->shard_bytes[c]);
		n++;
	}
	*nout = n;
	return info;
}

static bool
xid_in(uint32 xid, const uint32 *xip, uint32 n)
{
	uint32		i;

	for (i = 0; i < n; i++)
		if (xip[i] == xid)
			return true;
	return false;
}

static bool
xid_precedes(uint32 a, uint32 b)
{
	return (int32) (a - b) < 0;
}

/* see server_cache_internal.h */
bool
srv_cache_snapshot_covers(const CacheEntry *e, const GdbSnapshotInfo *q, const uint32 *qxip)
{
	uint32		i;

	if (xid_precedes(q->xmax, e->snap.xmax))
		return false;
	if (q->overflowed || e->snap.overflowed)
		return !xid_precedes(q->xmin, e->snap.xmax);
	for (i = 0; i < q->nxip; i++)
		if (xid_precedes(qxip[i], e->snap.xmax) &&
			!xid_in(qxip[i], e->xip, e->snap.nxip))
			return false;
	return true;
}

/* codes[] for n strings, reusing the last array */
static int64 *
repalloc0_codes(int64 *codes, uint64 n)
{
	if (codes)
		pfree(codes);
	return palloc0(sizeof(int64) * Max(n, 1));
}

/* The row at heap address ctid: an appended row first, then a loaded one. */
static int64
find_row(CacheEntry *e, uint64 ctid)
{
	InsertedCtid *ic = hash_search(e->inserted, &ctid, HASH_FIND, NULL);
	uint64		lo = 0,
				hi = e->nloaded;

	if (ic)
		return ic->row;
	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;

		if (e->ctids[mid] < ctid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < e->nloaded && e->ctids[lo] == ctid) ? (int64) lo : -1;
}

static PendingRow *
pending_row(CacheEntry *e, uint32 row)
{
	bool		found;
	PendingRow *p = hash_search(e->pending, &row, HASH_ENTER, &found);

	if (!found)
	{
		p->xmin = 0;
		p->nxmax = 0;
	}
	return p;
}

/*
 * Is the deleted version (heap address ctid, tuple xmin xmin) the one row
 * of e holds?  Appended rows remember their inserting xid; loaded rows were
 * inserted by a transaction the load saw as committed (or frozen).
 */
static bool
version_matches(CacheEntry *e, int64 row, uint64 ctid, uint32 xmin)
{
	if ((uint64) row >= e->nloaded)
	{
		InsertedCtid *ic = hash_search(e->inserted, &ctid, HASH_FIND, NULL);

		return ic && ic->row == (uint32) row && ic->xmin == xmin;
	}
	if (xmin < 3)				/* bootstrap or frozen */
		return true;
	if (e->snap.overflowed)		/* the load's running xids are not all known */
		return xid_precedes(xmin, e->snap.xmin);
	return xid_precedes(xmin, e->snap.xmax) && !xid_in(xmin, e->xip, e->snap.nxip);
}

/*
 * Apply one statement's captured changes to e: deleted rows get their
 * deleting xid, inserted rows are appended (visibility 0) with their
 * inserting xid.  Text codes of the inserted batch are mapped into e's
 * dictionary.  Returns a GdbStatus; on failure e must be dropped.
 */
static int
apply_changes(CacheEntry *e, const GdbCacheChanges *ch, const uint64 *del,
			  const uint64 *ins_ctids, const uint64 *ins_xids,
			  int64 *codes, GdbBatch *batch, GdbError *err)
{
	uint64		i,
				ins = 0;
	uint32		c;
	uint64		base = srv_store_rows(e->store);
	int			rc;

	if (ch->ninserted > 0)
	{
		if (batch->ncols != e->ncols + 1 || batch->nrows != ch->ninserted)
		{
			snprintf(err->message, sizeof(err->message), "inserted rows do not match the cache");
			return GDB_ERR_BAD_REQUEST;
		}
		for (c = 0; c < e->ncols; c++)
		{
			int64	   *vals;
			const uint8_t *nulls;

			if (e->typids[c] != TEXTOID && e->typids[c] != VARCHAROID &&
				e->typids[c] != BPCHAROID)
				continue;
			vals = GDB_COL_PTR(batch, batch, c, int64);
			nulls = GDB_NULL_PTR(batch, batch, c);
			for (i = 0; i < batch->nrows; i++)
				if (!(nulls && nulls[i]))
				{
					if (vals[i] < 0 || (uint64) vals[i] >= ch->nstrings)
					{
						snprintf(err->message, sizeof(err->message), "text code out of range");
						return GDB_ERR_BAD_REQUEST;
					}
					vals[i] = codes[vals[i]];
				}
		}
		rc = srv_fault_request(err);
		if (rc == GDB_OK)
			rc = srv_fault_alloc(err);
		if (rc != GDB_OK)
			return rc;
		/* appended invisible; they become rows of the cache in event order */
		{
			GdbStats	stats = {0};

			rc = srv_store_append(e->store, batch, &stats, err);
		}
		if (rc != GDB_OK)
			return rc;
		if (!add_ctids(e, ins_ctids, ch->ninserted))
			return GDB_ERR_OUT_OF_MEMORY;
		e->has_invisible = true;
	}

	/* replay inserts and deletes in the order the statement made them */
	for (i = 0; i <= ch->ndeleted; i++)
	{
		uint64		upto = i < ch->ndeleted ? Min(del[4 * i + 2], ch->ninserted) : ch->ninserted;
		int64		row;
		PendingRow *p;

		for (; ins < upto; ins++)
		{
			uint32		r = (uint32) (base + ins);
			InsertedCtid *ic = hash_search(e->inserted, &ins_ctids[ins], HASH_ENTER, NULL);

			ic->row = r;
			ic->xmin = (uint32) ins_xids[ins];
			pending_row(e, r)->xmin = ins_xids[ins];
		}
		if (i == ch->ndeleted)
			break;
		row = find_row(e, del[4 * i]);
		/*
		 * The deleted version must be a live row of the cache, the very
		 * version its row holds: an appended row inserted by the xid the
		 * version carries, or a loaded row whose xmin the load saw as
		 * committed.  Anything else means the ctid was reused by a row this
		 * copy has not seen yet (changes arriving out of order): never
		 * guess, drop the copy.
		 */
		if (row < 0 || (e->dead[row / 8] & (1 << (row % 8))) ||
			!version_matches(e, row, del[4 * i], (uint32) del[4 * i + 3]))
		{
			snprintf(err->message, sizeof(err->message),
					 "a deleted row (ctid " UINT64_FORMAT ") is not a live row of the cache",
					 del[4 * i]);
			return GDB_ERR_BAD_REQUEST;
		}
		p = pending_row(e, (uint32) row);
		if (p->nxmax == GDB_MAX_DELETERS)
		{
			snprintf(err->message, sizeof(err->message),
					 "a row was deleted by more than %d unresolved transactions",
					 GDB_MAX_DELETERS);
			return GDB_ERR_BAD_REQUEST;
		}
		p->xmax[p->nxmax++] = del[4 * i + 1];
	}
	return GDB_OK;
}

void
srv_handle_cache_changes(int s, char *payload, size_t len, int fd)
{
	GdbCacheChanges *ch = (GdbCacheChanges *) payload;
	GdbStatusReply st;
	const uint64 *del,
			   *ins_ctids,
			   *ins_xids;
	char	   *p,
			   *end = payload + len;
	int64	   *codes = NULL;
	GdbBatch   *batch = NULL;
	size_t		blen = 0;
	CacheEntry *e,
			   *next;

	memset(&st, 0, sizeof(st));
	if (len < sizeof(GdbCacheChanges) ||
		(len - sizeof(GdbCacheChanges)) / 8 < 4 * ch->ndeleted + 2 * ch->ninserted)
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed changes");
		return;
	}
	del = (const uint64 *) (payload + sizeof(GdbCacheChanges));
	ins_ctids = del + 4 * ch->ndeleted;
	ins_xids = ins_ctids + ch->ninserted;
	p = (char *) (ins_xids + ch->ninserted);
	if (ch->ninserted > 0)
	{
		struct stat sb;

		if (fd < 0 || fstat(fd, &sb) < 0 || (size_t) sb.st_size < sizeof(GdbBatch))
		{
			srv_reply_error(s, GDB_ERR_BAD_REQUEST, "inserted rows missing");
			return;
		}
		blen = sb.st_size;
		/* a private copy-on-write mapping: text codes are rewritten */
		batch = mmap(NULL, blen, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		if (batch == MAP_FAILED || batch->magic != GDB_BATCH_MAGIC ||
			batch->total_bytes > blen || batch->ncols > GDB_MAX_COLUMNS)
		{
			if (batch != MAP_FAILED)
				munmap(batch, blen);
			srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed inserted rows");
			return;
		}
	}

	for (e = entries; e; e = next)
	{
		int			rc;

		next = e->next;
		if (e->key.dbid != ch->key.dbid || e->key.relid != ch->key.relid ||
			e->state == GDB_CACHE_STATE_LOADING || e->relfilenode != ch->relfilenode)
			continue;
		/* the statement's strings, as codes of this entry's dictionary */
		codes = repalloc0_codes(codes, ch->nstrings);
		if (!srv_cache_intern_strings(e, p, end, ch->nstrings, codes))
		{
			if (batch)
				munmap(batch, blen);
			srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed strings");
			return;
		}
		rc = apply_changes(e, ch, del, ins_ctids, ins_xids, codes, batch, &st.err);
		if (rc == GDB_OK && srv_cache_bytes(NULL) > budget_bytes() &&
			!make_room(srv_store_bytes(e->store), e))
		{
			rc = GDB_ERR_OUT_OF_MEMORY;
			snprintf(st.err.message, sizeof(st.err.message),
					 "inserted rows grew the cache past gpudb.cache_size (" UINT64_FORMAT " MB)",
					 budget_bytes() >> 20);
		}
		srv_check_device(rc);
		if (rc != GDB_OK)
		{
			ereport(LOG,
					(errmsg("gpudb server: dropping cache of relation %u: %s",
							e->key.relid, st.err.message)));
			st.err.status = rc;
			if (find_entry_by_id(e->id) == e)
				entry_unlink(e, true);
			break;
		}
		st.value++;
		/* a second entry (a newer load) gets the same rows again */
		if (batch)
		{
			munmap(batch, blen);
			batch = mmap(NULL, blen, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
			if (batch == MAP_FAILED)
			{
				batch = NULL;
				break;
			}
		}
	}
	if (batch)
		munmap(batch, blen);
	srv_reply(s, &st, NULL, 0, NULL, 0);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a,
				y = *(const uint64 *) b;

	return (x > y) - (x < y);
}

static GdbXidStatus
status_of(uint64 xid, const uint64 *xids, const GdbXidStatus *st, uint64 n)
{
	const uint64 *hit;

	if (xid == 0)
		return GDB_XID_ALL_VISIBLE;
	hit = bsearch(&xid, xids, n, sizeof(uint64), cmp_u64);
	return hit ? st[hit - xids] : GDB_XID_INVISIBLE;
}

static bool
seen(GdbXidStatus st)
{
	return st == GDB_XID_VISIBLE || st == GDB_XID_ALL_VISIBLE;
}

/* see server_cache_internal.h */
int
srv_cache_resolve_pending(int s, CacheEntry *e)
{
	GdbStatusReply st;
	HASH_SEQ_STATUS seq;
	PendingRow *p;
	uint64	   *xids;
	uint64		nx = 0,
				i,
				n;
	GdbMsgHeader hdr;
	GdbXidStatus *xst;
	uint32	   *rows;
	int64	   *vals;
	int			rc;
	GdbError	err = {0};

	n = hash_get_num_entries(e->pending);
	xids = palloc(sizeof(uint64) * (1 + GDB_MAX_DELETERS) * Max(n, 1));
	hash_seq_init(&seq, e->pending);
	while ((p = hash_seq_search(&seq)) != NULL)
	{
		uint32		k;

		if (p->xmin)
			xids[nx++] = p->xmin;
		for (k = 0; k < p->nxmax; k++)
			xids[nx++] = p->xmax[k];
	}
	qsort(xids, nx, sizeof(uint64), cmp_u64);
	for (i = 0, n = 0; i < nx; i++)
		if (n == 0 || xids[n - 1] != xids[i])
			xids[n++] = xids[i];
	nx = n;

	memset(&st, 0, sizeof(st));
	st.cache_state = GDB_CACHE_NEED_XIDS;
	st.value = nx;
	if (!srv_reply(s, &st, xids, sizeof(uint64) * nx, NULL, 0))
		return -1;
	xst = palloc(Max(nx, 1));
	if (!srv_read_full(s, &hdr, sizeof(hdr), NULL) || hdr.magic != GDB_MSG_MAGIC ||
		hdr.type != GDB_MSG_CACHE_XIDS || hdr.payload_len != nx ||
		!srv_read_full(s, xst, nx, NULL))
		return -1;
	for (i = 0; i < nx; i++)
		if (xst[i] == GDB_XID_OWN)
		{
			memset(&st, 0, sizeof(st));
			st.cache_state = GDB_CACHE_OWN_CHANGES;
			return srv_reply(s, &st, NULL, 0, NULL, 0) ? 0 : -1;
		}

	n = hash_get_num_entries(e->pending);
	rows = palloc(sizeof(uint32) * Max(n, 1));
	vals = palloc(sizeof(int64) * Max(n, 1));

	/* this snapshot's visibility of every pending row */
	i = 0;
	hash_seq_init(&seq, e->pending);
	while ((p = hash_seq_search(&seq)) != NULL)
	{
		bool		deleted = false;
		uint32		k;

		for (k = 0; k < p->nxmax; k++)
			deleted |= seen(status_of(p->xmax[k], xids, xst, nx));
		rows[i] = p->row;
		vals[i] = (seen(status_of(p->xmin, xids, xst, nx)) && !deleted) ? 1 : 0;
		if (vals[i] == 0)
			e->has_invisible = true;
		i++;
	}
	{
		GdbStats	stats = {0};

		rc = srv_store_scatter(e->store, e->vis_col, rows, vals, i, &stats, &err);
	}
	if (rc != GDB_OK)
	{
		srv_check_device(rc);
		memset(&st, 0, sizeof(st));
		st.err = err;
		st.err.status = rc;
		return srv_reply(s, &st, NULL, 0, NULL, 0) ? 0 : -1;
	}

	/*
	 * Only now that the column holds them, fold what every future snapshot
	 * sees alike: aborted deleters deleted nothing; a row inserted by an
	 * aborted xid, or deleted by one committed before every snapshot, is
	 * dead; one whose xids are all settled stays as the column says.
	 */
	hash_seq_init(&seq, e->pending);
	while ((p = hash_seq_search(&seq)) != NULL)
	{
		GdbXidStatus smin = status_of(p->xmin, xids, xst, nx);
		bool		deleted_for_all = false;
		uint32		k,
					kept = 0;

		for (k = 0; k < p->nxmax; k++)
		{
			GdbXidStatus smax = status_of(p->xmax[k], xids, xst, nx);

			deleted_for_all |= (smax == GDB_XID_ALL_VISIBLE);
			if (smax != GDB_XID_ABORTED)
				p->xmax[kept++] = p->xmax[k];
		}
		p->nxmax = kept;
		if (smin == GDB_XID_ALL_VISIBLE)
			p->xmin = 0;
		if (smin == GDB_XID_ABORTED || deleted_for_all ||
			(p->xmin == 0 && p->nxmax == 0))
		{
			uint32		row = p->row;

			if (smin == GDB_XID_ABORTED || deleted_for_all)
				e->dead[row / 8] |= (uint8) (1 << (row % 8));
			(void) hash_search(e->pending, &row, HASH_REMOVE, NULL);
		}
	}
	return 1;
}


/* A backend went away: drop what it was loading and had not committed. */
void
srv_client_gone(int s)
{
	CacheEntry *e,
			   *next;

	for (e = entries; e; e = next)
	{
		next = e->next;
		if (e->owner == s && e->state != GDB_CACHE_STATE_READY)
			entry_unlink(e, true);
	}
	srv_forget_batches(s);
	srv_kept_client_gone(s);
	close(s);
}

