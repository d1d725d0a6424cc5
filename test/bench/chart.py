#!/usr/bin/env python3
"""test/bench/chart.py — PNG charts of a bench.py run.

usage: python3 test/bench/chart.py RESULTS.json [OUT_BASE]
       python3 test/bench/chart.py RESULTS.md [OUT.png]      (results files of the older format)

From bench.py's JSON (bench.py calls draw() itself at the end of a run):
  OUT_BASE-speedup.png  PostgreSQL's time / gpudb's, per workload, one bar per
                        table size (log scale; 1x marked): the plan nodes over
                        the synthetic table and the flights, and uncached B1/B2;
  OUT_BASE-scaling.png  end-to-end time against table size, one panel per
                        workload, gpudb on and off (log-log).
OUT_BASE defaults to the JSON's name without .json.

From a markdown results file of the older format (tables headed "| workload |
gpu_groupby heap ms | device ms | gpu_groupby cached ms | ..."): one bar chart
of those tables, as before.

Needs matplotlib (Debian: python3-matplotlib; pip: matplotlib).  Without it,
draw() raises ImportError, which bench.py reports and carries on.
"""
import json
import re
import sys

ON, OFF, HEAP = "#2a7ab8", "#888888", "#e0a030"
SIZE_COLORS = ["#9ecae1", "#4292c6", "#08519c", "#08306b", "#6baed6", "#2171b5"]


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _log_axis(axis, fmt):
    """Readable log-scale ticks: 1, 2, 5 per decade, written with fmt."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: fmt % v))
    axis.set_minor_formatter(NullFormatter())


def _label(n):
    for unit, div in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if n >= div and n % (div // 10) == 0:
            return ("%g" % (n / div)) + unit
    return str(n)


def _median(m):
    if not m or m.get("error") or m.get("median") is None:
        return None
    return m["median"]


def _ordered(recs):
    """The workloads in the order of the run."""
    names = []
    for r in recs:
        if r["workload"] not in names:
            names.append(r["workload"])
    return names


def _speedup_panel(ax, title, recs, series_key):
    names = _ordered(recs)
    series = sorted({series_key(r) for r in recs}, key=lambda s: (s[0], s[1]))
    width = 0.8 / max(len(series), 1)
    for k, s in enumerate(series):
        xs, ys = [], []
        for i, name in enumerate(names):
            r = next((r for r in recs if r["workload"] == name and series_key(r) == s), None)
            if r and r.get("speedup"):
                xs.append(i + (k - (len(series) - 1) / 2.0) * width)
                ys.append(r["speedup"])
        bars = ax.bar(xs, ys, width, label=s[1], color=SIZE_COLORS[k % len(SIZE_COLORS)])
        for b, y in zip(bars, ys):
            ax.annotate(("%.0fx" if y >= 10 else "%.1fx") % y, (b.get_x() + b.get_width() / 2, y),
                        ha="center", va="bottom", fontsize=6, rotation=90)
    ax.axhline(1.0, color="#cc3333", linewidth=0.8)
    ax.set_yscale("log")
    vals = [r["speedup"] for r in recs]
    ax.set_ylim(min(0.5, min(vals) / 1.5), max(2.0, max(vals) * 2.5))
    _log_axis(ax.yaxis, "%gx")
    ax.set_ylabel("speedup: PostgreSQL ms / gpudb ms")
    ax.set_title(title)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=25, ha="right", fontsize=7)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def draw(res, base):
    """Writes base-speedup.png and base-scaling.png from bench.py's results;
    returns the paths written.  ImportError without matplotlib."""
    plt = _plt()
    meta = res.get("meta", {})
    head = "gpudb on %s (path %s), commit %s" % (meta.get("device"), meta.get("path"), meta.get("commit"))
    written = []

    panels = []
    for suite, title in (("synthetic", "synthetic t: plan nodes, cached"), ("flights", "flights: plan nodes, cached")):
        recs = [r for r in res.get("plan", []) if r["suite"] == suite and r.get("speedup")]
        if recs:
            panels.append((title, recs, lambda r: (r["rows"], "%s rows" % _label(r["rows"]))))
    heap = [r for r in res.get("heap", []) if r.get("speedup")]
    if heap:
        # the buffer state (bench.py's --heap-buffers) where the run has one
        state = {"os": "t in the OS page cache", "shared": "t in shared_buffers"}
        panels.append(("uncached (gpudb.use_cache = off)", heap,
                       lambda r: (r["rows"], "%s rows, %s%s" % (_label(r["rows"]), r["mode"],
                                                               ", " + state[r["buffers"]] if r.get("buffers") in state
                                                               else ""))))
    if panels:
        fig, axes = plt.subplots(len(panels), 1, figsize=(14, 4.6 * len(panels)), squeeze=False)
        for ax, (title, recs, key) in zip(axes[:, 0], panels):
            _speedup_panel(ax, title, recs, key)
        fig.suptitle(head + ": speedup over PostgreSQL (%s workers)" % meta.get("workers"), fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 0.98))
        path = base + "-speedup.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)

    recs = [r for r in res.get("plan", []) if _median(r.get("on")) or _median(r.get("off"))]
    names = [(s, n) for s in ("synthetic", "flights") for n in _ordered([r for r in recs if r["suite"] == s])]
    if names:
        cols = 4
        nrows = -(-len(names) // cols)
        fig, axes = plt.subplots(nrows, cols, figsize=(16, 3.0 * nrows), squeeze=False)
        for ax in axes.flat[len(names):]:
            ax.axis("off")
        for ax, (suite, name) in zip(axes.flat, names):
            rs = sorted((r for r in recs if r["suite"] == suite and r["workload"] == name), key=lambda r: r["rows"])
            for key, label, color in (("off", "PostgreSQL", OFF), ("on", "gpudb", ON)):
                pts = [(r["rows"], _median(r.get(key))) for r in rs if _median(r.get(key))]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color, label=label)
            ax.set_xscale("log")
            ax.set_yscale("log")
            _log_axis(ax.yaxis, "%g")
            ax.set_title(("" if suite == "synthetic" else "flights: ") + name, fontsize=7)
            ax.tick_params(labelsize=6)
            ax.set_xlabel("rows", fontsize=6)
            ax.set_ylabel("ms, end to end", fontsize=6)
            ax.grid(True, which="major", linewidth=0.3)
        axes.flat[0].legend(fontsize=7)
        fig.suptitle(head + ": time against table size", fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 0.97))
        path = base + "-scaling.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


# ---------------------------------------------------------------------------
# results files of the older format (one markdown table per size)

def legacy_tables(text):
    """[(title, [(workload, heap, cached, pg)])] from the markdown."""
    out, title, rows = [], "", None
    for line in text.splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
        if line.startswith("| workload | gpu_groupby heap ms"):
            rows = []
            out.append((title, rows))
            continue
        if rows is not None and line.startswith("| ") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) < 7:
                continue

            def ms(cell):
                m = re.match(r"([0-9.]+)", cell)
                return float(m.group(1)) if m else None
            rows.append((cells[0], ms(cells[1]), ms(cells[3]), ms(cells[5])))
        elif rows is not None and not line.startswith("|"):
            rows = None
    return [(t, r) for t, r in out if r]


def legacy_draw(src, dst):
    plt = _plt()
    data = legacy_tables(open(src).read())
    if not data:
        sys.exit("chart: no bench.py table in %s" % src)
    fig, axes = plt.subplots(len(data), 1, figsize=(13, 4.2 * len(data)), squeeze=False)
    for ax, (title, rows) in zip(axes[:, 0], data):
        names = [r[0] for r in rows]
        series = [("PostgreSQL, 16 workers", 3, OFF), ("gpu_groupby, heap", 1, HEAP), ("gpu_groupby, cache", 2, ON)]
        width = 0.27
        for k, (label, idx, color) in enumerate(series):
            xs = [i + (k - 1) * width for i in range(len(rows))]
            ys = [r[idx] if r[idx] else 0 for r in rows]
            ax.bar(xs, ys, width, label=label, color=color)
        ax.set_yscale("log")
        ax.set_ylabel("ms, end to end in psql")
        ax.set_title(title or "gpudb benchmark")
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(names, rotation=20, ha="right", fontsize=8)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    return [dst]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    try:
        if src.endswith(".json"):
            with open(src) as f:
                res = json.load(f)
            written = draw(res, sys.argv[2] if len(sys.argv) > 2 else re.sub(r"\.json$", "", src))
        else:
            written = legacy_draw(src, sys.argv[2] if len(sys.argv) > 2 else re.sub(r"\.md$", ".png", src))
    except ImportError as e:
        sys.exit("chart: %s (install matplotlib: Debian's python3-matplotlib, or pip install matplotlib)" % e)
    for p in written:
        print("chart: wrote", p)


if __name__ == "__main__":
    main()
