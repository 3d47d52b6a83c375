#!/usr/bin/env bash
# The analytics benchmark (issue 41): the windows, aggregates, sorts,
# pagination, top-N and exports analysts write, over one table of events in
# an en_US.UTF-8 database with money in numeric(12,2), gpusort against stock
# PostgreSQL tuned (and in one process), in one run, every result checked.
#
#   bench/analytics/analytics.sh [--rows N] [--reps R] [--shapes "share ..."]
#       [--reps-1proc R] [--out DIR] [--stop-after SECONDS] [--no-1proc]
#       [--no-check] [--check-only] [--record]
#   bench/analytics/analytics.sh --report DIR...    (the report of earlier runs)
#
# e.g.  bench/analytics/analytics.sh --rows 2000000       (2 cores: about 30 min)
#       bench/analytics/analytics.sh --shapes "share lag_delta" --rows 100000 --reps 1
# At 10^7 rows on 16 cores the whole run is well over a device call's 600 s
# (stock in one process alone takes seconds to a minute a run, and a
# shape's check two more runs): split it, a call each, and merge the
# folders.  Through the device tool (test/gpu/README.md: the PostgreSQL
# bundle and the locales carried in .device/; the tool runs the session's
# main checkout), e.g. five calls, S one of "share moving_avg_7d lag_delta
# rownum_rank running_revenue", "ntile_quartile first_last_rows
# pct_of_category percent_rank_city topn_per_category", aggregate, sort,
# export:
#       . test/gpu/pg-on-device.sh .device/pg15.tar.gz; bash test/gpu/locales.sh .device/i18n.tar.gz
#       bench/analytics/analytics.sh --reps 2 --reps-1proc 1 --stop-after 540 --shapes "S" --out $OUT/NAME
# (GS_NO_BUILD=1 on a machine still warm from the call before), then here
#       bench/analytics/analytics.sh --report --md all.md --csv all.csv DIR/w1 DIR/w2 DIR/aggregate ...
# Each call builds and loads the table again (the "load:" line says how
# long); both count against --stop-after, and every shape's elapsed
# seconds are in the report.
#
#   --rows N          ev's rows (GS_BENCH_ROWS, default 10000000)
#   --reps R          timed runs per shape and mode, the best kept
#                     (GS_BENCH_REPS, default 3)
#   --reps-1proc R    the same for stock in one process (GS_BENCH_REPS_1PROC,
#                     default R): at 10^7 rows its runs take most of the time
#   --shapes "..."    the shapes to run, in order (GS_BENCH_SHAPES, default
#                     all 26; bench/analytics/shapes.sh lists them); a kind,
#                     window (10), aggregate (8), sort (5) or export (3),
#                     stands for its shapes
#   --out DIR         the results (OUT, default bench/out/analytics)
#   --stop-after S    no statement starts S seconds after the start, none runs
#                     past it (GS_BENCH_STOP_AFTER; 0, the default: no limit):
#                     to fit a device's call, the rest of the shapes are
#                     skipped; run them in another call (--shapes) and merge
#                     the two folders with --report
#   --no-1proc        leaves out stock in one process (the slowest column)
#   --no-check        leaves out the result check
#   --check-only      the result check alone, no timings (a cheap hunt for
#                     differences at other sizes or locales)
#   --record          copies the report, the CSV and gpusort's EXPLAIN
#                     ANALYZE to bench/results/analytics/
#                     analytics_<machine>_<date>_<HHMM>_<rows>.{md,csv,_explain.txt}
# GS_NO_BUILD=1 (or GS_BENCH_NO_BUILD=1) uses the installed build, else the
# tree is built and installed (test/lib.sh: GS_PRIVATE_PG as for the
# tests); GS_BENCH_WORKERS sets stock tuned's workers, GS_BENCH_LOCALE the
# database's locale (en_US.UTF-8), GS_BENCH_TIMEOUT a statement's limit in
# seconds (300).
#
# The data (bench/analytics/data.sql, generated in SQL, deterministic):
# ev(id, account, user_id, category, name, email, city, country, day, ts,
# amount, price, qty, flag) of N rows, N/50 accounts, min(N/16, 131072)
# users, 970 categories sharing long prefixes, person names with hyphens,
# apostrophes and accents, 12 countries and 40 cities, a year of
# microsecond timestamps; loaded by one session per core (at most 16), each
# a slice of the ids, into an unlogged table, then VACUUM (FREEZE, ANALYZE)
# and pg_prewarm, in a database created with LOCALE 'en_US.UTF-8' from
# template0 on a throwaway cluster (jit off, shared_buffers a quarter of
# the memory up to 16GB).
#
# The shapes (bench/analytics/shapes.sh, 26): windows (share of the
# account's total with nullif, 7-day RANGE moving average, lag delta,
# row_number and rank, running revenue, ntile, first_value/last_value over
# ROWS, percent of the category's total, percent_rank, top 3 per category,
# DISTINCT ON latest row), aggregates (medians by category and by day,
# percentile_disc, mode, count(DISTINCT), string_agg ORDER BY by account,
# top 10 users and top 100 account-months over GROUP BY), sorts
# (pagination ORDER BY name, id LIMIT 100 OFFSET N/10, top 100 amounts,
# ORDER BY country, city, name, a multi-key numeric ORDER BY) and exports
# (CREATE TABLE AS ... ORDER BY account, ts; COPY (... ORDER BY category,
# ts, id) TO '/dev/null'; INSERT ... SELECT ... ORDER BY).
#
# Modes (bench/sort/e2e_lib.sh's; each shape's modes back to back, each in
# a fresh session after a warm-up sort, the best of R runs):
#   gpusort_auto  gpusort at its defaults, stock tuned's session settings
#   stock_tuned   gpusort.enabled = off, max_parallel_workers_per_gather = P
#                 (the cores, at most 8), work_mem 1GB, parallel_tuple_cost 0.01
#   stock_1proc   gpusort.enabled = off, no workers, work_mem 1GB
# A statement is timed as psql sees it end to end (\timing): a small result
# fetched whole; a result of a row per row of ev computed whole and
# discarded by an OFFSET N appended (nothing sent), as bench/sort's scripts
# do; an export as the statement (CREATE TABLE AS after a DROP TABLE,
# INSERT after a TRUNCATE, COPY to /dev/null).
#
# The check: before the timings, each shape's whole result is read in
# gpusort_auto's and stock_tuned's settings (COPY ... TO STDOUT; a
# window's rows ordered by id; an export's table as written, the COPY's
# output) and digested in order (digest.py; where the ORDER BY is not
# total, rows tied on it as a multiset).  A result that differs, or an
# error in gpusort's mode only, is printed loudly, listed in the report,
# and the script exits 1.
#
# Output (DIR): analytics.md (the device, the table: shape, gpusort ms,
# stock tuned ms, ratio, stock 1 proc ms, ratio, gpusort's nodes from its
# plan, the result check, the shape's elapsed seconds; geometric means,
# the slowest shapes; the SQL), analytics.csv (the table), e2e.csv (every
# cell), check.csv, elapsed.csv, plans_N.txt (every mode's plan),
# explain_gpusort_auto_N.txt (EXPLAIN ANALYZE), e2e.log, device.txt, logs/
# and check/ (each side's first rows).
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$SRC/bench/analytics

ROWS=${GS_BENCH_ROWS:-10000000}
REPS=${GS_BENCH_REPS:-3}
REPS_1PROC=${GS_BENCH_REPS_1PROC:-}
SHAPES=${GS_BENCH_SHAPES:-}
OUT=${OUT:-$SRC/bench/out/analytics}
STOP_AFTER=${GS_BENCH_STOP_AFTER:-0}
MODES="gpusort_auto stock_tuned stock_1proc"
CHECK=1
RECORD=""
REPORT_ONLY=""
while [ $# -gt 0 ]; do
	case $1 in
		--rows) ROWS=$2; shift 2 ;;
		--reps) REPS=$2; shift 2 ;;
		--reps-1proc) REPS_1PROC=$2; shift 2 ;;
		--shapes) SHAPES=$2; shift 2 ;;
		--out) OUT=$2; shift 2 ;;
		--stop-after) STOP_AFTER=$2; shift 2 ;;
		--no-1proc) MODES="gpusort_auto stock_tuned"; shift ;;
		--no-check) CHECK=""; shift ;;
		--check-only) CHECK=1; MODES=""; shift ;;
		--record) RECORD=1; shift ;;
		--report) REPORT_ONLY=1; shift; break ;;
		-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
		*) echo "unknown option $1 (--help)" >&2; exit 2 ;;
	esac
done
if [ -n "$REPORT_ONLY" ]; then
	[ $# -ge 1 ] || { echo "--report DIR..." >&2; exit 2; }
	exec python3 "$HERE/report.py" "$@"
fi
case $ROWS in *[!0-9]*|"") echo "--rows takes a number" >&2; exit 2 ;; esac
[ "$ROWS" -ge 1000 ] || { echo "--rows: at least 1000" >&2; exit 2; }
REPS_1PROC=${REPS_1PROC:-$REPS}

. "$HERE/shapes.sh"
SHAPES=$(shapes_expand ${SHAPES:-all}) || exit 2

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/e2e.csv" "$OUT/check.csv" "$OUT/elapsed.csv" "$OUT/shapes.tsv" "$OUT"/plans_*.txt \
	"$OUT"/explain_*.txt "$OUT/logs" "$OUT/check" "$OUT/analytics.md" "$OUT/analytics.csv"
mkdir -p "$OUT/check"
: >"$OUT/e2e.log"

# on the GPU machine: the PostgreSQL bundle of .device/ (test/gpu/README.md)
. "$SRC/test/gpu/device-pg.sh" "$SRC"
. "$SRC/test/lib.sh"
. "$SRC/bench/sort/e2e_lib.sh"

BENCH_T0=$(date +%s)
ncores=$(nproc)
BENCH_P=${GS_BENCH_WORKERS:-$((ncores < 8 ? ncores : 8))}
[ "$BENCH_P" -lt 1 ] && BENCH_P=1
BENCH_WORK_MEM=${GS_BENCH_WORK_MEM:-1GB}
BENCH_TIMEOUT=${GS_BENCH_TIMEOUT:-300}
BENCH_REPS=$REPS
BENCH_TABLE=ev
BENCH_SRC=$SRC
BENCH_DEVICE_FILE=$OUT/device.txt
BENCH_EXPLAIN_MODES=${GS_BENCH_EXPLAIN_MODES-gpusort_auto}
BENCH_EXPLAIN_QUERIES=$SHAPES
BENCH_DEADLINE=0
[ "$STOP_AFTER" -gt 0 ] && BENCH_DEADLINE=$((BENCH_T0 + STOP_AFTER))
BENCH_QUERY=shape_time
BENCH_PLAN_QUERY=shape_plan
LOCALE=${GS_BENCH_LOCALE:-en_US.UTF-8}
export GS_CLUSTER_LOCALE=${GS_CLUSTER_LOCALE:-$LOCALE}
DB=analytics

report() {
	python3 "$HERE/report.py" --md "$OUT/analytics.md" --csv "$OUT/analytics.csv" "$OUT" 2>>"$OUT/e2e.log"
}

# check_side MODE SHAPE: "ROWS MD5" of the shape's whole result in MODE's
# settings, or "error: ...", "timeout" (its statement_timeout) or "skipped"
# (--stop-after's time is spent)
check_side() {
	local mode=$1 q=$2 left tmo=$((BENCH_TIMEOUT * 1000)) err res rc
	if [ "$BENCH_DEADLINE" -gt 0 ]; then
		left=$((BENCH_DEADLINE - $(bench_now)))
		[ "$left" -lt 10 ] && { echo skipped; return; }
		[ $((left * 1000)) -lt $tmo ] && tmo=$((left * 1000))
	fi
	err=$OUT/check/${q}_$mode.err
	shape_def "$q" "$ROWS"
	res=$({
		echo "LOAD 'gpusort';"
		bench_mode_settings "$mode"
		echo "SET synchronize_seqscans = off; SET statement_timeout = $tmo;"
		shape_check "$q" "$ROWS"
	} | gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -f - 2>"$err" |
		python3 "$HERE/digest.py" ${S_KEYS:+--keys "$S_KEYS"} --head 20 "$OUT/check/${q}_$mode.head"
		exit "${PIPESTATUS[1]}")
	rc=$?
	if grep -q 'canceling statement due to statement timeout' "$err"; then
		echo timeout
	elif [ $rc != 0 ] || grep -q 'ERROR' "$err"; then
		echo "error: $(grep -m1 -E 'ERROR|FATAL' "$err" | sed 's/^psql:[^ ]* //' | tr ',' ';')"
	else
		echo "$res"
	fi
}

# check_shape SHAPE: both sides' results, compared; a line of check.csv
check_shape() {
	local q=$1 st gp verdict
	st=$(check_side stock_tuned "$q")
	gp=$(check_side gpusort_auto "$q")
	case "$st|$gp" in
		skipped*|*skipped) verdict="not checked (--stop-after)" ;;
		timeout*|*timeout) verdict="not checked (statement_timeout)" ;;
		error*\|error*) verdict="error in both modes" ;;
		error*) verdict="stock failed" ;;
		*\|error*) verdict="GPUSORT FAILED: ${gp#error: }"; FAILED="$FAILED $q" ;;
		*) if [ "$st" = "$gp" ]; then verdict=same; else verdict="DIFFERENT"; FAILED="$FAILED $q"; fi ;;
	esac
	echo "$ROWS,$q,${st// /:},${gp// /:},$verdict" >>"$OUT/check.csv"
	case $verdict in
		same) bench_log "$ROWS $q: result checked, the same (${st%% *} rows)" ;;
		not\ checked*|"error in both modes"|"stock failed") bench_log "$ROWS $q: result check: $verdict ($st)" ;;
		*)
			shape_def "$q" "$ROWS"
			bench_log "$ROWS $q: RESULT CHECK FAILED: $verdict"
			{
				echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
				echo "!!! $q ($ROWS rows): gpusort's result is not stock's: $verdict"
				echo "!!! stock tuned: $st; gpusort: $gp"
				echo "!!! the check's SQL: $(shape_check "$q" "$ROWS")"
				echo "!!! first rows: $OUT/check/${q}_stock_tuned.head, ${q}_gpusort_auto.head"
				echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
			} | tee -a "$OUT/e2e.log" >&2 ;;
	esac
}

bench_device_lines >"$OUT/device.txt"
gs_ensure_locales || exit 1
if [ -z "${GS_NO_BUILD:-}${GS_BENCH_NO_BUILD:-}" ] || [ ! -f "$(pg_config --pkglibdir)/gpusort.so" ]; then
	bench_log "building"
	gs_build_install >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
mem_mb=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
sb_mb=$((mem_mb / 4)); [ $sb_mb -gt 16384 ] && sb_mb=16384
gs_cluster_start "shared_buffers = '${GS_BENCH_SHARED_BUFFERS:-${sb_mb}MB}'" \
	"max_worker_processes = $((BENCH_P + 8 > 16 ? BENCH_P + 8 : 16))" \
	"max_parallel_workers = $((BENCH_P > 8 ? BENCH_P : 8))" "jit = off" \
	"max_wal_size = '16GB'" || exit 1
bench_psql -v ON_ERROR_STOP=1 -c "CREATE DATABASE $DB LOCALE '$LOCALE' TEMPLATE template0" || exit 1
export PGDATABASE=$DB
bench_psql -c "LOAD 'gpusort'" || { echo "gpusort is not installed"; exit 1; }
{
	echo "database: $DB, LOCALE '$LOCALE' (template0); rows: $ROWS"
	echo "settings: P = $BENCH_P workers, work_mem $BENCH_WORK_MEM, $BENCH_TUNED_SET jit off, shared_buffers ${GS_BENCH_SHARED_BUFFERS:-${sb_mb}MB}; modes: $MODES; best of $REPS$([ "$REPS_1PROC" != "$REPS" ] && echo " (stock_1proc: of $REPS_1PROC)")"
} >>"$OUT/device.txt"
cat "$OUT/device.txt"
echo "rows,query,mode,ms" >"$OUT/e2e.csv"
echo "rows,shape,stock,gpusort,result" >"$OUT/check.csv"
echo "rows,shape,s" >"$OUT/elapsed.csv"
for q in $SHAPES; do
	shape_def "$q" "$ROWS"
	printf '%s\t%s\t%s\n' "$q" "$S_KIND" "$S_SQL" >>"$OUT/shapes.tsv"
done

# the data: a slice of the ids a session, at most 16 at once
load() {
	local jobs=$((ncores < 16 ? ncores : 16)) j lo hi pids=() rc=0 t0
	local accounts=$((ROWS / 50)) users=$((ROWS / 16 < 131072 ? ROWS / 16 : 131072))
	t0=$(bench_now)
	bench_psql -v ON_ERROR_STOP=1 -f - <"$HERE/data.sql" || return 1
	for ((j = 0; j < jobs; j++)); do
		lo=$((j * ROWS / jobs + 1)); hi=$(((j + 1) * ROWS / jobs))
		bench_psql -v ON_ERROR_STOP=1 -v lo=$lo -v hi=$hi -v accounts=$accounts -v users=$users \
			-f - <"$HERE/data.sql" &
		pids+=($!)
	done
	for j in "${pids[@]}"; do wait "$j" || rc=1; done
	[ $rc = 0 ] || return 1
	bench_psql -v ON_ERROR_STOP=1 -c "VACUUM (FREEZE, ANALYZE) ev" -c "ANALYZE ev_daily" || return 1
	bench_prepare_table "$ROWS" || return 1
	echo "load: $ROWS rows by $jobs sessions, $accounts accounts, $users users, in $(($(bench_now) - t0)) s; ev $(bench_psql -At -c "SELECT pg_size_pretty(pg_relation_size('ev'))")" |
		tee -a "$OUT/device.txt"
}

bench_log "$ROWS rows: loading"
load || { bench_log "loading failed"; exit 1; }
FAILED=""
for q in $SHAPES; do
	t=$(bench_now)
	if [ "$BENCH_DEADLINE" -gt 0 ] && [ $((BENCH_DEADLINE - t)) -lt 6 ]; then
		bench_log "$ROWS $q: skipped (--stop-after: the time is spent)"
		continue
	fi
	[ -n "$CHECK" ] && check_shape "$q"
	for mode in $MODES; do
		BENCH_REPS=$REPS
		[ "$mode" = stock_1proc ] && BENCH_REPS=$REPS_1PROC
		bench_cell "$ROWS" "$mode" "$q"
	done
	echo "$ROWS,$q,$(($(bench_now) - t))" >>"$OUT/elapsed.csv"
	bench_log "$ROWS $q: done in $(($(bench_now) - t)) s"
	report
done
gs_cluster_stop
report
cat "$OUT/analytics.md"

if [ -n "$RECORD" ]; then
	host=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | awk '{print tolower($NF)}')
	host=${host:-${ncores}core}
	tag=$(awk -v n="$ROWS" 'BEGIN { e = int(log(n) / log(10) + 1e-9); m = n / 10 ^ e;
		printf "%se%d", (m == int(m)) ? m : sprintf("%.1f", m), e }')
	rec=$SRC/bench/results/analytics/analytics_${host}_$(date -u +%Y-%m-%d_%H%M)_$tag
	mkdir -p "$(dirname "$rec")"
	cp "$OUT/analytics.md" "$rec.md"
	cp "$OUT/analytics.csv" "$rec.csv"
	[ -f "$OUT/explain_gpusort_auto_$ROWS.txt" ] && cp "$OUT/explain_gpusort_auto_$ROWS.txt" "${rec}_explain.txt"
	echo "recorded: $rec.md (.csv, _explain.txt)"
fi

if [ -n "$FAILED" ]; then
	echo "!!! gpusort's results differ from stock's (or gpusort failed) in:$FAILED (see $OUT/analytics.md)" >&2
	exit 1
fi
