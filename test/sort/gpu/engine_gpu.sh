#!/usr/bin/env bash
# The GPU sort engine's host side, through SQL, against stock PostgreSQL.
# Needs a GPU and a running cluster with gpusort installed (PGHOST, PGPORT,
# PGUSER from test/gpu/run, which runs this script).
#
# Every comparison runs the same query with gpusort off (stock Sort) and
# with gpusort.device = gpu, gpusort.min_rows = 0, and compares the whole
# output, in order (md5 of psql's output); EXPLAIN ANALYZE must show the
# GPU engine with no fallback.  Then: tiny inputs, inputs sorted in several
# runs merged on the host, a cancel at several points of a GPU sort (the
# session stays usable and sorts right afterwards), the session cap
# (gpusort.max_gpu_sessions) and the WARNING of a GPU fallback, and
# sessions spread over every visible device (gpusort_gpu_devices()).
#
# Prints one "ok:"/"FAILED:" line per check and "N passed, M failed".
set -uo pipefail
ROWS=${GS_GPU_TEST_ROWS:-2000000}
passed=0 failed=0

ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; failed=$((failed + 1)); }

# sql [SETTINGS...] -- QUERY: runs QUERY in a new session with gpusort loaded
sql() {
	local args=(-X -q -At -v ON_ERROR_STOP=1 -c "LOAD 'gpusort'"
		-c "SET max_parallel_workers_per_gather = 0")
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=(-c "SET $1"); shift; done
	shift
	psql "${args[@]}" -c "$1"
}
STOCK=("gpusort.enabled = off")
GPU=("gpusort.device = gpu" "gpusort.min_rows = 0")

psql -X -q -v ON_ERROR_STOP=1 <<EOF || { bad "setup"; echo "$passed passed, $failed failed"; exit 1; }
CREATE EXTENSION IF NOT EXISTS gpusort;
DROP TABLE IF EXISTS gt;
CREATE TABLE gt AS
  SELECT i AS id,
         (hashint8(i) % 1000000)::int8 AS a,
         CASE WHEN i % 1000 = 0 THEN NULL ELSE hashint8(i * 7) / 1e6 END::float8 AS f,
         md5((i % 500000)::text) || CASE WHEN i % 3 = 0 THEN repeat('x', 40) ELSE '' END AS s,
         (i % 7)::int4 AS c
  FROM generate_series(1, $ROWS) i;
ANALYZE gt;
EOF

# -- CUDA starts in a backend, and what it costs
info=$(sql -- "SELECT built_with_cuda, context_held, round(first_use_ms::numeric, 1), device FROM gpusort_gpu_info(true)")
echo "gpu info: $info"
info0=$info
case "$info" in
	t\|t\|*) ok "CUDA starts in a backend (first use: $(echo "$info" | cut -d'|' -f3) ms)" ;;
	*) bad "CUDA start: $info" ;;
esac

# -- whole outputs, GPU against stock
compare() {						# compare NAME QUERY [extra settings...]
	local name=$1 q=$2; shift 2
	local a b plan
	a=$(sql "${STOCK[@]}" -- "$q" | md5sum)
	b=$(sql "${GPU[@]}" "$@" -- "$q" | md5sum)
	plan=$(sql "${GPU[@]}" "$@" -- "EXPLAIN (ANALYZE, COSTS OFF) $q")
	if [ "$a" != "$b" ]; then
		bad "$name: output differs from stock"
	elif ! echo "$plan" | grep -q 'gpu partition-merge'; then
		bad "$name: the GPU engine did not run"; echo "$plan"
	elif echo "$plan" | grep -qE 'Fallback|GPU Not Used'; then
		bad "$name: fallback"; echo "$plan"
	else
		ok "$name"
	fi
	echo "$plan" | grep -E 'GpuSort|GPU|Time' | sed 's/^/    /'
}

compare "int8 key" "SELECT a, id FROM gt ORDER BY a, id"
compare "int8 key, ties" "SELECT a FROM gt ORDER BY a DESC"
compare "float8 key with NULLs" "SELECT f, id FROM gt ORDER BY f NULLS FIRST, id"
compare "text key (C)" "SELECT s, id FROM gt ORDER BY s COLLATE \"C\", id"
compare "text key (C), prefix ties" "SELECT s FROM gt ORDER BY s COLLATE \"C\" DESC"
compare "two columns" "SELECT c, a, id FROM gt ORDER BY c, a DESC, id"
compare "LIMIT" "SELECT a, id FROM gt ORDER BY a, id LIMIT 1000 OFFSET 5000"
for n in 0 1 2 3 1000 100001; do
	compare "$n rows" "SELECT a, id FROM gt WHERE id <= $n ORDER BY a, id"
done

# -- runs merged on the host (the developer setting forces runs on any GPU)
compare "runs: int8 key" "SELECT a, id FROM gt ORDER BY a, id" "gpusort.gpu_max_run_rows = 300000"
compare "runs: text key" "SELECT s, id FROM gt ORDER BY s COLLATE \"C\", id" "gpusort.gpu_max_run_rows = 300000"

# -- cancel at several points of a GPU sort; the session stays usable
q="SELECT s, id FROM gt ORDER BY s COLLATE \"C\", id"
expect=$(sql "${STOCK[@]}" -- "$q" | md5sum)
out=$(
	{
		echo "LOAD 'gpusort'; SET gpusort.device = gpu; SET gpusort.min_rows = 0;"
		echo "SET max_parallel_workers_per_gather = 0;"
		for t in 20 60 150 300 600 1000; do
			echo "SET statement_timeout = '${t}ms';"
			echo "SELECT count(*) FROM ($q OFFSET 0) x;"
		done
		echo "RESET statement_timeout;"
		echo "SELECT 'context ' || context_held FROM gpusort_gpu_info();"
	} | psql -X -q -At 2>&1
)
ncancel=$(echo "$out" | grep -c 'canceling statement due to statement timeout')
after=$(printf "LOAD 'gpusort';\nSET max_parallel_workers_per_gather = 0;\nSET gpusort.device = gpu;\nSET gpusort.min_rows = 0;\nSET statement_timeout = '1ms';\nSELECT 1 FROM ($q OFFSET 0) x LIMIT 1;\nRESET statement_timeout;\n%s;\n" "$q" |
	psql -X -q -At 2>/dev/null | md5sum)
if [ "$ncancel" -ge 1 ] && echo "$out" | grep -q 'context t' && [ "$after" = "$expect" ]; then
	ok "cancel ($ncancel of 6 statements cancelled; the session sorts right afterwards)"
else
	bad "cancel: $ncancel cancelled; $(echo "$out" | tail -3 | tr '\n' ' ')"
fi

# -- session cap (per device: on device 0 only, whatever the server has)
psql -X -q -c "LOAD 'gpusort'" -c "ALTER SYSTEM SET gpusort.max_gpu_sessions = 1" \
	-c "ALTER SYSTEM SET gpusort.devices = '0'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
sql "${GPU[@]}" -- "SELECT count(*) FROM (SELECT a FROM gt ORDER BY a OFFSET 0) x; SELECT pg_sleep(8)" >/dev/null &
holder=$!
sleep 4
plan=$(sql "gpusort.min_rows = 0" -- "EXPLAIN (ANALYZE, COSTS OFF) SELECT a FROM gt ORDER BY a")
warn=$(sql "${GPU[@]}" -- "SELECT count(*) FROM (SELECT a FROM gt ORDER BY a OFFSET 0) x" 2>&1)
wait $holder
if echo "$plan" | grep -q 'GPU sessions' && echo "$warn" | grep -q 'WARNING' &&
	echo "$warn" | grep -q "^$ROWS\$"; then
	ok "gpusort.max_gpu_sessions = 1: a second backend sorts on the CPU (silently under auto, with a WARNING under gpu)"
else
	bad "session cap"; echo "$plan"; echo "$warn"
fi
psql -X -q -c "LOAD 'gpusort'" -c "ALTER SYSTEM RESET gpusort.max_gpu_sessions" \
	-c "ALTER SYSTEM RESET gpusort.devices" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1

# -- sessions spread over the devices: backends start one after another and
# hold their sessions; each goes to a device with the fewest, so with as
# many backends as visible devices, each device holds one
ndev=$(sql -- "SELECT count(*) FROM gpusort_gpu_devices()")
pids=()
for ((i = 0; i < ndev; i++)); do
	sql "${GPU[@]}" -- "SELECT gpusort_gpu_info(true) IS NOT NULL; SELECT pg_sleep($((2 * ndev + 4)))" >/dev/null &
	pids+=($!)
	sleep 2
done
spread=$(sql -- "SELECT string_agg(device_ordinal || ':' || sessions, ' ' ORDER BY device_ordinal) FROM gpusort_gpu_devices()")
wait "${pids[@]}"
want=$(for ((i = 0; i < ndev; i++)); do printf '%d:1 ' "$i"; done)
if [ "$ndev" -ge 1 ] && [ "$spread " = "$want" ]; then
	ok "$ndev backends on $ndev devices, one each ($spread)"
else
	bad "sessions over devices: $ndev devices, device:sessions $spread"
fi
held=$(sql "${GPU[@]}" -- "SELECT gpusort_gpu_info(true) IS NOT NULL;
	SELECT d.device_ordinal = i.device_ordinal AND d.sessions >= 1
	  FROM gpusort_gpu_devices() d, gpusort_gpu_info() i WHERE d.this_session" | tail -n 1)
[ "$held" = t ] && ok "gpusort_gpu_devices() shows the device that gpusort_gpu_info() holds" ||
	bad "this_session: '$held'"

# -- after the holder left, its slot is free again
info=$(sql "${GPU[@]}" -- "SELECT context_held FROM gpusort_gpu_info(true)")
[ "$info" = t ] && ok "a slot is freed when its backend exits" || bad "slot reuse: $info"

# -- the first GPU sort of a session against the next ones (what a session pays once)
sql "${GPU[@]}" -- "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT a FROM gt ORDER BY a; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT a FROM gt ORDER BY a; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT a FROM gt ORDER BY a" |
	grep 'Execution Time' | sed 's/^/    first, second, third GPU sort of a session: /'

psql -X -q -c "DROP TABLE gt"
echo "gpu info (built_with_cuda|context_held|first_use_ms|device): $info0"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
