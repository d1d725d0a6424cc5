#!/usr/bin/env python3
"""test/bench/chart.py — a PNG chart from a results file of bench.py.

usage: python3 test/bench/chart.py RESULTS.md [OUT.png]

Reads every markdown table of RESULTS.md whose header is bench.py's
(workload | gpu_groupby heap ms | device ms | gpu_groupby cached ms | device ms
| PostgreSQL ms | speedup) and draws, per table, the end-to-end time of each
workload for plain PostgreSQL, gpu_groupby over the heap and gpu_groupby from
the cache (log scale).  Needs matplotlib (Debian: python3-matplotlib).
"""
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def tables(text):
    """[(title, [(workload, heap, cached, pg)])] from the markdown."""
    out, title, rows = [], "", None
    for line in text.splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
        if line.startswith("| workload |"):
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


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    dst = sys.argv[2] if len(sys.argv) > 2 else re.sub(r"\.md$", ".png", src)
    data = tables(open(src).read())
    fig, axes = plt.subplots(len(data), 1, figsize=(13, 4.2 * len(data)), squeeze=False)
    for ax, (title, rows) in zip(axes[:, 0], data):
        names = [r[0] for r in rows]
        series = [("PostgreSQL, 16 workers", 3, "#888888"),
                  ("gpu_groupby, heap", 1, "#e0a030"),
                  ("gpu_groupby, cache", 2, "#2a7ab8")]
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
    print("chart: wrote", dst)


if __name__ == "__main__":
    main()
