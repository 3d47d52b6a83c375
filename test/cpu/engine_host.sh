#!/usr/bin/env bash
# The GPU engine's host code (src/engine.c, src/engine_gpu.c) and the
# backend's GPU session (src/gpu_session.c) without a GPU: builds
# test/cpu/engine_host_test.c, which fakes kernels/gpusort_kernels.h in host
# memory and shims the few backend symbols, and runs its cases (overlapped
# copies, growing buffers, runs, every CUDA call failing in turn, cancels
# while waiting, the session cap, a failed start, the pinned pool).
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=${GS_TEST_TMP:-$(mktemp -d)}
bin="$tmp/engine_host_test"
cc -O2 -Wall -Wno-unused-function -I src -I kernels -I "$(pg_config --includedir-server)" \
	-o "$bin" test/cpu/engine_host_test.c src/engine.c src/engine_gpu.c src/engine_cpu.c src/gpu_session.c \
	-L "$(pg_config --pkglibdir)" -lpgport -lpthread
"$bin"
