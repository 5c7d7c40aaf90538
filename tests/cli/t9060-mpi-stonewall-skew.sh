#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Not serial: it checks sizes and counts, no time; 4 runs of 4 passed beside 2 CPU hogs (load 19).
# --stonewall stops every rank's phase that long after its release: the run goes on with the
# next phase, each stopped phase did less than its configured work, and the report says so
# (text and JSON). --sysstats adds the job's clocks and each phase's start skew, window,
# aggregate and stonewall figures, and each host's kernel view; the JSON has them always.
# Sizes and counts are checked, never times.
. "$(dirname "$0")/lib.sh"
need_mpi
D=$SCRATCH/d
mkdir "$D"

# random phases of 10^9 ops cannot end before a 200 ms stonewall
mpi 4 tiotest -t 1 -f 4 -r 1000000000 -k 0 -k 2 -d "$D" --stonewall 200ms --sysstats --json r.json > out 2> err ||
    fail "exit $?: $(cat err)"
grep -Eq '^Stonewall: every phase stops 0\.200 s after its release \(--stonewall\); stopped: random_write \(4 of 4 ranks\), random_read \(4 of 4 ranks\)$' out ||
    fail "stonewall note: $(grep Stonewall out)"
# every figure with one jq (jq_read; a jq per figure before), the diagnostics only on failure
jq_read v r.json '[.mpi.stonewall_ns, [.mpi.phases[] | .stonewalled_ranks]]' \
    '.phases[] | select(.name == "random_write") | .ops' '.phases[] | select(.name == "random_write") | .complete' \
    '.phases[] | select(.name == "random_read") | .ops' '.phases[] | select(.name == "random_read") | .complete' \
    '[.mpi.ranks[].phases[0].release_ns] | max - min' '.mpi.phases[0].start_skew_ns' \
    '[.mpi.ranks[].phases[1].release_ns] | max - min' '.mpi.phases[1].start_skew_ns' \
    '[.mpi.ranks[] | .clock_error_ns >= 0] | all' '.mpi.ranks[0].clock_offset_ns' \
    '[.mpi.phases[] | .stonewall.ops > 0 and .stonewall.ops <= .ops] | all'
[ "${v[0]}" = "[200000000,[4,4]]" ] ||
    fail "JSON: $(jq -c '[.mpi.stonewall_ns, [.mpi.phases[] | .stonewalled_ranks]]' r.json)"
i=1
for p in random_write random_read; do
    ops=${v[i]}
    [[ $ops =~ ^[0-9]+$ ]] && [ "$ops" -gt 0 ] && [ "$ops" -lt 4000000000 ] || fail "$p: $ops ops"
    [ "${v[i + 1]}" = true ] ||
        fail "$p: a stonewalled phase is complete (it ran to its time)"
    i=$((i + 2))
done
grep -q '^Results incomplete' out && fail "stonewalled phases are not an incomplete run"
! has_entries "$D" || fail "left: $(ls -A "$D")"

# --sysstats: the job's table, one row per phase
grep -Eq '^MPI job: 4 ranks on 1 host, 1 threads each; clocks aligned to rank 0.s within [0-9.]+ us \(ping-pong, best of 16\)$' out ||
    fail "job line: $(grep 'MPI job' out)"
[ "$(grep -Ec '^random_(write|read) +4 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' out)" = 2 ] ||
    fail "skew table: $(grep -A4 'MPI job' out)"
grep -Eq '^[^ ]+:random_write ' out || fail "per-host kernel view: $(grep -A6 Kernel out)"
# the JSON: every rank's release on the common timeline; the skew is their spread
for i in 0 1; do
    spread=${v[5 + 2 * i]}
    [ "$spread" = "${v[6 + 2 * i]}" ] ||
        fail "phase $i: skew ${v[6 + 2 * i]}, releases spread $spread"
done
[ "${v[9]}" = true ] || fail "clock errors"
[ "${v[10]}" = 0 ] || fail "rank 0's offset"
[ "${v[11]}" = true ] ||
    fail "stonewall figure: $(jq -c '[.mpi.phases[] | [.stonewall.ops, .ops]]' r.json)"
ok "--stonewall stops every rank's phase and says so; skew, window, aggregate, stonewall figure"
