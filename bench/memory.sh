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
# Goal (issue 25, MPI): the same +1 MiB for every rank of fsbench-mpi (MPI_NP ranks, mpirun
# --oversubscribe --allow-run-as-root): fs_mark -n 8 -t 1 -s 0 -S 0 --sysstats --json --csv for
# MPI_SMALL and MPI_LARGE iterations (-L, files kept, on a tmpfs with inodes to spare: the same
# iterations on every rank and in every round, which -F's end at the first full rank is not),
# each rank's peak RSS; rank 0 (which merges and reports) and the others have a goal
# line each. Skipped, said, without root, fsbench-mpi or mpirun.
# A report, not a test (tests/cli/t1900-memory-flat.sh and t1950-memory-flat-fill.sh are the
# tests): exits 0 whatever the numbers.
#
# Environment: SMALL (default 100000), LARGE (default 10000000), DIR (default /dev/shm),
# FILL_SMALL (default 3), FILL_LARGE (default 100; iterations), BUILD (default build),
# LIMIT_KIB (default 1024), FSBENCH_MPI (default beside FSBENCH), MPI_NP (default 2),
# MPI_SMALL (default 100), MPI_LARGE (default 1000; iterations).
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
FSBENCH_MPI=${FSBENCH_MPI:-$(dirname "$FSBENCH")/fsbench-mpi}
MPI_NP=${MPI_NP:-2}
MPI_SMALL=${MPI_SMALL:-100}
MPI_LARGE=${MPI_LARGE:-1000}

die() { echo "bench/memory.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"
mkdir -p "$BUILD/bench"
MAXRSS=$BUILD/bench/maxrss
if [ ! -x "$MAXRSS" ] || [ "$ROOT/bench/maxrss.c" -nt "$MAXRSS" ]; then
    ${CC:-cc} -O2 -Wall -Wextra -o "$MAXRSS" "$ROOT/bench/maxrss.c" || die "cannot build $MAXRSS"
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-mem.XXXXXX")
# under set -e a failing command ends the trap too: the umount of a tmpfs already unmounted
# (every run that finished) must not keep the rm from running, nor make the exit status 32
trap 'umount "$TMP/mnt" 2>/dev/null || true; rm -rf "$TMP"' EXIT
# run a private copy: one binary for every round, even if the tree is rebuilt meanwhile
cp "$FSBENCH" "$TMP/fsbench" || die "cannot copy $FSBENCH"
[ -x "$FSBENCH_MPI" ] && { cp "$FSBENCH_MPI" "$TMP/fsbench-mpi" || die "cannot copy $FSBENCH_MPI"; }
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
# mpi_peak ITERATIONS: sets RSS to the ranks' peak RSS in KiB, rank 0 first
mpi_peak() {
    local t0 t1 r
    mkdir -p "$TMP/mnt"
    mount -t tmpfs -o "size=64m,nr_inodes=$(($1 * MPI_NP * 8 + 100)),mode=0700" fsbench-memory "$TMP/mnt" ||
        die "cannot mount a tmpfs on $TMP/mnt"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2016 # expanded by the rank's shell
    mpirun --oversubscribe --allow-run-as-root --bind-to none -np "$MPI_NP" \
        sh -c 'm=$0 o=$1; shift; exec "$m" "$o.$OMPI_COMM_WORLD_RANK" "$@"' "$MAXRSS" "$TMP/rss" \
        "$TMP/fsbench-mpi" fs_mark -d "$TMP/mnt/f" -n 8 -L "$1" -k -t 1 -s 0 -S 0 --sysstats \
        -l "$TMP/fill.log" --json "$TMP/fill.json" --csv "$TMP/fill.csv" < /dev/null > /dev/null 2> "$TMP/err" ||
        die "fsbench-mpi fs_mark ($1 iterations) failed: $(head -3 "$TMP/err")"
    t1=$(date +%s.%N)
    umount "$TMP/mnt" || die "cannot unmount $TMP/mnt"
    RSS=
    for r in $(seq 0 $((MPI_NP - 1))); do RSS="$RSS $(cat "$TMP/rss.$r")"; done
    echo "  $MPI_NP ranks, $1 iterations: $(($(grep -c '' "$TMP/fill.csv") - 1)) rows in the CSV," \
        "peak RSS by rank:$RSS KiB ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
}

echo
why=
[ "$(id -u)" = 0 ] || why="needs root to mount a tmpfs"
[ -n "$why" ] || [ -x "$FSBENCH_MPI" ] || why="no fsbench-mpi at $FSBENCH_MPI"
[ -n "$why" ] || command -v mpirun >/dev/null || why="no mpirun"
if [ -n "$why" ]; then
    echo "MPI fill: skipped ($why)"
    goal_mpi0="skipped ($why)" goal_mpi="skipped ($why)"
else
    echo "MPI fill: mpirun -np $MPI_NP $FSBENCH_MPI (copy) fs_mark -n 8 -L N -k -t 1 -s 0 -S 0 --sysstats --json --csv on a tmpfs, every rank's peak RSS"
    mpi_peak "$MPI_SMALL"; read -ra msmall <<< "$RSS"
    mpi_peak "$MPI_LARGE"; read -ra mlarge <<< "$RSS"
    echo
    printf '%-6s | %14s | %14s | %10s\n' "rank" "$MPI_SMALL it. KiB" "$MPI_LARGE it. KiB" "difference"
    printf -- '-------+----------------+----------------+-----------\n'
    worst=-999999
    for r in $(seq 0 $((MPI_NP - 1))); do
        d=$((mlarge[r] - msmall[r]))
        printf '%6s | %14s | %14s | %+10d\n' "$r" "${msmall[r]}" "${mlarge[r]}" "$d"
        [ "$r" = 0 ] && d0=$d
        [ "$r" != 0 ] && [ "$d" -gt "$worst" ] && worst=$d
    done
    goal_mpi0=$([ "$d0" -le "$LIMIT_KIB" ] && echo met || echo MISSED)
    goal_mpi=$([ "$worst" -le "$LIMIT_KIB" ] && echo met || echo MISSED)
fi
echo
echo "goal: peak RSS at $LARGE ops <= +$LIMIT_KIB KiB over $SMALL ops: $goal_ops"
echo "goal: peak RSS of a fill of $FILL_LARGE iterations <= +$LIMIT_KIB KiB over $FILL_SMALL: $goal_fill"
echo "goal: fsbench-mpi fill, rank 0's peak RSS at $MPI_LARGE iterations <= +$LIMIT_KIB KiB over $MPI_SMALL: $goal_mpi0"
echo "goal: fsbench-mpi fill, the other ranks' peak RSS at $MPI_LARGE iterations <= +$LIMIT_KIB KiB over $MPI_SMALL: $goal_mpi"
exit 0
