"""Timing: a psql session kept open (Session), and the sides of a workload run
in turns within the budget (measure_sides)."""
import math
import re
import statistics
import subprocess
import tempfile

from harness.fmt import fmt_ms
from harness.server import PSQL, log
from harness.workloads import SAMPLE_MAX_REPEAT


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
