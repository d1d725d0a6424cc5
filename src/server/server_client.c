/*-------------------------------------------------------------------------
 *
 * server_client.c
 *	  The backend's side of the GPU server connection: connect, send a
 *	  request (optionally with a memfd batch), wait for the reply while
 *	  serving interrupts, and batch buffers in memfd shared memory.
 *
 * One connection per backend, opened on first use and kept.  Waiting for a
 * reply goes through WaitLatchOrSocket and CHECK_FOR_INTERRUPTS, so
 * pg_cancel_backend and statement_timeout stop the wait at once; an ERROR
 * in the middle of an exchange closes the connection (the server then
 * discards whatever that request had produced) and the next call
 * reconnects.  Nothing here catches an error and carries on: callers that
 * can do without the server (the planner, change capture) use
 * gdb_server_try_call, which returns NULL for a broken connection and
 * raises only what an interrupt raises; transaction callbacks, which run
 * with interrupts held off and may not raise, use gdb_server_bounded_call,
 * which gives up at a deadline or as soon as a cancel or termination is
 * pending.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/fd.h"
#include "portability/instr_time.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "gpudb.h"
#include "server_client.h"

/*
 * A connection to the server: the main one (every request), and change
 * capture's own (CACHE_CHANGES, served by the server's capture thread
 * without waiting for the request it runs: server_capture.c).  conn is the
 * one the I/O below works on; only gdb_capture_call points it elsewhere.
 */
typedef struct GdbConn
{
	pgsocket	sock;
	int			awaiting;		/* replies owed by the server */
	uint32		last_sent;		/* type of the last request sent */
	bool		sent_batch;		/* the last request carried a batch buffer */
	bool		ever_connected;
	const char *path;			/* the socket, relative to the data directory */
} GdbConn;

static GdbConn main_conn = {PGINVALID_SOCKET, 0, 0, false, false, GDB_SERVER_SOCKET};
static GdbConn capture_conn = {PGINVALID_SOCKET, 0, 0, false, false, GDB_CAPTURE_SOCKET};
static GdbConn *conn = &main_conn;

/* Can a request of type change the server's list of cached copies? */
static bool
changes_cache_list(uint32 type)
{
	/*
	 * Not CACHE_CHANGES: the server applies them after it replied
	 * (server_capture.c), and a copy that cannot follow is dropped then; a
	 * plan that still counts on it reads the heap at run time.
	 */
	return type == GDB_MSG_CACHE_CREATE || type == GDB_MSG_CACHE_APPEND ||
		type == GDB_MSG_CACHE_FINISH || type == GDB_MSG_CACHE_COMMIT ||
		type == GDB_MSG_CACHE_ABORT || type == GDB_MSG_CACHE_DROP ||
		type == GDB_MSG_FAULT;
}

/* Close the connection (the protocol state is unknown after an error). */
void
gdb_server_disconnect(void)
{
	if (conn->sock != PGINVALID_SOCKET)
	{
		close(conn->sock);
		ReleaseExternalFD();
	}
	conn->sock = PGINVALID_SOCKET;
	conn->awaiting = 0;
}

/* see server_client.h */
bool
gdb_server_connect(void)
{
	struct sockaddr_un addr;
	pgsocket	s;

	if (conn->sock != PGINVALID_SOCKET)
	{
		struct pollfd pfd = {conn->sock, POLLIN, 0};

		/*
		 * Between requests the server sends nothing: a readable socket means
		 * it closed (it restarted), so connect to the new one.
		 */
		if (conn->awaiting == 0 && poll(&pfd, 1, 0) == 0)
			return true;
		/* a reply nobody will read (an ERROR left it behind), or EOF */
		gdb_server_disconnect();
	}
	if (!gpudb_preloaded)
		return false;
	/* counted against max_files_per_process, as PostgreSQL's own sockets */
	if (!AcquireExternalFD())
		return false;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0)
	{
		ReleaseExternalFD();
		return false;
	}
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strlcpy(addr.sun_path, conn->path, sizeof(addr.sun_path));

	/*
	 * Non-blocking before connect(): a server whose listen queue is full
	 * (EAGAIN) counts as absent, and the caller reads the heap, rather than
	 * this backend waiting uninterruptibly.  The backend's working directory
	 * is the data directory.
	 */
	if (fcntl(s, F_SETFL, O_NONBLOCK) < 0 ||
		connect(s, (struct sockaddr *) &addr, sizeof(addr)) < 0)
	{
		close(s);
		ReleaseExternalFD();
		return false;
	}
	conn->sock = s;
	/* a new connection after an old one: the server may have restarted */
	if (conn == &main_conn && conn->ever_connected)
		gdb_cache_membership_changed();
	conn->ever_connected = true;
	return true;
}

/*
 * How a wait for the server ends other than by its answer.  GDB_WAIT_SERVE:
 * interrupts are served (a cancel or statement_timeout raises at once);
 * GDB_WAIT_BOUNDED: nothing raises and no interrupt is served (transaction
 * callbacks run with interrupts held off, and may not raise): the wait is
 * given up at wait_deadline, or as soon as a cancel or termination is
 * pending, which PostgreSQL then serves when interrupts resume.
 */
typedef enum GdbWaitMode
{
	GDB_WAIT_SERVE,
	GDB_WAIT_BOUNDED
} GdbWaitMode;

static GdbWaitMode wait_mode = GDB_WAIT_SERVE;
static TimestampTz wait_deadline = 0;

/*
 * Wait until the socket is ready for events.  False when a bounded wait is
 * given up (see GdbWaitMode); raises only what CHECK_FOR_INTERRUPTS raises.
 */
static bool
wait_socket(int events)
{
	for (;;)
	{
		long		timeout = -1L;
		int			rc;

		if (wait_mode == GDB_WAIT_BOUNDED)
		{
			if (QueryCancelPending || ProcDiePending)
				return false;
			timeout = (long) ((wait_deadline - GetCurrentTimestamp()) / 1000);
			if (timeout <= 0)
				return false;
		}
		rc = WaitLatchOrSocket(MyLatch,
							   WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | events |
							   (timeout >= 0 ? WL_TIMEOUT : 0),
							   conn->sock, timeout, PG_WAIT_EXTENSION);
		if (rc & WL_LATCH_SET)
		{
			ResetLatch(MyLatch);
			if (wait_mode == GDB_WAIT_SERVE)
				CHECK_FOR_INTERRUPTS();
		}
		if (rc & events)
			return true;
	}
}

static void
lost_server(const char *what)
{
	gdb_server_disconnect();
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("gpudb: lost the connection to the GPU server while %s", what),
			 errhint("The server restarts by itself; run the statement again.")));
}

/*
 * Send len bytes (and, with the first byte, fd if >= 0).  False when the
 * connection broke or a bounded wait was given up.
 */
static bool
send_all(const char *buf, size_t len, int fd)
{
	while (len > 0)
	{
		struct msghdr msg = {0};
		struct iovec iov;
		char		cbuf[CMSG_SPACE(sizeof(int))];
		ssize_t		n;

		iov.iov_base = (void *) buf;
		iov.iov_len = len;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		if (fd >= 0)
		{
			struct cmsghdr *cm;

			memset(cbuf, 0, sizeof(cbuf));
			msg.msg_control = cbuf;
			msg.msg_controllen = sizeof(cbuf);
			cm = CMSG_FIRSTHDR(&msg);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		}
		n = sendmsg(conn->sock, &msg, MSG_NOSIGNAL);
		if (n < 0)
		{
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			{
				if (!wait_socket(WL_SOCKET_WRITEABLE))
					return false;
				continue;
			}
			return false;
		}
		fd = -1;
		buf += n;
		len -= n;
	}
	return true;
}

/*
 * How long a backend polls for the reply to a request without a batch
 * buffer (one the server answers from its cache, or a control message)
 * before it sleeps (microseconds).
 */
#define GDB_REPLY_SPIN_US	2000

/*
 * Poll the socket for a reply for up to GDB_REPLY_SPIN_US microseconds
 * before sleeping in WaitLatchOrSocket: a request served from the cache is
 * answered within a millisecond or two, and a process that slept waits for
 * its wake-up on top (measured on the CPU machine: a cached 1,000-row
 * aggregate's Run Time 0.100 -> 0.072 ms, medians of 400).  Not after a request that carries a batch: those take longer,
 * and the parallel heap readers that send them need the CPUs.  Returns
 * whether the socket became readable.
 */
static bool
spin_for_reply(void)
{
	struct pollfd pfd = {conn->sock, POLLIN, 0};
	instr_time	start,
				now;

	INSTR_TIME_SET_CURRENT(start);
	for (;;)
	{
		if (poll(&pfd, 1, 0) > 0)
			return true;
		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, start);
		if (INSTR_TIME_GET_MICROSEC(now) >= GDB_REPLY_SPIN_US)
			return false;
	}
}

/*
 * Receive len bytes.  False when the connection broke or a bounded wait was
 * given up.
 */
static bool
recv_all(char *buf, size_t len)
{
	bool		spun = false;

	while (len > 0)
	{
		ssize_t		n = recv(conn->sock, buf, len, 0);

		if (n < 0)
		{
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			{
				if (!spun && !conn->sent_batch)
				{
					spun = true;
					if (spin_for_reply())
						continue;
				}
				if (!wait_socket(WL_SOCKET_READABLE))
					return false;
				continue;
			}
			return false;
		}
		if (n == 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

/*
 * Send a request.  False, with the connection closed, when it broke (or a
 * bounded wait was given up); an error raised meanwhile (a cancel) closes
 * it too, since the stream is then out of step, and is re-thrown.
 */
static bool
send_request(uint32 type, const GdbMsgPart *parts, int nparts, int fd)
{
	GdbMsgHeader hdr;
	volatile bool ok = true;
	int			i;

	hdr.magic = GDB_MSG_MAGIC;
	hdr.type = type;
	hdr.payload_len = 0;
	for (i = 0; i < nparts; i++)
		hdr.payload_len += parts[i].len;

	PG_TRY();
	{
		ok = send_all((const char *) &hdr, sizeof(hdr), fd);
		for (i = 0; ok && i < nparts; i++)
			if (parts[i].len > 0)
				ok = send_all(parts[i].data, parts[i].len, -1);
	}
	PG_CATCH();
	{
		gdb_server_disconnect();
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (!ok)
	{
		gdb_server_disconnect();
		return false;
	}
	conn->awaiting++;
	conn->last_sent = type;
	conn->sent_batch = fd >= 0;
	return true;
}

/*
 * Receive the reply to the request in flight into *out (palloc'd).  False,
 * with the connection closed, when it broke, the reply is malformed, or a
 * bounded wait was given up; errors raised meanwhile as in send_request.
 */
static bool
receive_reply(GdbReply **out)
{
	GdbMsgHeader hdr;
	GdbReply   *volatile reply = NULL;
	volatile bool ok;

	*out = NULL;
	if (conn->sock == PGINVALID_SOCKET)
		return false;
	PG_TRY();
	{
		ok = recv_all((char *) &hdr, sizeof(hdr)) &&
			hdr.magic == GDB_MSG_MAGIC && hdr.type == GDB_MSG_REPLY &&
			hdr.payload_len >= sizeof(GdbStatusReply);
		if (ok)
		{
			reply = palloc0(sizeof(GdbReply));
			reply->payload = MemoryContextAllocHuge(CurrentMemoryContext, hdr.payload_len);
			reply->len = hdr.payload_len;
			ok = recv_all(reply->payload, hdr.payload_len);
		}
	}
	PG_CATCH();
	{
		gdb_server_disconnect();
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (!ok)
	{
		gdb_server_disconnect();
		return false;
	}
	conn->awaiting--;
	if (changes_cache_list(conn->last_sent))
		gdb_cache_membership_changed();
	reply->status = (GdbStatusReply *) reply->payload;
	reply->rest = reply->payload + sizeof(GdbStatusReply);
	reply->rest_len = reply->len - sizeof(GdbStatusReply);
	*out = reply;
	return true;
}

/* see server_client.h */
void
gdb_server_send(uint32 type, const GdbMsgPart *parts, int nparts, int fd)
{
	if (!gdb_server_connect())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpudb: the GPU server is not running"),
				 errhint("The GPU server needs shared_preload_libraries = 'gpudb'.")));
	if (!send_request(type, parts, nparts, fd))
		lost_server("sending a request");
}

/* see server_client.h */
GdbReply *
gdb_server_receive(void)
{
	GdbReply   *reply;

	if (!receive_reply(&reply))
		lost_server("waiting for a reply");
	return reply;
}

/* see server_client.h */
GdbReply *
gdb_server_call(uint32 type, const GdbMsgPart *parts, int nparts, int fd)
{
	gdb_server_send(type, parts, nparts, fd);
	return gdb_server_receive();
}

/* see server_client.h */
GdbReply *
gdb_server_try_call(uint32 type, const GdbMsgPart *parts, int nparts, int fd)
{
	GdbReply   *reply;

	if (!gdb_server_connect() || !send_request(type, parts, nparts, fd) ||
		!receive_reply(&reply))
		return NULL;
	return reply;
}

/* see server_client.h */
GdbReply *
gdb_server_bounded_call(uint32 type, const GdbMsgPart *parts, int nparts,
						int timeout_ms)
{
	GdbReply   *volatile reply = NULL;

	if (!gdb_server_connect())
		return NULL;
	wait_mode = GDB_WAIT_BOUNDED;
	wait_deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms);
	PG_TRY();
	{
		GdbReply   *r;

		if (send_request(type, parts, nparts, -1) && receive_reply(&r))
			reply = r;
	}
	PG_FINALLY();
	{
		wait_mode = GDB_WAIT_SERVE;
	}
	PG_END_TRY();
	return reply;
}

/* see server_client.h */
GdbReply *
gdb_capture_call(uint32 type, const GdbMsgPart *parts, int nparts, int fd)
{
	GdbConn    *saved = conn;
	GdbReply   *volatile reply = NULL;

	conn = &capture_conn;
	PG_TRY();
	{
		GdbReply   *r;

		if (gdb_server_connect() && send_request(type, parts, nparts, fd) &&
			receive_reply(&r))
			reply = r;
	}
	PG_FINALLY();
	{
		conn = saved;
	}
	PG_END_TRY();
	return reply;
}

/* see server_client.h */
const GdbHelloReply *
gdb_server_hello(void)
{
	static GdbHelloReply hello;
	static bool known = false;
	GdbReply   *r;

	/* asked once per connection (a new one may reach a restarted server) */
	if (known && (capture_conn.sock != PGINVALID_SOCKET ||
				  main_conn.sock != PGINVALID_SOCKET))
		return &hello;

	/*
	 * No server, or it went away: the caller takes the CPU path.  Asked of
	 * the capture thread, which answers at once whatever request the server
	 * runs; while the server is still setting its device up, of the main
	 * socket, which answers once it has.
	 */
	known = false;
	r = gdb_capture_call(GDB_MSG_HELLO, NULL, 0, -1);
	if (r == NULL || r->status->err.status != GDB_OK)
		r = gdb_server_try_call(GDB_MSG_HELLO, NULL, 0, -1);
	if (r != NULL && r->status->err.status == GDB_OK &&
		r->rest_len >= sizeof(GdbHelloReply))
	{
		memcpy(&hello, r->rest, sizeof(GdbHelloReply));
		known = true;
	}
	return known ? &hello : NULL;
}

/* ---- one request without raising ---- */

/* The monotonic clock, in milliseconds. */
static double
quiet_now_ms(void)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	return INSTR_TIME_GET_MILLISEC(now);
}

/*
 * Wait until s is ready for events or the clock passes deadline (ms of
 * quiet_now_ms); false on timeout or a socket error.  Signals only restart
 * the wait: interrupts are not served (the caller may not raise).
 */
static bool
quiet_wait(pgsocket s, short events, double deadline)
{
	for (;;)
	{
		struct pollfd pfd = {s, events, 0};
		double		left_ms = deadline - quiet_now_ms();
		int			rc;

		if (left_ms <= 0)
			return false;
		rc = poll(&pfd, 1, (int) Min(left_ms + 1, (double) INT_MAX));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return false;
		if (rc > 0)
			return (pfd.revents & events) != 0;
	}
}

/* Send len bytes of buf on s before deadline. */
static bool
quiet_send(pgsocket s, const char *buf, size_t len, double deadline)
{
	while (len > 0)
	{
		ssize_t		n = send(s, buf, len, MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		{
			if (!quiet_wait(s, POLLOUT, deadline))
				return false;
			continue;
		}
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

/* Receive len bytes into buf (NULL: discard them) from s before deadline. */
static bool
quiet_recv(pgsocket s, char *buf, size_t len, double deadline)
{
	char		sink[256];

	while (len > 0)
	{
		size_t		want = buf ? len : Min(len, sizeof(sink));
		ssize_t		n = recv(s, buf ? buf : sink, want, 0);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		{
			if (!quiet_wait(s, POLLIN, deadline))
				return false;
			continue;
		}
		if (n <= 0)
			return false;
		if (buf)
			buf += n;
		len -= n;
	}
	return true;
}

/* see server_client.h */
bool
gdb_server_call_quiet(uint32 type, const void *payload, size_t len,
					  int timeout_ms)
{
	struct sockaddr_un addr;
	GdbMsgHeader hdr;
	GdbStatusReply st;
	double		deadline = quiet_now_ms() + timeout_ms;
	pgsocket	s;
	bool		ok;

	if (!gpudb_preloaded)
		return false;

	s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return false;
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strlcpy(addr.sun_path, GDB_SERVER_SOCKET, sizeof(addr.sun_path));
	/* a Unix socket connects at once, or fails (EAGAIN: backlog full) */
	if (connect(s, (struct sockaddr *) &addr, sizeof(addr)) < 0)
	{
		close(s);
		return false;
	}
	hdr.magic = GDB_MSG_MAGIC;
	hdr.type = type;
	hdr.payload_len = len;
	ok = quiet_send(s, (const char *) &hdr, sizeof(hdr), deadline) &&
		(len == 0 || quiet_send(s, payload, len, deadline)) &&
		quiet_recv(s, (char *) &hdr, sizeof(hdr), deadline) &&
		hdr.magic == GDB_MSG_MAGIC && hdr.type == GDB_MSG_REPLY &&
		hdr.payload_len >= sizeof(GdbStatusReply) &&
		quiet_recv(s, (char *) &st, sizeof(st), deadline) &&
		quiet_recv(s, NULL, hdr.payload_len - sizeof(st), deadline) &&
		st.err.status == GDB_OK;
	close(s);
	if (changes_cache_list(type))
		gdb_cache_membership_changed();
	return ok;
}

/* ---- batch buffers in memfd shared memory ---- */

typedef struct MemfdBuffer
{
	int			fd;
	void	   *ptr;
	size_t		bytes;
} MemfdBuffer;

static void
memfd_release(void *arg)
{
	MemfdBuffer *b = (MemfdBuffer *) arg;

	if (b->ptr)
		munmap(b->ptr, b->bytes);
	if (b->fd >= 0)
	{
		close(b->fd);
		ReleaseExternalFD();
	}
	b->ptr = NULL;
	b->fd = -1;
}

/* see server_client.h */
int			gdb_fault_host_alloc = 0;

/* see server_client.h */
int			gdb_fault_dictionary_limit = 0;

/* see server_client.h */
void *
gdb_memfd_alloc(size_t bytes, int *fd)
{
	MemfdBuffer *b;
	MemoryContextCallback *cb;

	if (gdb_fault_host_alloc > 0)
	{
		gdb_fault_host_alloc--;
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("gpudb: could not allocate a shared batch buffer"),
				 errdetail("injected fault: host allocation")));
	}
	b = MemoryContextAllocZero(CurrentMemoryContext, sizeof(MemfdBuffer));
	cb = MemoryContextAllocZero(CurrentMemoryContext, sizeof(MemoryContextCallback));
	/* counted against max_files_per_process while it is open */
	ReserveExternalFD();
	b->fd = memfd_create("gpudb-batch", MFD_CLOEXEC);
	if (b->fd < 0)
	{
		ReleaseExternalFD();
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpudb: could not create a shared batch buffer: %m")));
	}
	b->bytes = bytes;
	cb->func = memfd_release;
	cb->arg = b;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	if (ftruncate(b->fd, bytes) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("gpudb: could not size a shared batch buffer of %zu bytes: %m",
						bytes)));
	/* populated at once: cheaper than a fault a page as the batch fills */
	b->ptr = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
				  b->fd, 0);
	if (b->ptr == MAP_FAILED)
	{
		b->ptr = NULL;
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("gpudb: could not map a shared batch buffer of %zu bytes: %m",
						bytes)));
	}
	*fd = b->fd;
	return b->ptr;
}
