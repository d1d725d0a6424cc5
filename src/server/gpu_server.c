/*-------------------------------------------------------------------------
 *
 * gpu_server.c
 *	  The GPU server: a background worker that owns the CUDA context, all
 *	  device memory and the column cache, and runs requests for every
 *	  backend.
 *
 * Registered by _PG_init when gpudb is in shared_preload_libraries.  The
 * background worker is only a supervisor: it forks the server process,
 * which does all the work, detaches PostgreSQL's shared memory, logs with
 * its own PID and dies with the worker (server_process_init).  The
 * postmaster does not know that process, so when it dies (a driver fault, a
 * kill -9) the supervisor starts a new one a second later and every session
 * keeps running; a backend that was waiting gets an ERROR, and its next
 * statement reads the heap (the cache died with the process).  Backends
 * talk to the server over the Unix socket of server_protocol.h.
 *
 * Mode: with gpudb.device = cpu, or when no CUDA device is usable, the
 * server runs in CPU mode and holds the cache in its own host memory, with
 * the same loading, validity and change-tracking code as on the device.
 *
 * Requests run one at a time, in arrival order (poll() over the listening
 * socket and one socket per backend).  Change capture's messages come on a
 * socket of their own, served by a thread that only queues them
 * (server_capture.c), so that writers never wait behind a request; they
 * are applied before the next request is served.  A request's failure (a filter
 * error, device out-of-memory, a kernel fault) is replied to its backend as
 * a status; after a sticky CUDA error the process ends once the reply is
 * sent and the supervisor starts a fresh one (the cache is lost).  The
 * cache itself lives in server_cache.c.
 *
 * Testing aids: gpu_debug_fault (fault_inject.c) arms injected failures
 * here (GDB_MSG_FAULT: srv_fault_alloc before device allocations,
 * srv_fault_request before a request's device work), and gpu_server_status
 * reads GDB_MSG_SERVER_STATUS.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libpq/pqsignal.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/fork_process.h"
#include "postmaster/interrupt.h"
#include "postmaster/postmaster.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/pg_shmem.h"
#include "storage/pmsignal.h"
#include "storage/proc.h"
#include "utils/backend_status.h"
#include "catalog/pg_type.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/ps_status.h"
#include "utils/wait_event.h"
#include "utils/timestamp.h"

#include "gpudb.h"
#include "server_client.h"
#include "gpudb_defaults.h"
#include "gpu_server.h"

/*
 * Connections the server serves at once: one per backend and parallel
 * worker that can exist (MaxBackends: connections, autovacuum, background
 * and parallel workers, WAL senders), and some to spare for connections
 * closed by their backend but not yet seen closed here.  A backend is
 * never refused while PostgreSQL lets it exist.
 */
#define MAX_CLIENTS (MaxBackends + 64)


bool		srv_use_gpu = false;
bool		srv_restart_pending = false;	/* exit after this srv_reply */
static int	process_starts = 0;	/* set by the supervisor before each fork */
static uint64 requests_served = 0;
static int	fault_count[GDB_FAULT__COUNT];	/* armed by gpu_debug_fault */
static int	fault_delay_ms = 0;
GdbCudaExec *srv_exec = NULL;
GdbCudaExec *srv_execs[SRV_MAX_EXECS];
int			srv_exec_ordinals[SRV_MAX_EXECS];

/*
 * The scratch each execution state keeps between requests: its device's
 * memory / GPUDB_SCRATCH_KEPT_DIVISOR (release_scratch), set when opened.
 */
static uint64 srv_scratch_kept[SRV_MAX_EXECS];
int			srv_nexecs = 0;
int			srv_nshards = 1;
static GdbHelloReply hello;
static MemoryContext request_cxt;
static pid_t server_parent = 0;	/* the worker that forked this process */
static Latch server_latch;		/* the server process's own MyLatch */

/* ---- socket I/O (blocking, with a timeout against stuck peers) ---- */

bool
srv_read_full(int s, void *buf, size_t len, int *fd)
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

bool
srv_write_full(int s, const void *buf, size_t len)
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
bool
srv_reply(int s, GdbStatusReply *st, const void *a, size_t alen,
	  const void *b, size_t blen)
{
	GdbMsgHeader hdr;

	/*
	 * Before the client hears back: a backend that asks the capture thread
	 * which tables are cached right after this reply (a load's own
	 * transaction writing to the table) must see what this request did.
	 */
	srv_capture_publish();
	hdr.magic = GDB_MSG_MAGIC;
	hdr.type = GDB_MSG_REPLY;
	hdr.payload_len = sizeof(GdbStatusReply) + alen + blen;
	return srv_write_full(s, &hdr, sizeof(hdr)) &&
		srv_write_full(s, st, sizeof(GdbStatusReply)) &&
		(alen == 0 || srv_write_full(s, a, alen)) &&
		(blen == 0 || srv_write_full(s, b, blen));
}

bool
srv_reply_error(int s, int status, const char *fmt,...) pg_attribute_printf(3, 4);

bool
srv_reply_error(int s, int status, const char *fmt,...)
{
	GdbStatusReply st;
	va_list		ap;

	memset(&st, 0, sizeof(st));
	st.err.status = status;
	va_start(ap, fmt);
	vsnprintf(st.err.message, sizeof(st.err.message), fmt, ap);
	va_end(ap);
	return srv_reply(s, &st, NULL, 0, NULL, 0);
}

/* ---- execution on the server's path ---- */

/*
 * One block for a request's large result, kept from request to request
 * (up to SRV_RESULT_BLOCK_MAX bytes): its pages are faulted in once, not
 * by every result's copy from the device (a fresh 146 MB result took ~70
 * ms of page faults there, TPC-H Q17's derived table at SF 10).  Handed
 * out at most once per request; free again when the request's context is
 * reset.
 */
#define SRV_RESULT_BLOCK_MIN ((size_t) 4 << 20)
#define SRV_RESULT_BLOCK_MAX ((size_t) 1 << 30)
static char *result_block;
static size_t result_block_bytes;
static bool result_block_used;

/* The request's context is reset: its result block is free again. */
static void
request_reset(void)
{
	MemoryContextReset(request_cxt);
	result_block_used = false;
}

void *
srv_request_alloc(void *arg, size_t bytes)
{
	if (bytes >= SRV_RESULT_BLOCK_MIN && bytes <= SRV_RESULT_BLOCK_MAX &&
		!result_block_used)
	{
		if (bytes > result_block_bytes)
		{
			size_t		want = Min(bytes + bytes / 4, SRV_RESULT_BLOCK_MAX);

			free(result_block);
			result_block_bytes = 0;
			result_block = malloc(want);
			if (result_block != NULL)
				result_block_bytes = want;
		}
		if (result_block != NULL)
		{
			result_block_used = true;
			return result_block;
		}
	}
	return MemoryContextAllocExtended(request_cxt, bytes,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}


/* After a device error: reset on a sticky fault (the cache is then lost). */
void
srv_check_device(int status)
{
	GdbError	err = {0};

	if (!srv_use_gpu || status != GDB_ERR_DEVICE)
		return;
	for (int i = 0; i < srv_nexecs; i++)
		if (gdb_cuda_recover(srv_execs[i], &err) != GDB_OK)
			break;
	if (err.status != GDB_OK)
	{
		/*
		 * The context is lost, and with it the cache.  Some drivers give a
		 * reset device only to a new process, so this process ends once the
		 * srv_reply is sent (serve) and the supervisor starts a fresh one.
		 */
		ereport(LOG,
				(errmsg("gpudb server: device fault, restarting the server process: %s",
						err.message)));
		srv_restart_pending = true;
	}
}

/* ---- injected faults (gpu_debug_fault, a testing aid) ---- */

/*
 * The test hook of the device self-test (column_store.h, which this side
 * must not include): a kernel that faults, leaving a sticky error.
 */
extern int	gdb_cuda_debug_fault(GdbCudaExec *srv_exec, GdbError *err);

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
int
srv_fault_alloc(GdbError *err)
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
 * srv_reply, 'copy' fails as a copy error.  The srv_reply's message is the same in
 * both modes; the device's own is logged.
 */
int
srv_fault_request(GdbError *err)
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
		if (srv_use_gpu)
		{
			GdbError	ferr = {0};
			int			frc = gdb_cuda_debug_fault(srv_exec, &ferr);

			ereport(LOG,
					(errmsg("gpudb server: injected kernel fault: %s",
							frc == GDB_OK ? "the kernel did not fault" : ferr.message)));
		}
		else
			ereport(LOG,
					(errmsg("gpudb server: injected kernel fault (simulated in CPU mode)")));
		/* the caller's srv_check_device resets the device; the process restarts */
		srv_restart_pending = true;
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
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed fault request");
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
	srv_reply(s, &st, NULL, 0, NULL, 0);
}

static void
handle_server_status(int s)
{
	GdbStatusReply st;
	GdbServerStatus ss;

	memset(&st, 0, sizeof(st));
	memset(&ss, 0, sizeof(ss));
	ss.use_gpu = srv_use_gpu ? 1 : 0;
	ss.process_starts = process_starts;
	ss.cache_bytes = srv_cache_bytes(NULL);
	for (int i = 0; i < srv_nexecs; i++)
		ss.scratch_bytes += gdb_cuda_scratch_bytes(srv_execs[i]);
	ss.requests = requests_served;
	ss.kept_bytes = srv_kept_bytes();
	if (srv_use_gpu)
		strlcpy(ss.device, hello.devs[0].name, sizeof(ss.device));
	srv_reply(s, &st, &ss, sizeof(ss), NULL, 0);
}

/*
 * Device scratch memory of a query over nrows rows, bounded with the cache
 * by gpudb.device_memory_limit: about 64 bytes a row (flags, row ids, sort
 * keys, states) for the sort path; the fast paths need less.
 */
int
srv_check_scratch(uint64 nrows, uint32 naggs, GdbError *err)
{
	uint64		limit = (uint64) gpudb_device_memory_limit_kb * 1024;
	uint64		need = nrows * (32 + 32 * (uint64) Max(naggs, 1));
	uint64		used;

	if (srv_fault_alloc(err) != GDB_OK)
		return GDB_ERR_OUT_OF_MEMORY;
	if (!srv_use_gpu || limit == 0)
		return GDB_OK;
	used = srv_cache_bytes(NULL) + srv_kept_bytes(); /* build sides kept too */
	if (used + need <= limit)
		return GDB_OK;
	err->status = GDB_ERR_OUT_OF_MEMORY;
	snprintf(err->message, sizeof(err->message),
			 "the query needs about " UINT64_FORMAT " MB of device memory; the cache and kept join build sides hold "
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
	int			rc;

	memset(&st, 0, sizeof(st));
	input = srv_map_batch(s, fd);
	if (input == NULL)
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed batch");
		return;
	}
	rc = srv_fault_request(&st.err);
	if (rc == GDB_OK)
		rc = srv_check_scratch(input->nrows, req->naggs, &st.err);
	if (rc != GDB_OK)
		;
	else if (srv_use_gpu)
		rc = gdb_cuda_execute(srv_exec, req, input, srv_request_alloc, NULL, &result,
							  &st.stats, &st.err);
	else
		rc = gdb_cpu_execute(req, input, srv_request_alloc, NULL, &result,
							 &st.stats, &st.err);
	srv_unmap_batch(input);
	st.err.status = rc;
	srv_check_device(rc);
	if (rc == GDB_OK)
	{
		st.result_bytes = result->total_bytes;
		srv_reply(s, &st, result, result->total_bytes, NULL, 0);
	}
	else
		srv_reply(s, &st, NULL, 0, NULL, 0);
}

/*
 * After a request: each execution state's scratch buffers down to
 * srv_scratch_kept (gdb_cuda_release_scratch).
 */
static void
release_scratch(void)
{
	int			i;

	if (!srv_use_gpu)
		return;
	for (i = 0; i < srv_nexecs; i++)
		(void) gdb_cuda_release_scratch(srv_execs[i], srv_scratch_kept[i]);
}

/* Read and serve one request; false when the client is gone. */
static bool
serve(int s)
{
	GdbMsgHeader hdr;
	char	   *payload;
	int			fd = -1;

	if (!srv_read_full(s, &hdr, sizeof(hdr), &fd))
		return false;
	if (hdr.magic != GDB_MSG_MAGIC || hdr.payload_len > ((uint64) 1 << 34))
	{
		if (fd >= 0)
			close(fd);
		return false;
	}
	request_reset();
	MemoryContextSwitchTo(request_cxt);
	payload = MemoryContextAllocHuge(request_cxt, Max(hdr.payload_len, 1));
	if (!srv_read_full(s, payload, hdr.payload_len, NULL))
	{
		if (fd >= 0)
			close(fd);
		return false;
	}
	requests_served++;
	/* changes queued before this request was sent come first */
	srv_capture_drain();
	switch (hdr.type)
	{
		case GDB_MSG_HELLO:
			{
				GdbStatusReply st = {0};

				srv_reply(s, &st, &hello, sizeof(hello), NULL, 0);
			}
			break;
		case GDB_MSG_GROUPBY:
			{
				GdbRequest *req = (GdbRequest *) payload;

				/*
				 * the request, then exactly its code tables' words and its
				 * joins' build sides
				 */
				if (hdr.payload_len < sizeof(GdbRequest) ||
					req->ntable_words > (hdr.payload_len - sizeof(GdbRequest)) / sizeof(uint64) ||
					req->njoin_bytes > hdr.payload_len - sizeof(GdbRequest) -
					req->ntable_words * sizeof(uint64) ||
					hdr.payload_len - sizeof(GdbRequest) !=
					req->ntable_words * sizeof(uint64) + req->njoin_bytes)
					srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed request");
				else
				{
					char		why[128] = "";

					req->table_words = req->ntable_words > 0 ?
						(const uint64 *) (payload + sizeof(GdbRequest)) : NULL;
					/* a backend's words have no identity the device may keep */
					req->table_words_key = 0;
					req->join_data = req->njoin_bytes > 0 ?
						(const void *) (payload + sizeof(GdbRequest) +
										req->ntable_words * sizeof(uint64)) : NULL;
					/* kept build sides: only those without text codes */
					if (srv_bind_kept(req, 0, why, sizeof(why)) != 0)
						srv_reply_error(s, GDB_ERR_BAD_REQUEST, "%s",
										why[0] ? why : "a kept build side with text codes probed by a heap batch");
					else
						handle_groupby(s, req, fd);
				}
			}
			break;
		case GDB_MSG_CACHE_CREATE:
			srv_handle_cache_create(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_CACHE_APPEND:
			srv_handle_cache_append(s, payload, hdr.payload_len, fd);
			break;
		case GDB_MSG_CACHE_FINISH:
			srv_handle_cache_finish(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_CACHE_COMMIT:
		case GDB_MSG_CACHE_ABORT:
			srv_handle_cache_end(s, payload, hdr.payload_len,
							 hdr.type == GDB_MSG_CACHE_COMMIT);
			break;
		case GDB_MSG_CACHE_GROUPBY:
			if (!srv_handle_cache_groupby(s, payload, hdr.payload_len))
			{
				if (fd >= 0)
					close(fd);
				MemoryContextSwitchTo(TopMemoryContext);
				return false;
			}
			break;
		case GDB_MSG_CACHE_DROP:
			srv_handle_cache_drop(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_CACHE_STATUS:
			srv_handle_cache_status(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_CACHE_CHANGES:
			srv_handle_cache_changes(s, payload, hdr.payload_len, fd);
			break;
		case GDB_MSG_FAULT:
			handle_fault(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_JOIN_RELEASE:
			srv_handle_join_release(s, payload, hdr.payload_len);
			break;
		case GDB_MSG_SERVER_STATUS:
			handle_server_status(s);
			break;
		default:
			srv_reply_error(s, GDB_ERR_BAD_REQUEST, "unknown request type %u", hdr.type);
	}
	if (fd >= 0)
		close(fd);
	MemoryContextSwitchTo(TopMemoryContext);
	request_reset();
	release_scratch();
	if (srv_restart_pending)
	{
		unlink(GDB_SERVER_SOCKET);
		_exit(1);
	}
	return true;
}

/*
 * The devices of gpudb.devices (every probed one when it is empty), an
 * execution state per entry into srv_execs, and GPU mode; else (none
 * usable, gpudb.device = cpu) CPU mode with hello.reason saying why.
 */
static void
open_devices(void)
{
	GdbError	err = {0};
	int			ndev = 0;
	int			want[SRV_MAX_EXECS];
	int			nwant;
	int			i,
				d;

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
	nwant = gdb_parse_devices(gpudb_devices, want, lengthof(want));
	if (nwant <= 0)
	{
		for (nwant = 0; nwant < ndev && nwant < SRV_MAX_EXECS; nwant++)
			want[nwant] = hello.devs[nwant].ordinal;
	}
	for (i = 0; i < nwant; i++)
	{
		GdbCudaExec *ex = NULL;

		if (gdb_cuda_open(want[i], &ex, &err) != GDB_OK)
		{
			ereport(LOG,
					(errmsg("gpudb server: CUDA device %d of gpudb.devices is not used: %s",
							want[i], err.message)));
			continue;
		}
		srv_exec_ordinals[srv_nexecs] = want[i];
		srv_scratch_kept[srv_nexecs] = 0;
		for (d = 0; d < ndev && d < (int) lengthof(hello.devs); d++)
			if (hello.devs[d].ordinal == want[i])
				srv_scratch_kept[srv_nexecs] = hello.devs[d].memory_total /
					GPUDB_SCRATCH_KEPT_DIVISOR;
		srv_execs[srv_nexecs++] = ex;
	}
	if (srv_nexecs == 0)
	{
		snprintf(hello.reason, sizeof(hello.reason), "no device of gpudb.devices is usable: %s",
				 err.message);
		return;
	}
	srv_exec = srv_execs[0];
	srv_use_gpu = true;
	hello.use_gpu = 1;
}

/*
 * Choose the mode (open_devices), then the shards of cached relations
 * (gpudb.cache_shards, 0: one per execution state, one in CPU mode), both
 * told in the hello reply.
 */
static void
choose_mode(void)
{
	int			i;

	memset(&hello, 0, sizeof(hello));
	open_devices();
	srv_nshards = gpudb_cache_shards > 0 ? gpudb_cache_shards : Max(srv_nexecs, 1);
	hello.nshards = srv_nshards;
	hello.nused = Min(srv_nexecs, (int) lengthof(hello.used));
	for (i = 0; i < hello.nused; i++)
		hello.used[i] = srv_exec_ordinals[i];
}

/* The server process: serve requests until shutdown or postmaster death. */
static void
server_run(void)
{
	struct sockaddr_un addr;
	struct pollfd *pfds;
	int			listen_sock;
	int			nclients = 0;
	int			max_clients = MAX_CLIENTS;
	int			capture_wake;
	bool		orphans = false;	/* orphaned batch mappings left to free */
	bool		idle = false;	/* the last poll found nothing to serve */
	int		   *clients;

	request_cxt = AllocSetContextCreate(TopMemoryContext, "gpudb server request",
										ALLOCSET_DEFAULT_SIZES);
	clients = palloc(sizeof(int) * max_clients);
	pfds = palloc(sizeof(struct pollfd) * (max_clients + 2));

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
	capture_wake = srv_capture_start();
	srv_capture_publish();

	choose_mode();
	srv_capture_set_hello(&hello);
	ereport(LOG,
			(errmsg("gpudb server: %s mode%s%s", srv_use_gpu ? "GPU" : "CPU",
					srv_use_gpu ? ", device " : ": ",
					srv_use_gpu ? hello.devs[0].name : hello.reason)));

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
		/* changes queued by the capture thread wake the loop too */
		pfds[nclients + 1].fd = capture_wake;
		pfds[nclients + 1].events = POLLIN;
		pfds[nclients + 1].revents = 0;
		/*
		 * Orphaned batch mappings are freed once the server has been idle
		 * for GDB_ORPHAN_IDLE_MS, then one after another while it stays
		 * idle (server_batches.c says why).
		 */
		n = poll(pfds, nclients + 2,
				 !orphans ? 1000 : idle ? 0 : GDB_ORPHAN_IDLE_MS);
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			elog(FATAL, "gpudb server: poll: %m");
		}
		/*
		 * The worker's death kills this process (PR_SET_PDEATHSIG), and the
		 * worker exits when the postmaster dies; this only backs that up.
		 * (PostmasterIsAlive() cannot tell here: the postmaster's death
		 * signal is not armed in this process.)
		 */
		if (getppid() != server_parent)
			_exit(1);
		idle = (n == 0);
		if (idle && orphans)
			orphans = srv_free_orphan_batch();
		srv_capture_drain();
		if (srv_restart_pending)
		{
			unlink(GDB_SERVER_SOCKET);
			srv_capture_stop();
			_exit(1);
		}
		for (i = nclients - 1; i >= 0; i--)
		{
			if (pfds[i + 1].revents == 0)
				continue;
			if (!serve(clients[i]))
			{
				srv_client_gone(clients[i]);
				clients[i] = clients[--nclients];
				orphans = true;
			}
		}
		if (pfds[0].revents & POLLIN)
		{
			int			c = accept(listen_sock, NULL, NULL);

			if (c >= 0)
			{
				struct timeval tv = {30, 0};

				if (nclients >= max_clients)
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
	srv_cache_drop_all("server shutdown");
	for (int i = 0; i < srv_nexecs; i++)
		gdb_cuda_close(srv_execs[i]);
	unlink(GDB_SERVER_SOCKET);
	srv_capture_stop();
	_exit(0);
}

/*
 * Make the child just forked by the worker (whose PID is parent) the GPU
 * server process; signals are blocked on entry and unblocked on return.
 *
 * The postmaster does not know this process, so it must not be able to
 * harm what the postmaster watches: it leaves PostgreSQL's shared memory
 * (the main segment, with its System V interlock, and the dynamic shared
 * memory control segment), where a stray write would go unseen.  Nothing
 * it runs afterwards uses shared memory: it takes no LWLock or heavyweight
 * lock, reads no ShmemVariableCache or catalog (the worker has no database
 * connection), sends and serves no procsignal, has no PGPROC or backend
 * status entry, and waits in poll() on its sockets, never on a latch
 * (WaitLatch would use the worker's wait event set, whose epoll instance
 * it inherited).  What would still point into the segments is reset:
 * MyProc and MyBEEntry (elog's log_line_prefix and csvlog read them when
 * set), MyLatch (a signal handler's SetLatch) becomes a latch of its own,
 * and SIGUSR1 (procsignal_sigusr1_handler reads the shared slot) is
 * ignored.  dsm_detach_all only unmaps the control segment: the worker
 * attaches no dynamic segment, so there is no reference count to drop.
 *
 * It is a process of its own for logging: MyProcPid (log_line_prefix's
 * %p, the syslogger's chunk headers, proc_exit's check that it runs in
 * the process that set it up) and the start time (%c, %s), as every
 * process the postmaster forks sets them (InitProcessGlobals).  And it dies
 * with the worker (PR_SET_PDEATHSIG): an orphan would keep the device and
 * the socket's clients while the restarted worker starts another server.
 */
static void
server_process_init(pid_t parent)
{
	/*
	 * 15's InitProcessGlobals sets MyProcPid; newer versions set it in
	 * fork_process, which this plain fork() is not.  From 17 on, the
	 * signal handlers' wrapper resets and re-raises a signal that reaches a
	 * process whose MyProcPid is not its own (a forked child's is its
	 * parent's), which would kill this process on every SIGHUP.
	 */
	MyProcPid = getpid();
	InitProcessGlobals();
	server_parent = parent;
	/* a worker that died before the death signal was armed is seen here */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		elog(FATAL, "gpudb server: prctl(PR_SET_PDEATHSIG): %m");
	if (getppid() != parent)
		_exit(1);

	/* the worker's exit callbacks release the worker's shared state */
	on_exit_reset();

	pqsignal(SIGCHLD, PG_SIG_DFL);
	pqsignal(SIGUSR1, PG_SIG_IGN);
	pqsignal(SIGINT, PG_SIG_IGN);
	gdb_initialize_latch_support();
	InitLatch(&server_latch);
	MyLatch = &server_latch;
	MyProc = NULL;
	MyBEEntry = NULL;
	dsm_detach_all();
	PGSharedMemoryDetach();

	init_ps_display("gpudb GPU server process");
	PG_SETMASK(&UnBlockSig);
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
	pqsignal(SIGPIPE, PG_SIG_IGN);
	BackgroundWorkerUnblockSignals();

	while (!ShutdownRequestPending)
	{
		if (child == 0)
		{
			pid_t		self = MyProcPid;
			int			fork_errno;

			/* the child inherits the count (it shares no memory with us) */
			process_starts++;
			/* no handler runs in the child before it has set itself up */
			PG_SETMASK(&BlockSig);
			child = fork_process();
			if (child == 0)
			{
				server_process_init(self);
				server_run();
				_exit(0);
			}
			fork_errno = errno;
			PG_SETMASK(&UnBlockSig);
			if (child < 0)
			{
				errno = fork_errno;
				ereport(LOG, (errmsg("gpudb: could not fork the GPU server: %m")));
				process_starts--;
				child = 0;
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
