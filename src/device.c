/*-------------------------------------------------------------------------
 *
 * device.c
 *	  Which path runs (GPU or CPU), device discovery, and the executor that
 *	  hands requests and batches to cuda/ or to the CPU path.
 *
 * Devices are probed lazily, once per backend, the first time a backend
 * needs one (never in the postmaster, which must not own CUDA state across
 * fork).  With gpudb.device = cpu nothing CUDA is ever called.
 *
 * Device state of one execution (stream, device buffers, pinned host
 * buffers) is owned by a GdbCudaExec that is closed by a memory context
 * callback, so an ERROR anywhere in the statement frees it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "gpudb.h"

#define GDB_MAX_DEVICES 16

static bool probed = false;
static int	probe_ndev = 0;
static GdbDeviceInfo probe_devs[GDB_MAX_DEVICES];
static GdbError probe_err;

GdbStats	gdb_last_stats;
char		gdb_last_path[64];
int			gdb_last_batches = -1;
double		gdb_last_total_ms;

/* Probe once per backend; later calls return the cached answer. */
static void
probe_devices(void)
{
	if (probed)
		return;
	memset(&probe_err, 0, sizeof(probe_err));
	probe_ndev = 0;
	if (gdb_cuda_probe(probe_devs, GDB_MAX_DEVICES, &probe_ndev, &probe_err) != GDB_OK)
		probe_ndev = 0;
	probed = true;
}

/*
 * choose_path: true for the GPU.  *reason (may be NULL) says why the CPU
 * path was chosen.  Raises 55000 when gpudb.device = gpu and no GPU is
 * usable.
 */
static bool
choose_path(const char **reason)
{
	if (reason)
		*reason = NULL;
	if (!gpudb_enabled)
	{
		if (reason)
			*reason = "gpudb.enabled is off";
		return false;
	}
	if (gpudb_device_mode == GPUDB_DEVICE_CPU)
	{
		if (reason)
			*reason = "gpudb.device is cpu";
		return false;
	}
	probe_devices();
	if (probe_ndev > 0)
		return true;
	if (gpudb_device_mode == GPUDB_DEVICE_GPU)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpudb.device is \"gpu\" but no GPU is usable"),
				 errdetail("%s", probe_err.message),
				 errhint("Set gpudb.device to \"auto\" or \"cpu\" to use the CPU path.")));
	if (reason)
		*reason = probe_err.message;
	return false;
}

/* see gpudb.h */
void
gdb_raise_status(const GdbError *err)
{
	const char *detail = err->message[0] ? err->message : NULL;

	switch (err->status)
	{
		case GDB_ERR_INT2_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("smallint out of range")));
			break;
		case GDB_ERR_INT4_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("integer out of range")));
			break;
		case GDB_ERR_INT8_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("bigint out of range")));
			break;
		case GDB_ERR_DIV_ZERO:
			ereport(ERROR,
					(errcode(ERRCODE_DIVISION_BY_ZERO),
					 errmsg("division by zero")));
			break;
		case GDB_ERR_FLOAT_OVERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("value out of range: overflow")));
			break;
		case GDB_ERR_FLOAT_UNDERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("value out of range: underflow")));
			break;
		case GDB_ERR_OUT_OF_MEMORY:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("gpudb: out of memory"),
					 detail ? errdetail("%s", detail) : 0,
					 errhint("Lower gpudb.batch_rows.")));
			break;
		case GDB_ERR_NO_DEVICE:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("gpudb: no usable GPU"),
					 detail ? errdetail("%s", detail) : 0));
			break;
		case GDB_ERR_DEVICE:
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("gpudb: device error"),
					 detail ? errdetail("%s", detail) : 0));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpudb: internal error (status %d)", err->status),
					 detail ? errdetail("%s", detail) : 0));
	}
	pg_unreachable();
}

/* Memory context callback: release device state of an executor. */
static void
executor_release(void *arg)
{
	GdbExecutor *ex = (GdbExecutor *) arg;

	if (ex->cuda)
	{
		gdb_cuda_close(ex->cuda);
		ex->cuda = NULL;
	}
}

/* see gpudb.h */
GdbExecutor *
gdb_executor_begin(void)
{
	GdbExecutor *ex = palloc0(sizeof(GdbExecutor));
	MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));
	const char *reason;

	ex->mcxt = CurrentMemoryContext;
	cb->func = executor_release;
	cb->arg = ex;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);

	ex->use_gpu = choose_path(&reason);
	if (ex->use_gpu)
	{
		GdbError	err = {0};

		ex->ordinal = probe_devs[0].ordinal;
		if (gdb_cuda_open(ex->ordinal, &ex->cuda, &err) != GDB_OK)
		{
			if (gpudb_device_mode == GPUDB_DEVICE_GPU)
				gdb_raise_status(&err);
			ereport(DEBUG1,
					(errmsg_internal("gpudb: falling back to the CPU path: %s",
									 err.message)));
			ex->use_gpu = false;
			ex->cuda = NULL;
		}
		else
			strlcpy(ex->device_name, probe_devs[0].name, sizeof(ex->device_name));
	}
	if (!ex->use_gpu)
		strlcpy(ex->device_name, "CPU path", sizeof(ex->device_name));
	return ex;
}

/* see gpudb.h */
void *
gdb_executor_alloc_batch(GdbExecutor *ex, uint64 bytes)
{
	void	   *p = NULL;

	if (ex->use_gpu)
		p = gdb_cuda_host_alloc(ex->cuda, bytes);
	if (p == NULL)
		p = MemoryContextAllocHuge(ex->mcxt, bytes);
	return p;
}

/* Result batches are palloc'd in the executor's context, without longjmp. */
static void *
executor_result_alloc(void *arg, size_t bytes)
{
	GdbExecutor *ex = (GdbExecutor *) arg;

	return MemoryContextAllocExtended(ex->mcxt, bytes,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

/* see gpudb.h */
GdbBatch *
gdb_executor_groupby(GdbExecutor *ex, const GdbRequest *req,
					 const GdbBatch *input)
{
	GdbBatch   *result = NULL;
	GdbError	err;
	int			st;

	memset(&err, 0, sizeof(err));
	if (ex->use_gpu)
		st = gdb_cuda_groupby(ex->cuda, req, input, executor_result_alloc, ex,
							  &result, &ex->stats, &err);
	else
		st = gdb_cpu_groupby(req, input, executor_result_alloc, ex,
							 &result, &ex->stats, &err);
	if (st != GDB_OK)
	{
		err.status = st;
		gdb_raise_status(&err);
	}
	return result;
}

/* see gpudb.h */
void
gdb_executor_end(GdbExecutor *ex)
{
	executor_release(ex);
}

/*
 * gpu_devices() -> SETOF (ordinal, name, compute_capability, memory_total,
 * memory_free, driver_version, runtime_version, multiprocessors,
 * active_path, reason).  One row per device; with none, one row whose
 * ordinal is NULL and whose reason says why.  Memory in bytes.  Probing
 * initialises CUDA in this backend.  Raises nothing of its own.
 */
PG_FUNCTION_INFO_V1(gpu_devices);
Datum
gpu_devices(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *reason = NULL;
	bool		gpu;
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	probe_devices();
	PG_TRY();
	{
		gpu = choose_path(&reason);
	}
	PG_CATCH();
	{
		/* gpudb.device = gpu without a GPU: still list why */
		FlushErrorState();
		gpu = false;
		reason = probe_err.message;
	}
	PG_END_TRY();

	for (i = 0; i < Max(probe_ndev, 1); i++)
	{
		Datum		values[10];
		bool		nulls[10] = {0};

		const char *why;

		if (probe_ndev == 0)
			memset(nulls, true, sizeof(nulls));
		else
		{
			GdbDeviceInfo *d = &probe_devs[i];

			values[0] = Int32GetDatum(d->ordinal);
			values[1] = CStringGetTextDatum(d->name);
			values[2] = CStringGetTextDatum(psprintf("%d.%d", d->cc_major, d->cc_minor));
			values[3] = Int64GetDatum((int64) d->memory_total);
			values[4] = Int64GetDatum((int64) d->memory_free);
			values[5] = CStringGetTextDatum(psprintf("%d.%d", d->driver_version / 1000,
													 (d->driver_version % 1000) / 10));
			values[6] = CStringGetTextDatum(psprintf("%d.%d", d->runtime_version / 1000,
													 (d->runtime_version % 1000) / 10));
			values[7] = Int32GetDatum(d->multiprocessors);
		}
		/* active_path: this row's device runs gpudb operators, or not */
		nulls[8] = false;
		values[8] = CStringGetTextDatum(gpu && i == 0 ? "gpu" : "cpu");
		why = gpu ? (i == 0 ? NULL : "gpudb uses device 0") : reason;
		nulls[9] = (why == NULL);
		if (why)
			values[9] = CStringGetTextDatum(why);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * gpu_active_path() -> 'gpu' or 'cpu': the path gpu_groupby takes now.
 * Raises 55000 when gpudb.device = gpu and no GPU is usable.
 */
PG_FUNCTION_INFO_V1(gpu_active_path);
Datum
gpu_active_path(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(choose_path(NULL) ? "gpu" : "cpu"));
}

/*
 * gpu_last_execution() -> the statistics of this session's last
 * gpu_groupby (see the install script); no row before the first call.
 */
PG_FUNCTION_INFO_V1(gpu_last_execution);
Datum
gpu_last_execution(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[10];
	bool		nulls[10] = {0};
	char	   *sep;

	InitMaterializedSRF(fcinfo, 0);
	if (gdb_last_batches < 0)
		return (Datum) 0;
	sep = strchr(gdb_last_path, ':');
	values[0] = CStringGetTextDatum(pnstrdup(gdb_last_path,
											 sep ? sep - gdb_last_path : strlen(gdb_last_path)));
	values[1] = CStringGetTextDatum(sep ? sep + 1 : "");
	values[2] = Int64GetDatum((int64) gdb_last_stats.rows_in);
	values[3] = Int64GetDatum((int64) gdb_last_stats.rows_selected);
	values[4] = Int64GetDatum((int64) gdb_last_stats.groups_out);
	values[5] = Int32GetDatum(gdb_last_batches);
	values[6] = Int64GetDatum((int64) gdb_last_stats.bytes_to_device);
	values[7] = Int64GetDatum((int64) gdb_last_stats.bytes_from_device);
	values[8] = Float8GetDatum(gdb_last_stats.device_ms);
	values[9] = Float8GetDatum(gdb_last_total_ms);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
