#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A guest whose kernel keeps CLOCK_MONOTONIC on kvm-clock, with a constant and nonstop TSC:
# per-op latencies read the TSC once it has proven itself on every CPU (issue 25: two vDSO
# kvm-clock reads per op were the largest part of what fsbench added to a tmpfs op), the JSON
# says so, FSBENCH_CLOCK_MONOTONIC=1 still forces clock_gettime, and the latencies are
# nanoseconds: in one thread the ops' latencies add up to no more than the phase's wall time,
# and with the end-of-phase fsync (the thread's flush_ns) to most of it, write phases too.
# Skipped on any other clocksource.
. "$(dirname "$0")/lib.sh"
need_cmd jq
[ "$(uname -m)" = x86_64 ] || skip "x86-64 only"
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || true)
[ "$cs" = kvm-clock ] || skip "clocksource is '$cs', not kvm-clock"
flags=$(grep -m1 '^flags' /proc/cpuinfo)
for f in constant_tsc nonstop_tsc; do
    [[ " $flags " == *" $f "* ]] || skip "no $f"
done

# the check retries itself; a host busy enough to preempt every try falls back, which is
# right but not what this test looks at: a few runs
src=
for i in 1 2 3; do
    fsb tiotest --quiet -t 1 -f 64 -b 4096 -r 20000 -d "$SCRATCH" --json "$SCRATCH/r.json" >/dev/null ||
        fail "tiotest failed"
    src=$(jq -r .environment.latency_clock "$SCRATCH/r.json")
    [ "$src" = tsc ] && break
done
[ "$src" = tsc ] || fail "latency_clock is '$src' on kvm-clock with a constant, nonstop TSC (3 runs)"
# The ops and the closing fsync are nearly all of every phase: 0.99 with either clock, on
# tmpfs and on ext4 alike (bench/README.md, "where a write phase's wall time goes"). The fsync
# counts: on a disk filesystem ($SCRATCH lives under /tmp, ext4 here) it writes the phase's dirty
# pages back, 0.4-0.6 of a write phase (so the ops alone were a third to a half of it), ~0 on
# tmpfs. tiotest keeps it inside the phase, as the original does.
jq -e '[.phases[] | .latency as $l | .ops == $l.count and $l.min_ns > 0 and $l.sum_ns <= .wall_ns
        and $l.sum_ns + .threads[0].flush_ns >= .wall_ns / 2] | all' "$SCRATCH/r.json" >/dev/null ||
    fail "latencies do not fit the phase times: $(jq -c '[.phases[] | [.name, .wall_ns, .latency.sum_ns, .threads[0].flush_ns]]' "$SCRATCH/r.json")"
ok "kvm-clock: latencies from the TSC, in nanoseconds"

FSBENCH_CLOCK_MONOTONIC=1 fsb tiotest --quiet -t 1 -f 4 -b 4096 -r 1000 -d "$SCRATCH" \
    --json "$SCRATCH/m.json" >/dev/null || fail "tiotest failed"
[ "$(jq -r .environment.latency_clock "$SCRATCH/m.json")" = clock_monotonic ] ||
    fail "FSBENCH_CLOCK_MONOTONIC=1 did not force clock_gettime"
ok "FSBENCH_CLOCK_MONOTONIC=1 forces clock_gettime"
