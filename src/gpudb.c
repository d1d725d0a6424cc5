/*-------------------------------------------------------------------------
 *
 * gpudb.c
 *	  Module entry point: the GUCs, and with shared_preload_libraries the
 *	  GPU server worker and the shared change counters.
 *
 * Loading the module never touches CUDA: the postmaster must not own a
 * CUDA context (contexts do not survive fork), and backends never create
 * one either.  Only the GPU server (gpu_server.c), a background worker
 * registered here when gpudb is preloaded, initialises CUDA.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "utils/guc.h"

#include "gpudb.h"
#include "gpudb_defaults.h"
#include "server_client.h"

PG_MODULE_MAGIC;

bool		gpudb_enabled = GPUDB_DEFAULT_ENABLED;
int			gpudb_device_mode = GPUDB_DEFAULT_DEVICE;
int			gpudb_batch_rows = GPUDB_DEFAULT_BATCH_ROWS;
bool		gpudb_use_cache = GPUDB_DEFAULT_USE_CACHE;
int			gpudb_cache_size_kb = GPUDB_DEFAULT_CACHE_SIZE_KB;
int			gpudb_device_memory_limit_kb = GPUDB_DEFAULT_DEVICE_MEMORY_LIMIT_KB;
char	   *gpudb_devices = NULL;
int			gpudb_cache_shards = GPUDB_DEFAULT_CACHE_SHARDS;
bool		gpudb_enable_gpuscan = GPUDB_DEFAULT_ENABLE_GPUSCAN;
bool		gpudb_enable_gpuagg = GPUDB_DEFAULT_ENABLE_GPUAGG;
bool		gpudb_enable_gpusort = GPUDB_DEFAULT_ENABLE_GPUSORT;
bool		gpudb_enable_gpujoin = GPUDB_DEFAULT_ENABLE_GPUJOIN;
double		gpudb_gpu_setup_cost = GPUDB_DEFAULT_GPU_SETUP_COST;
double		gpudb_gpu_tuple_cost = GPUDB_DEFAULT_GPU_TUPLE_COST;
double		gpudb_gpu_transfer_cost = GPUDB_DEFAULT_GPU_TRANSFER_COST;
bool		gpudb_explain_hardware = GPUDB_DEFAULT_EXPLAIN_HARDWARE;
bool		gpudb_debug_unsupported = GPUDB_DEFAULT_DEBUG_UNSUPPORTED;
int			gpudb_parallel_workers = GPUDB_DEFAULT_PARALLEL_WORKERS;
int			gpudb_min_parallel_table_size = GPUDB_DEFAULT_MIN_PARALLEL_TABLE_SIZE;
bool		gpudb_preloaded = false;

static const struct config_enum_entry device_mode_options[] = {
	{"auto", GPUDB_DEVICE_AUTO, false},
	{"gpu", GPUDB_DEVICE_GPU, false},
	{"cpu", GPUDB_DEVICE_CPU, false},
	{NULL, 0, false}
};

void		_PG_init(void);

/* see gpudb.h */
int
gdb_parse_devices(const char *list, int *ordinals, int max)
{
	const char *p = list ? list : "";
	int			n = 0;

	for (;;)
	{
		long		v;
		char	   *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' && n == 0)
			return 0;
		if (*p < '0' || *p > '9')
			return -1;
		v = strtol(p, &end, 10);
		if (v > GDB_MAX_DEVICE_ORDINAL || n >= max)
			return -1;
		ordinals[n++] = (int) v;
		p = end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			return n;
		if (*p != ',')
			return -1;
		p++;
	}
}

/* gpudb.devices: a comma-separated list of device ordinals, or empty. */
static bool
check_devices(char **newval, void **extra, GucSource source)
{
	int			ords[GPUDB_MAX_CACHE_SHARDS];

	if (gdb_parse_devices(*newval, ords, lengthof(ords)) < 0)
	{
		GUC_check_errdetail("gpudb.devices takes up to %d comma-separated CUDA device ordinals (0..%d), or an empty string for every device.",
							GPUDB_MAX_CACHE_SHARDS, GDB_MAX_DEVICE_ORDINAL);
		return false;
	}
	return true;
}

/* Register the GPU server; the postmaster restarts it alone if it dies. */
static void
register_gpu_server(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	/* a supervisor: the process that uses CUDA is its child (gpu_server.c) */
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 1;
	strlcpy(worker.bgw_library_name, "gpudb", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "gdb_server_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "gpudb GPU server", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "gpudb GPU server", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

/*
 * _PG_init: define the gpudb.* GUCs (defaults in gpudb_defaults.h) and,
 * when preloaded, register the GPU server and the shared memory of the
 * cache's change counters.  Raises nothing beyond PostgreSQL's GUC errors.
 */
void
_PG_init(void)
{
	DefineCustomBoolVariable("gpudb.enabled",
							 "Runs gpudb operators on the GPU when one is usable.",
							 "When off, gpudb functions run on the CPU path.",
							 &gpudb_enabled,
							 GPUDB_DEFAULT_ENABLED,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("gpudb.device",
							 "Chooses where gpudb operators run: auto, gpu or cpu.",
							 "auto uses a GPU when one is usable and the CPU path "
							 "otherwise; gpu raises an error when no GPU is usable; "
							 "cpu always uses the CPU path.",
							 &gpudb_device_mode,
							 GPUDB_DEFAULT_DEVICE,
							 device_mode_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpudb.batch_rows",
							"Rows per column batch sent to the device.",
							"Larger batches amortise transfers and kernel launches; "
							"device and host memory per batch grow with it.",
							&gpudb_batch_rows,
							GPUDB_DEFAULT_BATCH_ROWS,
							GPUDB_MIN_BATCH_ROWS,
							GPUDB_MAX_BATCH_ROWS,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpudb.use_cache",
							 "Answers from the column cache when it is valid for the query.",
							 NULL,
							 &gpudb_use_cache,
							 GPUDB_DEFAULT_USE_CACHE,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpudb.cache_size",
							"Memory the GPU server may use for cached columns.",
							"Least recently used entries are evicted to make room.",
							&gpudb_cache_size_kb,
							GPUDB_DEFAULT_CACHE_SIZE_KB,
							0,
							INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpudb.device_memory_limit",
							"Device memory the GPU server may use for the cache; 0 for the whole device.",
							NULL,
							&gpudb_device_memory_limit_kb,
							GPUDB_DEFAULT_DEVICE_MEMORY_LIMIT_KB,
							0,
							INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	/*
	 * read by the GPU server process when it starts (sighup, not
	 * postmaster: a library loaded after startup may not define postmaster
	 * GUCs)
	 */
	DefineCustomStringVariable("gpudb.devices",
							   "CUDA devices the GPU server uses, as comma-separated ordinals; empty for all.",
							   "An ordinal may repeat: each entry is a logical device with its own stream.",
							   &gpudb_devices,
							   GPUDB_DEFAULT_DEVICES,
							   PGC_SIGHUP,
							   0,
							   check_devices, NULL, NULL);

	DefineCustomIntVariable("gpudb.cache_shards",
							"Shards each cached relation is split into over the GPU server's devices.",
							"0 for one per device (one in CPU mode).",
							&gpudb_cache_shards,
							GPUDB_DEFAULT_CACHE_SHARDS,
							0,
							GPUDB_MAX_CACHE_SHARDS,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpudb.enable_gpuscan",
							 "Lets the planner use GpudbScan: WHERE and projection on the device.",
							 NULL, &gpudb_enable_gpuscan,
							 GPUDB_DEFAULT_ENABLE_GPUSCAN, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("gpudb.enable_gpuagg",
							 "Lets the planner use GpudbAgg: grouped aggregates on the device.",
							 NULL, &gpudb_enable_gpuagg,
							 GPUDB_DEFAULT_ENABLE_GPUAGG, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("gpudb.enable_gpusort",
							 "Lets the planner use GpudbSort: ORDER BY and LIMIT on the device.",
							 NULL, &gpudb_enable_gpusort,
							 GPUDB_DEFAULT_ENABLE_GPUSORT, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("gpudb.enable_gpujoin",
							 "Lets the planner use GpudbJoin: aggregates over hash joins on the device.",
							 NULL, &gpudb_enable_gpujoin,
							 GPUDB_DEFAULT_ENABLE_GPUJOIN, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomRealVariable("gpudb.gpu_setup_cost",
							 "Planner cost of starting one device query (GPU server round trip).",
							 NULL, &gpudb_gpu_setup_cost,
							 GPUDB_DEFAULT_GPU_SETUP_COST, 0.0, 1e10,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("gpudb.gpu_tuple_cost",
							 "Planner cost of processing one input row on the device.",
							 NULL, &gpudb_gpu_tuple_cost,
							 GPUDB_DEFAULT_GPU_TUPLE_COST, 0.0, 1e10,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("gpudb.gpu_transfer_cost",
							 "Planner cost of sending one byte of column data to the device.",
							 "Charged for relations that are not in the column cache.",
							 &gpudb_gpu_transfer_cost,
							 GPUDB_DEFAULT_GPU_TRANSFER_COST, 0.0, 1e10,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("gpudb.explain_hardware",
							 "EXPLAIN shows the device, device times and bytes moved.",
							 "Turn off for outputs that do not depend on the machine.",
							 &gpudb_explain_hardware,
							 GPUDB_DEFAULT_EXPLAIN_HARDWARE, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("gpudb.debug_unsupported",
							 "Reports, as a NOTICE, what kept a query's plan off the device.",
							 NULL, &gpudb_debug_unsupported,
							 GPUDB_DEFAULT_DEBUG_UNSUPPORTED, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("gpudb.parallel_workers",
							"Parallel workers that read an uncached relation's heap into batches.",
							"0 reads the heap in the backend alone; capped by "
							"max_parallel_workers and max_worker_processes.",
							&gpudb_parallel_workers,
							GPUDB_DEFAULT_PARALLEL_WORKERS,
							0,
							GPUDB_MAX_PARALLEL_WORKERS,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("gpudb.min_parallel_table_size",
							"Heap size from which parallel workers read an uncached relation.",
							NULL,
							&gpudb_min_parallel_table_size,
							GPUDB_DEFAULT_MIN_PARALLEL_TABLE_SIZE,
							0,
							INT_MAX / 3,
							PGC_USERSET,
							GUC_UNIT_BLOCKS,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("gpudb");
	gdb_register_explain_options();
	gdb_custom_scan_init();

	if (process_shared_preload_libraries_in_progress)
	{
		gpudb_preloaded = true;
		gdb_cache_shmem_init();
		register_gpu_server();
	}
}
