#!/bin/bash
# concurrent_cache.sh — concurrent differential test of the column cache.
#
# usage: bash test/concurrent_cache.sh
#
# Runs against the server named by the usual PG* variables (as a superuser;
# gpudb installed, with shared_preload_libraries = gpudb; on a unix socket or
# the loopback interface only).  It creates the database $CONCURRENT_DB, a
# table cc in it, caches the table with gpu_cache_load, and drops the database
# at the end.  Everything runs on the CPU path when there is no GPU.
#
# Every check runs one gpu_groupby (gpudb.use_cache = on) and the same
# GROUP BY in plain SQL inside one REPEATABLE READ transaction, compares them
# (EXCEPT ALL both ways) and records gpu_last_execution().source.
#
#   phase 1, scenarios: two sessions in a fixed order, with the outcome known
#     in advance: a snapshot older than the load, a write after the load seen
#     and not seen by an open snapshot, an uncommitted and a rolled-back write,
#     a load that waits for a writer, a load in a REPEATABLE READ transaction
#     that started before a write, a load left open then rolled back, a load
#     after a write in the same transaction, a refused load by another role.
#   phase 2, random, for CONCURRENT_SECONDS: writer clients (pgbench: INSERT,
#     UPDATE, DELETE, rolled-back TRUNCATE, each committed or rolled back at
#     random, plus gpu_cache_load reloads) against reader clients (psql, each
#     REPEATABLE READ transaction doing several checks with pauses between
#     them, so that loads and writes commit while its snapshot is open).
#     Rounds of writing alternate with short quiet periods after a reload, so
#     that the cache is also read.
#
# Environment:
#   CONCURRENT_SECONDS  length of phase 2 in seconds (default 20)
#   CONCURRENT_WRITERS  writer clients (default 4)
#   CONCURRENT_READERS  reader clients (default 4)
#   CONCURRENT_ROWS     rows of the table at the start (default 20000)
#   CONCURRENT_TPS      total writer transactions per second (default 300)
#   CONCURRENT_DB       the scratch database (default gpudb_concurrent); the
#                       role ${CONCURRENT_DB}_nobody is created and dropped too
#   PGBENCH             pgbench (default: pg_config --bindir, else PostgreSQL 15's)
#
# The last line is "concurrent_cache: N passed, D failed": N checks agreed with
# plain SQL (and, in phase 1, read from where they had to), D did not.  Exits
# non-zero when D > 0, when any client failed unexpectedly, when no check read
# the cache, or when the negative control (a planted difference) is not seen.
set -uo pipefail

SECS="${CONCURRENT_SECONDS:-20}"
WRITERS="${CONCURRENT_WRITERS:-4}"
READERS="${CONCURRENT_READERS:-4}"
ROWS="${CONCURRENT_ROWS:-20000}"
TPS="${CONCURRENT_TPS:-300}"
DB="${CONCURRENT_DB:-gpudb_concurrent}"
NOBODY="${DB}_nobody"   # a role that may not load (scenario S8)
ROUND_WRITE=2           # seconds of writing per round
ROUND_QUIET=1           # seconds without writes after each round's reload
READER_MAX_ITER=100000  # bound on reader iterations, besides the deadline
COLS="ARRAY['id', 'g', 't', 'v', 'f', 'b', 'd']::name[]"   # x is not cached

for n in "$SECS" "$WRITERS" "$READERS" "$ROWS" "$TPS"; do
    case "$n" in ''|*[!0-9]*) echo "concurrent_cache: not a number: '$n'" >&2; exit 2 ;; esac
done
case "$DB" in ''|*[!a-z0-9_]*) echo "concurrent_cache: CONCURRENT_DB must be a plain lower-case name" >&2; exit 2 ;; esac

# shellcheck source=test/session_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/session_lib.sh"
gdb_find_pgbench concurrent_cache
gdb_require_loopback concurrent_cache

WORK="$(mktemp -d -t gpudb-concurrent.XXXXXX)"
BG_PIDS=()
declare -A S_PID=()
# plain SQL is the reference: PostgreSQL's own plans, not the plan nodes
export PGOPTIONS="${PGOPTIONS:-} -c statement_timeout=120s -c gpudb.use_cache=on -c gpudb.enable_gpuscan=off -c gpudb.enable_gpuagg=off -c gpudb.enable_gpusort=off"

log() { printf 'concurrent_cache: %s\n' "$*"; }

cleanup() {
    local p
    for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${S_PID[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
    psql -X -q -d postgres -c "DROP ROLE IF EXISTS $NOBODY" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT

# psql on the scratch database; errors stop it and make it fail
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

passed=0
failed=0
cache_used=0
client_errors=0
declare -A by_source=()

fail_client() { client_errors=$((client_errors + 1)); log "CLIENT ERROR: $*"; }

# record LINE [EXPECTED_SOURCE]: one check result "C variant a b n s1 s2"
record() {
    local line="$1" want="${2:-}" tag v a b n s1 s2
    read -r tag v a b n s1 s2 <<<"$line"
    if [ "$tag" != C ] || [ -z "${s2:-}" ]; then
        failed=$((failed + 1)); log "FAIL: unreadable check result '$line'"; return
    fi
    by_source["$s1/$s2"]=$(( ${by_source["$s1/$s2"]:-0} + 1 ))
    if [ "$s1" = cache ] || [ "$s2" = cache ]; then cache_used=$((cache_used + 1)); fi
    if [ "$a" != 0 ] || [ "$b" != 0 ]; then
        failed=$((failed + 1))
        log "FAIL: variant $v: $a rows only in gpu_groupby, $b only in SQL (source $s1/$s2) ${3:-}"
    elif [ -n "$want" ] && { [ "$s1" != "$want" ] || [ "$s2" != "$want" ]; }; then
        failed=$((failed + 1))
        log "FAIL: variant $v: same answer, but read from $s1/$s2 where $want was expected ${3:-}"
    else
        passed=$((passed + 1))
    fi
}

# ---------------------------------------------------------------------------
# setup
# ---------------------------------------------------------------------------
log "$(date -u '+%F %T') UTC: $SECS s, $WRITERS writers, $READERS readers, $ROWS rows, database $DB"
if ! psql -X -q -At -v ON_ERROR_STOP=1 -d postgres >/dev/null <<SQL
DO \$\$ BEGIN
    IF current_setting('shared_preload_libraries') NOT LIKE '%gpudb%' THEN
        RAISE EXCEPTION 'gpudb is not in shared_preload_libraries';
    END IF;
END \$\$;
DROP DATABASE IF EXISTS $DB WITH (FORCE);
CREATE DATABASE $DB;
DROP ROLE IF EXISTS $NOBODY;
CREATE ROLE $NOBODY NOLOGIN;
SQL
then
    echo "concurrent_cache: cannot set up (needs a superuser, and shared_preload_libraries = gpudb)" >&2
    echo "concurrent_cache: 0 passed, 0 failed"
    exit 2
fi

if ! q >/dev/null <<SQL
CREATE EXTENSION gpudb;
CREATE TABLE cc (id int4 NOT NULL, g int4, t text, v int8, f float8, b bool, d date, x int4);
CREATE INDEX cc_id ON cc (id);
-- the row of id i; floats are multiples of 1/2, so sums are exact in any order
CREATE FUNCTION cc_row(i int4) RETURNS cc LANGUAGE sql IMMUTABLE AS \$\$
    SELECT i, i % 10,
           CASE WHEN i % 11 = 0 THEN NULL ELSE 't' || (i % 6) END,
           CASE WHEN i % 13 = 0 THEN NULL ELSE i::int8 * 1000 END,
           CASE WHEN i % 7 = 0 THEN NULL ELSE ((i % 200) - 100) * 0.5 END,
           CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END,
           date '2024-01-01' + (i % 50),
           i % 17
\$\$;
INSERT INTO cc SELECT r.* FROM generate_series(1, $ROWS) i, LATERAL cc_row(i) r;

-- one check: gpu_groupby against plain SQL in the caller's snapshot, both
-- ways; returns 'C variant only_gpu only_sql sql_rows source1 source2'.
-- sabotage drops one row of the SQL side (the negative control).
CREATE FUNCTION cc_check(variant int, sabotage bool DEFAULT false) RETURNS text
LANGUAGE plpgsql AS \$\$
DECLARE
    gq text; sq text; a bigint; b bigint; n bigint; s1 text; s2 text;
BEGIN
    CASE variant
    WHEN 0 THEN
        gq := \$q\$SELECT * FROM gpu_groupby('cc', 'g', 'count(*), sum(v), min(f), max(d)') AS t(g int4, n bigint, s numeric, f float8, d date)\$q\$;
        sq := \$q\$SELECT g, count(*), sum(v), min(f), max(d) FROM cc GROUP BY g\$q\$;
    WHEN 1 THEN
        gq := \$q\$SELECT * FROM gpu_groupby('cc', 't', 'count(*), sum(g), avg(v)', 't IN (''t1'', ''t3'', ''new1'', ''absent'')') AS t(t text, n bigint, s bigint, a numeric)\$q\$;
        sq := \$q\$SELECT t, count(*), sum(g), avg(v) FROM cc WHERE t IN ('t1', 't3', 'new1', 'absent') GROUP BY t\$q\$;
    WHEN 2 THEN
        gq := \$q\$SELECT * FROM gpu_groupby('cc', 'b, g', 'count(v), max(v), min(id)', 'v > 500000 AND f < 20') AS t(b bool, g int4, c bigint, m int8, i int4)\$q\$;
        sq := \$q\$SELECT b, g, count(v), max(v), min(id) FROM cc WHERE v > 500000 AND f < 20 GROUP BY b, g\$q\$;
    WHEN 3 THEN
        gq := \$q\$SELECT * FROM gpu_groupby('cc', '', 'count(*), sum(v), sum(id), avg(f)') AS t(n bigint, s numeric, i bigint, a float8)\$q\$;
        sq := \$q\$SELECT count(*), sum(v), sum(id), avg(f) FROM cc\$q\$;
    WHEN 4 THEN
        gq := \$q\$SELECT * FROM gpu_groupby('cc', 't', 'count(*), max(f), sum(f)', 't <> ''t2''') AS t(t text, n bigint, m float8, s float8)\$q\$;
        sq := \$q\$SELECT t, count(*), max(f), sum(f) FROM cc WHERE t <> 't2' GROUP BY t\$q\$;
    WHEN 5 THEN  -- x is not cached: always the heap
        gq := \$q\$SELECT * FROM gpu_groupby('cc', 'g', 'count(x), sum(x)') AS t(g int4, n bigint, s bigint)\$q\$;
        sq := \$q\$SELECT g, count(x), sum(x) FROM cc GROUP BY g\$q\$;
    ELSE
        gq := \$q\$SELECT * FROM gpu_groupby('cc', 'd', 'count(*), sum(g)', 't = ''new2'' OR g = 4') AS t(d date, n bigint, s bigint)\$q\$;
        sq := \$q\$SELECT d, count(*), sum(g) FROM cc WHERE t = 'new2' OR g = 4 GROUP BY d\$q\$;
    END CASE;
    IF sabotage THEN
        sq := format('SELECT * FROM (%s) s OFFSET 1', sq);
    END IF;
    EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', gq, sq) INTO a;
    SELECT source INTO s1 FROM gpu_last_execution();
    EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', sq, gq) INTO b;
    SELECT source INTO s2 FROM gpu_last_execution();
    EXECUTE format('SELECT count(*) FROM (%s) x', sq) INTO n;
    RETURN format('C %s %s %s %s %s %s', variant, a, b, n, coalesce(s1, 'none'), coalesce(s2, 'none'));
END \$\$;

-- a reader transaction's body: nchecks random checks, pausing up to
-- max_sleep seconds between them (the snapshot stays the same under
-- REPEATABLE READ while others write and load)
CREATE FUNCTION cc_reader(nchecks int, max_sleep float8) RETURNS SETOF text
LANGUAGE plpgsql AS \$\$
BEGIN
    FOR i IN 1 .. nchecks LOOP
        RETURN NEXT cc_check(floor(random() * 7)::int);
        IF max_sleep > 0 AND i < nchecks THEN
            PERFORM pg_sleep(random() * max_sleep);
        END IF;
    END LOOP;
END \$\$;

SELECT gpu_cache_load('cc', $COLS);
SQL
then
    echo "concurrent_cache: setup of database $DB failed" >&2
    echo "concurrent_cache: 0 passed, 1 failed"
    exit 1
fi

# the state of cc's entries ('loading,ready' while a reload is open)
state() { q -c "SELECT coalesce(string_agg(state, ',' ORDER BY state), 'none') FROM gpu_cache WHERE relation = 'cc'::regclass"; }
# one check in a REPEATABLE READ transaction of its own
rr_check() { q -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SELECT cc_check($1)" -c "COMMIT"; }
reload() { q -c "SELECT gpu_cache_load('cc', $COLS)" >/dev/null || fail_client "gpu_cache_load failed"; }

# The negative control: a planted difference must be reported.
nc="$(rr_check "0, true")"
read -r _ _ nca ncb _ <<<"$nc"
if [ "${nca:-0}" = 0 ] && [ "${ncb:-0}" = 0 ]; then
    log "FAIL: the negative control was not detected ('$nc'): the comparison cannot fail"
    negative_ok=0
else
    log "negative control: a planted difference is detected ($nc)"
    negative_ok=1
fi

st="$(state)"
[ "$st" = ready ] || { failed=$((failed + 1)); log "FAIL: after the first load the entry is '$st', not ready"; }

# ---------------------------------------------------------------------------
# phase 1: scenarios.  Sessions A and C are psql processes fed through fifos
# (they keep transactions open across steps); B is one psql per step.
# ---------------------------------------------------------------------------
declare -A S_FD=() S_SEQ=() S_PID=()
# s_run NAME SQL: run SQL in session NAME; its output goes to the log when it
# has any (BEGIN, COMMIT and the like print nothing under -q)
s_run() {
    local out
    s_send "$1" "$2"
    out="$(s_output "$1")"
    case "$out" in
        TIMEOUT*) fail_client "$out: $2" ;;
        ?*) printf '%s\n' "$out" >"$WORK/last_$1" ;;
    esac
}
s_stop() {
    local fd="${S_FD[$1]}" i
    printf '\\q\n' >&"$fd"
    exec {fd}>&-
    unset "S_FD[$1]"
    for i in $(seq 1 200); do
        kill -0 "${S_PID[$1]}" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "${S_PID[$1]}" 2>/dev/null; then
        fail_client "session $1 did not end"
        kill "${S_PID[$1]}" 2>/dev/null
    fi
    wait "${S_PID[$1]}" 2>/dev/null
    unset "S_PID[$1]"
}
# s_check NAME VARIANT EXPECTED_SOURCE WHAT: a check in NAME's open transaction
s_check() {
    local out
    s_send "$1" "SELECT cc_check($2);"
    out="$(s_output "$1")"
    if [[ "$out" != C\ * ]]; then fail_client "session $1: $4: $out"; failed=$((failed + 1)); return; fi
    record "$out" "$3" "($4)"
}
# b_check VARIANT EXPECTED_SOURCE WHAT: a check in a new session
b_check() {
    local out
    out="$(rr_check "$1" 2>&1)"
    if [[ "$out" != C\ * ]]; then fail_client "session B: $3: $out"; failed=$((failed + 1)); return; fi
    record "$out" "$2" "($3)"
}
# expect_state 'ready|stale' WHAT: the entry's state is one of those
expect_state() {
    local st; st="$(state)"
    if [[ ! "$st" =~ ^($1)$ ]]; then failed=$((failed + 1)); log "FAIL: entry is '$st', expected '$1' ($2)"; fi
}
# wait until a backend waits for a lock on a statement matching $1
wait_lock_waiter() {
    local i
    for i in $(seq 1 600); do
        [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '$1'")" != 0 ] && return 0
        sleep 0.05
    done
    return 1
}

log "phase 1: scenarios"
s_start A
s_start C
b_check 0 cache "S0: a new snapshot after the load"
b_check 5 heap "S0: a column that is not cached"

# S1: a snapshot taken before the load commits reads the heap
q -c "SELECT gpu_cache_drop('cc')" >/dev/null
s_run A "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM cc;"
q -c "INSERT INTO cc SELECT r.* FROM generate_series(1000001, 1000050) i, LATERAL cc_row(i) r" >/dev/null
reload
expect_state ready "S1: after the load"
b_check 0 cache "S1: a snapshot after the load"
for v in 0 1 3 6; do s_check A "$v" heap "S1: a snapshot older than the load"; done
s_run A "COMMIT;"
s_run A "BEGIN ISOLATION LEVEL REPEATABLE READ;"
s_check A 0 cache "S1: the same session, a new snapshot"
s_run A "COMMIT;"

# S2: a write commits while a snapshot that read the cache is open; then a
# reload commits while it is still open.  Each snapshot must get its own
# answer; whether the cache follows the write or goes stale is not asserted
s_run A "BEGIN ISOLATION LEVEL REPEATABLE READ;"
s_check A 0 cache "S2: before the write"
q -c "UPDATE cc SET v = v + 1, g = g + 1 WHERE id <= 200" >/dev/null
expect_state 'ready|stale' "S2: after a committed UPDATE"
s_check A 0 "" "S2: an open snapshot after another session's write"
b_check 0 "" "S2: a new snapshot after the write"
reload
s_check A 0 heap "S2: an open snapshot older than the reload"
s_check A 3 heap "S2: an open snapshot older than the reload"
b_check 0 cache "S2: a new snapshot after the reload"
s_run A "COMMIT;"

# S3: an uncommitted write, then its rollback
s_run A "BEGIN; DELETE FROM cc WHERE id <= 100;"
# (the cache still holds what other sessions see: either source is right)
b_check 0 "" "S3: while another session's DELETE is uncommitted"
b_check 3 "" "S3: while another session's DELETE is uncommitted"
s_run A "ROLLBACK;"
expect_state 'ready|stale' "S3: after a rolled-back DELETE"
b_check 3 "" "S3: after a rolled-back DELETE"
reload
b_check 3 cache "S3: after the reload"

# S4: a load waits for an open writer, which then commits; the load must
# include the writer's rows
s_run A "BEGIN; INSERT INTO cc SELECT r.* FROM generate_series(1000101, 1000180) i, LATERAL cc_row(i) r;"
( q -c "SELECT gpu_cache_load('cc', $COLS)" >"$WORK/s4.out" 2>&1; echo $? >"$WORK/s4.rc" ) &
s4_pid=$!
if ! wait_lock_waiter '%gpu_cache_load%'; then
    fail_client "S4: the load did not wait for the open writer"
fi
s_run A "COMMIT;"
wait "$s4_pid"
[ "$(cat "$WORK/s4.rc" 2>/dev/null)" = 0 ] || fail_client "S4: the waiting load failed: $(cat "$WORK/s4.out" 2>/dev/null)"
expect_state ready "S4: after the load that waited"
for v in 0 3 6; do b_check "$v" cache "S4: after a load that waited for a writer"; done

# S5: a load in a REPEATABLE READ transaction whose snapshot predates a
# committed write: it may refuse, but what it caches must be right, for
# others and for itself
s_run A "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM cc;"
q -c "INSERT INTO cc SELECT r.* FROM generate_series(1000201, 1000260) i, LATERAL cc_row(i) r" >/dev/null
s_send A "SELECT gpu_cache_load('cc', $COLS);"
s5="$(s_output A)"
s_check A 3 "" "S5: the old snapshot that loaded"
s_run A "COMMIT;"
log "S5: a load in an old REPEATABLE READ snapshot: ${s5//$'\n'/ }; entry now $(state)"
for v in 0 3; do b_check "$v" "" "S5: after a load in an old snapshot"; done
reload

# S6: a load left open, then rolled back; others keep getting the right answer
s_run A "BEGIN; SELECT gpu_cache_load('cc', $COLS);"
log "S6: while another session's load is open: entry $(state)"
b_check 0 "" "S6: while another session's load is open"
s_run A "ROLLBACK;"
log "S6: after that load rolled back: entry $(state)"
b_check 0 "" "S6: after another session's load rolled back"
reload
b_check 0 cache "S6: after a new load"

# S7: a load in a transaction that already wrote to the table (refused with
# 0A000 by the specification); if it is not refused, a snapshot taken before
# that transaction commits must still get its own answer
s_run A "BEGIN; INSERT INTO cc SELECT r.* FROM generate_series(1000301, 1000340) i, LATERAL cc_row(i) r;"
s_send A "SELECT gpu_cache_load('cc', $COLS);"
s7="$(s_output A)"
case "$s7" in
    *0A000*|*"modified"*|*ERROR*) log "S7: the load after a write was refused: ${s7//$'\n'/ }" ;;
    *) failed=$((failed + 1)); log "FAIL: S7: a load after a write in the same transaction was not refused: ${s7//$'\n'/ }" ;;
esac
s_run C "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM cc;"
s_run A "COMMIT;"
log "S7: after that transaction ended: entry $(state)"
for v in 0 3; do s_check C "$v" "" "S7: a snapshot taken before the loading writer committed"; done
s_run C "COMMIT;"
for v in 0 3; do b_check "$v" "" "S7: a new snapshot"; done
reload

# S8: a role that may not load must be refused at once, not queue for the
# table's lock behind a writer (and hold up every later writer meanwhile)
s_run A "BEGIN; INSERT INTO cc SELECT r.* FROM LATERAL cc_row(1000401) r;"
s8="$(q -c "SET ROLE $NOBODY" -c "SET lock_timeout = '3s'" -c "SELECT gpu_cache_load('cc', $COLS)" 2>&1)"
s_run A "ROLLBACK;"
case "$s8" in
    *"permission denied"*) passed=$((passed + 1)) ;;
    *) failed=$((failed + 1)); log "FAIL: S8: a role that may not load got: ${s8//$'\n'/ }" ;;
esac

s_stop A
s_stop C
log "phase 1: $passed passed, $failed failed"

# ---------------------------------------------------------------------------
# phase 2: random writers and readers
# ---------------------------------------------------------------------------
cat >"$WORK/w_insert.sql" <<'EOF'
\set id random(1, 30000)
\set n random(0, 3)
\set r random(1, 10)
BEGIN;
INSERT INTO cc SELECT r.* FROM generate_series(0, :n) i, LATERAL cc_row(:id + i) r;
\if :r <= 7
COMMIT;
\else
ROLLBACK;
\endif
EOF
cat >"$WORK/w_update.sql" <<'EOF'
\set id random(1, 30000)
\set k random(0, 9)
\set r random(1, 10)
BEGIN;
UPDATE cc SET v = v + :k, g = (g + 1) % 12, f = f + 0.5, b = NOT b, d = d + 1, x = x + 1,
       t = CASE WHEN :k < 3 THEN 'new' || :k ELSE t END
 WHERE id BETWEEN :id AND :id + 2;
\if :r <= 7
COMMIT;
\else
ROLLBACK;
\endif
EOF
cat >"$WORK/w_delete.sql" <<'EOF'
\set id random(1, 30000)
\set r random(1, 10)
BEGIN;
DELETE FROM cc WHERE id BETWEEN :id AND :id + 1;
\if :r <= 7
COMMIT;
\else
ROLLBACK;
\endif
EOF
cat >"$WORK/w_move.sql" <<'EOF'
\set id random(1, 30000)
\set r random(1, 10)
BEGIN;
DELETE FROM cc WHERE id = :id;
INSERT INTO cc SELECT r.* FROM LATERAL cc_row(:id + 7) r;
\if :r <= 5
COMMIT;
\else
ROLLBACK;
\endif
EOF
cat >"$WORK/w_truncate.sql" <<'EOF'
BEGIN;
TRUNCATE cc;
ROLLBACK;
EOF
printf "SELECT gpu_cache_load('cc', %s);\n" "$COLS" >"$WORK/w_reload.sql"
cat >"$WORK/reader.sql" <<'EOF'
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM cc_reader(3, 0.05);
COMMIT;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM cc_reader(2, 0);
COMMIT;
EOF

start=$(date +%s)
deadline=$((start + SECS))

reader() {
    local r="$1" i=0
    while [ "$(date +%s)" -lt "$deadline" ] && [ "$i" -lt "$READER_MAX_ITER" ]; do
        i=$((i + 1))
        if ! timeout 180 psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -f "$WORK/reader.sql" \
                >>"$WORK/reader$r.out" 2>>"$WORK/reader$r.err"; then
            echo "reader $r: iteration $i failed" >>"$WORK/reader_failures"
        fi
    done
}
for r in $(seq 1 "$READERS"); do
    reader "$r" &
    BG_PIDS+=("$!")
done

round=0
while [ "$(date +%s)" -lt "$deadline" ]; do
    round=$((round + 1))
    left=$((deadline - $(date +%s)))
    t=$ROUND_WRITE
    [ "$left" -lt "$t" ] && t=$left
    [ "$t" -lt 1 ] && t=1
    if ! timeout $((t + 120)) "$PGBENCH" -n -c "$WRITERS" -j "$WRITERS" -T "$t" -R "$TPS" --max-tries=5 \
            -f "$WORK/w_insert.sql@30" -f "$WORK/w_update.sql@30" -f "$WORK/w_delete.sql@25" \
            -f "$WORK/w_move.sql@10" -f "$WORK/w_reload.sql@5" -f "$WORK/w_truncate.sql@1" \
            "$DB" >"$WORK/pgbench.$round.out" 2>&1; then
        fail_client "pgbench round $round exited non-zero:"
        grep -Ei 'error|abort|fatal' "$WORK/pgbench.$round.out" | head -5 | sed 's/^/    /'
    fi
    nfail="$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$WORK/pgbench.$round.out")"
    if [ -n "$nfail" ] && [ "$nfail" != 0 ]; then
        fail_client "pgbench round $round: $nfail failed transactions"
    fi
    ntx="$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$WORK/pgbench.$round.out")"
    echo "round $round: ${ntx:-?} writer transactions" >>"$WORK/rounds"
    reload
    sleep "$ROUND_QUIET"
done

for p in "${BG_PIDS[@]}"; do wait "$p" 2>/dev/null; done
BG_PIDS=()

# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------
p1_passed=$passed
p1_failed=$failed
if [ -f "$WORK/reader_failures" ]; then
    while read -r line; do fail_client "$line"; done <"$WORK/reader_failures"
fi
for r in $(seq 1 "$READERS"); do
    if [ -s "$WORK/reader$r.err" ]; then
        fail_client "reader $r wrote to stderr:"
        sort "$WORK/reader$r.err" | uniq -c | sort -rn | head -5 | sed 's/^/    /'
    fi
    if [ -f "$WORK/reader$r.out" ]; then
        while read -r line; do
            [ -n "$line" ] && record "$line" "" "(reader $r)"
        done <"$WORK/reader$r.out"
    fi
done
p2_checks=$(( passed + failed - p1_passed - p1_failed ))
writer_tx="$(awk '{ s += ($3 == "?" ? 0 : $3) } END { print s + 0 }' "$WORK/rounds" 2>/dev/null)"

# the table must still be readable and consistent after all that
final="$(rr_check 3 2>&1)"
if [[ "$final" == C\ * ]]; then record "$final" "" "(final)"; else fail_client "final check: $final"; fi

log "phase 2: $round rounds, ${writer_tx:-0} writer transactions, $p2_checks reader checks"
for k in "${!by_source[@]}"; do log "  source $k: ${by_source[$k]} checks"; done
log "checks: $((passed + failed)), read from the cache: $cache_used, differences or misreads: $failed, client errors: $client_errors"

rc=0
[ "$failed" -gt 0 ] && rc=1
[ "$client_errors" -gt 0 ] && { log "FAIL: $client_errors client error(s)"; rc=1; }
[ "$cache_used" -eq 0 ] && { log "FAIL: no check read the cache; this run tested nothing"; rc=1; }
[ "$p2_checks" -eq 0 ] && { log "FAIL: the readers made no check"; rc=1; }
[ "$negative_ok" = 1 ] || rc=1
echo "concurrent_cache: $passed passed, $failed failed"
exit "$rc"
