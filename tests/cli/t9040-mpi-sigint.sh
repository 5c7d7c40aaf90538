#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Not serial: beside load 24-37 the ranks ended within a 2 s grace, 5 s leaves room.
# SIGINT to mpirun in the middle of a job: every rank stops at its workers' next op, removes its
# files and sends what completed to rank 0, which reports it; exit non-zero. Open MPI's mpirun
# answers SIGINT with SIGCONT, SIGTERM odls_base_sigkill_timeout seconds later (1 by default),
# and SIGKILL as long after that: each rank has that long to stop and clean up. 1 s is enough
# for small runs but tight on a busy test machine, so the test sets 5 (fsbench(1), MPI, says
# so); fs_mark fsyncs each file (-S 1) so that the files made by then stay few.
. "$(dirname "$0")/lib.sh"
need_mpi
MPIRUN_OPTS=(--mca odls_base_sigkill_timeout 5)

# The two jobs run side by side and get their SIGINT together, so that one wait for mpirun's
# SIGTERM covers both (the test took 20 s with one wait each).
start() {   # start NAME ARGS...: a job in the background, its directory NAME.d, its output NAME.*
    local n=$1
    shift
    mkdir "$SCRATCH/$n.d"
    # mpirun itself in the background (not a function's subshell): it is what gets SIGINT
    mpirun --oversubscribe --allow-run-as-root "${MPIRUN_OPTS[@]}" -np 4 "$FSBENCH_MPI" "$@" \
        < /dev/null > "$n.out" 2> "$n.err" &
}

ready() {   # ready DIR: every rank has files (has_entries: no ls and subshell a look)
    local r
    for r in 0 1 2 3; do
        has_entries "$1/rank.$r" || return 1
    done
}

start fsm fs_mark -d "$SCRATCH/fsm.d" -t 2 -n 1000000 -s 0 -S 1 -l log
fsm=$!
start tio tiotest -t 2 -f 8 -r 100000000 -d "$SCRATCH/tio.d"
tio=$!
for ((i = 0; i < 300; i++)); do
    ready "$SCRATCH/fsm.d" && ready "$SCRATCH/tio.d" && break
    nap 0.1
done
sleep 0.5
kill -INT $fsm $tio
wait $fsm; rc_fsm=$?
wait $tio; rc_tio=$?

# the status is mpirun's: after it forwards a SIGINT it exits 1 (Open MPI), whatever the ranks'
# 130 was
[ $rc_fsm = 1 ] || fail "fs_mark: exit $rc_fsm after SIGINT, expected mpirun's 1"
grep -q '^fsbench-mpi fs_mark: interrupted; removing the files' fsm.err || fail "fs_mark: stderr: $(cat fsm.err)"
grep -q '^#.*Version 3\.3, 8 thread(s)' fsm.out || fail "fs_mark: no header: $(cat fsm.out)"
! has_entries "$SCRATCH/fsm.d" || fail "fs_mark: left: $(find "$SCRATCH/fsm.d" | head)"

[ $rc_tio = 1 ] || fail "tiotest: exit $rc_tio after SIGINT, expected mpirun's 1"
grep -q '^Tiotest results for 8 concurrent io threads:' tio.out || fail "tiotest: no tables: $(cat tio.err)"
grep -q '^Results incomplete: the run stopped during' tio.out || fail "tiotest: $(tail -2 tio.out)"
! has_entries "$SCRATCH/tio.d" || fail "tiotest: left: $(find "$SCRATCH/tio.d" | head)"
ok "SIGINT to mpirun: every rank cleans up, rank 0 reports what completed"
