#!/usr/bin/env bash
# tree_reduce against what a user writes in stock PostgreSQL today, side by
# side, on a throwaway cluster:
#
#   sum         tree_reduce(doc, 'sum')       vs  xpath('sum(//@w)', doc)
#   max_path    tree_reduce(doc, 'max_path')  vs  a recursive CTE walking the
#                                                 element tree with xpath()
#
# on one document of ~1 MB, one of ~100 MB (xml columns; both under the xml
# type's depth limit of 256) and on 10^6 small documents.  Each query runs
# TREE_BENCH_RUNS times (default 3), best time shown; stock queries that
# pass TREE_BENCH_TIMEOUT seconds (default 60) show as "> N s".  The
# results of both sides are printed so they can be compared.
#
#   bench/tree/tree.sh               build, install, run, print the table
#   GS_PRIVATE_PG=/tmp/pg bench/tree/tree.sh   install into a private server copy
#   TREE_BENCH_SMALL_DOCS=100000 bench/tree/tree.sh   fewer small documents
set -uo pipefail
. "$(dirname "$0")/../../test/lib.sh"
. "$(dirname "$0")/tree_lib.sh"

runs=${TREE_BENCH_RUNS:-3}
timeout=${TREE_BENCH_TIMEOUT:-60}
ndocs=${TREE_BENCH_SMALL_DOCS:-1000000}

gs_build_install || exit 1
gs_cluster_start "shared_buffers = 1GB" "work_mem = 256MB" "max_parallel_workers_per_gather = 0" || exit 1
data=$(mktemp -d /tmp/gpusort-treebench.XXXXXX)
chmod 755 "$data"

# ---- data -------------------------------------------------------------------
# A random tree of depth <= 60 and ~70,000 elements (~1 MB) with weights in
# [-100, 100]; the 100 MB document is one root over 100 such trees.
python3 - "$data" <<'EOF'
import random, sys
random.seed(42)
out = []
depth = 0
n = 0
while n < 70000 or depth > 0:
    if depth > 0 and (n >= 70000 or depth >= 60 or random.random() < 0.45):
        out.append('</n>'); depth -= 1
    else:
        out.append('<n w="%d">' % random.randint(-100, 100)); depth += 1; n += 1
tree = ''.join(out)
with open(sys.argv[1] + '/doc1.txt', 'w') as f:
    f.write('<r w="1">' + tree + '</r>\n')
with open(sys.argv[1] + '/doc100.txt', 'w') as f:
    f.write('<r w="1">' + tree * 100 + '</r>\n')
EOF

psql_q <<EOF
CREATE EXTENSION gpusort;
CREATE TABLE doc1 (doc xml);
CREATE TABLE doc100 (doc xml);
\copy doc1 FROM '$data/doc1.txt'
\copy doc100 FROM '$data/doc100.txt'
$(tree_small_docs "$ndocs")
VACUUM ANALYZE;
EOF

# ---- timing -------------------------------------------------------------------
# best of $runs: "ms|result", "timeout:S|" or "error|..."
time_query() { tree_time_query "$runs" "$timeout" "" "$1"; }

fmt_ms() {
	case $1 in
		timeout:*) echo "> ${timeout} s" ;;
		error) echo "error" ;;
		n/a) echo "(as above)" ;;
		*) awk -v m="$1" 'BEGIN{ if (m >= 1000) printf "%.2f s", m/1000; else printf "%.1f ms", m }' ;;
	esac
}

recursive_max_path_small() {
	cat <<EOF
SELECT max(mp) FROM small s, LATERAL (
  WITH RECURSIVE walk(node, path) AS (
    SELECT n, coalesce((xpath('/*/@w', n))[1]::text::float8, 0) FROM unnest(xpath('/*', s.doc)) n
    UNION ALL
    SELECT c, path + coalesce((xpath('/*/@w', c))[1]::text::float8, 0)
    FROM walk, unnest(xpath('/*/*', node)) c
  )
  SELECT max(path) AS mp FROM walk WHERE NOT xpath_exists('/*/*', node)) x
EOF
}

rows=()
bench() {
	local data=$1 what=$2 ours=$3 stock=$4 a b
	a=$(time_query "$ours")
	if [ -n "$stock" ]; then b=$(time_query "$stock"); else b="n/a|"; fi
	local ta=${a%%|*} tb=${b%%|*} speed="-"
	if [[ $ta =~ ^[0-9.]+$ && $tb =~ ^[0-9.]+$ ]]; then
		speed=$(awk -v x="$tb" -v y="$ta" 'BEGIN{printf "%.1fx", x/y}')
	elif [[ $ta =~ ^[0-9.]+$ && $tb == timeout:* ]]; then
		speed=$(awk -v x="$timeout" -v y="$ta" 'BEGIN{printf "> %.0fx", x*1000/y}')
	fi
	rows+=("| $data | $what | $(fmt_ms "$ta") | $(fmt_ms "$tb") | $speed | ${a#*|} | ${b#*|} |")
	echo "${rows[-1]}" >&2
}

size1=$(psql_q -At -c "SELECT pg_size_pretty(sum(octet_length(doc::text))::bigint) || ', ' || sum(tree_reduce_doc(doc, 'count')) || ' elements' FROM doc1")
size100=$(psql_q -At -c "SELECT pg_size_pretty(sum(octet_length(doc::text))::bigint) || ', ' || sum(tree_reduce_doc(doc, 'count')) || ' elements' FROM doc100")
sizes=$(psql_q -At -c "SELECT count(*) || ' docs, ' || pg_size_pretty(sum(octet_length(doc::text))::bigint) FROM small")

bench "1 doc ($size1)" sum "SELECT tree_reduce(doc, 'sum') FROM doc1" \
	"SELECT sum((xpath('sum(//@w)', doc))[1]::text::float8) FROM doc1"
bench "1 doc ($size1)" max_path "SELECT tree_reduce(doc, 'max_path') FROM doc1" "$(tree_max_path_cte doc1)"
bench "1 doc ($size100)" sum "SELECT tree_reduce(doc, 'sum') FROM doc100" \
	"SELECT sum((xpath('sum(//@w)', doc))[1]::text::float8) FROM doc100"
bench "1 doc ($size100)" max_path "SELECT tree_reduce(doc, 'max_path') FROM doc100" "$(tree_max_path_cte doc100)"
bench "1 doc ($size100), 1 thread" max_path \
	"SET gpusort.tree_threads = 1; SELECT tree_reduce(doc, 'max_path') FROM doc100" ""
bench "$sizes" sum "SELECT tree_reduce(doc, 'sum') FROM small" \
	"SELECT sum((xpath('sum(//@w)', doc))[1]::text::float8) FROM small"
bench "$sizes" max_path "SELECT tree_reduce(doc, 'max_path') FROM small" "$(recursive_max_path_small)"

echo
echo "tree_reduce vs stock PostgreSQL $(psql_q -At -c 'SHOW server_version'), $(nproc) CPUs, $(date -u +%Y-%m-%d), best of $runs"
echo
echo "| data | op | tree_reduce | stock PostgreSQL | speedup | tree_reduce result | stock result |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
rm -rf "$data"
