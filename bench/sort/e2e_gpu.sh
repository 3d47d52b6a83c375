#!/usr/bin/env bash
# End-to-end sort benchmark: stock PostgreSQL (at its defaults, tuned, and in
# one process) against GpuSort on the CPU and on the GPU, on the same table,
# in one run.
#
#   bench/sort/e2e_gpu.sh [ROWS...]     default: 10000000 (one size a call
#                                       fits the device's 600 s; see below)
#
# For each size it loads one table t (k8 int8, kf float8, kt text, g int4:
# pseudo-random and deterministic, unlogged, loaded by parallel sessions,
# vacuumed and cached in shared_buffers) and times
#   SELECT * FROM t ORDER BY <key> OFFSET <rows>
# (every row is sorted, none is sent to the client) for the keys
#   int8 (k8), float8 (kf), text (kt COLLATE "C"),
#   text_icu (kt COLLATE "und-x-icu"; left out, with a note, when the server
#   has no ICU), int4_int8 (g, k8), text_default (kt under the database's
#   default collation: GS_CLUSTER_LOCALE, C.UTF-8 unless set), numeric (kn),
#   interval (ki)
# and, for GS_BENCH_QUERIES that name them, the other shapes users run:
#   limit (ORDER BY kt LIMIT 100), ctas (CREATE TABLE AS ... ORDER BY kt),
#   copy (COPY (... ORDER BY kt) TO '/dev/null'), window_rank (rank() OVER
#   (ORDER BY kf DESC)), window_sum (sum(k8) OVER (PARTITION BY g ORDER BY
#   kt)), window_top3 (row_number() OVER (PARTITION BY g ORDER BY kf) <= 3),
#   window_rownum (row_number() OVER (PARTITION BY g ORDER BY kt)),
#   window_sum_int (sum(k8) OVER (PARTITION BY g ORDER BY k8)), window_lag
#   (lag(k8) OVER (ORDER BY k8)), window_multi (row_number(), rank() and
#   sum(k8) OVER (PARTITION BY g ORDER BY kf)), percentile (percentile_cont(0.5)
#   WITHIN GROUP (ORDER BY kf) ... GROUP BY g); each sends one row: an outer
#   aggregate reads every row's window value (max, or bit_xor of the value
#   times the row's k8, which also depends on which row got which value)
# in the modes of bench/sort/e2e_lib.sh:
#   floor          the same query without ORDER BY, one process
#   stock_default  gpusort.enabled = off, PostgreSQL's defaults (work_mem
#                  4MB, max_parallel_workers_per_gather 2)
#   stock_tuned    gpusort.enabled = off, max_parallel_workers_per_gather = P,
#                  work_mem = 1GB, parallel_tuple_cost = 0.01 (GS_BENCH_TUNED_SET:
#                  without it the planner sorts 10^7 int8 rows in one
#                  process once work_mem holds them)
#   stock_1proc    gpusort.enabled = off, work_mem = 1GB, no workers
#   gpusort_cpu    gpusort.device = cpu, the settings of stock_tuned
#   gpusort_gpu    gpusort.device = gpu, the same
#   gpusort_auto   gpusort at its defaults, the settings of stock_tuned
#   (also gpusort_cpu_1proc, gpusort_gpu_1proc: GpuSort with no workers)
# P = min(8, cores / 2) (GS_BENCH_WORKERS), also set as the table's
# parallel_workers so that the planner uses all P.  Each (mode, key) runs in
# a fresh session after a warm-up sort (CUDA's first use in a session is not
# in the figures); the best of GS_BENCH_REPS runs (default 2; 1 for sizes
# over 2*10^7) is kept.
#
# Time: the whole call keeps inside GS_BENCH_BUDGET seconds (default 540,
# counted from its start, the build and the load included; 0: no limit):
# every query's statement_timeout is the smaller of GS_BENCH_TIMEOUT
# (default 120 s; such a cell says ">120 s") and what is left, and cells
# that find the budget spent are skipped.  Modes run in the order of
# GS_BENCH_MODES (default: floor gpusort_gpu gpusort_cpu stock_tuned
# stock_default stock_1proc), keys in the order of GS_BENCH_QUERIES
# (default: int8 float8 text int4_int8 text_icu), so what matters most comes
# first; a size that does not fit is split over calls by mode, and
# bench/sort/plot_e2e.py merges their CSVs.  GS_BENCH_QUERIES_<mode> (e.g.
# GS_BENCH_QUERIES_stock_1proc="int8 text") runs fewer keys in one mode.
#
# Other settings: GS_BENCH_WORK_MEM (1GB), GS_BENCH_LOAD_JOBS (sessions that
# load the table: cores, at most 16), GS_BENCH_TABLE_WORKERS (the table's
# parallel_workers, default P; 0: the planner's choice), GS_BENCH_PARALLEL
# (on: gpusort.parallel's value in the GpuSort modes, set only where the
# setting exists), GS_BENCH_EXPLAIN_MODES (gpusort_cpu gpusort_gpu) and
# GS_BENCH_EXPLAIN_QUERIES (all keys; int8 and text over 2*10^7 rows): the
# cells whose session ends with an EXPLAIN ANALYZE, GS_BENCH_PRELOAD=1
# (shared_preload_libraries instead of LOAD in every session),
# GS_BENCH_SHARED_BUFFERS (a quarter of the memory, at most 16GB),
# GS_BENCH_APPEND=1 (add to the results already in $OUT instead of starting
# afresh).
#
# Output ($OUT, default bench/out/), written as the run goes, so a killed run
# leaves what it measured: e2e.csv (rows,query,mode,ms; ms ">N": ran into a
# timeout of N ms), e2e.md (the table with the device), e2e.log (the
# progress lines), device.txt (date, commit, CPU, GPU, PostgreSQL,
# /dev/shm, the settings), plans_ROWS.txt (the plan of every cell),
# explain_MODE_ROWS.txt (EXPLAIN ANALYZE), logs/ (each session's output),
# build.log, e2e.png if matplotlib is there (else: bench/sort/plot_e2e.py --png
# e2e.png --md e2e.md e2e.csv, anywhere).
#
# Builds and installs the tree first (GS_BENCH_NO_BUILD=1: uses what is
# installed, and still builds when gpusort is not installed), and starts a
# throwaway cluster (see test/lib.sh); on the GPU machine the PostgreSQL
# bundle in .device/ is used when there is no pg_config.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$SRC/bench/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BENCH_T0=$(date +%s)
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(10000000)
MODES=${GS_BENCH_MODES:-"floor gpusort_gpu gpusort_cpu stock_tuned stock_default stock_1proc"}
QUERIES=${GS_BENCH_QUERIES:-"int8 float8 text int4_int8 text_icu"}
BUDGET=${GS_BENCH_BUDGET:-540}
ncores=$(nproc)
BENCH_P=${GS_BENCH_WORKERS:-$((ncores / 2 < 8 ? ncores / 2 : 8))}
[ "$BENCH_P" -lt 1 ] && BENCH_P=1
BENCH_WORK_MEM=${GS_BENCH_WORK_MEM:-1GB}
BENCH_TIMEOUT=${GS_BENCH_TIMEOUT:-120}
BENCH_EXPLAIN_MODES=${GS_BENCH_EXPLAIN_MODES:-"gpusort_cpu gpusort_gpu"}
BENCH_TUNED_SET=${GS_BENCH_TUNED_SET-"SET parallel_tuple_cost = 0.01;"}
BENCH_DEADLINE=0
[ "$BUDGET" -gt 0 ] && BENCH_DEADLINE=$((BENCH_T0 + BUDGET - 10))
load_jobs=${GS_BENCH_LOAD_JOBS:-$((ncores > 16 ? 16 : ncores))}
BENCH_TABLE=t
BENCH_ORDER_BY=e2e_order_by
BENCH_SRC=$SRC
BENCH_DEVICE_FILE=$OUT/device.txt

. "$SRC/test/gpu/device-pg.sh" "$SRC"

# build in a copy the cluster's owner can read
W=$(mktemp -d /tmp/gpusort-bench.XXXXXX)
tar -C "$SRC" --exclude=./.git --exclude=./.device --exclude=./bench/out \
	--exclude='*.o' --exclude='*.so' -cf - . | tar -C "$W" -xf -
chmod -R a+rX "$W"
cd "$W" || exit 1
. test/lib.sh
. bench/sort/e2e_lib.sh

e2e_order_by() {
	case $1 in
		int8) echo "k8" ;;
		float8) echo "kf" ;;
		text) echo "kt COLLATE \"C\"" ;;
		text_icu) echo "kt COLLATE \"und-x-icu\"" ;;
		int4_int8) echo "g, k8" ;;
		text_default) echo "kt" ;;
		numeric) echo "kn" ;;
		interval) echo "ki" ;;
		*) echo "unknown query $1 (int8 float8 text text_icu int4_int8 text_default numeric interval, or a shape: limit ctas copy window_rank window_sum window_top3 window_rownum window_sum_int window_lag window_multi percentile)" >&2; return 1 ;;
	esac
}
# the whole SQL of a query: ORDER BY ... OFFSET for a key, else the shapes
# users run besides it (text under the database's default collation)
e2e_query() {
	case $1 in
		limit) echo "SELECT * FROM t ORDER BY kt LIMIT 100" ;;
		ctas) echo "DROP TABLE IF EXISTS ctas_out; CREATE UNLOGGED TABLE ctas_out AS SELECT * FROM t ORDER BY kt" ;;
		copy) echo "COPY (SELECT * FROM t ORDER BY kt) TO '/dev/null'" ;;
		window_rank) echo "SELECT max(r) FROM (SELECT rank() OVER (ORDER BY kf DESC) AS r FROM t) s" ;;
		window_sum) echo "SELECT max(s) FROM (SELECT sum(k8) OVER (PARTITION BY g ORDER BY kt) AS s FROM t) q" ;;
		window_top3) echo "SELECT count(*) FROM (SELECT row_number() OVER (PARTITION BY g ORDER BY kf) AS rn FROM t) s WHERE rn <= 3" ;;
		window_rownum) echo "SELECT bit_xor(rn * k8) FROM (SELECT k8, row_number() OVER (PARTITION BY g ORDER BY kt) AS rn FROM t) s" ;;
		window_sum_int) echo "SELECT max(s) FROM (SELECT sum(k8) OVER (PARTITION BY g ORDER BY k8) AS s FROM t) q" ;;
		window_lag) echo "SELECT bit_xor(l * k8) FROM (SELECT k8, lag(k8) OVER (ORDER BY k8) AS l FROM t) s" ;;
		window_multi) echo "SELECT bit_xor(rn * r), max(s) FROM (SELECT row_number() OVER w AS rn, rank() OVER w AS r, sum(k8) OVER w AS s FROM t WINDOW w AS (PARTITION BY g ORDER BY kf)) q" ;;
		percentile) echo "SELECT bit_xor(hashfloat8(p)), max(p) FROM (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY kf) AS p FROM t GROUP BY g) s" ;;
		*) echo "SELECT * FROM t ORDER BY $(e2e_order_by "$1") OFFSET $2" ;;
	esac
}
BENCH_QUERY=e2e_query
for m in $MODES; do bench_mode_settings "$m" >/dev/null || exit 2; done
for q in $QUERIES; do e2e_query "$q" 0 >/dev/null || exit 2; done

# a fresh record (GS_BENCH_APPEND=1: add to the one in $OUT)
if [ "${GS_BENCH_APPEND:-0}" != 1 ]; then
	rm -rf "$OUT/e2e.csv" "$OUT/e2e.md" "$OUT/e2e.png" "$OUT"/plans_*.txt "$OUT"/explain_*.txt "$OUT/logs"
	: >"$OUT/e2e.log"
fi
bench_device_lines | tee "$OUT/device.txt"

installed() { [ -f "$(pg_config --pkglibdir)/gpusort.so" ]; }
if [ -z "${GS_BENCH_NO_BUILD:-}" ] || ! installed; then
	bench_log "building"
	gs_build_install >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
	bench_log "built and installed"
fi

lib=$(pg_config --pkglibdir)/gpusort.so
echo "library: $lib, $(stat -c %s "$lib") bytes, modified $(date -u -r "$lib" '+%Y-%m-%d %H:%M:%S UTC'), md5 $(md5sum <"$lib" | cut -c1-12), $([ -z "${GS_BENCH_NO_BUILD:-}" ] && echo "built by this run" || echo "as installed before this run")" |
	tee -a "$OUT/device.txt"

mem_mb=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
sb_mb=$((mem_mb / 4)); [ $sb_mb -gt 16384 ] && sb_mb=16384
sb=${GS_BENCH_SHARED_BUFFERS:-${sb_mb}MB}
conf=("shared_buffers = '$sb'" "max_worker_processes = $((BENCH_P + 8 > 16 ? BENCH_P + 8 : 16))"
	"max_parallel_workers = $((BENCH_P > 8 ? BENCH_P : 8))" "jit = off"
	"gpusort.max_memory = '64GB'" "max_wal_size = '16GB'")
[ "${GS_BENCH_PRELOAD:-0}" = 1 ] && conf+=("shared_preload_libraries = 'gpusort'")
gs_cluster_start "${conf[@]}" || exit 1
bench_psql -c "LOAD 'gpusort'" || { echo "gpusort is not installed"; exit 1; }

# gpusort.parallel (the parallel GpuSort's switch) where it exists
BENCH_PAR_GUC=""
if [ -n "$(bench_psql -At -c "LOAD 'gpusort'" -c "SHOW gpusort.parallel" 2>/dev/null)" ]; then
	BENCH_PAR_GUC=${GS_BENCH_PARALLEL:-on}
fi
icu_note=""
if [ "$(bench_psql -At -c "SELECT count(*) FROM pg_collation WHERE collname = 'und-x-icu'")" != 1 ]; then
	icu_note="no ICU in this server: text_icu left out"
	QUERIES=$(echo " $QUERIES " | sed 's/ text_icu / /; s/^ *//; s/ *$//')
fi
{
	echo "settings: database locale ${GS_CLUSTER_LOCALE:-C.UTF-8}, P = $BENCH_P (max_parallel_workers_per_gather of stock_tuned and GpuSort, and the table's parallel_workers: ${GS_BENCH_TABLE_WORKERS:-$BENCH_P}), work_mem $BENCH_WORK_MEM, ${BENCH_TUNED_SET:-(no more SETs)}, shared_buffers $sb, jit off, gpusort.max_memory 64GB, gpusort.parallel: ${BENCH_PAR_GUC:-(no such setting)}, gpusort $([ "${GS_BENCH_PRELOAD:-0}" = 1 ] && echo preloaded || echo LOADed per session)"
	echo "runs: best of ${GS_BENCH_REPS:-2 (1 over 2*10^7 rows)}, statement_timeout ${BENCH_TIMEOUT}s, budget ${BUDGET}s; modes: $MODES; keys: $QUERIES"
	[ -n "$icu_note" ] && echo "note: $icu_note"
} | tee -a "$OUT/device.txt"

[ -f "$OUT/e2e.csv" ] || echo "rows,query,mode,ms" >"$OUT/e2e.csv"

# load_table ROWS: t, loaded by $load_jobs sessions at once, each a slice
load_table() {
	local n=$1 t0 t1 t2
	t0=$(date +%s)
	bench_psql -c "DROP TABLE IF EXISTS t" \
		-c "CREATE UNLOGGED TABLE t (k8 int8, kf float8, kt text, g int4, kn numeric, ki interval)" 2>/dev/null || return 1
	gs_load_parallel t "$n" "$load_jobs" "hashint8(i) % 1000000000, hashint8(i * 3) / 1e9::float8,
			       md5(i::text), (hashint8(i * 5) % 100)::int4,
			       (hashint8(i * 7) % 100000000) / 100.0,
			       (hashint8(i * 11) % 1000000) * interval '1 second' + (i % 12) * interval '1 month'" || return 1
	t1=$(date +%s)
	bench_psql -c "VACUUM (FREEZE, ANALYZE) t" || return 1
	t2=$(date +%s)
	bench_prepare_table "$n" || return 1
	# the parallel GpuSort keeps rows and keys in dynamic shared memory
	# (/dev/shm with dynamic_shared_memory_type = posix)
	local shm tbl
	shm=$(df -k --output=avail /dev/shm 2>/dev/null | tail -1)
	tbl=$(bench_psql -At -c "SELECT pg_table_size('t') / 1024")
	if [ -n "$shm" ] && [ -n "$tbl" ] && [ "$shm" -lt $((tbl * 3 / 2)) ]; then
		bench_log "WARNING: /dev/shm has $((shm / 1024)) MB free, the table is $((tbl / 1024)) MB: a parallel GpuSort's shared memory may not fit"
	fi
	bench_log "$n rows loaded in $(($(date +%s) - t0)) s ($load_jobs sessions: insert $((t1 - t0)) s, vacuum $((t2 - t1)) s, prewarm $(($(date +%s) - t2)) s); t is $(bench_psql -At -c "SELECT pg_size_pretty(pg_table_size('t'))")"
}

for n in "${SIZES[@]}"; do
	BENCH_REPS=${GS_BENCH_REPS:-2}; [ "$n" -gt 20000000 ] && BENCH_REPS=${GS_BENCH_REPS:-1}
	BENCH_EXPLAIN_QUERIES=${GS_BENCH_EXPLAIN_QUERIES:-$QUERIES}
	[ "$n" -gt 20000000 ] && BENCH_EXPLAIN_QUERIES=${GS_BENCH_EXPLAIN_QUERIES:-"int8 text"}
	bench_log "$n rows: loading"
	load_table "$n" || { bench_log "loading $n rows failed"; continue; }
	for mode in $MODES; do
		if [ "$mode" = floor ]; then
			bench_cell "$n" floor all
		else
			# GS_BENCH_QUERIES_<mode>: the keys of one mode (a subset of QUERIES)
			qv=GS_BENCH_QUERIES_$mode
			for q in ${!qv:-$QUERIES}; do
				case " $QUERIES " in
					*" $q "*) bench_cell "$n" "$mode" "$q" ;;
					*) bench_log "$n $mode $q: not among the keys ($QUERIES)" ;;
				esac
			done
		fi
	done
	bench_psql -c "DROP TABLE t"
done

gs_cluster_stop
bench_md --png "$OUT/e2e.png"
bench_log "done: $OUT/e2e.csv, $OUT/e2e.md"
cat "$OUT/e2e.md"
rm -rf "$W"
