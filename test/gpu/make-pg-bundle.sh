#!/bin/sh
# Packs a Debian PostgreSQL server, its headers and its shared-library
# closure into one tarball for the GPU machine, which has no package
# registry (test/gpu/README.md):
#
#   test/gpu/make-pg-bundle.sh [OUT.tar.gz]
#       PGV=15 (default): this machine's server, installed with apt if missing
#   PGV=17 ROOT=/path/to/trixie-root test/gpu/make-pg-bundle.sh .device/pg17.tar.gz
#       the server of a Debian root (debootstrap; postgresql-17,
#       postgresql-server-dev-17, libxml2-dev and libicu-dev installed in it)
#
# On the GPU machine:  . test/gpu/pg-on-device.sh .device/pgN.tar.gz
#
# The bundle holds /usr/lib/postgresql/N (without LLVM JIT: PGXS builds
# are told with_llvm = no), /usr/share/postgresql/N, /usr/include/postgresql,
# libxml2's headers, ICU's headers inside the server's include directory
# (so that a build includes them, not the GPU machine's own ICU of another
# version, whose symbols carry its version), and the libraries the server,
# its tools and libxml2 load, in /opt/pgdepsN/lib, glibc and the C++
# runtime aside: those of the GPU machine serve (a server built for a newer
# Debian needs no glibc symbol newer than the GPU machine's: checked).
set -eu
PGV=${PGV:-15}
ROOT=${ROOT:-}
out=${1:-.device/pg$PGV.tar.gz}
multiarch=usr/lib/x86_64-linux-gnu
deps=opt/pgdeps$PGV/lib

if [ -z "$ROOT" ]; then
	for p in postgresql-$PGV postgresql-server-dev-$PGV libxml2-dev libicu-dev; do
		dpkg -s "$p" >/dev/null 2>&1 || need="${need:-} $p"
	done
	if [ -n "${need:-}" ]; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
	fi
fi
[ -x "$ROOT/usr/lib/postgresql/$PGV/bin/postgres" ] ||
	{ echo "no PostgreSQL $PGV in ${ROOT:-/}" >&2; exit 1; }
[ -f "$ROOT/usr/include/unicode/ucol.h" ] ||
	{ echo "no ICU headers in ${ROOT:-/} (libicu-dev)" >&2; exit 1; }

# in_root CMD...: CMD with the root's libraries (ldd resolves them there)
in_root() {
	if [ -n "$ROOT" ]; then chroot "$ROOT" "$@"; else "$@"; fi
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/usr/lib/postgresql" "$stage/usr/share/postgresql" \
	"$stage/usr/include" "$stage/$deps"
cp -a "$ROOT/usr/lib/postgresql/$PGV" "$stage/usr/lib/postgresql/"
rm -rf "$stage/usr/lib/postgresql/$PGV/lib/bitcode" "$stage/usr/lib/postgresql/$PGV/lib/llvmjit"*
cp -a "$ROOT/usr/share/postgresql/$PGV" "$stage/usr/share/postgresql/"
cp -a "$ROOT/usr/include/postgresql" "$stage/usr/include/"
cp -a "$ROOT/usr/include/libxml2" "$stage/usr/include/"
cp -a "$ROOT/usr/include/unicode" "$stage/usr/include/postgresql/$PGV/server/"

# every library the server, its tools and libxml2 need, glibc and the C++
# runtime aside
libs=$(in_root sh -c "for f in /usr/lib/postgresql/$PGV/bin/* /usr/lib/postgresql/$PGV/lib/*.so /$multiarch/libxml2.so.2; do
		case \$f in */llvmjit*) continue ;; esac
		ldd \"\$f\" 2>/dev/null
	done" | awk '/=> \//{print $3}' | sort -u |
	grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so')
for lib in $libs; do
	cp -L "$ROOT$lib" "$stage/$deps/"
done
echo "$PGV" >"$stage/opt/pgdeps$PGV/PG_MAJOR"

# the newest glibc symbol version the bundle asks for
if command -v objdump >/dev/null; then
	need=$(for f in "$stage"/usr/lib/postgresql/$PGV/bin/* "$stage/$deps"/*; do
		objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*'
	done | sort -u -V | tail -1)
	echo "the bundle needs glibc ${need#GLIBC_} or newer"
fi

mkdir -p "$(dirname "$out")"
tar -C "$stage" -czf "$out" usr opt
echo "$out: $(du -h "$out" | cut -f1)"
