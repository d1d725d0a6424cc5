#!/bin/bash
# demo_flights.sh — gpu_groupby on 3 million real flights, next to plain SQL.
#
# usage: bash test/demo_flights.sh
#
# 1. installs the packages (test/setup_debian.sh --with-node), builds and
#    installs gpudb;
# 2. fetches the npm packages vega-datasets (data/flights-3m.parquet),
#    hyparquet and hyparquet-compressors into ~/.cache/gpudb/npm, outside the
#    repository (skipped when they are there);
# 3. in a throwaway cluster (shared_preload_libraries = gpudb; UTF8, C.UTF-8;
#    pg_virtualenv for Debian's PostgreSQL, initdb/pg_ctl for another:
#    gdb_with_cluster in test/pg_lib.sh)
#    loads the file into a table "flights" with COPY (test/load_flights.mjs
#    decodes the parquet and streams CSV), runs the same grouped aggregates
#    with gpu_groupby and with plain SQL, shows which path ran
#    (gpu_last_execution, gpu_devices), and checks that both answers are the
#    same multiset of rows (EXCEPT ALL, both ways).
#
# Environment:
#   GPUDB_DEMO_DEVICE   gpudb.device of the cluster (auto, gpu, cpu; default: auto)
#   GPUDB_CACHE         cache directory (default ~/.cache/gpudb)
#   GPUDB_SKIP_SETUP=1  skip setup_debian.sh
#   GPUDB_SKIP_BUILD=1  skip make / make install
#   PG_CONFIG           the PostgreSQL to use (default Debian's 15,
#                       /usr/lib/postgresql/15/bin/pg_config; a source build
#                       of test/build_postgres.sh works too)
# Exits non-zero when a step fails or the answers differ.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
GDB_ROOT="$ROOT"
# shellcheck source=test/pg_lib.sh
source "$ROOT/test/pg_lib.sh"
# (PATH, HOME and the locale, whatever the caller's environment)
gdb_sane_env
export PG_CONFIG="${PG_CONFIG:-$(gdb_debian_pg_config "$GDB_DEBIAN_PGMAJOR")}"
export GPUDB_CACHE="${GPUDB_CACHE:-$HOME/.cache/gpudb}"
export GPUDB_NPM_PREFIX="$GPUDB_CACHE/npm"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
section() { printf '\n==== %s ====\n' "$1"; }

# ---------------------------------------------------------------------------
# Inside the throwaway cluster (pg_virtualenv runs this script with --inside).
# ---------------------------------------------------------------------------
if [ "${1:-}" = "--inside" ]; then
    export PGDATABASE=gpudb_demo
    createdb gpudb_demo
    PSQL=(psql -X -v ON_ERROR_STOP=1 -q)

    section "load flights-3m.parquet"
    "${PSQL[@]}" <<'SQL'
CREATE EXTENSION gpudb;
-- Column types follow the parquet schema (node test/load_flights.mjs --schema):
-- date is TIMESTAMP(MICROS) without time zone; delay (-1116..1688) and
-- distance (21..4962) are INT64 in the file and fit integer.
CREATE TABLE flights (
    date        timestamp,
    delay       integer,
    distance    integer,
    origin      text,
    destination text
);
SQL
    t0=$(now)
    node test/load_flights.mjs | "${PSQL[@]}" -c "COPY flights FROM STDIN (FORMAT csv)"
    echo "loaded $(psql -X -Atc 'SELECT count(*) FROM flights') rows in $(since "$t0")"
    "${PSQL[@]}" -c "VACUUM ANALYZE flights"
    psql -X -c "SELECT pg_size_pretty(pg_table_size('flights')) AS table_size,
                       count(DISTINCT origin) AS origins, min(date) AS first_flight, max(date) AS last_flight
                  FROM flights"

    # One session for everything below: gpu_last_execution() is per session.
    section "queries"
    "${PSQL[@]}" <<'SQL'
\pset pager off
\echo
\echo '---- where gpudb runs ----'
SELECT current_setting('gpudb.device') AS "gpudb.device",
       current_setting('gpudb.enabled') AS "gpudb.enabled",
       current_setting('gpudb.batch_rows') AS "gpudb.batch_rows",
       gpu_active_path();
SELECT ordinal, name, compute_capability, active_path, reason FROM gpu_devices();

\echo
\echo '---- 1. gpu_groupby: busiest origins of flights over 1000 miles ----'
\timing on
SELECT * FROM gpu_groupby('flights', 'origin', 'count(*), avg(delay), max(distance)', 'distance > 1000')
         AS t(origin text, n bigint, avg_delay numeric, max_distance integer)
 ORDER BY n DESC, origin LIMIT 10;
\timing off
SELECT path, device, rows_in, rows_selected, groups, batches,
       bytes_to_device, bytes_from_device,
       round(device_ms::numeric, 1) AS device_ms, round(total_ms::numeric, 1) AS total_ms
  FROM gpu_last_execution();

\echo '---- 1. the same with plain SQL ----'
\timing on
SELECT origin, count(*) AS n, avg(delay) AS avg_delay, max(distance) AS max_distance
  FROM flights WHERE distance > 1000 GROUP BY origin
 ORDER BY n DESC, origin LIMIT 10;
\timing off

\echo
\echo '---- 2. gpu_groupby: two keys, text IN list, timestamps ----'
\timing on
SELECT * FROM gpu_groupby('flights', 'origin, destination',
                          'count(*), sum(delay), min(date), max(date), avg(distance)',
                          'delay > 60 AND origin IN (''SFO'', ''LAX'', ''SEA'')')
         AS t(origin text, destination text, n bigint, total_delay bigint,
              first_flight timestamp, last_flight timestamp, avg_distance numeric)
 ORDER BY n DESC, origin, destination LIMIT 10;
\timing off
SELECT path, device, rows_in, rows_selected, groups, batches,
       round(device_ms::numeric, 1) AS device_ms, round(total_ms::numeric, 1) AS total_ms
  FROM gpu_last_execution();

\echo
\echo '---- 3. the column cache: load flights into the GPU server, ask again ----'
\timing on
SELECT gpu_cache_load('flights') AS rows_cached;
\timing off
SELECT relation, columns, rows, device_bytes, host_bytes, state FROM gpu_cache;
\timing on
SELECT * FROM gpu_groupby('flights', 'origin', 'count(*), avg(delay), max(distance)',
                          'distance > 1000')
         AS t(origin text, n bigint, avg_delay numeric, max_distance integer)
 ORDER BY n DESC, origin LIMIT 5;
\timing off
SELECT path, source, rows_in, groups, round(device_ms::numeric, 2) AS device_ms,
       round(total_ms::numeric, 1) AS total_ms
  FROM gpu_last_execution();

\echo
\echo '---- differential check: gpu_groupby EXCEPT ALL plain SQL, both ways (all groups) ----'
CREATE TEMP TABLE diff AS
WITH g1 AS MATERIALIZED (
    SELECT * FROM gpu_groupby('flights', 'origin', 'count(*), avg(delay), max(distance)', 'distance > 1000')
             AS t(origin text, n bigint, avg_delay numeric, max_distance integer)),
s1 AS (
    SELECT origin, count(*), avg(delay), max(distance)
      FROM flights WHERE distance > 1000 GROUP BY origin),
g2 AS MATERIALIZED (
    SELECT * FROM gpu_groupby('flights', 'origin, destination',
                              'count(*), sum(delay), min(date), max(date), avg(distance)',
                              'delay > 60 AND origin IN (''SFO'', ''LAX'', ''SEA'')')
             AS t(origin text, destination text, n bigint, total_delay bigint,
                  first_flight timestamp, last_flight timestamp, avg_distance numeric)),
s2 AS (
    SELECT origin, destination, count(*), sum(delay), min(date), max(date), avg(distance)
      FROM flights WHERE delay > 60 AND origin IN ('SFO', 'LAX', 'SEA')
     GROUP BY origin, destination)
SELECT 1 AS query, (SELECT count(*) FROM g1) AS groups,
       (SELECT count(*) FROM (SELECT * FROM g1 EXCEPT ALL SELECT * FROM s1) x) AS only_in_gpu_groupby,
       (SELECT count(*) FROM (SELECT * FROM s1 EXCEPT ALL SELECT * FROM g1) x) AS only_in_sql
UNION ALL
SELECT 2, (SELECT count(*) FROM g2),
       (SELECT count(*) FROM (SELECT * FROM g2 EXCEPT ALL SELECT * FROM s2) x),
       (SELECT count(*) FROM (SELECT * FROM s2 EXCEPT ALL SELECT * FROM g2) x);
SELECT * FROM diff ORDER BY query;
SELECT CASE WHEN count(*) = 2 AND sum(only_in_gpu_groupby + only_in_sql) = 0 AND min(groups) > 0
            THEN 'differential check: PASS (gpu_groupby and SQL agree on every group)'
            ELSE 'differential check: FAIL' END AS verdict
  FROM diff \gset
\echo :verdict
SELECT :'verdict' LIKE '%PASS%' AS ok \gset
\if :ok
\else
DO $$ BEGIN RAISE EXCEPTION 'gpu_groupby and plain SQL disagree (see the table above)'; END $$;
\endif
SQL
    exit 0
fi

# ---------------------------------------------------------------------------
# Outside: setup, build, npm cache, then the cluster.
# ---------------------------------------------------------------------------
start=$(now)
section "setup"
# (PG_CONFIG's version; on a fresh machine Debian's path names it before
# the package is installed)
if ! PGMAJOR="$(gdb_pg_major "$PG_CONFIG")"; then
    [[ "$PG_CONFIG" =~ ^/usr/lib/postgresql/([0-9]+)/bin/pg_config$ ]] ||
        { echo "demo_flights: cannot run $PG_CONFIG --version" >&2; exit 2; }
    PGMAJOR="${BASH_REMATCH[1]}"
fi
if [ "${GPUDB_SKIP_SETUP:-0}" = 1 ]; then echo "skipped"; else bash test/setup_debian.sh --with-node --pg "$PGMAJOR"; fi

section "build"
if [ "${GPUDB_SKIP_BUILD:-0}" = 1 ]; then
    echo "skipped"
else
    SUDO=(); [ "$(id -u)" = 0 ] || SUDO=(sudo -n)
    make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG"
    "${SUDO[@]}" make -s install PG_CONFIG="$PG_CONFIG"
    echo "built and installed into $("$PG_CONFIG" --pkglibdir)"
fi

section "npm packages in $GPUDB_NPM_PREFIX"
pkgs=(vega-datasets hyparquet hyparquet-compressors)
need=0
for p in "${pkgs[@]}"; do [ -f "$GPUDB_NPM_PREFIX/node_modules/$p/package.json" ] || need=1; done
data="$GPUDB_NPM_PREFIX/node_modules/vega-datasets/data/flights-3m.parquet"
[ -f "$data" ] || need=1
if [ "$need" = 1 ]; then
    mkdir -p "$GPUDB_NPM_PREFIX"
    # major versions the loader was written against (vega-datasets 3 ships
    # data/flights-3m.parquet; hyparquet 1's parquetRead/parsers API)
    npm install --prefix "$GPUDB_NPM_PREFIX" --no-audit --no-fund --loglevel=error \
        'vega-datasets@^3' 'hyparquet@^1' 'hyparquet-compressors@^1'
else
    echo "present (delete $GPUDB_NPM_PREFIX to fetch them again)"
fi
for p in "${pkgs[@]}"; do
    printf '  %-22s %s\n' "$p" "$(node -p "require('$GPUDB_NPM_PREFIX/node_modules/$p/package.json').version")"
done
node test/load_flights.mjs --schema

gucs=(shared_preload_libraries=gpudb)
[ -n "${GPUDB_DEMO_DEVICE:-}" ] && gucs+=("gpudb.device=$GPUDB_DEMO_DEVICE")
section "throwaway cluster: PostgreSQL $PGMAJOR, ${gucs[*]}"
gdb_with_cluster 3600 "${gucs[@]}" -- bash "$ROOT/test/demo_flights.sh" --inside
echo
echo "demo_flights: done in $(since "$start")"
