#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1681: the per-phase reporter thread (core/sample.c) runs SCHED_BATCH (issue 25): its wake-ups,
# every 0.49 ms at a phase's start, must not preempt the threads it measures (io_uring at depth
# 8 on tmpfs lost 7-10 % of its rate to them). While a phase runs, one thread of the process is
# SCHED_BATCH (/proc/PID/task/TID/stat field 41 = 3) and the phase's worker is not; the run
# completes with its interval samples.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR"

# a random-read phase held for 3 s by the time limit, long enough to look at its threads
"$FSBENCH" tiotest -t 1 -f 4 -r 100000000 -k 0 -k 1 -k 2 --time-limit 3s -d "$DIR" \
    --json "$SCRATCH/r.json" > /dev/null 2> "$SCRATCH/err" &
pid=$!
batch=0 other=0
for _ in $(seq 100); do
    sleep 0.05
    for st in /proc/$pid/task/*/stat; do
        pol=$(sed 's/.*) //' "$st" 2>/dev/null | awk '{ print $39 }')
        case $pol in 3) batch=$((batch + 1)) ;; 0) other=$((other + 1)) ;; esac
    done
    [ $batch -gt 0 ] && [ $other -gt 1 ] && break
done
wait $pid || fail "tiotest: exit $?: $(cat "$SCRATCH/err")"
[ $batch -gt 0 ] || fail "no SCHED_BATCH thread seen while the phase ran ($other SCHED_OTHER)"
[ $other -gt 1 ] || fail "only $other SCHED_OTHER thread(s) seen: the workers must stay SCHED_OTHER"
jq -e '.phases[-1].stopped_by_time_limit and .phases[-1].ops > 0 and (.phases[-1].intervals | length) >= 2' \
    "$SCRATCH/r.json" > /dev/null || fail "run: $(jq -c '.phases[-1] | [.ops, .stopped_by_time_limit, (.intervals | length)]' "$SCRATCH/r.json")"
ok "the reporter thread runs SCHED_BATCH, the workers SCHED_OTHER; the run completes with its samples"
