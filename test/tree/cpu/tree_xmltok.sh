#!/usr/bin/env bash
# The tokenizer (src/tree/xmltok.c): libxml2 as the oracle on generated and
# mutated documents (test/tree/cpu/xmltok_oracle.c), then the libFuzzer target
# test/tree/cpu/fuzz_xmltok.c: a short bounded fuzzing run when clang has
# -fsanitize=fuzzer, else a replay of the seed corpus under the sanitizers.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${GS_TEST_TMP:-$(mktemp -d)}/tree_xmltok
mkdir -p "$out"
cc=${CC:-cc}

$cc -std=gnu99 -O2 -Wall -Werror -Isrc -Isrc/tree $(xml2-config --cflags) \
	test/tree/cpu/xmltok_oracle.c src/tree/xmltok.c $(xml2-config --libs) -lm -o "$out/xmltok_oracle"
for seed in 1 2; do
	"$out/xmltok_oracle" "$seed" 5000
done

fuzz_time=${GS_FUZZ_SECONDS:-15}
if command -v clang >/dev/null &&
	clang -fsanitize=fuzzer -x c - -o "$out/probe" 2>/dev/null <<<'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }'; then
	clang -std=gnu99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Isrc -Isrc/tree \
		test/tree/cpu/fuzz_xmltok.c src/tree/xmltok.c src/tree/contract.c src/threads/threads.c -lpthread -lm -o "$out/fuzz_xmltok"
	mkdir -p "$out/corpus"
	cp test/tree/cpu/corpus/* "$out/corpus/"
	"$out/fuzz_xmltok" -max_total_time="$fuzz_time" -max_len=4096 -print_final_stats=1 \
		"$out/corpus" >"$out/fuzz.log" 2>&1 || { tail -50 "$out/fuzz.log"; exit 1; }
	grep -E 'stat::number_of_executed_units' "$out/fuzz.log" | sed 's/^/fuzz_xmltok: /'
else
	san=""
	$cc -fsanitize=address,undefined -x c /dev/null -c -o /dev/null 2>/dev/null && san="-fsanitize=address,undefined"
	$cc -std=gnu99 -g -O1 $san -DGS_FUZZ_REPLAY -Isrc -Isrc/tree test/tree/cpu/fuzz_xmltok.c src/tree/xmltok.c \
		src/tree/contract.c src/threads/threads.c -lpthread -lm -o "$out/fuzz_xmltok"
	"$out/fuzz_xmltok" test/tree/cpu/corpus/*
fi
