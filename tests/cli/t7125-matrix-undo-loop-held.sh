#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (its loop device, once detached, must not be taken by another test before --undo looks)
# t7125: --undo says "detached" only when the loop device is (issue 17). An experiment killed
# mid-run, its loop device then held open by another process: --undo unmounts, finds the device
# still attached after LOOP_CLR_FD, says so and exits 1. Once the holder lets go the kernel
# detaches it (autoclear) and --undo has nothing left to do there.
. "$(dirname "$0")/lib.sh"
need_matrix_ext4

wait_mounted() {
    local M=$1/manifest.json
    json_wait "$M" '[.undo[] | select(.kind == "mount" and .state == "done" and (.undone | not))] | length > 0' \
        300 0.05
}
r=$SCRATCH/r
"$FSBENCH" matrix --fs ext4 --repeat 200 --size 64 --max-other-cpu 100 --no-db -o "$r" \
    -- tiotest -t 1 -f 32 -r 500 > out 2> err &
pid=$!
wait_mounted "$r" || { kill -INT $pid; wait $pid; fail "never saw a mounted run: $(cat err)"; }
kill -KILL $pid
wait $pid 2> /dev/null
L=$(jq -r '.undo[] | select(.kind == "loop") | .device' "$r/manifest.json")
[ -b "$L" ] || fail "no loop device in the manifest: $L"
sleep 365d < "$L" &
holder=$!
trap 'kill $holder 2>/dev/null; wait $holder 2>/dev/null; _lib_cleanup' EXIT

fsb matrix --undo "$r" > /dev/null 2> uerr; rc=$?
[ $rc = 1 ] || fail "--undo with the loop device held: exit $rc, expected 1: $(cat uerr)"
grep -q "undo: mount .*: unmounted" uerr || fail "not unmounted: $(cat uerr)"
grep -q "undo: loop $L: left: still attached" uerr || fail "the held loop device: $(cat uerr)"
losetup "$L" 2> /dev/null | grep -q "$TMPDIR" || fail "$L is not attached, yet --undo said: $(grep "loop $L" uerr)"

kill $holder; wait $holder 2> /dev/null
for _ in $(seq 1 50); do losetup "$L" 2> /dev/null | grep -q "$TMPDIR" || break; nap 0.1; done
! losetup "$L" 2> /dev/null | grep -q "$TMPDIR" || fail "$L still attached after its holder went"
fsb matrix --undo "$r" > /dev/null 2> uerr || fail "second --undo: exit $?: $(cat uerr)"
grep -q "undo: loop $L: already detached" uerr || fail "second --undo: $(cat uerr)"
[ -z "$(ls -A "$TMPDIR")" ] || fail "left in the scratch parent: $(ls -A "$TMPDIR")"
ok "--undo checks that a loop device is detached, and says when it is not"
