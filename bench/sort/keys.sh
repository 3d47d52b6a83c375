#!/usr/bin/env bash
# Keys for real data (issue 26): stock PostgreSQL, tuned and in one process,
# against GpuSort at its defaults, side by side in one run, on realistic
# text in an en_US.UTF-8 database.
#
#   bench/sort/keys.sh [ROWS]           default 10000000
#
# Loads one unlogged table kr of ROWS rows (deterministic: hashes of the row
# number pick from arrays of name parts): category (300 values sharing long
# prefixes, "Électronique grand public > Téléviseurs 042"), brand (400),
# country (12), city (16), name (first and last names with apostrophes,
# hyphens and accents), address ("1234-B Main St."), email, url, odd
# (strings glibc's strxfrm orders apart from strcoll: "10 +5 Co-Op" /
# "10-5coop", "1,000_x" / "1,000 #x", then a number: many disagreements),
# odd_clean (letters and digits, which strxfrm orders as strcoll does),
# odd_one (odd_clean but for the two disagreeing pairs, once each: what one
# disagreement costs), odd_agree (odd's shape without its disagreements:
# the same number after six prefixes of the same lengths, within one or
# none, two groups of three sharing their primary weights and differing
# only in punctuation, as odd's, but none of whose pairs glibc's strxfrm
# orders apart from strcoll: the same sort without one), day, ts, amount
# (numeric), iv (interval); for the longprefix queries a table lp (1% of
# its rows 1 kB strings sharing all but their end: issue 39's repro of the
# refinement's cost bound); then times each query (every row sorted, none
# sent: OFFSET ROWS, or an aggregate over a window; name_offset a top-N of
# ROWS/10 rows) in three modes, each in fresh sessions:
#   stock_tuned    gpusort.enabled = off, max_parallel_workers_per_gather = P,
#                  work_mem = 1GB, parallel_tuple_cost = 0.01
#   stock_serial   gpusort.enabled = off, no workers, work_mem = 1GB
#   gpusort        gpusort at its defaults, with stock_tuned's settings
#   gpusort_huge   gpusort with gpusort.huge_pages = on (not in the default
#                  modes: to compare the huge-page advice with auto)
# P = min(8, cores / 2) (GS_BENCH_WORKERS).  The best of GS_BENCH_REPS runs
# (default 2) is kept; a query past GS_BENCH_TIMEOUT seconds (default 120)
# says ">N".  After the timed runs, an EXPLAIN ANALYZE of the gpusort mode
# gives the rows its comparators settled (the "Ties:" rows of every GpuSort
# node) and its key layout.
#
# Prints a markdown table (query, stock tuned ms, stock serial ms, gpusort
# ms, tuned/gpusort, serial/gpusort, rows settled by the comparators, key),
# also written to $OUT/keys.md (default bench/out/keys/), with keys.csv,
# device.txt and explain.txt.  GS_BENCH_QUERIES and GS_BENCH_MODES run
# fewer; GS_BENCH_MAX_MEMORY sets gpusort.max_memory for gpusort (a sort
# past it writes runs); GS_NO_BUILD=1 uses the installed build;
# GS_PRIVATE_PG as in test/lib.sh; GS_CLUSTER_LOCALE (default en_US.UTF-8)
# the database's.
set -uo pipefail
. "$(dirname "$0")/../../test/lib.sh"

ROWS=${1:-10000000}
ncores=$(nproc)
P=${GS_BENCH_WORKERS:-$((ncores / 2 < 8 ? ncores / 2 : 8))}
[ "$P" -lt 1 ] && P=1
REPS=${GS_BENCH_REPS:-2}
TIMEOUT=${GS_BENCH_TIMEOUT:-120}
OUT=${OUT:-$GS_ROOT/bench/out/keys}
MODES=${GS_BENCH_MODES:-"stock_tuned stock_serial gpusort"}
QUERIES=${GS_BENCH_QUERIES:-"category category_day category_amount country_city_name brand_ts name address email url odd odd_clean odd_one odd_agree interval win_category_day win_category_ts win_category_amount name_offset longprefix longprefix_icu longprefix_interval"}
export GS_CLUSTER_LOCALE=${GS_CLUSTER_LOCALE:-en_US.UTF-8}

mkdir -p "$OUT"
rm -f "$OUT/keys.csv" "$OUT/explain.txt"

# the SQL of a query over ROWS rows: nothing is sent but a row or none
query_sql() {
	case $1 in
		category) echo "SELECT * FROM kr ORDER BY category OFFSET $ROWS" ;;
		category_day) echo "SELECT * FROM kr ORDER BY category, day OFFSET $ROWS" ;;
		category_amount) echo "SELECT * FROM kr ORDER BY category, amount OFFSET $ROWS" ;;
		country_city_name) echo "SELECT * FROM kr ORDER BY country, city, name OFFSET $ROWS" ;;
		brand_ts) echo "SELECT * FROM kr ORDER BY brand, ts OFFSET $ROWS" ;;
		name) echo "SELECT * FROM kr ORDER BY name OFFSET $ROWS" ;;
		address) echo "SELECT * FROM kr ORDER BY address OFFSET $ROWS" ;;
		email) echo "SELECT * FROM kr ORDER BY email OFFSET $ROWS" ;;
		url) echo "SELECT * FROM kr ORDER BY url OFFSET $ROWS" ;;
		odd) echo "SELECT * FROM kr ORDER BY odd OFFSET $ROWS" ;;
		odd_clean) echo "SELECT * FROM kr ORDER BY odd_clean OFFSET $ROWS" ;;
		odd_one) echo "SELECT * FROM kr ORDER BY odd_one OFFSET $ROWS" ;;
		odd_agree) echo "SELECT * FROM kr ORDER BY odd_agree OFFSET $ROWS" ;;
		interval) echo "SELECT * FROM kr ORDER BY iv OFFSET $ROWS" ;;
		win_category_day) echo "SELECT max(r) FROM (SELECT row_number() OVER (PARTITION BY category ORDER BY day) AS r FROM kr) s" ;;
		win_category_ts) echo "SELECT max(r) FROM (SELECT sum(amount) OVER (PARTITION BY category ORDER BY ts) AS r FROM kr) s" ;;
		win_category_amount) echo "SELECT max(r) FROM (SELECT rank() OVER (PARTITION BY category ORDER BY amount) AS r FROM kr) s" ;;
		name_offset) echo "SELECT id, name FROM kr ORDER BY name, id LIMIT 100 OFFSET $((ROWS / 10))" ;;
		longprefix) echo "SELECT * FROM lp ORDER BY s, n OFFSET $ROWS" ;;
		longprefix_icu) echo "SELECT * FROM lp ORDER BY s COLLATE \"und-x-icu\", n OFFSET $ROWS" ;;
		longprefix_interval) echo "SELECT * FROM lp ORDER BY s DESC, iv OFFSET $ROWS" ;;
		*) echo "unknown query $1" >&2; return 1 ;;
	esac
}

mode_settings() {
	local tuned="SET max_parallel_workers_per_gather = $P; SET work_mem = '1GB'; SET parallel_tuple_cost = 0.01;"
	case $1 in
		stock_tuned) echo "SET gpusort.enabled = off; $tuned" ;;
		stock_serial) echo "SET gpusort.enabled = off; SET max_parallel_workers_per_gather = 0; SET work_mem = '1GB';" ;;
		gpusort) echo "$tuned${GS_BENCH_MAX_MEMORY:+ SET gpusort.max_memory = '$GS_BENCH_MAX_MEMORY';}" ;;
		gpusort_huge) echo "$(mode_settings gpusort) SET gpusort.huge_pages = on;" ;;
		*) echo "unknown mode $1" >&2; return 1 ;;
	esac
}

# lp (the longprefix queries): 1% of the rows 1 kB strings that share all
# but their last few characters, the rest 1 to 6 characters of md5
load_lp() {
	local j jobs=$((ncores < 16 ? ncores : 16)) lo hi
	psql_bench -c "DROP TABLE IF EXISTS lp" -c "CREATE UNLOGGED TABLE lp (id int, s text, n numeric, iv interval)" || return 1
	for ((j = 0; j < jobs; j++)); do
		lo=$((ROWS * j / jobs + 1)); hi=$((ROWS * (j + 1) / jobs))
		psql_bench -c "INSERT INTO lp SELECT g,
		  CASE WHEN g % 100 = 3 THEN repeat('Prefix-Commun Électronique ', 40) ||
		         (ARRAY['a','B','é','','co-op','coop'])[1 + g % 6] || (g % 50)
		       ELSE substr(md5(g::text), 1, 1 + g % 6) END,
		  (g % 1000)::numeric, make_interval(days => g % 30, secs => g % 7)
		FROM generate_series($lo, $hi) g" &
	done
	wait
	psql_bench -c "ALTER TABLE lp SET (parallel_workers = $P)" -c "VACUUM ANALYZE lp" || return 1
}

# the table: ROWS rows loaded by J sessions, each a slice of the ids
load_table() {
	local j jobs=$((ncores < 16 ? ncores : 16)) lo hi
	psql_bench -c "DROP TABLE IF EXISTS kr" -c "CREATE UNLOGGED TABLE kr (id int, category text,
		brand text, country text, city text, name text, address text, email text, url text,
		odd text, odd_clean text, odd_one text, odd_agree text, day date, ts timestamp, amount numeric, iv interval)" || return 1
	for ((j = 0; j < jobs; j++)); do
		lo=$((ROWS * j / jobs + 1)); hi=$((ROWS * (j + 1) / jobs))
		psql_bench -c "$(insert_sql "$lo" "$hi")" &
	done
	wait
	psql_bench -c "ALTER TABLE kr SET (parallel_workers = $P)" -c "VACUUM ANALYZE kr" || return 1
	psql_bench -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null 2>&1
	psql_bench -At -c "SELECT pg_prewarm('kr')" >/dev/null 2>&1 || true
}

insert_sql() {
	cat <<-EOF
	INSERT INTO kr
	SELECT i,
	   (ARRAY['Électronique grand public > Téléviseurs ', 'Électronique grand public > Téléphones ',
	          'Maison et jardin > Cuisine > Ustensiles ', 'Maison et jardin > Cuisine > Électroménager '])[1 + h1 % 4]
	     || lpad((h2 % 75)::text, 3, '0'),
	   (ARRAY['Maison Dupont-Lefèvre & Fils', 'L''Oréal Paris', 'l''oreal paris', 'Ōkami Co.', 'Ökotest GmbH',
	          'co-op', 'Co-Op', 'coop', 'Zürich Versicherung', 'Ängelholm AB'])[1 + h2 % 10] || ' ' || (h3 % 40),
	   (ARRAY['France', 'Deutschland', 'Sverige', 'Türkiye', 'United States', 'Österreich', 'Ísland',
	          'Česko', 'España', 'Italia', 'Danmark', 'Schweiz'])[1 + h3 % 12],
	   (ARRAY['Saint-Étienne', 'L''Haÿ-les-Roses', 'Aix-en-Provence', 'Île-Saint-Denis', 'München', 'Münster',
	          'Malmö', 'Örebro', 'İstanbul', 'Izmir', 'New York', 'Newark', 'St. Louis', 'St Louis',
	          'Saint Louis', 'Zürich'])[1 + h4 % 16],
	   (ARRAY['Anne-Marie', 'Jean-Luc', 'Zoë', 'Chloé', 'Søren', 'Åsa', 'Ömer', 'İlker', 'Dmitri', 'Seán',
	          'Mary Jo', 'Mary-Jo', 'Marie-Hélène', 'José Luis', 'Zoe', 'Ana'])[1 + h1 % 16] || ' ' ||
	   (ARRAY['O''Brien', 'OBrien', 'O Brien', 'D''Angelo', 'Lefèvre-Durand', 'Lefevre Durand', 'van der Berg',
	          'Van Der Berg', 'MacDonald', 'Mc Donald', 'Ødegaard', 'Åström', 'Çelik', 'Iñárritu', 'Núñez',
	          'Nunez'])[1 + h2 % 16] || ' ' || (ARRAY['', 'Jr.', 'III', 'Sr.'])[1 + h3 % 4] || (h4 % 100000),
	   (h3 % 9999)::text || (ARRAY['', '-B', ' 1/2', '-A'])[1 + h1 % 4] || ' ' ||
	   (ARRAY['Main', 'Main-Street', 'Old Mill', 'Old-Mill', 'St. James', 'Saint James'])[1 + h4 % 6] || ' ' ||
	   (ARRAY['St.', 'Ave.', 'Blvd', 'Rd.'])[1 + h2 % 4] || ', Apt ' || (h4 % 500),
	   (ARRAY['anne-marie', 'jean.luc', 'zoe', 'o''brien', 'soren'])[1 + h1 % 5] || '.' || (h2 % 100000)
	     || '@' || (ARRAY['example.com', 'mail.example-shop.co.uk', 'exämple.de'])[1 + h3 % 3],
	   'https://www.example-shop.com/catégorie/' || (ARRAY['electronique/televiseurs', 'maison-jardin/cuisine'])[1 + h1 % 2]
	     || '?page=' || (h2 % 500) || '&id=' || i,
	   (ARRAY['10 +5 Co-Op', '10-5coop', '1,000_x', '1,000 #x', '10 5 coop', '1000x'])[1 + h1 % 6] || ' ' || (h2 % 1000000),
	   (ARRAY['tenfivecoop', 'tenfivecoopx', 'onethousandx', 'onethousandy', 'tenfivecoo', 'thousandx'])[1 + h1 % 6] || (h2 % 1000000),
	   CASE i WHEN 1 THEN '10 +5 Co-Op' WHEN 2 THEN '10-5coop' WHEN 3 THEN '1,000_x' WHEN 4 THEN '1,000 #x'
	     ELSE (ARRAY['tenfivecoop', 'tenfivecoopx', 'onethousandx', 'onethousandy', 'tenfivecoo', 'thousandx'])[1 + h1 % 6] || (h2 % 1000000) END,
	   (ARRAY['10 +5 coop', '10-5coop', '1,000_x', '1,000 x', '10 5 coop', '1000x'])[1 + h1 % 6] || ' ' || (h2 % 1000000),
	   date '2020-01-01' + h3 % 2000,
	   timestamp '2020-01-01' + (h4 % 100000000) * interval '1 second',
	   round((h1 % 10000000) / 100.0, 2),
	   (h2 % 40) * interval '1 month' + (h3 % 100) * interval '1 day' + (h4 % 86400000) * interval '1 ms'
	  FROM generate_series($1, $2) i,
	       LATERAL (SELECT hashint4(i) & 2147483647 AS h1, hashint4(i + 1000003) & 2147483647 AS h2,
	                       hashint4(i + 2000003) & 2147483647 AS h3, hashint4(i + 3000017) & 2147483647 AS h4) h
	EOF
}

psql_bench() { gs_as_pg psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# cell MODE QUERY: the best of REPS runs, in ms; "error" if any run failed,
# ">N" if none finished in time (each run's time goes to stderr)
cell() {
	local mode=$1 q=$2 sql log script r
	sql=$(query_sql "$q") || return 1
	log=$(mktemp /tmp/gpusort-keys.XXXXXX.log)
	script=$(mktemp /tmp/gpusort-keys.XXXXXX.sql)
	{
		echo "LOAD 'gpusort';"
		mode_settings "$mode"
		echo "SET statement_timeout = '${TIMEOUT}s';"
		for ((r = 0; r < REPS; r++)); do
			echo "\\timing on"
			echo "\\echo @@ rep"
			echo "$sql;"
			echo "\\timing off"
		done
	} >"$script"
	chmod a+r "$script" "$log"
	gs_as_pg psql -X -q -f "$script" >"$log" 2>&1
	awk -v tmo="$TIMEOUT" '
		/^Time: / { if (best == "" || $2 + 0 < best + 0) best = $2; all = all " " $2 }
		/canceling statement due to statement timeout/ { to = 1 }
		/ERROR/ && !/statement timeout/ { err = 1; msg = $0 }
		END {
			printf "  runs (ms):%s%s\n", all, err ? "; " msg : "" > "/dev/stderr"
			if (err) print "error"
			else if (best != "") printf "%.0f\n", best
			else if (to) print ">" tmo * 1000
			else print "error"
		}' "$log"
	rm -f "$script" "$log"
}

# explain QUERY: "settled rows|key" from an EXPLAIN ANALYZE in the gpusort mode
explain() {
	local q=$1 sql out
	sql=$(query_sql "$q") || return 1
	out=$(psql_bench -c "LOAD 'gpusort'" -c "$(mode_settings gpusort)" \
		-c "SET statement_timeout = '${TIMEOUT}s'" \
		-c "EXPLAIN (ANALYZE, COSTS OFF) $sql" 2>&1)
	{ echo "== $q: $sql"; echo "$out"; echo; } >>"$OUT/explain.txt"
	echo "$out" | awk '
		/Ties: / { for (i = 1; i <= NF; i++) if ($i == "rows" && $(i - 2) == "groups,") t += $(i - 1); seen = 1 }
		/GpuSort: / && key == "" { sub(/^.*GpuSort: /, ""); key = $0 }
		/Verified: / && / out of order/ { v = $0; sub(/^.*compared with strcoll, /, "", v); key = key "; " v }
		END { printf "%s|%s\n", seen ? t : "-", key == "" ? "(no GpuSort)" : key }'
}

[ -n "${GS_NO_BUILD:-}" ] || gs_build_install >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
sb=$(awk '/MemTotal/ { m = int($2 / 1048576 / 4); if (m > 16) m = 16; if (m < 1) m = 1; print m }' /proc/meminfo)
gs_cluster_start "jit = off" "shared_buffers = '${sb}GB'" "max_wal_size = '8GB'" \
	"max_worker_processes = $((P + 8 > 16 ? P + 8 : 16))" "max_parallel_workers = $((P + 8))" || exit 1
trap 'gs_cluster_stop' EXIT
psql_bench -c "CREATE EXTENSION IF NOT EXISTS gpusort" >/dev/null 2>&1

t0=$(date +%s)
load_table || exit 1
case " $QUERIES " in *" longprefix"*) load_lp || exit 1 ;; esac
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "commit: $(git -C "$GS_ROOT" rev-parse --short HEAD 2>/dev/null)"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($ncores cores), P = $P"
	nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
	echo "postgres: $(pg_config --version), database locale $GS_CLUSTER_LOCALE"
	echo "rows: $ROWS (loaded in $(($(date +%s) - t0)) s), best of $REPS"
} | tee "$OUT/device.txt" >&2

echo "query,mode,ms" >"$OUT/keys.csv"
declare -A ms
for q in $QUERIES; do
	for m in $MODES; do
		ms[$q,$m]=$(cell "$m" "$q")
		echo "$q,$m,${ms[$q,$m]}" >>"$OUT/keys.csv"
		echo "[$(date -u +%H:%M:%S)] $q $m: ${ms[$q,$m]} ms" >&2
	done
done

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2fx", a / b; else print "-" }'
}
{
	cat "$OUT/device.txt" | sed 's/^/    /'
	echo
	echo "| query | stock tuned ms | stock serial ms | gpusort ms | tuned/gpusort | serial/gpusort | rows settled by comparators | gpusort key |"
	echo "|---|---:|---:|---:|---:|---:|---:|---|"
	for q in $QUERIES; do
		ex=$(explain "$q")
		echo "| $q | ${ms[$q,stock_tuned]:--} | ${ms[$q,stock_serial]:--} | ${ms[$q,gpusort]:--} | $(ratio "${ms[$q,stock_tuned]:-}" "${ms[$q,gpusort]:-}") | $(ratio "${ms[$q,stock_serial]:-}" "${ms[$q,gpusort]:-}") | ${ex%%|*} | ${ex#*|} |"
	done
} | tee "$OUT/keys.md"
