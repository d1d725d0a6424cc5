"""EXPLAIN: a plan's shape and Gpudb nodes, EXPLAIN (ANALYZE) numbers per phase and
buffers (explain), the EXPLAIN ANALYZE runs that fit the budget (analyze_reps),
and the kernels' share of the device time (kernel_ms)."""
import json
import re
import statistics

from harness.server import psql_script, sql_literal
from harness.workloads import NODE_NUMBERS


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
    if plan.get("Node Type") == "Custom Scan" and str(plan.get("Custom Plan Provider", "")).startswith("Gpudb"):
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
    """The Gpudb nodes, parallel workers and shape (plan_shape) of query's plan;
    with analyze_runs, the medians over that many EXPLAIN (ANALYZE, FORMAT
    JSON) of the Gpudb nodes' numbers (summed over the nodes of a plan), of the
    workers PostgreSQL's Gather launched, and of the execution time.
    buffers (with analyze_runs): BUFFERS too, and the shared blocks hit and
    read that the first run's top node reports ("shared_hit", "shared_read":
    a Gather's include its workers', and so do a Gpudb node's, whose heap
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
