#!/usr/bin/env python3
"""Classifies the differences between two runs of PostgreSQL's regression
suite: one on stock PostgreSQL, one with GpuSort forced on (test/sort/pg_suite.sh).

    pg_suite_classify.py [--schedule FILE] [--expected DIR] STOCK_DIR GPUSORT_DIR

Each DIR is a pg_regress --outputdir (results/NAME.out).  Each test of the
schedule (or each results file of STOCK_DIR) gets one class:

  same     the gpusort output is the stock output (or one of the suite's
           expected outputs: the test passed with gpusort);
  plan     only plan text differs: once every table of EXPLAIN output
           (a "QUERY PLAN" column, or any table with plan lines in it, see
           is_plan_table) is dropped from both, the outputs are the same;
  reorder  besides plan text, some tables list the same rows in another
           order: the same header and the same lines as a multiset, as
           when rows of equal sort keys come out in another order (GpuSort
           is stable, stock's qsort is not);
  peer     besides the above, some query whose values depend on the order
           of peers (rows of equal sort keys) gives other values: listed in
           PEER_ORDER below by test and query, each checked by hand; still
           the same header and the same number of rows; or a query that
           looks at the executor's own workings (INTERNALS below);
  FAIL     anything else: an ERROR stock does not print, a missing or an
           extra row, another value, a test that did not run.

Prints one line per test that is not "same", the hunks of every FAIL, and
a summary; exits 1 when any test FAILs.
"""
import argparse
import collections
import difflib
import os
import re
import sys

# Queries whose results depend on the order of peers, by test: (regex on
# the query's text, whitespace collapsed, as pg_regress echoes it; why).
# Each was read by hand in the diff of a run with gpusort forced on: the
# query's values (not just its row order) depend on which of several rows
# with equal sort keys comes first, which no SQL order guarantees and which
# GpuSort (a stable sort) and stock's qsort settle differently.
PEER_ORDER = {
    'sqljson': [
        (r'SELECT bar, JSON_ARRAYAGG\(bar\) FILTER \(WHERE bar > 2\) OVER \(PARTITION BY '
         r'foo\.bar % 2\) FROM \(VALUES .*\) foo\(bar\);$',
         'a window without ORDER BY: the aggregate takes the rows of a partition '
         '(equal bar % 2) in the order the sort of the partition key leaves '
         'them, which is any (the test is in the suite from PostgreSQL 16)'),
    ],
    'tsrf': [
        (r'^-- only SRF mentioned in DISTINCT ON SELECT DISTINCT ON \(g\) a, b, '
         r'generate_series\(1,3\) g FROM \(VALUES',
         'DISTINCT ON (g) keeps the first row of each g, and the six rows of a '
         'g come in any order: a and b of the kept row are any of them'),
    ],
    'window': [
        (r'^select id, f_interval, first_value\(id\) over w, last_value\(id\) over w '
         r'from datetimes window w as \(order by f_interval( desc)? range between',
         'first_value and last_value over a RANGE frame ORDER BY f_interval, '
         'which ids 5 and 6 share (5 years): the frame edges among those peers '
         'are either (interval keys are encoded since 2026-11-25, so this sort '
         'is a GpuSort now)'),
        (r'SELECT last_value\(four\) OVER \(ORDER BY ten\), ten, four FROM tenk1 '
         r'WHERE unique2 < 10;$',
         'the default frame ends at the last peer of the current row (rows of '
         'equal ten), whose four is any of theirs'),
        (r'^SELECT (first|last)_value\(unique1\) over \(ORDER BY four rows between '
         r'current row and 2 following exclude (current row|group|ties)\), unique1, four '
         r'FROM tenk1 WHERE unique1 < 10;$',
         'a ROWS frame over ORDER BY four (2 or 3 rows per value): which rows '
         'it holds depends on the order of the rows of equal four'),
        (r'^SELECT first_value\(unique1\) over w, nth_value\(unique1, 2\) over w AS '
         r'nth_2, last_value\(unique1\) over w, unique1, four FROM tenk1 WHERE unique1 '
         r'< 10 WINDOW w AS \(order by four range between current row and unbounded '
         r'following\);$',
         'the frame starts at the first peer of the current row (rows of equal '
         'four), whichever that is'),
        (r'^select (first_value|last_value)\(salary\) over\(order by enroll_date '
         r'(range|groups) between .* from empsalary;$',
         'first/last/nth_value, lead and lag over ORDER BY enroll_date, which two '
         'pairs of employees share (2007-08-01, 2008-01-01): the frame edges '
         'and neighbours among peers are any of them'),
        (r'^select x, y, first_value\(y\) over w, last_value\(y\) over w from \(select x, '
         r'x as y from generate_series\(1,5\) as x union all select null, 42 union all '
         r'select null, 43\) ss window w as \(order by x desc nulls first range between '
         r'2 preceding and 2 following\);$',
         'the two rows with x NULL are peers: which y comes first among them is '
         'any'),
        (r'^select id, f_(time|timestamp|timestamptz), first_value\(id\) over w, '
         r'last_value\(id\) over w from datetimes window w as \(order by f_\w+ desc '
         r'range between .*\);$',
         'datetimes has equal f_time (ids 5 and 6) and equal f_timestamp(tz) '
         '(ids 2 and 3): the first and last row of a frame among them is any'),
        (r'^-- Ensure the above query gives us the expected results SELECT empno, '
         r'depname, row_number\(\) OVER \(PARTITION BY depname ORDER BY enroll_date\) rn,',
         'develop has two employees of the same enroll_date (7 and 9, '
         '2008-01-01): row_number numbers those peers in either order'),
        (r'^-- Ensure we correctly filter out all of the run conditions from each '
         r'window SELECT \* FROM \(SELECT \*, count\(\w+\) OVER \(PARTITION BY '
         r'depname \|\| \'\'\) c1, -- w1 row_number\(\) OVER \(PARTITION BY depname\) rn,',
         'row_number() OVER (PARTITION BY depname) with no ORDER BY numbers the '
         'rows of a department in any order, so rn <= 1 keeps any one of them'),
    ],
}

# Queries that look at the executor's own workings, by test: (regex, why).
# Their tables may differ in any way, row count included.
INTERNALS = {
    'sysviews': [
        (r"from pg_backend_memory_contexts where name = 'Caller tuples';$",
         "the memory context of a tuplesort's stored tuples, which a GpuSort, "
         "keeping its rows in a context of its own, does not make"),
    ],
}

SEPARATOR = re.compile(r'^-+(\+-+)*$')
ROWCOUNT = re.compile(r'^\((\d+) rows?\)$')
# lines that only EXPLAIN output has
PLAN_LINE = re.compile(
    r'->  |Custom Scan \(GpuSort\)|Sort Key: |Presorted Key: |Sort Method: |'
    r'Gather Merge|Workers Planned: |"Node Type": |"Sort Key": |"Sort Method')


class Table:
    """One result table of psql's aligned output."""

    def __init__(self, header, sep, rows, footer):
        self.header = header
        self.sep = sep
        self.rows = rows
        self.footer = footer

    def lines(self):
        return [self.header, self.sep] + self.rows + [self.footer]

    def __eq__(self, other):
        return isinstance(other, Table) and self.lines() == other.lines()


def parse(lines):
    """Splits psql output into text lines (str) and Tables."""
    items = []
    i = 0
    n = len(lines)
    while i < n:
        # psql pads the header to the separator's width; a table of no
        # columns is a bare "--" followed by its row count
        if i + 1 < n and SEPARATOR.match(lines[i + 1]) and (
                len(lines[i]) == len(lines[i + 1]) and not SEPARATOR.match(lines[i]) or
                lines[i + 1] == '--' and i + 2 < n and ROWCOUNT.match(lines[i + 2])):
            # a table: header, separator, rows up to "(N rows)"
            j = i + 2
            while j < n and not ROWCOUNT.match(lines[j]):
                j += 1
            if j < n:
                items.append(Table(lines[i], lines[i + 1], lines[i + 2:j], lines[j]))
                i = j + 1
                continue
        items.append(lines[i])
        i += 1
    return items


def is_plan_table(t):
    if t.header.strip() == 'QUERY PLAN':
        return True
    return any(PLAN_LINE.search(r) for r in t.rows)


def query_text(items, k):
    """The echoed text (SQL) before item k, back to the previous table."""
    text = []
    j = k - 1
    while j >= 0 and not isinstance(items[j], Table):
        text.append(items[j])
        j -= 1
    return ' '.join(' '.join(reversed(text)).split())


def drop_plans(items):
    return ['<plan>' if isinstance(x, Table) and is_plan_table(x) else x for x in items]


def render(items):
    out = []
    for x in items:
        out += x.lines() if isinstance(x, Table) else [x]
    return out


def classify(test, stock, gs):
    """(class, detail lines): the worst class of its differences"""
    a = parse(stock)
    b = parse(gs)
    pa = drop_plans(a)
    pb = drop_plans(b)
    if pa == pb:
        return 'plan', []
    if len(pa) != len(pb):
        diff = list(difflib.unified_diff(render(pa), render(pb), 'stock', 'gpusort', n=2,
                                         lineterm=''))
        return 'FAIL', ['the outputs differ in statements or tables'] + diff[:80]
    cls = 'plan'
    details = []
    failed = False
    for k, (x, y) in enumerate(zip(pa, pb)):
        if x == y:
            continue
        q = query_text(b, k)
        if isinstance(x, Table) and isinstance(y, Table) and x.header == y.header:
            if collections.Counter(x.rows) == collections.Counter(y.rows) and x.footer == y.footer:
                if cls == 'plan':
                    cls = 'reorder'
                continue
            why = peer_reason(test, q)
            if why and x.footer == y.footer:
                if cls != 'FAIL':
                    cls = 'peer'
                details.append('peer order: %s  [%s]' % (q[:160], why))
                continue
        if isinstance(x, Table) and isinstance(y, Table):
            why = internals_reason(test, q)
            if why:
                if cls != 'FAIL':
                    cls = 'peer'
                details.append('executor internals: %s  [%s]' % (q[:160], why))
                continue
        xl = x.lines() if isinstance(x, Table) else [x]
        yl = y.lines() if isinstance(y, Table) else [y]
        cls = 'FAIL'
        details.append('query: ' + q[:400])
        details += list(difflib.unified_diff(xl, yl, 'stock', 'gpusort', n=1, lineterm=''))[2:]
    return cls, details


def internals_reason(test, q):
    for pattern, why in INTERNALS.get(test, []):
        if re.search(pattern, q):
            return why
    return None


def peer_reason(test, q):
    for pattern, why in PEER_ORDER.get(test, []):
        if re.search(pattern, q):
            return why
    return None


def read(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read().splitlines()


def schedule_tests(path):
    tests = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith('test:'):
                tests += line[5:].split()
    return tests


def matches_expected(expected_dir, test, gs):
    if not expected_dir:
        return False
    for name in sorted(os.listdir(expected_dir)):
        if re.fullmatch(re.escape(test) + r'(_\d+)?\.out', name):
            if read(os.path.join(expected_dir, name)) == gs:
                return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--schedule')
    ap.add_argument('--expected', help="the suite's expected/ directory")
    ap.add_argument('stock')
    ap.add_argument('gpusort')
    args = ap.parse_args()

    if args.schedule:
        tests = schedule_tests(args.schedule)
        if args.expected is None:
            args.expected = os.path.join(os.path.dirname(args.schedule), 'expected')
    else:
        tests = sorted(f[:-4] for f in os.listdir(os.path.join(args.stock, 'results'))
                       if f.endswith('.out'))

    counts = collections.Counter()
    for test in tests:
        fa = os.path.join(args.stock, 'results', test + '.out')
        fb = os.path.join(args.gpusort, 'results', test + '.out')
        if not os.path.exists(fb):
            cls, details = 'FAIL', ['no output with gpusort']
        elif not os.path.exists(fa):
            cls, details = 'FAIL', ['no output without gpusort']
        else:
            a = read(fa)
            b = read(fb)
            if a == b or matches_expected(args.expected, test, b):
                cls, details = 'same', []
            else:
                cls, details = classify(test, a, b)
        counts[cls] += 1
        if cls != 'same':
            print('%-8s %s' % (cls, test))
            for d in details:
                print('         ' + d)
    print('pg suite with gpusort: %d tests: %d same, %d plan text only, %d rows of equal keys '
          'reordered, %d peer-order values (allowlisted), %d FAILED'
          % (len(tests), counts['same'], counts['plan'], counts['reorder'], counts['peer'],
             counts['FAIL']))
    return 1 if counts['FAIL'] else 0


if __name__ == '__main__':
    sys.exit(main())
