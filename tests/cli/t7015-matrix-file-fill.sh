#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: exclusive lease-break-time (writes /proc/sys/fs/lease-break-time or checks that it is unchanged)
# t7015: an experiment file with listed cells, a knob axis and a constant knob, fs_mark filling
# ext4 (so a new filesystem before every run by default), a warm-up run, cache drops and bdi
# limits: every run fills a fresh filesystem, each knob holds its cell's value during the run
# (the manifest's record) and its old value after, the warm-up is recorded apart.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
K1=/proc/sys/fs/lease-break-time K2=/proc/sys/fs/dir-notify-enable
[ -w $K1 ] && [ -w $K2 ] || skip "no $K1 or $K2 to write here"
old1=$(cat $K1) old2=$(cat $K2)

cat > fill.ini <<INI
; fs_mark filling ext4: delalloc against nodelalloc, a knob axis on top
[experiment]
name = fill
workload = fs_mark
args = -D 4 -n 100 -t 2 -s 16384
args = -F -S 0
repeat = 2
size = 48M
warmup = yes
drop-caches = yes
bdi-max-bytes = 64M
bdi-strict-limit = 1
max-other-cpu = 100

[axis alloc]
kind = mount
values = delalloc nodelalloc

[axis lease]
knob = $K1
values = 41 42
labels = short long

[knob notify]
path = $K2
value = $((1 - old2))

[cell a]
alloc = delalloc
lease = short

[cell b]
alloc = nodelalloc
lease = long
INI
fsb matrix fill.ini -o "$SCRATCH/r" > out 2> err || fail "matrix exit $?: $(cat err)"
M=$SCRATCH/r/manifest.json
[ "$(cat $K1)" = "$old1" ] && [ "$(cat $K2)" = "$old2" ] || fail "knobs not restored: $(cat $K1) $(cat $K2)"
jq -e '.state == "done" and .experiment.fresh == "per-run" and .experiment.name == "fill"
       and (.experiment.cells | map(.name)) == ["a", "b"]' "$M" >/dev/null ||
    fail "manifest: $(jq -c '{state, e: .experiment | {fresh, name, cells: [.cells[].name]}}' "$M")"
[ "$(jq '.runs | length' "$M")" = 5 ] || fail "not 4 runs and a warm-up"
jq -e '.runs[0].warmup == true and .runs[0].order == 0 and (.runs[0].json | endswith("warmup.json"))
       and ([.runs[1:][] | .warmup == false and .status == "ok"] | all)' "$M" >/dev/null ||
    fail "runs: $(jq -c '[.runs[] | {cell, warmup, status, json}]' "$M")"
# a fresh filesystem every run, warm-up included; a cache drop before each
[ "$(jq '[.applied[] | select(.command | startswith("mkfs.ext4"))] | length' "$M")" = 5 ] || fail "mkfs per run"
[ "$(jq '[.applied[] | select(.command | contains("drop_caches"))] | length' "$M")" = 5 ] || fail "drops"
jq -e '[.runs[] | .mkfs] | all' "$M" >/dev/null || fail "a run without mkfs"
# every run filled its filesystem: fs_mark's fill ended full, the run is complete
for i in 1 2 3 4; do
    json=$SCRATCH/r/$(jq -r ".runs[$i].json" "$M")
    jq -e '.end.reason == "filesystem_full" and (.iterations | length > 1)' "$json" >/dev/null ||
        fail "run $i did not fill its filesystem: $(jq -c .end "$json")"
done
# knobs: written per run with the cell's value over the old one, then restored
for c in a b; do
    want=$([ $c = a ] && echo 41 || echo 42)
    jq -e --arg c $c --arg k $K1 --arg v "$want" --arg o "$old1" '[.undo[] | select(.kind == "knob" and .path == $k
        and .cell == $c) | .value == $v and .readback == $v and .previous == $o and .undone
        and (.undo | startswith("restored"))] | (length > 0 and all)' "$M" >/dev/null ||
        fail "knob records of cell $c: $(jq -c '[.undo[] | select(.kind == "knob")]' "$M")"
done
[ "$(jq --arg k $K2 '[.undo[] | select(.kind == "knob" and .path == $k)] | length' "$M")" = 5 ] ||
    fail "the constant knob is not written before every run"
# bdi limits: the loop device's, set during each run and restored
# (max_bytes is kept by the kernel as max_ratio_fine: that is what is saved and restored)
jq -e '[.undo[] | select(.kind == "bdi")] | (length == 10) and
       ([.[] | .undone and (.undo | startswith("restored") or startswith("holds"))
         and (.path | test("^/sys/class/bdi/.*/(max_ratio_fine|strict_limit)$"))] | all)' "$M" \
    >/dev/null || fail "bdi records: $(jq -c '[.undo[] | select(.kind == "bdi")][0:2]' "$M")"
for f in $(jq -r '.undo[] | select(.kind == "bdi") | .path' "$M" | sort -u); do
    want=$(jq -r --arg f "$f" '[.undo[] | select(.path == $f)][0].previous' "$M")
    [ "$(cat "$f")" = "$want" ] || fail "$f left at $(cat "$f"), was $want"
done
[ -s "$SCRATCH/r/runs/a/fs_log.txt" ] || fail "fs_mark's default log is not in the cell's directory"
[ ! -e "$(jq -r .target.scratch "$M")" ] || fail "scratch left"
! losetup -a | grep -q "$TMPDIR" || fail "a loop device left"
echo "ok: experiment file, listed cells, knobs, fill with fresh filesystems, warm-up, bdi"
