#!/usr/bin/env bash
# GpuSort where PostgreSQL usually runs: in a container, with a memory limit
# and Docker's 64 MB /dev/shm.  Two parts, each on a cluster of its own:
#
#  (a) memory limit: the cluster starts inside a new memory cgroup (v2
#      memory.max or v1 memory.limit_in_bytes, whichever this machine has)
#      of GS_CG_LIMIT_MB (1024) MB; work_mem 64MB.  4 concurrent sorts whose
#      inputs together exceed the limit, then one sort of an input larger
#      than the limit, each with gpusort off (stock; the 4 one at a time,
#      since what is tested is gpusort's behaviour), on at its defaults
#      (the budget derived from the cgroup), and on with gpusort.max_memory
#      = 2GB (past the cgroup: then only the server-wide account,
#      gpusort.max_total_memory, keeps the sorts within it).  Every result
#      must equal stock's (md5 of the whole output in order), and the log
#      must show no backend killed (`terminated by signal`, `reinitializing`).
#  (b) 64 MB /dev/shm: in a private mount namespace (unshare -m) with a
#      64 MB tmpfs on /dev/shm, a cluster with gpusort preloaded (the
#      account in shared memory) and gpusort.parallel = on runs 6 concurrent
#      parallel GpuSorts of 2.5*10^5 to 10^6 rows for GS_SHM_ROUNDS (20)
#      rounds: no ERROR, every result equal to stock's.
#
# GS_CONTAINERS_PARTS=a or b runs only that part.  Each part needs root (creating a cgroup, mounting a tmpfs); where the
# machine does not allow it, the part says so and is skipped (exit 0).
# Sizes are chosen to run in about 2 minutes on 2 cores.
set -uo pipefail
. "$(dirname "$0")/../../lib.sh"
cd "$GS_ROOT"
tmp=${GS_TEST_TMP:-$(mktemp -d)}/containers
[ "${1:-}" = --inside-shm ] || rm -rf "$tmp"
mkdir -p "$tmp"
chmod 777 "$tmp"
failures=0

fail() {
	echo "FAILED: $*"
	failures=$((failures + 1))
}

# md5 of a query's whole output, in order; "ERROR" when it fails
out_md5() {
	local opts=$1 q=$2 log=$3 out
	# pipefail: a psql that fails fails the pipeline
	if out=$(PGOPTIONS="$opts" psql -X -At -v ON_ERROR_STOP=1 -c "$q" 2>>"$log" | md5sum); then
		echo "${out%% *}"
	else
		echo ERROR
	fi
}

server_log_check() {
	local what=$1
	cp "$GS_CLUSTER/server.log" "$tmp/server$what.log"
	if grep -E "terminated by signal|reinitializing|out of memory|No space left" "$GS_CLUSTER/server.log" >"$tmp/$what.bad"; then
		fail "$what: server log:"; head -5 "$tmp/$what.bad"
	fi
}

# ---- (a) a memory-limited cgroup ----------------------------------------------------

# a new memory cgroup below this process's, limited to $1 bytes; prints its
# directory and the file with its peak usage, or nothing
make_cgroup() {
	local limit=$1 base path dir
	if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
		# a v2 group may hold processes or children, not both: a child of
		# the root (this shell goes back to its own group afterwards)
		dir=/sys/fs/cgroup/gpusort_test_$$
		mkdir "$dir" 2>/dev/null || return 1
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		echo "$limit" >"$dir/memory.max" 2>/dev/null || { rmdir "$dir"; return 1; }
		[ -f "$dir/memory.swap.max" ] && echo 0 >"$dir/memory.swap.max" 2>/dev/null
		echo "$dir v2 memory.peak"
		return 0
	fi
	if [ -d /sys/fs/cgroup/memory ]; then
		path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
		base=/sys/fs/cgroup/memory${path%/}
		dir=$base/gpusort_test_$$
		mkdir "$dir" 2>/dev/null || return 1
		echo "$limit" >"$dir/memory.limit_in_bytes" 2>/dev/null || { rmdir "$dir"; return 1; }
		[ -f "$dir/memory.memsw.limit_in_bytes" ] && echo "$limit" >"$dir/memory.memsw.limit_in_bytes" 2>/dev/null
		echo "$dir v1 memory.max_usage_in_bytes"
		return 0
	fi
	return 1
}

# samples the group's anonymous memory (the backends' own, which the
# kernel cannot reclaim, unlike the page cache) every 0.2 s into $2 (MB)
sample_anon() {
	local dir=$1 out=$2 key max=0 v
	key=total_rss
	[ -f "$dir/memory.max" ] && key=anon
	while [ -d "$dir" ]; do
		v=$(awk -v k="$key" '$1 == k {print int($2 / 1048576)}' "$dir/memory.stat" 2>/dev/null)
		[ -n "$v" ] && [ "$v" -gt "$max" ] && { max=$v; echo "$max" >"$out"; }
		sleep 0.2
	done
}

remove_cgroup() {
	local dir=$1 i
	for i in $(seq 50); do
		rmdir "$dir" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "containers: could not remove $dir"
}

part_a() {
	local limit_mb=${GS_CG_LIMIT_MB:-1024} rows=${GS_CG_ROWS:-3000000}
	local cg dir ver peakfile mode opts q i ref md5s=() pids=() big
	if [ "$(id -u)" != 0 ] || ! cg=$(make_cgroup $((limit_mb * 1024 * 1024))); then
		echo "containers (a): SKIPPED: cannot create a memory cgroup here (needs root and a writable cgroup v1 memory or v2 hierarchy)"
		return 0
	fi
	read -r dir ver peakfile <<<"$cg"
	echo "containers (a): cgroup $ver $dir, limit ${limit_mb} MB"
	# the postmaster starts inside the group; this shell goes back after
	local home
	home=$(dirname "$dir")
	[ "$ver" = v2 ] && home=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
	echo $$ >"$dir/cgroup.procs" || { fail "cannot enter $dir"; remove_cgroup "$dir"; return 0; }
	gs_cluster_start "work_mem = '64MB'" "log_min_messages = warning"
	local rc=$?
	echo $$ >"$home/cgroup.procs"
	[ $rc = 0 ] || { fail "(a) cluster did not start"; remove_cgroup "$dir"; return 0; }

	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION gpusort" \
		-c "CREATE TABLE t (id int, k int8, f float8, s text COLLATE \"C\")" \
		-c "INSERT INTO t SELECT i, hashint4(i) % 100000, hashint4(-i) / 7.0, md5(i::text)
		      FROM generate_series(1, $rows) i" \
		-c "VACUUM ANALYZE t" -c "CHECKPOINT" || { fail "(a) loading"; gs_cluster_stop; remove_cgroup "$dir"; return 0; }
	sync
	psql -X -At -c "SELECT pg_size_pretty(pg_table_size('t'))" | sed 's/^/containers (a): table t: /'
	PGOPTIONS="-c session_preload_libraries=gpusort" psql -X -At -F ' ' \
		-c "SELECT name, pg_size_pretty(bytes), detail FROM gpusort_memory() WHERE name IN ('available', 'max_memory', 'max_total_memory')" |
		sed 's/^/containers (a): /'
	PGOPTIONS="-c session_preload_libraries=gpusort" psql -X -At \
		-c "SELECT detail ~ '^cgroup' AND bytes <= $limit_mb::bigint * 1024 * 1024 FROM gpusort_memory() WHERE name = 'available'" |
		grep -qx t || fail "(a) the budget does not come from the cgroup"

	# four at once: each sorts the whole table by another key
	local qs=("SELECT * FROM t ORDER BY k, id" "SELECT * FROM t ORDER BY f, id"
		"SELECT * FROM t ORDER BY s" "SELECT id, k FROM t ORDER BY k DESC, id")
	big="SELECT * FROM (SELECT * FROM t UNION ALL SELECT * FROM t UNION ALL SELECT * FROM t UNION ALL SELECT * FROM t) u ORDER BY k, f, id, s"
	declare -A refs
	local sampler
	for mode in off on on_2GB; do
		case $mode in
			off) opts="-c session_preload_libraries=gpusort -c gpusort.enabled=off" ;;
			on) opts="-c session_preload_libraries=gpusort" ;;
			on_2GB) opts="-c session_preload_libraries=gpusort -c gpusort.max_memory=2GB" ;;
		esac
		local start=$SECONDS
		echo 0 >"$tmp/a_anon_$mode"
		sample_anon "$dir" "$tmp/a_anon_$mode" &
		sampler=$!
		for i in 0 1 2 3; do
			if [ "$mode" = off ]; then
				# stock's results, one sort at a time: what is tested is
				# gpusort's behaviour under the limit, not stock's
				out_md5 "$opts" "${qs[$i]}" "$tmp/a_$mode.log" >"$tmp/a_$mode.$i"
			else
				out_md5 "$opts" "${qs[$i]}" "$tmp/a_$mode.log" >"$tmp/a_$mode.$i" &
				pids[$i]=$!
			fi
		done
		[ "$mode" = off ] || for i in 0 1 2 3; do wait "${pids[$i]}"; done
		for i in 0 1 2 3; do
			md5s[$i]=$(cat "$tmp/a_$mode.$i")
			if [ "$mode" = off ]; then
				refs[$i]=${md5s[$i]}
				[ "${md5s[$i]}" = ERROR ] && fail "(a) stock query $i failed"
			elif [ "${md5s[$i]}" != "${refs[$i]}" ]; then
				fail "(a) gpusort $mode: 4 concurrent, query $i: ${md5s[$i]} vs stock ${refs[$i]}"
			fi
		done
		md5s[4]=$(out_md5 "$opts" "$big" "$tmp/a_$mode.log")
		if [ "$mode" = off ]; then
			refs[4]=${md5s[4]}
			[ "${md5s[4]}" = ERROR ] && fail "(a) stock large sort failed"
		elif [ "${md5s[4]}" != "${refs[4]}" ]; then
			fail "(a) gpusort $mode: the sort larger than the limit: ${md5s[4]} vs stock ${refs[4]}"
		fi
		kill "$sampler" 2>/dev/null
		echo "containers (a): gpusort $mode: 4 sorts$([ $mode = off ] || echo ' at once') and one of 4x$rows rows in $((SECONDS - start)) s, peak anonymous memory of the cgroup $(cat "$tmp/a_anon_$mode") MB"
		[ -s "$tmp/a_$mode.log" ] && { fail "(a) $mode: errors:"; head -5 "$tmp/a_$mode.log"; }
	done
	echo "containers (a): peak usage of the cgroup, page cache included: $(($(cat "$dir/$peakfile") / 1024 / 1024)) MB of ${limit_mb} MB"
	server_log_check "(a)"
	gs_cluster_stop
	remove_cgroup "$dir"
}

# ---- (b) a 64 MB /dev/shm -----------------------------------------------------------

# runs inside the mount namespace
part_b_inside() {
	local rows=1000000 rounds=${GS_SHM_ROUNDS:-20} r i q n ok=0 bad=0
	mount -t tmpfs -o size=64m tmpfs /dev/shm || { echo "containers (b): SKIPPED: cannot mount a tmpfs on /dev/shm"; return 0; }
	echo "containers (b): /dev/shm: $(df -h /dev/shm | awk 'NR==2 {print $2}') tmpfs in a private mount namespace"
	gs_cluster_start "shared_preload_libraries = 'gpusort'" "gpusort.parallel = on" \
		"max_parallel_workers_per_gather = 2" "parallel_setup_cost = 0" "parallel_tuple_cost = 0" \
		"min_parallel_table_scan_size = 0" "gpusort.min_rows = 0" "log_min_messages = warning" ||
		{ fail "(b) cluster did not start"; return 0; }
	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION gpusort" \
		-c "CREATE TABLE p (id int, k int8, s text COLLATE \"C\")" \
		-c "INSERT INTO p SELECT i, hashint4(i) % 10000, substr(md5(i::text), 1, 12)
		      FROM generate_series(1, $rows) i" \
		-c "VACUUM ANALYZE p" || { fail "(b) loading"; gs_cluster_stop; return 0; }
	psql -X -At -F ' ' -c "SELECT name, pg_size_pretty(bytes), detail FROM gpusort_memory() WHERE name IN ('shm_size', 'shm_max_total', 'account')" |
		sed 's/^/containers (b): /'
	local sizes=(250000 500000 1000000 250000 750000 500000)
	local qs=() refs=()
	for i in 0 1 2 3 4 5; do
		n=${sizes[$i]}
		if [ $((i % 2)) = 0 ]; then
			qs[$i]="SELECT id, k, s FROM p WHERE id <= $n ORDER BY k, id"
		else
			qs[$i]="SELECT id, s FROM p WHERE id <= $n ORDER BY s, id"
		fi
		refs[$i]=$(out_md5 "-c gpusort.enabled=off" "${qs[$i]}" "$tmp/b_stock.log")
		[ "${refs[$i]}" = ERROR ] && fail "(b) stock query $i failed"
	done
	psql -X -At -c "EXPLAIN (COSTS OFF) ${qs[2]}" | grep -q GpuSortStore ||
		fail "(b) no parallel GpuSort in the plan"
	local start=$SECONDS pids=()
	for ((r = 1; r <= rounds; r++)); do
		for i in 0 1 2 3 4 5; do
			out_md5 "" "${qs[$i]}" "$tmp/b_gpusort.log" >"$tmp/b.$r.$i" &
			pids[$i]=$!
		done
		for i in 0 1 2 3 4 5; do wait "${pids[$i]}"; done
		for i in 0 1 2 3 4 5; do
			if [ "$(cat "$tmp/b.$r.$i")" = "${refs[$i]}" ]; then
				ok=$((ok + 1))
			else
				bad=$((bad + 1))
				fail "(b) round $r query $i: $(cat "$tmp/b.$r.$i") vs stock ${refs[$i]}"
			fi
		done
	done
	echo "containers (b): $((rounds * 6)) parallel GpuSorts in $rounds rounds of 6 in $((SECONDS - start)) s: $ok equal to stock, $bad not"
	# one more round under EXPLAIN ANALYZE: how the rows went
	for i in 0 1 2 3 4 5; do
		psql -X -At -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${qs[$i]}" >"$tmp/b_explain.$i" 2>>"$tmp/b_gpusort.log" &
		pids[$i]=$!
	done
	for i in 0 1 2 3 4 5; do wait "${pids[$i]}"; done
	echo "containers (b): 6 at once under EXPLAIN ANALYZE: $(cat "$tmp"/b_explain.* | grep -c 'Parallel Intake:') stored their rows in shared memory, $(cat "$tmp"/b_explain.* | grep -c 'Rows Stored: none') passed them through the Gather, $(cat "$tmp"/b_explain.* | grep -c 'GpuSort: tuplesort') fell back to tuplesort"
	if [ -s "$tmp/b_gpusort.log" ]; then
		fail "(b) errors: $(grep -c ERROR "$tmp/b_gpusort.log")"; head -5 "$tmp/b_gpusort.log"
	fi
	psql -X -At -c "SELECT bytes FROM gpusort_memory() WHERE name = 'shm_reserved'" | grep -qx 0 ||
		fail "(b) shared memory still reserved after the sorts"
	server_log_check "(b)"
	gs_cluster_stop
	return 0
}

part_b() {
	if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true 2>/dev/null; then
		echo "containers (b): SKIPPED: cannot make a private mount namespace (unshare -m needs root)"
		return 0
	fi
	unshare -m --propagation private bash "$0" --inside-shm "$tmp"
	[ $? = 0 ] || fail "(b)"
}

if [ "${1:-}" = --inside-shm ]; then
	tmp=$2
	part_b_inside
	[ $failures = 0 ]
	exit
fi

# GS_CONTAINERS_PARTS="a", "b": only that part
case " ${GS_CONTAINERS_PARTS:-a b} " in *" a "*) part_a ;; esac
case " ${GS_CONTAINERS_PARTS:-a b} " in *" b "*) part_b ;; esac
[ $failures = 0 ] && echo "containers: ok" || echo "containers: $failures failures"
[ $failures = 0 ]
