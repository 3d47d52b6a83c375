#!/usr/bin/env python3
"""Checks a sqlsmith run against a cluster with GpuSort forced on
(test/sort/sqlsmith.sh): reads the server's csvlog, counts the errors by class,
and for every crash and every internal error runs the same query again
with gpusort.enabled = off.  Fails (exit 1) when a backend crashed, or when
stock PostgreSQL does not raise the same internal error (SQLSTATE and
message) for the query; prints each such query.

    sqlsmith_check.py --logdir DIR [--sqlsmith-log FILE] [--report FILE]

The cluster must still run (PGHOST, PGPORT in the environment); the queries
are run again as sqlsmith ran them, as the role smith in database smith.
"""
import argparse
import collections
import csv
import glob
import os
import re
import subprocess
import sys

# csvlog columns (PostgreSQL 15)
SEVERITY, SQLSTATE, MESSAGE, DETAIL, QUERY = 11, 12, 13, 14, 19
USER, DATABASE, SESSION = 1, 2, 5

# errors that may be gpusort's: internal errors (class XX) and messages
# that only a planner or executor bug prints
INTERNAL_MESSAGE = re.compile(
    r'unrecognized node|cache lookup failed|missing support function|'
    r'invalid attribute number|no tlist entry|could not find (pathkey|array type|'
    r'member)|unexpected |variable not found in subplan target|'
    r'wrong number of|attribute number .* exceeds|failed to|bogus|'
    r'no relation entry|not implemented|unsupported|GpuSort|gpusort',
    re.IGNORECASE)
CRASH = re.compile(r'server process \(PID \d+\) was terminated by (signal|exception)')
RERUN_LIMIT = 300


def is_internal(sqlstate, message):
    return sqlstate.startswith('XX') or bool(INTERNAL_MESSAGE.search(message))


def error_class(sqlstate, message):
    m = re.sub(r'"[^"]*"', '"…"', message)
    m = re.sub(r'\d+', 'N', m)
    return '%s %s' % (sqlstate, m[:90])


def read_log(logdir):
    rows = []
    for path in sorted(glob.glob(os.path.join(logdir, '*.csv'))):
        with open(path, newline='', encoding='utf-8', errors='replace') as f:
            rows += [r for r in csv.reader(f) if len(r) > QUERY]
    return rows


def run_query(query, gpusort_on):
    """(sqlstate, message, crashed) of the query as the role smith."""
    script = ('\\set VERBOSITY verbose\n'
              "SET statement_timeout = '10s';\n"
              'SET gpusort.enabled = %s;\n'
              'SET gpusort.min_rows = 0;\n'
              '%s\n;\n' % ('on' if gpusort_on else 'off', query))
    p = subprocess.run(['psql', '-X', '-q', '-U', 'smith', '-d', 'smith', '-o', '/dev/null'],
                       input=script, capture_output=True, text=True)
    err = p.stderr
    crashed = ('server closed the connection unexpectedly' in err or
               'connection to server was lost' in err)
    m = re.search(r'ERROR:  ([0-9A-Z]{5}): (.*)', err)
    if m:
        return m.group(1), m.group(2).strip(), crashed
    return None, None, crashed


def wait_for_server():
    for _ in range(60):
        if subprocess.run(['pg_isready', '-q']).returncode == 0:
            return
        subprocess.run(['sleep', '1'])


def count_queries(path):
    if not path or not os.path.exists(path):
        return None
    text = open(path, errors='replace').read()
    m = re.findall(r'^queries: (\d+)$', text, re.M)
    if m:
        return int(m[-1])
    # killed by the time limit: one progress character per query
    n = 0
    for line in text.splitlines():
        if re.fullmatch(r'[.a-zA-Z]+', line) and not line.startswith('Loading'):
            n += len(line)
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--logdir', required=True)
    ap.add_argument('--sqlsmith-log')
    ap.add_argument('--report')
    args = ap.parse_args()

    rows = read_log(args.logdir)
    nqueries = count_queries(args.sqlsmith_log)
    classes = collections.Counter()
    states = collections.Counter()
    candidates = collections.OrderedDict()	# query -> (kind, sqlstate, message)
    nerrors = 0
    # auto_explain's plans (GS_SMITH_EXPLAIN), but not those of sqlsmith's
    # first session, which only reads the catalog
    loader = next((r[SESSION] for r in rows if r[USER] == 'smith'), None)
    nplans = nsorted = 0
    for r in rows:
        if (r[USER] == 'smith' and r[SEVERITY] == 'LOG' and r[SESSION] != loader and
                r[MESSAGE].startswith('duration:') and 'plan:' in r[MESSAGE]):
            nplans += 1
            nsorted += 'Custom Scan (GpuSort)' in r[MESSAGE]
            continue
        if r[SEVERITY] == 'LOG' and CRASH.search(r[MESSAGE]):
            q = re.sub(r'^Failed process was running: ', '', r[DETAIL])
            candidates.setdefault(q, ('crash', None, r[MESSAGE]))
            classes['CRASH ' + r[MESSAGE]] += 1
            continue
        if r[SEVERITY] not in ('ERROR', 'FATAL', 'PANIC') or r[USER] != 'smith':
            continue
        nerrors += 1
        states[r[SQLSTATE]] += 1
        classes[error_class(r[SQLSTATE], r[MESSAGE])] += 1
        if r[SEVERITY] == 'PANIC' or is_internal(r[SQLSTATE], r[MESSAGE]):
            if r[QUERY]:
                candidates.setdefault(r[QUERY], ('error', r[SQLSTATE], r[MESSAGE]))

    failures = []
    stock_too = collections.Counter()
    for i, (q, (kind, state, msg)) in enumerate(candidates.items()):
        if i >= RERUN_LIMIT:
            failures.append(('unchecked', q, 'more than %d candidates' % RERUN_LIMIT))
            break
        s_state, s_msg, s_crash = run_query(q, gpusort_on=False)
        if s_crash:
            wait_for_server()
        if kind == 'crash':
            if s_crash:
                stock_too['crash'] += 1
            else:
                failures.append(('crash', q, msg))
            continue
        if s_state == state and s_msg == msg:
            stock_too[error_class(state, msg)] += 1
            continue
        g_state, g_msg, g_crash = run_query(q, gpusort_on=True)
        if g_crash:
            wait_for_server()
        again = ('raised again with gpusort on' if (g_state, g_msg) == (state, msg)
                 else 'not raised again with gpusort on (%s %s)' % (g_state, g_msg))
        failures.append(('error', q, '%s: %s; stock: %s %s; %s'
                         % (state, msg, s_state, s_msg, again)))

    lines = []
    lines.append('sqlsmith: %s queries, %d errors, %d crashes, %d internal-error candidates '
                 '(%d also raised by stock), %d gpusort-only'
                 % (nqueries if nqueries is not None else '?', nerrors,
                    sum(1 for v in candidates.values() if v[0] == 'crash'),
                    len(candidates), sum(stock_too.values()), len(failures)))
    if nplans:
        lines.append('plans that ran: %d, with a GpuSort: %d' % (nplans, nsorted))
    lines.append('errors by SQLSTATE: ' +
                 ', '.join('%s %d' % (k, n) for k, n in states.most_common()))
    lines.append('errors by class (SQLSTATE message):')
    for c, n in classes.most_common():
        lines.append('  %6d  %s' % (n, c))
    if stock_too:
        lines.append('internal errors that stock raises as well:')
        for c, n in stock_too.most_common():
            lines.append('  %6d  %s' % (n, c))
    for kind, q, why in failures:
        lines.append('FAILED (%s): %s' % (kind, why))
        lines.append('  query: ' + q)
    report = '\n'.join(lines) + '\n'
    if args.report:
        with open(args.report, 'w') as f:
            f.write(report)
    # the summary, the most frequent classes, the failures
    head = 4 if nplans else 3
    for l in lines[:head + min(15, len(classes))]:
        print(l)
    if len(classes) > 15:
        print('  (%d more classes in the whole report: --report, or '
              'GS_SMITH_OUT=DIR of test/sort/sqlsmith.sh)' % (len(classes) - 15))
    for l in lines[head + len(classes):]:
        print(l)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
