#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/uring.sh's own-time line (issue 25): bench/bare_uring.c ends each phase's line with the
# mean timed latency in ns under BARE_TIMED=1 ("-" without), of the order of the phase's time
# per request at depth 1 and never above it; fsbench's and the timed ring's raw lines carry it
# and uring.sh decides fsbench's own time per request at depth 1 from them (a goal line with
# both programs' own ns per request), only when depth 1 is among DEPTHS. Tiny sizes, 5 rounds:
# no timing bound, any load passes.
. "$(dirname "$0")/lib.sh"
unsanitized_only
need_cmd "${CC:-cc}"
need_cmd jq
[ -x "$FSBENCH" ] || skip "no fsbench binary at $FSBENCH"
ROOT=$TESTS_DIR/..
mkdir -p "$SCRATCH/build/bench" "$SCRATCH/d"
BARE=$SCRATCH/build/bench/bare_uring
${CC:-cc} -O2 -Wall -Wextra -Werror -o "$BARE" "$ROOT/bench/bare_uring.c" -luring -lpthread 2>"$SCRATCH/err" ||
    skip "cannot build bare_uring (liburing-dev): $(head -3 "$SCRATCH/err")"

# "name ops wall_ns ops_per_s cpu_ns flags latency": the latency a number only when timed, and
# at depth 1 (one request at a time) below the phase's wall time per request
"$BARE" "$SCRATCH/d" 2 4096 300 1 >"$SCRATCH/plain" 2>"$SCRATCH/err" || fail "bare_uring: $(cat "$SCRATCH/err")"
awk 'NF != 7 || $7 != "-" { bad = 1 } END { exit bad || NR != 2 }' "$SCRATCH/plain" ||
    fail "untimed bare_uring's lines: $(cat "$SCRATCH/plain")"
BARE_TIMED=1 "$BARE" "$SCRATCH/d" 2 4096 300 1 >"$SCRATCH/timed" 2>"$SCRATCH/err" ||
    fail "BARE_TIMED=1 bare_uring: $(cat "$SCRATCH/err")"
awk 'NF != 7 || !($7 > 0) || $7 >= $3 / $2 { bad = 1 } END { exit bad || NR != 2 }' "$SCRATCH/timed" ||
    fail "timed bare_uring's latency column (mean ns, below wall ns per request): $(cat "$SCRATCH/timed")"
! has_entries "$SCRATCH/d" || fail "bare_uring left files: $(ls -A "$SCRATCH/d")"
ok "bare_uring: the mean timed latency per request in its lines, '-' untimed"

ROUNDS=5 SIZE_MIB=2 ROPS=500 DEPTHS="1 8" DIR=$SCRATCH/d BUILD=$SCRATCH/build RAW=$SCRATCH/raw \
    "$ROOT/bench/uring.sh" "$FSBENCH" >"$SCRATCH/out" 2>&1; rc=$?
[ $rc = 0 ] || fail "uring.sh: exit $rc: $(tail -5 "$SCRATCH/out")"
awk '($1 == "fsbench" || $1 == "timed") && !($6 > 0) || ($1 == "bare" || $1 == "fio") && $6 != "-" { bad = 1 }
    END { exit bad }' "$SCRATCH/raw" || fail "uring.sh's raw latency column: $(cat "$SCRATCH/raw")"
grep -Eq "^goal: fsbench's own time per request at depth 1 \(outside the requests it times\) within 0\.95 x the timed bare ring, round by round: (met|MISSED|undecided) \(lowest median [0-9.]+( \[[0-9.]+, [0-9.]+\])?, (read|random_read)/1(, too few rounds to decide)?; [0-2] of 2 cases undecided; own ns per request, fsbench / timed ring: [0-9]+ / [0-9]+, [0-9]+ / [0-9]+\)$" \
    "$SCRATCH/out" || fail "the own-time line: $(grep -E '^goal' "$SCRATCH/out")"
! has_entries "$SCRATCH/d" || fail "uring.sh left files: $(ls -A "$SCRATCH/d")"
# without depth 1 there is no such line
ROUNDS=5 SIZE_MIB=2 ROPS=500 DEPTHS=8 TIMED=1 DIR=$SCRATCH/d BUILD=$SCRATCH/build \
    "$ROOT/bench/uring.sh" "$FSBENCH" >"$SCRATCH/out8" 2>&1; rc=$?
[ $rc = 0 ] || fail "uring.sh DEPTHS=8: exit $rc: $(tail -5 "$SCRATCH/out8")"
! grep -q "own time per request" "$SCRATCH/out8" || fail "DEPTHS=8 printed an own-time line"
ok "uring.sh: the own-time line at depth 1 from fsbench's and the timed ring's latencies"
