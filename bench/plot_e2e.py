#!/usr/bin/env python3
"""Plots bench/e2e_gpu.sh's CSV (rows,query,mode,ms) as a PNG.

    bench/plot_e2e.py bench/out/e2e.csv bench/e2e.png [TITLE]

One panel per table size: for each sort key, one bar per mode (seconds,
log scale), the floor (the same scan without ORDER BY) as a dashed line,
and GpuSort-gpu's speedup over stock above its bar.  Needs matplotlib
(Debian: python3-matplotlib); the GPU machine need not have it, the CSV
is plotted afterwards.  Also prints the CSV as a Markdown table.
"""
import csv
import sys
from collections import defaultdict

MODES = [("stock", "stock, work_mem 4MB", "#999999"),
         ("stock_4GB", "stock, work_mem 4GB", "#cccccc"),
         ("cpu", "GpuSort cpu", "#4c72b0"),
         ("gpu", "GpuSort gpu", "#55a868")]
QUERIES = ["int8", "float8", "text", "int4_int8"]


def load(path):
    ms = defaultdict(dict)          # (rows) -> {(query, mode): ms}
    with open(path) as f:
        for r in csv.DictReader(f):
            ms[int(r["rows"])][(r["query"], r["mode"])] = float(r["ms"])
    return ms


def table(ms):
    out = ["| rows | key | floor | " + " | ".join(m[1] for m in MODES) +
           " | gpu vs stock | gpu vs floor |",
           "|---" * (len(MODES) + 5) + "|"]
    for n in sorted(ms):
        d = ms[n]
        floor = d.get(("all", "floor"))
        for q in QUERIES:
            cells = []
            for m, _, _ in MODES:
                v = d.get((q, m))
                cells.append("%.2f s" % (v / 1000) if v is not None else "")
            stock, gpu = d.get((q, "stock")), d.get((q, "gpu"))
            speed = "%.1fx" % (stock / gpu) if stock and gpu else ""
            vsfloor = "%.2fx" % (gpu / floor) if gpu and floor else ""
            out.append("| %d | %s | %s | %s | %s | %s |" % (
                n, q, "%.2f s" % (floor / 1000) if floor else "",
                " | ".join(cells), speed, vsfloor))
    return "\n".join(out)


def plot(ms, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(ms)
    fig, axes = plt.subplots(1, len(sizes), figsize=(6.5 * len(sizes), 4.8),
                             squeeze=False)
    width = 0.8 / len(MODES)
    for ax, n in zip(axes[0], sizes):
        d = ms[n]
        for i, (m, label, color) in enumerate(MODES):
            xs, ys = [], []
            for j, q in enumerate(QUERIES):
                if (q, m) in d:
                    xs.append(j + (i - (len(MODES) - 1) / 2) * width)
                    ys.append(d[(q, m)] / 1000)
            if xs:
                ax.bar(xs, ys, width, label=label, color=color)
        for j, q in enumerate(QUERIES):
            stock, gpu = d.get((q, "stock")), d.get((q, "gpu"))
            if stock and gpu:
                x = j + (len(MODES) - 1) / 2 * width
                ax.annotate("%.1fx" % (stock / gpu), (x, gpu / 1000),
                            textcoords="offset points", xytext=(0, 3),
                            ha="center", fontsize=8)
        floor = d.get(("all", "floor"))
        if floor:
            ax.axhline(floor / 1000, ls="--", color="black", lw=1,
                       label="no ORDER BY (floor)")
        ax.set_yscale("log")
        ax.set_xticks(range(len(QUERIES)))
        ax.set_xticklabels(["int8", "float8", "text (C)", "int4, int8"])
        ax.set_ylabel("seconds (log scale)")
        ax.set_title("SELECT * FROM t ORDER BY key OFFSET n, n = %s rows"
                     % format(n, ","), fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="lower center",
               ncol=len(labels), frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(png, dpi=110)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: plot_e2e.py E2E.csv OUT.png [TITLE]")
    ms = load(sys.argv[1])
    print(table(ms))
    plot(ms, sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")


if __name__ == "__main__":
    main()
