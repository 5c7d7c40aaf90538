#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Not serial: beside load 29-31 the ranks' own share stayed 19-24 % (>= 3; 0.1 % before).
# t8152: fsbench matrix --mpi: the job's ranks (mpirun's descendants) are the run's own CPU, not
# "other processes". Before, the runner counted only its own rusage: own 0.1 %, the ranks' work
# as other processes' (83-86 %), and every MPI run was flagged. A 2-rank job writing and reading
# 2 x 128 MiB: its own share is the ranks' CPU (several % of the machine), and the same CPU is
# not counted again as other processes' (other <= busy - own). The manifest records steal time.
. "$(dirname "$0")/lib.sh"
need_root
need_mpi
need_cmd mkfs.ext4
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"

fsb matrix --fs ext4 --repeat 2 --size 768 --no-db --max-other-cpu 100 \
    --mpi "mpirun --oversubscribe --allow-run-as-root ${MPIRUN_OPTS[*]:-} -np 2" -o "$SCRATCH/r" \
    -- tiotest -t 1 -f 128 -r 2000 > out 2> err || fail "matrix --mpi exit $?: $(cat err)"
M=$SCRATCH/r/manifest.json
# the figures with one jq (jq_read; five before)
# (own comes from the ranks' rusage, busy from /proc/stat: own may top busy by a point)
jq_read v "$M" '[.runs[] | select(.warmup | not)] | length == 2' '[.runs[] | .cpu]' \
    '[.runs[] | select(.warmup | not) | .cpu.own_pct >= 3] | all' \
    '[.runs[] | select(.warmup | not) | .cpu.other_pct <= ([.cpu.busy_pct - .cpu.own_pct, 0] | max) + 0.2] | all' \
    '[.runs[] | select(.warmup | not) | .cpu.steal_pct | type == "number" and . >= 0] | all'
[ "${v[0]}" = true ] || fail "not 2 runs"
echo "${v[1]}"
[ "${v[2]}" = true ] || fail "the ranks' CPU is not the run's own: ${v[1]}"
[ "${v[3]}" = true ] || fail "own CPU counted as other too: ${v[1]}"
[ "${v[4]}" = true ] || fail "no steal time recorded: ${v[1]}"
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left"
ok "--mpi: the job's ranks are the run's own CPU; steal time recorded"
