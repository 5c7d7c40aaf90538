#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1620: tiotest's queued path (--iodepth) end to end, through the hidden test engine testq
# (FSBENCH_TEST_ENGINES=1: requests queue at submit and run at reap time, in random order).
# - depths 1, 4 and 32 with -c: clean runs pass; ops and bytes per phase are the workload's;
#   the kernel's /proc/self/io agrees as in t1210 (wchar == bytes and syscw == ops exactly);
# - short transfers (FSBENCH_TESTQ_SHORT=3: every third transfer moves half) are finished in
#   the same op: -c passes, wchar == bytes, syscw counts the extra syscalls;
# - a flipped block is caught at depth 32 (file and offset named, exit 1, no files left);
# - a depth larger than the work; SIGINT with requests in flight: exit 130, no files left;
# - bad engine names and combinations: one line, exit 2, nothing created.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_queued.sh"
use_test_build  # its environment switches (core/testhook.h)
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR"
export FSBENCH_TEST_ENGINES=1
BS=4096

for depth in 1 4 32; do
    "$FSBENCH" tiotest --engine testq --iodepth $depth -t 2 -f 2 -r 300 -c -d "$DIR" --json "$SCRATCH/q$depth.json" \
        > "$SCRATCH/out" 2> "$SCRATCH/err" || fail "depth $depth: exit $?: $(cat "$SCRATCH/err")"
    [ -z "$(not_warnings "$SCRATCH/err")" ] || fail "depth $depth: stderr: $(cat "$SCRATCH/err")"
    grep -Eq '^\| Random Read +2 MBs \|' "$SCRATCH/out" || fail "depth $depth: rows: $(cat "$SCRATCH/out")"
    jq -e --argjson d $depth '.config.engine == "testq" and .config.iodepth == $d and .complete and
        [.phases[].ops] == [1024, 600, 1024, 600] and [.phases[].bytes] == [4194304, 2457600, 4194304, 2457600] and
        all(.phases[]; .latency.count == .ops)' "$SCRATCH/q$depth.json" > /dev/null ||
        fail "depth $depth: JSON: $(jq -c '[.config.engine, .config.iodepth, [.phases[] | [.ops, .bytes, .latency.count]]]' "$SCRATCH/q$depth.json")"
    # the kernel's count, as t1210 checks psync
    jq -e '.phases | all(if (.name | test("write")) then .proc_io.wchar == .bytes and .proc_io.syscw == .ops
        else .proc_io.rchar >= .bytes and .proc_io.rchar - .bytes <= 512 and .proc_io.syscr >= .ops and
             .proc_io.syscr - .ops <= 2 and .proc_io.wchar == 0 end)' "$SCRATCH/q$depth.json" > /dev/null ||
        fail "depth $depth: /proc/self/io: $(jq -c '.phases[] | {name, ops, bytes, proc_io}' "$SCRATCH/q$depth.json")"
    no_files "$DIR"
done
ok "depths 1, 4, 32 with -c: ops, bytes and /proc/self/io as at depth 1"

FSBENCH_TESTQ_SHORT=3 "$FSBENCH" tiotest --engine testq --iodepth 8 -t 2 -f 1 -r 200 -b 8192 -c -d "$DIR" \
    --json "$SCRATCH/short.json" > /dev/null 2> "$SCRATCH/err" || fail "short transfers: exit $?: $(cat "$SCRATCH/err")"
jq -e '[.phases[].ops] == [256, 400, 256, 400] and
       (.phases | all(if (.name | test("write")) then .proc_io.wchar == .bytes and .proc_io.syscw > .ops
                      else .proc_io.rchar >= .bytes and .proc_io.syscr > .ops end))' "$SCRATCH/short.json" > /dev/null ||
    fail "short transfers: $(jq -c '.phases[] | {name, ops, bytes, proc_io}' "$SCRATCH/short.json")"
no_files "$DIR"
ok "short transfers finished within the op (-c passes, extra syscalls, bytes exact)"

queued_cases testq

# bad names and combinations: exit 2, one line, nothing created
bad() {   # bad RE ARGS...
    local re=$1 rc; shift
    "$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" "$@" > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
    [ "$rc" = 2 ] || fail "$*: exit $rc, expected 2: $(cat "$SCRATCH/err")"
    [ "$(wc -l < "$SCRATCH/err")" = 1 ] && grep -Eq -- "$re" "$SCRATCH/err" || fail "$*: stderr: $(cat "$SCRATCH/err")"
    [ -z "$(ls -A "$DIR")" ] || fail "$*: created $(ls -A "$DIR")"
}
bad "unknown engine 'nope' \(known: psync, mmap, io_uring, testq\)" --engine nope
bad "iodepth 4: the psync engine is synchronous" --iodepth 4
bad "iodepth 2: the mmap engine is synchronous|mmap cannot run tiotest" --engine mmap --iodepth 2
bad "iodepth 2: the mmap engine is synchronous|mmap cannot run tiotest" -M --iodepth 2
bad "options -M and --engine psync contradict" -M --engine psync
bad "options -M and --engine testq contradict" --engine testq -M
bad "option --iodepth: 0 is out of range" --engine testq --iodepth 0
bad "option --iodepth: 4097 is out of range" --engine testq --iodepth 4097
bad "options -X and -M cannot be combined" --engine mmap -X
FSBENCH_TEST_ENGINES= bad "unknown engine 'testq' \(known: psync, mmap, io_uring\)" --engine testq
"$FSBENCH" tiotest -M --engine mmap -t 1 -f 1 -r 10 -T -d "$DIR" > /dev/null 2>&1 || fail "-M --engine mmap: exit $?"
no_files "$DIR"
ok "bad engines and combinations: exit 2"
