#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (the sync after the run writes what the run left dirty: other tests' writeback
# would blur it)
# t3582: mdtest gets the after-window figures of issue 20 as tiotest and fs_mark do (t8210):
# a create-only run (-C) on a loop ext4 leaves its written files dirty; the sync after it is
# timed (after.sync_s > 0) and writes most of them (after.sync_mib), in --json and under
# --sysstats; the classic output has none of it; a matrix run records the unmount
# (after.umount_s) and its report shows both rows.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd losetup
need_cmd mkfs.ext4

LOOP=
cleanup() {
    mountpoint -q "$SCRATCH/m" && umount "$SCRATCH/m"
    [ -n "$LOOP" ] && losetup -d "$LOOP"
    _lib_cleanup
}
trap cleanup EXIT

truncate -s 512M "$SCRATCH/img"
LOOP=$(losetup --direct-io=on -f --show "$SCRATCH/img") || skip "losetup failed"
mkfs.ext4 -q -F "$LOOP" > /dev/null 2>&1 || fail "mkfs.ext4 $LOOP"
mkdir -p m
mount "$LOOP" m || fail "mount $LOOP"

# 1600 files x 64 KiB = 100 MiB written, none synced, none removed
fsb mdtest -n 1600 -F -C -w 65536 -d m/d --json r.json --sysstats > out 2> err || fail "mdtest: $(cat err)"
jq -e '.after.taken == true and .after.filesystems == 1 and .after.sync_s > 0 and .after.sync_ns > 0 and
       .after.sync_mib > 50' r.json > /dev/null ||
    fail "after figures: $(jq -c '.after | del(.kernel)' r.json)"
grep -q '^after: syncfs  *loop' out || fail "--sysstats: no row for the sync: $(cat out)"
grep -q '^After the run (outside every timed figure): syncfs of 1 filesystem [0-9.]* s, the devices wrote' out ||
    fail "--sysstats: no line for the sync: $(cat out)"
ok "mdtest: after.sync_s $(jq .after.sync_s r.json) s, after.sync_mib $(jq .after.sync_mib r.json) in --json and --sysstats"

rm -rf m/d
fsb mdtest -n 100 -F -w 4096 -d m/d > out2 2> err || fail "mdtest: $(cat err)"
! grep -qi 'syncfs\|after the run' out2 || fail "the classic output changed: $(cat out2)"
ok "the classic output is unchanged"

fsb matrix --fs ext4 --repeat 2 --size 256M --order sequential -o mx --no-db -- mdtest -n 200 -F -w 65536 \
    > mout 2>&1 || fail "matrix: $(cat mout)"
jq -e '[.runs[] | select(.warmup | not) | .umount_s > 0] | length == 2 and all' mx/manifest.json > /dev/null ||
    fail "manifest: $(jq -c '[.runs[] | {cell, umount_s}]' mx/manifest.json)"
jq -e '.after.sync_s > 0' mx/runs/*/run-1.json > /dev/null || fail "the run's after figures"
grep -q '^| unmount after the run | s | [0-9]' mx/report.md || fail "report: no unmount row: $(grep -i unmount mx/report.md)"
grep -q '^| sync after the run | s | [0-9]' mx/report.md || fail "report: no sync row: $(grep -i sync mx/report.md)"
ok "a matrix run of mdtest records after.umount_s and the report shows it and the sync"
