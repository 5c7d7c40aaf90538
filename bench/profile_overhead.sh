#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/profile_overhead.sh [FSBENCH]: what --profile costs. Runs the same tiotest with and
# without --profile (default 999 Hz), alternating, ROUNDS times each, and prints per phase the
# median MB/s of each and the ratio. Goal: with/without >= GOAL (0.95). A report, not a test: exits 0
# whatever the numbers (non-zero only when something fails to run).
#
# Environment: ROUNDS (default 7, at least 5), DIR (default /dev/shm: memory speed, where any
# overhead shows most), SIZE_MIB (per thread, default 128), THREADS (default 2), ROPS (random ops
# per thread, default 100000), EXTRA (more tiotest options, e.g. "--profile-callgraph").
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
ROUNDS=${ROUNDS:-7}
DIR=${DIR:-/dev/shm}
SIZE_MIB=${SIZE_MIB:-128}
THREADS=${THREADS:-2}
ROPS=${ROPS:-100000}
EXTRA=${EXTRA:-}
GOAL=${GOAL:-0.95}
PHASES="write random_write read random_read"

die() { echo "bench/profile_overhead.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
command -v jq >/dev/null || die "needs jq"
[ "$ROUNDS" -ge 5 ] 2>/dev/null || die "ROUNDS must be at least 5"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
WORK=$(mktemp -d "$DIR/fsbench-profile-bench.XXXXXX")
trap 'rm -rf "$TMP" "$WORK"' EXIT

run() {   # run NAME ARGS...: one tiotest, rates appended to $TMP/NAME.PHASE
    local name=$1; shift
    "$FSBENCH" tiotest -t "$THREADS" -f "$SIZE_MIB" -r "$ROPS" -d "$WORK" --quiet --json "$TMP/r.json" "$@" \
        > /dev/null 2> "$TMP/err" || die "tiotest $* failed: $(cat "$TMP/err")"
    grep -q 'running without a profile' "$TMP/err" && die "perf not permitted: $(cat "$TMP/err")"
    for p in $PHASES; do
        jq -r --arg p "$p" '.phases[] | select(.name == $p) | .rate_mib_per_s' "$TMP/r.json" >> "$TMP/$name.$p"
    done
}
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for i in $(seq "$ROUNDS"); do
    # alternate which goes first, so drift (other load, page cache state) hits both alike
    if [ $((i % 2)) = 1 ]; then run plain; run profile --profile $EXTRA
    else run profile --profile $EXTRA; run plain; fi
done
echo "tiotest -t $THREADS -f $SIZE_MIB -r $ROPS on $DIR, $ROUNDS runs each, alternating; --profile $EXTRA at 999 Hz"
printf '%-14s %14s %14s %8s\n' phase "without MB/s" "with MB/s" ratio
for p in $PHASES; do
    a=$(median "$TMP/plain.$p") b=$(median "$TMP/profile.$p")
    r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", (a > 0 ? b / a : 0) }')
    printf '%-14s %14.1f %14.1f %8.3f\n' "$p" "$a" "$b" "$r"
    echo "$p $r" >> "$TMP/goal"
done
# the goal line (make bench's summary collects every script's): the lowest phase decides
echo
awk -v g="$GOAL" '{ if (NR == 1 || $2 < lo) { lo = $2; lp = $1 } }
    END { printf "goal: with --profile >= %s x without in every phase: %s (lowest %.3f, %s)\n", g,
          (lo >= g ? "met" : "MISSED"), lo, lp }' "$TMP/goal"
