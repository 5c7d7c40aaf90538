#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A rank killed (SIGKILL) in the middle of a job must not hang the others: rank 0 hears nothing
# from it for --mpi-timeout, stops the job naming it, the other ranks remove their files, rank
# 0 reports what it has and the job ends (MPI_Abort: a dead rank would hang MPI_Finalize),
# non-zero, well within the test's bound. mpirun is told not to end the job itself when a
# process dies (orte_abort_on_non_zero_status 0), as other launchers do not: fsbench-mpi's own
# timeout is what is tested.
. "$(dirname "$0")/lib.sh"
need_mpi
D=$SCRATCH/d
mkdir "$D"

mpirun --oversubscribe --allow-run-as-root --mca orte_abort_on_non_zero_status 0 -np 4 "$FSBENCH_MPI" \
    tiotest --mpi-timeout 3 -t 1 -f 8 -r 100000000 -d "$D" < /dev/null > out 2> err &
pid=$!
# (has_entries and nap: no ls, subshell or sleep a look)
for ((i = 0; i < 300; i++)); do
    has_entries "$D/rank.2" && victim=$(rank_pid $pid 2) && break
    nap 0.1
done
[ -n "${victim:-}" ] || { kill $pid; fail "rank 2 never started: $(cat err)"; }
sleep 1
kill -KILL "$victim"
start=$(date +%s)
# the bound: --mpi-timeout, the others' stop and cleanup, the report; a hang is caught here
for ((i = 0; i < 600; i++)); do
    kill -0 $pid 2>/dev/null || break
    nap 0.1
done
if kill -0 $pid 2>/dev/null; then
    kill -KILL $pid $(pgrep -P $pid) 2>/dev/null
    fail "the job still runs 60 s after rank 2 was killed: $(cat err)"
fi
wait $pid; rc=$?
took=$(( $(date +%s) - start ))
# mpirun's status: the dead rank's, 128 + SIGKILL
[ $rc = 137 ] || fail "exit $rc with a dead rank, expected 137"
grep -Eq '^fsbench-mpi tiotest: rank 2 on host [^ ]+ stopped responding: nothing heard from it for [0-9.]+ s \(--mpi-timeout\)' err ||
    fail "the dead rank is not named: $(grep '^fsbench-mpi' err)"
grep -q '^Tiotest results for 4 concurrent io threads:' out || fail "no report: $(cat out)"
grep -q '^fsbench-mpi tiotest: no result from ranks 2 (dead)' err || fail "missing rank: $(grep '^fsbench-mpi' err)"
# the survivors' directories are gone; the dead rank's files stay (nobody else knows them)
for r in 0 1 3; do
    [ ! -e "$D/rank.$r" ] || fail "rank $r left $(ls -A "$D/rank.$r")"
done
ok "a killed rank ends the job in ${took}s: named, the others clean up"
