#!/usr/bin/env bash
# A session's first sorts against its later ones (issue 26's "first run"):
# what fresh memory costs a sort, by gpusort.huge_pages setting.
#
#   bench/sort/first_runs.sh [ROWS]      default 2000000
#
# Loads the sort benchmarks' table (gs_bench_table, test/lib.sh) of ROWS
# rows into shared buffers (pg_prewarm), then runs GS_BENCH_SESSIONS
# (default 3) rounds; each round opens one fresh session per mode and runs
# ORDER BY GS_BENCH_ORDER (default i8) OFFSET ROWS in it GS_BENCH_REPS times
# (default 4), so the modes alternate and share the machine's state alike.
# Each session starts GS_BENCH_IDLE seconds (default 5) after the last one
# ended, as a new connection comes to an idle server: time enough for a
# VM's balloon to report the memory freed meanwhile to the host.
# Modes (GS_BENCH_MODES, default "stock_tuned huge_on huge_off auto"):
#   stock_tuned    gpusort.enabled = off, max_parallel_workers_per_gather = P,
#                  work_mem = 1GB, parallel_tuple_cost = 0.01
#   huge_on, huge_off, auto
#                  gpusort at its defaults with stock_tuned's settings and
#                  gpusort.huge_pages = on, off, auto
# P = min(8, cores / 2).  For every run it prints the wall time and the
# backend's minor page faults and CPU time (user + system, /proc/self/stat,
# read through pg_read_file: every thread of the backend, not its parallel
# workers), and per mode and run number the best and the median wall time
# over the rounds, also written to $OUT/first_runs.md (default
# bench/out/first_runs/) with the raw runs in runs.csv.  The machine's
# transparent_hugepage policy is printed first.  GS_NO_BUILD=1 uses the
# installed build; GS_PRIVATE_PG as in test/lib.sh.
set -uo pipefail
. "$(dirname "$0")/../../test/lib.sh"

ROWS=${1:-2000000}
ncores=$(nproc)
P=${GS_BENCH_WORKERS:-$((ncores / 2 < 8 ? ncores / 2 : 8))}
[ "$P" -lt 1 ] && P=1
SESSIONS=${GS_BENCH_SESSIONS:-3}
IDLE=${GS_BENCH_IDLE:-5}
REPS=${GS_BENCH_REPS:-4}
ORDER=${GS_BENCH_ORDER:-i8}
MODES=${GS_BENCH_MODES:-"stock_tuned huge_on huge_off auto"}
OUT=${OUT:-$GS_ROOT/bench/out/first_runs}
mkdir -p "$OUT"

mode_settings() {
	local tuned="SET max_parallel_workers_per_gather = $P; SET work_mem = '1GB'; SET parallel_tuple_cost = 0.01;"
	case $1 in
		stock_tuned) echo "SET gpusort.enabled = off; $tuned" ;;
		huge_on) echo "$tuned SET gpusort.huge_pages = on;" ;;
		huge_off) echo "$tuned SET gpusort.huge_pages = off;" ;;
		auto) echo "$tuned SET gpusort.huge_pages = auto;" ;;
		*) echo "unknown mode $1" >&2; return 1 ;;
	esac
}

# the backend's minor faults and CPU ticks (user + system), one line
STAT_SQL="SELECT 'stat', f[10], f[14]::bigint + f[15]::bigint
  FROM (SELECT string_to_array(pg_read_file('/proc/self/stat', 0, 2000), ' ') AS f) s;"

# session MODE ROUND: one fresh session, REPS runs; appends to runs.csv
session() {
	local mode=$1 round=$2 script log hz
	hz=$(getconf CLK_TCK)
	script=$(mktemp /tmp/gpusort-first.XXXXXX.sql)
	log=$(mktemp /tmp/gpusort-first.XXXXXX.log)
	{
		echo "LOAD 'gpusort';"
		mode_settings "$mode"
		for ((r = 1; r <= REPS; r++)); do
			echo "$STAT_SQL"
			echo "\\timing on"
			echo "SELECT * FROM bench ORDER BY $ORDER OFFSET $ROWS;"
			echo "\\timing off"
			echo "$STAT_SQL"
		done
	} >"$script"
	chmod a+r "$script" "$log"
	gs_as_pg psql -X -q -At -F ' ' -f "$script" >"$log" 2>&1
	awk -v mode="$mode" -v round="$round" -v hz="$hz" '
		/^stat / { if (have) { printf "%s,%d,%d,%.0f,%d,%.0f\n", mode, round, ++run, ms, $2 - flt, ($3 - cpu) * 1000 / hz; have = 0 }
				   else { flt = $2; cpu = $3; have = 1 } }
		/^Time: / { ms = $2 }
		/ERROR/ { print "error: " $0 > "/dev/stderr" }' "$log"
	rm -f "$script" "$log"
}

[ -n "${GS_NO_BUILD:-}" ] || gs_build_install >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
gs_cluster_start "jit = off" "shared_buffers = '2GB'" "max_wal_size = '8GB'" || exit 1
gs_as_pg psql -X -q -c "CREATE EXTENSION IF NOT EXISTS gpusort" >/dev/null 2>&1
gs_bench_table "$ROWS" >/dev/null || exit 1
gs_as_pg psql -X -q -c "ALTER TABLE bench SET (parallel_workers = $P)" \
	-c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" -c "SELECT pg_prewarm('bench')" >/dev/null || exit 1
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "commit: $(git -C "$GS_ROOT" rev-parse --short HEAD 2>/dev/null)"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($ncores cores), P = $P"
	echo "kernel: $(uname -r); transparent_hugepage enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null), defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)"
	echo "postgres: $(pg_config --version); rows: $ROWS, ORDER BY $ORDER; $SESSIONS rounds of one session per mode, $REPS runs each, $IDLE s idle before each session"
} | tee "$OUT/device.txt" >&2

echo "mode,round,run,ms,minflt,cpu_ms" >"$OUT/runs.csv"
for ((s = 1; s <= SESSIONS; s++)); do
	for m in $MODES; do
		sleep "$IDLE"
		session "$m" "$s" | tee -a "$OUT/runs.csv" >&2
	done
done

# per mode and run number: best and median wall ms, median faults and CPU
{
	sed 's/^/    /' "$OUT/device.txt"
	echo
	echo "| mode | run | best ms | median ms | median minor faults | median backend CPU ms |"
	echo "|---|---:|---:|---:|---:|---:|"
	tail -n +2 "$OUT/runs.csv" | sort -t, -k1,1 -k3,3n -k4,4n | awk -F, '
		function flush() {
			if (n == 0) return
			printf "| %s | %d | %d | %d | %d | %d |\n", m, r, ms[1], ms[int((n + 1) / 2)], med(fl), med(cp)
		}
		function med(a,   i, j, t, b) {
			for (i = 1; i <= n; i++) b[i] = a[i]
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
			return b[int((n + 1) / 2)]
		}
		$1 != m || $3 != r { flush(); m = $1; r = $3; n = 0 }
		{ n++; ms[n] = $4; fl[n] = $5; cp[n] = $6 }
		END { flush() }'
} | tee "$OUT/first_runs.md"
