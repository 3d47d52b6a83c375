#!/usr/bin/env bash
# Every bench/ script of the CPU path, two builds side by side (issue 40:
# "the speed of every bench/ script is within noise of before, measured side
# by side, old tree against new").  bench/ab.sh alternates single queries;
# this runs each whole script, at a size a 2-core machine runs in minutes,
# once with build A and once with build B, the order alternating from one
# script to the next (A B, B A, ...), and compares the two runs' times cell
# by cell: gpusort's cells say whether B is slower, stock's (the same
# PostgreSQL in both runs) how much the machine's noise alone moves a cell.
#
#   bench/ab_scripts.sh [--scripts "sort keys ..."] REV_A REV_B
#
# REV_A, REV_B: git revisions ("WORKTREE": the working tree).  Each is
# exported to a scratch folder with its own bench/ scripts, built without
# CUDA (NVCC= : the scripts' cells of the CPU engine) and installed into a
# private server copy of its own (GS_PRIVATE_PG, test/lib.sh), where each
# script builds (a no-op) and installs it again, starts its own throwaway
# cluster and writes its CSV.  The scripts and their sizes:
#   sort          bench/sort/sort.sh --rows 1000000 (stock tuned, GpuSort CPU)
#   keys          bench/sort/keys.sh 300000
#   window_money  bench/sort/window_money.sh 300000
#   aggs          bench/sort/aggs.sh --reps 2 300000
#   spill         bench/sort/spill.sh 1000000 16MB
#   first_runs    bench/sort/first_runs.sh 300000
#   tpch          bench/tpch/run.sh 0.2
#   randdiff      bench/sort/randdiff.sh --rows 20000 --queries 150 (timed)
# Scripts of the GPU (kernels.sh, e2e_gpu.sh, tree_gpu.sh), of many
# sessions (load.sh, concurrency.sh: pgbench for minutes) and outside
# PostgreSQL (fault_in.sh) are not run here.
#
# Writes $OUT/ab_scripts.md (default bench/out/ab_scripts/): per script,
# each cell's A and B times (ms, the scripts' own best-of-runs) and A/B
# (above 1: B faster), the geometric mean of A/B over gpusort's cells and
# over stock's, and the spread of stock's, which is the noise.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

scripts="sort keys window_money aggs spill first_runs tpch randdiff"
while [ $# -gt 2 ]; do
	case "$1" in
		--scripts) scripts=$2; shift 2 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
[ $# -eq 2 ] || { sed -n '2,33p' "$0"; exit 2; }
OUT=${OUT:-$ROOT/bench/out/ab_scripts}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
scratch=$(mktemp -d /tmp/gpusort-abs.XXXXXX)
chmod 755 "$scratch"

# export REV into $scratch/NAME/src and build it there (CPU only)
export_rev() {
	local rev=$1 dir=$scratch/$2/src
	mkdir -p "$dir"
	if [ "$rev" = WORKTREE ]; then
		(cd "$ROOT" && git ls-files -co --exclude-standard | tar cf - -T -) | tar xf - -C "$dir"
	else
		git -C "$ROOT" archive "$rev" | tar xf - -C "$dir" || return 1
	fi
	chmod -R a+rX "$scratch/$2"
	(cd "$dir" && export NVCC= GS_PRIVATE_PG=$scratch/$2/pg && . test/lib.sh && gs_build_install) \
		>"$scratch/$2/build.log" 2>&1 || { tail -20 "$scratch/$2/build.log" >&2; return 1; }
}

# the command line of a script, relative to a tree
command_of() {
	case "$1" in
		sort) echo "bench/sort/sort.sh --rows 1000000 --modes 'stock_tuned gpusort_cpu' --out \$O" ;;
		keys) echo "OUT=\$O bench/sort/keys.sh 300000" ;;
		window_money) echo "OUT=\$O bench/sort/window_money.sh 300000" ;;
		aggs) echo "bench/sort/aggs.sh --reps 2 --out \$O 300000" ;;
		spill) echo "OUT=\$O bench/sort/spill.sh 1000000 16MB" ;;
		first_runs) echo "OUT=\$O bench/sort/first_runs.sh 300000" ;;
		tpch) echo "OUT=\$O bench/tpch/run.sh 0.2" ;;
		randdiff) echo "OUT=\$O bench/sort/randdiff.sh --rows 20000 --queries 150 --timing" ;;
		*) return 1 ;;
	esac
}

# run SCRIPT with build NAME into $OUT/NAME/SCRIPT
run_one() {
	local s=$1 name=$2 cmd
	cmd=$(command_of "$s") || { echo "unknown script $s" >&2; return 1; }
	mkdir -p "$OUT/$name/$s"
	echo "[$(date -u +%H:%M:%S)] $s with $name"
	(cd "$scratch/$name/src" && export NVCC= GS_PRIVATE_PG=$scratch/$name/pg O=$OUT/$name/$s &&
		eval "$cmd") >"$OUT/$name/$s/run.log" 2>&1 ||
		echo "  $s with $name exited $? (see $OUT/$name/$s/run.log)"
}

export_rev "$1" A || exit 1
export_rev "$2" B || exit 1
i=0
for s in $scripts; do
	if [ $((i % 2)) -eq 0 ]; then run_one "$s" A; run_one "$s" B
	else run_one "$s" B; run_one "$s" A; fi
	i=$((i + 1))
done

{
	echo "# bench/ scripts, build A against build B ($(date -u '+%Y-%m-%d %H:%M UTC'))"
	echo
	echo "A = $1 ($(git -C "$ROOT" rev-parse --short "$1" 2>/dev/null || echo "$1")), B = $2 ($(git -C "$ROOT" rev-parse --short "$2" 2>/dev/null || echo "$2")); host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
	echo "Each script run once per build, the order alternating; times are each script's own (ms). A/B above 1: B took less time."
	echo
	python3 "$ROOT/bench/ab_scripts_compare.py" "$OUT/A" "$OUT/B" $scripts
} | tee "$OUT/ab_scripts.md"
rm -rf "$scratch"
