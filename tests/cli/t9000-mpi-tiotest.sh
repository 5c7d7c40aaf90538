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
# the figures with one jq (jq_read), the histograms with another and one perl: a jq per
# figure (~30) was most of this test's CPU. The diagnostics only on failure.
export RANKDIR=$D
phases=(write random_write read random_read)
exprs=('[.mpi.nranks, .mpi.nhosts, .config.threads, .config.processes] | map(tostring) | join(" ")')
for p in "${phases[@]}"; do
    exprs+=(".phases[] | select(.name == \"$p\") | [.ops, .bytes, .latency.count, (.threads | length)]"
        "[.mpi.ranks[].phases[] | select(.name == \"$p\") | .ops] | add")
done
for r in 0 1 2 3; do
    exprs+=("[.phases[0].threads[].file | select(startswith(\$ENV.RANKDIR + \"/rank.$r/\"))] | length")
done
exprs+=('[.phases[0].threads[].file | capture("thr(?<n>[0-9]+)$").n | tonumber] | sort'
    '[.mpi.phases[] | select(.start_skew_ns >= 0 and .window_ns > 0)] | length'
    '.mpi.first_error')
jq_read v r.json "${exprs[@]}"
[ "${v[0]}" = "4 1 2 4" ] || fail "job shape: $(jq -c '.mpi | {nranks, nhosts}' r.json)"
i=1
for p in "${phases[@]}"; do
    case $p in random_*) n=$((4 * 2 * 300)) ;; *) n=$((4 * 2 * 512)) ;; esac
    got=${v[i]}
    [ "$got" = "[$n,$((n * 4096)),$n,8]" ] || fail "$p: [ops, bytes, latency count, threads] $got, want [$n,$((n * 4096)),$n,8]"
    [ "${v[i + 1]}" = $n ] || fail "$p: per-rank ops do not add up"
    i=$((i + 2))
done
# each rank in its own directory, threads numbered across the job
for r in 0 1 2 3; do
    [ "${v[i + r]}" = 2 ] || fail "rank $r's files: $(jq -c '[.phases[0].threads[].file]' r.json)"
done
i=$((i + 4))
[ "${v[i]}" = "[0,1,2,3,4,5,6,7]" ] || fail "thread numbers: $(jq -c '[.phases[0].threads[].file]' r.json)"
# the job's histogram of each phase is the union of the four ranks'; the host's too
jq -r '.phases as $ph | .mpi as $m | ("write", "random_write", "read", "random_read") as $p |
    "# \($p): the job'"'"'s histogram is not the ranks'"'"' union",
    ($ph[] | select(.name == $p) | .latency | tojson),
    ($m.ranks[].latency[] | select(.name == $p) | .latency | tojson),
    "# \($p): the host'"'"'s histogram is not its ranks'"'"' union",
    ($m.hosts[0].latency[] | select(.name == $p) | .latency | tojson),
    ($m.ranks[].latency[] | select(.name == $p) | .latency | tojson)' r.json > hists || fail "jq: the histograms"
perl "$TESTS_DIR/cli/hist_union.pl" < hists > hists.out || fail "$(cat hists.out)"
! has_entries "$D" || fail "left in $D: $(ls -A "$D")"
[ "${v[i + 1]}" = 4 ] || fail "phase skews: $(jq -c .mpi.phases r.json)"
[ "${v[i + 2]}" = null ] || fail "first_error: $(jq .mpi.first_error r.json)"

# outside mpirun: one rank, the plain tiotest output
"$FSBENCH_MPI" tiotest -t 2 -f 1 -r 100 -d "$D" > out1 2> err1 || fail "alone: exit $?: $(cat err1)"
grep -q '^Tiotest results for 2 concurrent io threads:$' out1 || fail "alone: $(head -1 out1)"
! has_entries "$D" || fail "alone: left in $D: $(ls -A "$D")"
ok "fsbench-mpi tiotest: 4 x 2 threads, totals, histogram union, per-rank directories"
