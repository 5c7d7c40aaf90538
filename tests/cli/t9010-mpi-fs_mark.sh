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

# 100 files of 4 KiB a thread (800 in the job, 200 a rank): the totals and the merge are
# exact at any count (the 300 before cost ~1 s of CPU more)
mpi 4 fs_mark -d "$D" -n 100 -s 4096 -t 2 --percentiles --json r.json > out 2> err ||
    fail "exit $?: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "stderr: $(cat err)"
mapfile -t lines < out
header= row= hostrow=
for ((i = 0; i < ${#lines[@]}; i++)); do
    l=${lines[i]}
    [[ -z $header && $l =~ ^#.*Version\ 3\.3,\ 8\ thread\(s\)\ starting\ at ]] && header=$l
    [[ -z $row && $l == FSUse%* ]] && row=${lines[i + 1]:-}
    [[ -z $hostrow && $l =~ ^[^\ ]+\ +4\ create\  ]] && hostrow=$l
done
[ -n "$header" ] || fail "header: $(grep Version out)"
read -r _ count size _ <<< "$row"
[ "$count $size" = "800 4096" ] || fail "row: $row"
# the figures with one jq (jq_read), the histograms with another and one perl (a jq each
# before)
jq_read v r.json '[.summary.files, .iterations[0].files, .iterations[0].count, .latency.create.count, .latency.write.count, .latency.unlink.count]' \
    '[.mpi.ranks[].phases[] | select(.name == "create") | .ops]'
[ "${v[0]}" = "[800,800,800,800,800,800]" ] || fail "totals: $(jq -c '[.summary.files, .iterations[0].files, .latency.create.count]' r.json)"
jq -r '.latency as $l | .mpi.ranks as $r | ("create", "unlink") as $o |
    "# \($o): the job'"'"'s histogram is not the ranks'"'"' union", ($l[$o] | tojson),
    ($r[].latency[] | select(.name == $o) | .latency | tojson)' r.json > hists || fail "jq: the histograms"
perl "$TESTS_DIR/cli/hist_union.pl" < hists > hists.out || fail "$(cat hists.out)"
[ "${v[1]}" = "[200,200,200,200]" ] ||
    fail "per rank: $(jq -c '[.mpi.ranks[].phases[] | select(.name == "create") | .ops]' r.json)"
[ -n "$hostrow" ] || fail "per-host row: $(grep -A3 'Per host' out)"
! has_entries "$D" || fail "left in $D: $(ls -A "$D")"

# kept files show where each rank worked; fs_mark creates a missing -d, here for the job (20
# files a thread: where they are is the check, not how many)
mpi 4 fs_mark -d "$D/new" -n 20 -s 0 -S 0 -t 2 -k -l log > out 2> err || fail "-k: exit $?: $(cat err)"
# one find: each entry's type and path, counted here (a find and a wc per rank before)
declare -A files=()
top=0
while read -r type path; do
    rel=${path#"$D/new/"}
    [[ $rel == */* ]] || top=$((top + 1))
    [ "$type" = f ] && files[${rel%%/*}]=$((${files[${rel%%/*}]:-0} + 1))
done < <(find "$D/new" -mindepth 1 -printf '%y %p\n')
for r in 0 1 2 3; do
    [ "${files[rank.$r]:-0}" = 40 ] || fail "rank $r: $(find "$D/new" | head)"
done
[ "$top" = 4 ] || fail "$D/new holds: $(ls "$D/new")"
rm -rf "$D/new"
mpi 4 fs_mark -d "$D/new2" -n 20 -s 0 -S 0 -t 2 -l log > out 2> err || fail "new -d: exit $?: $(cat err)"
[ ! -e "$D/new2" ] || fail "$D/new2 left: $(find "$D/new2" | head)"

# one shared directory; -r 0: names must still be unique across the job. 16 files a thread:
# 32 a rank, 128 in the job, whose names take two random characters (32 values each) where one
# rank's count would take one; a rank's threads numbered from 0, or the characters of one
# rank's count, collide at these counts as at the 4,000 before (~2.5 s of CPU more)
mpi 4 fs_mark --shared-dir -d "$D" -n 16 -s 0 -S 0 -t 2 -r 0 -k -l log > out 2> err ||
    fail "--shared-dir: exit $?: $(cat err)"
n=$(find "$D" -maxdepth 1 -type f -printf .)
[ "${#n}" = 128 ] || fail "shared: ${#n} files, want 128"
ok "fsbench-mpi fs_mark: 4 x 2 threads, Count, histogram union, per-rank and shared directories"
