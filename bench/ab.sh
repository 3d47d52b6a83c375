#!/usr/bin/env bash
# Two builds of gpusort side by side: the same queries, alternating fresh
# sessions between build A and build B on one table (A B, B A, A B, ...), so
# that both see the same machine at the same time (the only fair way on a
# shared, noisy machine).  Prints every run and the medians, in ms.
#
#   bench/ab.sh [--rows N] [--runs R] [--queries "int8 float8 text two"]
#               [--device cpu|gpu] REV_A REV_B
#
# REV_A and REV_B are git revisions of this repository ("WORKTREE" means
# the working tree as it is).  Each is built in a scratch directory, loaded
# per session with LOAD (nothing is installed, and the library must not be
# in shared_preload_libraries), and runs
#   SELECT * FROM bench ORDER BY <key> OFFSET <rows>
# (keys int8, float8, text, text_icu, int4_int8, two), or, for the queries
# window and agg, a GpuWindow (a running sum over 1000 partitions) and a
# GpuAgg (a median and a distinct count in each of 1000 groups), with
# gpusort.device = --device (default cpu: the builds are then made
# without nvcc, which is faster; gpu builds them with it).  The table is
# bench/sort/sort.sh's.  Uses a throwaway cluster (test/lib.sh).
set -uo pipefail
. "$(dirname "$0")/../test/lib.sh"

rows=5000000
runs=7
queries="int8 float8 text two"
device=cpu
while [ $# -gt 2 ]; do
	case "$1" in
		--rows) rows=$2; shift 2 ;;
		--runs) runs=$2; shift 2 ;;
		--queries) queries=$2; shift 2 ;;
		--device) device=$2; shift 2 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
[ $# -eq 2 ] || { sed -n '2,17p' "$0"; exit 2; }
case "$device" in cpu|gpu) ;; *) echo "--device is cpu or gpu" >&2; exit 2 ;; esac

scratch=$(mktemp -d /tmp/gpusort-ab.XXXXXX)
chmod 755 "$scratch"
trap 'gs_cluster_stop; rm -rf "$scratch"' EXIT

# build REV into $scratch/NAME; prints the library's path
build() {
	local rev=$1 dir=$scratch/$2 nvcc=()
	mkdir -p "$dir"
	if [ "$rev" = WORKTREE ]; then
		(cd "$GS_ROOT" && git ls-files -co --exclude-standard | tar cf - -T -) | tar xf - -C "$dir"
	else
		git -C "$GS_ROOT" archive "$rev" | tar xf - -C "$dir" || return 1
	fi
	[ "$device" = cpu ] && nvcc=(NVCC=)
	make -C "$dir" -s -j"$(nproc)" "${nvcc[@]}" PG_CONFIG="$(command -v pg_config)" \
		>"$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; return 1; }
	chmod -R a+rX "$dir"
	echo "$dir/gpusort.so"
}

lib_a=$(build "$1" a) || exit 1
lib_b=$(build "$2" b) || exit 1
gs_cluster_start "jit = off" "shared_buffers = '1GB'" "max_wal_size = '4GB'" || exit 1

psql_q() { gs_as_pg psql -X -q -v ON_ERROR_STOP=1 "$@"; }

echo "creating $rows rows ..."
gs_bench_table "$rows" || exit 1


# ms of query $2 in a fresh session with library $1
run_one() {
	{
		echo "LOAD '$1';"
		echo "SET gpusort.device = $device; SET gpusort.min_rows = 0;"
		echo "SET max_parallel_workers_per_gather = 0;"
		echo '\timing on'
		case "$2" in
			window) echo "SELECT * FROM (SELECT i8, sum(f8) OVER (PARTITION BY a ORDER BY i8) FROM bench) s OFFSET $rows;" ;;
			agg) echo "SELECT a, percentile_cont(0.5) WITHIN GROUP (ORDER BY f8), count(DISTINCT t) FROM bench GROUP BY a OFFSET $rows;" ;;
			*) echo "SELECT * FROM bench ORDER BY $(gs_bench_order_by "$2") OFFSET $rows;" ;;
		esac
	} | psql_q 2>&1 | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo
echo "gpusort A/B, $(date -u '+%Y-%m-%d %H:%M UTC'), rows = $rows, $runs runs each, alternating, device = $device"
echo "host: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores"
echo "A = $1 ($(git -C "$GS_ROOT" rev-parse --short "$1" 2>/dev/null || echo worktree))," \
	"B = $2 ($(git -C "$GS_ROOT" rev-parse --short "$2" 2>/dev/null || echo worktree))"
printf "%-8s %10s %10s %8s   runs (A/B, ms)\n" key "A median" "B median" "A/B"
for q in $queries; do
	a=() b=() pairs=""
	run_one "$lib_a" "$q" >/dev/null			# warm the table's pages once
	for i in $(seq "$runs"); do
		# ABBA: the one that runs second pays for the first one's freed
		# memory, so neither always goes first
		if [ $((i % 2)) = 1 ]; then
			ta=$(run_one "$lib_a" "$q"); tb=$(run_one "$lib_b" "$q")
		else
			tb=$(run_one "$lib_b" "$q"); ta=$(run_one "$lib_a" "$q")
		fi
		[ -n "$ta" ] && [ -n "$tb" ] || { echo "$q: a query failed" >&2; exit 1; }
		a+=("$ta"); b+=("$tb"); pairs="$pairs $(printf '%.0f/%.0f' "$ta" "$tb")"
	done
	ma=$(printf '%s\n' "${a[@]}" | median); mb=$(printf '%s\n' "${b[@]}" | median)
	printf "%-8s %10.0f %10.0f %7.2fx  %s\n" "$q" "$ma" "$mb" \
		"$(awk -v a="$ma" -v b="$mb" 'BEGIN{print a / b}')" "$pairs"
done
