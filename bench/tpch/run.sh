#!/usr/bin/env bash
# A TPC-H-derived decision-support workload (issue 39): the 22 TPC-H
# queries, with the specification's validation parameters, over data of
# scale factor SF generated in SQL (bench/tpch/load.sh, gen.sql: not the
# official dbgen's; nothing here is an audited TPC-H result), with gpusort
# off (stock) and on, side by side.
#
#   bench/tpch/run.sh [SF]          default 1
#
# Starts a throwaway cluster (gpusort in shared_preload_libraries, jit off,
# shared_buffers a quarter of the memory up to 16GB), a database tpch
# in en_US.UTF-8, loads SF (the cores' sessions, at most 16), then for
# each query, in fresh sessions, with stock tuned's settings in both modes
# (max_parallel_workers_per_gather = P, work_mem = 1GB,
# parallel_tuple_cost = 0.01; P = min(8, cores / 2), at least 1,
# GS_BENCH_WORKERS):
#   stock     gpusort.enabled = off (plans exactly as stock PostgreSQL)
#   gpusort   gpusort at its defaults
# runs each mode GS_BENCH_REPS times (default 3), alternately (stock first
# in odd rounds, gpusort first in even ones), a run past GS_BENCH_TIMEOUT
# seconds (default 300) cancelled; compares the first run's results of the
# two modes in order (bench/tpch/compare.py: rows of equal ORDER BY values
# as multisets, and the last group of ties under a LIMIT may hold other
# rows), then EXPLAIN (ANALYZE, COSTS OFF) in each mode, from which the
# custom nodes of gpusort's plan (GpuSort, GpuWindow, GpuAgg,
# GpuSortStore) and its "GpuSort:" lines are taken.
#
# Prints a markdown table (query, stock and gpusort ms best and median,
# stock/gpusort of the bests, same results, gpusort's nodes), the
# geometric mean of the ratios and the queries above 1.5x and below 0.95x;
# writes it to $OUT/tpch.md (default bench/out/tpch/) with tpch.csv (every
# run), tpch_summary.csv (the table's), explain_gpusort.txt, explain_stock.txt, device.txt and results/
# (each mode's rows).  Exits 1 if any query's results differ (or fail in
# one mode only).
#
# The table's "plan" column says whether gpusort's plan is stock's with its
# nodes in place of Sort, WindowAgg and Agg ("same") or another ("changed":
# gpusort.sorted_grouping's GroupAggregates in place of HashAggregates, a
# parallel GpuSort in place of a Gather Merge; see the EXPLAIN files).
#
# GS_BENCH_EXPLAIN=gpusort skips stock's EXPLAIN (the plan column is then
# "-"), =none both (the nodes column too): a run of SF 10 within a
# device's call.  GS_BENCH_QUERIES="1 6 13" runs fewer; GS_BENCH_GPUSORT_SETTINGS="SET
# gpusort.sorted_grouping = off;" adds settings to the gpusort mode;
# GS_NO_BUILD=1 uses the installed build; GS_PRIVATE_PG as in test/lib.sh.
set -uo pipefail
. "$(dirname "$0")/../../test/lib.sh"
. "$GS_ROOT/bench/tpch/load.sh"

SF=${1:-1}
ncores=$(nproc)
P=${GS_BENCH_WORKERS:-$((ncores / 2 < 8 ? ncores / 2 : 8))}
[ "$P" -lt 1 ] && P=1
REPS=${GS_BENCH_REPS:-3}
TIMEOUT=${GS_BENCH_TIMEOUT:-300}
OUT=${OUT:-$GS_ROOT/bench/out/tpch}
QUERIES=${GS_BENCH_QUERIES:-$(seq 1 22)}
MODES="stock gpusort"

mkdir -p "$OUT/results"
rm -f "$OUT/tpch.csv" "$OUT/explain_gpusort.txt" "$OUT/explain_stock.txt" "$OUT"/results/*

mode_settings() {
	local tuned="SET max_parallel_workers_per_gather = $P; SET work_mem = '1GB'; SET parallel_tuple_cost = 0.01;"
	case $1 in
		stock) echo "SET gpusort.enabled = off; $tuned" ;;
		gpusort) echo "$tuned ${GS_BENCH_GPUSORT_SETTINGS:-}" ;;
		*) echo "unknown mode $1" >&2; return 1 ;;
	esac
}

# run_query MODE N RESULTFILE: runs query N once in a fresh session, its
# rows to RESULTFILE; prints its time in ms, ">T" past the timeout, or
# "error" (the message to stderr)
run_query() {
	local mode=$1 n=$2 res=$3 raw err
	raw=$(mktemp /tmp/gpusort-tpch.XXXXXX)
	err=$(mktemp /tmp/gpusort-tpch.XXXXXX)
	{
		mode_settings "$mode"
		echo "SET statement_timeout = '${TIMEOUT}s';"
		echo "\\timing on"
		tpch_query "$n" "$SF"
	} | gs_as_pg psql -X -q -A -t -F $'\x1f' -v ON_ERROR_STOP=1 -f - >"$raw" 2>"$err"
	grep -v '^Time: [0-9.]* ms' "$raw" >"$res"
	if grep -q 'canceling statement due to statement timeout' "$err"; then
		echo ">$((TIMEOUT * 1000))"
	elif grep -q 'ERROR' "$err"; then
		echo "  q$n $mode: $(grep -m1 ERROR "$err")" >&2
		echo "error"
	else
		awk '/^Time: [0-9.]+ ms/ { t = $2 } END { if (t == "") print "error"; else printf "%.1f\n", t }' "$raw"
	fi
	rm -f "$raw" "$err"
}

# explain MODE N: EXPLAIN (ANALYZE, COSTS OFF) of query N, appended to
# $OUT/explain_MODE.txt; prints gpusort's custom nodes, "GpuSort x2, GpuAgg"
explain() {
	local mode=$1 n=$2 out
	out=$({
		mode_settings "$mode"
		echo "SET statement_timeout = '${TIMEOUT}s';"
		echo "EXPLAIN (ANALYZE, COSTS OFF)"
		tpch_query "$n" "$SF"
	} | gs_as_pg psql -X -q -f - 2>&1)
	{ printf '== q%02d (%s)\n' "$n" "$mode"; echo "$out"; echo; } >>"$OUT/explain_$mode.txt"
	echo "$out" | grep -o 'Custom Scan (Gpu[A-Za-z]*)' | sed 's/Custom Scan (\(.*\))/\1/' |
		sort | uniq -c | sort -k1,1nr -k2 | awk '{ s = s (s == "" ? "" : ", ") $2 ($1 > 1 ? " x" $1 : "") }
		END { print s == "" ? "none" : s }'
}

# plan_shape MODE N: the plan's nodes, one a line, indented as in the plan,
# gpusort's named as the stock nodes they replace (GpuSort: Sort, GpuWindow:
# WindowAgg, GpuAgg: GroupAggregate, as a plain Aggregate)
plan_shape() {
	awk -v q="$(printf '== q%02d (%s)' "$2" "$1")" '
		$0 == q { on = 1; next } on && /^== q/ { exit }
		on && /\(actual time|never executed/ {
			if (!top) { if ($0 ~ /QUERY PLAN/) next; top = 1 } else if ($0 !~ /->  /) next
			sub(/  *\((actual time|never executed).*/, "")
			gsub(/Custom Scan \(GpuSort\)/, "Sort"); gsub(/Custom Scan \(GpuWindow\)/, "WindowAgg")
			gsub(/Custom Scan \(GpuAgg\)/, "GroupAggregate"); sub(/ Aggregate$/, " GroupAggregate")
			sub(/^Aggregate$/, "GroupAggregate"); sub(/-> +Aggregate$/, "->  GroupAggregate")
			print
		}' "$OUT/explain_$1.txt"
}

# best and median of a list of times ("error" and ">T" among them)
best_of() {
	printf '%s\n' "$@" | awk -v tmo="$TIMEOUT" '
		/^[0-9.]+$/ { if (b == "" || $1 + 0 < b + 0) b = $1; next }
		/^>/ { to = 1; next } { err = 1 }
		END { if (b != "") print b; else if (to) print ">" tmo * 1000; else print "error" }'
}
median_of() {
	printf '%s\n' "$@" | sed 's/^>.*/1e18/' | grep -E '^[0-9.e]+$' | sort -g | awk '{ v[n++] = $1 + 0 }
		END {
			if (n == 0) { print "error"; exit }
			m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
			if (m >= 1e18) print "timeout"; else printf "%.1f\n", m
		}'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "-" }'
}

[ -n "${GS_NO_BUILD:-}" ] || gs_build_install >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
gs_ensure_locales || exit 1
sb=$(awk '/MemTotal/ { m = int($2 / 1048576 / 4); if (m > 16) m = 16; if (m < 1) m = 1; print m }' /proc/meminfo)
gs_cluster_start "shared_preload_libraries = 'gpusort'" "jit = off" "shared_buffers = '${sb}GB'" \
	"max_wal_size = '8GB'" "max_worker_processes = $((P + 8 > 16 ? P + 8 : 16))" \
	"max_parallel_workers = $((P + 8))" || exit 1
gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE tpch LOCALE 'en_US.UTF-8' TEMPLATE template0" || exit 1
export PGDATABASE=tpch

jobs=$((ncores < 16 ? ncores : 16))
t0=$(date +%s.%N)
tpch_load "$SF" "$jobs" 2>&1 | tee "$OUT/load.log" >&2
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
load_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
gs_as_pg psql -X -q -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null 2>&1
for t in lineitem orders partsupp part customer supplier nation region; do
	gs_as_pg psql -X -q -At -c "SELECT pg_prewarm('$t')" >/dev/null 2>&1
done
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "commit: $(git -C "$GS_ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$GS_ROOT" diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)')"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($ncores cores), P = $P"
	nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
	if [ -n "${GS_NO_BUILD:-}" ]; then
		echo "build: the installed $(pg_config --pkglibdir)/gpusort.so of $(date -u -r "$(pg_config --pkglibdir)/gpusort.so" '+%Y-%m-%d %H:%M UTC') (GS_NO_BUILD)"
	fi
	[ -n "${GS_BENCH_GPUSORT_SETTINGS:-}" ] && echo "gpusort mode also: $GS_BENCH_GPUSORT_SETTINGS"
	echo "postgres: $(pg_config --version), database tpch in en_US.UTF-8, shared_buffers ${sb}GB, jit off"
	echo "data: TPC-H-derived SF $SF (bench/tpch/load.sh, not dbgen), loaded in $load_s s by $jobs sessions;" \
		"lineitem $(gs_as_pg psql -X -At -c 'SELECT count(*) FROM lineitem') rows," \
		"$(gs_as_pg psql -X -At -c "SELECT pg_size_pretty(pg_database_size('tpch'))")"
	echo "runs: $REPS a mode, alternated; timeout ${TIMEOUT} s"
} | tee "$OUT/device.txt" >&2

echo "query,mode,run,ms" >"$OUT/tpch.csv"
declare -A best med same nodes plan
fail=0
QUERIES=$(for n in $QUERIES; do echo $((10#$n)); done)
for n in $QUERIES; do
	q=$(printf 'q%02d' "$n")
	declare -a t_stock=() t_gpusort=()
	for ((r = 1; r <= REPS; r++)); do
		if ((r % 2)); then order="stock gpusort"; else order="gpusort stock"; fi
		for m in $order; do
			res=/dev/null
			[ "$r" = 1 ] && res="$OUT/results/${q}_$m.txt"
			ms=$(run_query "$m" "$n" "$res")
			echo "$q,$m,$r,$ms" >>"$OUT/tpch.csv"
			if [ "$m" = stock ]; then t_stock+=("$ms"); else t_gpusort+=("$ms"); fi
			echo "[$(date -u +%H:%M:%S)] $q $m run $r: $ms ms" >&2
		done
	done
	best[$q,stock]=$(best_of "${t_stock[@]}"); med[$q,stock]=$(median_of "${t_stock[@]}")
	best[$q,gpusort]=$(best_of "${t_gpusort[@]}"); med[$q,gpusort]=$(median_of "${t_gpusort[@]}")
	if [ "${t_stock[0]}" = error ] && [ "${t_gpusort[0]}" = error ]; then
		same[$q]="error in both"; fail=1
	elif [ "${t_stock[0]}" = error ] || [ "${t_gpusort[0]}" = error ]; then
		same[$q]="NO: error in one mode"; fail=1
	elif [[ ${t_stock[0]} == '>'* ]] || [[ ${t_gpusort[0]} == '>'* ]]; then
		same[$q]="n/a (timeout)"
	else
		same[$q]=$(python3 "$GS_ROOT/bench/tpch/compare.py" "$(printf '%s/queries/q%02d.sql' "$TPCH_DIR" "$n")" \
			"$OUT/results/${q}_stock.txt" "$OUT/results/${q}_gpusort.txt") || fail=1
	fi
	echo "[$(date -u +%H:%M:%S)] $q same results: ${same[$q]}" >&2
	nodes[$q]=- plan[$q]=-
	case ${GS_BENCH_EXPLAIN:-both} in none) continue ;; esac
	nodes[$q]=$(explain gpusort "$n")
	case ${GS_BENCH_EXPLAIN:-both} in gpusort) continue ;; esac
	explain stock "$n" >/dev/null
	if [ "$(plan_shape stock "$n")" = "$(plan_shape gpusort "$n")" ]; then plan[$q]=same; else plan[$q]=changed; fi
done

echo "query,stock_best_ms,stock_median_ms,gpusort_best_ms,gpusort_median_ms,ratio,same,nodes,plan" >"$OUT/tpch_summary.csv"
for n in $QUERIES; do
	q=$(printf 'q%02d' "$n")
	echo "$q,${best[$q,stock]},${med[$q,stock]},${best[$q,gpusort]},${med[$q,gpusort]},$(ratio "${best[$q,stock]}" "${best[$q,gpusort]}"),\"${same[$q]}\",\"${nodes[$q]}\",${plan[$q]}" >>"$OUT/tpch_summary.csv"
done
{
	sed 's/^/    /' "$OUT/device.txt"
	echo
	echo "| query | stock ms best | median | gpusort ms best | median | stock/gpusort | same results | gpusort nodes | plan |"
	echo "|---|---:|---:|---:|---:|---:|---|---|---|"
	for n in $QUERIES; do
		q=$(printf 'q%02d' "$n")
		echo "| $q | ${best[$q,stock]} | ${med[$q,stock]} | ${best[$q,gpusort]} | ${med[$q,gpusort]} | $(ratio "${best[$q,stock]}" "${best[$q,gpusort]}") | ${same[$q]} | ${nodes[$q]} | ${plan[$q]} |"
	done
	echo
	for n in $QUERIES; do
		q=$(printf 'q%02d' "$n")
		echo "$q $(ratio "${best[$q,stock]}" "${best[$q,gpusort]}")"
	done | awk '
		$2 ~ /^[0-9.]+$/ && $2 > 0 { s += log($2); k++; if ($2 > 1.5) hi = hi " " $1 " (" $2 "x)"; if ($2 < 0.95) lo = lo " " $1 " (" $2 "x)" }
		END {
			printf "Geometric mean of stock/gpusort over %d queries: %.3fx\n\n", k, k ? exp(s / k) : 0
			printf "Above 1.5x:%s\n\n", hi == "" ? " none" : hi
			printf "Below 0.95x:%s\n", lo == "" ? " none" : lo
		}'
	echo
	echo "GpuSort engines (EXPLAIN ANALYZE of the gpusort mode, $OUT/explain_gpusort.txt):"
	echo
	awk '/^== q/ { q = $2 } /GpuSort: / { sub(/^.*GpuSort: /, ""); print "- " q ": " $0 }' "$OUT/explain_gpusort.txt" 2>/dev/null
} | tee "$OUT/tpch.md"
[ $fail = 0 ] || { echo "tpch: results differ (above)" >&2; exit 1; }
