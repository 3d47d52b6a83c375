#!/usr/bin/env bash
# The contraction kernels (kernels/tree/tree_contract.cu), each warp emulated as
# 32 coroutines on the CPU, against contract.c's sequential reference:
# keeps the kernels' logic under test in CI, which has no GPU.  Run from the
# repository root.
#
# Built at -O2 and at -O3: test/tree/gpu/tree_test.sh builds contract.c with
# nvcc -O3, i.e. the host compiler at -O3, where GCC 13 once miscompiled the
# reference (see the header comment of src/tree/contract.c).
set -euo pipefail
tmp=${GS_TEST_TMP:-$(mktemp -d)}
for opt in -O2 -O3; do
	# the coroutines switch stacks with _longjmp, which fortified builds refuse
	${CC:-cc} $opt -Wall -U_FORTIFY_SOURCE -Isrc -Isrc/tree -c -o "$tmp/contract_emu.o" src/tree/contract.c
	${CC:-cc} $opt -Wall -U_FORTIFY_SOURCE -Isrc -c -o "$tmp/threads_emu.o" src/threads/threads.c
	${CXX:-g++} -std=c++17 $opt -Wall -Wno-unknown-pragmas -U_FORTIFY_SOURCE -Isrc -Isrc/tree -Ikernels -Itest/tree \
		-o "$tmp/tree_contract_emu" test/tree/cpu/tree_contract_emu.cpp "$tmp/contract_emu.o" \
		"$tmp/threads_emu.o" -lpthread
	echo "tree_gpu_contract: built with $opt"
	"$tmp/tree_contract_emu" "$@"
done
