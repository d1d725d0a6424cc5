#!/bin/bash
# side_by_side.sh — gpudb preloaded after a module that registers PG-Strom's
# custom scan method names.
#
# usage: bash test/side_by_side.sh        (PG_CONFIG names the PostgreSQL;
#                                           default: pg_config on PATH)
#
# Custom scan method names are global: PostgreSQL refuses to register a
# second method of a name, and during shared_preload_libraries that stops the
# server.  PG-Strom registers GpuScan, GpuJoin, GpuPreAgg and GpuSort, so
# gpudb's nodes are named GpudbScan, GpudbAgg, GpudbSort and GpudbJoin.  This
# script builds test/pgstrom_names (a module that registers dummy methods of
# PG-Strom's names) in a temporary directory with the same PG_CONFIG, and in
# a throwaway cluster of that PostgreSQL (initdb and pg_ctl of its bindir, as
# user postgres when run as root, a unix socket in the temporary directory
# and no TCP):
#
#   1. shared_preload_libraries = 'pgstrom_names, gpudb': the server starts;
#      every PG-Strom name and every gpudb name is registered; EXPLAIN of a
#      grouped query, an ordered one and a filtered scan shows Custom Scan
#      (GpudbAgg), (GpudbSort) and (GpudbScan); their results equal
#      PostgreSQL's (gpudb.enabled off).
#      Every hook gpudb sets (set_rel_pathlist, create_upper_paths,
#      shmem_request, shmem_startup, object_access) calls the one set before
#      it: test/pgstrom_names sets each first and counts its calls, which
#      stay 0 where gpudb's hook, run first, does not chain.
#   2. Negative control: the same with pgstrom_names.extra_names =
#      'GpudbAgg' (the dummy module takes one of gpudb's names first): the
#      server must refuse to start, saying the name already exists.  This
#      shows that a clash of names is what step 1 would catch.
#
# gpudb must be installed into that PostgreSQL (make install).  The cluster
# runs with gpudb.device = cpu unless GPUDB_TEST_DEVICE says otherwise;
# SBS_KEEP=1 keeps the temporary directory (logs, data) for a look after.
#
# The last line is "side_by_side: N passed, M failed"; exits non-zero when
# M > 0 or a step could not run.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PG_CONFIG="${PG_CONFIG:-pg_config}"
DEVICE="${GPUDB_TEST_DEVICE:-cpu}"
PASS=0
FAIL=0

ok() { echo "ok   $*"; PASS=$((PASS + 1)); }
bad() { echo "FAIL $*"; FAIL=$((FAIL + 1)); }
finish() {
    echo "side_by_side: $PASS passed, $FAIL failed"
    [ "$FAIL" = 0 ]
    exit $?
}

BINDIR="$("$PG_CONFIG" --bindir)" || { bad "pg_config ($PG_CONFIG) did not answer"; finish; }
PKGLIBDIR="$("$PG_CONFIG" --pkglibdir)"
if [ ! -f "$PKGLIBDIR/gpudb.so" ]; then
    bad "gpudb is not installed in $PKGLIBDIR (make install first)"
    finish
fi

TMP="$(mktemp -d /tmp/gpudb_side_by_side.XXXXXX)"
RUNAS=()
if [ "$(id -u)" = 0 ]; then
    chown postgres "$TMP"
    RUNAS=(runuser -u postgres --)
fi
DATA="$TMP/data"

cleanup() {
    if [ -f "$DATA/postmaster.pid" ]; then
        "${RUNAS[@]}" "$BINDIR/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

# A port no server on this host uses (the socket lives in $TMP and TCP is
# off, so this only keeps the lock file name apart; never 5432 or 5491).
PORT=""
for _ in $(seq 1 50); do
    p=$((55000 + RANDOM % 5000))
    if [ ! -e "/tmp/.s.PGSQL.$p" ] && ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
        PORT=$p
        break
    fi
done
[ -n "$PORT" ] || { bad "no free port found"; finish; }

# The dummy module, built with the same PG_CONFIG, outside the tree.
cp -r "$ROOT/test/pgstrom_names" "$TMP/build"
if ! make -s -C "$TMP/build" PG_CONFIG="$PG_CONFIG" >"$TMP/build.log" 2>&1; then
    cat "$TMP/build.log"
    bad "test/pgstrom_names does not build"
    finish
fi
chmod -R a+rX "$TMP/build"
MODULE="$TMP/build/pgstrom_names"
ok "test/pgstrom_names built with $PG_CONFIG ($("$PG_CONFIG" --version))"

if ! "${RUNAS[@]}" "$BINDIR/initdb" -D "$DATA" -E UTF8 --locale=C.UTF-8 -A trust \
        -U postgres >"$TMP/initdb.log" 2>&1; then
    cat "$TMP/initdb.log"
    bad "initdb"
    finish
fi
cat >>"$DATA/postgresql.conf" <<CONF
listen_addresses = ''
port = $PORT
unix_socket_directories = '$TMP'
shared_preload_libraries = '$MODULE, gpudb'
gpudb.device = '$DEVICE'
CONF

# start_server LOG: pg_ctl start; its status
start_server() {
    "${RUNAS[@]}" "$BINDIR/pg_ctl" -D "$DATA" -l "$1" -t 60 -w start >/dev/null 2>&1
}

# q SQL: one value from the test database
q() {
    "$BINDIR/psql" -h "$TMP" -p "$PORT" -U postgres -d postgres -X -q -At -v ON_ERROR_STOP=1 -c "$1" 2>&1
}

# ---- 1. PG-Strom's names first, then gpudb ----
if start_server "$TMP/server1.log"; then
    ok "the server starts with shared_preload_libraries = 'pgstrom_names, gpudb'"
else
    cat "$TMP/server1.log"
    bad "the server does not start with shared_preload_libraries = 'pgstrom_names, gpudb'"
    finish
fi

q "CREATE FUNCTION pgstrom_names_registered(text) RETURNS bool
   AS '$MODULE', 'pgstrom_names_registered' LANGUAGE C STRICT" >/dev/null
for name in GpuScan GpuJoin GpuPreAgg GpuSort GpudbScan GpudbAgg GpudbSort GpudbJoin; do
    got="$(q "SELECT pgstrom_names_registered('$name')")"
    if [ "$got" = t ]; then ok "custom scan $name registered"; else bad "custom scan $name registered: $got"; fi
done
q "CREATE FUNCTION pgstrom_names_hook_calls(text) RETURNS bigint
   AS '$MODULE', 'pgstrom_names_hook_calls' LANGUAGE C STRICT" >/dev/null
got="$(q "SELECT pgstrom_names_registered('NoSuchScan')")"
if [ "$got" = f ]; then ok "an unregistered name is not found"; else bad "an unregistered name: $got"; fi

setup="$(q "CREATE EXTENSION gpudb;
  CREATE TABLE sbs AS SELECT g % 7 AS k, g AS v FROM generate_series(1, 10000) g;
  ANALYZE sbs" 2>&1)" || { echo "$setup"; bad "CREATE EXTENSION gpudb and the test table"; finish; }

# Zero device costs: the planner takes a gpudb node wherever one can run.
FORCE="SET gpudb.gpu_setup_cost = 0; SET gpudb.gpu_tuple_cost = 0; SET gpudb.gpu_transfer_cost = 0;"
check_node() {     # check_node NODE QUERY [sort]: sort compares the rows in any order
    local plan want got
    plan="$(q "$FORCE EXPLAIN (COSTS OFF) $2")"
    if grep -q "Custom Scan ($1)" <<<"$plan"; then
        ok "EXPLAIN shows Custom Scan ($1)"
    else
        echo "$plan"
        bad "EXPLAIN shows Custom Scan ($1)"
    fi
    got="$(q "$FORCE $2")"
    want="$(q "SET gpudb.enabled = off; $2")"
    if [ "${3:-}" = sort ]; then
        got="$(sort <<<"$got")"
        want="$(sort <<<"$want")"
    fi
    if [ "$got" = "$want" ] && [ -n "$got" ]; then
        ok "($1) answers as PostgreSQL does"
    else
        bad "($1) answers as PostgreSQL does: got '$got', PostgreSQL '$want'"
    fi
}
check_node GpudbAgg "SELECT k, count(*), sum(v) FROM sbs GROUP BY k ORDER BY k"
check_node GpudbSort "SELECT v FROM sbs WHERE v % 1000 = 3 ORDER BY v DESC LIMIT 5"
check_node GpudbScan "SELECT v, k FROM sbs WHERE v % 1000 = 3" sort

# The hooks set before gpudb's still run: one session plans the queries
# above again (the planner hooks) and creates a table (object access); the
# shared memory hooks ran at the server's start.
hooks="$(q "SET gpudb.gpu_setup_cost = 0; SET gpudb.gpu_tuple_cost = 0; SET gpudb.gpu_transfer_cost = 0;
  EXPLAIN (COSTS OFF) SELECT k, count(*) FROM sbs GROUP BY k;
  CREATE TABLE sbs_hooks (a int); DROP TABLE sbs_hooks;
  SELECT h || '=' || pgstrom_names_hook_calls(h)
    FROM unnest(ARRAY['set_rel_pathlist', 'create_upper_paths', 'shmem_request',
                      'shmem_startup', 'object_access']) h" | grep '=')"
for h in set_rel_pathlist create_upper_paths shmem_request shmem_startup object_access; do
    n="$(sed -n "s/^$h=//p" <<<"$hooks")"
    if [ -n "$n" ] && [ "$n" -gt 0 ]; then
        ok "the $h hook set before gpudb's still runs ($n calls)"
    else
        bad "the $h hook set before gpudb's still runs: '${n}' calls"
    fi
done

"${RUNAS[@]}" "$BINDIR/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1

# ---- 2. negative control: one of gpudb's names taken first ----
echo "pgstrom_names.extra_names = 'GpudbAgg'" >>"$DATA/postgresql.conf"
if start_server "$TMP/server2.log"; then
    bad "negative control: the server started although GpudbAgg was registered before gpudb"
    "${RUNAS[@]}" "$BINDIR/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1
elif grep -q '"GpudbAgg" already exists' "$TMP/server2.log"; then
    ok "negative control: a second GpudbAgg stops the server (\"$(grep -o '[^:]*"GpudbAgg" already exists' "$TMP/server2.log" | head -1 | sed 's/^ *//')\")"
else
    cat "$TMP/server2.log"
    bad "negative control: the server did not start, but not for the clash of names"
fi

[ -n "${SBS_KEEP:-}" ] && { trap - EXIT; echo "kept $TMP"; }
finish
