#!/usr/bin/env python3
"""Compares two runs of the bench/ scripts, cell by cell (bench/ab_scripts.sh).

    ab_scripts_compare.py DIR_A DIR_B SCRIPT...

DIR_X/SCRIPT holds what the script wrote: CSV files with a column ms and a
column mode (the other columns, but run/round/call/tree, name the cell; a
cell run several times is taken at its median), or randdiff.csv (query,
gpusort_ms, stock_ms).  A cell whose mode names gpusort is gpusort's, any
other (stock's modes, the floor) PostgreSQL's alone, the same server in both
runs: how far those move between the runs is the machine's noise.  Prints a
markdown summary per script and gpusort's cells that moved more than any of
stock's did.
"""
import csv
import math
import os
import statistics
import sys

IGNORED = {'run', 'round', 'call', 'tree'}


def cells(folder):
    """{(file, key...): ms} of every CSV under folder"""
    out = {}
    runs = {}
    for root, _, files in os.walk(folder):
        for f in sorted(files):
            if not f.endswith('.csv'):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, folder)
            with open(path, newline='') as fh:
                rows = list(csv.DictReader(fh))
            if not rows:
                continue
            cols = rows[0].keys()
            if 'gpusort_ms' in cols and 'stock_ms' in cols:
                for r in rows:
                    for mode in ('gpusort', 'stock'):
                        runs.setdefault((rel, 'query ' + r['query'], mode), []).append(r[mode + '_ms'])
            elif 'ms' in cols and 'mode' in cols:
                cols = list(cols)
                names = [c for c in cols[:cols.index('ms')] if c not in IGNORED]
                for r in rows:
                    key = (rel,) + tuple('%s=%s' % (c, r[c]) for c in names if c != 'mode') + (r['mode'],)
                    runs.setdefault(key, []).append(r['ms'])
        for f in files:
            if f == 'aggs.md':
                aggs_table(os.path.join(root, f), runs)
    for key, vals in runs.items():
        nums = []
        for v in vals:
            try:
                nums.append(float(v))
            except (TypeError, ValueError):
                pass
        if nums and len(nums) == len(vals):
            out[key] = statistics.median(nums)
    return out


def aggs_table(path, runs):
    """bench/sort/aggs.sh writes no CSV: its table's time columns"""
    head = None
    for line in open(path):
        if not line.startswith('|'):
            continue
        f = [x.strip() for x in line.strip().strip('|').split('|')]
        if f[0] == 'query':
            head = f
        elif head and not f[0].startswith('---'):
            for c, v in zip(head[1:], f[1:]):
                if c in ('stock tuned', 'stock 1 proc', 'gpusort'):
                    runs.setdefault(('aggs.md', f[0], c.replace(' ', '_')), []).append(v)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float('nan')


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    da, db, scripts = sys.argv[1], sys.argv[2], sys.argv[3:]
    print('| script | cells (gpusort / stock) | gpusort A/B geomean | min | max | stock A/B geomean | min | max | verdict |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---|')
    outliers = []
    for s in scripts:
        a, b = cells(os.path.join(da, s)), cells(os.path.join(db, s))
        both = [k for k in a if k in b and a[k] > 0 and b[k] > 0]
        g = [(k, a[k] / b[k]) for k in both if 'gpusort' in k[-1]]
        st = [(k, a[k] / b[k]) for k in both if 'gpusort' not in k[-1]]
        if not g:
            print('| %s | 0 / %d | | | | | | | no cells to compare (see the run logs) |' % (s, len(st)))
            continue
        gr = [r for _, r in g]
        sr = [r for _, r in st]
        lo = min(sr) if sr else 0.9
        hi = max(sr) if sr else 1.1
        slower = [(k, r) for k, r in g if r < min(lo, 0.95)]
        outliers += [(s, k, a[k], b[k], r) for k, r in slower]
        verdict = 'within noise' if not slower else '%d gpusort cell(s) slower than any stock cell moved' % len(slower)
        print('| %s | %d / %d | %.2f | %.2f | %.2f | %s | %s | %s | %s |' % (
            s, len(g), len(st), geomean(gr), min(gr), max(gr),
            '%.2f' % geomean(sr) if sr else '', '%.2f' % lo if sr else '', '%.2f' % hi if sr else '', verdict))
    if outliers:
        print()
        print("gpusort's cells that moved more than stock's (A/B under the stock cells' least, and under 0.95):")
        print()
        print('| script | cell | A ms | B ms | A/B |')
        print('|---|---|---:|---:|---:|')
        for s, k, ta, tb, r in outliers:
            print('| %s | %s | %.1f | %.1f | %.2f |' % (s, ' '.join(k), ta, tb, r))


if __name__ == '__main__':
    main()
