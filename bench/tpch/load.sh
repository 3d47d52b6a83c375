#!/usr/bin/env bash
# TPC-H-derived data, generated in SQL (not the official dbgen, not
# audited: see gen.sql): creates bench/tpch/schema.sql's tables in the
# database that the PG* variables name and loads scale factor SF into them.
#
#   bench/tpch/load.sh SF [JOBS]       (PGHOST, PGPORT, PGDATABASE, ...)
#   . bench/tpch/load.sh; tpch_load SF [JOBS]     (after test/lib.sh)
#
# SF x: lineitem ~6,000,000 x rows (1..7 a order, 4 on average), orders
# 1,500,000 x, partsupp 800,000 x, part 200,000 x, customer 150,000 x,
# supplier 10,000 x, nation 25, region 5.  Each large table is inserted by
# JOBS sessions at once (default: the cores, at most 16), each a slice of
# its keys, as gs_load_parallel does (test/lib.sh): the rows are the same
# whatever JOBS is.  The tables are unlogged (TPCH_LOGGED=1: logged); their
# primary keys and foreign keys' indexes (schema.sql) are built after the
# data; then VACUUM ANALYZE.

TPCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! declare -F gs_as_pg >/dev/null; then
	. "$TPCH_DIR/../../test/lib.sh"
fi

tpch_psql() { gs_as_pg psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# the text pool, detoasted once per statement (see tpch_gen.text)
TPCH_POOL="(SELECT b || ''::bytea FROM tpch_gen.pool)"

# tpch_insert TABLE LO HI: the INSERT of TABLE's slice LO..HI of its keys
# (orders and lineitem: of the order numbers 1..O; partsupp: of the parts)
tpch_insert() {
	local t=$1 lo=$2 hi=$3
	case $t in
	part) cat <<-EOF
	INSERT INTO part
	SELECT k,
	       (SELECT string_agg(c, ' ' ORDER BY h, o)
	          FROM (SELECT c, o, hashint8extended(k, 10000 + o) AS h
	                  FROM unnest(tpch_gen.colors()) WITH ORDINALITY u(c, o)
	                 ORDER BY h, o LIMIT 5) w),
	       'Manufacturer#' || m, 'Brand#' || m || tpch_gen.r(103, k, 1, 5),
	       tpch_gen.pick(tpch_gen.type_s1(), 104, k) || ' ' || tpch_gen.pick(tpch_gen.type_s2(), 105, k)
	         || ' ' || tpch_gen.pick(tpch_gen.type_s3(), 106, k),
	       tpch_gen.r(107, k, 1, 50),
	       tpch_gen.pick(tpch_gen.container_s1(), 108, k) || ' ' || tpch_gen.pick(tpch_gen.container_s2(), 109, k),
	       tpch_gen.retailprice(k),
	       tpch_gen.text($TPCH_POOL, 110, k, 5, 22)
	  FROM generate_series($lo::int8, $hi) k,
	       LATERAL (SELECT tpch_gen.r(102, k, 1, 5) AS m) x
	EOF
	;;
	# SF x 5 suppliers' comments say "Customer ... Complaints" (those
	# query 16 leaves out), as many "Customer ... Recommends"
	supplier) cat <<-EOF
	INSERT INTO supplier
	SELECT k, 'Supplier#' || lpad(k::text, 9, '0'), tpch_gen.vstring(201, k, 10, 40), nk,
	       tpch_gen.phone(203, k, nk), tpch_gen.r(206, k, -99999, 999999) * 0.01,
	       CASE tpch_gen.r(207, k, 1, 2000)
	         WHEN 1 THEN left(c, p) || 'Customer ' || substr(c, p + 1, n) || 'Complaints' || substr(c, p + n + 20)
	         WHEN 2 THEN left(c, p) || 'Customer ' || substr(c, p + 1, n) || 'Recommends' || substr(c, p + n + 20)
	         ELSE c END
	  FROM generate_series($lo::int8, $hi) k,
	       LATERAL (SELECT tpch_gen.r(202, k, 0, 24) AS nk, tpch_gen.text($TPCH_POOL, 208, k, 25, 100) AS c,
	                       tpch_gen.r(210, k, 0, 75)::int AS p, tpch_gen.r(211, k, 0, 5)::int AS n) x
	EOF
	;;
	partsupp) cat <<-EOF
	INSERT INTO partsupp
	SELECT k, tpch_gen.suppkey(k, j, $TPCH_S), tpch_gen.r(301, k * 4 + j, 1, 9999),
	       tpch_gen.r(302, k * 4 + j, 100, 100000) * 0.01, tpch_gen.text($TPCH_POOL, 303, k * 4 + j, 49, 198)
	  FROM generate_series($lo::int8, $hi) k, generate_series(0::int8, 3) j
	EOF
	;;
	customer) cat <<-EOF
	INSERT INTO customer
	SELECT k, 'Customer#' || lpad(k::text, 9, '0'), tpch_gen.vstring(401, k, 10, 40), nk,
	       tpch_gen.phone(403, k, nk), tpch_gen.r(406, k, -99999, 999999) * 0.01,
	       tpch_gen.pick(tpch_gen.segments(), 407, k), tpch_gen.text($TPCH_POOL, 408, k, 29, 116)
	  FROM generate_series($lo::int8, $hi) k,
	       LATERAL (SELECT tpch_gen.r(402, k, 0, 24) AS nk) x
	EOF
	;;
	# a customer of the two thirds whose key is no multiple of 3 (the
	# others order nothing); status and total price of its lines, which
	# are computed again here by the functions the lineitem INSERT uses
	orders) cat <<-EOF
	INSERT INTO orders
	SELECT tpch_gen.orderkey(i), ck + ck / 2 + 1,
	       CASE WHEN a.nf = 0 THEN 'O' WHEN a.no = 0 THEN 'F' ELSE 'P' END,
	       a.total, tpch_gen.orderdate(i), tpch_gen.pick(tpch_gen.priorities(), 504, i),
	       'Clerk#' || lpad(tpch_gen.r(505, i, 1, $TPCH_CLERKS)::text, 9, '0'), 0,
	       tpch_gen.text($TPCH_POOL, 506, i, 19, 78)
	  FROM generate_series($lo::int8, $hi) i,
	       LATERAL (SELECT tpch_gen.r(503, i, 0, $TPCH_C - $TPCH_C / 3 - 1) AS ck) x,
	       LATERAL (SELECT count(*) FILTER (WHERE tpch_gen.l_shipdate(i, l) > date '1995-06-17') AS no,
	                       count(*) FILTER (WHERE tpch_gen.l_shipdate(i, l) <= date '1995-06-17') AS nf,
	                       sum(tpch_gen.l_extendedprice(i, l, $TPCH_P) * (1 + tpch_gen.l_tax(i, l))
	                           * (1 - tpch_gen.l_discount(i, l))) AS total
	                  FROM generate_series(1, tpch_gen.nlines(i)) l) a
	EOF
	;;
	# CURRENTDATE = 1995-06-17: lines shipped after it are open ('O'),
	# lines received after it not returned ('N')
	lineitem) cat <<-EOF
	INSERT INTO lineitem
	SELECT tpch_gen.orderkey(i), pk, tpch_gen.suppkey(pk, tpch_gen.r(607, i * 8 + l, 0, 3), $TPCH_S), l,
	       tpch_gen.l_quantity(i, l), tpch_gen.l_extendedprice(i, l, $TPCH_P),
	       tpch_gen.l_discount(i, l), tpch_gen.l_tax(i, l),
	       CASE WHEN rd <= date '1995-06-17'
	            THEN CASE tpch_gen.r(608, i * 8 + l, 0, 1) WHEN 0 THEN 'R' ELSE 'A' END ELSE 'N' END,
	       CASE WHEN sd > date '1995-06-17' THEN 'O' ELSE 'F' END,
	       sd, tpch_gen.orderdate(i) + tpch_gen.r(609, i * 8 + l, 30, 90)::int, rd,
	       tpch_gen.pick(tpch_gen.instructions(), 610, i * 8 + l), tpch_gen.pick(tpch_gen.modes(), 611, i * 8 + l),
	       tpch_gen.text($TPCH_POOL, 612, i * 8 + l, 10, 43)
	  FROM generate_series($lo::int8, $hi) i,
	       LATERAL generate_series(1, tpch_gen.nlines(i)) l,
	       LATERAL (SELECT tpch_gen.l_partkey(i, l, $TPCH_P) AS pk, tpch_gen.l_shipdate(i, l) AS sd,
	                       tpch_gen.l_receiptdate(i, l) AS rd) x
	EOF
	;;
	region) cat <<-EOF
	INSERT INTO region
	SELECT k - 1, name, tpch_gen.text($TPCH_POOL, 701, k, 31, 115)
	  FROM unnest('{AFRICA,AMERICA,ASIA,EUROPE,MIDDLE EAST}'::text[]) WITH ORDINALITY u(name, k)
	EOF
	;;
	nation) cat <<-EOF
	INSERT INTO nation
	SELECT k - 1, name, rk, tpch_gen.text($TPCH_POOL, 703, k, 31, 114)
	  FROM unnest('{ALGERIA,ARGENTINA,BRAZIL,CANADA,EGYPT,ETHIOPIA,FRANCE,GERMANY,INDIA,INDONESIA,IRAN,IRAQ,JAPAN,JORDAN,KENYA,MOROCCO,MOZAMBIQUE,PERU,CHINA,ROMANIA,SAUDI ARABIA,VIETNAM,RUSSIA,UNITED KINGDOM,UNITED STATES}'::text[],
	              '{0,1,1,1,4,0,3,3,2,2,4,4,2,4,0,0,0,1,2,3,4,2,3,3,1}'::int[]) WITH ORDINALITY u(name, rk, k)
	EOF
	;;
	*) echo "tpch_insert: unknown table $t" >&2; return 1 ;;
	esac
}

# tpch_query N SF: the text of query N (1..22) for scale factor SF (Q11's
# FRACTION is 0.0001 / SF)
tpch_query() {
	local f
	f=$(printf '%s/queries/q%02d.sql' "$TPCH_DIR" "$((10#$1))")
	[ -r "$f" ] || { echo "tpch_query: no $f" >&2; return 1; }
	sed "s/0\.0001000000/$(awk -v s="$2" 'BEGIN { printf "%.10f", 0.0001 / s }')/" "$f"
}

# tpch_slices TABLE N JOBS: TABLE's keys 1..N inserted by JOBS sessions
tpch_slices() {
	local t=$1 n=$2 jobs=$3 j lo hi pids=() rc=0
	[ "$jobs" -gt "$n" ] && jobs=$n
	[ "$jobs" -lt 1 ] && jobs=1
	for ((j = 0; j < jobs; j++)); do
		lo=$((j * n / jobs + 1)); hi=$(((j + 1) * n / jobs))
		tpch_psql -c "SET gpusort.enabled = off" -c "$(tpch_insert "$t" "$lo" "$hi")" &
		pids+=($!)
	done
	for j in "${pids[@]}"; do wait "$j" || rc=1; done
	return $rc
}

# tpch_load SF [JOBS]
tpch_load() {
	local sf=$1 jobs=${2:-$(nproc)} t t0 t1 pids=() rc=0 p
	[ "$jobs" -gt 16 ] && jobs=16
	TPCH_P=$(awk -v s="$sf" 'BEGIN { printf "%d", s * 200000 + 0.5 }')
	TPCH_S=$(awk -v s="$sf" 'BEGIN { printf "%d", s * 10000 + 0.5 }')
	TPCH_C=$(awk -v s="$sf" 'BEGIN { printf "%d", s * 150000 + 0.5 }')
	TPCH_O=$(awk -v s="$sf" 'BEGIN { printf "%d", s * 1500000 + 0.5 }')
	TPCH_CLERKS=$(awk -v s="$sf" 'BEGIN { c = int(s * 1000 + 0.5); print c < 1 ? 1 : c }')
	if [ "$TPCH_S" -lt 4 ] || [ "$TPCH_O" -gt 536870911 ]; then
		echo "tpch_load: scale factor $sf out of range (0.0004 .. 300)" >&2
		return 1
	fi
	t0=$(date +%s.%N)
	tpch_psql -v tpch_phase=tables -f - <"$TPCH_DIR/schema.sql" || return 1
	if [ -z "${TPCH_LOGGED:-}" ]; then
		for t in region nation part supplier partsupp customer orders lineitem; do
			tpch_psql -c "ALTER TABLE $t SET UNLOGGED" || return 1
		done
	fi
	tpch_psql -c "SET gpusort.enabled = off" -f - <"$TPCH_DIR/gen.sql" >/dev/null || return 1
	tpch_psql -c "$(tpch_insert region 0 0)" -c "$(tpch_insert nation 0 0)" || return 1
	tpch_slices part "$TPCH_P" "$jobs" || return 1
	tpch_slices supplier "$TPCH_S" "$jobs" || return 1
	tpch_slices partsupp "$TPCH_P" "$jobs" || return 1
	tpch_slices customer "$TPCH_C" "$jobs" || return 1
	tpch_slices orders "$TPCH_O" "$jobs" || return 1
	tpch_slices lineitem "$TPCH_O" "$jobs" || return 1
	t1=$(date +%s.%N)
	echo "tpch: SF $sf generated in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s ($jobs sessions)" >&2
	# the keys and indexes (schema.sql's), a session a table (index
	# builds with parallel workers), then VACUUM ANALYZE, a session a table
	for t in lineitem orders partsupp part customer supplier nation region; do
		awk -v t="$t" '/^\\if :tpch_keys/ { on = 1; next } /^\\endif/ { on = 0 }
			on && ($3 == t || index($0, " ON " t " ") > 0)' "$TPCH_DIR/schema.sql" |
			tpch_psql -c "SET maintenance_work_mem = '1GB'" \
				-c "SET max_parallel_maintenance_workers = $((jobs > 1 ? jobs - 1 : 0))" -f - &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	[ $rc = 0 ] || return 1
	pids=()
	tpch_psql -c "DROP SCHEMA tpch_gen CASCADE" >/dev/null 2>&1
	for t in lineitem orders partsupp part customer supplier nation region; do
		tpch_psql -c "VACUUM (ANALYZE) $t" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	[ $rc = 0 ] || return 1
	echo "tpch: SF $sf loaded in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (keys and VACUUM ANALYZE included)" >&2
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	[ $# -ge 1 ] || { echo "usage: $0 SF [JOBS]" >&2; exit 2; }
	tpch_load "$@"
fi
