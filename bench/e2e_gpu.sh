#!/usr/bin/env bash
# End-to-end sort benchmark: stock PostgreSQL against GpuSort on the CPU and
# on the GPU, on the same tables, in one run.
#
#   bench/e2e_gpu.sh [ROWS...]          default: 10000000 50000000
#
# For each size it builds one table t (int8, float8, text and int4 columns,
# pseudo-random, unlogged, vacuumed and cached in shared_buffers) and times
#   SELECT * FROM t ORDER BY <key> OFFSET <rows>
# for the keys int8, float8, text (C collation) and (int4, int8): every row
# is sorted, none is sent to the client.  The floor is the same query with
# no ORDER BY.  Modes:
#   stock       gpusort.enabled = off, default work_mem (4MB)
#   stock_4GB   the same with work_mem = 4GB (first size only)
#   cpu         GpuSort, gpusort.device = cpu
#   gpu         GpuSort, gpusort.device = gpu
# Each mode runs in one session, after a warm-up sort, so the GPU's first
# use in a session is not in the figures (test/gpu/engine_gpu.sh measures
# it); parallel query is off, so every mode sorts in one process.  The best
# of GS_BENCH_REPS runs (default 2; 1 for sizes over 2*10^7) is kept.
# GS_BENCH_MODES and GS_BENCH_QUERIES (int8 float8 text int4_int8) pick
# a subset.
#
# Output ($OUT, default bench/out/): e2e.csv (rows,query,mode,ms), the
# EXPLAIN ANALYZE of each GpuSort-gpu query (explain_gpu_ROWS.txt), the
# device description.  bench/plot_e2e.py turns the CSV into a PNG.
#
# Builds and installs the tree first (GS_BENCH_NO_BUILD=1: uses what is
# installed), and starts a throwaway cluster (see test/lib.sh); on the GPU
# machine, source the PostgreSQL bundle first:
#   . .device/pg-on-device.sh .device/pg15.tar.gz; bench/e2e_gpu.sh
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$SRC/bench/out}
mkdir -p "$OUT"
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(10000000 50000000)
MODES=${GS_BENCH_MODES:-"stock stock_4GB cpu gpu"}

if ! command -v pg_config >/dev/null && [ -f "$SRC/.device/pg15.tar.gz" ]; then
	. "$SRC/.device/pg-on-device.sh" "$SRC/.device/pg15.tar.gz"
fi

# The PostgreSQL bundle may lack the ICU headers that PostgreSQL's
# pg_locale.h includes; .device/icu-include.tar.gz (usr/include/unicode of
# the machine that made the bundle) supplies them.
if ! echo '#include <unicode/ucol.h>' | cpp -x c - >/dev/null 2>&1 &&
	[ -f "$SRC/.device/icu-include.tar.gz" ]; then
	tar -C / -xzf "$SRC/.device/icu-include.tar.gz"
fi

# build in a copy the cluster's owner can read
W=$(mktemp -d /tmp/gpusort-bench.XXXXXX)
tar -C "$SRC" --exclude=./.git --exclude=./.device --exclude=./bench/out \
	--exclude='*.o' --exclude='*.so' -cf - . | tar -C "$W" -xf -
chmod -R a+rX "$W"
cd "$W" || exit 1
. test/lib.sh

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "commit: $(git -C "$SRC" rev-parse HEAD 2>/dev/null || echo unknown)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) cores)"
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
	echo "postgres: $(pg_config --version)"
} | tee "$OUT/device.txt"

if [ -z "${GS_BENCH_NO_BUILD:-}" ]; then
	gs_build_install >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
mem_mb=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
sb_mb=$((mem_mb / 4)); [ $sb_mb -gt 16384 ] && sb_mb=16384
gs_cluster_start "shared_buffers = '${sb_mb}MB'" "max_parallel_workers_per_gather = 0" \
	"gpusort.max_memory = '64GB'" "max_wal_size = '16GB'" || exit 1
psql -X -q -c "LOAD 'gpusort'" || { echo "gpusort is not installed"; exit 1; }

KEYS=()
for kq in "int8:k8" "float8:kf" "text:kt COLLATE \"C\"" "int4_int8:g, k8"; do
	case " ${GS_BENCH_QUERIES:-int8 float8 text int4_int8} " in
		*" ${kq%%:*} "*) KEYS+=("$kq") ;;
	esac
done
echo "rows,query,mode,ms" >"$OUT/e2e.csv"

make_table() {					# make_table ROWS: loads t with 8 sessions at once
	local n=$1 parts=8 i
	psql -X -q -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null 2>&1
	psql -X -q -c "DROP TABLE IF EXISTS t" \
		-c "CREATE UNLOGGED TABLE t (k8 int8, kf float8, kt text, g int4)"
	for ((i = 0; i < parts; i++)); do
		psql -X -q -c "INSERT INTO t
			SELECT hashint8(i) % 1000000000, hashint8(i * 3) / 1e9::float8,
			       md5(i::text), (hashint8(i * 5) % 100)::int4
			FROM generate_series($((i * n / parts + 1)), $(((i + 1) * n / parts))) i" &
	done
	wait
	psql -X -q -c "VACUUM (FREEZE, ANALYZE) t"
	# into shared_buffers (a scan when pg_prewarm is missing)
	psql -X -q -c "SELECT pg_prewarm('t')" >/dev/null 2>&1 ||
		psql -X -q -c "SELECT count(*) FROM t" >/dev/null
}

# mode_settings MODE: the SET lines of a mode
mode_settings() {
	case $1 in
		stock) echo "SET gpusort.enabled = off;" ;;
		stock_4GB) echo "SET gpusort.enabled = off; SET work_mem = '4GB';" ;;
		cpu) echo "SET gpusort.device = cpu; SET gpusort.min_rows = 0;" ;;
		gpu) echo "SET gpusort.device = gpu; SET gpusort.min_rows = 0;" ;;
	esac
}

for n in "${SIZES[@]}"; do
	echo "== $n rows: loading"
	t0=$(date +%s)
	make_table "$n"
	echo "   loaded in $(($(date +%s) - t0)) s"
	reps=${GS_BENCH_REPS:-2}; [ "$n" -gt 20000000 ] && reps=${GS_BENCH_REPS:-1}

	for mode in floor $MODES; do
		[ "$mode" = stock_4GB ] && [ "$n" != "${SIZES[0]}" ] && continue
		script=$(mktemp)
		{
			echo "LOAD 'gpusort';"
			echo "SET statement_timeout = '300s';"
			[ "$mode" != floor ] && mode_settings "$mode"
			# warm-up: starts CUDA in this session, faults the code in
			echo "SELECT count(*) FROM (SELECT * FROM (SELECT * FROM t LIMIT 200000) s ORDER BY k8 OFFSET 0) x;"
			echo "\\timing on"
			if [ "$mode" = floor ]; then
				for ((r = 0; r < reps; r++)); do
					echo "\\echo @@ all"
					echo "SELECT * FROM t OFFSET $n;"
				done
			else
				for kq in "${KEYS[@]}"; do
					for ((r = 0; r < reps; r++)); do
						echo "\\echo @@ ${kq%%:*}"
						echo "SELECT * FROM t ORDER BY ${kq#*:} OFFSET $n;"
					done
				done
			fi
		} >"$script"
		echo "   $mode"
		psql -X -q -f "$script" >"$OUT/run_${n}_$mode.log" 2>&1
		# pair each "@@ query" line with the next "Time:" line; keep the best
		awk -v n="$n" -v mode="$mode" '
			/^@@ / { q = $2; next }
			/^Time: / && q != "" { ms = $2 + 0; if (!(q in best) || ms < best[q]) best[q] = ms; order[q] = 1; q = "" }
			/ERROR/ { print "   " $0 > "/dev/stderr" }
			END { for (q in best) printf "%s,%s,%s,%.1f\n", n, q, mode, best[q] }' \
			"$OUT/run_${n}_$mode.log" | sort | tee -a "$OUT/e2e.csv"
		rm -f "$script"
	done

	# what the GPU engine did, per query
	{
		echo "LOAD 'gpusort'; SET gpusort.device = gpu; SET gpusort.min_rows = 0;"
		echo "SELECT count(*) FROM (SELECT * FROM (SELECT * FROM t LIMIT 200000) s ORDER BY k8 OFFSET 0) x;"
		for kq in "${KEYS[@]}"; do
			echo "EXPLAIN (ANALYZE, COSTS OFF) SELECT * FROM t ORDER BY ${kq#*:} OFFSET $n;"
		done
	} | psql -X -q >"$OUT/explain_gpu_$n.txt" 2>&1
	psql -X -q -c "DROP TABLE t"
done

gs_cluster_stop
echo "results: $OUT/e2e.csv"
