#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3573: fs_mark --time-limit ends each iteration's create loop at the limit (the row and the
# JSON marked, the files made counted), --ramp leaves the first second out of the rates and
# keeps it in the iteration's time series, marked.
# Not serial: its time bounds held in 4 runs of 4 beside 2 CPU hogs and the other t357x (load 12-19).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
D=$SCRATCH/d
mkdir -p "$D"

fsb fs_mark -d "$D" -n 1000000 -s 0 -L 2 --time-limit 500ms --json a.json > a.out 2> err ||
    fail "time-limited run: exit $?: $(cat err)"
[ "$(grep -c ' stopped by time limit$' a.out)" = 2 ] || fail "rows not marked: $(cat a.out)"
jq -e '[.iterations[] | .stopped_by_time_limit and .files > 0 and .files < 1000000 and
        .wall_ns >= 490000000 and .wall_ns < 1000000000] | length == 2 and all' a.json > /dev/null ||
    fail "JSON: $(jq -c '[.iterations[] | {files, wall_ns, stopped_by_time_limit}]' a.json)"
rm -rf "$D"; mkdir -p "$D"
ok "--time-limit: each create loop stopped at the limit, marked"

fsb fs_mark -d "$D" -n 20 -s 0 --json b.json > b.out 2> err || fail "plain: exit $?: $(cat err)"
! grep -q 'stopped by time limit' b.out || fail "a mark without a limit"
rm -rf "$D"; mkdir -p "$D"

fsb fs_mark -d "$D" -n 1000000 -s 0 --time-limit 1s --ramp 500ms --interval 50ms --json c.json > c.out 2> err ||
    fail "ramp run: exit $?: $(cat err)"
rm -rf "$D"
read -r files agg wall ramp rampops after < <(jq -r '.iterations[0] | [.files, .files_per_sec_aggregate,
    .wall_ns, .ramp_ns, ([.intervals[] | select(.ramp) | .ops] | add // 0),
    ([.intervals[] | select(.ramp | not) | .ops] | add // 0)] | @tsv' c.json)
[ "$ramp" = 500000000 ] || fail "ramp_ns $ramp"
[ "$rampops" -gt 0 ] && [ "$after" -gt 0 ] || fail "series: ramp $rampops, after $after"
# the aggregate rate is the files after the ramp over the window after it, not all the files
awk -v f="$files" -v a="$agg" -v w="$wall" -v n="$after" 'BEGIN {
	got = a * w / 1e9; exit !(got < f && got > 0.75 * n - 50 && got < 1.25 * n + 50) }' ||
    fail "aggregate $agg over $wall ns against $after files after the ramp ($files in all)"
ok "--ramp: the rate over the files after the ramp ($after of $files), the ramp in the series"
