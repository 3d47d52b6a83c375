#!/usr/bin/env bash
# The GPU tokenizer's kernels (kernels/tree/xml_scan.cu), emulated thread by
# thread on the CPU, against xmltok.c: keeps the scanner's logic under test
# in CI, which has no GPU.  Run from the repository root.
set -euo pipefail
tmp=${GS_TEST_TMP:-$(mktemp -d)}
${CC:-cc} -O2 -Wall -Isrc -Isrc/tree -c -o "$tmp/xmltok_emu.o" src/tree/xmltok.c
${CXX:-g++} -std=c++17 -O2 -Wall -Wno-unknown-pragmas -Isrc -Isrc/tree -Ikernels -Itest/tree \
	-o "$tmp/xml_scan_emu" test/tree/cpu/xml_scan_emu.cpp "$tmp/xmltok_emu.o"
"$tmp/xml_scan_emu" "$@"
