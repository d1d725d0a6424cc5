/*-------------------------------------------------------------------------
 *
 * fault_inject.c
 *	  Testing aids: gpu_debug_fault, which makes the device layer fail on
 *	  purpose, and gpu_server_status, which shows the GPU server's memory
 *	  and restarts so that tests can see it return to its baseline.
 *
 * The server-side points ('device_alloc', 'kernel', 'copy', 'slow') are
 * armed in the GPU server (GDB_MSG_FAULT, gpu_server.c) and hit whichever
 * session's request comes next; 'host_alloc' (server_client.c:
 * gdb_memfd_alloc) and 'dictionary_limit' (cache.c: a load's dictionary
 * message stops at 64 bytes instead of 1 GB; cache_query.c: a cached
 * join's strings stop at 64 bytes instead of 512 MB) are armed in this
 * backend only.  Superusers only: a fault can
 * restart the server and empty everyone's cache.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "gpudb.h"
#include "server_client.h"

static const struct
{
	const char *name;
	int			point;			/* GDB_FAULT_*, or -1 for host_alloc */
}			fault_points[] =
{
	{"none", GDB_FAULT_NONE},
	{"device_alloc", GDB_FAULT_DEVICE_ALLOC},
	{"host_alloc", -1},
	{"dictionary_limit", -3},
	{"kernel", GDB_FAULT_KERNEL},
	{"copy", GDB_FAULT_COPY},
	{"slow", GDB_FAULT_SLOW},
};

/*
 * gpu_debug_fault(point text, count int DEFAULT 1, delay_ms int DEFAULT 0)
 * -> void: arm an injected fault for the next count requests (see the
 * install script and README "Fault injection").  'none' disarms every
 * point.  Errors: 42501 unless superuser, 22004 for NULL arguments, 22023
 * for an unknown point or a count / delay out of range, 55000 for a
 * server-side point without the GPU server.
 */
PG_FUNCTION_INFO_V1(gpu_debug_fault);
Datum
gpu_debug_fault(PG_FUNCTION_ARGS)
{
	char	   *name;
	int32		count;
	int32		delay_ms;
	int			point = -2;
	int			i;
	GdbFaultRequest f;
	GdbMsgPart	part;
	GdbReply   *r;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for gpu_debug_fault"),
				 errdetail("Injecting faults is a testing aid for superusers only.")));
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("arguments of gpu_debug_fault must not be NULL")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	count = PG_GETARG_INT32(1);
	delay_ms = PG_GETARG_INT32(2);
	for (i = 0; i < (int) lengthof(fault_points); i++)
		if (strcmp(name, fault_points[i].name) == 0)
			point = fault_points[i].point;
	if (point == -2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown fault point \"%s\"", name),
				 errhint("Use device_alloc, host_alloc, dictionary_limit, kernel, copy, slow or none.")));
	if (count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("count of gpu_debug_fault must not be negative")));
	if (delay_ms < 0 || delay_ms > GDB_FAULT_MAX_DELAY_MS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delay_ms of gpu_debug_fault must be between 0 and %d",
						GDB_FAULT_MAX_DELAY_MS)));

	if (point == -1)
	{
		gdb_fault_host_alloc = count;
		PG_RETURN_VOID();
	}
	if (point == -3)
	{
		gdb_fault_dictionary_limit = count;
		PG_RETURN_VOID();
	}
	if (point == GDB_FAULT_NONE)
	{
		gdb_fault_host_alloc = 0;
		gdb_fault_dictionary_limit = 0;
	}
	if (!gpudb_preloaded || !gdb_server_connect())
	{
		if (point == GDB_FAULT_NONE)
			PG_RETURN_VOID();	/* nothing armed where there is no server */
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpu_debug_fault('%s') needs the gpudb GPU server, which is not running",
						name),
				 errhint(gpudb_preloaded ?
						 "The server restarts by itself after a failure; see the server log." :
						 "Add gpudb to shared_preload_libraries and restart PostgreSQL.")));
	}
	memset(&f, 0, sizeof(f));
	f.point = point;
	f.count = count;
	f.delay_ms = delay_ms;
	part.data = (const char *) &f;
	part.len = sizeof(f);
	r = gdb_server_call(GDB_MSG_FAULT, &part, 1, -1);
	if (r->status->err.status != GDB_OK)
		gdb_raise_status(&r->status->err);
	PG_RETURN_VOID();
}

/*
 * gpu_server_status() -> one row (mode, device, cache_bytes, scratch_bytes,
 * requests, process_starts, kept_bytes), asked from the GPU server at each call.
 * mode is 'gpu' or 'cpu'; without the server, one row with mode 'none' and
 * the rest NULL.  Raises 08006 only when the server goes away mid-call.
 */
PG_FUNCTION_INFO_V1(gpu_server_status);
Datum
gpu_server_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[7];
	bool		nulls[7];

	InitMaterializedSRF(fcinfo, 0);
	memset(nulls, true, sizeof(nulls));
	if (gpudb_preloaded && gdb_server_connect())
	{
		GdbReply   *r = gdb_server_call(GDB_MSG_SERVER_STATUS, NULL, 0, -1);
		GdbServerStatus ss;

		if (r->status->err.status != GDB_OK)
			gdb_raise_status(&r->status->err);
		if (r->rest_len < sizeof(GdbServerStatus))
			elog(ERROR, "gpudb: malformed reply from the GPU server");
		memcpy(&ss, r->rest, sizeof(ss));
		ss.device[sizeof(ss.device) - 1] = '\0';
		memset(nulls, false, sizeof(nulls));
		values[0] = CStringGetTextDatum(ss.use_gpu ? "gpu" : "cpu");
		if (ss.device[0])
			values[1] = CStringGetTextDatum(ss.device);
		else
			nulls[1] = true;
		values[2] = Int64GetDatum((int64) ss.cache_bytes);
		values[3] = Int64GetDatum((int64) ss.scratch_bytes);
		values[4] = Int64GetDatum((int64) ss.requests);
		values[5] = Int32GetDatum(ss.process_starts);
		values[6] = Int64GetDatum((int64) ss.kept_bytes);
	}
	else
	{
		nulls[0] = false;
		values[0] = CStringGetTextDatum("none");
	}
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
