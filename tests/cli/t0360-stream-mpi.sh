#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (counts the stream lines written in a fixed time before its kill)
# t0360: --stream under fsbench-mpi. Rank 0 writes the job's intervals to the one file: a line
# per interval once every rank has passed it, ops and bytes summed over the ranks, each rank's
# part (its own latencies) in "ranks". A job killed with SIGKILL (every rank and mpirun: no
# cleanup, no final write) keeps every completed interval, each line whole; a complete job's
# stream adds up to the job's JSON. Before this, fsbench-mpi accepted --stream and wrote nothing.
. "$(dirname "$0")/lib.sh"
need_mpi
need_cmd pgrep
mkdir -p d e

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

# a complete job: the stream adds up to the job's phases in the JSON, per rank too
mpi 2 tiotest -t 2 -f 8 -r 2000 -b 4096 -d e --quiet --interval 100ms --stream c.jsonl --json c.json > out 2> err ||
    fail "job: $(cat err)"
for ph in write random_write read random_read; do
    a=$(jq -s --arg p $ph '[.[] | select(.phase == $p) | .ops] | add' c.jsonl)
    b=$(jq --arg p $ph '.phases[] | select(.name == $p) | .ops' c.json)
    [ "$a" = "$b" ] || fail "$ph: the stream has $a ops, the JSON $b"
    for r in 0 1; do
        a=$(jq -s --arg p $ph --argjson r $r '[.[] | select(.phase == $p) | .ranks[] | select(.rank == $r) | .ops] | add' c.jsonl)
        [ "$a" = $((b / 2)) ] || fail "$ph: rank $r's parts have $a ops, expected $((b / 2))"
    done
done
[ ! -e e/c.jsonl ] && [ "$(ls | grep -c jsonl)" = 2 ] || fail "stream files: $(ls)"
ok "a complete job's stream adds up to the JSON, per rank too"

# checked by rank 0 before anything runs, as fsbench does
ln -s c.jsonl link.jsonl
mpi 2 tiotest -t 1 -f 1 -d e --stream link.jsonl > out 2> err; rc=$?
[ $rc = 2 ] || fail "--stream to a symbolic link: exit $rc, expected 2"
grep -q "option --stream: cannot write 'link.jsonl': is a symbolic link" err || fail "message: $(cat err)"
[ "$(fsb_lines err)" = 1 ] || fail "not one message: $(cat err)"
ok "--stream checked before the job"

# a rank killed mid-job: rank 0 does not wait for it for ever (once it is taken for dead, at
# --mpi-timeout, the intervals it held back are written without it) and the job's file ends
# whole; mpirun is told not to end the job itself (t9050)
mkdir k
mpirun --oversubscribe --allow-run-as-root --mca orte_abort_on_non_zero_status 0 -np 2 "$FSBENCH_MPI" \
    tiotest --mpi-timeout 3 -t 1 -f 1 -r 100000000 -d k --quiet --interval 200ms --stream k.jsonl < /dev/null > out 2> err &
pid=$!
trap 'killall_job; _lib_cleanup' EXIT
victim=
for i in $(seq 300); do
    [ -n "$(ls -A k/rank.1 2> /dev/null)" ] && victim=$(rank_pid $pid 1) && break
    sleep 0.1
done
[ -n "$victim" ] || fail "rank 1 never started: $(cat err)"
sleep 1.5
kill -KILL "$victim"
for i in $(seq 600); do kill -0 $pid 2> /dev/null || break; sleep 0.1; done
kill -0 $pid 2> /dev/null && fail "the job still runs 60 s after rank 1 was killed: $(cat err)"
wait $pid; rc=$?
trap _lib_cleanup EXIT
[ $rc != 0 ] || fail "exit 0 with a dead rank"
n=$(wc -l < k.jsonl)
[ "$n" -ge 5 ] && [ "$(jq -c . k.jsonl | wc -l)" = "$n" ] || fail "$n lines, not each one JSON value: $(head -c 2000 k.jsonl)"
[ "$(tail -c 1 k.jsonl | od -An -c | tr -d ' ')" = '\n' ] || fail "the last line is cut"
jq -s -e '[.[] | select(.phase == "random_write")] | (map(select((.ranks | length) == 2)) | length) >= 3
          and (map(select(.ranks == [.ranks[0]] and .ranks[0].rank == 0)) | length) >= 1
          and all(.[]; any(.ranks[]; .rank == 0))
          and ([.[].elapsed_ns] as $e | all(range(1; $e | length); $e[.] > $e[. - 1]))' k.jsonl > /dev/null ||
    fail "lines around the kill: $(jq -c '[.phase, .elapsed_ns, [.ranks[].rank]]' k.jsonl | tr '\n' ' ' | head -c 2000)"
ok "a rank killed: $n lines, the job's file whole, the intervals after it written without it"
