#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the result-reader fuzz target with libFuzzer (clang) and runs it from the corpus.
# usage: tests/fuzz/run.sh [SECONDS]   (default 60; crashes land in build-fuzz/)
# `make fuzz` runs it (FUZZ_SECS), and .ci/run calls that: a bounded run, whose findings differ
# from run to run; the corpus itself is replayed in make check by tests/unit/test_result_read.
# The build is the Makefile's (its own tree, build-fuzz/: the library with clang's sanitizers,
# every library through pkg-config, src/mpi/ left out), so it cannot drift from fsbench's.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
out=$top/build-fuzz
command -v clang >/dev/null 2>&1 || { echo "skip: fuzz: needs clang (deps.txt test stage)" >&2; exit 77; }
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
make -C "$top" --no-print-directory BUILD=build-fuzz CC=clang \
    CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $san" LDFLAGS="$san" \
    build-fuzz/fuzz_result
mkdir -p "$out/corpus"
cp "$top"/tests/fuzz/corpus/* "$out/corpus/"
"$out/fuzz_result" -max_total_time="$secs" -max_len=65536 -artifact_prefix="$out/" "$out/corpus"
