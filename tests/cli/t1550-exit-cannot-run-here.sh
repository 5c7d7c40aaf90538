#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1550 (root): one mapping from errno to exit status for every command: a run the system
# refuses here is status 3 ("cannot run here"), for tiotest and fs_mark alike. As nobody on a
# root-owned 0755 directory (EACCES: tiotest's test file, fs_mark's first file, fs_mark -D's
# first subdirectory, fs_mark's missing -d) and on a read-only tmpfs (EROFS). Before: fs_mark
# exited 1 where tiotest and the man page said 3. Nothing is left behind in any case.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd setpriv
cd "$SCRATCH" || fail "cd"
chmod 755 "$SCRATCH"               # nobody must reach the directories below
mkdir -m 755 "$SCRATCH/root"       # root's, not writable by nobody
mkdir -m 1777 "$SCRATCH/pub"       # where nobody's fs_mark log goes
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$FSBENCH" "$@"; }
as_nobody tiotest --help > /dev/null 2>&1 || skip "nobody cannot run $FSBENCH (a path it cannot reach?)"
cases=0

# expect3 WHAT CMD...: exit 3, one line on stderr naming the cause, nothing left in root/
expect3() {
    local what=$1 want=$2; shift 2
    "$@" > out 2> err; rc=$?
    [ "$rc" = 3 ] || fail "$what: exit $rc, expected 3: $(cat err)"
    grep -q "$want" err || fail "$what: stderr does not say '$want': $(cat err)"
    [ "$(not_warnings err | wc -l)" = 1 ] || fail "$what: expected one line on stderr: $(cat err)"
    cases=$((cases + 1))
}

expect3 "tiotest, nobody" "Permission denied" as_nobody tiotest -t 2 -f 1 -r 10 -d "$SCRATCH/root"
expect3 "fs_mark, nobody" "Permission denied" as_nobody fs_mark -d "$SCRATCH/root" -n 10 -s 0 -l "$SCRATCH/pub/log"
expect3 "fs_mark -D, nobody" "Permission denied" as_nobody fs_mark -d "$SCRATCH/root" -D 4 -n 10 -s 0 -l "$SCRATCH/pub/log"
expect3 "fs_mark -k -D, nobody" "Permission denied" as_nobody fs_mark -d "$SCRATCH/root" -D 4 -n 10 -s 0 -k -l "$SCRATCH/pub/log"
expect3 "fs_mark new -d, nobody" "Permission denied" as_nobody fs_mark -d "$SCRATCH/root/new" -n 10 -s 0 -l "$SCRATCH/pub/log"
[ -z "$(ls -A "$SCRATCH/root")" ] || fail "left in the root-owned directory: $(ls -A "$SCRATCH/root")"
ok "EACCES as nobody: tiotest and fs_mark (with and without -D) exit 3"

mkdir "$SCRATCH/ro"
mount -t tmpfs -o ro,size=8m fsbench-ro "$SCRATCH/ro" 2> /dev/null || skip "EACCES checked; cannot mount a read-only tmpfs"
echo "$SCRATCH/ro" >> "$_MOUNTS_FILE"
expect3 "tiotest, read-only" "Read-only file system" "$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$SCRATCH/ro"
expect3 "fs_mark, read-only" "Read-only file system" "$FSBENCH" fs_mark -d "$SCRATCH/ro" -n 10 -s 0 -l "$SCRATCH/pub/log"
expect3 "fs_mark -D, read-only" "Read-only file system" "$FSBENCH" fs_mark -d "$SCRATCH/ro" -D 3 -n 10 -s 0 -l "$SCRATCH/pub/log"
ok "EROFS: tiotest and fs_mark exit 3"
ok "$cases cannot-run-here cases"
