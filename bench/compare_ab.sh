#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/compare_ab.sh [FSBENCH]: a real A/B for `fsbench compare`. A writes with 64 KiB blocks,
# B moves the same bytes in 512-byte blocks (128 times the syscalls per byte); ROUNDS rounds, A
# and B alternating (A first in odd rounds, B first in even ones), one run each per round, joined
# into one result per side (runs[]). Reports compare's write-rate row and whether its 20 %
# regression gate trips. The claim it checks: B's write rate is significantly worse (stars).
# A report, not a test (tests/cli/t3010-compare-real-ab.sh tests compare's mechanics on results
# built to differ): exits 0 whatever the numbers, non-zero only when something cannot run.
#
# Environment: ROUNDS (default 5), DIR (default /dev/shm), SIZE_MIB (default 16, per thread).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
ROUNDS=${ROUNDS:-5}
DIR=${DIR:-/dev/shm}
SIZE_MIB=${SIZE_MIB:-16}

die() { echo "bench/compare_ab.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"
command -v jq > /dev/null || die "needs jq (scripts/deps.sh test installs it)"
[ "$ROUNDS" -ge 2 ] 2> /dev/null || die "ROUNDS must be 2 or more (significance needs repeated runs)"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-ab.XXXXXX")
WORK=$(mktemp -d "$DIR/fsbench-ab.XXXXXX")
trap 'rm -rf "$TMP" "$WORK"' EXIT
# a private copy: one binary for every round, even if the tree is rebuilt meanwhile
cp "$FSBENCH" "$TMP/fsbench" || die "cannot copy $FSBENCH"

one() { # one SIDE ROUND
    local bs=65536
    [ "$1" = B ] && bs=512
    "$TMP/fsbench" tiotest -t 2 -f "$SIZE_MIB" -r 2000 -b $bs -d "$WORK" --quiet --json "$TMP/$1$2.json" \
        > /dev/null || die "run $1 (round $2) failed"
}

echo "bench/compare_ab.sh: $FSBENCH (copy) tiotest -t 2 -f $SIZE_MIB -r 2000 -d $DIR; A: -b 65536, B: -b 512; $ROUNDS rounds"
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then one A "$r"; one B "$r"; else one B "$r"; one A "$r"; fi
done
for x in A B; do
    jq -s --arg l $x '.[0] + {label: $l, runs: [.[] | {complete, stop_reason, error, seed, phases, total_latency}]}
        | del(.complete, .stop_reason, .error, .seed, .phases, .total_latency)' \
        $(for r in $(seq "$ROUNDS"); do echo "$TMP/$x$r.json"; done) > "$TMP/$x.json"
done
"$TMP/fsbench" compare "$TMP/A.json" "$TMP/B.json" > "$TMP/cmp.txt" || die "compare failed"
echo
grep -E '^(figure|write rate|write IOPS|write latency p99) ' "$TMP/cmp.txt"
echo
if grep -Eq '^write rate .* worse \*+$' "$TMP/cmp.txt"; then
    echo "B's write rate is significantly worse: CLAIM HOLDS"
    claim=met
else
    echo "B's write rate is not marked significantly worse: CLAIM NOT SEEN in this run"
    claim=MISSED
fi
rc=0
"$TMP/fsbench" compare --fail-if-worse 20 "$TMP/A.json" "$TMP/B.json" > /dev/null || rc=$?
echo "compare --fail-if-worse 20: exit $rc ($([ $rc = 1 ] && echo "gate trips" || echo "gate holds"))"
# the goal lines (make bench's summary collects every script's)
echo
echo "goal: compare marks B's write rate significantly worse: $claim"
echo "goal: compare --fail-if-worse 20 trips on B (exit 1): $([ $rc = 1 ] && echo met || echo MISSED)"
exit 0
