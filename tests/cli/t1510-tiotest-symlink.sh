#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1510: a symlink planted at a test file's name is not followed, and fsbench deletes nothing
# it did not create. The pid is known in advance by planting from a shell that then execs
# fsbench. Cases: the link at thread 0's name; at thread 1's name (thread 0's file was already
# created and must be removed, the link kept); a regular file at the name (kept, unchanged);
# the test file swapped for a link between phases (the reopen refuses it; the link stays).
# Each time: exit non-zero, a clear error, the victim file unchanged.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
DIR=$SCRATCH/d
mkdir -p "$DIR"
VICTIM=$SCRATCH/victim
printf 'precious data\n' > "$VICTIM"
cp "$VICTIM" "$SCRATCH/victim.orig"
export FSBENCH DIR VICTIM

victim_intact() {
    cmp -s "$VICTIM" "$SCRATCH/victim.orig" || fail "$1: the victim file was changed: $(head -c 100 "$VICTIM" | od -c | head -3)"
    [ ! -L "$VICTIM" ] || fail "$1: the victim was replaced"
}

# a link at thread 0's name
sh -c 'ln -s "$VICTIM" "$DIR/_tiotest_pid$$.thr0" && exec "$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR"' \
    > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "link at thr0: exit $rc, expected 1 (the run failed)"
grep -Eq "'$DIR/_tiotest_pid[0-9]+\.thr0'.*File exists" "$SCRATCH/err" || fail "link at thr0: error: $(cat "$SCRATCH/err")"
victim_intact "link at thr0"
[ -L "$DIR"/_tiotest_pid*.thr0 ] || fail "link at thr0: the planted link was removed"
[ "$(ls -A "$DIR" | wc -l)" = 1 ] || fail "link at thr0: other files left: $(ls -A "$DIR")"
rm -f "$DIR"/*
ok "link at thr0: not followed, kept, exit $rc"

# a link at thread 1's name: thread 0's file, which fsbench made, goes; the link stays
sh -c 'ln -s "$VICTIM" "$DIR/_tiotest_pid$$.thr1" && exec "$FSBENCH" tiotest -t 2 -f 1 -r 10 -d "$DIR"' \
    > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "link at thr1: exit $rc, expected 1 (the run failed)"
grep -Eq "'$DIR/_tiotest_pid[0-9]+\.thr1'" "$SCRATCH/err" || fail "link at thr1: error: $(cat "$SCRATCH/err")"
victim_intact "link at thr1"
[ "$(ls -A "$DIR")" = "$(cd "$DIR" && ls -A _tiotest_pid*.thr1)" ] && [ -L "$DIR"/_tiotest_pid*.thr1 ] ||
    fail "link at thr1: expected only the planted link left, found: $(ls -lA "$DIR")"
rm -f "$DIR"/*
ok "link at thr1: not followed, kept; thread 0's file removed"

# a dangling link (O_CREAT would create its target)
sh -c 'ln -s "$DIR/../created-through-link" "$DIR/_tiotest_pid$$.thr0" && exec "$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR"' \
    > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "dangling link: exit $rc, expected 1 (the run failed)"
[ ! -e "$SCRATCH/created-through-link" ] || fail "dangling link: fsbench created the link's target"
rm -f "$DIR"/*
ok "dangling link: its target is not created"

# a regular file of someone else's at the name: kept, unchanged
sh -c 'printf "not yours\n" > "$DIR/_tiotest_pid$$.thr0" && exec "$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR"' \
    > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "existing file: exit $rc, expected 1 (the run failed)"
[ "$(cat "$DIR"/_tiotest_pid*.thr0)" = "not yours" ] || fail "existing file: changed or removed"
rm -f "$DIR"/*
ok "an existing file at the name: kept unchanged"

# swapped for a link between phases: the next phase's open refuses it (O_NOFOLLOW), the victim
# is not written, and the link (not fsbench's) is not removed
"$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" --between-phases \
    'set -- $FSBENCH_FILES; rm -f "$1" && ln -s "$VICTIM" "$1"' > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "swapped link: exit $rc, expected 1 (the run failed)"
grep -Eq "open '$DIR/_tiotest_pid[0-9]+\.thr0'.*(symbolic links|ELOOP)" "$SCRATCH/err" || fail "swapped link: error: $(cat "$SCRATCH/err")"
victim_intact "swapped link"
[ -L "$DIR"/_tiotest_pid*.thr0 ] || fail "swapped link: the link was removed"
grep -q '^Results incomplete' "$SCRATCH/out" || fail "swapped link: no 'Results incomplete' line"
rm -f "$DIR"/*
ok "swapped for a link between phases: refused, link kept, exit $rc"
