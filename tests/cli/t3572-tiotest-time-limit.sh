#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3572: tiotest --time-limit ends each phase at the limit (marked in the text and the JSON,
# its window the limit; the read phase reads what the stopped write wrote, not the file's hole),
# --ramp leaves the first second out of the figures (ops, window) and
# keeps it in the time series, marked.
# Not serial: its time bounds held in 4 runs of 4 beside 2 CPU hogs and the other t357x (load 12-19).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
D=$SCRATCH/d
mkdir -p "$D"

# 2 GB a thread: no phase ends within 0.5 s here
fsb tiotest -d "$D" -f 2000 -t 2 -r 100000000 --time-limit 500ms --json a.json > a.out 2> err ||
    fail "time-limited run: exit $?: $(cat err)"
for p in Write 'Random Write' 'Random Read'; do
	grep -q "^$p phase: stopped by time limit after 0\.[4-9][0-9]* s\.$" a.out ||
	    fail "no mark for $p: $(cat a.out)"
done
jq -e '[.phases[] | select(.name != "read") | .stopped_by_time_limit and .ramp_ns == 0 and .ops > 0 and
        .wall_ns >= 490000000 and .wall_ns < 1000000000] | length == 3 and all' a.json > /dev/null ||
    fail "JSON marks and windows: $(jq -c '[.phases[] | {name, ops, wall_ns, stopped_by_time_limit}]' a.json)"
# the sequential read covers the blocks written, or as many as its own limit allowed
jq -e '(.phases[0].ops) as $w | .phases[2] | .ops == $w or (.stopped_by_time_limit and .ops < $w)' a.json \
    > /dev/null || fail "read after the stopped write: $(jq -c '[.phases[] | {name, ops}]' a.json)"
ok "--time-limit: every phase stopped at the limit and marked"

# small (-r 100: not the default 100000 random ops): only the marks are looked at
fsb tiotest -d "$D" -f 4 -t 1 -r 100 --json b.json > b.out 2> err || fail "plain: exit $?: $(cat err)"
! grep -q 'stopped by time limit' b.out || fail "a mark without a limit"
jq -e '[.phases[] | .stopped_by_time_limit == false] | all' b.json > /dev/null || fail "JSON marks without a limit"
ok "no limit, no mark"

# the write phase alone (-k 1 -k 2 -k 3): what follows asserts on it, and each phase it ran
# would take its 1 s
fsb tiotest -d "$D" -f 2000 -t 2 -k 1 -k 2 -k 3 --time-limit 1s --ramp 500ms --interval 50ms --json c.json \
    > c.out 2> err || fail "ramp run: exit $?: $(cat err)"
grep -q '^Ramp: the first 0.500 s of each phase left out of its figures' c.out || fail "no ramp line: $(cat c.out)"
jq -e '.phases[0] | .ramp_ns == 500000000 and .wall_ns >= 490000000 and .wall_ns < 1000000000' c.json \
    > /dev/null || fail "ramp window: $(jq -c '.phases[0] | {ops, wall_ns, ramp_ns}' c.json)"
read -r ops rampops after < <(jq -r '.phases[0] | [.ops, ([.intervals[] | select(.ramp) | .ops] | add // 0),
                                    ([.intervals[] | select(.ramp | not) | .ops] | add // 0)] | @tsv' c.json)
[ "$rampops" -gt 0 ] && [ "$after" -gt 0 ] || fail "series: ramp $rampops, after $after"
d=$((ops > after ? ops - after : after - ops))
[ "$d" -le $((after / 4 + 50)) ] || fail "ops $ops against the series after the ramp $after"
ok "--ramp: $ops ops in the figures, $rampops in the ramp (marked in the series)"
