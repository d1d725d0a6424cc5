/* sql/gpudb--0.1.0.sql — gpudb install script */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION gpudb" to load this file. \quit

/*
 * gpu_groupby(relation, group_by, aggregates, filter) -> SETOF record
 *
 * Grouped aggregation of one table, on the GPU when one is usable, else on
 * the CPU path; results are PostgreSQL's own (see README "SQL API").
 *   relation    the table (a plain table or materialized view)
 *   group_by    comma-separated column names, up to 8; '' for one group
 *   aggregates  comma-separated count(*), count(c), sum(c), avg(c), min(c),
 *               max(c), up to 64
 *   filter      one boolean expression over the table's columns, or NULL
 * The column definition list must give the group keys' types then each
 * aggregate's SQL result type.  NULL relation, group_by or aggregates is an
 * error (22004).  Reads under the caller's snapshot; needs SELECT on the
 * table or on every column used; refuses tables with row-level security.
 */
CREATE FUNCTION gpu_groupby(relation regclass, group_by text, aggregates text,
                            filter text DEFAULT NULL)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_groupby'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

/*
 * gpu_select(relation, columns, filter) -> SETOF record
 *
 * Selection and projection of one table: the rows for which filter is
 * TRUE (every row for NULL), projected to columns (comma-separated names;
 * the column definition list gives their types).  Row order unspecified.
 * Same filter language, privilege rules and errors as gpu_groupby; shares
 * its code with the GpudbScan plan node.
 */
CREATE FUNCTION gpu_select(relation regclass, columns text,
                           filter text DEFAULT NULL)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_select'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

/*
 * gpu_sort(relation, columns, order_by, lim, filter) -> SETOF record
 *
 * SELECT columns FROM relation WHERE filter ORDER BY order_by LIMIT lim:
 * order_by as in SQL ('v DESC NULLS LAST, id'; column names only, no text
 * keys), lim NULL for all rows (a device top-k otherwise).  Shares its code
 * with the GpudbSort plan node.
 */
CREATE FUNCTION gpu_sort(relation regclass, columns text, order_by text,
                         lim bigint DEFAULT NULL, filter text DEFAULT NULL)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_sort'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

/*
 * gpu_devices() -> one row per CUDA device, or one row with ordinal NULL
 * saying why there is none.  memory_* in bytes.  active_path is the path
 * gpu_groupby would take now on that device ('gpu' for each device of
 * gpudb.devices the GPU server uses, or 'cpu'); reason explains a CPU
 * path.  The devices are the GPU server's (the backend initialises no
 * CUDA).
 */
CREATE FUNCTION gpu_devices(
    OUT ordinal int, OUT name text, OUT compute_capability text,
    OUT memory_total bigint, OUT memory_free bigint,
    OUT driver_version text, OUT runtime_version text,
    OUT multiprocessors int, OUT active_path text, OUT reason text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_devices'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

/*
 * gpu_active_path() -> 'gpu' or 'cpu': the path gpu_groupby takes now under
 * gpudb.enabled and gpudb.device.  Raises 55000 when gpudb.device = gpu and
 * no GPU is usable.
 */
CREATE FUNCTION gpu_active_path()
RETURNS text
AS 'MODULE_PATHNAME', 'gpu_active_path'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

/*
 * gpu_last_execution() -> statistics of this session's last gpu_groupby:
 * path ('gpu'/'cpu'), device name, rows read, rows passing the filter,
 * groups, batches, bytes copied host->device and back, device time (ms,
 * CUDA events; 0 on the CPU path), total time of the call (ms), and
 * where the rows came from ('cache' or 'heap').  No row before the first
 * call.
 */
CREATE FUNCTION gpu_last_execution(
    OUT path text, OUT device text, OUT rows_in bigint,
    OUT rows_selected bigint, OUT groups bigint, OUT batches int,
    OUT bytes_to_device bigint, OUT bytes_from_device bigint,
    OUT device_ms float8, OUT total_ms float8, OUT source text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_last_execution'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;


/*
 * The column cache (needs shared_preload_libraries = 'gpudb').
 *
 * gpudb_cache_admin: members may load and drop the cache of any table
 * (owners may always); a load also needs SELECT on the columns it loads and
 * ownership of the table or TRIGGER on it (it installs triggers).  A role is cluster-wide: it is created once and kept
 * when the extension is dropped.
 */
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gpudb_cache_admin') THEN
        CREATE ROLE gpudb_cache_admin NOLOGIN;
    END IF;
END $$;

/*
 * gpu_cache_load(relation, columns) -> bigint: load the columns (NULL: all
 * of supported types) of a table into the GPU server's cache; returns the
 * rows loaded.  Locks the table SHARE ROW EXCLUSIVE to the end of the
 * transaction; usable once the transaction commits.  See cache.c.
 */
CREATE FUNCTION gpu_cache_load(relation regclass, columns name[] DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'gpu_cache_load'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;

/* gpu_cache_drop(relation) -> boolean: true if a cache entry was dropped. */
CREATE FUNCTION gpu_cache_drop(relation regclass)
RETURNS boolean
AS 'MODULE_PATHNAME', 'gpu_cache_drop'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;

/*
 * gpu_cache_status() -> the cache entries of this database whose tables
 * the caller may read (SELECT on the table or on any column): relation,
 * cached columns, rows, bytes on the device and in host memory, load time
 * (ms), state ('loading', 'ready', 'stale'), hits, last use, load time
 * stamp, and per shard of the rows (gpudb.cache_shards; one element each,
 * in row order) its CUDA device ordinal (NULL in CPU mode), rows and
 * bytes.  No rows without the GPU server.
 */
CREATE FUNCTION gpu_cache_status(
    OUT relation regclass, OUT columns name[], OUT rows bigint,
    OUT device_bytes bigint, OUT host_bytes bigint, OUT load_ms float8,
    OUT state text, OUT hits bigint, OUT last_use timestamptz,
    OUT loaded_at timestamptz, OUT shard_devices int[], OUT shard_rows bigint[],
    OUT shard_bytes bigint[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_cache_status'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;

CREATE VIEW gpu_cache AS SELECT * FROM gpu_cache_status();
GRANT SELECT ON gpu_cache TO PUBLIC;

/*
 * gpudb_cache_invalidate() RETURNS trigger: the statement-level trigger that
 * gpu_cache_load installs (internally, fired ALWAYS) on a cached table; it
 * bumps the table's change counter so the cached copy stops answering.
 */
CREATE FUNCTION gpudb_cache_invalidate()
RETURNS trigger
AS 'MODULE_PATHNAME', 'gpudb_cache_invalidate'
LANGUAGE C VOLATILE;

/*
 * Testing aids (README "Fault injection (testing aid)").
 *
 * gpu_debug_fault(point, count, delay_ms) -> void: superusers only.  Makes
 * the next count requests fail on purpose:
 *   'device_alloc'  device allocations in the GPU server (a cache store's
 *                   create or append, a query's scratch) fail as out of
 *                   memory (53200); in CPU mode the same allocations of
 *                   the server's host store
 *   'host_alloc'    this backend's shared batch buffers (53200)
 *   'dictionary_limit'  this backend's cache loads send at most 64 bytes
 *                   of text dictionary (the 1 GB limit's 54000), and its
 *                   cached join queries at most 64 bytes of strings (a
 *                   join past the 512 MB limit reads the heap)
 *   'kernel'        a kernel fault on the device (simulated in CPU mode):
 *                   the request fails (58000), then the server process
 *                   restarts and the cache is lost
 *   'copy'          a copy error (58000), without restart
 *   'slow'          the request waits delay_ms in the server first
 *   'none'          disarm every point
 * Server points hit whichever session's request comes next.
 */
CREATE FUNCTION gpu_debug_fault(point text, count int DEFAULT 1, delay_ms int DEFAULT 0)
RETURNS void
AS 'MODULE_PATHNAME', 'gpu_debug_fault'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
REVOKE EXECUTE ON FUNCTION gpu_debug_fault(text, int, int) FROM PUBLIC;

/*
 * gpu_server_status() -> one row asked from the GPU server: mode ('gpu',
 * 'cpu'; 'none' without a server, the rest NULL), device name (NULL in CPU
 * mode), bytes held by the cache and by the device scratch of queries,
 * requests served by the current server process, server processes
 * started since PostgreSQL started (a restart after a fault adds one), and
 * bytes of GpudbJoin build sides the server keeps for running queries.
 */
CREATE FUNCTION gpu_server_status(
    OUT mode text, OUT device text, OUT cache_bytes bigint,
    OUT scratch_bytes bigint, OUT requests bigint, OUT process_starts int,
    OUT kept_bytes bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_server_status'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;
