#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (the spin direction check counts sleeping waits, which other tests' load makes likelier)
# t1690: --io_uring-spin=USEC (issue 25): before the io_uring engine sleeps for a completion it
# looks for one for up to USEC microseconds (io_uring_get_events, an enter that never waits).
# - bad values (not a number, above 1000, with psync) are one line and exit 2, nothing created;
# - the JSON's config.engine_spin_us is the spin used: the default without the option, the
#   value given with it; absent for psync;
# - the spin path is taken: strace of tiotest at depth 1 with -c, many reads: the io_uring_enter
#   calls that wait (min_complete >= 1) fall to less than half of those of the same run with
#   --io_uring-spin=0 (a direction with 2,000+ ops, never a time); every op is still in the
#   latency histogram once and the blocks read back right;
# - the other rings spin too and stay right: SQPOLL (the spin reads the CQ), and in the test
#   build COOP_TASKRUN and none (FSBENCH_URING_MISSING), at depths 1 and 8 with -c.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR"

refused() {   # refused RE ARGS...
    local re=$1 rc; shift
    fsb tiotest -d "$DIR" -t 1 -f 1 "$@" > out 2> err; rc=$?
    [ "$rc" = 2 ] || fail "tiotest $*: exit $rc, expected 2: $(cat err)"
    [ "$(wc -l < err)" = 1 ] && grep -Eq -- "$re" err || fail "tiotest $*: stderr: $(cat err)"
    [ -z "$(ls -A "$DIR")" ] || fail "tiotest $*: created $(ls -A "$DIR")"
}
refused "^fsbench tiotest: option --io_uring-spin: 'abc' is not a whole number$" --engine io_uring --io_uring-spin=abc
refused "^fsbench tiotest: option --io_uring-spin: 1001 is out of range \(0\.\.1000\)$" --engine io_uring --io_uring-spin=1001
refused "^fsbench tiotest: option --io_uring-spin: '-1' is not a whole number$" --engine io_uring --io_uring-spin=-1
refused "^fsbench tiotest: option --io_uring-spin applies to --engine io_uring only \(not psync\)$" --io_uring-spin=5
ok "bad --io_uring-spin values and --io_uring-spin with psync: one line, exit 2, nothing created"

fsb tiotest --engine io_uring -t 1 -f 1 -r 10 -d "$DIR" --json "$SCRATCH/def.json" > /dev/null 2> "$SCRATCH/err"; rc=$?
[ $rc = 3 ] && skip "io_uring cannot run here: $(cat "$SCRATCH/err") (the refusals passed)"
[ $rc = 0 ] || fail "io_uring default run: exit $rc: $(cat "$SCRATCH/err")"
def=$(jq -r '.config.engine_spin_us | numbers' "$SCRATCH/def.json")
[ -n "$def" ] && [ "$def" -le 1000 ] || fail "default run: engine_spin_us $(jq -c .config "$SCRATCH/def.json")"
fsb tiotest --engine io_uring --io_uring-spin=7 -t 1 -f 1 -r 10 -d "$DIR" --json "$SCRATCH/s7.json" > /dev/null 2>&1 ||
    fail "--io_uring-spin=7: exit $?"
[ "$(jq -r .config.engine_spin_us "$SCRATCH/s7.json")" = 7 ] || fail "--io_uring-spin=7: $(jq -c .config "$SCRATCH/s7.json")"
fsb tiotest -t 1 -f 1 -r 10 -d "$DIR" --json "$SCRATCH/ps.json" > /dev/null 2>&1 || fail "psync run: exit $?"
[ "$(jq -r '.config | has("engine_spin_us")' "$SCRATCH/ps.json")" = false ] || fail "psync has engine_spin_us"
ok "config.engine_spin_us: $def by default, 7 with --io_uring-spin=7, absent for psync"

need_cmd strace
# LeakSanitizer cannot run under ptrace: the sanitizer build is traced without it
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
for spin in 0 1000; do
    strace -f -e trace=io_uring_enter -o "$SCRATCH/st$spin" "$FSBENCH" tiotest --engine io_uring --iodepth 1 \
        --io_uring-spin=$spin -t 1 -f 2 -r 1000 -k 1 -c -d "$DIR" --json "$SCRATCH/j$spin.json" > /dev/null 2> "$SCRATCH/err" ||
        fail "spin $spin: exit $?: $(cat "$SCRATCH/err")"
    jq -e '.complete and [.phases[].ops] == [512, 512, 1000] and all(.phases[]; .latency.count == .ops)' \
        "$SCRATCH/j$spin.json" > /dev/null || fail "spin $spin: $(jq -c '[.phases[] | [.ops, .latency.count]]' "$SCRATCH/j$spin.json")"
    [ -z "$(ls -A "$DIR")" ] || fail "spin $spin: files left: $(ls -A "$DIR")"
    # io_uring_enter(fd, to_submit, min_complete, flags, ...): a wait asks for at least one
    eval "waits$spin=\$(grep -cE 'io_uring_enter\([0-9]+, [0-9]+, [1-9]' \"\$SCRATCH/st$spin\")"
done
# 2,024 requests at depth 1: without the spin nearly every one is waited for in the kernel
[ "$waits0" -ge 1000 ] || fail "spin 0: only $waits0 waiting enters for 2,024 requests: $(head -3 "$SCRATCH/st0")"
[ $((waits1000 * 2)) -lt "$waits0" ] || fail "spin 1000: $waits1000 waiting enters, spin 0: $waits0"
ok "depth 1, 2,024 reads: $waits0 waiting enters without the spin, $waits1000 with --io_uring-spin=1000"

# the other kinds of ring: complete and verified with the spin (SQPOLL: a read of the CQ)
spin_run() {   # spin_run NAME ARGS...
    local name=$1; shift
    "$FSBENCH" tiotest --engine io_uring --io_uring-spin=20 -t 2 -f 1 -r 300 -c -d "$DIR" \
        --json "$SCRATCH/$name.json" "$@" > /dev/null 2> "$SCRATCH/err" || fail "$name: exit $?: $(cat "$SCRATCH/err")"
    jq -e '.complete and .config.engine_spin_us == 20 and all(.phases[]; .latency.count == .ops)' \
        "$SCRATCH/$name.json" > /dev/null || fail "$name: $(jq -c '[.config.engine_setup, [.phases[] | [.ops, .latency.count]]]' "$SCRATCH/$name.json")"
    [ -z "$(ls -A "$DIR")" ] || fail "$name: files left: $(ls -A "$DIR")"
}
for depth in 1 8; do spin_run sqpoll$depth --io_uring-sqpoll --iodepth $depth; done
ok "--io_uring-sqpoll with the spin: complete, verified, every op in the histograms"
use_test_build  # FSBENCH_URING_MISSING (core/testhook.h)
for hide in DEFER_TASKRUN COOP_TASKRUN; do
    for depth in 1 8; do FSBENCH_URING_MISSING=$hide spin_run m$hide$depth --iodepth $depth; done
done
ok "rings without DEFER_TASKRUN (COOP_TASKRUN, none) with the spin: complete, verified"
