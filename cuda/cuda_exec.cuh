/*-------------------------------------------------------------------------
 *
 * cuda_exec.cuh
 *	  Declarations shared by the CUDA files of gpudb (cuda/): the per-
 *	  execution state behind the opaque GdbCudaExec of gpudb_device.h, its
 *	  scratch buffers, and the error-checking helpers.  No PostgreSQL header.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_CUDA_EXEC_CUH
#define GPUDB_CUDA_EXEC_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#include "gpudb_device.h"
#include "column_store.h"

/* Phase marks between two waits of one request (gdb_phase_begin). */
#define GDB_MAX_MARKS 8

/* Device ordinals whose reset epoch is tracked (gdb_cuda_epoch). */
#define GDB_MAX_DEVICES 64

/*
 * Device scratch buffers of one execution, one slot per role.  Each only
 * grows (gdb_cuda_scratch), so a run of batches of similar size allocates
 * once.
 */
enum GdbScratchSlot
{
	GDB_SCR_INPUT = 0,			/* copy of the input batch buffer (not for stores) */
	GDB_SCR_PROGRAM,			/* filter program (GdbInstr[ninstr]) */
	GDB_SCR_FLAGS,				/* uint8 per row: selected / group start */
	GDB_SCR_PERM0,				/* uint32 per row: row ids (double buffer) */
	GDB_SCR_PERM1,
	GDB_SCR_KEYS0,				/* uint64 per row: sort keys (double buffer) */
	GDB_SCR_KEYS1,
	GDB_SCR_NULLKEYS0,			/* uint8 per row: null-flag sort keys */
	GDB_SCR_NULLKEYS1,
	GDB_SCR_OFFSETS,			/* uint32 per group + 1: segment offsets */
	GDB_SCR_STATES,				/* GdbAggState per selected row */
	GDB_SCR_RESULT,				/* the result batch being built */
	GDB_SCR_TEMP,				/* CUB temporary storage */
	GDB_SCR_COUNTERS,			/* GdbDevCounters */
	GDB_SCR_TOPK,				/* top-k histogram state (topk_select.cu) */
	GDB_SCR_ORDER_VALS,			/* ordered group-by: one sort key's finished
								 * values (int64 per group), then NULL flags */
	GDB_SCR_ORDER_RESULT,		/* ordered group-by: the cut result batch */
	GDB_SCR_ORDER_RUNS,			/* ordered group-by with distinct_last_key:
								 * the batch of one row per run */
	GDB_SCR_EXPRS,				/* computed columns: the view's header, then
								 * values and NULL flags per column */
	GDB_SCR_EPROGRAM,			/* filter + computed columns' programs */
	GDB_SCR_TABLES,				/* code tables: a view's header, then the
								 * tables' words (code_tables.cu) */
	GDB_SCR_JOIN,				/* join probe step: a view's header, payload
								 * and keep columns, build sides, hash
								 * tables (hash_join.cu) */
	GDB_SCR_SURVIVORS,			/* filter: the count, then the uint32 ids of
								 * the rows its leading comparisons pass
								 * (filter_vm.cu) */
	GDB_SCR__COUNT
};

/* Small values the host reads back after a phase (device and pinned). */
typedef struct GdbDevCounters
{
	unsigned long long err_key; /* min over failing rows of row << 4 | status */
	unsigned long long nsel;	/* rows selected by the filter */
	unsigned long long nseg;	/* groups (segment starts) */
	unsigned long long maxseg;	/* rows in the longest segment */
	unsigned long long nlong;	/* segments longer than GDB_FOLD_MAX_ROWS */
	unsigned long long nkept;	/* groups that pass the group qualifier */
	/* small-key-domain fast path (groupby_fastpath.cu) */
	unsigned long long fast_bad;	/* nonzero: a row fell outside the slots */
	unsigned long long kmin[GDB_MAX_GROUP_KEYS];	/* min key encoding */
	unsigned long long kmax[GDB_MAX_GROUP_KEYS];	/* max key encoding */
} GdbDevCounters;

/*
 * gdb_flag_raise: set *flag (a call-wide "some row went wrong" flag, such
 * as fast_bad; zeroed before the kernel and never cleared in it) to
 * nonzero.  Many rows may raise it -- every row, when the key ranges it is
 * checked against are wrong -- so the flag is read first, and of the lanes
 * that see it clear and run here together only the lowest does the
 * atomic: not one atomic on one address per row.  A stale read (0 after
 * another lane set it) only costs an atomic.
 */
__device__ __forceinline__ void
gdb_flag_raise(unsigned long long *flag)
{
	if (*(volatile unsigned long long *) flag == 0)
	{
		unsigned	lane;

		asm("mov.u32 %0, %%laneid;" : "=r"(lane));
		if (lane == (unsigned) (__ffs(__activemask()) - 1))
			atomicOr(flag, 1ULL);
	}
}

/*
 * gdb_error_min: atomicMin(err_key, key), the lowest failing row's key
 * winning (row << GDB_STATUS_BITS | status), but skipped when *err_key
 * already is at most key: err_key only falls from its preset ~0 while the
 * kernels of a call run, so a read at most key means the minimum will be
 * too, and a stale read only costs the atomic.  Rows that all fail (a
 * filter that raises everywhere) then do an atomic only while theirs
 * could still be the lowest, not one atomic on one address per row.
 */
__device__ __forceinline__ void
gdb_error_min(unsigned long long *err_key, unsigned long long key)
{
	if (key < *(volatile unsigned long long *) err_key)
		atomicMin(err_key, key);
}

/* A pinned host allocation handed out by gdb_cuda_host_alloc. */
typedef struct GdbPinnedBlock
{
	void	   *ptr;
	size_t		bytes;
	struct GdbPinnedBlock *next;
} GdbPinnedBlock;

/* Key-range hints an exec keeps (gdb_fast_smallkeys). */
#define GDB_RANGE_HINTS 16

struct GdbCudaExec
{
	int			ordinal;		/* CUDA device ordinal */
	int			multiprocessors;	/* for grid sizing */
	cudaStream_t stream;		/* every copy and kernel of this exec */
	cudaEvent_t ev_start;		/* device-time measurement */
	cudaEvent_t ev_stop;
	cudaEvent_t ev_mark[GDB_MAX_MARKS];	/* phase starts (gdb_phase_begin) */
	void	   *scratch[GDB_SCR__COUNT];	/* device buffers */
	size_t		scratch_bytes[GDB_SCR__COUNT];
	GdbDevCounters *host_counters;	/* pinned, read back after each phase */
	GdbPinnedBlock *pinned;		/* live gdb_cuda_host_alloc blocks */
	uint32_t	epoch;			/* gdb_cuda_epoch(ordinal) at open */
	/*
	 * key-range hints of column stores' key columns (groupby_fastpath.cu),
	 * keyed by (vals, nrows, gen): gen is the store's GdbStore.gen, new
	 * for every buffer and every change of its rows
	 */
	struct
	{
		const void *vals;		/* the key column's device values; NULL: free */
		uint64_t	nrows;
		uint64_t	gen;		/* the store's generation (never 0) */
		uint64_t	kmin;		/* gdb_key_encode_int range, as the range
								 * kernel found it (kmin > kmax: no value) */
		uint64_t	kmax;
	}			range_hint[GDB_RANGE_HINTS];
	uint32_t	range_hint_next;	/* round-robin replacement */
	/*
	 * the join_id (GdbRequest) whose build sides and hash tables the JOIN
	 * scratch holds, built and checked (hash_join.cu), or 0
	 */
	uint64_t	join_id;
	/*
	 * gdb_cuda_keep_result's mode (kept_result.cu): keep_result set (to
	 * 1, or to the least bytes of a result to keep), the
	 * next unordered result is laid out at kept (a cudaMalloc of
	 * kept_bytes) by gdb_result_alloc, and kept_done set once
	 * gdb_result_finish wrote its header there instead of copying it back
	 */
	int			keep_result;
	int			kept_done;
	void	   *kept;
	struct GdbDeviceBuffer *kept_buf;	/* kept's handle, made before it */
	size_t		kept_bytes;
	/*
	 * the pinned staging buffers a large result comes back through
	 * (gdb_result_finish: two chunks, filled by turns; made at first use)
	 * and the events that say a chunk's copy is done
	 */
	char	   *stage[2];
	cudaEvent_t stage_ev[2];
	/*
	 * the code table words the TABLES scratch holds after its header:
	 * their GdbRequest.table_words_key (0: none known) and bytes
	 */
	uint64_t	tables_key;
	size_t		tables_bytes;
};

/*
 * gdb_kept_result_alloc (kept_result.cu): in gdb_cuda_keep_result's mode,
 * a device allocation of total bytes of its own for a SELECT's or an
 * unordered GROUPBY's result (the caller checks the operator), recorded
 * in ex; NULL outside the mode,
 * after a result was kept already, or when the allocation fails (the
 * caller uses scratch then).
 */
char	   *gdb_kept_result_alloc(GdbCudaExec *ex, size_t total);

/*
 * gdb_buffer_source (kept_result.cu): buf's device address and device
 * ordinal, when it is live (not lost in a reset of its device); false
 * otherwise.
 */
bool		gdb_buffer_source(const struct GdbDeviceBuffer *buf, const void **ptr,
							  int *ordinal);

/*
 * gdb_cuda_epoch: how many times gdb_cuda_recover has reset device ordinal
 * in this process (0 for an ordinal outside [0, GDB_MAX_DEVICES)).  An exec
 * or store whose recorded epoch differs lost its device resources in a
 * reset: its handles must not be passed to CUDA any more.
 */
uint32_t	gdb_cuda_epoch(int ordinal);

/*
 * gdb_cuda_check_exec: GDB_OK when exec is not NULL and was opened in the
 * device's current epoch, after making its device current; else
 * GDB_ERR_BAD_REQUEST (NULL; "what" names the caller in the message) or
 * GDB_ERR_DEVICE (lost in a device reset, or cudaSetDevice failed).
 */
int			gdb_cuda_check_exec(GdbCudaExec *exec, const char *what, GdbError *err);



/*
 * gdb_groupby_on_device (groupby_kernels.cu): the group-by pipeline over a
 * batch whose buffer is at device address d_base.
 *	 header		host copy of that batch's header (column offsets, nrows,
 *				capacity, total_bytes); validated against req here
 *	 d_base		device buffer of header->total_bytes bytes; its first
 *				sizeof(GdbBatch) bytes must hold the same header (the
 *				filter kernel reads the offsets from there)
 *	 copy_src	NULL when d_base already holds the batch (a column store:
 *				Phase A starts at the filter); else a host batch (pinned or
 *				pageable) whose total_bytes bytes are copied to d_base first,
 *				on exec's stream, timed and counted as part of Phase A
 *	 store_gen	the column store's GdbStore.gen when d_base is a store's
 *				buffer, else 0 (then no key-range hint is taken or kept:
 *				a batch buffer holds other rows at the same address)
 * Result, statistics and errors as gdb_cuda_execute; bytes_to_device counts
 * only host-to-device copies (copy_src's buffer if any, and the filter
 * program).  Requires header->nrows <= UINT32_MAX (else
 * GDB_ERR_BAD_REQUEST).  On error *result is NULL and the stream is idle.
 */
int			gdb_groupby_on_device(GdbCudaExec *exec, const GdbRequest *req,
								  const GdbBatch *header, char *d_base,
								  const GdbBatch *copy_src, uint64_t store_gen,
								  GdbAllocFn alloc,
								  void *alloc_arg, GdbBatch **result,
								  GdbStats *stats, GdbError *err);

/*
 * gdb_fast_kinds: 1 when every aggregate of req is of a kind the fast paths
 * (groupby_fastpath.cu) fold, GDB_AGG_COUNT_STAR .. GDB_AGG_MAX_FLOAT; the
 * variance family (SUMSQ_INT, VAR_FLOAT) takes the sort path.
 */
int			gdb_fast_kinds(const GdbRequest *req);

/*
 * gdb_too_many_rows: err says a batch of nrows rows is past the CUDA path's
 * uint32 row ids; returns GDB_ERR_BAD_REQUEST.
 */
int			gdb_too_many_rows(GdbError *err, uint64_t nrows);

/* ---- pipeline internals shared by groupby_kernels.cu, groupby_fastpath.cu
 * and select_sort_kernels.cu ---- */

/* Device addresses of the group key columns of a request. */
struct GdbDevKeys
{
	uint32_t	nkeys;
	uint32_t	kind[GDB_MAX_GROUP_KEYS];
	const int64_t *vals[GDB_MAX_GROUP_KEYS];	/* raw 64-bit values */
	const uint8_t *nulls[GDB_MAX_GROUP_KEYS];	/* NULL: no null flags */
};

/* Device addresses of the key columns of the result batch. */
struct GdbDevOutKeys
{
	int64_t    *vals[GDB_MAX_GROUP_KEYS];
	uint8_t    *nulls[GDB_MAX_GROUP_KEYS];
};

/* Which pipeline produced a result (GdbRun.path, gdb_cuda_last_path). */
#define GDB_PATH_SORT		0	/* select, radix sort, segmented reduce */
#define GDB_PATH_NOKEYS		1	/* fast path: no keys, one pass */
#define GDB_PATH_SMALLKEYS	2	/* fast path: dense slots of small int keys */

/*
 * Slots of the small-key-domain fast path: the product over keys of
 * (max - min + 1, plus 1 for a column with NULL flags) must not exceed it.
 */
#define GDB_FAST_MAX_SLOTS	65536

/* Per-call working state of the group-by pipeline. */
struct GdbRun
{
	GdbCudaExec *ex;
	const GdbRequest *req;
	const GdbBatch *input;		/* host copy of the input batch's header */
	const GdbBatch *copy_src;	/* host batch to copy to d_in, or NULL */
	char	   *d_in;			/* device buffer of the input batch */
	/*
	 * the input as it came, for the key-range hints: a column store's
	 * generation (0: not a store; copy_src is no test, gdb_copy_in clears
	 * it) and its buffer's device address and bytes (a key column outside
	 * them -- computed, a join's payload -- lives in scratch)
	 */
	uint64_t	store_gen;
	const char *store_buf;
	uint64_t	store_bytes;
	uint32_t   *perm[2];		/* row-id double buffer */
	int			cur;			/* perm[cur] holds the current order */
	uint8_t    *flags;			/* filter flags (valid when req->ninstr) */
	int			flags_ready;	/* gdb_compute_columns already wrote them */
	uint32_t   *offsets;
	GdbDevCounters *d_counters;
	GdbDevKeys	keys;
	uint64_t	nrows;
	uint64_t	nsel;
	uint64_t	ngroups;
	uint64_t	maxseg;			/* rows of the longest group segment (0: not
								 * known; set by the sort pipeline) */
	/* key ranges of the selected rows, when gdb_fast_smallkeys found them */
	int			key_range_known;
	uint64_t	kmin[GDB_MAX_GROUP_KEYS];	/* gdb_key_encode_int; kmin > kmax:
											 * no non-NULL value */
	uint64_t	kmax[GDB_MAX_GROUP_KEYS];
	uint64_t	to_device;		/* bytes */
	uint64_t	from_device;	/* bytes */
	double		ms;
	double		phase_ms[GDB_PHASE__COUNT];	/* ms split by GdbPhase */
	int			nmarks;			/* ex->ev_mark[0..nmarks) recorded */
	int			mark_phase[GDB_MAX_MARKS];	/* GdbPhase from each mark on */
	int			path;			/* GDB_PATH_* */
	/*
	 * no keys, a predicate filter: the fused pass's arguments
	 * (fused_filter_agg.cuh; the caller's storage), or NULL.  When set,
	 * gdb_phase_filter writes no flags and gdb_fast_nokeys tests the
	 * predicate itself.
	 */
	const struct GdbFusedArgs *fused;
	/* ordered GROUPBY (gdb_request_ordered; groupby_order.cu) */
	GdbBatch	order_hdr;		/* layout of the unordered result, which
								 * stays in the RESULT scratch */
	char	   *order_d_res;	/* that scratch buffer */
	/*
	 * after the join probe step (hash_join.cu): the request the later steps
	 * run, whose filter reads the probe step's keep column (malloc'd; freed
	 * by gdb_groupby_on_device), or NULL
	 */
	GdbRequest *joined_req;
};

/*
 * gdb_select_sort_run (select_sort_kernels.cu): the SELECT and SORT
 * pipeline over run r, which gdb_groupby_on_device filled after validating
 * the request and batch, checking the exec and sizing the row scratch
 * (counters, flags, perm[0..1]; so gdb_cuda_execute and
 * gdb_cuda_store_execute run every operator): filter, compaction, for SORT
 * the stable radix passes per key and the top-k cut, then the gather into
 * a result batch from alloc() identical to gdb_cpu_select_sort's.  Fills
 * r->nsel, r->ngroups (rows returned), the byte counts and r->ms; after a
 * failure the caller waits for the stream and clears errors.
 */
int			gdb_select_sort_run(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
								GdbBatch **result, GdbError *err);

/* Threads per block of the group-by kernels (both files). */
#define GDB_BLOCK 256

/* Blocks for a grid-stride kernel over n items (at least 1). */
unsigned	gdb_blocks(const GdbCudaExec *ex, uint64_t n);

/*
 * gdb_phase_begin: from here on (in stream order) r's device time counts
 * for phase (GdbPhase): records the next ev_mark on r's stream.  With all
 * GDB_MAX_MARKS marks in use the time goes on counting for the phase before.
 * gdb_phase_end: record ev_stop, wait for the stream, add each interval
 * between marks (the last one up to ev_stop) to r->phase_ms of its phase
 * and the whole to r->ms, then start over (no mark).  Both return GDB_OK
 * or GDB_ERR_DEVICE.
 */
int			gdb_phase_begin(GdbRun *r, int phase, GdbError *err);
int			gdb_phase_end(GdbRun *r, GdbError *err);

/*
 * gdb_attach_tables (code_tables.cu): for a request with code tables
 * (req->ntables > 0), before any other step: copy the input in first if
 * r->copy_src (then r->copy_src is NULL), copy req's ntable_words words
 * from req->table_words (host memory) into the TABLES scratch, and make
 * *view (host) a view of r->input whose table slots point at them
 * (gdb_batch_attach_tables), with its device copy at the head of that
 * scratch; r->input and r->d_in then describe the view.  Queues the
 * copies without waiting (phase TRANSFER_IN; counted in r->to_device).
 * Returns GDB_OK or the failed CUDA call's status.
 */
int			gdb_attach_tables(GdbRun *r, GdbBatch *view, GdbError *err);

/*
 * gdb_compute_columns (computed_columns.cu): step 2 of the request
 * pipeline (gpudb_device.h) for a request with computed columns: copy the
 * input in first if r->copy_src (then r->copy_src is NULL), evaluate the
 * filter and, for the rows it selects, every computed column's program,
 * into the EXPRS scratch; wait, and fail with the SQL status of the lowest
 * failing row.  On GDB_OK *view (host) and r->input describe the view of
 * the batch with its computed columns, r->d_in its device copy, so the
 * operator's pipeline reads computed columns as stored ones.
 */
int			gdb_compute_columns(GdbRun *r, GdbBatch *view, GdbError *err);
/*
 * gdb_hash_join_step (hash_join.cu): the join probe step of the request
 * pipeline (gpudb_device.h) for a request with joins, before its computed
 * columns: copy the input in first if r->copy_src (then r->copy_src is
 * NULL), copy the build sides to the JOIN scratch and build each one's
 * hash table (gdb_hj_insert_kernel; INNER and LEFT joins checked unique
 * by gdb_hj_unique_kernel) unless the scratch still holds them for the
 * request's join_id (ex->join_id), then evaluate the filter and probe every
 * selected row (gdb_hj_probe_kernel) into the payload columns and a keep
 * column (GDB_JOIN_KEEP_COL: 1 for the rows the filter and every join
 * keep); wait, and fail with the SQL status of the lowest failing row or
 * GDB_ERR_JOIN_DUPLICATE.  On GDB_OK *view (host) and r->input describe
 * the view of the batch with those columns, r->d_in its device copy, and
 * r->req is r->joined_req: the request with its filter replaced by the
 * keep column (so the computed columns and the operator see only the
 * kept rows) and no joins.
 */
int			gdb_hash_join_step(GdbRun *r, GdbBatch *view, GdbError *err);

/*
 * gdb_filter_status: after a phase that copied the counters back, the
 * filter's SQL error (lowest failing row) in err, or GDB_OK.
 */
int			gdb_filter_status(GdbCudaExec *ex, GdbError *err);

/*
 * gdb_filter_launch (filter_vm.cu): queue the filter on ex's stream over
 * rows [0, nrows) of the batch at device address d_in, whose header's host
 * copy is hdr: flags[row] (a uint8 per row) = 1 when the filter program is
 * TRUE for row, else 0; a row that raises a SQL error also does
 * atomicMin(err_key, row << 4 | status).  prog is the host copy of the
 * ninstr validated instructions, d_prog their device copy.  A conjunction
 * of column-constant comparisons runs as gdb_predicate_kernel (while the
 * fast paths are enabled), anything else in the tile interpreter
 * gdb_filter_kernel, over the rows that the program's leading
 * column-constant conjuncts pass where it has such a prefix (those by
 * gdb_predicate_kernel first, the passing rows' ids compacted).  Does not
 * wait; returns GDB_ERR_DEVICE when a launch fails.
 */
int			gdb_filter_launch(GdbCudaExec *ex, const GdbBatch *hdr, const char *d_in,
							  const GdbInstr *prog, const GdbInstr *d_prog,
							  int ninstr, uint64_t nrows, uint8_t *flags,
							  unsigned long long *err_key, GdbError *err);

/* The computed columns of a request as gdb_values_launch takes them. */
struct GdbValuesArgs
{
	uint32_t	nexprs;
	uint32_t	start[GDB_MAX_EXPRS];	/* span of each program in eprogram */
	uint32_t	len[GDB_MAX_EXPRS];
	const uint8_t *flags;		/* the filter's flags, or NULL: all rows */
	int64_t    *vals[GDB_MAX_EXPRS];	/* per row: the value (0 for NULL) */
	uint8_t    *nulls[GDB_MAX_EXPRS];	/* per row: 1 for NULL */
};

/*
 * gdb_values_launch (filter_vm.cu): queue the computed columns a->vals /
 * a->nulls over rows [0, nrows) of the batch at device address d_in: for
 * each row a->flags selects (every row when NULL) the value of each
 * program (spans of the neinstr validated instructions of the eprogram,
 * host copy eprog, device copy d_eprog), NULL for the other rows.  The
 * tile interpreter of the filter with the programs in order per row: a
 * row that raises does atomicMin(err_key, row << 4 | status) and gets
 * NULL from that program on, as gdb_vm_value run one program after the
 * other.  Does not wait; returns GDB_ERR_DEVICE when a launch fails.
 */
int			gdb_values_launch(GdbCudaExec *ex, const char *d_in, const GdbInstr *eprog,
							  const GdbInstr *d_eprog, int neinstr,
							  const GdbValuesArgs *a, uint64_t nrows,
							  unsigned long long *err_key, GdbError *err);

/*
 * gdb_copy_in (groupby_kernels.cu): queue the copy of r->copy_src (a host
 * batch) to r->d_in when set, count its bytes in r->to_device and clear
 * it, so that the later steps do not copy it again; the caller opened the
 * TRANSFER_IN phase.  Does not wait; GDB_ERR_DEVICE when the copy cannot
 * be queued.
 */
int			gdb_copy_in(GdbRun *r, GdbError *err);

/*
 * gdb_phase_filter (Phase A, first half): reset r->d_counters (err_key to
 * all ones, nsel and nseg to 0), queue the copy of r->copy_src to r->d_in
 * when set (counted in r->to_device), and, when req->ninstr > 0 and there
 * are rows, copy the program and (unless r->fused) queue
 * gdb_filter_kernel: r->flags[row] = 1 for the rows the filter keeps; a
 * failing row sets err_key to the minimum of (row << 4 | status).  With
 * r->fused the GDB_PHASE_FILTER phase holds only the program's copy (the
 * fused pass counts under GDB_PHASE_AGGREGATE; the program is still
 * copied so that bytes_to_device is the same on every path).  Does not
 * wait.  r->flags, r->d_counters and the scratch of PROGRAM must be
 * ready; r->cur is set to 0.
 */
int			gdb_phase_filter(GdbRun *r, GdbError *err);

/*
 * gdb_phase_compact (Phase A, second half): r->perm[0] = ascending uint32
 * ids of the selected rows (cub::DeviceSelect::Flagged over r->flags and a
 * counting iterator -- the flag + prefix sum + scatter compaction of the
 * CUDADB line of work; without a program a sequence of all rows).  With
 * readback: copy the counters back, end the timed phase, return the
 * filter's SQL status if a row failed, set r->nsel and restart the timer.
 * Without a program r->nsel = r->nrows and nothing is read back.
 */
int			gdb_phase_compact(GdbRun *r, int readback, GdbError *err);

/*
 * gdb_sort_by_column: stably reorder the r->nsel row ids in
 * r->perm[r->cur] (r->cur may flip) by one column, i.e. by (NULL rank,
 * gdb_sort_encode(kind, value, descending)), NULL values encoding as 0 and
 * ranking gdb_sort_null_rank(1, nulls_first).  vals: the column's int64 /
 * float64 words [rows] on the device; nulls: its uint8 NULL flags [rows],
 * or NULL when it has none (then no NULL-rank pass).  Two LSD passes of
 * cub::DeviceRadixSort::SortPairs (64-bit encodings, then a 1-bit rank),
 * so calling it from the last key to the first sorts by all keys, ties in
 * the ids' previous order.  Uses the KEYS0/1 and NULLKEYS0/1 scratch slots
 * and TEMP; queues work without waiting.
 */
int			gdb_sort_by_column(GdbRun *r, const int64_t *vals, const uint8_t *nulls,
							   uint32_t kind, int descending, int nulls_first,
							   GdbError *err);

/*
 * gdb_result_alloc: lay out the result batch of r->req for ngroups rows
 * (groups, or the rows a SELECT or SORT returns; the columns follow
 * gdb_request_result_source): *host from alloc (header written, nrows
 * set), *d_res the device scratch copy of the same layout.
 * GDB_ERR_OUT_OF_MEMORY when alloc fails.  For an ordered GROUPBY
 * (gdb_request_ordered) nothing is allocated on the host: *host is
 * &r->order_hdr, a header only (the layout the kernels write by), and
 * gdb_order_groups later allocates the cut result.
 */
int			gdb_result_alloc(GdbRun *r, uint64_t ngroups, GdbAllocFn alloc,
							 void *alloc_arg, GdbBatch **host, char **d_res,
							 GdbError *err);

/*
 * gdb_result_finish: zero the alignment padding of d_res's arrays (reused
 * scratch: no stale bytes go back), copy them behind host's header; end
 * phase.
 * For &r->order_hdr (an ordered GROUPBY) nothing is copied: the phase
 * ends, the unordered result stays in d_res for gdb_order_groups.
 */
int			gdb_result_finish(GdbRun *r, GdbBatch *host, const char *d_res,
							  GdbError *err);

/* ---- ordered group-by (groupby_order.cu) ---- */

/*
 * gdb_order_groups: the last step of an ordered GROUPBY, after any of the
 * group-by pipelines (sort path, no-keys and small-keys fast paths) built
 * its unordered result in r->order_d_res with layout r->order_hdr (their
 * gdb_result_alloc / gdb_result_finish calls; nothing copied back).
 * Checks every group's states (gdb_order_state_status: the lowest failing
 * group's status, GDB_ERR_FLOAT_OVERFLOW), keeps the groups that pass the
 * group qualifier (GdbRequest.having; all without one), orders their ids
 * by the sort keys with stable LSD radix passes, last key first
 * (gdb_sort_by_column over the result key columns, or over each
 * aggregate's finished values computed into the ORDER_VALS scratch),
 * gathers the first k = min(limit, passing groups) (all when limit == 0)
 * into the ORDER_RESULT scratch, and only then asks alloc() for a batch of
 * k rows and copies them back.  Sets *result, r->ngroups = k (r->nsel is
 * kept); ordering time counts under GDB_PHASE_SORT, the copy under
 * GDB_PHASE_TRANSFER_OUT.  Errors: that status, GDB_ERR_OUT_OF_MEMORY
 * (alloc or a device allocation), GDB_ERR_DEVICE.
 */
int			gdb_order_groups(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
							 GdbBatch **result, GdbError *err);

/*
 * Fast paths (groupby_fastpath.cu).  Both run after the filter kernel was
 * queued (flags valid when req->ninstr) and produce the sort path's exact
 * result batch (float sums up to rounding).
 *	 gdb_fast_nokeys		req->nkeys == 0, !input_is_states: always taken;
 *							with r->fused, one fused pass tests the
 *							predicate and aggregates (fused_filter_agg.cu)
 *							in place of the flags the filter did not write.
 *	 gdb_fast_smallkeys		every key INT64, !input_is_states: reads the key
 *							ranges back (a column store's come from the
 *							exec's hints when it has them, checked by the
 *							slot pass itself); *taken = 0 (r->nsel set, filter
 *							error already checked, flags intact) when the
 *							slot domain is too large or anything unexpected
 *							happened: the caller then compacts and sorts.
 * gdb_fast_paths_enabled: GPUDB_FAST_PATHS (read once; "0" disables), or
 * the override of gdb_cuda_set_fast_paths (a test hook).
 */
int			gdb_fast_paths_enabled(void);

/*
 * gdb_env_switch: a switch of the server's environment -- override when
 * it is >= 0, else variable name read once into *env (-1: not read yet):
 * 0 when it is "0", 1 otherwise or when unset.  Plain ints: every writer
 * stores the same value, so a race between threads is benign.  Used by
 * gdb_fast_paths_enabled, gdb_fast_lean_enabled and the fused pass's switch.
 */
int			gdb_env_switch(const char *name, int *env, int override);

/*
 * gdb_fast_lean_enabled: whether the fast paths use their lean forms (the
 * fused pass's float range test, fused_filter_agg.cu; the one-key slot
 * pass, groupby_fastpath.cu): GPUDB_LEAN (read once; "0" disables), or
 * the override of gdb_cuda_set_lean (a test hook: 1 on, 0 off, -1 back to
 * the environment).  Same results either way.
 */
int			gdb_fast_lean_enabled(void);
int			gdb_fast_smallkeys_eligible(const GdbRun *r);
int			gdb_fast_nokeys(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
							GdbBatch **result, GdbError *err);
int			gdb_fast_smallkeys(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
							   GdbBatch **result, int *taken, GdbError *err);

/*
 * gdb_cuda_fail: record a failed CUDA call in err and return its GdbStatus:
 * GDB_ERR_OUT_OF_MEMORY for cudaErrorMemoryAllocation, else GDB_ERR_DEVICE
 * (gdb_cuda_probe/open report GDB_ERR_NO_DEVICE themselves).  call is the
 * call's text; the message is "<name>: <cudaGetErrorString>", name being
 * call cut at its first '('.
 * Clears the (non-sticky) last-error state.
 */
int			gdb_cuda_fail(GdbError *err, const char *call, cudaError_t rc);

/*
 * gdb_cuda_scratch: make slot of ex at least bytes long (device memory) and
 * return it in *ptr.  Growing synchronises ex->stream first (so no queued
 * work still uses the old buffer) and loses the old contents: ensure every
 * buffer before queueing work that fills it.  bytes == 0 gives a valid
 * (possibly NULL) pointer.  Returns GDB_OK or the gdb_cuda_fail status.
 */
int			gdb_cuda_scratch(GdbCudaExec *ex, int slot, size_t bytes,
							 void **ptr, GdbError *err);

/* Check a CUDA runtime call; on failure return its status from the caller. */
#define GDB_CUDA_CHECK(err, call) \
	do { \
		cudaError_t gdb_rc_ = (call); \
		if (gdb_rc_ != cudaSuccess) \
			return gdb_cuda_fail((err), #call, gdb_rc_); \
	} while (0)

/* Check the launch of the kernel named name (configuration errors). */
#define GDB_CUDA_CHECK_LAUNCH(err, name) \
	do { \
		cudaError_t gdb_rc_ = cudaGetLastError(); \
		if (gdb_rc_ != cudaSuccess) \
			return gdb_cuda_fail((err), name "<<<>>>", gdb_rc_); \
	} while (0)

/* Propagate a non-OK GdbStatus from a helper. */
#define GDB_TRY(expr) \
	do { \
		int gdb_st_ = (expr); \
		if (gdb_st_ != GDB_OK) \
			return gdb_st_; \
	} while (0)

/*
 * Run a CUB device algorithm: call(nullptr, bytes) sizes the temporary
 * storage, the TEMP scratch slot grows to it, call(temp, bytes) runs it.
 */
template <typename Call>
static inline int
gdb_cub(GdbCudaExec *ex, const char *name, Call call, GdbError *err)
{
	size_t		bytes = 0;
	void	   *temp = NULL;
	cudaError_t rc = call((void *) NULL, bytes);

	if (rc != cudaSuccess)
		return gdb_cuda_fail(err, name, rc);
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_TEMP, bytes ? bytes : 1, &temp, err));
	rc = call(temp, bytes);
	if (rc != cudaSuccess)
		return gdb_cuda_fail(err, name, rc);
	return GDB_OK;
}

/* Test hooks (C linkage; not in gpudb_device.h, the self-test binds them weakly). */
extern "C" void gdb_cuda_set_fast_paths(int mode);	/* 1 on, 0 off, -1 env */
extern "C" void gdb_cuda_set_warp_slots(int on);	/* slot_agg_warp.cu */
extern "C" int gdb_cuda_last_path(void);	/* GDB_PATH_* of the last group-by */
extern "C" void gdb_cuda_set_fused(int mode);	/* fused pass: 1 on, 0 off, -1 env */
extern "C" int gdb_cuda_last_fused(void);	/* 1: the last group-by ran it */

/* Shared with the CPU path (src/cpu/cpu_path.c). */
extern "C" int gdb_cpu_validate_request(const GdbRequest *req,
										const GdbBatch *input, GdbError *err);
extern "C" const char *gdb_cpu_status_text(int status);

/* ---- top-k by radix select (topk_select.cu) ---- */

/* What gdb_topk_candidates left at the front of perm[cur]. */
struct GdbTopkCut
{
	uint64_t	ncand;			/* candidate row ids, ascending (nsel: all) */
	int			key0_tied;		/* every candidate ties on the first sort key */
	int			key0_no_nulls;	/* no candidate's first key is NULL */
};

/*
 * gdb_topk_candidates: for a SORT whose limit k is small against r->nsel
 * (0 < k < nsel; by default also nsel >= 2^16, k <= nsel / 8, k <= 2^20),
 * narrow the r->nsel selected row ids in perm[r->cur] (r->cur may flip) to
 * the candidates: the selected rows whose first sort key, as (NULL rank,
 * gdb_sort_encode), is at most the k-th smallest -- ties kept, input order
 * kept -- found by a radix select over 11-bit digits of the encoding.
 * The first min(k, nsel) rows of the stable multi-key sort of the
 * candidates are then those of the sort of every selected row.  Sets
 * cut->ncand (>= k; r->nsel when not eligible or nothing can be cut, perm
 * untouched) and the two key-0 hints the sort may use.  Waits for the
 * stream after each digit pass (a small readback); r->nsel is unchanged.
 * Errors: GDB_ERR_OUT_OF_MEMORY / GDB_ERR_DEVICE from CUDA.
 */
int			gdb_topk_candidates(GdbRun *r, GdbTopkCut *cut, GdbError *err);

/*
 * Test hooks of the top-k path (C linkage, bound weakly by the self-test):
 * gdb_cuda_set_topk(-1) default eligibility, 0 never, 1 whenever
 * 0 < limit < selected rows, 2 likewise and refining every bit (no cap);
 * gdb_cuda_last_topk: -1 when the last SORT on this thread sorted every
 * selected row, else the candidates it sorted.
 */
extern "C" void gdb_cuda_set_topk(int mode);
extern "C" long long gdb_cuda_last_topk(void);

#endif							/* GPUDB_CUDA_EXEC_CUH */
