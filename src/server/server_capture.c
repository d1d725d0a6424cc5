/*-------------------------------------------------------------------------
 *
 * server_capture.c
 *	  The GPU server's change-capture channel: a second socket, served by a
 *	  thread of its own, on which backends hand over the changes their
 *	  statements made to cached tables (GDB_MSG_CACHE_CHANGES) without
 *	  waiting for the request the server is running.
 *
 * The server runs requests one at a time (gpu_server.c), and a GPU query
 * can take a while; a writer of a cached table must not wait behind it.
 * So the capture thread reads each CACHE_CHANGES message (its payload and
 * the memfd of inserted rows), queues it and acknowledges it at once; the
 * server's main thread applies the queued changes, in arrival order, with
 * server_cache.c's own handler before it serves any request
 * (srv_capture_drain), and at each turn of its idle loop (at most a second
 * apart; at once when the queue grows past GDB_CAPTURE_WAKE_BYTES).  The
 * list of cache entries the thread answers CACHE_STATUS from is published
 * by the main thread before every reply it sends (srv_capture_publish), so
 * that a backend that has heard back from a request sees its effect.
 *
 * Why that keeps answers exact: a writer's statement sends its changes
 * before its transaction can commit, and the acknowledgement means they
 * are queued; a query whose snapshot sees that commit is sent after it, so
 * when the main thread reads the query, the changes are queued already and
 * are applied before the query is served.
 *
 * The thread never calls into PostgreSQL (no palloc, no elog: neither is
 * thread-safe): it uses malloc, plain sockets (gpu_server.c's
 * srv_read_full and srv_write_full, which call nothing else) and a pthread
 * mutex, with
 * every signal blocked (the main thread handles them).  A message it cannot
 * read closes that connection; a queue over GDB_CAPTURE_QUEUE_BYTES is
 * answered with an error status, and the backend then marks the copy stale
 * (cache_capture.c), as it does when the server cannot be reached.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "gpu_server.h"

/* Queued bytes (payloads) past which changes are refused (stale copy). */
#define GDB_CAPTURE_QUEUE_BYTES		((size_t) 1 << 30)

/*
 * Queued bytes past which the thread wakes the main thread to apply them at
 * once; below, they wait for the next request or the idle loop's next turn
 * (at most a second), which spares a wake-up per writing statement.
 */
#define GDB_CAPTURE_WAKE_BYTES		((size_t) 64 << 20)

/*
 * Connections the thread serves at once: one per backend that can exist,
 * as the main socket's (set from MaxBackends before the thread starts).
 */
static int	capture_max_clients = 0;

/* One queued CACHE_CHANGES message. */
typedef struct QueuedChanges
{
	char	   *payload;		/* malloc'd */
	size_t		len;
	int			fd;				/* memfd of inserted rows, or -1 */
	struct QueuedChanges *next;
} QueuedChanges;

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static QueuedChanges *queue_head = NULL;
static QueuedChanges *queue_tail = NULL;
static size_t queue_bytes = 0;
static volatile bool queue_nonempty = false;	/* read without the lock */
static int	capture_listen = -1;
static int	wake_pipe[2] = {-1, -1};	/* written by the thread: changes queued */
static MemoryContext apply_cxt = NULL;	/* the main thread's, while applying */

/* the server's mode and devices, once the main thread has chosen them */
static GdbHelloReply hello_copy;
static bool hello_ready = false;

/* the cache entries as the main thread last published them (malloc'd) */
static GdbCacheInfo *published = NULL;
static int	npublished = 0;

/* Reply status (GDB_OK or an error with message) on s. */
static bool
reply_status(int s, int status, const char *message)
{
	GdbMsgHeader hdr;
	GdbStatusReply st;

	memset(&st, 0, sizeof(st));
	st.err.status = status;
	if (message)
		strlcpy(st.err.message, message, sizeof(st.err.message));
	hdr.magic = GDB_MSG_MAGIC;
	hdr.type = GDB_MSG_REPLY;
	hdr.payload_len = sizeof(st);
	return srv_write_full(s, &hdr, sizeof(hdr)) && srv_write_full(s, &st, sizeof(st));
}

/*
 * HELLO: the server's mode and devices as the main thread's handler
 * answers it; before the main thread has chosen them (the device is still
 * being set up), GDB_ERR_NO_DEVICE, and the backend asks the main socket,
 * which answers once they are chosen.
 */
static bool
reply_hello(int s)
{
	GdbMsgHeader hdr;
	GdbStatusReply st;
	GdbHelloReply h;
	bool		ready;

	pthread_mutex_lock(&queue_lock);
	ready = hello_ready;
	h = hello_copy;
	pthread_mutex_unlock(&queue_lock);
	if (!ready)
		return reply_status(s, GDB_ERR_NO_DEVICE, "the GPU server is starting");
	memset(&st, 0, sizeof(st));
	hdr.magic = GDB_MSG_MAGIC;
	hdr.type = GDB_MSG_REPLY;
	hdr.payload_len = sizeof(st) + sizeof(h);
	return srv_write_full(s, &hdr, sizeof(hdr)) && srv_write_full(s, &st, sizeof(st)) &&
		srv_write_full(s, &h, sizeof(h));
}

/*
 * CACHE_STATUS: the published entries of database key.dbid (0: all), as
 * the main thread's handler answers it.
 */
static bool
reply_status_list(int s, const GdbCacheKey *key)
{
	GdbMsgHeader hdr;
	GdbStatusReply st;
	GdbCacheInfo *out;
	int			n = 0;
	int			i;
	bool		ok;

	pthread_mutex_lock(&queue_lock);
	out = malloc(sizeof(GdbCacheInfo) * (npublished > 0 ? npublished : 1));
	if (out != NULL)
		for (i = 0; i < npublished; i++)
			if (key->dbid == 0 || published[i].key.dbid == key->dbid)
				out[n++] = published[i];
	pthread_mutex_unlock(&queue_lock);
	if (out == NULL)
		return false;
	memset(&st, 0, sizeof(st));
	st.value = n;
	hdr.magic = GDB_MSG_MAGIC;
	hdr.type = GDB_MSG_REPLY;
	hdr.payload_len = sizeof(st) + sizeof(GdbCacheInfo) * n;
	ok = srv_write_full(s, &hdr, sizeof(hdr)) && srv_write_full(s, &st, sizeof(st)) &&
		(n == 0 || srv_write_full(s, out, sizeof(GdbCacheInfo) * n));
	free(out);
	return ok;
}

/*
 * Read one message from client s and answer it: CACHE_STATUS from the
 * published list, CACHE_CHANGES queued (or refused when the queue is
 * full); false when the connection must close (EOF, a malformed message,
 * another type).
 */
static bool
serve_capture(int s)
{
	GdbMsgHeader hdr;
	QueuedChanges *q;
	int			fd = -1;
	bool		full;
	bool		wake;

	if (!srv_read_full(s, &hdr, sizeof(hdr), &fd))
		goto fail;
	if (hdr.magic == GDB_MSG_MAGIC && hdr.type == GDB_MSG_HELLO &&
		hdr.payload_len == 0 && fd < 0)
		return reply_hello(s);
	if (hdr.magic == GDB_MSG_MAGIC && hdr.type == GDB_MSG_CACHE_STATUS &&
		hdr.payload_len == sizeof(GdbCacheKey) && fd < 0)
	{
		GdbCacheKey key;

		return srv_read_full(s, &key, sizeof(key), NULL) && reply_status_list(s, &key);
	}
	if (hdr.magic != GDB_MSG_MAGIC || hdr.type != GDB_MSG_CACHE_CHANGES ||
		hdr.payload_len < sizeof(GdbCacheChanges) || hdr.payload_len > ((uint64) 1 << 34))
		goto fail;
	q = malloc(sizeof(QueuedChanges));
	if (q == NULL)
		goto fail;
	q->payload = malloc(hdr.payload_len);
	if (q->payload == NULL)
	{
		free(q);
		goto fail;
	}
	q->len = hdr.payload_len;
	q->fd = fd;
	q->next = NULL;
	if (!srv_read_full(s, q->payload, q->len, NULL))
	{
		free(q->payload);
		free(q);
		goto fail;
	}

	pthread_mutex_lock(&queue_lock);
	full = queue_bytes + q->len > GDB_CAPTURE_QUEUE_BYTES;
	wake = !full && queue_bytes + q->len > GDB_CAPTURE_WAKE_BYTES;
	if (!full)
	{
		if (queue_tail)
			queue_tail->next = q;
		else
			queue_head = q;
		queue_tail = q;
		queue_bytes += q->len;
		queue_nonempty = true;
	}
	pthread_mutex_unlock(&queue_lock);
	if (full)
	{
		if (fd >= 0)
			close(fd);
		free(q->payload);
		free(q);
		return reply_status(s, GDB_ERR_OUT_OF_MEMORY,
							"the GPU server's change queue is full");
	}
	/* a long queue: wake the main thread if it sleeps in poll() */
	if (wake && write(wake_pipe[1], "x", 1) < 0)
	{
		/* EAGAIN: a wake-up is pending already */
	}
	return reply_status(s, GDB_OK, NULL);

fail:
	if (fd >= 0)
		close(fd);
	return false;
}

/* The capture thread: accept writers and queue what they send. */
static void *
capture_main(void *arg)
{
	struct pollfd *pfds = malloc(sizeof(struct pollfd) * (capture_max_clients + 1));
	int		   *clients = malloc(sizeof(int) * capture_max_clients);
	int			nclients = 0;

	if (pfds == NULL || clients == NULL)
		return NULL;
	for (;;)
	{
		int			i;
		int			n;

		pfds[0].fd = capture_listen;
		pfds[0].events = POLLIN;
		pfds[0].revents = 0;
		for (i = 0; i < nclients; i++)
		{
			pfds[i + 1].fd = clients[i];
			pfds[i + 1].events = POLLIN;
			pfds[i + 1].revents = 0;
		}
		n = poll(pfds, nclients + 1, -1);
		if (n < 0)
			continue;			/* EINTR (signals are blocked, but still) */
		for (i = nclients - 1; i >= 0; i--)
		{
			if (pfds[i + 1].revents == 0)
				continue;
			if (!serve_capture(clients[i]))
			{
				close(clients[i]);
				clients[i] = clients[--nclients];
			}
		}
		if (pfds[0].revents & POLLIN)
		{
			int			c = accept(capture_listen, NULL, NULL);

			if (c >= 0)
			{
				if (nclients >= capture_max_clients)
					close(c);	/* the backend marks its copy stale */
				else
					clients[nclients++] = c;
			}
		}
	}
	return NULL;
}

/* see gpu_server.h */
int
srv_capture_start(void)
{
	struct sockaddr_un addr;
	pthread_t	thread;
	sigset_t	all,
				old;
	int			rc;

	apply_cxt = AllocSetContextCreate(TopMemoryContext, "gpudb server capture",
									  ALLOCSET_DEFAULT_SIZES);
	capture_max_clients = MaxBackends + 64;
	if (pipe(wake_pipe) < 0)
		elog(FATAL, "gpudb server: pipe: %m");
	for (rc = 0; rc < 2; rc++)
	{
		int			flags = fcntl(wake_pipe[rc], F_GETFL);

		if (flags < 0 || fcntl(wake_pipe[rc], F_SETFL, flags | O_NONBLOCK) < 0 ||
			fcntl(wake_pipe[rc], F_SETFD, FD_CLOEXEC) < 0)
			elog(FATAL, "gpudb server: fcntl: %m");
	}
	capture_listen = socket(AF_UNIX, SOCK_STREAM, 0);
	if (capture_listen < 0)
		elog(FATAL, "gpudb server: socket: %m");
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strlcpy(addr.sun_path, GDB_CAPTURE_SOCKET, sizeof(addr.sun_path));
	unlink(GDB_CAPTURE_SOCKET);
	if (bind(capture_listen, (struct sockaddr *) &addr, sizeof(addr)) < 0)
		elog(FATAL, "gpudb server: bind %s: %m", GDB_CAPTURE_SOCKET);
	if (chmod(GDB_CAPTURE_SOCKET, S_IRUSR | S_IWUSR) < 0)
		elog(FATAL, "gpudb server: chmod %s: %m", GDB_CAPTURE_SOCKET);
	if (listen(capture_listen, 128) < 0)
		elog(FATAL, "gpudb server: listen: %m");

	/* the thread takes no signal: the main thread's handlers do the work */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&thread, NULL, capture_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		elog(FATAL, "gpudb server: could not start the change-capture thread: %s",
			 strerror(rc));
	pthread_detach(thread);
	return wake_pipe[0];
}

/* see gpu_server.h */
void
srv_capture_drain(void)
{
	QueuedChanges *q;
	char		buf[64];

	if (!queue_nonempty)
		return;
	/* the pending wake-ups are spent: every queued message is taken now */
	while (read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&queue_lock);
	q = queue_head;
	queue_head = queue_tail = NULL;
	queue_bytes = 0;
	queue_nonempty = false;
	pthread_mutex_unlock(&queue_lock);

	while (q)
	{
		QueuedChanges *next = q->next;
		MemoryContext old = MemoryContextSwitchTo(apply_cxt);

		/* server_cache.c's handler, with no one to reply to (it logs) */
		srv_handle_cache_changes(-1, q->payload, q->len, q->fd);
		MemoryContextSwitchTo(old);
		MemoryContextReset(apply_cxt);
		if (q->fd >= 0)
			close(q->fd);
		free(q->payload);
		free(q);
		q = next;
	}
	srv_capture_publish();
}

/* see gpu_server.h */
void
srv_capture_set_hello(const GdbHelloReply *hello)
{
	pthread_mutex_lock(&queue_lock);
	hello_copy = *hello;
	hello_ready = true;
	pthread_mutex_unlock(&queue_lock);
}

/* see gpu_server.h */
void
srv_capture_publish(void)
{
	int			n;
	GdbCacheInfo *info = srv_cache_status_array(0, &n);
	GdbCacheInfo *copy = malloc(sizeof(GdbCacheInfo) * (n > 0 ? n : 1));
	GdbCacheInfo *old;

	if (copy == NULL)
	{
		/* keep the last list; cannot happen short of the host's OOM */
		pfree(info);
		return;
	}
	memcpy(copy, info, sizeof(GdbCacheInfo) * n);
	pfree(info);
	pthread_mutex_lock(&queue_lock);
	old = published;
	published = copy;
	npublished = n;
	pthread_mutex_unlock(&queue_lock);
	free(old);
}

/* see gpu_server.h */
void
srv_capture_stop(void)
{
	unlink(GDB_CAPTURE_SOCKET);
}
