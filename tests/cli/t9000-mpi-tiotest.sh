#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsbench-mpi tiotest, 4 ranks x 2 threads on this host: the classic output is the whole job's
# (8 concurrent threads), its totals are exactly 4 x one rank's configured work, each phase's
# merged latency histogram is the union of the ranks' (count, min, max, every bucket,
# percentiles), every rank worked in its own DIR/rank.R, created and removed by fsbench. Run
# outside mpirun, fsbench-mpi is a job of one rank.
. "$(dirname "$0")/lib.sh"
need_mpi
D=$SCRATCH/d
mkdir "$D"

# 2 MiB of 4 KiB blocks per thread: 512 blocks; 300 random ops per thread
mpi 4 tiotest -t 2 -f 2 -b 4096 -r 300 -d "$D" --percentiles --json r.json > out 2> err ||
    fail "exit $?: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "stderr: $(cat err)"
grep -q '^Tiotest results for 8 concurrent io threads:$' out || fail "header: $(head -1 out)"
grep -Eq '^\| Write +16 MBs \|' out || fail "write row: $(grep Write out | head -1)"
grep -Eq '^\| Random Read +9 MBs \|' out || fail "random read row (4 x 2 x 300 x 4 KiB): $(grep 'Random Read' out | head -1)"
grep -q '^Per host (fsbench-mpi):' out || fail "no per-host rows with --percentiles"
[ "$(jq '.mpi.nranks, .mpi.nhosts, .config.threads, .config.processes' r.json | tr '\n' ' ')" = "4 1 2 4 " ] ||
    fail "job shape: $(jq -c '.mpi | {nranks, nhosts}' r.json)"
for p in write random_write read random_read; do
    case $p in random_*) n=$((4 * 2 * 300)) ;; *) n=$((4 * 2 * 512)) ;; esac
    got=$(jq -c --arg p $p '.phases[] | select(.name == $p) | [.ops, .bytes, .latency.count, (.threads | length)]' r.json)
    [ "$got" = "[$n,$((n * 4096)),$n,8]" ] || fail "$p: [ops, bytes, latency count, threads] $got, want [$n,$((n * 4096)),$n,8]"
    # the job's histogram is the union of the four ranks'; the host's too
    { jq -c --arg p $p '.phases[] | select(.name == $p) | .latency' r.json
      jq -c --arg p $p '.mpi.ranks[].latency[] | select(.name == $p) | .latency' r.json; } |
        perl "$TESTS_DIR/cli/hist_union.pl" || fail "$p: the job's histogram is not the ranks' union"
    { jq -c --arg p $p '.mpi.hosts[0].latency[] | select(.name == $p) | .latency' r.json
      jq -c --arg p $p '.mpi.ranks[].latency[] | select(.name == $p) | .latency' r.json; } |
        perl "$TESTS_DIR/cli/hist_union.pl" || fail "$p: the host's histogram is not its ranks' union"
    [ "$(jq --arg p $p '[.mpi.ranks[].phases[] | select(.name == $p) | .ops] | add' r.json)" = $n ] ||
        fail "$p: per-rank ops do not add up"
done
# each rank in its own directory, threads numbered across the job
for r in 0 1 2 3; do
    [ "$(jq --arg d "$D/rank.$r/" '[.phases[0].threads[].file | select(startswith($d))] | length' r.json)" = 2 ] ||
        fail "rank $r's files: $(jq -c '[.phases[0].threads[].file]' r.json)"
done
[ "$(jq -c '[.phases[0].threads[].file | capture("thr(?<n>[0-9]+)$").n | tonumber] | sort' r.json)" = "[0,1,2,3,4,5,6,7]" ] ||
    fail "thread numbers: $(jq -c '[.phases[0].threads[].file]' r.json)"
[ -z "$(ls -A "$D")" ] || fail "left in $D: $(ls -A "$D")"
[ "$(jq '[.mpi.phases[] | select(.start_skew_ns >= 0 and .window_ns > 0)] | length' r.json)" = 4 ] ||
    fail "phase skews: $(jq -c .mpi.phases r.json)"
[ "$(jq '.mpi.first_error' r.json)" = null ] || fail "first_error: $(jq .mpi.first_error r.json)"

# outside mpirun: one rank, the plain tiotest output
"$FSBENCH_MPI" tiotest -t 2 -f 1 -r 100 -d "$D" > out1 2> err1 || fail "alone: exit $?: $(cat err1)"
grep -q '^Tiotest results for 2 concurrent io threads:$' out1 || fail "alone: $(head -1 out1)"
[ -z "$(ls -A "$D")" ] || fail "alone: left in $D: $(ls -A "$D")"
ok "fsbench-mpi tiotest: 4 x 2 threads, totals, histogram union, per-rank directories"
