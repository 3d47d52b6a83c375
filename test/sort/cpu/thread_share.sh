#!/usr/bin/env bash
# The share of the cores among sessions sorting at once (src/threads/thread_share.c),
# on a cluster of its own with gpusort in shared_preload_libraries, read
# from gpusort_memory()'s row cpu_threads ("N threads per sort now; S
# sessions sorting, ...") by a session that sorts nothing itself:
#
#  1. idle: the threads a sort alone gets (the cores, at most 16), and no
#     session sorting;
#  2. one, then two other sessions each held inside a GpuSort's input (an
#     advisory lock that a row of the input waits for): 1, then 2 sessions
#     sorting, and a sort starting now would get cores / 2, then cores / 3
#     threads (at least 1): half of them with two registrations;
#  3. the count back to 0, and the threads to the full count, after each
#     way a sort ends: its last row out, an ERROR in its input (the
#     session stays, waiting on another lock), the same ERROR caught in a
#     PL/pgSQL exception block (a subtransaction's abort), a cancel, and a
#     termination (FATAL: the process exits while its sort runs);
#  4. pgbench, 4 clients sorting 50 times each: the count back to 0.
#
# Run by test/run-all (needs the extension installed).
set -uo pipefail
cd "$(dirname "$0")/../../.."
. test/lib.sh

failures=0
fail() {
	echo "FAILED: $*"
	failures=$((failures + 1))
}

gs_cluster_start "shared_preload_libraries = 'gpusort'" || exit 1
opts="-c gpusort.min_rows=0 -c gpusort.device=cpu -c max_parallel_workers_per_gather=0"
q() {
	PGOPTIONS="$opts" psql -X -At -v ON_ERROR_STOP=1 -c "$@"
}
q "CREATE EXTENSION gpusort" >/dev/null || exit 1

ncpu=$(nproc)
auto=$((ncpu < 16 ? ncpu : 16))
# share OTHERS: what a session not sorting itself gets while OTHERS sort
share() {
	local n=$((ncpu / ($1 + 1)))
	if [ "$1" -eq 0 ]; then echo "$auto"; return; fi
	[ "$n" -gt "$auto" ] && n=$auto
	[ "$n" -lt 1 ] && n=1
	echo "$n"
}

# expect WHAT OTHERS: the row says OTHERS sessions sort and share(OTHERS)
expect() {
	local what=$1 others=$2 row threads sessions
	row=$(q "SELECT detail FROM gpusort_memory() WHERE name = 'cpu_threads'")
	threads=$(sed -n 's/^\([0-9]*\) threads per sort now; \([0-9]*\) sessions sorting.*/\1/p' <<<"$row")
	sessions=$(sed -n 's/^\([0-9]*\) threads per sort now; \([0-9]*\) sessions sorting.*/\2/p' <<<"$row")
	if [ "$threads" != "$(share "$others")" ] || [ "$sessions" != "$others" ]; then
		fail "$what: '$row', expected $(share "$others") threads and $others sessions sorting"
	else
		echo "ok: $what: $row"
	fi
}

# wait_lock APP KEY: until the session named APP waits for advisory lock
# KEY (10 s)
wait_lock() {
	local i
	for i in $(seq 100); do
		[ "$(q "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
			WHERE a.application_name = '$1' AND l.locktype = 'advisory'
			AND l.objid = $2 AND NOT l.granted")" = 1 ] && return 0
		sleep 0.1
	done
	fail "$1 never waited for lock $2"
	return 1
}

# wait_gone APP: until no session is named APP (10 s)
wait_gone() {
	local i
	for i in $(seq 100); do
		[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$1'")" = 0 ] && return 0
		sleep 0.1
	done
	fail "$1 did not end"
	return 1
}

# hold KEY: a session holding advisory lock KEY until release KEY
hold() {
	PGAPPNAME="hold$1" psql -X -q -c "SELECT pg_advisory_lock($1)" -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
	local i
	for i in $(seq 100); do
		[ "$(q "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted")" = 1 ] && return 0
		sleep 0.1
	done
	fail "could not hold lock $1"
}
release() {
	q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'hold$1'" >/dev/null
	wait_gone "hold$1"
}

# a GpuSort whose input waits for lock KEY at its 10000th row, after the
# sort has started storing rows; $2 (optional) is evaluated for that row
# once the lock is had (1/0 there: an ERROR inside the sort)
sort_sql() {
	echo "SELECT count(*) FROM (SELECT g FROM generate_series(1, 20000) g
		WHERE CASE WHEN g = 10000 THEN pg_advisory_lock_shared($1)::text || ${2:-''} ELSE '' END = ''
		ORDER BY g OFFSET 0) s"
}
# sorter APP SQL...: a session named APP running these statements in the
# background, going on after an ERROR
sorter() {
	local app=$1 args=() s
	shift
	for s in "$@"; do args+=(-c "$s"); done
	PGAPPNAME=$app PGOPTIONS="$opts" psql -X -q "${args[@]}" >"$GS_CLUSTER/$app.out" 2>&1 &
}

plan=$(q "EXPLAIN (COSTS OFF) $(sort_sql 1)")
grep -q "GpuSort" <<<"$plan" || fail "the test's sort is not a GpuSort: $plan"

# 1, 2: the share halves with one other session sorting, and shrinks again
# with two; back to full once both are done
expect "idle" 0
hold 101
sorter s1 "$(sort_sql 101)"
wait_lock s1 101 && expect "one session sorting" 1
sorter s2 "$(sort_sql 101)"
wait_lock s2 101 && expect "two sessions sorting" 2
release 101
wait_gone s1; wait_gone s2
grep -q "20000" "$GS_CLUSTER/s1.out" || fail "s1: $(cat "$GS_CLUSTER/s1.out")"
expect "both sorts done" 0

# 3: an ERROR inside the sort, the session staying (waits on lock 103)
hold 102
hold 103
sorter e1 "$(sort_sql 102 '(1 / (g - 10000))::text')" "SELECT pg_advisory_lock_shared(103)"
wait_lock e1 102 && expect "a sort that will fail, running" 1
release 102
wait_lock e1 103 && expect "after an ERROR in the sort" 0
grep -q "division by zero" "$GS_CLUSTER/e1.out" || fail "the sort did not fail: $(cat "$GS_CLUSTER/e1.out")"
release 103
wait_gone e1

# the same ERROR caught by an exception block: a subtransaction's abort
hold 104
hold 105
sorter x1 "DO \$\$ BEGIN PERFORM * FROM ($(sort_sql 104 '(1 / (g - 10000))::text')) t;
	EXCEPTION WHEN division_by_zero THEN RAISE NOTICE 'caught'; END \$\$" \
	"SELECT pg_advisory_lock_shared(105)"
wait_lock x1 104 && expect "a sort in an exception block, running" 1
release 104
wait_lock x1 105 && expect "after an ERROR caught in an exception block" 0
grep -q "caught" "$GS_CLUSTER/x1.out" || fail "the exception block did not catch: $(cat "$GS_CLUSTER/x1.out")"
release 105
wait_gone x1

# a cancel while the sort reads its input, the session staying
hold 106
hold 107
sorter c1 "$(sort_sql 106)" "SELECT pg_advisory_lock_shared(107)"
wait_lock c1 106 && expect "a sort to be cancelled, running" 1
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'c1'" >/dev/null
wait_lock c1 107 && expect "after a cancel" 0
release 106
release 107
wait_gone c1

# a termination while the sort reads its input: the process exits
hold 108
sorter t1 "$(sort_sql 108)"
wait_lock t1 108 && expect "a sort to be terminated, running" 1
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 't1'" >/dev/null
wait_gone t1 && expect "after a termination" 0
release 108

# 4: many sorts at once, each ended normally
cat >"$GS_CLUSTER/sorts.sql" <<'EOF'
SELECT count(*) FROM (SELECT g FROM generate_series(1, 20000) g ORDER BY g DESC OFFSET 0) s;
EOF
chmod a+r "$GS_CLUSTER/sorts.sql"
PGOPTIONS="$opts" pgbench -n -c 4 -t 50 -f "$GS_CLUSTER/sorts.sql" >"$GS_CLUSTER/pgbench.out" 2>&1 ||
	fail "pgbench: $(tail -5 "$GS_CLUSTER/pgbench.out")"
expect "after 200 sorts of 4 clients" 0

if [ "$failures" -gt 0 ]; then
	echo "thread share: $failures failed"
	exit 1
fi
echo "thread share: ok"
