#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (asserts how fast a timeout or a signal ends the run)
# t6030: fsbench matrix --after fsck with fake checkers first on PATH (the runner finds e2fsck
# by name in $PATH first: the after file's command is the fake's), on its own small loop ext4.
# A checker that sleeps and one that daemonizes a sleeper holding its output: with
# --after-timeout 1 (the second time as after-timeout = in the experiment file) the check is a
# finding, "timed out" (FINDING line, after file, manifest, summary.json, report.md first), the
# exit status that of the runs (0), no process of theirs left. A checker that prints escape
# sequences: its FINDING line and the report's terminal summary escaped. SIGINT while the check
# hangs at the default limit: exit 130 within 3 s (the teardown included), everything undone
# (no mount, loop device, image or scratch folder) and no fake process left.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
need_cmd losetup
need_cmd pgrep
. "$TESTS_DIR/cli/lib_fakecheck.sh"
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
cleanup() {
    fake_kill
    _lib_cleanup
}
trap cleanup EXIT
export PATH=$FAKE_BIN:$PATH

nothing_left() {
    local what=$1 left
    left=$(fake_left)
    [ -z "$left" ] || fail "$what: fake checker processes left: $left"
    ! grep -q "$TMPDIR" /proc/self/mountinfo || fail "$what: a mount left: $(grep "$TMPDIR" /proc/self/mountinfo)"
    for _ in 1 2 3 4 5 6 7 8 9 10; do losetup -a | grep -q "$TMPDIR" || break; nap 0.2; done
    ! losetup -a | grep -q "$TMPDIR" || fail "$what: a loop device left: $(losetup -a | grep "$TMPDIR")"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "$what: left in the scratch parent: $(ls -A "$TMPDIR")"
}

# matrix R [OPTIONS]: one cell, one run, --after fsck; the runner's own hang guard is 60 s
matrix() {
    local r=$1; shift
    timeout -s INT 60 "$FSBENCH" matrix --fs ext4 --repeat 1 --size 32M --after fsck --no-db \
        --max-other-cpu 100 -o "$r" "$@" -- tiotest -t 1 -f 4 -r 100 > out 2> err
}

# the limit in the dry run; bad values refused before anything is set up
fsb matrix --fs ext4 --size 32M --after fsck --dry-run -- tiotest -t 1 > out 2> err || fail "dry run: $(cat err)"
grep -q '^time limit of each check: auto, 610 s for the images$' out || fail "dry run, auto: $(cat out)"
fsb matrix --fs ext4 --after fsck --after-timeout 90 --dry-run -- tiotest -t 1 > out 2> err || fail "dry run: $(cat err)"
grep -q '^time limit of each check: 90 s$' out || fail "dry run, 90: $(cat out)"
for bad in 0 -5 1y 31d; do
    fsb matrix --fs ext4 --after fsck --after-timeout="$bad" --no-db -o "$SCRATCH/bad" -- tiotest -t 1 > out 2> err; rc=$?
    [ $rc = 2 ] && grep -q "option --after-timeout: '$bad' is not auto or a time" err && [ ! -e "$SCRATCH/bad" ] ||
        fail "--after-timeout '$bad': exit $rc: $(cat err)"
done
ok "the time limit in the dry run; bad values: exit 2, nothing set up"

for kind in sleeps daemonizes; do
    fake_tool e2fsck $kind
    R=$SCRATCH/r-$kind
    if [ $kind = sleeps ]; then
        matrix "$R" --after-timeout 1; rc=$?
    else
        printf '[experiment]\nname = tiotest\nafter-timeout = 1s\n' > exp.ini
        matrix "$R" exp.ini; rc=$?
    fi
    nothing_left "$kind"
    [ $rc = 0 ] || fail "$kind: matrix exit $rc: $(cat err)"
    grep -q "^fsbench matrix: FINDING after run 1/1 tiotest #1: e2fsck timed out: e2fsck did not finish within 1 s: timed out, its processes killed$" err ||
        fail "$kind: no timed-out finding: $(cat err)"
    grep -q 'FINDING: after 1 run the filesystem checker found errors or could not check' err ||
        fail "$kind: no closing finding line: $(cat err)"
    A=$R/runs/tiotest/after-run-1.json
    jq -e --arg bin "$FAKE_BIN/e2fsck" '.fsck.verdict == "failed" and .fsck.finding and .fsck.timed_out
        and .fsck.timeout_s == 1 and (.fsck.command | startswith($bin + " "))' "$A" > /dev/null ||
        fail "$kind: the after file: $(jq -c .fsck "$A")"
    jq -e '.runs[0].fsck_verdict == "failed" and .runs[0].fsck_finding and .runs[0].status == "ok"
        and .runs[0].after_status == "done"' "$R/manifest.json" > /dev/null ||
        fail "$kind: the manifest: $(jq -c '.runs[0]' "$R/manifest.json")"
    grep -q '^    tiotest run 1: e2fsck timed out: e2fsck did not finish within 1 s' out ||
        fail "$kind: the terminal summary: $(cat out)"
    jq -e '.findings | length == 1 and .[0].timed_out == true and .[0].verdict == "failed"' "$R/summary.json" > /dev/null ||
        fail "$kind: summary.json findings: $(jq -c .findings "$R/summary.json")"
    grep -q '^- cell tiotest, run 1: e2fsck timed out' "$R/report.md" ||
        fail "$kind: report.md: $(grep -A3 '^## Findings' "$R/report.md")"
    ok "a checker that $kind: timed out at 1 s, a finding, exit 0, nothing left"
done

fake_tool e2fsck escapes 4
R=$SCRATCH/r-esc
matrix "$R"; rc=$?
nothing_left "escapes"
[ $rc = 0 ] || fail "escapes: matrix exit $rc: $(cat err)"
grep -qF 'FINDING after run 1/1 tiotest #1: e2fsck found errors (exit 4): Inode 12 \x1b[31mred\x1b[0m \x1b]0;pwned\x07 \x9b 2J' err ||
    fail "escapes: the FINDING line: $(cat -v err)"
no_raw_escapes err && no_raw_escapes out || fail "escapes: raw: $(cat -v err out)"
ok "a checker that prints escape sequences: escaped in the FINDING line and the summary"

# SIGINT while the check hangs (the limit: auto, 610 s)
fake_tool e2fsck sleeps
R=$SCRATCH/r-int
"$FSBENCH" matrix --fs ext4 --repeat 1 --size 32M --after fsck --no-db --max-other-cpu 100 -o "$R" \
    -- tiotest -t 1 -f 4 -r 100 > out 2> err &
pid=$!
fake_wait_started
start=$(date +%s%N)
kill -INT $pid
for _ in $(seq 1 150); do kill -0 $pid 2>/dev/null || break; nap 0.1; done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
# the old runner waits for the sleeper: end it so that the runner can undo its set-up
kill -0 $pid 2>/dev/null && { fake_kill; wait $pid; fail "SIGINT: the runner still ran after $ms ms: $(cat err)"; }
wait $pid; rc=$?
nothing_left "SIGINT"
[ $rc = 130 ] || fail "SIGINT: exit $rc, expected 130: $(cat err)"
# the runner's teardown (unmount, loop device, image) is in it too: 3 s
[ $ms -lt 3000 ] || fail "SIGINT: took $ms ms"
grep -q "interrupted by SIGINT; everything set up is undone" err || fail "SIGINT: $(cat err)"
jq -e '.state == "interrupted" and .undo_complete == true and .runs[0].after_status == "interrupted"' \
    "$R/manifest.json" > /dev/null || fail "SIGINT: the manifest: $(jq -c '{state, undo_complete, r: .runs[0]}' "$R/manifest.json")"
ok "SIGINT during a hung check: exit 130 after $ms ms, everything undone, nothing left"
