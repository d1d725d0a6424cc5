#!/bin/bash
# run_tests.sh — build gpudb and run every test suite in throwaway clusters.
#
# usage: bash test/run_tests.sh
#
# Steps (each is reported; a failure does not stop the later steps):
#   setup       test/setup_debian.sh (skipped with GPUDB_SKIP_SETUP=1)
#   build       make, make install (PG_CONFIG, default PostgreSQL 15's)
#   selftest    make test/device_selftest && ./test/device_selftest
#               (only when test/device_selftest.c exists)
#   then twice, in a fresh pg_virtualenv cluster each time:
#     [preload]   with shared_preload_libraries = gpudb
#     [nopreload] without it (the library is loaded on first use)
#   the suites:
#     installcheck     make installcheck (pg_regress: sql/ + expected/, then
#                      pg_isolation_regress: specs/ + expected/);
#                      regression.diffs is printed on failure
#     pgtap            pg_prove test/*.sql
#     guc_table        test/check_guc_table.sh (README's table vs pg_settings)
#                      and test/opcode_table.py --check (README's opcode table),
#                      plus negative controls: copies of README.md with one
#                      default changed, or one row removed, must make it fail
#     concurrent_cache [preload] only: test/concurrent_cache.sh, writers and
#                      readers against the column cache (CONCURRENT_SECONDS,
#                      default here 15)
#     load_pgbench     [preload] only: test/load_pgbench.sh, pgbench clients
#                      reading (every answer checked) and writing at once,
#                      plus the GPU server socket's modes (LOAD_CLIENTS and
#                      LOAD_SECONDS, default here 16 and 10)
#     random_queries   [preload] only: test/random_queries.py --self-check, then
#                      RANDOM_QUERIES (default 500, a fifth of them joins)
#                      seeded random queries with gpudb on vs off; fails on
#                      any difference or when fewer than 50 used a Gpu plan
#                      node
#     faults           [preload] only: test/faults.sh, pg_terminate_backend,
#                      pg_cancel_backend and kill -9 of the GPU server process
#     server_process   [preload] only, last (it restarts the cluster):
#                      test/server_process.sh, the GPU server process maps no
#                      PostgreSQL shared memory, logs its own PID, and dies
#                      with its worker (kill -9 of the worker)
#   pg_regress_suite   outside those sessions, in two clusters of its own:
#                      test/pg_regress_suite.sh, PostgreSQL's own regression
#                      suite run vanilla and with gpudb preloaded and its plan
#                      nodes forced; fails on a result difference not listed
#                      in test/pg_regress_suite.known (skipped with
#                      GPUDB_SKIP_PG_REGRESS=1)
#
# Environment:
#   GPUDB_TEST_DEVICE  gpudb.device of the test clusters: auto, gpu or cpu.
#                      Default: gpu when nvidia-smi lists a GPU, else cpu
#                      (so CI, which has no GPU, runs with cpu).
#   PG_CONFIG          default /usr/lib/postgresql/15/bin/pg_config
#   GPUDB_SKIP_SETUP=1 do not run test/setup_debian.sh
#   GPUDB_SKIP_PG_REGRESS=1  do not run test/pg_regress_suite.sh
#   GPUDB_TEST_TIMEOUT seconds allowed to each cluster session (default 1800)
#
# Exits non-zero when any step fails; the last line is the summary.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
export PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"
PGMAJOR=15

# mutate_guc_table MODE: README on stdin with the first row of the GUC table
# altered (MODE default: its default cell; droprow: the row removed).
mutate_guc_table() {
    awk -v mode="$1" '
        /^## / { insec = ($0 ~ /^## Configuration \(GUCs\)/) }
        insec && /^[ \t]*\|/ && !done {
            rows++
            if (rows >= 3) {                    # after the header and |---| lines
                done = 1
                if (mode == "droprow") next
                n = split($0, c, "|"); c[4] = " `__not_the_default__` "
                line = c[1]; for (i = 2; i <= n; i++) line = line "|" c[i]
                print line; next
            }
        }
        { print }'
}

# ---------------------------------------------------------------------------
# Inside a cluster (pg_virtualenv runs this script again with --inside LABEL):
# run the suites against the cluster named by the PG* variables and append one
# "PASS|FAIL [LABEL] SUITE" line per suite to $GPUDB_RESULTS.
# ---------------------------------------------------------------------------
if [ "${1:-}" = "--inside" ]; then
    label="$2"
    result() { echo "$1 [$label] $2" >> "$GPUDB_RESULTS"; }
    section() { printf '\n==== %s [%s] ====\n' "$1" "$label"; }

    section "cluster"
    psql -X -Atc "SELECT version()" || { result FAIL cluster; exit 1; }
    psql -X -Atc "SELECT 'shared_preload_libraries = ''' || current_setting('shared_preload_libraries') || ''''"
    psql -X -Atc "SELECT 'gpudb.device (postgresql.conf) = ' || coalesce((SELECT setting FROM pg_file_settings WHERE name = 'gpudb.device' ORDER BY seqno DESC LIMIT 1), '(unset)')"

    section "installcheck (pg_regress)"
    rm -f regression.diffs regression.out output_iso/regression.diffs output_iso/regression.out
    if make -s installcheck PG_CONFIG="$PG_CONFIG"; then
        result PASS installcheck
    else
        result FAIL installcheck
        # pg_regress's, then pg_isolation_regress's (specs/)
        for diffs in regression.diffs output_iso/regression.diffs; do
            if [ -f "$diffs" ]; then
                echo "---- $diffs [$label] ----"
                cat "$diffs"
                echo "---- end of $diffs ----"
                cp "$diffs" "results/$(echo "$diffs" | tr / _).$label" 2>/dev/null || true
            fi
        done
    fi

    section "pgTAP (pg_prove test/*.sql)"
    shopt -s nullglob
    tap_files=(test/*.sql)
    if [ "${#tap_files[@]}" = 0 ]; then
        echo "no test/*.sql"
        result FAIL pgtap
    elif pg_prove --failures --comments "${tap_files[@]}"; then
        result PASS pgtap
    else
        result FAIL pgtap
    fi

    section "README GUC table vs pg_settings"
    if bash test/check_guc_table.sh README.md && python3 test/opcode_table.py --check; then
        # negative controls: the check must notice a wrong default and a
        # GUC missing from the table
        controls_ok=1
        for mode in default droprow; do
            bad="$(mktemp)"
            mutate_guc_table "$mode" < README.md > "$bad"
            if cmp -s README.md "$bad"; then
                echo "negative control ($mode): could not alter the table in a copy of README.md"
                controls_ok=0
            elif bash test/check_guc_table.sh "$bad" >/dev/null 2>&1; then
                echo "negative control ($mode): check_guc_table.sh accepted a wrong table"
                controls_ok=0
            else
                echo "negative control ($mode): detected, as it must be"
            fi
            rm -f "$bad"
        done
        if [ "$controls_ok" = 1 ]; then result PASS guc_table; else result FAIL guc_table; fi
    else
        result FAIL guc_table
    fi

    if [ "$label" = preload ]; then
        section "concurrent cache test"
        if CONCURRENT_SECONDS="${CONCURRENT_SECONDS:-15}" bash test/concurrent_cache.sh; then
            result PASS concurrent_cache
        else
            result FAIL concurrent_cache
        fi
        section "load test (pgbench)"
        if LOAD_CLIENTS="${LOAD_CLIENTS:-16}" LOAD_SECONDS="${LOAD_SECONDS:-10}" bash test/load_pgbench.sh; then
            result PASS load_pgbench
        else
            result FAIL load_pgbench
        fi
        section "random differential queries (plan nodes on vs off)"
        if python3 test/random_queries.py --self-check \
                --setup-sql "SET gpudb.device = $GPUDB_TEST_DEVICE" &&
            python3 test/random_queries.py --queries "${RANDOM_QUERIES:-500}" --min-gpu 50 \
                --setup-sql "SET gpudb.device = $GPUDB_TEST_DEVICE"; then
            result PASS random_queries
        else
            result FAIL random_queries
        fi
        section "fault test"
        if bash test/faults.sh; then
            result PASS faults
        else
            result FAIL faults
        fi

        # the benchmark harness at a tiny scale, so that it cannot rot
        # (no timing is asserted: speed is measured on the GPU host)
        section "benchmark smoke run"
        bench_out="$(mktemp -d)"
        if python3 test/bench/bench.py --rows 20000 --reps 1 --workers 0 --out "$bench_out" &&
            grep -q '^| B1 ' "$bench_out"/*.md && grep -q '^| 1000 rows | B1 ' "$bench_out"/*.md &&
            grep -q '^\*\*Sections in this run: synthetic' "$bench_out"/*.md; then
            result PASS bench_smoke
        else
            result FAIL bench_smoke
        fi

        # the 22 TPC-H queries, gpudb against PostgreSQL, at SF 0.01 (where
        # TPC-H's dbgen source is at hand: it is never part of the checkout)
        section "TPC-H 22 queries differential (SF 0.01)"
        if ! python3 -c 'import sys; sys.path.insert(0, "test/bench"); import tpch; tpch.dbgen_source("")' \
                >/dev/null 2>&1; then
            echo "tpch22: skipped (no dbgen source: ../shared/tpch-dbgen or \$TPCH_DBGEN_SRC)"
        elif python3 test/bench/tpch22.py diff --sf 0.01 --out "$(mktemp -d)"; then
            result PASS tpch22_diff
        else
            result FAIL tpch22_diff
        fi

        # last: its kill -9 of the GPU server worker restarts the cluster
        section "GPU server process (shared memory, PID, death with its worker)"
        if bash test/server_process.sh; then
            result PASS server_process
        else
            result FAIL server_process
        fi
    fi
    exit 0
fi

# ---------------------------------------------------------------------------
# Outside: setup, build, then one cluster session per configuration.
# ---------------------------------------------------------------------------
start_time=$(date +%s)
GPUDB_RESULTS="$(mktemp -t gpudb-results.XXXXXX)"
export GPUDB_RESULTS
trap 'rm -f "$GPUDB_RESULTS"' EXIT
result() { echo "$1 $2" >> "$GPUDB_RESULTS"; }
section() { printf '\n==== %s ====\n' "$1"; }

SUDO=()
[ "$(id -u)" = 0 ] || SUDO=(sudo -n)

if [ -z "${GPUDB_TEST_DEVICE:-}" ]; then
    if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
        GPUDB_TEST_DEVICE=gpu
    else
        GPUDB_TEST_DEVICE=cpu
    fi
fi
case "$GPUDB_TEST_DEVICE" in
    auto|gpu|cpu) ;;
    *) echo "run_tests: GPUDB_TEST_DEVICE must be auto, gpu or cpu (got '$GPUDB_TEST_DEVICE')" >&2; exit 2 ;;
esac
export GPUDB_TEST_DEVICE
echo "run_tests: $(date -u '+%F %T') UTC, gpudb.device = $GPUDB_TEST_DEVICE, PG_CONFIG = $PG_CONFIG, CI = ${CI:-}"

section "setup"
if [ "${GPUDB_SKIP_SETUP:-0}" = 1 ]; then
    echo "skipped (GPUDB_SKIP_SETUP=1)"
elif bash test/setup_debian.sh; then
    result PASS setup
else
    result FAIL setup
    echo "run_tests: FAIL (setup failed; nothing else can run)"
    exit 1
fi

section "build"
build_ok=0
if make -j"$(nproc)" PG_CONFIG="$PG_CONFIG" && "${SUDO[@]}" make install PG_CONFIG="$PG_CONFIG"; then
    build_ok=1
    result PASS build
else
    result FAIL build
fi

section "device self-test"
if [ ! -f test/device_selftest.c ]; then
    echo "skipped: test/device_selftest.c is absent"
    result SKIP selftest
elif [ "$build_ok" != 1 ]; then
    echo "skipped: the build failed"
    result SKIP selftest
elif make test/device_selftest PG_CONFIG="$PG_CONFIG" && ./test/device_selftest; then
    result PASS selftest
else
    result FAIL selftest
fi

if [ "$build_ok" = 1 ]; then
    # -t: a temporary cluster directory even as root, so nothing under
    # /etc/postgresql is touched and a killed earlier run leaves nothing behind.
    timeout_s="${GPUDB_TEST_TIMEOUT:-1800}"
    for config in preload nopreload; do
        opts=(-t -v "$PGMAJOR" -o "gpudb.device=$GPUDB_TEST_DEVICE")
        [ "$config" = preload ] && opts+=(-o "shared_preload_libraries=gpudb")
        section "cluster session [$config]: pg_virtualenv ${opts[*]}"
        timeout --kill-after=30 "$timeout_s" \
            pg_virtualenv "${opts[@]}" bash "$ROOT/test/run_tests.sh" --inside "$config" </dev/null
        rc=$?
        if [ "$rc" != 0 ]; then
            [ "$rc" = 124 ] && echo "run_tests: the [$config] session ran past ${timeout_s}s"
            result FAIL "session[$config](rc=$rc)"
        fi
    done
    # Every suite must have reported in both sessions.
    for config in preload nopreload; do
        for step in installcheck pgtap guc_table; do
            grep -q " \[$config\] $step\$" "$GPUDB_RESULTS" || result FAIL "${step}[$config](no result)"
        done
    done
    grep -q " \[preload\] concurrent_cache\$" "$GPUDB_RESULTS" || result FAIL "concurrent_cache[preload](no result)"
    grep -q " \[preload\] load_pgbench\$" "$GPUDB_RESULTS" || result FAIL "load_pgbench[preload](no result)"
    grep -q " \[preload\] faults\$" "$GPUDB_RESULTS" || result FAIL "faults[preload](no result)"
    grep -q " \[preload\] random_queries\$" "$GPUDB_RESULTS" || result FAIL "random_queries[preload](no result)"
    grep -q " \[preload\] bench_smoke\$" "$GPUDB_RESULTS" || result FAIL "bench_smoke[preload](no result)"
    grep -q " \[preload\] server_process\$" "$GPUDB_RESULTS" || result FAIL "server_process[preload](no result)"
fi

section "PostgreSQL's regression suite, vanilla against gpudb (test/pg_regress_suite.sh)"
if [ "${GPUDB_SKIP_PG_REGRESS:-0}" = 1 ]; then
    echo "skipped (GPUDB_SKIP_PG_REGRESS=1)"
    result SKIP pg_regress_suite
elif [ "$build_ok" != 1 ]; then
    echo "skipped: the build failed"
    result SKIP pg_regress_suite
elif GPUDB_PGREGRESS_DEVICE="$GPUDB_TEST_DEVICE" bash test/pg_regress_suite.sh </dev/null; then
    result PASS pg_regress_suite
else
    result FAIL pg_regress_suite
fi

section "summary"
sed 's/^/  /' "$GPUDB_RESULTS"
failed="$(awk '$1 == "FAIL" { $1 = ""; sub(/^ /, ""); printf "%s%s", sep, $0; sep = ", " }' "$GPUDB_RESULTS")"
passed="$(grep -c '^PASS' "$GPUDB_RESULTS")"
elapsed=$(( $(date +%s) - start_time ))
nfailed="$(grep -c '^FAIL' "$GPUDB_RESULTS")"
if [ -n "$failed" ] || [ "$build_ok" != 1 ]; then
    echo "run_tests: FAIL ($passed passed; failed: ${failed:-build}) in ${elapsed}s, gpudb.device = $GPUDB_TEST_DEVICE"
    echo "run_tests: $passed passed, $(( nfailed > 0 ? nfailed : 1 )) failed"
    exit 1
fi
echo "run_tests: PASS ($passed steps passed) in ${elapsed}s, gpudb.device = $GPUDB_TEST_DEVICE"
echo "run_tests: $passed passed, 0 failed"
