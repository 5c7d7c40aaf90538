#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/mdtest.sh [FSBENCH]: fsbench mdtest against mdtest built from IOR's source, one task,
# -n NITEMS -F on DIR (tmpfs by default), alternating ROUNDS times; prints per operation the
# median rate of each (their SUMMARY rate Mean) and the ratio fsbench/mdtest (goal: >= 1.0),
# and the CPU time per item of each process (user + system over the four phases, a -n 1 run's
# subtracted: mdtest's MPI start-up), which a loaded machine blurs far less than the rates.
# mdtest is built under BUILD/bench/ior-src from IOR_SRC (a checkout of github.com/hpc/ior;
# default BUILD/bench/ior-src itself, e.g. unpacked with `git archive` of a clone) when mpicc is
# there; without the source or mpicc the script says so and exits 0. A report, not a test.
#
# Environment: ROUNDS (default 7), NITEMS (default 20000), DIR (default /dev/shm), BUILD
# (default build), IOR_SRC.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
ROUNDS=${ROUNDS:-7}
NITEMS=${NITEMS:-20000}
DIR=${DIR:-/dev/shm}
BUILD=${BUILD:-$ROOT/build}
SRC=$BUILD/bench/ior-src
IOR_SRC=${IOR_SRC:-$SRC}

die() { echo "bench/mdtest.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"
MDTEST=$SRC/src/mdtest
if [ ! -x "$MDTEST" ]; then
    if ! command -v mpicc > /dev/null || [ ! -f "$IOR_SRC/src/mdtest.c" ]; then
        echo "bench/mdtest.sh: skipped: needs mpicc and IOR's source in IOR_SRC ($IOR_SRC)"
        echo "goal: fsbench >= 1.0 x mdtest on every file operation: skipped (no mpicc or no IOR source)"
        exit 0
    fi
    mkdir -p "$SRC"
    [ "$IOR_SRC" = "$SRC" ] || cp -a "$IOR_SRC/." "$SRC/"
    (cd "$SRC" && ./bootstrap && ./configure --quiet && make -C src mdtest) > "$BUILD/bench/ior-build.log" 2>&1 ||
        die "cannot build mdtest (see $BUILD/bench/ior-build.log)"
fi
T=$(mktemp -d "$DIR/fsbench-bench-mdtest.XXXXXX")
trap 'rm -rf "$T"' EXIT
OPS=("File creation" "File stat" "File read" "File removal")
# one run: the four Mean values, tab-separated
mean_of() { awk -v op="$1" 'index($0, "   " op " ") == 1 { print $(NF - 1) }' "$2"; }
# one run of WHO with N items into $T/out; its CPU seconds (user + system) on stdout
run() {
    local TIMEFORMAT='%3U %3S' t
    if [ "$1" = mdtest ]; then
        t=$({ time "$MDTEST" -n "$2" -F -d "$T/d" < /dev/null > "$T/out" 2>&1; } 2>&1) ||
            die "mdtest failed: $(tail -3 "$T/out")"
    else
        t=$({ time "$FSBENCH" mdtest -n "$2" -F -d "$T/d" --quiet > "$T/out" 2>&1; } 2>&1) ||
            die "fsbench failed: $(tail -3 "$T/out")"
    fi
    rm -rf "$T/d"
    echo "$t" | awk '{ print $1 + $2 }'
}
for r in $(seq 1 "$ROUNDS"); do
    for who in mdtest fsbench; do
        base=$(run $who 1)
        cpu=$(run $who "$NITEMS")
        for i in "${!OPS[@]}"; do
            echo "$who $i $(mean_of "${OPS[$i]}" "$T/out")" >> "$T/raw"
        done
        echo "$who cpu $(awk -v a="$cpu" -v b="$base" -v n="$NITEMS" 'BEGIN { print (a - b) * 1e6 / (4 * n) }')" >> "$T/raw"
    done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-16s %14s %14s %8s\n' "mdtest -n $NITEMS -F" "mdtest ops/s" "fsbench ops/s" "ratio"
low= lowop=
for i in "${!OPS[@]}"; do
    a=$(awk -v i="$i" '$1 == "mdtest" && $2 == i { print $3 }' "$T/raw" | median)
    b=$(awk -v i="$i" '$1 == "fsbench" && $2 == i { print $3 }' "$T/raw" | median)
    ratio=$(echo "$b $a" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')
    printf '%-16s %14.1f %14.1f %8.3f\n' "${OPS[$i]}" "$a" "$b" "$ratio"
    if [ -z "$low" ] || awk -v a="$ratio" -v b="$low" 'BEGIN { exit !(a < b) }'; then
        low=$ratio lowop=${OPS[$i]}
    fi
done
a=$(awk '$1 == "mdtest" && $2 == "cpu" { print $3 }' "$T/raw" | median)
b=$(awk '$1 == "fsbench" && $2 == "cpu" { print $3 }' "$T/raw" | median)
printf '%-16s %14.2f %14.2f %8.3f\n' "CPU us/item" "$a" "$b" "$(echo "$a $b" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')"
echo "($ROUNDS alternating rounds on $DIR, one task; medians of mdtest's SUMMARY rate Mean; CPU per"
echo " item: the process's user + system time over the 4 phases, a -n 1 run's subtracted; its ratio"
echo " is mdtest/fsbench, so above 1.0 fsbench spends less)"
awk -v r="$low" -v op="$lowop" 'BEGIN { printf "goal: fsbench >= 1.0 x mdtest on every file operation: %s (lowest %.3f, %s)\n",
                                          (r >= 1.0 ? "met" : "MISSED"), r, op }'
