#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1560: each phase reopens its test files by name, and writes (or reads) them only if they are
# still the inodes fsbench created. A --between-phases command that swaps a test file for a hard
# link to a foreign file, or renames another file over it, makes the next phase a run error
# naming the file (exit 1), the foreign file untouched (content and mtime), and fsbench leaves
# the swapped name alone (not its file to remove). Before: the foreign file was overwritten by the
# random write phase (O_NOFOLLOW stops symlinks, not hard links).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
cd "$SCRATCH" || fail "cd"
DIR=$SCRATCH/d
mkdir -p "$DIR"
head -c 1048576 /dev/urandom > "$SCRATCH/foreign"
touch -d '2001-01-01 00:00:00' "$SCRATCH/foreign"
sum=$(md5sum < "$SCRATCH/foreign")
mtime=$(stat -c %Y "$SCRATCH/foreign")
export FOREIGN=$SCRATCH/foreign
cases=0

# swap HOW PHASES...: run -f 1 with the swap after the first phase; the next one must refuse
swap() {
    local how=$1; shift
    "$FSBENCH" tiotest -t 2 -f 1 -r 100 -d "$DIR" -T "$@" --between-phases "
        while IFS= read -r f; do
            case '$how' in
            link) rm -f \"\$f\" && ln \"\$FOREIGN\" \"\$f\" ;;
            rename) cp -p \"\$FOREIGN\" \"\$f.new\" && mv \"\$f.new\" \"\$f\" ;;
            esac || exit 9
        done < \"\$FSBENCH_FILES_LIST\"" > out 2> err; rc=$?
    [ "$rc" = 1 ] || fail "$how $*: exit $rc, expected 1: $(cat err)"
    grep -Eq "^fsbench tiotest: open '$DIR/_tiotest_pid[0-9]+\.thr[01]': not the file fsbench created" err ||
        fail "$how $*: error line: $(cat err)"
    grep -q '^Results incomplete' out || fail "$how $*: results not marked incomplete: $(cat out)"
    [ "$(md5sum < "$SCRATCH/foreign")" = "$sum" ] || fail "$how $*: the foreign file was written"
    [ "$(stat -c %Y "$SCRATCH/foreign")" = "$mtime" ] || fail "$how $*: the foreign file's mtime changed"
    grep -q "not removing .*replaced after fsbench created it" err || fail "$how $*: no word about the swapped files: $(cat err)"
    rm -f "$DIR"/_tiotest_*
    cases=$((cases + 1))
}

swap link                  # write, then random write into the hard link
swap link -k 1             # write, then read
swap link -M               # the mmap engine
swap rename                # renamed over: another inode, same name
[ "$(stat -c %h "$SCRATCH/foreign")" = 1 ] || fail "links to the foreign file remain"
ok "$cases swapped-file cases: exit 1 naming the file, the foreign file untouched"
