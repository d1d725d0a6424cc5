/*-------------------------------------------------------------------------
 *
 * device_runtime.cu
 *	  CUDA runtime plumbing behind gpudb_device.h: device probe, per-
 *	  execution state (stream, events, growing scratch buffers), pinned host
 *	  allocations, the mapping of CUDA errors to GdbStatus, and recovery
 *	  from sticky errors (gdb_cuda_recover).  The group-by itself is in
 *	  groupby_kernels.cu, the column store in column_store.cu.  No
 *	  PostgreSQL header.
 *
 * Device resets: gdb_cuda_recover resets a device whose context has a
 * sticky error and bumps that device's epoch.  Every exec and CUDA store
 * records the epoch it was created in; one from an older epoch lost its
 * stream, events, device and pinned memory in the reset, so it is never
 * passed to CUDA again: its operations fail with GDB_ERR_DEVICE, and
 * gdb_cuda_close / gdb_cuda_store_free only free its host memory.
 *
 * Every CUDA call is checked; a failure becomes GDB_ERR_OUT_OF_MEMORY
 * (cudaErrorMemoryAllocation), GDB_ERR_NO_DEVICE (no driver or device) or
 * GDB_ERR_DEVICE, with "<call>: <cudaGetErrorString>" in err->message.
 * cudart is linked statically, so a missing driver shows up here as an
 * error code, never as a load failure of gpudb.so.
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_exec.cuh"

/* Reset epoch of each device ordinal (gdb_cuda_epoch); atomics for safety. */
static uint32_t gdb_device_epochs[GDB_MAX_DEVICES];

uint32_t
gdb_cuda_epoch(int ordinal)
{
	if (ordinal < 0 || ordinal >= GDB_MAX_DEVICES)
		return 0;
	return __atomic_load_n(&gdb_device_epochs[ordinal], __ATOMIC_ACQUIRE);
}

/* Was exec opened before the latest reset of its device? */
static bool
gdb_exec_lost(const GdbCudaExec *exec)
{
	return exec->epoch != gdb_cuda_epoch(exec->ordinal);
}

/* Copy a NUL-terminated message into err. */
static int
gdb_cuda_message(GdbError *err, int status, const char *msg)
{
	if (err)
	{
		err->status = status;
		snprintf(err->message, sizeof(err->message), "%s", msg);
	}
	return status;
}

/* Record "<name>: <cudaGetErrorString(rc)>" with status; name cut at '('. */
static int
gdb_cuda_fail_as(GdbError *err, const char *call, cudaError_t rc, int status)
{
	char		name[96];
	size_t		n = 0;

	while (call[n] && call[n] != '(' && n < sizeof(name) - 1)
	{
		name[n] = call[n];
		n++;
	}
	name[n] = '\0';
	if (err)
	{
		err->status = status;
		snprintf(err->message, sizeof(err->message), "%s: %s", name,
				 cudaGetErrorString(rc));
	}
	(void) cudaGetLastError();	/* clear it unless it is sticky */
	return status;
}

int
gdb_cuda_fail(GdbError *err, const char *call, cudaError_t rc)
{
	return gdb_cuda_fail_as(err, call, rc,
							rc == cudaErrorMemoryAllocation ?
							GDB_ERR_OUT_OF_MEMORY : GDB_ERR_DEVICE);
}

int
gdb_cuda_check_exec(GdbCudaExec *exec, const char *what, GdbError *err)
{
	if (exec == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							  "%s: the CUDA execution state is NULL", what);
	if (gdb_exec_lost(exec))
		return gdb_error_set(err, GDB_ERR_DEVICE,
							  "%s: CUDA device %d was reset; this execution state is lost",
							  what, exec->ordinal);
	GDB_CUDA_CHECK(err, cudaSetDevice(exec->ordinal));
	return GDB_OK;
}

int
gdb_cuda_scratch(GdbCudaExec *ex, int slot, size_t bytes, void **ptr,
				 GdbError *err)
{
	size_t		want;
	void	   *p = NULL;

	if (bytes <= ex->scratch_bytes[slot])
	{
		*ptr = ex->scratch[slot];
		return GDB_OK;
	}
	/* grow by at least a quarter and round to 1 MiB to limit reallocations */
	want = bytes + bytes / 4;
	want = (want + ((size_t) 1 << 20) - 1) & ~(((size_t) 1 << 20) - 1);
	if (ex->scratch[slot])
	{
		GDB_CUDA_CHECK(err, cudaStreamSynchronize(ex->stream));
		GDB_CUDA_CHECK(err, cudaFree(ex->scratch[slot]));
		ex->scratch[slot] = NULL;
		ex->scratch_bytes[slot] = 0;
	}
	/* the words it held are gone, even if the new buffer has the address */
	if (slot == GDB_SCR_TABLES)
		ex->tables_key = 0;
	if (cudaMalloc(&p, want) != cudaSuccess)
	{
		/* the 25% slack may be what does not fit: try the exact size */
		(void) cudaGetLastError();
		want = bytes;
		GDB_CUDA_CHECK(err, cudaMalloc(&p, want));
	}
	ex->scratch[slot] = p;
	ex->scratch_bytes[slot] = want;
	*ptr = p;
	return GDB_OK;
}

/* ---- probe ---- */

/* A kernel that only exists to test that this build has an image for the device. */
__global__ void
gdb_image_check_kernel(int *p)
{
	if (p)
		*p = 0;
}

/*
 * gdb_cuda_built: 1, this build contains the CUDA path.
 */
extern "C" int
gdb_cuda_built(void)
{
	return 1;
}

/*
 * gdb_cuda_probe: fill devs[0 .. min(count, max)) with each device's name,
 * compute capability, memory (total and free, bytes; creates a context on
 * each probed device), driver and runtime versions (1000 * major + 10 *
 * minor) and multiprocessor count; *ndev = entries filled.  Returns
 * GDB_ERR_NO_DEVICE with the reason (missing or old driver, no device) from
 * cudaGetDeviceCount, or a GdbStatus for a later failing call.  The current
 * device of the calling thread is restored.
 */
extern "C" int
gdb_cuda_probe(GdbDeviceInfo *devs, int max, int *ndev, GdbError *err)
{
	int			count = 0;
	int			prev = 0;
	int			driver = 0;
	int			runtime = 0;
	int			i;
	cudaError_t rc;
	char		msg[256];

	if (ndev)
		*ndev = 0;
	rc = cudaGetDeviceCount(&count);
	if (rc != cudaSuccess)
	{
		(void) cudaGetLastError();
		(void) cudaRuntimeGetVersion(&runtime);
		if (rc == cudaErrorInsufficientDriver)
			snprintf(msg, sizeof(msg),
					 "no usable CUDA driver (missing, or older than runtime %d.%d): %s",
					 runtime / 1000, (runtime % 1000) / 10, cudaGetErrorString(rc));
		else if (rc == cudaErrorNoDevice)
			snprintf(msg, sizeof(msg), "no CUDA-capable device: %s",
					 cudaGetErrorString(rc));
		else
			snprintf(msg, sizeof(msg), "cudaGetDeviceCount: %s",
					 cudaGetErrorString(rc));
		return gdb_cuda_message(err, GDB_ERR_NO_DEVICE, msg);
	}
	if (count <= 0)
		return gdb_cuda_message(err, GDB_ERR_NO_DEVICE, "no CUDA-capable device found");

	GDB_CUDA_CHECK(err, cudaDriverGetVersion(&driver));
	GDB_CUDA_CHECK(err, cudaRuntimeGetVersion(&runtime));
	GDB_CUDA_CHECK(err, cudaGetDevice(&prev));
	for (i = 0; i < count && i < max && devs; i++)
	{
		cudaDeviceProp prop;
		size_t		mfree = 0,
					mtotal = 0;
		GdbDeviceInfo *d = &devs[i];

		memset(d, 0, sizeof(*d));
		GDB_CUDA_CHECK(err, cudaGetDeviceProperties(&prop, i));
		GDB_CUDA_CHECK(err, cudaSetDevice(i));
		rc = cudaMemGetInfo(&mfree, &mtotal);
		if (rc != cudaSuccess)
		{
			(void) cudaSetDevice(prev);
			return gdb_cuda_fail(err, "cudaMemGetInfo", rc);
		}
		d->ordinal = i;
		snprintf(d->name, sizeof(d->name), "%s", prop.name);
		d->cc_major = prop.major;
		d->cc_minor = prop.minor;
		d->memory_total = mtotal;
		d->memory_free = mfree;
		d->driver_version = driver;
		d->runtime_version = runtime;
		d->multiprocessors = prop.multiProcessorCount;
		if (ndev)
			*ndev = i + 1;
	}
	GDB_CUDA_CHECK(err, cudaSetDevice(prev));
	if (err)
	{
		err->status = GDB_OK;
		err->message[0] = '\0';
	}
	return GDB_OK;
}

/* ---- per-execution state ---- */

static int
gdb_cuda_open_inner(GdbCudaExec *ex, GdbError *err)
{
	int			count = 0;
	cudaFuncAttributes fa;
	cudaError_t rc;

	/* no driver, no device, or a device that cannot be used: NO_DEVICE */
	rc = cudaGetDeviceCount(&count);
	if (rc != cudaSuccess)
		return gdb_cuda_fail_as(err, "cudaGetDeviceCount", rc, GDB_ERR_NO_DEVICE);
	if (ex->ordinal < 0 || ex->ordinal >= count)
	{
		char		msg[128];

		snprintf(msg, sizeof(msg), "CUDA device %d does not exist (%d devices)",
				 ex->ordinal, count);
		return gdb_cuda_message(err, GDB_ERR_NO_DEVICE, msg);
	}
	ex->epoch = gdb_cuda_epoch(ex->ordinal);
	rc = cudaSetDevice(ex->ordinal);
	if (rc != cudaSuccess)
		return gdb_cuda_fail_as(err, "cudaSetDevice", rc,
								rc == cudaErrorMemoryAllocation ?
								GDB_ERR_OUT_OF_MEMORY : GDB_ERR_NO_DEVICE);
	/* fails with cudaErrorNoKernelImageForDevice on a too-old GPU */
	rc = cudaFuncGetAttributes(&fa, gdb_image_check_kernel);
	if (rc != cudaSuccess)
	{
		char		msg[256];
		int			major = 0,
					minor = 0;

		(void) cudaGetLastError();
		(void) cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ex->ordinal);
		(void) cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ex->ordinal);
		snprintf(msg, sizeof(msg),
				 "CUDA device %d (compute capability %d.%d) cannot run this build's kernels: %s",
				 ex->ordinal, major, minor, cudaGetErrorString(rc));
		return gdb_cuda_message(err, GDB_ERR_NO_DEVICE, msg);
	}
	GDB_CUDA_CHECK(err, cudaDeviceGetAttribute(&ex->multiprocessors,
											   cudaDevAttrMultiProcessorCount,
											   ex->ordinal));
	GDB_CUDA_CHECK(err, cudaStreamCreateWithFlags(&ex->stream, cudaStreamNonBlocking));
	GDB_CUDA_CHECK(err, cudaEventCreate(&ex->ev_start));
	GDB_CUDA_CHECK(err, cudaEventCreate(&ex->ev_stop));
	for (int i = 0; i < GDB_MAX_MARKS; i++)
		GDB_CUDA_CHECK(err, cudaEventCreate(&ex->ev_mark[i]));
	GDB_CUDA_CHECK(err, cudaHostAlloc((void **) &ex->host_counters,
									  sizeof(GdbDevCounters), cudaHostAllocDefault));
	return GDB_OK;
}

/*
 * gdb_cuda_open: create the state of one execution on device ordinal: a
 * non-blocking stream, timing events (start, stop, phase marks), a pinned counter block; scratch
 * buffers are allocated lazily by the group-by.  Checks that the device can
 * run this build's kernels.  On failure *exec is NULL and everything
 * created is released; returns GDB_ERR_NO_DEVICE (bad ordinal, no driver,
 * unsupported GPU), GDB_ERR_OUT_OF_MEMORY or GDB_ERR_DEVICE.
 */
extern "C" int
gdb_cuda_open(int ordinal, GdbCudaExec **exec, GdbError *err)
{
	GdbCudaExec *ex;
	int			st;

	*exec = NULL;
	(void) cudaGetLastError();
	ex = (GdbCudaExec *) calloc(1, sizeof(GdbCudaExec));
	if (ex == NULL)
		return gdb_cuda_message(err, GDB_ERR_OUT_OF_MEMORY,
								"out of host memory for the CUDA execution state");
	ex->ordinal = ordinal;
	st = gdb_cuda_open_inner(ex, err);
	if (st != GDB_OK)
	{
		gdb_cuda_close(ex);
		return st;
	}
	*exec = ex;
	if (err)
	{
		err->status = GDB_OK;
		err->message[0] = '\0';
	}
	return GDB_OK;
}

/*
 * gdb_cuda_close: wait for the stream, then free scratch buffers, pinned
 * blocks still allocated, events, stream and the state.  Accepts NULL and
 * a partly opened exec; ignores CUDA errors (nothing can be done about
 * them here).  An exec lost in a device reset (gdb_cuda_recover) only has
 * its host memory freed: its CUDA resources died with the reset.
 */
extern "C" void
gdb_cuda_close(GdbCudaExec *exec)
{
	int			i;

	if (exec == NULL)
		return;
	if (gdb_exec_lost(exec))
	{
		while (exec->pinned)
		{
			GdbPinnedBlock *b = exec->pinned;

			exec->pinned = b->next;
			free(b);
		}
		free(exec);
		return;
	}
	(void) cudaSetDevice(exec->ordinal);
	if (exec->stream)
		(void) cudaStreamSynchronize(exec->stream);
	gdb_cuda_keep_result(exec, 0);	/* a kept result nobody took */
	for (i = 0; i < GDB_SCR__COUNT; i++)
		if (exec->scratch[i])
			(void) cudaFree(exec->scratch[i]);
	while (exec->pinned)
	{
		GdbPinnedBlock *b = exec->pinned;

		exec->pinned = b->next;
		(void) cudaFreeHost(b->ptr);
		free(b);
	}
	if (exec->host_counters)
		(void) cudaFreeHost(exec->host_counters);
	if (exec->ev_start)
		(void) cudaEventDestroy(exec->ev_start);
	if (exec->ev_stop)
		(void) cudaEventDestroy(exec->ev_stop);
	for (int i = 0; i < GDB_MAX_MARKS; i++)
		if (exec->ev_mark[i])
			(void) cudaEventDestroy(exec->ev_mark[i]);
	for (int i = 0; i < 2; i++)
		if (exec->stage_ev[i])
			(void) cudaEventDestroy(exec->stage_ev[i]);
	if (exec->stream)
		(void) cudaStreamDestroy(exec->stream);
	(void) cudaGetLastError();
	free(exec);
}

/*
 * gdb_cuda_host_alloc: bytes of pinned (page-locked) host memory, so that
 * copying a batch built there to the device is truly asynchronous.  NULL
 * on failure (the CUDA error is cleared), when exec is NULL or lost in a
 * device reset.  Tracked in exec and freed by gdb_cuda_host_free or
 * gdb_cuda_close; a device reset frees it too.
 */
extern "C" void *
gdb_cuda_host_alloc(GdbCudaExec *exec, size_t bytes)
{
	GdbPinnedBlock *b;
	void	   *p = NULL;

	if (exec == NULL || gdb_exec_lost(exec))
		return NULL;
	b = (GdbPinnedBlock *) malloc(sizeof(GdbPinnedBlock));
	if (b == NULL)
		return NULL;
	if (cudaSetDevice(exec->ordinal) != cudaSuccess ||
		cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess)
	{
		(void) cudaGetLastError();
		free(b);
		return NULL;
	}
	b->ptr = p;
	b->bytes = bytes;
	b->next = exec->pinned;
	exec->pinned = b;
	return p;
}

/*
 * gdb_cuda_host_free: free p, a block from gdb_cuda_host_alloc on exec.
 * NULL and pointers exec did not hand out are ignored.  Waits for exec's
 * stream first, since a queued copy may still read the block.  For an exec
 * lost in a device reset only the bookkeeping is freed (the reset freed the
 * block).
 */
extern "C" void
gdb_cuda_host_free(GdbCudaExec *exec, void *p)
{
	GdbPinnedBlock **link;

	if (exec == NULL || p == NULL)
		return;
	for (link = &exec->pinned; *link; link = &(*link)->next)
	{
		if ((*link)->ptr == p)
		{
			GdbPinnedBlock *b = *link;

			*link = b->next;
			if (!gdb_exec_lost(exec))
			{
				(void) cudaSetDevice(exec->ordinal);
				(void) cudaStreamSynchronize(exec->stream);
				(void) cudaFreeHost(b->ptr);
				(void) cudaGetLastError();
			}
			free(b);
			return;
		}
	}
}

/*
 * gdb_cuda_host_register: see gpudb_device.h.  cudaHostRegister with the
 * default flags: the server maps the buffer read-write, and the pages are
 * shared memory of the backend that made them, kept alive by the mapping.
 */
extern "C" int
gdb_cuda_host_register(GdbCudaExec *exec, void *p, size_t bytes)
{
	if (exec == NULL || p == NULL || bytes == 0 || gdb_exec_lost(exec))
		return 0;
	if (cudaSetDevice(exec->ordinal) != cudaSuccess ||
		cudaHostRegister(p, bytes, cudaHostRegisterDefault) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return 0;
	}
	return 1;
}

/* gdb_cuda_host_unregister: see gpudb_device.h. */
extern "C" void
gdb_cuda_host_unregister(GdbCudaExec *exec, void *p)
{
	if (exec == NULL || p == NULL || gdb_exec_lost(exec))
		return;
	(void) cudaSetDevice(exec->ordinal);
	(void) cudaStreamSynchronize(exec->stream);
	(void) cudaHostUnregister(p);
	(void) cudaGetLastError();
}

/* ---- recovery from sticky errors ---- */

/*
 * Errors after which the CUDA context is unusable ("sticky"): every later
 * call of the process on that device returns them until the context is
 * destroyed.
 */
static bool
gdb_cuda_sticky(cudaError_t rc)
{
	switch (rc)
	{
		case cudaErrorIllegalAddress:
		case cudaErrorLaunchFailure:
		case cudaErrorAssert:
		case cudaErrorHardwareStackError:
		case cudaErrorIllegalInstruction:
		case cudaErrorMisalignedAddress:
		case cudaErrorInvalidAddressSpace:
		case cudaErrorInvalidPc:
		case cudaErrorLaunchTimeout:
		case cudaErrorECCUncorrectable:
		case cudaErrorNvlinkUncorrectable:
		case cudaErrorContained:
		case cudaErrorTensorMemoryLeak:
		case cudaErrorExternalDevice:
			return true;
		default:
			return false;
	}
}

/*
 * gdb_cuda_recover: see gpudb_device.h.  Looks for a sticky error on
 * exec's device, in order: the last-error state (cudaGetLastError), exec's
 * stream (cudaStreamQuery; "not ready" is fine) and the whole device
 * (cudaDeviceSynchronize, which waits for all queued work).  An error of
 * the sticky list (illegal address, launch failure, device assert, ECC,
 * ...) is sticky; any other error is sticky if the next
 * cudaDeviceSynchronize, after clearing it, still fails.  Without one:
 * GDB_OK (a non-sticky last error is cleared).  With one: cudaDeviceReset
 * on that device, which destroys its context and with it every exec, CUDA
 * store and pinned block of the process on that device (they are marked
 * lost through the device's epoch; gdb_cuda_close and *_store_free on them
 * only free host memory, their other operations return GDB_ERR_DEVICE),
 * then returns GDB_ERR_DEVICE with a message naming the error and saying
 * the device was reset (or, if the device still fails after the reset,
 * that the process must be restarted).  exec NULL: GDB_ERR_BAD_REQUEST;
 * exec already lost: GDB_ERR_DEVICE.
 */
extern "C" int
gdb_cuda_recover(GdbCudaExec *exec, GdbError *err)
{
	cudaError_t rc,
				found = cudaSuccess;
	const char *where = NULL;

	if (exec == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							  "gdb_cuda_recover: the CUDA execution state is NULL");
	if (gdb_exec_lost(exec))
		return gdb_error_set(err, GDB_ERR_DEVICE,
							  "CUDA device %d was reset; this execution state is lost",
							  exec->ordinal);
	rc = cudaSetDevice(exec->ordinal);
	if (rc != cudaSuccess)
	{
		found = rc;
		where = "cudaSetDevice";
	}
	if (found == cudaSuccess && (rc = cudaGetLastError()) != cudaSuccess &&
		gdb_cuda_sticky(rc))
	{
		found = rc;
		where = "cudaGetLastError";
	}
	if (found == cudaSuccess && exec->stream &&
		(rc = cudaStreamQuery(exec->stream)) != cudaSuccess &&
		rc != cudaErrorNotReady && gdb_cuda_sticky(rc))
	{
		found = rc;
		where = "cudaStreamQuery";
	}
	if (found == cudaSuccess && (rc = cudaDeviceSynchronize()) != cudaSuccess)
	{
		(void) cudaGetLastError();
		if (gdb_cuda_sticky(rc) || cudaDeviceSynchronize() != cudaSuccess)
		{
			found = rc;
			where = "cudaDeviceSynchronize";
		}
	}
	if (found == cudaSuccess)
	{
		(void) cudaGetLastError();
		if (err)
		{
			err->status = GDB_OK;
			err->message[0] = '\0';
		}
		return GDB_OK;
	}

	/* sticky: destroy the context; everything made in this epoch is lost */
	rc = cudaDeviceReset();
	if (exec->ordinal >= 0 && exec->ordinal < GDB_MAX_DEVICES)
		__atomic_add_fetch(&gdb_device_epochs[exec->ordinal], 1, __ATOMIC_ACQ_REL);
	else
		exec->epoch++;			/* untracked ordinal: at least this exec is lost */
	if (rc == cudaSuccess)
		rc = cudaFree(NULL);	/* initialises a fresh context */
	if (rc == cudaSuccess)
		rc = cudaDeviceSynchronize();
	if (rc != cudaSuccess)
	{
		(void) cudaGetLastError();
		return gdb_error_set(err, GDB_ERR_DEVICE,
							  "CUDA device %d had a sticky error (%s: %s) and was reset, "
							  "but still fails (%s): the process must be restarted",
							  exec->ordinal, where, cudaGetErrorString(found),
							  cudaGetErrorString(rc));
	}
	return gdb_error_set(err, GDB_ERR_DEVICE,
						  "CUDA device %d had a sticky error (%s: %s) and was reset; "
						  "its execution states and column stores are lost",
						  exec->ordinal, where, cudaGetErrorString(found));
}

/*
 * gdb_cuda_scratch_bytes: see gpudb_device.h.  Host bookkeeping only (no
 * CUDA call); an exec lost in a device reset holds nothing any more.
 */
extern "C" uint64_t
gdb_cuda_scratch_bytes(GdbCudaExec *exec)
{
	uint64_t	sum = 0;
	int			i;

	if (exec == NULL || gdb_exec_lost(exec))
		return 0;
	for (i = 0; i < GDB_SCR__COUNT; i++)
		sum += exec->scratch_bytes[i];
	return sum;
}

/*
 * gdb_cuda_release_scratch: see gpudb_device.h.  The largest slots go
 * first, so that a large query's buffers are returned while the small
 * ones every query uses stay.
 */
extern "C" uint64_t
gdb_cuda_release_scratch(GdbCudaExec *exec, uint64_t keep)
{
	uint64_t	freed = 0;

	if (exec == NULL || gdb_exec_lost(exec) || gdb_cuda_scratch_bytes(exec) <= keep)
		return 0;
	if (cudaSetDevice(exec->ordinal) != cudaSuccess ||
		cudaStreamSynchronize(exec->stream) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return 0;
	}
	while (gdb_cuda_scratch_bytes(exec) > keep)
	{
		int			big = 0;
		int			i;

		for (i = 1; i < GDB_SCR__COUNT; i++)
			if (exec->scratch_bytes[i] > exec->scratch_bytes[big])
				big = i;
		(void) cudaFree(exec->scratch[big]);
		freed += exec->scratch_bytes[big];
		exec->scratch[big] = NULL;
		exec->scratch_bytes[big] = 0;
		if (big == GDB_SCR_TABLES)
			exec->tables_key = 0;
	}
	(void) cudaGetLastError();
	return freed;
}

/* Writes to an address no allocation covers (gdb_cuda_debug_fault). */
__global__ void
gdb_fault_kernel(int *p)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		*(volatile int *) p = 1;
}

/*
 * gdb_cuda_debug_fault: see column_store.h (self-test hook): a kernel that
 * stores to device address 16, then a wait for it; returns the wait's
 * status (GDB_ERR_DEVICE with the sticky cudaErrorIllegalAddress).
 */
extern "C" int
gdb_cuda_debug_fault(GdbCudaExec *exec, GdbError *err)
{
	GDB_TRY(gdb_cuda_check_exec(exec, "gdb_cuda_debug_fault", err));
	gdb_fault_kernel<<<1, 1, 0, exec->stream>>>((int *) (uintptr_t) 16);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_fault_kernel");
	GDB_CUDA_CHECK(err, cudaStreamSynchronize(exec->stream));
	return GDB_OK;
}
