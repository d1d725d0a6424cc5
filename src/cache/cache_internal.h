/*-------------------------------------------------------------------------
 *
 * cache_internal.h
 *	  What the column cache's backend files share: cache.c (loads, drops,
 *	  status, change tracking) and cache_query.c (the queries the cached
 *	  copy answers).  Not for the rest of the extension (see gpudb.h and
 *	  groupby.h for the cache's public calls).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_CACHE_INTERNAL_H
#define GPUDB_CACHE_INTERNAL_H

#include "lib/stringinfo.h"
#include "utils/snapshot.h"

#include "server_protocol.h"

/*
 * gdb_cache_change_count: relation relid's change count in this database:
 * its own shared counter plus the overflow counter (bumped for every
 * relation once the table of counters is full); 0 before shared memory.
 */
extern uint64 gdb_cache_change_count(Oid relid);

/*
 * gdb_cache_snapshot_info: snap's xmin and xmax into info, and its running
 * xids (top-level, then subtransactions) appended to xids as uint32s,
 * info->nxip of them; info->overflowed (and no xid) where the snapshot's
 * subtransactions overflowed, it was taken during recovery or it holds more
 * than GDB_MAX_XIP.
 */
extern void gdb_cache_snapshot_info(Snapshot snap, GdbSnapshotInfo *info,
									StringInfo xids);

#endif							/* GPUDB_CACHE_INTERNAL_H */
