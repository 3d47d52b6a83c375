#!/usr/bin/env bash
# Stock PostgreSQL Sort against GpuSort, side by side, on one table of
# --rows rows (default 10^7): int8, float8, text in the C collation, and two
# columns, each as  SELECT * FROM t ORDER BY ... OFFSET <rows>  (every row is
# sorted, none is sent to the client), plus the same query without ORDER BY
# (the floor: reading the rows).  Prints one table of the best of --repeat
# runs, in milliseconds.
#
#   bench/sort.sh [--rows N] [--devices "stock cpu gpu"] [--repeat R]
#                 [--queries "int8 float8 text two"] [--no-build]
#
# devices: stock       gpusort.enabled = off (PostgreSQL's Sort, default work_mem)
#          stock-wm    the same with work_mem = 4GB (in-memory quicksort)
#          cpu         GpuSort, gpusort.device = cpu
#          gpu         GpuSort, gpusort.device = gpu
# It builds and installs the extension (unless --no-build), starts a
# throwaway cluster (test/lib.sh), and removes it at the end.  On the GPU
# machine, source .device/pg-on-device.sh first (see ../shared/device).
set -uo pipefail
. "$(dirname "$0")/../test/lib.sh"

rows=10000000
devices="stock cpu"
repeat=3
queries="int8 float8 text two"
build=1
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) rows=$2; shift 2 ;;
		--devices) devices=$2; shift 2 ;;
		--repeat) repeat=$2; shift 2 ;;
		--queries) queries=$2; shift 2 ;;
		--no-build) build=0; shift ;;
		-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done

if [ "$build" = 1 ]; then
	gs_build_install >/dev/null || { echo "build failed" >&2; exit 1; }
fi
gs_cluster_start "shared_preload_libraries = 'gpusort'" "jit = off" \
	"shared_buffers = '1GB'" "max_wal_size = '4GB'" || exit 1

psql_q() { gs_as_pg psql -X -q -v ON_ERROR_STOP=1 "$@"; }

echo "creating $rows rows ..."
psql_q -c "CREATE EXTENSION gpusort" && gs_bench_table "$rows" || exit 1


settings() {
	case "$1" in
		stock) echo "SET gpusort.enabled = off;" ;;
		stock-wm) echo "SET gpusort.enabled = off; SET work_mem = '4GB';" ;;
		cpu) echo "SET gpusort.device = cpu; SET gpusort.min_rows = 0;" ;;
		gpu) echo "SET gpusort.device = gpu; SET gpusort.min_rows = 0;" ;;
		*) echo "unknown device $1" >&2; exit 2 ;;
	esac
}

# best time in ms of $repeat runs of query $2 on device $1
run_one() {
	local dev=$1 q=$2 ob sql best="" t
	ob=$(gs_bench_order_by "$q")
	sql="SELECT * FROM bench${ob:+ ORDER BY $ob} OFFSET $rows"
	for _ in $(seq "$repeat"); do
		t=$( { echo "$(settings "$dev")"; echo '\timing on'; echo "$sql;"; } |
			psql_q 2>&1 | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
		[ -n "$t" ] || { echo "ERR"; return; }
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
	done
	printf "%.0f" "$best"
}

host=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo
echo "gpusort sort benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), rows = $rows, best of $repeat"
echo "host: $host, $(nproc) cores${gpu:+, GPU: $gpu}"
echo "query: SELECT * FROM bench ORDER BY <key> OFFSET $rows"
printf "%-8s" "key"
for d in $devices; do printf " %10s" "$d ms"; done
first=${devices%% *}
for d in $devices; do [ "$d" = "$first" ] || printf " %12s" "$first/$d"; done
echo
for q in $queries floor; do
	printf "%-8s" "$q"
	declare -A ms=()
	for d in $devices; do
		ms[$d]=$(run_one "$d" "$q")
		printf " %10s" "${ms[$d]}"
	done
	for d in $devices; do
		[ "$d" = "$first" ] && continue
		awk -v a="${ms[$first]}" -v b="${ms[$d]}" 'BEGIN{ if (b > 0) printf " %11.2fx", a / b; else printf " %12s", "-" }'
	done
	echo
	unset ms
done
echo "(floor: the same query without ORDER BY)"
