#!/usr/bin/env python3
"""The analytics benchmark's report (bench/analytics/analytics.sh), from
one run's folder or several (a run split over several device calls, each a
subset of the shapes: a later folder's figures replace an earlier one's).

    report.py [--md FILE] [--csv FILE] DIR...

Each DIR holds e2e.csv (rows,query,mode,ms: bench/sort/e2e_lib.sh's),
check.csv (rows,shape,stock,gpusort,result), elapsed.csv (rows,shape,s),
shapes.tsv (shape, kind, SQL), plans_ROWS.txt and device.txt.  Writes the
markdown report (the device, a table per size: gpusort, stock tuned and
stock in one process, the ratios stock / gpusort, gpusort's nodes from its
plan, the result check; geometric means, by kind too; the slowest shapes;
the SQL) and a CSV of the table's rows.
"""
import csv
import math
import os
import re
import sys

GP, TUNED, ONE = "gpusort_auto", "stock_tuned", "stock_1proc"
TARGETS = "issue 41: H200 (10^7 rows, 8 workers) geometric mean >= 4x, no shape below 1.5x; " \
          "2 cores (2*10^6 rows, 2 workers) >= 2x, none below 1.0x"


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def fmt_ms(v):
    f = num(v)
    if f is None:
        return v if v else "-"
    return f"{f:.0f}" if f >= 100 else f"{f:.1f}"


def ratio(a, b):
    a, b = num(a), num(b)
    return a / b if a and b else None


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def gx(x):
    return "-" if x is None else f"{x:.2f}x"


def nodes_of(plan):
    """gpusort's nodes in a plan, then the stock nodes that sort or work
    on sorted rows left in it ("GpuSort; stock GroupAggregate")"""
    gpu, stock = [], []
    for m in re.finditer(r"Custom Scan \((Gpu\w+)\)", plan):
        if m.group(1) not in gpu:
            gpu.append(m.group(1))
    # a node is the plan's first line (one space in) or follows "->"
    for m in re.finditer(r"(?:->\s+|^ )(Incremental Sort|Sort|WindowAgg|GroupAggregate|HashAggregate|"
                         r"MixedAggregate|Unique)(?=\s|$)", plan, re.M):
        if m.group(1) not in stock:
            stock.append(m.group(1))
    text = ", ".join(gpu) if gpu else "none"
    if stock:
        text += "; stock " + ", ".join(stock)
    if "Not Used" in plan:
        text += "; " + "; ".join(sorted(set(re.findall(r"(Gpu\w* ?Not Used: [^\n]*)", plan))))
    return text


def main():
    args = sys.argv[1:]
    md_path = csv_path = None
    dirs = []
    while args:
        if args[0] == "--md":
            md_path, args = args[1], args[2:]
        elif args[0] == "--csv":
            csv_path, args = args[1], args[2:]
        else:
            dirs.append(args[0])
            args = args[1:]
    if not dirs:
        sys.exit(__doc__)
    ms, checks, elapsed, sqls, kinds, plans, order = {}, {}, {}, {}, {}, {}, []
    device = ""
    for d in dirs:
        if not device and os.path.exists(os.path.join(d, "device.txt")):
            device = open(os.path.join(d, "device.txt")).read().strip()
        p = os.path.join(d, "shapes.tsv")
        if os.path.exists(p):
            for line in open(p):
                s, k, q = line.rstrip("\n").split("\t", 2)
                kinds[s], sqls[s] = k, q
        for name, store in (("e2e.csv", ms), ("check.csv", checks), ("elapsed.csv", elapsed)):
            p = os.path.join(d, name)
            if not os.path.exists(p):
                continue
            for r in csv.DictReader(open(p)):
                n = int(r["rows"])
                s = r.get("query") or r.get("shape")
                if (n, s) not in order:
                    order.append((n, s))
                if name == "e2e.csv":
                    store[(n, s, r["mode"])] = r["ms"]
                elif name == "check.csv":
                    store[(n, s)] = r
                else:
                    store[(n, s)] = r["s"]
        for f in os.listdir(d):
            m = re.match(r"plans_(\d+)\.txt$", f)
            if not m:
                continue
            text = open(os.path.join(d, f)).read()
            for sec in re.finditer(r"^== (\S+), (\S+): .*?\n(.*?)(?=^== |\Z)", text, re.S | re.M):
                plans[(int(m.group(1)), sec.group(2), sec.group(1))] = sec.group(3)

    out, table = [], []
    out.append("# Analytics benchmark: gpusort against stock PostgreSQL")
    out.append("")
    if device:
        out.append("    " + device.replace("\n", "\n    "))
        out.append("")
    out.append("Times in ms, the best of the runs; ratios are stock's time over gpusort's (above 1: gpusort is faster). "
               "gpusort: its defaults, with stock tuned's session settings; nodes: the gpusort nodes of its plan "
               "(none: the plan is stock's), then the stock nodes that sort or aggregate left in it. Result: the whole result of the shape, in order, against stock tuned's.")
    out.append("")
    differ = []
    for n in sorted({n for n, _ in order}):
        shapes = [s for m, s in order if m == n]
        out.append(f"## {n} rows")
        out.append("")
        out.append("| shape | kind | gpusort ms | stock tuned ms | tuned / gpusort | stock 1 proc ms | 1 proc / gpusort | gpusort nodes | result | s |")
        out.append("|---|---|---:|---:|---:|---:|---:|---|---|---:|")
        rt, r1, bykind = [], [], {}
        for s in shapes:
            g, t, o = (ms.get((n, s, m), "") for m in (GP, TUNED, ONE))
            a, b = ratio(t, g), ratio(o, g)
            plan = plans.get((n, s, GP))
            nodes = nodes_of(plan) if plan is not None else "-"
            c = checks.get((n, s))
            res = c["result"] if c else "-"
            bad = res == "DIFFERENT" or res.startswith("GPUSORT FAILED")
            if bad:
                differ.append((n, s, res))
            k = kinds.get(s, "-")
            if a:
                rt.append((a, s))
                bykind.setdefault(k, []).append(a)
            if b:
                r1.append(b)
            out.append(f"| {s} | {k} | {fmt_ms(g)} | {fmt_ms(t)} | {gx(a)} | {fmt_ms(o)} | {gx(b)} | {nodes} | "
                       f"{'**' + res + '**' if bad else res} | {elapsed.get((n, s), '-')} |")
            table.append({"rows": n, "shape": s, "kind": k, "gpusort_ms": g, "stock_tuned_ms": t,
                          "tuned_ratio": f"{a:.3f}" if a else "", "stock_1proc_ms": o,
                          "1proc_ratio": f"{b:.3f}" if b else "", "gpusort_nodes": nodes,
                          "result": res, "elapsed_s": elapsed.get((n, s), "")})
        out.append("")
        out.append(f"Geometric mean over {len(rt)} shapes: **{gx(geomean([x for x, _ in rt]))}** against stock tuned, "
                   f"{gx(geomean(r1))} against stock in one process ({len(r1)} shapes).")
        out.append("By kind, against stock tuned: " + "; ".join(
            f"{k} {gx(geomean(v))} ({len(v)})" for k, v in sorted(bykind.items())) + ".")
        slow = sorted(rt)[:5]
        out.append("Slowest against stock tuned: " + ", ".join(f"{s} {x:.2f}x" for x, s in slow) + ".")
        below = [f"{s} {x:.2f}x" for x, s in sorted(rt) if x < 1.0]
        out.append("Slower than stock tuned: " + (", ".join(below) if below else "none") + ".")
        missing = [s for s in kinds if s not in shapes]
        if missing:
            out.append("Not run (--stop-after's time spent, or left out): " + ", ".join(missing) + ".")
        out.append(f"Targets ({TARGETS}).")
        out.append("")
    if differ:
        out.append("## RESULTS THAT DIFFER FROM STOCK'S (or gpusort failed where stock did not)")
        out.append("")
        for n, s, res in differ:
            out.append(f"- {n} rows, {s}: {res}: `{sqls.get(s, '?')}`")
        out.append("")
    out.append("## Shapes")
    out.append("")
    for s in dict.fromkeys(s for _, s in order):
        out.append(f"- **{s}** ({kinds.get(s, '-')}): `{sqls.get(s, '?')}`")
    text = "\n".join(out) + "\n"
    if md_path:
        open(md_path, "w").write(text)
    else:
        sys.stdout.write(text)
    if csv_path:
        with open(csv_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(table[0].keys()) if table else ["rows"])
            w.writeheader()
            w.writerows(table)


if __name__ == "__main__":
    main()
