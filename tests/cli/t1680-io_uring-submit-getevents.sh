#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1680: the io_uring engine submits with IORING_ENTER_GETEVENTS and min_complete 0, as fio
# does (issue 25): with DEFER_TASKRUN a request that finished while the submitting thread was in
# user space is posted only when the thread enters with GETEVENTS, so a plain submit left it for
# a second enter (the reap's wait) on every batch. strace shows:
# - tiotest through io_uring at depths 8 and 1 (-c): every io_uring_enter that submits
#   (to_submit > 0) asks for events and waits for none (min_complete 0); the run is complete,
#   every op counted once in the latency histogram, the blocks read back right.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
need_cmd strace
# LeakSanitizer cannot run under ptrace: the sanitizer build is traced without it
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
DIR=$SCRATCH/d
mkdir -p "$DIR"

"$FSBENCH" tiotest --engine io_uring -t 1 -f 1 -r 10 -d "$DIR" > /dev/null 2> "$SCRATCH/err"; rc=$?
[ $rc = 3 ] && skip "io_uring cannot run here: $(cat "$SCRATCH/err")"
[ $rc = 0 ] || fail "io_uring smoke run: exit $rc: $(cat "$SCRATCH/err")"

for depth in 8 1; do
    strace -f -e trace=io_uring_enter -o "$SCRATCH/st$depth" "$FSBENCH" tiotest --engine io_uring \
        --iodepth $depth -t 1 -f 1 -r 200 -c -d "$DIR" --json "$SCRATCH/d$depth.json" > /dev/null 2> "$SCRATCH/err" ||
        fail "depth $depth: exit $?: $(cat "$SCRATCH/err")"
    jq -e '.complete and [.phases[].ops] == [256, 200, 256, 200] and all(.phases[]; .latency.count == .ops)' \
        "$SCRATCH/d$depth.json" > /dev/null ||
        fail "depth $depth: $(jq -c '[.phases[] | [.ops, .latency.count]]' "$SCRATCH/d$depth.json")"
    [ -z "$(ls -A "$DIR")" ] || fail "depth $depth: files left: $(ls -A "$DIR")"
    # io_uring_enter(fd, to_submit, min_complete, flags, ...); fd: the ring's registered index
    # where the kernel takes it (engine_registered_ring, t1670), with REGISTERED_RING in flags
    sub=$(grep -cE 'io_uring_enter\([0-9]+, [1-9][0-9]*, ' "$SCRATCH/st$depth")
    [ "$sub" -ge 10 ] || fail "depth $depth: $sub submitting io_uring_enter calls: $(head -5 "$SCRATCH/st$depth")"
    bad=$(grep -E 'io_uring_enter\([0-9]+, [1-9][0-9]*, ' "$SCRATCH/st$depth" |
        grep -vE 'io_uring_enter\([0-9]+, [1-9][0-9]*, 0, IORING_ENTER_GETEVENTS(\|IORING_ENTER_REGISTERED_RING)?,' | head -3)
    [ -z "$bad" ] || fail "depth $depth: a submitting enter without GETEVENTS or waiting: $bad"
    ok "depth $depth: $sub submitting enters, each with GETEVENTS and min_complete 0; run complete, verified"
done
