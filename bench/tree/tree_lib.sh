# Shared by bench/tree/tree.sh and bench/tree/tree_gpu.sh, so that both set
# tree_reduce against the same stock queries and time them alike.  Source
# it after test/lib.sh, with a cluster running.

psql_q() { gs_as_pg psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# tree_small_docs N: SQL creating the table small of N little documents
# (an order with lines and a part, weights from the row number)
tree_small_docs() {
	cat <<SQL
CREATE TABLE small AS
SELECT format('<order w="%s"><line w="%s"><part w="%s"/></line><line w="%s"/></order>',
              g % 100, g % 7 - 3, g % 11 - 5, g % 13 - 6)::xml AS doc
FROM generate_series(1, $1) g;
SQL
}

# tree_max_path_cte TABLE: the heaviest root-to-leaf path of TABLE's
# documents (column doc, xml) as a user of stock PostgreSQL writes it, a
# recursive walk of the element tree with xpath()
tree_max_path_cte() {
	cat <<SQL
WITH RECURSIVE walk(node, path) AS (
  SELECT n, coalesce((xpath('/*/@w', n))[1]::text::float8, 0)
  FROM $1 t, unnest(xpath('/*', t.doc)) n
  UNION ALL
  SELECT c, path + coalesce((xpath('/*/@w', c))[1]::text::float8, 0)
  FROM walk, unnest(xpath('/*/*', node)) c
)
SELECT max(path) FROM walk WHERE NOT xpath_exists('/*/*', node)
SQL
}

# tree_time_query RUNS TIMEOUT_S SETTINGS SQL [WARM]: the best of RUNS runs
# of SQL, each in a fresh session after SETTINGS (may be empty), printed as
# "ms|result", "timeout:TIMEOUT_S|" or "error|the first ERROR or WARNING".
# WARM=1 runs SQL twice per session and times the second run, leaving out
# the backend's one-time costs (CUDA's start, the first pinned buffers).
tree_time_query() {
	local runs=$1 tmo=$2 settings=$3 sql=$4 warm=${5:-0} best="" res="" i out ms
	local set=() again=()
	[ -n "$settings" ] && set=(-c "$settings")
	[ "$warm" = 1 ] && again=(-c "$sql")
	for ((i = 0; i < runs; i++)); do
		out=$(psql_q -At -c "SET statement_timeout = '${tmo}s'" "${set[@]}" \
			-c '\timing on' "${again[@]}" -c "$sql" 2>&1)
		if grep -q 'statement timeout' <<<"$out"; then
			echo "timeout:$tmo|"
			return
		fi
		if grep -qE 'ERROR|WARNING' <<<"$out"; then
			echo "error|$(grep -E 'ERROR|WARNING' <<<"$out" | head -1)"
			return
		fi
		res=$(grep -v '^Time:' <<<"$out" | grep -v '^SET' | tail -1)
		ms=$(grep '^Time:' <<<"$out" | tail -1 | awk '{print $2}')
		if [ -z "$best" ] || awk "BEGIN{exit !($ms < $best)}"; then best=$ms; fi
	done
	echo "$best|$res"
}
