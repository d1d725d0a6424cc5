#!/bin/bash
# test/gpu_host_run.sh — run on the GPU host (through the device tool), from the
# project root, after ../shared/gpu-host/bundle.sh made .gpu-bundle/ here.
#
#   bash test/gpu_host_run.sh [suites|bench|all|bench-start|bench-wait [SECONDS]|tpch [SF]|tpch-start [SF]|tpch-wait [SECONDS]
#                              |tpch22 [SF]|tpch22-start [SF]|ssb [SF]|ssb-start [SF]|multi-gpu]
#
# GPUDB_BUNDLE names the bundle (default .gpu-bundle): another PostgreSQL
# version's, made by GPUDB_PG_PREFIX=PREFIX ../shared/gpu-host/bundle.sh . DIR
# (README "On a GPU host").  A server of another bundle still running on a
# warm machine is stopped first.
#
# Starts the bundled PostgreSQL with gpudb preloaded and gpudb.device = gpu,
# runs the device self-test (GPU path against the CPU path), the pg_regress
# and pgTAP suites, and optionally the benchmark; logs go to $OUT (or ./gpu-logs).
#
# The benchmark (test/bench/bench.py; the section "the benchmark" below says
# what it takes):
#   bench        runs it now, results in $OUT/bench/ and $OUT/bench.log;
#   bench-start  starts the same run detached (setsid) and returns at once, for
#                a device tool whose commands may last 10 minutes: the run and
#                the server go on while the machine stays warm;
#   bench-wait   waits up to SECONDS (default 540) for that run, shows its
#                progress and copies its results so far to $OUT/bench/; call
#                it again until it says "finished".
#
#   bash test/gpu_host_run.sh tpch|tpch-start [SF]   or   tpch-wait [SECONDS]
# TPC-H Q1 and Q6 (test/bench/tpch.py; the section "TPC-H" below says what it
# takes): tpch runs it now at SF (default 10), results in $OUT/tpch/ and
# $OUT/tpch.log; tpch-start and tpch-wait run it detached, as bench-start and
# bench-wait do.  Neither runs the suites or the benchmark.
#
#   bash test/gpu_host_run.sh tpch22 [SF]   or   tpch22-start [SF], then tpch-wait [SECONDS]
# The 22 TPC-H queries over the eight tables (test/bench/tpch22.py): tpch22
# runs the differential now (gpudb's results against PostgreSQL's, costs
# zeroed and default, heap and cache; SF default 1), results in $OUT/tpch22/
# and $OUT/tpch22.log; tpch22-start runs the timing detached (SF default 10)
# and tpch-wait follows it, as for tpch-start.
set -uo pipefail
what=${1:-all}
OUT=${OUT:-$PWD/gpu-logs}
mkdir -p "$OUT"
status=0

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"

# the self-test first, alone on the device (its reset case must not meet the
# server's context)
if [ "$what" = suites ] || [ "$what" = all ]; then
    if [ -x test/device_selftest ]; then
        ./test/device_selftest > "$OUT/selftest.log" 2>&1 || status=1
        tail -n 3 "$OUT/selftest.log"
    fi
fi

# a warm machine may still run the last call's server: kept if it is this
# bundle's and this script started it (with the settings below), else
# stopped and its files removed (a server start.sh started by hand runs
# PostgreSQL's defaults: 128MB shared_buffers, 4MB work_mem, 8 parallel
# workers, which no benchmark may compare against)
BUNDLE=${GPUDB_BUNDLE:-.gpu-bundle}
# the results are named by the commit the bundle was built from: the copy
# of the checkout on the GPU host may carry an older .git than its files
if [ -z "${BENCH_COMMIT:-}" ] && [ -s "$BUNDLE/COMMIT" ]; then
    BENCH_COMMIT=$(cat "$BUNDLE/COMMIT")
    export BENCH_COMMIT
fi
if [ -d /tmp/gpudb-pg ] && { [ ! -f /tmp/gpudb-pg/bundle ] ||
     [ "$(cat /tmp/gpudb-pg/bundle)" != "$(md5sum < "$BUNDLE/pg.tgz")" ]; }; then
    su gpudb -s /bin/bash -c "source /tmp/gpudb-pg/env.sh; pg_ctl -D /tmp/gpudb-pg/data stop -m fast" >/dev/null 2>&1
    rm -rf /tmp/gpudb-pg
fi
[ -f /tmp/gpudb-pg/env.sh ] && (source /tmp/gpudb-pg/env.sh; psql -X -Atqc 'SELECT 1' >/dev/null 2>&1) ||
bash "$BUNDLE/start.sh" "gpudb.device = gpu" "shared_buffers = '16GB'" \
    "max_parallel_workers_per_gather = 16" "max_worker_processes = 32" "max_parallel_workers = 32" \
    "work_mem = '1GB'" "max_wal_size = '8GB'" > "$OUT/start.log" 2>&1 || { cat "$OUT/start.log"; exit 1; }
# (max_wal_size: the benchmark's builds write ~25 GB of heap, flights_300m 18 GB
# of it; at the default 1GB a checkpoint came every few hundred MB of it)
[ -f /tmp/gpudb-pg/bundle ] || md5sum < "$BUNDLE/pg.tgz" > /tmp/gpudb-pg/bundle
# shellcheck disable=SC1091
source /tmp/gpudb-pg/env.sh
chmod -R a+rwX . 2>/dev/null   # the server runs as user gpudb; pg_regress writes results/

if [ "$what" = suites ] || [ "$what" = all ]; then
    psql -X -c "CREATE EXTENSION IF NOT EXISTS gpudb" -c "SELECT * FROM gpu_devices()" \
        -c "SHOW gpudb.device" > "$OUT/devices.log" 2>&1
    cat "$OUT/devices.log"
    su gpudb -s /bin/bash -c "source /tmp/gpudb-pg/env.sh; make -s installcheck PG_CONFIG=\$PG_CONFIG" \
        > "$OUT/installcheck.log" 2>&1 || { status=1; cp regression.diffs "$OUT/" 2>/dev/null; }
    tail -n 5 "$OUT/installcheck.log"
    psql -X -q -c "CREATE DATABASE gpudb_tap" >/dev/null 2>&1
    PGDATABASE=gpudb_tap psql -X -q -c "CREATE EXTENSION IF NOT EXISTS pgtap" -c "CREATE EXTENSION IF NOT EXISTS gpudb"
    PGDATABASE=gpudb_tap pg_prove test/*.sql > "$OUT/pg_prove.log" 2>&1 || status=1
    tail -n 4 "$OUT/pg_prove.log"
    python3 test/random_queries.py --self-check --setup-sql "SET gpudb.device = gpu" \
        > "$OUT/random_queries.log" 2>&1 || status=1
    # at least 2 in 15 queries on a Gpudb node (200 of the default 1500)
    rq=${RANDOM_QUERIES:-1500}
    python3 test/random_queries.py --queries "$rq" --min-gpu $((rq * 2 / 15)) \
        --rows 20000 --setup-sql "SET gpudb.device = gpu" >> "$OUT/random_queries.log" 2>&1 || status=1
    tail -n 2 "$OUT/random_queries.log"
    if [ -f test/concurrent_cache.sh ]; then
        CONCURRENT_SECONDS=${CONCURRENT_SECONDS:-30} bash test/concurrent_cache.sh \
            > "$OUT/concurrent.log" 2>&1 || status=1
        tail -n 3 "$OUT/concurrent.log"
    fi
    if [ -f test/load_pgbench.sh ]; then
        LOAD_SERVER_LOG=/tmp/gpudb-pg/server.log bash test/load_pgbench.sh \
            > "$OUT/load_pgbench.log" 2>&1 || status=1
        tail -n 3 "$OUT/load_pgbench.log"
    fi
    if [ -f test/faults.sh ]; then
        FAULTS_SERVER_LOG=/tmp/gpudb-pg/server.log bash test/faults.sh > "$OUT/faults.log" 2>&1 || status=1
        tail -n 3 "$OUT/faults.log"
    fi
fi
# ---- the benchmark -----------------------------------------------------------
# Environment (each optional):
#   BENCH_ROWS        synthetic sizes, default 1M,10M,100M (the largest is table t)
#   BENCH_FLIGHTS     flights sizes, default 3M,30M; 300M adds ~18 GB of heap and a ~2 minute
#                     build (0: no flights)
#   BENCH_ARGS        more bench.py arguments, e.g. "--reps 3 --budget 20 --sections synthetic,flights,small"
#                     (shell syntax; no '|': quote a regular expression's alternatives away
#                     with repeated --skip)
# Runs that fit one device call of under 9 minutes each (bench-start, then bench-wait):
#   synthetic 100M, uncached and small tables (~5 minutes on a fresh machine):
#     BENCH_ROWS=100M BENCH_FLIGHTS=0 BENCH_ARGS="--sections synthetic,heap,small --budget 10"
#   flights at 300M rows only (builds flights_3m and flights_300m only; ~7 minutes):
#     BENCH_FLIGHTS=300M BENCH_ARGS="--sections flights --budget 5 --skip-same-plan --max-run 120"
# Each run's results name its sections (<date>-<gpu>-<commit>-flights.md, ...).
#   BENCH_CACHE_SIZE  gpudb.cache_size for the run (default 32GB)
#   BENCH_COMMIT      the commit to name the results by (default: git's, where .git is here)
# Data: the synthetic tables are built by the run and kept in the cluster (a
# warm machine's next run reuses them); the flights come from the first of
# test/bench/data/flights-3m.csv.gz (git-ignored: make it on the development
# machine, after test/demo_flights.sh fetched the parquet, with
#   node test/load_flights.mjs | gzip > test/bench/data/flights-3m.csv.gz
# and carry test/bench/data), test/bench/data/flights-3m.parquet (pyarrow),
# .gpu-bundle/flights-3m.* (bench.py --help); without one the flights part is
# skipped with a message.
# Copy bandwidth: test/bench/copy_bandwidth, built on the development machine with
#   /usr/local/cuda/bin/nvcc -O2 -cudart static -o test/bench/copy_bandwidth test/bench/copy_bandwidth.cu
# and carried (git-ignored), else built here when nvcc is here.
BENCH_DIR=/tmp/gpudb-bench
bench_command() {   # a shell command line; BENCH_ARGS is shell syntax
    printf 'python3 test/bench/bench.py --rows %q --flights %q --workers 16 --cache-size %q %s' \
        "${BENCH_ROWS:-1M,10M,100M}" "${BENCH_FLIGHTS:-3M,30M}" "${BENCH_CACHE_SIZE:-32GB}" "${BENCH_ARGS:-}"
}
bench_prepare() {
    if [ ! -x test/bench/copy_bandwidth ]; then
        nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
        [ -x "$nvcc" ] && "$nvcc" -O2 -cudart static -o test/bench/copy_bandwidth test/bench/copy_bandwidth.cu
    fi
    if [ -z "${BENCH_COMMIT:-}" ] && ! git rev-parse HEAD >/dev/null 2>&1; then
        echo "bench: no .git here: set BENCH_COMMIT to name the results by the commit"
    fi
}
# the cached table t of the benchmark, answered from the device cache, against
# plain SQL (integers exact)
bench_cache_check() {
    echo "==== cache check (table t) ===="
    psql -X -v ON_ERROR_STOP=1 2>&1 <<'SQL' || status=1
SELECT relation, rows, device_bytes, host_bytes, state FROM gpu_cache;
SELECT count(*) AS diff_g FROM (
  (SELECT * FROM gpu_groupby('t', 'g, k', 'count(*), sum(h), min(id), max(v)', 'id % 3 = 1 AND k <> ''key7''')
     AS x(g int4, k text, n bigint, s bigint, mn int8, mx float8)
   EXCEPT ALL
   SELECT g, k, count(*), sum(h), min(id), max(v) FROM t WHERE id % 3 = 1 AND k <> 'key7' GROUP BY g, k)
  UNION ALL
  (SELECT g, k, count(*), sum(h), min(id), max(v) FROM t WHERE id % 3 = 1 AND k <> 'key7' GROUP BY g, k
   EXCEPT ALL
   SELECT * FROM gpu_groupby('t', 'g, k', 'count(*), sum(h), min(id), max(v)', 'id % 3 = 1 AND k <> ''key7''')
     AS x(g int4, k text, n bigint, s bigint, mn int8, mx float8))) d;
SELECT path, source, rows_in, rows_selected, groups, device_ms FROM gpu_last_execution();
-- the plan nodes over the cached table against PostgreSQL's plan (integers exact)
SET max_parallel_workers_per_gather = 16;
CREATE TEMP TABLE a1 AS SELECT g, k, count(*) AS n, sum(h) AS s, min(id) AS mn, max(v) AS mx FROM t WHERE id % 3 = 1 AND k <> 'key7' GROUP BY g, k;
CREATE TEMP TABLE b1 AS SELECT id, v FROM t WHERE v IS NOT NULL ORDER BY v DESC, id LIMIT 1000;
SET gpudb.enabled = off;
CREATE TEMP TABLE a2 AS SELECT g, k, count(*) AS n, sum(h) AS s, min(id) AS mn, max(v) AS mx FROM t WHERE id % 3 = 1 AND k <> 'key7' GROUP BY g, k;
CREATE TEMP TABLE b2 AS SELECT id, v FROM t WHERE v IS NOT NULL ORDER BY v DESC, id LIMIT 1000;
RESET gpudb.enabled;
SELECT (SELECT count(*) FROM (TABLE a1 EXCEPT ALL TABLE a2) x) + (SELECT count(*) FROM (TABLE a2 EXCEPT ALL TABLE a1) x) AS plan_diff_agg,
       (SELECT count(*) FROM (TABLE b1 EXCEPT ALL TABLE b2) x) + (SELECT count(*) FROM (TABLE b2 EXCEPT ALL TABLE b1) x) AS plan_diff_topk;
EXPLAIN (ANALYZE, COSTS OFF) SELECT g, k, count(*), sum(h), min(id), max(v) FROM t WHERE id % 3 = 1 AND k <> 'key7' GROUP BY g, k;
EXPLAIN (ANALYZE, COSTS OFF) SELECT id, v FROM t ORDER BY v DESC, id LIMIT 10;
SQL
}
# $OUT keeps the log (the cache check appended) and bench/ with the markdown,
# the JSON and the two charts: with gpu.txt, start.log and server.log, the 8
# files the device tool brings back
if [ "$what" = bench ] || [ "$what" = all ]; then
    bench_prepare
    rm -rf "$OUT/bench"
    PYTHONUNBUFFERED=1 bash -c "$(bench_command) --out $(printf %q "$OUT/bench")" > "$OUT/bench.log" 2>&1 || status=1
    bench_cache_check >> "$OUT/bench.log"
    grep -E "^\[ *[0-9]+ s\] (target|wrote)|^bench:" "$OUT/bench.log" | tail -n 40
    grep -A 2 -E "^ *(diff_g|plan_diff)" "$OUT/bench.log"
fi
if [ "$what" = bench-start ]; then
    bench_prepare
    if [ -f $BENCH_DIR/pid ] && [ ! -f $BENCH_DIR/rc ] && kill -0 "$(cat $BENCH_DIR/pid)" 2>/dev/null; then
        echo "bench-start: a run is going on already (pid $(cat $BENCH_DIR/pid)); follow it with bench-wait"
    else
        rm -rf $BENCH_DIR && mkdir -p $BENCH_DIR
        cmd="$(bench_command) --out $BENCH_DIR/out"
        echo "$cmd" > $BENCH_DIR/command
        # a new session: the device tool ends the processes a command leaves, but not those
        setsid nohup bash -c "source /tmp/gpudb-pg/env.sh; PYTHONUNBUFFERED=1 $cmd > $BENCH_DIR/bench.log 2>&1;
                              echo \$? > $BENCH_DIR/rc" < /dev/null > /dev/null 2>&1 &
        echo $! > $BENCH_DIR/pid
        echo "bench-start: started: $cmd"
        echo "bench-start: follow it with: bash test/gpu_host_run.sh bench-wait [SECONDS]"
    fi
fi
if [ "$what" = bench-wait ]; then
    limit=${2:-540}
    waited=0
    [ -d $BENCH_DIR ] || { echo "bench-wait: no run was started (bench-start) on this machine"; exit 1; }
    while [ ! -f $BENCH_DIR/rc ] && [ "$waited" -lt "$limit" ]; do sleep 10; waited=$((waited + 10)); done
    tail -n 12 $BENCH_DIR/bench.log
    rm -rf "$OUT/bench" && mkdir -p "$OUT/bench"
    cp $BENCH_DIR/out/* "$OUT/bench/" 2>/dev/null
    cp $BENCH_DIR/bench.log "$OUT/bench.log"
    if [ -f $BENCH_DIR/rc ]; then
        [ "$(cat $BENCH_DIR/rc)" = 0 ] || status=1
        bench_cache_check >> "$OUT/bench.log"
        grep -E "^\[ *[0-9]+ s\] target" "$OUT/bench.log"
        grep -A 2 -E "^ *(diff_g|plan_diff)" "$OUT/bench.log"
        echo "bench-wait: finished (exit $(cat $BENCH_DIR/rc)); results in \$OUT/bench"
    else
        echo "bench-wait: still running after ${waited} s (the results so far are in \$OUT/bench); call bench-wait again"
    fi
fi
# ---- TPC-H ---------------------------------------------------------------------
# test/bench/tpch.py at SF (default 10; SF 100 needs ~95 GB of heap, more than
# this machine's 64 GB disk: the script refuses it), 16 workers, 5 runs a side.
# It builds dbgen in /tmp from the first of ../shared/tpch-dbgen, shared/tpch-dbgen
# and .gpu-bundle/tpch-dbgen: the device tool carries no ../shared, so on the
# development machine, before the call,
#   cp -r ../shared/tpch-dbgen .gpu-bundle/      (git-ignored; never committed)
# and carry .gpu-bundle as usual.  lineitem stays in the cluster: a warm
# machine's next run at the same SF reuses it.
# Environment (each optional): TPCH_ARGS more tpch.py arguments (shell syntax,
# e.g. "--reps 9 --cache-columns l_quantity,l_extendedprice,l_discount,l_tax,l_shipdate"),
# BENCH_CACHE_SIZE (default 32GB), BENCH_COMMIT as for the benchmark.
# $OUT/tpch/ holds the markdown, JSON, chart and EXPLAIN text: with tpch.log,
# gpu.txt, start.log and server.log the 8 files the device tool brings back.
TPCH_DIR=/tmp/gpudb-tpch
tpch_command() {   # SF; a shell command line (TPCH_ARGS is shell syntax)
    printf 'python3 test/bench/tpch.py --sf %q --workers 16 --cache-size %q %s' \
        "$1" "${BENCH_CACHE_SIZE:-32GB}" "${TPCH_ARGS:-}"
}
# tpch22 (the differential) and tpch22-start (the timing): test/bench/tpch22.py,
# the same dbgen source (and .gpu-bundle/tpch-dbgen), the eight tables kept in
# the cluster (lineitem shared with tpch at the same SF); at SF 10 they take
# ~17 GB with their indexes; building them (16 chunks a table, then the keys
# and indexes of dss.ri) is expected to take a few minutes.  Environment:
# TPCH22_ARGS more tpch22.py arguments (e.g. "--queries 1-11", "--reps 1",
# "--batch-rows 65536"), BENCH_CACHE_SIZE, BENCH_COMMIT as above.  The
# timing at SF 10 (3 runs a side, statement_timeout 120 s) may outlast one
# lease: TPCH22_ARGS="--queries 1-11" and then "--queries 12-22" split it
# (the tables are reused on a warm machine).
tpch22_command() {   # MODE SF
    if [ "$1" = diff ]; then
        printf 'python3 test/bench/tpch22.py diff --sf %q --cache --cache-size %q %s' \
            "$2" "${BENCH_CACHE_SIZE:-32GB}" "${TPCH22_ARGS:-}"
    else
        printf 'python3 test/bench/tpch22.py time --sf %q --workers 16 --max-run 120 --cache-size %q %s' \
            "$2" "${BENCH_CACHE_SIZE:-32GB}" "${TPCH22_ARGS:-}"
    fi
}
# ssb (the differential) and ssb-start (the timing): test/bench/ssb.py, SSB's
# 13 queries over the TPC-H tables (tpch22's, built or reused) rearranged
# into schema ssb; SSB_ARGS more ssb.py arguments.
ssb_command() {   # MODE SF
    if [ "$1" = diff ]; then
        printf 'python3 test/bench/ssb.py diff --sf %q --cache --cache-size %q %s' \
            "$2" "${BENCH_CACHE_SIZE:-32GB}" "${SSB_ARGS:-}"
    else
        printf 'python3 test/bench/ssb.py time --sf %q --workers 16 --max-run 120 --cache-size %q %s' \
            "$2" "${BENCH_CACHE_SIZE:-32GB}" "${SSB_ARGS:-}"
    fi
}
tpch_summary() {   # LOG: the lines that say how it went
    grep -E "^\[ *[0-9]+ s\] (lineitem|  [0-9]+ rows|  VACUUM|cache load|Q[0-9]|  (PostgreSQL|gpudb|spec)|target|data:)|^tpch(22)?:|^(query  |Q[0-9]+ )" "$1" | tail -n 80
}
if [ "$what" = tpch ]; then
    if [ -z "${BENCH_COMMIT:-}" ] && ! git rev-parse HEAD >/dev/null 2>&1; then
        echo "tpch: no .git here: set BENCH_COMMIT to name the results by the commit"
    fi
    rm -rf "$OUT/tpch"
    PYTHONUNBUFFERED=1 bash -c "$(tpch_command "${2:-10}") --out $(printf %q "$OUT/tpch")" > "$OUT/tpch.log" 2>&1 || status=1
    tpch_summary "$OUT/tpch.log"
fi
if [ "$what" = tpch22 ]; then
    rm -rf "$OUT/tpch22"
    PYTHONUNBUFFERED=1 bash -c "$(tpch22_command diff "${2:-1}") --out $(printf %q "$OUT/tpch22")" \
        > "$OUT/tpch22.log" 2>&1 || status=1
    tpch_summary "$OUT/tpch22.log"
fi
if [ "$what" = ssb ]; then
    rm -rf "$OUT/ssb"
    PYTHONUNBUFFERED=1 bash -c "$(ssb_command diff "${2:-1}") --out $(printf %q "$OUT/ssb")" \
        > "$OUT/ssb.log" 2>&1 || status=1
    tpch_summary "$OUT/ssb.log"
fi
if [ "$what" = tpch-start ] || [ "$what" = tpch22-start ] || [ "$what" = ssb-start ]; then
    if [ -f $TPCH_DIR/pid ] && [ ! -f $TPCH_DIR/rc ] && kill -0 "$(cat $TPCH_DIR/pid)" 2>/dev/null; then
        echo "$what: a run is going on already (pid $(cat $TPCH_DIR/pid)); follow it with tpch-wait"
    else
        rm -rf $TPCH_DIR && mkdir -p $TPCH_DIR
        if [ "$what" = tpch-start ]; then
            cmd="$(tpch_command "${2:-10}") --out $TPCH_DIR/out"
        elif [ "$what" = ssb-start ]; then
            cmd="$(ssb_command time "${2:-10}") --out $TPCH_DIR/out"
        else
            cmd="$(tpch22_command time "${2:-10}") --out $TPCH_DIR/out"
        fi
        echo "$cmd" > $TPCH_DIR/command
        # a new session: the device tool ends the processes a command leaves, but not those
        setsid nohup bash -c "source /tmp/gpudb-pg/env.sh; PYTHONUNBUFFERED=1 $cmd > $TPCH_DIR/tpch.log 2>&1;
                              echo \$? > $TPCH_DIR/rc" < /dev/null > /dev/null 2>&1 &
        echo $! > $TPCH_DIR/pid
        echo "$what: started: $cmd"
        echo "$what: follow it with: bash test/gpu_host_run.sh tpch-wait [SECONDS]"
    fi
fi
if [ "$what" = tpch-wait ]; then
    limit=${2:-540}
    waited=0
    [ -d $TPCH_DIR ] || { echo "tpch-wait: no run was started (tpch-start) on this machine"; exit 1; }
    while [ ! -f $TPCH_DIR/rc ] && [ "$waited" -lt "$limit" ]; do sleep 10; waited=$((waited + 10)); done
    tail -n 12 $TPCH_DIR/tpch.log
    rm -rf "$OUT/tpch" && mkdir -p "$OUT/tpch"
    cp $TPCH_DIR/out/* "$OUT/tpch/" 2>/dev/null
    cp $TPCH_DIR/tpch.log "$OUT/tpch.log"
    if [ -f $TPCH_DIR/rc ]; then
        [ "$(cat $TPCH_DIR/rc)" = 0 ] || status=1
        tpch_summary "$OUT/tpch.log"
        echo "tpch-wait: finished (exit $(cat $TPCH_DIR/rc)); results in \$OUT/tpch"
    else
        echo "tpch-wait: still running after ${waited} s (the results so far are in \$OUT/tpch); call tpch-wait again"
    fi
fi
# ---- several GPUs: the cached workloads over 1..n devices (test/bench/multi_gpu.py)
#   MULTI_GPU_ARGS  its arguments (default "--rows 100M"); results in $OUT/multi-gpu/
if [ "$what" = multi-gpu ]; then
    rm -rf "$OUT/multi-gpu"
    # shellcheck disable=SC2086
    PYTHONUNBUFFERED=1 python3 test/bench/multi_gpu.py ${MULTI_GPU_ARGS:---rows 100M} \
        --out "$OUT/multi-gpu" > "$OUT/multi-gpu.log" 2>&1 || status=1
    tail -n 40 "$OUT/multi-gpu.log"
fi
cp /tmp/gpudb-pg/server.log "$OUT/server.log" 2>/dev/null
# (test/faults.sh kills the GPU server process on purpose: its worker's line is expected)
grep -E "PANIC|server process .* terminated|segfault" /tmp/gpudb-pg/server.log |
    grep -v "gpudb: GPU server process [0-9]* was terminated by signal 9; restarting it" && status=1
echo "gpu_host_run: status $status"
exit $status
