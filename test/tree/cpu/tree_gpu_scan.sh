#!/usr/bin/env bash
# The GPU tokenizer's kernels (kernels/xml_scan.cu), emulated thread by
# thread on the CPU, against xmltok.c: keeps the scanner's logic under test
# in CI, which has no GPU.  Run from the repository root.
set -euo pipefail
tmp=${GS_TEST_TMP:-$(mktemp -d)}
${CC:-cc} -O2 -Wall -Isrc -c -o "$tmp/xmltok_emu.o" src/xmltok.c
${CXX:-g++} -std=c++17 -O2 -Wall -Wno-unknown-pragmas -Isrc -Ikernels -Itest/gpu \
	-o "$tmp/xml_scan_emu" test/gpu/xml_scan_emu.cpp "$tmp/xmltok_emu.o"
"$tmp/xml_scan_emu" "$@"
