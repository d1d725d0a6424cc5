#!/bin/bash
# test/bench/latency_probe.sh — on the GPU host, after .gpu-bundle/start.sh:
# where a cached B1's end-to-end time goes when the query follows idle time
# or another session's 16-worker run (as in bench.py, where on and off take
# turns).  Builds lp (ROWS rows, default 100M: g int4 of 1,000 groups, v
# float8 with NULLs), caches it, then times B1 in psql (\timing) together
# with gpu_last_execution()'s device and node times after each run:
#   A  back to back;  B  after pg_sleep(0.6);  C  after PostgreSQL's own
#   B1 (gpudb.enabled = off, 16 workers);  D  after pg_sleep(2).
# Output: one line per run: condition, psql ms, device ms, node total ms.
# With KEEP_TABLE=1 an existing lp is used again (e.g. after the server
# was restarted with another build of gpudb.so).
set -uo pipefail
source /tmp/gpudb-pg/env.sh
ROWS=${ROWS:-100000000}
if [ "${KEEP_TABLE:-0}" != 1 ] || [ "$(psql -X -Atc "SELECT to_regclass('lp') IS NOT NULL")" != t ]; then
    psql -X -q -c "DROP TABLE IF EXISTS lp" -c "CREATE TABLE lp (g int4, v float8)"
    step=$((ROWS / 16))
    for j in $(seq 0 15); do
        a=$((j * step + 1)); b=$(((j + 1) * step))
        psql -X -q -c "INSERT INTO lp SELECT (i % 1000)::int4,
            CASE WHEN i % 97 = 0 THEN NULL ELSE (hashint8(i * 31) & 1048575)::float8 / 1048576.0 END
            FROM generate_series($a::int8, $b::int8) i" &
    done
    wait
    psql -X -q -c "VACUUM ANALYZE lp" -c "ALTER TABLE lp SET (parallel_workers = 16)"
fi
q="SELECT g, count(*), sum(v), avg(v) FROM lp GROUP BY g"
{
    echo "SET max_parallel_workers_per_gather = 16;"
    echo "SELECT gpu_cache_load('lp') > 0 AS loaded;"
    echo "\\timing on"
    for i in 1 2 3 4 5; do echo "$q;"; done
    run() { echo "\\echo @$1"; echo "$q;"; echo "SELECT '#', device_ms, total_ms FROM gpu_last_execution();"; }
    for i in $(seq 9); do run A; done
    for i in $(seq 9); do echo "SELECT pg_sleep(0.6);"; run B; done
    for i in $(seq 9); do
        echo "SET gpudb.enabled = off;"; echo "$q;"; echo "SET gpudb.enabled = on;"; run C
    done
    for i in $(seq 5); do echo "SELECT pg_sleep(2);"; run D; done
} > /tmp/lp.sql
psql -X -At -F ' ' -f /tmp/lp.sql 2>&1 | python3 -c '
import re, sys
cond = None; t = None
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("@"):
        cond = line[1:]; t = None; continue
    m = re.match(r"Time: ([0-9.]+) ms", line)
    if m and cond and t is None:
        t = float(m.group(1)); continue
    if line.startswith("# ") and cond:
        d, tot = line.split()[1:3]
        print("%s psql %.3f device %.3f node %.3f" % (cond, t, float(d), float(tot)))
        cond = None
'
