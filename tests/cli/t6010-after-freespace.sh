#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t6010: fsbench __after freespace DEVICE FSTYPE: free-space fragmentation from the
# filesystem's own tool, parsed into a histogram of free extent sizes. On images made by the
# test: e2freefrag (ext4) and xfs_db freesp (xfs), whose own totals the parsed result must
# match, with a histogram that adds up; btrfs and tmpfs: absent, with the reason (exit 0).
. "$(dirname "$0")/lib.sh"
need_cmd jq
need_cmd mkfs.ext4
need_cmd e2freefrag
need_cmd debugfs
cd "$SCRATCH" || fail "cd"

truncate -s 64M e.img && mkfs.ext4 -q -F e.img > /dev/null 2>&1 || fail "mkfs.ext4"
head -c 300000 /dev/zero > data
for i in 1 2 3 4 5 6; do debugfs -w -R "write $SCRATCH/data f$i" e.img > /dev/null 2>&1 || fail "debugfs write"; done
debugfs -w -R "rm f2" e.img > /dev/null 2>&1 && debugfs -w -R "rm f4" e.img > /dev/null 2>&1 || fail "debugfs rm"
fsb __after freespace e.img ext4 --json e.json > out 2> err || fail "ext4: exit $?: $(cat err) $(cat out)"
n=$(e2freefrag e.img | sed -n 's/^Num. free extent: //p')
free=$(e2freefrag e.img | sed -n 's/^Free blocks: \([0-9]*\).*/\1/p')
jq -e --argjson n "$n" --argjson free "$free" '.check == "freespace" and .absent == null and .tool == "e2freefrag"
       and .free_extents == $n and .free_bytes == $free * .block_bytes and .total_bytes == 64 * 1048576
       and ([.histogram[].extents] | add) == .free_extents and ([.histogram[].free_bytes] | add) == .free_bytes
       and all(.histogram[]; .min_bytes < .max_bytes) and .largest_free_extent_bytes > 0
       and .exit_status == 0 and .max_rss_kib > 0' e.json > /dev/null ||
    fail "ext4 JSON against e2freefrag ($n extents, $free blocks): $(cat e.json)"
grep -q "^freespace ext4 $SCRATCH/e.img: $n free extents" out || fail "ext4 text: $(cat out)"
ok "ext4: e2freefrag parsed, $n free extents in $(jq '.histogram | length' e.json) buckets"

need_cmd mkfs.xfs
need_cmd xfs_db
truncate -s 320M x.img && mkfs.xfs -q -f x.img > /dev/null 2>&1 || fail "mkfs.xfs"
fsb __after freespace x.img xfs --json x.json > out 2> err || fail "xfs: exit $?: $(cat err) $(cat out)"
n=$(xfs_db -r -c "freesp -s" x.img | sed -n 's/^total free extents //p')
jq -e --argjson n "$n" '.tool == "xfs_db" and .absent == null and .free_extents == $n and .block_bytes == 4096
       and ([.histogram[].extents] | add) == $n and ([.histogram[].free_bytes] | add) == .free_bytes
       and .largest_free_extent_bytes == null' x.json > /dev/null || fail "xfs JSON against xfs_db ($n): $(cat x.json)"
ok "xfs: xfs_db freesp parsed, $n free extents"

for fs in btrfs tmpfs; do
    fsb __after freespace "$SCRATCH/e.img" $fs --json a.json > out 2> err || fail "$fs: exit $?: $(cat err)"
    grep -q "^freespace $fs .*: absent: $fs has no free-space histogram tool" out || fail "$fs: $(cat out)"
    jq -e '.absent != null and .histogram == null and .free_extents == null and .tool == null' a.json > /dev/null ||
        fail "$fs JSON: $(cat a.json)"
done
ok "btrfs and tmpfs: absent, with the reason"
