#!/bin/sh
# Builds the result-reader fuzz target with libFuzzer (clang) and runs it from the corpus.
# usage: tests/fuzz/run.sh [SECONDS]   (default 60; crashes land in build/fuzz/)
# Not part of make check (a fuzzer's findings are not reproducible per run); the corpus is
# replayed in make check by tests/unit/test_result_read.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
out=$top/build/fuzz
command -v clang >/dev/null 2>&1 || { echo "fuzz: needs clang" >&2; exit 77; }
mkdir -p "$out/corpus"
cd "$top"
srcs=$(ls src/*/*.c | grep -v '^src/main.c$')
# shellcheck disable=SC2086
clang -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -D_GNU_SOURCE -DFSB_LIBFUZZER \
    -DFSB_VERSION='"fuzz"' -iquote src $(pkg-config --cflags cairo 2>/dev/null || echo -I/usr/include/cairo) \
    tests/fuzz/fuzz_result.c $srcs -ljansson -lz -lm -lcairo -lsqlite3 -pthread -o "$out/fuzz_result"
cp tests/fuzz/corpus/* "$out/corpus/"
"$out/fuzz_result" -max_total_time="$secs" -max_len=65536 -artifact_prefix="$out/" "$out/corpus"
