#!/usr/bin/env bash
# The gpusort_stat view, on a cluster of its own with gpusort in
# shared_preload_libraries:
#
#  1. a scripted workload in a new database, whose counts are known
#     exactly: serial sorts on the CPU for each reason the GPU is not used
#     (gpusort.device = cpu, too few rows for auto, the GPU sessions cap or,
#     in a build without CUDA, no GPU), a parallel sort (counted once, not
#     per worker), sorts that write runs to temp files (past
#     gpusort.max_memory at run time and by the planner's estimate; past
#     gpusort.max_total_memory), sorts the planner leaves to stock (under
#     gpusort.min_rows, no encoder),
#     a GpuWindow computed and one whose WindowAgg ran, Aggs and WindowAggs
#     left stock (EXPLAIN's "Not Used" reasons), a libc collation's
#     strcoll check (its ties as EXPLAIN ANALYZE showed them), and a cancel
#     (statement_timeout) while the sort reads its input;
#  2. another database's sort is counted in its own row only;
#  3. gpusort_stat_reset() zeroes every counter and moves stats_reset, and
#     only a superuser may call it; ALTER EXTENSION gpusort UPDATE from 1.0
#     (gpusort--1.0--1.1.sql, then gpusort--1.1--1.2.sql) makes the view and
#     functions members;
#  4. pgbench, 8 clients each running the same sort GS_STAT_TX (200) times:
#     exactly 8 * GS_STAT_TX sorts and their rows, no count lost.
#
# Run by test/run-all (needs the extension installed).
set -uo pipefail
cd "$(dirname "$0")/../../.."
. test/lib.sh

tx=${GS_STAT_TX:-200}
failures=0
fail() {
	echo "FAILED: $*"
	failures=$((failures + 1))
}

gs_cluster_start "shared_preload_libraries = 'gpusort'" || exit 1
opts="-c gpusort.min_rows=0 -c gpusort.device=cpu -c max_parallel_workers_per_gather=0"
q() {	# q DB SQL: one value per line, fields separated by |
	local db=$1
	shift
	PGOPTIONS="$opts" psql -X -At -v ON_ERROR_STOP=1 -d "$db" -c "$@"
}

# check DB WHAT NAME=VALUE...: the view's row for DB has these values, and
# every other counter of it is zero (bytes and times are checked apart:
# they vary); the view is read in statdb, the database with the extension
check() {
	local db=$1 what=$2 cols row name want got bad=0 i=0
	shift 2
	declare -A exp=()
	for a in "$@"; do exp[${a%%=*}]=${a#*=}; done
	# (no aggregate that sorts: its Agg would count as not a GpuAgg)
	cols=$(q statdb "SELECT array_to_string(ARRAY(SELECT attname FROM pg_attribute
		WHERE attrelid = 'gpusort_stat'::regclass AND attnum > 2 AND attname NOT LIKE '%\_ms' AND attname NOT IN ('bytes_sorted', 'stats_reset')
		ORDER BY attnum), ',')")
	row=$(q statdb "SELECT $cols FROM gpusort_stat WHERE datname = '$db'") || { fail "$what: no view"; return; }
	[ -n "$row" ] || { fail "$what: no row for $db in gpusort_stat"; return; }
	IFS=, read -r -a names <<<"$cols"
	IFS='|' read -r -a vals <<<"$row"
	for name in "${names[@]}"; do
		got=${vals[$i]}
		i=$((i + 1))
		want=${exp[$name]:-0}
		if [ "$got" != "$want" ]; then
			echo "  $what: $name = $got, expected $want"
			bad=1
		fi
	done
	[ $bad = 0 ] && echo "ok: $what ($row)" || fail "$what: counts differ (above)"
}

# ---- 1. the workload --------------------------------------------------------------
q postgres "CREATE DATABASE statdb" >/dev/null || exit 1
q statdb "CREATE EXTENSION gpusort" >/dev/null || exit 1
q statdb "
CREATE TABLE t (i int, s text, iv interval);
INSERT INTO t SELECT g, md5(g::text), (g % 101) * interval '1 hour' FROM generate_series(1, 20000) g;
ANALYZE t;
-- t's rows, which the planner expects to be 100: a sort planned for few rows that gets many
CREATE FUNCTION t_rows() RETURNS SETOF t LANGUAGE plpgsql ROWS 100 AS
\$\$ BEGIN RETURN QUERY SELECT * FROM t; END \$\$;
-- a query's EXPLAIN (ANALYZE, FORMAT JSON), to compare the view with
CREATE FUNCTION plan_of(query text) RETURNS jsonb LANGUAGE plpgsql AS
\$\$ DECLARE j jsonb; BEGIN EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO j; RETURN j->0->'Plan'; END \$\$;" >/dev/null || exit 1

# the parallel plan must be one (else step W4 tests nothing)
par="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET gpusort.parallel = on;"
plan=$(q statdb "$par EXPLAIN (COSTS OFF) SELECT * FROM t ORDER BY i")
grep -q "GpuSortStore" <<<"$plan" || fail "the parallel sort's plan has no GpuSortStore: $plan"
cuda=$(q statdb "SELECT built_with_cuda FROM gpusort_gpu_info()")
[ "$cuda" = t ] && cap=cpu_sessions_cap || cap=cpu_gpu_unavailable

q statdb "SELECT gpusort_stat_reset()" >/dev/null || exit 1
log=$(mktemp /tmp/gpusort-stat.XXXXXX.log)
PGOPTIONS="$opts" psql -X -q -d statdb -o /dev/null -f - >"$log" 2>&1 <<EOF
-- W1 serial, gpusort.device = cpu
SELECT * FROM t ORDER BY i;
-- W2 too few rows for the GPU under auto
SET gpusort.device = auto;
SELECT * FROM t ORDER BY i;
-- W3 the GPU sessions cap (a build without CUDA: no GPU)
SET gpusort.device = gpu;
SET gpusort.max_gpu_sessions = 0;
SELECT * FROM t ORDER BY i;
RESET gpusort.max_gpu_sessions;
SET gpusort.device = cpu;
-- W4 parallel intake: one sort
$par
SELECT * FROM t ORDER BY i;
SET max_parallel_workers_per_gather = 0;
-- W5 more rows than planned, past gpusort.max_memory: runs in temp files
SET gpusort.max_memory = '1MB';
SET work_mem = '64kB';
SELECT * FROM t_rows() ORDER BY i;
-- W6 the GpuWindow over that: its WindowAgg runs (the sort writes runs again)
SELECT i, row_number() OVER (ORDER BY i) FROM t_rows();
-- W7 planned past gpusort.max_memory: a GpuSort that writes runs
SELECT * FROM t ORDER BY s COLLATE "C";
RESET work_mem;
RESET gpusort.max_memory;
-- W8 planned stock: no encoder for a non-default operator class (interval
-- has one since the keys' dictionary ranks and interval keys)
SELECT * FROM t ORDER BY s USING ~<~, i;
-- W9 planned stock: under gpusort.min_rows
SET gpusort.min_rows = 100000;
SELECT * FROM t ORDER BY i;
SET gpusort.min_rows = 0;
-- W10 a GpuWindow computed
SELECT i, row_number() OVER (ORDER BY i) FROM t;
-- W11 the server's sorts would hold more than gpusort.max_total_memory: runs
SET gpusort.max_total_memory = '1MB';
SELECT * FROM t ORDER BY i;
RESET gpusort.max_total_memory;
-- W13 an Agg and a WindowAgg left stock, counted when planned (EXPLAIN
-- plans; its GpuSorts do not run): two DISTINCT columns, a window
-- function not computed, and each setting off
EXPLAIN SELECT i % 10, count(DISTINCT i), count(DISTINCT s) FROM t GROUP BY 1;
EXPLAIN SELECT i, string_agg(s, ',') OVER (ORDER BY i) FROM t;
SET gpusort.aggregates = off;
EXPLAIN SELECT i % 10, count(DISTINCT i) FROM t GROUP BY 1;
RESET gpusort.aggregates;
SET gpusort.window_functions = off;
EXPLAIN SELECT i, row_number() OVER (ORDER BY i) FROM t;
RESET gpusort.window_functions;
-- W12 cancelled while reading its input (a millisecond a row)
SET statement_timeout = '300ms';
SELECT g FROM generate_series(1, 5000) g WHERE pg_sleep(0.001) IS NOT NULL ORDER BY g;
RESET statement_timeout;
EOF
grep -q "canceling statement due to statement timeout" "$log" || fail "W12 was not cancelled: $(cat "$log")"
# W14 a libc collation: strcoll checks, ties as EXPLAIN ANALYZE shows them
ex=$(q statdb "SELECT concat_ws('|', p->>'Tie Groups', p->>'Tie Rows', p ? 'Verified Pairs', p->>'Resorted By Comparators')
	FROM plan_of('SELECT * FROM t ORDER BY s COLLATE \"en_US.utf8\"') p") || fail "W14 failed"
IFS='|' read -r tgroups trows verified resorted <<<"$ex"
[ "$verified" = t ] && checks=1 || checks=0
[ "$resorted" = true ] && repairs=1 || repairs=0
check statdb "the workload" sorts_cpu=10 sorts_cancelled=1 \
	cpu_by_setting=8 cpu_few_rows=1 $cap=1 \
	stock_min_rows=1 stock_no_encoding=1 \
	rows_sorted=200000 tie_groups="$tgroups" tie_rows="$trows" \
	strcoll_checks=$checks strcoll_repairs=$repairs spills=4 \
	windows_computed=1 windows_tuplesort=1 \
	agg_not_used_columns=1 agg_not_used_setting=1 \
	window_not_used_function=1 window_not_used_setting=1
[ "$checks" = 1 ] || echo "note: the en_US.utf8 sort was not checked with strcoll ($ex)"
times=$(q statdb "SELECT intake_ms > 0 AND sort_ms > 0 AND keys_ms > 0 AND window_ms > 0 AND bytes_sorted > 0
	FROM gpusort_stat WHERE datname = 'statdb'")
[ "$times" = t ] || fail "times and bytes are not counted: $(q statdb "SELECT * FROM gpusort_stat" -x)"

# ---- 2. per database -------------------------------------------------------------
q statdb "SELECT gpusort_stat_reset((SELECT oid FROM pg_database WHERE datname = 'postgres'))" >/dev/null
q postgres "SELECT count(*) FROM (SELECT * FROM generate_series(1, 10) g ORDER BY g OFFSET 0) s" >/dev/null
check postgres "another database" sorts_cpu=1 cpu_by_setting=1 rows_sorted=10
check statdb "this database after the other's sort" sorts_cpu=10 sorts_cancelled=1 \
	cpu_by_setting=8 cpu_few_rows=1 $cap=1 \
	stock_min_rows=1 stock_no_encoding=1 \
	rows_sorted=200000 tie_groups="$tgroups" tie_rows="$trows" \
	strcoll_checks=$checks strcoll_repairs=$repairs spills=4 \
	windows_computed=1 windows_tuplesort=1 \
	agg_not_used_columns=1 agg_not_used_setting=1 \
	window_not_used_function=1 window_not_used_setting=1

# ---- 3. reset ----------------------------------------------------------------------
before=$(q statdb "SELECT stats_reset FROM gpusort_stat WHERE datname = 'statdb'")
q statdb "SELECT gpusort_stat_reset()" >/dev/null
check statdb "after gpusort_stat_reset()"
check postgres "the other database after gpusort_stat_reset()"
moved=$(q statdb "SELECT stats_reset > '$before' AND intake_ms = 0 AND bytes_sorted = 0
	FROM gpusort_stat WHERE datname = 'statdb'")
[ "$moved" = t ] || fail "stats_reset did not move, or times stayed"
# only a superuser (or a role granted it) may reset
q statdb "CREATE ROLE nobody_stat LOGIN" >/dev/null
err=$(PGOPTIONS="$opts" psql -X -At -U nobody_stat -d statdb -c "SELECT gpusort_stat_reset()" 2>&1)
grep -q "permission denied" <<<"$err" || fail "a plain role could reset: $err"

# ---- 3b. the update from extension version 1.0 -----------------------------------
# 1.0 is 1.1 without the statistics: made by taking them out of a new 1.1;
# then the update script must bring them back as members of the extension
q postgres "CREATE DATABASE upgradedb" >/dev/null
q upgradedb "CREATE EXTENSION gpusort;
ALTER EXTENSION gpusort DROP VIEW gpusort_stat;
ALTER EXTENSION gpusort DROP FUNCTION gpusort_stat();
ALTER EXTENSION gpusort DROP FUNCTION gpusort_stat_reset(oid);
DROP VIEW gpusort_stat; DROP FUNCTION gpusort_stat(); DROP FUNCTION gpusort_stat_reset(oid);
UPDATE pg_extension SET extversion = '1.0' WHERE extname = 'gpusort'" >/dev/null || fail "making version 1.0"
got=$(q upgradedb "ALTER EXTENSION gpusort UPDATE" -c "SELECT extversion FROM pg_extension WHERE extname = 'gpusort'" \
	-c "SELECT count(*) >= 0 FROM gpusort_stat" -c "DROP EXTENSION gpusort" \
	-c "SELECT to_regclass('gpusort_stat') IS NULL AND to_regprocedure('gpusort_stat_reset(oid)') IS NULL" 2>&1 | tr '\n' ' ')
[ "$got" = "ALTER EXTENSION 1.2 t DROP EXTENSION t " ] && echo "ok: ALTER EXTENSION gpusort UPDATE from 1.0" || fail "the update from 1.0: $got"

# ---- 4. concurrent sessions --------------------------------------------------------
script=$(mktemp /tmp/gpusort-stat.XXXXXX.sql)
echo "SELECT count(*) FROM (SELECT i FROM t WHERE i <= 500 ORDER BY i OFFSET 0) q;" >"$script"
chmod 644 "$script"
plan=$(q statdb "EXPLAIN (COSTS OFF) $(cat "$script")")
grep -q "GpuSort" <<<"$plan" || fail "pgbench's query does not sort with GpuSort: $plan"
q statdb "SELECT gpusort_stat_reset()" >/dev/null
if PGOPTIONS="$opts" pgbench -n -c 8 -j 2 -t "$tx" -f "$script" statdb >"$log" 2>&1; then
	grep -E "^number of (transactions actually processed|failed)" "$log"
	check statdb "pgbench, 8 clients x $tx" sorts_cpu=$((8 * tx)) cpu_by_setting=$((8 * tx)) \
		rows_sorted=$((8 * tx * 500))
else
	cat "$log"
	fail "pgbench failed"
fi
rm -f "$script" "$log"

[ $failures = 0 ] && echo "stat: ok" || echo "stat: $failures failed"
[ $failures = 0 ]
