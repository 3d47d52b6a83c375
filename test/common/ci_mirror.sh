#!/usr/bin/env bash
# .ci/fresh-root's machine_mirror against fake apt sources: CI must take the
# Debian archive from the machine's own sources (one-line and deb822), skip
# what is not that archive (deb-src, debian-security, disabled stanzas, a
# vendor's repository under /debian), and find nothing rather than guess.
# The function is cut out of the script, which needs root to run whole.
set -uo pipefail
tmp=$(mktemp -d "${GS_TEST_TMP:-/tmp}/ci_mirror.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sed -n '/^machine_mirror() {/,/^}/p' .ci/fresh-root >"$tmp/fn.sh"
grep -q '^machine_mirror() {' "$tmp/fn.sh" || { echo "no machine_mirror in .ci/fresh-root"; exit 1; }
. "$tmp/fn.sh"

passed=0 failed=0
apt() {	# apt NAME: a fresh fake /etc/apt; prints its path
	rm -rf "${tmp:?}/$1"
	mkdir -p "$tmp/$1/sources.list.d"
	echo "$tmp/$1"
}
expect() {	# expect WHAT WANTED APTDIR
	local got
	got=$(machine_mirror "$3")
	if [ "$got" = "$2" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAILED: $1: '$got', wanted '$2'"
	fi
}

d=$(apt none)
expect "no sources" "" "$d"
expect "no apt folder" "" "$tmp/missing"

d=$(apt list)
cat >"$d/sources.list" <<'EOF'
# deb http://commented.example/debian bookworm main
deb-src http://src.example/debian bookworm main
deb http://security.debian.org/debian-security bookworm-security main
deb http://mirror.example.org/debian/ bookworm main contrib
deb http://second.example/debian bookworm main
EOF
expect "sources.list" "http://mirror.example.org/debian" "$d"

d=$(apt options)
echo '  deb [ arch=amd64 signed-by=/k.gpg ] http://proxy.example:3142/deb.debian.org/debian trixie main' >"$d/sources.list.d/a.list"
expect "deb line with options" "http://proxy.example:3142/deb.debian.org/debian" "$d"

d=$(apt deb822)
cat >"$d/sources.list.d/debian.sources" <<'EOF'
Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.example.net/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.example.net/debian-security
Suites: bookworm-security
Components: main
EOF
expect "Debian's deb822 default" "http://deb.example.net/debian" "$d"

d=$(apt stanzas)
cat >"$d/sources.list.d/a.sources" <<'EOF'
Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb-src
URIs: http://srconly.example/debian
Suites: bookworm
Components: main

types: deb-src deb
uris: http://security.example/debian-security
 https://multi.example/debian/
Suites: bookworm
Components: contrib
 main
EOF
expect "disabled, deb-src and continued stanzas" "https://multi.example/debian" "$d"

d=$(apt vendor)
echo 'deb [signed-by=/etc/apt/keyrings/docker.asc] https://download.docker.com/linux/debian bookworm stable' >"$d/sources.list.d/docker.list"
echo 'deb http://archive.ubuntu.com/ubuntu jammy main' >"$d/sources.list"
expect "only a vendor's and Ubuntu's" "" "$d"
cp "$tmp/deb822/sources.list.d/debian.sources" "$d/sources.list.d/"
expect "a vendor's .list before Debian's .sources" "http://deb.example.net/debian" "$d"

d=$(apt files)
printf 'Types: deb\nComponents: main\n' >"$d/sources.list.d/1.sources"
printf 'URIs: http://z.example/debian\n' >"$d/sources.list.d/2.sources"
expect "a stanza ends with its file" "" "$d"

echo "ci_mirror: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
