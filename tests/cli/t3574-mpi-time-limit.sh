#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3574: --time-limit under fsbench-mpi is the stonewall of every rank: 2 ranks of mdtest -u
# stop their creation at the limit, the job's phase is marked and its window is the limit,
# the later phases work on the items each rank made (job totals agree), nothing left behind;
# and fsbench-mpi's --stonewall marks the phase the same way.
# Not serial: its time bounds held in 4 runs of 4 beside 2 CPU hogs and the other t357x (load 12-19).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_mpi
D=$SCRATCH/d

mpi 2 mdtest -n 50000000 -F -u -d "$D" --time-limit 500ms --json a.json > a.out 2> err ||
    fail "exit $?: $(cat err)"
[ ! -e "$D" ] || fail "left $(find "$D" | head -3)"
grep -q '^File creation (iteration 1): stopped by time limit, [0-9]* items in 0\.[4-9][0-9]* s$' a.out ||
    fail "no mark in rank 0's text: $(cat a.out)"
jq -e '.tasks == 2 and (.iterations[0].file_create | .stopped_by_time_limit and .items > 0 and
       .wall_ns >= 490000000 and .wall_ns < 1000000000)' a.json > /dev/null ||
    fail "job's creation: $(jq -c '.iterations[0].file_create | del(.kernel)' a.json)"
jq -e '.iterations[0] | .file_create.items as $n | .file_stat | .items == $n or
       (.stopped_by_time_limit and .items < $n)' a.json > /dev/null ||
    fail "stat after the cut: $(jq -c '.iterations[0] | [.file_create.items, .file_stat.items]' a.json)"
ok "--time-limit: every rank's creation stopped at the limit, the job's phase marked"

mpi 2 mdtest -n 50000000 -F -u -d "$D" --stonewall 200ms --json b.json > b.out 2> err ||
    fail "--stonewall: exit $?: $(cat err)"
[ ! -e "$D" ] || fail "--stonewall: left $(find "$D" | head -3)"
jq -e '.iterations[0].file_create.stopped_by_time_limit' b.json > /dev/null ||
    fail "--stonewall: not marked: $(jq -c '.iterations[0].file_create | del(.kernel)' b.json)"
ok "--stonewall is the same limit"
