#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsbench-mpi fs_mark -F, 4 ranks filling one small tmpfs: the fill ends as full with exit 0
# on every rank, whichever rank finds the filesystem full first and wherever the others are
# then (in the middle of their iteration, or at the next barrier). The result says which
# ranks found it full themselves and in which iteration (JSON mpi.ranks[].filesystem_full,
# a "Filesystem full:" line each under the run), the others ended at a barrier with no error.
# Before, a rank that found the filesystem full before its next iteration left, rank 0 took
# it for a rank gone before a barrier and stopped the job with an error: exit 1 in 9 of 10
# such fills (load ~15), hence two fills here.
. "$(dirname "$0")/lib.sh"
need_root
need_mpi
MNT=$SCRATCH/mnt
mkdir -p "$MNT"
trap 'umount "$MNT" 2>/dev/null; _lib_cleanup' EXIT

for round in 1 2; do
    # 8 MiB: each rank's iterations of 64 files of 16 KiB (1 MiB) fill it in two or three
    mount -t tmpfs -o size=8m,mode=0700 fsbench-t9110 "$MNT" || skip "cannot mount a tmpfs here"
    mpi 4 fs_mark -d "$MNT/f" -n 64 -s 16384 -t 1 -S 0 -F --json r.json > out 2> err ||
        fail "round $round: exit $?: $(grep -v '^--' err | head -5)"
    umount "$MNT" || fail "umount $MNT"
    grep -q '^fsbench-mpi fs_mark: fill ended, the filesystem is full: ' err ||
        fail "round $round: no fill end: $(head -3 err)"
    ! grep -q 'ended its run before\|stopped by rank' err || fail "round $round: stderr: $(head -3 err)"
    # every figure with one jq (jq_read; five before), the diagnostics only on failure
    jq_read v r.json '.end.reason' '[.mpi.first_error, [.mpi.ranks[] | .error, .result]]' \
        '[.mpi.ranks[] | select(.filesystem_full != null) | .rank]' \
        '[.mpi.ranks[].filesystem_full | select(. != null) | .run == 1 and .iteration >= 1 and
           (.detail | test("No space left on device|bytes free"))] | all'
    [ "${v[0]}" = filesystem_full ] || fail "round $round: end: $(jq -c .end r.json)"
    [ "${v[1]}" = '[null,[null,true,null,true,null,true,null,true]]' ] ||
        fail "round $round: errors: $(jq -c '[.mpi.first_error, [.mpi.ranks[] | .error]]' r.json)"
    # the ranks that found it full: one at least, each with its iteration and how
    full=${v[2]}
    [ "$full" != '[]' ] || fail "round $round: no rank found the filesystem full: $(jq -c '.mpi.ranks' r.json | head -c 600)"
    [ "${v[3]}" = true ] ||
        fail "round $round: $(jq -c '[.mpi.ranks[].filesystem_full]' r.json)"
    # the text's ranks, read by the shell (a grep, an awk and a paste before)
    lines=
    while IFS= read -r l; do
        [[ $l =~ ^Filesystem\ full:\ rank\ ([0-9]) ]] && lines+=${lines:+,}${BASH_REMATCH[1]}
    done < out
    [ "[$lines]" = "$full" ] || fail "round $round: text names ranks [$lines], the JSON $full"
done
ok "2 fills of 4 ranks ended full with exit 0; ranks that found it full: named with their iteration"
