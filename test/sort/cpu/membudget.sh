#!/usr/bin/env bash
# The cgroup readers of src/memory/membudget.c (where gpusort.max_memory = -1 and
# gpusort.max_total_memory start from) on fixture trees: cgroup v2 and v1,
# limits in the group and in an ancestor, "max" and v1's "unlimited", a
# container's and a bind mount's view, hybrid mounts, no /proc.  Built
# without PostgreSQL (test/sort/cpu/membudget_test.c).
set -euo pipefail
cd "$(dirname "$0")/../../.."
tmp=${GS_TEST_TMP:-$(mktemp -d)}/membudget
rm -rf "$tmp"; mkdir -p "$tmp/fixtures"
${CC:-cc} -std=gnu99 -O1 -g -Wall -Werror -I src -I src/sort -I test/common \
	-o "$tmp/membudget_test" test/sort/cpu/membudget_test.c src/memory/membudget.c
"$tmp/membudget_test" "$tmp/fixtures"
if ${CC:-cc} -fsanitize=address,undefined -x c /dev/null -c -o /dev/null 2>/dev/null; then
	rm -rf "$tmp/fixtures"; mkdir -p "$tmp/fixtures"
	${CC:-cc} -std=gnu99 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
		-I src -I src/sort -I test/common -o "$tmp/membudget_san" test/sort/cpu/membudget_test.c src/memory/membudget.c
	"$tmp/membudget_san" "$tmp/fixtures"
fi
