#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1610 (root): -R raw mode on a loop device over a sparse 64 MiB file (attached and detached
# by the test, never mounted). Thread k on a device uses the region starting at k*(f+o) MiB,
# plus o with -O: with -c (non-zero blocks) the backing file shows exactly where each thread
# wrote. Nothing is created or removed; a device too small for the regions, a mounted device
# and a directory given with -R are clean errors.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd losetup
need_cmd perl
need_cmd mkfs.ext4
[ -e /dev/loop-control ] || skip "no loop devices"
IMG=$SCRATCH/raw.img
truncate -s 64M "$IMG" || fail "truncate"
LOOP=$(losetup -f --show "$IMG" 2> "$SCRATCH/err") || skip "cannot attach a loop device: $(cat "$SCRATCH/err")"
detach() { losetup -d "$LOOP" 2> /dev/null; }
trap 'detach; _lib_cleanup' EXIT
[ -b "$LOOP" ] || fail "$LOOP is not a block device"
! grep -q "^$LOOP " /proc/mounts || fail "$LOOP is mounted: refusing to write to it"

# regions RUN: the MiB ranges of the image that hold data, as "start-end" (MiB, end exclusive)
regions() {
    perl -e 'open my $f, "<", $ARGV[0] or die; binmode $f; my ($i, $b, $in, $s, @r) = (0);
             while (read($f, $b, 1 << 20)) { my $d = $b =~ /[^\0]/;
                 if ($d && !$in) { $s = $i; $in = 1 } elsif (!$d && $in) { push @r, "$s-$i"; $in = 0 } $i++ }
             push @r, "$s-$i" if $in; print join(" ", @r), "\n";' "$IMG"
}

# -o 4 -O, -f 8, 2 threads: thread 0 at 4 MiB, thread 1 at 4 + (8 + 4) = 16 MiB
"$FSBENCH" tiotest -R -d "$LOOP" -t 2 -f 8 -r 200 -o 4 -O -c -T > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "-R -o 4 -O: exit $?: $(cat "$SCRATCH/err")"
[ "$(wc -l < "$SCRATCH/out")" = 5 ] && grep -q '^read:16\.00000,' "$SCRATCH/out" || fail "-R -o 4 -O: $(cat "$SCRATCH/out")"
r=$(regions)
[ "$r" = "4-12 16-24" ] || fail "-R -o 4 -O: data in MiB $r, expected 4-12 16-24"
[ -b "$LOOP" ] || fail "-R removed or replaced the device node"
ok "-R -o 4 -O: regions at 4 and 16 MiB, verified"

# without -O thread 0 starts at 0; without -o the regions touch
blockdev --flushbufs "$LOOP" 2> /dev/null
truncate -s 0 "$IMG" && truncate -s 64M "$IMG" || fail "truncate"
[ -z "$(regions)" ] || fail "could not clear the image"
"$FSBENCH" tiotest -R -d "$LOOP" -t 3 -f 4 -r 100 -o 2 -c -T > /dev/null 2> "$SCRATCH/err" || fail "-R -o 2: exit $?: $(cat "$SCRATCH/err")"
r=$(regions)
[ "$r" = "0-4 6-10 12-16" ] || fail "-R -t 3 -f 4 -o 2: data in MiB $r, expected 0-4 6-10 12-16"
ok "-R -o 2 without -O: regions at 0, 6, 12 MiB"

# errors: regions past the end of the device; a directory with -R
"$FSBENCH" tiotest -R -d "$LOOP" -t 2 -f 30 -r 10 -o 4 -O -T > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
# found when the run opens the device (ENOSPC, a run failure), not by the checks before it
[ "$rc" = 1 ] || fail "-R regions past the device end: exit $rc, expected 1"
grep -q "too small" "$SCRATCH/err" || fail "-R too small: message: $(cat "$SCRATCH/err")"
[ "$(wc -l < "$SCRATCH/err")" = 1 ] || fail "-R too small: expected one line: $(cat "$SCRATCH/err")"
"$FSBENCH" tiotest -R -d "$SCRATCH" -t 1 -f 1 -r 10 -T > /dev/null 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 2 ] && grep -q 'not a block device' "$SCRATCH/err" || fail "-R on a directory: exit $rc: $(cat "$SCRATCH/err")"
ok "-R: device too small and non-device errors"

# a mounted device is refused (O_EXCL on the block device)
mkfs.ext4 -q -F "$LOOP" > /dev/null 2>&1 && mkdir -p "$SCRATCH/mnt" && mount "$LOOP" "$SCRATCH/mnt" 2> /dev/null || skip "raw checks passed; cannot mount ext4 on $LOOP to check refusal"
"$FSBENCH" tiotest -R -d "$LOOP" -t 1 -f 1 -r 10 -T > /dev/null 2> "$SCRATCH/err"; rc=$?
umount "$SCRATCH/mnt"
[ "$rc" = 3 ] || fail "-R on a mounted device: exit $rc, expected 3 (cannot run here: busy)"
grep -Eq 'busy|mounted' "$SCRATCH/err" || fail "-R on a mounted device: message: $(cat "$SCRATCH/err")"
ok "-R refuses a mounted device"
