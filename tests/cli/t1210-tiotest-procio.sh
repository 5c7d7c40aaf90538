#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1210: the bytes fsbench reports are the bytes the kernel accounted to the process
# (/proc/self/io deltas over each phase window, in the JSON next to ops/bytes), psync engine:
# - write phases: wchar == bytes and syscw == ops, exactly (nothing else writes in the window);
# - read phases: 0 <= rchar - bytes <= 512 and 0 <= syscr - ops <= 2.
#   Why that tolerance: the only other reads in the window are fsbench's own read of
#   /proc/self/io that opens it. The kernel adds a read's bytes to rchar after producing the
#   text, so the delta includes that first snapshot's text once: 7 "key: value" lines, at most
#   7 * (21 + 2 + 20 + 1) = 308 bytes, so <= 512; and two read() calls (the text, then end of
#   file), so syscr exceeds ops by at most 2. Any lost or double-counted block of bs >= 4096
#   bytes falls outside both bounds.
# The same bounds hold for rchar/syscr in write phases (where the bytes term is 0).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
[ -r /proc/self/io ] || skip "no /proc/self/io (kernel without task I/O accounting)"
DIR=$SCRATCH/d
mkdir -p "$DIR"

check() { # check NAME ARGS...
    local name=$1; shift
    "$FSBENCH" tiotest "$@" -d "$DIR" --json "$SCRATCH/$name.json" > /dev/null 2> "$SCRATCH/err" ||
        fail "$name: tiotest $*: exit $?: $(cat "$SCRATCH/err")"
    jq -e '.phases | length > 0 and all(.proc_io | (.rchar, .wchar, .syscr, .syscw) | type == "number")' \
        "$SCRATCH/$name.json" > /dev/null || fail "$name: proc_io missing: $(jq -c '[.phases[].proc_io]' "$SCRATCH/$name.json")"
    jq -e '.phases | all(
        if (.name | test("write")) then
            .proc_io.wchar == .bytes and .proc_io.syscw == .ops and
            .proc_io.rchar <= 512 and .proc_io.syscr <= 2
        else
            .proc_io.rchar >= .bytes and .proc_io.rchar - .bytes <= 512 and
            .proc_io.syscr >= .ops and .proc_io.syscr - .ops <= 2 and
            .proc_io.wchar == 0 and .proc_io.syscw == 0
        end)' "$SCRATCH/$name.json" > /dev/null ||
        fail "$name (tiotest $*): kernel accounting differs from reported bytes/ops:"$'\n'"$(jq -c '.phases[] | {name, ops, bytes, proc_io}' "$SCRATCH/$name.json")"
    no_files "$DIR"
}

check t1 -t 1 -f 4 -r 500
check t3 -t 3 -f 2 -r 300 -b 65536
check odd -t 2 -f 1 -r 200 -b 1000          # bs not a power of two, 1048 blocks
check W -t 2 -f 2 -r 100 -W
check S -t 2 -f 1 -r 100 -S
check k -t 2 -f 2 -r 100 -k 0 -k 2           # random phases only, on sparse files
ok "proc_io: wchar == bytes, syscw == ops; rchar - bytes in [0, 512], syscr - ops in [0, 2]"
