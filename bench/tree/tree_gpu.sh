#!/usr/bin/env bash
# tree_reduce on the GPU against the CPU and stock PostgreSQL, side by side
# in one run, end to end through SQL (on the GPU machine):
#
#   gpu       gpusort.device = gpu (GPU tokenizer + GPU contraction; the
#             aggregate ships a group's small documents as one forest)
#   cpu k     gpusort.device = cpu, chunked contraction on nproc threads
#   cpu 1     gpusort.device = cpu, gpusort.tree_threads = 1 (sequential)
#   stock     xpath('sum(//@w)', doc), or the recursive CTE a user writes
#             for max_path (bench/tree/tree.sh's)
#
# on one ~100 MB document (xml), one ~700 MB document (text: the "1 GB
# class", beyond what xpath() and the xml type handle in reasonable time)
# and 10^6 small documents (xml).  Both large documents are stored
# uncompressed (STORAGE EXTERNAL), so no side pays for pglz.  Stock queries
# stop at a statement_timeout and show as "> N s".  Every cell prints the
# result too, so the columns can be checked against each other.
#
#   bench/tree/tree_gpu.sh      (on the GPU machine: PostgreSQL from .device/)
#
# Output: a markdown table on stdout and in $OUT/tree_gpu.md (OUT defaults
# to /tmp/tree-gpu-bench).  TREE_BENCH_WARM=0 times every query in a fresh
# session (the gpu column then includes the backend's CUDA start).  TREE_BENCH_SMALL_DOCS (10^6), TREE_BENCH_BIG_COPIES
# (700 copies of the ~1 MB tree in the big document) scale the data.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. test/gpu/device-pg.sh "$PWD"
. test/lib.sh
. bench/tree/tree_lib.sh

OUT=${OUT:-/tmp/tree-gpu-bench}
mkdir -p "$OUT"
ndocs=${TREE_BENCH_SMALL_DOCS:-1000000}
copies=${TREE_BENCH_BIG_COPIES:-700}
mid=${TREE_BENCH_MID_COPIES:-100}
threads=$(nproc)
# 1: time our columns in a session that has already run the query once
warm=${TREE_BENCH_WARM:-1}

gs_build_install >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
gs_cluster_start "shared_buffers = 2GB" "work_mem = 1GB" \
	"max_parallel_workers_per_gather = 0" || exit 1
data=$(mktemp -d /tmp/gpusort-treegpu.XXXXXX)
chmod 755 "$data"

# ---- data ---------------------------------------------------------------------
# A random tree of ~70,000 elements, depth <= 60, weights in [-100, 100]
# (~1 MB); the large documents are one root over many copies of it.
awk 'BEGIN {
	srand(42); depth = 0; n = 0; s = "";
	while (n < 70000 || depth > 0) {
		if (depth > 0 && (n >= 70000 || depth >= 60 || rand() < 0.45)) {
			s = s "</n>"; depth--;
		} else {
			s = s sprintf("<n w=\"%d\">", int(rand() * 201) - 100); depth++; n++;
		}
	}
	print s;
}' >"$data/tree.txt"

psql_q <<EOF
CREATE EXTENSION gpusort;
CREATE TABLE base (t text);
\copy base FROM '$data/tree.txt'
CREATE TABLE doc100 (doc xml);
ALTER TABLE doc100 ALTER doc SET STORAGE EXTERNAL;
INSERT INTO doc100 SELECT ('<r w="1">' || repeat(t, $mid) || '</r>')::xml FROM base;
CREATE TABLE docbig (doc text);
ALTER TABLE docbig ALTER doc SET STORAGE EXTERNAL;
INSERT INTO docbig SELECT '<r w="1">' || repeat(t, $copies) || '</r>' FROM base;
$(tree_small_docs "$ndocs")
VACUUM ANALYZE;
EOF

# ---- timing -------------------------------------------------------------------
time_query() { tree_time_query "$@"; }

fmt() {
	local t=${1%%|*} r=${1#*|}
	case $t in
		timeout:*) echo "> ${t#timeout:} s" ;;
		error) echo "error: $r" ;;
		"") echo "-" ;;
		*) awk -v m="$t" -v r="$r" 'BEGIN{ if (m >= 1000) printf "%.2f s (%s)", m/1000, r; else printf "%.1f ms (%s)", m, r }' ;;
	esac
}

# speedup of the GPU over a column: "12.3x", "> 40x" for timeouts
speedup() {
	local g=${1%%|*} o=${2%%|*}
	if [[ $g =~ ^[0-9.]+$ && $o =~ ^[0-9.]+$ ]]; then
		awk -v a="$o" -v b="$g" 'BEGIN{printf "%.1fx", a/b}'
	elif [[ $g =~ ^[0-9.]+$ && $o == timeout:* ]]; then
		awk -v a="${o#timeout:}" -v b="$g" 'BEGIN{printf "> %.0fx", a*1000/b}'
	else
		echo "-"
	fi
}

GPU="LOAD 'gpusort'; SET gpusort.device = gpu"
CPUK="LOAD 'gpusort'; SET gpusort.device = cpu; SET gpusort.tree_threads = $threads"
CPU1="LOAD 'gpusort'; SET gpusort.device = cpu; SET gpusort.tree_threads = 1"

table="| data | op | gpu | cpu $threads threads | cpu 1 thread | stock | gpu vs stock | gpu vs cpu $threads |
|---|---|---|---|---|---|---|---|"
row() {							# row DATA OP TABLE STOCK_SQL STOCK_TIMEOUT
	local d=$1 op=$2 tab=$3 stock=$4 tmo=$5 g k o s
	g=$(time_query 2 600 "$GPU" "SELECT tree_reduce(doc, '$op') FROM $tab" "$warm")
	k=$(time_query 1 600 "$CPUK" "SELECT tree_reduce(doc, '$op') FROM $tab" "$warm")
	o=$(time_query 1 600 "$CPU1" "SELECT tree_reduce(doc, '$op') FROM $tab" "$warm")
	if [ -n "$stock" ]; then s=$(time_query 1 "$tmo" "SET gpusort.device = cpu" "$stock"); else s="|"; fi
	local line="| $d | $op | $(fmt "$g") | $(fmt "$k") | $(fmt "$o") | $(fmt "$s") | $(speedup "$g" "$s") | $(speedup "$g" "$k") |"
	echo "$line" >&2
	table="$table
$line"
}

s100=$(psql_q -At -c "SELECT pg_size_pretty(octet_length(doc::text)::bigint) FROM doc100")
sbig=$(psql_q -At -c "SELECT pg_size_pretty(octet_length(doc)::bigint) FROM docbig")
ssmall=$(psql_q -At -c "SELECT pg_size_pretty(sum(octet_length(doc::text))::bigint) FROM small")

row "1 doc, $s100 (xml)" sum doc100 "SELECT (xpath('sum(//@w)', doc))[1]::text::float8 FROM doc100" 60
row "1 doc, $s100 (xml)" max_path doc100 "$(tree_max_path_cte doc100)" 20
row "1 doc, $s100 (xml)" max_subtree doc100 "" 0
row "1 doc, $sbig (text)" sum docbig "SELECT (xpath('sum(//@w)', doc::xml))[1]::text::float8 FROM docbig" 20
row "1 doc, $sbig (text)" max_path docbig "" 0
row "$ndocs docs, $ssmall (xml)" sum small "SELECT sum((xpath('sum(//@w)', doc))[1]::text::float8) FROM small" 60
row "$ndocs docs, $ssmall (xml)" max_path small "" 0

{
	echo "tree_reduce, end to end through SQL: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(nproc) CPU threads, $(date -u '+%Y-%m-%d')"
	if [ "$warm" = 1 ]; then
		echo "(gpu and cpu columns: second run in a session; stock: first run)"
	else
		echo "(every column: first run in a fresh session, so gpu includes the backend's CUDA start)"
	fi
	echo
	echo "$table"
} | tee "$OUT/tree_gpu.md"
rm -rf "$data"
