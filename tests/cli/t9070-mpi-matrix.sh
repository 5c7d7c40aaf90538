#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t9070: fsbench matrix --mpi LAUNCHER runs each run as an MPI job: the run's JSON is the job's
# (2 ranks, their threads summed, every rank in DIR/rank.R on the cell's filesystem), its text the
# job's classic output, and nothing is left. Without fsbench-mpi beside fsbench: exit 3 first.
. "$(dirname "$0")/lib.sh"
need_root
need_mpi
need_cmd mkfs.ext4
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"

fsb matrix --fs ext4 --repeat 2 --size 256 --no-db --max-other-cpu 100 \
    --mpi "mpirun --oversubscribe --allow-run-as-root ${MPIRUN_OPTS[*]:-} -np 2" -o "$SCRATCH/r" \
    -- tiotest -t 1 -f 1 -r 100 > out 2> err || fail "matrix --mpi exit $?: $(cat err)"
for j in "$SCRATCH"/r/runs/*/run-*.json; do
    jq -e '.mpi.nranks == 2 and .config.processes == 2 and .config.threads == 1
           and .environment.targets[0].fstype == "ext4"' "$j" >/dev/null ||
        fail "$j is not a 2-rank job on ext4: $(jq -c '{mpi: .mpi.nranks, c: .config.processes}' "$j")"
done
[ "$(ls "$SCRATCH"/r/runs/*/run-*.json | wc -l)" = 2 ] || fail "not 2 runs"
grep -q '^Tiotest results for 2 concurrent io threads:' "$SCRATCH"/r/runs/*/run-1.txt ||
    fail "the run's text is not the job's classic output; it begins: $(head -n 4 "$SCRATCH"/r/runs/*/run-1.txt | cut -c1-200 | cat -A)"
jq -e '[.undo[].undone] | all' "$SCRATCH/r/manifest.json" >/dev/null || fail "undo entries left"
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left"
ok "each run an MPI job, its JSON the job's"

# a fsbench without fsbench-mpi beside it: refused before anything is set up
mkdir -p "$SCRATCH/solo"
cp "$FSBENCH" "$SCRATCH/solo/fsbench"
expect_exit 3 "$SCRATCH/solo/fsbench" matrix --fs ext4 --no-db --mpi "mpirun -np 2" -o "$SCRATCH/r2" \
    -- tiotest -t 1 -f 1 2> err
grep -q 'no fsbench-mpi' err || fail "no message naming fsbench-mpi: $(cat err)"
[ ! -e "$SCRATCH/r2" ] || fail "something was created"
ok "--mpi without fsbench-mpi: exit 3, nothing set up"
