#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3570: --time-limit ends each mdtest phase at the limit (the items done by then counted, the
# phase marked "stopped by time limit" in the text and the JSON, the later phases working on
# the items made) and --ramp leaves each phase's first seconds out of its figures while the
# --stream series keeps them, marked; nothing is left behind.
# Not serial: its time bounds held in 4 runs of 4 beside 2 CPU hogs and the other t357x (load 12-19).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
D=$SCRATCH/d

# far more items than 0.5 s can create: the limit ends the creation, stat/read/remove follow
fsb mdtest -n 50000000 -F -d "$D" --time-limit 500ms --json a.json > a.out 2> err ||
    fail "time-limited run: exit $?: $(cat err)"
[ ! -e "$D" ] || fail "files left in $D"
grep -q '^File creation (iteration 1): stopped by time limit, [0-9]* items in 0\.[4-9][0-9]* s$' a.out ||
    fail "no time-limit mark in the text: $(cat a.out)"
grep -q '^   File creation  ' a.out || fail "no SUMMARY row: $(cat a.out)"
# a.json's figures with one jq (a jq costs ~50 ms of CPU); a failure's diagnostic reads more
PHASES="file_stat file_read file_remove"
exprs=()
for t in $PHASES; do
    exprs+=(".iterations[0].file_create.items as \$n | .iterations[0].$t | .items == \$n or (.stopped_by_time_limit and .items < \$n)")
done
jq_read v a.json '.iterations[0].file_create | .stopped_by_time_limit == true and .ramp_ns == 0' \
    '.iterations[0].file_create | .wall_ns >= 490000000 and .wall_ns < 1000000000 and .items > 0' \
    '.iterations[0].file_create.items' "${exprs[@]}"
[ "${v[0]}" = true ] || fail "JSON mark: $(jq -c '.iterations[0].file_create' a.json)"
# the phase's window is the limit: not much less (it ran to it: 10 ms), not much more (1 % and one op
# by design; this host's scheduling gets a generous margin)
[ "${v[1]}" = true ] || fail "window against a 0.5 s limit: $(jq -c '.iterations[0].file_create' a.json)"
# the later phases visit exactly the items made (or as many as their own limit let them)
n=${v[2]} i=3
for t in $PHASES; do
	[ "${v[i]}" = true ] || fail "$t after the cut: $(jq -c ".iterations[0].$t" a.json) (created $n)"
	i=$((i + 1))
done
ok "--time-limit stops the creation at the limit, marked; the rest of the iteration follows"

# no limit: no mark, the JSON says false
fsb mdtest -n 20 -F -d "$D" --json b.json > b.out 2> err || fail "plain run: exit $?: $(cat err)"
! grep -q 'stopped by time limit' b.out || fail "a mark without a limit: $(cat b.out)"
jq -e '[.iterations[0][] | .stopped_by_time_limit] | all(. == false)' b.json > /dev/null ||
    fail "JSON marks without a limit"
ok "no limit, no mark"

# --ramp: the first second out of the figures, in the series (marked)
fsb mdtest -n 50000000 -F -C -d "$D" --time-limit 1s --ramp 500ms --interval 50ms --stream s.jsonl \
    --json c.json > c.out 2> err || fail "ramp run: exit $?: $(cat err)"
[ ! -e "$D" ] || rm -rf "$D"
grep -q '^ramp: the first 0.500 s of each phase' c.out || fail "no ramp line: $(cat c.out)"
jq_read v c.json '.iterations[0].file_create | .ramp_ns == 500000000 and .stopped_by_time_limit and
       .wall_ns >= 490000000 and .wall_ns < 1000000000' '.iterations[0].file_create.items'
[ "${v[0]}" = true ] || fail "ramp window: $(jq -c '.iterations[0].file_create' c.json)"
items=${v[1]}
{ read -r all; read -r rampops; read -r after; } < <(jq -s '([.[] | select(.phase == "file_create") | .ops] | add),
    ([.[] | select(.phase == "file_create" and .ramp == true) | .ops] | add // 0),
    ([.[] | select(.phase == "file_create" and .ramp != true) | .ops] | add // 0)' s.jsonl)
[ "$rampops" -gt 0 ] && [ "$after" -gt 0 ] || fail "stream: ramp ops $rampops, after $after"
[ "$items" -lt "$all" ] || fail "ramp ops counted: items $items, series $all"
# the figure is the series after the ramp (the ramp's snapshot and the interval edge are taken
# by two threads: a tolerance)
d=$((items > after ? items - after : after - items))
[ "$d" -le $((after / 4 + 50)) ] || fail "items $items, series after the ramp $after"
ok "--ramp: out of the figures ($items items), in the series ($rampops marked, $after after)"
