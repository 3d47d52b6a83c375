#!/usr/bin/env python3
"""Tables and plots the CSVs of bench/sort/e2e_gpu.sh and bench/sort/sort.sh
(rows,query,mode,ms).

    bench/sort/plot_e2e.py [--md FILE] [--png FILE] [--device FILE] [--title T] CSV...
    bench/sort/plot_e2e.py CSV PNG [TITLE]          (the old form)

Several CSVs are merged (a later one's cell replaces an earlier one's), so
the runs of one size split over several invocations make one table.  ms is
a number, ">N" (the query ran into its statement_timeout of N ms) or
"error".

--md writes the Markdown table (rows x key; one column per mode present,
then the speed-ups) with the device description (--device, a device.txt)
above it; without --md the table goes to stdout.  --png draws one panel per
table size: for each key one bar per mode (seconds, log scale; hatched: ran
into the timeout, so at least that), the floor (the same scan without
ORDER BY) as a dashed line, and GpuSort-gpu's speed-up over tuned stock
above its bar.  Only --png needs matplotlib (Debian: python3-matplotlib);
the GPU machine need not have it, the CSV can be plotted afterwards.
"""
import csv
import sys
from collections import defaultdict

# mode, column label, bar colour; the order of the columns and bars
MODES = [
    ("floor", "floor (no ORDER BY, 1 proc)", "#000000"),
    ("stock_default", "stock, defaults", "#bbbbbb"),
    ("stock_tuned", "stock, tuned", "#777777"),
    ("stock_1proc", "stock, 1 proc", "#dddddd"),
    ("gpusort_auto", "gpusort, defaults", "#dd8452"),
    ("gpusort_cpu", "GpuSort cpu", "#4c72b0"),
    ("gpusort_gpu", "GpuSort gpu", "#55a868"),
    ("gpusort_cpu_1proc", "GpuSort cpu, 1 proc", "#9bb0d6"),
    ("gpusort_gpu_1proc", "GpuSort gpu, 1 proc", "#a6d4b3"),
    # the modes of the CSVs before 2026-11-24 (parallel query off)
    ("stock", "stock, work_mem 4MB", "#999999"),
    ("stock_4GB", "stock, work_mem 4GB", "#cccccc"),
    ("cpu", "GpuSort cpu", "#4c72b0"),
    ("gpu", "GpuSort gpu", "#55a868"),
]
LABEL = {m: l for m, l, _ in MODES}
COLOR = {m: c for m, _, c in MODES}

# label, numerator (the slower one), denominator: shown where both exist
RATIOS = [
    ("defaults vs stock tuned", "stock_tuned", "gpusort_auto"),
    ("gpu vs stock tuned", "stock_tuned", "gpusort_gpu"),
    ("cpu vs stock tuned", "stock_tuned", "gpusort_cpu"),
    ("cpu vs stock defaults", "stock_default", "gpusort_cpu"),
    ("gpu vs GpuSort cpu", "gpusort_cpu", "gpusort_gpu"),
    ("gpu / floor", "gpusort_gpu", "floor"),
    ("gpu vs stock", "stock", "gpu"),
]

QUERIES = ["int8", "float8", "text", "text_icu", "int4_int8", "two",
           "text_default", "numeric", "interval", "limit", "ctas", "copy",
           "window_rank", "window_sum", "window_top3", "window_rownum",
           "window_sum_int", "window_lag", "window_multi", "percentile"]
QLABEL = {"int8": "int8", "float8": "float8", "text": "text (C)",
          "text_icu": "text (ICU und)", "int4_int8": "int4, int8",
          "two": "int4, text", "text_default": "text (default collation)",
          "numeric": "numeric", "interval": "interval",
          "limit": "text, LIMIT 100", "ctas": "CREATE TABLE AS, text",
          "copy": "COPY (sorted) TO, text",
          "window_rank": "rank() OVER (ORDER BY float8 DESC)",
          "window_sum": "sum() OVER (PARTITION BY int4 ORDER BY text)",
          "window_top3": "row_number() <= 3 per group",
          "window_rownum": "row_number() OVER (PARTITION BY int4 ORDER BY text)",
          "window_sum_int": "sum() OVER (PARTITION BY int4 ORDER BY int8)",
          "window_lag": "lag() OVER (ORDER BY int8)",
          "window_multi": "row_number(), rank(), sum() OVER one window",
          "percentile": "percentile_cont(0.5) ... GROUP BY int4"}


class Cell:
    """One measurement: ms, or a lower bound (timeout), or an error."""

    def __init__(self, s):
        s = s.strip()
        self.error = s == "error"
        self.bound = s.startswith(">")
        self.ms = None if self.error else float(s.lstrip(">"))

    def text(self):
        if self.error:
            return "error"
        return "%s%s s" % (">" if self.bound else "", sec(self.ms))


def sec(ms):
    s = ms / 1000
    return ("%.0f" % s if s >= 100 else "%.1f" % s if s >= 10 else
            "%.2f" % s if s >= 0.1 else "%.3f" % s)


def load(paths):
    data = defaultdict(dict)          # rows -> {(query, mode): Cell}
    for path in paths:
        with open(path) as f:
            for r in csv.DictReader(f):
                try:
                    data[int(r["rows"])][(r["query"], r["mode"])] = Cell(r["ms"])
                except (ValueError, KeyError, TypeError):
                    pass
    return data


def rows_label(n):
    e = 0
    m = n
    while m % 10 == 0 and m > 0:
        m //= 10
        e += 1
    if e >= 3 and m < 10:
        return ("10^%d" % e) if m == 1 else ("%d·10^%d" % (m, e))
    return format(n, ",")


def present(data):
    modes = [m for m, _, _ in MODES
             if any((q, m) in d for d in data.values() for q, _ in d)]
    queries = [q for q in QUERIES if any((q, m) in d for d in data.values()
                                         for m in modes)]
    queries += sorted({q for d in data.values() for q, _ in d
                       if q not in queries and q != "all"})
    return modes, queries


def get(d, q, m):
    return d.get(("all", "floor")) if m == "floor" else d.get((q, m))


def ratio(a, b):
    """a / b as text; a lower bound of a or of b gives '>' or '<'."""
    if not a or not b or a.error or b.error or not b.ms:
        return ""
    if a.bound and b.bound:
        return ""
    r = a.ms / b.ms
    s = "%.1fx" % r if r >= 1.95 else "%.2fx" % r
    return (">" if a.bound else "<" if b.bound else "") + s


def table(data, device=None):
    modes, queries = present(data)
    cols = [m for m in modes]
    ratios = [(l, a, b) for l, a, b in RATIOS if a in modes and b in modes]
    out = []
    if device:
        out += ["```", device.rstrip("\n"), "```", ""]
    out.append("| rows | key | " + " | ".join(LABEL[m] for m in cols) +
               "".join(" | " + l for l, _, _ in ratios) + " |")
    out.append("|---" * (2 + len(cols) + len(ratios)) + "|")
    for n in sorted(data):
        d = data[n]
        for q in queries:
            if not any((q, m) in d for m in modes):
                continue
            cells = []
            for m in cols:
                c = get(d, q, m)
                cells.append(c.text() if c else "")
            for _, a, b in ratios:
                cells.append(ratio(get(d, q, a), get(d, q, b)))
            out.append("| %s | %s | %s |" % (rows_label(n), QLABEL.get(q, q),
                                             " | ".join(cells)))
    out += ["", "Best of N runs of `SELECT * FROM table ORDER BY key OFFSET rows` "
            "(every row sorted, none sent), each mode in fresh sessions after "
            "a warm-up; floor: the same query without ORDER BY in one process; "
            "`>N s`: cancelled by its statement_timeout after N s; "
            "`a vs b`: b's speed-up over a (time of a / time of b)."]
    return "\n".join(out) + "\n"


def plot(data, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    modes, queries = present(data)
    bars = [m for m in modes if m != "floor"]
    sizes = sorted(data)
    fig, axes = plt.subplots(1, len(sizes),
                             figsize=(max(6.5, 1.3 * len(queries) + 1) * len(sizes), 5),
                             squeeze=False)
    width = 0.84 / max(1, len(bars))
    for ax, n in zip(axes[0], sizes):
        d = data[n]
        qs = [q for q in queries if any((q, m) in d for m in bars)]
        labelled = set()
        for i, m in enumerate(bars):
            for j, q in enumerate(qs):
                c = d.get((q, m))
                if not c or c.error:
                    continue
                x = j + (i - (len(bars) - 1) / 2) * width
                ax.bar(x, c.ms / 1000, width, color=COLOR[m],
                       edgecolor="black" if c.bound else COLOR[m],
                       hatch="//" if c.bound else None, lw=0.5,
                       label=None if m in labelled else LABEL[m])
                labelled.add(m)
                if c.bound:
                    ax.annotate(">", (x, c.ms / 1000), textcoords="offset points",
                                xytext=(0, 2), ha="center", fontsize=8)
        for j, q in enumerate(qs):
            base = d.get((q, "stock_tuned")) or d.get((q, "stock"))
            gm = "gpusort_gpu" if (q, "gpusort_gpu") in d else "gpu"
            g = d.get((q, gm))
            r = ratio(base, g)
            if r and gm in bars:
                x = j + (bars.index(gm) - (len(bars) - 1) / 2) * width
                ax.annotate(r, (x, g.ms / 1000), textcoords="offset points",
                            xytext=(0, 3 if not g.bound else 10), ha="center",
                            fontsize=7)
        floor = d.get(("all", "floor"))
        if floor and not floor.error:
            ax.axhline(floor.ms / 1000, ls="--", color="black", lw=1,
                       label="floor: no ORDER BY, 1 proc")
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(range(len(qs)))
        ax.set_xticklabels([QLABEL.get(q, q) for q in qs], fontsize=8)
        ax.set_ylabel("seconds (log scale)")
        ax.set_title("ORDER BY key OFFSET n, n = %s rows" % rows_label(n),
                     fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
    # one legend entry per label, from every panel
    seen = {}
    for ax in axes[0]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(l, h)
    fig.legend(list(seen.values()), list(seen.keys()), fontsize=8,
               loc="lower center", ncol=(len(seen) + 1) // 2, frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.09, 1,
                           0.95 if title else 1))
    fig.savefig(png, dpi=110)


def main(argv):
    md = png = device = None
    title = ""
    csvs = []
    args = list(argv)
    if (len(args) >= 2 and not any(a.startswith("--") for a in args)
            and args[1].endswith(".png")):      # the old form: CSV PNG [TITLE]
        csvs, png = [args[0]], args[1]
        title = args[2] if len(args) > 2 else ""
    else:
        while args:
            a = args.pop(0)
            if a in ("--md", "--png", "--device", "--title") and args:
                v = args.pop(0)
                if a == "--md":
                    md = v
                elif a == "--png":
                    png = v
                elif a == "--device":
                    device = v
                else:
                    title = v
            elif a.startswith("--"):
                sys.exit(__doc__)
            else:
                csvs.append(a)
    if not csvs:
        sys.exit(__doc__)
    if png:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            # a python3 of its own (pyenv, a venv) without matplotlib: the
            # system's may have it (python3-matplotlib)
            import os
            if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") \
                    and os.access("/usr/bin/python3", os.X_OK):
                os.execv("/usr/bin/python3",
                         ["/usr/bin/python3", os.path.abspath(__file__)] + list(argv))
            print("plot_e2e.py: no matplotlib here, so no PNG (the table is "
                  "written); plot the CSV elsewhere", file=sys.stderr)
            png = None
    data = load(csvs)
    dev = None
    if device:
        try:
            with open(device) as f:
                dev = f.read()
        except OSError:
            pass
    t = table(data, dev)
    if md:
        with open(md, "w") as f:
            f.write(t)
    else:
        sys.stdout.write(t)
    if png:
        plot(data, png, title)


if __name__ == "__main__":
    main(sys.argv[1:])
