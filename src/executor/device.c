/*-------------------------------------------------------------------------
 *
 * device.c
 *	  Which path runs (the GPU server or the CPU path in the backend), the
 *	  device list, and the executor that hands requests and batches to it.
 *
 * Backends never initialise CUDA.  With gpudb preloaded, the GPU server
 * (gpu_server.c) owns the device; a backend asks it once per connection
 * whether it runs in GPU mode and then sends it requests with batches in
 * shared memory (server_client.c).  Without the preload, or with the
 * server in CPU mode, work runs on the CPU path inside the backend.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "gpudb.h"
#include "server_client.h"

GdbStats	gdb_last_stats;
char		gdb_last_path[64];
char		gdb_last_source[16];
int			gdb_last_batches = -1;
double		gdb_last_total_ms;

/*
 * choose_path: true for the GPU (through the server).  *reason (may be
 * NULL) says why the CPU path was chosen.  Raises 55000 when gpudb.device =
 * gpu and no GPU is usable (choose_path_ex: only if raise).
 */
static bool
choose_path_ex(const char **reason, const GdbHelloReply **hello_out, bool raise)
{
	const GdbHelloReply *hello = NULL;
	const char *why;

	if (reason)
		*reason = NULL;
	if (hello_out)
		*hello_out = NULL;
	if (!gpudb_enabled)
		why = "gpudb.enabled is off";
	else if (gpudb_device_mode == GPUDB_DEVICE_CPU)
		why = "gpudb.device is cpu";
	else if (!gpudb_preloaded)
		why = "gpudb is not in shared_preload_libraries, so no GPU server runs";
	else if ((hello = gdb_server_hello()) == NULL)
		why = "the GPU server is not running (see the server log)";
	else if (!hello->use_gpu)
		why = hello->reason;
	else
	{
		if (hello_out)
			*hello_out = hello;
		return true;
	}
	if (hello_out)
		*hello_out = hello;
	if (raise && gpudb_enabled && gpudb_device_mode == GPUDB_DEVICE_GPU)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpudb.device is \"gpu\" but no GPU is usable"),
				 errdetail("%s", why),
				 errhint("Set gpudb.device to \"auto\" or \"cpu\" to use the CPU path.")));
	if (reason)
		*reason = why;
	return false;
}

static bool
choose_path(const char **reason, const GdbHelloReply **hello_out)
{
	return choose_path_ex(reason, hello_out, true);
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
		case GDB_ERR_NUMERIC_FIELD:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("numeric field overflow")));
			break;
		case GDB_ERR_FIXED_POINT:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg(GDB_FIXED_POINT_MESSAGE),
					 errdetail("gpudb computes numeric expressions exactly in 18 digits; a value reached 10^18 at its scale."),
					 errhint("SET gpudb.enabled = off to compute the query with PostgreSQL's numeric.")));
			break;
		case GDB_ERR_DATE_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("date out of range")));
			break;
		case GDB_ERR_TIMESTAMP_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("timestamp out of range")));
			break;
		case GDB_ERR_DATE_TS_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("date out of range for timestamp")));
			break;
		case GDB_ERR_INFINITE_DATES:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("cannot subtract infinite dates")));
			break;
		case GDB_ERR_NAN_TO_INT:
		case GDB_ERR_NAN_TO_BIGINT:
		case GDB_ERR_NAN_TO_SMALLINT:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot convert NaN to %s",
							err->status == GDB_ERR_NAN_TO_INT ? "integer" :
							err->status == GDB_ERR_NAN_TO_BIGINT ? "bigint" : "smallint")));
			break;
		case GDB_ERR_JOIN_DUPLICATE:
			ereport(ERROR,
					(errcode(ERRCODE_CARDINALITY_VIOLATION),
					 errmsg(GDB_JOIN_DUPLICATE_MESSAGE),
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

/* Result batches are palloc'd in the executor's context, without longjmp. */
static void *
executor_result_alloc(void *arg, size_t bytes)
{
	GdbExecutor *ex = (GdbExecutor *) arg;

	return MemoryContextAllocExtended(ex->mcxt, bytes,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

/* A shared batch buffer handed to the server by its memfd. */
typedef struct ExecBuffer
{
	void	   *ptr;
	int			fd;
	struct ExecBuffer *next;
} ExecBuffer;

/* see gpudb.h */
GdbExecutor *
gdb_executor_begin(void)
{
	GdbExecutor *ex = palloc0(sizeof(GdbExecutor));
	const GdbHelloReply *hello;

	ex->mcxt = CurrentMemoryContext;
	ex->use_gpu = choose_path(NULL, &hello);
	if (ex->use_gpu)
		strlcpy(ex->device_name, hello->devs[0].name, sizeof(ex->device_name));
	else
		strlcpy(ex->device_name, "CPU path", sizeof(ex->device_name));
	return ex;
}

/* see gpudb.h */
void *
gdb_executor_alloc_batch(GdbExecutor *ex, uint64 bytes)
{
	ExecBuffer *b;

	if (!ex->use_gpu)
		return MemoryContextAllocHuge(ex->mcxt, bytes);
	b = MemoryContextAlloc(ex->mcxt, sizeof(ExecBuffer));
	b->ptr = gdb_memfd_alloc(bytes, &b->fd);
	b->next = (ExecBuffer *) ex->buffers;
	ex->buffers = b;
	return b->ptr;
}

/*
 * Add a request's statistics to ex->stats: a combine's or re-sort's rows
 * are not the source's, so they are not counted in rows_in and
 * rows_selected.  groups_out of a run: a SELECT's batches add up; a GROUP
 * BY or SORT returns what its last request (final combine or re-sort)
 * returns.
 */
static void
executor_add_stats(GdbExecutor *ex, const GdbStats *request_stats)
{
	GdbStats	st = *request_stats;

	if (ex->last_is_combine)
	{
		st.rows_in = 0;
		st.rows_selected = 0;
	}
	gdb_stats_add(&ex->stats, &st);
	if (ex->last_oper != GDB_OPER_SELECT)
		ex->stats.groups_out = st.groups_out;
}

/* gdb_executor_groupby_start, with combine: req passes over earlier results */
static void
executor_start(GdbExecutor *ex, const GdbRequest *req, const GdbBatch *input,
			   bool combine)
{
	ex->last_oper = req->oper;
	ex->last_is_combine = combine;
	if (ex->use_gpu)
	{
		ExecBuffer *b;

		/*
		 * the request, then its code tables' words and its joins' build
		 * sides (see GDB_MSG_GROUPBY)
		 */
		GdbMsgPart	parts[3] = {
			{(const char *) req, sizeof(GdbRequest)},
			{(const char *) req->table_words, req->ntable_words * sizeof(uint64)},
			{(const char *) req->join_data, req->njoin_bytes}
		};

		for (b = (ExecBuffer *) ex->buffers; b; b = b->next)
			if (b->ptr == (void *) input)
				break;
		if (b == NULL)
			elog(ERROR, "gpudb: batch not in shared memory");
		gdb_server_send(GDB_MSG_GROUPBY, parts,
						req->njoin_bytes > 0 ? 3 : req->ntable_words > 0 ? 2 : 1,
						b->fd);
	}
	else
	{
		GdbError	err;
		GdbStats	stats;
		int			st;

		memset(&err, 0, sizeof(err));
		memset(&stats, 0, sizeof(stats));
		ex->pending = NULL;
		st = gdb_cpu_execute(req, input, executor_result_alloc, ex,
							 &ex->pending, &stats, &err);
		if (st != GDB_OK)
		{
			err.status = st;
			gdb_raise_status(&err);
		}
		executor_add_stats(ex, &stats);
	}
}

/* see gpudb.h */
void
gdb_executor_groupby_start(GdbExecutor *ex, const GdbRequest *req,
						   const GdbBatch *input)
{
	executor_start(ex, req, input, false);
}

/* see gpudb.h */
GdbBatch *
gdb_executor_groupby_finish(GdbExecutor *ex)
{
	GdbReply   *r;
	GdbBatch   *result;
	GdbError	err;

	if (!ex->use_gpu)
	{
		result = ex->pending;
		ex->pending = NULL;
		return result;
	}
	r = gdb_server_receive();
	err = r->status->err;
	if (err.status != GDB_OK)
		gdb_raise_status(&err);
	if (r->status->result_bytes < sizeof(GdbBatch) ||
		r->status->result_bytes > r->rest_len)
		elog(ERROR, "gpudb: malformed reply from the GPU server");
	result = MemoryContextAllocHuge(ex->mcxt, r->status->result_bytes);
	memcpy(result, r->rest, r->status->result_bytes);
	executor_add_stats(ex, &r->status->stats);
	pfree(r->payload);
	return result;
}

/* see gpudb.h */
GdbBatch *
gdb_executor_combine(GdbExecutor *ex, const GdbRequest *req,
					 const GdbBatch *input)
{
	executor_start(ex, req, input, true);
	return gdb_executor_groupby_finish(ex);
}

/*
 * gpu_devices() -> SETOF (ordinal, name, compute_capability, memory_total,
 * memory_free, driver_version, runtime_version, multiprocessors,
 * active_path, reason).  One row per device the GPU server sees
 * (active_path 'gpu' for those of gpudb.devices it opened: its cached
 * relations' shards are there); with none (or no server), one row whose
 * ordinal is NULL and whose reason says why.  Memory in bytes.  The
 * backend itself never initialises CUDA.  Raises nothing of its own.
 */
PG_FUNCTION_INFO_V1(gpu_devices);
Datum
gpu_devices(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *reason = NULL;
	const GdbHelloReply *hello = NULL;
	bool		gpu;
	bool		used;
	int			ndev;
	int			i,
				u;

	InitMaterializedSRF(fcinfo, 0);
	/* gpudb.device = gpu without a GPU: still list why */
	gpu = choose_path_ex(&reason, &hello, false);
	ndev = hello ? Min(hello->ndev, (int) lengthof(hello->devs)) : 0;

	for (i = 0; i < Max(ndev, 1); i++)
	{
		Datum		values[10];
		bool		nulls[10] = {0};
		const char *why;

		if (ndev == 0)
			memset(nulls, true, sizeof(nulls));
		else
		{
			const GdbDeviceInfo *d = &hello->devs[i];

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
		used = false;
		for (u = 0; ndev > 0 && hello && u < hello->nused && u < (int) lengthof(hello->used); u++)
			used |= hello->used[u] == hello->devs[i].ordinal;
		/* (a server that reports none uses the first) */
		if (ndev > 0 && hello && hello->nused == 0)
			used = i == 0;
		nulls[8] = false;
		values[8] = CStringGetTextDatum(gpu && used ? "gpu" : "cpu");
		why = gpu ? (used ? NULL : "not in gpudb.devices") : reason;
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
	PG_RETURN_TEXT_P(cstring_to_text(choose_path(NULL, NULL) ? "gpu" : "cpu"));
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
	Datum		values[11];
	bool		nulls[11] = {0};
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
	values[10] = CStringGetTextDatum(gdb_last_source);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
