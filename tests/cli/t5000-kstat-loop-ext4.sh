#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t5000: device resolution and diskstats deltas on a loop-mounted ext4 (root): the JSON names
# the loop device and its backing file, and an O_DIRECT write phase shows up on the device
# (device write bytes within 5% of the bytes written). --sysstats prints the table.
. "$(dirname "$0")/lib.sh"
need_cmd jq
# loop_fs keeps its mounts in a shell variable for the cleanup: call it in this shell
loop_fs ext4 256 > "$SCRATCH/mnt"
MNT=$(cat "$SCRATCH/mnt")
mountpoint -q "$MNT" || fail "loop_fs did not mount ext4 at '$MNT'"

fsb tiotest -X -t 2 -f 32 -b 65536 -k 1 -k 2 -k 3 -d "$MNT" --sysstats --quiet --json "$SCRATCH/r.json" \
    > "$SCRATCH/out" 2> "$SCRATCH/err" || fail "tiotest -X failed: $(cat "$SCRATCH/err")"
J=$SCRATCH/r.json
kind=$(jq -r '.environment.targets[0].block_device.kind' "$J")
[ "$kind" = loop ] || fail "block device kind '$kind', expected loop"
back=$(jq -r '.environment.targets[0].block_device.backing_file' "$J")
[ "$back" = "$(realpath "$SCRATCH/ext4.img")" ] || fail "backing file '$back', expected $SCRATCH/ext4.img"
dev=$(jq -r '.environment.targets[0].block_device.name' "$J")
case $dev in loop*) ;; *) fail "device name '$dev'" ;; esac
ok "loop device $dev backed by $back"

bytes=$(jq '.phases[0].bytes' "$J")
dwr=$(jq --arg d "$dev" '.phases[0].kernel.disks[] | select(.name == $d) | .write_bytes' "$J")
[ -n "$dwr" ] && [ "$bytes" -gt 0 ] || fail "no diskstats for $dev in the write phase"
awk -v a="$dwr" -v b="$bytes" 'BEGIN { r = a / b; exit !(r > 0.95 && r < 1.05) }' ||
    fail "device wrote $dwr bytes for $bytes bytes written with O_DIRECT (not within 5%)"
ok "O_DIRECT write phase: device wrote $dwr bytes for $bytes written"

jq -e '.phases[0].kernel.cpu.system_pct >= 0 and (.phases[0].kernel.meminfo.end.MemTotal > 0) and
       (.phases[0].kernel.vmstat.pgpgout >= 0)' "$J" >/dev/null || fail "cpu/meminfo/vmstat missing"
grep -q '^Kernel view per phase' "$SCRATCH/out" || fail "--sysstats: no table"
grep -Eq "^Write +$dev " "$SCRATCH/out" || fail "--sysstats: no Write row for $dev: $(cat "$SCRATCH/out")"
# O_DIRECT: no cache warning
! grep -q 'warning: write:.*cache' "$SCRATCH/err" || fail "cache warning with O_DIRECT: $(cat "$SCRATCH/err")"
ok "--sysstats table, JSON kernel sections"
