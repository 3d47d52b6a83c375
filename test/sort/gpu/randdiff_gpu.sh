#!/usr/bin/env bash
# The seeded random differential (test/sort/randdiff.py) with every GpuSort
# on the GPU: the CI's run (test/sort/cpu/randdiff.sh) has no GPU, so its
# queries never reach the GPU engine, its uploads, its merges of runs or
# its fallbacks.  Here the cluster has gpusort.device = gpu, so every
# GpuSort, GpuWindow and GpuAgg sorts on the GPU whatever its size, and
# each query's results and errors must be stock's (whole results in order;
# rows of equal keys as multisets), as in the CI.
#
#   test/sort/gpu/randdiff_gpu.sh     seed 2 (the CI runs seed 1), 400 queries, 20000 rows
#   GS_RANDDIFF_SEED=N GS_RANDDIFF_QUERIES=N GS_RANDDIFF_ROWS=N  other runs
#
# Run by test/gpu/run after its build (the extension is installed); the
# GPU machine has no apt, so randdiff.py reaches libpq through
# test/sort/pqshim.py where psycopg2 is missing.  A cluster of its own:
# gpusort in shared_preload_libraries, a database in en_US.UTF-8 (the
# collations come from test/gpu/locales.sh, which test/gpu/run calls).
# Prints "N passed, M failed" (randdiff.py's count).
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
. test/lib.sh

seed=${GS_RANDDIFF_SEED:-2}
queries=${GS_RANDDIFF_QUERIES:-400}
rows=${GS_RANDDIFF_ROWS:-20000}

# PostgreSQL's parallel schedule is not run here, but a query's workers
# and the leader may each start CUDA: raise the cap so that none falls back
gs_cluster_start "shared_preload_libraries = 'gpusort'" "jit = off" "gpusort.device = 'gpu'" \
	"gpusort.max_gpu_sessions = 64" || { echo "0 passed, 1 failed"; exit 1; }
gs_as_pg psql -X -q -v ON_ERROR_STOP=1 \
	-c "CREATE DATABASE randdiff LOCALE 'en_US.UTF-8' TEMPLATE template0" ||
	{ echo "0 passed, 1 failed"; exit 1; }

report=${OUT:+$OUT/randdiff.md}
PGDATABASE=randdiff python3 test/sort/randdiff.py --seed "$seed" --queries "$queries" --rows "$rows" \
	--max-print 10 ${report:+--report "$report"} | tee "${GS_TEST_TMP:-/tmp}/randdiff_gpu.log"
rc=${PIPESTATUS[0]}
sed -nE 's/^randdiff: ([0-9]+) passed, ([0-9]+) failed$/\1 passed, \2 failed/p' "${GS_TEST_TMP:-/tmp}/randdiff_gpu.log"
# the server must have sorted on the GPU: a fallback is a WARNING there
echo "GPU fallbacks (WARNINGs) in the server log: $(grep -c "WARNING:.*GPU" "$GS_CLUSTER/server.log")"
grep "WARNING:.*GPU" "$GS_CLUSTER/server.log" | sed -E "s/^.*WARNING: //" | sort | uniq -c | sort -rn | head -5
exit "$rc"
