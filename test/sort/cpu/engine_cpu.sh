#!/usr/bin/env bash
# The CPU sort engine against a reference sort: builds test/cpu/engine_cpu_test.c
# with src/engine_cpu.c and the backend shim (test/cpu/pg_shim.c) outside
# the server and runs its cases (every key width; random, duplicated, equal,
# sorted, reverse, skewed keys; sizes around the insertion-sort cutoff;
# shuffled row numbers; run merging).
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=${GS_TEST_TMP:-$(mktemp -d)}
bin="$tmp/engine_cpu_test"
cc -O2 -Wall -I src -I kernels -I test/cpu -I "$(pg_config --includedir-server)" \
	-o "$bin" test/cpu/engine_cpu_test.c test/cpu/pg_shim.c src/engine_cpu.c -lpthread
"$bin"
