#!/usr/bin/env bash
# The source tree's shape (issue 40): every include of one of gpusort's
# headers goes down the folders' order or stays in its own folder, and no
# file of src/ or kernels/ is over 1,500 lines.
#
# The order, from the top (a folder may include its own level and those
# below it, never one above):
#
#   entry                     the module's entry (_PG_init, gpusort_memory())
#   plan                      the planner hook, the grouping paths
#   agg window tree           GpuAgg, GpuWindow, tree_reduce
#   node                      the CustomScans: executor glue
#   core                      one sort: rows, keys, engines, ties, runs
#   engine                    the CPU and GPU sort engines
#   keys intake spill         key encoding, row intake, runs on disk
#   gpu                       the backend's CUDA session
#   runtime                   settings, statistics, the device list's syntax
#   memory threads            the memory account and budget, worker threads
#   base                      compatibility and timing macros
#
# kernels/ holds each product's kernels at its product's level
# (kernels/sort/ with the engines, kernels/tree/ with tree/) and the shared
# CUDA runtime (kernels/) with gpu/.  An include names the folder it
# crosses into ("keys/sortkey.h"); a bare name is one of its own folder, so
# a bare include of another folder's header fails too.
#
#   test/common/layering.sh        prints each breach, exits 1 on any
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

python3 - <<'EOF'
import os
import re
import sys

LEVELS = [
    ['src/entry'],
    ['src/sort/plan'],
    ['src/sort/agg', 'src/sort/window', 'src/tree', 'kernels/tree'],
    ['src/sort/node'],
    ['src/sort/core'],
    ['src/sort/engine', 'kernels/sort'],
    ['src/sort/keys', 'src/sort/intake', 'src/sort/spill'],
    ['src/gpu', 'kernels'],
    ['src/runtime'],
    ['src/memory', 'src/threads'],
    ['src/base'],
]
LEVEL = {d: i for i, ds in enumerate(LEVELS) for d in ds}
MAX_LINES = 1500

sources = []
for root in ('src', 'kernels'):
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(('.c', '.h', '.cu', '.cuh')):
                sources.append(os.path.join(d, f))
headers = {}
for p in sources:
    if p.endswith(('.h', '.cuh')):
        headers.setdefault(os.path.basename(p), []).append(p)

breaches = []
for p, names in headers.items():
    if len(names) > 1:
        breaches.append('%s: one header name in %d folders (%s)' % (p, len(names), ', '.join(sorted(names))))
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for p in sorted(sources):
    d = os.path.dirname(p)
    if d not in LEVEL:
        breaches.append('%s: its folder %s has no place in the order (test/common/layering.sh)' % (p, d))
        continue
    text = open(p, encoding='utf-8', errors='replace').read()
    lines = text.count('\n')
    if lines > MAX_LINES:
        breaches.append('%s: %d lines (at most %d)' % (p, lines, MAX_LINES))
    for m in include.finditer(text):
        name = m.group(1)
        base = os.path.basename(name)
        if base not in headers:
            continue            # PostgreSQL's, CUDA's or the system's
        target = os.path.dirname(headers[base][0])
        if name != base and not any(os.path.normpath(os.path.join(r, name)) == headers[base][0]
                                    for r in ('src', 'src/sort', d)):
            continue            # a namesake of PostgreSQL's ("optimizer/planner.h")
        line = text.count('\n', 0, m.start()) + 1
        if target == d:
            if name != base:
                breaches.append('%s:%d: "%s" is in this folder: include it bare' % (p, line, name))
            continue
        want = target[len('src/sort/'):] if target.startswith('src/sort/') else \
            target[len('src/'):] if target.startswith('src/') else None
        if want is not None and name != want + '/' + base:
            breaches.append('%s:%d: "%s" crosses into %s: include it as "%s/%s"'
                            % (p, line, name, target, want, base))
        if LEVEL.get(target, -1) < LEVEL[d]:
            breaches.append('%s:%d: "%s" climbs from %s up to %s' % (p, line, name, d, target))

for b in breaches:
    print(b)
print('layering: %d files, %d breaches' % (len(sources), len(breaches)))
sys.exit(1 if breaches else 0)
EOF
