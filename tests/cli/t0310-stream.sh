#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0310: --stream FILE writes each --interval sample as one JSON line while the run goes. A
# run killed with SIGKILL (no cleanup, no final write) keeps every completed interval: each
# line is valid JSON, elapsed_ns strictly increases, each phase's t_ns ends on the interval
# grid, and the count is about elapsed/interval. A complete run's stream sums to the JSON's ops.
# --stream is checked before the run.
. "$(dirname "$0")/lib.sh"
need_cmd jq
mkdir -p d e

# a long random-write phase after a short write phase: killed in the middle of it
"$FSBENCH" tiotest -t 1 -f 1 -r 50000000 -b 4096 -d d --quiet --interval 200ms --stream s.jsonl > out 2> err &
pid=$!
trap 'kill -KILL $pid 2>/dev/null; _lib_cleanup' EXIT
t0=$(date +%s%N)
sleep 2.5
kill -0 $pid 2>/dev/null || fail "the run ended before the kill: $(cat err)"
kill -KILL $pid
t1=$(date +%s%N)
wait $pid 2>/dev/null
n=$(wc -l < s.jsonl)
[ "$n" -ge 5 ] || fail "only $n lines after 2.5 s at 200 ms: $(cat s.jsonl)"
[ "$(tail -c 1 s.jsonl | od -An -c | tr -d ' ')" = '\n' ] || fail "the last line is cut"
# each line one JSON object (a cut or merged line would not give n objects)
[ "$(jq -c . s.jsonl | wc -l)" = "$n" ] || fail "not one JSON value per line: $(head -c 2000 s.jsonl)"
jq -s -e 'all(.[]; type == "object" and .run == 1 and (.phase | type == "string") and (.elapsed_ns | type == "number")
          and .dt_ns > 0 and .t_ns >= .dt_ns and (.ops | type == "number") and (.bytes | type == "number"))' s.jsonl > /dev/null ||
    fail "not valid sample lines: $(head -c 2000 s.jsonl)"
jq -s -e '[.[].elapsed_ns] as $e | all(range(1; $e | length); $e[.] > $e[. - 1])' s.jsonl > /dev/null ||
    fail "elapsed_ns not increasing: $(jq -c .elapsed_ns s.jsonl | tr '\n' ' ' | head -c 2000)"
# intervals of the killed phase end on its 200 ms grid (a late wake-up may end one later)
jq -s -e '[.[] | select(.phase == "random_write")] | length >= 5 and all(.[]; (.t_ns % 200000000) < 100000000)' s.jsonl > /dev/null ||
    fail "random_write intervals off the grid: $(jq -c '[.phase, .t_ns]' s.jsonl | tr '\n' ' ' | head -c 2000)"
# count ~ elapsed / interval: the last completed interval ended at most one interval (plus
# start-up) before the kill, and the phases' short last intervals add one each
last=$(tail -1 s.jsonl | jq .elapsed_ns)
killed_ns=$((t1 - t0))
[ "$last" -le "$killed_ns" ] && [ "$last" -ge $((killed_ns - 1000000000)) ] || fail "last sample at $last ns, killed at $killed_ns ns"
lo=$((last / 200000000 - 1)) hi=$((last / 200000000 + 2))
# under a sanitizer (make asan, make tsan) on a loaded machine the reporter's wake-up can slip
# past a whole interval, which then merges into the next: one line fewer
[ -n "${FSBENCH_SANITIZED:-}" ] && lo=$((lo - 1))
[ "$n" -ge $lo ] && [ "$n" -le $hi ] || fail "$n lines for $last ns at 200 ms (expected $lo..$hi)"
ok "SIGKILL keeps $n complete intervals"

# a complete run: the stream's ops add up to the phases' ops in the JSON
fsb tiotest -t 2 -f 8 -r 2000 -b 4096 -d e --quiet --interval 100ms --stream c.jsonl --json c.json > out 2> err || fail "run: $(cat err)"
for ph in write random_write read random_read; do
    a=$(jq -s --arg p $ph '[.[] | select(.phase == $p) | .ops] | add' c.jsonl)
    b=$(jq --arg p $ph '.phases[] | select(.name == $p) | .ops' c.json)
    [ "$a" = "$b" ] || fail "$ph: the stream has $a ops, the JSON $b"
done
ok "a complete run's stream adds up to the JSON"

ln -s c.jsonl link.jsonl
fsb tiotest -t 1 -f 1 -d e --stream link.jsonl > out 2> err; rc=$?
[ $rc = 2 ] || fail "--stream to a symbolic link: exit $rc, expected 2"
grep -q "option --stream: cannot write 'link.jsonl': is a symbolic link" err || fail "message: $(cat err)"
[ ! -s out ] || fail "ran anyway"
ok "--stream checked before the run"
