#!/bin/bash
# test/gpu_host_run.sh — run on the GPU host (through the device tool), from the
# project root, after ../shared/gpu-host/bundle.sh made .gpu-bundle/ here.
#
#   bash test/gpu_host_run.sh [suites|bench|all]
#
# Starts the bundled PostgreSQL 15 with gpudb preloaded and gpudb.device = gpu,
# runs the device self-test (GPU path against the CPU path), the pg_regress
# and pgTAP suites, and optionally the benchmark; logs go to $OUT (or ./gpu-logs).
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

# a warm machine may still run the last call's server
[ -f /tmp/gpudb-pg/env.sh ] && (source /tmp/gpudb-pg/env.sh; psql -X -Atqc 'SELECT 1' >/dev/null 2>&1) ||
bash .gpu-bundle/start.sh "gpudb.device = gpu" "shared_buffers = '16GB'" \
    "max_parallel_workers_per_gather = 16" "max_worker_processes = 32" "max_parallel_workers = 32" \
    "work_mem = '1GB'" > "$OUT/start.log" 2>&1 || { cat "$OUT/start.log"; exit 1; }
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
    python3 test/random_queries.py --queries "${RANDOM_QUERIES:-1500}" --min-gpu 200 \
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
if [ "$what" = bench ] || [ "$what" = all ]; then
    # shellcheck disable=SC2086
    python3 test/bench/bench.py --rows "${BENCH_ROWS:-10000000}" --workers 16 ${BENCH_ARGS:-} \
        --out "$OUT/bench" > "$OUT/bench.log" 2>&1 || status=1
    tail -n 14 "$OUT/bench.log"
    # the cached table t of the benchmark, answered from the device cache,
    # against plain SQL (integers exact)
    psql -X -v ON_ERROR_STOP=1 > "$OUT/cache_check.log" 2>&1 <<'SQL' || status=1
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
    cat "$OUT/cache_check.log"
fi
cp /tmp/gpudb-pg/server.log "$OUT/server.log" 2>/dev/null
# (test/faults.sh kills the GPU server process on purpose: its worker's line is expected)
grep -E "PANIC|server process .* terminated|segfault" /tmp/gpudb-pg/server.log |
    grep -v "gpudb: GPU server process [0-9]* was terminated by signal 9; restarting it" && status=1
echo "gpu_host_run: status $status"
exit $status
