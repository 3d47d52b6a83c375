#!/usr/bin/env bash
# Sorts larger than gpusort.max_memory: GpuSort writing sorted runs to temp
# files and merging them (src/sort/core/sortspill.c) against stock
# PostgreSQL tuned, in one run.
#
#   bench/sort/spill.sh [ROWS [MAXMEM]]      default: 4000000 64MB
#
# It loads one table t (id int4, k8 int8, kt text, pad text: pseudo-random,
# deterministic, unlogged, vacuumed) and times
#   SELECT * FROM t ORDER BY <key> OFFSET <rows>
# (every row sorted and read, none sent to the client) for the shapes
#   int8          ORDER BY k8
#   text          ORDER BY kt (the database's collation: GS_CLUSTER_LOCALE,
#                 C.UTF-8 unless set)
#   stale_int8, stale_text
#                 the same over a table s loaded as t, but ANALYZEd at 1% of
#                 its rows, before the rest was loaded (the planner scales
#                 its estimate by the table's pages now, so the estimate of
#                 a whole-table sort stays close: see misestimate)
#   misestimate   ORDER BY k8 over WHERE (id % 2) = 0: the planner expects
#                 0.5% of the rows (its default selectivity), 50% come
# in the modes
#   stock_tuned   gpusort.enabled = off, max_parallel_workers_per_gather = P,
#                 work_mem = 1GB, parallel_tuple_cost = 0.01 (sorts in
#                 memory where 1GB holds the rows)
#   stock_mem     the same with work_mem = MAXMEM (stock's own spilling)
#   gpusort       gpusort.max_memory = MAXMEM, the settings of stock_tuned,
#                 the GPU where there is one (gpusort.device = auto); a
#                 Gather Merge estimated past MAXMEM keeps its workers, each
#                 Sort a GpuSort (on the CPU in a worker) that writes its
#                 share as runs to shared files, merged by one GpuSort
#                 above the Gather (src/sort/core/sortshared.c)
#   gpusort_1proc the same without workers: one GpuSort whose runs the GPU
#                 sorts, where there is one
#   gpusort_par   gpusort with gpusort.parallel = on: where the estimate
#                 fits MAXMEM, every participant stores its rows in shared
#                 memory (GpuSortStore, src/sort/node/sortpar.c), and one
#                 whose share outgrows its room writes it as runs to shared
#                 files (the misestimate shape); not in the default modes
#   gpusort+NAME  gpusort with the settings of GS_BENCH_SET_NAME added (SQL,
#                 e.g. GS_BENCH_SET_t2="SET gpusort.cpu_threads = 2;"): to
#                 compare settings in one run; in the .csv and the plans only
# P = min(8, cores / 2), at least 1 (GS_BENCH_WORKERS).  Each cell runs in a
# fresh session; the best of GS_BENCH_REPS runs (default 2; 1 over 2*10^7
# rows) is kept, under a statement_timeout of GS_BENCH_TIMEOUT seconds
# (default 300).  GS_BENCH_QUERIES and GS_BENCH_MODES choose fewer shapes
# and modes; the table s is loaded only for the stale shapes.
# GS_BENCH_DEADLINE=S: no cell or EXPLAIN starts S seconds or more after
# the start (shown as "skipped"), and none runs past it (statement_timeout),
# so a run fits a time limit; GS_BENCH_EXPLAIN_STOCK=0 skips stock's EXPLAIN
# ANALYZE (one more run of each stock sort).  The H100 run of issue 30, in
# one command within 9 minutes (5*10^7 rows, max_memory 1GB, 8 workers):
#   GS_BENCH_QUERIES="int8 text stale_int8 stale_text misestimate" \
#   GS_BENCH_MODES="stock_tuned gpusort gpusort_1proc" GS_BENCH_DD_MB=1024 \
#   GS_BENCH_EXPLAIN_STOCK=0 GS_BENCH_DEADLINE=500 \
#   bench/sort/spill.sh 50000000 1GB
# The tables are loaded by GS_BENCH_LOAD_JOBS
# sessions at once (the cores, at most 16).  It also
# measures the temp directory's disk with dd (GS_BENCH_DD_MB, default 2048
# MB written with fdatasync, then read back after dropping the page cache
# where it may), and the rate at which gpusort wrote its runs (EXPLAIN
# ANALYZE: bytes written over the time writing them, which includes
# gathering the rows into sorted order).
#
# Output ($OUT, default bench/out/spill/): spill.md (the table, the disk,
# the machine), spill.csv (rows,query,mode,ms), explain_gpusort.txt (EXPLAIN
# ANALYZE of each shape under gpusort), explain_stock.txt (stock_tuned's
# plans), device.txt, build.log.  Builds and installs the tree first
# (GS_BENCH_NO_BUILD=1: uses what is installed) and runs on a throwaway
# cluster (test/lib.sh).
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
ROWS=${1:-4000000}
MAXMEM=${2:-64MB}
OUT=${OUT:-$SRC/bench/out/spill}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BENCH_T0=$(date +%s)
REPS=${GS_BENCH_REPS:-$([ "$ROWS" -gt 20000000 ] && echo 1 || echo 2)}
TIMEOUT=${GS_BENCH_TIMEOUT:-300}
DEADLINE=${GS_BENCH_DEADLINE:-}
EXPLAIN_STOCK=${GS_BENCH_EXPLAIN_STOCK:-1}
QUERIES=${GS_BENCH_QUERIES:-"int8 text stale_int8 stale_text misestimate"}
MODES=${GS_BENCH_MODES:-"stock_tuned stock_mem gpusort gpusort_1proc"}
ncores=$(nproc)
P=${GS_BENCH_WORKERS:-$((ncores / 2 < 8 ? ncores / 2 : 8))}
[ "$P" -lt 1 ] && P=1
BENCH_SRC=$SRC

. "$SRC/test/gpu/device-pg.sh" "$SRC"
# build in a copy the cluster's owner can read
W=$(mktemp -d /tmp/gpusort-spill.XXXXXX)
tar -C "$SRC" --exclude=./.git --exclude=./.device --exclude=./bench/out \
	--exclude='*.o' --exclude='*.so' -cf - . | tar -C "$W" -xf -
chmod -R a+rX "$W"
cd "$W" || exit 1
. test/lib.sh
. bench/sort/e2e_lib.sh
: >"$OUT/e2e.log"
rm -f "$OUT/spill.csv" "$OUT/explain_gpusort.txt" "$OUT/explain_stock.txt"
bench_device_lines | tee "$OUT/device.txt"

if [ -z "${GS_BENCH_NO_BUILD:-}" ] || [ ! -f "$(pg_config --pkglibdir)/gpusort.so" ]; then
	bench_log "building"
	gs_build_install >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi

mem_mb=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
sb_mb=$((mem_mb / 4)); [ $sb_mb -gt 16384 ] && sb_mb=16384
gs_cluster_start "shared_buffers = '${sb_mb}MB'" "jit = off" "max_wal_size = '16GB'" \
	"max_worker_processes = $((P + 8))" "max_parallel_workers = $((P > 8 ? P : 8))" \
	"shared_preload_libraries = 'gpusort'" || exit 1
echo "settings: P = $P, work_mem 1GB (stock_tuned, gpusort), gpusort.max_memory $MAXMEM, shared_buffers ${sb_mb}MB, database locale ${GS_CLUSTER_LOCALE:-C.UTF-8}, best of $REPS" |
	tee -a "$OUT/device.txt"

# ---- the tables --------------------------------------------------------------------
load_jobs=${GS_BENCH_LOAD_JOBS:-$((ncores > 16 ? 16 : ncores))}
load() {	# table, first id, last id: in load_jobs sessions at once
	local j lo hi n=$(($3 - $2 + 1))
	for j in $(seq 0 $((load_jobs - 1))); do
		lo=$(($2 + n * j / load_jobs))
		hi=$(($2 + n * (j + 1) / load_jobs - 1))
		[ "$hi" -ge "$lo" ] || continue
		bench_psql -c "INSERT INTO $1 SELECT i, hashint8extended(i, 7), md5(i::text), repeat('x', 20 + i % 40) FROM generate_series($lo, $hi) i" &
	done
	wait
}
bench_log "loading $ROWS rows"
bench_psql -c "CREATE UNLOGGED TABLE t (id int4, k8 int8, kt text, pad text) WITH (parallel_workers = $P)" \
	-c "CREATE UNLOGGED TABLE s (id int4, k8 int8, kt text, pad text) WITH (parallel_workers = $P, autovacuum_enabled = off)"
load t 1 "$ROWS"
bench_psql -c "VACUUM (FREEZE, ANALYZE) t"
if echo " $QUERIES " | grep -q " stale_"; then
	load s 1 $((ROWS / 100))
	bench_psql -c "ANALYZE s"
	load s $((ROWS / 100 + 1)) "$ROWS"
	# no VACUUM: it would bring reltuples up to date; a scan sets hint bits
	bench_psql -c "SELECT count(*) FROM s" >/dev/null
fi
bench_psql -At -c "SELECT 'tables: t ' || pg_size_pretty(pg_table_size('t')) || ', s ' || pg_size_pretty(pg_table_size('s'))" | tee -a "$OUT/device.txt"
bench_log "loaded"

sql_of() {	# query name
	case $1 in
		int8) echo "SELECT * FROM t ORDER BY k8 OFFSET $ROWS" ;;
		text) echo "SELECT * FROM t ORDER BY kt OFFSET $ROWS" ;;
		stale_int8) echo "SELECT * FROM s ORDER BY k8 OFFSET $ROWS" ;;
		stale_text) echo "SELECT * FROM s ORDER BY kt OFFSET $ROWS" ;;
		misestimate) echo "SELECT * FROM t WHERE (id % 2) = 0 ORDER BY k8 OFFSET $ROWS" ;;
	esac
}
# seconds a statement may run now: TIMEOUT, within the deadline; 0: none
time_left() {
	local t=$TIMEOUT
	if [ -n "$DEADLINE" ]; then
		local rest=$((DEADLINE - ($(date +%s) - BENCH_T0)))
		[ "$rest" -lt "$t" ] && t=$rest
		[ "$t" -lt 0 ] && t=0
	fi
	echo "$t"
}
settings_of() {	# mode
	local tuned="SET max_parallel_workers_per_gather = $P; SET parallel_tuple_cost = 0.01; SET statement_timeout = '$(time_left)s';"
	case $1 in
		stock_tuned) echo "SET gpusort.enabled = off; SET work_mem = '1GB'; $tuned" ;;
		stock_mem) echo "SET gpusort.enabled = off; SET work_mem = '$MAXMEM'; $tuned" ;;
		gpusort) echo "SET gpusort.max_memory = '$MAXMEM'; SET work_mem = '1GB'; $tuned" ;;
		gpusort_1proc) echo "SET gpusort.max_memory = '$MAXMEM'; SET work_mem = '1GB'; $tuned SET max_parallel_workers_per_gather = 0;" ;;
		gpusort_par) echo "SET gpusort.max_memory = '$MAXMEM'; SET work_mem = '1GB'; $tuned SET gpusort.parallel = on;" ;;
		gpusort+*)
			local var="GS_BENCH_SET_${1#gpusort+}"
			echo "$(settings_of gpusort) ${!var:-}" ;;
	esac
}

# ---- the disk ---------------------------------------------------------------------
tmpdir=$GS_CLUSTER/data/base/pgsql_tmp
mkdir -p "$tmpdir"
dd_mb=${GS_BENCH_DD_MB:-2048}
wr=$(dd if=/dev/zero of="$tmpdir/dd.test" bs=1M count="$dd_mb" conv=fdatasync 2>&1 | tail -1)
dropped="page cache dropped"
sync; { echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null || dropped="page cache NOT dropped (no permission): a read from memory"
rd=$(dd if="$tmpdir/dd.test" of=/dev/null bs=1M 2>&1 | tail -1)
rm -f "$tmpdir/dd.test"
disk_w=$(echo "$wr" | sed -E 's/.*, ([0-9.,]+ [kMG]?B\/s)$/\1/')
disk_r=$(echo "$rd" | sed -E 's/.*, ([0-9.,]+ [kMG]?B\/s)$/\1/')
echo "disk ($tmpdir, $(df -h "$tmpdir" | awk 'NR == 2 {print $1}')): write $disk_w ($dd_mb MB, fdatasync), read $disk_r ($dropped)" | tee -a "$OUT/device.txt"

# ---- the cells ---------------------------------------------------------------------
cell() {	# mode query: best ms of REPS fresh sessions, or "error"/">N"/"skipped"
	local q best="" i out ms left
	q=$(sql_of "$2")
	for i in $(seq 1 "$REPS"); do
		left=$(time_left)
		if [ "$left" -le 0 ]; then echo "${best:-skipped}"; return; fi
		out=$(printf '%s\n\\timing on\n%s;\n' "$(settings_of "$1")" "$q" | bench_psql 2>&1)
		if echo "$out" | grep -q "statement timeout"; then echo "${best:->$((left * 1000))}"; return; fi
		ms=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
		[ -z "$ms" ] && { echo "$out" >>"$OUT/e2e.log"; echo error; return; }
		if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$ms; fi
	done
	echo "$best"
}
explain() {	# mode query file
	[ "$(time_left)" -le 0 ] && return
	{
		echo "== $2 ($1)"
		printf '%s\n%s;\n' "$(settings_of "$1")" "EXPLAIN (ANALYZE, COSTS OFF) $(sql_of "$2")" | bench_psql 2>&1
	} >>"$3"
}
echo "rows,query,mode,ms" >"$OUT/spill.csv"
declare -A T
for q in $QUERIES; do
	for m in $MODES; do
		bench_log "$q $m"
		T[$q,$m]=$(cell "$m" "$q")
		echo "$ROWS,$q,$m,${T[$q,$m]}" >>"$OUT/spill.csv"
	done
	explain gpusort "$q" "$OUT/explain_gpusort.txt"
	echo " $MODES " | grep -q " gpusort_1proc " && explain gpusort_1proc "$q" "$OUT/explain_gpusort.txt"
	echo " $MODES " | grep -q " gpusort_par " && explain gpusort_par "$q" "$OUT/explain_gpusort.txt"
	for m in $MODES; do
		case $m in gpusort+*) explain "$m" "$q" "$OUT/explain_gpusort.txt" ;; esac
	done
	[ "$EXPLAIN_STOCK" = 1 ] && explain stock_tuned "$q" "$OUT/explain_stock.txt"
done

# ---- the table ---------------------------------------------------------------------
fmt() { case $1 in error | skipped | ">"* | -) echo "$1" ;; *) awk -v v="$1" 'BEGIN {printf "%.2f s", v / 1000}' ;; esac; }
ratio() { case "$1 $2" in *error* | *skipped* | *">"* | *" -") echo "-" ;; *) awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}' ;; esac; }
spill_of() {	# query [mode]: the Spill line of gpusort's plan, and its write rate
	awk -v q="== $1 (${2:-gpusort})" '$0 == q {on = 1; next} /^== / {on = 0} on && /Spill:/' "$OUT/explain_gpusort.txt" | head -1 |
		sed -E 's/^ *Spill: //' | awk '{
			line = $0; kb = 0; ms = 0
			if (match(line, /[0-9]+kB written in [0-9.]+ ms/)) {
				split(substr(line, RSTART, RLENGTH), f, /kB written in | ms/); kb = f[1]; ms = f[2]
			}
			if (ms > 0) printf "%s (runs written at %.0f MB/s)", line, kb / 1024 / (ms / 1000); else printf "%s", (line == "" ? "no runs" : line)
		}'
}
{
	echo "# GpuSort past gpusort.max_memory: $ROWS rows, gpusort.max_memory = $MAXMEM"
	echo
	sed 's/^/    /' "$OUT/device.txt"
	echo
	echo "| query | stock tuned (work_mem 1GB) | stock, work_mem $MAXMEM | gpusort | speed-up vs tuned | gpusort's runs | gpusort, one process | speed-up vs tuned | its runs | gpusort.parallel = on | speed-up vs tuned |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for q in $QUERIES; do
		runs=$(spill_of "$q")
		runs1=$(spill_of "$q" gpusort_1proc)
		echo "| $q | $(fmt "${T[$q,stock_tuned]:--}") | $(fmt "${T[$q,stock_mem]:--}") | $(fmt "${T[$q,gpusort]:--}") | $(ratio "${T[$q,stock_tuned]:--}" "${T[$q,gpusort]:--}") | ${runs:-no runs (the plan: explain_gpusort.txt)} | $(fmt "${T[$q,gpusort_1proc]:--}") | $(ratio "${T[$q,stock_tuned]:--}" "${T[$q,gpusort_1proc]:--}") | ${runs1:-no runs} | $(fmt "${T[$q,gpusort_par]:--}") | $(ratio "${T[$q,stock_tuned]:--}" "${T[$q,gpusort_par]:--}") |"
	done
} >"$OUT/spill.md"
cat "$OUT/spill.md"
bench_log "done"
