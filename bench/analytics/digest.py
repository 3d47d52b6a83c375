#!/usr/bin/env python3
"""The digest of a result in order, read from stdin: COPY ... TO STDOUT's
text format, a row a line (bench/analytics/analytics.sh's result check).

    digest.py [--keys 8,7,5] [--head N FILE] < result

Prints "ROWS MD5".  Without --keys the MD5 is of the bytes as they come:
two results digest alike only if they hold the same rows in the same
order.  With --keys (the 1-based columns of the result's ORDER BY, where
that order is not total) each run of consecutive rows equal on those
columns is sorted before it is digested, so rows that tie on the ORDER BY
may come in any order, but the runs must come in the same order and hold
the same rows.  --head N FILE also writes the first N rows to FILE (for a
report of a difference).
"""
import hashlib
import sys


def main():
    keys = []
    head_n, head_file = 0, None
    args = sys.argv[1:]
    while args:
        if args[0] == "--keys" and len(args) > 1:
            keys = [int(k) - 1 for k in args[1].split(",") if k]
            args = args[2:]
        elif args[0] == "--head" and len(args) > 2:
            head_n, head_file = int(args[1]), open(args[2], "wb")
            args = args[3:]
        else:
            sys.exit(__doc__)
    md5 = hashlib.md5()
    rows = 0
    inp = sys.stdin.buffer
    if not keys and not head_file:
        while True:
            chunk = inp.read(1 << 20)
            if not chunk:
                break
            md5.update(chunk)
            rows += chunk.count(b"\n")
        print(rows, md5.hexdigest())
        return
    last = max(keys) + 1 if keys else 0
    prev, group = None, []
    for line in inp:
        rows += 1
        if head_file and rows <= head_n:
            head_file.write(line)
        if not keys:
            md5.update(line)
            continue
        fields = line.split(b"\t", last)
        key = tuple(fields[k] for k in keys)
        if key != prev:
            if len(group) > 1:
                group.sort()
            md5.update(b"".join(group))
            group, prev = [], key
        group.append(line)
    if len(group) > 1:
        group.sort()
    md5.update(b"".join(group))
    print(rows, md5.hexdigest())


if __name__ == "__main__":
    main()
