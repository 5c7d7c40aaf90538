#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An error on one rank stops the job: rank 2's DIR/rank.2 is a 1 MiB tmpfs (tiotest: ENOSPC in
# the middle of the write phase) or a read-only one (fs_mark: EROFS at the first create); the
# other ranks stop at their next op, the job's first error is printed once with its rank and
# host, the JSON says which rank it was, every rank removes its files, exit 1 from mpirun.
. "$(dirname "$0")/lib.sh"
need_mpi
need_root
D=$SCRATCH/d
mkdir -p "$D/rank.2"
mount -t tmpfs -o size=1m tmpfs "$D/rank.2" || skip "cannot mount tmpfs"
echo "$D/rank.2" >> "$_MOUNTS_FILE"

left() { find "$D" -mindepth 1 -not -path "$D/rank.2"; find "$D/rank.2" -mindepth 1; }

# 4 ranks x 2 threads x 8 MiB: rank 2's first MiB fills its tmpfs
mpi 4 tiotest -t 2 -f 8 -r 1000 -d "$D" --json r.json > out 2> err
rc=$?
[ $rc = 1 ] || fail "tiotest: exit $rc, want 1: $(cat err)"
[ "$(fsb_lines err)" = 1 ] || fail "tiotest: $(grep '^fsbench-mpi' err)"
grep -Eq "^fsbench-mpi tiotest: rank 2 on host [^ ]+: pwrite '$D/rank.2/_tiotest_pid[0-9]+\.thr[45]' at offset [0-9]+: No space left on device$" err ||
    fail "tiotest: message: $(grep '^fsbench-mpi' err)"
grep -q '^Results incomplete: the run stopped during the Write phase' out || fail "tiotest: $(tail -3 out)"
[ "$(jq -c '[.mpi.first_error.rank, [.mpi.ranks[] | .error_is_own]]' r.json)" = "[2,[false,false,true,false]]" ] ||
    fail "tiotest: JSON: $(jq -c '[.mpi.first_error, [.mpi.ranks[] | .error]]' r.json)"
[ -z "$(left)" ] || fail "tiotest: left: $(left)"

umount "$D/rank.2" && mount -t tmpfs -o ro tmpfs "$D/rank.2" || fail "remount read-only"
mpi 4 fs_mark -t 2 -n 2000 -s 4096 -d "$D" -l log > out 2> err
rc=$?
# EROFS is "cannot run here" (3) in the errno mapping every command shares (cmd/cmd.c)
[ $rc = 3 ] || [ $rc = 1 ] || fail "fs_mark: exit $rc, want 3 (EROFS) or 1: $(cat err)"
[ "$(fsb_lines err)" = 1 ] || fail "fs_mark: $(grep '^fsbench-mpi' err)"
grep -Eq "^fsbench-mpi fs_mark: rank 2 on host [^ ]+: open '$D/rank.2/[^']+': Read-only file system$" err ||
    fail "fs_mark: message: $(grep '^fsbench-mpi' err)"
awk '/^FSUse%/ { getline; print; exit }' out | grep -q ' partial$' || fail "fs_mark: row: $(tail -2 out)"
[ -z "$(left)" ] || fail "fs_mark: left: $(left)"
ok "an error on rank 2 stops the job: exit 1, rank named, nothing left"
