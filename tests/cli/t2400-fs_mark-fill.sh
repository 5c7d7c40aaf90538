#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fs_mark -F on a small loop-mounted ext4: the fill ends cleanly (partial final row with the
# files really created, a closing line on stderr, exit 0, no stray files), by space and by
# inodes; the 2008 reference command scaled down; a run that cannot fit creates nothing.
. "$(dirname "$0")/lib.sh"
need_root
# not in $(...): loop_fs records the mount for the exit trap in this shell
loop_fs ext4 48 > "$SCRATCH/mnt.path" || exit $?
M=$(cat "$SCRATCH/mnt.path")
cd "$SCRATCH" || fail "cd"

check_fill() {   # check_fill WHAT: out/err of a fill run
    [ "$rc" = 0 ] || fail "$1: exit $rc: $(cat err)"
    tail -1 out | grep -q ' partial$' || fail "$1: last row is not marked partial: $(tail -2 out)"
    [ "$(grep -c ' partial$' out)" = 1 ] || fail "$1: more than one partial row"
    grep -q 'fill ended, the filesystem is full: .*No space left on device' err || fail "$1: closing line: $(cat err)"
    [ "$(not_warnings err | wc -l)" = 1 ] || fail "$1: more than one line on stderr: $(cat err)"
    count=$(tail -1 out | awk '{ print $2 }')
    files=$(find "$2" -type f | wc -l)
    # the rows count complete files; a thread's file cut short by ENOSPC is on disk too
    [ "$files" -ge "$count" ] && [ "$files" -le $((count + $3)) ] || fail "$1: Count $count, $files files on disk"
    ls "$SCRATCH" | grep -q 'log\.[0-9]' && fail "$1: stray per-thread files"
    return 0
}

# the 2008 command, scaled down: -D 256 -t 4 -s 20480 -F -S 0 with -n 1000
fsb fs_mark -d "$M/f" -D 256 -n 1000 -t 4 -s 20480 -F -S 0 -l fill.log > out 2> err; rc=$?
check_fill "space" "$M/f" 4
[ "$(awk '/^FSUse%/ { f = 1; next } f' out | wc -l)" -ge 1 ] || fail "no rows"
tail -1 fill.log | grep -q ' partial$' || fail "the log lacks the partial row"
rm -rf "${M:?}/f"

# -s 0: the run ends on inode exhaustion the same way
df -i "$M" > /dev/null
fsb fs_mark -d "$M/i" -n 1000 -t 2 -s 0 -F -S 0 -l fill.log --inodes > out 2> err; rc=$?
check_fill "inodes" "$M/i" 0
[ "$(tail -1 out | awk '{ print $6 }')" -ge 99 ] || fail "inode column: $(tail -1 out)"
rm -rf "${M:?}/i"

# not enough space without -F: one line, exit 1, nothing created
fsb fs_mark -d "$M/big" -n 100000 -s 1048576 -S 0 -l fill.log > out 2> err; rc=$?
[ $rc = 1 ] || fail "no space: exit $rc"
grep -q 'not enough free space' err || fail "no space: $(cat err)"
[ ! -e "$M/big" ] || fail "no space: directory left behind"
ok "fill ends cleanly"
