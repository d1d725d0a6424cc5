/*-------------------------------------------------------------------------
 *
 * pgstrom_names.c
 *	  A test-only module that stands in for PG-Strom in
 *	  test/side_by_side.sh: loaded through shared_preload_libraries before
 *	  gpudb, it registers dummy custom scan methods under the names PG-Strom
 *	  registers (GpuScan, GpuJoin, GpuPreAgg, GpuSort).  Custom scan method
 *	  names are global and PostgreSQL refuses a second method of a name, so
 *	  gpudb loading after it shows that gpudb's own names clash with none of
 *	  them.
 *
 * pgstrom_names.extra_names (a comma-separated list of names, kept as
 * written, read at load time from postgresql.conf) registers more names:
 * the script's negative control passes one of gpudb's and expects the
 * server to refuse to start.
 *
 * pgstrom_names_registered(name text) returns bool: whether a custom scan
 * method of that name is registered in this backend.
 *
 * Never installed: the script builds it in a temporary directory and
 * preloads it by its absolute path.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "nodes/extensible.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/varlena.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(pgstrom_names_registered);

/* The custom scan method names PG-Strom registers that gpudb once used too */
static const char *const pgstrom_scan_names[] = {
	"GpuScan", "GpuJoin", "GpuPreAgg", "GpuSort"
};

static char *extra_names = NULL;

void		_PG_init(void);

/*
 * The dummy methods' only callback: a plan with one of them is never made,
 * so reaching it is a bug of the test.
 */
static Node *
dummy_create_scan_state(CustomScan *cscan)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("pgstrom_names: the dummy custom scan \"%s\" cannot run",
					cscan->methods->CustomName)));
	return NULL;				/* keep the compiler quiet */
}

/*
 * Register a dummy custom scan method of the given name; the methods live in
 * TopMemoryContext for the life of the process, as the registry keeps a
 * pointer to them.
 */
static void
register_dummy(const char *name)
{
	CustomScanMethods *m;

	m = MemoryContextAllocZero(TopMemoryContext, sizeof(CustomScanMethods));
	m->CustomName = MemoryContextStrdup(TopMemoryContext, name);
	m->CreateCustomScanState = dummy_create_scan_state;
	RegisterCustomScanMethods(m);
}

/*
 * Module load: PG-Strom's names, then those of pgstrom_names.extra_names.
 * A name already registered raises PostgreSQL's own error, which during
 * shared_preload_libraries stops the server.
 */
void
_PG_init(void)
{
	List	   *extra = NIL;
	ListCell   *lc;
	char	   *copy;

	for (int i = 0; i < lengthof(pgstrom_scan_names); i++)
		register_dummy(pgstrom_scan_names[i]);

	DefineCustomStringVariable("pgstrom_names.extra_names",
							   "More dummy custom scan method names to register at load.",
							   NULL,
							   &extra_names,
							   "",
							   PGC_POSTMASTER,
							   GUC_LIST_INPUT,
							   NULL, NULL, NULL);

	copy = pstrdup(extra_names ? extra_names : "");
	if (!SplitGUCList(copy, ',', &extra))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("pgstrom_names.extra_names is not a list of names")));
	foreach(lc, extra)
		register_dummy((const char *) lfirst(lc));
}

/*
 * pgstrom_names_registered(name): is a custom scan method of this name
 * registered in this backend?
 */
Datum
pgstrom_names_registered(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));

	PG_RETURN_BOOL(GetCustomScanMethods(name, true) != NULL);
}
