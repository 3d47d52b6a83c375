#!/usr/bin/env bash
# The CPU sort engine against a reference sort: builds test/sort/cpu/engine_cpu_test.c
# with src/sort/engine/engine_cpu.c and the backend shim (test/common/pg_shim.c) outside
# the server and runs its cases (every key width; random, duplicated, equal,
# sorted, reverse, skewed keys; sizes around the insertion-sort cutoff;
# shuffled row numbers; run merging).
set -euo pipefail
cd "$(dirname "$0")/../../.."
tmp=${GS_TEST_TMP:-$(mktemp -d)}
bin="$tmp/engine_cpu_test"
cc -O2 -Wall -I src -I src/sort -I kernels -I test/common -I "$(pg_config --includedir-server)" \
	-o "$bin" test/sort/cpu/engine_cpu_test.c test/common/pg_shim.c src/sort/engine/engine_cpu.c \
	src/threads/threads.c src/threads/threads_backend.c -lpthread
"$bin"
