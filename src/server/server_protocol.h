/*-------------------------------------------------------------------------
 *
 * server_protocol.h
 *	  Messages between backends and the GPU server (gpu_server.c).
 *
 * Transport: a Unix-domain stream socket "gpudb.sock" in the data directory
 * (mode 0600 inside the 0700 data directory, so only the server's OS user
 * reaches it).  Every message is a GdbMsgHeader followed by payload_len
 * bytes.  A message may carry one file descriptor (SCM_RIGHTS): a memfd
 * holding a column batch, which the server maps instead of copying it
 * through the socket.  Each request gets exactly one reply, in order.
 *
 * Why a socket and not dsm/shm_mq: the server is a background worker that
 * does not attach PostgreSQL's shared memory, so when it dies (a driver
 * fault, a kill) the postmaster restarts only it instead of every session.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_SERVER_PROTOCOL_H
#define GPUDB_SERVER_PROTOCOL_H

#include "gpudb_device.h"

#define GDB_SERVER_SOCKET	"gpudb.sock"	/* relative to the data directory */
/* change capture's channel (server_capture.c): CACHE_CHANGES only */
#define GDB_CAPTURE_SOCKET	"gpudb_capture.sock"
#define GDB_MSG_MAGIC		0x47444d31u		/* "GDM1" */
#define GDB_MAX_XIP			4096	/* snapshot xids carried; more: strict rule */

typedef enum GdbMsgType
{
	GDB_MSG_HELLO = 1,			/* -> GdbHelloReply */
	GDB_MSG_GROUPBY,			/* GdbRequest + its ntable_words code table
								 * words + its njoin_bytes of build sides
								 * + fd(batch) -> result */
	GDB_MSG_CACHE_CREATE,		/* GdbCacheCreate -> GdbStatusReply(id) */
	GDB_MSG_CACHE_APPEND,		/* GdbCacheRef + fd(batch) -> GdbStatusReply */
	GDB_MSG_CACHE_FINISH,		/* GdbCacheRef + dictionary -> GdbStatusReply */
	GDB_MSG_CACHE_COMMIT,		/* GdbCacheRef -> GdbStatusReply */
	GDB_MSG_CACHE_ABORT,		/* GdbCacheRef -> GdbStatusReply */
	GDB_MSG_CACHE_GROUPBY,		/* GdbCacheQuery + ... -> result */
	GDB_MSG_CACHE_DROP,			/* GdbCacheKey -> GdbStatusReply(found) */
	GDB_MSG_CACHE_STATUS,		/* GdbCacheKey(relid 0) -> GdbCacheInfo[] */
	GDB_MSG_CACHE_XIDS,			/* GdbXidStatus[] answering a NEED_XIDS reply */
	GDB_MSG_CACHE_CHANGES,		/* GdbCacheChanges + fd(inserted rows) */
	GDB_MSG_REPLY,				/* every reply */
	GDB_MSG_FAULT,				/* GdbFaultRequest -> GdbStatusReply */
	GDB_MSG_SERVER_STATUS,		/* -> GdbServerStatus */
	GDB_MSG_JOIN_RELEASE		/* uint64 kept build side ids ->
								 * GdbStatusReply(value: how many freed) */
} GdbMsgType;

typedef struct GdbMsgHeader
{
	uint32_t	magic;
	uint32_t	type;
	uint64_t	payload_len;
} GdbMsgHeader;

/* The server's description of itself. */
typedef struct GdbHelloReply
{
	int32_t		use_gpu;		/* 1: device mode, 0: CPU mode */
	int32_t		ndev;
	char		reason[256];	/* why CPU mode */
	GdbDeviceInfo devs[8];
	int32_t		nused;			/* entries of gpudb.devices the server opened */
	int32_t		nshards;		/* shards of each cached relation */
	int32_t		used[16];		/* their device ordinals, in order */
} GdbHelloReply;

/* Reply to every request without a result batch; also heads result replies. */
typedef struct GdbStatusReply
{
	GdbError	err;			/* err.status GDB_OK or a GdbStatus */
	int32_t		cache_state;	/* GDB_CACHE_* for cache queries */
	int32_t		pad;
	int64_t		value;			/* request-specific (cache id, found) */
	GdbStats	stats;
	uint64_t	result_bytes;	/* a result batch of this size follows */
	uint64_t	strings_bytes;	/* then the text key strings (see below) */
} GdbStatusReply;

/* Why a cached query was (not) answered from the cache. */
#define GDB_CACHE_USED			0
#define GDB_CACHE_ABSENT		1	/* not cached, or a column is missing */
#define GDB_CACHE_NOT_READY		2	/* loading, or its load never committed */
#define GDB_CACHE_STALE			3	/* changed since the load */
#define GDB_CACHE_SNAPSHOT		4	/* the query's snapshot predates the load */
#define GDB_CACHE_NEED_XIDS		5	/* reply lists xids; send CACHE_XIDS next */
#define GDB_CACHE_OWN_CHANGES	6	/* the querying transaction changed it */
#define GDB_CACHE_TEXT_ORDER	7	/* a text sort key (backend only: the
									 * cache has no byte-order ranks) */
#define GDB_CACHE_SERIALIZABLE	8	/* SERIALIZABLE isolation (backend only:
									 * a heap scan takes the predicate locks) */
#define GDB_CACHE_TEXT_COLLATION 9	/* a text operation the server cannot
									 * evaluate without the catalog (ILIKE
									 * under a collation whose LC_CTYPE is
									 * not C; backend only) */
#define GDB_CACHE_JOIN_TEXT		10	/* a GpudbJoin whose query dictionary
									 * (its build sides' strings) passes
									 * GDB_CACHE_TEXT_PART_LIMIT bytes
									 * (backend only) */
#define GDB_CACHE_JOIN_KEPT		11	/* a kept build side holds text codes
									 * of another cached copy (one loaded
									 * again meanwhile) */

/* The most bytes of strings one cache query carries (its text part). */
#define GDB_CACHE_TEXT_PART_LIMIT	((size_t) 512 * 1024 * 1024)


typedef struct GdbCacheKey
{
	uint32_t	dbid;
	uint32_t	relid;
} GdbCacheKey;

/*
 * Per-row visibility.  Every cached row carries the xid that inserted it
 * (0 for rows loaded by gpu_cache_load, which were committed for every
 * snapshot the cache may answer) and the xid that deleted it (0 for none),
 * as 64-bit full transaction ids.  The server keeps them only for rows
 * whose visibility still depends on a snapshot; for a query it sends those
 * xids (a NEED_XIDS reply: the rest is uint64 xids), the backend answers
 * each with a GdbXidStatus in a CACHE_XIDS message (same order), and the
 * server sets each such row's visibility column before running the query.
 */
#define GDB_XID_INVISIBLE		0	/* running, or not visible to the snapshot */
#define GDB_XID_VISIBLE			1	/* committed and visible to the snapshot */
#define GDB_XID_ALL_VISIBLE		2	/* committed and visible to every snapshot */
#define GDB_XID_ABORTED			3	/* aborted (or crashed) */
#define GDB_XID_OWN				4	/* the querying transaction: use the heap */

typedef uint8_t GdbXidStatus;

/*
 * CACHE_CHANGES: captured row changes of one statement on one relation:
 * GdbCacheChanges, then ndeleted (uint64 ctid, uint64 xid, uint64 inserts
 * captured before it, uint64 xmin of the deleted version) records, then
 * ninserted uint64 ctids and ninserted uint64 xids, then nstrings text
 * values (uint32 length + bytes) whose index is the code the inserted
 * batch's text columns use.  The inserted rows come as a memfd batch with
 * the cache's columns in the cache's order (GdbCacheInfo attnums) and then
 * the visibility column (0: not visible until their xid is resolved).  Reply value: 1 if a cached copy took them;
 * an error status means the copy could not follow and was dropped.
 */
typedef struct GdbCacheChanges
{
	GdbCacheKey key;
	uint32_t	relfilenode;
	uint32_t	pad;
	uint64_t	ndeleted;
	uint64_t	ninserted;
	uint64_t	nstrings;
} GdbCacheChanges;

/* ctid as carried: block number << 16 | offset number */
#define GDB_CTID(blk, off)	(((uint64_t) (blk) << 16) | (uint64_t) (off))

/*
 * CACHE_APPEND carries GdbCacheRef, and its batch buffer holds, right after
 * the batch (at offset batch->total_bytes), batch->nrows uint64 ctids (the
 * rows' heap addresses, ascending); FINISH carries nstrings dictionary
 * strings (uint32 length + bytes) in code order.
 */
typedef struct GdbCacheRef
{
	int64_t		cache_id;
	uint64_t	nstrings;		/* FINISH: dictionary strings that follow */
} GdbCacheRef;

/*
 * A snapshot as far as cache validity needs it: xids below xmax that are
 * not in xip[] (top-level and subtransaction xids together) are finished.
 */
typedef struct GdbSnapshotInfo
{
	uint32_t	xmin;
	uint32_t	xmax;
	uint32_t	nxip;			/* xids that follow the fixed part */
	uint32_t	overflowed;		/* xip[] incomplete: use the strict rule */
} GdbSnapshotInfo;

/*
 * CACHE_CREATE: GdbCacheCreate, then snapshot.nxip uint32 xids, then
 * ncols NAMEDATALEN-byte column names.
 */
typedef struct GdbCacheCreate
{
	GdbCacheKey key;
	uint32_t	relfilenode;
	uint32_t	ncols;
	uint64_t	change_count;	/* the relation's change counter at load */
	uint64_t	est_rows;		/* for the budget check */
	uint64_t	shard_rows;		/* rows the heap holds now, as estimated:
								 * what the shards divide (server_shards.c) */
	int16_t		attnums[GDB_MAX_COLUMNS];
	uint32_t	typids[GDB_MAX_COLUMNS];
	int32_t		typmods[GDB_MAX_COLUMNS];	/* numeric: atttypmod (the scale of
											 * its words), else -1 */
	uint32_t	kinds[GDB_MAX_COLUMNS];
	uint32_t	has_nulls[GDB_MAX_COLUMNS];
	GdbSnapshotInfo snapshot;	/* the load's */
} GdbCacheCreate;

/*
 * CACHE_GROUPBY: GdbCacheQuery, then snapshot.nxip uint32 xids, then
 * ntext text constants, each a uint32 length and its bytes, then the
 * request's req.njoin_bytes of join build sides (GpudbJoin).  The request's
 * column indexes refer to attnums[]; the server maps them onto its store.
 * A USED reply carries the result batch and then, for each result column
 * that copies a text column (key_is_text: group keys, or the output
 * columns of SELECT and SORT), one string per result row: uint32 length + bytes, NULL
 * keys as length 0xFFFFFFFF.
 */
typedef struct GdbCacheQuery
{
	GdbCacheKey key;
	uint32_t	relfilenode;
	uint32_t	ncols;
	uint64_t	change_count;	/* the relation's change counter now */
	int16_t		attnums[GDB_MAX_COLUMNS];
	uint32_t	typids[GDB_MAX_COLUMNS];
	int32_t		typmods[GDB_MAX_COLUMNS];	/* numeric: atttypmod (the scale of
											 * its words), else -1 */
	uint32_t	key_is_text[GDB_MAX_COLUMNS];	/* per result column */
	uint32_t	ntext;
	uint32_t	pad;
	/*
	 * per join (GdbRequest.joins), bit c: build column c (a key, or a
	 * payload column) holds codes of the query's dictionary, whose strings
	 * are the text part (ntext of them); the server re-encodes them into
	 * its entry's dictionary (server_cache_query.c)
	 */
	uint64_t	join_text[GDB_MAX_JOINS];

	/*
	 * nonzero: a GpudbJoin's build side (a SELECT): the server keeps the
	 * result under this id (server_join_keep.c), its text codes re-encoded
	 * into the dictionary of keep_for's cache entry (the relation that
	 * will probe it), and replies USED with value 1 and only the result's
	 * GdbBatch header; or, where it cannot keep it (the limit, text
	 * without keep_for's entry ready), replies as to any SELECT, value 0
	 */
	uint64_t	keep_id;
	GdbCacheKey keep_for;
	GdbSnapshotInfo snapshot;	/* the query's */
	GdbRequest	req;
} GdbCacheQuery;

#define GDB_CACHE_STATE_LOADING	0
#define GDB_CACHE_STATE_LOADED	1	/* loaded, load not committed yet */
#define GDB_CACHE_STATE_READY	2

/* One row of the status reply (value = number of rows). */
/* shards GdbCacheInfo describes (gpudb.cache_shards at most) */
#define GDB_INFO_MAX_SHARDS 16

typedef struct GdbCacheInfo
{
	GdbCacheKey key;
	uint32_t	state;
	uint32_t	ncols;
	int16_t		attnums[GDB_MAX_COLUMNS];
	uint64_t	change_count;
	uint64_t	rows;
	uint64_t	device_bytes;
	uint64_t	host_bytes;
	double		load_ms;
	int64_t		hits;
	int64_t		last_use;		/* TimestampTz, 0 = never */
	int64_t		loaded_at;		/* TimestampTz */
	uint32_t	relfilenode;
	uint32_t	nshards;		/* shards of the rows (server_shards.c) */
	int32_t		shard_device[GDB_INFO_MAX_SHARDS];	/* CUDA ordinal, -1: CPU */
	uint64_t	shard_rows[GDB_INFO_MAX_SHARDS];
	uint64_t	shard_bytes[GDB_INFO_MAX_SHARDS];
} GdbCacheInfo;

/*
 * FAULT (gpu_debug_fault, a testing aid): arm an injected failure in the
 * server; count 0 disarms the point, GDB_FAULT_NONE disarms every point.
 *   DEVICE_ALLOC  the next count device allocations (a store's create or
 *                 append, a query's scratch) fail as out of memory; in CPU
 *                 mode the same allocations of the host store
 *   KERNEL        before the next count requests' device work: a real
 *                 kernel fault (gdb_cuda_debug_fault; simulated in CPU
 *                 mode), replied as GDB_ERR_DEVICE; then the server process
 *                 exits and the supervisor starts a new one
 *   COPY          the next count requests fail as a copy error
 *                 (GDB_ERR_DEVICE) without a restart
 *   SLOW          the next count requests sleep delay_ms before running
 * "Requests" here are those with device work: a group-by (plain or cached),
 * a cache load's batch, a cached table's inserted rows.
 */
#define GDB_FAULT_NONE			0
#define GDB_FAULT_DEVICE_ALLOC	1
#define GDB_FAULT_KERNEL		2
#define GDB_FAULT_COPY			3
#define GDB_FAULT_SLOW			4
#define GDB_FAULT__COUNT		5

#define GDB_FAULT_MAX_DELAY_MS	600000

typedef struct GdbFaultRequest
{
	int32_t		point;			/* GDB_FAULT_* */
	int32_t		count;
	int32_t		delay_ms;		/* SLOW */
	int32_t		pad;
} GdbFaultRequest;

/* SERVER_STATUS reply (after the GdbStatusReply). */
typedef struct GdbServerStatus
{
	int32_t		use_gpu;		/* 1: device mode, 0: CPU mode */
	int32_t		process_starts; /* server processes the supervisor started */
	uint64_t	cache_bytes;	/* every cache entry's store */
	uint64_t	scratch_bytes;	/* device scratch of the executor (0 in CPU mode) */
	uint64_t	requests;		/* requests this process served, this one included */
	uint64_t	kept_bytes;		/* GpudbJoin build sides kept (server_join_keep.c) */
	char		device[256];	/* device name; empty in CPU mode */
} GdbServerStatus;

#endif							/* GPUDB_SERVER_PROTOCOL_H */
