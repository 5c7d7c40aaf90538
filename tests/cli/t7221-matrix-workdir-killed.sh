#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7221: fsbench matrix --target killed (SIGKILL) around the making of its subdirectory of the
# target, at each step (the test build's FSBENCH_TEST_MATRIX_KILL): the manifest names the
# directory before it exists, so --undo finds it. Killed after the name's record: nothing made,
# --undo says "never made". After the marker: --undo removes it (the manifest then has its name
# but no device and inode; the marker proves it). Between the mkdir and the marker (an mkdir and
# a setxattr apart): --undo leaves it, unproven, exit 1. Before, a kill after the mkdir and before
# the record's commit left a directory no record named (CI: t7220, "left in ... after --undo").
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
use_test_build
E=$(loop_fs ext4 64) || exit $?
in_target() { ls -A "$E" | grep -v '^lost+found$'; }

# kill_at STEP DIR: the runner killed at STEP, exit 137
kill_at() {
    local rc
    { FSBENCH_TEST_MATRIX_KILL=$1 "$FSBENCH" matrix --target e="$E" --no-db -o "$2" \
        -- tiotest -t 1 -f 1 -r 10 > out 2> err; } 2> /dev/null
    rc=$?
    [ "$rc" = 137 ] || fail "$1: exit $rc, expected 137 (killed): $(cat err)"
    jq -e --arg p "$E/" '[.undo[] | select(.kind == "workdir")] | length == 1 and
        (.[0].path | startswith($p + "fsbench-tiotest.")) and .[0].state == "pending" and (.[0] | has("ino") | not)' \
        "$2/manifest.json" > /dev/null || fail "$1: the record: $(jq -c '.undo' "$2/manifest.json")"
}

kill_at workdir-named a
[ -z "$(in_target)" ] || fail "workdir-named: made already: $(in_target)"
fsb matrix --undo a > out 2> err || fail "workdir-named: --undo exit $?: $(cat err)"
jq -e '[.undo[] | select(.kind == "workdir")][0] | .undone and .undo == "never made"' a/manifest.json > /dev/null ||
    fail "workdir-named: $(jq -c '.undo' a/manifest.json)"
ok "killed after the name's record: never made"

kill_at workdir-marked b
d=$(jq -r '.undo[] | select(.kind == "workdir") | .path' b/manifest.json)
[ "$(in_target)" = "${d##*/}" ] || fail "workdir-marked: in the target: $(in_target), recorded $d"
fsb matrix --undo b > out 2> err || fail "workdir-marked: --undo exit $?: $(cat err)"
[ -z "$(in_target)" ] || fail "workdir-marked: left after --undo: $(in_target)"
ok "killed after the marker: --undo removes the directory"

kill_at workdir-made c
d=$(jq -r '.undo[] | select(.kind == "workdir") | .path' c/manifest.json)
[ "$(in_target)" = "${d##*/}" ] || fail "workdir-made: in the target: $(in_target), recorded $d"
expect_exit 1 fsb matrix --undo c > out 2> err
grep -q 'left: not proven fsbench' err || fail "workdir-made: --undo said: $(cat err)"
[ "$(in_target)" = "${d##*/}" ] || fail "workdir-made: --undo touched the unproven directory"
rmdir "$d"
ok "killed between the mkdir and the marker: left, unproven, exit 1"
