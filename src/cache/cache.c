/*-------------------------------------------------------------------------
 *
 * cache.c
 *	  The column cache, backend side: gpu_cache_load / gpu_cache_drop /
 *	  gpu_cache_status and change tracking (the cached queries are in
 *	  cache_query.c).
 *
 * The GPU server (gpu_server.c) holds the cached columns; this file decides
 * what to load, when a cached copy may answer a query, and sends it there.
 *
 * Correctness under change: a load takes SHARE ROW EXCLUSIVE on the table,
 * so every earlier writer has finished and no new one starts until the
 * loading transaction ends, then reads it under a fresh snapshot; the copy
 * answers only queries whose snapshot sees everything the load saw
 * (server_cache.c: snapshot_covers_load).  Internal triggers fired ALWAYS
 * (cache_capture.c) send every statement's inserted and deleted rows with
 * their xids; each query resolves those xids against its own snapshot
 * (gdb_xid_statuses) and the server sets a per-row visibility column.
 * TRUNCATE, changes that could not be sent in their statement, and
 * disabled, renamed-away or dropped triggers bump a shared per-relation
 * change counter; VACUUM FULL, CLUSTER and rewriting ALTER TABLE change the
 * relfilenode.  Either makes the copy stale: queries read the heap until
 * the next load.  The entry becomes usable when the loading transaction
 * commits; a rolled-back load (or savepoint) discards it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/plancat.h"
#include "parser/parse_func.h"
#include "port/atomics.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "gpudb_defaults.h"
#include "cache_internal.h"
#include "groupby.h"
#include "server_client.h"

#define GDB_CHANGE_SLOTS	16384	/* relations with a change counter */

/*
 * The most bytes each of a load's two shared batch buffers takes (the batch
 * and its rows' ctids).  The pair is reused batch after batch, so small
 * buffers stay in the CPU's last-level cache between the server reading
 * one and the backend writing it again, where big ones go to memory and
 * back each time: a 10M-row load here took 39.6 ns a row of backend CPU
 * with 32 MB buffers, 36.6 with 8 MB, 32.1 with 4 MB, 32.3 with 2 MB.
 * Every page of them is also new memory the first time it is written (a
 * page fault and a page clear each), and the server's copy of the last
 * batch, which no reading overlaps, is shorter.  Smaller still only adds
 * round trips: a batch of 4 MB is about 70,000 rows.
 */
#define GDB_LOAD_BUFFER_BYTES	((uint64) 4 * 1024 * 1024)
#define GDB_TRIGGER_NAME	"gpudb_cache_invalidate"	/* statement level */
/*
 * Row level.  Triggers fire in name order: the "!" makes this one fire
 * before user triggers, so a row is captured before a user trigger's
 * nested statement can change it again (the server replays changes in the
 * order they are captured).
 */
#define GDB_ROW_TRIGGER_NAME "!gpudb_cache_capture"
#define GDB_PROGRESS_SECS	10

static HTAB *change_hash = NULL;
static pg_atomic_uint64 *change_overflow = NULL;
static LWLock *change_lock = NULL;

/*
 * The cache generation (shared): bumped after every request that may
 * change the GPU server's list of cached copies (gdb_cache_membership_
 * changed).  The planner keeps its last CACHE_STATUS reply while the
 * generation stays the same, so planning a query needs no server round
 * trip (small tables plan as fast as without gpudb).  A stale copy can
 * only mislead a cost: the executor checks the cache itself.
 */
static pg_atomic_uint64 *cache_generation = NULL;
static GdbCacheInfo *status_memo = NULL;	/* in TopMemoryContext */
static int64 status_memo_n = 0;
static uint64 status_memo_gen = 0;
static Oid	status_memo_db = InvalidOid;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static object_access_hook_type prev_object_access_hook = NULL;

/* Loads of this transaction, made usable or discarded at its end. */
typedef struct PendingLoad
{
	int64		cache_id;
	SubTransactionId subid;
	struct PendingLoad *next;
} PendingLoad;

static PendingLoad *pending = NULL;

/*
 * Databases this transaction drops: their cache entries are dropped when it
 * commits (cache_object_access).
 */
typedef struct PendingDbDrop
{
	Oid			dbid;
	SubTransactionId subid;
	struct PendingDbDrop *next;
} PendingDbDrop;

static PendingDbDrop *pending_db_drops = NULL;

/*
 * How long a commit waits for the GPU server to confirm a dropped
 * database's entries are gone (ms).  The server runs requests one at a
 * time, so it may be busy with another; the request, once sent, is served
 * anyway.
 */
#define GDB_DB_DROP_WAIT_MS	10000

static bool callbacks_registered = false;

static void register_xact_callbacks(void);
static void remember_dropped_database(Oid dbid);

/* ---- shared change counters ---- */

/* One relation's counter; a full table falls back to the overflow counter. */
typedef struct ChangeEntry
{
	GdbCacheKey key;
	uint64		count;
} ChangeEntry;

static void
cache_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(hash_estimate_size(GDB_CHANGE_SLOTS, sizeof(ChangeEntry)) +
						   2 * sizeof(pg_atomic_uint64));
	RequestNamedLWLockTranche("gpudb change counters", 1);
}

static void
cache_shmem_startup(void)
{
	HASHCTL		ctl;
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(GdbCacheKey);
	ctl.entrysize = sizeof(ChangeEntry);
	change_hash = gdb_shmem_init_hash("gpudb change counters", GDB_CHANGE_SLOTS / 4,
									  GDB_CHANGE_SLOTS, &ctl, HASH_ELEM | HASH_BLOBS);
	change_overflow = ShmemInitStruct("gpudb change overflow",
									  sizeof(pg_atomic_uint64), &found);
	if (!found)
		pg_atomic_init_u64(change_overflow, 0);
	cache_generation = ShmemInitStruct("gpudb cache generation",
									   sizeof(pg_atomic_uint64), &found);
	if (!found)
		pg_atomic_init_u64(cache_generation, 1);
	change_lock = &(GetNamedLWLockTranche("gpudb change counters"))->lock;
	LWLockRelease(AddinShmemInitLock);
}
/*
 * The object access hook.  A database dropped: its entries are dropped when
 * the drop commits.  Our triggers disabled, re-enabled or dropped (ALTER
 * TABLE ... DISABLE TRIGGER ALL, say): changes may go uncaptured, so cached
 * copies of the table must stop answering.
 */
static void
cache_object_access(ObjectAccessType access, Oid classId, Oid objectId,
					int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (classId == DatabaseRelationId && access == OAT_DROP && gpudb_preloaded)
	{
		/*
		 * A dropped database's entries would hold memory forever, but the
		 * drop hook runs before DROP DATABASE checks that nobody uses the
		 * database: the entries go when the drop commits.
		 */
		remember_dropped_database(objectId);
		return;
	}
	if (classId == TriggerRelationId &&
		(access == OAT_POST_ALTER || access == OAT_DROP) && change_hash)
	{
		Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tup;

		ScanKeyInit(&key, Anum_pg_trigger_oid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(objectId));
		scan = systable_beginscan(tgrel, TriggerOidIndexId, true, NULL, 1, &key);
		tup = systable_getnext(scan);
		if (HeapTupleIsValid(tup))
		{
			Form_pg_trigger tg = (Form_pg_trigger) GETSTRUCT(tup);

			char	   *fn = get_func_name(tg->tgfoid);

			/* ours by the function they run (a rename keeps them ours) */
			if (fn && strcmp(fn, "gpudb_cache_invalidate") == 0)
				gdb_cache_bump(tg->tgrelid);
		}
		systable_endscan(scan);
		table_close(tgrel, AccessShareLock);
	}
}

/* see gpudb.h */
void
gdb_cache_shmem_init(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = cache_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = cache_shmem_startup;
	prev_object_access_hook = object_access_hook;
	object_access_hook = cache_object_access;
}

/* see cache_internal.h */
uint64
gdb_cache_change_count(Oid relid)
{
	GdbCacheKey key = {MyDatabaseId, relid};
	ChangeEntry *e;
	uint64		n;

	if (change_hash == NULL)
		return 0;
	LWLockAcquire(change_lock, LW_SHARED);
	e = hash_search(change_hash, &key, HASH_FIND, NULL);
	n = (e ? e->count : 0) + pg_atomic_read_u64(change_overflow);
	LWLockRelease(change_lock);
	return n;
}

/* see groupby.h */
void
gdb_cache_bump(Oid relid)
{
	GdbCacheKey key = {MyDatabaseId, relid};
	ChangeEntry *e;
	bool		found;

	if (change_hash == NULL)
		return;
	LWLockAcquire(change_lock, LW_EXCLUSIVE);
	e = hash_search(change_hash, &key, HASH_ENTER_NULL, &found);
	if (e == NULL)
		pg_atomic_fetch_add_u64(change_overflow, 1);
	else
		e->count = found ? e->count + 1 : 1;
	LWLockRelease(change_lock);
}

/* ---- transaction end: make loads usable or discard them ---- */

static void
end_pending(bool commit, SubTransactionId only)
{
	/* oldest first (the list's order), so that the newest load wins */
	PendingLoad **pp = &pending;

	while (*pp)
	{
		PendingLoad *p = *pp;

		if (only != InvalidSubTransactionId && p->subid != only)
		{
			pp = &p->next;
			continue;
		}
		*pp = p->next;

		/*
		 * Never raise here: the transaction's fate is already decided, and
		 * interrupts are held off.  The wait is bounded, and given up at once
		 * for a cancel or termination: without the connection the server
		 * drops the load itself (its copy is then just not cached).
		 */
		{
			GdbCacheRef ref = {p->cache_id, 0};
			GdbMsgPart	part = {(const char *) &ref, sizeof(ref)};

			if (gdb_server_bounded_call(commit ? GDB_MSG_CACHE_COMMIT : GDB_MSG_CACHE_ABORT,
										&part, 1, GPUDB_XACT_END_WAIT_MS) == NULL)
				ereport(LOG,
						(errmsg("gpudb: the GPU server did not confirm the %s of a cache load; the load is dropped",
								commit ? "commit" : "abort")));
		}
		pfree(p);
	}
}

/*
 * Note that the current (sub)transaction drops database dbid; called from
 * the drop hook, before DROP DATABASE has done anything it cannot undo.
 */
static void
remember_dropped_database(Oid dbid)
{
	PendingDbDrop *d;

	register_xact_callbacks();
	d = MemoryContextAlloc(TopMemoryContext, sizeof(PendingDbDrop));
	d->dbid = dbid;
	d->subid = GetCurrentSubTransactionId();
	d->next = pending_db_drops;
	pending_db_drops = d;
}

/*
 * The transaction ended (commit: its DROP DATABASE took effect): have the
 * server drop the entries of every database it dropped, or forget them.
 * Never raises: at commit the transaction's fate is decided, so the request
 * goes on a connection of its own through gdb_server_call_quiet, and a
 * failure is only logged (the entries then stay until the server restarts).
 */
static void
end_db_drops(bool commit)
{
	while (pending_db_drops)
	{
		PendingDbDrop *d = pending_db_drops;

		pending_db_drops = d->next;
		if (commit)
		{
			GdbCacheKey key = {d->dbid, 0};

			if (!gdb_server_call_quiet(GDB_MSG_CACHE_DROP, &key, sizeof(key),
									   GDB_DB_DROP_WAIT_MS))
				ereport(LOG,
						(errmsg("gpudb: could not confirm that the GPU server dropped the cache entries of dropped database %u",
								d->dbid),
						 errdetail("The GPU server did not answer within %d ms, or is not running.",
								   GDB_DB_DROP_WAIT_MS)));
		}
		pfree(d);
	}
}

static void
cache_xact_callback(XactEvent event, void *arg)
{
	bool		commit = (event == XACT_EVENT_COMMIT ||
						  event == XACT_EVENT_PARALLEL_COMMIT);
	bool		abort = (event == XACT_EVENT_ABORT ||
						 event == XACT_EVENT_PARALLEL_ABORT ||
						 event == XACT_EVENT_PREPARE);

	if (pending_db_drops && (commit || abort))
		end_db_drops(commit);
	if (pending == NULL)
		return;
	if (commit)
		end_pending(true, InvalidSubTransactionId);
	else if (abort)
		end_pending(false, InvalidSubTransactionId);
}

static void
cache_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	PendingLoad *p;
	PendingDbDrop **dp;

	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		end_pending(false, mySubid);
		/* a rolled-back drop of a database drops nothing */
		dp = &pending_db_drops;
		while (*dp)
		{
			PendingDbDrop *d = *dp;

			if (d->subid == mySubid)
			{
				*dp = d->next;
				pfree(d);
			}
			else
				dp = &d->next;
		}
	}
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		PendingDbDrop *d;

		for (p = pending; p; p = p->next)
			if (p->subid == mySubid)
				p->subid = parentSubid;
		for (d = pending_db_drops; d; d = d->next)
			if (d->subid == mySubid)
				d->subid = parentSubid;
	}
}

/* Register the transaction callbacks once per backend. */
static void
register_xact_callbacks(void)
{
	if (callbacks_registered)
		return;
	RegisterXactCallback(cache_xact_callback, NULL);
	RegisterSubXactCallback(cache_subxact_callback, NULL);
	callbacks_registered = true;
}

/* ---- helpers ---- */

static void
require_server(const char *fname)
{
	if (!gpudb_preloaded || !gdb_server_connect())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s needs the gpudb GPU server, which is not running", fname),
				 errhint(gpudb_preloaded ?
						 "The server restarts by itself after a failure; see the server log." :
						 "Add gpudb to shared_preload_libraries and restart PostgreSQL.")));
}

/*
 * The owner or a member of gpudb_cache_admin may load and drop; checked
 * from the catalog before any lock is taken.  Raises 42P01 for an OID that
 * names no relation.
 */
static void
check_cache_admin(Oid relid, const char *fname)
{
	Oid			admin = get_role_oid("gpudb_cache_admin", true);
	char	   *name = get_rel_name(relid);

	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (gdb_class_ownercheck(relid, GetUserId()))
		return;
	if (OidIsValid(admin) && has_privs_of_role(GetUserId(), admin))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to %s relation \"%s\"", fname, name),
			 errhint("Only the table's owner or members of role gpudb_cache_admin may load or drop its cache.")));
}

/*
 * gpu_cache_load installs two triggers on the table, so the caller needs
 * what CREATE TRIGGER needs: ownership or the TRIGGER privilege (42501).
 * Checked from the catalog before any lock is taken.
 */
static void
check_load_trigger_right(Oid relid)
{
	if (gdb_class_ownercheck(relid, GetUserId()) ||
		pg_class_aclcheck(relid, GetUserId(), ACL_TRIGGER) == ACLCHECK_OK)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to load relation \"%s\" into the GPU cache",
					get_rel_name(relid)),
			 errdetail("gpu_cache_load installs change-tracking triggers on the table."),
			 errhint("The table's owner, or a role with the TRIGGER privilege on it, may load it.")));
}

/*
 * The caller must be able to read every column it loads (what a load
 * returns, and what the gpu_cache view shows, tell about their rows):
 * SELECT on the table or on each of cs's columns (42501, naming the first
 * column it may not read).
 */
static void
check_load_select_right(Relation rel, const GdbColumnSet *cs)
{
	Oid			relid = RelationGetRelid(rel);
	int			i;

	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK)
		return;
	for (i = 0; i < cs->ncols; i++)
	{
		if (pg_attribute_aclcheck(relid, cs->attnums[i], GetUserId(),
								  ACL_SELECT) == ACLCHECK_OK)
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to load relation \"%s\" into the GPU cache",
						RelationGetRelationName(rel)),
				 errdetail("gpu_cache_load needs SELECT on every column it loads; the current role may not read column \"%s\".",
						   get_attname(relid, cs->attnums[i], false)),
				 errhint("Grant SELECT on the table or on the columns, or name only readable columns.")));
	}
}

/*
 * May the current user see rel's entry in the gpu_cache view?  Only with
 * SELECT on the table or on at least one of its columns, as for
 * has_any_column_privilege: the entry's row count and columns are facts
 * about the table's contents.
 */
static bool
cache_entry_visible(Oid relid)
{
	return pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK ||
		pg_attribute_aclcheck_all(relid, GetUserId(), ACL_SELECT,
								  ACLMASK_ANY) == ACLCHECK_OK;
}

/* see cache_internal.h */
void
gdb_cache_snapshot_info(Snapshot snap, GdbSnapshotInfo *info, StringInfo xids)
{
	int			i;

	info->xmin = snap->xmin;
	info->xmax = snap->xmax;
	info->nxip = 0;
	info->overflowed = snap->suboverflowed || snap->takenDuringRecovery ||
		snap->xcnt + snap->subxcnt > GDB_MAX_XIP;
	if (info->overflowed)
		return;
	for (i = 0; i < snap->xcnt; i++)
		appendBinaryStringInfo(xids, (char *) &snap->xip[i], sizeof(uint32));
	for (i = 0; i < snap->subxcnt; i++)
		appendBinaryStringInfo(xids, (char *) &snap->subxip[i], sizeof(uint32));
	info->nxip = snap->xcnt + snap->subxcnt;
}

/*
 * Install the change-tracking triggers on rel unless they are there, both
 * running gpudb_cache_invalidate() of the extension's schema ext_schema:
 * an AFTER ROW trigger that captures inserted and deleted rows, and an
 * AFTER STATEMENT trigger that sends them to the server (or, for TRUNCATE,
 * bumps the change counter).  Internal triggers, fired ALWAYS.
 */
static void
ensure_trigger(Relation rel, Oid ext_schema)
{
	static const char *const names[2] = {GDB_TRIGGER_NAME, GDB_ROW_TRIGGER_NAME};
	List	   *fname;
	Oid			funcoid;
	int			t,
				i;

	fname = list_make2(makeString(get_namespace_name(ext_schema)),
					   makeString("gpudb_cache_invalidate"));
	funcoid = LookupFuncName(fname, 0, NULL, false);
	for (t = 0; t < 2; t++)
	{
		CreateTrigStmt *stmt;
		bool		present = false;

		/*
		 * Ours by the function they run, whatever their (possibly renamed)
		 * name: exactly one of each level, re-enabled ALWAYS if a user
		 * changed that (which has already marked the copy stale); extras
		 * would capture every change twice.
		 */
		if (rel->trigdesc)
			for (i = 0; i < rel->trigdesc->numtriggers; i++)
			{
				Trigger    *tg = &rel->trigdesc->triggers[i];

				if (tg->tgfoid != funcoid || (TRIGGER_FOR_ROW(tg->tgtype) != 0) != (t == 1))
					continue;
				if (present)
				{
					ObjectAddress extra = {TriggerRelationId, tg->tgoid, 0};

					performDeletion(&extra, DROP_RESTRICT, PERFORM_DELETION_INTERNAL);
					continue;
				}
				present = true;
				if (tg->tgenabled != TRIGGER_FIRES_ALWAYS)
					gdb_enable_disable_trigger(rel, tg->tgname, TRIGGER_FIRES_ALWAYS,
											   false, ShareRowExclusiveLock);
			}
		if (present)
		{
			CommandCounterIncrement();
			continue;
		}
		stmt = makeNode(CreateTrigStmt);
		stmt->trigname = (char *) names[t];
		stmt->relation = makeRangeVar(get_namespace_name(RelationGetNamespace(rel)),
									  pstrdup(RelationGetRelationName(rel)), -1);
		stmt->funcname = fname;
		stmt->row = (t == 1);
		stmt->timing = TRIGGER_TYPE_AFTER;
		stmt->events = TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE;
		if (t == 0)
			stmt->events |= TRIGGER_TYPE_TRUNCATE;
		(void) CreateTriggerFiringOn(stmt, NULL, RelationGetRelid(rel), InvalidOid,
									 InvalidOid, InvalidOid, funcoid, InvalidOid,
									 NULL, true, false, TRIGGER_FIRES_ALWAYS);
		CommandCounterIncrement();
	}
}

/*
 * Remove the capture triggers that gpu_cache_load installed on relid (ours
 * by the function they run), so that writers stop paying for them once the
 * copy is dropped.  Takes the lock DROP TRIGGER takes (AccessExclusiveLock,
 * waiting for the table's readers and writers); transactional, unlike the
 * drop of the copy itself: if the transaction aborts the triggers stay, and
 * capture nothing while the table is not cached.
 */
static void
drop_triggers(Oid relid, Oid ext_schema)
{
	Relation	rel;
	Oid			funcoid;
	List	   *trigs = NIL;
	ListCell   *lc;
	int			i;

	funcoid = LookupFuncName(list_make2(makeString(get_namespace_name(ext_schema)),
										makeString("gpudb_cache_invalidate")),
							 0, NULL, false);
	rel = try_relation_open(relid, AccessExclusiveLock);
	if (rel == NULL)
		return;
	if (rel->trigdesc)
		for (i = 0; i < rel->trigdesc->numtriggers; i++)
			if (rel->trigdesc->triggers[i].tgfoid == funcoid)
				trigs = lappend_oid(trigs, rel->trigdesc->triggers[i].tgoid);
	foreach(lc, trigs)
	{
		ObjectAddress trig = {TriggerRelationId, lfirst_oid(lc), 0};

		performDeletion(&trig, DROP_RESTRICT, PERFORM_DELETION_INTERNAL);
	}
	/* plans costed with the copy are made again once this commits */
	CacheInvalidateRelcache(rel);
	/* the lock is kept until the transaction ends, as DROP TRIGGER's */
	relation_close(rel, NoLock);
	CommandCounterIncrement();
}

/* The columns to load: the given names, or every supported column. */
static void
choose_columns(Relation rel, ArrayType *names, GdbColumnSet *cs)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			i;

	if (names == NULL)
	{
		for (i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			/* one column of the store is the visibility column */
			if (!att->attisdropped && gdb_type_supported(att->atttypid, att->atttypmod) &&
				!(gdb_type_class(att->atttypid) == GDB_TYPE_TEXT &&
				  !get_collation_isdeterministic(att->attcollation)) &&
				cs->ncols < GDB_MAX_COLUMNS - 1)
				(void) gdb_columnset_add(cs, rel, att->attnum, false);
		}
	}
	else
	{
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		deconstruct_array(names, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR,
						  &elems, &nulls, &n);
		if (n >= GDB_MAX_COLUMNS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many columns to cache: %d", n),
					 errdetail("At most %d columns of a table can be cached.",
							   GDB_MAX_COLUMNS - 1)));
		for (i = 0; i < n; i++)
		{
			const char *name;
			AttrNumber	attnum;

			if (nulls[i])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("column %d of the columns argument is NULL", i + 1)));
			name = NameStr(*DatumGetName(elems[i]));
			attnum = get_attnum(RelationGetRelid(rel), name);
			if (attnum == InvalidAttrNumber)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_COLUMN),
						 errmsg("column \"%s\" of relation \"%s\" does not exist",
								name, RelationGetRelationName(rel))));
			if (attnum < 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("system column \"%s\" cannot be cached", name)));
			(void) gdb_columnset_add(cs, rel, attnum, false);
		}
	}
	if (cs->ncols == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("relation \"%s\" has no column gpudb can cache",
						RelationGetRelationName(rel))));
}

/* see groupby.h */
void
gdb_cache_batch_set_visible(GdbBatch *batch, int vis_col, int64 value)
{
	int64	   *vis = GDB_COL_PTR(batch, batch, vis_col, int64);
	uint64		r;

	for (r = 0; r < batch->nrows; r++)
		vis[r] = value;
}

/* Fail the load with the server's status. */
static void
raise_reply(GdbReply *r, const char *what)
{
	GdbError	err = r->status->err;

	if (err.status == GDB_ERR_OUT_OF_MEMORY)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("gpudb: %s does not fit the cache", what),
				 errdetail("%s", err.message),
				 errhint("Raise gpudb.cache_size, or load fewer columns.")));
	gdb_raise_status(&err);
}

/*
 * DEBUG1 report of a finished load of rel: rows rows, whose column data
 * (cs's columns and the visibility column: 8 bytes a value plus a NULL flag
 * byte per row of each column, as gdb_columnset_layout lays them out) took
 * total_ms in all, of which read_ms reading the heap into batches and
 * wait_ms waiting on the server (sending each batch, its reply, and the
 * dictionary at the end); the rest is the lock, the triggers and setting
 * the entry up.
 */
static void
load_report(Relation rel, GdbColumnSet *cs, uint64 rows, double total_ms,
			double read_ms, double wait_ms)
{
	GdbBatch	layout;
	double		mb;

	if (!message_level_is_interesting(DEBUG1))
		return;
	mb = (double) (gdb_columnset_layout(cs, &layout, rows, true) -
				   gdb_columnset_layout(cs, &layout, 0, true)) / 1e6;
	elog(DEBUG1, "gpu_cache_load of \"%s\": " UINT64_FORMAT " rows, %.1f MB of column data in %.1f ms (%.2f GB/s, %.1f ns a row): reading the heap %.1f ms, waiting on the server %.1f ms",
		 RelationGetRelationName(rel), rows, mb, total_ms,
		 total_ms > 0 ? mb / total_ms : 0.0,
		 rows > 0 ? total_ms * 1e6 / (double) rows : 0.0,
		 read_ms, wait_ms);
}

/*
 * The rows rel's heap holds now, as estimated for dividing them into the
 * GPU server's shards: its blocks now at the density of its statistics
 * (reltuples / relpages, as the planner scales them), or, never analyzed
 * or vacuumed, at the density of tuples of its columns' estimated width.
 * An estimate below the truth only gives the last shard more rows.
 */
static uint64
heap_rows_now(Relation rel)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	double		density;

	if (rel->rd_rel->reltuples > 0 && rel->rd_rel->relpages > 0)
		density = rel->rd_rel->reltuples / rel->rd_rel->relpages;
	else
		density = (double) (BLCKSZ - SizeOfPageHeaderData) /
			(MAXALIGN(SizeofHeapTupleHeader) + sizeof(ItemIdData) +
			 get_rel_data_width(rel, NULL));
	return (uint64) Max(density * nblocks, 1.0);
}

/*
 * gpu_cache_load(relation regclass, columns name[] DEFAULT NULL) -> bigint
 *
 * Load the given columns (NULL: every column of a supported type) of a
 * table into the GPU server's cache, reading the heap in batches of
 * gpudb.batch_rows rows while the server copies the previous batch; returns
 * the rows loaded.  Locks the table SHARE ROW EXCLUSIVE until the end of
 * the transaction; the entry is usable once the transaction commits.
 * NOTICE every 10 s of a long load; at DEBUG1, where the load's time went
 * (see load_report).  Errors: 55000 without the server,
 * 42501 unless owner or gpudb_cache_admin member, and unless the caller may
 * read every column it loads and create triggers on the table (owner or
 * TRIGGER privilege), 42809 for what is not a plain table, 42703 / 0A000
 * for unknown or unsupported columns, 53200 when it does not fit
 * gpudb.cache_size.
 */
PG_FUNCTION_INFO_V1(gpu_cache_load);
Datum
gpu_cache_load(PG_FUNCTION_ARGS)
{
	MemoryContext work,
				old;
	Relation	rel;
	GdbColumnSet cs;
	GdbCacheCreate *cc;
	StringInfoData xids;
	Snapshot	snap;
	GdbReply   *r;
	GdbMsgPart	parts[2];
	GdbHeapReader *reader;
	GdbBatch	layout;
	GdbBatch   *buf[2];
	uint64	   *ctids[2];
	int			fds[2];
	int64		cache_id;
	uint64		rows = 0;
	uint64		capacity;
	int			cur = 0;
	bool		in_flight = false;
	TimestampTz last_notice;
	instr_time	start,
				clock;
	double		read_ms = 0,
				wait_ms = 0;
	int			i;

	INSTR_TIME_SET_CURRENT(start);
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("relation argument of gpu_cache_load must not be NULL")));
	require_server("gpu_cache_load");

	work = AllocSetContextCreate(CurrentMemoryContext, "gpu_cache_load",
								 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(work);

	/* it writes the catalog (its triggers) */
	PreventCommandIfReadOnly("gpu_cache_load()");
	/*
	 * Refuse before waiting for the lock that blocks writers: a refused role
	 * must not hold them up.  The privileges that depend on the columns are
	 * checked under ACCESS SHARE (which no writer waits for, and which keeps
	 * the columns as they are) before the load's own lock is taken.
	 */
	check_cache_admin(PG_GETARG_OID(0), "gpu_cache_load");
	check_load_trigger_right(PG_GETARG_OID(0));
	if (TransactionIdIsValid(GetTopTransactionIdIfAny()))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpu_cache_load must run before its transaction writes anything"),
				 errdetail("Rows the transaction wrote would be cached as committed."),
				 errhint("Run gpu_cache_load in its own transaction, one table per transaction.")));
	rel = relation_open(PG_GETARG_OID(0), AccessShareLock);
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary tables of other sessions")));
	if (rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("temporary table \"%s\" cannot be cached",
						RelationGetRelationName(rel)),
				 errdetail("ON COMMIT DELETE ROWS empties a temporary table without any trigger firing.")));
	if (rel->rd_rel->relkind != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel)),
				 errdetail("Only plain tables can be cached; partitions can, one by one.")));

	memset(&cs, 0, sizeof(cs));
	choose_columns(rel, PG_ARGISNULL(1) ? NULL : PG_GETARG_ARRAYTYPE_P(1), &cs);
	check_load_select_right(rel, &cs);
	/* the load's lock: every earlier writer finishes, no new one starts */
	LockRelationOid(RelationGetRelid(rel), ShareRowExclusiveLock);
	/* the extension's schema is that of this very function */
	ensure_trigger(rel, get_func_namespace(fcinfo->flinfo->fn_oid));

	/* every earlier writer is done (the lock); read the latest state */
	cc = palloc0(sizeof(GdbCacheCreate));
	cc->change_count = gdb_cache_change_count(RelationGetRelid(rel));
	snap = RegisterSnapshot(GetLatestSnapshot());
	initStringInfo(&xids);
	gdb_cache_snapshot_info(snap, &cc->snapshot, &xids);
	cc->key.dbid = MyDatabaseId;
	cc->key.relid = RelationGetRelid(rel);
	cc->relfilenode = gdb_rel_filenumber(rel);
	cc->ncols = cs.ncols;
	for (i = 0; i < cs.ncols; i++)
	{
		cc->attnums[i] = cs.attnums[i];
		cc->typids[i] = cs.typids[i];
		cc->typmods[i] = cs.typids[i] == NUMERICOID ? cs.typmods[i] : -1;
		cc->kinds[i] = gdb_column_kind(&cs, i);
		cc->has_nulls[i] = 1;
	}
	cc->est_rows = (uint64) Max(rel->rd_rel->reltuples, 0) + 1024;
	cc->shard_rows = heap_rows_now(rel);
	parts[0].data = (const char *) cc;
	parts[0].len = sizeof(GdbCacheCreate);
	parts[1].data = xids.data;
	parts[1].len = xids.len;
	r = gdb_server_call(GDB_MSG_CACHE_CREATE, parts, 2, -1);
	if (r->status->err.status != GDB_OK)
		raise_reply(r, psprintf("relation \"%s\"", RelationGetRelationName(rel)));
	cache_id = r->status->value;

	/*
	 * Usable when this transaction commits.  Registered before anything
	 * else can fail, so that an error later in this load (a shared buffer,
	 * the heap, a cancel between requests) aborts the server's entry with
	 * the (sub)transaction instead of leaving it loading.
	 */
	register_xact_callbacks();
	{
		PendingLoad *p = MemoryContextAlloc(TopMemoryContext, sizeof(PendingLoad));

		PendingLoad **tail = &pending;

		p->cache_id = cache_id;
		p->subid = GetCurrentSubTransactionId();
		p->next = NULL;
		while (*tail)
			tail = &(*tail)->next;
		*tail = p;
	}

	/*
	 * two shared buffers: fill one while the server copies the other; of
	 * gpudb.batch_rows rows, or fewer where the batch and its ctids take
	 * more than GDB_LOAD_BUFFER_BYTES
	 */
	capacity = Min((uint64) gpudb_batch_rows, cc->est_rows);
	gdb_columnset_layout(&cs, &layout, capacity, true);
	if (layout.total_bytes + sizeof(uint64) * capacity > GDB_LOAD_BUFFER_BYTES)
	{
		capacity = Max((uint64) GPUDB_MIN_BATCH_ROWS,
					   (uint64) ((double) capacity * GDB_LOAD_BUFFER_BYTES /
								 (double) (layout.total_bytes +
										   sizeof(uint64) * capacity)));
		gdb_columnset_layout(&cs, &layout, capacity, true);
	}
	for (i = 0; i < 2; i++)
	{
		/* the rows' ctids go right after the batch (server_protocol.h) */
		buf[i] = gdb_memfd_alloc(layout.total_bytes + sizeof(uint64) * capacity,
								 &fds[i]);
		memcpy(buf[i], &layout, sizeof(GdbBatch));
		ctids[i] = (uint64 *) ((char *) buf[i] + layout.total_bytes);
		/* every loaded row is visible: that column is written once */
		buf[i]->nrows = capacity;
		gdb_cache_batch_set_visible(buf[i], cs.ncols, 1);
		buf[i]->nrows = 0;
	}
	PushActiveSnapshot(snap);
	reader = gdb_heap_reader_begin(rel, &cs, capacity, GetActiveSnapshot());
	last_notice = GetCurrentTimestamp();
	INSTR_TIME_SET_CURRENT(clock);
	for (;;)
	{
		uint64		n = gdb_heap_reader_next(reader, buf[cur], ctids[cur]);
		GdbCacheRef ref = {cache_id, 0};

		read_ms += gdb_lap_ms(&clock);

		if (in_flight)
		{
			r = gdb_server_receive();
			in_flight = false;
			if (r->status->err.status != GDB_OK)
				raise_reply(r, psprintf("relation \"%s\"", RelationGetRelationName(rel)));
		}
		if (n == 0)
		{
			wait_ms += gdb_lap_ms(&clock);
			break;
		}
		parts[0].data = (const char *) &ref;
		parts[0].len = sizeof(ref);
		gdb_server_send(GDB_MSG_CACHE_APPEND, parts, 1, fds[cur]);
		in_flight = true;
		wait_ms += gdb_lap_ms(&clock);
		rows += n;
		cur = 1 - cur;
		if (TimestampDifferenceExceeds(last_notice, GetCurrentTimestamp(),
									   GDB_PROGRESS_SECS * 1000))
		{
			ereport(NOTICE,
					(errmsg("gpu_cache_load: " UINT64_FORMAT " rows of \"%s\" loaded so far",
							rows, RelationGetRelationName(rel))));
			last_notice = GetCurrentTimestamp();
		}
	}
	gdb_heap_reader_end(reader);
	PopActiveSnapshot();
	UnregisterSnapshot(snap);

	/* the dictionary of the text columns, codes in order */
	{
		StringInfoData dict;
		GdbCacheRef ref = {cache_id, 0};
		int64		n = cs.dict ? gdb_dict_size(cs.dict) : 0;
		int64		c;
		Size		limit = MaxAllocSize;

		if (gdb_fault_dictionary_limit > 0)
		{
			gdb_fault_dictionary_limit--;
			limit = GDB_FAULT_DICTIONARY_BYTES;
		}
		initStringInfo(&dict);
		for (c = 0; c < n; c++)
		{
			text	   *t = DatumGetTextPP(gdb_dict_datum(cs.dict, c));
			uint32		l = VARSIZE_ANY_EXHDR(t);

			/* the dictionary travels in one message, a StringInfo */
			if ((Size) dict.len + sizeof(l) + l >= limit)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("the text columns loaded from \"%s\" hold too many distinct strings for one dictionary message",
								RelationGetRelationName(rel)),
						 errdetail("The message reached its limit of %zu bytes at string " INT64_FORMAT " of " INT64_FORMAT ".",
								   limit, c + 1, n),
						 errhint("Load only the columns the queries read, e.g. gpu_cache_load('%s', '{col1,col2}'::name[]).",
								 RelationGetRelationName(rel))));
			appendBinaryStringInfo(&dict, (char *) &l, sizeof(l));
			appendBinaryStringInfo(&dict, VARDATA_ANY(t), l);
		}
		ref.nstrings = n;
		parts[0].data = (const char *) &ref;
		parts[0].len = sizeof(ref);
		parts[1].data = dict.data;
		parts[1].len = dict.len;
		INSTR_TIME_SET_CURRENT(clock);
		r = gdb_server_call(GDB_MSG_CACHE_FINISH, parts, 2, -1);
		wait_ms += gdb_lap_ms(&clock);
		if (r->status->err.status != GDB_OK)
			raise_reply(r, psprintf("relation \"%s\"", RelationGetRelationName(rel)));
	}

	load_report(rel, &cs, rows, gdb_lap_ms(&start), read_ms, wait_ms);
	/* plans costed without the copy are made again once the load commits */
	CacheInvalidateRelcache(rel);
	relation_close(rel, NoLock);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
	PG_RETURN_INT64((int64) rows);
}

/*
 * gpu_cache_drop(relation regclass) -> boolean: drop the relation's cache
 * entry; true if there was one.  Owner or gpudb_cache_admin member only
 * (42501); 55000 without the server.
 */
PG_FUNCTION_INFO_V1(gpu_cache_drop);
Datum
gpu_cache_drop(PG_FUNCTION_ARGS)
{
	Relation	rel;
	GdbCacheKey key;
	GdbMsgPart	part = {(const char *) &key, sizeof(key)};
	GdbReply   *r;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("relation argument of gpu_cache_drop must not be NULL")));
	require_server("gpu_cache_drop");
	check_cache_admin(PG_GETARG_OID(0), "gpu_cache_drop");
	rel = relation_open(PG_GETARG_OID(0), AccessShareLock);
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary tables of other sessions")));
	key.dbid = MyDatabaseId;
	key.relid = RelationGetRelid(rel);
	relation_close(rel, AccessShareLock);
	r = gdb_server_call(GDB_MSG_CACHE_DROP, &part, 1, -1);
	drop_triggers(key.relid, get_func_namespace(fcinfo->flinfo->fn_oid));
	PG_RETURN_BOOL(r->status->value != 0);
}

/* The relfilenode of relid now, or InvalidOid if the relation is gone. */
static Oid
current_relfilenode(Oid relid, bool *exists)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			node;

	*exists = HeapTupleIsValid(tup);
	if (!*exists)
		return InvalidOid;
	node = ((Form_pg_class) GETSTRUCT(tup))->relfilenode;
	ReleaseSysCache(tup);
	return node;
}

/*
 * gpu_cache_status() -> SETOF (relation, columns, rows, device_bytes,
 * host_bytes, load_ms, state, hits, last_use, loaded_at, shard_devices,
 * shard_rows, shard_bytes): the entries of
 * this database whose tables the caller may read (SELECT on the table or on
 * any of its columns), behind the gpu_cache view.  state: 'loading' (not
 * committed yet), 'ready', or 'stale' (changed since the load: queries read
 * the heap).  shard_*: one element per shard of the rows
 * (gpudb.cache_shards): its CUDA device ordinal (NULL in CPU mode), rows
 * and bytes.  Entries of dropped relations are dropped on the way.  No
 * rows when the server is not running.
 */
PG_FUNCTION_INFO_V1(gpu_cache_status);
Datum
gpu_cache_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	GdbCacheKey key = {MyDatabaseId, 0};
	GdbMsgPart	part = {(const char *) &key, sizeof(key)};
	GdbReply   *r;
	int64		i;

	InitMaterializedSRF(fcinfo, 0);
	if (!gpudb_preloaded || !gdb_server_connect())
		return (Datum) 0;
	r = gdb_server_call(GDB_MSG_CACHE_STATUS, &part, 1, -1);
	for (i = 0; i < r->status->value &&
		 (i + 1) * sizeof(GdbCacheInfo) <= r->rest_len; i++)
	{
		GdbCacheInfo info;
		Datum		values[13];
		bool		nulls[13] = {0};
		Datum		sdev[GDB_INFO_MAX_SHARDS];
		bool		sdev_null[GDB_INFO_MAX_SHARDS];
		Datum		srows[GDB_INFO_MAX_SHARDS];
		Datum		sbytes[GDB_INFO_MAX_SHARDS];
		int			dims[1];
		int			lbs[1] = {1};
		Datum	   *names;
		bool		exists;
		Oid			node;
		const char *state;
		uint32		c;

		memcpy(&info, r->rest + i * sizeof(GdbCacheInfo), sizeof(info));
		node = current_relfilenode(info.key.relid, &exists);
		if (!exists)
		{
			GdbCacheKey gone = info.key;
			GdbMsgPart gpart = {(const char *) &gone, sizeof(gone)};

			(void) gdb_server_call(GDB_MSG_CACHE_DROP, &gpart, 1, -1);
			continue;
		}
		/* only entries of tables the caller may read */
		if (!cache_entry_visible(info.key.relid))
			continue;
		names = palloc(sizeof(Datum) * Max(info.ncols, 1));
		for (c = 0; c < info.ncols; c++)
		{
			char	   *n = get_attname(info.key.relid, info.attnums[c], true);

			names[c] = CStringGetDatum(n ? n : psprintf("#%d", info.attnums[c]));
			names[c] = DirectFunctionCall1(namein, names[c]);
		}
		if (info.state != GDB_CACHE_STATE_READY)
			state = "loading";
		else if (node != info.relfilenode ||
				 info.change_count != gdb_cache_change_count(info.key.relid))
			state = "stale";
		else
			state = "ready";
		values[0] = ObjectIdGetDatum(info.key.relid);
		values[1] = PointerGetDatum(construct_array(names, info.ncols, NAMEOID,
													NAMEDATALEN, false, TYPALIGN_CHAR));
		values[2] = Int64GetDatum((int64) info.rows);
		values[3] = Int64GetDatum((int64) info.device_bytes);
		values[4] = Int64GetDatum((int64) info.host_bytes);
		values[5] = Float8GetDatum(info.load_ms);
		values[6] = CStringGetTextDatum(state);
		values[7] = Int64GetDatum(info.hits);
		values[8] = TimestampTzGetDatum(info.last_use);
		nulls[8] = info.last_use == 0;
		values[9] = TimestampTzGetDatum(info.loaded_at);
		nulls[9] = info.loaded_at == 0;
		dims[0] = (int) Min(info.nshards, GDB_INFO_MAX_SHARDS);
		for (c = 0; c < (uint32) dims[0]; c++)
		{
			sdev[c] = Int32GetDatum(info.shard_device[c]);
			sdev_null[c] = info.shard_device[c] < 0;
			srows[c] = Int64GetDatum((int64) info.shard_rows[c]);
			sbytes[c] = Int64GetDatum((int64) info.shard_bytes[c]);
		}
		values[10] = PointerGetDatum(construct_md_array(sdev, sdev_null, 1, dims, lbs,
														INT4OID, 4, true, TYPALIGN_INT));
		values[11] = PointerGetDatum(construct_md_array(srows, NULL, 1, dims, lbs,
														INT8OID, 8, FLOAT8PASSBYVAL,
														TYPALIGN_DOUBLE));
		values[12] = PointerGetDatum(construct_md_array(sbytes, NULL, 1, dims, lbs,
														INT8OID, 8, FLOAT8PASSBYVAL,
														TYPALIGN_DOUBLE));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* see server_client.h */
void
gdb_cache_membership_changed(void)
{
	if (cache_generation)
		pg_atomic_fetch_add_u64(cache_generation, 1);
}

/*
 * Refresh status_memo from the server unless it is of this database and
 * the current cache generation.  False when the server cannot be asked
 * (then the memo is left as it was); raises what gdb_server_try_call
 * raises (an interrupt).
 */
static bool
refresh_status_memo(void)
{
	GdbCacheKey key = {MyDatabaseId, 0};
	GdbMsgPart	part = {(const char *) &key, sizeof(key)};
	uint64		gen = cache_generation ? pg_atomic_read_u64(cache_generation) : 0;
	GdbReply   *r;
	int64		n;

	if (status_memo && gen != 0 && gen == status_memo_gen &&
		status_memo_db == MyDatabaseId)
		return true;
	/*
	 * The generation is read first: a change during the call makes it
	 * stale.  Asked on the capture channel, which the server answers at
	 * once (from the list it publishes before every reply), whatever
	 * request it is running: planning never waits on device work.
	 */
	r = gdb_capture_call(GDB_MSG_CACHE_STATUS, &part, 1, -1);
	if (r == NULL)
		return false;
	n = Max(r->status->value, 0);
	n = Min(n, (int64) (r->rest_len / sizeof(GdbCacheInfo)));
	if (status_memo)
		pfree(status_memo);
	status_memo = MemoryContextAlloc(TopMemoryContext,
									 Max(n, 1) * sizeof(GdbCacheInfo));
	if (n > 0)
		memcpy(status_memo, r->rest, n * sizeof(GdbCacheInfo));
	status_memo_n = n;
	status_memo_gen = gen;
	status_memo_db = MyDatabaseId;
	return true;
}

/* see groupby.h */
int
gdb_cache_capture_entry(Relation rel, GdbCacheInfo *info)
{
	int64		i;

	if (!gpudb_preloaded)
		return 0;
	if (!refresh_status_memo())
		return -1;
	for (i = 0; i < status_memo_n; i++)
	{
		const GdbCacheInfo *e = &status_memo[i];

		if (e->key.relid == RelationGetRelid(rel) &&
			e->relfilenode == gdb_rel_filenumber(rel) &&
			e->state != GDB_CACHE_STATE_LOADING)
		{
			*info = *e;
			return 1;
		}
	}
	return 0;
}

/* see groupby.h */
bool
gdb_cache_plan_covers(Oid relid, const Bitmapset *attnums)
{
	int64		i;

	if (!gpudb_use_cache || !gpudb_enabled || !gpudb_preloaded ||
		IsolationIsSerializable() || !gdb_server_connect())
		return false;
	/* the server went away: plan as uncached; the executor reads the heap */
	if (!refresh_status_memo())
		return false;
	for (i = 0; i < status_memo_n; i++)
	{
		const GdbCacheInfo *info = &status_memo[i];
		bool		exists;
		Bitmapset  *have = NULL;
		uint32		c;

		if (info->key.relid != relid || info->state != GDB_CACHE_STATE_READY ||
			current_relfilenode(relid, &exists) != info->relfilenode ||
			!exists || info->change_count != gdb_cache_change_count(relid))
			continue;
		for (c = 0; c < info->ncols; c++)
			have = bms_add_member(have, info->attnums[c]);
		if (bms_is_subset(attnums, have))
			return true;
	}
	return false;
}
