#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7012: under --fresh per-run the cells take turns on one image and loop device (fs.img): every
# run's JSON names the same backing file and loop device, each run made its filesystem anew and
# mounted it with its own cell's options, the manifest says target.images "one" and undoes one
# image and one loop device. Under per-cell each cell has its own (images "per-cell"). Nothing is
# left. (Two images for two cells put where each lies on the host's disk, and its loop device's
# workers, into every round's difference between the cells: pairing cannot take that out.)
. "$(dirname "$0")/lib.sh"
need_matrix_ext4

# matrix FRESH: a 2-cell ext4 experiment of 2 rounds into $SCRATCH/FRESH
matrix() {
    fsb matrix --fs ext4 --mount-opts defaults --mount-opts noatime --repeat 2 --fresh "$1" --size 64 \
        --max-other-cpu 100 --no-db -o "$SCRATCH/$1" -- tiotest -t 1 -f 2 -r 50 > out 2> err ||
        fail "matrix --fresh $1: exit $?: $(cat err)"
    M=$SCRATCH/$1/manifest.json
}

matrix per-run
jq_read v "$M" '.target.images' \
    '[.undo[] | select(.kind == "image")] | length' '[.undo[] | select(.kind == "loop")] | length' \
    '[.undo[] | select(.kind == "image") | .path | endswith("/fs.img")] | all' \
    '[.runs[] | .mkfs == true and .status == "ok"] | all' '.runs | length' '[.undo[].undone] | all' \
    '.target.scratch' '[.runs[].json] | join(" ")'
[ "${v[0]}" = one ] || fail "per-run: target.images ${v[0]}"
[ "${v[1]} ${v[2]}" = "1 1" ] || fail "per-run: ${v[1]} images, ${v[2]} loop devices: $(jq -c '[.undo[].kind]' "$M")"
[ "${v[3]}" = true ] || fail "per-run: the image is not fs.img: $(jq -c '[.undo[] | select(.kind == "image") | .path]' "$M")"
[ "${v[4]} ${v[5]}" = "true 4" ] || fail "per-run: not 4 runs each on a new filesystem: $(jq -c '[.runs[] | {cell, mkfs, status}]' "$M")"
[ "${v[6]}" = true ] || fail "per-run: undo entries left"
[ ! -e "${v[7]}" ] || fail "per-run: scratch folder left: ${v[7]}"
# the runs' own view: one backing file and one loop device, each cell's mount options
mapfile -t got < <(cd "$SCRATCH/per-run" && jq -r '[.label, .environment.targets[0].block_device.backing_file,
    .environment.targets[0].source, .environment.targets[0].mount_options] | join(" ")' ${v[8]})
[ "${#got[@]}" = 4 ] || fail "per-run: the runs' JSONs: ${got[*]}"
[ "$(printf '%s\n' "${got[@]}" | cut -d' ' -f2,3 | sort -u | wc -l)" = 1 ] ||
    fail "per-run: the runs were on different images or devices: ${got[*]}"
for g in "${got[@]}"; do
    case $g in
    "noatime "*noatime*) ;;
    "defaults "*noatime*) fail "per-run: noatime on a defaults run: $g" ;;
    "defaults "*) ;;
    *) fail "per-run: $g" ;;
    esac
done
ok "--fresh per-run: one image and loop device for both cells, each run its own filesystem and options"

matrix per-cell
jq_read v "$M" '.target.images' \
    '[.undo[] | select(.kind == "image")] | length' '[.undo[] | select(.kind == "loop")] | length' \
    '[.undo[].undone] | all'
[ "${v[0]} ${v[1]} ${v[2]} ${v[3]}" = "per-cell 2 2 true" ] ||
    fail "per-cell: images ${v[0]}, ${v[1]} images, ${v[2]} loop devices, undone ${v[3]}"
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left: $(grep "$SCRATCH" /proc/self/mountinfo)"
! losetup -a | grep -q "$TMPDIR" || fail "a loop device left: $(losetup -a | grep "$TMPDIR")"
ok "--fresh per-cell: an image per cell; nothing left"
