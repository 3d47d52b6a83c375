#!/bin/bash
# Build and run the standalone kernel test (no PostgreSQL needed):
#   test/sort/gpu/kernel_test.sh [quick]
# from the repository root, on a machine with nvcc and a GPU.  Builds into
# test/build/ (or $GSK_BUILD_DIR); the log is also copied to $OUT when set.
set -euo pipefail
cd "$(dirname "$0")/../../.."

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${CUDA_ARCH:-90}
BUILD=${GSK_BUILD_DIR:-test/build}
mkdir -p "$BUILD"

"$NVCC" -O3 -std=c++17 -arch=sm_$ARCH -t 0 -Ikernels -Isrc \
	-o "$BUILD/kernel_test" test/sort/gpu/kernel_test.cu kernels/*.cu kernels/*/*.cu

status=0
"$BUILD/kernel_test" "$@" 2>&1 | tee "$BUILD/kernel_test.log" || status=$?
if [ -n "${OUT:-}" ]; then
	cp "$BUILD/kernel_test.log" "$OUT/kernel_test.log"
fi
exit $status
