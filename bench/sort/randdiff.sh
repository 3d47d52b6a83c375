#!/usr/bin/env bash
# Random queries timed, gpusort against stock (issue 39): the seeded
# random differential of test/sort/randdiff.py, thousands of queries over
# a larger table, each checked as in the test and then timed.
#
#   bench/sort/randdiff.sh [--queries N] [--rows N] [--seed S] [randdiff.py options...]
#                                       default: 3000 queries, 100000 rows, seed 1
#
# Every query runs with its random session settings on both sides (its
# parallel settings included: stock "tuned" is stock with the same
# max_parallel_workers_per_gather and costs as gpusort), gpusort and
# stock alternated; the time is EXPLAIN (ANALYZE, TIMING OFF)'s planning +
# execution time (no rows sent to the client), the best of --reps (default
# 1) runs.  Where gpusort took more than --bar (default 1.5x stock + 20 ms), both run 3 more
# times and the medians count.  Prints the distribution of gpusort/stock
# ratios (percentiles, how many over 1.2x and over 1.5x + 20 ms, per
# shape), the 20 worst ratios and the 10 largest excesses with their SQL,
# and the correctness results (results and errors compared as in the test:
# a difference fails the run).  Writes the report to $OUT/randdiff.md
# (default bench/out/randdiff/), every query's times to randdiff.csv, and
# device.txt.  A query past statement_timeout (--timeout, default 60 s)
# on gpusort's side only is a failure, and counts at the timeout.
#
# GS_NO_BUILD=1 uses the installed build; GS_PRIVATE_PG as in test/lib.sh.
# psycopg2 from apt where apt serves; else (the GPU machine) randdiff.py
# talks to libpq through test/sort/pqshim.py, as GS_RANDDIFF_SHIM=1 makes it
# do anyway (test/lib.sh's gs_randdiff_deps).
# The database's default collation is en_US.UTF-8.
set -uo pipefail
. "$(dirname "$0")/../../test/lib.sh"

OUT=${OUT:-$GS_ROOT/bench/out/randdiff}
args=("$@")
queries=3000 rows=100000
for ((i = 0; i < ${#args[@]}; i++)); do
	case ${args[$i]} in
		--queries) queries=${args[$((i + 1))]} ;;
		--rows) rows=${args[$((i + 1))]} ;;
	esac
done
mkdir -p "$OUT"

gs_randdiff_deps || exit 1
gs_ensure_locales || exit 1
[ -n "${GS_NO_BUILD:-}" ] || gs_build_install >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }

sb=$(awk '/MemTotal/ { m = int($2 / 1048576 / 4); if (m > 16) m = 16; if (m < 1) m = 1; print m }' /proc/meminfo)
gs_cluster_start "shared_preload_libraries = 'gpusort'" "jit = off" "shared_buffers = '${sb}GB'" \
	"max_wal_size = '8GB'" || exit 1
gs_as_pg psql -X -q -v ON_ERROR_STOP=1 \
	-c "CREATE DATABASE randdiff LOCALE 'en_US.UTF-8' TEMPLATE template0" || exit 1
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "commit: $(git -C "$GS_ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$GS_ROOT" diff --quiet HEAD -- src 2>/dev/null || echo ' (src modified)')"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($(nproc) cores)"
	nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
	echo "postgres: $(pg_config --version), shared_buffers ${sb}GB"
	echo "randdiff: $queries queries, $rows rows, args: ${args[*]:-}"
} | tee "$OUT/device.txt"

PGDATABASE=randdiff "$GS_PY" "$GS_ROOT/test/sort/randdiff.py" --timing --queries "$queries" --rows "$rows" \
	--timeout 60 --report "$OUT/randdiff.md.tmp" --csv "$OUT/randdiff.csv" --max-print 50 "${args[@]}"
rc=$?
{ sed 's/^/    /' "$OUT/device.txt"; echo; cat "$OUT/randdiff.md.tmp"; } >"$OUT/randdiff.md" 2>/dev/null
rm -f "$OUT/randdiff.md.tmp"
echo "report: $OUT/randdiff.md"
exit $rc
