# Shell helpers shared by test/run-all, the benchmarks and the demo.
# Source it from bash:  . "$(dirname "$0")/../test/lib.sh"
#
#   gs_pick_pgver         the PostgreSQL major version (sets GS_PGVER)
#   gs_install_packages   apt packages needed to build and test (Debian 12, 13, 14)
#   gs_randdiff_deps      those and psycopg2 for test/sort/randdiff.py (or its pqshim.py)
#   gs_ensure_locales     the libc locales of the collation tests
#   gs_build_install      make && make install of this tree
#   gs_cluster_start      a throwaway cluster in /tmp; exports PGHOST/PGPORT/...
#   gs_cluster_stop       stops and removes it (also run on exit)
#   gs_as_pg CMD...       runs CMD as the cluster's owner
#   gs_pg_copy PATH...    a copy of checkout files the cluster's owner can read
#   gs_regress / gs_regress_counts   pg_regress on sql/, and its counts
#   gs_bench_table ROWS   the sort benchmarks' table; gs_bench_order_by QUERY
#   gs_load_parallel TABLE ROWS JOBS EXPRS   a table loaded by parallel sessions
#
# initdb and pg_ctl refuse root, so under root the cluster belongs to the
# user postgres (created by the postgresql package).

GS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The PostgreSQL major version to build and test against (15, 16, 17, 18):
# $GS_PGVER when set; else the newest server installed with its headers
# (postgresql-N and postgresql-server-dev-N); else the one the distribution
# provides, per apt's candidate of the "postgresql" metapackage (version
# N+...) or, before apt knows any package, per the release: bookworm 15,
# trixie 17, forky and sid 18.
gs_pick_pgver() {
	local d v="" codename=""
	for d in /usr/lib/postgresql/*/bin/postgres; do
		[ -x "$d" ] || continue
		d=${d#/usr/lib/postgresql/}; d=${d%%/*}
		[ -f "/usr/include/postgresql/$d/server/pg_config.h" ] || continue
		[ -z "$v" ] || [ "$d" -gt "$v" ] && v=$d
	done
	[ -z "$v" ] && command -v apt-cache >/dev/null &&
		v=$(apt-cache policy postgresql 2>/dev/null | sed -n 's/^ *Candidate: \([0-9][0-9]*\)+.*/\1/p')
	if [ -z "$v" ] && [ -r /etc/os-release ]; then
		codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
		case "$codename" in
			bookworm) v=15 ;;
			trixie) v=17 ;;
			forky | sid) v=18 ;;
		esac
	fi
	echo "${v:-15}"
}
GS_PGVER=${GS_PGVER:-$(gs_pick_pgver)}
export GS_PGVER
export PATH=/usr/lib/postgresql/$GS_PGVER/bin:$PATH

# GS_PRIVATE_PG=DIR: use (and install into) a private copy of the server in
# DIR instead of the system's, so that several builds can be tested side by
# side without root.  PostgreSQL finds its share and lib directories
# relative to its binaries, so a copy of both trees works as it is.
if [ -n "${GS_PRIVATE_PG:-}" ]; then
	if [ ! -x "$GS_PRIVATE_PG/usr/lib/postgresql/$GS_PGVER/bin/postgres" ]; then
		mkdir -p "$GS_PRIVATE_PG/usr/lib/postgresql" "$GS_PRIVATE_PG/usr/share/postgresql" "$GS_PRIVATE_PG/usr/include"
		cp -a /usr/lib/postgresql/$GS_PGVER "$GS_PRIVATE_PG/usr/lib/postgresql/"
		cp -a /usr/share/postgresql/$GS_PGVER "$GS_PRIVATE_PG/usr/share/postgresql/"
		cp -a /usr/include/postgresql "$GS_PRIVATE_PG/usr/include/"
		chmod -R a+rX "$GS_PRIVATE_PG"
	fi
	export PATH=$GS_PRIVATE_PG/usr/lib/postgresql/$GS_PGVER/bin:$PATH
fi

gs_sudo() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# gs_install_packages: installs (apt-get) what building and testing need, and
# $GS_EXTRA_PACKAGES.  A name may list alternatives, "a|b": the first one
# apt knows is installed (a package renamed between Debian releases).
gs_install_packages() {
	local pkgs="postgresql-$GS_PGVER postgresql-server-dev-$GS_PGVER libxml2-dev libicu-dev libxml2-utils build-essential python3 locales ${GS_EXTRA_PACKAGES:-}"
	local missing="" p a have
	for p in $pkgs; do
		have=""
		for a in ${p//|/ }; do
			dpkg -s "$a" >/dev/null 2>&1 && have=$a && break
		done
		[ -n "$have" ] || missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	echo "installing (apt-get, this takes a few minutes):${missing//|/ or }"
	# apt's and the packages' chatter (debconf, invoke-rc.d) goes to a
	# log, shown only if apt fails
	local log names=""
	log=$(mktemp /tmp/gpusort-apt.XXXXXX.log) || return 1
	if gs_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >"$log" 2>&1; then
		for p in $missing; do
			for a in ${p//|/ }; do
				apt-cache show "$a" >/dev/null 2>&1 && break
			done
			names="$names $a"
		done
		if gs_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $names >>"$log" 2>&1; then
			rm -f "$log"
			return 0
		fi
	fi
	tail -40 "$log"
	echo "gpusort: apt-get failed (log: $log)"
	return 1
}

# gs_randdiff_deps -- what test/sort/randdiff.py needs: gs_install_packages'
# packages and python3-psycopg2, from apt.  Where apt is missing or fails,
# yet a PostgreSQL is on PATH (the GPU machine, whose server comes from a
# bundle: test/gpu/README.md) and a python3 imports psycopg2 or
# test/sort/pqshim.py loads libpq, that serves.  Sets GS_PY: the python3 to
# run randdiff.py with (one that imports psycopg2 where one does).
gs_randdiff_deps() {
	local apt=1
	if command -v apt-get >/dev/null; then
		GS_EXTRA_PACKAGES="python3-psycopg2 ${GS_EXTRA_PACKAGES:-}" gs_install_packages && apt=0
	fi
	if [ "$apt" != 0 ]; then
		command -v pg_config >/dev/null ||
			{ echo "gpusort: no PostgreSQL on PATH, and apt cannot install one"; return 1; }
		echo "gpusort: without apt: PostgreSQL from PATH ($(command -v pg_config))"
	fi
	# Debian's python3 has psycopg2; another python3 first on PATH may not
	GS_PY=python3
	python3 -c 'import psycopg2' 2>/dev/null && return 0
	if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
		GS_PY=/usr/bin/python3
		return 0
	fi
	# prints the libpq it loads
	python3 "$GS_ROOT/test/sort/pqshim.py" ||
		{ echo "gpusort: randdiff.py needs psycopg2, or libpq for test/sort/pqshim.py"; return 1; }
}

# gs_ensure_locales -- generates the libc locales that the collation tests
# and benchmarks create databases and collations with (the cluster must be
# initialized afterwards: initdb imports the system's locales as collations)
GS_LOCALES="en_US.UTF-8 de_DE.UTF-8 sv_SE.UTF-8 tr_TR.UTF-8"
gs_ensure_locales() {
	local l have missing=""
	have=$(locale -a 2>/dev/null | tr 'A-Z' 'a-z')
	for l in $GS_LOCALES; do
		echo "$have" | grep -qx "$(echo "${l%.UTF-8}.utf8" | tr 'A-Z' 'a-z')" || missing="$missing $l"
	done
	[ -z "$missing" ] && return 0
	echo "generating locales:$missing"
	for l in $missing; do
		if grep -q "^# *$l UTF-8" /etc/locale.gen 2>/dev/null; then
			gs_sudo sed -i "s/^# *\($l UTF-8\)/\1/" /etc/locale.gen
		elif ! grep -q "^$l UTF-8" /etc/locale.gen 2>/dev/null; then
			echo "$l UTF-8" | gs_sudo tee -a /etc/locale.gen >/dev/null
		fi
	done
	gs_sudo locale-gen >/dev/null 2>&1 || { echo "gpusort: locale-gen failed"; return 1; }
}

gs_build_install() {
	local pgc
	pgc=$(command -v pg_config)
	make -C "$GS_ROOT" -s -j"$(nproc)" PG_CONFIG="$pgc" || return 1
	if [ -n "${GS_PRIVATE_PG:-}" ]; then
		make -C "$GS_ROOT" -s install PG_CONFIG="$pgc"
	else
		gs_sudo make -C "$GS_ROOT" -s install PG_CONFIG="$pgc"
	fi
}

# Under root the command runs as postgres from /, since the caller's
# directory may be one postgres cannot enter (a checkout under /root, mode
# 700); so give it absolute paths it can read (gs_pg_copy) or stdin.
gs_as_pg() {
	if [ "$(id -u)" = 0 ]; then
		(cd / && runuser -u postgres -- env PATH="$PATH" LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" "$@")
	else
		"$@"
	fi
}

# gs_pg_copy PATH... -- copies these files or directories of the checkout
# (relative to it) into $GS_CLUSTER/src, once per cluster, keeping their
# relative places, readable by the cluster's owner; prints that directory.
# What runs as the cluster's owner (pg_regress, psql -f) reads the copy, so
# the checkout may lie where that user cannot read it.
gs_pg_copy() {
	[ -n "${GS_CLUSTER:-}" ] || { echo "gs_pg_copy: no cluster" >&2; return 1; }
	local dst=$GS_CLUSTER/src p
	mkdir -p "$dst" || return 1
	for p in "$@"; do
		[ -e "$dst/$p" ] && continue
		[ -e "$GS_ROOT/$p" ] || continue
		mkdir -p "$dst/$(dirname "$p")" && cp -R "$GS_ROOT/$p" "$dst/$p" || return 1
	done
	chmod -R a+rX "$dst" || return 1
	echo "$dst"
}

# gs_cluster_start [extra postgresql.conf lines...]
# (GS_CLUSTER_LOCALE: the cluster's locale, and so its databases' default
# collation; C.UTF-8 unless set)
gs_cluster_start() {
	GS_CLUSTER=$(mktemp -d /tmp/gpusort-cluster.XXXXXX)
	chmod 755 "$GS_CLUSTER"
	[ "$(id -u)" = 0 ] && chown postgres "$GS_CLUSTER"
	gs_as_pg initdb -D "$GS_CLUSTER/data" -A trust -U postgres --no-sync -E UTF8 --locale="${GS_CLUSTER_LOCALE:-C.UTF-8}" >"$GS_CLUSTER/initdb.log" 2>&1 ||
		{ cat "$GS_CLUSTER/initdb.log"; return 1; }
	# a free port: the first one in 55432.. that nobody listens on
	local port=55432
	while [ -e "/tmp/.s.PGSQL.$port" ] || [ -e "$GS_CLUSTER/.s.PGSQL.$port" ] ||
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
		port=$((port + 1))
	done
	{
		echo "port = $port"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$GS_CLUSTER'"
		echo "fsync = off"
		echo "max_worker_processes = 16"
		echo "max_parallel_workers = 8"
		local line
		for line in "$@"; do echo "$line"; done
	} >>"$GS_CLUSTER/data/postgresql.conf"
	gs_as_pg pg_ctl -D "$GS_CLUSTER/data" -l "$GS_CLUSTER/server.log" -w -t 60 start >/dev/null ||
		{ cat "$GS_CLUSTER/server.log"; return 1; }
	export PGHOST=$GS_CLUSTER PGPORT=$port PGUSER=postgres PGDATABASE=postgres
	trap gs_cluster_stop EXIT
}

gs_cluster_stop() {
	[ -n "${GS_CLUSTER:-}" ] || return 0
	gs_as_pg pg_ctl -D "$GS_CLUSTER/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$GS_CLUSTER"
	GS_CLUSTER=
}

# gs_regress OUTDIR [TEST...] -- runs these tests of sql/ (default: all)
# through pg_regress against the cluster; its output files go to OUTDIR.
gs_regress() {
	local out=$1; shift
	local tests=("$@")
	mkdir -p "$out"
	chmod 755 "$out"
	[ "$(id -u)" = 0 ] && chown postgres "$out"
	[ ${#tests[@]} -gt 0 ] ||
		mapfile -t tests < <(cd "$GS_ROOT/sql" && ls *.sql | sed 's/\.sql$//' | sort)
	# pg_regress runs as the cluster's owner: it reads a copy of the tests
	# (the sql tests \i test/sort/sql/ relative to its --inputdir)
	local in
	in=$(gs_pg_copy sql expected test/sort/sql resultmap input output) || return 1
	gs_as_pg "$(dirname "$(pg_config --pgxs)")/../test/regress/pg_regress" \
		--inputdir="$in" --outputdir="$out" \
		--host="$PGHOST" --port="$PGPORT" --user=postgres \
		--dbname=contrib_regression "${tests[@]}"
}

# gs_regress_counts LOG -- "PASSED FAILED": the tests pg_regress reported
# in LOG, in either of its formats: "test name ... ok" and "     name ...
# FAILED" up to PostgreSQL 15, TAP from 16 on ("ok 1 - name",
# "not ok 2 - name"); a test whose failure is ignored counts as passed
gs_regress_counts() {
	local ok bad
	ok=$(grep -cE '^(test +|     +)[^ ].* \.\.\. +ok|^ok [0-9]+ ' "$1")
	bad=$(grep -cE '\.\.\. +FAILED|^not ok [0-9]+ ' "$1")
	echo "$ok $bad"
}

# gs_bench_table ROWS [JOBS] -- the sort benchmarks' table (bench/sort/sort.sh,
# bench/ab.sh): bench(i8 int8, f8 float8, t text COLLATE "C", a int4, pad
# text) with ROWS deterministic pseudo-random rows, loaded by JOBS sessions
# at once (default: one per core, at most 16; each inserts a slice of
# 1..ROWS, so the rows are the same whatever JOBS is), then vacuumed and
# analyzed
gs_bench_table() {
	local n=$1 jobs=${2:-$(nproc)}
	[ "$jobs" -gt 16 ] && jobs=16
	gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -c "
CREATE UNLOGGED TABLE bench (
	i8 int8, f8 float8, t text COLLATE \"C\", a int4, pad text)" || return 1
	gs_load_parallel bench "$n" "$jobs" \
		"hashint8(i), hashint8(-i) / 7.0, md5(i::text), hashint4(i) % 1000, 'row ' || i" || return 1
	gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -c "VACUUM ANALYZE bench"
}

# gs_load_parallel TABLE ROWS JOBS EXPRS -- INSERT INTO TABLE SELECT EXPRS
# FROM generate_series(1, ROWS) i, split into JOBS slices that as many
# sessions insert at once: a benchmark's table of 10^7 rows and more loads
# in a fraction of the time, and the rows are the same whatever JOBS is
gs_load_parallel() {
	local table=$1 n=$2 jobs=$3 exprs=$4 j pids=() rc=0
	[ "$jobs" -lt 1 ] && jobs=1
	for ((j = 0; j < jobs; j++)); do
		gs_as_pg psql -X -q -v ON_ERROR_STOP=1 -c "INSERT INTO $table SELECT $exprs
  FROM generate_series($((j * n / jobs + 1)), $(((j + 1) * n / jobs))) i" &
		pids+=($!)
	done
	for j in "${pids[@]}"; do wait "$j" || rc=1; done
	return $rc
}

# gs_bench_order_by QUERY -- the ORDER BY list of a benchmark query name
# (int8, float8, text (C), text_icu (the ICU root collation "und-x-icu"),
# int4_int8, two (int4, text); floor: none)
gs_bench_order_by() {
	case "$1" in
		int8) echo "i8" ;;
		float8) echo "f8" ;;
		text) echo "t" ;;
		text_icu) echo "t COLLATE \"und-x-icu\"" ;;
		int4_int8) echo "a, i8" ;;
		two) echo "a, t" ;;
		floor) echo "" ;;
		*) echo "unknown query $1" >&2; return 1 ;;
	esac
}
