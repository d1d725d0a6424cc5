/*-------------------------------------------------------------------------
 *
 * server_batches.c
 *	  The GPU server's mappings of the backends' shared batch buffers: kept
 *	  from one request to the next and page-locked for the device.
 *
 * A backend hands each batch to the server as a memfd (server_client.c:
 * gdb_memfd_alloc) and reuses the same two buffers for every batch of a
 * query, a cache load or a parallel-feed participant.  Mapping the buffer
 * anew for every request and copying it to the device as pageable memory
 * ran at 6.6 GB/s on an H200; page-locking (cudaHostRegister) the mapping
 * costs 2.4 ms for 72 MB and the copy then runs at 55 GB/s
 * (test/bench/host_copy.cu), so the server registers a buffer the first
 * time it sees it and keeps the mapping for the next request.
 *
 * A buffer is known by its file (device and inode numbers, and size) and
 * by the backend's socket: the mapping keeps the file alive, so its
 * inode is not reused while the server holds it.  The server keeps at most
 * GDB_BATCH_MAPS_PER_CLIENT mappings per backend and GDB_BATCH_MAPS_BYTES
 * in all, dropping the least recently used.  When a backend's socket
 * closes its mappings are orphaned, not freed there: unlocking and
 * unmapping them (cudaHostUnregister, munmap) takes milliseconds a buffer,
 * and the 17 processes of a parallel heap read close their sockets just as
 * the leader sends its final combine, which would wait behind them.  The
 * server's loop frees the orphans one at a time once it has been idle for
 * GDB_ORPHAN_IDLE_MS (srv_free_orphan_batch), longer than a participant
 * takes to fill a batch, so that the frees do not fall between the
 * requests of a query that follows at once (on the H200, B2 runs that
 * followed another gpudb run took 261-265 ms against 241-251 ms after
 * PostgreSQL's); make_room takes orphans first when it needs room.
 * Requests run one at a time, so only the mapping of the request being
 * served is in use, and it is never the one dropped.  In CPU mode the
 * mappings are kept but not registered.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include "utils/memutils.h"

#include "gpu_server.h"

/* Mappings kept per backend: two buffers, and a second pair of a query. */
#define GDB_BATCH_MAPS_PER_CLIENT	4
/* Bytes of mappings kept in all (page-locked host memory in GPU mode). */
#define GDB_BATCH_MAPS_BYTES	((uint64) 8 << 30)

/* BatchMap.client of a mapping whose backend's socket has closed */
#define ORPHAN_CLIENT	(-1)

typedef struct BatchMap
{
	int			client;			/* the backend's socket, or ORPHAN_CLIENT */
	dev_t		dev;
	ino_t		ino;
	size_t		len;			/* bytes mapped: the file's size */
	GdbBatch   *batch;			/* the mapping */
	bool		registered;		/* page-locked for the device */
	bool		in_use;			/* by the request being served */
	uint64		last_use;		/* request counter, for LRU */
	struct BatchMap *next;
} BatchMap;

static BatchMap *maps = NULL;
static uint64 map_clock = 0;

static void
map_free(BatchMap *m)
{
	if (m->registered)
		gdb_cuda_host_unregister(srv_exec, m->batch);
	munmap(m->batch, m->len);
	pfree(m);
}

/*
 * Drop the least recently used mappings not in use until client has fewer
 * than GDB_BATCH_MAPS_PER_CLIENT and all of them plus need bytes fit in
 * GDB_BATCH_MAPS_BYTES (or nothing is left to drop).
 */
static void
make_room(int client, size_t need)
{
	for (;;)
	{
		BatchMap  **link,
				  **victim = NULL;
		uint64		total = need;
		int			mine = 0;

		for (link = &maps; *link; link = &(*link)->next)
		{
			BatchMap   *m = *link;

			total += m->len;
			if (m->client == client)
				mine++;
		}
		if (mine < GDB_BATCH_MAPS_PER_CLIENT && total <= GDB_BATCH_MAPS_BYTES)
			return;
		for (link = &maps; *link; link = &(*link)->next)
		{
			BatchMap   *m = *link;

			if (m->in_use)
				continue;
			/* over the client's count: only its own mappings go */
			if (mine >= GDB_BATCH_MAPS_PER_CLIENT && m->client != client)
				continue;
			/* orphans first, then the least recently used */
			if (victim == NULL ||
				(m->client == ORPHAN_CLIENT) > ((*victim)->client == ORPHAN_CLIENT) ||
				((m->client == ORPHAN_CLIENT) == ((*victim)->client == ORPHAN_CLIENT) &&
				 m->last_use < (*victim)->last_use))
				victim = link;
		}
		if (victim == NULL)
			return;
		{
			BatchMap   *m = *victim;

			*victim = m->next;
			map_free(m);
		}
	}
}

/* see gpu_server.h */
GdbBatch *
srv_map_batch(int client, int fd)
{
	struct stat st;
	BatchMap   *m;
	GdbBatch   *b;

	if (fd < 0 || fstat(fd, &st) < 0 || (size_t) st.st_size < sizeof(GdbBatch))
		return NULL;
	for (m = maps; m; m = m->next)
		if (m->client == client && m->dev == st.st_dev && m->ino == st.st_ino &&
			m->len == (size_t) st.st_size && !m->in_use)
			break;
	if (m == NULL)
	{
		make_room(client, st.st_size);
		/* read-write: cudaHostRegister page-locks writable mappings */
		b = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_POPULATE, fd, 0);
		if (b == MAP_FAILED)
			return NULL;
		m = MemoryContextAllocZero(TopMemoryContext, sizeof(BatchMap));
		m->client = client;
		m->dev = st.st_dev;
		m->ino = st.st_ino;
		m->len = st.st_size;
		m->batch = b;
		m->registered = srv_use_gpu &&
			gdb_cuda_host_register(srv_exec, b, m->len) != 0;
		m->next = maps;
		maps = m;
	}
	b = m->batch;
	/* the header is the backend's to write: check it on every request */
	if (b->magic != GDB_BATCH_MAGIC || b->total_bytes > (uint64) m->len ||
		b->ncols > GDB_MAX_COLUMNS || b->nrows > b->capacity)
		return NULL;
	m->in_use = true;
	m->last_use = ++map_clock;
	return b;
}

/* see gpu_server.h */
void
srv_unmap_batch(GdbBatch *batch)
{
	BatchMap   *m;

	for (m = maps; m; m = m->next)
		if (m->batch == batch)
		{
			m->in_use = false;
			return;
		}
}

/* see gpu_server.h */
void
srv_forget_batches(int client)
{
	BatchMap   *m;

	for (m = maps; m; m = m->next)
		if (m->client == client)
			m->client = ORPHAN_CLIENT;
}

/* see gpu_server.h */
bool
srv_free_orphan_batch(void)
{
	BatchMap  **link = &maps;
	bool		freed = false;
	bool		left = false;

	while (*link)
	{
		BatchMap   *m = *link;

		if (m->client == ORPHAN_CLIENT && !m->in_use && !freed)
		{
			*link = m->next;
			map_free(m);
			freed = true;
			continue;
		}
		left |= (m->client == ORPHAN_CLIENT);
		link = &m->next;
	}
	return left;
}
