# Shared by bench/sort/e2e_gpu.sh and bench/sort/sort.sh: the modes, one timed cell
# (one mode, one key, one fresh session), the results files.  Source it
# after test/lib.sh, with a cluster running (PGHOST etc. exported).
#
# The caller sets:
#   OUT             results folder (e2e.csv, e2e.md, e2e.log, plans_*.txt,
#                   explain_*.txt, logs/)
#   BENCH_TABLE     the table's name
#   BENCH_ORDER_BY  a command printing the ORDER BY list of a query name
#   BENCH_QUERY     or: a command printing the whole SQL of a query name
#                   (args: name, rows), for shapes other than ORDER BY OFFSET
#   BENCH_PLAN_QUERY optional: a command printing the statement whose plan
#                   goes to plans_ROWS.txt (args: name, rows), where the
#                   timed SQL is none EXPLAIN takes (COPY, DROP TABLE ...;
#                   CREATE TABLE AS); empty output: no plan; unset: the timed SQL
#   BENCH_P         the workers of the tuned modes (max_parallel_workers_per_gather)
#   BENCH_WORK_MEM  work_mem of the tuned modes (1GB)
#   BENCH_TUNED_SET more SET commands of the parallel tuned modes (stock_tuned,
#                   gpusort_cpu, gpusort_gpu); default: parallel_tuple_cost =
#                   0.01, without which the planner sorts 10^7 narrow rows in
#                   one process once work_mem holds them (work_mem 1GB)
#   BENCH_REPS      timed runs per cell, the best is kept
#   BENCH_TIMEOUT   statement_timeout of one timed query, seconds
#   BENCH_DEADLINE  epoch seconds after which no query starts, and none runs
#                   past it (statement_timeout shrinks to what is left); 0: none
#   BENCH_EXPLAIN_MODES, BENCH_EXPLAIN_QUERIES
#                   cells whose session ends with an EXPLAIN ANALYZE of the
#                   query (into explain_MODE_ROWS.txt)
#   BENCH_PAR_GUC   "auto"/"on"/"off": the value for gpusort.parallel in the tuned
#                   GpuSort modes, "" when the GUC does not exist
#   BENCH_T0        epoch seconds of the start (for the progress lines)
#
# Modes (every one in fresh sessions, after a warm-up sort of 200000 rows):
#   floor              no ORDER BY, max_parallel_workers_per_gather = 0
#   stock_default      gpusort.enabled = off, PostgreSQL's defaults
#                      (work_mem 4MB, max_parallel_workers_per_gather 2)
#   stock_tuned        gpusort.enabled = off, max_parallel_workers_per_gather
#                      = P, work_mem = BENCH_WORK_MEM, BENCH_TUNED_SET
#   stock_1proc        gpusort.enabled = off, no workers, work_mem = BENCH_WORK_MEM
#   gpusort_cpu        gpusort.device = cpu, the settings of stock_tuned
#   gpusort_gpu        gpusort.device = gpu, the same
#   gpusort_auto       gpusort at its defaults, the settings of stock_tuned
#   gpusort_cpu_1proc, gpusort_gpu_1proc
#                      the same with no workers (and gpusort.parallel = off
#                      where it exists): the serial GpuSort
#
# e2e.csv rows: rows,query,mode,ms where ms is the best time, ">N" when the
# query ran into its statement_timeout of N ms, or "error".

BENCH_ALL_MODES="floor stock_default stock_tuned stock_1proc gpusort_auto gpusort_cpu gpusort_gpu gpusort_cpu_1proc gpusort_gpu_1proc"
BENCH_DIR=${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}

BENCH_TUNED_SET=${BENCH_TUNED_SET-"SET parallel_tuple_cost = 0.01;"}

bench_now() { date +%s; }

# bench_log MSG...: a progress line with the time, also into $OUT/e2e.log
bench_log() {
	local line
	line="[$(date -u +%H:%M:%S) +$(($(bench_now) - ${BENCH_T0:-$(bench_now)}))s] $*"
	echo "$line"
	echo "$line" >>"$OUT/e2e.log"
}

bench_psql() { gs_as_pg psql -X -q "$@"; }

# bench_mode_settings MODE: the SET commands of a mode
bench_mode_settings() {
	local par=""
	case $1 in
		floor) echo "SET max_parallel_workers_per_gather = 0;" ;;
		stock_default) echo "SET gpusort.enabled = off;" ;;
		stock_tuned) echo "SET gpusort.enabled = off;"
			echo "SET max_parallel_workers_per_gather = $BENCH_P; SET work_mem = '$BENCH_WORK_MEM';"
			echo "$BENCH_TUNED_SET" ;;
		stock_1proc) echo "SET gpusort.enabled = off;"
			echo "SET max_parallel_workers_per_gather = 0; SET work_mem = '$BENCH_WORK_MEM';" ;;
		gpusort_auto)
			echo "SET max_parallel_workers_per_gather = $BENCH_P; SET work_mem = '$BENCH_WORK_MEM';"
			echo "$BENCH_TUNED_SET" ;;
		gpusort_cpu|gpusort_gpu)
			echo "SET gpusort.device = ${1#gpusort_}; SET gpusort.min_rows = 0;"
			echo "SET max_parallel_workers_per_gather = $BENCH_P; SET work_mem = '$BENCH_WORK_MEM';"
			echo "$BENCH_TUNED_SET"
			if [ -n "${BENCH_PAR_GUC:-}" ]; then echo "SET gpusort.parallel = $BENCH_PAR_GUC;"; fi ;;
		gpusort_cpu_1proc|gpusort_gpu_1proc)
			par=${1#gpusort_}
			echo "SET gpusort.device = ${par%_1proc}; SET gpusort.min_rows = 0;"
			echo "SET max_parallel_workers_per_gather = 0; SET work_mem = '$BENCH_WORK_MEM';"
			if [ -n "${BENCH_PAR_GUC:-}" ]; then echo "SET gpusort.parallel = off;"; fi ;;
		*) echo "unknown mode $1 (modes: $BENCH_ALL_MODES)" >&2; return 1 ;;
	esac
}

# psql lines that set :go (enough time left before the deadline to start a
# statement) and :to_ms (its statement_timeout: the smaller of the
# per-query timeout and the time left)
bench_guard() {
	cat <<-EOF
	SELECT x AS to_ms, x >= least(5000, :tmo_ms) AS go FROM (SELECT least(:tmo_ms,
	  ((:deadline - extract(epoch FROM clock_timestamp())) * 1000)::bigint) AS x) s \\gset
	\\if :go
	SET statement_timeout = :to_ms;
	EOF
}

# bench_cell ROWS MODE QUERY: one cell; appends its CSV row and prints its
# progress line ("all" is the floor's query: no ORDER BY)
bench_cell() {
	local n=$1 mode=$2 q=$3 ob="" sql plan_sql warm script log res r explain=0 left hard=()
	if [ "$mode" = floor ]; then
		sql="SELECT * FROM $BENCH_TABLE OFFSET $n"
		warm="SELECT count(*) FROM (SELECT * FROM $BENCH_TABLE LIMIT 200000 OFFSET 0) s"
	elif [ -n "${BENCH_QUERY:-}" ]; then
		sql=$($BENCH_QUERY "$q" "$n") || return 1
		warm="SELECT count(*) FROM (SELECT * FROM (SELECT * FROM $BENCH_TABLE LIMIT 200000) s ORDER BY 1 OFFSET 0) x"
	else
		ob=$($BENCH_ORDER_BY "$q") || return 1
		sql="SELECT * FROM $BENCH_TABLE ORDER BY $ob OFFSET $n"
		warm="SELECT count(*) FROM (SELECT * FROM (SELECT * FROM $BENCH_TABLE LIMIT 200000) s ORDER BY $ob OFFSET 0) x"
	fi
	plan_sql=$sql
	if [ -n "${BENCH_PLAN_QUERY:-}" ] && [ "$mode" != floor ]; then
		plan_sql=$($BENCH_PLAN_QUERY "$q" "$n") || return 1
	fi
	case " $BENCH_EXPLAIN_MODES " in *" $mode "*)
		case " $BENCH_EXPLAIN_QUERIES " in *" $q "*) explain=1 ;; esac ;;
	esac
	# EXPLAIN takes one query: not COPY, nor ctas's DROP TABLE; CREATE TABLE AS
	# (it left psql's syntax errors in the records of 2026-11-24)
	case $plan_sql in SELECT\ *) ;; *) explain=0 ;; esac
	if [ "${BENCH_DEADLINE:-0}" -gt 0 ]; then
		left=$((BENCH_DEADLINE - $(bench_now)))
		if [ $left -lt 6 ]; then
			bench_log "$n $mode $q: skipped (time budget spent)"
			return 0
		fi
		# a hung session must not outlive the budget by much
		hard=(timeout -k 5 $((left + 30)))
	fi
	mkdir -p "$OUT/logs"
	log=$OUT/logs/${n}_${mode}_$q.log
	script=$(mktemp /tmp/gpusort-cell.XXXXXX.sql)
	{
		echo "LOAD 'gpusort';"
		echo "\\set tmo_ms $((BENCH_TIMEOUT * 1000))"
		if [ "${BENCH_DEADLINE:-0}" -gt 0 ]; then
			echo "\\set deadline $BENCH_DEADLINE"
		else
			echo "\\set deadline 9999999999"
		fi
		bench_mode_settings "$mode"
		bench_guard
		echo "$warm;"
		echo "\\else"
		echo "\\echo @@ skip budget"
		echo "\\q"
		echo "\\endif"
		if [ -n "$plan_sql" ]; then
			echo "\\echo @@ plan"
			echo "EXPLAIN (COSTS OFF) $plan_sql;"
			echo "\\echo @@ endplan"
		fi
		for ((r = 0; r < BENCH_REPS; r++)); do
			bench_guard
			echo "\\timing on"
			echo "\\echo @@ rep"
			echo "$sql;"
			echo "\\echo @@ status :SQLSTATE :to_ms"
			echo "\\timing off"
			echo "\\if :ERROR"
			echo "\\q"
			echo "\\endif"
			echo "\\else"
			echo "\\echo @@ skip budget"
			echo "\\q"
			echo "\\endif"
		done
		if [ $explain = 1 ]; then
			bench_guard
			echo "\\echo @@ explain"
			echo "EXPLAIN (ANALYZE, COSTS OFF) $plan_sql;"
			echo "\\echo @@ endexplain"
			echo "\\endif"
		fi
	} >"$script"
	chmod a+r "$script"
	gs_as_pg "${hard[@]}" psql -X -q -f "$script" >"$log" 2>&1
	[ $? = 124 ] && echo "@@ killed: the session outlived the time budget" >>"$log"
	rm -f "$script"

	# the best successful run; else ">N" (a statement_timeout of N ms), an
	# error (also: the session failed before any run), or nothing run (the
	# budget was spent)
	res=$(awk '
		/^@@ rep/ { inrep = 1; ms = ""; next }
		inrep && /^Time: / { ms = $2 }
		/^@@ skip/ { skip = 1 }
		/^@@ status / {
			inrep = 0
			if ($3 == "00000" && ms != "") { if (best == "" || ms + 0 < best + 0) best = ms }
			else if ($3 == "57014") to = $4
			else err = $3
		}
		END {
			if (best != "") printf "%.1f\n", best
			else if (to != "") print ">" to
			else if (err != "" || !skip) print "error"
			else print "skipped"
		}' "$log")
	case $res in
		skipped) bench_log "$n $mode $q: skipped (time budget spent)" ;;
		error) bench_log "$n $mode $q: failed: $(grep -m1 -E '^(psql:.*)?(ERROR|FATAL)|^@@ killed|could not connect' "$log") (see logs/${log##*/})"
			echo "$n,$q,$mode,error" >>"$OUT/e2e.csv" ;;
		\>*) bench_log "$n $mode $q: > $(awk -v t="${res#>}" 'BEGIN { printf "%.0f", t / 1000 }') s (statement_timeout)"
			echo "$n,$q,$mode,$res" >>"$OUT/e2e.csv" ;;
		*) bench_log "$n $mode $q: $res ms"
			echo "$n,$q,$mode,$res" >>"$OUT/e2e.csv" ;;
	esac

	# the plan (every cell) and the EXPLAIN ANALYZE (some)
	{
		echo "== $mode, $q: $sql"
		sed -n '/^@@ plan/,/^@@ endplan/p' "$log" | sed '1d;$d'
	} >>"$OUT/plans_$n.txt"
	if [ $explain = 1 ] && grep -q '^@@ explain' "$log"; then
		{
			echo "== $mode, $q: EXPLAIN (ANALYZE, COSTS OFF) $plan_sql"
			sed -n '/^@@ explain/,/^@@ endexplain/p' "$log" | sed '1d;$d'
			grep -E 'WARNING|ERROR' "$log" | sort -u
			echo
		} >>"$OUT/explain_${mode}_$n.txt"
	fi
	bench_md
}

# e2e.md from e2e.csv (and e2e.png when matplotlib is there and asked for)
bench_md() {
	command -v python3 >/dev/null || return 0
	python3 "$BENCH_DIR/plot_e2e.py" --md "$OUT/e2e.md" \
		${BENCH_DEVICE_FILE:+--device "$BENCH_DEVICE_FILE"} "$@" "$OUT/e2e.csv" >/dev/null 2>>"$OUT/e2e.log"
}

# bench_prepare_table ROWS: after the load: the tuned workers as the table's
# parallel_workers (unless BENCH_TABLE_WORKERS=0), the table into
# shared_buffers
bench_prepare_table() {
	local tw=${BENCH_TABLE_WORKERS:-$BENCH_P}
	if [ "$tw" != 0 ]; then
		bench_psql -c "ALTER TABLE $BENCH_TABLE SET (parallel_workers = $tw)" || return 1
	fi
	bench_psql -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null 2>&1
	bench_psql -At -c "SELECT pg_prewarm('$BENCH_TABLE')" >/dev/null 2>&1 ||
		bench_psql -At -c "SELECT count(*) FROM $BENCH_TABLE" >/dev/null
}

# bench_device_lines: the machine and the settings (for device.txt)
bench_device_lines() {
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	local c
	c=$(git -C "${BENCH_SRC:-$GS_ROOT}" rev-parse --verify -q HEAD 2>/dev/null) || c=${GS_BENCH_COMMIT:-unknown}
	echo "commit: $c$(git -C "${BENCH_SRC:-$GS_ROOT}" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo ' (+ local changes)')"
	# every source file, however deep (src/sort/plan/... since 2026-11-25)
	echo "sources: sha1 $(cd "${BENCH_SRC:-$GS_ROOT}" && find src kernels Makefile -type f | LC_ALL=C sort | xargs cat 2>/dev/null | sha1sum | cut -c1-12) (find src kernels Makefile -type f | LC_ALL=C sort | xargs cat | sha1sum)"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($(nproc) cores)"
	echo "memory: $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
	echo "postgres: $(pg_config --version)"
	echo "/dev/shm: $(df -h /dev/shm 2>/dev/null | awk 'NR == 2 {print $2 " size, " $4 " free (" $1 ")"}')"
}
