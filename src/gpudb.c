/*-------------------------------------------------------------------------
 *
 * gpudb.c
 *	  Module entry point: the GUCs.
 *
 * Loading the module (CREATE EXTENSION, LOAD or shared_preload_libraries)
 * defines the GUCs and nothing else.  In particular it never touches CUDA:
 * the postmaster must not own a CUDA context (contexts do not survive
 * fork), so devices are discovered lazily, in a backend, on first use
 * (device.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "gpudb.h"
#include "gpudb_defaults.h"

PG_MODULE_MAGIC;

bool		gpudb_enabled = GPUDB_DEFAULT_ENABLED;
int			gpudb_device_mode = GPUDB_DEFAULT_DEVICE;
int			gpudb_batch_rows = GPUDB_DEFAULT_BATCH_ROWS;

static const struct config_enum_entry device_mode_options[] = {
	{"auto", GPUDB_DEVICE_AUTO, false},
	{"gpu", GPUDB_DEVICE_GPU, false},
	{"cpu", GPUDB_DEVICE_CPU, false},
	{NULL, 0, false}
};

void		_PG_init(void);

/*
 * _PG_init: define the gpudb.* GUCs (defaults in gpudb_defaults.h) and
 * reserve the prefix.  Raises nothing beyond PostgreSQL's own GUC errors.
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

	MarkGUCPrefixReserved("gpudb");
}
