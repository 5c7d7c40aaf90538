#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/fs_mark.sh [FSBENCH [BASELINE]]: fsbench fs_mark against a bare openat/write/close loop
# (bench/bare_create.c) and against Debian's fs_mark 3.3 when installed: one thread, -S 0,
# -s 0 and -s 4096, NFILES files, on tmpfs. The contenders run alternating, ROUNDS times each;
# prints per case the median files/sec of each and its ratio to the bare loop, and the median
# CPU time per file (user + system of the whole process, from wait4(): creating the files and
# removing them, in every contender) and its ratio to the bare loop's. CPU time is what the
# process ran, so a busy host's steal time and other tenants, which scatter the rates, hardly
# move it. BASELINE: a second fsbench binary (e.g. main's) in the same rotation.
# A report, not a test: exits 0 whatever the numbers (non-zero only when something fails to run).
#
# Environment: ROUNDS (default 21, at least 5), NFILES (default 20000), DIR (default /dev/shm),
# BUILD (default build), GOAL (minimum fsbench/bare ratio, default 0.95), RAW (file for the
# per-run numbers), TASKSET (e.g. "taskset -c 1" to pin every contender to one CPU).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
BASELINE=${2:-}
case $BASELINE in /*|"") ;; *) BASELINE=$PWD/$BASELINE ;; esac
ROUNDS=${ROUNDS:-21}
NFILES=${NFILES:-20000}
DIR=${DIR:-/dev/shm}
BUILD=${BUILD:-$ROOT/build}
GOAL=${GOAL:-0.95}
TASKSET=${TASKSET:-}

die() { echo "bench/fs_mark.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
[ -z "$BASELINE" ] || [ -x "$BASELINE" ] || die "no baseline binary at $BASELINE"
[ "$ROUNDS" -ge 5 ] 2>/dev/null || die "ROUNDS must be at least 5"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"
mkdir -p "$BUILD/bench"
BARE=$BUILD/bench/bare_create
if [ ! -x "$BARE" ] || [ "$ROOT/bench/bare_create.c" -nt "$BARE" ]; then
    ${CC:-cc} -O2 -Wall -Wextra -o "$BARE" "$ROOT/bench/bare_create.c" || die "cannot build $BARE"
fi
CPUTIME=$BUILD/bench/cputime
if [ ! -x "$CPUTIME" ] || [ "$ROOT/bench/cputime.c" -nt "$CPUTIME" ]; then
    ${CC:-cc} -O2 -Wall -Wextra -o "$CPUTIME" "$ROOT/bench/cputime.c" || die "cannot build $CPUTIME"
fi
FSMARK=$(command -v fs_mark || true)
case $FSMARK in "$ROOT"/*|"") FSMARK=/usr/bin/fs_mark ;; esac   # not an fsbench link
[ -x "$FSMARK" ] || FSMARK=

TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-bench.XXXXXX")
WORK=$(mktemp -d "$DIR/fsbench-bench-fsm.XXXXXX")
trap 'rm -rf "$TMP" "$WORK"' EXIT
# a private copy: one binary for every round, even if the tree is rebuilt meanwhile
cp "$FSBENCH" "$TMP/fsbench" || die "cannot copy $FSBENCH"
[ -n "$BASELINE" ] && { cp "$BASELINE" "$TMP/baseline" || die "cannot copy $BASELINE"; }
RAW_KEEP=${RAW:-}
RAW=${RAW:-$TMP/raw.txt}
: > "$RAW"

# logs stay off the filesystem under test, as in fs_mark.md §11
row_rate() { awk '/^FSUse%/ { getline; print $4 }'; }
run_one() {   # run_one CONTENDER SIZE -> "files/sec cpu_s_per_file"
    local rate
    case $1 in
    bare) rate=$($TASKSET "$CPUTIME" "$TMP/cpu" "$BARE" "$WORK/b" "$NFILES" "$2" | awk '{ print $2 }') ;;
    fsbench|baseline)
        rate=$($TASKSET "$CPUTIME" "$TMP/cpu" "$TMP/$1" fs_mark --quiet -d "$WORK/f" -n "$NFILES" -s "$2" -S 0 -t 1 \
               -l "$TMP/f.log" | row_rate) ;;
    fs_mark) rate=$($TASKSET "$CPUTIME" "$TMP/cpu" "$FSMARK" -d "$WORK/m" -n "$NFILES" -s "$2" -S 0 -t 1 \
               -l "$TMP/m.log" | row_rate)
             rm -rf "$WORK/m" ;;
    esac
    [ -n "$rate" ] && echo "$rate $(awk -v n="$NFILES" '{ print ($1 + $2) / n }' "$TMP/cpu")"
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.9g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

contenders="bare fsbench"
[ -n "$BASELINE" ] && contenders="$contenders baseline"
[ -n "$FSMARK" ] && contenders="$contenders fs_mark"
echo "fs_mark bench: $NFILES files, 1 thread, -S 0, on $DIR ($(df -T "$DIR" | awk 'NR == 2 { print $2 }')), $ROUNDS rounds alternating; $(nproc) CPUs, $(uname -r)"
[ -n "$FSMARK" ] || echo "(Debian's fs_mark is not installed: compared with the bare loop only)"
[ -n "$BASELINE" ] && echo "baseline: $BASELINE (copy), the same command as fsbench"
echo "medians; ×bare: ratio of medians (files/s: higher is better; CPU per file: lower is better)"
printf '\n| case | contender | files/s | ×bare | CPU us/file | CPU ×bare |\n|---|---|---:|---:|---:|---:|\n'
for size in 0 4096; do
    for r in $(seq 1 "$ROUNDS"); do
        # the order rotates from round to round, so no contender always follows the same one
        set -- $contenders
        n=$#
        for ((k = 0; k < n; k++)); do
            c=${@:$(((r + k) % n + 1)):1}
            v=$(run_one "$c" "$size") || die "$c -s $size failed"
            [ -n "$v" ] || die "$c -s $size printed no rate"
            echo "$size $c $r $v" >> "$RAW"
        done
    done
    declare -A med cpu
    for c in $contenders; do
        med[$c]=$(awk -v s="$size" -v c="$c" '$1 == s && $2 == c { print $4 }' "$RAW" | median)
        cpu[$c]=$(awk -v s="$size" -v c="$c" '$1 == s && $2 == c { print $5 }' "$RAW" | median)
    done
    for c in $contenders; do
        awk -v s="$size" -v c="$c" -v f="${med[$c]}" -v b="${med[bare]}" -v fc="${cpu[$c]}" -v bc="${cpu[bare]}" 'BEGIN {
            printf "| -s %s | %s | %.0f | %.3f | %.3f | %.3f |\n", s, c, f, f / b, fc * 1e6, (bc > 0 ? fc / bc : 0) }'
    done
    awk -v a="${med[fsbench]}" -v b="${med[bare]}" -v g="$GOAL" 'BEGIN { exit !(a / b < g) }' &&
        echo "  note: -s $size below the goal of ${GOAL}x the bare loop"
    echo "$size ${med[fsbench]} ${med[bare]}" >> "$TMP/goal"
done
# the goal line (make bench's summary collects every script's): the lower case decides
echo
awk -v g="$GOAL" '{ r = $2 / $3; if (NR == 1 || r < lo) { lo = r; lp = "-s " $1 } }
    END { printf "goal: fsbench >= %s x bare files/s at -s 0 and -s 4096: %s (lowest %.3f, %s)\n", g,
          (lo >= g ? "met" : "MISSED"), lo, lp }' "$TMP/goal"
if [ -n "$BASELINE" ]; then
    # the same round's runs side by side: what moves both (the host) cancels out
    echo
    echo "fsbench ÷ baseline, round by round (median and interquartile range of $ROUNDS ratios):"
    for size in 0 4096; do
        for k in 4 5; do
            awk -v s="$size" -v k="$k" '$1 == s && $2 == "fsbench" { f[$3] = $k } $1 == s && $2 == "baseline" { b[$3] = $k }
                END { for (r in f) if (r in b) print f[r] / b[r] }' "$RAW" | sort -g | awk '{ v[NR] = $1 }
                END { printf "%.3f (%.3f-%.3f)\n", v[int((NR + 1) / 2)], v[int(NR / 4) + 1], v[int(3 * NR / 4) + 1] }'
        done | paste -sd' ' | awk -v s="$size" '{ printf "  -s %-5s files/s %s   CPU/file %s\n", s, $1 " " $2, $3 " " $4 }'
    done
fi
[ -n "$RAW_KEEP" ] && echo "per-run numbers (size contender round files/s cpu_s_per_file): $RAW"
exit 0
