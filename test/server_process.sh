#!/bin/bash
# server_process.sh — the GPU server process as the operating system sees it.
#
# usage: bash test/server_process.sh
#
# Runs against the server named by the usual PG* variables (as a superuser;
# gpudb installed, with shared_preload_libraries = gpudb; on a unix socket or
# the loopback interface only, and on this host: it reads /proc and signals
# the cluster's processes).  It creates the database $SERVER_PROCESS_DB with
# gpudb and a cached table, and drops it at the end.
#
#   1. The GPU server process (the child of the cluster's "gpudb GPU server"
#      worker) maps none of PostgreSQL's shared memory: not the main segment
#      (an anonymous shared mapping, "/dev/zero (deleted)", or
#      "/anon_hugepage (deleted)" with huge pages), not the System V
#      interlock segment ("/SYSV<key> (deleted)"), not the dynamic shared
#      memory control segment ("/dev/shm/PostgreSQL.<n>").  The worker,
#      which does map them, is the control that the patterns are right.
#   2. Its log lines carry its own PID (log_line_prefix's %p), not the
#      worker's; the check is skipped (and said so) without %p in
#      log_line_prefix or without a readable server log.
#   3. It dies with its worker: kill -9 of the worker while the server
#      process is busy with a slow request (gpu_debug_fault('slow')) ends
#      the server process within a few seconds, long before the request
#      would end.  This makes the postmaster restart the cluster (every
#      session is ended; run it last), so it is skipped unless
#      restart_after_crash is on; afterwards the script waits until a new
#      GPU server answers.
#
# Environment:
#   SERVER_PROCESS_LOG  the server log; default: pg_current_logfile(), else
#                       the log file pg_lsclusters gives for this cluster
#   SERVER_PROCESS_DB   the scratch database (default gpudb_server_process)
#
# The last line is "server_process: N passed, M failed"; exits non-zero
# when M > 0.
set -uo pipefail

# shellcheck source=test/session_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/session_lib.sh"
gdb_require_loopback server_process

DB="${SERVER_PROCESS_DB:-gpudb_server_process}"
case "$DB" in ''|*[!a-z0-9_]*) echo "server_process: SERVER_PROCESS_DB must be a plain lower-case name" >&2; exit 2 ;; esac
SLOW_MS=20000
TABLE=gpudb_server_process_t
passed=0
failed=0
BG_PIDS=()
orphan=""

log() { printf 'server_process: %s\n' "$*"; }
pass() { passed=$((passed + 1)); log "ok: $*"; }
fail() { failed=$((failed + 1)); log "FAIL: $*"; }
q() { timeout 60 psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

cleanup() {
    local p
    for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    # a server process that outlived its worker (the failure of check 3)
    [ -n "$orphan" ] && kill -0 "$orphan" 2>/dev/null && kill -9 "$orphan" 2>/dev/null
    wait 2>/dev/null
    q -c "SELECT gpu_debug_fault('none')" >/dev/null 2>&1
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
}
trap cleanup EXIT

# shared_map PID: the PostgreSQL shared memory mappings of process PID
shared_map() {
    awk '$2 ~ /s$/ && ($6 ~ /^\/SYSV[0-9a-fA-F]+$/ || $6 == "/dev/zero" ||
                       $6 == "/anon_hugepage" || $6 ~ /^\/dev\/shm\/PostgreSQL\.[0-9]+$/)' \
        "/proc/$1/maps"
}

# find the processes: postmaster, its "gpudb GPU server" worker, the worker's
# "gpudb GPU server process" child
find_processes() {
    local child
    # a child of the postmaster that outlives this query
    child="$(q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")" || return 1
    pm="$(ps -o ppid= -p "${child:-0}" | tr -d ' ')"
    sup="$(ps --ppid "${pm:-0}" -o pid=,args= | awk '/gpudb GPU server *$/ { print $1 }' | head -1)"
    srv="$(ps --ppid "${sup:-0}" -o pid=,args= | awk '/gpudb GPU server process/ { print $1 }' | head -1)"
    [ -n "$pm" ] && [ -n "$sup" ] && [ -n "$srv" ]
}

if ! psql -X -q -At -v ON_ERROR_STOP=1 -d postgres >/dev/null <<SQL
SET client_min_messages = warning;
DO \$\$ BEGIN
    IF current_setting('shared_preload_libraries') NOT LIKE '%gpudb%' THEN
        RAISE EXCEPTION 'gpudb is not in shared_preload_libraries';
    END IF;
END \$\$;
DROP DATABASE IF EXISTS $DB WITH (FORCE);
CREATE DATABASE $DB;
SQL
then
    echo "server_process: cannot set up (needs a superuser, and shared_preload_libraries = gpudb)" >&2
    echo "server_process: 0 passed, 1 failed"
    exit 2
fi
if ! q -c 'SET client_min_messages = warning' -c 'CREATE EXTENSION gpudb' \
        -c "CREATE TABLE $TABLE AS SELECT i % 3 AS g FROM generate_series(1, 100) i" \
        -c "SELECT gpu_cache_load('$TABLE')" >/dev/null ||
   ! q -c "SELECT 1 FROM gpu_server_status() WHERE mode <> 'none'" | grep -qx 1; then
    echo "server_process: setup of database $DB failed, or no GPU server answers" >&2
    echo "server_process: 0 passed, 1 failed"
    exit 2
fi
if ! find_processes; then
    echo "server_process: cannot find the GPU server processes (postmaster ${pm:-?}, worker ${sup:-?}, server process ${srv:-?})" >&2
    echo "server_process: 0 passed, 1 failed"
    exit 1
fi
log "postmaster $pm, GPU server worker $sup, GPU server process $srv"

# ---------------------------------------------------------------------------
# 1. shared memory
# ---------------------------------------------------------------------------
sup_maps="$(shared_map "$sup")"
srv_maps="$(shared_map "$srv")"
if [ -z "$sup_maps" ]; then
    fail "shmem: the worker maps no PostgreSQL shared memory that this script recognises (control failed): $(awk '$2 ~ /s$/' "/proc/$sup/maps" | tr '\n' ';')"
else
    pass "shmem: the worker maps PostgreSQL's shared memory ($(awk '{ print $6 }' <<<"$sup_maps" | sort -u | tr '\n' ' '))"
fi
if [ -z "$srv_maps" ]; then
    pass "shmem: the GPU server process maps none of it"
else
    fail "shmem: the GPU server process maps PostgreSQL's shared memory: $(awk '{ print $1, $2, $6, $7 }' <<<"$srv_maps" | tr '\n' ';')"
fi

# ---------------------------------------------------------------------------
# 2. its own PID in its log lines
# ---------------------------------------------------------------------------
LOGFILE="$(gdb_server_logfile "${SERVER_PROCESS_LOG:-}" "$DB")"
if [ -z "$LOGFILE" ] || [ ! -r "$LOGFILE" ]; then
    log "skipped the log check: no server log found (set SERVER_PROCESS_LOG)"
elif ! q -c 'SHOW log_line_prefix' | grep -q '%p'; then
    log "skipped the log check: log_line_prefix has no %p"
else
    # a line that only the server process writes, made unique by its count
    count=$(( 100000 + RANDOM * 7 + $$ % 7 ))
    q -c "SELECT gpu_debug_fault('slow', $count, 0)" -c "SELECT gpu_debug_fault('none')" >/dev/null
    line=""
    for _ in $(seq 1 50); do
        line="$(grep -F "injected fault \"slow\" armed for $count request(s)" "$LOGFILE" | tail -1)"
        [ -n "$line" ] && break
        sleep 0.1
    done
    if [ -z "$line" ]; then
        fail "log: the server process's line never reached $LOGFILE"
    elif grep -qw "$srv" <<<"$line" && ! grep -qw "$sup" <<<"$line"; then
        pass "log: the server process logs with its own PID $srv"
    else
        fail "log: the server process's line does not carry its PID $srv (worker $sup): $line"
    fi
fi

# ---------------------------------------------------------------------------
# 3. it dies with its worker
# ---------------------------------------------------------------------------
if [ "$(q -c 'SHOW restart_after_crash')" != on ]; then
    log "skipped the worker kill: restart_after_crash is off"
else
    # the slow request: a group-by answered from the cache (in CPU mode the
    # server sees no other)
    q -c "SELECT gpu_debug_fault('slow', 1, $SLOW_MS)" >/dev/null
    PGAPPNAME=server_process_slow timeout 90 psql -X -q -At -d "$DB" \
        -c "SELECT * FROM gpu_groupby('$TABLE', 'g', 'count(*)') AS t(g int, n bigint)" \
        >/dev/null 2>&1 &
    BG_PIDS+=("$!")
    busy=0
    for _ in $(seq 1 150); do
        if [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'server_process_slow'
                      AND wait_event_type = 'Extension' AND state = 'active'" 2>/dev/null)" = 1 ]; then
            busy=1
            break
        fi
        sleep 0.1
    done
    if [ "$busy" = 1 ]; then
        pass "kill: the server process is busy with a slow request"
    else
        fail "kill: the slow request never reached the server process"
    fi
    orphan="$srv"
    old_srv="$srv"
    kill -9 "$sup"
    gone=0
    for _ in $(seq 1 50); do
        if ! kill -0 "$srv" 2>/dev/null || [ "$(ps -o stat= -p "$srv" | cut -c1)" = Z ]; then
            gone=1
            break
        fi
        sleep 0.1
    done
    if [ "$gone" = 1 ]; then
        pass "kill: the server process ended with its worker"
        orphan=""
    else
        fail "kill: the server process $srv outlived its worker $sup by 5 s (parent now $(ps -o ppid= -p "$srv" | tr -d ' '))"
    fi
    # the cluster restarts; a new GPU server answers
    back=0
    for _ in $(seq 1 120); do
        if q -c "SELECT 1 FROM gpu_server_status() WHERE mode <> 'none'" 2>/dev/null | grep -qx 1; then
            back=1
            break
        fi
        sleep 0.5
    done
    if [ "$back" = 1 ] && find_processes && [ "$srv" != "$old_srv" ]; then
        pass "kill: after the restart a new GPU server process $srv answers"
    else
        fail "kill: no new GPU server answered within 60 s"
    fi
fi

echo "server_process: $passed passed, $failed failed"
[ "$failed" = 0 ]
