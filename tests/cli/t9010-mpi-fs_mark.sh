#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsbench-mpi fs_mark, 4 ranks x 2 threads on this host: the classic rows are the whole job's
# (Count is every rank's files), the totals are exactly 4 x one rank's configured work, the
# merged create latency is the union of the ranks' (count, min, max, every bucket,
# percentiles), every rank works in its own DIR/rank.R (kept files show it; without -k it is
# removed, and a -d that fsbench created for the job too); with --shared-dir the ranks share
# DIR and their names stay unique even with -r 0.
. "$(dirname "$0")/lib.sh"
need_mpi
D=$SCRATCH/d
mkdir "$D"

mpi 4 fs_mark -d "$D" -n 300 -s 4096 -t 2 --percentiles --json r.json > out 2> err ||
    fail "exit $?: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "stderr: $(cat err)"
grep -Eq '^#.*Version 3\.3, 8 thread\(s\) starting at' out || fail "header: $(grep Version out)"
row=$(awk '/^FSUse%/ { getline; print; exit }' out)
[ "$(echo "$row" | awk '{ print $2, $3 }')" = "2400 4096" ] || fail "row: $row"
[ "$(jq -c '[.summary.files, .iterations[0].files, .iterations[0].count, .latency.create.count, .latency.write.count, .latency.unlink.count]' r.json)" = \
  "[2400,2400,2400,2400,2400,2400]" ] || fail "totals: $(jq -c '[.summary.files, .iterations[0].files, .latency.create.count]' r.json)"
for op in create unlink; do
    { jq -c --arg o $op '.latency[$o]' r.json
      jq -c --arg o $op '.mpi.ranks[].latency[] | select(.name == $o) | .latency' r.json; } |
        perl "$TESTS_DIR/cli/hist_union.pl" || fail "$op: the job's histogram is not the ranks' union"
done
[ "$(jq -c '[.mpi.ranks[].phases[] | select(.name == "create") | .ops]' r.json)" = "[600,600,600,600]" ] ||
    fail "per rank: $(jq -c '[.mpi.ranks[].phases[] | select(.name == "create") | .ops]' r.json)"
grep -Eq '^[^ ]+ +4 create ' out || fail "per-host row: $(grep -A3 'Per host' out)"
[ -z "$(ls -A "$D")" ] || fail "left in $D: $(ls -A "$D")"

# kept files show where each rank worked; fs_mark creates a missing -d, here for the job
mpi 4 fs_mark -d "$D/new" -n 100 -s 0 -S 0 -t 2 -k -l log > out 2> err || fail "-k: exit $?: $(cat err)"
for r in 0 1 2 3; do
    [ "$(find "$D/new/rank.$r" -type f | wc -l)" = 200 ] || fail "rank $r: $(find "$D/new" | head)"
done
[ "$(find "$D/new" -mindepth 1 -maxdepth 1 | wc -l)" = 4 ] || fail "$D/new holds: $(ls "$D/new")"
rm -rf "$D/new"
mpi 4 fs_mark -d "$D/new2" -n 100 -s 0 -S 0 -t 2 -l log > out 2> err || fail "new -d: exit $?: $(cat err)"
[ ! -e "$D/new2" ] || fail "$D/new2 left: $(find "$D/new2" | head)"

# one shared directory; -r 0: names must still be unique across the job
mpi 4 fs_mark --shared-dir -d "$D" -n 500 -s 0 -S 0 -t 2 -r 0 -k -l log > out 2> err ||
    fail "--shared-dir: exit $?: $(cat err)"
[ "$(find "$D" -maxdepth 1 -type f | wc -l)" = 4000 ] || fail "shared: $(find "$D" -type f | wc -l) files, want 4000"
ok "fsbench-mpi fs_mark: 4 x 2 threads, Count, histogram union, per-rank and shared directories"
