#!/usr/bin/env bash
# The module builds without nvcc, warning-free, as on a Debian machine with
# no CUDA toolkit: the GPU engines compile to their "built without CUDA"
# form and nothing refers to the kernels.
set -euo pipefail
tmp=$(mktemp -d "${GS_TEST_TMP:-/tmp}/nocuda.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar --exclude=./.git --exclude=./.device --exclude='*.o' --exclude='*.so' -cf - . | tar -C "$tmp" -xf -
out=$(make -C "$tmp" -s -j2 NVCC= COPT=-Werror PG_CONFIG="$(command -v pg_config)" 2>&1)
echo "$out"
grep -q "building without the GPU engines" <<<"$out"
if nm -D --undefined-only "$tmp/gpusort.so" | grep -E ' (gsk_|cuda)'; then
	echo "the CPU-only module refers to CUDA symbols"
	exit 1
fi
echo "CPU-only build: ok"
