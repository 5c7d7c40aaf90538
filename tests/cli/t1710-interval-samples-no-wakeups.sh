#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Interval samples are taken by the workers, at the first op that completes past a tick
# (core/sample.h): nothing wakes up during a phase to take them. A run without a progress line
# or --stream makes no timed wait that expires, beyond the reporter's one look a second (the
# old reporter woke every 5 ms of a short phase: ~400 expired waits in this run under strace).
# The samples are still there, on the grid: every phase of 100 ms or more has its ~20 points,
# none ends before its tick, and together they count every op of the phase.
. "$(dirname "$0")/lib.sh"
need_cmd strace
need_cmd jq
d=$(mktemp -d /dev/shm/fsbench-t1710.XXXXXX) || fail "mktemp"
trap 'rm -rf "$d"; _lib_cleanup' EXIT

# (LeakSanitizer cannot run under ptrace: leaks are the rest of the suite's business)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=futex -o "$SCRATCH/trace" \
    "$FSBENCH" tiotest --quiet -t 2 -f 16 -r 20000 -b 4096 -d "$d" --json "$SCRATCH/r.json" >/dev/null ||
    fail "tiotest under strace failed"
no_files "$d"
expired=$(grep -c 'ETIMEDOUT' "$SCRATCH/trace")
# the reporter's look a second: at most one per started second of each phase
allowed=$(jq '[.phases[] | (.wall_ns / 1e9 | floor) + 1] | add' "$SCRATCH/r.json")
[ "$expired" -le "$allowed" ] ||
    fail "$expired timed waits expired during the run (at most $allowed: one a second a phase); $(grep -m3 ETIMEDOUT "$SCRATCH/trace")"

# the samples: on the grid, never early, every op counted once
jq -e '.phases | length == 4' "$SCRATCH/r.json" >/dev/null || fail "not 4 phases"
bad=$(jq -r '.phases[] | .name as $n | .interval_ns as $i | .intervals as $s
    | ($s | map(.ops) | add) as $sum
    | if $sum != .ops then "\($n): the intervals count \($sum) ops, the phase \(.ops)"
      elif (.wall_ns >= 100000000 and ($s | length) < 10) then "\($n): \($s | length) intervals in \(.wall_ns) ns"
      else ([range(0; ($s | length) - 1) | select($s[.].t_ns < (. + 1) * $i)] as $early
            | if ($early | length) > 0 then "\($n): interval \($early[0]) ends at \($s[$early[0]].t_ns) ns, before its tick \(($early[0] + 1) * $i)" else empty end)
      end' "$SCRATCH/r.json")
[ -z "$bad" ] || fail "$bad"
ok "no wake-ups for interval samples ($expired expired waits, at most $allowed); samples on the grid, every op counted"
