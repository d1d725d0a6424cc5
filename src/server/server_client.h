/*-------------------------------------------------------------------------
 *
 * server_client.h
 *	  Backend-side calls to the GPU server (server_client.c) and the
 *	  server's entry point (gpu_server.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_SERVER_CLIENT_H
#define GPUDB_SERVER_CLIENT_H

#include "server_protocol.h"

/* One piece of a request's payload. */
typedef struct GdbMsgPart
{
	const char *data;
	size_t		len;
} GdbMsgPart;

/* A reply: the status, then the request-specific rest. */
typedef struct GdbReply
{
	char	   *payload;
	size_t		len;
	GdbStatusReply *status;
	char	   *rest;
	size_t		rest_len;
} GdbReply;

/*
 * gdb_server_connect: connect to the GPU server once per backend; false
 * when gpudb is not preloaded or the server does not answer.  Never raises.
 */
extern bool gdb_server_connect(void);
extern void gdb_server_disconnect(void);

/*
 * gdb_cache_membership_changed (cache.c): bump the shared cache generation,
 * so that every backend's planner asks the server for its list of cached
 * copies again.  Called after each reply to a request that may change that
 * list, and on a new connection after an old one (the server may have
 * restarted).  Never raises.
 */
extern void gdb_cache_membership_changed(void);

/*
 * gdb_server_call: send a request of type with the concatenated parts as
 * payload and fd (or -1) attached, and wait for the reply (palloc'd).
 * Interrupts are served while waiting.  Raises 55000 when the server is not
 * running and 08006 when the connection breaks.
 */
extern GdbReply *gdb_server_call(uint32 type, const GdbMsgPart *parts,
								 int nparts, int fd);

/*
 * gdb_server_try_call: gdb_server_call for callers that can do without
 * the server: NULL when it is not running, the connection breaks or the
 * reply is malformed (the connection is then closed).  Interrupts are
 * served while waiting, so a cancel or statement_timeout raises as usual;
 * nothing else is raised but out-of-memory.
 */
extern GdbReply *gdb_server_try_call(uint32 type, const GdbMsgPart *parts,
									 int nparts, int fd);

/*
 * gdb_capture_call: gdb_server_try_call on change capture's own connection
 * (GDB_CAPTURE_SOCKET), which the server's capture thread answers at once,
 * whatever request the server is running: for CACHE_CHANGES.  Same
 * results and errors as gdb_server_try_call.
 */
extern GdbReply *gdb_capture_call(uint32 type, const GdbMsgPart *parts,
								  int nparts, int fd);

/*
 * gdb_server_bounded_call: a request without a batch, for code that may not
 * raise and runs with interrupts held off (transaction callbacks): waits at
 * most timeout_ms (milliseconds), and not at all once a query cancel or
 * termination is pending (PostgreSQL serves it when interrupts resume).
 * NULL, with the connection closed, when it gives up, when there is no
 * server or the connection breaks.  Serves no interrupt; raises nothing
 * but out-of-memory.
 */
extern GdbReply *gdb_server_bounded_call(uint32 type, const GdbMsgPart *parts,
										 int nparts, int timeout_ms);

/*
 * gdb_server_send / gdb_server_receive: the two halves of gdb_server_call,
 * so that a backend can prepare the next batch while the server works on
 * the last one (one request in flight).  Same errors.
 */
extern void gdb_server_send(uint32 type, const GdbMsgPart *parts, int nparts,
							int fd);
extern GdbReply *gdb_server_receive(void);

/*
 * gdb_server_call_quiet: send one request of type with payload on a
 * connection of its own, and wait at most timeout_ms for the reply, whose
 * rest is discarded; true when the server replied GDB_OK.  Never raises,
 * allocates nothing and serves no interrupt, so it may run where raising is
 * not allowed (a transaction's commit callback); the backend's own
 * connection is left as it is.  A request sent in full reaches the server
 * even when the wait times out.
 */
extern bool gdb_server_call_quiet(uint32 type, const void *payload, size_t len,
								  int timeout_ms);

/*
 * gdb_server_hello: the server's mode and devices, asked once per
 * connection; NULL when no server answers.  Never raises.
 */
extern const GdbHelloReply *gdb_server_hello(void);

/*
 * gdb_memfd_alloc: bytes of shared memory (a memfd mapping) that the
 * server can map when the fd is passed along with a request; unmapped and
 * closed when the current memory context is reset or deleted.  Raises
 * 53200 when it cannot be made.
 */
extern void *gdb_memfd_alloc(size_t bytes, int *fd);

/*
 * gdb_fault_host_alloc: while > 0, gdb_memfd_alloc raises 53200 instead
 * (and counts down); armed by gpu_debug_fault('host_alloc'), this
 * backend only.
 */
extern int	gdb_fault_host_alloc;

/*
 * gdb_fault_dictionary_limit: while > 0, a gpu_cache_load's dictionary
 * message, and a cached join query's strings (cache_query.c), stop at
 * GDB_FAULT_DICTIONARY_BYTES (each load or query that checks it counts one
 * down): 'dictionary_limit' of gpu_debug_fault, so that the tests see the
 * 1 GB limit's error, and a join's fall back to the heap, without that
 * many strings.
 */
#define GDB_FAULT_DICTIONARY_BYTES 64
extern int	gdb_fault_dictionary_limit;

/* gpu_server.c: the background worker's entry point. */
extern PGDLLEXPORT void gdb_server_main(Datum arg);

#endif							/* GPUDB_SERVER_CLIENT_H */
