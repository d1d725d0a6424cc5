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
	GDB_SCR__COUNT
};

/* Small values the host reads back after a phase (device and pinned). */
typedef struct GdbDevCounters
{
	unsigned long long err_key; /* min over failing rows of row << 4 | status */
	unsigned long long nsel;	/* rows selected by the filter */
	unsigned long long nseg;	/* groups (segment starts) */
} GdbDevCounters;

/* A pinned host allocation handed out by gdb_cuda_host_alloc. */
typedef struct GdbPinnedBlock
{
	void	   *ptr;
	size_t		bytes;
	struct GdbPinnedBlock *next;
} GdbPinnedBlock;

struct GdbCudaExec
{
	int			ordinal;		/* CUDA device ordinal */
	int			multiprocessors;	/* for grid sizing */
	cudaStream_t stream;		/* every copy and kernel of this exec */
	cudaEvent_t ev_start;		/* device-time measurement */
	cudaEvent_t ev_stop;
	void	   *scratch[GDB_SCR__COUNT];	/* device buffers */
	size_t		scratch_bytes[GDB_SCR__COUNT];
	GdbDevCounters *host_counters;	/* pinned, read back after each phase */
	GdbPinnedBlock *pinned;		/* live gdb_cuda_host_alloc blocks */
	uint32_t	epoch;			/* gdb_cuda_epoch(ordinal) at open */
};

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
 * gdb_cuda_error: set err (when not NULL) to status and a printf-style
 * message; returns status.
 */
int			gdb_cuda_error(GdbError *err, int status, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

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
 * Result, statistics and errors as gdb_cuda_groupby; bytes_to_device counts
 * only host-to-device copies (copy_src's buffer if any, and the filter
 * program).  Requires header->nrows <= UINT32_MAX (else
 * GDB_ERR_BAD_REQUEST).  On error *result is NULL and the stream is idle.
 */
int			gdb_groupby_on_device(GdbCudaExec *exec, const GdbRequest *req,
								  const GdbBatch *header, char *d_base,
								  const GdbBatch *copy_src, GdbAllocFn alloc,
								  void *alloc_arg, GdbBatch **result,
								  GdbStats *stats, GdbError *err);

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

/* Shared with the CPU path (src/cpu_path.c). */
extern "C" int gdb_cpu_validate_request(const GdbRequest *req,
										const GdbBatch *input, GdbError *err);
extern "C" const char *gdb_cpu_status_text(int status);

#endif							/* GPUDB_CUDA_EXEC_CUH */
