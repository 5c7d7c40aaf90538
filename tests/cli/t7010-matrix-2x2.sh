#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7010: a 2x2 matrix (ext4, xfs x defaults, noatime) on loop images completes: exit 0, every
# artefact the runner writes exists (manifest, each run's JSON and text), each run really ran on
# its cell's filesystem with its cell's mount options (read back from the run's own JSON), the
# order is interleaved rounds, and nothing is left: no mount, loop device, image or folder.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
need_cmd mkfs.xfs
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"

fsb matrix --fs ext4,xfs --mount-opts defaults --mount-opts noatime --repeat 2 --size 320 \
    --max-other-cpu 100 -o "$SCRATCH/r" -- tiotest -t 1 -f 2 -r 50 --profile > out 2> err ||
    fail "matrix exit $?: $(cat err)"
M=$SCRATCH/r/manifest.json
[ -s "$M" ] || fail "no manifest"
jq -e '.schema == "fsbench-matrix" and .version == 1 and .state == "done" and .undo_complete == true' "$M" \
    >/dev/null || fail "manifest head: $(jq -c '{schema, version, state, undo_complete}' "$M")"
jq -e '.kernel_release == "'"$(uname -r)"'" and (.host.hostname | length > 0) and (.fsbench_version | length > 0)' \
    "$M" >/dev/null || fail "manifest: kernel, host, version"
jq -e '.experiment.workload == "tiotest" and (.experiment.axes | length) == 2 and (.experiment.cells | length) == 4
       and .target.kind == "image"' "$M" >/dev/null || fail "manifest: experiment"
jq -e '[.experiment.cells[].config_hash | test("^fnv1a64:[0-9a-f]{16}$")] | all' "$M" >/dev/null ||
    fail "manifest: config hashes"
[ "$(jq '[.experiment.cells[].config_hash] | unique | length' "$M")" = 4 ] || fail "hashes not distinct"
[ "$(jq '.runs | length' "$M")" = 8 ] || fail "not 8 runs: $(jq -c '.runs' "$M")"
jq -e '[.runs[] | .status == "ok" and .exit == 0 and (.other_cpu_pct | type) == "number"
        and (.other_cpu_flagged | type) == "boolean"] | all' "$M" >/dev/null || fail "a run not ok"
# rounds: each cell once in runs 1-4 and once in 5-8, repeats numbered from 1
[ "$(jq '[.runs[0:4][].cell] | unique | length' "$M")" = 4 ] || fail "first round is not every cell"
[ "$(jq '[.runs[4:8][] | select(.repeat == 2)] | length' "$M")" = 4 ] || fail "second round"
[ "$(jq '[.runs[].order]' -c "$M")" = "[1,2,3,4,5,6,7,8]" ] || fail "order positions"
# each run's JSON: a tiotest result on the cell's filesystem with its mount options
for i in $(seq 0 7); do
    cell=$(jq -r ".runs[$i].cell" "$M")
    json=$SCRATCH/r/$(jq -r ".runs[$i].json" "$M")
    txt=$SCRATCH/r/$(jq -r ".runs[$i].text" "$M")
    [ -s "$json" ] && [ -s "$txt" ] || fail "run $i ($cell): missing $json or $txt"
    grep -q 'Tiotest results' "$txt" || fail "run $i: classic output missing in $txt"
    fs=$(jq -r --arg c "$cell" '.experiment.cells[] | select(.name == $c) | .axes.fs' "$M")
    opts=$(jq -r --arg c "$cell" '.experiment.cells[] | select(.name == $c) | .axes.mount' "$M")
    jq -e --arg fs "$fs" --arg c "$cell" '.workload == "tiotest" and .label == $c
        and .environment.targets[0].fstype == $fs' "$json" >/dev/null ||
        fail "run $i: $json is not a tiotest result of $cell on $fs"
    mo=$(jq -r '.environment.targets[0].mount_options' "$json")
    case $opts in
    noatime) [[ $mo == *noatime* ]] || fail "run $i ($cell): mounted with $mo" ;;
    *) [[ $mo != *noatime* ]] || fail "run $i ($cell): noatime on a defaults cell" ;;
    esac
done
# mkfs once per cell (tiotest removes its files), loop devices with direct I/O
[ "$(jq '[.applied[] | select(.command | startswith("mkfs."))] | length' "$M")" = 4 ] ||
    fail "not one mkfs per cell: $(jq -c '[.applied[].command]' "$M")"
jq -e '[.undo[] | select(.kind == "loop") | .direct_io] | all' "$M" >/dev/null ||
    echo "note: direct I/O was refused under $TMPDIR"
jq -e '[.undo[].undone] | all' "$M" >/dev/null || fail "undo entries left: $(jq -c '[.undo[] | select(.undone | not)]' "$M")"
# the report of the experiment: every artefact, and the runs in the history database
jq -e '.report.status == "written"' "$M" >/dev/null || fail "report not written: $(jq -c .report "$M")"
for f in summary.json report.md report.html; do
    [ -s "$SCRATCH/r/$f" ] || fail "report artefact $f missing: $(ls "$SCRATCH/r")"
done
ls "$SCRATCH/r"/*.svg >/dev/null 2>&1 && ls "$SCRATCH/r"/*.png >/dev/null 2>&1 || fail "no plots: $(ls "$SCRATCH/r")"
jq -e '.cells | length == 4' "$SCRATCH/r/summary.json" >/dev/null || fail "summary.json: not 4 cells"
jq -e '[.effects[] | select(.axis == "fs" or .axis == "mount")] | length > 0' "$SCRATCH/r/summary.json" \
    >/dev/null || fail "summary.json: no effect of either axis"
jq -e '.interactions | length > 0' "$SCRATCH/r/summary.json" >/dev/null || fail "summary.json: no interaction rows"
[ "$(fsb history list | grep -c .)" -ge 1 ] || fail "the runs are not in the history database"
# with --profile (when perf is permitted), the cells' profiles merged over their runs, side by side
if ! grep -q 'running without a profile' "$SCRATCH/r"/runs/*/run-1.txt err 2>/dev/null; then
    grep -qi 'profile' "$SCRATCH/r/report.md" || fail "report.md has no profile tables"
fi
# nothing left behind
scratch=$(jq -r '.target.scratch' "$M")
[ ! -e "$scratch" ] || fail "scratch folder left: $scratch"
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left: $(grep "$SCRATCH" /proc/self/mountinfo)"
! losetup -a | grep -q "$TMPDIR" || fail "a loop device left: $(losetup -a | grep "$TMPDIR")"
# the runs are ordinary results: compare reads them
a=$(jq -r '.runs[0].json' "$M"); b=$(jq -r '.runs[1].json' "$M")
fsb compare "$SCRATCH/r/$a" "$SCRATCH/r/$b" > cmp || fail "compare cannot read the runs"
echo "ok: 2x2 matrix, 8 runs, every artefact, nothing left"
