"""Sizes (1M, 10k ...) and the cells of the results tables: times, runs,
speedups, buffers, plan nodes; a measurement's median and the ratio of two."""
import math

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
    """The Gpudb nodes of gpudb's plan; 'none (same plan)' where it ran PostgreSQL's plan, as off did."""
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
