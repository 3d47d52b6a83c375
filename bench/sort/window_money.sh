#!/usr/bin/env bash
# The windows analysts run over money (issue 27), stock PostgreSQL against
# GpuSort + GpuWindow, in one run:
#
#   bench/sort/window_money.sh [ROWS...]     default: 10000000
#
# For each size it loads one table t (account int4: 10^4 accounts, category
# int4: 50, day date, ts timestamptz over a year, amount, price, fee
# numeric(12,2), qty int4, score float8; pseudo-random and deterministic,
# unlogged, vacuumed and cached) in a database whose collation is
# GS_CLUSTER_LOCALE (default en_US.UTF-8), and times the issue's five
# windows and three more, each read whole by an outer aggregate that
# sends one row:
#   running     sum(amount) OVER (PARTITION BY account ORDER BY ts)
#   moving_avg  avg(amount) OVER (PARTITION BY account ORDER BY day
#               RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW)
#   product     sum(price * qty) OVER (PARTITION BY category ORDER BY day)
#   share       amount / sum(amount) OVER (PARTITION BY account)
#   avg_float   avg(score) OVER (PARTITION BY category ORDER BY ts)
#   stddev      stddev(qty) OVER (PARTITION BY account ORDER BY ts)
#   groups      sum(amount) OVER (PARTITION BY account ORDER BY day
#               GROUPS BETWEEN 2 PRECEDING AND CURRENT ROW)
#   exclude     avg(amount) OVER (PARTITION BY account ORDER BY day RANGE
#               BETWEEN '6 days' PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)
# in the modes of bench/sort/e2e_lib.sh (GS_BENCH_MODES; default
# stock_tuned stock_1proc gpusort_auto: stock with P workers and work_mem
# 1GB, stock in one process, gpusort at its defaults with the tuned
# settings and gpusort.min_rows = 0), the best of GS_BENCH_REPS (2) runs;
# GS_BENCH_QUERIES picks some of the windows by name.
#
# Records: bench/results/window/window_money_*.md.
#
# Output ($OUT, default bench/out/window_money): e2e.csv (rows,query,mode,ms),
# window_money.md (a table per size: ms per mode, stock tuned / gpusort,
# stock serial / gpusort, and whether the plan has GpuWindow), plans_ROWS.txt,
# explain_gpusort_auto_ROWS.txt (EXPLAIN ANALYZE), e2e.log, device.txt.
# GS_BENCH_BUDGET (default 540 s, 0: none) bounds the whole run as in
# bench/sort/e2e_gpu.sh; GS_BENCH_NO_BUILD=1 uses the installed build.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$SRC/bench/out/window_money}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BENCH_T0=$(date +%s)
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(10000000)
MODES=${GS_BENCH_MODES:-"stock_tuned stock_1proc gpusort_auto"}
QUERIES=${GS_BENCH_QUERIES:-"running moving_avg product share avg_float stddev groups exclude"}
BUDGET=${GS_BENCH_BUDGET:-540}
ncores=$(nproc)
BENCH_P=${GS_BENCH_WORKERS:-$((ncores / 2 < 8 ? ncores / 2 : 8))}
[ "$BENCH_P" -lt 1 ] && BENCH_P=1
BENCH_WORK_MEM=${GS_BENCH_WORK_MEM:-1GB}
BENCH_TIMEOUT=${GS_BENCH_TIMEOUT:-120}
BENCH_REPS=${GS_BENCH_REPS:-2}
BENCH_EXPLAIN_MODES=${GS_BENCH_EXPLAIN_MODES:-gpusort_auto}
BENCH_EXPLAIN_QUERIES=$QUERIES
BENCH_TUNED_SET=${GS_BENCH_TUNED_SET-"SET parallel_tuple_cost = 0.01; SET gpusort.min_rows = 0;"}
BENCH_DEADLINE=0
[ "$BUDGET" -gt 0 ] && BENCH_DEADLINE=$((BENCH_T0 + BUDGET - 10))
BENCH_TABLE=t
BENCH_SRC=$SRC
BENCH_DEVICE_FILE=$OUT/device.txt
export GS_CLUSTER_LOCALE=${GS_CLUSTER_LOCALE:-en_US.UTF-8}

# on the GPU machine: the PostgreSQL bundle of .device/ (test/gpu/README.md)
. "$SRC/test/gpu/device-pg.sh" "$SRC"

# build in a copy the cluster's owner can read
W=$(mktemp -d /tmp/gpusort-bench.XXXXXX)
tar -C "$SRC" --exclude=./.git --exclude=./.device --exclude=./bench/out \
	--exclude='*.o' --exclude='*.so' -cf - . | tar -C "$W" -xf -
chmod -R a+rX "$W"
cd "$W" || exit 1
. test/lib.sh
. bench/sort/e2e_lib.sh

money_query() {
	local inner
	case $1 in
		running) inner="SELECT sum(amount) OVER (PARTITION BY account ORDER BY ts) AS v FROM t" ;;
		moving_avg) inner="SELECT avg(amount) OVER (PARTITION BY account ORDER BY day RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW) AS v FROM t" ;;
		product) inner="SELECT sum(price * qty) OVER (PARTITION BY category ORDER BY day) AS v FROM t" ;;
		share) inner="SELECT amount / sum(amount) OVER (PARTITION BY account) AS v FROM t" ;;
		avg_float) inner="SELECT avg(score) OVER (PARTITION BY category ORDER BY ts) AS v FROM t" ;;
		stddev) inner="SELECT stddev(qty) OVER (PARTITION BY account ORDER BY ts) AS v FROM t" ;;
		groups) inner="SELECT sum(amount) OVER (PARTITION BY account ORDER BY day GROUPS BETWEEN 2 PRECEDING AND CURRENT ROW) AS v FROM t" ;;
		exclude) inner="SELECT avg(amount) OVER (PARTITION BY account ORDER BY day RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) AS v FROM t" ;;
		*) echo "unknown query $1 ($QUERIES)" >&2; return 1 ;;
	esac
	echo "SELECT max(v), count(v) FROM ($inner) q"
}
BENCH_QUERY=money_query
for m in $MODES; do bench_mode_settings "$m" >/dev/null || exit 2; done

rm -rf "$OUT/e2e.csv" "$OUT/window_money.md" "$OUT"/plans_*.txt "$OUT"/explain_*.txt "$OUT/logs"
: >"$OUT/e2e.log"
bench_device_lines | tee "$OUT/device.txt"
gs_ensure_locales || exit 1
if [ -z "${GS_BENCH_NO_BUILD:-}" ] || [ ! -f "$(pg_config --pkglibdir)/gpusort.so" ]; then
	bench_log "building"
	gs_build_install >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
mem_mb=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
sb_mb=$((mem_mb / 4)); [ $sb_mb -gt 16384 ] && sb_mb=16384
gs_cluster_start "shared_buffers = '${GS_BENCH_SHARED_BUFFERS:-${sb_mb}MB}'" \
	"max_worker_processes = $((BENCH_P + 8 > 16 ? BENCH_P + 8 : 16))" \
	"max_parallel_workers = $((BENCH_P > 8 ? BENCH_P : 8))" "jit = off" \
	"gpusort.max_memory = '64GB'" "max_wal_size = '16GB'" || exit 1
bench_psql -c "LOAD 'gpusort'" || { echo "gpusort is not installed"; exit 1; }
echo "settings: database locale $GS_CLUSTER_LOCALE, P = $BENCH_P, work_mem $BENCH_WORK_MEM, $BENCH_TUNED_SET, jit off; modes: $MODES; best of $BENCH_REPS" |
	tee -a "$OUT/device.txt"
echo "rows,query,mode,ms" >"$OUT/e2e.csv"

load_table() {
	local n=$1
	bench_psql -v ON_ERROR_STOP=1 -c "DROP TABLE IF EXISTS t" \
		-c "CREATE UNLOGGED TABLE t (account int4, category int4, day date, ts timestamptz,
			amount numeric(12,2), price numeric(12,2), qty int4, fee numeric(12,2), score float8)" \
		-c "INSERT INTO t
			SELECT a, (hashint4(a) & 65535) % 50, (ts AT TIME ZONE 'UTC')::date, ts,
			       (hashint8(i * 3) % 10000000) / 100.0, (abs(hashint8(i * 5)) % 100000) / 100.0,
			       1 + abs(hashint4(i)) % 20, (abs(hashint8(i * 7)) % 1000) / 100.0,
			       (hashint8(i * 11) % 1000000) / 997.0
			  FROM (SELECT i, (abs(hashint8(i)) % 10000)::int4 AS a,
			               timestamptz '2024-01-01 00:00+00' + (abs(hashint8(i * 13)) % 31536000) * interval '1 second' AS ts
			          FROM generate_series(1, $n) i) s" \
		-c "VACUUM (FREEZE, ANALYZE) t" || return 1
	bench_prepare_table "$n"
}

money_md() {
	python3 - "$OUT/e2e.csv" "$OUT" "$MODES" >"$OUT/window_money.md" <<-'EOF'
	import csv, sys, os, re
	rows = list(csv.DictReader(open(sys.argv[1])))
	out, modes = sys.argv[2], sys.argv[3].split()
	gmode = next((m for m in modes if m.startswith("gpusort")), None)
	print(open(os.path.join(out, "device.txt")).read().strip().replace("\n", "  \n"))
	for n in sorted({int(r["rows"]) for r in rows}):
	    plans = open(os.path.join(out, f"plans_{n}.txt")).read() if os.path.exists(os.path.join(out, f"plans_{n}.txt")) else ""
	    print(f"\n### {n} rows\n")
	    print("| window | " + " | ".join(f"{m} ms" for m in modes) + " | stock_tuned / gpusort | stock_1proc / gpusort | GpuWindow |")
	    print("|---" * (len(modes) + 4) + "|")
	    for q in dict.fromkeys(r["query"] for r in rows if int(r["rows"]) == n):
	        ms = {r["mode"]: r["ms"] for r in rows if int(r["rows"]) == n and r["query"] == q}
	        def ratio(m):
	            try: return f"{float(ms[m]) / float(ms[gmode]):.2f}x"
	            except (KeyError, ValueError, TypeError, ZeroDivisionError): return "-"
	        m = re.search(r"== %s, %s: .*?\n(.*?)(?=\n== |\Z)" % (re.escape(gmode or ""), re.escape(q)), plans, re.S)
	        gw = "-" if not m else ("yes" if "GpuWindow" in m.group(1) else "no (WindowAgg)")
	        print(f"| {q} | " + " | ".join(ms.get(mm, "-") for mm in modes) + f" | {ratio('stock_tuned')} | {ratio('stock_1proc')} | {gw} |")
	EOF
}

for n in "${SIZES[@]}"; do
	bench_log "$n rows: loading"
	load_table "$n" || { bench_log "loading $n rows failed"; continue; }
	bench_log "$n rows loaded"
	# each window's modes back to back: on a shared machine the load drifts
	# less between the figures of one ratio
	for q in $QUERIES; do
		for mode in $MODES; do bench_cell "$n" "$mode" "$q"; done
	done
	money_md
done
gs_cluster_stop
money_md
cat "$OUT/window_money.md"
rm -rf "$W"
