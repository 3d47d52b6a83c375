#!/usr/bin/env python3
"""Compares two results of one TPC-H query, stock's and gpusort's.

    compare.py QUERY.sql STOCK.txt GPUSORT.txt

The results are psql's unaligned, tuples-only output (fields separated by
\\x1f), a row a line.  The query's "-- gs-order:" line gives the output
columns of its ORDER BY (1-based, in order) and "limit" if a LIMIT follows
it; "none" for a query of one row.  Rows must come in the same order, but
rows whose ORDER BY columns are equal may come in any order (a multiset per
value of those columns), and under a LIMIT the last group of equal ORDER BY
values may hold different rows (the LIMIT cut a group of ties: either is a
correct result).

Prints one line: "yes", "yes (ties reordered)", "yes (ties cut by LIMIT)"
or "NO: ..." and exits 0, 0, 0 or 1.
"""
import re
import sys
from collections import Counter


def order_spec(path):
    with open(path) as f:
        for line in f:
            m = re.match(r"--\s*gs-order:\s*(.*)$", line)
            if m:
                words = m.group(1).split("(")[0].split()
                cols = [int(w) - 1 for w in words if w.isdigit()]
                return cols, "limit" in words
    raise SystemExit("compare.py: no '-- gs-order:' line in %s" % path)


def rows(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return [line.rstrip("\n") for line in f]


def groups(result, cols):
    """[(key, Counter of rows)] for runs of rows of equal ORDER BY values"""
    out = []
    for r in result:
        fields = r.split("\x1f")
        key = tuple(fields[c] if c < len(fields) else None for c in cols)
        if out and out[-1][0] == key:
            out[-1][1][r] += 1
        else:
            out.append((key, Counter([r])))
    return out


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    cols, limit = order_spec(sys.argv[1])
    a, b = rows(sys.argv[2]), rows(sys.argv[3])
    if a == b:
        print("yes")
        return 0
    if len(a) != len(b):
        print("NO: %d rows against %d" % (len(a), len(b)))
        return 1
    ga, gb = groups(a, cols), groups(b, cols)
    cut = False
    for i in range(max(len(ga), len(gb))):
        if i >= len(ga) or i >= len(gb) or ga[i][0] != gb[i][0]:
            ka = ga[i][0] if i < len(ga) else None
            kb = gb[i][0] if i < len(gb) else None
            print("NO: group %d of ORDER BY values differs: %r against %r" % (i + 1, ka, kb))
            return 1
        if ga[i][1] != gb[i][1]:
            last = i == len(ga) - 1 and i == len(gb) - 1
            if limit and last and sum(ga[i][1].values()) == sum(gb[i][1].values()):
                cut = True
                continue
            only_a = list((ga[i][1] - gb[i][1]).elements())[:2]
            only_b = list((gb[i][1] - ga[i][1]).elements())[:2]
            print("NO: rows of ORDER BY values %r differ: stock %r, gpusort %r"
                  % (ga[i][0], [r.replace("\x1f", "|") for r in only_a],
                     [r.replace("\x1f", "|") for r in only_b]))
            return 1
    print("yes (ties cut by LIMIT)" if cut else "yes (ties reordered)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
