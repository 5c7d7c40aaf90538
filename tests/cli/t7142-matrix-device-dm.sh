#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7142: --device under device-mapper: a linear target at an offset into the device, mounted,
# then unmounted (device-mapper still holds it). Exit 2 with --destroy too, one line naming the
# dm device (not only "in use"), the stacked filesystem unchanged.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd losetup
need_cmd dmsetup
need_cmd mkfs.ext4
need_cmd blkid
need_cmd md5sum
dmsetup version >/dev/null 2>&1 || skip "no device-mapper in this kernel (dmsetup version fails): the dm case is not checked"
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR" "$SCRATCH/mnt"
A= NAME=fsbench-t7142-$$
cleanup() {
    umount "$SCRATCH/mnt" 2>/dev/null
    dmsetup remove "$NAME" 2>/dev/null
    [ -n "$A" ] && losetup -d "$A" 2>/dev/null
    _lib_cleanup
}
trap cleanup EXIT
truncate -s 96M "$SCRATCH/dev.img"
A=$(losetup -f --show "$SCRATCH/dev.img") || fail "losetup"
a=${A#/dev/}
echo "0 131072 linear $A 2048" | dmsetup create "$NAME" || fail "dmsetup create"
DM=/dev/mapper/$NAME
dm=$(basename "$(readlink -f "$DM")")
mkfs.ext4 -q -F "$DM" || fail "mkfs on $DM"
mount "$DM" "$SCRATCH/mnt" || fail "mount $DM"
head -c 2M /dev/urandom > "$SCRATCH/mnt/victim" && sync || fail "victim file"
sum=$(md5sum < "$SCRATCH/mnt/victim")
uuid=$(blkid -p -s UUID -o value "$DM")

refused() {
    local why=$1 want=$2; shift 2
    fsb matrix -o "$SCRATCH/result" "$@" --repeat 1 -- tiotest -t 1 -f 1 -r 10 > out 2> err; local rc=$?
    [ $rc = 2 ] || fail "$why: exit $rc, expected 2: $(cat err)"
    [ "$(wc -l < err)" = 1 ] || fail "$why: not one line: $(cat err)"
    grep -q -- "$want" err || fail "$why: message does not say '$want': $(cat err)"
    [ ! -e "$SCRATCH/result" ] || fail "$why: the result directory was created"
    [ "$(blkid -p -s UUID -o value "$DM")" = "$uuid" ] || fail "$why: the stacked filesystem's signature changed"
}
refused "dm over it, mounted" "$a -> $dm (device-mapper '$NAME') is mounted at '$SCRATCH/mnt'" --device "$A" --destroy "$A"
[ "$(md5sum < "$SCRATCH/mnt/victim")" = "$sum" ] || fail "the victim file changed"
umount "$SCRATCH/mnt"
refused "dm over it" "held by $a -> $dm (device-mapper '$NAME')" --device "$A" --destroy "$A"
echo "ok: --device refused under device-mapper, naming it"
