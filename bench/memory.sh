#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/memory.sh [FSBENCH]: peak RSS of fsbench tiotest with many ops vs few ops, and of an
# fs_mark fill of many iterations vs few.
# Goal (issue 2 §4): peak RSS with 10 million ops no more than 1 MiB above the peak with 100
# thousand ops, i.e. memory does not grow with the number of operations (histograms are fixed size,
# nothing is kept per op). Only the random write phase runs (-k 0 -k 2 -k 3), on a 4 MiB file on
# tmpfs; the peak RSS (ru_maxrss from wait4, via bench/maxrss.c) does not count the tmpfs pages.
# Goal (issue 25): the same +1 MiB for the length of a fill: fs_mark -D 16 -n 1000 -t 4 -s 0 -F
# -S 0 --sysstats --json --csv filling a tmpfs mounted with room for FILL_SMALL and for FILL_LARGE
# iterations of 4,000 files (nr_inodes; a fill by inodes takes seconds and no data pages); each
# iteration's record and its --sysstats rows go to unnamed spool files as it completes. The fill case needs root (to
# mount the tmpfs) and is skipped, said, without it.
# A report, not a test (tests/cli/t1900-memory-flat.sh and t1950-memory-flat-fill.sh are the
# tests): exits 0 whatever the numbers.
#
# Environment: SMALL (default 100000), LARGE (default 10000000), DIR (default /dev/shm),
# FILL_SMALL (default 3), FILL_LARGE (default 100; iterations), BUILD (default build),
# LIMIT_KIB (default 1024).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
SMALL=${SMALL:-100000}
LARGE=${LARGE:-10000000}
DIR=${DIR:-/dev/shm}
BUILD=${BUILD:-$ROOT/build}
LIMIT_KIB=${LIMIT_KIB:-1024}
FILL_SMALL=${FILL_SMALL:-3}
FILL_LARGE=${FILL_LARGE:-100}

die() { echo "bench/memory.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"
mkdir -p "$BUILD/bench"
MAXRSS=$BUILD/bench/maxrss
if [ ! -x "$MAXRSS" ] || [ "$ROOT/bench/maxrss.c" -nt "$MAXRSS" ]; then
    ${CC:-cc} -O2 -Wall -Wextra -o "$MAXRSS" "$ROOT/bench/maxrss.c" || die "cannot build $MAXRSS"
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-mem.XXXXXX")
trap 'umount "$TMP/mnt" 2>/dev/null; rm -rf "$TMP"' EXIT
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
goal_ops=$([ "$diff" -le "$LIMIT_KIB" ] && echo met || echo MISSED)
printf 'difference: %d KiB (limit %d KiB)\n' "$diff" "$LIMIT_KIB"

fill_peak() { # ITERATIONS: sets RSS to the peak RSS in KiB of a fill of that many iterations
    local t0 t1 n
    mkdir -p "$TMP/mnt"
    # 4,000 files an iteration; the directories (-D 16, the -d, the root) take the rest
    mount -t tmpfs -o "size=64m,nr_inodes=$(($1 * 4000 + 50)),mode=0700" fsbench-memory "$TMP/mnt" ||
        die "cannot mount a tmpfs on $TMP/mnt"
    t0=$(date +%s.%N)
    "$MAXRSS" "$TMP/rss" "$FSBENCH" fs_mark -d "$TMP/mnt/f" -D 16 -n 1000 -t 4 -s 0 -F -S 0 --sysstats \
        -l "$TMP/fill.log" --json "$TMP/fill.json" --csv "$TMP/fill.csv" >/dev/null 2>"$TMP/err" ||
        die "fsbench fs_mark -F ($1 iterations) failed: $(head -3 "$TMP/err")"
    t1=$(date +%s.%N)
    umount "$TMP/mnt" || die "cannot unmount $TMP/mnt"
    RSS=$(cat "$TMP/rss")
    n=$(grep -c '' "$TMP/fill.csv")
    echo "  fill of $1 iterations: $((n - 1)) rows in the CSV, JSON $(stat -c %s "$TMP/fill.json") bytes," \
        "peak RSS $RSS KiB ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
}

echo
if [ "$(id -u)" != 0 ]; then
    echo "fill: skipped (needs root to mount a tmpfs)"
    goal_fill=skipped
else
    echo "fill: $FSBENCH_SRC (copy) fs_mark -D 16 -n 1000 -t 4 -s 0 -F -S 0 --sysstats --json --csv on a tmpfs of N iterations' inodes"
    fill_peak "$FILL_SMALL"; fsmall=$RSS
    fill_peak "$FILL_LARGE"; flarge=$RSS
    fdiff=$((flarge - fsmall))
    echo
    printf '%-12s | %14s\n' "iterations" "peak RSS KiB"
    printf -- '-------------+---------------\n'
    printf '%12s | %14s\n' "$FILL_SMALL" "$fsmall" "$FILL_LARGE" "$flarge"
    printf 'difference: %d KiB (limit %d KiB)\n' "$fdiff" "$LIMIT_KIB"
    goal_fill=$([ "$fdiff" -le "$LIMIT_KIB" ] && echo met || echo MISSED)
fi
echo
echo "goal: peak RSS at $LARGE ops <= +$LIMIT_KIB KiB over $SMALL ops: $goal_ops"
echo "goal: peak RSS of a fill of $FILL_LARGE iterations <= +$LIMIT_KIB KiB over $FILL_SMALL: $goal_fill"
exit 0
