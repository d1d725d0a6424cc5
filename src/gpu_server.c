/*-------------------------------------------------------------------------
 *
 * gpu_server.c
 *	  The GPU server: a background worker that owns the CUDA context, all
 *	  device memory and the column cache, and runs requests for every
 *	  backend.
 *
 Registered by _PG_init when gpudb is in shared_preload_libraries.  The
 * background worker is only a supervisor: it forks the server process,
 * which does all the work and never touches PostgreSQL's shared memory
 * (its exit callbacks are reset).  The postmaster does not know that
 * process, so when it dies (a driver fault, a kill -9) the supervisor
 * starts a new one a second later and every session keeps running; a
 * backend that was waiting gets an ERROR, and its next statement reads the
 * heap (the cache died with the process).  Backends talk to the server over
 * the Unix socket of server_protocol.h.
 *
 * Mode: with gpudb.device = cpu, or when no CUDA device is usable, the
 * server runs in CPU mode and holds the cache in its own host memory, with
 * the same loading, validity and change-tracking code as on the device.
 *
 * Requests run one at a time, in arrival order (poll() over the listening
 * socket and one socket per backend).  A request's failure (a filter
 * error, device out-of-memory, a kernel fault) is replied to its backend as
 * a status; after a sticky CUDA error the device is reset, the cache
 * emptied and the server goes on.
 *
 * Testing aids: gpu_debug_fault (fault_inject.c) arms injected failures
 * here (GDB_MSG_FAULT: fault_alloc before device allocations,
 * fault_request before a request's device work), and gpu_server_status
 * reads GDB_MSG_SERVER_STATUS.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/pmsignal.h"
#include "catalog/pg_type.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/ps_status.h"
#include "utils/wait_event.h"
#include "utils/timestamp.h"

#include "gpudb.h"
#include "server_client.h"

#define MAX_CLIENTS 1024

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
	uint32		kinds[GDB_MAX_COLUMNS];
	uint32		has_nulls[GDB_MAX_COLUMNS];
	uint64		change_count;
	GdbSnapshotInfo snap;		/* the load's */
	uint32	   *xip;
	MemoryContext mcxt;
	GdbStore   *store;			/* ncols columns + the visibility column */
	uint32		vis_col;		/* = ncols: 1 visible, 0 not, per row */
	GdbDictionary *dict;
	uint64	   *ctids;			/* heap address of every row, host memory */
	uint64		nctids;
	uint64		cap_ctids;
	uint64		nloaded;		/* rows 0..nloaded-1: loaded, ctids ascending */
	HTAB	   *inserted;		/* ctid -> row, for rows appended by changes */
	HTAB	   *pending;		/* row -> (xmin, xmax) while they matter */
	bool		has_invisible;	/* some row's visibility column is 0 */
	double		load_ms;
	TimestampTz load_start;
	TimestampTz loaded_at;
	TimestampTz last_use;
	int64		hits;
	struct CacheEntry *next;
} CacheEntry;

/* A row whose visibility still depends on the snapshot. */
typedef struct PendingRow
{
	uint32		row;			/* hash key */
	uint64		xmin;			/* inserting full xid, 0 = loaded */
	uint64		xmax;			/* deleting full xid, 0 = none */
} PendingRow;

typedef struct InsertedCtid
{
	uint64		ctid;			/* hash key */
	uint32		row;
} InsertedCtid;

static bool use_gpu = false;
static bool restart_pending = false;	/* exit after this reply */
static int	process_starts = 0;	/* set by the supervisor before each fork */
static uint64 requests_served = 0;
static int	fault_count[GDB_FAULT__COUNT];	/* armed by gpu_debug_fault */
static int	fault_delay_ms = 0;
static GdbCudaExec *exec = NULL;
static GdbHelloReply hello;
static CacheEntry *entries = NULL;
static int64 next_cache_id = 1;
static MemoryContext request_cxt;

/* ---- socket I/O (blocking, with a timeout against stuck peers) ---- */

static bool
read_full(int s, void *buf, size_t len, int *fd)
{
	char	   *p = buf;

	while (len > 0)
	{
		struct msghdr msg = {0};
		struct iovec iov;
		char		cbuf[CMSG_SPACE(sizeof(int))];
		ssize_t		n;

		iov.iov_base = p;
		iov.iov_len = len;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		if (fd)
		{
			msg.msg_control = cbuf;
			msg.msg_controllen = sizeof(cbuf);
		}
		n = recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		if (fd)
		{
			struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

			if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
				memcpy(fd, CMSG_DATA(cm), sizeof(int));
			fd = NULL;
		}
		p += n;
		len -= n;
	}
	return true;
}

static bool
write_full(int s, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0)
	{
		ssize_t		n = send(s, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

/* Reply: header, status, then optional pieces. */
static bool
reply(int s, GdbStatusReply *st, const void *a, size_t alen,
	  const void *b, size_t blen)
{
	GdbMsgHeader hdr;

	hdr.magic = GDB_MSG_MAGIC;
	hdr.type = GDB_MSG_REPLY;
	hdr.payload_len = sizeof(GdbStatusReply) + alen + blen;
	return write_full(s, &hdr, sizeof(hdr)) &&
		write_full(s, st, sizeof(GdbStatusReply)) &&
		(alen == 0 || write_full(s, a, alen)) &&
		(blen == 0 || write_full(s, b, blen));
}

static bool
reply_error(int s, int status, const char *fmt,...) pg_attribute_printf(3, 4);

static bool
reply_error(int s, int status, const char *fmt,...)
{
	GdbStatusReply st;
	va_list		ap;

	memset(&st, 0, sizeof(st));
	st.err.status = status;
	va_start(ap, fmt);
	vsnprintf(st.err.message, sizeof(st.err.message), fmt, ap);
	va_end(ap);
	return reply(s, &st, NULL, 0, NULL, 0);
}

/* ---- execution on the server's path ---- */

static void *
request_alloc(void *arg, size_t bytes)
{
	return MemoryContextAllocExtended(request_cxt, bytes,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

static void cache_drop_all(const char *why);
static uint64 cache_bytes(const CacheEntry *except);

/* After a device error: reset on a sticky fault (the cache is then lost). */
static void
check_device(int status)
{
	GdbError	err = {0};

	if (!use_gpu || status != GDB_ERR_DEVICE)
		return;
	if (gdb_cuda_recover(exec, &err) != GDB_OK)
	{
		/*
		 * The context is lost, and with it the cache.  Some drivers give a
		 * reset device only to a new process, so this process ends once the
		 * reply is sent (serve) and the supervisor starts a fresh one.
		 */
		ereport(LOG,
				(errmsg("gpudb server: device fault, restarting the server process: %s",
						err.message)));
		restart_pending = true;
	}
}

/* ---- injected faults (gpu_debug_fault, a testing aid) ---- */

/*
 * The test hook of the device self-test (column_store.h, which this side
 * must not include): a kernel that faults, leaving a sticky error.
 */
extern int	gdb_cuda_debug_fault(GdbCudaExec *exec, GdbError *err);

static bool
fault_take(int point)
{
	if (fault_count[point] <= 0)
		return false;
	fault_count[point]--;
	return true;
}

/*
 * Before a device allocation (a store's create or append, a query's
 * scratch): GDB_ERR_OUT_OF_MEMORY while 'device_alloc' is armed.
 */
static int
fault_alloc(GdbError *err)
{
	if (!fault_take(GDB_FAULT_DEVICE_ALLOC))
		return GDB_OK;
	err->status = GDB_ERR_OUT_OF_MEMORY;
	snprintf(err->message, sizeof(err->message), "injected fault: device allocation");
	return GDB_ERR_OUT_OF_MEMORY;
}

/*
 * Before a request's device work: 'slow' sleeps, 'kernel' faults the
 * device (in CPU mode: as if it had) and has the process restart after the
 * reply, 'copy' fails as a copy error.  The reply's message is the same in
 * both modes; the device's own is logged.
 */
static int
fault_request(GdbError *err)
{
	if (fault_take(GDB_FAULT_SLOW))
	{
		TimestampTz until = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
														fault_delay_ms);

		/* a slow kernel: the server does nothing else meanwhile */
		while (!ShutdownRequestPending && GetCurrentTimestamp() < until)
			pg_usleep(10000L);
	}
	if (fault_take(GDB_FAULT_KERNEL))
	{
		if (use_gpu)
		{
			GdbError	ferr = {0};
			int			frc = gdb_cuda_debug_fault(exec, &ferr);

			ereport(LOG,
					(errmsg("gpudb server: injected kernel fault: %s",
							frc == GDB_OK ? "the kernel did not fault" : ferr.message)));
		}
		else
			ereport(LOG,
					(errmsg("gpudb server: injected kernel fault (simulated in CPU mode)")));
		/* the caller's check_device resets the device; the process restarts */
		restart_pending = true;
		err->status = GDB_ERR_DEVICE;
		snprintf(err->message, sizeof(err->message),
				 "injected fault: kernel fault; the GPU server process restarts and the cache is lost");
		return GDB_ERR_DEVICE;
	}
	if (fault_take(GDB_FAULT_COPY))
	{
		err->status = GDB_ERR_DEVICE;
		snprintf(err->message, sizeof(err->message),
				 "injected fault: copy to the device failed");
		return GDB_ERR_DEVICE;
	}
	return GDB_OK;
}

static void
handle_fault(int s, char *payload, size_t len)
{
	GdbFaultRequest *f = (GdbFaultRequest *) payload;
	GdbStatusReply st;
	static const char *const names[] = {"none", "device_alloc", "kernel", "copy", "slow"};

	if (len < sizeof(GdbFaultRequest) || f->point < 0 || f->point >= GDB_FAULT__COUNT ||
		f->count < 0 || f->delay_ms < 0 || f->delay_ms > GDB_FAULT_MAX_DELAY_MS)
	{
		reply_error(s, GDB_ERR_BAD_REQUEST, "malformed fault request");
		return;
	}
	if (f->point == GDB_FAULT_NONE)
		memset(fault_count, 0, sizeof(fault_count));
	else
	{
		fault_count[f->point] = f->count;
		if (f->point == GDB_FAULT_SLOW)
			fault_delay_ms = f->delay_ms;
	}
	ereport(LOG,
			(errmsg("gpudb server: injected fault \"%s\" armed for %d request(s)",
					names[f->point], f->point == GDB_FAULT_NONE ? 0 : f->count)));
	memset(&st, 0, sizeof(st));
	reply(s, &st, NULL, 0, NULL, 0);
}

static void
handle_server_status(int s)
{
	GdbStatusReply st;
	GdbServerStatus ss;

	memset(&st, 0, sizeof(st));
	memset(&ss, 0, sizeof(ss));
	ss.use_gpu = use_gpu ? 1 : 0;
	ss.process_starts = process_starts;
	ss.cache_bytes = cache_bytes(NULL);
	ss.scratch_bytes = use_gpu ? gdb_cuda_scratch_bytes(exec) : 0;
	ss.requests = requests_served;
	if (use_gpu)
		strlcpy(ss.device, hello.devs[0].name, sizeof(ss.device));
	reply(s, &st, &ss, sizeof(ss), NULL, 0);
}

/* Map a memfd batch passed by a backend; NULL if it is malformed. */
static GdbBatch *
map_batch(int fd, size_t *len)
{
	struct stat st;
	GdbBatch   *b;

	if (fd < 0 || fstat(fd, &st) < 0 || (size_t) st.st_size < sizeof(GdbBatch))
		return NULL;
	b = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (b == MAP_FAILED)
		return NULL;
	*len = st.st_size;
	if (b->magic != GDB_BATCH_MAGIC || b->total_bytes > (uint64) st.st_size ||
		b->ncols > GDB_MAX_COLUMNS || b->nrows > b->capacity)
	{
		munmap(b, st.st_size);
		return NULL;
	}
	return b;
}

/*
 * Device scratch memory of a query over nrows rows, bounded with the cache
 * by gpudb.device_memory_limit: about 64 bytes a row (flags, row ids, sort
 * keys, states) for the sort path; the fast paths need less.
 */
static int
check_scratch(uint64 nrows, uint32 naggs, GdbError *err)
{
	uint64		limit = (uint64) gpudb_device_memory_limit_kb * 1024;
	uint64		need = nrows * (32 + 32 * (uint64) Max(naggs, 1));
	uint64		used;

	if (fault_alloc(err) != GDB_OK)
		return GDB_ERR_OUT_OF_MEMORY;
	if (!use_gpu || limit == 0)
		return GDB_OK;
	used = cache_bytes(NULL);
	if (used + need <= limit)
		return GDB_OK;
	err->status = GDB_ERR_OUT_OF_MEMORY;
	snprintf(err->message, sizeof(err->message),
			 "the query needs about " UINT64_FORMAT " MB of device memory; the cache holds "
			 UINT64_FORMAT " MB of gpudb.device_memory_limit (" UINT64_FORMAT " MB)",
			 need >> 20, used >> 20, limit >> 20);
	return GDB_ERR_OUT_OF_MEMORY;
}

static void
handle_groupby(int s, GdbRequest *req, int fd)
{
	GdbStatusReply st;
	GdbBatch   *input;
	GdbBatch   *result = NULL;
	size_t		len = 0;
	int			rc;

	memset(&st, 0, sizeof(st));
	input = map_batch(fd, &len);
	if (input == NULL)
	{
		reply_error(s, GDB_ERR_BAD_REQUEST, "malformed batch");
		return;
	}
	rc = fault_request(&st.err);
	if (rc == GDB_OK)
		rc = check_scratch(input->nrows, req->naggs, &st.err);
	if (rc != GDB_OK)
		;
	else if (use_gpu)
		rc = gdb_cuda_groupby(exec, req, input, request_alloc, NULL, &result,
							  &st.stats, &st.err);
	else
		rc = gdb_cpu_groupby(req, input, request_alloc, NULL, &result,
							 &st.stats, &st.err);
	munmap(input, len);
	st.err.status = rc;
	check_device(rc);
	if (rc == GDB_OK)
	{
		st.result_bytes = result->total_bytes;
		reply(s, &st, result, result->total_bytes, NULL, 0);
	}
	else
		reply(s, &st, NULL, 0, NULL, 0);
}

/* ---- the cache ---- */

static uint64
budget_bytes(void)
{
	uint64		b = (uint64) gpudb_cache_size_kb * 1024;

	if (gpudb_device_memory_limit_kb > 0)
		b = Min(b, (uint64) gpudb_device_memory_limit_kb * 1024);
	return b;
}

static uint64
cache_bytes(const CacheEntry *except)
{
	uint64		sum = 0;
	CacheEntry *e;

	for (e = entries; e; e = e->next)
		if (e != except && e->store)
			sum += gdb_store_bytes(e->store);
	return sum;
}

static void
entry_free(CacheEntry *e)
{
	if (e->store)
	{
		if (use_gpu)
			gdb_cuda_store_free(e->store);
		else
			gdb_cpu_store_free(e->store);
	}
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

static void
cache_drop_all(const char *why)
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
	while (cache_bytes(keep) + need > budget_bytes())
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

static CacheEntry *
find_entry_by_id(int64 id)
{
	CacheEntry *e;

	for (e = entries; e; e = e->next)
		if (e->id == id)
			return e;
	return NULL;
}

static void
handle_cache_create(int s, char *payload, size_t len)
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
		reply_error(s, GDB_ERR_BAD_REQUEST, "malformed cache create request");
		return;
	}
	if (cc->ncols >= GDB_MAX_COLUMNS)
	{
		reply_error(s, GDB_ERR_BAD_REQUEST, "too many columns to cache");
		return;
	}
	/* the visibility column follows the cached ones */
	cc->kinds[cc->ncols] = GDB_KIND_INT64;
	cc->has_nulls[cc->ncols] = 0;
	est = gdb_batch_layout(NULL, cc->ncols + 1, cc->kinds, cc->has_nulls,
						   Max(cc->est_rows, 1)) + sizeof(uint64) * Max(cc->est_rows, 1);
	if (!make_room(est, NULL))
	{
		reply_error(s, GDB_ERR_OUT_OF_MEMORY,
					"the load needs about " UINT64_FORMAT " MB but gpudb.cache_size leaves "
					UINT64_FORMAT " MB free of " UINT64_FORMAT " MB (entries being loaded cannot be evicted)",
					est >> 20, (budget_bytes() - Min(budget_bytes(), cache_bytes(NULL))) >> 20,
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
	memcpy(e->kinds, cc->kinds, sizeof(e->kinds));
	memcpy(e->has_nulls, cc->has_nulls, sizeof(e->has_nulls));
	e->change_count = cc->change_count;
	e->snap = cc->snapshot;
	e->xip = MemoryContextAlloc(e->mcxt, sizeof(uint32) * Max(cc->snapshot.nxip, 1));
	memcpy(e->xip, payload + sizeof(GdbCacheCreate), sizeof(uint32) * cc->snapshot.nxip);
	e->load_start = GetCurrentTimestamp();
	e->vis_col = cc->ncols;
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

	rc = fault_alloc(&err);
	if (rc != GDB_OK)
		;
	else if (use_gpu)
		rc = gdb_cuda_store_create(exec, cc->ncols + 1, cc->kinds, cc->has_nulls,
								   Max(cc->est_rows, 1), &e->store, &err);
	else
		rc = gdb_cpu_store_create(cc->ncols + 1, cc->kinds, cc->has_nulls,
								  Max(cc->est_rows, 1), &e->store, &err);
	if (rc != GDB_OK)
	{
		e->store = NULL;
		MemoryContextDelete(e->mcxt);
		pfree(e);
		check_device(rc);
		reply_error(s, rc, "could not allocate the cache: %s", err.message);
		return;
	}
	e->next = entries;
	entries = e;
	memset(&st, 0, sizeof(st));
	st.value = e->id;
	reply(s, &st, NULL, 0, NULL, 0);
}

/* Record the heap addresses of rows appended to e's store. */
static bool
add_ctids(CacheEntry *e, const uint64 *ctids, uint64 n)
{
	if (e->nctids + n > e->cap_ctids)
	{
		uint64		cap = Max(e->cap_ctids * 2, e->nctids + n);
		uint64	   *nc = MemoryContextAllocExtended(e->mcxt, sizeof(uint64) * cap,
												   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);

		if (nc == NULL)
			return false;
		if (e->ctids)
		{
			memcpy(nc, e->ctids, sizeof(uint64) * e->nctids);
			pfree(e->ctids);
		}
		e->ctids = nc;
		e->cap_ctids = cap;
	}
	memcpy(e->ctids + e->nctids, ctids, sizeof(uint64) * n);
	e->nctids += n;
	return true;
}

static void
handle_cache_append(int s, char *payload, size_t len, int fd)
{
	GdbCacheRef *ref = (GdbCacheRef *) payload;
	GdbStatusReply st;
	CacheEntry *e;
	GdbBatch   *batch;
	size_t		blen = 0;
	int			rc;

	memset(&st, 0, sizeof(st));
	e = len >= sizeof(GdbCacheRef) ? find_entry_by_id(ref->cache_id) : NULL;
	if (e == NULL || e->owner != s || e->state != GDB_CACHE_STATE_LOADING)
	{
		reply_error(s, GDB_ERR_BAD_REQUEST, "no cache entry being loaded by this session");
		return;
	}
	batch = map_batch(fd, &blen);
	if (batch == NULL || len < sizeof(GdbCacheRef) + batch->nrows * sizeof(uint64))
	{
		if (batch)
			munmap(batch, blen);
		reply_error(s, GDB_ERR_BAD_REQUEST, "malformed batch");
		return;
	}
	rc = fault_request(&st.err);
	if (rc == GDB_OK)
		rc = fault_alloc(&st.err);
	if (rc != GDB_OK)
		;
	else if (use_gpu)
		rc = gdb_cuda_store_append(exec, e->store, batch, &st.stats, &st.err);
	else
		rc = gdb_cpu_store_append(e->store, batch, &st.err);
	if (rc == GDB_OK &&
		!add_ctids(e, (const uint64 *) (payload + sizeof(GdbCacheRef)), batch->nrows))
	{
		rc = GDB_ERR_OUT_OF_MEMORY;
		snprintf(st.err.message, sizeof(st.err.message),
				 "out of host memory for the row addresses");
	}
	munmap(batch, blen);
	if (rc == GDB_OK && cache_bytes(NULL) > budget_bytes() &&
		!make_room(gdb_store_bytes(e->store), e))
	{
		rc = GDB_ERR_OUT_OF_MEMORY;
		snprintf(st.err.message, sizeof(st.err.message),
				 "the cache of this relation has grown to " UINT64_FORMAT " MB, over gpudb.cache_size ("
				 UINT64_FORMAT " MB) with the other entries",
				 gdb_store_bytes(e->store) >> 20, budget_bytes() >> 20);
	}
	check_device(rc);
	st.err.status = rc;
	reply(s, &st, NULL, 0, NULL, 0);
	/* a failed load is over: the backend raises the error */
	if (rc != GDB_OK && find_entry_by_id(ref->cache_id) == e)
		entry_unlink(e, true);
}

static void
handle_cache_finish(int s, char *payload, size_t len)
{
	GdbCacheRef *ref = (GdbCacheRef *) payload;
	CacheEntry *e;
	MemoryContext old;
	char	   *p;
	char	   *end = payload + len;
	uint64		i;
	GdbStatusReply st;

	e = len >= sizeof(GdbCacheRef) ? find_entry_by_id(ref->cache_id) : NULL;
	if (e == NULL || e->owner != s || e->state != GDB_CACHE_STATE_LOADING)
	{
		reply_error(s, GDB_ERR_BAD_REQUEST, "no cache entry being loaded by this session");
		return;
	}
	old = MemoryContextSwitchTo(e->mcxt);
	e->dict = gdb_dict_create();
	p = payload + sizeof(GdbCacheRef);
	for (i = 0; i < ref->nstrings; i++)
	{
		uint32		l;

		if (p + sizeof(uint32) > end)
			break;
		memcpy(&l, p, sizeof(uint32));
		p += sizeof(uint32);
		if (p + l > end)
			break;
		(void) gdb_dict_intern(e->dict, p, l);
		p += l;
	}
	MemoryContextSwitchTo(old);
	if (i != ref->nstrings)
	{
		reply_error(s, GDB_ERR_BAD_REQUEST, "malformed dictionary");
		return;
	}
	e->state = GDB_CACHE_STATE_LOADED;
	e->nloaded = e->nctids;
	e->loaded_at = GetCurrentTimestamp();
	e->load_ms = (double) (e->loaded_at - e->load_start) / 1000.0;
	memset(&st, 0, sizeof(st));
	st.value = (int64) gdb_store_rows(e->store);
	reply(s, &st, NULL, 0, NULL, 0);
}

/* COMMIT makes a loaded entry ready and replaces older ones; ABORT drops. */
static void
handle_cache_end(int s, char *payload, size_t len, bool commit)
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
	reply(s, &st, NULL, 0, NULL, 0);
}

static void
handle_cache_drop(int s, char *payload, size_t len)
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
			if (e->key.dbid == key->dbid && e->key.relid == key->relid &&
				e->state == GDB_CACHE_STATE_READY)
			{
				entry_unlink(e, true);
				st.value = 1;
			}
		}
	reply(s, &st, NULL, 0, NULL, 0);
}

static void
handle_cache_status(int s, char *payload, size_t len)
{
	GdbCacheKey *key = (GdbCacheKey *) payload;
	GdbStatusReply st;
	CacheEntry *e;
	int			n = 0;
	GdbCacheInfo *info;

	for (e = entries; e; e = e->next)
		n++;
	info = palloc0(sizeof(GdbCacheInfo) * Max(n, 1));
	n = 0;
	for (e = entries; e; e = e->next)
	{
		GdbCacheInfo *i = &info[n];

		if (len >= sizeof(GdbCacheKey) && key->dbid != e->key.dbid)
			continue;
		i->key = e->key;
		i->state = e->state;
		i->ncols = e->ncols;
		memcpy(i->attnums, e->attnums, sizeof(i->attnums));
		i->change_count = e->change_count;
		i->rows = gdb_store_rows(e->store);
		i->device_bytes = use_gpu ? gdb_store_bytes(e->store) : 0;
		i->host_bytes = (use_gpu ? 0 : gdb_store_bytes(e->store)) +
			sizeof(uint64) * e->cap_ctids;
		i->load_ms = e->load_ms;
		i->hits = e->hits;
		i->last_use = e->last_use;
		i->loaded_at = e->loaded_at;
		i->relfilenode = e->relfilenode;
		n++;
	}
	memset(&st, 0, sizeof(st));
	st.value = n;
	reply(s, &st, info, sizeof(GdbCacheInfo) * n, NULL, 0);
	pfree(info);
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

/*
 * Does a query snapshot q see every transaction the load saw as committed?
 * The load held a lock that excluded writers, so every change in the cache
 * was committed before the load's snapshot; later changes bump the change
 * counter.  q must therefore see all xids the load saw finished: q.xmax is
 * not before the load's xmax, and every xid q still sees running below the
 * load's xmax was running for the load too.
 */
static bool
snapshot_covers_load(const CacheEntry *e, const GdbSnapshotInfo *q, const uint32 *qxip)
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
		p->xmax = 0;
	}
	return p;
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
	uint64		i;
	uint32		c;
	uint64		base;
	int			rc;

	for (i = 0; i < ch->ndeleted; i++)
	{
		int64		row = find_row(e, del[2 * i]);

		if (row < 0)
		{
			snprintf(err->message, sizeof(err->message),
					 "a deleted row (ctid " UINT64_FORMAT ") is not in the cache", del[2 * i]);
			return GDB_ERR_BAD_REQUEST;
		}
		pending_row(e, (uint32) row)->xmax = del[2 * i + 1];
	}
	if (ch->ninserted == 0)
		return GDB_OK;

	if (batch->ncols != e->ncols + 1 || batch->nrows != ch->ninserted)
	{
		snprintf(err->message, sizeof(err->message), "inserted rows do not match the cache");
		return GDB_ERR_BAD_REQUEST;
	}
	for (c = 0; c < e->ncols; c++)
	{
		int64	   *vals;
		const uint8_t *nulls;

		if (e->typids[c] != TEXTOID && e->typids[c] != VARCHAROID)
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
	base = gdb_store_rows(e->store);
	rc = fault_request(err);
	if (rc == GDB_OK)
		rc = fault_alloc(err);
	if (rc != GDB_OK)
		return rc;
	if (use_gpu)
	{
		GdbStats	stats = {0};

		rc = gdb_cuda_store_append(exec, e->store, batch, &stats, err);
	}
	else
		rc = gdb_cpu_store_append(e->store, batch, err);
	if (rc != GDB_OK)
		return rc;
	if (!add_ctids(e, ins_ctids, ch->ninserted))
		return GDB_ERR_OUT_OF_MEMORY;
	for (i = 0; i < ch->ninserted; i++)
	{
		uint32		row = (uint32) (base + i);
		InsertedCtid *ic = hash_search(e->inserted, &ins_ctids[i], HASH_ENTER, NULL);

		ic->row = row;
		pending_row(e, row)->xmin = ins_xids[i];
	}
	e->has_invisible = true;
	return GDB_OK;
}

static void
handle_cache_changes(int s, char *payload, size_t len, int fd)
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
	uint64		i;

	memset(&st, 0, sizeof(st));
	if (len < sizeof(GdbCacheChanges) ||
		(len - sizeof(GdbCacheChanges)) / 16 < ch->ndeleted + ch->ninserted)
	{
		reply_error(s, GDB_ERR_BAD_REQUEST, "malformed changes");
		return;
	}
	del = (const uint64 *) (payload + sizeof(GdbCacheChanges));
	ins_ctids = del + 2 * ch->ndeleted;
	ins_xids = ins_ctids + ch->ninserted;
	p = (char *) (ins_xids + ch->ninserted);
	if (ch->ninserted > 0)
	{
		struct stat sb;

		if (fd < 0 || fstat(fd, &sb) < 0 || (size_t) sb.st_size < sizeof(GdbBatch))
		{
			reply_error(s, GDB_ERR_BAD_REQUEST, "inserted rows missing");
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
			reply_error(s, GDB_ERR_BAD_REQUEST, "malformed inserted rows");
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
		{
			MemoryContext old = MemoryContextSwitchTo(e->mcxt);
			char	   *q = p;

			if (e->dict == NULL)
				e->dict = gdb_dict_create();
			for (i = 0; i < ch->nstrings; i++)
			{
				uint32		l;

				if (q + sizeof(uint32) > end)
					break;
				memcpy(&l, q, sizeof(uint32));
				q += sizeof(uint32);
				if (q + l > end)
					break;
				codes[i] = gdb_dict_intern(e->dict, q, l);
				q += l;
			}
			MemoryContextSwitchTo(old);
			if (i != ch->nstrings)
			{
				if (batch)
					munmap(batch, blen);
				reply_error(s, GDB_ERR_BAD_REQUEST, "malformed strings");
				return;
			}
		}
		rc = apply_changes(e, ch, del, ins_ctids, ins_xids, codes, batch, &st.err);
		if (rc == GDB_OK && cache_bytes(NULL) > budget_bytes() &&
			!make_room(gdb_store_bytes(e->store), e))
		{
			rc = GDB_ERR_OUT_OF_MEMORY;
			snprintf(st.err.message, sizeof(st.err.message),
					 "inserted rows grew the cache past gpudb.cache_size (" UINT64_FORMAT " MB)",
					 budget_bytes() >> 20);
		}
		check_device(rc);
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
	reply(s, &st, NULL, 0, NULL, 0);
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

/*
 * Rows changed since the load: ask the querying backend what its snapshot
 * makes of their xids (a NEED_XIDS reply, answered by CACHE_XIDS), set
 * their visibility column for this query, and fold what no snapshot can
 * see differently any more (committed before every snapshot's horizon, or
 * aborted).  Returns 1 to go on, 0 when it has replied itself (the query
 * must read the heap), -1 when the connection broke.
 */
static int
resolve_pending(int s, CacheEntry *e)
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
	xids = palloc(sizeof(uint64) * 2 * n);
	hash_seq_init(&seq, e->pending);
	while ((p = hash_seq_search(&seq)) != NULL)
	{
		if (p->xmin)
			xids[nx++] = p->xmin;
		if (p->xmax)
			xids[nx++] = p->xmax;
	}
	qsort(xids, nx, sizeof(uint64), cmp_u64);
	for (i = 0, n = 0; i < nx; i++)
		if (n == 0 || xids[n - 1] != xids[i])
			xids[n++] = xids[i];
	nx = n;

	memset(&st, 0, sizeof(st));
	st.cache_state = GDB_CACHE_NEED_XIDS;
	st.value = nx;
	if (!reply(s, &st, xids, sizeof(uint64) * nx, NULL, 0))
		return -1;
	xst = palloc(Max(nx, 1));
	if (!read_full(s, &hdr, sizeof(hdr), NULL) || hdr.magic != GDB_MSG_MAGIC ||
		hdr.type != GDB_MSG_CACHE_XIDS || hdr.payload_len != nx ||
		!read_full(s, xst, nx, NULL))
		return -1;
	for (i = 0; i < nx; i++)
		if (xst[i] == GDB_XID_OWN)
		{
			memset(&st, 0, sizeof(st));
			st.cache_state = GDB_CACHE_OWN_CHANGES;
			return reply(s, &st, NULL, 0, NULL, 0) ? 0 : -1;
		}

	n = hash_get_num_entries(e->pending);
	rows = palloc(sizeof(uint32) * Max(n, 1));
	vals = palloc(sizeof(int64) * Max(n, 1));
	i = 0;
	hash_seq_init(&seq, e->pending);
	while ((p = hash_seq_search(&seq)) != NULL)
	{
		GdbXidStatus smin = status_of(p->xmin, xids, xst, nx);
		GdbXidStatus smax = p->xmax ? status_of(p->xmax, xids, xst, nx) : GDB_XID_ABORTED;
		bool		visible = seen(smin) && !seen(smax);

		rows[i] = p->row;
		vals[i] = visible ? 1 : 0;
		i++;
		if (!visible)
			e->has_invisible = true;
		/* fold what every future snapshot sees alike */
		if (smin == GDB_XID_ALL_VISIBLE)
			p->xmin = 0;
		if (smax == GDB_XID_ABORTED)
			p->xmax = 0;
		if (smin == GDB_XID_ABORTED || smax == GDB_XID_ALL_VISIBLE ||
			(p->xmin == 0 && p->xmax == 0))
		{
			uint32		row = p->row;

			(void) hash_search(e->pending, &row, HASH_REMOVE, NULL);
		}
	}
	if (use_gpu)
	{
		GdbStats	stats = {0};

		rc = gdb_cuda_store_scatter(exec, e->store, e->vis_col, rows, vals, i,
									&stats, &err);
	}
	else
		rc = gdb_cpu_store_scatter(e->store, e->vis_col, rows, vals, i, &err);
	if (rc != GDB_OK)
	{
		check_device(rc);
		memset(&st, 0, sizeof(st));
		st.err = err;
		st.err.status = rc;
		return reply(s, &st, NULL, 0, NULL, 0) ? 0 : -1;
	}
	return 1;
}

/*
 * Put the visibility test in front of the filter: vis, JUMP_IF_FALSE past
 * the end, the program (jump targets moved by two), AND.  false if it does
 * not fit.
 */
static bool
prefix_visibility(GdbRequest *req, uint32 vis_col)
{
	uint32		n = req->ninstr;
	uint32		i;

	if (n == 0)
	{
		memset(&req->program[0], 0, sizeof(GdbInstr));
		req->program[0].op = GDB_OP_PUSH_COL;
		req->program[0].arg = vis_col;
		req->ninstr = 1;
		return true;
	}
	if (n + 3 > GDB_MAX_INSTR)
		return false;
	memmove(&req->program[2], &req->program[0], sizeof(GdbInstr) * n);
	for (i = 2; i < n + 2; i++)
		if (req->program[i].op == GDB_OP_JUMP_IF_FALSE ||
			req->program[i].op == GDB_OP_JUMP_IF_TRUE)
			req->program[i].arg += 2;
	memset(&req->program[0], 0, sizeof(GdbInstr) * 2);
	req->program[0].op = GDB_OP_PUSH_COL;
	req->program[0].arg = vis_col;
	req->program[1].op = GDB_OP_JUMP_IF_FALSE;
	req->program[1].arg = n + 3;
	memset(&req->program[n + 2], 0, sizeof(GdbInstr));
	req->program[n + 2].op = GDB_OP_AND;
	req->ninstr = n + 3;
	return true;
}

static bool
handle_cache_groupby(int s, char *payload, size_t len)
{
	GdbCacheQuery *cq = (GdbCacheQuery *) payload;
	GdbStatusReply st;
	CacheEntry *e;
	const uint32 *qxip;
	char	   *p;
	char	   *end = payload + len;
	int			map[GDB_MAX_COLUMNS];
	int64	   *codes;
	uint32		i,
				c;
	GdbRequest *req;
	GdbBatch   *result = NULL;
	int			rc;
	StringInfoData strings;

	memset(&st, 0, sizeof(st));
	if (len < sizeof(GdbCacheQuery) || cq->ncols > GDB_MAX_COLUMNS ||
		cq->snapshot.nxip > GDB_MAX_XIP ||
		len < sizeof(GdbCacheQuery) + cq->snapshot.nxip * sizeof(uint32))
	{
		reply_error(s, GDB_ERR_BAD_REQUEST, "malformed cache query");
		return true;
	}
	qxip = (const uint32 *) (payload + sizeof(GdbCacheQuery));

	for (e = entries; e; e = e->next)
		if (e->key.dbid == cq->key.dbid && e->key.relid == cq->key.relid &&
			e->state == GDB_CACHE_STATE_READY)
			break;
	if (e == NULL)
	{
		for (e = entries; e; e = e->next)
			if (e->key.dbid == cq->key.dbid && e->key.relid == cq->key.relid)
				break;
		st.cache_state = e ? GDB_CACHE_NOT_READY : GDB_CACHE_ABSENT;
		reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}
	if (e->relfilenode != cq->relfilenode || e->change_count != cq->change_count)
	{
		st.cache_state = GDB_CACHE_STALE;
		reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}
	for (i = 0; i < cq->ncols; i++)
	{
		map[i] = -1;
		for (c = 0; c < e->ncols; c++)
			if (e->attnums[c] == cq->attnums[i] && e->typids[c] == cq->typids[i])
				map[i] = c;
		if (map[i] < 0)
		{
			st.cache_state = GDB_CACHE_ABSENT;
			reply(s, &st, NULL, 0, NULL, 0);
			return true;
		}
	}
	if (!snapshot_covers_load(e, &cq->snapshot, qxip))
	{
		st.cache_state = GDB_CACHE_SNAPSHOT;
		reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}

	/* map the request's columns onto the store's and bind text constants */
	req = &cq->req;
	if (req->nkeys > GDB_MAX_GROUP_KEYS || req->naggs > GDB_MAX_AGGREGATES ||
		req->ninstr > GDB_MAX_INSTR)
	{
		reply_error(s, GDB_ERR_BAD_REQUEST, "malformed request");
		return true;
	}
	for (i = 0; i < req->nkeys; i++)
		if (req->key_cols[i] >= 0 && (uint32) req->key_cols[i] < cq->ncols)
			req->key_cols[i] = map[req->key_cols[i]];
	for (i = 0; i < req->naggs; i++)
		if (req->aggs[i].input_col >= 0 && (uint32) req->aggs[i].input_col < cq->ncols)
			req->aggs[i].input_col = map[req->aggs[i].input_col];
	for (i = 0; i < req->ninstr; i++)
		if (req->program[i].op == GDB_OP_PUSH_COL &&
			req->program[i].arg >= 0 && (uint32) req->program[i].arg < cq->ncols)
			req->program[i].arg = map[req->program[i].arg];
	codes = palloc(sizeof(int64) * Max(cq->ntext, 1));
	p = payload + sizeof(GdbCacheQuery) + cq->snapshot.nxip * sizeof(uint32);
	for (i = 0; i < cq->ntext; i++)
	{
		uint32		l;

		if (p + sizeof(uint32) > end)
			break;
		memcpy(&l, p, sizeof(uint32));
		p += sizeof(uint32);
		if (p + l > end)
			break;
		codes[i] = e->dict ? gdb_dict_lookup(e->dict, p, l) : -1;
		p += l;
	}
	if (i != cq->ntext || gdb_request_bind_text(req, codes, cq->ntext) != GDB_OK)
	{
		reply_error(s, GDB_ERR_BAD_REQUEST, "malformed text constants");
		return true;
	}

	/* rows changed since the load: their visibility for this snapshot */
	if (hash_get_num_entries(e->pending) > 0)
	{
		int			go = resolve_pending(s, e);

		if (go <= 0)
			return go == 0;
	}
	if (e->has_invisible && !prefix_visibility(req, e->vis_col))
	{
		st.cache_state = GDB_CACHE_ABSENT;
		reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}

	rc = fault_request(&st.err);
	if (rc == GDB_OK)
		rc = check_scratch(gdb_store_rows(e->store), req->naggs, &st.err);
	if (rc != GDB_OK)
		;
	else if (use_gpu)
		rc = gdb_cuda_store_groupby(exec, e->store, req, request_alloc, NULL,
									&result, &st.stats, &st.err);
	else
		rc = gdb_cpu_store_groupby(e->store, req, request_alloc, NULL,
								   &result, &st.stats, &st.err);
	st.err.status = rc;
	check_device(rc);
	if (rc != GDB_OK)
	{
		reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}
	e->hits++;
	e->last_use = GetCurrentTimestamp();

	/* the strings of text group keys, row by row */
	initStringInfo(&strings);
	for (i = 0; i < req->nkeys; i++)
	{
		const int64 *vals = GDB_COL_PTR(result, result, i, int64);
		const uint8_t *nulls = GDB_NULL_PTR(result, result, i);
		uint64		r;

		if (!cq->key_is_text[i])
			continue;
		for (r = 0; r < result->nrows; r++)
		{
			uint32		l = 0xFFFFFFFF;

			if (nulls && nulls[r])
				appendBinaryStringInfo(&strings, (char *) &l, sizeof(l));
			else
			{
				text	   *t = DatumGetTextPP(gdb_dict_datum(e->dict, vals[r]));

				l = VARSIZE_ANY_EXHDR(t);
				appendBinaryStringInfo(&strings, (char *) &l, sizeof(l));
				appendBinaryStringInfo(&strings, VARDATA_ANY(t), l);
			}
		}
	}
	st.cache_state = GDB_CACHE_USED;
	st.result_bytes = result->total_bytes;
	st.strings_bytes = strings.len;
	reply(s, &st, result, result->total_bytes, strings.data, strings.len);
	return true;
}

/* A backend went away: drop what it was loading and had not committed. */
static void
client_gone(int s)
{
	CacheEntry *e,
			   *next;

	for (e = entries; e; e = next)
	{
		next = e->next;
		if (e->owner == s && e->state != GDB_CACHE_STATE_READY)
			entry_unlink(e, true);
	}
	close(s);
}

/* Read and serve one request; false when the client is gone. */
static bool
serve(int s)
{
	GdbMsgHeader hdr;
	char	   *payload;
	int			fd = -1;

	if (!read_full(s, &hdr, sizeof(hdr), &fd))
		return false;
	if (hdr.magic != GDB_MSG_MAGIC || hdr.payload_len > ((uint64) 1 << 34))
	{
		if (fd >= 0)
			close(fd);
		return false;
	}
	MemoryContextReset(request_cxt);
	MemoryContextSwitchTo(request_cxt);
	payload = MemoryContextAllocHuge(request_cxt, Max(hdr.payload_len, 1));
	if (!read_full(s, payload, hdr.payload_len, NULL))
	{
		if (fd >= 0)
			close(fd);
		return false;
	}
	requests_served++;
	switch (hdr.type)
	{
		case GDB_MSG_HELLO:
			{
				GdbStatusReply st = {0};

				reply(s, &st, &hello, sizeof(hello), NULL, 0);
			}
			break;
		case GDB_MSG_GROUPBY:
			if (hdr.payload_len < sizeof(GdbRequest))
				reply_error(s, GDB_ERR_BAD_REQUEST, "malformed request");
			else
				handle_groupby(s, (GdbRequest *) payload, fd);
			break;
		case GDB_MSG_CACHE_CREATE:
			handle_cache_create(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_CACHE_APPEND:
			handle_cache_append(s, payload, hdr.payload_len, fd);
			break;
		case GDB_MSG_CACHE_FINISH:
			handle_cache_finish(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_CACHE_COMMIT:
		case GDB_MSG_CACHE_ABORT:
			handle_cache_end(s, payload, hdr.payload_len,
							 hdr.type == GDB_MSG_CACHE_COMMIT);
			break;
		case GDB_MSG_CACHE_GROUPBY:
			if (!handle_cache_groupby(s, payload, hdr.payload_len))
			{
				if (fd >= 0)
					close(fd);
				MemoryContextSwitchTo(TopMemoryContext);
				return false;
			}
			break;
		case GDB_MSG_CACHE_DROP:
			handle_cache_drop(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_CACHE_STATUS:
			handle_cache_status(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_CACHE_CHANGES:
			handle_cache_changes(s, payload, hdr.payload_len, fd);
			break;
		case GDB_MSG_FAULT:
			handle_fault(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_SERVER_STATUS:
			handle_server_status(s);
			break;
		default:
			reply_error(s, GDB_ERR_BAD_REQUEST, "unknown request type %u", hdr.type);
	}
	if (fd >= 0)
		close(fd);
	MemoryContextSwitchTo(TopMemoryContext);
	MemoryContextReset(request_cxt);
	if (restart_pending)
	{
		unlink(GDB_SERVER_SOCKET);
		_exit(1);
	}
	return true;
}

/* Choose the mode: the first usable device, else the CPU. */
static void
choose_mode(void)
{
	GdbError	err = {0};
	int			ndev = 0;

	memset(&hello, 0, sizeof(hello));
	if (gpudb_device_mode == GPUDB_DEVICE_CPU)
	{
		strlcpy(hello.reason, "gpudb.device is cpu in the server's configuration",
				sizeof(hello.reason));
		return;
	}
	if (gdb_cuda_probe(hello.devs, lengthof(hello.devs), &ndev, &err) != GDB_OK || ndev == 0)
	{
		strlcpy(hello.reason, err.message[0] ? err.message : "no CUDA device",
				sizeof(hello.reason));
		return;
	}
	hello.ndev = ndev;
	if (gdb_cuda_open(hello.devs[0].ordinal, &exec, &err) != GDB_OK)
	{
		snprintf(hello.reason, sizeof(hello.reason), "device 0 unusable: %s", err.message);
		exec = NULL;
		return;
	}
	use_gpu = true;
	hello.use_gpu = 1;
}

/* The server process: serve requests until shutdown or postmaster death. */
static void
server_run(void)
{
	struct sockaddr_un addr;
	struct pollfd *pfds;
	int			listen_sock;
	int			nclients = 0;
	int		   *clients;

	request_cxt = AllocSetContextCreate(TopMemoryContext, "gpudb server request",
										ALLOCSET_DEFAULT_SIZES);
	clients = palloc(sizeof(int) * MAX_CLIENTS);
	pfds = palloc(sizeof(struct pollfd) * (MAX_CLIENTS + 1));

	/*
	 * The socket first: backends that connect while the device initialises
	 * wait in the listen queue instead of finding no server.
	 */
	listen_sock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (listen_sock < 0)
		elog(FATAL, "gpudb server: socket: %m");
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strlcpy(addr.sun_path, GDB_SERVER_SOCKET, sizeof(addr.sun_path));
	unlink(GDB_SERVER_SOCKET);
	if (bind(listen_sock, (struct sockaddr *) &addr, sizeof(addr)) < 0)
		elog(FATAL, "gpudb server: bind %s: %m", GDB_SERVER_SOCKET);
	if (chmod(GDB_SERVER_SOCKET, S_IRUSR | S_IWUSR) < 0)
		elog(FATAL, "gpudb server: chmod %s: %m", GDB_SERVER_SOCKET);
	if (listen(listen_sock, 128) < 0)
		elog(FATAL, "gpudb server: listen: %m");

	choose_mode();
	ereport(LOG,
			(errmsg("gpudb server: %s mode%s%s", use_gpu ? "GPU" : "CPU",
					use_gpu ? ", device " : ": ",
					use_gpu ? hello.devs[0].name : hello.reason)));

	while (!ShutdownRequestPending)
	{
		int			i,
					n;

		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		pfds[0].fd = listen_sock;
		pfds[0].events = POLLIN;
		for (i = 0; i < nclients; i++)
		{
			pfds[i + 1].fd = clients[i];
			pfds[i + 1].events = POLLIN;
			pfds[i + 1].revents = 0;
		}
		n = poll(pfds, nclients + 1, 1000);
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			elog(FATAL, "gpudb server: poll: %m");
		}
		if (!PostmasterIsAlive() || getppid() == 1)
			_exit(1);
		for (i = nclients - 1; i >= 0; i--)
		{
			if (pfds[i + 1].revents == 0)
				continue;
			if (!serve(clients[i]))
			{
				client_gone(clients[i]);
				clients[i] = clients[--nclients];
			}
		}
		if (pfds[0].revents & POLLIN)
		{
			int			c = accept(listen_sock, NULL, NULL);

			if (c >= 0)
			{
				struct timeval tv = {30, 0};

				if (nclients >= MAX_CLIENTS)
					close(c);
				else
				{
					/* a stuck peer cannot hold the server longer than this */
					setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
					setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
					clients[nclients++] = c;
				}
			}
		}
	}
	cache_drop_all("server shutdown");
	if (exec)
		gdb_cuda_close(exec);
	unlink(GDB_SERVER_SOCKET);
	_exit(0);
}

static volatile sig_atomic_t child_exited = false;

static void
handle_sigchld(SIGNAL_ARGS)
{
	int			save_errno = errno;

	child_exited = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/*
 * gdb_server_main: the "gpudb GPU server" background worker: fork the
 * server process, restart it a second after it dies, stop it on shutdown.
 */
void
gdb_server_main(Datum arg)
{
	pid_t		child = 0;

	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGCHLD, handle_sigchld);
	pqsignal(SIGPIPE, SIG_IGN);
	BackgroundWorkerUnblockSignals();

	while (!ShutdownRequestPending)
	{
		if (child == 0)
		{
			/* the child inherits the count (it shares no memory with us) */
			process_starts++;
			child = fork();
			if (child < 0)
			{
				ereport(LOG, (errmsg("gpudb: could not fork the GPU server: %m")));
				process_starts--;
				child = 0;
			}
			else if (child == 0)
			{
				/* process_starts was counted before the fork */
				/* the server process: nothing of PostgreSQL's shared state */
				on_exit_reset();
				pqsignal(SIGCHLD, SIG_DFL);
				init_ps_display("gpudb GPU server process");
				server_run();
				_exit(0);
			}
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			if (child > 0)
				kill(child, SIGHUP);
		}
		if (child > 0)
		{
			int			status;
			pid_t		r = waitpid(child, &status, WNOHANG);

			child_exited = false;
			if (r == child)
			{
				ereport(LOG,
						(errmsg("gpudb: GPU server process %d %s %d; restarting it",
								(int) child,
								WIFSIGNALED(status) ? "was terminated by signal" : "exited with status",
								WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status))));
				child = 0;
				pg_usleep(1000000L);
			}
		}
	}
	if (child > 0)
	{
		kill(child, SIGTERM);
		(void) waitpid(child, NULL, 0);
	}
	proc_exit(0);
}
