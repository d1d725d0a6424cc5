#!/usr/bin/env python3
"""multi_gpu.py — scaling of the cached workloads B1-B5 over the GPUs of one host.

usage: python3 test/bench/multi_gpu.py [--rows 100M] [--devices 0 0,1 0,1,2,3]
                                       [--reps 15] [--out DIR] [--restart CMD]

For each device list (gpudb.devices; one shard per entry, gpudb.cache_shards
= 0) the script sets the list with ALTER SYSTEM, restarts PostgreSQL (the
GPU server reads it at start: --restart, default pg_ctl restart of
$PGDATA or the GPU host's /tmp/gpudb-pg/data), loads the synthetic table t
(test/bench/harness/data.py: g int4 of 1,000 values, h int4 of rows/5, v
float8, id int8, k text) into the cache, checks each workload's answer
against gpudb off once, and times the workloads end to end in psql (median
of --reps runs after one warm-up run; the same session, gpudb on).  It
reports per workload and device list the median, the speed-up over the
first list (one GPU) and the scaling efficiency (speed-up / GPUs), the
shards' rows (gpu_cache), the load time, and the per-shard device times of
one EXPLAIN ANALYZE (Shard Times).  Results: DIR/<date>-<gpu>-<commit>-multi-gpu.{md,json}.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness.data import build_synthetic  # noqa: E402
from harness.fmt import parse_size  # noqa: E402
from harness.measure import Session  # noqa: E402
from harness.server import log, psql  # noqa: E402

WORKLOADS = [
    ("B1", "SELECT g, count(*), sum(v), avg(v) FROM t GROUP BY g"),
    ("B2 1 %", "SELECT count(*), sum(v) FROM t WHERE v BETWEEN 0 AND 0.01"),
    ("B2 50 %", "SELECT count(*), sum(v) FROM t WHERE v BETWEEN 0 AND 0.5"),
    ("B3", "SELECT id, v FROM t ORDER BY v DESC, id LIMIT 10"),
    ("B4", "SELECT h, sum(v) FROM t GROUP BY h ORDER BY sum(v) DESC NULLS LAST, h LIMIT 10"),
    ("B5", "SELECT g, min(v), max(v) FROM t WHERE id % 7 = 3 GROUP BY g"),
]
# answers compared with gpudb off: integers exact, floats to 9 digits
CHECKS = {
    "B1": "SELECT g, count(*), round(sum(v)::numeric, 4), round(avg(v)::numeric, 9) FROM t GROUP BY g",
    "B2 1 %": "SELECT count(*), round(sum(v)::numeric, 6) FROM t WHERE v BETWEEN 0 AND 0.01",
    "B2 50 %": "SELECT count(*), round(sum(v)::numeric, 3) FROM t WHERE v BETWEEN 0 AND 0.5",
    "B3": "SELECT id, v FROM t ORDER BY v DESC, id LIMIT 10",
    "B4": "SELECT h, round(sum(v)::numeric, 6) FROM t GROUP BY h "
          "ORDER BY sum(v) DESC NULLS LAST, h LIMIT 10",
    "B5": "SELECT g, min(v), max(v) FROM t WHERE id % 7 = 3 GROUP BY g",
}


def restart(cmd):
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("multi_gpu: restart failed (%s): %s" % (cmd, r.stderr or r.stdout))
    for _ in range(120):
        if subprocess.run(["psql", "-X", "-Atqc", "SELECT 1"], capture_output=True).returncode == 0:
            break
        time.sleep(0.5)
    # the GPU server opens its devices once started: wait for its mode
    for _ in range(120):
        if psql("SELECT coalesce((SELECT mode FROM gpu_server_status()), 'none')", check=False) in ("gpu", "cpu"):
            return
        time.sleep(0.5)
    sys.exit("multi_gpu: the GPU server did not come up")


def check(name):
    q = CHECKS[name]
    q = "SELECT * FROM (%s) x ORDER BY 1, 2" % q
    on = psql("SET gpudb.device = gpu; " + q)
    off = psql("SET gpudb.enabled = off; " + q)
    return on == off


def shard_times(query):
    out = psql("EXPLAIN (ANALYZE, COSTS OFF) " + query)
    m = re.search(r"Shard Times \(ms\): ([0-9., ]+)", out)
    d = re.search(r"Device Time: ([0-9.]+) ms", out)
    return (m.group(1).strip() if m else None, float(d.group(1)) if d else None,
            "GpudbAgg" in out or "GpudbSort" in out or "GpudbScan" in out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="100M")
    ap.add_argument("--devices", nargs="+", default=None,
                    help="device lists to compare (default: 0, then 0..n-1 for every count up to "
                         "the host's, powers of two)")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--restart", default=None)
    ap.add_argument("--cache-size", default="64GB")
    ap.add_argument("--commit", default=os.environ.get("BENCH_COMMIT", ""))
    args = ap.parse_args()

    gpus = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                          capture_output=True, text=True).stdout.strip().splitlines()
    if not gpus:
        sys.exit("multi_gpu: no GPU (nvidia-smi lists none)")
    if args.devices is None:
        counts, n = [], 1
        while n <= len(gpus):
            counts.append(n)
            n *= 2
        if counts[-1] != len(gpus):
            counts.append(len(gpus))
        args.devices = [",".join(str(i) for i in range(c)) for c in counts]
    data = os.environ.get("PGDATA") or "/tmp/gpudb-pg/data"
    restart_cmd = args.restart or (
        "su gpudb -s /bin/bash -c 'source /tmp/gpudb-pg/env.sh; pg_ctl -D %s restart -m fast -w "
        "-l /tmp/gpudb-pg/server.log' >/dev/null" % data)
    commit = args.commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                           text=True).stdout.strip() or "unknown"

    n = parse_size(args.rows)
    psql("CREATE EXTENSION IF NOT EXISTS gpudb")
    info = build_synthetic("t", n, 16, 16, False)
    log("table t: %d rows (%s)" % (n, "built" if info.get("built") else "reused"))
    psql("ALTER SYSTEM SET gpudb.cache_size = '%s'" % args.cache_size)
    results = []
    for dev in args.devices:
        ngpu = len(set(dev.split(",")))
        psql("ALTER SYSTEM SET gpudb.devices = '%s'" % dev)
        psql("ALTER SYSTEM SET gpudb.cache_shards = 0")
        restart(restart_cmd)
        t0 = time.time()
        psql("SELECT gpu_cache_load('t', ARRAY['g', 'h', 'v', 'id'])")
        load_s = time.time() - t0
        shards = psql("SELECT shard_devices::text || ' ' || shard_rows::text FROM gpu_cache "
                      "WHERE relation = 't'::regclass")
        log("devices %s: loaded in %.1f s, shards %s" % (dev, load_s, shards))
        sess = Session("SET gpudb.device = gpu;")
        for name, q in WORKLOADS:
            same = check(name)
            sess.run(q)   # warm-up
            times = []
            for _ in range(args.reps):
                ms, _dev = sess.run(q)
                if ms is None:
                    sys.exit("multi_gpu: %s failed: %s" % (name, sess.error))
                times.append(ms)
            st, dms, node = shard_times(q)
            rec = {"devices": dev, "gpus": ngpu, "workload": name, "query": q,
                   "median_ms": statistics.median(times), "min_ms": min(times), "times": times,
                   "same": same, "gpu_node": node, "shard_times_ms": st, "device_ms": dms,
                   "load_s": load_s, "shards": shards}
            results.append(rec)
            log("  %-8s %8.3f ms (min %.3f)  same: %s  shards: %s" %
                (name, rec["median_ms"], rec["min_ms"], "yes" if same else "NO", st))
        sess.close()
        psql("SELECT gpu_cache_drop('t')")
    psql("ALTER SYSTEM RESET gpudb.devices")
    psql("ALTER SYSTEM RESET gpudb.cache_shards")

    # the report
    base = {r["workload"]: r["median_ms"] for r in results if r["devices"] == args.devices[0]}
    stamp = datetime.date.today().isoformat()
    gpu = re.sub(r"[^A-Za-z0-9]+", "_", gpus[0]).strip("_")
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, "%s-%s-%s-multi-gpu" % (stamp, gpu, commit))
    lines = ["# Cached B1-B5 over several GPUs (%s rows, %s x %d)" % (args.rows, gpus[0], len(gpus)), "",
             "Commit %s; gpudb.devices per column, one shard per device; median of %d runs end to end "
             "in psql (after one warm-up). Speed-up over devices `%s`; efficiency = speed-up / GPUs. "
             "`same`: the answer equals gpudb off's." % (commit, args.reps, args.devices[0]), "",
             "| workload | " + " | ".join("`%s` ms" % d for d in args.devices) + " | speed-up | efficiency | same |",
             "|---|" + "---|" * len(args.devices) + "---|---|---|"]
    for name, _ in WORKLOADS:
        row = [r for r in results if r["workload"] == name]
        last = row[-1]
        sp = base[name] / last["median_ms"] if last["median_ms"] else 0
        lines.append("| %s | %s | %.2fx | %.2f | %s |" % (
            name, " | ".join("%.3f" % r["median_ms"] for r in row), sp, sp / last["gpus"],
            "yes" if all(r["same"] for r in row) else "NO"))
    # the device's part alone: one device's time against the slowest shard's
    lines += ["", "Device part (one EXPLAIN ANALYZE each): the single device's Device Time against the "
              "slowest shard's time on its device (Shard Times: the shard's request on its device, "
              "copies included, without the server's combine and the round trip).", "",
              "| workload | " + " | ".join("`%s` ms" % d for d in args.devices) + " | speed-up |",
              "|---|" + "---|" * len(args.devices) + "---|"]
    for name, _ in WORKLOADS:
        row = [r for r in results if r["workload"] == name]
        vals = []
        for r in row:
            if r["shard_times_ms"]:
                vals.append(max(float(x) for x in r["shard_times_ms"].split(",")))
            else:
                vals.append(r["device_ms"] or 0.0)
        sp = vals[0] / vals[-1] if vals[-1] else 0
        lines.append("| %s | %s | %.2fx |" % (name, " | ".join("%.3f" % v for v in vals), sp))
    lines += ["", "| devices | load s | shards (device, rows) |", "|---|---|---|"]
    for dev in args.devices:
        r = next(x for x in results if x["devices"] == dev)
        lines.append("| `%s` | %.1f | %s |" % (dev, r["load_s"], r["shards"]))
    lines += ["", "Shard times (ms, one EXPLAIN ANALYZE each, per shard in row order):", ""]
    for r in results:
        lines.append("- `%s` %s: %s (device time %s ms)" % (r["devices"], r["workload"], r["shard_times_ms"],
                                                           r["device_ms"]))
    with open(stem + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(stem + ".json", "w") as f:
        json.dump({"rows": n, "gpus": gpus, "commit": commit, "results": results}, f, indent=1)
    log("wrote %s.md" % stem)
    print("\n".join(lines))
    if not all(r["same"] for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
