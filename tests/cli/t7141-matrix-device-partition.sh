#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7141: --device with a partition table: a partition mounted, and a filesystem mounted from a
# loop device over a partition (the partition itself unclaimed, so the kernel's O_EXCL check
# lets the whole device through). Exit 2 with --destroy too, one line naming the chain, the
# partition table and the stacked filesystem unchanged. Idle partitions: refused unless
# --destroy, naming the partition. And --device a partition while a loop device over the
# whole disk, across that partition, is mounted.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd losetup
need_cmd mkfs.ext4
need_cmd perl
need_cmd partx
need_cmd blkid
need_cmd md5sum
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR" "$SCRATCH/mnt"
P= E= F=
cleanup() {
    umount "$SCRATCH/mnt" 2>/dev/null
    [ -n "$F" ] && losetup -d "$F" 2>/dev/null
    [ -n "$E" ] && losetup -d "$E" 2>/dev/null
    [ -n "$P" ] && losetup -d "$P" 2>/dev/null
    _lib_cleanup
}
trap cleanup EXIT

# an MBR with two Linux partitions of 32 MiB, at 1 MiB and 33 MiB
truncate -s 80M "$SCRATCH/disk.img"
perl -e 'open(my $f, "+<", $ARGV[0]) or die; my $t = "";
         for my $p ([2048, 65536], [67584, 65536]) { $t .= pack("C C3 C C3 V V", 0, 0, 0, 0, 0x83, 0, 0, 0, @$p) }
         seek($f, 446, 0); print $f $t, "\0" x 32, "\x55\xaa"; close $f or die' "$SCRATCH/disk.img" || fail "MBR"
P=$(losetup -f --show -P "$SCRATCH/disk.img") || fail "losetup -P"
p=${P#/dev/}
for _ in $(seq 1 20); do [ -b "${P}p2" ] && break; nap 0.1; done
# a kernel without the MBR parser: the partitions added through BLKPG
[ -b "${P}p2" ] || partx -a "$P" 2>/dev/null
for _ in $(seq 1 20); do [ -b "${P}p2" ] && break; nap 0.1; done
[ -b "${P}p1" ] && [ -b "${P}p2" ] || skip "no partitions on a loop device here (losetup -P)"
mbr=$(head -c 512 "$P" | md5sum)

refused() {
    local why=$1 want=$2; shift 2
    fsb matrix -o "$SCRATCH/result" "$@" --repeat 1 -- tiotest -t 1 -f 1 -r 10 > out 2> err; local rc=$?
    [ $rc = 2 ] || fail "$why: exit $rc, expected 2: $(cat err)"
    [ "$(wc -l < err)" = 1 ] || fail "$why: not one line: $(cat err)"
    grep -q -- "$want" err || fail "$why: message does not say '$want': $(cat err)"
    [ ! -e "$SCRATCH/result" ] || fail "$why: the result directory was created"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "$why: something in the scratch parent"
    [ "$(head -c 512 "$P" | md5sum)" = "$mbr" ] || fail "$why: the partition table was written"
}

refused "idle partitions" "has $p -> ${p}p[12] (partition [12]) on it.*--destroy" --device "$P"

mkfs.ext4 -q -F "${P}p1" || fail "mkfs p1"
mount "${P}p1" "$SCRATCH/mnt" || fail "mount p1"
refused "a partition mounted" "$p -> ${p}p1 (partition 1) is mounted at '$SCRATCH/mnt'" --device "$P" --destroy "$P"
umount "$SCRATCH/mnt"

# a loop device over the second partition, mounted
E=$(losetup -f --show "${P}p2") || fail "losetup over p2"
e=${E#/dev/}
mkfs.ext4 -q -F "$E" || fail "mkfs on $E"
mount "$E" "$SCRATCH/mnt" || fail "mount $E"
head -c 2M /dev/urandom > "$SCRATCH/mnt/victim" && sync || fail "victim file"
sum=$(md5sum < "$SCRATCH/mnt/victim")
uuid=$(blkid -p -s UUID -o value "$E")
refused "a loop device over a partition, mounted" \
    "$p -> ${p}p2 (partition 2) -> $e (loop device, offset 0) is mounted at '$SCRATCH/mnt'" --device "$P" --destroy "$P"
[ "$(md5sum < "$SCRATCH/mnt/victim")" = "$sum" ] || fail "the victim file changed"
[ "$(blkid -p -s UUID -o value "$E")" = "$uuid" ] || fail "the stacked filesystem's signature changed"
umount "$SCRATCH/mnt"
losetup -d "$E" && E=

# --device a partition, with a loop device over the whole disk across it, mounted
F=$(losetup -f --show -o 1048576 --sizelimit 16777216 "$P") || fail "losetup over the disk"
f=${F#/dev/}
mkfs.ext4 -q -F "$F" || fail "mkfs on $F"
mount "$F" "$SCRATCH/mnt" || fail "mount $F"
uuid=$(blkid -p -s UUID -o value "$F")
refused "a loop device over the disk across the partition, mounted" \
    "${p}p1 -> $f (loop device over $p at offset 1048576, across it) is mounted at '$SCRATCH/mnt'" \
    --device "${P}p1" --destroy "${P}p1"
[ "$(blkid -p -s UUID -o value "$F")" = "$uuid" ] || fail "the stacked filesystem's signature changed"
echo "ok: --device refused with partitions mounted, directly or through a loop device"
