#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (counts the stream lines written in a fixed time before its kill)
# t0360: --stream under fsbench-mpi. Rank 0 writes the job's intervals to the one file: a line
# per interval once every rank has passed it, ops and bytes summed over the ranks, each rank's
# part (its own latencies) in "ranks". A job killed with SIGKILL (every rank and mpirun: no
# cleanup, no final write) keeps every completed interval, each line whole. Before this,
# fsbench-mpi accepted --stream and wrote nothing. The rest of --stream under fsbench-mpi (a
# complete job's stream against its JSON, the checks before the job, a rank killed), which
# needs no machine to itself, is t0365's.
. "$(dirname "$0")/lib.sh"
need_mpi
need_cmd pgrep
mkdir -p d

# a long random-write phase after a short write phase: killed in the middle of it
tl=$(date +%s%N)
mpirun --oversubscribe --allow-run-as-root -np 2 "$FSBENCH_MPI" tiotest -t 1 -f 1 -r 50000000 -b 4096 \
    -d d --quiet --interval 200ms --stream s.jsonl < /dev/null > out 2> err &
pid=$!
killall_job() {
    local r p
    for r in 0 1; do p=$(rank_pid $pid $r) && kill -KILL "$p" 2> /dev/null; done
    kill -KILL $pid 2> /dev/null
}
trap 'killall_job; _lib_cleanup' EXIT
# both ranks at work (their files exist), then 2.5 s
for i in $(seq 300); do
    [ -n "$(ls -A d/rank.0 2> /dev/null)" ] && [ -n "$(ls -A d/rank.1 2> /dev/null)" ] && break
    sleep 0.1
done
t0=$(date +%s%N)
sleep 2.5
r0=$(rank_pid $pid 0) && r1=$(rank_pid $pid 1) || fail "the job ended before the kill: $(cat err)"
kill -KILL "$r0" "$r1" $pid
t1=$(date +%s%N)
wait $pid 2> /dev/null
n=$(wc -l < s.jsonl)
[ "$n" -ge 5 ] || fail "only $n lines after 2.5 s at 200 ms: $(cat s.jsonl)"
[ "$(tail -c 1 s.jsonl | od -An -c | tr -d ' ')" = '\n' ] || fail "the last line is cut"
[ "$(jq -c . s.jsonl | wc -l)" = "$n" ] || fail "not one JSON value per line: $(head -c 2000 s.jsonl)"
# each line the job's: its ops and bytes the sum of its ranks' parts, each part a rank's
jq -s -e 'all(.[]; type == "object" and .run == 1 and (.phase | type == "string") and .dt_ns > 0
          and (.ranks | type == "array" and length >= 1 and length <= 2)
          and .ops == ([.ranks[].ops] | add) and .bytes == ([.ranks[].bytes] | add)
          and all(.ranks[]; (.rank == 0 or .rank == 1) and .dt_ns > 0 and .t_ns >= .dt_ns)
          and ([.ranks[].rank] | . == (unique)) and (has("latency_p99_ns") | not))' s.jsonl > /dev/null ||
    fail "not the job's lines: $(head -c 2000 s.jsonl)"
# the killed phase: both ranks in every line, elapsed increasing, on the 200 ms grid (a line's
# interval is its latest rank's: a late wake-up, on a loaded machine, may end it later)
jq -s -e '[.[] | select(.phase == "random_write")] | length >= 5
          and all(.[]; (.ranks | length) == 2 and all(.ranks[]; .ops > 0))
          and ((map(select((.t_ns % 200000000) < 100000000)) | length) * 3 >= length * 2)
          and ([.[].elapsed_ns] as $e | all(range(1; $e | length); $e[.] > $e[. - 1]))' s.jsonl > /dev/null ||
    fail "random_write lines: $(jq -c '[.phase, .t_ns, .elapsed_ns, (.ranks | length)]' s.jsonl | tr '\n' ' ' | head -c 2000)"
# every completed interval: the last line within an interval (plus start-up and a rank's
# message) of the kill, and about elapsed / interval lines
last=$(tail -1 s.jsonl | jq .elapsed_ns)
killed_ns=$((t1 - tl))
[ "$last" -le "$killed_ns" ] && [ "$last" -ge $((t1 - t0 - 1000000000)) ] || fail "last line at $last ns, killed at $((t1 - t0)) ns after the files"
lo=$((last / 200000000 - 1)) hi=$((last / 200000000 + 2))
[ "$n" -ge $lo ] && [ "$n" -le $hi ] || fail "$n lines for $last ns at 200 ms (expected $lo..$hi)"
ok "SIGKILL keeps $n complete job intervals"
trap _lib_cleanup EXIT
