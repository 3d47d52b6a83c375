#!/usr/bin/env bash
# PostgreSQL's own regression suite (src/test/regress, the parallel
# schedule) with GpuSort forced on, against the same suite without it.
#
#   test/sort/pg_suite.sh            fetch (once), build, run both passes,
#                                    classify; exits 1 on any unexplained
#                                    difference
#   GS_PG_SUITE_CONF="gpusort.device = 'gpu'" test/sort/pg_suite.sh
#                                    extra postgresql.conf lines for the
#                                    gpusort pass (test/gpu/run uses this)
#   GS_PG_SUITE_OUT=DIR              keep the outputs there (default: a
#                                    fresh /tmp/gpusort-pgsuite.XXXXXX)
#   GS_PG_SUITE_SRC=DIR              the suite (a src/test/regress) to use
#                                    instead of fetching one (the device
#                                    machine has no network)
#   test/sort/pg_suite.sh --bundle FILE  only fetch the suite and write it to
#                                    FILE (.tar.gz of src/test/regress), for
#                                    GS_PG_SUITE_SRC elsewhere
#   GS_NO_BUILD=1                    the extension is built and installed
#                                    already (test/run-all)
#
# Exits 0 when every difference is explained, 1 otherwise, and 77 (skipped)
# when the mirror serves no source of the installed major version.
#
# The suite is the Debian source package of the installed server, fetched
# with apt-get source through a private apt configuration whose deb-src
# entries are made from the machine's own apt sources (the machine's apt
# state is not touched), unpacked once into $GS_PG_SUITE_CACHE (default
# /var/cache/gpusort, or ~/.cache/gpusort without root).  When the mirror
# no longer has the installed version's source, the newest source of the
# same major version is used, and the script says so: the two passes run
# the same tests either way, and only their difference counts.
#
# Pass 1 runs the suite on a fresh cluster without gpusort, pass 2 on a
# fresh cluster with shared_preload_libraries = 'gpusort' and
# gpusort.min_rows = 0, so every Sort the planner makes is a GpuSort.
# test/sort/pg_suite_classify.py then compares each test's output of pass 2
# with that of pass 1 (not with the suite's expected files: a test that
# fails here without gpusort, for reasons of the environment, still has to
# give the same output with it) and classifies every difference: plan text,
# rows of equal keys in another order, values that depend on the order of
# peers (an allowlist, by test and query, each entry explained), or a
# failure.  See that file for the rules.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" = 0 ]; then
	cache=${GS_PG_SUITE_CACHE:-/var/cache/gpusort}
else
	cache=${GS_PG_SUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpusort}
fi
mkdir -p "$cache" || exit 1

# ---- fetching the suite -----------------------------------------------------

# gs_apt apt-get|apt-cache ARGS...: with a private configuration: deb-src
# lines for the machine's own sources, private lists and caches
gs_apt() {
	local tool=$1
	shift
	"$tool" -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$cache/apt/sources.list.d" \
		-o Dir::State::Lists="$cache/apt/lists" \
		-o Dir::Cache="$cache/apt/cache" "$@"
}

# writes deb-src twins of the machine's apt sources (one-line .list files
# and deb822 .sources files) into $cache/apt/sources.list.d
make_src_sources() {
	local d=$cache/apt/sources.list.d f
	rm -rf "$d"
	mkdir -p "$d" "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial"
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >>"$d/src.list"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" >"$d/$(basename "$f")"
	done
}

# echoes the directory of the unpacked suite (src/test/regress)
fetch_suite() {
	local srcpkg version dir v tried
	srcpkg=$(dpkg-query -W -f='${source:Package}' "postgresql-$GS_PGVER" 2>/dev/null)
	version=$(dpkg-query -W -f='${Version}' "postgresql-$GS_PGVER" 2>/dev/null)
	if [ -z "$version" ]; then
		echo "postgresql-$GS_PGVER is not installed" >&2
		return 1
	fi
	srcpkg=${srcpkg:-postgresql-$GS_PGVER}
	dir=$cache/src/$srcpkg-$version
	if [ -f "$dir/src/test/regress/parallel_schedule" ]; then
		echo "$dir/src/test/regress"
		return 0
	fi
	for v in "$cache"/src/"$srcpkg"-*/src/test/regress/parallel_schedule; do
		# a fallback version fetched before, when the installed one is not on
		# the mirror (recorded in its .fallback-for file)
		if [ -f "$v" ] && [ "$(cat "${v%/src/test/regress/parallel_schedule}.fallback-for" 2>/dev/null)" = "$version" ]; then
			echo "suite: the mirror has no source of $srcpkg $version; using $(basename "${v%/src/test/regress/parallel_schedule}")" >&2
			echo "${v%/parallel_schedule}"
			return 0
		fi
	done

	command -v dpkg-source >/dev/null || GS_EXTRA_PACKAGES="dpkg-dev" gs_install_packages >&2 || return 1
	make_src_sources
	gs_apt apt-get update >"$cache/apt-update.log" 2>&1 || { cat "$cache/apt-update.log" >&2; return 1; }
	mkdir -p "$cache/download"
	tried=""
	# the installed version first, then the others of the same source
	# package and major version, newest first
	for v in "$version" $(gs_apt apt-cache showsrc "$srcpkg" 2>/dev/null | sed -n 's/^Version: //p' |
			grep "^$GS_PGVER\." | sort -rV | grep -vxF "$version"); do
		tried="$tried $v"
		rm -rf "$cache/download"/*
		if (cd "$cache/download" && gs_apt apt-get source --download-only "$srcpkg=$v") >"$cache/apt-source.log" 2>&1; then
			rm -rf "$cache/src/$srcpkg-$v"
			mkdir -p "$cache/src"
			dpkg-source -x "$cache/download/${srcpkg}_${v#*:}.dsc" "$cache/src/$srcpkg-$v" >"$cache/dpkg-source.log" 2>&1 ||
				{ cat "$cache/dpkg-source.log" >&2; return 1; }
			rm -rf "$cache/download"/*
			# dpkg-source leaves the upstream tarball beside the tree
			rm -f "$cache/src"/*.tar.*
			if [ "$v" != "$version" ]; then
				echo "$version" >"$cache/src/$srcpkg-$v.fallback-for"
				echo "suite: the mirror has no source of $srcpkg $version; using $v" >&2
			fi
			chmod -R a+rX "$cache/src"
			echo "$cache/src/$srcpkg-$v/src/test/regress"
			return 0
		fi
	done
	cat "$cache/apt-source.log" >&2
	echo "suite: the mirror serves no source of $srcpkg $GS_PGVER.x (tried:$tried): PostgreSQL's suite is skipped" >&2
	return 77
}

# regress.so, built with PGXS from the suite's regress.c, and the contrib
# spi modules the suite loads from the same directory; echoes the directory
build_regress_lib() {
	local suite=$1 lib=$1/../gpusort-lib m
	if [ ! -f "$lib/regress.so" ]; then
		mkdir -p "$lib"
		cp "$suite/regress.c" "$lib/"
		cat >"$lib/Makefile" <<-'EOF'
			MODULES = regress
			PGXS := $(shell $(PG_CONFIG) --pgxs)
			# Debian's PGXS asks for LLVM bitcode; none is needed here
			override with_llvm = no
			include $(PGXS)
		EOF
		make -C "$lib" -s PG_CONFIG="$(command -v pg_config)" >"$lib/build.log" 2>&1 ||
			{ cat "$lib/build.log" >&2; return 1; }
	fi
	# (a server without them fails the tests that load them in both passes)
	for m in autoinc refint; do
		[ -f "$(pg_config --pkglibdir)/$m.so" ] && cp -f "$(pg_config --pkglibdir)/$m.so" "$lib/"
	done
	chmod -R a+rX "$lib"
	(cd "$lib" && pwd)
}

# ---- running it -------------------------------------------------------------

# run_pass NAME OUTDIR [postgresql.conf lines...]: the whole schedule on a
# fresh cluster
run_pass() {
	local name=$1 dir=$2 t0 rc nok nfailed
	shift 2
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && chown postgres "$dir"
	gs_cluster_start "$@" || return 1
	t0=$(date +%s)
	gs_as_pg "$(dirname "$(pg_config --pgxs)")/../test/regress/pg_regress" \
		--inputdir="$suite" --outputdir="$dir" --dlpath="$lib" \
		--schedule="$suite/parallel_schedule" --max-concurrent-tests=20 \
		--host="$PGHOST" --port="$PGPORT" --user=postgres \
		>"$dir/pg_regress.log" 2>&1
	rc=$?
	read -r nok nfailed < <(gs_regress_counts "$dir/pg_regress.log")
	echo "pass $name: $nok ok, $nfailed failed (pg_regress exit $rc, $(($(date +%s) - t0)) s)"
	grep -E 'FAILED|failed \(ignored\)|^not ok |# \(ignored\)' "$dir/pg_regress.log" | sed 's/^/  /'
	# a crash shows up in the server log
	if grep -E 'terminated by signal|was terminated by' "$GS_CLUSTER/server.log" >"$dir/crashes.log"; then
		echo "pass $name: the server crashed:"
		cat "$dir/crashes.log"
	fi
	cp "$GS_CLUSTER/server.log" "$dir/server.log"
	gs_cluster_stop
	trap - EXIT
	return 0
}

# one fetch and build at a time in the cache (other checkouts share it)
exec 9>"$cache/.lock"
flock 9

if [ "${1:-}" = --bundle ]; then
	[ -n "${2:-}" ] || { echo "usage: $0 --bundle FILE" >&2; exit 2; }
	suite=$(fetch_suite) || exit
	tar -C "$suite/.." --exclude=gpusort-lib -czf "$2" regress || exit 1
	echo "suite: $suite -> $2"
	exit 0
fi

[ -n "${GS_NO_BUILD:-}" ] || gs_build_install >/dev/null || exit 1
if [ -n "${GS_PG_SUITE_SRC:-}" ]; then
	suite=$(cd "$GS_PG_SUITE_SRC" && pwd)
else
	suite=$(fetch_suite) || exit
fi
lib=$(build_regress_lib "$suite") || exit 1
chmod -R a+rX "$suite"
flock -u 9
exec 9>&-
echo "suite: $suite"

out=${GS_PG_SUITE_OUT:-$(mktemp -d /tmp/gpusort-pgsuite.XXXXXX)}
mkdir -p "$out"
chmod 755 "$out"

run_pass stock "$out/stock" || exit 1
gs_conf=("shared_preload_libraries = 'gpusort'" "gpusort.min_rows = 0" "gpusort.parallel = on")
[ -n "${GS_PG_SUITE_CONF:-}" ] && gs_conf+=("$GS_PG_SUITE_CONF")
run_pass gpusort "$out/gpusort" "${gs_conf[@]}" || exit 1

python3 "$GS_ROOT/test/sort/pg_suite_classify.py" --schedule "$suite/parallel_schedule" \
	"$out/stock" "$out/gpusort" | tee "$out/classify.txt"
rc=${PIPESTATUS[0]}
[ -s "$out/gpusort/crashes.log" ] && rc=1
# the outputs (some 40 MB) stay where asked for, or when something failed
if [ "$rc" -eq 0 ] && [ -z "${GS_PG_SUITE_OUT:-}" ]; then
	rm -rf "$out"
else
	echo "outputs in $out"
fi
exit "$rc"
