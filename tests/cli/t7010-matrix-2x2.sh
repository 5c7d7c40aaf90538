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
# the manifest's figures with one jq (a jq costs ~50 ms of CPU); a failure's diagnostic reads more
jq_read v "$M" \
    '.schema == "fsbench-matrix" and .version == 1 and .state == "done" and .undo_complete == true' \
    '.kernel_release == "'"$(uname -r)"'" and (.host.hostname | length > 0) and (.fsbench_version | length > 0)' \
    '.experiment.workload == "tiotest" and (.experiment.axes | length) == 2 and (.experiment.cells | length) == 4
       and .target.kind == "image"' \
    '[.experiment.cells[].config_hash | test("^fnv1a64:[0-9a-f]{16}$")] | all' \
    '[.experiment.cells[].config_hash] | unique | length' \
    '.runs | length' \
    '[.runs[] | .status == "ok" and .exit == 0 and (.other_cpu_pct | type) == "number"
        and (.other_cpu_flagged | type) == "boolean"] | all' \
    '[.runs[0:4][].cell] | unique | length' \
    '[.runs[4:8][] | select(.repeat == 2)] | length' \
    '[.runs[].order]' \
    '[.applied[] | select(.command | startswith("mkfs."))] | length' \
    '[.undo[] | select(.kind == "loop") | .direct_io] | all' \
    '[.undo[].undone] | all' \
    '.report.status == "written"' \
    '.target.scratch' \
    '.runs[0].json' '.runs[1].json'
[ "${v[0]}" = true ] || fail "manifest head: $(jq -c '{schema, version, state, undo_complete}' "$M")"
[ "${v[1]}" = true ] || fail "manifest: kernel, host, version"
[ "${v[2]}" = true ] || fail "manifest: experiment"
[ "${v[3]}" = true ] || fail "manifest: config hashes"
[ "${v[4]}" = 4 ] || fail "hashes not distinct"
[ "${v[5]}" = 8 ] || fail "not 8 runs: $(jq -c '.runs' "$M")"
[ "${v[6]}" = true ] || fail "a run not ok"
# rounds: each cell once in runs 1-4 and once in 5-8, repeats numbered from 1
[ "${v[7]}" = 4 ] || fail "first round is not every cell"
[ "${v[8]}" = 4 ] || fail "second round"
[ "${v[9]}" = "[1,2,3,4,5,6,7,8]" ] || fail "order positions"
# each run's JSON: a tiotest result on the cell's filesystem with its mount options (the runs'
# files and cells from one jq, what their JSONs say from one more)
mapfile -t rows < <(jq -r '.experiment.cells as $cs | .runs[0:8][] | . as $r
    | (first($cs[] | select(.name == $r.cell)) // {axes: {}}) as $c
    | [.cell, .json, .text, $c.axes.fs, $c.axes.mount] | map(tostring) | join("\u001f")' "$M")
[ "${#rows[@]}" = 8 ] || fail "runs of the manifest: ${rows[*]}"
jsons=()
for i in "${!rows[@]}"; do
    IFS=$US read -r cell json txt fs opts <<<"${rows[i]}"
    json=$SCRATCH/r/$json txt=$SCRATCH/r/$txt
    [ -s "$json" ] && [ -s "$txt" ] || fail "run $i ($cell): missing $json or $txt"
    grep -q 'Tiotest results' "$txt" || fail "run $i: classic output missing in $txt"
    jsons+=("$json")
done
mapfile -t got < <(jq -r '[.workload, .label, .environment.targets[0].fstype, .environment.targets[0].mount_options]
    | map(tostring) | join("\u001f")' "${jsons[@]}")
[ "${#got[@]}" = 8 ] || fail "the runs' JSONs: ${got[*]}"
for i in "${!rows[@]}"; do
    IFS=$US read -r cell json txt fs opts <<<"${rows[i]}"
    IFS=$US read -r workload label fstype mo <<<"${got[i]}"
    [ "$workload" = tiotest ] && [ "$label" = "$cell" ] && [ "$fstype" = "$fs" ] ||
        fail "run $i: $json is not a tiotest result of $cell on $fs"
    case $opts in
    noatime) [[ $mo == *noatime* ]] || fail "run $i ($cell): mounted with $mo" ;;
    *) [[ $mo != *noatime* ]] || fail "run $i ($cell): noatime on a defaults cell" ;;
    esac
done
# mkfs once per cell (tiotest removes its files), loop devices with direct I/O
[ "${v[10]}" = 4 ] || fail "not one mkfs per cell: $(jq -c '[.applied[].command]' "$M")"
[ "${v[11]}" = true ] || echo "note: direct I/O was refused under $TMPDIR"
[ "${v[12]}" = true ] || fail "undo entries left: $(jq -c '[.undo[] | select(.undone | not)]' "$M")"
# the report of the experiment: every artefact, and the runs in the history database
[ "${v[13]}" = true ] || fail "report not written: $(jq -c .report "$M")"
for f in summary.json report.md report.html; do
    [ -s "$SCRATCH/r/$f" ] || fail "report artefact $f missing: $(ls "$SCRATCH/r")"
done
ls "$SCRATCH/r"/*.svg >/dev/null 2>&1 && ls "$SCRATCH/r"/*.png >/dev/null 2>&1 || fail "no plots: $(ls "$SCRATCH/r")"
jq_read s "$SCRATCH/r/summary.json" '.cells | length == 4' \
    '[.effects[] | select(.axis == "fs" or .axis == "mount")] | length > 0' '.interactions | length > 0'
[ "${s[0]}" = true ] || fail "summary.json: not 4 cells"
[ "${s[1]}" = true ] || fail "summary.json: no effect of either axis"
[ "${s[2]}" = true ] || fail "summary.json: no interaction rows"
[ "$(fsb history list | grep -c .)" -ge 1 ] || fail "the runs are not in the history database"
# with --profile (when perf is permitted), the cells' profiles merged over their runs, side by side
if ! grep -q 'running without a profile' "$SCRATCH/r"/runs/*/run-1.txt err 2>/dev/null; then
    grep -qi 'profile' "$SCRATCH/r/report.md" || fail "report.md has no profile tables"
fi
# nothing left behind
scratch=${v[14]}
[ ! -e "$scratch" ] || fail "scratch folder left: $scratch"
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left: $(grep "$SCRATCH" /proc/self/mountinfo)"
! losetup -a | grep -q "$TMPDIR" || fail "a loop device left: $(losetup -a | grep "$TMPDIR")"
# the runs are ordinary results: compare reads them
a=${v[15]} b=${v[16]}
fsb compare "$SCRATCH/r/$a" "$SCRATCH/r/$b" > cmp || fail "compare cannot read the runs"
echo "ok: 2x2 matrix, 8 runs, every artefact, nothing left"
