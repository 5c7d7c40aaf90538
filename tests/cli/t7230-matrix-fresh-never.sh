#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7230: fsbench matrix --fresh never: ext4 and xfs, each with two mount options, two rounds.
# One image and one mkfs per filesystem type (mkfs_count 2 in the manifest, the first run of
# each type the only one with mkfs), the cells take turns on it mounted with their own
# options, and the report says the cells shared an aging filesystem. A bad --fresh is exit 2.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
need_cmd mkfs.xfs
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"

fsb matrix --fs ext4,xfs --mount-opts defaults --mount-opts noatime --fresh never --repeat 2 --size 300 \
    --no-db -o r -- tiotest -t 1 -f 4 -r 10 -b 4096 > out 2> err || fail "exit $?: $(cat err)"
M=r/manifest.json
# the manifest's figures with one jq, the 8 runs' mounts with one more (a jq costs ~50 ms of CPU)
jq_read v $M '.mkfs_count == 2 and .experiment.fresh == "never"' \
    '[.undo[] | select(.kind == "image")] | length == 2' \
    '[.runs[] | select(.cell | startswith("ext4")) | .mkfs] | .[0] == true and (.[1:] | all(. == false))' \
    '[.runs[] | select(.cell | startswith("xfs")) | .mkfs] | .[0] == true and (.[1:] | all(. == false))' \
    '[.runs[] | select(.status == "ok")] | length == 8'
[ "${v[0]}" = true ] || fail "mkfs_count: $(jq -c '{mkfs_count, fresh: .experiment.fresh}' $M)"
[ "${v[1]}" = true ] || fail "not two images"
runs=()
for fs in ext4 xfs; do
    for k in 1 2; do runs+=(r/runs/$fs-noatime/run-$k.json r/runs/$fs-defaults/run-$k.json); done
done
mapfile -t noatime < <(jq '[.. | .mount_options? // empty | strings] | any(test("noatime"))' "${runs[@]}")
[ "${#noatime[@]}" = 8 ] || fail "the runs' JSONs: ${noatime[*]}"
i=0 j=2
for fs in ext4 xfs; do
    [ "${v[j]}" = true ] || fail "$fs: not one mkfs at its first run: $(jq -c '[.runs[] | [.cell, .mkfs]]' $M)"
    j=$((j + 1))
    for k in 1 2; do
        [ "${noatime[i]}" = true ] || fail "$fs-noatime run $k not on a noatime mount"
        [ "${noatime[i + 1]}" = false ] || fail "$fs-defaults run $k on a noatime mount"
        i=$((i + 2))
    done
done
[ "${v[4]}" = true ] || fail "not 8 runs ok"
grep -q '^One filesystem per type (--fresh never, 2 made): the cells took turns on it' r/report.md ||
    fail "the report does not say so: $(head -5 r/report.md)"
[ -z "$(ls -A "$TMPDIR")" ] || fail "left: $(ls -A "$TMPDIR")"
ok "one mkfs per type, the cells in turn on it, said in the report"

expect_exit 2 fsb matrix --fresh sometimes -o x -- tiotest -t 1 -f 1 2> err
grep -q "is not per-run, per-cell or never" err || fail "$(cat err)"
ok "a bad --fresh: exit 2"
