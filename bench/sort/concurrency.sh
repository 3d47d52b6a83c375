#!/usr/bin/env bash
# Many sessions sorting at once, on the GPU and the CPU (README: Memory and
# containers): a cluster with gpusort preloaded (the server-wide account in
# shared memory), a table of GS_CONC_ROWS rows (default 10^7), and pgbench
# with GS_CONC_CLIENTS clients (default 32) for GS_CONC_SECONDS (default
# 120).  Each transaction sorts the first n rows, n random in [ROWS/10,
# ROWS], by an int8 or a text key, with gpusort.device = gpu or cpu at
# random, and checks in SQL that the n rows came back in order (a wrong
# order or count divides by zero, which aborts that client).
#
#   bench/sort/concurrency.sh
#
# Prints pgbench's summary, then the figures to record: transactions,
# aborted clients (must be 0), backends killed or restarts in the server
# log (must be 0), ERRORs in the log, the GPU's free memory before and after
# (gpusort_gpu_info, in fresh sessions: must come back), nvidia-smi's used
# memory before and after when it is there, and what gpusort_memory() says
# is still reserved at the end (must be 0).  gpusort.max_gpu_sessions is
# raised to the clients, so that every session may hold the GPU and their
# device reservations meet.
set -uo pipefail
. "$(dirname "$0")/../../test/lib.sh"

rows=${GS_CONC_ROWS:-10000000}
clients=${GS_CONC_CLIENTS:-32}
seconds=${GS_CONC_SECONDS:-120}
jobs=$(nproc); [ "$jobs" -gt "$clients" ] && jobs=$clients

command -v pg_config >/dev/null || gs_install_packages || exit 1
[ -n "${GS_NO_BUILD:-}" ] || gs_build_install || exit 1
gs_cluster_start "shared_preload_libraries = 'gpusort'" "max_connections = $((clients + 20))" \
	"gpusort.max_gpu_sessions = $clients" "work_mem = '64MB'" "log_min_messages = warning" || exit 1

psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION gpusort" \
	-c "CREATE UNLOGGED TABLE t (id int, k int8, s text COLLATE \"C\", pad text)" || exit 1
gs_load_parallel t "$rows" "$jobs" "i, hashint8(i), md5(i::text), 'row ' || i" || exit 1
psql -X -q -c "VACUUM ANALYZE t"

gpu_free() {
	psql -X -At -c "SELECT coalesce(free_memory_mb::text, status) FROM gpusort_gpu_info(true)" 2>/dev/null
}
smi_used() {
	command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1
}
free_before=$(gpu_free)
smi_before=$(smi_used)

script=$GS_CLUSTER/sort.sql
cat >"$script" <<EOF
\\set n random($((rows / 10)), $rows)
\\set dev random(0, 1)
\\set key random(0, 1)
\\if :dev = 1
SET gpusort.device = gpu;
\\else
SET gpusort.device = cpu;
\\endif
\\if :key = 1
SELECT count(*) AS cnt, count(*) FILTER (WHERE (pk, pid) > (k, id)) AS bad
  FROM (SELECT k, id, lag(k) OVER () AS pk, lag(id) OVER () AS pid
		  FROM (SELECT k, id, pad FROM t WHERE id <= :n ORDER BY k, id OFFSET 0) s) w \\gset
\\else
SELECT count(*) AS cnt, count(*) FILTER (WHERE (ps, pid) > (s, id)) AS bad
  FROM (SELECT s, id, lag(s) OVER () AS ps, lag(id) OVER () AS pid
		  FROM (SELECT s, id, pad FROM t WHERE id <= :n ORDER BY s, id OFFSET 0) s) w \\gset
\\endif
SELECT 1 / (CASE WHEN :bad = 0 AND :cnt = :n THEN 1 ELSE 0 END) AS in_order;
EOF
chmod a+r "$script"
echo "== pgbench: $clients clients, $seconds s, sorts of $((rows / 10)) to $rows rows (t: $rows rows)"
psql -X -At -c "EXPLAIN (COSTS OFF) SELECT k, id, pad FROM t WHERE id <= $rows ORDER BY k, id OFFSET 0" | head -3
pgbench -n -c "$clients" -j "$jobs" -T "$seconds" -f "$script" 2>&1 | tee "$GS_CLUSTER/pgbench.log" |
	grep -v "^pgbench: error: client .* script 0 aborted" | tail -20
sleep 2
free_after=$(gpu_free)
smi_after=$(smi_used)
echo "== figures"
echo "transactions: $(sed -n 's/^number of transactions actually processed: //p' "$GS_CLUSTER/pgbench.log")"
echo "aborted clients: $(grep -c 'aborted in command' "$GS_CLUSTER/pgbench.log")"
echo "backends killed / restarts: $(grep -cE 'terminated by signal|reinitializing' "$GS_CLUSTER/server.log")"
echo "ERRORs in the server log: $(grep -c 'ERROR:' "$GS_CLUSTER/server.log")"
echo "GPU free memory (MB) before, after: $free_before, $free_after"
[ -n "$smi_before" ] && echo "nvidia-smi memory.used (MB) before, after: $smi_before, $smi_after"
psql -X -At -F ' ' -c "SELECT name, bytes FROM gpusort_memory() WHERE name ~ 'reserved'" | sed 's/^/still /'
grep -E 'terminated by signal|ERROR:' "$GS_CLUSTER/server.log" | head -5
