"""The sections of a run: the plan-node workloads on and off (synthetic,
flights), uncached B1/B2 in two buffer states (heap), gpu_groupby against plain
SQL (functions), the small tables; the device's copy bandwidth and the kernels'
bandwidth."""
import json
import os
import re
import subprocess

from harness.data import build_synthetic, column_bytes
from harness.explain import analyze_reps, explain, kernel_ms
from harness.fmt import buffers_cell, fmt_ms, fmt_run, fmt_speedup, med, ratio
from harness.measure import measure_sides
from harness.server import ROOT, log, psql, sql_literal
from harness.workloads import (FLIGHTS_WORKLOADS, FUNCTION_WORKLOADS, HEAP_BUFFERS, HEAP_FIT,
                               HEAP_WORKLOADS, KERNEL_WORKLOADS, SAME_PLAN_SKIPPED, SMALL_MAX_RUNS,
                               SMALL_MIN_RUNS, SMALL_MIN_S, SMALL_SAMPLE_MS, SMALL_SIZES,
                               SMALL_WORKLOADS, SYNTH_WORKLOADS, TARGET_SMALL_RATIO, WARM_QUERY,
                               WARM_SETUP)


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
                # Gather), the device time of the Gpudb nodes, and the blocks
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
