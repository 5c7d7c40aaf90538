#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1640: the io_uring engine's options (issue 12).
# - --io_uring-sqpoll, --io_uring-fixed and both, tiotest at depths 1, 8, 32 with -c on tmpfs
#   (buffered and -X) and on loop ext4 -X (root, storage bytes exact as t1630): the same ops and
#   bytes, no read/write system call counted; fs_mark with --io_uring-sqpoll: the ring ops of -S 1;
# - --hipri where nothing polls (tmpfs, a loop device): one line, exit 3, nothing created;
#   --hipri without -X, with another engine, or for fs_mark: exit 2. The polled path itself needs
#   a device with poll queues (NVMe, nvme.poll_queues) that neither this machine nor CI has: no
#   test here claims it (issue 12 lists it as not tested).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
use_test_build  # its environment switches (core/testhook.h)
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR"
SKIPPED=

"$FSBENCH" tiotest --engine io_uring --io_uring-sqpoll -t 1 -f 1 -r 10 -d "$DIR" > /dev/null 2> "$SCRATCH/err"; rc=$?
[ $rc = 3 ] && skip "io_uring (SQPOLL) cannot run here: $(cat "$SCRATCH/err")"
[ $rc = 0 ] || fail "io_uring smoke run: exit $rc: $(cat "$SCRATCH/err")"

# run NAME DIR ARGS...: one run; its JSON is checked by checks, with the other runs', in one jq
# (a jq a run, ~50 ms of CPU each, was a tenth of the test)
RUNS=() RUN_ARGS=()
run() {
    local name=$1 d=$2; shift 2
    "$FSBENCH" tiotest --engine io_uring -t 2 -f 2 -r 300 -c -d "$d" "$@" \
        --json "$SCRATCH/$name.json" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
        fail "$name ($*): exit $?: $(cat "$SCRATCH/err")"
    # (an empty stderr needs no grep)
    [ ! -s "$SCRATCH/err" ] || [ -z "$(not_warnings "$SCRATCH/err")" ] || fail "$name: stderr: $(cat "$SCRATCH/err")"
    # (no grep either for a directory left empty)
    ! has_entries "$d" || no_files "$d"
    RUNS+=("$name") RUN_ARGS+=("$*")
}
# checks: every run so far did the same ops and bytes, each op timed, no read/write system call
checks() {
    local -a res
    local i
    mapfile -t res < <(cd "$SCRATCH" && jq '.complete and [.phases[].ops] == [1024, 600, 1024, 600] and
        [.phases[].bytes] == [4194304, 2457600, 4194304, 2457600] and
        all(.phases[]; .latency.count == .ops and .proc_io.wchar == 0 and .proc_io.syscw == 0)' \
        "${RUNS[@]/%/.json}" 2> /dev/null)
    for i in "${!RUNS[@]}"; do
        [ "${res[i]:-}" = true ] || fail "${RUNS[i]} (${RUN_ARGS[i]}): $(jq -c '[.phases[] |
            [.ops, .bytes, .latency.count, .proc_io.wchar, .proc_io.syscw]]' "$SCRATCH/${RUNS[i]}.json")"
    done
    RUNS=() RUN_ARGS=()
}

n=0
for o in --io_uring-sqpoll --io_uring-fixed "--io_uring-sqpoll --io_uring-fixed"; do
    for depth in 1 8 32; do
        # shellcheck disable=SC2086
        run t$n "$DIR" --iodepth $depth $o
        # shellcheck disable=SC2086
        run x$n "$DIR" --iodepth $depth $o -X
        n=$((n + 1))
    done
done
checks
ok "tmpfs: --io_uring-sqpoll, --io_uring-fixed and both at depths 1, 8, 32, buffered and -X, with -c"

"$FSBENCH" fs_mark -d "$DIR/f" -l "$SCRATCH/log" -n 20 -s 8192 -w 4096 -t 2 -S 1 --engine io_uring --iodepth 8 \
    --io_uring-sqpoll --json "$SCRATCH/fm.json" > /dev/null 2> "$SCRATCH/err" || fail "fs_mark sqpoll: $(cat "$SCRATCH/err")"
jq -e '.iterations[0].files == 40 and .iterations[0].ring_ops.create == {openat: 40, write: 80, fsync: 40, close: 40}' \
    "$SCRATCH/fm.json" > /dev/null || fail "fs_mark sqpoll: $(jq -c '.iterations[0].ring_ops' "$SCRATCH/fm.json")"
[ ! -e "$DIR/f" ] || fail "fs_mark sqpoll: files left"
ok "fs_mark --io_uring-sqpoll: -S 1 ring ops"

refused() {   # refused STATUS RE WORKLOAD ARGS...
    local want=$1 re=$2 w=$3 rc; shift 3
    local -a lines
    "$FSBENCH" "$w" -d "$DIR" "$@" > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
    [ "$rc" = "$want" ] || fail "$w $*: exit $rc, expected $want: $(cat "$SCRATCH/err")"
    # read by the shell, not by wc, grep and ls (=~ is grep -E's regular expression)
    mapfile -t lines < "$SCRATCH/err"
    [ "${#lines[@]}" = 1 ] && [[ ${lines[0]} =~ $re ]] || fail "$w $*: stderr: $(cat "$SCRATCH/err")"
    ! has_entries "$DIR" || fail "$w $*: created $(ls -A "$DIR")"
}
refused 3 "option --hipri: '.*' is on tmpfs, not on a block device" tiotest --engine io_uring --hipri -X -t 1 -f 1
refused 2 "option --hipri: polled completion is for O_DIRECT transfers \(add -X\)" tiotest --engine io_uring --hipri -t 1 -f 1
refused 2 "option --hipri applies to --engine io_uring only \(not psync\)" tiotest --hipri -X -t 1 -f 1
refused 2 "option --io_uring-sqpoll applies to --engine io_uring only" tiotest --io_uring-sqpoll -t 1 -f 1
FSBENCH_TEST_ENGINES=1 refused 2 "option --io_uring-fixed applies to --engine io_uring only \(not testq\)" tiotest --io_uring-fixed --engine testq -t 1 -f 1
refused 2 "option --hipri: polled completion is for O_DIRECT reads and writes, which fs_mark does not do" \
    fs_mark --engine io_uring --hipri -n 5
ok "--hipri where nothing polls: exit 3; misplaced options: exit 2"

if [ "$(id -u)" = 0 ]; then
    M=$(loop_fs ext4 300) || exit $?
    mkdir -p "$M/d"
    "$FSBENCH" tiotest --engine io_uring --hipri -X -d "$M/d" > /dev/null 2> "$SCRATCH/err"; rc=$?
    [ $rc = 3 ] && grep -Eq "option --hipri: device loop[0-9]+ does not support polled I/O" "$SCRATCH/err" ||
        fail "--hipri on a loop device: exit $rc: $(cat "$SCRATCH/err")"
    [ -z "$(ls -A "$M/d")" ] || fail "--hipri on a loop device: created $(ls -A "$M/d")"
    for depth in 1 32; do
        run e$depth "$M/d" --iodepth $depth -X --io_uring-sqpoll --io_uring-fixed
    done
    checks
    mapfile -t res < <(jq '.phases | all(if (.name | test("write")) then .proc_io.write_bytes == .bytes
            else .proc_io.read_bytes == .bytes end)' "$SCRATCH/e1.json" "$SCRATCH/e32.json" 2> /dev/null)
    for depth in 1 32; do
        [ "${res[0]:-}" = true ] ||
            fail "ext4 -X fixed sqpoll depth $depth: $(jq -c '.phases[] | {name, bytes, proc_io}' "$SCRATCH/e$depth.json")"
        res=("${res[@]:1}")
    done
    ok "loop ext4: --hipri refused (exit 3); -X --io_uring-sqpoll --io_uring-fixed at depths 1, 32: storage bytes exact"
else
    SKIPPED="loop ext4 (needs root)"
fi
# the rings are set up for the submitting thread to run their completions' task work: with
# SINGLE_ISSUER|DEFER_TASKRUN where the kernel has them (6.1), each made in the worker thread
# that drives it; else COOP_TASKRUN (5.19), as fio's. SQPOLL rings: never DEFER_TASKRUN (refused
# with SQPOLL), SINGLE_ISSUER where the kernel has it, else COOP_TASKRUN (which recent kernels
# refuse with SQPOLL), as the JSON says. strace before 6.1's names prints the flags in hex.
need_cmd strace
# LeakSanitizer cannot run under ptrace: the sanitizer build is traced without it
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
# one file per thread (-ff): no call split in two by another thread's
mkdir "$SCRATCH/ff"
strace -ff -e trace=io_uring_setup -o "$SCRATCH/ff/st" "$FSBENCH" tiotest --engine io_uring --iodepth 8 \
    -t 2 -f 1 -r 10 -d "$DIR" --json "$SCRATCH/st.json" > /dev/null 2>&1 || fail "strace run failed"
main=$(grep -l 'io_uring_setup(4, {flags=0,' "$SCRATCH"/ff/st.*) || fail "no probe ring in the main thread"
case $(jq -r '.config.engine_setup | join("|")' "$SCRATCH/st.json") in
CQSIZE\|SINGLE_ISSUER\|DEFER_TASKRUN) want='IORING_SETUP_CQSIZE\|(IORING_SETUP_SINGLE_ISSUER\|IORING_SETUP_DEFER_TASKRUN|0x3000)[,}]' ;;
CQSIZE\|COOP_TASKRUN) want='IORING_SETUP_CQSIZE\|IORING_SETUP_COOP_TASKRUN[,}]' ;;
*) fail "engine_setup: $(jq -c .config.engine_setup "$SCRATCH/st.json")" ;;
esac
# 4 phases x 2 threads, each ring made in the thread that drives it (not the main thread)
n=$(for f in "$SCRATCH"/ff/st.*; do [ "$f" = "$main" ] || cat "$f"; done | grep -cE "io_uring_setup\(64, \{flags=$want")
[ "$n" = 8 ] || fail "not 8 rings made in the workers with $want ($n): $(grep -h io_uring_setup "$SCRATCH"/ff/st.*)"
strace -f -e trace=io_uring_setup -o "$SCRATCH/st" "$FSBENCH" tiotest --engine io_uring --io_uring-sqpoll \
    -t 1 -f 1 -r 10 -d "$DIR" --json "$SCRATCH/sq.json" > /dev/null 2>&1 || fail "strace sqpoll run failed"
case $(jq -r '.config.engine_setup | join("|")' "$SCRATCH/sq.json") in
CQSIZE\|SQPOLL\|SINGLE_ISSUER) want='IORING_SETUP_SQPOLL\|IORING_SETUP_CQSIZE\|(IORING_SETUP_SINGLE_ISSUER|0x1000)[,}]' ;;
CQSIZE\|SQPOLL\|COOP_TASKRUN) want='IORING_SETUP_SQPOLL\|IORING_SETUP_CQSIZE\|IORING_SETUP_COOP_TASKRUN[,}]' ;;
CQSIZE\|SQPOLL) want='IORING_SETUP_SQPOLL\|IORING_SETUP_CQSIZE[,}]' ;;
*) fail "SQPOLL engine_setup: $(jq -c .config.engine_setup "$SCRATCH/sq.json")" ;;
esac
n=$(grep -cE "io_uring_setup\(64, \{flags=$want" "$SCRATCH/st")
[ "$n" -ge 5 ] || fail "the SQPOLL rings ($want): $(grep io_uring_setup "$SCRATCH/st")"
ok "rings made in their workers with the task-run flags the JSON names (SQPOLL too)"
[ -z "$SKIPPED" ] || skip "$SKIPPED"
