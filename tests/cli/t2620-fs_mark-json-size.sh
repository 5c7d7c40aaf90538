#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t2620: a fill-like fs_mark run of 500 iterations (-L 500, 10 files of 16 writes each per
# iteration) writes a JSON whose size per iteration is bounded, and compare and plot (fill,
# timeline, latency) accept it. Each iteration keeps its latency percentiles per op type; the
# buckets are kept once per run, merged. Schema 1 kept every iteration's buckets: 9.9 KiB per
# iteration here, and 71 MiB for a fill of a 256 MiB xfs, which compare and plot then refused.
# The old layout still loads (the schema 1 fixture in tests/fuzz/corpus).
# A size assertion, not a timing one: bytes per iteration below a generous 8 KiB.
. "$(dirname "$0")/lib.sh"
need_cmd jq
C=$TESTS_DIR/fuzz/corpus
T=$(mktemp -d /dev/shm/fsbench-t2620.XXXXXX 2>/dev/null) || T=$(mktemp -d "$SCRATCH/t.XXXXXX")
trap '_lib_cleanup; rm -rf "$T"' EXIT
cd "$SCRATCH" || fail "cd"
# 500 iterations: the bound is per iteration (5.2 KiB each at 2,000, with the run's buckets
# shared: a little more at 500), and compare and plot read the file 5 times: 10 MiB each at 2,000
ITER=500 MAX_PER_ITER=8192

# -L keeps every iteration's files: 5,000 files of 2 KiB, removed with $T
fsb fs_mark -d "$T/a" -L $ITER -n 10 -s 2048 -w 128 -S 0 -t 1 --quiet --json big.json -l log > out 2> err ||
    fail "fs_mark: exit $?: $(cat err)"
bytes=$(stat -c %s big.json)
# the file's checks in one jq (three read its 2.6 MB before), each failure with its own message
export ITER
jq_read v big.json '(.iterations | length) == ($ENV.ITER | tonumber)' '.schema_version == 2' \
    '($ENV.ITER | tonumber) as $n | .latency.create.count == $n * 10 and .latency.write.count == $n * 160
    and ([.latency.write.buckets[][2]] | add) == .latency.write.count
    and ([.iterations[].latency.write.count] | add) == .latency.write.count
    and all(.iterations[].latency[]; has("buckets") | not)'
[ "${v[0]}" = true ] || fail "not $ITER iterations: $(jq '.iterations | length' big.json)"
per=$((bytes / ITER))
[ $per -lt $MAX_PER_ITER ] || fail "$bytes bytes for $ITER iterations: $per bytes per iteration, limit $MAX_PER_ITER"
[ "${v[1]}" = true ] || fail "schema_version $(jq .schema_version big.json), expected 2"
ok "$ITER iterations in $bytes bytes: $per bytes per iteration (limit $MAX_PER_ITER)"

# nothing lost: the run's histograms hold every op of every iteration
[ "${v[2]}" = true ] || fail "run latency: $(jq -c '.latency | map_values(del(.buckets))' big.json)"
ok "the run's buckets hold every iteration's ops; no iteration has buckets"

fsb compare big.json big.json > cmp.txt 2> err || fail "compare: exit $?: $(cat err)"
grep -qE '^create latency p99 ' cmp.txt || fail "compare: no create latency row: $(cat cmp.txt)"
for type in fill timeline latency; do
    fsb plot --type $type -o $type.png big.json 2> err || fail "plot --type $type: exit $?: $(cat err)"
    [ -s $type.png ] || fail "plot --type $type: no image"
done
ok "compare and plot (fill, timeline, latency) accept it"

# the old layout (schema 1, buckets per iteration) and the new one side by side
fsb compare "$C/valid_fs_mark_v1_real.json" "$C/valid_fs_mark_v2_real.json" > cmp.txt 2> err ||
    fail "compare schema 1 and 2: exit $?: $(cat err)"
grep -qE '^fsync latency p99 +us +[0-9.]+ \[[0-9.]+, [0-9.]+\] +[0-9.]+ \[[0-9.]+, [0-9.]+\] ' cmp.txt ||
    fail "compare schema 1 and 2: no fsync p99 for both: $(cat cmp.txt)"
fsb plot --type latency -o old.png "$C/valid_fs_mark_v1_real.json" 2> err || fail "plot schema 1: $(cat err)"
ok "a schema 1 result still loads, beside a schema 2 one"
