#!/bin/bash
# Kernel benchmark: gpusort's partition-merge sort vs CUB radix sort, CUB
# merge sort and thrust::sort_by_key, 2^20..2^27 pairs, 8/16/32-byte keys.
#   bench/sort/kernels.sh [max_log2_n] [reps]
# Run from anywhere on a machine with nvcc and a GPU; writes kernels.csv and
# kernels.txt to $OUT (default bench/out/).
set -euo pipefail
cd "$(dirname "$0")/../.."

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${CUDA_ARCH:-90}
export OUT=${OUT:-bench/out}
mkdir -p "$OUT" test/build

"$NVCC" -O3 -std=c++17 -arch=sm_$ARCH -t 0 -Ikernels -Isrc --extended-lambda \
	-o test/build/bench_kernels bench/sort/kernels.cu kernels/*.cu kernels/*/*.cu

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader || true
	test/build/bench_kernels "$@"
} 2>&1 | tee "$OUT/kernels.txt"
