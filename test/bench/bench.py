#!/usr/bin/env python3
"""test/bench/bench.py — gpudb against PostgreSQL's own plan: same server, same data, same run.

usage: python3 test/bench/bench.py [--rows 1M,10M,100M] [--flights 3M,30M] [--reps R]
                                   [--workers W] [--out DIR] [more options: --help]

Needs psql on PATH and a server reachable through the usual PG* variables, with
gpudb installed (shared_preload_libraries = gpudb for the column cache).  Runs
with python3's standard library alone; the charts need matplotlib and are left
out, with a note, without it.

One run does all of this:

 1. The device's copy bandwidth: test/bench/copy_bandwidth (device-to-device
    cudaMemcpy, CUDA events), when that binary exists.  Build it here and carry
    it to the GPU host (which has the driver but no CUDA runtime):
        /usr/local/cuda/bin/nvcc -O2 -cudart static -o test/bench/copy_bandwidth test/bench/copy_bandwidth.cu
 2. The data, kept between runs (a table whose comment says it was built the
    same way, and holds the rows it should, is reused; --rebuild builds
    again; the build's insert and VACUUM times are kept):
    - synthetic t(g int4: 1,000 groups, h int4: rows/5 groups (20M at 100M
      rows), v float8 in [0, 1), id int8, k text: 100 keys), NULLs in h, v and
      k, at each --rows size; the largest is table "t", the others t_<size>;
      built by --load-jobs parallel INSERT ... SELECT sessions;
    - the 3M real US flights of vega-datasets (the table of
      test/demo_flights.sh: date timestamp, delay int, distance int, origin
      text, destination text, plus month date = date_trunc('month', date),
      since the plan nodes group by plain columns only), and, for each larger
      --flights size, the same rows replicated inside PostgreSQL (INSERT ...
      SELECT date + copy * 6 months, one copy per 6-month span of the file);
      smaller sizes take the first rows.  The file: --flights-file, else
      $BENCH_FLIGHTS_FILE, else the first of
      test/bench/data/flights-3m.{csv.gz,csv,parquet} (test/bench/data/ is
      git-ignored), .gpu-bundle/flights-3m.{csv.gz,csv,parquet}, and
      demo_flights.sh's npm cache ($GPUDB_NPM_PREFIX, default
      ~/.cache/gpudb/npm).  CSV as load_flights.mjs writes it (gzipped or
      not) needs nothing more: make it for a machine without node with
          node test/load_flights.mjs | gzip > test/bench/data/flights-3m.csv.gz
      Parquet is decoded with pyarrow when importable, else with node
      test/load_flights.mjs.  Without the file the flights part is skipped
      with a message.
 3. Per table: gpu_cache_load (time, bytes of column data, GB/s), then every
    workload with gpudb.enabled on (the plan nodes, from the cache) and off
    (PostgreSQL's plan, max_parallel_workers_per_gather = W and the table's
    parallel_workers = W), each side in a psql session of its own, taking
    turns: one warm-up of each, then on, off, off, on, on, off, ... up to R runs a
    side.  --budget is each side's time, its warm-up included: a side stops
    where its next run would not fit in it ([n runs]), and a side whose
    warm-up alone took longer keeps that run as its one measurement ([1 cold
    run]); where gpudb on would run PostgreSQL's plan, as off does, off runs
    first and, past the budget, alone ("same plan, not run";
    --skip-same-plan runs neither side of those); --max-run cancels a longer
    run (statement_timeout; "> N (cancelled)").  Median and min-max of
    psql's end to end time (\\timing, rows fetched by psql), the device time
    from gpu_last_execution(), and the device time per phase from the
    Custom Scan nodes of EXPLAIN (ANALYZE, FORMAT JSON) ("Transfer In Time",
    "Filter Time", "Sort Time", "Aggregate Time", "Transfer Out Time" next
    to "Device Time" and "Run Time"; absent properties show as -; as many
    runs as fit in the budget, at most --explain-reps, or --kernel-reps for
    B1 and B2, whose phase times give the kernel bandwidth).
 4. At the largest size: B1/B2 uncached (gpudb.use_cache = off) against
    PostgreSQL measured again beside them (taking turns the same way), with
    the workers each side launched, in two buffer states (--heap-buffers),
    one block of runs each: t in the OS page cache, as the bulk-read ring of
    a sequential scan leaves it, then t read into shared_buffers first by a
    TID range scan (which takes no ring; only where its heap is under 0.8 x
    shared_buffers), each side's shared blocks hit and read there from one
    EXPLAIN (ANALYZE, BUFFERS) and pg_statio_all_tables; gpu_groupby (the
    SQL function) over the heap and the cache, taking turns with the plain
    SQL.  Kernel bandwidth of B1/B2: bytes of the columns the query reads /
    device kernel time, against the copy bandwidth.  Small tables (1k, 10k,
    100k rows): gpudb on must stay within 5 % of off: at least 30 runs a
    side and until 0.5 s of them, judged on the median ratio of the runs
    taken in turn, with each side's plan and whether both ran the same.
 5. Results: <date>-<gpu>-<commit>[-<sections>].md (the sections in the name
    where not all of them ran; tables, the targets of issue 5 and by how much
    each is missed), .json (everything measured; chart.py reads it),
    -speedup.png and -scaling.png (time against table size), written to
    --out DIR, by default test/bench/results/<that name>/ (-2, -3, ... where
    that folder exists).  The JSON and markdown are rewritten after each
    section, so a run cut short keeps what it measured, and they say which
    sections the run covers and whether it finished.

--sections (default synthetic,heap,functions,flights,small) also decides what
is built: the synthetic tables only for synthetic, heap or functions (heap and
functions alone: the largest only), the flights tables only for flights (the
file's table and the --flights sizes; e.g. --sections flights --flights 300M
builds flights_3m and flights_300m).  A flights-only run at 300M rows on the
GPU host (about 7 minutes; test/gpu_host_run.sh bench-start):
    --sections flights --flights 300M --budget 5 --skip-same-plan --max-run 120

Speed is measured here, never asserted: CI runs this at a tiny scale
(test/run_tests.sh: --rows 20000 --reps 1 --workers 0) so that it cannot rot.
"""
import argparse
import datetime
import gzip
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PSQL = ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"]
T0 = time.time()

# Issue 5's targets (end to end, at 100M rows, cached).
TARGET_MS = {"B1": 2.0, "B2": 2.0, "B3": 4.0, "B4": 40.0, "B5": 4.0}
TARGET_UNCACHED_SPEEDUP = 2.0
TARGET_LOAD_GBPS = 1.0
TARGET_KERNEL_PCT = 80.0
TARGET_SMALL_RATIO = 1.05

# Plan-node workloads over the synthetic table: id, name, query ({t}: table,
# {n10}: a tenth of its rows), columns read (for the kernel bandwidth).
SYNTH_WORKLOADS = [
    ("B1", "B1 group by g (1,000 groups)",
     "SELECT g, count(*), sum(v), avg(v) FROM {t} GROUP BY g", ("g", "v")),
    ("B2", "B2 filter + sum, 0.1 %",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.001", ("v",)),
    ("B2", "B2 filter + sum, 1 %",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.01", ("v",)),
    ("B2", "B2 filter + sum, 10 %",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.1", ("v",)),
    ("B2", "B2 filter + sum, 50 %",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.5", ("v",)),
    ("B3", "B3 order by v desc, id limit 10",
     "SELECT id, v FROM {t} ORDER BY v DESC, id LIMIT 10", ("v", "id")),
    ("B4", "B4 group by h (rows/5 groups), top 10 sums",
     "SELECT h, sum(v) FROM {t} GROUP BY h ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10", ("h", "v")),
    ("B5", "B5 filter id % 7 = 3, min/max by g",
     "SELECT g, min(v), max(v), count(*) FROM {t} WHERE id % 7 = 3 GROUP BY g", ("id", "g", "v")),
    ("B6", "B6 order by v, the 10 % of rows with id <= rows/10",
     "SELECT id, v FROM {t} WHERE id <= {n10} ORDER BY v, id", ("id", "v")),
    ("K", "text key k (100 keys + NULL)",
     "SELECT k, count(*), avg(v) FROM {t} GROUP BY k", ("k", "v")),
    ("S", "selection id % 1000 = 0",
     "SELECT id, v FROM {t} WHERE id % 1000 = 0", ("id", "v")),
]

# Uncached: these, with gpudb.use_cache = off, against the same PostgreSQL runs.
HEAP_WORKLOADS = ("B1 group by g (1,000 groups)", "B2 filter + sum, 1 %", "B2 filter + sum, 50 %")

# Their buffer states (--heap-buffers), in this order: t as the ring leaves
# it, then t read into shared_buffers by WARM_QUERY (a TID range scan, which
# takes no ring), where its heap is under HEAP_FIT x shared_buffers.
HEAP_BUFFERS = {"os": "OS page cache", "shared": "shared_buffers"}
HEAP_FIT = 0.8
WARM_QUERY = "SELECT count(*) FROM {t} WHERE ctid >= '(0,0)'::tid"
WARM_SETUP = "SET gpudb.enabled = off; SET max_parallel_workers_per_gather = 0; SET enable_seqscan = off;"

# gpu_groupby (the SQL function) against the same query as plain SQL.
FUNCTION_WORKLOADS = [
    ("B1 group by g (1,000 groups)",
     "SELECT * FROM gpu_groupby('{t}', 'g', 'count(*), sum(v), avg(v)') AS x(g int4, n bigint, s float8, a float8)",
     "SELECT g, count(*), sum(v), avg(v) FROM {t} GROUP BY g"),
    ("B2 filter + sum, 1 %",
     "SELECT * FROM gpu_groupby('{t}', '', 'count(*), sum(v)', 'v BETWEEN 0 AND 0.01') AS x(n bigint, s float8)",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.01"),
    ("B2 filter + sum, 50 %",
     "SELECT * FROM gpu_groupby('{t}', '', 'count(*), sum(v)', 'v BETWEEN 0 AND 0.5') AS x(n bigint, s float8)",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.5"),
    ("B5 filter id % 7 = 3, min/max by g",
     "SELECT * FROM gpu_groupby('{t}', 'g', 'min(v), max(v), count(*)', 'id % 7 = 3') AS x(g int4, mn float8, mx float8, n bigint)",
     "SELECT g, min(v), max(v), count(*) FROM {t} WHERE id % 7 = 3 GROUP BY g"),
    ("text key k",
     "SELECT * FROM gpu_groupby('{t}', 'k', 'count(*), avg(v)') AS x(k text, n bigint, a float8)",
     "SELECT k, count(*), avg(v) FROM {t} GROUP BY k"),
    ("B4 group by h (all groups returned)",
     "SELECT * FROM gpu_groupby('{t}', 'h', 'sum(v)') AS x(h int4, s float8)",
     "SELECT h, sum(v) FROM {t} GROUP BY h"),
]

# Flights: each without and with the date range ({where}: '' or ' WHERE ...').
FLIGHTS_WORKLOADS = [
    ("F1", "F1 avg delay and count by origin",
     "SELECT origin, avg(delay), count(*) FROM {t}{where} GROUP BY origin"),
    ("F2", "F2 by origin and month",
     "SELECT origin, month, avg(delay), count(*) FROM {t}{where} GROUP BY origin, month"),
    ("F2x", "F2x by origin and date_trunc('month', date) (expression key)",
     "SELECT origin, date_trunc('month', date) AS m, avg(delay), count(*) FROM {t}{where} GROUP BY 1, 2"),
    ("F3", "F3 top 20 routes by count",
     "SELECT origin, destination, count(*) AS n FROM {t}{where} GROUP BY origin, destination "
     "ORDER BY n DESC, origin, destination LIMIT 20"),
    ("F4", "F4 delay percentiles by origin",
     "SELECT origin, percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY delay) "
     "FROM {t}{where} GROUP BY origin"),
    ("F4s", "F4s delay median, 90th percentile and mode by origin (one fraction each)",
     "SELECT origin, percentile_cont(0.5) WITHIN GROUP (ORDER BY delay), "
     "percentile_disc(0.9) WITHIN GROUP (ORDER BY delay), mode() WITHIN GROUP (ORDER BY delay) "
     "FROM {t}{where} GROUP BY origin"),
]

SECTIONS = ["synthetic", "heap", "functions", "flights", "small"]
# workloads whose kernel bandwidth is reported (cached, synthetic)
KERNEL_WORKLOADS = ("B1", "B2")
SYNTH_SECTIONS = {"synthetic", "heap", "functions"}

SMALL_SIZES = [1000, 10000, 100000]
SMALL_MIN_RUNS, SMALL_MIN_S, SMALL_MAX_RUNS = 30, 0.5, 500
# a small-table sample: executions back to back until about SMALL_SAMPLE_MS
SMALL_SAMPLE_MS, SAMPLE_MAX_REPEAT = 5.0, 64
SMALL_WORKLOADS = [
    ("B1", "SELECT g, count(*), sum(v), avg(v) FROM {t} GROUP BY g"),
    ("B2 1 %", "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.01"),
    ("B3", "SELECT id, v FROM {t} ORDER BY v DESC, id LIMIT 10"),
]

PHASES = ["Transfer In Time", "Filter Time", "Sort Time", "Aggregate Time", "Transfer Out Time"]
NODE_NUMBERS = ["Device Time", "Run Time", "Bytes To Device", "Bytes From Device", "Batches",
                "Workers Launched"] + PHASES

SAME_PLAN_SKIPPED = ("PostgreSQL's plan, as with gpudb off, and one run of it took longer than the budget: "
                     "run on the off side only")

SYNTH_MARK = "gpudb bench synthetic v2"
FLIGHTS_BASE_MARK = "gpudb bench flights base v1"
FLIGHTS_MARK = "gpudb bench flights v1"
FLIGHTS_COLUMNS = ["date", "delay", "distance", "origin", "destination"]


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------

def log(msg):
    print("[%6.0f s] %s" % (time.time() - T0, msg), flush=True)


def psql(sql, check=True):
    r = subprocess.run(PSQL + ["-c", sql], capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit("bench: psql failed: %s\n%s" % (sql, r.stderr))
    return r.stdout.strip()


def psql_script(script):
    return subprocess.run(PSQL, input=script, capture_output=True, text=True)


def sql_literal(s):
    return "'" + str(s).replace("'", "''") + "'"


def parse_size(s):
    s = s.strip().lower().replace("_", "")
    if s in ("", "0", "none", "off"):
        return 0
    mult = {"k": 10**3, "m": 10**6, "g": 10**9, "b": 10**9}.get(s[-1], 1)
    if mult != 1:
        s = s[:-1]
    return int(round(float(s) * mult))


def parse_sizes(s):
    return sorted({n for n in (parse_size(x) for x in str(s).split(",")) if n > 0})


def size_label(n):
    for unit, div in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if n >= div and n % (div // 10) == 0:
            return ("%g" % (n / div)) + unit
    return str(n)


def table_suffix(n):
    return size_label(n).lower().replace(".", "_")


def fmt_ms(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if x < 10:
        return "%.2f" % x
    if x < 100:
        return "%.1f" % x
    return "%.0f" % x


def fmt_run(m):
    """median (min–max) of a measurement, with its number of runs when short."""
    if not m:
        return "-"
    if m.get("error"):
        return "error"
    if m.get("skipped"):
        return "same plan, not run"
    if m.get("timed_out"):
        return "> %s (cancelled)" % fmt_ms(m["limit_ms"])
    s = "%s (%s–%s)" % (fmt_ms(m["median"]), fmt_ms(m["min"]), fmt_ms(m["max"]))
    if m.get("warmup_only"):
        s += " [1 cold run]"
    elif m.get("short"):
        s += " [%d run%s]" % (m["n"], "" if m["n"] == 1 else "s")
    return s


def build_cell(d):
    if not d["built"]:
        return "(reused)"
    ph = d.get("build_phases") or {}
    return "%.0f s%s" % (d["build_s"], " (insert %.0f s, VACUUM %.0f s)" % (ph["insert_s"], ph["vacuum_analyze_s"])
                         if ph else "")


def speedup_cell(r):
    """off / on; a bound where one side was cancelled (--max-run)."""
    if r.get("speedup") is not None:
        return fmt_speedup(r["speedup"])
    on, off = r.get("on") or {}, r.get("off") or {}
    if off.get("timed_out") and med(on):
        return "> " + fmt_speedup(off["limit_ms"] / med(on))
    if on.get("timed_out") and med(off):
        return "< " + fmt_speedup(med(off) / on["limit_ms"])
    return "-"


def fmt_count(x):
    return "-" if x is None else "%g" % x


def buffers_cell(ex):
    """Shared blocks hit / read from an EXPLAIN (ANALYZE, BUFFERS) (explain()),
    its top node's, then the table's by every process in brackets."""
    if not ex or ex.get("shared_hit") is None and ex.get("table_hit") is None:
        return "-"
    blocks = lambda x: "-" if x is None else "{:,}".format(int(x))
    out = "%s / %s" % (blocks(ex.get("shared_hit")), blocks(ex.get("shared_read")))
    if ex.get("table_hit") is not None:
        out += " (t: %s / %s)" % (blocks(ex["table_hit"]), blocks(ex["table_read"]))
    return out


def buffers_state(rec):
    """Where t's pages were for a heap-section record."""
    return "t in shared_buffers" if rec.get("buffers") == "shared" else "t in the OS page cache"


def nodes_cell(r):
    """The Gpu nodes of gpudb's plan; 'none (same plan)' where it ran PostgreSQL's plan, as off did."""
    if r.get("nodes"):
        return ",".join(r["nodes"])
    return "none (same plan)" if r.get("same_plan") else "none"


def fmt_speedup(x):
    if x is None:
        return "-"
    return ("%.0fx" if x >= 100 else "%.1fx" if x >= 1 else "%.2fx") % x


def med(m):
    """A measurement's median, or None (not run, failed)."""
    if not m or m.get("error"):
        return None
    return m.get("median")


def ratio(a, b):
    if med(a) is None or not med(b):
        return None
    return med(a) / med(b)


def table_mark(name):
    r = psql("SELECT coalesce(obj_description(to_regclass(%s), 'pg_class'), '')" % sql_literal(name))
    return r or None


def run_parallel(statements, jobs):
    """Runs the statements in up to jobs psql sessions at once."""
    pending, running = list(statements), []
    while pending or running:
        while pending and len(running) < max(1, jobs):
            sql = pending.pop(0)
            running.append((sql, subprocess.Popen(PSQL + ["-c", sql], stdout=subprocess.DEVNULL,
                                                  stderr=subprocess.PIPE, text=True)))
        sql, p = running.pop(0)
        err = p.communicate()[1]
        if p.returncode != 0:
            for _, q in running:
                q.kill()
            sys.exit("bench: failed: %s\n%s" % (sql, err))


# ---------------------------------------------------------------------------
# measuring
# ---------------------------------------------------------------------------

class Session:
    """One psql session kept open, so that runs of several sides can take
    turns (psql over pipes: each exchange ends with an \\echo marker)."""

    def __init__(self, setup):
        self.err = tempfile.TemporaryFile(mode="w+")
        self.p = subprocess.Popen(PSQL, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                  text=True, bufsize=1)
        self.error = None
        self.count = 0
        self.exchange((setup or "") + "\n\\timing on")

    def exchange(self, text):
        """The lines psql printed for text; None (and self.error) when it failed."""
        if self.error:
            return None
        self.count += 1
        marker = "@@bench-%d@@" % self.count
        try:
            self.p.stdin.write("%s\n\\echo %s\n" % (text, marker))
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                self.p.wait()
                self.err.seek(0)
                self.error = (self.err.read().strip().splitlines() or ["psql failed"])[-1]
                return None
            if line.rstrip("\n") == marker:
                return lines
            lines.append(line)

    def run(self, query, repeat=1):
        """(psql's ms for one execution of query, gpu_last_execution().device_ms or None);
        (None, None) when it failed.  The rows go to /dev/null (fetched, as a client would).
        repeat > 1: the query runs that many times back to back in the one exchange and
        the time is the mean of psql's times for them (each still end to end)."""
        out = self.exchange("\\o /dev/null\n%s\\o\n"
                            "SELECT 'device:' || device_ms FROM gpu_last_execution();"
                            % (("%s;\n" % query) * repeat))
        if out is None:
            return None, None
        times = [float(x) for x in re.findall(r"^Time: ([0-9.]+) ms", "".join(out), re.M)]
        device = re.findall(r"^device:([-0-9.e+]+)$", "".join(out), re.M)
        if len(times) < repeat:
            self.error = "no timing from psql: %s" % "".join(out).strip()[:200]
            return None, None
        return sum(times[:repeat]) / repeat, float(device[0]) if device else None

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        self.p.wait()
        self.err.close()


def _summary(side):
    times = side["times"]
    res = {"times": times, "n": len(times), "median": statistics.median(times), "min": min(times),
           "max": max(times), "warmup_ms": side["warm"], "spent_s": round(side["spent"] / 1000.0, 2),
           "device_ms": statistics.median(side["device"]) if side["device"] else None}
    if side["single"]:
        res["warmup_only"] = True
    elif len(times) < side["reps"]:
        res["short"] = True
    return res


def measure_sides(sides, args, reps=None, min_s=0.0, max_runs=1000, first_alone=None, sample_ms=0.0,
                  one_session=False):
    """Runs each of sides ([(setup, query)]) in a session of its own, taking
    turns: one warm-up of each, then one run of each in turn, the order
    alternating (on, off, off, on, ...) until each side has reps runs (and min_s seconds of them), at
    most max_runs.  --budget is each side's time, its warm-up included: a side
    stops where its next run would not fit in it (after one run at least),
    and a side whose warm-up alone took longer keeps that as its single
    measurement ([1 cold run]).  first_alone(result of side 0's warm-up) -> True
    stops there, before the other sides start (the same plan on both sides,
    past the budget).  Returns [result per side] ({"error": ...} for a side
    that failed; None for a side not run) and the median of the ratios
    side 0 / side 1 of the runs taken in turn.  sample_ms > 0 (sub-millisecond
    queries, whose single runs scatter by 3x on a VM): after the warm-ups each
    sample is the mean of N executions back to back (Session.run's repeat),
    N the same for every side, ceil(sample_ms / the slower warm-up), at most
    SAMPLE_MAX_REPEAT; a result's "repeat" says N.  one_session: all sides
    run in one session, each run preceded by its side's setup (untimed; the
    setups must then set everything that differs, e.g. gpudb.enabled both
    ways), so that no side gains or loses from its backend process (the
    sub-millisecond small-table runs differed by up to 14 % between two
    sessions of the same plan)."""
    reps = args.reps if reps is None else reps
    budget_ms = args.budget * 1000.0
    max_run_ms = int(getattr(args, "max_run", 0) * 1000.0)
    state = []
    for setup, query in sides:
        state.append({"setup": setup, "query": query, "session": None, "times": [], "device": [], "warm": None,
                      "spent": 0.0, "single": False, "done": False, "error": None, "reps": reps,
                      "timed_out": False})

    repeat = [1]

    shared = []

    def step(s):
        if s["session"] is None:
            timeout = " SET statement_timeout = %d;" % max_run_ms if max_run_ms else ""
            if not one_session:
                s["session"] = Session(s["setup"] + timeout)
            else:
                if not shared:
                    shared.append(Session(timeout))
                s["session"] = shared[0]
        if one_session and s["session"].exchange(s["setup"]) is None:
            t, dev = None, None
        else:
            t, dev = s["session"].run(s["query"], repeat[0] if s["warm"] is not None else 1)
        if t is None:
            s["done"] = True
            if max_run_ms and "statement timeout" in (s["session"].error or ""):
                s["timed_out"] = True
                log("  cancelled after %s s (--max-run)" % fmt_ms(max_run_ms / 1000.0))
            else:
                s["error"] = s["session"].error
                log("  error: %s" % s["error"])
            return False
        s["spent"] += t
        if s["warm"] is None:
            s["warm"] = t
            if t >= budget_ms:
                s["times"], s["single"], s["done"] = [t], True, True
                if dev is not None:
                    s["device"].append(dev)
        else:
            s["times"].append(t)
            if dev is not None:
                s["device"].append(dev)
        return True

    results = [None] * len(state)
    try:
        for i, s in enumerate(state):
            step(s)
            if i == 0 and first_alone is not None and not s["error"] and first_alone(s):
                for other in state[1:]:
                    other["done"] = True
                break
        if sample_ms > 0 and all(s["warm"] is not None and not s["done"] for s in state):
            # the warm-up is a cold run: calibrate N on a second run a side (not kept)
            calib = []
            for s in state:
                if one_session:
                    s["session"].exchange(s["setup"])
                t, _ = s["session"].run(s["query"])
                calib.append(t if t is not None else s["warm"])
            repeat[0] = int(min(SAMPLE_MAX_REPEAT, max(1, math.ceil(sample_ms / max(max(calib), 1e-3)))))
        rounds = 0
        while not all(s["done"] for s in state):
            # the sides take turns in alternating order (on, off, off, on, on,
            # off, ...): no side always runs right after the other
            rounds += 1
            for s in (state if rounds % 2 else state[::-1]):
                if s["done"]:
                    continue
                n = len(s["times"])
                measured = sum(s["times"])
                est = statistics.median(s["times"]) if s["times"] else s["warm"]
                if n >= max_runs or (n >= s["reps"] and measured >= min_s * 1000.0) or \
                        (n >= 1 and s["spent"] + est > budget_ms):
                    s["done"] = True
                    continue
                step(s)
    finally:
        closed = set()
        for s in state:
            if s["session"] is not None and id(s["session"]) not in closed:
                closed.add(id(s["session"]))
                s["session"].close()
    for i, s in enumerate(state):
        if s["error"]:
            results[i] = {"error": s["error"]}
        elif s["times"]:
            results[i] = _summary(s)
            results[i]["repeat"] = repeat[0]
            if s["timed_out"]:
                results[i]["cancelled_runs"] = 1
        elif s["timed_out"]:
            results[i] = {"timed_out": True, "limit_ms": max_run_ms}
    pair = None
    if len(state) >= 2 and all(results[k] and not results[k].get("error") for k in (0, 1)):
        a, b = state[0]["times"], state[1]["times"]
        if not state[0]["single"] and not state[1]["single"]:
            k = min(len(a), len(b))
            if k:
                pair = statistics.median([a[j] / b[j] for j in range(k) if b[j] > 0] or [float("nan")])
    return results, pair


AGG_NAMES = {"Hashed": "HashAggregate", "Sorted": "GroupAggregate", "Plain": "Aggregate",
             "Mixed": "MixedAggregate"}


def plan_shape(plan):
    """The plan's nodes as one line, e.g. 'Finalize HashAggregate > Gather >
    Partial HashAggregate > Parallel Seq Scan' (costs and numbers left out)."""
    t = plan.get("Node Type", "?")
    if t == "Custom Scan":
        name = plan.get("Custom Plan Provider", t)
    elif t == "Aggregate":
        mode = plan.get("Partial Mode", "Simple")
        name = ("" if mode == "Simple" else mode + " ") + AGG_NAMES.get(plan.get("Strategy"), t)
    else:
        name = ("Parallel " if plan.get("Parallel Aware") else "") + t
    kids = [plan_shape(c) for c in plan.get("Plans", [])]
    if not kids:
        return name
    if len(kids) == 1:
        return name + " > " + kids[0]
    return name + " (" + ", ".join(kids) + ")"


def _walk(plan, found):
    if plan.get("Node Type") == "Custom Scan" and str(plan.get("Custom Plan Provider", "")).startswith("Gpu"):
        found["nodes"].append(plan["Custom Plan Provider"])
        for k in NODE_NUMBERS:
            if isinstance(plan.get(k), (int, float)):
                found["sums"][k] = found["sums"].get(k, 0.0) + plan[k]
        if plan.get("Source"):
            found["source"].add(plan["Source"])
    elif isinstance(plan.get("Workers Launched"), int):
        found["launched"] = max(found["launched"] or 0, plan["Workers Launched"])
    if "Workers Planned" in plan:
        found["workers"] = max(found["workers"], plan["Workers Planned"])
    for child in plan.get("Plans", []):
        _walk(child, found)


def explain(setup, query, analyze_runs=0, buffers=False, statio=None):
    """The Gpu nodes, parallel workers and shape (plan_shape) of query's plan;
    with analyze_runs, the medians over that many EXPLAIN (ANALYZE, FORMAT
    JSON) of the Gpu nodes' numbers (summed over the nodes of a plan), of the
    workers PostgreSQL's Gather launched, and of the execution time.
    buffers (with analyze_runs): BUFFERS too, and the shared blocks hit and
    read that the first run's top node reports ("shared_hit", "shared_read":
    a Gather's include its workers', and so do a Gpu node's, whose heap
    readers pass their buffer use back to the leader).
    statio (a table): that table's heap blocks hit and read by every process
    over the runs ("table_hit", "table_read"): pg_statio_all_tables before
    and after them, this session's counts flushed first
    (pg_stat_force_next_flush, PostgreSQL 15), parallel workers' at their
    exit, which the end of the query waits for."""
    opts = "ANALYZE, TIMING OFF, FORMAT JSON" if analyze_runs else "COSTS OFF, FORMAT JSON"
    if analyze_runs and buffers:
        opts = "ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON"
    stat = ("SELECT 'statio:' || coalesce(heap_blks_hit, 0) || ':' || coalesce(heap_blks_read, 0) "
            "FROM pg_statio_all_tables WHERE relid = %s::regclass;" % sql_literal(statio)) if statio else ""
    # (before: a moment for the backends of the sessions just closed to
    # exit, which is when they report their counts)
    script = setup + "\n" + ("SELECT pg_sleep(0.1);\n" + stat + "\n" if stat else "") + \
        "\n".join(["\\echo @@@", "EXPLAIN (%s) %s;" % (opts, query)] * max(1, analyze_runs)) + \
        ("\nSELECT pg_stat_force_next_flush();\n" + stat if stat else "")
    r = psql_script(script)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["failed"])[-1], "nodes": []}
    counts = [(int(a), int(b)) for a, b in re.findall(r"^statio:(\d+):(\d+)$", r.stdout, re.M)]
    stdout = re.sub(r"^statio:.*\n?", "", r.stdout, flags=re.M)
    runs = []
    for part in stdout.split("@@@")[1:]:
        try:
            doc = json.loads(part.strip())[0]
        except (ValueError, IndexError, KeyError):
            continue
        found = {"nodes": [], "sums": {}, "source": set(), "workers": 0, "launched": None,
                 "shape": plan_shape(doc["Plan"])}
        _walk(doc["Plan"], found)
        found["execution_ms"] = doc.get("Execution Time")
        found["planning_ms"] = doc.get("Planning Time")
        found["shared_hit"] = doc["Plan"].get("Shared Hit Blocks")
        found["shared_read"] = doc["Plan"].get("Shared Read Blocks")
        runs.append(found)
    if not runs:
        return {"error": "no EXPLAIN output", "nodes": []}
    out = {"nodes": runs[0]["nodes"], "workers": runs[0]["workers"], "shape": runs[0]["shape"]}
    if analyze_runs and buffers:
        out["shared_hit"], out["shared_read"] = runs[0]["shared_hit"], runs[0]["shared_read"]
    if stat and len(counts) == 2:
        out["table_hit"] = counts[1][0] - counts[0][0]
        out["table_read"] = counts[1][1] - counts[0][1]
    if analyze_runs:
        out["runs"] = len(runs)
        out["source"] = ",".join(sorted(runs[0]["source"])) or None
        for key in ("execution_ms", "planning_ms"):
            vals = [x[key] for x in runs if x[key] is not None]
            out[key] = statistics.median(vals) if vals else None
        la = [x["launched"] for x in runs if x["launched"] is not None]
        out["workers_launched"] = statistics.median(la) if la else None
        for k in NODE_NUMBERS:
            vals = [x["sums"][k] for x in runs if k in x["sums"]]
            out[k] = statistics.median(vals) if vals else None
    return out


def analyze_reps(args, on_ms):
    """EXPLAIN ANALYZE runs that fit in the budget (at most --explain-reps;
    none where one run takes longer than the budget)."""
    if not on_ms:
        return 0
    return max(0, min(args.explain_reps, int(args.budget * 1000.0 // on_ms)))


def kernel_ms(rec):
    """Device time of the kernels alone: the compute phases when EXPLAIN has
    them, else device time less the transfers, else gpu_last_execution's."""
    ex = rec.get("explain") or {}
    comp = [ex.get(k) for k in ("Filter Time", "Sort Time", "Aggregate Time")]
    if any(v is not None for v in comp):
        return sum(v for v in comp if v is not None), "filter + sort + aggregate phases"
    if ex.get("Device Time") is not None:
        dev = ex["Device Time"] - (ex.get("Transfer In Time") or 0) - (ex.get("Transfer Out Time") or 0)
        return dev, "EXPLAIN Device Time"
    dev = (rec.get("on") or {}).get("device_ms")
    return dev, "gpu_last_execution().device_ms"


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------

def drop_table(name, cascade=False):
    """Drops name and its cached columns; cascade: the foreign keys that name it too."""
    if psql("SELECT to_regclass(%s) IS NOT NULL" % sql_literal(name)) == "t":
        psql("SELECT gpu_cache_drop(%s)" % sql_literal(name), check=False)
        psql("DROP TABLE %s%s" % (name, " CASCADE" if cascade else ""))


def finish_table(name, mark, workers):
    """VACUUM (ANALYZE) (hint bits and the visibility map set before anything
    is timed), the parallel workers, then the comment that marks it complete;
    returns the seconds VACUUM took."""
    t0 = time.time()
    psql("VACUUM (ANALYZE) %s" % name)
    took = time.time() - t0
    if workers > 0:
        psql("ALTER TABLE %s SET (parallel_workers = %d)" % (name, workers))
    psql("COMMENT ON TABLE %s IS %s" % (name, sql_literal(mark)))
    return took


def table_info(name, kind, t0, built, phases=None):
    rows = int(psql("SELECT count(*) FROM %s" % name))
    size = int(psql("SELECT pg_table_size(%s)" % sql_literal(name)))
    info = {"table": name, "kind": kind, "rows": rows, "heap_bytes": size, "built": built,
            "build_s": round(time.time() - t0, 1) if built else None}
    if phases:
        info["build_phases"] = {k: round(v, 1) for k, v in phases.items()}
    return info


def reusable(name, mark, rows, workers, rebuild):
    """table_info of name where it was built as mark says (its comment, set
    last) and holds rows rows (None: any number but 0); else None."""
    if rebuild or table_mark(name) != mark:
        return None
    info = table_info(name, "", time.time(), False)
    if info["rows"] != rows if rows is not None else info["rows"] == 0:
        log("table %s: %d rows where %s were built: building it again" % (name, info["rows"], rows or "some"))
        return None
    if workers > 0:
        psql("ALTER TABLE %s SET (parallel_workers = %d)" % (name, workers))
    return info


def build_synthetic(name, n, jobs, workers, rebuild):
    mark = "%s rows=%d" % (SYNTH_MARK, n)
    t0 = time.time()
    info = reusable(name, mark, n, workers, rebuild)
    if info:
        return dict(info, kind="synthetic")
    log("building %s: %d rows (%d sessions)" % (name, n, jobs))
    drop_table(name)
    psql("CREATE TABLE %s (g int4, h int4, v float8, id int8, k text)" % name)
    groups = max(n // 5, 1)
    # statements of at most 5M rows, in whole rounds of the sessions
    jobs = max(jobs, 1)
    chunk = max(1, -(-n // (jobs * -(-n // (jobs * 5000000)))))
    stmts = ["""INSERT INTO %s
        SELECT (i %% 1000)::int4,
               CASE WHEN i %% 89 = 0 THEN NULL ELSE ((hashint8(i)::int8 & 2147483647) %% %d)::int4 END,
               CASE WHEN i %% 97 = 0 THEN NULL ELSE (hashint8(i * 31) & 1048575)::float8 / 1048576.0 END,
               i,
               CASE WHEN i %% 101 = 0 THEN NULL ELSE 'key' || (i %% 100) END
          FROM generate_series(%d::int8, %d::int8) i""" % (name, groups, a, min(a + chunk - 1, n))
             for a in range(1, n + 1, chunk)]
    t1 = time.time()
    run_parallel(stmts, jobs)
    inserted = time.time() - t1
    vac = finish_table(name, mark, workers)
    return table_info(name, "synthetic", t0, True, {"insert_s": inserted, "vacuum_analyze_s": vac})


def flights_candidates(arg):
    if arg:
        return [arg]
    prefix = os.environ.get("GPUDB_NPM_PREFIX") or os.path.join(
        os.environ.get("GPUDB_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "gpudb"), "npm")
    out = [os.environ.get("BENCH_FLIGHTS_FILE", "")]
    for d in (os.path.join(HERE, "data"), os.path.join(ROOT, ".gpu-bundle")):
        out += [os.path.join(d, "flights-3m." + ext) for ext in ("csv.gz", "csv", "parquet")]
    out.append(os.path.join(prefix, "node_modules", "vega-datasets", "data", "flights-3m.parquet"))
    return [p for p in out if p]


def copy_flights(table, path):
    """COPY the file into table (date, delay, distance, origin, destination);
    returns None, or why it could not."""
    copy = PSQL + ["-c", "COPY %s (%s) FROM STDIN (FORMAT csv)" % (table, ", ".join(FLIGHTS_COLUMNS))]
    if path.endswith(".parquet"):
        try:
            import pyarrow.csv as pacsv
            import pyarrow.parquet as pq
        except ImportError:
            pq = None
        if pq is not None:
            p = subprocess.Popen(copy, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                pacsv.write_csv(pq.read_table(path, columns=FLIGHTS_COLUMNS), p.stdin,
                                write_options=pacsv.WriteOptions(include_header=False))
                failed = None
            except Exception as e:  # then node, if it is here
                failed = "pyarrow: %r" % (e,)
            finally:
                p.stdin.close()
            err = p.stderr.read().decode()
            if p.wait() == 0 and not failed:
                return None
            log("flights: reading %s with pyarrow failed (%s %s); trying node" % (path, failed or "", err.strip()))
            psql("TRUNCATE %s" % table)
        prefix = os.environ.get("GPUDB_NPM_PREFIX") or os.path.join(
            os.environ.get("GPUDB_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "gpudb"), "npm")
        if not shutil.which("node") or not os.path.exists(
                os.path.join(prefix, "node_modules", "hyparquet", "package.json")):
            return ("%s is parquet, and neither pyarrow nor node with hyparquet (test/demo_flights.sh "
                    "installs it) is here; or give a CSV: node test/load_flights.mjs | gzip > "
                    "test/bench/data/flights-3m.csv.gz" % path)
        node = subprocess.Popen(["node", os.path.join(ROOT, "test", "load_flights.mjs"), path],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p = subprocess.run(copy, stdin=node.stdout, capture_output=True, text=True)
        node.stdout.close()
        nerr = node.stderr.read().decode()
        if node.wait() != 0 or p.returncode != 0:
            return "load_flights.mjs | COPY failed: %s %s" % (nerr.strip(), p.stderr.strip())
        return None
    opener = gzip.open if path.endswith(".gz") else open
    p = subprocess.Popen(copy, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with opener(path, "rb") as f:
            shutil.copyfileobj(f, p.stdin, 1 << 20)
    finally:
        p.stdin.close()
    err = p.stderr.read().decode()
    return None if p.wait() == 0 else "COPY failed: " + err


def flights_ddl(name):
    return ("CREATE TABLE %s (date timestamp, delay integer, distance integer, origin text, "
            "destination text, month date)" % name)


def build_flights(sizes, args):
    """([table_info] of every flights table, the base table (the file's rows)
    first; [table_info] of those of sizes; a message), or (None, None, why not)."""
    path = next((p for p in flights_candidates(args.flights_file) if os.path.exists(p)), None)
    infos = []
    if not path:
        return None, None, ("no flights file (looked for %s); test/demo_flights.sh fetches it"
                      % ", ".join(flights_candidates(args.flights_file)))
    fname = os.path.basename(path)
    base_mark = "%s file=%s" % (FLIGHTS_BASE_MARK, re.sub(r"\.(parquet|csv|csv\.gz)$", "", fname))
    found = psql("SELECT c.relname FROM pg_class c JOIN pg_description d ON d.objoid = c.oid "
                 "AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0 "
                 "WHERE c.relkind = 'r' AND d.description = %s LIMIT 1" % sql_literal(base_mark))
    t0 = time.time()
    info = reusable(found, base_mark, None, args.workers, args.rebuild) if found else None
    if info:
        base = found
        infos.append(dict(info, kind="flights"))
    else:
        log("loading flights from %s" % path)
        drop_table("flights_load")
        psql("CREATE UNLOGGED TABLE flights_load (%s)" % (
            "date timestamp, delay integer, distance integer, origin text, destination text"))
        err = copy_flights("flights_load", path)
        if err:
            drop_table("flights_load")
            return None, None, err
        nbase = int(psql("SELECT count(*) FROM flights_load"))
        base = "flights_" + table_suffix(nbase)
        drop_table(base)
        psql(flights_ddl(base))
        psql("INSERT INTO %s SELECT date, delay, distance, origin, destination, "
             "date_trunc('month', date)::date FROM flights_load" % base)
        drop_table("flights_load")
        finish_table(base, base_mark, args.workers)
        infos.append(table_info(base, "flights", t0, True))
    nbase = infos[0]["rows"]
    # copies are shifted by the file's span in whole months (6 for Jan-Jun 2001)
    months = int(psql("WITH r AS (SELECT date_trunc('month', min(date)) AS a, max(date) AS b FROM %s) "
                      "SELECT coalesce(min(k), 1) FROM r, generate_series(1, 1200) k "
                      "WHERE a + k * interval '1 month' >= b" % base))
    bench = [infos[0]] if nbase in sizes else []
    for n in sizes:
        t0 = time.time()
        if n == nbase:
            continue
        if n < nbase:
            name, rows = "flights_" + table_suffix(n), n
            mark = "%s rows=%d of %s" % (FLIGHTS_MARK, n, base_mark)
        else:
            copies = max(1, int(round(n / nbase)))
            rows = copies * nbase
            name = "flights_" + table_suffix(rows)
            mark = "%s rows=%d copies=%d shift=%d months of %s" % (FLIGHTS_MARK, rows, copies, months,
                                                                   base_mark)
        info = reusable(name, mark, rows, args.workers, args.rebuild)
        if info:
            infos.append(dict(info, kind="flights"))
            bench.append(infos[-1])
            continue
        drop_table(name)
        psql(flights_ddl(name))
        if n < nbase:
            log("building %s: the first %d flights" % (name, n))
            psql("SET synchronize_seqscans = off; INSERT INTO %s SELECT * FROM %s LIMIT %d" % (name, base, n))
        else:
            log("building %s: %d copies of %s, %d months apart (%d sessions)"
                % (name, copies, base, months, args.load_jobs))
            # the copies spread evenly over the sessions
            k = max(1, min(args.load_jobs, copies))
            stmts = ["""INSERT INTO %s
                SELECT date + c * interval '%d months', delay, distance, origin, destination,
                       date_trunc('month', date + c * interval '%d months')::date
                  FROM %s, generate_series(%d, %d) c""" % (name, months, months, base, j * copies // k,
                                                           (j + 1) * copies // k - 1)
                     for j in range(k)]
            run_parallel(stmts, args.load_jobs)
        inserted = time.time() - t0
        vac = finish_table(name, mark, args.workers)
        infos.append(table_info(name, "flights", t0, True, {"insert_s": inserted, "vacuum_analyze_s": vac}))
        bench.append(infos[-1])
    return infos, sorted(bench, key=lambda i: i["rows"]), "flights from %s" % path


def cache_load(table):
    """Loads table into the column cache: its numbers, or None with why not."""
    psql("SELECT gpu_cache_drop(%s)" % sql_literal(table), check=False)
    # client_min_messages = debug1: gpu_cache_load's report of where the time went
    r = psql_script("SET client_min_messages = debug1;\n\\timing on\nSELECT gpu_cache_load(%s);\n"
                    % sql_literal(table))
    if r.returncode != 0:
        return {"table": table, "error": r.stderr.strip()}
    ms = float(re.findall(r"^Time: ([0-9.]+) ms", r.stdout, re.M)[0])
    rep = re.search(r"reading the heap ([0-9.]+) ms, waiting on the server ([0-9.]+) ms", r.stderr)
    row = psql("SELECT rows, device_bytes, host_bytes, load_ms FROM gpu_cache "
               "WHERE relation = %s::regclass" % sql_literal(table))
    if not row:
        return {"table": table, "error": "no gpu_cache entry after the load"}
    rows, dev, host, load_ms = row.split("|")
    nbytes = max(int(dev), int(host))
    return {"table": table, "rows": int(rows), "ms": ms, "server_load_ms": float(load_ms or 0),
            "bytes": nbytes, "gbps": nbytes / 1e6 / ms if ms else None,
            "read_ms": float(rep.group(1)) if rep else None,
            "wait_ms": float(rep.group(2)) if rep else None}


def column_bytes(table, cols, rows):
    """(store, least): the bytes of these columns in the column store, which
    the kernel reads (src/gpudb_device.h: 8 bytes a value of every type, int64
    or float64, plus a NULL flag byte a row in a column with NULLs), and the
    least a kernel could read: rows x width (4 for a text column's
    dictionary code), plus a validity bit per row where NULLs occur."""
    out = psql("SELECT a.attname, a.attlen, coalesce((SELECT max(s.null_frac) FROM pg_stats s "
               "WHERE s.tablename = %s AND s.attname = a.attname), 0) > 0 FROM pg_attribute a "
               "WHERE a.attrelid = %s::regclass AND a.attname = ANY(%s::name[])"
               % (sql_literal(table), sql_literal(table), sql_literal("{" + ",".join(cols) + "}")))
    store = least = 0
    for line in out.splitlines():
        _, attlen, nulls = line.split("|")
        least += rows * (int(attlen) if int(attlen) > 0 else 4) + (-(-rows // 8) if nulls == "t" else 0)
        store += rows * 8 + (rows if nulls == "t" else 0)
    return store, least


# ---------------------------------------------------------------------------
# the sections
# ---------------------------------------------------------------------------

def selected(args, name):
    return (not args.only or re.search(args.only, name)) and not any(re.search(s, name) for s in args.skip)


def plan_workload(args, suite, table, rows, wid, name, query, cols=None):
    par = "SET max_parallel_workers_per_gather = %d;" % args.workers
    on_setup, off_setup = par + " SET gpudb.enabled = on;", par + " SET gpudb.enabled = off;"
    on_plan = explain(on_setup, query)
    off_plan = explain(off_setup, query)
    rec = {"suite": suite, "table": table, "rows": rows, "id": wid, "workload": name, "query": query,
           "nodes": on_plan.get("nodes", []), "workers_off": off_plan.get("workers"),
           "plan_on": on_plan.get("shape"), "plan_off": off_plan.get("shape"),
           "cols": list(cols) if cols else None}
    rec["same_plan"] = bool(not rec["nodes"] and rec["plan_on"] and rec["plan_on"] == rec["plan_off"])
    if rec["same_plan"] and args.skip_same_plan:
        rec["on"] = rec["off"] = {"skipped": "PostgreSQL's plan on both sides (--skip-same-plan)"}
        rec["pair_ratio"] = None
    elif rec["same_plan"]:
        # PostgreSQL's plan on both sides: off first, and where one run of it
        # takes longer than the budget, that run alone (on would repeat it)
        (rec["off"], on), pair = measure_sides([(off_setup, query), (on_setup, query)], args,
                                               first_alone=lambda s: s["single"] or s["timed_out"])
        rec["on"] = on or {"skipped": SAME_PLAN_SKIPPED}
        rec["pair_ratio"] = 1.0 / pair if pair else None
    else:
        (rec["on"], rec["off"]), rec["pair_ratio"] = measure_sides([(on_setup, query), (off_setup, query)], args)
    rec["speedup"] = ratio(rec["off"], rec["on"])
    reps = analyze_reps(args, med(rec["on"]))
    if suite == "synthetic" and wid in KERNEL_WORKLOADS and reps:
        # the kernel bandwidth comes from these phase times, which vary by
        # about 10 % from one run to the next: a median over more runs
        reps = max(reps, min(args.kernel_reps, int(args.budget * 1000.0 // med(rec["on"]))))
    if rec["nodes"] and reps:
        rec["explain"] = explain(on_setup + " SET gpudb.explain_hardware = on;", query, reps)
    log("  %-58s %-14s on %-24s off %-24s %s" % (name, ",".join(rec["nodes"]) or "none",
                                                  fmt_run(rec["on"]), fmt_run(rec["off"]),
                                                  fmt_speedup(rec["speedup"])))
    return rec


def run_synthetic(args, res, table, rows):
    for wid, name, q, cols in SYNTH_WORKLOADS:
        if selected(args, name):
            res["plan"].append(plan_workload(args, "synthetic", table, rows, wid, name,
                                             q.format(t=table, n10=max(rows // 10, 1)), cols))


def heap_buffers_info(table):
    """table's main fork and shared_buffers, in bytes and blocks; "ring":
    whether a sequential scan of it reads through the bulk-read ring (more
    blocks than shared_buffers / 4: heapam.c's initscan); "fits": whether it
    is under HEAP_FIT x shared_buffers."""
    heap, bs, sb = (int(x) for x in psql(
        "SELECT pg_relation_size(%s), current_setting('block_size')::int, "
        "pg_size_bytes(current_setting('shared_buffers'))" % sql_literal(table)).split("|"))
    return {"table": table, "heap_bytes": heap, "blocks": heap // bs, "block_size": bs, "shared_buffers_bytes": sb,
            "ring": heap // bs > (sb // bs) // 4, "fits": heap < HEAP_FIT * sb}


def warm_shared_buffers(table):
    """Reads table once with a TID range scan, which leaves its pages in
    shared_buffers (no ring: PostgreSQL begins it without SO_ALLOW_STRAT),
    as EXPLAIN ANALYZE: its plan, time and blocks hit and read, or "error"
    where the plan is not a TID range scan."""
    query = WARM_QUERY.format(t=table)
    ex = explain(WARM_SETUP, query, 1, buffers=True, statio=table)
    out = {"query": query, "setup": WARM_SETUP, "shape": ex.get("shape"), "ms": ex.get("execution_ms")}
    for k in ("shared_hit", "shared_read", "table_hit", "table_read"):
        out[k] = ex.get(k)
    if ex.get("error"):
        out["error"] = ex["error"]
    elif "Tid Range Scan" not in (ex.get("shape") or ""):
        out["error"] = "its plan is %s, not a TID range scan" % ex.get("shape")
    return out


def heap_os_check(res):
    """Why the OS-page-cache state was not that (or None): from PostgreSQL's
    side's blocks hit and read in that state."""
    info = res.get("heap_buffers")
    if not info or not info["ring"]:
        return None     # (no ring: the states are the same, which heap_buffers_text says)
    hit = read = 0
    for r in res["heap"]:
        ex = r.get("explain_off") or {}
        if r.get("buffers", "os") == "os" and ex.get("table_hit") is not None:
            hit, read = hit + ex["table_hit"], read + ex["table_read"]
    if hit + read and read < 0.5 * (hit + read):
        return ("In the first state PostgreSQL's runs found %.0f %% of t's blocks in shared_buffers already "
                "(from its build, or a warm-up earlier in this server's life, which stays): that state was "
                "not the OS page cache; a server restarted after the build measures it" % (100.0 * hit / (hit + read)))
    return None


def run_heap(args, res, table, rows, save=None):
    par = "SET max_parallel_workers_per_gather = %d;" % args.workers
    off_setup = par + " SET gpudb.enabled = off;"
    work = []
    for wid, name, q, _ in SYNTH_WORKLOADS:
        if name not in HEAP_WORKLOADS or not selected(args, name):
            continue
        query = q.format(t=table, n10=max(rows // 10, 1))
        off_plan = explain(off_setup, query)
        # the same number of workers on both sides: PostgreSQL's per Gather,
        # gpudb's reading the heap into batches (gpudb.parallel_workers)
        modes = [("planner", par + " SET gpudb.use_cache = off; SET gpudb.parallel_workers = %d;"
                  % args.workers)]
        if not explain(modes[0][1], query).get("nodes"):
            # PostgreSQL's parallel plans are left out of the on side's
            # choice (max_parallel_workers_per_gather = 0; gpudb's own
            # workers are gpudb.parallel_workers), else their divided
            # per-row costs can still beat the device path's
            modes.append(("forced (gpudb.gpu_*_cost = 0)", modes[0][1] +
                          " SET gpudb.gpu_setup_cost = 0; SET gpudb.gpu_tuple_cost = 0;"
                          " SET gpudb.gpu_transfer_cost = 0;"
                          " SET max_parallel_workers_per_gather = 0;"))
        work.append((wid, name, query, off_plan, modes))
    info = heap_buffers_info(table)
    info["states"] = []
    res["heap_buffers"] = info
    log("  t's heap %.2f GB (%d blocks), shared_buffers %.2f GB: %s" % (
        info["heap_bytes"] / 1e9, info["blocks"], info["shared_buffers_bytes"] / 1e9,
        "sequential scans read through the bulk-read ring" if info["ring"] else "no ring (not over shared_buffers / 4)"))
    # the OS page cache first: once warmed, t stays in shared_buffers
    for state in [b for b in HEAP_BUFFERS if b in args.heap_buffers]:
        if state == "shared":
            if not info["fits"]:
                info["shared_skipped"] = "t's heap, %.2f GB, is not under %g x shared_buffers (%.2f GB)" % (
                    info["heap_bytes"] / 1e9, HEAP_FIT, info["shared_buffers_bytes"] / 1e9)
                log("  buffers: shared_buffers skipped: %s" % info["shared_skipped"])
                continue
            warm = info["warm"] = warm_shared_buffers(table)
            if warm.get("error"):
                info["shared_skipped"] = "the warm-up failed: %s" % warm["error"]
                log("  buffers: shared_buffers skipped: %s" % info["shared_skipped"])
                continue
            log("  warmed t into shared_buffers: %s, %s ms, blocks hit / read %s" % (
                warm["shape"], fmt_ms(warm["ms"]), buffers_cell(warm)))
        info["states"].append(state)
        log("  buffers: %s" % HEAP_BUFFERS[state])
        for wid, name, query, off_plan, modes in work:
            off_ex = None
            for mode, setup in modes:
                on_plan = explain(setup, query)
                nodes = on_plan.get("nodes", [])
                # off measured again here, taking turns with on (not reused
                # from the synthetic section, minutes earlier)
                (on, off), pair = measure_sides([(setup, query), (off_setup, query)], args)
                rec = {"table": table, "rows": rows, "id": wid, "workload": name, "mode": mode, "buffers": state,
                       "query": query, "nodes": nodes, "plan_on": on_plan.get("shape"),
                       "plan_off": off_plan.get("shape"), "workers_off": off_plan.get("workers"), "on": on,
                       "off": off, "speedup": ratio(off, on), "pair_ratio": pair}
                rec["same_plan"] = bool(not nodes and rec["plan_on"] and rec["plan_on"] == rec["plan_off"])
                # one EXPLAIN (ANALYZE, BUFFERS) a side in each state: the
                # workers each launched (gpudb's heap readers, PostgreSQL's
                # Gather), the device time of the Gpu nodes, and the blocks
                # found in shared_buffers and read into them
                if med(on) is not None:
                    rec["explain"] = explain(setup + (" SET gpudb.explain_hardware = on;" if nodes else ""), query,
                                             1, buffers=True, statio=table)
                if off_ex is None and med(off) is not None:
                    off_ex = explain(off_setup, query, 1, buffers=True, statio=table)
                rec["explain_off"] = off_ex
                log("  heap %-14s %-40s %-30s %-14s on %-22s off %-22s %s; hit / read on %s, off %s" % (
                    HEAP_BUFFERS[state], name, mode, ",".join(nodes) or "none", fmt_run(on), fmt_run(off),
                    fmt_speedup(rec["speedup"]), buffers_cell(rec.get("explain")), buffers_cell(off_ex)))
                res["heap"].append(rec)
        if state == "os" and heap_os_check(res):
            log("  note: %s" % heap_os_check(res))
        if save:
            save()


def run_functions(args, res, table, rows, cached):
    par = "SET max_parallel_workers_per_gather = %d;" % args.workers
    for name, gq, sq in FUNCTION_WORKLOADS:
        if not selected(args, name):
            continue
        gq, sq = gq.format(t=table), sq.format(t=table)
        rec = {"table": table, "rows": rows, "workload": name, "query": gq, "sql": sq}
        # the function over the heap and over the cache, and the plain SQL,
        # taking turns
        sides = [("pg", par + " SET gpudb.enabled = off;", sq)]
        if not args.no_heap:
            sides.append(("heap", "SET gpudb.use_cache = off;", gq))
        if cached:
            sides.append(("cached", "", gq))
        got, _ = measure_sides([(s, q) for _, s, q in sides], args)
        rec["heap"] = rec["cached"] = None
        for (key, _, _), m in zip(sides, got):
            rec[key] = m
        rec["speedup_cached"] = ratio(rec["pg"], rec["cached"])
        rec["speedup_heap"] = ratio(rec["pg"], rec["heap"])
        log("  gpu_groupby %-36s heap %-22s cached %-22s PG %-22s" % (
            name, fmt_run(rec["heap"]), fmt_run(rec["cached"]), fmt_run(rec["pg"])))
        res["functions"].append(rec)


def run_flights(args, res, table, rows):
    # the middle tenth of the dates: two plain queries (over the cache where
    # the plan nodes take them), the row count known already
    par = "SET max_parallel_workers_per_gather = %d; " % args.workers
    a, b = psql(par + "SELECT min(date), max(date) FROM %s" % table).split("|")
    lo, hi = psql("SELECT date_trunc('hour', %s::timestamp + (%s::timestamp - %s::timestamp) * 0.45), "
                  "date_trunc('hour', %s::timestamp + (%s::timestamp - %s::timestamp) * 0.55)"
                  % ((sql_literal(a), sql_literal(b), sql_literal(a)) * 2)).split("|")
    where = " WHERE date >= '%s' AND date < '%s'" % (lo, hi)
    n = int(psql(par + "SELECT count(*) FROM %s%s" % (table, where)))
    frac = n / float(max(rows, 1))
    res["flights_ranges"][table] = {"from": lo, "to": hi, "fraction": frac}
    log("  date range of %s: %s to %s, %.1f %% of the rows" % (table, lo, hi, 100 * frac))
    for wid, name, q in FLIGHTS_WORKLOADS:
        for w, suffix in (("", ""), (where, ", date range")):
            if selected(args, name + suffix):
                res["plan"].append(plan_workload(args, "flights", table, rows, wid + ("d" if w else ""),
                                                 name + suffix, q.format(t=table, where=w)))


def run_small(args, res, save=None):
    par = "SET max_parallel_workers_per_gather = %d;" % args.workers
    on_setup, off_setup = "SET gpudb.enabled = on; " + par, "SET gpudb.enabled = off; " + par
    for n in SMALL_SIZES:
        name = "t_small_%d" % n
        build_synthetic(name, n, 1, 0, args.rebuild)
        for label, q in SMALL_WORKLOADS:
            if not selected(args, "small %s" % label):
                continue
            query = q.format(t=name)
            on_plan, off_plan = explain(on_setup, query), explain(off_setup, query)
            nodes = on_plan.get("nodes", [])
            # sub-millisecond queries: on and off take turns (after a warm-up
            # of each), SMALL_MIN_RUNS runs a side at least and until
            # SMALL_MIN_S seconds of them; the verdict is on the median of the
            # ratios of the runs taken one after the other
            (on, off), pair = measure_sides([(on_setup, query), (off_setup, query)], args,
                                            reps=max(args.reps, SMALL_MIN_RUNS), min_s=SMALL_MIN_S,
                                            max_runs=SMALL_MAX_RUNS, sample_ms=SMALL_SAMPLE_MS,
                                            one_session=True)
            r = pair if pair is not None else ratio(on, off)
            rec = {"rows": n, "workload": label, "query": query, "nodes": nodes,
                   "plan_on": on_plan.get("shape"), "plan_off": off_plan.get("shape"),
                   "same_plan": bool(on_plan.get("shape") and on_plan.get("shape") == off_plan.get("shape")),
                   "on": on, "off": off, "ratio": r, "ratio_of_medians": ratio(on, off),
                   "within": r is not None and r <= TARGET_SMALL_RATIO}
            log("  small %7d rows %-7s %-10s on %8s off %8s %s%s" % (
                n, label, ",".join(nodes) or "none", fmt_ms(med(on)), fmt_ms(med(off)),
                "-" if r is None else "%.3f" % r, " (same plan)" if rec["same_plan"] else ""))
            res["small"].append(rec)
        if save:
            save()


def copy_bandwidth(args):
    binary = args.copy_bandwidth
    if not os.path.exists(binary):
        return {"error": "not measured: %s is not built (/usr/local/cuda/bin/nvcc -O2 -cudart static "
                         "-o test/bench/copy_bandwidth test/bench/copy_bandwidth.cu)" % os.path.relpath(binary, ROOT)}
    try:
        r = subprocess.run([binary, str(args.copy_gb)], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": "not measured: %s" % e}
    try:
        out = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": "not measured: %s %s" % (r.stdout.strip(), r.stderr.strip())}
    if "error" in out:
        out["error"] = "not measured: " + out["error"]
    return out


def kernels(res):
    """B1/B2 cached on the device: bytes of the columns read / kernel time."""
    bw = res.get("copy_bandwidth") or {}
    peak = bw.get("read_write_GBps")
    out = []
    for rec in res["plan"]:
        if rec["suite"] != "synthetic" or rec["id"] not in KERNEL_WORKLOADS or not rec.get("nodes"):
            continue
        ms, how = kernel_ms(rec)
        if not ms:
            continue
        nbytes, least = column_bytes(rec["table"], rec["cols"], rec["rows"])
        gbps = nbytes / 1e6 / ms
        out.append({"table": rec["table"], "rows": rec["rows"], "workload": rec["workload"],
                    "bytes": nbytes, "least_bytes": least, "kernel_ms": ms, "kernel_time_from": how, "gbps": gbps,
                    "source": (rec.get("explain") or {}).get("source"),
                    "copy_gbps": peak, "pct": 100.0 * gbps / peak if peak else None})
    return out


# ---------------------------------------------------------------------------
# targets and the markdown
# ---------------------------------------------------------------------------

def targets(res):
    out = []
    synth = [r for r in res["plan"] if r["suite"] == "synthetic"]
    largest = max((r["rows"] for r in synth), default=None)
    note = "" if largest == 100000000 else " (the target is set for 100M rows)"
    for rec in synth:
        if rec["rows"] != largest or rec["id"] not in TARGET_MS or med(rec["on"]) is None:
            continue
        t, v = TARGET_MS[rec["id"]], med(rec["on"])
        out.append({"what": "%s at %s rows%s" % (rec["workload"], size_label(largest), note),
                    "value": "%s ms end to end" % fmt_ms(v), "target": "<= %g ms" % t, "met": v <= t,
                    "miss": None if v <= t else "missed by %s ms (%.1fx the target)" % (fmt_ms(v - t), v / t)})
    for rec in res["heap"]:
        s = rec["speedup"]
        if s is None:
            continue
        out.append({"what": "uncached %s at %s rows, %s, %s, %s" % (
                        rec["workload"], size_label(rec["rows"]), rec["mode"],
                        ",".join(rec["nodes"]) or "PostgreSQL's plan", buffers_state(rec)),
                    "value": "%s PostgreSQL's time (%s ms against %s ms)" % (
                        fmt_speedup(s), fmt_ms(rec["on"]["median"]), fmt_ms(rec["off"]["median"])),
                    "target": ">= %gx" % TARGET_UNCACHED_SPEEDUP, "met": s >= TARGET_UNCACHED_SPEEDUP,
                    "miss": None if s >= TARGET_UNCACHED_SPEEDUP else
                    "missed: %.1fx short of it (%s ms slower than the target allows)"
                    % (TARGET_UNCACHED_SPEEDUP / s,
                       fmt_ms(rec["on"]["median"] - rec["off"]["median"] / TARGET_UNCACHED_SPEEDUP))})
    for kind in ("synthetic", "flights"):
        tables = [d for d in res["data"] if d["kind"] == kind and any(ld["table"] == d["table"] for ld in res["loads"])]
        ld = next((x for x in res["loads"] if tables and x["table"] == max(tables, key=lambda d: d["rows"])["table"]),
                  {})
        if ld.get("gbps") is None:
            continue
        g = ld["gbps"]
        out.append({"what": "cache load of %s (%s rows)" % (ld["table"], size_label(ld["rows"])),
                    "value": "%.2f GB/s" % g, "target": ">= %g GB/s" % TARGET_LOAD_GBPS,
                    "met": g >= TARGET_LOAD_GBPS,
                    "miss": None if g >= TARGET_LOAD_GBPS else "missed by %.2f GB/s (%.0f %% of the target)"
                    % (TARGET_LOAD_GBPS - g, 100 * g / TARGET_LOAD_GBPS)})
    krows = [k for k in res["kernels"] if k["rows"] == max((x["rows"] for x in res["kernels"]), default=0)]
    for k in krows:
        if k["pct"] is None:
            out.append({"what": "kernel bandwidth, %s at %s rows" % (k["workload"], size_label(k["rows"])),
                        "value": "%.0f GB/s" % k["gbps"], "target": ">= %g %% of copy bandwidth" % TARGET_KERNEL_PCT,
                        "met": None, "miss": "not judged: the copy bandwidth was not measured"})
            continue
        out.append({"what": "kernel bandwidth, %s at %s rows" % (k["workload"], size_label(k["rows"])),
                    "value": "%.0f GB/s, %.0f %% of %.0f GB/s" % (k["gbps"], k["pct"], k["copy_gbps"]),
                    "target": ">= %g %%" % TARGET_KERNEL_PCT, "met": k["pct"] >= TARGET_KERNEL_PCT,
                    "miss": None if k["pct"] >= TARGET_KERNEL_PCT else "missed by %.0f points (%.1fx slower than "
                    "the target)" % (TARGET_KERNEL_PCT - k["pct"], TARGET_KERNEL_PCT / k["pct"])})
    if res["small"]:
        bad = [r for r in res["small"] if not r["within"]]
        same = [r for r in res["small"] if r.get("same_plan")]
        worst = max((r for r in res["small"] if r["ratio"] is not None), key=lambda r: r["ratio"], default=None)
        out.append({"what": "small tables (1k-100k rows): gpudb on within 5 % of off",
                    "value": "%d of %d within (%d of the %d with PostgreSQL's plan on both sides)" % (
                        len(res["small"]) - len(bad), len(res["small"]), len([r for r in same if r["within"]]),
                        len(same)),
                    "target": "all", "met": not bad,
                    "miss": None if not bad or not worst else "missed; worst: %s at %d rows, %.2fx off's time (%s ms "
                    "against %s ms%s), %.0f %% over" % (worst["workload"], worst["rows"], worst["ratio"],
                                                        fmt_ms(med(worst["on"])), fmt_ms(med(worst["off"])),
                                                        ", the same plan" if worst.get("same_plan") else "",
                                                        100 * (worst["ratio"] - 1))})
    return out


def phase_cell(ex, key):
    v = (ex or {}).get(key)
    return "-" if v is None else "%.3f" % v if v < 10 else fmt_ms(v)


def coverage(res):
    """Lines saying what the run covers, which sections it left out, and
    whether it finished."""
    m = res["meta"]
    sections, done = m.get("sections", SECTIONS), m.get("sections_done", [])
    tables = {}
    for d in res["data"]:
        tables.setdefault(d["kind"], []).append(d)
    synth = [size_label(d["rows"]) for d in tables.get("synthetic", [])]
    flights = [size_label(n) for n in m.get("flights_sizes", [])]
    what = {"synthetic": "synthetic (%s rows)" % ", ".join(synth or ["-"]),
            "heap": "heap (uncached, %s rows; buffers: %s)" % (
                synth[-1] if synth else "-", ", ".join(HEAP_BUFFERS[b] for b in m.get("heap_buffers", HEAP_BUFFERS))),
            "functions": "functions (gpu_groupby, %s rows)" % (synth[-1] if synth else "-"),
            "flights": "flights (%s)" % ("%s rows" % ", ".join(flights) if flights else "no table: --flights names none"),
            "small": "small (%s rows)" % ", ".join(size_label(n) for n in SMALL_SIZES)}
    left = [s for s in SECTIONS if s not in sections]
    out = ["**Sections in this run: %s**%s." % (
        "; ".join(what[s] for s in sections) or "none",
        "; not in this run: %s" % ", ".join(left) if left else " (all of them)")]
    limits = ([("only those matching `%s`" % m["only"])] if m.get("only") else []) + \
        (["leaving out those matching %s" % ", ".join("`%s`" % s for s in m["skip"])] if m.get("skip") else []) + \
        (["neither side run where gpudb on would run PostgreSQL's plan (--skip-same-plan)"]
         if m.get("skip_same_plan") else []) + \
        (["runs over %g s cancelled (--max-run)" % m["max_run_s"]] if m.get("max_run_s") else [])
    if limits:
        out.append("Workloads: %s." % "; ".join(limits))
    if not m.get("finished"):
        out.append("**Unfinished: written while the run went on (or after it was cut short); sections "
                   "finished: %s.**" % (", ".join(done) or "none"))
    return out + [""]


def heap_buffers_text(res):
    """The uncached section's paragraphs on its two buffer states."""
    info = res.get("heap_buffers")
    if not info:
        return []
    gb = lambda b: "%.2f GB" % (b / 1e9) if b >= 1e9 else "%.1f MB" % (b / 1e6)
    out = ["Each workload is measured in up to two buffer states, one block of runs each (every workload "
           "in the first, then every workload in the second), shown in the buffers column:", "",
           "- **OS page cache**: t as the earlier sections left it. A sequential scan of a table of more "
           "than shared_buffers / 4 reads it through a 256 kB ring of buffers (BAS_BULKREAD, heapam.c's "
           "initscan): a page it does not find in shared_buffers is read into the ring, evicting the ring's "
           "previous page, so t does not stay in shared_buffers (bar the pages a ring leaves behind, where "
           "it could not reuse a buffer) and each run, PostgreSQL's and gpudb's heap readers alike, copies "
           "it again from the OS page cache. The ring decides only what a miss evicts: a page already in "
           "shared_buffers is a hit either way.",
           "- **shared_buffers**: t read once beforehand by a TID range scan, `%s` (%s): PostgreSQL begins a "
           "TID range scan without SO_ALLOW_STRAT (tableam.h's table_beginscan_tidrange), so it reads with "
           "no ring and its pages stay in shared_buffers; the runs then find every page there, on both sides "
           "(only where t's heap is under %g x shared_buffers; pg_prewarm would do the same but is not in "
           "every server)." % (WARM_QUERY.format(t=info["table"]), WARM_SETUP.rstrip(";"), HEAP_FIT), "",
           "Hit / read: shared blocks found in shared_buffers / read into them, from one EXPLAIN (ANALYZE, "
           "BUFFERS) of each side in that state: first as its top node reports them (PostgreSQL's Gather "
           "includes its workers', and so does a Gpu node, whose heap readers pass their buffer use back to "
           "the leader; in results at 55212c2 and before, the leader's share alone), then, in brackets, t's "
           "heap blocks hit / read by "
           "every process over that run (pg_statio_all_tables before and after it)."]
    line = "Here t's heap is %s (%s blocks of %d bytes) and shared_buffers %s: %s." % (
        gb(info["heap_bytes"]), "{:,}".format(info["blocks"]), info["block_size"], gb(info["shared_buffers_bytes"]),
        "sequential scans of t read through the ring" if info["ring"] else
        "t is no larger than shared_buffers / 4 (%s blocks), so its sequential scans use no ring and t stays in "
        "shared_buffers after its first run in the first state too: both states are the same"
        % "{:,}".format(info["shared_buffers_bytes"] // info["block_size"] // 4))
    states = info.get("states", [])
    line += " States measured: %s." % (", ".join(HEAP_BUFFERS[b] for b in states) or "none")
    if info.get("shared_skipped"):
        line += " shared_buffers not measured: %s." % info["shared_skipped"]
    warm = info.get("warm") or {}
    if "shared" in states:
        line += (" The warm-up (%s) took %s ms, blocks hit / read %s; t stays in shared_buffers after this "
                 "section, so the sections after it read it from there." % (warm.get("shape"), fmt_ms(warm.get("ms")),
                                                                          buffers_cell(warm)))
    elif "shared" not in res["meta"].get("heap_buffers", HEAP_BUFFERS) and not info.get("shared_skipped"):
        line += " shared_buffers not measured: --heap-buffers left it out."
    out += ["", line]
    note = heap_os_check(res) if "os" in states else None
    if note:
        out += ["", "**Note: %s.**" % note]
    return out


def markdown(res):
    m = res["meta"]
    partial = m.get("sections", SECTIONS) != SECTIONS or m.get("only") or m.get("skip") or m.get("skip_same_plan")
    out = ["# gpudb benchmark — %s, commit %s, %s%s" % (
               m["device"], m["commit"], m["date"],
               " — %s only" % ", ".join(m.get("sections", [])) if m.get("sections", SECTIONS) != SECTIONS else ""),
           ""] + coverage(res) + [
           "`%s` on %s (gpudb path `%s`); %s." % (m["command"], m["host"], m["path"], m["pg_version"]),
           "Settings: %s." % ", ".join("%s = %s" % kv for kv in m["settings"].items()), "",
           "Times are end to end in psql (rows fetched by the client), median (min–max) of up to %d runs "
           "a side after one warm-up of each, gpudb on and off in two sessions of the same run on the same "
           "server and data, taking turns (on, off, off, on, on, off, ...). Each side's time, its warm-up included, "
           "stays within the %g s budget: a side stops where its next run would not fit ([n runs] marks "
           "those), and where its warm-up alone took longer, that run is its single measurement ([1 cold "
           "run]). "
           "\"same plan, not run\": gpudb on would have run PostgreSQL's plan, as off did, and one run "
           "of it took longer than the budget (or, with --skip-same-plan, neither side ran). \"> N "
           "(cancelled)\": one run took longer than --max-run and was cancelled. PostgreSQL (gpudb.enabled = off) ran with "
           "max_parallel_workers_per_gather = %d and each table's parallel_workers = %d; the Workers "
           "column is what its plan asked for. Device times: gpu_last_execution() (CUDA events), per phase "
           "from EXPLAIN (ANALYZE, FORMAT JSON) of the Gpu nodes (median of up to %d, as many as fit in "
           "the budget; of up to %d for the cached B1 and B2, whose phase times give the kernel bandwidth)."
           % (m["reps"], m["budget_s"], m["workers"], m["workers"], m["explain_reps"],
              m.get("kernel_reps", m["explain_reps"])), "",
           "Harness time: %.0f s%s." % (m.get("elapsed_s", 0), "" if partial else " (all sections)"), ""]
    for chart in res.get("charts", []):
        out += ["![%s](%s)" % (os.path.basename(chart), os.path.basename(chart)), ""]
    if res.get("chart_note"):
        out += [res["chart_note"], ""]

    out += ["## Against the targets (issue 5)", ""]
    if m["path"] != "gpu":
        out += ["The path was `%s`: the targets are for the GPU; shown to exercise the harness." % m["path"], ""]
    for t in res["targets"]:
        verdict = "met" if t["met"] else (t["miss"] if t["met"] is None else "**%s**" % t["miss"])
        out.append("- %s: %s; target %s: %s" % (t["what"], t["value"], t["target"], verdict))
    if not res["targets"]:
        out.append("- nothing to judge in this run")
    out.append("")

    bw = res.get("copy_bandwidth") or {}
    out += ["## Device copy bandwidth", ""]
    if bw.get("error"):
        out.append(bw["error"] + ".")
    else:
        out.append("%s: device-to-device cudaMemcpy of %.1f GB, median of %d: %.2f ms, %.0f GB/s copied, "
                   "**%.0f GB/s read + written** (best %.0f GB/s; 2 x clock x bus width: %.0f GB/s). Kernels "
                   "below are held against the read + write figure."
                   % (bw.get("device"), bw.get("bytes", 0) / 1e9, bw.get("iterations", 0), bw.get("median_ms", 0),
                      bw.get("copy_GBps", 0), bw.get("read_write_GBps", 0), bw.get("best_read_write_GBps", 0),
                      bw.get("theoretical_GBps", 0)))
    out.append("")

    out += ["## Data and cache loads", "",
            "| table | rows | heap | built in | cache load ms | reading the heap ms | waiting on the server ms "
            "| column data | GB/s |", "|---|---|---|---|---|---|---|---|---|"]
    loads = {ld["table"]: ld for ld in res["loads"]}
    for d in res["data"]:
        ld = loads.get(d["table"], {})
        out.append("| %s | %s | %.1f GB | %s | %s | %s | %s | %s | %s |" % (
            d["table"], "{:,}".format(d["rows"]), d["heap_bytes"] / 1e9,
            build_cell(d),
            "error: " + ld["error"].splitlines()[-1] if ld.get("error") else fmt_ms(ld.get("ms")),
            fmt_ms(ld.get("read_ms")), fmt_ms(ld.get("wait_ms")),
            "%.1f MB" % (ld["bytes"] / 1e6) if ld.get("bytes") else "-",
            "%.2f" % ld["gbps"] if ld.get("gbps") else "-"))
    if any(ld.get("read_ms") is not None for ld in res["loads"]):
        out += ["", "Reading the heap and waiting on the server: gpu_cache_load's own report (DEBUG1): the "
                "backend filling batches, and waiting for the server to append the one before (a batch and "
                "its rows' heap addresses take at most 4 MB); the rest of the load is its lock, triggers and "
                "the cache entry's creation."]
    for note in res["notes"]:
        out += ["", note]
    for t, r in res["flights_ranges"].items():
        out += ["", "Date range of %s: %s to %s (%.1f %% of its rows)." % (t, r["from"], r["to"], 100 * r["fraction"])]
    out.append("")

    for suite, title in (("synthetic", "Synthetic t: plan nodes (gpudb on, cached) vs PostgreSQL (off)"),
                         ("flights", "Flights: plan nodes (gpudb on, cached) vs PostgreSQL (off)")):
        recs = [r for r in res["plan"] if r["suite"] == suite]
        for table in sorted({r["table"] for r in recs}, key=lambda t: [r["rows"] for r in recs if r["table"] == t][0]):
            rows = [r for r in recs if r["table"] == table]
            out += ["## %s — %s, %s rows" % (title, table, "{:,}".format(rows[0]["rows"])), "",
                    "| workload | nodes | gpudb on ms | device ms | gpudb off ms | workers | speedup |",
                    "|---|---|---|---|---|---|---|"]
            for r in rows:
                out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                    r["workload"], nodes_cell(r), fmt_run(r["on"]),
                    fmt_ms(r["on"].get("device_ms")) if r["nodes"] else "-", fmt_run(r["off"]),
                    r["workers_off"] if r["workers_off"] is not None else "-", speedup_cell(r)))
            withex = [r for r in rows if r.get("explain")]
            if withex:
                out += ["", "Where the time goes (gpudb on; ms; EXPLAIN ANALYZE of the Gpu nodes, psql's end to "
                        "end median beside it). Planning and Execution: EXPLAIN ANALYZE's own (Execution holds the "
                        "node's Run Time and the forming of the result rows, not their sending: psql less the two "
                        "is the protocol, the client, and the result rows' output functions). Run Time: the node's "
                        "request to the GPU server and back; Device Time: CUDA events on the server, per phase:", "",
                        "| workload | source | psql | Planning | Execution | Run Time | Device Time | Transfer In "
                        "| Filter | Sort | Aggregate | Transfer Out | MB to / from device |",
                        "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
                for r in withex:
                    ex = r["explain"]
                    mb = "-" if ex.get("Bytes To Device") is None else "%.1f / %.1f" % (
                        ex["Bytes To Device"] / 1e6, (ex.get("Bytes From Device") or 0) / 1e6)
                    out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                        r["workload"], ex.get("source") or "-", fmt_ms(r["on"].get("median")),
                        phase_cell(ex, "planning_ms"), phase_cell(ex, "execution_ms"),
                        phase_cell(ex, "Run Time"), phase_cell(ex, "Device Time"),
                        *[phase_cell(ex, k) for k in PHASES], mb))
            out.append("")

    if res["heap"] or res.get("heap_buffers"):
        out += ["## Uncached (gpudb.use_cache = off) vs PostgreSQL", "",
                "Both sides measured here, taking turns (on, off, off, on, on, off, ... after a warm-up of each). Workers "
                "launched: from one EXPLAIN ANALYZE a side (gpudb's heap readers where a Gpu node ran, else "
                "PostgreSQL's Gather); device ms: the Gpu nodes' Device Time there, summed over batches.", ""]
        out += heap_buffers_text(res) + [""]
        out += ["| workload | rows | buffers | mode | nodes | gpudb on ms | workers launched | device ms "
                "| hit / read | PostgreSQL ms | workers launched | hit / read | speedup |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        first = {}
        for r in res["heap"]:
            first.setdefault(r["workload"], len(first))
            first.setdefault((r["workload"], r["mode"]), len(first))
        order = list(HEAP_BUFFERS)
        for r in sorted(res["heap"], key=lambda r: (first[r["workload"]], first[(r["workload"], r["mode"])],
                                                    order.index(r.get("buffers", "os")))):
            ex, exo = r.get("explain") or {}, r.get("explain_off") or {}
            launched = ex.get("Workers Launched") if r["nodes"] else ex.get("workers_launched")
            dev = ex.get("Device Time") if ex.get("Device Time") is not None else (
                (r["on"] or {}).get("device_ms") if r["nodes"] else None)
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["workload"], size_label(r["rows"]), HEAP_BUFFERS[r.get("buffers", "os")], r["mode"],
                nodes_cell(r), fmt_run(r["on"]), fmt_count(launched), fmt_ms(dev), buffers_cell(ex),
                fmt_run(r["off"]), fmt_count(exo.get("workers_launched")), buffers_cell(exo), speedup_cell(r)))
        out.append("")

    if res["kernels"]:
        out += ["## Kernel bandwidth (cached B1/B2)", "",
                "MB read: the query's columns as the column store holds them, which the kernels read (8 bytes "
                "a value, int64 or float64, and a NULL flag byte a row where a column has NULLs); GB/s and the "
                "share of the copy bandwidth are of these. Least: what a store at each column's own width with "
                "a validity bit a row would hold (GB/s at least: that over the same time). Kernel time: the "
                "filter, sort and aggregate phases (device time less transfers where the phases are absent).", "",
                "| workload | rows | source | MB read | kernel ms | GB/s | of copy bandwidth | MB least "
                "| GB/s at least |",
                "|---|---|---|---|---|---|---|---|---|"]
        for k in res["kernels"]:
            least = k.get("least_bytes")
            out.append("| %s | %s | %s | %.1f | %.3f | %.0f | %s | %s | %s |" % (
                k["workload"], size_label(k["rows"]), k["source"] or "-", k["bytes"] / 1e6, k["kernel_ms"],
                k["gbps"], "-" if k["pct"] is None else "%.0f %%" % k["pct"],
                "-" if least is None else "%.1f" % (least / 1e6),
                "-" if least is None else "%.0f" % (least / 1e6 / k["kernel_ms"])))
        out.append("")

    if res["functions"]:
        out += ["## gpu_groupby (the SQL function) vs plain SQL, %s rows" % size_label(res["functions"][0]["rows"]), ""]
        hb = res.get("heap_buffers") or {}
        if "shared" in hb.get("states", []) and hb.get("ring"):
            out += ["The uncached section before this one read t into shared_buffers (a TID range scan), so "
                    "these runs find it there rather than in the OS page cache.", ""]
        out += ["| workload | gpu_groupby heap ms | device ms | gpu_groupby cached ms | device ms | PostgreSQL ms "
                "| speedup (cached) |", "|---|---|---|---|---|---|---|"]
        for r in res["functions"]:
            h, c = r["heap"] or {}, r["cached"] or {}
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                r["workload"], fmt_run(h) if h else "—", fmt_ms(h.get("device_ms")), fmt_run(c) if c else "—",
                fmt_ms(c.get("device_ms")), fmt_run(r["pg"]),
                fmt_speedup(r["speedup_cached"] if r["speedup_cached"] is not None else r["speedup_heap"])))
        out.append("")

    if res["small"]:
        out += ["## Small tables: gpudb on vs off (must stay within 5 %)", "",
                "On and off take turns in one session (SET gpudb.enabled on or off before each sample, untimed: "
                "two sessions' backends differed by up to 14 %% on the same plan), in the order on, off, off, on, "
                "on, off, ... after a warm-up of each, at least %d samples a side "
                "and until %.1f s of them (at most %d); a sample is the mean of N executions back to back (N the "
                "same on both sides, so that a sample takes about %.0f ms: single sub-millisecond runs scatter by "
                "3x here), each timed end to end by psql; on/off is the median of the ratios of the samples taken "
                "one after the other. Plan: \"same\" where gpudb on ran PostgreSQL's plan, as off did (then the "
                "difference is gpudb's planning hooks, or noise)."
                % (SMALL_MIN_RUNS, SMALL_MIN_S, SMALL_MAX_RUNS, SMALL_SAMPLE_MS),
                "", "| table | query | nodes | plan | gpudb on ms | gpudb off ms | samples x N | on/off |",
                "|---|---|---|---|---|---|---|---|"]
        for r in res["small"]:
            plan = ("same: %s" % r.get("plan_on")) if r.get("same_plan") else "on: %s; off: %s" % (
                r.get("plan_on") or "-", r.get("plan_off") or "-")
            out.append("| %d rows | %s | %s | %s | %s | %s | %s | %s |" % (
                r["rows"], r["workload"], ",".join(r["nodes"]) or "none", plan,
                "%.3f" % med(r["on"]) if med(r["on"]) is not None else "error",
                "%.3f" % med(r["off"]) if med(r["off"]) is not None else "error",
                "%s / %s x %s" % ((r["on"] or {}).get("n", "-"), (r["off"] or {}).get("n", "-"),
                                  (r["on"] or {}).get("repeat", 1)),
                "-" if r["ratio"] is None else "%.3f%s" % (r["ratio"], "" if r["within"] else " (over 5 %)")))
        out.append("")
    return "\n".join(out)


def write_results(res, outdir, stem, final=False):
    res["meta"]["elapsed_s"] = round(time.time() - T0, 1)
    res["kernels"] = kernels(res)
    res["targets"] = targets(res)
    os.makedirs(outdir, exist_ok=True)
    base = os.path.join(outdir, stem)
    if final:
        res["charts"], res["chart_note"] = [], None
        try:
            sys.path.insert(0, HERE)
            import chart
            res["charts"] = chart.draw(res, base)
        except ImportError as e:
            res["chart_note"] = ("No charts: %s (install matplotlib, e.g. Debian's python3-matplotlib, then "
                                 "python3 test/bench/chart.py %s.json)." % (e, stem))
        except Exception as e:  # a chart must not cost the measurements
            res["chart_note"] = "No charts: chart.py failed: %r." % (e,)
    with open(base + ".json", "w") as f:
        json.dump(res, f, indent=1, default=lambda o: sorted(o) if isinstance(o, set) else str(o))
    with open(base + ".md", "w") as f:
        f.write(markdown(res) + "\n")
    return base


# ---------------------------------------------------------------------------

def run_identity():
    """(device name, gpudb's active path, commit, date) that name a run's results:
    the commit is $BENCH_COMMIT, else the checkout's (-dirty where tracked files
    changed), else nocommit."""
    device = psql("SELECT coalesce(max(name), 'CPU') FROM gpu_devices()").replace(" ", "_")
    path = psql("SELECT gpu_active_path()")
    commit = os.environ.get("BENCH_COMMIT", "")
    if not commit:
        try:
            commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True).stdout.strip()
            if commit and subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                                         capture_output=True, text=True).stdout.strip():
                commit += "-dirty"
        except OSError:
            commit = ""
    return device, path, commit or "nocommit", datetime.date.today().isoformat()


def main():
    ap = argparse.ArgumentParser(description="gpudb benchmark: gpudb on vs off, same server, same data "
                                             "(the module docstring says more)")
    ap.add_argument("--rows", default=os.environ.get("BENCH_ROWS", "1000000"),
                    help="synthetic table sizes, comma separated, e.g. 1M,10M,100M (default: $BENCH_ROWS or 1M)")
    ap.add_argument("--flights", default=os.environ.get("BENCH_FLIGHTS", "auto"),
                    help="flights table sizes, e.g. 3M,30M,300M; 0: none; auto (default, or $BENCH_FLIGHTS): "
                         "3M when the largest --rows is 1M or more, else none")
    ap.add_argument("--flights-file", default="", help="the flights file (parquet, csv or csv.gz)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions after one warm-up (default 5)")
    ap.add_argument("--budget", type=float, default=float(os.environ.get("BENCH_BUDGET", "60")),
                    help="seconds each side of a workload may take, its warm-up included (default 60): "
                         "slower queries run fewer times (one at least), and a warm-up past it is the only run")
    ap.add_argument("--explain-reps", type=int, default=3, help="EXPLAIN ANALYZE runs per workload (default 3)")
    ap.add_argument("--kernel-reps", type=int, default=15,
                    help="EXPLAIN ANALYZE runs of the workloads whose kernel bandwidth is reported (B1, B2; "
                         "default 15, within the budget)")
    ap.add_argument("--workers", type=int, default=int(os.environ.get("BENCH_WORKERS", "2")),
                    help="PostgreSQL's parallel workers (max_parallel_workers_per_gather and each table's "
                         "parallel_workers; default 2)")
    ap.add_argument("--load-jobs", type=int, default=min(16, os.cpu_count() or 1),
                    help="parallel sessions building the data (default min(16, CPUs))")
    ap.add_argument("--sections", default=",".join(SECTIONS),
                    help="what to run (default all): %s; the synthetic tables are built only for "
                         "synthetic, heap and functions" % ",".join(SECTIONS))
    ap.add_argument("--out", default="", help="results folder (default test/bench/results/<date>-<gpu>-<commit>"
                                              "[-<sections>], with -2, -3, ... where that exists)")
    ap.add_argument("--rebuild", action="store_true", help="build the tables even when they exist")
    ap.add_argument("--skip-load", action="store_true",
                    help="use table t as it is, whatever its size (no building)")
    ap.add_argument("--load-only", action="store_true", help="build the data, then stop")
    ap.add_argument("--no-heap", action="store_true", help="skip gpu_groupby over the heap (uncached)")
    ap.add_argument("--heap-buffers", default="os,shared",
                    help="the buffer states the heap section measures, in this order whatever the order given "
                         "(default both): os (t as the bulk-read ring leaves it, read again from the OS page "
                         "cache), shared (t first read into shared_buffers by a TID range scan; only where its "
                         "heap is under %g x shared_buffers)" % HEAP_FIT)
    ap.add_argument("--only", default=os.environ.get("BENCH_ONLY", ""),
                    help="regular expression: run only the workloads whose name matches")
    ap.add_argument("--skip-same-plan", action="store_true",
                    help="run neither side of a synthetic or flights workload where gpudb on would run "
                         "PostgreSQL's plan, as off does (shown as \"same plan, not run\")")
    ap.add_argument("--max-run", type=float, default=0,
                    help="seconds one run may take (statement_timeout; default 0: no limit): a longer run is "
                         "cancelled and shown as > N (cancelled), its speedup as a lower bound")
    ap.add_argument("--skip", action="append", default=[], metavar="REGEX",
                    help="leave out the workloads whose name matches (repeatable; e.g. --skip '^F2x' "
                         "--skip '^F4 ' for the flights workloads without a Gpu node)")
    ap.add_argument("--cache-size", default=os.environ.get("BENCH_CACHE_SIZE", ""),
                    help="set gpudb.cache_size (ALTER SYSTEM, reload) first, e.g. 32GB")
    ap.add_argument("--copy-bandwidth", default=os.path.join(HERE, "copy_bandwidth"),
                    help="the copy bandwidth binary (default test/bench/copy_bandwidth)")
    ap.add_argument("--copy-gb", type=float, default=4.0, help="GB the copy bandwidth binary copies (default 4)")
    args = ap.parse_args()
    wanted = {s.strip() for s in args.sections.split(",") if s.strip()}
    if wanted - set(SECTIONS):
        sys.exit("bench: unknown section(s) %s (known: %s)" % (",".join(sorted(wanted - set(SECTIONS))),
                                                               ",".join(SECTIONS)))
    sections = [s for s in SECTIONS if s in wanted]
    args.heap_buffers = [b.strip() for b in args.heap_buffers.split(",") if b.strip()]
    if set(args.heap_buffers) - set(HEAP_BUFFERS) or not args.heap_buffers:
        sys.exit("bench: --heap-buffers takes %s (got %s)" % (",".join(HEAP_BUFFERS), ",".join(args.heap_buffers)))
    sizes = parse_sizes(args.rows)
    if not sizes:
        sys.exit("bench: --rows names no size")
    if args.flights.strip().lower() == "auto":
        fsizes = [3000000] if sizes[-1] >= 1000000 else []
    else:
        fsizes = parse_sizes(args.flights)
    if "flights" not in sections:
        fsizes = []
    if not set(sections) & SYNTH_SECTIONS:
        sizes = []          # no section reads the synthetic tables: none built
    elif "synthetic" not in sections:
        sizes = sizes[-1:]  # heap and functions run at the largest size only

    psql("CREATE EXTENSION IF NOT EXISTS gpudb")
    if args.cache_size:
        psql("ALTER SYSTEM SET gpudb.cache_size = %s" % sql_literal(args.cache_size))
        psql("SELECT pg_reload_conf()")
        time.sleep(1)
    device, path, commit, date = run_identity()
    # a run of some sections only says which in its name, and a run never
    # takes the default folder of another
    stem = "%s-%s-%s" % (date, device, commit)
    if sections != SECTIONS:
        stem += "-" + "-".join(sections)
    if args.out:
        outdir = args.out
    else:
        base_stem, k = stem, 1
        while os.path.exists(os.path.join(HERE, "results", stem)):
            k += 1
            stem = "%s-%d" % (base_stem, k)
        outdir = os.path.join(HERE, "results", stem)
    preload = psql("SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%'") == "t"
    settings = {}
    for s in ("max_parallel_workers_per_gather", "max_parallel_workers", "shared_buffers", "work_mem", "jit",
              "gpudb.device", "gpudb.batch_rows", "gpudb.cache_size"):
        settings[s] = psql("SELECT current_setting(%s, true)" % sql_literal(s))
    settings["max_parallel_workers_per_gather"] = "%d (set by the harness)" % args.workers
    res = {"meta": {"date": date, "device": device, "path": path, "commit": commit, "stem": stem,
                    "command": shlex.join(["python3", "test/bench/bench.py"] + sys.argv[1:]),
                    "host": "%s, %d CPUs" % (os.uname().nodename, os.cpu_count() or 0),
                    "pg_version": psql("SELECT version()").split(",")[0], "settings": settings,
                    "reps": args.reps, "budget_s": args.budget, "workers": args.workers,
                    "explain_reps": args.explain_reps, "kernel_reps": args.kernel_reps,
                    "sizes": sizes, "flights_sizes": fsizes,
                    "sections": sections, "sections_done": [], "finished": False,
                    "only": args.only or None, "skip": args.skip, "skip_same_plan": args.skip_same_plan,
                    "max_run_s": args.max_run or None,
                    "heap_buffers": [b for b in HEAP_BUFFERS if b in args.heap_buffers]},
           "copy_bandwidth": None, "data": [], "loads": [], "plan": [], "heap": [], "heap_buffers": None, "functions": [],
           "small": [], "kernels": [], "targets": [], "notes": [], "flights_ranges": {}}
    log("gpudb benchmark: %s, path %s, commit %s; results to %s" % (device, path, commit, outdir))

    res["copy_bandwidth"] = copy_bandwidth(args)
    log("copy bandwidth: %s" % json.dumps(res["copy_bandwidth"]))

    # the data, all of it first (so that --load-only can prepare a later run)
    synth = []
    for i, n in enumerate(sizes):
        name = "t" if i == len(sizes) - 1 else "t_" + table_suffix(n)
        if args.skip_load and name == "t":
            info = table_info("t", "synthetic", time.time(), False)
        else:
            info = build_synthetic(name, n, args.load_jobs, args.workers, args.rebuild)
        res["data"].append(info)
        synth.append(info)
        log("table %s: %d rows, %.2f GB%s" % (name, info["rows"], info["heap_bytes"] / 1e9,
                                              ", built in %.0f s" % info["build_s"] if info["built"] else ", reused"))
    flights = []
    built = any(d["built"] for d in res["data"])
    if fsizes:
        infos, flights, msg = build_flights(fsizes, args)
        if infos is None:
            flights = []
            res["notes"].append("Flights skipped: %s." % msg)
            log("flights skipped: %s" % msg)
        else:
            res["notes"].append("Flights: %s." % msg)
            res["data"] += infos
            built = built or any(d["built"] for d in infos)
            for info in infos:
                log("table %s: %d rows, %.2f GB%s" % (info["table"], info["rows"], info["heap_bytes"] / 1e9,
                                                      ", built in %.0f s" % info["build_s"] if info["built"]
                                                      else ", reused"))
    elif "flights" in sections:
        res["notes"].append("Flights: not run (--flights %s)." % args.flights)
    if built:
        psql("CHECKPOINT", check=False)
    write_results(res, outdir, stem)
    if args.load_only:
        log("--load-only: data ready")
        return

    # per synthetic size: cache load, plan nodes on/off; heap and gpu_groupby at the largest
    for i, info in enumerate(synth):
        table, rows = info["table"], info["rows"]
        largest = i == len(synth) - 1
        cached = False
        if preload:
            ld = cache_load(table)
            res["loads"].append(ld)
            cached = not ld.get("error")
            log("cache load %s: %s" % (table, ld.get("error") or "%.0f ms, %.1f MB, %.2f GB/s"
                                       % (ld["ms"], ld["bytes"] / 1e6, ld["gbps"] or 0)))
        elif i == 0:
            res["notes"].append("Cache: not available (gpudb is not in shared_preload_libraries): "
                                "gpudb on reads the heap.")
        if "synthetic" in sections:
            log("plan nodes on %s (%d rows)" % (table, rows))
            run_synthetic(args, res, table, rows)
            if largest:
                res["meta"]["sections_done"].append("synthetic")
            write_results(res, outdir, stem)
        if largest and "heap" in sections:
            log("uncached B1/B2 on %s" % table)
            run_heap(args, res, table, rows, lambda: write_results(res, outdir, stem))
            res["meta"]["sections_done"].append("heap")
            write_results(res, outdir, stem)
        if largest and "functions" in sections:
            log("gpu_groupby on %s" % table)
            run_functions(args, res, table, rows, cached)
            res["meta"]["sections_done"].append("functions")
            write_results(res, outdir, stem)
        if cached and not largest:
            psql("SELECT gpu_cache_drop(%s)" % sql_literal(table), check=False)

    for info in flights:
        table, rows = info["table"], info["rows"]
        if preload:
            ld = cache_load(table)
            res["loads"].append(ld)
            log("cache load %s: %s" % (table, ld.get("error") or "%.0f ms, %.1f MB, %.2f GB/s"
                                       % (ld["ms"], ld["bytes"] / 1e6, ld["gbps"] or 0)))
        log("flights workloads on %s (%d rows)" % (table, rows))
        run_flights(args, res, table, rows)
        if preload:
            psql("SELECT gpu_cache_drop(%s)" % sql_literal(table), check=False)
        write_results(res, outdir, stem)
    if "flights" in sections:
        res["meta"]["sections_done"].append("flights")

    if "small" in sections:
        if args.only:
            res["notes"].append("Small tables: not run (--only %s)." % args.only)
        else:
            log("small tables")
            run_small(args, res, lambda: write_results(res, outdir, stem))
        res["meta"]["sections_done"].append("small")

    res["meta"]["finished"] = True
    base = write_results(res, outdir, stem, final=True)
    for t in res["targets"]:
        log("target: %s: %s (%s)%s" % (t["what"], t["value"], t["target"],
                                       "" if t["met"] else " — " + (t["miss"] or "not judged")))
    for c in res["charts"]:
        log("wrote %s" % c)
    if res.get("chart_note"):
        log(res["chart_note"])
    print("bench: wrote %s.md" % base, flush=True)


if __name__ == "__main__":
    main()
