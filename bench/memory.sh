#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/memory.sh [FSBENCH]: peak RSS of fsbench tiotest with many ops vs few ops.
# Goal (issue 2 §4): peak RSS with 10 million ops no more than 1 MiB above the peak with 100
# thousand ops, i.e. memory does not grow with the number of operations (histograms are fixed size,
# nothing is kept per op). Only the random write phase runs (-k 0 -k 2 -k 3), on a 4 MiB file on
# tmpfs; the peak RSS (ru_maxrss from wait4, via bench/maxrss.c) does not count the tmpfs pages.
# A report, not a test (tests/cli/t1900-memory-flat.sh is the test): exits 0 whatever the numbers.
#
# Environment: SMALL (default 100000), LARGE (default 10000000), DIR (default /dev/shm),
# BUILD (default build), LIMIT_KIB (default 1024).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
SMALL=${SMALL:-100000}
LARGE=${LARGE:-10000000}
DIR=${DIR:-/dev/shm}
BUILD=${BUILD:-$ROOT/build}
LIMIT_KIB=${LIMIT_KIB:-1024}

die() { echo "bench/memory.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"
mkdir -p "$BUILD/bench"
MAXRSS=$BUILD/bench/maxrss
if [ ! -x "$MAXRSS" ] || [ "$ROOT/bench/maxrss.c" -nt "$MAXRSS" ]; then
    ${CC:-cc} -O2 -Wall -Wextra -o "$MAXRSS" "$ROOT/bench/maxrss.c" || die "cannot build $MAXRSS"
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-mem.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# run a private copy: one binary for every round, even if the tree is rebuilt meanwhile
cp "$FSBENCH" "$TMP/fsbench" || die "cannot copy $FSBENCH"
FSBENCH_SRC=$FSBENCH FSBENCH=$TMP/fsbench

peak() { # OPS: sets RSS to the peak RSS in KiB of one run
    local t0 t1
    t0=$(date +%s.%N)
    "$MAXRSS" "$TMP/rss" "$FSBENCH" tiotest -t 1 -f 4 -k 0 -k 2 -k 3 -r "$1" -d "$DIR" \
        >/dev/null || die "fsbench tiotest -r $1 failed"
    t1=$(date +%s.%N)
    RSS=$(cat "$TMP/rss")
    echo "  -r $1: peak RSS $RSS KiB ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
}

echo "bench/memory.sh: $FSBENCH_SRC (copy) tiotest -t 1 -f 4 -k 0 -k 2 -k 3 -r N -d $DIR, peak RSS (ru_maxrss)"
peak "$SMALL"; small=$RSS
peak "$LARGE"; large=$RSS
diff=$((large - small))
echo
printf '%-12s | %14s\n' "random ops" "peak RSS KiB"
printf -- '-------------+---------------\n'
printf '%12s | %14s\n' "$SMALL" "$small" "$LARGE" "$large"
printf 'difference: %d KiB (limit %d KiB): %s\n' "$diff" "$LIMIT_KIB" \
    "$([ "$diff" -le "$LIMIT_KIB" ] && echo "GOAL MET" || echo "GOAL MISSED")"
exit 0
