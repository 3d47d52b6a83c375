#!/usr/bin/env bash
# The libc locales of the collation tests and benchmarks (en_US, de_DE,
# sv_SE, tr_TR, UTF-8) on a machine that has glibc's localedef but neither
# Debian's locale-gen nor the locale sources, such as the GPU machine: the
# sources come from a tarball of this machine's /usr/share/i18n, made with
#     tar -C / -czf .device/i18n.tar.gz usr/share/i18n/locales usr/share/i18n/charmaps/UTF-8.gz
#
#   test/gpu/locales.sh [TARBALL]      default: .device/i18n.tar.gz
#
# Locales already there are left alone; prints `locale -a` at the end.
set -uo pipefail
tarball=${1:-.device/i18n.tar.gz}
have=$(locale -a 2>/dev/null | tr 'A-Z' 'a-z')
src=""
for l in en_US de_DE sv_SE tr_TR; do
	echo "$have" | grep -qx "$(echo "$l.utf8" | tr 'A-Z' 'a-z')" && continue
	if [ -z "$src" ]; then
		[ -f "$tarball" ] || { echo "locales.sh: no $tarball"; exit 1; }
		src=$(mktemp -d /tmp/gpusort-i18n.XXXXXX)
		tar -C "$src" -xzf "$tarball" || exit 1
	fi
	I18NPATH=$src/usr/share/i18n localedef -i "$l" -f UTF-8 "$l.UTF-8" ||
		echo "locales.sh: localedef $l.UTF-8 failed"
done
[ -n "$src" ] && rm -rf "$src"
locale -a | tr '\n' ' '
echo
