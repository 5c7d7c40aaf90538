#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (compares a loop device's writes seen from outside with fsbench's sync window;
# other tests' load would stretch the sync and blur the dirty memory it reports)
# t8210: what a run leaves behind, timed (issue 20). A -S 0 fs_mark run on a loop ext4 leaves
# its data dirty; the sync after the run (outside the timed window) writes it: after.sync_mib
# is most of the data and within 10 % of what the device wrote outside the timed windows
# (/sys/block/LOOP/stat around the whole command minus the iterations' diskstats). The figures
# are in --json, --sysstats shows the sync, the output without --sysstats has none of it.
# A matrix run records the unmount of each run's filesystem: after.umount_s > 0, in the report.
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

truncate -s 1G "$SCRATCH/img"
# direct I/O: the loop device's writes go to the image file, not into the page cache again
LOOP=$(losetup --direct-io=on -f --show "$SCRATCH/img") || skip "losetup failed"
mkfs.ext4 -q -F "$LOOP" > /dev/null 2>&1 || fail "mkfs.ext4 $LOOP"
mkdir -p m
mount "$LOOP" m || fail "mount $LOOP"
dev=${LOOP#/dev/}
wr_sectors() { awk '{ print $7 }' "/sys/block/$dev/stat"; }

# 2 threads x 1000 files x 128 KiB = 250 MiB, no sync: far below the writeback thresholds
data_mib=250
s0=$(wr_sectors)
fsb fs_mark -d m/d -n 1000 -s 131072 -t 2 -S 0 -k --quiet --json r.json --sysstats > out 2> err ||
    fail "fs_mark: $(cat err)"
s1=$(wr_sectors)
jq -e '.after.taken == true and .after.filesystems == 1 and (.after.sync_s > 0) and (.after.sync_ns > 0)' r.json \
    > /dev/null || fail "no sync after the run: $(jq -c '.after | del(.kernel)' r.json)"
sync_mib=$(jq '.after.sync_mib' r.json)
window_mib=$(jq '[.iterations[].kernel.disks[] | select(.primary) | .write_bytes] | add / 1048576' r.json)
outside_mib=$(awk -v a="$s0" -v b="$s1" -v w="$window_mib" 'BEGIN { print (b - a) * 512 / 1048576 - w }')
dirty_mib=$(jq '(.after.memory.dirty_bytes_before + .after.memory.writeback_bytes_before) / 1048576' r.json)
echo "sync: $sync_mib MiB; device outside the windows: $outside_mib MiB; dirty before: $dirty_mib MiB (system-wide)"
awk -v d="$dirty_mib" -v n="$data_mib" 'BEGIN { exit !(d >= 0.5 * n) }' ||
    fail "the run left $dirty_mib MiB dirty, expected most of $data_mib MiB"
awk -v s="$sync_mib" -v n="$data_mib" 'BEGIN { exit !(s >= 0.5 * n) }' ||
    fail "after.sync_mib $sync_mib: the sync wrote less than half of the $data_mib MiB left dirty"
awk -v s="$sync_mib" -v o="$outside_mib" 'BEGIN { d = s - o; if (d < 0) d = -d; exit !(o > 0 && d <= 0.1 * o) }' ||
    fail "after.sync_mib $sync_mib is not within 10 % of the $outside_mib MiB the device wrote outside the windows"
ok "a -S 0 run leaves its data dirty; after.sync_mib ($sync_mib) is the device's writes ($outside_mib MiB)"

grep -q '^after: syncfs  *loop' out || fail "--sysstats: no row for the sync: $(cat out)"
grep -q '^After the run (outside every timed figure): syncfs of 1 filesystem [0-9.]* s, the devices wrote' out ||
    fail "--sysstats: no line for the sync: $(cat out)"
ok "--sysstats shows the sync"

# the classic output: no word of it without --sysstats
rm -rf m/d
fsb fs_mark -d m/d -n 100 -s 4096 -t 1 -S 0 -k --quiet > out2 2> err || fail "fs_mark: $(cat err)"
! grep -qi 'sync.*after\|after.*sync\|syncfs' out2 || fail "the classic output changed: $(cat out2)"
ok "the classic output is unchanged"

# a matrix run: the unmount timed, per run, read back as the run's figure
fsb matrix --fs ext4 --repeat 2 --size 256M --order sequential -o mx --no-db -- fs_mark -n 200 -s 65536 -t 1 -S 0 -k \
    > mout 2>&1 || fail "matrix: $(cat mout)"
jq -e '[.runs[] | select(.warmup | not) | .umount_s > 0] | length == 2 and all' mx/manifest.json > /dev/null ||
    fail "manifest: $(jq -c '[.runs[] | {cell, umount_s}]' mx/manifest.json)"
jq -e '.after.sync_s > 0 and .after.sync_mib > 0' mx/runs/*/run-1.json > /dev/null || fail "the run's after figures"
grep -q '^| unmount after the run | s | [0-9]' mx/report.md || fail "report: no unmount row: $(grep -i unmount mx/report.md)"
grep -q '^| sync after the run | s | [0-9]' mx/report.md || fail "report: no sync row: $(grep -i sync mx/report.md)"
ok "a matrix run records after.umount_s > 0 and the report shows it and the sync"
