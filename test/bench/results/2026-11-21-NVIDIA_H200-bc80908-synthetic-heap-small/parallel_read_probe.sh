#!/bin/bash
# GPU-host probe of the parallel heap read (run from the repo root, after
# ../shared/gpu-host/bundle.sh made .gpu-bundle/): builds tp (100M rows, the
# bench's t) and small tables, runs parallel_read_probe.sql; output in $L/probe.out
L=${L:-/tmp/logs}; mkdir -p $L
[ -f /tmp/gpudb-pg/env.sh ] && (source /tmp/gpudb-pg/env.sh; psql -X -Atqc 'SELECT 1' >/dev/null 2>&1) ||
bash .gpu-bundle/start.sh "gpudb.device = gpu" "shared_buffers = '16GB'" \
    "max_parallel_workers_per_gather = 16" "max_worker_processes = 32" "max_parallel_workers = 32" \
    "work_mem = '1GB'" "max_wal_size = '8GB'" > $L/start.log 2>&1 || { cat $L/start.log; exit 1; }
source /tmp/gpudb-pg/env.sh
chmod -R a+rwX . 2>/dev/null
P="psql -X -q"
$P -c "CREATE EXTENSION IF NOT EXISTS gpudb"
mk() { # name rows
  $P -c "DROP TABLE IF EXISTS $1" -c "CREATE TABLE $1 (g int4, h int4, v float8, id int8, k text)"
  local n=$2 j=8 c=$(( ($2 + 7) / 8 ))
  for a in $(seq 0 $((j-1))); do
    lo=$((a*c+1)); hi=$(( (a+1)*c < n ? (a+1)*c : n ))
    $P -c "INSERT INTO $1 SELECT (i % 1000)::int4,
      CASE WHEN i % 89 = 0 THEN NULL ELSE ((hashint8(i)::int8 & 2147483647) % $(( n/5 > 0 ? n/5 : 1 )))::int4 END,
      CASE WHEN i % 97 = 0 THEN NULL ELSE (hashint8(i * 31) & 1048575)::float8 / 1048576.0 END,
      i, CASE WHEN i % 101 = 0 THEN NULL ELSE 'key' || (i % 100) END
      FROM generate_series($lo::int8, $hi::int8) i" &
  done; wait
  $P -c "VACUUM ANALYZE $1"
}
date; mk tp ${PROBE_ROWS:-100000000}; mk tp1m 1000000; mk tp100k 100000; mk tp10k 10000; date
$P -f ${PROBE_SQL:-$(dirname "$0")/parallel_read_probe.sql} > $L/probe.out 2>&1
date
psql -X -q -c "DROP TABLE IF EXISTS tp, tp1m, tp100k, tp10k"
