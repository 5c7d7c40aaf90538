#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0365: --stream under fsbench-mpi, beside the other tests (t0360, alone, counts the lines a
# killed job wrote in a fixed time): a complete job's stream adds up to the job's JSON, per rank
# too; rank 0 checks --stream before the job as fsbench does; a rank killed mid-job does not
# hold rank 0's file for ever: the intervals after it are written without it, the file whole.
. "$(dirname "$0")/lib.sh"
need_mpi
need_cmd pgrep
mkdir -p e
killall_job() {
    local r p
    for r in 0 1; do p=$(rank_pid $pid $r) && kill -KILL "$p" 2> /dev/null; done
    kill -KILL $pid 2> /dev/null
}

# a complete job: the stream adds up to the job's phases in the JSON, per rank too
mpi 2 tiotest -t 2 -f 8 -r 2000 -b 4096 -d e --quiet --interval 100ms --stream c.jsonl --json c.json > out 2> err ||
    fail "job: $(cat err)"
# one jq for the figures of every phase (a jq each was 12 jq, 0.7 s of CPU): per phase, the
# stream's ops, the JSON's, rank 0's and rank 1's in the stream
mapfile -t sums < <(jq -n -r --slurpfile s c.jsonl --slurpfile j c.json '
    ["write", "random_write", "read", "random_read"][] as $p |
    [([$s[] | select(.phase == $p) | .ops] | add), ($j[0].phases[] | select(.name == $p) | .ops),
     ([$s[] | select(.phase == $p) | .ranks[] | select(.rank == 0) | .ops] | add),
     ([$s[] | select(.phase == $p) | .ranks[] | select(.rank == 1) | .ops] | add)] | "\($p) \(.[0]) \(.[1]) \(.[2]) \(.[3])"')
[ ${#sums[@]} = 4 ] || fail "the phases' sums: ${sums[*]}"
for l in "${sums[@]}"; do
    read -r ph a b r0 r1 <<< "$l"
    [ "$a" = "$b" ] || fail "$ph: the stream has $a ops, the JSON $b"
    r=0
    for a in $r0 $r1; do
        [ "$a" = $((b / 2)) ] || fail "$ph: rank $r's parts have $a ops, expected $((b / 2))"
        r=$((r + 1))
    done
done
[ ! -e e/c.jsonl ] && [ "$(ls | grep -c jsonl)" = 1 ] || fail "stream files: $(ls)"
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
shopt -s nullglob dotglob
for i in $(seq 300); do
    ents=(k/rank.1/*)
    [ ${#ents[@]} != 0 ] && victim=$(rank_pid $pid 1) && break
    nap 0.1
done
shopt -u nullglob dotglob
[ -n "$victim" ] || fail "rank 1 never started: $(cat err)"
# 3 of the job's random-write intervals written (each line once every rank has passed it), at
# most 60 s: what the lines before the kill are checked for below, whatever the load
rw_lines() {
    local l n=0
    [ -e k.jsonl ] && mapfile -t l < k.jsonl || return 1
    for l in "${l[@]}"; do [[ $l == *'"phase":"random_write"'* ]] && n=$((n + 1)); done
    [ $n -ge 3 ]
}
for i in $(seq 600); do
    rw_lines && break
    nap 0.1
done
kill -KILL "$victim"
for i in $(seq 600); do kill -0 $pid 2> /dev/null || break; nap 0.1; done
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
