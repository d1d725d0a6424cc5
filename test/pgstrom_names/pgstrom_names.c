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
 * It also stands in for any extension loaded before gpudb (Citus must be):
 * it sets every hook gpudb sets (set_rel_pathlist_hook,
 * create_upper_paths_hook, shmem_request_hook, shmem_startup_hook,
 * object_access_hook), each counting its calls, before gpudb sets its own.
 * gpudb's hooks run first and must call these; pgstrom_names_hook_calls(hook
 * text) returns bigint says how often each ran (the shared memory hooks run
 * in the postmaster, whose counts a backend inherits).
 *
 * Never installed: the script builds it in a temporary directory and
 * preloads it by its absolute path.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/objectaccess.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/varlena.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(pgstrom_names_registered);
PG_FUNCTION_INFO_V1(pgstrom_names_hook_calls);

/* the hooks this module sets, in the order of the counters below */
static const char *const hook_names[] = {
	"set_rel_pathlist", "create_upper_paths", "shmem_request",
	"shmem_startup", "object_access"
};
static int64 hook_calls[lengthof(hook_names)];

static set_rel_pathlist_hook_type prev_set_rel_pathlist = NULL;
static create_upper_paths_hook_type prev_create_upper_paths = NULL;
static shmem_request_hook_type prev_shmem_request = NULL;
static shmem_startup_hook_type prev_shmem_startup = NULL;
static object_access_hook_type prev_object_access = NULL;

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

/* set_rel_pathlist_hook: count, after the hook set before this one */
static void
count_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					   RangeTblEntry *rte)
{
	if (prev_set_rel_pathlist)
		prev_set_rel_pathlist(root, rel, rti, rte);
	hook_calls[0]++;
}

/* create_upper_paths_hook: count, after the hook set before this one */
static void
count_create_upper_paths(PlannerInfo *root, UpperRelationKind stage,
						 RelOptInfo *input_rel, RelOptInfo *output_rel,
						 void *extra)
{
	if (prev_create_upper_paths)
		prev_create_upper_paths(root, stage, input_rel, output_rel, extra);
	hook_calls[1]++;
}

/* shmem_request_hook: count, after the hook set before this one */
static void
count_shmem_request(void)
{
	if (prev_shmem_request)
		prev_shmem_request();
	hook_calls[2]++;
}

/* shmem_startup_hook: count, after the hook set before this one */
static void
count_shmem_startup(void)
{
	if (prev_shmem_startup)
		prev_shmem_startup();
	hook_calls[3]++;
}

/* object_access_hook: count, after the hook set before this one */
static void
count_object_access(ObjectAccessType access, Oid classId, Oid objectId,
					int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	hook_calls[4]++;
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

	prev_set_rel_pathlist = set_rel_pathlist_hook;
	set_rel_pathlist_hook = count_set_rel_pathlist;
	prev_create_upper_paths = create_upper_paths_hook;
	create_upper_paths_hook = count_create_upper_paths;
	prev_object_access = object_access_hook;
	object_access_hook = count_object_access;
	if (process_shared_preload_libraries_in_progress)
	{
		prev_shmem_request = shmem_request_hook;
		shmem_request_hook = count_shmem_request;
		prev_shmem_startup = shmem_startup_hook;
		shmem_startup_hook = count_shmem_startup;
	}
}

/*
 * pgstrom_names_hook_calls(hook): how often this module's hook of that name
 * ran in this backend (or, for the shared memory hooks, in the postmaster
 * before it forked the backend); NULL for a hook it does not set.
 */
Datum
pgstrom_names_hook_calls(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));

	for (int i = 0; i < lengthof(hook_names); i++)
		if (strcmp(name, hook_names[i]) == 0)
			PG_RETURN_INT64(hook_calls[i]);
	PG_RETURN_NULL();
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
