#!/usr/bin/env bash
# The 22 TPC-H queries (bench/tpch/: TPC-H-derived data of scale factor
# GS_TPCH_SF, default 0.01, generated in SQL, in an en_US.UTF-8 database),
# gpusort on (gpusort.min_rows = 0: every Sort a GpuSort) against off, the
# whole results compared (bench/tpch/compare.py: in order, rows of equal
# ORDER BY values as multisets), under three sets of planner settings, the
# same in both modes:
#   default    the planner's defaults
#   parallel   parallel plans forced (no setup or tuple cost, any table
#              size, 2 workers), gpusort.parallel = on (the workers store
#              their rows for the leader's GpuSort)
#   sorted     no hash joins nor hash aggregates (merge joins and group
#              aggregates over sorts), gpusort.max_memory = 1MB (sorts past
#              it write runs to temp files and merge them)
#   sorted_parallel   both
# Also says whether the generated data is the data recorded for SF 0.01
# on PostgreSQL 15 (GS_TPCH_STRICT_DATA=1: a check), and checks that
# gpusort's plans hold GpuSorts.  Prints "tpch: N passed, M
# failed"; exits 0 when none failed.  Run by test/run-all (needs the
# extension installed).  GS_TPCH_CONFIGS="default sorted" runs fewer sets.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. test/lib.sh
. bench/tpch/load.sh

SF=${GS_TPCH_SF:-0.01}
# md5 of the tables' md5s (tpch_checksum below) at SF 0.01
SUM_001=5b7ccf7ce6935a92f029f88707ee123f
out=${GS_TEST_TMP:-$(mktemp -d /tmp/gpusort-tpch.XXXXXX)}/tpch
mkdir -p "$out"
passed=0 failed=0
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

gs_cluster_start "shared_preload_libraries = 'gpusort'" "jit = off" || exit 1
locale=en_US.UTF-8
gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE tpch LOCALE '$locale' TEMPLATE template0" 2>/dev/null || {
	locale=C.UTF-8
	echo "tpch: no en_US.UTF-8 locale here (gs_ensure_locales): the database is in $locale"
	gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE tpch LOCALE '$locale' TEMPLATE template0" || exit 1
}
export PGDATABASE=tpch
tpch_load "$SF" 2 || { echo "tpch: the load failed"; echo "tpch: 0 passed, 1 failed"; exit 1; }

# the data, checksummed table by table in key order
tpch_checksum() {
	gs_as_pg psql -X -q -At -v ON_ERROR_STOP=1 -c "SET gpusort.enabled = off" -c "
SELECT md5(string_agg(m, ',' ORDER BY n)) FROM (
  SELECT 1 AS n, md5(string_agg(t::text, ',' ORDER BY r_regionkey)) AS m FROM region t UNION ALL
  SELECT 2, md5(string_agg(t::text, ',' ORDER BY n_nationkey)) FROM nation t UNION ALL
  SELECT 3, md5(string_agg(t::text, ',' ORDER BY p_partkey)) FROM part t UNION ALL
  SELECT 4, md5(string_agg(t::text, ',' ORDER BY s_suppkey)) FROM supplier t UNION ALL
  SELECT 5, md5(string_agg(t::text, ',' ORDER BY ps_partkey, ps_suppkey)) FROM partsupp t UNION ALL
  SELECT 6, md5(string_agg(t::text, ',' ORDER BY c_custkey)) FROM customer t UNION ALL
  SELECT 7, md5(string_agg(t::text, ',' ORDER BY o_orderkey)) FROM orders t UNION ALL
  SELECT 8, md5(string_agg(t::text, ',' ORDER BY l_orderkey, l_linenumber)) FROM lineitem t) s"
}
# said, not counted: recorded on PostgreSQL 15 only, and the comparisons
# below hold on any data (GS_TPCH_STRICT_DATA=1 fails on a mismatch)
if [ "$SF" = 0.01 ]; then
	sum=$(tpch_checksum)
	if [ "$sum" = "$SUM_001" ]; then
		echo "data: checksum $sum, as recorded"
	elif [ -n "${GS_TPCH_STRICT_DATA:-}" ]; then
		fail "data: checksum $sum, recorded $SUM_001 (bench/tpch/gen.sql or load.sh changed, or PostgreSQL $GS_PGVER computes a value differently)"
	else
		echo "note: data checksum $sum, recorded $SUM_001 on PostgreSQL 15 (bench/tpch/gen.sql or load.sh changed, or PostgreSQL $GS_PGVER computes a value differently)"
	fi
fi

config_settings() {
	case $1 in
		default) echo "" ;;
		parallel) echo "SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
			SET min_parallel_index_scan_size = 0; SET max_parallel_workers_per_gather = 2; SET gpusort.parallel = on;" ;;
		sorted) echo "SET enable_hashjoin = off; SET enable_hashagg = off; SET gpusort.max_memory = '1MB';" ;;
		sorted_parallel) echo "$(config_settings parallel) $(config_settings sorted)" ;;
	esac
}

# run CONFIG MODE N FILE: query N's rows to FILE; non-zero on an error
run() {
	local config=$1 mode=$2 n=$3 file=$4
	{
		echo "SET gpusort.min_rows = 0; SET gpusort.enabled = $mode;"
		config_settings "$config"
		tpch_query "$n" "$SF"
	} | gs_as_pg psql -X -q -A -t -F $'\x1f' -v ON_ERROR_STOP=1 -f - >"$file" 2>"$file.err"
}

plans=0 gpusorts=0
for config in ${GS_TPCH_CONFIGS:-default parallel sorted sorted_parallel}; do
	for n in $(seq 1 22); do
		q=$(printf 'q%02d' "$n")
		f=$out/${q}_$config
		if ! run "$config" off "$n" "${f}_off.txt"; then
			fail "$q $config: stock: $(grep -m1 ERROR "${f}_off.txt.err")"
			continue
		fi
		if ! run "$config" on "$n" "${f}_on.txt"; then
			fail "$q $config: gpusort: $(grep -m1 ERROR "${f}_on.txt.err")"
			continue
		fi
		same=$(python3 bench/tpch/compare.py "$(printf 'bench/tpch/queries/q%02d.sql' "$n")" "${f}_off.txt" "${f}_on.txt")
		plan=$({
			echo "SET gpusort.min_rows = 0;"
			config_settings "$config"
			echo "EXPLAIN (COSTS OFF)"
			tpch_query "$n" "$SF"
		} | gs_as_pg psql -X -q -f - 2>&1)
		echo "$plan" >"${f}_plan.txt"
		nodes=$(echo "$plan" | grep -o 'Custom Scan (Gpu[A-Za-z]*)' | sed 's/Custom Scan (\(.*\))/\1/' | sort | uniq -c |
			awk '{ s = s (s == "" ? "" : ", ") $2 ($1 > 1 ? " x" $1 : "") } END { print s == "" ? "no custom node" : s }')
		plans=$((plans + 1))
		echo "$plan" | grep -q 'Custom Scan (GpuSort)' && gpusorts=$((gpusorts + 1))
		case $same in
			yes*) echo "ok: $q $config: $same ($(wc -l <"${f}_on.txt") rows; $nodes)"; passed=$((passed + 1)) ;;
			*) fail "$q $config: $same ($nodes; ${f}_*.txt)" ;;
		esac
	done
done

if [ "$gpusorts" -gt 0 ]; then
	echo "ok: a GpuSort in $gpusorts of $plans plans"; passed=$((passed + 1))
else
	fail "no GpuSort in any of $plans plans (is gpusort loaded?)"
fi
echo "tpch: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
