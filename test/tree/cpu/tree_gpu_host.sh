#!/usr/bin/env bash
# tree_reduce's GPU host code (src/tree/tree_gpu.c) and the backend's GPU session
# (src/gpu/gpu_session.c src/runtime/gpu_select.c) without a GPU: builds test/tree/cpu/tree_gpu_host_test.c
# against the fake CUDA runtime (test/common/fake_cuda.c, host memory as the
# device; the test adds the tree kernels: xmltok.c as the tokenizer,
# contract.h's steps 1 and 3 as the contraction) and the backend shim
# (test/common/pg_shim.c), and runs its cases (every op against the
# sequential reduction, batches, the CPU tokenizer taking over, malformed
# input, every CUDA call failing in turn, cancels while waiting, a failed
# start).  gs_pinned_put is wrapped (-Wl,--wrap) so that the fake sees
# every pinned buffer that tree_gpu.c gives back, and can tell one that the
# device still uses.  Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/../../.."
tmp=${GS_TEST_TMP:-$(mktemp -d)}
bin="$tmp/tree_gpu_host_test"
cc -O2 -Wall -I src -I src/sort -I kernels -I test/common -I "$(pg_config --includedir-server)" \
	-o "$bin" test/tree/cpu/tree_gpu_host_test.c test/common/fake_cuda.c test/common/pg_shim.c \
	src/tree/tree_gpu.c src/tree/treebatch.c src/gpu/gpu_session.c src/runtime/gpu_select.c src/tree/contract.c src/threads/threads.c src/tree/xmltok.c \
	-Wl,--wrap=gs_pinned_put -L "$(pg_config --pkglibdir)" -lpgport -lpthread -lm
"$bin"
