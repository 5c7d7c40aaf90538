#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7221: fsbench matrix killed (SIGKILL) while it makes something of its own, at each step (the
# test build's FSBENCH_TEST_MATRIX_KILL): the manifest names what it makes before it exists, so
# --undo finds it. Killed after the name's record: nothing made, --undo says "never made", exit
# 0. After the marker (the record then has a name and no device and inode): --undo removes it,
# the marker its proof. Between a --target subdirectory's mkdir and its marker (a mkdir and a
# setxattr apart): --undo leaves it, unproven, exit 1. The things: the scratch directory, an
# image in it, a --target's subdirectory. Before, a kill after the mkdir (mkdtemp, the image's
# creation) and before the record's commit left what no record named (CI: t7220, "left in ...
# after --undo").
. "$(dirname "$0")/lib.sh"
need_matrix_ext4
use_test_build
E=$(loop_fs ext4 64) || exit $?
in_target() { ls -A "$E" | grep -v '^lost+found$'; }

# kill_at STEP DIR KIND ARG...: the runner killed at STEP (exit 137), the last KIND record
# pending, with a path and no inode
kill_at() {
    local step=$1 dir=$2 kind=$3 rc
    shift 3
    { FSBENCH_TEST_MATRIX_KILL=$step "$FSBENCH" matrix --no-db -o "$dir" "$@" \
        -- tiotest -t 1 -f 1 -r 10 > out 2> err; } 2> /dev/null
    rc=$?
    [ "$rc" = 137 ] || fail "$step: exit $rc, expected 137 (killed): $(cat err)"
    jq -e --arg k "$kind" '[.undo[] | select(.kind == $k)] | last | .state == "pending" and
        (.path | type == "string") and (has("ino") | not)' "$dir/manifest.json" > /dev/null ||
        fail "$step: the record: $(jq -c '.undo' "$dir/manifest.json")"
}
# undo_all STEP DIR: --undo exit 0, every entry undone, nothing of the experiment left in TMPDIR
undo_all() {
    fsb matrix --undo "$2" > out 2> err || fail "$1: --undo exit $?: $(cat err)"
    jq -e '[.undo[].undone] | all' "$2/manifest.json" > /dev/null ||
        fail "$1: not all undone: $(jq -c '.undo' "$2/manifest.json")"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "$1: left in TMPDIR: $(ls -A "$TMPDIR")"
}
how_of() { jq -r --arg k "$2" '[.undo[] | select(.kind == $k)] | last | .undo' "$1/manifest.json"; }

# the scratch directory and an image in it
IMG=(--fs ext4 --size 64)
kill_at dir-named s1 dir "${IMG[@]}"
[ -z "$(ls -A "$TMPDIR")" ] || fail "dir-named: made already: $(ls -A "$TMPDIR")"
undo_all dir-named s1
[ "$(how_of s1 dir)" = "never made" ] || fail "dir-named: $(jq -c '.undo' s1/manifest.json)"
kill_at dir-marked s2 dir "${IMG[@]}"
[ -n "$(ls -A "$TMPDIR")" ] || fail "dir-marked: nothing made"
undo_all dir-marked s2
ok "the scratch directory: never made, or removed"

kill_at image-named i1 image "${IMG[@]}"
undo_all image-named i1
[ "$(how_of i1 image)" = "never made" ] || fail "image-named: $(jq -c '.undo' i1/manifest.json)"
kill_at image-marked i2 image "${IMG[@]}"
[ -f "$(jq -r '[.undo[] | select(.kind == "image")] | last | .path' i2/manifest.json)" ] ||
    fail "image-marked: no image"
undo_all image-marked i2
[ "$(how_of i2 image)" = removed ] || fail "image-marked: $(jq -c '.undo' i2/manifest.json)"
ok "an image: never made, or removed with its directory"

# a --target's subdirectory
kill_at workdir-named a workdir --target e="$E"
[ -z "$(in_target)" ] || fail "workdir-named: made already: $(in_target)"
fsb matrix --undo a > out 2> err || fail "workdir-named: --undo exit $?: $(cat err)"
[ "$(how_of a workdir)" = "never made" ] || fail "workdir-named: $(jq -c '.undo' a/manifest.json)"
ok "a --target subdirectory killed after the name's record: never made"

kill_at workdir-marked b workdir --target e="$E"
d=$(jq -r '.undo[] | select(.kind == "workdir") | .path' b/manifest.json)
[ "$(in_target)" = "${d##*/}" ] || fail "workdir-marked: in the target: $(in_target), recorded $d"
fsb matrix --undo b > out 2> err || fail "workdir-marked: --undo exit $?: $(cat err)"
[ -z "$(in_target)" ] || fail "workdir-marked: left after --undo: $(in_target)"
ok "a --target subdirectory killed after the marker: --undo removes it"

kill_at workdir-made c workdir --target e="$E"
d=$(jq -r '.undo[] | select(.kind == "workdir") | .path' c/manifest.json)
[ "$(in_target)" = "${d##*/}" ] || fail "workdir-made: in the target: $(in_target), recorded $d"
expect_exit 1 fsb matrix --undo c > out 2> err
grep -q 'left: not proven fsbench' err || fail "workdir-made: --undo said: $(cat err)"
[ "$(in_target)" = "${d##*/}" ] || fail "workdir-made: --undo touched the unproven directory"
rmdir "$d"
ok "a --target subdirectory killed between the mkdir and the marker: left, unproven, exit 1"
