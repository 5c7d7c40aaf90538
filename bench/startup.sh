#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/startup.sh FSBENCH [OLD_FSBENCH]: the CPU one exec of fsbench costs before it does any
# work (the dynamic loader mapping and relocating its libraries, its constructors): `fsbench
# --version` and a tiny tiotest run (1 thread, 1 MiB on tmpfs, 20 random ops), next to
# /bin/true (a trivial dynamically linked program) and, given OLD_FSBENCH, the same two for
# it, alternating exec by exec. CPU per exec is the child's ru_utime + ru_stime from wait4()
# (cputime.c), so other tenants' load slows the wall clock but not this figure (much).
# EXECS (default 60 x ROUNDS, ROUNDS default 5) execs of each; the medians, in ms.
# The goal: fsbench --version costs at most GOAL (default 2) x /bin/true.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$HERE/..
BUILD=${BUILD:-$ROOT/build}
FSBENCH=${1:-$ROOT/fsbench}
OLD=${2:-}
EXECS=${EXECS:-$((60 * ${ROUNDS:-5}))}
GOAL=${GOAL:-2}
die() { echo "startup.sh: $*" >&2; exit 1; }

CPUTIME=$BUILD/bench/cputime
if [ ! -x "$CPUTIME" ] || [ "$HERE/cputime.c" -nt "$CPUTIME" ]; then
    mkdir -p "$BUILD/bench" && ${CC:-cc} -O2 -Wall -Wextra -o "$CPUTIME" "$HERE/cputime.c" ||
        die "cannot build $CPUTIME"
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-startup.XXXXXX") || die "mktemp"
dir=/dev/shm
[ -d "$dir" ] && [ -w "$dir" ] || dir=$TMP
D=$(mktemp -d "$dir/fsbench-startup.XXXXXX") || die "mktemp"
trap 'rm -rf "$TMP" "$D"' EXIT
# private copies: a rebuild during the run does not mix two versions
cp "$FSBENCH" "$TMP/new" || die "cannot copy $FSBENCH"
bins=new
if [ -n "$OLD" ]; then
    cp "$OLD" "$TMP/old" || die "cannot copy $OLD"
    bins="old new"
fi

one() { # NAME CMD...: one exec, its CPU in ms appended to TMP/NAME
    local name=$1
    shift
    "$CPUTIME" "$TMP/cpu" "$@" > /dev/null 2>&1 || die "$* failed"
    awk '{ printf "%.4f\n", ($1 + $2) * 1000 }' "$TMP/cpu" >> "$TMP/$name"
}
load0=$(cut -d' ' -f1 /proc/loadavg)
for ((i = 0; i < EXECS; i++)); do
    one true /bin/true
    for b in $bins; do
        one "$b-version" "$TMP/$b" --version
        one "$b-tiotest" "$TMP/$b" tiotest -t 1 -f 1 -r 20 -d "$D" --quiet
    done
done
load1=$(cut -d' ' -f1 /proc/loadavg)
median() { sort -g "$TMP/$1" | awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "CPU per exec (ms, median of $EXECS execs each, alternating; load $load0 before, $load1 after)"
printf '%-28s %8s\n' "/bin/true" "$(median true)"
for b in $bins; do
    printf '%-28s %8s\n' "$b --version" "$(median "$b-version")"
    printf '%-28s %8s\n' "$b tiotest (1 MiB, tmpfs)" "$(median "$b-tiotest")"
done
if [ -n "$OLD" ]; then
    awk -v o="$(median old-version)" -v n="$(median new-version)" \
        'BEGIN { printf "new - old, --version: %+.2f ms per exec\n", n - o }'
fi
awk -v v="$(median new-version)" -v t="$(median true)" -v g="$GOAL" 'BEGIN {
    printf "goal: --version at most %s x /bin/true: %s (%.2f x)\n", g, v <= g * t ? "met" : "MISSED", v / t }'
