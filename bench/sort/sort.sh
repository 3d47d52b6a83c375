#!/usr/bin/env bash
# Stock PostgreSQL's Sort against GpuSort's CPU engine, side by side, on one
# table of --rows rows (default 10^7): bench/sort/e2e_gpu.sh's modes and keys on
# a machine without a GPU.  Times
#   SELECT * FROM bench ORDER BY <key> OFFSET <rows>
# (every row is sorted, none is sent to the client) for the keys int8,
# float8, text (C collation), text_icu (ICU's root collation "und-x-icu";
# left out when the server has no ICU), int4_int8, and optionally two
# (int4, text), in the modes (see bench/sort/e2e_lib.sh)
#   floor          the same query without ORDER BY, one process
#   stock_default  gpusort.enabled = off, PostgreSQL's defaults (work_mem
#                  4MB, max_parallel_workers_per_gather 2)
#   stock_tuned    gpusort.enabled = off, max_parallel_workers_per_gather = P,
#                  work_mem = 1GB, parallel_tuple_cost = 0.01 (else the planner
#                  sorts in one process once work_mem holds the rows);
#                  P = min(8, cores / 2) (--workers)
#   stock_1proc    the same with no workers
#   gpusort_cpu    gpusort.device = cpu, the settings of stock_tuned
#   (also gpusort_gpu, gpusort_cpu_1proc, gpusort_gpu_1proc)
# each (mode, key) in a fresh session after a warm-up sort, the best of
# --repeat runs.  Prints progress lines, then the Markdown table (also in
# --out, with the CSV, the plans and the EXPLAIN ANALYZE of the GpuSort
# queries; bench/sort/plot_e2e.py --png draws the CSV).
#
#   bench/sort/sort.sh [--rows N] [--modes "floor stock_default ..."] [--repeat R]
#                 [--queries "int8 float8 text text_icu int4_int8 two"]
#                 [--workers P] [--timeout S] [--out DIR] [--no-build]
#
# --devices "stock cpu gpu stock-wm" (the old names) still works: stock is
# stock_default, cpu gpusort_cpu, gpu gpusort_gpu, stock-wm stock_1proc.
# It builds and installs the extension (unless --no-build), starts a
# throwaway cluster (test/lib.sh) with gpusort preloaded, and removes it at
# the end.
set -uo pipefail
. "$(dirname "$0")/../../test/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"

rows=10000000
modes="floor stock_default stock_tuned stock_1proc gpusort_cpu"
repeat=3
queries="int8 float8 text int4_int8 text_icu"
build=1
ncores=$(nproc)
BENCH_P=$((ncores / 2 < 8 ? ncores / 2 : 8))
BENCH_TIMEOUT=600
BENCH_WORK_MEM=1GB
BENCH_TUNED_SET=${GS_BENCH_TUNED_SET-$BENCH_TUNED_SET}
OUT=$GS_ROOT/bench/out/sort
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) rows=$2; shift 2 ;;
		--modes) modes=$2; shift 2 ;;
		--devices) modes="floor $(echo " $2 " | sed 's/ stock / stock_default /g; s/ stock-wm / stock_1proc /g;
			s/ cpu / gpusort_cpu /g; s/ gpu / gpusort_gpu /g; s/ cpu / gpusort_cpu /g; s/ gpu / gpusort_gpu /g')"
			shift 2 ;;
		--repeat) repeat=$2; shift 2 ;;
		--queries) queries=$2; shift 2 ;;
		--workers) BENCH_P=$2; shift 2 ;;
		--timeout) BENCH_TIMEOUT=$2; shift 2 ;;
		--out) OUT=$2; shift 2 ;;
		--no-build) build=0; shift ;;
		-h|--help) sed -n '2,32p' "$0"; exit 0 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
[ "$BENCH_P" -lt 1 ] && BENCH_P=1
for m in $modes; do bench_mode_settings "$m" >/dev/null || exit 2; done
for q in $queries; do gs_bench_order_by "$q" >/dev/null || exit 2; done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/e2e.csv" "$OUT/e2e.md" "$OUT"/plans_*.txt "$OUT"/explain_*.txt "$OUT/logs"
: >"$OUT/e2e.log"
BENCH_T0=$(date +%s)
BENCH_DEADLINE=0
BENCH_REPS=$repeat
BENCH_TABLE=bench
BENCH_ORDER_BY=gs_bench_order_by
BENCH_EXPLAIN_MODES="gpusort_cpu gpusort_gpu"
BENCH_EXPLAIN_QUERIES=$queries
BENCH_DEVICE_FILE=$OUT/device.txt

if [ "$build" = 1 ]; then
	gs_build_install >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; echo "build failed" >&2; exit 1; }
fi
mem_mb=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
sb_mb=$((mem_mb / 4)); [ $sb_mb -gt 16384 ] && sb_mb=16384
gs_cluster_start "shared_preload_libraries = 'gpusort'" "jit = off" \
	"shared_buffers = '${sb_mb}MB'" "max_wal_size = '4GB'" \
	"max_worker_processes = $((BENCH_P + 8 > 16 ? BENCH_P + 8 : 16))" \
	"max_parallel_workers = $((BENCH_P > 8 ? BENCH_P : 8))" "gpusort.max_memory = '64GB'" || exit 1

BENCH_PAR_GUC=""
# gpusort.parallel of the GpuSort modes: GS_BENCH_PARALLEL, default auto (what
# a user gets: on this machine's core count, the serial or the parallel node)
[ -n "$(bench_psql -At -c "SHOW gpusort.parallel" 2>/dev/null)" ] && BENCH_PAR_GUC=${GS_BENCH_PARALLEL:-auto}
if [ "$(bench_psql -At -c "SELECT count(*) FROM pg_collation WHERE collname = 'und-x-icu'")" != 1 ]; then
	case " $queries " in *" text_icu "*)
		echo "note: no ICU in this server: text_icu left out" | tee -a "$OUT/e2e.log"
		queries=$(echo " $queries " | sed 's/ text_icu / /; s/^ *//; s/ *$//') ;;
	esac
fi
{
	bench_device_lines
	echo "settings: P = $BENCH_P (max_parallel_workers_per_gather of stock_tuned and GpuSort, and the table's parallel_workers), work_mem $BENCH_WORK_MEM, ${BENCH_TUNED_SET:-(no more SETs)}, shared_buffers ${sb_mb}MB, jit off, gpusort preloaded, gpusort.parallel: ${BENCH_PAR_GUC:-(no such setting)}"
	echo "runs: best of $repeat, statement_timeout ${BENCH_TIMEOUT}s; modes: $modes; keys: $queries"
} >"$OUT/device.txt"
cat "$OUT/device.txt"
echo "rows,query,mode,ms" >"$OUT/e2e.csv"

bench_log "creating $rows rows ..."
t0=$(date +%s)
bench_psql -v ON_ERROR_STOP=1 -c "CREATE EXTENSION gpusort" && gs_bench_table "$rows" || exit 1
bench_prepare_table || exit 1
bench_log "loaded in $(($(date +%s) - t0)) s ($ncores sessions); bench is $(bench_psql -At -c "SELECT pg_size_pretty(pg_table_size('bench'))")"

for mode in $modes; do
	if [ "$mode" = floor ]; then
		bench_cell "$rows" floor all
	else
		for q in $queries; do bench_cell "$rows" "$mode" "$q"; done
	fi
done
gs_cluster_stop
bench_md
echo
cat "$OUT/e2e.md"
