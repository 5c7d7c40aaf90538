#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: exclusive lease-break-time (writes /proc/sys/fs/lease-break-time or checks that it is unchanged)
# t7015: an experiment file with listed cells, a knob axis and a constant knob, fs_mark filling
# ext4 (so a new filesystem before every run by default), a warm-up run, cache drops and bdi
# limits: every run fills a fresh filesystem, each knob holds its cell's value during the run
# (the manifest's record) and its old value after, the warm-up is recorded apart.
. "$(dirname "$0")/lib.sh"
need_matrix_ext4
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
# the manifest's figures with one jq (a jq costs ~50 ms of CPU); a failure's diagnostic reads more
export K1 K2 old1
jq_read v "$M" '.state == "done" and .experiment.fresh == "per-run" and .experiment.name == "fill"
       and (.experiment.cells | map(.name)) == ["a", "b"]' \
    '.runs | length' \
    '.runs[0].warmup == true and .runs[0].order == 0 and (.runs[0].json | endswith("warmup.json"))
       and ([.runs[1:][] | .warmup == false and .status == "ok"] | all)' \
    '[.applied[] | select(.command | startswith("mkfs.ext4"))] | length' \
    '[.applied[] | select(.command | contains("drop_caches"))] | length' \
    '[.runs[] | .mkfs] | all' \
    '[.runs[1:5][].json]' \
    '[.undo[] | select(.kind == "knob" and .path == $ENV.K1 and .cell == "a") | .value == "41" and .readback == "41"
        and .previous == $ENV.old1 and .undone and (.undo | startswith("restored"))] | (length > 0 and all)' \
    '[.undo[] | select(.kind == "knob" and .path == $ENV.K1 and .cell == "b") | .value == "42" and .readback == "42"
        and .previous == $ENV.old1 and .undone and (.undo | startswith("restored"))] | (length > 0 and all)' \
    '[.undo[] | select(.kind == "knob" and .path == $ENV.K2)] | length' \
    '[.undo[] | select(.kind == "bdi")] | (length == 10) and
       ([.[] | .undone and (.undo | startswith("restored") or startswith("holds"))
         and (.path | test("^/sys/class/bdi/.*/(max_ratio_fine|strict_limit)$"))] | all)' \
    '.target.scratch'
[ "${v[0]}" = true ] || fail "manifest: $(jq -c '{state, e: .experiment | {fresh, name, cells: [.cells[].name]}}' "$M")"
[ "${v[1]}" = 5 ] || fail "not 4 runs and a warm-up"
[ "${v[2]}" = true ] || fail "runs: $(jq -c '[.runs[] | {cell, warmup, status, json}]' "$M")"
# a fresh filesystem every run, warm-up included; a cache drop before each
[ "${v[3]}" = 5 ] || fail "mkfs per run"
[ "${v[4]}" = 5 ] || fail "drops"
[ "${v[5]}" = true ] || fail "a run without mkfs"
# every run filled its filesystem: fs_mark's fill ended full, the run is complete (one jq for the 4)
mapfile -t jsons < <(jq -r '.runs[1:5][].json' "$M")
[ "${#jsons[@]}" = 4 ] || fail "runs 1-4: ${v[6]}"
mapfile -t full < <(jq '.end.reason == "filesystem_full" and (.iterations | length > 1)' "${jsons[@]/#/$SCRATCH/r/}")
for i in 1 2 3 4; do
    json=$SCRATCH/r/${jsons[i - 1]}
    [ "${full[i - 1]:-}" = true ] || fail "run $i did not fill its filesystem: $(jq -c .end "$json")"
done
# knobs: written per run with the cell's value over the old one, then restored
[ "${v[7]}" = true ] || fail "knob records of cell a: $(jq -c '[.undo[] | select(.kind == "knob")]' "$M")"
[ "${v[8]}" = true ] || fail "knob records of cell b: $(jq -c '[.undo[] | select(.kind == "knob")]' "$M")"
[ "${v[9]}" = 5 ] || fail "the constant knob is not written before every run"
# bdi limits: the loop device's, set during each run and restored
# (max_bytes is kept by the kernel as max_ratio_fine: that is what is saved and restored)
[ "${v[10]}" = true ] || fail "bdi records: $(jq -c '[.undo[] | select(.kind == "bdi")][0:2]' "$M")"
while IFS=$US read -r f want; do
    [ "$(<"$f")" = "$want" ] || fail "$f left at $(<"$f"), was $want"
done < <(jq -r '.undo as $u | [$u[] | select(.kind == "bdi") | .path] | unique[]
    | . as $f | [$f, ([$u[] | select(.path == $f)][0].previous | tostring)] | join("\u001f")' "$M")
[ -s "$SCRATCH/r/runs/a/fs_log.txt" ] || fail "fs_mark's default log is not in the cell's directory"
[ ! -e "${v[11]}" ] || fail "scratch left"
! losetup -a | grep -q "$TMPDIR" || fail "a loop device left"
echo "ok: experiment file, listed cells, knobs, fill with fresh filesystems, warm-up, bdi"
