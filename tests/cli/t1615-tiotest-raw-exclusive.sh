#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1615 (root): -R holds each device with an exclusive open (O_EXCL) for the whole run, not just
# while checking it: a second fsbench -R run on the same loop device is refused while the first
# runs (EBUSY, exit 3, one line), and runs once the first has ended. A -d symlink re-pointed to
# another device between phases is a run error (exit 1) and that device is not written. The
# same device named twice is bad input (exit 2). Before: the second run started (exit 0) and
# wrote over the first one's region.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd losetup
[ -e /dev/loop-control ] || skip "no loop devices"
cd "$SCRATCH" || fail "cd"
truncate -s 32M a.img b.img || fail "truncate"
A=$(losetup -f --show a.img 2> err) || skip "cannot attach a loop device: $(cat err)"
B=$(losetup -f --show b.img 2> err) || { losetup -d "$A"; skip "cannot attach a second loop device: $(cat err)"; }
trap 'losetup -d "$A" 2> /dev/null; losetup -d "$B" 2> /dev/null; _lib_cleanup' EXIT
cases=0

# the first run: endless random writes on A
"$FSBENCH" tiotest -R -d "$A" -t 1 -f 8 -r 1000000000 -T > out1 2> err1 &
pid=$!
# (the workers' fd tables are their own: look in every thread's)
has_open() { ls -l /proc/$pid/task/*/fd 2> /dev/null | grep -q " -> $A\$"; }
for i in $(seq 100); do has_open && break; nap 0.05; done
has_open || { kill -KILL $pid; fail "the first run did not open $A: $(cat err1)"; }
sleep 0.3    # well inside the phases: the check at setup is long past
kill -0 $pid 2> /dev/null || fail "the first run ended early: $(cat err1)"
"$FSBENCH" tiotest -R -d "$A" -t 1 -f 1 -r 10 -T > out2 2> err2; rc=$?
[ "$rc" = 3 ] || { kill -KILL $pid; fail "second -R run on a busy device: exit $rc, expected 3: $(cat err2)"; }
grep -q "cannot use '$A': Device or resource busy" err2 && [ "$(wc -l < err2)" = 1 ] ||
    { kill -KILL $pid; fail "second -R run: message: $(cat err2)"; }
[ ! -s out2 ] || { kill -KILL $pid; fail "second -R run: printed results: $(cat out2)"; }
cases=$((cases + 1))
kill -INT $pid
wait $pid; rc=$?
[ "$rc" = 130 ] || fail "first run: exit $rc after SIGINT, expected 130: $(cat err1)"
"$FSBENCH" tiotest -R -d "$A" -t 1 -f 1 -r 10 -T > out2 2> err2 || fail "-R after the first run ended: exit $?: $(cat err2)"
cases=$((cases + 1))
ok "a device another -R run holds is refused (exit 3) for the whole run, free again after it"

# a -d symlink re-pointed from A to B between phases: B stays all zeros
ln -s "$A" dev
"$FSBENCH" tiotest -R -d "$SCRATCH/dev" -t 1 -f 4 -r 100 -T --between-phases "ln -sfn '$B' '$SCRATCH/dev'" > out 2> err; rc=$?
[ "$rc" = 1 ] || fail "symlink re-pointed: exit $rc, expected 1: $(cat err)"
grep -q "open '$SCRATCH/dev': not the device fsbench opened at the start" err || fail "symlink re-pointed: message: $(cat err)"
[ "$(tr -d '\0' < b.img | wc -c)" = 0 ] || fail "symlink re-pointed: $B was written"
cases=$((cases + 1))
ok "-R: a -d symlink that leads to another device later is refused, that device untouched"

ln -sfn "$A" dev
"$FSBENCH" tiotest -R -d "$A" -d "$SCRATCH/dev" -t 2 -f 1 -r 10 -T > out 2> err; rc=$?
[ "$rc" = 2 ] && grep -q "same device" err || fail "a device named twice: exit $rc: $(cat err)"
cases=$((cases + 1))
ok "$cases raw-device cases"
