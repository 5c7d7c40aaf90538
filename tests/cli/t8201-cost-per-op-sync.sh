#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: slow (one of the longest: started first so that it does not end the parallel part alone)
# t8201: cost per op on a real loop ext4. The write phase's JSON cost figures equal the hand
# computation from the same JSON's per-thread CPU, windows and ops; mounted -o sync, every
# write commits, so the workers' system CPU per op rises (the direction only, over thousands of
# ops so that noise cannot flip it: 2 x 4 MiB in 4 KiB writes, 2048) and so does their wait per
# op.
# the image in memory when there: -o sync commits every write, and on a disk that other work
# keeps busy each commit waits for it (minutes for 2048 writes); the directions stay the same
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
M=$(loop_fs ext4 300) || exit $?

fsb tiotest -d "$M" -t 2 -f 4 -b 4096 -W --json plain.json > /dev/null 2>err.txt || fail "tiotest: exit $?: $(cat err.txt)"
mount -o remount,sync "$M" || skip "cannot remount $M -o sync"
fsb tiotest -d "$M" -t 2 -f 4 -b 4096 -W --json sync.json > /dev/null 2>err.txt || fail "tiotest -o sync: exit $?: $(cat err.txt)"
mount -o remount,async "$M" || fail "remount async"

# every check of both files with one jq (eight before: ~56 ms of CPU each); a failure's
# diagnostic reads more
mapfile -t v < <(jq -r -s 'def w: [.phases[] | select(.name == "write")] | if length == 1 then .[0] else error("write phases: \(length)") end;
    def near(a; b): ((a - b) | fabs) <= 1e-6 * ((b | fabs) + 1);
    def hand: w | .ops as $n
        | ([.threads[].cpu_sys_s] | add) as $sys | ([.threads[].cpu_usr_s] | add) as $usr
        | ([.threads[] | (.end_ns - .start_ns) / 1e9] | add) as $busy
        | $n > 1000 and .cost.ops == $n
          and near(.cost.cpu_sys_us_per_op; 1e6 * $sys / $n) and near(.cost.cpu_usr_us_per_op; 1e6 * $usr / $n)
          and near(.cost.wait_us_per_op; ([1e6 * ($busy - $sys - $usr) / $n, 0] | max))
          and near(.cost.vcsw_per_op; ([.threads[].nvcsw] | add) / $n)
          and .cost.device_bytes_per_op > 0;
    (.[0] | hand), (.[1] | hand),
    (.[0] | w.cost.cpu_sys_us_per_op), (.[1] | w.cost.cpu_sys_us_per_op),
    (.[0] | w.cost.wait_us_per_op), (.[1] | w.cost.wait_us_per_op),
    ((.[1] | w.cost.cpu_sys_us_per_op) > (.[0] | w.cost.cpu_sys_us_per_op)),
    ((.[1] | w.cost.wait_us_per_op) > (.[0] | w.cost.wait_us_per_op))' plain.json sync.json 2>&1; echo "rc=$?")
[ "${v[-1]}" = rc=0 ] && [ ${#v[@]} = 9 ] || fail "jq: ${v[*]}"
i=0
for f in plain.json sync.json; do
    [ "${v[i]}" = true ] ||
        fail "$f: the cost per op is not the hand computation: $(jq -c '.phases[0] | {ops, cost}' "$f")"
    i=$((i + 1))
done
ok "cost per op: the hand computation from the JSON's CPU, windows and ops"

p=${v[2]} s=${v[3]} pw=${v[4]} sw=${v[5]}
echo "system CPU per op: $p us default, $s us -o sync"
[ "${v[6]}" = true ] || fail "system CPU per op did not rise with -o sync: $p -> $s"
[ "${v[7]}" = true ] || fail "wait per op did not rise with -o sync: $pw -> $sw"
ok "-o sync: system CPU per op $p -> $s us, wait per op $pw -> $sw us"
