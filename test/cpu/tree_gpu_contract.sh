#!/usr/bin/env bash
# The contraction kernels (kernels/tree_contract.cu), each warp emulated as
# 32 coroutines on the CPU, against contract.c's sequential reference:
# keeps the kernels' logic under test in CI, which has no GPU.  Run from the
# repository root.
set -euo pipefail
tmp=${GS_TEST_TMP:-$(mktemp -d)}
# the coroutines switch stacks with _longjmp, which fortified builds refuse
${CC:-cc} -O2 -Wall -U_FORTIFY_SOURCE -Isrc -c -o "$tmp/contract_emu.o" src/contract.c
${CXX:-g++} -std=c++17 -O2 -Wall -Wno-unknown-pragmas -U_FORTIFY_SOURCE -Isrc -Ikernels \
	-o "$tmp/tree_contract_emu" test/gpu/tree_contract_emu.cpp "$tmp/contract_emu.o" -lpthread
"$tmp/tree_contract_emu" "$@"
