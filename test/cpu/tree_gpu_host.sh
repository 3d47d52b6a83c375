#!/usr/bin/env bash
# tree_reduce's GPU host code (src/tree_gpu.c) and the backend's GPU session
# (src/gpu_session.c) without a GPU: builds test/cpu/tree_gpu_host_test.c,
# which fakes kernels/gpusort_kernels.h in host memory (xmltok.c as the
# tokenizer, contract.h's steps 1 and 3 as the contraction kernels) and
# shims the few backend symbols, and runs its cases (every op against the
# sequential reduction, batches, the CPU tokenizer taking over, malformed
# input, every CUDA call failing in turn, cancels while waiting, a failed
# start).  Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=${GS_TEST_TMP:-$(mktemp -d)}
bin="$tmp/tree_gpu_host_test"
cc -O2 -Wall -I src -I kernels -I "$(pg_config --includedir-server)" \
	-o "$bin" test/cpu/tree_gpu_host_test.c src/tree_gpu.c src/gpu_session.c \
	src/contract.c src/xmltok.c \
	-L "$(pg_config --pkglibdir)" -lpgport -lpthread -lm
"$bin"
