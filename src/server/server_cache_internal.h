/*-------------------------------------------------------------------------
 *
 * server_cache_internal.h
 *	  The GPU server's cache entries, shared by the cache itself
 *	  (server_cache.c: entries, loads, changes, visibility) and the queries
 *	  it answers (server_cache_query.c).  GPU server process only.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_SERVER_CACHE_INTERNAL_H
#define GPUDB_SERVER_CACHE_INTERNAL_H

#include "utils/hsearch.h"
#include "utils/timestamp.h"

#include "gpudb.h"
#include "gpu_server.h"

/* One cached relation (server_cache.c keeps the list). */
typedef struct CacheEntry
{
	int64		id;
	GdbCacheKey key;
	uint32		relfilenode;
	uint32		state;			/* GDB_CACHE_STATE_* */
	int			owner;			/* loading client's socket, -1 once committed */
	uint32		ncols;
	int16		attnums[GDB_MAX_COLUMNS];
	uint32		typids[GDB_MAX_COLUMNS];
	int32		typmods[GDB_MAX_COLUMNS];	/* see GdbCacheCreate */
	uint32		kinds[GDB_MAX_COLUMNS];
	uint32		has_nulls[GDB_MAX_COLUMNS];
	uint64		change_count;
	GdbSnapshotInfo snap;		/* the load's */
	uint32	   *xip;
	MemoryContext mcxt;
	SrvStore   *store;			/* ncols columns + the visibility column,
								 * in shards (server_shards.c) */
	uint32		vis_col;		/* = ncols: 1 visible, 0 not, per row */
	GdbDictionary *dict;
	GdbTableMemo *tables;		/* code tables evaluated over dict (text
								 * operations of queries), NULL until one */
	/*
	 * dict's codes in the dictionary of entry xlat_to (a kept build side's
	 * text re-encoded for its probe relation, server_cache_query.c):
	 * xlat[c] for c < nxlat, -1 where not interned there yet; in mcxt
	 */
	int64		xlat_to;
	int64	   *xlat;
	int64		nxlat;
	/* the same translation kept on the device, or NULL (xlat_target) */
	GdbDeviceCodeMap *dxlat;
	uint64	   *ctids;			/* heap address of every row, host memory */
	uint64		nctids;
	uint64		cap_ctids;
	uint64		est_rows;		/* the load's estimate: ctids' first size */
	uint64		nloaded;		/* rows 0..nloaded-1: loaded, ctids ascending */
	HTAB	   *inserted;		/* ctid -> row, for rows appended by changes */
	HTAB	   *pending;		/* row -> (xmin, xmax) while they matter */
	uint8	   *dead;			/* bit per row: invisible to every snapshot */
	bool		has_invisible;	/* some row's visibility column is 0 */
	double		load_ms;
	TimestampTz load_start;
	TimestampTz loaded_at;
	TimestampTz last_use;
	int64		hits;
	struct CacheEntry *next;
} CacheEntry;

/* The entry of relation key (one that is READY only, with ready_only), or NULL. */
extern CacheEntry *srv_cache_entry_for(const GdbCacheKey *key, bool ready_only);

/*
 * srv_cache_intern_strings: intern n strings (uint32 length + bytes each,
 * from p up to end) into e's dictionary, creating it if needed; codes (may
 * be NULL) receives each string's code.  false if the strings run past end.
 */
extern bool srv_cache_intern_strings(CacheEntry *e, const char *p, const char *end,
									 uint64 n, int64 *codes);

/*
 * srv_cache_snapshot_covers: does a query snapshot q see every transaction the load saw as committed?
 * The load held a lock that excluded writers, so every change in the cache
 * was committed before the load's snapshot; later changes bump the change
 * counter.  q must therefore see all xids the load saw finished: q.xmax is
 * not before the load's xmax, and every xid q still sees running below the
 * load's xmax was running for the load too.
 */
extern bool srv_cache_snapshot_covers(const CacheEntry *e, const GdbSnapshotInfo *q,
									  const uint32 *qxip);

/*
 * srv_cache_resolve_pending: rows changed since the load: ask the querying backend what its snapshot
 * makes of their xids (a NEED_XIDS srv_reply, answered by CACHE_XIDS), set
 * their visibility column for this query, and fold what no snapshot can
 * see differently any more (committed before every snapshot's horizon, or
 * aborted).  Returns 1 to go on, 0 when it has replied itself (the query
 * must read the heap), -1 when the connection broke.
 */
extern int	srv_cache_resolve_pending(int s, CacheEntry *e);

#endif							/* GPUDB_SERVER_CACHE_INTERNAL_H */
