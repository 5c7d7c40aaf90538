#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (sets kernel.io_uring_disabled, which every io_uring run on the machine sees)
# t1630: tiotest through the io_uring engine (issue 12), next to psync.
# - tmpfs, depths 1, 8, 32 with -c (verification at completion): ops and bytes per phase as at
#   depth 1; /proc/self/io shows that the data went through the ring: no read or write system
#   call counted (syscw == wchar == 0; rchar and syscr only fsbench's own reads of /proc, which
#   include the io_wq figures: workers and their CPU per phase), while
#   psync at depth 1 has wchar == bytes and syscw == ops (t1210);
# - loop ext4 with -X (root): the storage side of /proc/self/io equals the totals exactly for
#   both engines, io_uring at depths 1, 8, 32 (read_bytes == bytes of a read phase, write_bytes
#   == bytes of a write phase: the direct I/O is accounted to the process, io-wq workers too);
# - a flipped block is caught at depth 32; a depth larger than the work; SIGINT with requests
#   in flight: exit 130, no file left;
# - an opcode this kernel lacks (FSBENCH_URING_MISSING, the probe's test hook), and io_uring
#   disabled (sysctl kernel.io_uring_disabled=2, root, restored on exit): one line naming what
#   is missing and the kernel that brings it, exit 3, nothing created.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_queued.sh"
use_test_build  # its environment switches (core/testhook.h)
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR"
BS=4096
SKIPPED=

"$FSBENCH" tiotest --engine io_uring -t 1 -f 1 -r 10 -d "$DIR" > /dev/null 2> "$SCRATCH/err"; rc=$?
[ $rc = 3 ] && skip "io_uring cannot run here: $(cat "$SCRATCH/err")"
[ $rc = 0 ] || fail "io_uring smoke run: exit $rc: $(cat "$SCRATCH/err")"

declare -A WANT_E WANT_D ROW
run() {   # run NAME ENGINE DEPTH DIR ARGS...
    local name=$1 e=$2 depth=$3 d=$4; shift 4
    "$FSBENCH" tiotest --engine "$e" --iodepth "$depth" -t 2 -f 2 -r 300 -c -d "$d" "$@" \
        --json "$SCRATCH/$name.json" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
        fail "$name: exit $?: $(cat "$SCRATCH/err")"
    [ -z "$(not_warnings "$SCRATCH/err")" ] || fail "$name: stderr: $(cat "$SCRATCH/err")"
    WANT_E[$name]=$e WANT_D[$name]=$depth
    no_files "$d"
}

# check_runs NAME...: what the runs' JSONs say, with one jq for them all (a jq a check was most
# of the test's CPU); checks what run() wants of each and leaves ROW[NAME] for the checks below:
# fields 3.. of a row are the conditions, in this order, true or false
#   3 psync's /proc/self/io   4 io_uring's   5 no io_wq   6 io_wq figures   7 -X's /proc/self/io
#   8 the device's diskstats
check_runs() {
    local n i=0 rows
    local -a files=() f
    for n in "$@"; do files+=("$SCRATCH/$n.json"); done
    mapfile -t rows < <(jq -r '[.config.engine, .config.iodepth,
        (try (.complete and
            [.phases[].ops] == [1024, 600, 1024, 600] and [.phases[].bytes] == [4194304, 2457600, 4194304, 2457600] and
            all(.phases[]; .latency.count == .ops)) catch false),
        (try (.phases | all(if (.name | test("write")) then .proc_io.wchar == .bytes and .proc_io.syscw == .ops
            else .proc_io.rchar >= .bytes and .proc_io.syscr >= .ops end)) catch false),
        (try (.phases | all(.proc_io.wchar == 0 and .proc_io.syscw == 0 and .proc_io.rchar <= 65536 and
            .proc_io.syscr <= 64)) catch false),
        (try (.phases | all(has("io_wq") | not)) catch false),
        (try (.phases | all((.io_wq.threads | type) == "number" and (.io_wq.cpu_s | type) == "number" and
            .io_wq.cpu_s >= 0)) catch false),
        (try (.phases | all(if (.name | test("write")) then .proc_io.write_bytes == .bytes and .proc_io.read_bytes == 0
            else .proc_io.read_bytes == .bytes and .proc_io.write_bytes == 0 end)) catch false),
        (try (.phases | all(. as $p | [$p.kernel.disks[] | select(.primary and .found)][0] as $d
            | if ($p.name | test("write")) then $d.write_bytes >= $p.bytes and
                  $d.write_bytes <= $p.bytes * 1.1 + 16777216
              else $d.read_bytes >= $p.bytes and $d.read_bytes <= $p.bytes + 4194304 end)) catch false)]
        | map(tostring) | join("\u001f")' "${files[@]}")
    [ "${#rows[@]}" = $# ] || fail "the runs' JSONs $*: ${rows[*]}"
    for n in "$@"; do
        ROW[$n]=${rows[i]}
        IFS=$US read -r -a f <<<"${rows[i]}"
        [ "${f[0]}" = "${WANT_E[$n]}" ] && [ "${f[1]}" = "${WANT_D[$n]}" ] && [ "${f[2]}" = true ] ||
            fail "$n: JSON: $(jq -c '[.config.engine, .config.iodepth, [.phases[] | [.ops, .bytes, .latency.count]]]' "$SCRATCH/$n.json")"
        i=$((i + 1))
    done
}
# is NAME FIELD: condition FIELD of run NAME (check_runs) holds
is() {
    local -a f
    IFS=$US read -r -a f <<<"${ROW[$1]}"
    [ "${f[$2]}" = true ]
}

run tmpfs-psync psync 1 "$DIR"
for depth in 1 8 32; do
    run tmpfs-uring$depth io_uring $depth "$DIR"
done
check_runs tmpfs-psync tmpfs-uring1 tmpfs-uring8 tmpfs-uring32
is tmpfs-psync 3 || fail "psync /proc/self/io: $(jq -c '.phases[] | {name, ops, bytes, proc_io}' "$SCRATCH/tmpfs-psync.json")"
for depth in 1 8 32; do
    # rchar/syscr: fsbench's own reads of /proc (the io_wq figures at each thread's end), far
    # below a phase's bytes and ops
    is tmpfs-uring$depth 4 ||
        fail "io_uring depth $depth /proc/self/io: $(jq -c '.phases[] | {name, ops, bytes, proc_io}' "$SCRATCH/tmpfs-uring$depth.json")"
done
is tmpfs-psync 5 || fail "psync has io_wq"
is tmpfs-uring32 6 || fail "io_wq: $(jq -c '[.phases[].io_wq]' "$SCRATCH/tmpfs-uring32.json")"
ok "tmpfs: psync depth 1, io_uring depths 1, 8, 32 with -c; no read/write syscalls through the ring; io_wq per phase"

# --sysstats: the io-wq table under the kernel view, for io_uring only
"$FSBENCH" tiotest --engine io_uring --iodepth 8 -t 1 -f 1 -r 100 -d "$DIR" --sysstats --quiet > "$SCRATCH/out" 2>&1 ||
    fail "--sysstats: $(cat "$SCRATCH/out")"
grep -q '^io-wq workers per phase' "$SCRATCH/out" && grep -Eq '^Random Read +[0-9]+ +[0-9]+\.[0-9]{2}$' "$SCRATCH/out" ||
    fail "--sysstats io-wq table: $(cat "$SCRATCH/out")"
"$FSBENCH" tiotest -t 1 -f 1 -r 100 -d "$DIR" --sysstats --quiet > "$SCRATCH/out" 2>&1 || fail "psync --sysstats"
! grep -q 'io-wq' "$SCRATCH/out" || fail "psync prints an io-wq table"
ok "--sysstats: io-wq workers per phase with io_uring, none with psync"

queued_cases io_uring

# cannot run here: exit 3, one line, nothing created
cannot() {   # cannot RE ARGS...
    local re=$1 rc; shift
    "$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" --engine io_uring "$@" > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
    [ "$rc" = 3 ] || fail "$*: exit $rc, expected 3: $(cat "$SCRATCH/err")"
    [ "$(wc -l < "$SCRATCH/err")" = 1 ] && grep -Eq -- "$re" "$SCRATCH/err" || fail "$*: stderr: $(cat "$SCRATCH/err")"
    [ -z "$(ls -A "$DIR")" ] || fail "$*: created $(ls -A "$DIR")"
}
FSBENCH_URING_MISSING=read cannot "io_uring engine needs IORING_OP_READ \(Linux 5\.6\); this kernel \(.*\) does not have it"
FSBENCH_URING_MISSING=write cannot "io_uring engine needs IORING_OP_WRITE \(Linux 5\.6\)" --iodepth 8
ok "an opcode this kernel lacks: exit 3, one line, nothing created"

if [ "$(id -u)" != 0 ]; then
    SKIPPED="$SKIPPED; loop ext4 -X and kernel.io_uring_disabled (need root)"
else
    if [ -w /proc/sys/kernel/io_uring_disabled ]; then
        old=$(cat /proc/sys/kernel/io_uring_disabled)
        trap 'echo "$old" > /proc/sys/kernel/io_uring_disabled; _lib_cleanup' EXIT
        echo 2 > /proc/sys/kernel/io_uring_disabled
        cannot "io_uring is disabled on this system \(sysctl kernel.io_uring_disabled = 2"
        cannot "io_uring is disabled on this system" --iodepth 32 -X
        echo "$old" > /proc/sys/kernel/io_uring_disabled
        trap _lib_cleanup EXIT
        ok "kernel.io_uring_disabled=2: exit 3, one line, nothing created"
    else
        SKIPPED="$SKIPPED; kernel.io_uring_disabled (no such sysctl on $(uname -r))"
    fi
    M=$(loop_fs ext4 300) || exit $?
    mkdir -p "$M/d"
    run ext4-psync psync 1 "$M/d" -X
    for depth in 1 8 32; do
        run ext4-uring$depth io_uring $depth "$M/d" -X
    done
    check_runs ext4-psync ext4-uring1 ext4-uring8 ext4-uring32
    for f in ext4-psync ext4-uring1 ext4-uring8 ext4-uring32; do
        is $f 7 || fail "$f: /proc/self/io: $(jq -c '.phases[] | {name, ops, bytes, proc_io}' "$SCRATCH/$f.json")"
    done
    ok "loop ext4 -X: psync depth 1, io_uring depths 1, 8, 32: read_bytes/write_bytes == bytes exactly"
    # the device's side (/proc/diskstats of the loop device over each phase): with O_DIRECT every
    # byte reaches it; the tolerance (fsbench(1), ENGINES) is what the filesystem adds on its
    # own: journal and metadata writes (10 % + 16 MiB), inode and extent reads (4 MiB)
    for f in ext4-psync ext4-uring1 ext4-uring8 ext4-uring32; do
        is $f 8 ||
            fail "$f: diskstats: $(jq -c '.phases[] | {name, bytes, d: [.kernel.disks[] | select(.primary) | {read_bytes, write_bytes}]}' "$SCRATCH/$f.json")"
    done
    ok "loop ext4 -X: the device's diskstats match the bytes moved within the tolerance"
fi
[ -z "$SKIPPED" ] || skip "${SKIPPED#; }"
