#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1670: the io_uring rings' setup flags in the JSON (issue 25). Each ring is made in the thread
# that drives it, with SINGLE_ISSUER|DEFER_TASKRUN where the kernel has them (6.1), else
# COOP_TASKRUN (5.19), else neither; config.engine_setup names the IORING_SETUP_* flags used.
# - tiotest (depths 1 and 8, -c), fs_mark (depth 8, -S 1) and mdtest through io_uring: the
#   run is complete and config.engine_setup is CQSIZE and the most the kernel has; psync has
#   no engine_setup;
# - the fallback, forced in the test build (FSBENCH_URING_MISSING, core/testhook.h):
#   DEFER_TASKRUN hidden: CQSIZE|COOP_TASKRUN; COOP_TASKRUN hidden (a kernel before 5.19, which
#   has neither): CQSIZE alone; every run still complete and right, and strace (when there)
#   shows the rings made with exactly those flags;
# - the rings' descriptors registered (IORING_REGISTER_RING_FDS, Linux 5.18): config.
#   engine_registered_ring is 1 on a kernel that has it (0 before 5.18); strace shows every
#   phase's worker register its ring and the main thread register none beyond the kernel
#   check's probe; hidden (FSBENCH_URING_MISSING=RING_FDS): 0, no registration, runs complete;
# - --io_uring-sqpoll: never DEFER_TASKRUN (SINGLE_ISSUER, COOP_TASKRUN or neither: what the
#   kernel takes with SQPOLL).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR"

"$FSBENCH" tiotest --engine io_uring -t 1 -f 1 -r 10 -d "$DIR" > /dev/null 2> "$SCRATCH/err"; rc=$?
[ $rc = 3 ] && skip "io_uring cannot run here: $(cat "$SCRATCH/err")"
[ $rc = 0 ] || fail "io_uring smoke run: exit $rc: $(cat "$SCRATCH/err")"

setup() { jq -r '.config.engine_setup // "absent" | if type == "array" then join("|") else . end' "$1"; }

tio() {   # tio NAME ARGS...: a checked tiotest run through io_uring
    local name=$1; shift
    "$FSBENCH" tiotest --engine io_uring -t 2 -f 2 -r 300 -c -d "$DIR" "$@" \
        --json "$SCRATCH/$name.json" > /dev/null 2> "$SCRATCH/err" || fail "$name ($*): exit $?: $(cat "$SCRATCH/err")"
    jq -e '.complete and [.phases[].ops] == [1024, 600, 1024, 600] and
        all(.phases[]; .latency.count == .ops)' "$SCRATCH/$name.json" > /dev/null ||
        fail "$name ($*): $(jq -c '[.phases[] | [.ops, .latency.count]]' "$SCRATCH/$name.json")"
    [ -z "$(ls -A "$DIR")" ] || fail "$name: files left: $(ls -A "$DIR")"
}

tio d1 --iodepth 1
tio d8 --iodepth 8
best=$(setup "$SCRATCH/d8.json")
case $best in
CQSIZE\|SINGLE_ISSUER\|DEFER_TASKRUN | CQSIZE\|COOP_TASKRUN | CQSIZE) ;;
*) fail "tiotest engine_setup: $best" ;;
esac
[ "$(setup "$SCRATCH/d1.json")" = "$best" ] || fail "depth 1: $(setup "$SCRATCH/d1.json"), depth 8: $best"

"$FSBENCH" fs_mark -d "$DIR/f" -l "$SCRATCH/log" -n 20 -s 8192 -t 2 -S 1 --engine io_uring --iodepth 8 \
    --json "$SCRATCH/fm.json" > /dev/null 2> "$SCRATCH/err" || fail "fs_mark: $(cat "$SCRATCH/err")"
jq -e '.iterations[0].files == 40' "$SCRATCH/fm.json" > /dev/null || fail "fs_mark: $(jq -c '.iterations[0]' "$SCRATCH/fm.json")"
[ "$(setup "$SCRATCH/fm.json")" = "$best" ] || fail "fs_mark engine_setup: $(setup "$SCRATCH/fm.json")"
"$FSBENCH" mdtest -n 10 -d "$DIR/m" --engine io_uring --json "$SCRATCH/md.json" > /dev/null 2> "$SCRATCH/err" ||
    fail "mdtest: $(cat "$SCRATCH/err")"
[ "$(setup "$SCRATCH/md.json")" = "$best" ] || fail "mdtest engine_setup: $(setup "$SCRATCH/md.json")"
"$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" --json "$SCRATCH/ps.json" > /dev/null 2>&1 || fail "psync run"
[ "$(setup "$SCRATCH/ps.json")" = absent ] || fail "psync has engine_setup: $(setup "$SCRATCH/ps.json")"
ok "tiotest, fs_mark, mdtest through io_uring: engine_setup $best; psync: none"

regring() { jq -r '.config.engine_registered_ring // "absent"' "$1"; }
IFS=. read -r kmaj kmin _ < /proc/sys/kernel/osrelease
want_rr=0
[ "$kmaj" -gt 5 ] || { [ "$kmaj" = 5 ] && [ "${kmin%%[!0-9]*}" -ge 18 ]; } && want_rr=1
for f in d1 d8 fm md; do
    [ "$(regring "$SCRATCH/$f.json")" = $want_rr ] || fail "$f: engine_registered_ring $(regring "$SCRATCH/$f.json"), expected $want_rr (kernel $kmaj.$kmin)"
done
[ "$(regring "$SCRATCH/ps.json")" = absent ] || fail "psync has engine_registered_ring: $(regring "$SCRATCH/ps.json")"
ok "engine_registered_ring $want_rr on Linux $kmaj.$kmin (tiotest, fs_mark, mdtest); psync: none"

"$FSBENCH" tiotest --engine io_uring --io_uring-sqpoll -t 1 -f 1 -r 10 -d "$DIR" --json "$SCRATCH/sq.json" \
    > /dev/null 2> "$SCRATCH/err" || fail "sqpoll: $(cat "$SCRATCH/err")"
case $(setup "$SCRATCH/sq.json") in
*DEFER_TASKRUN*) fail "SQPOLL with DEFER_TASKRUN: $(setup "$SCRATCH/sq.json")" ;;
CQSIZE\|SQPOLL\|SINGLE_ISSUER | CQSIZE\|SQPOLL\|COOP_TASKRUN | CQSIZE\|SQPOLL) ;;
*) fail "sqpoll engine_setup: $(setup "$SCRATCH/sq.json")" ;;
esac
ok "--io_uring-sqpoll: $(setup "$SCRATCH/sq.json")"

use_test_build  # its environment switches (core/testhook.h)
[ "$best" = CQSIZE ] && skip "this kernel has neither COOP_TASKRUN nor DEFER_TASKRUN: no fallback to force"
for hide in DEFER_TASKRUN COOP_TASKRUN; do
    case $hide in
    DEFER_TASKRUN) want='CQSIZE|COOP_TASKRUN' ;;
    COOP_TASKRUN) want=CQSIZE ;;
    esac
    [ "$best" = CQSIZE\|COOP_TASKRUN ] && [ $hide = DEFER_TASKRUN ] && continue
    FSBENCH_URING_MISSING=$hide tio m$hide --iodepth 8
    [ "$(setup "$SCRATCH/m$hide.json")" = "$want" ] || fail "$hide hidden: $(setup "$SCRATCH/m$hide.json"), expected $want"
    FSBENCH_URING_MISSING=$hide "$FSBENCH" fs_mark -d "$DIR/f" -l "$SCRATCH/log" -n 20 -s 8192 -t 2 -S 1 \
        --engine io_uring --iodepth 8 --json "$SCRATCH/fm$hide.json" > /dev/null 2> "$SCRATCH/err" ||
        fail "fs_mark, $hide hidden: $(cat "$SCRATCH/err")"
    [ "$(setup "$SCRATCH/fm$hide.json")" = "$want" ] || fail "fs_mark, $hide hidden: $(setup "$SCRATCH/fm$hide.json")"
    ok "$hide hidden: the rings fall back to $want, runs complete"
done

FSBENCH_URING_MISSING=RING_FDS tio mRING_FDS --iodepth 8
[ "$(regring "$SCRATCH/mRING_FDS.json")" = 0 ] || fail "RING_FDS hidden: engine_registered_ring $(regring "$SCRATCH/mRING_FDS.json")"
ok "RING_FDS hidden: engine_registered_ring 0, runs complete"

command -v strace > /dev/null || skip "no strace: the rings' flags not traced"
# LeakSanitizer cannot run under ptrace: the sanitizer build is traced without it
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
FSBENCH_URING_MISSING=COOP_TASKRUN strace -f -e trace=io_uring_setup -o "$SCRATCH/st" "$FSBENCH" tiotest \
    --engine io_uring --iodepth 8 -t 1 -f 1 -r 10 -d "$DIR" > /dev/null 2>&1 || fail "strace run failed"
n=$(grep -c 'io_uring_setup(64, {flags=IORING_SETUP_CQSIZE,' "$SCRATCH/st")
other=$(grep 'io_uring_setup(64, ' "$SCRATCH/st" | grep -vc 'flags=IORING_SETUP_CQSIZE,')
[ "$n" -ge 5 ] && [ "$other" = 0 ] || fail "COOP_TASKRUN hidden: $(grep io_uring_setup "$SCRATCH/st")"
ok "COOP_TASKRUN hidden: every ring made with CQSIZE alone (strace)"

# the registrations: tiotest -t 2 runs 4 phases of 2 workers, each worker registers the ring it
# made (offset -1: the first free slot of its own table), and the main thread only the kernel
# check's probe, which it unregisters at once
rr_trace() {   # rr_trace PREFIX [env...]: strace of io_uring_register around a 2-thread tiotest, a file per thread
    local out=$1; shift
    env "$@" strace -ff -e trace=io_uring_register -o "$out" "$FSBENCH" tiotest --engine io_uring \
        --iodepth 8 -t 2 -f 1 -r 10 -d "$DIR" > /dev/null 2>&1 || fail "strace run ($*) failed"
}
if [ $want_rr = 1 ]; then
    rr_trace "$SCRATCH/rr"
    files=("$SCRATCH"/rr.*)
    main=${files[0]}
    for f in "${files[@]}"; do [ "${f##*.}" -lt "${main##*.}" ] && main=$f; done
    nw=0 nm=0
    for f in "${files[@]}"; do
        n=$(grep -c 'IORING_REGISTER_RING_FDS, \[{offset=-1, .*) = 1$' "$f")
        if [ "$f" = "$main" ]; then nm=$n; else nw=$((nw + n)); fi
    done
    [ "$nw" = 8 ] && [ "$nm" = 1 ] ||
        fail "registered rings: $nw by workers (expected 8: 4 phases x 2), $nm by the main thread (expected 1, the probe): $(grep -H RING_FDS "${files[@]}")"
    ok "every phase's worker registers its ring's descriptor, the main thread only the probe (strace)"
fi
rr_trace "$SCRATCH/rr0" FSBENCH_URING_MISSING=RING_FDS
! grep -q 'IORING_REGISTER_RING_FDS' "$SCRATCH"/rr0.* || fail "RING_FDS hidden, still registered: $(grep -H RING_FDS "$SCRATCH"/rr0.*)"
ok "RING_FDS hidden: no ring descriptor registered (strace)"
