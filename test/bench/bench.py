#!/usr/bin/env python3
"""test/bench/bench.py — gpudb against PostgreSQL's own plan, same server, same data.

usage: python3 test/bench/bench.py [--rows N] [--reps R] [--out DIR] [--skip-load]

Needs psql on PATH and a server reachable through the usual PG* variables, with
gpudb installed.  Builds the synthetic table t(g int4 -- 1,000 groups, h int4 --
rows/5 groups, v float8, id int8, k text -- 100 keys, NULLs in v), runs every
workload with gpu_groupby (gpudb.device as configured) and as plain SQL
(max_parallel_workers_per_gather as configured), R repetitions each after one
warm-up, and writes a markdown table (median and spread of psql's end-to-end
time, the device time from gpu_last_execution()) to DIR/<date>-<device>-<commit>.md.
A second table runs ordinary SQL (B1-B6) with gpudb.enabled on, so the planner
picks the plan nodes (GpuScan, GpuAgg, GpuSort), against gpudb.enabled off; a
third checks small tables (1k, 10k, 100k rows), where gpudb on must stay within
5 % of off (the cost model's job).  Speed is measured here, never asserted in
tests.
"""
import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys

WORKLOADS = [
    # name, gpu_groupby query, plain SQL query
    ("B1 group by g (1,000 groups)",
     "SELECT * FROM gpu_groupby('t', 'g', 'count(*), sum(v), avg(v)') AS x(g int4, n bigint, s float8, a float8)",
     "SELECT g, count(*), sum(v), avg(v) FROM t GROUP BY g"),
    ("B2 filter + sum, 0.1 %",
     "SELECT * FROM gpu_groupby('t', '', 'count(*), sum(v)', 'v BETWEEN 0 AND 0.001') AS x(n bigint, s float8)",
     "SELECT count(*), sum(v) FROM t WHERE v BETWEEN 0 AND 0.001"),
    ("B2 filter + sum, 1 %",
     "SELECT * FROM gpu_groupby('t', '', 'count(*), sum(v)', 'v BETWEEN 0 AND 0.01') AS x(n bigint, s float8)",
     "SELECT count(*), sum(v) FROM t WHERE v BETWEEN 0 AND 0.01"),
    ("B2 filter + sum, 10 %",
     "SELECT * FROM gpu_groupby('t', '', 'count(*), sum(v)', 'v BETWEEN 0 AND 0.1') AS x(n bigint, s float8)",
     "SELECT count(*), sum(v) FROM t WHERE v BETWEEN 0 AND 0.1"),
    ("B2 filter + sum, 50 %",
     "SELECT * FROM gpu_groupby('t', '', 'count(*), sum(v)', 'v BETWEEN 0 AND 0.5') AS x(n bigint, s float8)",
     "SELECT count(*), sum(v) FROM t WHERE v BETWEEN 0 AND 0.5"),
    ("B5 filter id % 7 = 3, min/max by g",
     "SELECT * FROM gpu_groupby('t', 'g', 'min(v), max(v), count(*)', 'id % 7 = 3') AS x(g int4, mn float8, mx float8, n bigint)",
     "SELECT g, min(v), max(v), count(*) FROM t WHERE id % 7 = 3 GROUP BY g"),
    ("text key (100 groups)",
     "SELECT * FROM gpu_groupby('t', 'k', 'count(*), avg(v)') AS x(k text, n bigint, a float8)",
     "SELECT k, count(*), avg(v) FROM t GROUP BY k"),
    ("B4 group by h (rows/5 groups)",
     "SELECT * FROM gpu_groupby('t', 'h', 'sum(v)') AS x(h int4, s float8)",
     "SELECT h, sum(v) FROM t GROUP BY h"),
]


# Ordinary SQL for the plan nodes: name, query (gpudb.enabled on vs off).
PLAN_WORKLOADS = [
    ("B1 group by g", "SELECT g, count(*), sum(v), avg(v) FROM t GROUP BY g"),
    ("B2 filter + sum, 1 %", "SELECT count(*), sum(v) FROM t WHERE v BETWEEN 0 AND 0.01"),
    ("B2 filter + sum, 50 %", "SELECT count(*), sum(v) FROM t WHERE v BETWEEN 0 AND 0.5"),
    ("B3 order by v desc, id limit 10", "SELECT id, v FROM t ORDER BY v DESC, id LIMIT 10"),
    ("B4 group by h, top 10 sums",
     "SELECT h, sum(v) FROM t GROUP BY h ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10"),
    ("B5 filter id % 7 = 3, min/max by g",
     "SELECT g, min(v), max(v), count(*) FROM t WHERE id % 7 = 3 GROUP BY g"),
    ("B6 order by v, all rows of id <= 10M",
     "SELECT id, v FROM t WHERE id <= 10000000 ORDER BY v, id"),
    ("selection id % 1000 = 0", "SELECT id, v FROM t WHERE id % 1000 = 0"),
]

SMALL_SIZES = [1000, 10000, 100000]


def make_table(name, n):
    psql("DROP TABLE IF EXISTS %s" % name)
    psql("""CREATE TABLE %s AS SELECT (i %% 1000)::int4 AS g, (hashint8(i) %% %d)::int4 AS h,
            CASE WHEN i %% 97 = 0 THEN NULL ELSE (hashint8(i * 31) & 1048575) / 1048576.0 END::float8 AS v,
            i::int8 AS id, 'key' || (i %% 100) AS k
            FROM generate_series(1::int8, %d) i""" % (name, max(n // 5, 1), n))
    psql("VACUUM ANALYZE %s" % name)


def gpu_nodes(query, setup=""):
    """The Gpu plan nodes the planner picks for query with gpudb on."""
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"],
                       input=setup + "\nEXPLAIN (COSTS OFF) %s;\n" % query,
                       capture_output=True, text=True)
    return ",".join(re.findall(r"Custom Scan \((Gpu[A-Za-z]+)\)", r.stdout)) or "none"


def psql(sql, check=True):
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-c", sql],
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit("bench: psql failed: %s\n%s" % (sql, r.stderr))
    return r.stdout.strip()


def timed(setup, query, reps):
    """End-to-end times (ms) of query in one psql session, after one warm-up."""
    # the rows go to /dev/null (fetched, as a client would), the device time to stdout
    script = setup + "\n\\timing on\n" + "\n".join(
        ["\\o /dev/null", "%s;" % query, "\\o",
         "SELECT device_ms FROM gpu_last_execution();"] * (reps + 1))
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"], input=script,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("bench: failed: %s\n%s" % (query, r.stderr))
    times = [float(x) for x in re.findall(r"^Time: ([0-9.]+) ms", r.stdout, re.M)]
    # only the device times reach stdout (the rows went to /dev/null)
    lines = [l for l in r.stdout.splitlines() if l and not l.startswith("Time:")]
    # query times are the even-numbered timings; skip the warm-up pair
    qtimes = times[0::2][1:]
    device = []
    for l in lines[1:]:
        try:
            device.append(float(l))
        except ValueError:
            pass
    return qtimes, device


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=int(os.environ.get("BENCH_ROWS", "1000000")))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    ap.add_argument("--skip-load", action="store_true")
    ap.add_argument("--workers", type=int, default=int(os.environ.get("BENCH_WORKERS", "2")))
    ap.add_argument("--no-heap", action="store_true",
                    help="skip gpu_groupby over the heap (uncached)")
    ap.add_argument("--only", default=os.environ.get("BENCH_ONLY", ""),
                    help="regular expression: run only the workloads whose name matches")
    args = ap.parse_args()

    psql("CREATE EXTENSION IF NOT EXISTS gpudb")
    if not args.skip_load:
        n = args.rows
        make_table("t", n)
    device = psql("SELECT coalesce(max(name), 'CPU') FROM gpu_devices()").replace(" ", "_")
    path = psql("SELECT gpu_active_path()")
    commit = os.environ.get("BENCH_COMMIT", "")
    if not commit:
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True).stdout.strip()
        except OSError:
            commit = ""
    commit = commit or "nocommit"
    rows = psql("SELECT count(*) FROM t")

    # the column cache (needs the GPU server): load time and column bytes
    cached = False
    load_line = "Cache: not available (no GPU server)."
    if psql("SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%'") == "t":
        r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"],
                           input="\\timing on\nSELECT gpu_cache_load('t');\n",
                           capture_output=True, text=True)
        if r.returncode == 0:
            ms = float(re.findall(r"^Time: ([0-9.]+) ms", r.stdout, re.M)[0])
            dev, host = psql("SELECT device_bytes, host_bytes FROM gpu_cache "
                             "WHERE relation = 't'::regclass").split("|")
            nbytes = max(int(dev), int(host))
            load_line = ("Cache load of %s rows: %.0f ms, %.1f MB of column data in the cache, "
                         "%.2f GB/s." % (rows, ms, nbytes / 1e6, nbytes / 1e6 / ms))
            cached = True
        else:
            load_line = "Cache load failed: %s" % r.stderr.strip()
    print(load_line, flush=True)

    out = ["# gpudb benchmark — %s rows, %s, path %s, commit %s" % (rows, device, path, commit), "",
           "Median (min–max) of %d runs, end to end in psql; device time from gpu_last_execution()."
           % args.reps,
           "Plain SQL ran with max_parallel_workers_per_gather = %d." % args.workers, "",
           load_line, "",
           "| workload | gpu_groupby heap ms | device ms | gpu_groupby cached ms | device ms "
           "| PostgreSQL ms | speedup (cached) |",
           "|---|---|---|---|---|---|---|"]
    for name, gq, sq in WORKLOADS:
        if args.only and not re.search(args.only, name):
            continue
        if args.no_heap:
            g, dev = [float("nan")], []
        else:
            g, dev = timed("SET gpudb.use_cache = off;", gq, args.reps)
        if cached:
            c, cdev = timed("", gq, args.reps)
        else:
            c, cdev = [float("nan")], []
        p, _ = timed("SET gpudb.enabled = off; SET max_parallel_workers_per_gather = %d;"
                     % args.workers, sq, args.reps)
        gm, cm, pm = statistics.median(g), statistics.median(c), statistics.median(p)
        row = "| %s | %.1f (%.1f–%.1f) | %s | %.1f (%.1f–%.1f) | %s | %.1f (%.1f–%.1f) | %.1fx |" % (
            name, gm, min(g), max(g), ("%.2f" % statistics.median(dev)) if dev else "-",
            cm, min(c), max(c), ("%.2f" % statistics.median(cdev)) if cdev else "-",
            pm, min(p), max(p), pm / (cm if cached else gm))
        print(row, flush=True)
        out.append(row)

    # ordinary SQL through the plan nodes
    par = "SET max_parallel_workers_per_gather = %d;" % args.workers
    out += ["", "## Ordinary SQL: plan nodes (gpudb.enabled on) vs PostgreSQL (off)", "",
            "| workload | nodes | gpudb on ms | device ms | gpudb off ms | speedup |",
            "|---|---|---|---|---|---|"]
    for name, q in PLAN_WORKLOADS:
        if args.only and not re.search(args.only, name):
            continue
        nodes = gpu_nodes(q, par)
        on, dev = timed(par, q, args.reps)
        off, _ = timed("SET gpudb.enabled = off; " + par, q, args.reps)
        om, fm = statistics.median(on), statistics.median(off)
        row = "| %s | %s | %.1f (%.1f–%.1f) | %s | %.1f (%.1f–%.1f) | %.1fx |" % (
            name, nodes, om, min(on), max(on),
            ("%.2f" % statistics.median(dev)) if dev and nodes != "none" else "-",
            fm, min(off), max(off), fm / om)
        print(row, flush=True)
        out.append(row)

    # small tables: the cost model must keep PostgreSQL's plan where it wins
    if not args.only:
        out += ["", "## Small tables: gpudb on vs off (must stay within 5 %)", "",
                "| table | query | nodes | gpudb on ms | gpudb off ms | on/off |",
                "|---|---|---|---|---|---|"]
        for n in SMALL_SIZES:
            name = "t_small_%d" % n
            make_table(name, n)
            for label, q in (("B1", "SELECT g, count(*), sum(v), avg(v) FROM %s GROUP BY g" % name),
                             ("B2 1 %", "SELECT count(*), sum(v) FROM %s WHERE v BETWEEN 0 AND 0.01" % name),
                             ("B3", "SELECT id, v FROM %s ORDER BY v DESC, id LIMIT 10" % name)):
                nodes = gpu_nodes(q, par)
                on, _ = timed(par, q, args.reps * 2)
                off, _ = timed("SET gpudb.enabled = off; " + par, q, args.reps * 2)
                om, fm = statistics.median(on), statistics.median(off)
                row = "| %d rows | %s | %s | %.3f | %.3f | %.2f%s |" % (
                    n, label, nodes, om, fm, om / fm, "" if om <= fm * 1.05 else " (over 5 %)")
                print(row, flush=True)
                out.append(row)
            psql("DROP TABLE %s" % name)

    os.makedirs(args.out, exist_ok=True)
    fn = os.path.join(args.out, "%s-%s-%s.md" % (datetime.date.today().isoformat(), device, commit))
    with open(fn, "w") as f:
        f.write("\n".join(out) + "\n")
    print("bench: wrote", fn)


if __name__ == "__main__":
    main()
