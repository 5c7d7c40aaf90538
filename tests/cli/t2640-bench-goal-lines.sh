#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every bench script ends with its goal lines (issue 25; bench/README.md): each bench/*.sh but
# run.sh prints "goal: WHAT: met|MISSED|undecided|skipped ...", also when it cannot run here (mdtest.sh
# without IOR's source, mpi.sh without fsbench-mpi: both run here, in a second, to show it), and
# `make bench` gives them a small ROUNDS unless one is set.
. "$(dirname "$0")/lib.sh"
unsanitized_only
BENCH=$TESTS_DIR/../bench

for s in "$BENCH"/*.sh; do
    [ "$(basename "$s")" = run.sh ] && continue
    grep -q 'goal: ' "$s" || fail "$(basename "$s") prints no goal line"
done
BUILD=$SCRATCH IOR_SRC=$SCRATCH/no-ior bash "$BENCH/mdtest.sh" "$FSBENCH" >"$SCRATCH/out" 2>&1; rc=$?
[ $rc = 0 ] || fail "mdtest.sh without IOR's source: exit $rc: $(cat "$SCRATCH/out")"
grep -qx 'goal: fsbench >= 1.0 x mdtest on every file operation: skipped (no mpicc or no IOR source)' "$SCRATCH/out" ||
    fail "mdtest.sh without IOR's source: $(cat "$SCRATCH/out")"
FSBENCH_MPI=$SCRATCH/no-fsbench-mpi bash "$BENCH/mpi.sh" "$FSBENCH" >"$SCRATCH/out" 2>&1; rc=$?
[ $rc = 0 ] || fail "mpi.sh without fsbench-mpi: exit $rc: $(cat "$SCRATCH/out")"
grep -q '^goal: 4 ranks >= .*: skipped (no fsbench-mpi or mpirun)$' "$SCRATCH/out" ||
    fail "mpi.sh without fsbench-mpi: $(cat "$SCRATCH/out")"
# memory.sh at a small size (its fill as root, its MPI case skipped): exit 0 and nothing left in
# TMPDIR (its EXIT trap once stopped at the umount of the tmpfs it had already unmounted, under
# set -e: the run exited 32 and left its directory, copies of both binaries included)
mkdir -p "$SCRATCH/tmp" "$SCRATCH/dir"
TMPDIR=$SCRATCH/tmp DIR=$SCRATCH/dir SMALL=1000 LARGE=2000 FILL_SMALL=1 FILL_LARGE=2 \
    FSBENCH_MPI=$SCRATCH/no-fsbench-mpi bash "$BENCH/memory.sh" "$FSBENCH" >"$SCRATCH/out" 2>&1; rc=$?
[ $rc = 0 ] || fail "memory.sh, small: exit $rc: $(tail -5 "$SCRATCH/out")"
grep -q '^goal: peak RSS of a fill' "$SCRATCH/out" || fail "memory.sh, small: no fill goal line: $(cat "$SCRATCH/out")"
left="$(ls -A "$SCRATCH/tmp")$(ls -A "$SCRATCH/dir")"
[ -z "$left" ] || fail "memory.sh left files: $left"
ok "memory.sh at a small size: exit 0, nothing left behind"
out=$(make -n -s -C "$TESTS_DIR/.." bench BIN=fsbench 2>&1 | grep 'bench/run.sh')
[ "$out" = 'ROUNDS=${ROUNDS:-5} bench/run.sh ./fsbench' ] || fail "make bench runs: $out"
ok "every bench script prints goal lines, skipped ones too; make bench: $out"
