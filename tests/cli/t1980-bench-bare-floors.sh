#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/bare_tiotest.c, the floor of bench/tiotest.sh (issue 25): built as the bench builds it
# (linked with fsbench's src/core/clock.c), it times each op with fsbench's latency clock and
# names that clock on its first line; FSBENCH_CLOCK_MONOTONIC=1 forces clock_gettime as in
# fsbench; BARE_UNTIMED=1 reads no clock per op (the absolute floor) and says "none". The ops'
# latencies add up to no more than their phase's wall time. No timing bound: any load passes.
. "$(dirname "$0")/lib.sh"
need_cmd "${CC:-cc}"
ROOT=$TESTS_DIR/..
BARE=$SCRATCH/bare_tiotest
# the build line of bench/tiotest.sh and bench/tiotest_breakdown.sh
grep -qF '${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -iquote "$ROOT/src" -Wall -Wextra -o "$BARE" $BARE_SRC' \
    "$ROOT/bench/tiotest.sh" || fail "bench/tiotest.sh builds the bare loop another way"
# make check's build of it (Makefile BENCH_HELPERS, the same line with -Werror: that build is
# this check) when newer than its sources, else built here, warning-free
bare_tiotest_to "$BARE"
mkdir "$SCRATCH/d"

check() {   # check LABEL CLOCK_PATTERN TIMED(0|1) [ENV...]
    local label=$1 pat=$2 timed=$3; shift 3
    env "$@" "$BARE" "$SCRATCH/d" 4 4096 2000 >"$SCRATCH/out" 2>"$SCRATCH/err"; rc=$?
    [ $rc = 0 ] || fail "$label: exit $rc: $(cat "$SCRATCH/err")"
    ! has_entries "$SCRATCH/d" || fail "$label: left files behind: $(ls -A "$SCRATCH/d")"
    local first=
    read -r first < "$SCRATCH/out"
    [[ $first =~ ^latency_clock\ ($pat)$ ]] || fail "$label: first line '$first', not latency_clock $pat"
    awk -v t="$timed" 'NR == 1 { next }
        { n++; names = names " " $1 }
        NF != 6 || $2 != ($1 ~ /random/ ? 2000 : 1024) || $3 <= 0 || $5 <= 0 { bad = 1 }
        t == 1 && ($6 <= 0 || $6 > $3) { bad = 1 }
        t == 0 && $6 != 0 { bad = 1 }
        END { exit !(n == 4 && names == " write random_write read random_read" && !bad) }' \
        "$SCRATCH/out" || fail "$label: phase lines do not fit: $(cat "$SCRATCH/out")"
}
check "timed" "tsc|clock_monotonic" 1 PATH="$PATH"
check "FSBENCH_CLOCK_MONOTONIC=1" "clock_monotonic" 1 FSBENCH_CLOCK_MONOTONIC=1
check "BARE_UNTIMED=1" "none" 0 BARE_UNTIMED=1
ok "bare_tiotest: each op timed with fsbench's latency clock, named; untimed: none"
