"""The results of a run: the targets and by how much each is missed, the
markdown, and write_results (the JSON, the markdown and, at the end, the charts
of chart.py)."""
import json
import os
import sys
import time

from harness.fmt import (buffers_cell, buffers_state, build_cell, fmt_count, fmt_ms, fmt_run,
                         fmt_speedup, med, nodes_cell, size_label, speedup_cell)
from harness.sections import heap_os_check, kernels
from harness.server import HERE, T0
from harness.workloads import (HEAP_BUFFERS, HEAP_FIT, PHASES, SECTIONS, SMALL_MAX_RUNS,
                               SMALL_MIN_RUNS, SMALL_MIN_S, SMALL_SAMPLE_MS, SMALL_SIZES,
                               TARGET_KERNEL_PCT, TARGET_LOAD_GBPS, TARGET_MS,
                               TARGET_UNCACHED_SPEEDUP, WARM_QUERY, WARM_SETUP)


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
           "includes its workers', and so does a Gpudb node, whose heap readers pass their buffer use back to "
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
           "from EXPLAIN (ANALYZE, FORMAT JSON) of the Gpudb nodes (median of up to %d, as many as fit in "
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
                out += ["", "Where the time goes (gpudb on; ms; EXPLAIN ANALYZE of the Gpudb nodes, psql's end to "
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
                "launched: from one EXPLAIN ANALYZE a side (gpudb's heap readers where a Gpudb node ran, else "
                "PostgreSQL's Gather); device ms: the Gpudb nodes' Device Time there, summed over batches.", ""]
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
