#!/usr/bin/env bash
# The GPU engine's host code (src/sort/engine/engine.c, src/sort/engine/engine_gpu.c) and the
# backend's GPU session (src/gpu/gpu_session.c src/runtime/gpu_select.c) without a GPU: builds
# test/sort/cpu/engine_host_test.c against the fake CUDA runtime
# (test/common/fake_cuda.c, host memory as the device) and the backend shim
# (test/common/pg_shim.c), and runs its cases (overlapped copies, growing
# buffers, runs, every CUDA call failing in turn, cancels while waiting,
# the session cap, a failed start, the device choice over a fake list of
# devices, the pinned pool, a sort whose keys are ready while CUDA still
# starts).  The engine's reservations of device memory are the server's
# (src/memory/memreserve.c) over a stand-in account
# (test/common/fake_account.c).  gs_pinned_put is
# wrapped (-Wl,--wrap) so that the fake sees every pinned buffer that the
# engine gives back, and can tell one that the device still uses.
set -euo pipefail
cd "$(dirname "$0")/../../.."
tmp=${GS_TEST_TMP:-$(mktemp -d)}
bin="$tmp/engine_host_test"
cc -O2 -Wall -I src -I src/sort -I kernels -I test/common -I "$(pg_config --includedir-server)" \
	-o "$bin" test/sort/cpu/engine_host_test.c test/common/fake_cuda.c test/common/fake_account.c test/common/pg_shim.c \
	src/sort/engine/engine.c src/sort/engine/engine_gpu.c src/sort/engine/engine_cpu.c src/gpu/gpu_session.c src/runtime/gpu_select.c \
	src/threads/threads.c src/threads/threads_backend.c src/memory/memreserve.c \
	-Wl,--wrap=gs_pinned_put -L "$(pg_config --pkglibdir)" -lpgport -lpthread
"$bin"
