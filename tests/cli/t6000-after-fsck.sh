#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t6000: fsbench __after fsck DEVICE FSTYPE, the read-only checker the matrix runs after a cell,
# on filesystem images made by the test (no mount needed). A clean ext4: verdict clean, exit 0,
# the checker's exit status, CPU and peak RSS in the JSON. The same image with one file's link
# count cleared (debugfs -w): e2fsck's non-zero exit and its own message, reported first, exit 1.
# xfs_repair -n and btrfs check --readonly run on fresh images. tmpfs: absent, with the reason.
# As root: a mounted device is refused (exit 3), nothing run. No timing assertions.
. "$(dirname "$0")/lib.sh"
need_cmd jq
need_cmd mkfs.ext4
need_cmd debugfs
need_cmd e2fsck
cd "$SCRATCH" || fail "cd"

truncate -s 64M e.img && mkfs.ext4 -q -F e.img > /dev/null 2>&1 || fail "mkfs.ext4"
echo "some data" > data
debugfs -w -R "write $SCRATCH/data f" e.img > /dev/null 2>&1 || fail "debugfs write"
fsb __after fsck e.img ext4 --json clean.json > out 2> err || fail "clean ext4: exit $?: $(cat err) $(cat out)"
[ "$(head -1 out)" = "fsck ext4 $SCRATCH/e.img: clean (e2fsck exit 0)" ] || fail "clean ext4: $(cat out)"
jq -e '.check == "fsck" and .verdict == "clean" and .finding == false and .tool == "e2fsck"
       and (.command | test("/e2fsck -f -n .*/e\\.img$")) and .exit_status == 0 and .signal == null
       and .wall_ns > 0 and .max_rss_kib > 0 and .cpu_usr_s != null and .messages == []' clean.json > /dev/null ||
    fail "clean ext4 JSON: $(cat clean.json)"
ok "ext4: clean"

cp e.img bad.img
debugfs -w -R "sif /f links_count 0" bad.img > /dev/null 2>&1 || fail "debugfs sif"
ino=$(debugfs -R "stat /f" e.img 2> /dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
fsb __after fsck bad.img ext4 --json bad.json > out 2> err; rc=$?
[ $rc = 1 ] || fail "corrupt ext4: exit $rc, expected 1: $(cat err) $(cat out)"
[ "$(head -1 out)" = "fsck ext4 $SCRATCH/bad.img: ERRORS FOUND by e2fsck (exit 4)" ] || fail "corrupt ext4: $(cat out)"
grep -q "^  | .*inode $ino" out || fail "corrupt ext4: no message naming inode $ino: $(cat out)"
jq -e --arg ino "$ino" '.verdict == "errors" and .finding == true and .exit_status == 4
       and (.messages | length) > 0 and .message_lines >= (.messages | length)
       and any(.messages[]; test("inode " + $ino)) and all(.messages[]; test("^Pass [0-9]") | not)' bad.json > /dev/null ||
    fail "corrupt ext4 JSON: $(cat bad.json)"
ok "ext4 with a cleared link count: e2fsck exit 4 and its messages ($(jq '.message_lines' bad.json) lines)"

need_cmd mkfs.xfs
need_cmd xfs_repair
truncate -s 320M x.img && mkfs.xfs -q -f x.img > /dev/null 2>&1 || fail "mkfs.xfs"
fsb __after fsck x.img xfs --json x.json > out 2> err || fail "xfs: exit $?: $(cat err) $(cat out)"
jq -e '.verdict == "clean" and .tool == "xfs_repair" and (.command | test("xfs_repair -n -f .*/x\\.img$"))
       and .exit_status == 0' x.json > /dev/null || fail "xfs JSON: $(cat x.json)"
ok "xfs: xfs_repair -n runs, clean"

need_cmd mkfs.btrfs
need_cmd btrfs
truncate -s 256M b.img && mkfs.btrfs -q -f b.img > /dev/null 2>&1 || fail "mkfs.btrfs"
fsb __after fsck b.img btrfs --json b.json > out 2> err || fail "btrfs: exit $?: $(cat err) $(cat out)"
jq -e '.verdict == "clean" and .tool == "btrfs" and (.command | test("btrfs check --readonly "))
       and .exit_status == 0' b.json > /dev/null || fail "btrfs JSON: $(cat b.json)"
ok "btrfs: btrfs check --readonly runs, clean"

fsb __after fsck tmpfs tmpfs --json t.json > out 2> err || fail "tmpfs: exit $?"
grep -q '^fsck tmpfs tmpfs: absent: tmpfs has no checker' out || fail "tmpfs: $(cat out)"
jq -e '.verdict == "absent" and .finding == false and (.reason | test("no checker")) and .exit_status == null
       and .wall_ns == null' t.json > /dev/null || fail "tmpfs JSON: $(cat t.json)"
expect_exit 2 fsb __after fsck "$SCRATCH/none.img" ext4 2> err
grep -q "cannot use" err || fail "missing device: $(cat err)"
expect_exit 2 fsb __after fsck e.img 2> /dev/null
expect_exit 2 fsb __after repair e.img ext4 2> /dev/null
ok "tmpfs: absent with the reason; bad operands: exit 2"

need_root
loop_fs ext4 64 > mnt || exit $?
DEV=$(findmnt -n -o SOURCE "$(cat mnt)")
fsb __after fsck "$DEV" ext4 > out 2> err; rc=$?
[ $rc = 3 ] && grep -q "mounted or in use" err || fail "mounted $DEV: exit $rc: $(cat err) $(cat out)"
ok "a mounted device: refused, nothing run (exit 3)"
