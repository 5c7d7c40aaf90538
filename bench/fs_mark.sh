#!/usr/bin/env bash
# bench/fs_mark.sh [FSBENCH]: fsbench fs_mark against a bare openat/write/close loop
# (bench/bare_create.c) and against Debian's fs_mark 3.3 when installed: one thread, -S 0,
# -s 0 and -s 4096, NFILES files, on tmpfs. The contenders run alternating, ROUNDS times each;
# prints per case the median files/sec of each and the ratios to the bare loop.
# A report, not a test: exits 0 whatever the numbers (non-zero only when something fails to run).
#
# Environment: ROUNDS (default 9, at least 5), NFILES (default 20000), DIR (default /dev/shm),
# BUILD (default build), GOAL (minimum fsbench/bare ratio, default 0.95), RAW (file for the
# per-run numbers), TASKSET (e.g. "taskset -c 1" to pin every contender to one CPU).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
ROUNDS=${ROUNDS:-9}
NFILES=${NFILES:-20000}
DIR=${DIR:-/dev/shm}
BUILD=${BUILD:-$ROOT/build}
GOAL=${GOAL:-0.95}
TASKSET=${TASKSET:-}

die() { echo "bench/fs_mark.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
[ "$ROUNDS" -ge 5 ] 2>/dev/null || die "ROUNDS must be at least 5"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"
mkdir -p "$BUILD/bench"
BARE=$BUILD/bench/bare_create
if [ ! -x "$BARE" ] || [ "$ROOT/bench/bare_create.c" -nt "$BARE" ]; then
    ${CC:-cc} -O2 -Wall -Wextra -o "$BARE" "$ROOT/bench/bare_create.c" || die "cannot build $BARE"
fi
FSMARK=$(command -v fs_mark || true)
case $FSMARK in "$ROOT"/*|"") FSMARK=/usr/bin/fs_mark ;; esac   # not an fsbench link
[ -x "$FSMARK" ] || FSMARK=

TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-bench.XXXXXX")
WORK=$(mktemp -d "$DIR/fsbench-bench-fsm.XXXXXX")
trap 'rm -rf "$TMP" "$WORK"' EXIT
# a private copy: one binary for every round, even if the tree is rebuilt meanwhile
cp "$FSBENCH" "$TMP/fsbench" || die "cannot copy $FSBENCH"
RAW=${RAW:-$TMP/raw.txt}
: > "$RAW"

# logs stay off the filesystem under test, as in fs_mark.md §11
row_rate() { awk '/^FSUse%/ { getline; print $4 }'; }
run_one() {   # run_one CONTENDER SIZE -> files/sec
    case $1 in
    bare) $TASKSET "$BARE" "$WORK/b" "$NFILES" "$2" | awk '{ print $2 }' ;;
    fsbench) $TASKSET "$TMP/fsbench" fs_mark --quiet -d "$WORK/f" -n "$NFILES" -s "$2" -S 0 -t 1 -l "$TMP/f.log" | row_rate ;;
    fs_mark) $TASKSET "$FSMARK" -d "$WORK/m" -n "$NFILES" -s "$2" -S 0 -t 1 -l "$TMP/m.log" | row_rate
             rm -rf "$WORK/m" ;;
    esac
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

contenders="bare fsbench"
[ -n "$FSMARK" ] && contenders="$contenders fs_mark"
echo "fs_mark bench: $NFILES files, 1 thread, -S 0, on $DIR ($(df -T "$DIR" | awk 'NR == 2 { print $2 }')), $ROUNDS rounds alternating; $(nproc) CPUs, $(uname -r)"
[ -n "$FSMARK" ] || echo "(Debian's fs_mark is not installed: compared with the bare loop only)"
printf '\n| case | bare loop files/s | fsbench fs_mark files/s | fsbench / bare |'
[ -n "$FSMARK" ] && printf ' fs_mark 3.3 files/s | fs_mark / bare | fsbench / fs_mark |'
printf '\n|---|---|---|---|'
[ -n "$FSMARK" ] && printf -- '---|---|---|'
echo
for size in 0 4096; do
    for r in $(seq 1 "$ROUNDS"); do
        for c in $contenders; do
            v=$(run_one "$c" "$size") || die "$c -s $size failed"
            [ -n "$v" ] || die "$c -s $size printed no rate"
            echo "$size $c $r $v" >> "$RAW"
        done
    done
    declare -A med
    for c in $contenders; do
        med[$c]=$(awk -v s="$size" -v c="$c" '$1 == s && $2 == c { print $4 }' "$RAW" | median)
    done
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
    printf '| -s %s | %.0f | %.0f | %s× |' "$size" "${med[bare]}" "${med[fsbench]}" "$(ratio "${med[fsbench]}" "${med[bare]}")"
    [ -n "$FSMARK" ] && printf ' %.0f | %s× | %s× |' "${med[fs_mark]}" "$(ratio "${med[fs_mark]}" "${med[bare]}")" \
        "$(ratio "${med[fsbench]}" "${med[fs_mark]}")"
    echo
    awk -v a="${med[fsbench]}" -v b="${med[bare]}" -v g="$GOAL" 'BEGIN { exit !(a / b < g) }' &&
        echo "  note: -s $size below the goal of ${GOAL}x the bare loop"
done
echo
echo "per-run numbers: $RAW"
