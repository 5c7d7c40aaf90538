#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1520: files and directories. Without --keep no file is left (every run of the suite checks
# that too); with --keep each thread's file stays, named _tiotest_pid<PID>.thr<i>, sized
# floor(f*2^20/bs)*bs. -d given twice spreads the threads round-robin: thr0 and thr2 in the
# first directory, thr1 in the second, the one pid in every name. Also the default -d ".".
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
D1=$SCRATCH/d1 D2=$SCRATCH/d2
mkdir -p "$D1" "$D2"

"$FSBENCH" tiotest -t 3 -f 1 -r 10 -d "$D1" -d "$D2" -T > /dev/null || fail "two dirs, no --keep: exit $?"
[ -z "$(ls -A "$D1" "$D2" | grep _tiotest)" ] || fail "files left without --keep: $(ls -A "$D1" "$D2")"
ok "no --keep: nothing left in either directory"

"$FSBENCH" tiotest -t 3 -f 1 -r 10 -b 1000 -d "$D1" -d "$D2" --keep -T > /dev/null || fail "--keep run: exit $?"
l1=$(cd "$D1" && ls -A | tr '\n' ' ') l2=$(cd "$D2" && ls -A | tr '\n' ' ')
pid=$(cd "$D1" && ls _tiotest_pid*.thr0 | sed -E 's/^_tiotest_pid([0-9]+)\.thr0$/\1/')
[ -n "$pid" ] || fail "--keep: no thr0 in the first directory: $l1 | $l2"
[ "$l1" = "_tiotest_pid$pid.thr0 _tiotest_pid$pid.thr2 " ] || fail "--keep: first directory holds '$l1', expected thr0 and thr2"
[ "$l2" = "_tiotest_pid$pid.thr1 " ] || fail "--keep: second directory holds '$l2', expected thr1"
for f in "$D1/_tiotest_pid$pid.thr0" "$D2/_tiotest_pid$pid.thr1" "$D1/_tiotest_pid$pid.thr2"; do
    [ -f "$f" ] && [ ! -L "$f" ] || fail "$f is not a regular file"
    [ "$(stat -c %s "$f")" = $((1048576 / 1000 * 1000)) ] || fail "$f: size $(stat -c %s "$f"), expected $((1048576 / 1000 * 1000))"
    [ "$(stat -c %a "$f")" = 600 ] || fail "$f: mode $(stat -c %a "$f"), expected 600 as tiotest"
done
rm -f "$D1"/* "$D2"/*
ok "--keep: thr0, thr2 in dir 1, thr1 in dir 2, sizes and modes right"

# four directories, five threads: thread i in directory i mod 4
mkdir -p "$SCRATCH/e0" "$SCRATCH/e1" "$SCRATCH/e2" "$SCRATCH/e3"
"$FSBENCH" tiotest -t 5 -f 1 -r 1 -d "$SCRATCH/e0" -d "$SCRATCH/e1" -d "$SCRATCH/e2" -d "$SCRATCH/e3" --keep -T > /dev/null ||
    fail "four dirs: exit $?"
for i in 0 1 2 3 4; do
    ls "$SCRATCH/e$((i % 4))"/_tiotest_pid*.thr$i > /dev/null 2>&1 || fail "thread $i is not in directory $((i % 4))"
done
[ "$(ls "$SCRATCH"/e?/ | grep -c _tiotest)" = 5 ] || fail "four dirs: not exactly five files"
ok "five threads over four directories: i mod 4"

# the default directory is the working directory
mkdir -p "$SCRATCH/cwd"
(cd "$SCRATCH/cwd" && "$FSBENCH" tiotest -t 2 -f 1 -r 1 --keep -T > /dev/null) || fail "default -d: exit $?"
[ "$(ls "$SCRATCH/cwd" | grep -c '^_tiotest_pid[0-9]*\.thr[01]$')" = 2 ] || fail "default -d: files not in the working directory: $(ls -A "$SCRATCH/cwd")"
rm -f "$SCRATCH/cwd"/*
(cd "$SCRATCH/cwd" && "$FSBENCH" tiotest -t 2 -f 1 -r 1 -T > /dev/null) || fail "default -d without --keep: exit $?"
no_files "$SCRATCH/cwd"
ok "default -d is the working directory"
