#!/usr/bin/env bash
# GpuSort across servers: three shard clusters and a coordinator on unix
# sockets, a table hash-partitioned over postgres_fdw foreign tables, gpusort
# preloaded everywhere with every sort a GpuSort (gpusort.min_rows = 0).
# Each query's whole result, in order, is compared with the same query on
# one node (a local copy of the table on the coordinator, gpusort off):
#
#   - ORDER BY pushed down to the shards (Merge Append of sorted foreign
#     scans), with and without LIMIT; the shards' logs (auto_explain) must
#     show that they sorted with GpuSort;
#   - sorts the FDW cannot push down (COLLATE "C", an expression), which
#     run as a GpuSort on the coordinator;
#   - a window function over the Merge Append;
#   - a statement_timeout cancel while the coordinator fetches from the
#     shards: the error stock gives, no crash, and the same connections
#     serve the next query.
#
# Run by test/run-all (needs the extension installed; postgres_fdw and
# auto_explain are in Debian's server package).
set -uo pipefail
cd "$(dirname "$0")/../../.."
. test/lib.sh

# (not under $GS_TEST_TMP: the clusters' owner must reach it)
tmp=$(mktemp -d /tmp/gpusort-sharding.XXXXXX)
chmod 755 "$tmp"
[ "$(id -u)" = 0 ] && chown postgres "$tmp"
nodes=(shard0 shard1 shard2 coord)
declare -A port
failures=0

stop_all() {
	local n
	for n in "${nodes[@]}"; do
		[ -f "$tmp/$n/postmaster.pid" ] &&
			gs_as_pg pg_ctl -D "$tmp/$n" -m immediate -w stop >/dev/null 2>&1
	done
	rm -rf "$tmp"
}
[ -n "${GS_SHARDING_KEEP:-}" ] || trap stop_all EXIT

# a free port from 56432 on, for each node
next=56432
free_port() {
	while [ -e "/tmp/.s.PGSQL.$next" ] || [ -e "$tmp/.s.PGSQL.$next" ] ||
		(exec 3<>"/dev/tcp/127.0.0.1/$next") 2>/dev/null; do
		next=$((next + 1))
	done
	echo "$next"
	next=$((next + 1))
}

for n in "${nodes[@]}"; do
	port[$n]=$(free_port)
	gs_as_pg initdb -D "$tmp/$n" -A trust -U postgres --no-sync -E UTF8 --locale=C.UTF-8 \
		>"$tmp/$n.initdb.log" 2>&1 || { cat "$tmp/$n.initdb.log"; exit 1; }
	{
		echo "port = ${port[$n]}"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$tmp'"
		echo "fsync = off"
		echo "shared_preload_libraries = 'gpusort, auto_explain'"
		echo "gpusort.min_rows = 0"
		echo "auto_explain.log_min_duration = 0"
		echo "auto_explain.log_nested_statements = on"
	} >>"$tmp/$n/postgresql.conf"
	gs_as_pg pg_ctl -D "$tmp/$n" -l "$tmp/$n.log" -w -t 60 start >/dev/null ||
		{ cat "$tmp/$n.log"; exit 1; }
done

# sql NODE [psql args...]: psql on a node, unaligned, no headers
sql() {
	local n=$1
	shift
	gs_as_pg psql -X -q -At -v ON_ERROR_STOP=1 -h "$tmp" -p "${port[$n]}" -U postgres -d postgres "$@"
}

rows=30000
for i in 0 1 2; do
	sql "shard$i" -c "CREATE TABLE t_p$i (id int, k int, s text, f float8)" || exit 1
done
{
	echo "CREATE EXTENSION postgres_fdw;"
	for i in 0 1 2; do
		echo "CREATE SERVER shard$i FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '$tmp', port '${port[shard$i]}', dbname 'postgres', fetch_size '500');"
		echo "CREATE USER MAPPING FOR postgres SERVER shard$i OPTIONS (user 'postgres');"
	done
	echo "CREATE TABLE t (id int, k int, s text, f float8) PARTITION BY HASH (id);"
	for i in 0 1 2; do
		echo "CREATE FOREIGN TABLE t_p$i PARTITION OF t FOR VALUES WITH (MODULUS 3, REMAINDER $i)
			SERVER shard$i OPTIONS (table_name 't_p$i', use_remote_estimate 'true');"
	done
	# the one-node reference: the same rows in a local table
	echo "CREATE TABLE t_local (id int, k int, s text, f float8);"
	echo "INSERT INTO t_local SELECT i, hashint4(i) % 500, md5(i::text),
		CASE WHEN i % 97 = 0 THEN NULL ELSE hashint4(-i) / 1000.0 END
		FROM generate_series(1, $rows) i;"
	echo "INSERT INTO t SELECT * FROM t_local;"
	echo "ANALYZE t_local;"
} | sql coord -f - || exit 1
for i in 0 1 2; do sql "shard$i" -c "ANALYZE t_p$i" || exit 1; done

# check NAME QUERY: QUERY on t (sharded, GpuSort everywhere) against the
# same query on t_local with gpusort off; whole outputs, in order
check() {
	local name=$1 q=$2 qlocal
	qlocal=${q//FROM t /FROM t_local }
	sql coord -c "$q" >"$tmp/$name.sharded" 2>&1
	sql coord -c "SET gpusort.enabled = off" -c "$qlocal" >"$tmp/$name.local" 2>&1
	if [ ! -s "$tmp/$name.local" ]; then
		echo "FAILED: $name: no rows on one node"
		failures=$((failures + 1))
	elif cmp -s "$tmp/$name.sharded" "$tmp/$name.local"; then
		echo "ok: $name ($(wc -l <"$tmp/$name.local") rows, the same as on one node)"
	else
		echo "FAILED: $name: the sharded result differs from one node's:"
		diff "$tmp/$name.local" "$tmp/$name.sharded" | head -10
		failures=$((failures + 1))
	fi
}

# plan_has NAME QUERY PATTERN: the coordinator's EXPLAIN (VERBOSE) of QUERY
# has a line matching PATTERN
plan_has() {
	local name=$1 q=$2 pat=$3
	if sql coord -c "EXPLAIN (VERBOSE, COSTS OFF) $q" | grep -qE "$pat"; then
		echo "ok: $name: the coordinator's plan has /$pat/"
	else
		echo "FAILED: $name: the coordinator's plan has no /$pat/:"
		sql coord -c "EXPLAIN (VERBOSE, COSTS OFF) $q" | head -20
		failures=$((failures + 1))
	fi
}

# shards_sorted NAME: every shard's log shows a GpuSort for a remote
# query since the mark (auto_explain logs the plans of the FDW's cursors)
declare -A mark
mark_logs() {
	local i
	for i in 0 1 2; do mark[$i]=$(wc -l <"$tmp/shard$i.log"); done
}
shards_sorted() {
	local name=$1 i ok=0
	for i in 0 1 2; do
		tail -n +"$((mark[$i] + 1))" "$tmp/shard$i.log" | grep -q "Custom Scan (GpuSort)" && ok=$((ok + 1))
	done
	if [ "$ok" -eq 3 ]; then
		echo "ok: $name: each shard sorted with GpuSort"
	else
		echo "FAILED: $name: only $ok of 3 shards logged a GpuSort"
		failures=$((failures + 1))
	fi
}

q_push="SELECT id, k, f FROM t ORDER BY k, f DESC NULLS LAST, id"
plan_has pushdown "$q_push" 'Remote SQL: .* ORDER BY '
plan_has pushdown-merge "$q_push" 'Merge Append'
mark_logs
check pushdown "$q_push"
shards_sorted pushdown

q_limit="SELECT id, k, s FROM t ORDER BY s, id LIMIT 25"
mark_logs
check pushdown-limit "$q_limit"
shards_sorted pushdown-limit
check pushdown-offset "SELECT id, s FROM t ORDER BY s DESC, id OFFSET 29000"

q_coll="SELECT id, s FROM t ORDER BY s COLLATE \"C\" DESC, id"
plan_has coordinator-collate "$q_coll" 'Custom Scan \(GpuSort\)'
check coordinator-collate "$q_coll"
q_expr="SELECT id, k FROM t ORDER BY (k * 7919) % 1000, id"
plan_has coordinator-expr "$q_expr" 'Custom Scan \(GpuSort\)'
check coordinator-expr "$q_expr"
check coordinator-limit "SELECT id, s FROM t ORDER BY s COLLATE \"C\", id LIMIT 10"

q_win="SELECT id, k, sum(k) OVER (ORDER BY k, id) AS running, rank() OVER (PARTITION BY k ORDER BY id) AS r FROM t ORDER BY k, id"
plan_has window "$q_win" 'WindowAgg'
plan_has window-merge "$q_win" 'Merge Append'
check window "$q_win"

# a cancel while the coordinator fetches: 1 ms per row on the coordinator
# (a volatile function, evaluated above the Merge Append), so
# statement_timeout fires between the shards' batches; the same session,
# and so the same FDW connections, then runs the pushed-down query again
sql coord -c "$q_push" >"$tmp/after-cancel.expected" || exit 1
sql coord -v ON_ERROR_STOP=0 >"$tmp/after-cancel.out" 2>"$tmp/after-cancel.err" <<EOF
SET statement_timeout = '300ms';
SELECT id, pg_sleep(0.001) FROM t ORDER BY k, id;
RESET statement_timeout;
$q_push;
EOF
if grep -q "canceling statement due to statement timeout" "$tmp/after-cancel.err"; then
	echo "ok: cancel: $(head -1 "$tmp/after-cancel.err")"
else
	echo "FAILED: cancel: expected the statement timeout's error, got: $(cat "$tmp/after-cancel.err")"
	failures=$((failures + 1))
fi
if cmp -s "$tmp/after-cancel.out" "$tmp/after-cancel.expected"; then
	echo "ok: after-cancel: the session's next query gives the whole result"
else
	echo "FAILED: after-cancel: the session's next query differs:"
	diff "$tmp/after-cancel.expected" "$tmp/after-cancel.out" | head -10
	failures=$((failures + 1))
fi

for n in "${nodes[@]}"; do
	if grep -E 'terminated by signal|PANIC|TRAP' "$tmp/$n.log"; then
		echo "FAILED: $n crashed (above)"
		failures=$((failures + 1))
	fi
done

echo "sharding: $failures failures"
[ "$failures" -eq 0 ]
