#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: exclusive lease-break-time (writes /proc/sys/fs/lease-break-time or checks that it is unchanged)
# t7120: two experiments on one knob (issue 17, critical 5). While one runs with the knob
# written, a second naming the same file (by another path, too) refuses to start: exit 3, one
# line naming the knob and the holder's pid, nothing set up, the knob as the first wrote it.
# Once the first is done the knob is back and the second runs. The lock files go with them.
. "$(dirname "$0")/lib.sh"
need_matrix_ext4
K=/proc/sys/fs/lease-break-time
[ -w $K ] || skip "no $K to write here"
old=$(cat $K)

wait_mounted() {
    local M=$1/manifest.json
    json_wait "$M" '[.undo[] | select(.kind == "mount" and .state == "done" and (.undone | not))] | length > 0' \
        300 0.05
}
"$FSBENCH" matrix --fs ext4 --knob $K=43 --repeat 200 --size 64 --max-other-cpu 100 --no-db -o "$SCRATCH/a" \
    -- tiotest -t 1 -f 32 -r 500 > aout 2> aerr &
a=$!
trap 'kill -INT $a 2>/dev/null; wait $a; _lib_cleanup' EXIT
wait_mounted "$SCRATCH/a" || fail "never saw a mounted run: $(cat aerr)"
# the knob is written for each run and restored after it: seen at 43 while the runs go on
for _ in $(seq 1 200); do read -r v < $K; [ "$v" = 43 ] && break; nap 0.05; done
[ "$(cat $K)" = 43 ] || fail "the first experiment did not write $K: $(cat $K)"

second() {
    local what=$1; shift
    "$FSBENCH" matrix --fs ext4 "$@" --repeat 1 --size 64 --max-other-cpu 100 --no-db -o "$SCRATCH/b" \
        -- tiotest -t 1 -f 8 > "$SCRATCH/bout" 2> "$SCRATCH/berr"; local rc=$?
    [ $rc = 3 ] || fail "$what: exit $rc, expected 3: $(cat "$SCRATCH/berr")"
    [ "$(wc -l < "$SCRATCH/berr")" = 1 ] && grep -q "knob $K: in use by another fsbench experiment (pid $a)" "$SCRATCH/berr" ||
        fail "$what: $(cat "$SCRATCH/berr")"
    [ ! -e "$SCRATCH/b" ] || fail "$what: created its result directory"
    [ "$(ls "$TMPDIR" | wc -l)" = 1 ] || fail "$what: set up a scratch folder: $(ls "$TMPDIR")"
    # the first experiment's value, or the one it restores between its runs: never the second's
    local v; v=$(cat $K)
    [ "$v" = 43 ] || [ "$v" = "$old" ] || fail "$what: $K is $v, neither 43 nor $old"
}
second "the same knob" --knob $K=44
cd /proc/sys/fs || fail "cd"
second "the same knob, relative" --knob lease-break-time=44
cd "$SCRATCH" || fail "cd"

kill -INT $a
wait $a; rc=$?
trap _lib_cleanup EXIT
[ $rc = 130 ] || fail "the first experiment: exit $rc: $(tail -3 aerr)"
[ "$(cat $K)" = "$old" ] || fail "$K not restored after the first: $(cat $K)"
fsb matrix --fs ext4 --knob $K=44 --repeat 1 --size 64 --max-other-cpu 100 --no-db -o "$SCRATCH/b" \
    -- tiotest -t 1 -f 8 -r 10 > bout 2> berr || fail "the second after the first: exit $?: $(cat berr)"
[ "$(cat $K)" = "$old" ] || fail "$K not restored after the second: $(cat $K)"
! grep -lqx "$a" /run/fsbench/knobs/* 2> /dev/null || fail "a lock file left: $(grep -lx "$a" /run/fsbench/knobs/*)"

# --undo of a killed experiment leaves a knob another running experiment holds: that one
# restores what it found (the killed one's value), then a second --undo restores the original
rm -rf "$SCRATCH/a" "$SCRATCH/b"
"$FSBENCH" matrix --fs ext4 --knob $K=43 --repeat 200 --size 64 --max-other-cpu 100 --no-db -o "$SCRATCH/a" \
    -- tiotest -t 1 -f 32 -r 500 > aout 2> aerr &
a=$!
wait_mounted "$SCRATCH/a" || { kill -INT $a; wait $a; fail "never saw a mounted run: $(cat aerr)"; }
kill -KILL $a
wait $a 2> /dev/null
"$FSBENCH" matrix --fs ext4 --knob $K=44 --repeat 200 --size 64 --max-other-cpu 100 --no-db -o "$SCRATCH/b" \
    -- tiotest -t 1 -f 32 -r 500 > bout 2> berr &
b=$!
trap 'kill -INT $b 2>/dev/null; wait $b; _lib_cleanup' EXIT
wait_mounted "$SCRATCH/b" || fail "the second never mounted: $(cat berr)"
fsb matrix --undo "$SCRATCH/a" > /dev/null 2> uerr; rc=$?
[ $rc = 1 ] || fail "--undo while another holds the knob: exit $rc, expected 1: $(cat uerr)"
grep -q "undo: knob $K: left: in use by another fsbench experiment (pid $b)" uerr || fail "--undo: $(cat uerr)"
# 44 while the second's run goes on, 43 (what it found) between its runs: never the original
v=$(cat $K)
[ "$v" = 44 ] || [ "$v" = 43 ] || fail "--undo wrote the knob the running experiment holds: $v"
kill -INT $b
wait $b
trap _lib_cleanup EXIT
[ "$(cat $K)" = 43 ] || fail "the second did not restore what it found (43): $(cat $K)"
fsb matrix --undo "$SCRATCH/a" > /dev/null 2> uerr || fail "second --undo: exit $?: $(cat uerr)"
grep -q "undo: knob $K: restored to $old" uerr || fail "second --undo: $(cat uerr)"
[ "$(cat $K)" = "$old" ] || fail "$K at $(cat $K) after all, not $old"
ok "a second experiment on a knob in use refuses to start; both restore it; --undo waits its turn"
