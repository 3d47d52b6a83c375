#!/usr/bin/env bash
# Random queries (Debian's sqlsmith) with GpuSort forced on: any backend
# crash, or an internal error that the same query does not raise with
# gpusort.enabled = off, fails the run and prints the query.
#
#   test/sort/sqlsmith.sh            the bounded run CI makes (run-all)
#   GS_SMITH_QUERIES=20000 GS_SMITH_SECONDS=3600 test/sort/sqlsmith.sh
#                                    a long run by hand
#   GS_SMITH_SEED=N                  another seed (default 1)
#   GS_SMITH_OUT=DIR                 keep the logs there
#   GS_SMITH_EXPLAIN=1               count the plans that ran with a GpuSort
#   GS_SMITH_CONF="gpusort.device = 'gpu'"
#                                    extra postgresql.conf lines
#   GS_NO_BUILD=1                    the extension is built and installed
#                                    already (test/run-all)
#
# The database (test/sort/sql/sqlsmith_db.sql) has every key type GpuSort
# encodes and some it does not, NULLs, duplicates, C, ICU and libc
# collations, xml for tree_reduce, views and a partitioned table.
# sqlsmith connects as a role that may only read (default_transaction_read_only,
# no superuser), so that its random calls cannot change the data the
# errors are checked against, nor stop the server.  Every error goes to
# the server's csvlog with its SQLSTATE and statement;
# test/sort/sqlsmith_check.py picks the internal ones (class XX, or a message
# such as "unrecognized node", "cache lookup failed", "missing support
# function", "invalid attribute number"), runs each such query again with
# gpusort.enabled = off, and fails when stock does not raise the same.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

queries=${GS_SMITH_QUERIES:-2000}
seconds=${GS_SMITH_SECONDS:-150}
seed=${GS_SMITH_SEED:-1}

GS_EXTRA_PACKAGES="sqlsmith ${GS_EXTRA_PACKAGES:-}" gs_install_packages || exit 1
[ -n "${GS_NO_BUILD:-}" ] || gs_build_install >/dev/null || exit 1

conf=("shared_preload_libraries = 'gpusort'" "gpusort.min_rows = 0" "gpusort.parallel = on"
	"logging_collector = on" "log_destination = 'csvlog'" "log_directory = 'log'"
	"log_min_error_statement = error" "track_activity_query_size = 65536"
	"restart_after_crash = on")
[ -n "${GS_SMITH_CONF:-}" ] && conf+=("$GS_SMITH_CONF")
gs_cluster_start "${conf[@]}" || exit 1

out=${GS_SMITH_OUT:-$(mktemp -d /tmp/gpusort-smith.XXXXXX)}
mkdir -p "$out"

gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE smith" >/dev/null || exit 1
# on stdin: the cluster's owner may not be able to read the checkout
gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -d smith <"$GS_ROOT/test/sort/sql/sqlsmith_db.sql" || exit 1
gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -d smith <<-'EOF' || exit 1
	CREATE ROLE smith LOGIN;
	GRANT USAGE ON SCHEMA public TO smith;
	GRANT SELECT ON ALL TABLES IN SCHEMA public TO smith;
	ALTER ROLE smith SET default_transaction_read_only = on;
	-- more sorts: merge joins and sorted grouping instead of hashing (about
	-- a third of sqlsmith's queries then sort, against a fifth)
	ALTER ROLE smith SET enable_hashjoin = off;
	ALTER ROLE smith SET enable_hashagg = off;
	-- and parallel plans where the tables ask for them (sqlsmith_db.sql)
	ALTER ROLE smith SET parallel_setup_cost = 0;
	ALTER ROLE smith SET parallel_tuple_cost = 0;
EOF
# GS_SMITH_EXPLAIN=1: auto_explain logs every plan that ran, and the check
# counts those with a GpuSort (slower: for a long run by hand)
if [ -n "${GS_SMITH_EXPLAIN:-}" ]; then
	gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -d smith \
		-c "ALTER ROLE smith SET session_preload_libraries = 'auto_explain'" \
		-c "ALTER ROLE smith SET auto_explain.log_min_duration = 0" || exit 1
fi

echo "sqlsmith: up to $queries queries, $seconds s, seed $seed, gpusort.min_rows = 0"
t0=$(date +%s)
gs_as_pg timeout "$seconds" sqlsmith --target="host=$PGHOST port=$PGPORT user=smith dbname=smith" \
	--seed="$seed" --max-queries="$queries" --exclude-catalog --verbose \
	>"$out/sqlsmith.log" 2>&1
rc=$?
echo "sqlsmith: exit $rc after $(($(date +%s) - t0)) s$([ $rc = 124 ] && echo ", stopped by the time limit")"

python3 "$GS_ROOT/test/sort/sqlsmith_check.py" --logdir "$GS_CLUSTER/data/log" \
	--sqlsmith-log "$out/sqlsmith.log" --report "$out/report.txt"
rc=$?
# the logs stay where asked for, or when something failed
if [ "$rc" -eq 0 ] && [ -z "${GS_SMITH_OUT:-}" ]; then
	rm -rf "$out"
else
	cp -r "$GS_CLUSTER/data/log" "$out/" 2>/dev/null
	echo "logs in $out"
fi
exit "$rc"
