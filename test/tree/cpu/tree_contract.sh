#!/usr/bin/env bash
# The pseudo-tree contraction (src/tree/contract.c) on random forests: chunked ==
# sequential == a textbook evaluation, for every op, k = 1..64, cuts on
# start tags, end tags and inside deep chains, 1 and 4 threads
# (test/tree/cpu/tree_check.c); then the same, smaller, at -O3 (as
# test/tree/gpu/tree_test.sh builds contract.c: GCC 13 once miscompiled it there,
# see src/tree/contract.c) and under ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${GS_TEST_TMP:-$(mktemp -d)}/tree_contract
mkdir -p "$out"
cc=${CC:-cc}

$cc -std=gnu99 -O2 -Wall -Werror -Isrc -Isrc/tree test/tree/cpu/tree_check.c src/tree/contract.c src/threads/threads.c \
	-lpthread -lm -o "$out/tree_check"
"$out/tree_check" 1 1 1

# no -Werror here: this build is after wrong code, not warnings
$cc -std=gnu99 -O3 -Wall -Isrc -Isrc/tree test/tree/cpu/tree_check.c src/tree/contract.c src/threads/threads.c \
	-lpthread -lm -o "$out/tree_check_o3"
"$out/tree_check_o3" 2 1 0

if $cc -fsanitize=address,undefined -x c /dev/null -c -o /dev/null 2>/dev/null; then
	$cc -std=gnu99 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
		-Isrc -Isrc/tree test/tree/cpu/tree_check.c src/tree/contract.c src/threads/threads.c -lpthread -lm -o "$out/tree_check_san"
	"$out/tree_check_san" 3 1 0
else
	echo "tree_contract: no sanitizer support in $cc, skipped the sanitized run"
fi
