/*-------------------------------------------------------------------------
 *
 * gpu_server.h
 *	  Declarations shared by the two files of the GPU server process:
 *	  gpu_server.c (supervisor, socket loop, plain group-bys, faults) and
 *	  server_cache.c (the column cache).  Used in the server process only.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_GPU_SERVER_H
#define GPUDB_GPU_SERVER_H

#include "server_protocol.h"

struct CacheEntry;

/* ---- gpu_server.c ---- */

extern bool srv_use_gpu;		/* GPU mode (else CPU mode) */
extern GdbCudaExec *srv_exec;	/* the device execution state in GPU mode */

/*
 * The execution states of gpudb.devices' entries in GPU mode (srv_exec is
 * the first), with their device ordinals; srv_nshards is the shards each
 * cached relation is split into (server_shards.c), shard s on execution
 * state s % srv_nexecs; in CPU mode srv_nexecs is 0 and the shards are
 * host stores.
 */
#define SRV_MAX_EXECS 16
extern GdbCudaExec *srv_execs[SRV_MAX_EXECS];
extern int	srv_exec_ordinals[SRV_MAX_EXECS];
extern int	srv_nexecs;
extern int	srv_nshards;
extern bool srv_restart_pending;	/* end the process after this reply */

/*
 * Blocking socket I/O; false when the peer is gone (fd: an attached fd).
 * Plain system calls only: the capture thread uses them too.
 */
extern bool srv_read_full(int s, void *buf, size_t len, int *fd);
extern bool srv_write_full(int s, const void *buf, size_t len);

/* Reply to the request being served: status, then up to two pieces. */
extern bool srv_reply(int s, GdbStatusReply *st, const void *a, size_t alen,
					  const void *b, size_t blen);
extern bool srv_reply_error(int s, int status, const char *fmt,...) pg_attribute_printf(3, 4);

/* Result-batch allocator for the request being served (NULL on failure). */
extern void *srv_request_alloc(void *arg, size_t bytes);

/* After a failed device call: on a sticky fault, arrange a process restart. */
extern void srv_check_device(int status);

/* Injected faults (gpu_debug_fault): GDB_OK or the injected status. */
extern int	srv_fault_alloc(GdbError *err);
extern int	srv_fault_request(GdbError *err);

/* ---- server_capture.c: the change-capture channel ---- */

/*
 * srv_capture_start: listen on GDB_CAPTURE_SOCKET and start the thread that
 * queues backends' CACHE_CHANGES messages (and answers CACHE_STATUS); returns a descriptor that polls
 * readable while changes are queued.  FATAL when it cannot.
 * srv_capture_drain: apply every queued message, in arrival order (main
 * thread; before each request, and when idle).  Never raises.
 * srv_capture_stop: remove the socket (shutdown).
 */
extern int	srv_capture_start(void);
extern void srv_capture_drain(void);
extern void srv_capture_stop(void);

/*
 * srv_capture_publish: give the capture thread the current list of cache
 * entries, which it answers CACHE_STATUS from (main thread, after every
 * request and every drain).  Never raises.
 */
extern void srv_capture_publish(void);

/*
 * srv_capture_set_hello: the server's mode and devices, once chosen, for
 * the capture thread to answer HELLO with (so that planning never waits
 * behind a request).  Never raises.
 */
extern void srv_capture_set_hello(const GdbHelloReply *hello);

/* ---- server_batches.c ---- */

/* ms the server stays idle before it frees orphaned batch mappings */
#define GDB_ORPHAN_IDLE_MS	200

/*
 * The batch in memfd fd that client's backend passed, mapped (and in GPU
 * mode page-locked) the first time and kept for the next requests; NULL
 * if it cannot be mapped or its header is malformed.  Released with
 * srv_unmap_batch after the request.  srv_forget_batches, when client's
 * socket closes, orphans its mappings; srv_free_orphan_batch frees one
 * orphan (call it when the server is idle) and returns whether more are
 * left.  None raises.
 */
extern GdbBatch *srv_map_batch(int client, int fd);
extern void srv_unmap_batch(GdbBatch *batch);
extern void srv_forget_batches(int client);
extern bool srv_free_orphan_batch(void);

/* Device scratch of a query over nrows rows within device_memory_limit. */
extern int	srv_check_scratch(uint64 nrows, uint32 naggs, GdbError *err);

/* ---- server_shards.c: a cached relation's store, split into shards ---- */

/*
 * The rows of one cache entry: srv_nshards column stores (gpudb_device.h)
 * of consecutive row ranges, shard s on execution state s % srv_nexecs (or
 * host stores in CPU mode).  Row numbers are the entry's (its ctids'
 * index).  The functions return a GdbStatus and raise nothing, unless
 * said otherwise.
 */
typedef struct SrvStore SrvStore;

/*
 * srv_store_create: empty shards of ncols columns of the given kinds and
 * NULL flags, each taking shard_rows / srv_nshards rows (rounded up) of a
 * load before the next takes rows; one shard alone is made with room for
 * est_rows rows.
 */
extern int	srv_store_create(uint32 ncols, const uint32 *kinds, const uint32 *has_nulls,
							 uint64 est_rows, uint64 shard_rows, SrvStore **out,
							 GdbError *err);

/* srv_store_append: batch's rows behind the stored ones (split over shards). */
extern int	srv_store_append(SrvStore *ss, const GdbBatch *batch, GdbStats *stats,
							 GdbError *err);

/* srv_store_scatter: *_store_scatter's contract over the entry's row numbers. */
extern int	srv_store_scatter(SrvStore *ss, uint32 col, const uint32 *rows,
							  const int64 *vals, uint64 n, GdbStats *stats,
							  GdbError *err);

/*
 * srv_store_can_run: whether srv_store_run can answer req over ss (a SORT
 * over several shards needs its sort keys among its output columns, to
 * sort the shards' rows again).  Never raises.
 */
extern bool srv_store_can_run(const SrvStore *ss, const GdbRequest *req);

/*
 * srv_store_run: gdb_cpu_execute's contract with every stored row as the
 * input, on the shards' devices (or the CPU path), their partial results
 * combined (see the file header).  keep (may be NULL): where the GPU
 * runs the request over one shard, its result kept in device memory
 * (gdb_cuda_keep_result; *keep then holds it, result the header), else
 * *keep is set NULL.  Raises nothing: host memory that runs short while
 * the partial results combine is GDB_ERR_OUT_OF_MEMORY.
 */
extern int	srv_store_run(SrvStore *ss, const GdbRequest *req, GdbAllocFn alloc,
						  void *alloc_arg, GdbBatch **result, GdbDeviceBuffer **keep,
						  GdbStats *stats, GdbError *err);

/* Rows and bytes (headers and capacity included) of every shard together. */
extern uint64 srv_store_rows(const SrvStore *ss);
extern uint64 srv_store_bytes(const SrvStore *ss);

/* Rows of the largest shard (what one device's scratch must cover). */
extern uint64 srv_store_max_shard_rows(const SrvStore *ss);

/* Shards, and shard s's device ordinal (-1 in CPU mode), rows and bytes. */
extern int	srv_store_nshards(const SrvStore *ss);
extern void srv_store_shard_info(const SrvStore *ss, int s, int *ordinal,
								 uint64 *rows, uint64 *bytes);

/* srv_store_free: release every shard (NULL allowed). */
extern void srv_store_free(SrvStore *ss);

/* Whether every execution state is on one device (one address space). */
extern bool srv_single_device(void);

/* ---- server_cache.c: one handler per cache request ---- */

extern void srv_handle_cache_create(int s, char *payload, size_t len);
extern void srv_handle_cache_append(int s, char *payload, size_t len, int fd);
extern void srv_handle_cache_finish(int s, char *payload, size_t len);
extern void srv_handle_cache_end(int s, char *payload, size_t len, bool commit);
extern void srv_handle_cache_drop(int s, char *payload, size_t len);
extern void srv_handle_cache_status(int s, char *payload, size_t len);
/* The entries of database dbid (0: all) as GdbCacheInfo[*n], palloc'd. */
extern GdbCacheInfo *srv_cache_status_array(uint32 dbid, int *n);
extern void srv_handle_cache_changes(int s, char *payload, size_t len, int fd);

/* false when the connection broke mid-exchange */
extern bool srv_handle_cache_groupby(int s, char *payload, size_t len);

/*
 * srv_palloc_no_oom: a GdbAllocFn of CurrentMemoryContext (huge allowed)
 * that returns NULL when memory is short instead of raising; arg unused.
 */
extern void *srv_palloc_no_oom(void *arg, size_t bytes);

/* Bytes held by cache entries other than except (NULL: all). */
extern uint64 srv_cache_bytes(const struct CacheEntry *except);

/* Drop every entry (device reset, shutdown), logging why. */
extern void srv_cache_drop_all(const char *why);

/* A backend went away: drop its uncommitted loads, close its socket. */
extern void srv_client_gone(int s);

/* ---- server_join_keep.c: build sides kept for a query's probe ---- */

/* Whether a build side of bytes bytes may be kept under id (unused, within
 * GPUDB_JOIN_KEPT_BYTES).  Never raises. */
extern bool srv_keep_possible(uint64 id, uint64 bytes);

/*
 * Keep a copy of result under id for backend socket s; coded_for is the
 * cache entry whose dictionary codes its text columns hold (0: none).
 * With dev (the result kept on the device, gdb_cuda_take_result), only
 * result's header is copied and dev becomes the kept build side's (freed
 * with it).  false (nothing kept, dev still the caller's) when
 * srv_keep_possible says no or memory is short.  Never raises.
 */
extern bool srv_keep_build(int s, uint64 id, const GdbBatch *result, int64 coded_for,
						   GdbDeviceBuffer *dev);

/*
 * Bind req's kept build sides (GdbJoinSpec.build_keep) for a request over
 * cache entry entry_id (0: a heap batch): build_sides[] and build_bytes
 * set, build_keep cleared; every other build_sides[] entry set NULL.
 * Returns 0, 1 when one holds text codes of another entry (the backend
 * answers from the heap), or -1 with why when one is not kept (a bad
 * request).  Never raises.
 */
extern int	srv_bind_kept(GdbRequest *req, int64 entry_id, char *why, size_t whylen);

/* JOIN_RELEASE: free the listed kept build sides of backend s. */
extern void srv_handle_join_release(int s, char *payload, size_t len);

/* A backend went away: free its kept build sides. */
extern void srv_kept_client_gone(int s);

/* Bytes of every kept build side. */
extern uint64 srv_kept_bytes(void);

#endif							/* GPUDB_GPU_SERVER_H */
