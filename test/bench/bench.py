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
import json
import os
import shlex
import sys
import time

# The harness's modules (test/bench/harness/, by concept).  tpch.py and
# tpch22.py import from bench what they share with it: the psql session,
# EXPLAIN parsing, the cache and buffer helpers, the run's identity (F401).
from harness.data import build_flights, build_synthetic, cache_load, drop_table, table_info, table_mark  # noqa: F401
from harness.explain import explain  # noqa: F401
from harness.fmt import fmt_ms, fmt_speedup, parse_sizes, table_suffix  # noqa: F401
from harness.identity import run_identity
from harness.measure import Session  # noqa: F401
from harness.report import write_results
from harness.sections import (copy_bandwidth, heap_buffers_info, run_flights, run_functions,  # noqa: F401
                              run_heap, run_small, run_synthetic, warm_shared_buffers)
from harness.server import HERE, T0, log, psql, psql_script, sql_literal  # noqa: F401
from harness.workloads import HEAP_BUFFERS, HEAP_FIT, PHASES, SECTIONS, SYNTH_SECTIONS  # noqa: F401


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
                         "--skip '^F4 ' for the flights workloads without a Gpudb node)")
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
