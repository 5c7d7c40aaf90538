#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7040: --device. A device that holds a filesystem is refused without --destroy: exit 2, one
# line, no result directory, the device unchanged (same bytes); so is a mounted device even
# with --destroy, and --destroy naming another device. --destroy naming it again runs the
# experiment on it: the cells take turns, each run on the cell's new filesystem.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
need_cmd mkfs.xfs
need_cmd losetup
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
truncate -s 320M "$SCRATCH/dev.img"
mkfs.ext4 -q -F "$SCRATCH/dev.img" || fail "mkfs"
L=$(losetup -f --show "$SCRATCH/dev.img") || fail "losetup"
trap 'umount "$SCRATCH/mnt" 2>/dev/null; losetup -d "$L" 2>/dev/null; _lib_cleanup' EXIT
sum() { head -c 4M "$L" | md5sum; }
before=$(sum)

refused() {
    local why=$1; shift
    fsb matrix -o "$SCRATCH/result" "$@" > out 2> err; local rc=$?
    [ $rc = 2 ] || fail "$why: exit $rc, expected 2: $(cat err)"
    [ "$(wc -l < err)" = 1 ] || fail "$why: not one line: $(cat err)"
    [ ! -e "$SCRATCH/result" ] || fail "$why: the result directory was created"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "$why: something in the scratch parent"
    [ -n "$nosum" ] || [ "$(sum)" = "$before" ] || fail "$why: the device was written"
}
nosum=
refused "a filesystem on it" --device "$L" --repeat 1 -- tiotest -t 1 -f 1 -r 10
grep -q "holds ext4 .*--destroy" err || fail "message: $(cat err)"
truncate -s 64M "$SCRATCH/other.img"
L2=$(losetup -f --show "$SCRATCH/other.img") || fail "losetup"
refused "--destroy of another device" --device "$L" --destroy "$L2" --repeat 1 -- tiotest -t 1 -f 1 -r 10
losetup -d "$L2"
refused "--destroy without --device" --destroy "$L" -- tiotest -t 1
 # mounting writes to it (the journal, the superblock's times): no byte comparison here
mkdir -p "$SCRATCH/mnt" && mount "$L" "$SCRATCH/mnt" || fail "mount"
nosum=1
refused "mounted" --device "$L" --destroy "$L" --repeat 1 -- tiotest -t 1 -f 1 -r 10
grep -q "is mounted" err || fail "mounted message: $(cat err)"
umount "$SCRATCH/mnt"
before=$(sum) nosum=""
# held open exclusively by another program (as device-mapper or md would): O_EXCL
perl -e 'use Fcntl; sysopen(my $f, $ARGV[0], O_RDONLY | O_EXCL) or die "$!\n";
          open(my $m, ">", $ARGV[1]) or die; close $m; sleep 30' "$L" "$SCRATCH/held" &
holder=$!
for _ in $(seq 1 100); do [ -e "$SCRATCH/held" ] && break; kill -0 $holder 2>/dev/null || break; nap 0.05; done
[ -e "$SCRATCH/held" ] || fail "could not hold $L open with O_EXCL"
refused "held open" --device "$L" --destroy "$L" --repeat 1 -- tiotest -t 1 -f 1 -r 10
grep -q "in use" err || fail "held message: $(cat err)"
kill $holder 2>/dev/null; wait $holder 2>/dev/null

uuid=$(blkid -p -s UUID -o value "$L")
fsb matrix --device "$L" --destroy "$L" --fs ext4,xfs --repeat 2 --max-other-cpu 100 -o "$SCRATCH/result" \
    -- tiotest -t 1 -f 1 -r 10 > out 2> err || fail "with --destroy: exit $?: $(cat err)"
M=$SCRATCH/result/manifest.json
jq -e '.state == "done" and .target.kind == "device" and .target.destroy == true
       and ([.runs[] | .status == "ok"] | all) and (.runs | length) == 4' "$M" >/dev/null ||
    fail "manifest: $(jq -c '{state, target, runs: [.runs[] | {cell, status}]}' "$M")"
# the runs' cells and files with one jq, their filesystems with one more (a jq costs ~50 ms of CPU)
mapfile -t rows < <(jq -r '.runs[0:4][] | [.cell, .json] | map(tostring) | join("\u001f")' "$M")
[ "${#rows[@]}" = 4 ] || fail "the manifest's runs: ${rows[*]}"
files=()
for i in 0 1 2 3; do
    IFS=$US read -r cell json <<<"${rows[i]}"
    files+=("$SCRATCH/result/$json")
done
mapfile -t fstypes < <(jq -r '.environment.targets[0].fstype | tostring' "${files[@]}")
[ "${#fstypes[@]}" = 4 ] || fail "the runs' JSONs ${files[*]}: ${fstypes[*]}"
for i in 0 1 2 3; do
    IFS=$US read -r cell json <<<"${rows[i]}"
    [ "${fstypes[i]:-}" = "$cell" ] || fail "run $i ran on another filesystem than its cell's ($cell)"
done
[ "$(blkid -p -s UUID -o value "$L")" != "$uuid" ] || fail "the device still holds the old filesystem"
! grep -q "$L " /proc/self/mountinfo || fail "the device is left mounted"
echo "ok: --device refused when it holds something, used with --destroy"
