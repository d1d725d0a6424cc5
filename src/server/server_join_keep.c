/*-------------------------------------------------------------------------
 *
 * server_join_keep.c
 *	  Build sides the GPU server keeps for a query: the result of a
 *	  GpudbJoin's build-side SELECT answered from the column cache stays in
 *	  the server, under an id the backend chose (GdbCacheQuery.keep_id),
 *	  instead of travelling to the backend and back with the probe request
 *	  (and again with every heap batch of the probe).  A later request of
 *	  the query names it in GdbJoinSpec.build_keep; srv_bind_kept points
 *	  the request's build_sides[] at it before any path runs.  Runs in the
 *	  GPU server process only.
 *
 * On a GPU, a build side stays in device memory where the
 * device produced it (gdb_cuda_keep_result, kept_result.cu): the server
 * holds its header, and the probe's hash table is built from it in place
 * (GdbRequest.build_sides_dev), so that its rows never cross PCIe.
 *
 * A kept build side whose columns hold text codes holds codes of one
 * cache entry's dictionary (the probe relation's, server_cache_query.c
 * re-encodes them when it keeps the batch): it binds only to a request
 * over that entry.  A kept build side lives until its backend releases
 * it (GDB_MSG_JOIN_RELEASE, after the query's probe) or disconnects; at
 * most half of gpudb.cache_size (GPUDB_JOIN_KEPT_BYTES at most) is kept at
 * once over all backends, past which the backend gets the rows as before.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "gpudb.h"
#include "gpudb_defaults.h"
#include "gpu_server.h"

typedef struct KeptBuild
{
	uint64		id;
	int			owner;			/* the backend's socket */
	int64		coded_for;		/* text codes of this cache entry; 0: no text */
	GdbBatch   *batch;			/* in TopMemoryContext, huge; with dev, its
								 * header alone */
	GdbDeviceBuffer *dev;		/* the batch in device memory, or NULL */
	struct KeptBuild *next;
} KeptBuild;

static KeptBuild *kept;
static uint64 kept_bytes;

static KeptBuild *
find_kept(uint64 id)
{
	KeptBuild  *k;

	for (k = kept; k; k = k->next)
		if (k->id == id)
			return k;
	return NULL;
}

/*
 * The most bytes kept at once: half of gpudb.cache_size (host or device
 * memory of the server, outside the cache's budget), GPUDB_JOIN_KEPT_BYTES
 * at most.
 */
static uint64
kept_limit(void)
{
	return Min((uint64) gpudb_cache_size_kb * 1024 / 2, GPUDB_JOIN_KEPT_BYTES);
}

/* see gpu_server.h */
bool
srv_keep_possible(uint64 id, uint64 bytes)
{
	return id != 0 && find_kept(id) == NULL && kept_bytes + bytes <= kept_limit();
}

/* see gpu_server.h */
bool
srv_keep_build(int s, uint64 id, const GdbBatch *result, int64 coded_for,
			   GdbDeviceBuffer *dev)
{
	KeptBuild  *k;
	GdbBatch   *copy;
	size_t		bytes = dev != NULL ? sizeof(GdbBatch) : result->total_bytes;

	if (!srv_keep_possible(id, result->total_bytes))
		return false;
	copy = MemoryContextAllocExtended(TopMemoryContext, Max(bytes, 1),
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	k = MemoryContextAllocExtended(TopMemoryContext, sizeof(KeptBuild),
								   MCXT_ALLOC_NO_OOM);
	if (copy == NULL || k == NULL)
	{
		if (copy)
			pfree(copy);
		if (k)
			pfree(k);
		return false;
	}
	memcpy(copy, result, bytes);
	k->id = id;
	k->owner = s;
	k->coded_for = coded_for;
	k->batch = copy;
	k->dev = dev;
	k->next = kept;
	kept = k;
	kept_bytes += copy->total_bytes;
	return true;
}

/* see gpu_server.h */
int
srv_bind_kept(GdbRequest *req, int64 entry_id, char *why, size_t whylen)
{
	uint32		j;

	memset(req->build_sides, 0, sizeof(req->build_sides));
	memset(req->build_sides_dev, 0, sizeof(req->build_sides_dev));
	for (j = 0; j < req->njoins && j < GDB_MAX_JOINS; j++)
	{
		GdbJoinSpec *spec = &req->joins[j];
		KeptBuild  *k;

		if (spec->build_keep == 0)
			continue;
		k = find_kept(spec->build_keep);
		if (k == NULL)
		{
			snprintf(why, whylen, "join %u's kept build side %llu is gone", j,
					 (unsigned long long) spec->build_keep);
			return -1;
		}
		if (k->coded_for != 0 && k->coded_for != entry_id)
			return 1;
		if (k->dev != NULL)
		{
			/* on the device: a request the device path runs reads it there */
			req->build_sides_dev[j] = gdb_cuda_buffer_address(k->dev);
			if (!srv_use_gpu || req->build_sides_dev[j] == NULL)
			{
				snprintf(why, whylen, "join %u's build side %llu, kept on the device, was lost in a device reset",
						 j, (unsigned long long) spec->build_keep);
				return -1;
			}
		}
		req->build_sides[j] = k->batch;
		spec->build_bytes = k->batch->total_bytes;
		spec->build_off = 0;
		spec->build_keep = 0;
	}
	return 0;
}

static void
free_kept(KeptBuild **link)
{
	KeptBuild  *k = *link;

	*link = k->next;
	kept_bytes -= k->batch->total_bytes;
	gdb_cuda_buffer_free(k->dev);
	pfree(k->batch);
	pfree(k);
}

/* see gpu_server.h */
void
srv_handle_join_release(int s, char *payload, size_t len)
{
	GdbStatusReply st;
	const uint64 *ids = (const uint64 *) payload;
	size_t		n = len / sizeof(uint64);
	size_t		i;

	memset(&st, 0, sizeof(st));
	for (i = 0; i < n; i++)
	{
		KeptBuild **link;

		for (link = &kept; *link; link = &(*link)->next)
			if ((*link)->id == ids[i] && (*link)->owner == s)
			{
				free_kept(link);
				st.value++;
				break;
			}
	}
	srv_reply(s, &st, NULL, 0, NULL, 0);
}

/* see gpu_server.h */
void
srv_kept_client_gone(int s)
{
	KeptBuild **link = &kept;

	while (*link)
	{
		if ((*link)->owner == s)
			free_kept(link);
		else
			link = &(*link)->next;
	}
}

/* see gpu_server.h */
uint64
srv_kept_bytes(void)
{
	return kept_bytes;
}
