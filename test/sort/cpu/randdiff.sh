#!/usr/bin/env bash
# Seeded random differential (test/sort/randdiff.py): a few hundred random
# sorting queries (ORDER BY, LIMIT/OFFSET, DISTINCT [ON], window
# functions of every frame kind, aggregates that sort, GROUP BY, merge
# joins, set operations, correlated subqueries, a partitioned table) with
# random session settings (parallel plans, spilling gpusort.max_memory,
# gpusort.min_rows = 0, ...), each run with gpusort on and with
# gpusort.enabled = off in the same session; the results (ORDER BY keys in
# order, rows of equal keys as multisets) and errors (SQLSTATE and
# message) must be the same.  Fails with each differing query and both
# sides' first differing row.
#
#   test/sort/cpu/randdiff.sh               the CI run: seed 1, 300 queries, 10000 rows
#   GS_RANDDIFF_SEED=N GS_RANDDIFF_QUERIES=N GS_RANDDIFF_ROWS=N test/sort/cpu/randdiff.sh
#   GS_RANDDIFF_ARGS="--only 17 --verbose"  more options of randdiff.py
#   GS_NO_BUILD=1                           the extension is built and installed already
#   GS_PRIVATE_PG=DIR                       as in test/lib.sh
#   GS_RANDDIFF_SHIM=1                      test/sort/pqshim.py (libpq through ctypes), not psycopg2
#                                           (also where apt cannot install psycopg2)
#
# On a cluster of its own (gpusort in shared_preload_libraries), in a
# database whose default collation is en_US.UTF-8.  Run by test/run-all;
# the report (every failing query) goes to $GS_TEST_TMP/randdiff.md when
# set.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
. test/lib.sh

seed=${GS_RANDDIFF_SEED:-1}
queries=${GS_RANDDIFF_QUERIES:-300}
rows=${GS_RANDDIFF_ROWS:-10000}

gs_randdiff_deps || exit 1
gs_ensure_locales || exit 1
[ -n "${GS_NO_BUILD:-}" ] || gs_build_install >/dev/null || exit 1

gs_cluster_start "shared_preload_libraries = 'gpusort'" "jit = off" || exit 1
gs_as_pg psql -X -q -v ON_ERROR_STOP=1 \
	-c "CREATE DATABASE randdiff LOCALE 'en_US.UTF-8' TEMPLATE template0" || exit 1

report=${GS_TEST_TMP:+$GS_TEST_TMP/randdiff.md}
# shellcheck disable=SC2086
PGDATABASE=randdiff "$GS_PY" test/sort/randdiff.py --seed "$seed" --queries "$queries" --rows "$rows" \
	${report:+--report "$report"} ${GS_RANDDIFF_ARGS:-}
