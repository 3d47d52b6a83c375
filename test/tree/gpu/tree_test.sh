#!/usr/bin/env bash
# Builds and runs test/tree/gpu/tree_test.cu: tree_reduce's GPU kernels
# (kernels/tree/tree_contract.cu, kernels/tree/xml_scan.cu) against the CPU code of
# src/tree/contract.c and src/tree/xmltok.c, no PostgreSQL needed.  Run from the
# repository root on a machine with a GPU:
#
#   test/tree/gpu/tree_test.sh [--quick]
#
# Prints one line per case and "N passed, M failed"; exits nonzero on any
# failure.  Output also goes to $OUT/tree_test.log when OUT is set.
set -euo pipefail
cd "$(dirname "$0")/../../.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
BUILD=${BUILD:-test/build}
mkdir -p "$BUILD"
"$NVCC" -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Ikernels -Isrc -Isrc/tree -Itest/tree \
	-o "$BUILD/tree_test" test/tree/gpu/tree_test.cu kernels/tree/tree_contract.cu \
	kernels/tree/xml_scan.cu kernels/runtime.cu \
	src/tree/contract.c src/threads/threads.c src/tree/xmltok.c -lpthread
if [ -n "${OUT:-}" ]; then
	"$BUILD/tree_test" "$@" | tee "$OUT/tree_test.log"
else
	"$BUILD/tree_test" "$@"
fi
