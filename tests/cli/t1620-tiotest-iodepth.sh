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

# the same offsets at every depth (the seed's): with -c every block says where it belongs and
# which write put it there, so after the random write the files are byte for byte the same
for depth in 1 32; do
    "$FSBENCH" tiotest --engine testq --iodepth $depth -t 2 -f 1 -r 100 -c -k 2 -k 3 --keep -d "$DIR" -T \
        > /dev/null 2> "$SCRATCH/err" || fail "--keep depth $depth: exit $?: $(cat "$SCRATCH/err")"
    cat "$DIR"/_tiotest_pid*.thr0 "$DIR"/_tiotest_pid*.thr1 | md5sum > "$SCRATCH/sum$depth"
    rm -f "$DIR"/_tiotest_pid*
done
cmp -s "$SCRATCH/sum1" "$SCRATCH/sum32" || fail "depth 1 and depth 32 wrote different blocks"
ok "the same blocks written at depth 1 and 32"

FSBENCH_TESTQ_SHORT=3 "$FSBENCH" tiotest --engine testq --iodepth 8 -t 2 -f 1 -r 200 -b 8192 -c -d "$DIR" \
    --json "$SCRATCH/short.json" > /dev/null 2> "$SCRATCH/err" || fail "short transfers: exit $?: $(cat "$SCRATCH/err")"
jq -e '[.phases[].ops] == [256, 400, 256, 400] and
       (.phases | all(if (.name | test("write")) then .proc_io.wchar == .bytes and .proc_io.syscw > .ops
                      else .proc_io.rchar >= .bytes and .proc_io.syscr > .ops end))' "$SCRATCH/short.json" > /dev/null ||
    fail "short transfers: $(jq -c '.phases[] | {name, ops, bytes, proc_io}' "$SCRATCH/short.json")"
no_files "$DIR"
ok "short transfers finished within the op (-c passes, extra syscalls, bytes exact)"

# a flipped byte in block 5 of thread 0's file, found by the read at depth 32
"$FSBENCH" tiotest --engine testq --iodepth 32 -t 2 -f 1 -r 200 -b $BS -c -d "$DIR" \
    --between-phases "[ \"\$FSBENCH_PHASE_NEXT\" = read ] || exit 0; set -- \$FSBENCH_FILES;
        printf '\\377' | dd of=\"\$1\" bs=1 seek=$((5 * BS + 2000)) conv=notrunc status=none" \
    > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "flipped block at depth 32: exit $rc, expected 1: $(cat "$SCRATCH/err")"
[ "$(not_warnings "$SCRATCH/err" | wc -l)" = 1 ] || fail "flipped block: expected one stderr line: $(cat "$SCRATCH/err")"
grep -Eq "verify '$DIR/_tiotest_pid[0-9]+\.thr0' at offset $((5 * BS))(:|,| ).*(checksum|corrupt)" "$SCRATCH/err" ||
    fail "flipped block: $(cat "$SCRATCH/err")"
grep -q '^Results incomplete: the run stopped during the Read phase\.$' "$SCRATCH/out" || fail "flipped block: no incomplete line"
no_files "$DIR"
ok "a flipped block is caught at depth 32"

# more depth than work: 16 blocks, 10 random ops, depth 1000
"$FSBENCH" tiotest --engine testq --iodepth 1000 -t 1 -f 1 -b 65536 -r 10 -c -d "$DIR" --json "$SCRATCH/big.json" \
    > /dev/null 2> "$SCRATCH/err" || fail "depth 1000: exit $?: $(cat "$SCRATCH/err")"
jq -e '[.phases[].ops] == [16, 10, 16, 10]' "$SCRATCH/big.json" > /dev/null || fail "depth 1000: ops"
no_files "$DIR"
ok "a depth larger than the work"

# SIGINT in an endless random write at depth 32: requests in flight are reaped, files removed
"$FSBENCH" tiotest --engine testq --iodepth 32 -t 2 -f 4 -r 1000000000 -k 2 -k 3 -d "$DIR" \
    > "$SCRATCH/out" 2> "$SCRATCH/err" &
pid=$!
for i in $(seq 100); do [ -n "$(ls -A "$DIR")" ] && break; sleep 0.05; done
sleep 1
kill -0 $pid 2> /dev/null || fail "SIGINT: the run ended before the signal: $(cat "$SCRATCH/err")"
kill -INT $pid
for i in $(seq 100); do kill -0 $pid 2> /dev/null || break; sleep 0.05; done
if kill -0 $pid 2> /dev/null; then kill -KILL $pid; fail "SIGINT: still running 5 s after the signal"; fi
wait $pid; rc=$?
[ "$rc" = 130 ] || fail "SIGINT at depth 32: exit $rc: $(cat "$SCRATCH/err")"
[ -z "$(ls -A "$DIR")" ] || fail "SIGINT: files left: $(ls -A "$DIR")"
[ "$(tail -1 "$SCRATCH/out")" = "Results incomplete: the run stopped during the Random Write phase." ] ||
    fail "SIGINT: last line: $(tail -1 "$SCRATCH/out")"
ok "SIGINT with requests in flight: exit 130, no files"

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
