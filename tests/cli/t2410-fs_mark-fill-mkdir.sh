#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t2410 (root): fill mode ends cleanly whatever syscall finds the filesystem full, mkdir of the
# -D subdirectories included: exit 0, the closing line naming the mkdir, and no stray
# directories (a run that created no file keeps nothing, -k or not), exactly as the same full
# filesystem without -D. Before: mkdir's ENOSPC was an error, exit 1, with the subdirectories
# made so far left behind (fill implies keep). Two tiny loop ext4: one with few inodes, one
# whose blocks a filler file took.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd mkfs.ext4
cd "$SCRATCH" || fail "cd"
cases=0

# tiny_ext4 NAME MKFS_ARGS...: an 8 MiB loop ext4, mounted; prints the mount point
tiny_ext4() {
    local name=$1; shift
    truncate -s 8M "$SCRATCH/$name.img" || fail "truncate"
    mkfs.ext4 -q -F "$@" "$SCRATCH/$name.img" > /dev/null 2>&1 || skip "mkfs.ext4 $* failed"
    mkdir -p "$SCRATCH/$name"
    mount -o loop "$SCRATCH/$name.img" "$SCRATCH/$name" 2> /dev/null || skip "cannot loop-mount ext4 here"
    echo "$SCRATCH/$name" >> "$_MOUNTS_FILE"
}

# full_end WHAT WANT: exit 0, one closing line matching WANT, nothing else on stderr
full_end() {
    [ "$rc" = 0 ] || fail "$1: exit $rc, expected 0: $(cat err)"
    grep -Eq "^fsbench fs_mark: fill ended, the filesystem is full: $2" err || fail "$1: closing line: $(cat err)"
    [ "$(not_warnings err | wc -l)" = 1 ] || fail "$1: expected one line on stderr: $(cat err)"
    cases=$((cases + 1))
}

# few inodes: the subdirectories run out of inodes part way through -D 16
tiny_ext4 ino -N 16 -b 1024
M=$SCRATCH/ino
free=$(df --output=iavail "$M" | tail -1 | tr -d ' ')
[ "$free" -ge 3 ] && [ "$free" -lt 16 ] || skip "the tiny ext4 has $free inodes free, expected 3 to 15"
for keep in "" -k; do
    fsb fs_mark -d "$M/d" -D 16 -n 10 -s 0 -S 0 -F $keep -l log > out 2> err; rc=$?
    full_end "few inodes, -D 16 $keep" "mkdir '$M/d/(0[1-9a-f])': No space left on device$"
    [ ! -e "$M/d" ] || fail "few inodes, -D 16 $keep: left behind: $(find "$M/d" | head -5)"
done
# the -d itself cannot be made: the same end
mkdir "$M/u" && i=0 && while mkdir "$M/u/$i" 2> /dev/null; do i=$((i + 1)); done
fsb fs_mark -d "$M/d" -D 16 -n 10 -s 0 -S 0 -F -l log > out 2> err; rc=$?
full_end "no inode for -d" "mkdir '$M/d': No space left on device$"
[ ! -e "$M/d" ] || fail "no inode for -d: $M/d exists"
# and without -D the same full filesystem ends the same way (the space check or the first file)
fsb fs_mark -d "$M/u/0" -n 10 -s 0 -S 0 -F -l log > out 2> err; rc=$?
full_end "no inode, without -D" ".*(inodes free|No space left on device)"
[ -z "$(ls -A "$M/u/0")" ] || fail "no inode, without -D: left behind: $(ls -A "$M/u/0")"
ok "few inodes: mkdir's ENOSPC ends the fill, exit 0, no subdirectory left (-k or not, -D or not)"

# no blocks: a filler file took every block; ext4 still makes some directories from the
# clusters it reserves for metadata, so some (or all) subdirectories are made before a mkdir or
# the space check finds no room (before: exit 1, or exit 0 with the empty subdirectories left),
# then, with those clusters used up too, the first mkdir fails
tiny_ext4 blk -b 1024
M=$SCRATCH/blk
mkdir "$M/d" "$M/e" "$M/x"
dd if=/dev/zero of="$M/filler" bs=64k > /dev/null 2>&1
sync
sum=$(md5sum < "$M/filler")
fsb fs_mark -d "$M/d" -D 8 -n 10 -S 0 -F -l log > out 2> err; rc=$?
full_end "no blocks, -D 8" "('$M/d' has 0 bytes free|mkdir '$M/d/0[0-7]': No space left on device$)"
[ -z "$(ls -A "$M/d")" ] || fail "no blocks, -D 8: left behind: $(ls -A "$M/d")"
i=0; while mkdir "$M/x/$i" 2> /dev/null; do i=$((i + 1)); done
fsb fs_mark -d "$M/d" -D 8 -n 10 -S 0 -F -l log > out 2> err; rc=$?
full_end "no blocks left for a directory, -D 8" "mkdir '$M/d/00': No space left on device$"
[ -z "$(ls -A "$M/d")" ] || fail "no blocks left for a directory, -D 8: left behind: $(ls -A "$M/d")"
fsb fs_mark -d "$M/e" -n 10 -S 0 -F -l log > out 2> err; rc=$?
full_end "no blocks, without -D" ".*(bytes free|No space left on device)"
[ -z "$(ls -A "$M/e")" ] || fail "no blocks, without -D: left behind: $(ls -A "$M/e")"
[ "$(md5sum < "$M/filler")" = "$sum" ] || fail "the filler file changed"
ok "no blocks: exit 0 with and without -D, nothing left"
ok "$cases fill-end cases"
