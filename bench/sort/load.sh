#!/usr/bin/env bash
# Throughput under load, gpusort against stock PostgreSQL in the same run
# (issue 39): many clients running a mix of sorts, windows and aggregates of
# 10^5 to ROWS rows, with persistent connections and with a new connection
# per transaction (pgbench -C: no pooler, so every transaction is a new
# session's first sort and waits on nothing but its own CUDA start).
#
#   bench/sort/load.sh [ROWS]         default 10000000
#
# A cluster with gpusort preloaded; one unlogged table of ROWS rows (a
# category of 300 values, a timestamp, numeric money, a text name under the
# database's en_US.UTF-8, an int8); then, for each of the two shapes
#   clients     GS_LOAD_CLIENTS (default 64) persistent sessions
#   connect     GS_LOAD_CONNECT_CLIENTS (default 16) clients, pgbench -C
# pgbench runs GS_LOAD_SECONDS (default 60) seconds in each mode, the modes
# alternating, GS_LOAD_ROUNDS times (default 1):
#   stock       gpusort.enabled = off
#   gpusort     gpusort at its defaults
# both with the settings of a server tuned for that many sessions on the
# machine: max_parallel_workers_per_gather = GS_LOAD_WORKERS (default 2),
# work_mem = GS_LOAD_WORK_MEM (default 256MB).  Each transaction draws one
# query and a size n of 10^5, 10^6 or ROWS rows (the first n ids):
#   sort      ORDER BY name, id, every row sorted, none sent
#   sort_int  ORDER BY k
#   window    sum(amount) OVER (PARTITION BY category ORDER BY ts)
#   distinct  count(DISTINCT name) GROUP BY category
# Prints, per shape and mode, transactions per second, failed transactions
# (must be 0) and the ratio gpusort/stock; then the server log's ERRORs,
# crashes and restarts (must be 0), and what gpusort_memory() says is
# still reserved once the clients are gone (must be 0), and the sessions it
# still counts as sorting (cpu_threads, must be 0), with the GPU's free
# memory before and after (gpusort_gpu_info).  Written to $OUT/load.md
# (default bench/out/load/).  GS_NO_BUILD=1 uses the installed build;
# GS_PRIVATE_PG as in test/lib.sh.
set -uo pipefail
. "$(dirname "$0")/../../test/lib.sh"

ROWS=${1:-10000000}
CLIENTS=${GS_LOAD_CLIENTS:-64}
CCLIENTS=${GS_LOAD_CONNECT_CLIENTS:-16}
SECONDS_EACH=${GS_LOAD_SECONDS:-60}
ROUNDS=${GS_LOAD_ROUNDS:-1}
WORKERS=${GS_LOAD_WORKERS:-2}
WORK_MEM=${GS_LOAD_WORK_MEM:-256MB}
OUT=${OUT:-$GS_ROOT/bench/out/load}
export GS_CLUSTER_LOCALE=${GS_CLUSTER_LOCALE:-en_US.UTF-8}
ncores=$(nproc)
jobs=$((ncores < 16 ? ncores : 16))
mkdir -p "$OUT"

command -v pg_config >/dev/null || gs_install_packages || exit 1
[ -n "${GS_NO_BUILD:-}" ] || gs_build_install >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
gs_cluster_start "shared_preload_libraries = 'gpusort'" "max_connections = $((CLIENTS + 20))" \
	"max_worker_processes = $((ncores + 8))" "max_parallel_workers = $ncores" \
	"gpusort.max_gpu_sessions = $CLIENTS" "log_min_messages = warning" \
	"jit = off" "shared_buffers = '2GB'" || exit 1
pg() { gs_as_pg psql -X -q -v ON_ERROR_STOP=1 "$@"; }

pg -c "CREATE EXTENSION gpusort" \
	-c "CREATE UNLOGGED TABLE ld (id int, category text, ts timestamp, amount numeric(12,2), name text, k int8)" || exit 1
gs_load_parallel ld "$ROWS" "$jobs" "i,
	'Électronique grand public > Catégorie ' || lpad(((hashint4(i) & 2147483647) % 300)::text, 3, '0'),
	timestamp '2024-01-01' + ((hashint4(i + 7) & 2147483647) % 31536000) * interval '1 second',
	round(((hashint4(i + 11) & 2147483647) % 1000000) / 100.0, 2),
	(ARRAY['Anne-Marie', 'Jean-Luc', 'Zoë', 'O''Brien', 'Søren', 'Mary Jo'])[1 + (hashint4(i + 13) & 2147483647) % 6]
	  || ' ' || ((hashint4(i + 17) & 2147483647) % 1000000),
	hashint8(i)" || exit 1
pg -c "VACUUM ANALYZE ld" || exit 1

script=$GS_CLUSTER/load.sql
cat >"$script" <<EOF
\\set q random(1, 4)
\\set e random(0, 2)
\\if :e = 0
\\set n 100000
\\elif :e = 1
\\set n 1000000
\\else
\\set n $ROWS
\\endif
\\if :q = 1
SELECT * FROM ld WHERE id <= :n ORDER BY name, id OFFSET :n;
\\elif :q = 2
SELECT * FROM ld WHERE id <= :n ORDER BY k OFFSET :n;
\\elif :q = 3
SELECT max(r) FROM (SELECT sum(amount) OVER (PARTITION BY category ORDER BY ts) AS r FROM ld WHERE id <= :n) s;
\\else
SELECT max(c) FROM (SELECT count(DISTINCT name) AS c FROM ld WHERE id <= :n GROUP BY category) s;
\\endif
EOF
chmod a+r "$script"

reserved() {
	pg -At -F ' ' -c "SELECT name, bytes FROM gpusort_memory() WHERE name IN ('reserved', 'shm_reserved', 'gpu_reserved')
		UNION ALL SELECT 'sessions_sorting', substring(detail FROM '([0-9]+) sessions sorting')::bigint
		FROM gpusort_memory() WHERE name = 'cpu_threads'" | tr '\n' ' '
}
gpu_free() {
	pg -At -c "SELECT coalesce(free_memory_mb::text, status) FROM gpusort_gpu_info(true)" 2>/dev/null
}
free_before=$(gpu_free)

# run SHAPE MODE: pgbench's tps and failed transactions, "tps|failed"
run() {
	local shape=$1 mode=$2 c=$CLIENTS flags="" opts log
	[ "$shape" = connect ] && { c=$CCLIENTS; flags="-C"; }
	opts="-c max_parallel_workers_per_gather=$WORKERS -c work_mem=$WORK_MEM"
	[ "$mode" = stock ] && opts="$opts -c gpusort.enabled=off"
	log=$OUT/pgbench_${shape}_${mode}.log
	gs_as_pg env PGOPTIONS="$opts" pgbench -n $flags -f "$script" -c "$c" -j "$((c < jobs ? c : jobs))" \
		-T "$SECONDS_EACH" -h "$PGHOST" -p "$PGPORT" -U postgres postgres >"$log" 2>&1
	awk '/^tps = / { tps = $3 } /number of failed transactions/ { f = $5 }
		/^number of transactions actually processed/ { n = $6 }
		/aborted|ERROR|FATAL/ { err++ }
		END { printf "%s|%s|%s\n", tps == "" ? "-" : tps, f == "" ? (err ? "errors" : "0") : f, n }' "$log"
}

declare -A res
for ((r = 1; r <= ROUNDS; r++)); do
	for shape in clients connect; do
		for mode in stock gpusort; do
			res[$shape,$mode,$r]=$(run "$shape" "$mode")
			echo "[$(date -u +%H:%M:%S)] round $r $shape $mode: ${res[$shape,$mode,$r]} (tps|failed|transactions)" >&2
		done
	done
done
sleep 2
left=$(reserved)
free_after=$(gpu_free)
log=$(ls "$GS_CLUSTER"/server.log 2>/dev/null)
errors=$(grep -c 'ERROR' "$log" 2>/dev/null)
crashes=$(grep -cE 'terminated by signal|server process .* was terminated|all server processes terminated' "$log" 2>/dev/null)

{
	echo "    date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit $(git -C "$GS_ROOT" rev-parse --short HEAD 2>/dev/null)"
	echo "    cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($ncores cores)"
	nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/    gpu: /'
	echo "    $(pg_config --version), en_US.UTF-8; $ROWS rows; $SECONDS_EACH s a run; workers $WORKERS, work_mem $WORK_MEM"
	echo
	echo "| shape | clients | round | stock tps | gpusort tps | gpusort/stock | failed (stock, gpusort) |"
	echo "|---|---:|---:|---:|---:|---:|---|"
	for ((r = 1; r <= ROUNDS; r++)); do
		for shape in clients connect; do
			s=${res[$shape,stock,$r]} g=${res[$shape,gpusort,$r]}
			ratio=$(awk -v a="${g%%|*}" -v b="${s%%|*}" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')
			c=$CLIENTS; [ "$shape" = connect ] && c="$CCLIENTS (-C)"
			f1=${s#*|}; f2=${g#*|}
			echo "| $shape | $c | $r | ${s%%|*} | ${g%%|*} | $ratio | ${f1%%|*}, ${f2%%|*} |"
		done
	done
	echo
	echo "server log: $errors ERROR lines, $crashes crashes or restarts"
	echo "gpusort_memory() reserved after the clients: $left"
	echo "GPU free memory (MB) before / after: $free_before / $free_after"
} | tee "$OUT/load.md"
