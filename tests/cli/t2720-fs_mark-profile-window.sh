#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t2720: fs_mark --profile-window A-B: the run's profile merges only the iterations whose FSUse%
# is in the window (the reference profiled the first 15 % of a fill); the JSON says which window
# and how many iterations; a window no iteration is in gives no table; bad windows are exit 2
# before anything runs.
. "$(dirname "$0")/lib.sh"

for w in 20-10 x 5 -5 0-101 1-2-3; do
    expect_exit 2 fsb fs_mark -d "$SCRATCH/bad" -n 5 --profile --profile-window "$w" 2> err
    grep -q -- '--profile-window' err || fail "window $w: no message naming the option: $(cat err)"
    [ ! -e "$SCRATCH/bad" ] || fail "window $w: something was created"
done
ok "bad windows: exit 2, nothing created"

fsb fs_mark -d "$SCRATCH/d" -n 500 -s 0 -S 0 -L 3 --profile --profile-window 0-100 --quiet \
    --json all.json > out 2> err || fail "window 0-100: exit $?: $(cat err)"
if grep -q 'running without a profile' err; then
    skip "perf is not permitted here: $(cat err)"
fi
rm -rf "$SCRATCH/d"
jq -e '.profile_window == {"from_pct": 0, "to_pct": 100, "iterations": 3}' all.json >/dev/null ||
    fail "window 0-100: $(jq -c .profile_window all.json)"
grep -q '^Profile: create loop, the 3 iterations at FSUse% 0-100 together' out || fail "label: $(grep Profile out)"
use=$(jq '.iterations[0].fs_use_pct' all.json)
# a window beyond every iteration's FSUse%: no iteration, no table
hi=$((use + 1))
[ $hi -le 100 ] || skip "the scratch filesystem is full"
fsb fs_mark -d "$SCRATCH/d" -n 500 -s 0 -S 0 -L 3 --profile --profile-window "$hi-100" --quiet \
    --json none.json > out 2> err || fail "window $hi-100: exit $?: $(cat err)"
rm -rf "$SCRATCH/d"
# the scratch filesystem is shared: another process may fill it between the two runs, so the
# iterations the window holds are counted from this run's own FSUse% (the figure that decides)
inside=$(jq --argjson lo "$hi" '[.iterations[] | select(.fs_use_pct >= $lo and .fs_use_pct <= 100)] | length' none.json)
jq -e --argjson n "$inside" --argjson lo "$hi" '.profile_window == {"from_pct": $lo, "to_pct": 100, "iterations": $n}' \
    none.json >/dev/null || fail "window $hi-100 ($inside iterations at FSUse% in it): $(jq -c .profile_window none.json)"
if [ "$inside" = 0 ]; then
    ! grep -q '^Profile:' out || fail "a profile table with no iteration in the window"
else
    [ "$inside" = 1 ] && want="the 1 iteration at FSUse% $hi-100," || want="the $inside iterations at FSUse% $hi-100 together,"
    grep -q "^Profile: create loop, $want" out || fail "window $hi-100: label: $(grep Profile out)"
fi
ok "the window decides which iterations the profile merges ($inside of 3 in $hi-100)"
