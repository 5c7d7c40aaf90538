#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (unshare -m copies every mount the other tests hold, and pins their devices)
# t7140: --device with a filesystem stacked on it through loop devices. A loop device at an
# offset into the device, mounted: exit 2 (with --destroy too), one line naming the loop device
# and its mount point, nothing written (the stacked filesystem's file and signature, and the
# device's first MiB, unchanged). The same one level deeper (a loop over that loop), mounted in
# another mount namespace, as swap space, and unmounted (refused unless --destroy). And down: a --device that is a loop device
# over a mounted one is refused even with --destroy.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd losetup
need_cmd mkfs.ext4
need_cmd mkswap
need_cmd swapon
need_cmd blkid
need_cmd md5sum
need_cmd unshare
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR" "$SCRATCH/mnt"
LOOPS=()
SWAP= NSPID=
cleanup() {
    [ -n "$NSPID" ] && kill $NSPID 2>/dev/null && wait $NSPID 2>/dev/null
    [ -n "$SWAP" ] && swapoff "$SWAP" 2>/dev/null
    umount "$SCRATCH/mnt" 2>/dev/null
    local i
    for ((i = ${#LOOPS[@]} - 1; i >= 0; i--)); do losetup -d "${LOOPS[$i]}" 2>/dev/null; done
    _lib_cleanup
}
trap cleanup EXIT
# (in $(...): the caller records it in LOOPS)
attach() { losetup -f --show "$@" || fail "losetup $*"; }

truncate -s 96M "$SCRATCH/dev.img"
A=$(attach "$SCRATCH/dev.img")                                # the device under test
LOOPS+=("$A")
B=$(attach -o 1048576 --sizelimit 67108864 "$A")            # at an offset into it
LOOPS+=("$B")
mkfs.ext4 -q -F "$B" || fail "mkfs on $B"
mount "$B" "$SCRATCH/mnt" || fail "mount $B"
head -c 3M /dev/urandom > "$SCRATCH/mnt/victim" && sync || fail "victim file"
file_sum=$(md5sum < "$SCRATCH/mnt/victim")
uuid=$(blkid -p -s UUID -o value "$B")
head_sum=$(head -c 1M "$A" | md5sum)

refused() {
    local why=$1 want=$2; shift 2
    fsb matrix -o "$SCRATCH/result" "$@" --repeat 1 -- tiotest -t 1 -f 1 -r 10 > out 2> err; local rc=$?
    [ $rc = 2 ] || fail "$why: exit $rc, expected 2: $(cat err)"
    [ "$(wc -l < err)" = 1 ] || fail "$why: not one line: $(cat err)"
    grep -q -- "$want" err || fail "$why: message does not say '$want': $(cat err)"
    [ ! -e "$SCRATCH/result" ] || fail "$why: the result directory was created"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "$why: something in the scratch parent"
    [ "$(head -c 1M "$A" | md5sum)" = "$head_sum" ] || fail "$why: the device's first MiB was written"
    [ "$(blkid -p -s UUID -o value "$B")" = "$uuid" ] || fail "$why: the stacked filesystem's signature changed"
}
a=${A#/dev/} b=${B#/dev/}
refused "a loop device at an offset, mounted" "$a -> $b (loop device, offset 1048576) is mounted at '$SCRATCH/mnt'" \
    --device "$A"
refused "the same with --destroy" "is mounted at" --device "$A" --destroy "$A"
[ "$(md5sum < "$SCRATCH/mnt/victim")" = "$file_sum" ] || fail "the victim file changed"

# down: a --device that is a loop device over the mounted one writes into that filesystem
C=$(attach "$B")
LOOPS+=("$C")
c=${C#/dev/}
refused "a loop device over a mounted one" "$c -> $b (backing device of $c at offset 0) is mounted at" \
    --device "$C" --destroy "$C"
umount "$SCRATCH/mnt" || fail "umount"

# one level deeper: mounted through the loop device over the loop device
mount "$C" "$SCRATCH/mnt" || fail "mount $C"
refused "two loop devices up" "$a -> $b (loop device, offset 1048576) -> $c (loop device, offset 0) is mounted" \
    --device "$A" --destroy "$A"
[ "$(md5sum < "$SCRATCH/mnt/victim")" = "$file_sum" ] || fail "the victim file changed"
umount "$SCRATCH/mnt" || fail "umount"
losetup -d "$C"

# nothing mounted: the loop device on it is data, as a signature is
refused "an idle loop device on it" "has $a -> $b (loop device, offset 1048576) on it.*--destroy" --device "$A"

# mounted in another mount namespace: not in this mountinfo, but the kernel holds it
mkdir -p "$SCRATCH/mnt-ns"
unshare -m --propagation private sh -c 'mount "$1" "$2" && touch "$3" && exec sleep 60' sh \
    "$B" "$SCRATCH/mnt-ns" "$SCRATCH/ns-ready" &
NSPID=$!
for _ in $(seq 1 100); do [ -e "$SCRATCH/ns-ready" ] && break; kill -0 $NSPID 2>/dev/null || break; nap 0.05; done
[ -e "$SCRATCH/ns-ready" ] || skip "cannot mount in a new mount namespace here (the other checks passed)"
refused "mounted in another mount namespace" "$a -> $b (loop device, offset 1048576) is held open exclusively" \
    --device "$A" --destroy "$A"
kill $NSPID; wait $NSPID 2>/dev/null; NSPID=

# swap space on a loop device at another offset (past the filesystem's)
D=$(attach -o 83886080 --sizelimit 16777216 "$A")
LOOPS+=("$D")
mkswap "$D" >/dev/null 2>&1 || fail "mkswap"
swapon "$D" 2>/dev/null || skip "cannot swapon a loop device here (the other checks passed)"
SWAP=$D
refused "swap on a loop device at an offset" "${D#/dev/} (loop device, offset 83886080) is swap space" \
    --device "$A" --destroy "$A"
swapoff "$D" && SWAP=
mount "$B" "$SCRATCH/mnt" || fail "mount $B again"
[ "$(md5sum < "$SCRATCH/mnt/victim")" = "$file_sum" ] || fail "the victim file changed"
echo "ok: --device refused with filesystems and swap stacked on it through loop devices"
