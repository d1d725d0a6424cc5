#!/bin/bash
# faults.sh — failures of the GPU server that need several sessions or OS
# signals (sql/09_faults.sql has the rest).
#
# usage: bash test/faults.sh
#
# Runs against the server named by the usual PG* variables (as a superuser;
# gpudb installed, with shared_preload_libraries = gpudb; on a unix socket or
# the loopback interface only, and on this host: it signals the cluster's
# processes).  It creates the database $FAULTS_DB with a cached table fx, and
# drops it at the end.  Everything runs on the CPU path when there is no GPU.
#
#   1. pg_terminate_backend of a backend waiting on a slow request
#      (gpu_debug_fault('slow')): that backend ends, another session is
#      served once the server is done, the server keeps its process, and its
#      memory (gpu_server_status) is back at the baseline.
#   2. pg_cancel_backend of a backend waiting on a slow request: 57014, and
#      the same session's next query works.
#   3. kill -9 of the GPU server process (found as the child of the cluster's
#      own "gpudb GPU server" worker): a backend waiting on it gets 08006,
#      every session survives (same backend pids, same postmaster start
#      time), a new server process starts, the next query reads the heap,
#      and after a reload the cache answers again.
#   4. the server log since the start of this script: no PANIC, and no
#      "terminated by signal" line except the GPU server process's own.
#   5. planning behind a busy server: no wait for the server's mode or
#      which tables are cached (the capture channel), with gpudb.device as
#      configured and with auto.
#   6. COMMIT of a cache load behind a busy server: pg_cancel_backend and
#      pg_terminate_backend end its wait at once; answers stay PostgreSQL's.
#   7. writers of a cached table (a new session) behind a busy server: their
#      statements do not wait; the cache follows them exactly.
#
# Environment:
#   FAULTS_DB          the scratch database (default gpudb_faults)
#   FAULTS_SLOW_MS     delay of the slow requests (default 4000)
#   FAULTS_SERVER_LOG  the server log; default: pg_current_logfile(), else
#                      the log file pg_lsclusters gives for this cluster; the
#                      log checks are skipped (and said so) when none is found
#
# Every wait is bounded (at most about a minute each).  The last line is
# "faults: N passed, M failed"; exits non-zero when M > 0.
set -uo pipefail

DB="${FAULTS_DB:-gpudb_faults}"
SLOW_MS="${FAULTS_SLOW_MS:-4000}"
case "$DB" in ''|*[!a-z0-9_]*) echo "faults: FAULTS_DB must be a plain lower-case name" >&2; exit 2 ;; esac
case "$SLOW_MS" in ''|*[!0-9]*) echo "faults: FAULTS_SLOW_MS is not a number" >&2; exit 2 ;; esac
# shellcheck source=test/session_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/session_lib.sh"
gdb_require_loopback faults

WORK="$(mktemp -d -t gpudb-faults.XXXXXX)"
BG_PIDS=()
declare -A S_FD=() S_SEQ=() S_PID=()
export PGOPTIONS="${PGOPTIONS:-} -c statement_timeout=60s"
passed=0
failed=0

log() { printf 'faults: %s\n' "$*"; }
pass() { passed=$((passed + 1)); log "ok: $*"; }
fail() { failed=$((failed + 1)); log "FAIL: $*"; }
# expect WHAT GOT WANT
expect() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', expected '$3'"; fi; }

cleanup() {
    local p
    for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${S_PID[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    # (a dropped database's cache entries would stay in the server)
    psql -X -q -d "$DB" -c "SELECT gpu_debug_fault('none')" -c "SELECT gpu_cache_drop('fx')" >/dev/null 2>&1
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT

q() { timeout 90 psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

# s_run NAME SQL: run SQL (ending with a semicolon) in NAME; its output in
# $S_OUT (not in a subshell: s_send advances the marker counter)
s_run() { s_send "$1" "$2"; S_OUT="$(s_output "$1")"; }

# wait_for SECONDS SQL: until SQL (on the scratch database) prints t
wait_for() {
    local _
    for _ in $(seq 1 $(( $1 * 10 ))); do
        [ "$(q -c "$2" 2>/dev/null)" = t ] && return 0
        sleep 0.1
    done
    return 1
}
# wait_waiting CONDITION: until the backend that CONDITION (on
# pg_stat_activity) names waits on the GPU server
wait_waiting() {
    wait_for 15 "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE $1
                 AND wait_event_type = 'Extension' AND state = 'active')"
}
status() { q -c "SELECT $1 FROM gpu_server_status()"; }
# start_busy WHAT: another session's request keeps the server busy for
# SLOW_MS (a slow fault armed for it), in the background as $busy, whose
# output goes to $WORK/busy.out; returns once it waits on the server
start_busy() {
    q -c "SELECT gpu_debug_fault('slow', 1, $SLOW_MS)" >/dev/null
    PGAPPNAME=faults_busy timeout 90 psql -X -q -At -d "$DB" -c "SELECT fx_check()" \
        >"$WORK/busy.out" 2>&1 &
    busy=$!
    BG_PIDS+=("$busy")
    wait_waiting "application_name = 'faults_busy'" || fail "$1: the busy session never waited"
}

# ---------------------------------------------------------------------------
# setup
# ---------------------------------------------------------------------------
log "$(date -u '+%F %T') UTC: database $DB, slow requests of $SLOW_MS ms"
if ! psql -X -q -At -v ON_ERROR_STOP=1 -d postgres >/dev/null <<SQL
DO \$\$ BEGIN
    IF current_setting('shared_preload_libraries') NOT LIKE '%gpudb%' THEN
        RAISE EXCEPTION 'gpudb is not in shared_preload_libraries';
    END IF;
END \$\$;
DROP DATABASE IF EXISTS $DB WITH (FORCE);
CREATE DATABASE $DB;
SQL
then
    echo "faults: cannot set up (needs a superuser, and shared_preload_libraries = gpudb)" >&2
    echo "faults: 0 passed, 1 failed"
    exit 2
fi
if ! q >/dev/null <<'SQL'
CREATE EXTENSION gpudb;
CREATE TABLE fx (id int8 NOT NULL, g int4, v int8, t text);
INSERT INTO fx SELECT i, i % 7, i * 5, 't' || (i % 3) FROM generate_series(1, 20000) i;
ANALYZE fx;
-- one gpu_groupby against plain SQL: 'same <source>' or what differs
CREATE FUNCTION fx_check() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    n bigint; src text;
BEGIN
    EXECUTE $q$
        WITH g AS MATERIALIZED (
                SELECT * FROM gpu_groupby('fx', 'g', 'count(*), sum(v)', 'v > 50')
                    AS t(g int4, n bigint, s numeric)),
             s AS MATERIALIZED (SELECT g, count(*), sum(v) FROM fx WHERE v > 50 GROUP BY g)
        SELECT (SELECT count(*) FROM (SELECT * FROM g EXCEPT ALL SELECT * FROM s) a)
             + (SELECT count(*) FROM (SELECT * FROM s EXCEPT ALL SELECT * FROM g) b)$q$ INTO n;
    SELECT source INTO src FROM gpu_last_execution();
    RETURN CASE WHEN n = 0 THEN 'same ' || src ELSE format('DIFFERENT (%s rows, %s)', n, src) END;
END $$;
SELECT gpu_cache_load('fx');
SQL
then
    echo "faults: setup of database $DB failed" >&2
    echo "faults: 0 passed, 1 failed"
    exit 1
fi

# the server log, and where this run starts in it
LOGFILE="$(gdb_server_logfile "${FAULTS_SERVER_LOG:-}" "$DB")"
LOGSTART=0
[ -n "$LOGFILE" ] && LOGSTART="$(stat -c %s "$LOGFILE")"

# warm up (cached and on the heap), then the baseline
expect "the cached answer equals plain SQL" "$(q -c 'SELECT fx_check()')" "same cache"
q -c "SET gpudb.use_cache = off" -c "SELECT fx_check()" >/dev/null
read -r base_cache base_scratch base_starts <<<"$(status "cache_bytes || ' ' || scratch_bytes || ' ' || process_starts")"
# fx's own entry (the server's total may hold other databases' entries)
fx_bytes() { q -c "SELECT device_bytes + host_bytes FROM gpu_cache WHERE relation = 'fx'::regclass"; }
base_fx="$(fx_bytes)"
log "baseline: cache $base_cache bytes (fx: $base_fx), scratch $base_scratch bytes, server process $base_starts"
at_baseline() {
    expect "$1: server memory at the baseline, same server process" \
        "$(status "cache_bytes || ' ' || scratch_bytes || ' ' || process_starts")" \
        "$base_cache $base_scratch $base_starts"
}

# ---------------------------------------------------------------------------
# 1. pg_terminate_backend of a backend waiting on a slow request
# ---------------------------------------------------------------------------
q -c "SELECT gpu_debug_fault('slow', 1, $SLOW_MS)" >/dev/null
PGAPPNAME=faults_victim timeout 90 psql -X -q -At -d "$DB" -c "SELECT fx_check()" \
    >"$WORK/victim.out" 2>&1 &
victim=$!
BG_PIDS+=("$victim")
if wait_waiting "application_name = 'faults_victim'"; then
    pass "terminate: the victim waits on the GPU server"
else
    fail "terminate: the victim never waited on the GPU server"
fi
vpid="$(q -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'faults_victim'")"
t0=$(date +%s%N)
expect "terminate: pg_terminate_backend" \
    "$(q -c "SELECT pg_terminate_backend(${vpid:-0}, 10000)")" "t"
wait "$victim"
t1=$(date +%s%N)
if grep -q "terminating connection due to administrator command" "$WORK/victim.out"; then
    pass "terminate: the victim's session ended with the administrator's FATAL"
else
    fail "terminate: the victim's output: $(tr '\n' ' ' <"$WORK/victim.out")"
fi
if [ $(( (t1 - t0) / 1000000 )) -lt $(( SLOW_MS / 2 )) ]; then
    pass "terminate: the victim ended before its slow request did"
else
    fail "terminate: the victim took $(( (t1 - t0) / 1000000 )) ms to end (slow request: $SLOW_MS ms)"
fi
expect "terminate: the victim's backend is gone" \
    "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE pid = ${vpid:-0}")" "0"
# another session: served once the server is done with the slow request
expect "terminate: another session is served" "$(q -c 'SELECT fx_check()')" "same cache"
at_baseline "terminate"

# ---------------------------------------------------------------------------
# 2. pg_cancel_backend of a backend waiting on a slow request
# ---------------------------------------------------------------------------
s_start A
s_run A "SELECT pg_backend_pid();"; apid="$S_OUT"
q -c "SELECT gpu_debug_fault('slow', 1, $SLOW_MS)" >/dev/null
s_send A "SELECT fx_check();"
wait_waiting "pid = ${apid:-0}" || fail "cancel: session A never waited on the GPU server"
q -c "SELECT pg_cancel_backend(${apid:-0})" >/dev/null
out="$(s_output A)"
case "$out" in
    *"canceling statement due to user request"*) pass "cancel: the waiting statement was cancelled" ;;
    *) fail "cancel: session A: $out" ;;
esac
s_run A 'SELECT fx_check();'
expect "cancel: the same session's next query works" "$S_OUT" "same cache"
at_baseline "cancel"

# ---------------------------------------------------------------------------
# 3. kill -9 of the GPU server process
# ---------------------------------------------------------------------------
s_start B
s_run B "SELECT pg_backend_pid();"; bpid="$S_OUT"
pm_start="$(q -c 'SELECT pg_postmaster_start_time()')"
pm="$(ps -o ppid= -p "${bpid:-0}" | tr -d ' ')"
sup="$(ps --ppid "${pm:-0}" -o pid=,args= | awk '/gpudb GPU server *$/ { print $1 }' | head -1)"
srv="$(ps --ppid "${sup:-0}" -o pid=,args= | awk '/gpudb GPU server process/ { print $1 }' | head -1)"
if [ -z "$srv" ]; then
    fail "kill: no GPU server process under the cluster's worker (postmaster ${pm:-?}, worker ${sup:-?})"
else
    log "postmaster $pm, GPU server worker $sup, GPU server process $srv"
    q -c "SELECT gpu_debug_fault('slow', 1, $SLOW_MS)" >/dev/null
    s_send A "SELECT fx_check();"
    wait_waiting "pid = ${apid:-0}" || fail "kill: session A never waited on the GPU server"
    kill -9 "$srv"
    out="$(s_output A)"
    case "$out" in
        *"lost the connection to the GPU server"*) pass "kill: the waiting session got the connection error" ;;
        *) fail "kill: session A: $out" ;;
    esac
    if wait_for 30 "SELECT process_starts = $base_starts + 1 FROM gpu_server_status()"; then
        pass "kill: a new GPU server process answers"
    else
        fail "kill: no new GPU server process within 30 s"
    fi
    new_srv="$(ps --ppid "$sup" -o pid=,args= | awk '/gpudb GPU server process/ { print $1 }' | head -1)"
    if [ -n "$new_srv" ] && [ "$new_srv" != "$srv" ]; then
        pass "kill: the worker started process $new_srv"
    else
        fail "kill: the GPU server process is '${new_srv:-none}' (was $srv)"
    fi
    s_run A 'SELECT pg_backend_pid();'
    expect "kill: session A keeps its backend" "$S_OUT" "$apid"
    s_run B 'SELECT pg_backend_pid();'
    expect "kill: session B keeps its backend" "$S_OUT" "$bpid"
    expect "kill: the postmaster did not restart" "$(q -c 'SELECT pg_postmaster_start_time()')" "$pm_start"
    expect "kill: the cache died with the process" "$(q -c 'SELECT count(*) FROM gpu_cache')" "0"
    s_run A 'SELECT fx_check();'
    expect "kill: session A's next query reads the heap" "$S_OUT" "same heap"
    s_run B "SELECT gpu_cache_load('fx');"
    expect "kill: session B reloads the table" "$S_OUT" "20000"
    s_run A 'SELECT fx_check();'
    expect "kill: session A reads the cache again" "$S_OUT" "same cache"
    expect "kill: the reloaded entry holds what it held" "$(fx_bytes)" "$base_fx"
fi

# ---------------------------------------------------------------------------
# 5. planning while another session's request keeps the server busy: the
#    planner asks the server's mode and which tables are cached on the
#    capture channel, which the server's capture thread answers at once, so
#    EXPLAIN does not wait, whatever gpudb.device says (it used to wait for
#    the busy request, and a statement_timeout meanwhile was swallowed:
#    EXPLAIN returned a plan once the server was free)
# ---------------------------------------------------------------------------
start_busy "timeout"
for dev in default auto; do
    t0=$(date +%s%N)
    out="$(timeout 90 psql -X -q -At -d "$DB" 2>&1 <<SQL
$( [ "$dev" = auto ] && echo "SET gpudb.device = auto;" )
SET gpudb.gpu_setup_cost = 0;
SET gpudb.gpu_tuple_cost = 0;
SET gpudb.gpu_transfer_cost = 0;
SET statement_timeout = '1s';
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM fx GROUP BY g;
SQL
)"
    t1=$(date +%s%N)
    case "$out" in
        *"QUERY PLAN"*|*"Custom Scan"*|*"Aggregate"*)
            pass "timeout ($dev): planning behind a busy server made its plan" ;;
        *) fail "timeout ($dev): EXPLAIN behind a busy server: $(echo "$out" | tr '\n' ' ')" ;;
    esac
    if [ $(( (t1 - t0) / 1000000 )) -lt 900 ]; then
        pass "timeout ($dev): planning did not wait for the server ($(( (t1 - t0) / 1000000 )) ms)"
    else
        fail "timeout ($dev): planning took $(( (t1 - t0) / 1000000 )) ms behind the busy server"
    fi
done
wait "$busy"
expect "timeout: the busy session's answer" "$(cat "$WORK/busy.out")" "same cache"

# ---------------------------------------------------------------------------
# 6. COMMIT of a cache load behind a busy GPU server: the wait at the
#    transaction's end is bounded, and pg_cancel_backend or
#    pg_terminate_backend ends it at once (it used to wait, unkillable, for
#    as long as the server was busy)
# ---------------------------------------------------------------------------
q -c "CREATE TABLE fy AS SELECT i AS id, i % 5 AS g FROM generate_series(1, 1000) i" >/dev/null
for how in cancel terminate; do
    s_start "C$how"
    s_run "C$how" "SELECT pg_backend_pid();"; cpid="$S_OUT"
    s_run "C$how" "BEGIN; SELECT gpu_cache_load('fy');"
    start_busy "commit ($how)"
    s_send "C$how" "COMMIT;"
    wait_waiting "pid = ${cpid:-0}" || fail "commit ($how): COMMIT never waited on the GPU server"
    t0=$(date +%s%N)
    q -c "SELECT pg_${how}_backend(${cpid:-0})" >/dev/null
    out="$(s_output "C$how")"
    t1=$(date +%s%N)
    if [ $(( (t1 - t0) / 1000000 )) -lt 1000 ]; then
        pass "commit ($how): COMMIT ended $(( (t1 - t0) / 1000000 )) ms after pg_${how}_backend"
    else
        fail "commit ($how): COMMIT took $(( (t1 - t0) / 1000000 )) ms after pg_${how}_backend: $out"
    fi
    if [ "$how" = terminate ]; then
        expect "commit (terminate): the backend is gone" \
            "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE pid = ${cpid:-0}")" "0"
    else
        s_run "C$how" "SELECT count(*) FROM fy;"
        expect "commit (cancel): the session goes on" "$S_OUT" "1000"
    fi
    wait "$busy"
    # loaded or dropped, the answers are PostgreSQL's
    expect "commit ($how): gpu_groupby over fy equals SQL" "$(q -c "
        SELECT count(*) FROM (
            (SELECT * FROM gpu_groupby('fy', 'g', 'count(*)') AS t(g int4, n bigint)
             EXCEPT ALL SELECT g, count(*) FROM fy GROUP BY g)
            UNION ALL
            (SELECT g, count(*) FROM fy GROUP BY g
             EXCEPT ALL SELECT * FROM gpu_groupby('fy', 'g', 'count(*)') AS t(g int4, n bigint))) d")" "0"
    q -c "SELECT gpu_cache_drop('fy')" >/dev/null 2>&1
done

# ---------------------------------------------------------------------------
# 7. a writer of a cached table does not wait behind another session's slow
#    request: its statements hand their changes to the server's capture
#    thread (server_capture.c), which answers at once; the changes are
#    applied before the next request, so the cache still answers exactly
# ---------------------------------------------------------------------------
q -c "SELECT gpu_cache_load('fx')" >/dev/null
start_busy "writer"
t0=$(date +%s%N)
out="$(q 2>&1 <<'SQL'
SET statement_timeout = '60s';
INSERT INTO fx SELECT i, i % 7, i * 5, 't' || (i % 3) FROM generate_series(20001, 20100) i;
UPDATE fx SET v = v + 1 WHERE id <= 10;
DELETE FROM fx WHERE id BETWEEN 100 AND 109;
SQL
)"
t1=$(date +%s%N)
if [ -z "$out" ] && [ $(( (t1 - t0) / 1000000 )) -lt $(( SLOW_MS / 2 )) ]; then
    pass "writer: three writes took $(( (t1 - t0) / 1000000 )) ms while the server was busy"
else
    fail "writer: the writes took $(( (t1 - t0) / 1000000 )) ms (slow request: $SLOW_MS ms): $out"
fi
wait "$busy"
expect "writer: the busy session's answer" "$(cat "$WORK/busy.out")" "same cache"
expect "writer: the cache followed the writes" "$(q -c 'SELECT fx_check()')" "same cache"
expect "writer: the copy counts the written rows" \
    "$(q -c "SELECT n FROM gpu_groupby('fx', '', 'count(*)') AS t(n bigint)")" "20090"

# ---------------------------------------------------------------------------
# 4. the server log
# ---------------------------------------------------------------------------
if [ -z "$LOGFILE" ]; then
    log "skipped the log checks: no server log found (set FAULTS_SERVER_LOG)"
else
    tail -c +"$((LOGSTART + 1))" "$LOGFILE" >"$WORK/server.log"
    if grep -q "PANIC" "$WORK/server.log"; then
        fail "log: PANIC in the server log: $(grep -m 3 PANIC "$WORK/server.log")"
    else
        pass "log: no PANIC"
    fi
    bad="$(grep "terminated by signal" "$WORK/server.log" |
           grep -v "gpudb: GPU server process [0-9]* was terminated by signal 9; restarting it")"
    if [ -n "$bad" ]; then
        fail "log: a process other than the GPU server process was terminated by a signal: $bad"
    else
        pass "log: only the GPU server process was terminated by a signal"
    fi
    if [ -n "$srv" ]; then
        expect "log: the worker logged the kill of process $srv" \
            "$(grep -c "gpudb: GPU server process $srv was terminated by signal 9" "$WORK/server.log")" "1"
    fi
fi

# end the sessions: EOF on their fifos
for s in "${!S_FD[@]}"; do fd="${S_FD[$s]}"; exec {fd}>&-; done
for p in "${S_PID[@]}"; do timeout 10 tail --pid="$p" -f /dev/null; done
echo "faults: $passed passed, $failed failed"
[ "$failed" = 0 ]
