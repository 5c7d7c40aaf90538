#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3580: fsbench-mpi's --stream marks the intervals of the --ramp window as the one-process
# stream does (t3570): 2 ranks of mdtest -u with a 1 s limit and a 500 ms ramp; the job's lines
# that began inside the ramp carry "ramp": true, each rank's part too, the later ones do not,
# and the marked ops are left out of the job's items. Before, no line of the job had the mark.
# Not serial: its time bounds held in 4 runs of 4 beside 2 CPU hogs and the other t357x (load 12-19).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_mpi
D=$SCRATCH/d

mpi 2 mdtest -n 50000000 -F -C -u -d "$D" --time-limit 1s --ramp 500ms --interval 50ms --stream s.jsonl \
    --json c.json > c.out 2> err || fail "exit $?: $(cat err)"
rm -rf "$D"
# the stream's checks with one jq and the job's with one more (a jq costs ~50 ms of CPU; they
# were six, and two wc): its values counted by jq against its lines counted by mapfile (each
# line kept with its newline, so that a last line without one is still caught)
mapfile lines < s.jsonl
mapfile -t sv < <(jq -s 'length, ([.[] | select(.phase == "file_create")] as $l | ($l | length) >= 10
          and ([$l[] | select(.ramp == true)] | length) >= 5
          and ([$l[] | select(.ramp != true)] | length) >= 3
          and all($l[] | select(.ramp == true); .t_ns - .dt_ns < 550000000 and any(.ranks[]; .ramp == true))
          and all($l[] | select(.ramp != true); .t_ns - .dt_ns >= 450000000 and all(.ranks[]; .ramp != true))),
    ([.[] | select(.phase == "file_create") | .ops] | add),
    ([.[] | select(.phase == "file_create" and .ramp == true) | .ops] | add // 0)' s.jsonl)
[ ${#sv[@]} = 4 ] || fail "s.jsonl does not parse: ${sv[*]}"
[ "${sv[0]}" = ${#lines[@]} ] && [[ ${lines[-1]} == *$'\n' ]] || fail "not one JSON value per line"
jq_read cv c.json '.tasks == 2 and (.iterations[0].file_create | .ramp_ns == 500000000 and .stopped_by_time_limit)' \
    '.iterations[0].file_create.items'
[ "${cv[0]}" = true ] || fail "job's creation: $(jq -c '.iterations[0].file_create | del(.kernel)' c.json)"
# a line began inside the ramp when its interval started before 500 ms (one grid slot of slack:
# a rank's late wake-up ends its interval in the next slot)
[ "${sv[1]}" = true ] ||
    fail "ramp marks: $(jq -c 'select(.phase == "file_create") | [.t_ns, .dt_ns, .ramp, [.ranks[].ramp]]' s.jsonl |
                        tr '\n' ' ' | head -c 3000)"
all=${sv[2]} rampops=${sv[3]} items=${cv[1]}
[ "$rampops" -gt 0 ] && [ "$items" -lt "$all" ] || fail "ramp ops $rampops, items $items, series $all"
ok "the job's stream marks the ramp's intervals ($rampops ops marked, $items items after it)"
