#!/usr/bin/env bash
# The device choice and the gpusort.devices syntax (src/runtime/gpu_select.c)
# alone, without PostgreSQL or CUDA: builds test/sort/cpu/gpu_select_test.c
# against it and runs its cases (the fewest sessions win, free memory
# breaks ties, devices not allowed or full are skipped, why none is chosen;
# random device lists; valid and bad lists of ordinals).
set -euo pipefail
cd "$(dirname "$0")/../../.."
tmp=${GS_TEST_TMP:-$(mktemp -d)}
bin="$tmp/gpu_select_test"
cc -O2 -Wall -Wextra -Werror -I src -I src/sort -I test/common -o "$bin" test/sort/cpu/gpu_select_test.c src/runtime/gpu_select.c
"$bin"
