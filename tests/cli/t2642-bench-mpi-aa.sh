#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/mpi.sh with AA=1 (issue 25): a third contender, the threaded process again (threads2),
# in the rotation; its ratio to the first goes through the goal's rule as an "A/A, not a goal"
# line, which bench/run.sh does not collect as a goal; the goal line stays as it was; a bad AA
# is refused before anything runs. Tiny sizes, 5 rounds (the least it takes): no timing bound.
. "$(dirname "$0")/lib.sh"
unsanitized_only
need_mpi
BENCH=$TESTS_DIR/../bench
mkdir "$SCRATCH/dir" "$SCRATCH/tmp"

AA=2 DIR=$SCRATCH/dir TMPDIR=$SCRATCH/tmp bash "$BENCH/mpi.sh" "$FSBENCH" >"$SCRATCH/out" 2>&1; rc=$?
[ $rc = 1 ] || fail "AA=2: exit $rc, not 1: $(cat "$SCRATCH/out")"
grep -qx 'bench/mpi.sh: AA must be 0 or 1' "$SCRATCH/out" || fail "AA=2: $(cat "$SCRATCH/out")"
! has_entries "$SCRATCH/dir" && ! has_entries "$SCRATCH/tmp" || fail "AA=2 left files behind: $(ls -A "$SCRATCH/dir" "$SCRATCH/tmp")"

ROUNDS=5 AA=1 NFILES=100 SIZE_MIB=1 ROPS=500 DIR=$SCRATCH/dir TMPDIR=$SCRATCH/tmp RAW=$SCRATCH/raw \
    bash "$BENCH/mpi.sh" "$FSBENCH" >"$SCRATCH/out" 2>&1; rc=$?
[ $rc = 0 ] || fail "AA=1: exit $rc: $(tail -5 "$SCRATCH/out")"
# five runs of each contender in each case
counts=$(awk '{ print $1 "/" $2 }' "$SCRATCH/raw" | sort | uniq -c | awk '{ print $2 "=" $1 }' | paste -sd' ')
[ "$counts" = "fs_mark/mpi=5 fs_mark/threads=5 fs_mark/threads2=5 tiotest/mpi=5 tiotest/threads=5 tiotest/threads2=5" ] ||
    fail "runs per case and contender: $counts"
# no contender always in the same place: threads2 runs first, second and last across rounds
for pos in 1 2 3; do
    awk -v p=$pos '$1 == "fs_mark" { k[$3]++; if (k[$3] == p && $2 == "threads2") hit = 1 } END { exit !hit }' \
        "$SCRATCH/raw" || fail "threads2 never ran in place $pos: $(grep fs_mark "$SCRATCH/raw")"
done
grep -Eq '^goal: 4 ranks >= 0\.95 x one process of 4 threads in both cases, round by round: undecided \(' \
    "$SCRATCH/out" || fail "the goal line: $(grep -E '^(goal|A/A)' "$SCRATCH/out")"
grep -Eq '^A/A, not a goal: threads2 \(the same process again\) >= 0\.95 x one process of 4 threads in both cases, round by round: undecided \(lowest median [0-9.]+, (fs_mark|tiotest), too few rounds to decide; 2 of 2 cases undecided\)$' \
    "$SCRATCH/out" || fail "the A/A line: $(grep -E '^(goal|A/A)' "$SCRATCH/out")"
grep -q 'the order rotating, with threads2 (A/A)' "$SCRATCH/out" || fail "the header: $(head -2 "$SCRATCH/out")"
! has_entries "$SCRATCH/dir" && ! has_entries "$SCRATCH/tmp" || fail "AA=1 left files behind: $(ls -A "$SCRATCH/dir" "$SCRATCH/tmp")"
ok "mpi.sh AA=1: threads2 in the rotation, its A/A line beside the goal line, nothing left"
