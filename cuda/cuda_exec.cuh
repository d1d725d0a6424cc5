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

/*
 * Device scratch buffers of one execution, one slot per role.  Each only
 * grows (gdb_cuda_scratch), so a run of batches of similar size allocates
 * once.
 */
enum GdbScratchSlot
{
	GDB_SCR_INPUT = 0,			/* copy of the input batch buffer */
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
};

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
