#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t9080: fsbench matrix --mpi with a launcher that exits 0 without running the job (so no JSON):
# a failed run, not "ok": the manifest's run failed (exit 1, no json), counted as failed, the
# line names the missing result, the experiment exits 1, and nothing is left set up. Needs no
# Open MPI: a stand-in fsbench-mpi beside a copy of fsbench (the launcher never starts it).
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR" "$SCRATCH/bin"
cp "$FSBENCH" "$SCRATCH/bin/fsbench" || fail "cp"
printf '#!/bin/sh\nexit 1\n' > "$SCRATCH/bin/fsbench-mpi"
printf '#!/bin/sh\necho "launcher: $*"\nexit 0\n' > "$SCRATCH/launcher"
chmod +x "$SCRATCH/bin/fsbench-mpi" "$SCRATCH/launcher"

expect_exit 1 "$SCRATCH/bin/fsbench" matrix --fs ext4 --repeat 1 --size 256 --no-db --max-other-cpu 100 \
    --mpi "$SCRATCH/launcher -np 2" -o "$SCRATCH/r" -- tiotest -t 1 -f 1 -r 100 > out 2> err
grep -q "run 1/1 .* #1: failed (exit 1): the MPI launcher exited 0 but the job wrote no result ('$SCRATCH/r/runs/.*/run-1.json')" err ||
    fail "no failed run named: $(cat err)"
grep -q '0 of 1 runs ok, 1 failed' err || fail "not counted as failed: $(cat err)"
M=$SCRATCH/r/manifest.json
jq -e '[.runs[] | select(.warmup | not)] | length == 1 and .[0].status == "failed" and .[0].exit == 1
       and .[0].json == null and (.[0].error | test("wrote no result"))' $M > /dev/null ||
    fail "manifest: $(jq -c '[.runs[] | {status, exit, json, error}]' $M)"
jq -e '.state == "done" and .undo_complete' $M > /dev/null || fail "manifest state: $(jq -c '{state, undo_complete}' $M)"
grep -q 'launcher: -np 2' "$SCRATCH"/r/runs/*/run-1.txt || fail "the launcher's output is not the run's text"
! grep -q "$TMPDIR" /proc/self/mountinfo || fail "a mount left"
ok "--mpi launcher exit 0 without the job's JSON: a failed run, exit 1"
