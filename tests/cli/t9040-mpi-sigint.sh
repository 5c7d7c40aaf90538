#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (asserts how fast a timeout or a signal ends the run)
# SIGINT to mpirun in the middle of a job: every rank stops at its workers' next op, removes its
# files and sends what completed to rank 0, which reports it; exit non-zero. Open MPI's mpirun
# answers SIGINT with SIGCONT, SIGTERM odls_base_sigkill_timeout seconds later (1 by default),
# and SIGKILL as long after that: each rank has that long to stop and clean up. 1 s is enough
# for small runs but tight on a busy test machine, so the test sets 5 (fsbench(1), MPI, says
# so); fs_mark fsyncs each file (-S 1) so that the files made by then stay few.
. "$(dirname "$0")/lib.sh"
need_mpi
D=$SCRATCH/d
mkdir "$D"
MPIRUN_OPTS=(--mca odls_base_sigkill_timeout 5)

interrupt() {   # interrupt ARGS...: start a job, SIGINT mpirun once every rank has files
    local pid i r
    # mpirun itself in the background (not a function's subshell): it is what gets SIGINT
    mpirun --oversubscribe --allow-run-as-root "${MPIRUN_OPTS[@]}" -np 4 "$FSBENCH_MPI" "$@" \
        < /dev/null > out 2> err &
    pid=$!
    for i in $(seq 300); do
        for r in 0 1 2 3; do
            [ -n "$(ls -A "$D/rank.$r" 2>/dev/null)" ] || { sleep 0.1; continue 2; }
        done
        break
    done
    sleep 0.5
    kill -INT $pid
    wait $pid; rc=$?
}

# the status is mpirun's: after it forwards a SIGINT it exits 1 (Open MPI), whatever the ranks'
# 130 was
interrupt fs_mark -d "$D" -t 2 -n 1000000 -s 0 -S 1 -l log
[ $rc = 1 ] || fail "fs_mark: exit $rc after SIGINT, expected mpirun's 1"
grep -q '^fsbench-mpi fs_mark: interrupted; removing the files' err || fail "fs_mark: stderr: $(cat err)"
grep -q '^#.*Version 3\.3, 8 thread(s)' out || fail "fs_mark: no header: $(cat out)"
[ -z "$(ls -A "$D")" ] || fail "fs_mark: left: $(find "$D" | head)"

interrupt tiotest -t 2 -f 8 -r 100000000 -d "$D"
[ $rc = 1 ] || fail "tiotest: exit $rc after SIGINT, expected mpirun's 1"
grep -q '^Tiotest results for 8 concurrent io threads:' out || fail "tiotest: no tables: $(cat err)"
grep -q '^Results incomplete: the run stopped during' out || fail "tiotest: $(tail -2 out)"
[ -z "$(ls -A "$D")" ] || fail "tiotest: left: $(find "$D" | head)"
ok "SIGINT to mpirun: every rank cleans up, rank 0 reports what completed"
