#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (asserts how fast a timeout or a signal ends the run)
# t6020: fsbench __after's time limit, escaping and exit status, with fake checkers first on
# PATH (fsbench finds a tool by name in $PATH first: the fake's path is the JSON's command) on a
# small unmounted ext4 loop device. A checker that sleeps, and one that daemonizes a sleeper
# holding its output and exits 0: --after-timeout 1 ends each in about 1 s, the check is a
# finding (CHECK FAILED, timed out; JSON verdict failed, timed_out, timeout_s), exit 1, and no
# process of theirs survives. The real e2fsck's limit is auto: 600 s plus 10 s per GiB (610 s
# here). SIGINT during a hung check: exit 130 within 2 s, nothing left running. Escape sequences
# a checker or e2freefrag prints reach the terminal escaped. A mounted device: exit 3 from fsck
# and freespace alike, nothing run. Bad --after-timeout values: exit 2.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
need_cmd e2fsck
need_cmd losetup
need_cmd pgrep
. "$TESTS_DIR/cli/lib_fakecheck.sh"
LOOP=
cleanup() {
    fake_kill
    [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
    _lib_cleanup
}
trap cleanup EXIT

truncate -s 32M e.img && mkfs.ext4 -q -F e.img > /dev/null 2>&1 || fail "mkfs.ext4"
LOOP=$(losetup --find --show e.img) || fail "losetup"

# the real checker, its limit auto: 600 s + 10 s for the image's (rounded up) GiB
fsb __after fsck "$LOOP" ext4 --json real.json > out 2> err || fail "real e2fsck: exit $?: $(cat err) $(cat out)"
jq -e '.verdict == "clean" and .timeout_s == 610 and .timed_out == false' real.json > /dev/null ||
    fail "real e2fsck JSON: $(cat real.json)"
grep -q "time limit 610 s" out || fail "the limit is not said: $(cat out)"
ok "the real e2fsck: clean, time limit auto (610 s)"

for bad in 0 0.5 -1 abc 10x 31d 3000000; do
    fsb __after fsck "$LOOP" ext4 --after-timeout "$bad" > out 2> err; rc=$?
    [ $rc = 2 ] && grep -q "option --after-timeout: '$bad' is not auto or a time" err ||
        fail "--after-timeout $bad: exit $rc: $(cat err)"
done
ok "bad --after-timeout values: exit 2"

export PATH=$FAKE_BIN:$PATH
for kind in sleeps daemonizes; do
    fake_tool e2fsck $kind
    start=$(date +%s%N)
    timeout 30 "$FSBENCH" __after fsck "$LOOP" ext4 --after-timeout 1 --json $kind.json > out 2> err; rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ $rc != 124 ] || fail "$kind: __after hung (killed after 30 s)"
    left=$(fake_left)
    [ -z "$left" ] || fail "$kind: fake checker processes left: $left"
    [ $rc = 1 ] || fail "$kind: exit $rc, expected 1: $(cat err) $(cat out)"
    [ $ms -ge 1000 ] && [ $ms -lt 5000 ] || fail "$kind: took $ms ms (limit 1 s)"
    grep -q "^fsck ext4 $LOOP: CHECK FAILED: e2fsck did not finish within 1 s: timed out, its processes killed$" out ||
        fail "$kind: $(cat out)"
    jq -e --arg bin "$FAKE_BIN/e2fsck" '.verdict == "failed" and .finding == true and .timed_out == true
        and .timeout_s == 1 and (.command | startswith($bin + " -f -n "))' $kind.json > /dev/null ||
        fail "$kind JSON: $(cat $kind.json)"
    ok "a checker that $kind: timed out after $ms ms, a finding (exit 1), nothing left"
done
jq -e '.exit_status == 0 and .signal == null' daemonizes.json > /dev/null ||
    fail "the daemonizing checker exited 0 itself: $(cat daemonizes.json)"

# SIGINT while the check hangs, at the default limit (auto)
fake_tool e2fsck sleeps
"$FSBENCH" __after fsck "$LOOP" ext4 --json int.json > out 2> err &
pid=$!
fake_wait_started
start=$(date +%s%N)
kill -INT $pid
for _ in $(seq 1 150); do kill -0 $pid 2>/dev/null || break; nap 0.1; done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
kill -0 $pid 2>/dev/null && { fake_kill; wait $pid; fail "SIGINT: __after still running after $ms ms"; }
wait $pid; rc=$?
left=$(fake_left)
[ -z "$left" ] || fail "SIGINT: fake checker processes left: $left"
[ $rc = 130 ] || fail "SIGINT: exit $rc, expected 130: $(cat err)"
[ $ms -lt 2000 ] || fail "SIGINT: took $ms ms"
grep -q "interrupted by SIGINT" err || fail "SIGINT: $(cat err)"
[ ! -e int.json ] || fail "SIGINT: a JSON written: $(cat int.json)"
ok "SIGINT during a hung check: exit 130 after $ms ms, nothing left"

# escape sequences from the checker (errors found) and from e2freefrag (failed)
fake_tool e2fsck escapes 4
fsb __after fsck "$LOOP" ext4 --json esc.json > out 2> err; rc=$?
[ $rc = 1 ] || fail "escapes: exit $rc: $(cat err)"
grep -q '^fsck ext4 .*: ERRORS FOUND by e2fsck (exit 4)$' out || fail "escapes: $(cat out)"
grep -qF '  | Inode 12 \x1b[31mred\x1b[0m \x1b]0;pwned\x07 \x9b 2J' out || fail "escapes: not escaped: $(cat -v out)"
no_raw_escapes out && no_raw_escapes err || fail "escapes: raw: $(cat -v out err)"
fake_tool e2freefrag escapes 1
fsb __after freespace "$LOOP" ext4 > out 2> err; rc=$?
[ $rc = 1 ] || fail "e2freefrag escapes: exit $rc: $(cat err)"
grep -qF 'absent: e2freefrag failed (exit 1): Inode 12 \x1b[31mred' out || fail "e2freefrag escapes: $(cat -v out)"
no_raw_escapes out && no_raw_escapes err || fail "e2freefrag escapes: raw: $(cat -v out err)"
ok "escape sequences from e2fsck and e2freefrag: escaped"

# the same mounted device: both checks refuse it alike, nothing run
rm -f "$FAKE_BIN/e2fsck" "$FAKE_BIN/e2freefrag"
mkdir -p m && mount "$LOOP" m || fail "mount $LOOP"
echo "$SCRATCH/m" >> "$_MOUNTS_FILE"
for check in fsck freespace; do
    fsb __after $check "$LOOP" ext4 --json busy.json > out 2> err; rc=$?
    [ $rc = 3 ] || fail "mounted $check: exit $rc, expected 3: $(cat err) $(cat out)"
    grep -q "is mounted or in use" err && [ ! -s out ] && [ ! -e busy.json ] || fail "mounted $check: $(cat err) $(cat out)"
done
umount m || fail "umount"
ok "a mounted device: fsck and freespace both exit 3, nothing run"
