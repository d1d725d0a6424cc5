#!/bin/bash
# run_tests.sh — build gpudb and run every test suite in throwaway clusters,
# against one or more PostgreSQL versions.
#
# usage: bash test/run_tests.sh
#        PG_VERSIONS="15 18" bash test/run_tests.sh
#
# Which PostgreSQL: the major versions in PG_VERSIONS, one after the other;
# without it, PG_CONFIG's; without that, Debian 12's packaged 15.  A version
# Debian packages is used from /usr/lib/postgresql/MAJOR and its clusters are
# made by pg_virtualenv; any other is built from its source tarball by
# test/build_postgres.sh (once; cached in ~/.cache/gpudb/pgMAJOR, see there
# for where the tarball is looked for) and its clusters are made with initdb
# and pg_ctl directly (pg_virtualenv knows only Debian's versions), as is a
# PG_CONFIG that is not Debian's.  Either way a cluster has encoding UTF8 and
# locale C.UTF-8, whatever the caller's locale (the tests create ICU
# collations, which a SQL_ASCII database cannot have), and the whole run has
# LC_ALL=C.UTF-8.
#
# Steps (each is reported; a failure does not stop the later steps):
#   setup       test/setup_debian.sh --pg MAJOR... (skipped with GPUDB_SKIP_SETUP=1)
#   selftest    make test/device_selftest && ./test/device_selftest, once
#               (it uses no PostgreSQL; only when test/device_selftest.c exists)
#   then for each version MAJOR:
#   postgres    [source-built versions] test/build_postgres.sh MAJOR
#   build       make, make install (into that version)
#   then twice, in a fresh cluster each time:
#     [MAJOR/preload]   with shared_preload_libraries = gpudb
#     [MAJOR/nopreload] without it (the library is loaded on first use)
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
#     bench_smoke      [preload] only: test/bench/bench.py at a tiny scale
#     tpch22_diff      [preload] only, where TPC-H's dbgen source is at hand:
#                      the 22 TPC-H queries, gpudb against PostgreSQL, SF 0.01
#     ssb_diff         the same for SSB's 13 queries over those tables
#                      rearranged (test/bench/ssb.py), cached sides too
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
#   side_by_side       test/side_by_side.sh: gpudb preloaded after a module
#                      that registers PG-Strom's custom scan names and sets
#                      the hooks gpudb chains to, in a cluster of its own
#
# Environment:
#   PG_VERSIONS        PostgreSQL major versions to test, e.g. "15 18"
#                      (default: PG_CONFIG's version alone)
#   PG_CONFIG          without PG_VERSIONS: the PostgreSQL to test (default
#                      Debian's 15, /usr/lib/postgresql/15/bin/pg_config);
#                      ignored with PG_VERSIONS
#   GPUDB_TEST_DEVICE  gpudb.device of the test clusters: auto, gpu or cpu.
#                      Default: gpu when nvidia-smi lists a GPU, else cpu
#                      (so CI, which has no GPU, runs with cpu).
#   GPUDB_SKIP_SETUP=1 do not run test/setup_debian.sh
#   GPUDB_SKIP_PG_REGRESS=1  do not run test/pg_regress_suite.sh
#   GPUDB_TEST_SHARDS  gpudb.cache_shards of the [MAJOR/preload] sessions, one
#                      value per version in PG_VERSIONS' order, cycled
#                      (default "0 3": the first version's cache unsharded,
#                      the second's in 3 shards, so that CI's "15 18" runs
#                      every suite over both; 0 = the server's default)
#   GPUDB_TEST_TIMEOUT seconds allowed to each cluster session (default 1800)
#   GPUDB_CACHE, GPUDB_PG_TARBALL_DIR  see test/build_postgres.sh
#
# Exits non-zero when any step fails.  The summary ends with one line per
# version ("run_tests: PostgreSQL 18: PASS, 12 passed, 0 failed") and, last,
# "run_tests: N passed, M failed" over all of them.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
GDB_ROOT="$ROOT"
# shellcheck source=test/pg_lib.sh
source "$ROOT/test/pg_lib.sh"

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
    label="$2"                  # MAJOR/preload or MAJOR/nopreload
    config="${label##*/}"
    # a cluster of gdb_with_cluster's own (not pg_virtualenv's) names its
    # server log, which the scripts cannot find through pg_lsclusters
    if [ -n "${GDB_SERVER_LOG:-}" ]; then
        export FAULTS_SERVER_LOG="${FAULTS_SERVER_LOG:-$GDB_SERVER_LOG}" \
            SERVER_PROCESS_LOG="${SERVER_PROCESS_LOG:-$GDB_SERVER_LOG}" \
            LOAD_SERVER_LOG="${LOAD_SERVER_LOG:-$GDB_SERVER_LOG}"
    fi
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

    if [ "$config" = preload ]; then
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
        # SSB's 13 star joins over the same tables, the cached sides too
        section "SSB 13 queries differential (SF 0.01)"
        if ! python3 -c 'import sys; sys.path.insert(0, "test/bench"); import tpch; tpch.dbgen_source("")' \
                >/dev/null 2>&1; then
            echo "ssb: skipped (no dbgen source: ../shared/tpch-dbgen or \$TPCH_DBGEN_SRC)"
        elif python3 test/bench/ssb.py diff --sf 0.01 --cache --out "$(mktemp -d)"; then
            result PASS ssb_diff
        else
            result FAIL ssb_diff
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
# Outside: setup, then per version the build and the cluster sessions.
# ---------------------------------------------------------------------------
start_time=$(date +%s)
GPUDB_RESULTS="$(mktemp -t gpudb-results.XXXXXX)"
export GPUDB_RESULTS
trap 'rm -f "$GPUDB_RESULTS"' EXIT
trap 'exit 130' INT TERM
result() { echo "$1 $2" >> "$GPUDB_RESULTS"; }
section() { printf '\n==== %s ====\n' "$1"; }

# The run does not depend on the caller's environment (a chroot or a
# minimal container sets no locale, env -i not even PATH; a German locale
# would translate psql's messages).  The clusters get their encoding and
# locale explicitly: gdb_with_cluster.
gdb_sane_env

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

# The versions: PG_VERSIONS, else PG_CONFIG's (read from its path when it is
# Debian's and not installed yet), else Debian's own.
GIVEN_PG_CONFIG=""
if [ -n "${PG_VERSIONS:-}" ]; then
    read -r -a VERSIONS <<< "$PG_VERSIONS"
    [ "${#VERSIONS[@]}" -gt 0 ] || { echo "run_tests: PG_VERSIONS lists no version" >&2; exit 2; }
    for v in "${VERSIONS[@]}"; do
        [[ "$v" =~ ^[0-9]+$ ]] || { echo "run_tests: PG_VERSIONS must list major versions, e.g. \"15 18\" (got '$PG_VERSIONS')" >&2; exit 2; }
    done
    [ -n "${PG_CONFIG:-}" ] && echo "run_tests: PG_VERSIONS is set: PG_CONFIG ($PG_CONFIG) is ignored"
elif [ -n "${PG_CONFIG:-}" ]; then
    GIVEN_PG_CONFIG="$PG_CONFIG"
    if v="$(gdb_pg_major "$PG_CONFIG")"; then
        VERSIONS=("$v")
    elif [[ "$PG_CONFIG" =~ ^/usr/lib/postgresql/([0-9]+)/bin/pg_config$ ]]; then
        VERSIONS=("${BASH_REMATCH[1]}")
    else
        echo "run_tests: cannot run $PG_CONFIG --version" >&2; exit 2
    fi
else
    VERSIONS=("$GDB_DEBIAN_PGMAJOR")
fi
echo "run_tests: $(date -u '+%F %T') UTC, PostgreSQL ${VERSIONS[*]}, gpudb.device = $GPUDB_TEST_DEVICE, CI = ${CI:-}${GIVEN_PG_CONFIG:+, PG_CONFIG = $GIVEN_PG_CONFIG}"

section "setup"
if [ "${GPUDB_SKIP_SETUP:-0}" = 1 ]; then
    echo "skipped (GPUDB_SKIP_SETUP=1)"
else
    setup_args=()
    for v in "${VERSIONS[@]}"; do setup_args+=(--pg "$v"); done
    if bash test/setup_debian.sh "${setup_args[@]}"; then
        result PASS setup
    else
        result FAIL setup
        echo "run_tests: FAIL (setup failed; nothing else can run)"
        echo "run_tests: 0 passed, 1 failed"
        exit 1
    fi
fi

# ---------------------------------------------------------------------------
# The device self-test uses no PostgreSQL: once, with the first version's
# build (it needs a PG_CONFIG only to read the Makefile).
# ---------------------------------------------------------------------------
selftest_done=0
run_selftest() {
    selftest_done=1
    section "device self-test"
    if [ ! -f test/device_selftest.c ]; then
        echo "skipped: test/device_selftest.c is absent"
        result SKIP selftest
    elif make test/device_selftest PG_CONFIG="$PG_CONFIG" && ./test/device_selftest; then
        result PASS selftest
    else
        result FAIL selftest
    fi
}

# ---------------------------------------------------------------------------
# test_version MAJOR: every step against one PostgreSQL version.
# ---------------------------------------------------------------------------
VERSION_INFO=()                 # "MAJOR|what it was" per version, for the summary
test_version() {
    local major="$1" kind config rc timeout_s step
    vresult() { result "$1" "[$major] $2"; }

    section "PostgreSQL $major"
    # which server: the given PG_CONFIG, Debian's package, or a source build
    if [ -n "$GIVEN_PG_CONFIG" ]; then
        PG_CONFIG="$GIVEN_PG_CONFIG"
    elif [ -x "$(gdb_debian_pg_config "$major")" ]; then
        PG_CONFIG="$(gdb_debian_pg_config "$major")"
    else
        section "PostgreSQL $major from source (test/build_postgres.sh $major)"
        local t0=$(date +%s)
        if PG_CONFIG="$(bash test/build_postgres.sh "$major")" && [ -x "$PG_CONFIG" ]; then
            vresult PASS postgres
            echo "run_tests: PostgreSQL $major ready in $(( $(date +%s) - t0 ))s"
        else
            vresult FAIL postgres
            VERSION_INFO+=("$major|no server: test/build_postgres.sh failed")
            return
        fi
    fi
    export PG_CONFIG
    if [ "$(gdb_pg_major "$PG_CONFIG" 2>/dev/null)" != "$major" ]; then
        echo "run_tests: $PG_CONFIG is not PostgreSQL $major ($("$PG_CONFIG" --version 2>&1))"
        vresult FAIL postgres
        VERSION_INFO+=("$major|no server: $PG_CONFIG is not PostgreSQL $major")
        return
    fi
    if gdb_is_debian_pg "$PG_CONFIG"; then
        kind=pg_virtualenv
    else
        kind=initdb/pg_ctl
    fi
    VERSION_INFO+=("$major|$("$PG_CONFIG" --version), $PG_CONFIG, clusters by $kind")
    echo "run_tests: PostgreSQL $major: $("$PG_CONFIG" --version), PG_CONFIG = $PG_CONFIG, clusters by $kind"

    section "build [$major]"
    # make install needs sudo only where this user cannot write (Debian's
    # server as a user; not a source build in the user's cache)
    local install_sudo=("${SUDO[@]}")
    [ -w "$("$PG_CONFIG" --pkglibdir)" ] && install_sudo=()
    if make -j"$(nproc)" PG_CONFIG="$PG_CONFIG" && "${install_sudo[@]}" make install PG_CONFIG="$PG_CONFIG"; then
        vresult PASS build
    else
        vresult FAIL build
        return
    fi

    [ "$selftest_done" = 1 ] || run_selftest

    timeout_s="${GPUDB_TEST_TIMEOUT:-1800}"
    for config in preload nopreload; do
        local gucs=("gpudb.device=$GPUDB_TEST_DEVICE")
        [ "$config" = preload ] && gucs+=("shared_preload_libraries=gpudb")
        # the version's shards (GPUDB_TEST_SHARDS, cycled over the versions)
        if [ "$config" = preload ] && [ "$version_shards" != 0 ]; then
            gucs+=("gpudb.cache_shards=$version_shards")
        fi
        section "cluster session [$major/$config]: ${gucs[*]}"
        gdb_with_cluster "$timeout_s" "${gucs[@]}" -- bash "$ROOT/test/run_tests.sh" --inside "$major/$config"
        rc=$?
        if [ "$rc" != 0 ]; then
            [ "$rc" = 124 ] && echo "run_tests: the [$major/$config] session ran past ${timeout_s}s"
            result FAIL "[$major/$config] session(rc=$rc)"
        fi
    done
    # Every suite must have reported in both sessions.
    for config in preload nopreload; do
        for step in installcheck pgtap guc_table; do
            grep -q " \[$major/$config\] $step\$" "$GPUDB_RESULTS" || result FAIL "[$major/$config] $step(no result)"
        done
    done
    for step in concurrent_cache load_pgbench faults random_queries bench_smoke server_process; do
        grep -q " \[$major/preload\] $step\$" "$GPUDB_RESULTS" || result FAIL "[$major/preload] $step(no result)"
    done

    section "PostgreSQL's regression suite, vanilla against gpudb [$major] (test/pg_regress_suite.sh)"
    if [ "${GPUDB_SKIP_PG_REGRESS:-0}" = 1 ]; then
        echo "skipped (GPUDB_SKIP_PG_REGRESS=1)"
        vresult SKIP pg_regress_suite
    elif GPUDB_PGREGRESS_DEVICE="$GPUDB_TEST_DEVICE" bash test/pg_regress_suite.sh </dev/null; then
        vresult PASS pg_regress_suite
    else
        vresult FAIL pg_regress_suite
    fi

    # gpudb beside a module that takes PG-Strom's custom scan names (and
    # sets every hook gpudb chains to) first, in a throwaway cluster
    section "side by side with PG-Strom's custom scan names [$major] (test/side_by_side.sh)"
    if bash test/side_by_side.sh </dev/null; then
        vresult PASS side_by_side
    else
        vresult FAIL side_by_side
    fi
}

read -r -a TEST_SHARDS <<< "${GPUDB_TEST_SHARDS:-0 3}"
[ "${#TEST_SHARDS[@]}" -gt 0 ] || TEST_SHARDS=(0)
vi=0
for v in "${VERSIONS[@]}"; do
    version_shards="${TEST_SHARDS[$(( vi % ${#TEST_SHARDS[@]} ))]}"
    vi=$((vi + 1))
    test_version "$v"
done
[ "$selftest_done" = 1 ] || { section "device self-test"; echo "skipped: no version built"; result SKIP selftest; }

section "summary"
sed 's/^/  /' "$GPUDB_RESULTS"
elapsed=$(( $(date +%s) - start_time ))
# per version: its own steps ([MAJOR] and [MAJOR/...]); setup and selftest
# belong to none
for info in "${VERSION_INFO[@]}"; do
    major="${info%%|*}"
    lines="$(grep -E "^[A-Z]+ \[$major(/[a-z]+)?\] " "$GPUDB_RESULTS")"
    vp="$(grep -c '^PASS' <<< "$lines")"
    vf="$(grep -c '^FAIL' <<< "$lines")"
    vfailed="$(awk '$1 == "FAIL" { $1 = ""; sub(/^ /, ""); printf "%s%s", sep, $0; sep = ", " }' <<< "$lines")"
    echo "run_tests: PostgreSQL $major (${info#*|}): $([ "$vf" = 0 ] && [ "$vp" -gt 0 ] && echo PASS || echo FAIL), $vp passed, $vf failed${vfailed:+: $vfailed}"
done
failed="$(awk '$1 == "FAIL" { $1 = ""; sub(/^ /, ""); printf "%s%s", sep, $0; sep = ", " }' "$GPUDB_RESULTS")"
passed="$(grep -c '^PASS' "$GPUDB_RESULTS")"
nfailed="$(grep -c '^FAIL' "$GPUDB_RESULTS")"
if [ -n "$failed" ] || [ "$passed" = 0 ]; then
    echo "run_tests: FAIL ($passed passed; failed: ${failed:-nothing passed}) in ${elapsed}s, PostgreSQL ${VERSIONS[*]}, gpudb.device = $GPUDB_TEST_DEVICE"
    echo "run_tests: $passed passed, $(( nfailed > 0 ? nfailed : 1 )) failed"
    exit 1
fi
echo "run_tests: PASS ($passed steps passed) in ${elapsed}s, PostgreSQL ${VERSIONS[*]}, gpudb.device = $GPUDB_TEST_DEVICE"
echo "run_tests: $passed passed, 0 failed"
