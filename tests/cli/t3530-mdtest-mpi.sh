#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3530: fsbench-mpi mdtest, 4 ranks on this host: rank 0 prints the job's header and tables
# (4 tasks, Nodemap 1111, the items of every task), the totals are exactly tasks x items x
# iterations, with -u a tree per task (tree rates count all four) and without it one shared
# tree (-N 1 shifts the names between phases), nothing left behind; and a failing rank is named.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_mpi
D=$SCRATCH/d
MASK=$TESTS_DIR/cli/mdtest_mask.pl

mpi 4 mdtest -n 100 -u -d "$D" --json u.json > out 2> err || fail "-u: exit $?: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "-u: stderr: $(cat err)"
grep -qx 'mdtest-4.1.0+dev was launched with 4 total task(s) on 1 node(s)' out || fail "launch line: $(sed -n 3p out)"
grep -qx 'Nodemap: 1111' out || fail "Nodemap: $(grep Nodemap out)"
grep -qx '4 tasks, 400 files/directories' out || fail "tasks line: $(grep tasks out)"
[ "$(grep -c '^SUMMARY rate' out)" = 1 ] || fail "not one SUMMARY table (rank 0 prints the job's)"
perl "$MASK" out | grep -c '^   [DFT][a-z]* [a-z]* *  *V  *V  *V  *V$' | grep -qx 10 || fail "table rows: $(perl "$MASK" out)"
jq -e '.tasks == 4 and .operations.file_create.latency.count == 400 and
       .iterations[0].file_create.items == 400 and .iterations[0].dir_create.items == 400 and
       .operations.tree_create.latency.count == 4 and (.mpi.ranks | length) == 4' u.json > /dev/null ||
    fail "-u totals: $(jq -c '{tasks, fc: .operations.file_create.latency.count, tc: .operations.tree_create.latency.count}' u.json)"
[ ! -e "$D" ] || fail "-u: left $(find "$D" | head)"
ok "-u: a tree per task, the job's tables on rank 0"

mpi 4 mdtest -n 50 -F -N 1 -i 2 -z 1 -b 2 -d "$D" --json s.json > out 2> err || fail "shared: exit $?: $(cat err)"
grep -qx '4 tasks, 192 files' out || fail "shared tasks line (50 -> 48 per task): $(grep tasks out)"
jq -e '.operations.file_stat.latency.count == 384 and .operations.tree_create.latency.count == 6 and
       [.iterations[].file_remove.items] == [192, 192]' s.json > /dev/null ||
    fail "shared totals: $(jq -c '{fs: .operations.file_stat.latency.count, tc: .operations.tree_create.latency.count}' s.json)"
[ ! -e "$D" ] || fail "shared: left $(find "$D" | head)"
ok "shared tree, -N 1: every task's items found by its neighbour"

# a failing rank is named: rank 2's items made by -C, one removed, then a stat run
mkdir "$D"
mpi 4 mdtest -n 5 -u -F -C -d "$D" > out 2> err || fail "-C: exit $?: $(cat err)"
f=$D/test-dir.0-0/mdtest_tree.2.0/file.mdtest.2.3
[ -f "$f" ] || fail "rank 2's file $f not there: $(find "$D" | head -30)"
rm "$f"
mpi 4 mdtest -n 5 -u -F -T -d "$D" > out 2> err; rc=$?
[ "$rc" != 0 ] || fail "stat of a missing file: exit 0"
grep -q "^fsbench-mpi mdtest: rank 2 on host [^:]*: statx '$f': No such file or directory" err ||
    fail "the error does not name rank 2 and the file: $(grep fsbench-mpi err)"
mpi 4 mdtest -n 5 -u -F -r -d "$D" > out 2> err; rc=$?
[ "$rc" != 0 ] || fail "removal of a missing file: exit 0"
grep -q "rank 2 on host" err || fail "-r: rank 2 not named: $(grep fsbench-mpi err)"
ok "a failing rank named with its path"
