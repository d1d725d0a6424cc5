#!/bin/bash
# load_pgbench.sh — many clients at once against gpu_groupby and the column
# cache, every answer checked; plus the security checks of the GPU server's
# files that need a shell.
#
# usage: bash test/load_pgbench.sh
#
# Runs against the server named by the usual PG* variables, as a superuser,
# with gpudb installed and shared_preload_libraries = gpudb (on a unix socket
# or the loopback interface only).  It creates the database $LOAD_DB and the
# role ${LOAD_DB}_nobody, and drops both at the end.  Everything runs on the
# CPU path when there is no GPU.
#
#   1. checks: the data directory is 0700 and the GPU server's socket
#      gpudb.sock in it is 0600, owned by the data directory's owner (skipped,
#      and said so, when this shell cannot see the data directory); a cached
#      temporary table of one session cannot be read by another through
#      gpu_groupby (PostgreSQL refuses: 0A000); a planted wrong answer is
#      caught by the checking function (the negative control).
#   2. load: pgbench, LOAD_CLIENTS clients for LOAD_SECONDS seconds, with the
#      scripts of test/load/: readers with the cache on (read_cached) and off
#      (read_heap), writers (write: INSERT, UPDATE, DELETE, random COMMIT and
#      ROLLBACK), REPEATABLE READ writers that check before and after their
#      own write (write_rr), and reloads of the cache (reload).  Every
#      gpu_groupby is compared with the same GROUP BY in plain SQL in the same
#      REPEATABLE READ snapshot by lt_check(), which raises "WRONG ANSWER" on
#      any difference: a wrong answer is a pgbench error that aborts its
#      client.  Serialization failures and deadlocks between writers are the
#      intended conflicts: pgbench counts them (--max-tries=1) and they are
#      reported apart, not as failures.
#   3. afterwards: every check once more in a quiet database; the server
#      answers; its log since the start has no PANIC, no "terminated by
#      signal", no "server process ... was terminated", no TRAP (assertion),
#      no leak warning, and no GPU server restart.  The log is found through
#      $LOAD_SERVER_LOG, pg_current_logfile(), or pg_lsclusters (the clusters
#      of pg_virtualenv); when none finds it, this is said and skipped.
#
# Environment:
#   LOAD_CLIENTS     pgbench clients (default 64)
#   LOAD_SECONDS     length of the load in seconds (default 20)
#   LOAD_JOBS        pgbench threads (default: min(clients, CPUs))
#   LOAD_ROWS        rows of the table at the start (default 20000)
#   LOAD_DB          the scratch database (default gpudb_load)
#   LOAD_SERVER_LOG  the server log file, when it cannot be found otherwise
#   PGBENCH          pgbench (default: pg_config --bindir, else PostgreSQL 15's)
#   LOAD_SELFTEST_WRONG=1  plant a wrong answer in about 2% of the checks of
#                    the load, to see them caught: the run must then fail
#
# The last line is "load_pgbench: N passed, M failed": N transactions
# completed (all of their checks agreed), M = wrong answers + crashes + other
# unexpected errors + failed checks of steps 1 and 3.  Exits non-zero when
# M > 0 (or, with 2, when it cannot run at all).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLIENTS="${LOAD_CLIENTS:-64}"
SECS="${LOAD_SECONDS:-20}"
ROWS="${LOAD_ROWS:-20000}"
DB="${LOAD_DB:-gpudb_load}"
NOBODY="${DB}_nobody"
NCPU="$(nproc 2>/dev/null || echo 2)"
JOBS="${LOAD_JOBS:-$(( CLIENTS < NCPU ? CLIENTS : NCPU ))}"
COLS="ARRAY['id', 'g', 't', 'v', 'f', 'b', 'd']::name[]"   # x is not cached
NVARIANTS=7

for n in "$CLIENTS" "$SECS" "$ROWS" "$JOBS"; do
    case "$n" in ''|*[!0-9]*|0) echo "load_pgbench: not a positive number: '$n'" >&2; exit 2 ;; esac
done
case "$DB" in ''|*[!a-z0-9_]*) echo "load_pgbench: LOAD_DB must be a plain lower-case name" >&2; exit 2 ;; esac
# shellcheck source=test/session_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/session_lib.sh"
gdb_find_pgbench load_pgbench
gdb_require_loopback load_pgbench

WORK="$(mktemp -d -t gpudb-load.XXXXXX)"
BG_PIDS=()
# plain SQL is the reference: PostgreSQL's own plans, not the plan nodes
export PGOPTIONS="${PGOPTIONS:-} -c statement_timeout=120s -c gpudb.enable_gpuscan=off -c gpudb.enable_gpuagg=off -c gpudb.enable_gpusort=off"

log() { printf 'load_pgbench: %s\n' "$*"; }
cleanup() {
    local p
    for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
    psql -X -q -d postgres -c "DROP ROLE IF EXISTS $NOBODY" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT

q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

failed=0          # M
fail() { failed=$((failed + 1)); log "FAIL: $*"; }

# ---------------------------------------------------------------------------
# setup
# ---------------------------------------------------------------------------
log "$(date -u '+%F %T') UTC: $CLIENTS clients, $JOBS threads, $SECS s, $ROWS rows, database $DB"
if ! psql -X -q -At -v ON_ERROR_STOP=1 -d postgres >/dev/null <<SQL
DO \$\$ BEGIN
    IF current_setting('shared_preload_libraries') NOT LIKE '%gpudb%' THEN
        RAISE EXCEPTION 'gpudb is not in shared_preload_libraries';
    END IF;
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'not a superuser';
    END IF;
END \$\$;
DROP DATABASE IF EXISTS $DB WITH (FORCE);
CREATE DATABASE $DB;
DROP ROLE IF EXISTS $NOBODY;
CREATE ROLE $NOBODY NOLOGIN;
SQL
then
    echo "load_pgbench: cannot set up (needs a superuser, and shared_preload_libraries = gpudb)" >&2
    echo "load_pgbench: 0 passed, 0 failed"
    exit 2
fi
max_conn="$(psql -X -At -d postgres -c "SELECT current_setting('max_connections')::int - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')")"
if [ "${max_conn:-0}" -lt $((CLIENTS + 5)) ]; then
    echo "load_pgbench: $CLIENTS clients need more connections than the server has free ($max_conn); lower LOAD_CLIENTS" >&2
    echo "load_pgbench: 0 passed, 0 failed"
    exit 2
fi

# the server log, and where it ends now (only what the run adds is read)
server_log=""
if [ -n "${LOAD_SERVER_LOG:-}" ]; then
    server_log="$LOAD_SERVER_LOG"
else
    rel="$(psql -X -At -d postgres -c "SELECT pg_current_logfile()" 2>/dev/null)"
    ddir="$(psql -X -At -d postgres -c "SHOW data_directory" 2>/dev/null)"
    if [ -n "$rel" ]; then
        case "$rel" in /*) server_log="$rel" ;; *) server_log="$ddir/$rel" ;; esac
    elif command -v pg_lsclusters >/dev/null; then
        port="$(psql -X -At -d postgres -c "SHOW port" 2>/dev/null)"
        server_log="$(pg_lsclusters --no-header 2>/dev/null | awk -v p="$port" '$3 == p { print $NF; exit }')"
        case "$server_log" in /*) ;; *) server_log="" ;; esac
    fi
fi
if [ -n "$server_log" ] && [ -r "$server_log" ]; then
    log_start="$(stat -c %s "$server_log" 2>/dev/null || echo 0)"
    log "server log: $server_log (from byte $log_start)"
else
    log "server log: not found or not readable${server_log:+ ($server_log)}; its checks are skipped (set LOAD_SERVER_LOG)"
    server_log=""
fi

if ! q >/dev/null <<SQL
CREATE EXTENSION gpudb;
CREATE TABLE lt (id int4 NOT NULL, g int4, t text, v int8, f float8, b bool, d date, x int4);
CREATE INDEX lt_id ON lt (id);
-- the row of id i; floats are multiples of 1/2, so sums are exact in any order
CREATE FUNCTION lt_row(i int4) RETURNS lt LANGUAGE sql IMMUTABLE AS \$\$
    SELECT i, i % 10,
           CASE WHEN i % 11 = 0 THEN NULL WHEN i % 97 = 0 THEN '' ELSE 't' || (i % 6) END,
           CASE WHEN i % 13 = 0 THEN NULL ELSE i::int8 * 1000003 END,
           CASE WHEN i % 7 = 0 THEN NULL ELSE ((i % 200) - 100) * 0.5 END,
           CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END,
           date '2024-01-01' + (i % 50),
           i % 17
\$\$;
INSERT INTO lt SELECT r.* FROM generate_series(1, $ROWS) i, LATERAL lt_row(i) r;

-- where the checked answers came from; unlogged sequences count without
-- giving the reading transaction a transaction id
CREATE UNLOGGED SEQUENCE lt_answers_cache;
CREATE UNLOGGED SEQUENCE lt_answers_heap;

-- lt_check: one gpu_groupby against the same GROUP BY in plain SQL, in the
-- caller's snapshot (EXCEPT ALL both ways).  Raises "WRONG ANSWER" on any
-- difference, and "WRONG SOURCE" when use_cache is false (the caller set
-- gpudb.use_cache = off) but the answer came from the cache.  sabotage drops
-- one row of the SQL side: the negative control.  Returns the source.
CREATE FUNCTION lt_check(variant int, use_cache bool, sabotage bool DEFAULT false) RETURNS text
LANGUAGE plpgsql AS \$\$
DECLARE
    gq text; sq text; a bigint; b bigint; src text;
BEGIN
    CASE variant
    WHEN 0 THEN
        gq := \$q\$SELECT * FROM gpu_groupby('lt', 'g', 'count(*), sum(v), min(f), max(d), avg(f)') AS t(g int4, n bigint, s numeric, f float8, d date, a float8)\$q\$;
        sq := \$q\$SELECT g, count(*), sum(v), min(f), max(d), avg(f) FROM lt GROUP BY g\$q\$;
    WHEN 1 THEN
        gq := \$q\$SELECT * FROM gpu_groupby('lt', 't', 'count(*), sum(g), avg(v)', 't IN (''t1'', ''t3'', ''new1'', '''', ''absent'')') AS t(t text, n bigint, s bigint, a numeric)\$q\$;
        sq := \$q\$SELECT t, count(*), sum(g), avg(v) FROM lt WHERE t IN ('t1', 't3', 'new1', '', 'absent') GROUP BY t\$q\$;
    WHEN 2 THEN
        gq := \$q\$SELECT * FROM gpu_groupby('lt', 'b, g', 'count(v), max(v), min(id)', 'v > 5000000 AND f < 20') AS t(b bool, g int4, c bigint, m int8, i int4)\$q\$;
        sq := \$q\$SELECT b, g, count(v), max(v), min(id) FROM lt WHERE v > 5000000 AND f < 20 GROUP BY b, g\$q\$;
    WHEN 3 THEN
        gq := \$q\$SELECT * FROM gpu_groupby('lt', '', 'count(*), count(t), sum(v), sum(id), sum(f)') AS t(n bigint, c bigint, s numeric, i bigint, f float8)\$q\$;
        sq := \$q\$SELECT count(*), count(t), sum(v), sum(id), sum(f) FROM lt\$q\$;
    WHEN 4 THEN
        gq := \$q\$SELECT * FROM gpu_groupby('lt', 't, b', 'count(*), max(f), min(v)', 't <> ''t2'' OR b IS NULL') AS t(t text, b bool, n bigint, m float8, v int8)\$q\$;
        sq := \$q\$SELECT t, b, count(*), max(f), min(v) FROM lt WHERE t <> 't2' OR b IS NULL GROUP BY t, b\$q\$;
    WHEN 5 THEN  -- x is not cached: always the heap
        gq := \$q\$SELECT * FROM gpu_groupby('lt', 'g', 'count(x), sum(x)', 'x > 3') AS t(g int4, n bigint, s bigint)\$q\$;
        sq := \$q\$SELECT g, count(x), sum(x) FROM lt WHERE x > 3 GROUP BY g\$q\$;
    ELSE
        gq := \$q\$SELECT * FROM gpu_groupby('lt', 'd, g', 'count(*), sum(g), max(id)', 'id % 7 = 3 OR t = ''new1''') AS t(d date, g int4, n bigint, s bigint, m int4)\$q\$;
        sq := \$q\$SELECT d, g, count(*), sum(g), max(id) FROM lt WHERE id % 7 = 3 OR t = 'new1' GROUP BY d, g\$q\$;
    END CASE;
    IF sabotage OR (current_setting('gpudb_load.sabotage', true) = 'on' AND random() < 0.02) THEN
        sq := format('SELECT * FROM (%s) s OFFSET 1', sq);
    END IF;
    EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', gq, sq) INTO a;
    SELECT source INTO src FROM gpu_last_execution();
    EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', sq, gq) INTO b;
    IF a <> 0 OR b <> 0 THEN
        RAISE EXCEPTION 'gpudb_load WRONG ANSWER: variant %: % rows only in gpu_groupby, % only in SQL (source %)',
            variant, a, b, src;
    END IF;
    IF NOT use_cache AND src IS DISTINCT FROM 'heap' THEN
        RAISE EXCEPTION 'gpudb_load WRONG SOURCE: variant % read from % with gpudb.use_cache = off', variant, src;
    END IF;
    IF src = 'cache' THEN
        PERFORM nextval('lt_answers_cache');
    ELSE
        PERFORM nextval('lt_answers_heap');
    END IF;
    RETURN src;
END \$\$;

SELECT gpu_cache_load('lt', $COLS);
SQL
then
    echo "load_pgbench: setup of database $DB failed" >&2
    echo "load_pgbench: 0 passed, 1 failed"
    exit 1
fi

# ---------------------------------------------------------------------------
# 1. checks before the load
# ---------------------------------------------------------------------------
# the GPU server's socket and the data directory
ddir="$(psql -X -At -d postgres -c "SHOW data_directory")"
if [ -z "$ddir" ]; then
    fail "SHOW data_directory returned nothing"
elif [ ! -d "$ddir" ] || ! stat "$ddir/gpudb.sock" >/dev/null 2>&1; then
    if [ -d "$ddir" ] && [ -x "$ddir" ]; then
        fail "no GPU server socket $ddir/gpudb.sock"
    else
        log "SKIP: the data directory $ddir cannot be seen from this shell (another machine, or no permission): socket modes not checked"
    fi
else
    dmode="$(stat -c %a "$ddir")"; downer="$(stat -c %U "$ddir")"
    smode="$(stat -c %a "$ddir/gpudb.sock")"; sowner="$(stat -c %U "$ddir/gpudb.sock")"
    stype="$(stat -c %F "$ddir/gpudb.sock")"
    if [ "$dmode" = 700 ]; then log "data directory $ddir: mode 0$dmode, owner $downer"
    else fail "data directory $ddir has mode 0$dmode, not 0700"; fi
    if [ "$stype" = socket ] && [ "$smode" = 600 ] && [ "$sowner" = "$downer" ]; then
        log "gpudb.sock: a socket, mode 0$smode, owner $sowner"
    else
        fail "gpudb.sock: $stype, mode 0$smode, owner $sowner (want a socket, 0600, owner $downer)"
    fi
fi

# another session's temporary table, cached by its session: PostgreSQL
# refuses to read it (0A000), and so must gpu_groupby, cached or not
mkfifo "$WORK/temp.in"
psql -X -q -At -d "$DB" <"$WORK/temp.in" >"$WORK/temp.out" 2>&1 &
BG_PIDS+=($!)
exec 7>"$WORK/temp.in"
printf '%s\n' "CREATE TEMP TABLE lt_temp AS SELECT g, v FROM lt;" \
              "SELECT 'cached ' || gpu_cache_load('lt_temp');" \
              "SELECT 'schema ' || nspname FROM pg_namespace WHERE oid = pg_my_temp_schema();" >&7
tschema=""
for _ in $(seq 1 200); do
    tschema="$(sed -n 's/^schema //p' "$WORK/temp.out")"
    [ -n "$tschema" ] && break
    sleep 0.05
done
if [ -z "$tschema" ]; then
    fail "the session holding a cached temporary table did not start: $(cat "$WORK/temp.out")"
else
    out_plain="$(psql -X -At -d "$DB" -c "SELECT count(*) FROM $tschema.lt_temp" 2>&1)"
    out_gpu="$(psql -X -At -d "$DB" -v VERBOSITY=verbose \
        -c "SELECT count(*) FROM gpu_groupby('$tschema.lt_temp', 'g', 'count(*), sum(v)') AS t(g int4, n bigint, s numeric)" 2>&1)"
    out_drop="$(psql -X -At -d "$DB" -v VERBOSITY=verbose -c "SELECT gpu_cache_drop('$tschema.lt_temp')" 2>&1)"
    case "$out_plain" in *"cannot access temporary tables of other sessions"*) ;;
        *) log "note: plain SQL on another session's temporary table said: $out_plain" ;; esac
    if [[ "$out_gpu" == *"0A000"* ]]; then
        log "another session's cached temporary table: gpu_groupby refuses (0A000), as PostgreSQL does"
    else
        fail "another session's cached temporary table was read through gpu_groupby (PostgreSQL refuses with 0A000): $(printf '%s' "$out_gpu" | tr '\n' ' ' | cut -c1-200)"
    fi
    if [[ "$out_drop" == *"ERROR"* ]]; then
        log "another session's temporary table: gpu_cache_drop refuses"
    else
        log "note: gpu_cache_drop of another session's temporary table returned '$out_drop'"
    fi
fi
exec 7>&-

# the negative control: a planted difference is caught
nc="$(q -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SELECT lt_check(0, true, true)" -c "COMMIT" 2>&1)"
if [[ "$nc" == *"WRONG ANSWER"* ]]; then
    log "negative control: a planted difference is caught"
else
    fail "negative control: a planted difference was not caught ('$nc'): the check cannot fail"
fi
# every check passes before the load, with and without the cache
for v in $(seq 0 $((NVARIANTS - 1))); do
    for c in on off; do
        out="$(q -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SET LOCAL gpudb.use_cache = $c" \
                 -c "SELECT lt_check($v, '$c' = 'on')" -c "COMMIT" 2>&1)"
        case "$out" in cache|heap) ;; *) fail "check $v with the cache $c before the load: $out" ;; esac
    done
done
answers() { q -c "SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM lt_answers_cache) || ' ' || (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM lt_answers_heap)"; }
read -r cache_before heap_before <<<"$(answers)"

# ---------------------------------------------------------------------------
# 2. the load
# ---------------------------------------------------------------------------
log "pgbench: $CLIENTS clients, $SECS s: read_cached, read_heap, write, write_rr, reload"
sabotage=""
[ "${LOAD_SELFTEST_WRONG:-0}" = 1 ] && { sabotage="-c gpudb_load.sabotage=on"; log "LOAD_SELFTEST_WRONG=1: planting wrong answers"; }
PGOPTIONS="$PGOPTIONS $sabotage" "$PGBENCH" -n -c "$CLIENTS" -j "$JOBS" -T "$SECS" -D rows="$ROWS" \
    --max-tries=1 --failures-detailed \
    -f "$ROOT/test/load/read_cached.sql@6" -f "$ROOT/test/load/read_heap.sql@2" \
    -f "$ROOT/test/load/write.sql@6" -f "$ROOT/test/load/write_rr.sql@2" \
    -f "$ROOT/test/load/reload.sql@1" \
    "$DB" >"$WORK/pgbench.out" 2>"$WORK/pgbench.err"
pgbench_rc=$?
sed -n '/^transaction type/,$p' "$WORK/pgbench.out" | grep -E '^(scaling|query mode|number of|latency average|tps|duration|maximum number of tries)' \
    | sed 's/^/  /'

num() { sed -n "s/^$1: *\([0-9][0-9]*\).*/\1/p" "$WORK/pgbench.out" | head -n 1; }
processed="$(num 'number of transactions actually processed')"; processed="${processed:-0}"
failed_tx="$(num 'number of failed transactions')"; failed_tx="${failed_tx:-0}"
serial="$(num 'number of serialization failures')"; serial="${serial:-0}"
deadlock="$(num 'number of deadlock failures')"; deadlock="${deadlock:-0}"
wrong="$(grep -c 'WRONG ANSWER\|WRONG SOURCE' "$WORK/pgbench.err")"
aborted="$(grep -c 'aborted in command' "$WORK/pgbench.err")"
other_aborts="$(grep 'aborted in command' "$WORK/pgbench.err" | grep -vc 'WRONG ANSWER\|WRONG SOURCE')"
crashes="$(grep -ci 'server closed the connection\|terminating connection\|connection to server .* lost\|08006\|could not receive data' "$WORK/pgbench.err")"

log "transactions: $processed completed; $failed_tx failed on intended conflicts ($serial serialization, $deadlock deadlock)"
log "clients aborted: $aborted ($wrong on a wrong answer, $other_aborts on another error); pgbench exit status $pgbench_rc"
if [ "$wrong" -gt 0 ]; then
    grep 'WRONG ANSWER\|WRONG SOURCE' "$WORK/pgbench.err" | head -n 5 | sed 's/^/  /'
    failed=$((failed + wrong)); log "FAIL: $wrong wrong answers"
fi
if [ "$other_aborts" -gt 0 ]; then
    grep 'aborted in command' "$WORK/pgbench.err" | grep -v 'WRONG ANSWER\|WRONG SOURCE' | head -n 5 | sed 's/^/  /'
    failed=$((failed + other_aborts)); log "FAIL: $other_aborts clients aborted on an unexpected error ($crashes lost connections)"
fi
if [ "$pgbench_rc" != 0 ] && [ "$aborted" = 0 ]; then
    sed 's/^/  /' "$WORK/pgbench.err" | head -n 10
    fail "pgbench exited with status $pgbench_rc"
fi
[ "$processed" -gt 0 ] || fail "no transaction completed"

# ---------------------------------------------------------------------------
# 3. afterwards
# ---------------------------------------------------------------------------
if [ "$(psql -X -At -d "$DB" -c "SELECT 1" 2>&1)" != 1 ]; then
    fail "the server does not answer after the load"
fi
read -r cache_after heap_after <<<"$(answers)"
q -c "SELECT gpu_cache_load('lt', $COLS)" >/dev/null 2>&1 || fail "the reload after the load failed"
for v in $(seq 0 $((NVARIANTS - 1))); do
    for c in on off; do
        out="$(q -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SET LOCAL gpudb.use_cache = $c" \
                 -c "SELECT lt_check($v, '$c' = 'on')" -c "COMMIT" 2>&1)"
        case "$out" in cache|heap) ;; *) fail "check $v with the cache $c after the load: $out" ;; esac
    done
done
cache_answers=$(( ${cache_after:-0} - ${cache_before:-0} )); heap_answers=$(( ${heap_after:-0} - ${heap_before:-0} ))
log "checked answers during the load: $cache_answers from the cache, $heap_answers from the heap"
[ "$cache_answers" -gt 0 ] || fail "no checked answer came from the cache during the load: the cached path was not exercised"

if [ -n "$server_log" ]; then
    tail -c +"$((log_start + 1))" "$server_log" >"$WORK/server.log" 2>/dev/null
    pattern='PANIC|terminated by signal|server process .* was terminated|TRAP:|leak|GPU server process .* (exited|terminated)|device fault'
    bad="$(grep -E -c "$pattern" "$WORK/server.log")"
    if [ "$bad" -gt 0 ]; then
        grep -E "$pattern" "$WORK/server.log" | head -n 10 | sed 's/^/  /'
        crashes=$((crashes + bad))
        failed=$((failed + bad)); log "FAIL: $bad alarming lines in the server log"
    else
        log "server log: $(wc -l <"$WORK/server.log") lines written during the run, none with PANIC, a signal, a leak or a GPU server restart"
    fi
fi

log "$processed transactions passed; $wrong wrong answers; $crashes crashes or lost connections; $other_aborts other unexpected errors; $((serial + deadlock)) intended conflicts (not failures)"
echo "load_pgbench: $processed passed, $failed failed"
[ "$failed" = 0 ]
