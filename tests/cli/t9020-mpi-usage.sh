#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fsbench-mpi's command line is rank 0's to judge: a bad option, a bad job option, a workload
# that cannot have per-rank directories, an unknown workload, each give one message (mpirun's
# own banners aside) and exit 2 from the whole job, with nothing created; --help lists the
# workload's options and fsbench-mpi's, from their tables.
. "$(dirname "$0")/lib.sh"
need_mpi
D=$SCRATCH/d
mkdir "$D"

# has_line FILE ERE: a line of FILE matches (a read loop, not a grep per case)
has_line() {
    local line
    while IFS= read -r line || [ -n "$line" ]; do [[ $line =~ $2 ]] && return 0; done < "$1"
    return 1
}
# Two ranks: rank 0 judges, and rank 1 is every other rank (4 cost ~0.12 s of CPU more a job,
# 8 jobs). The checks of a failure only on failure.
one_message() {     # one_message WHAT PATTERN ARGS...: exit 2 and one fsbench-mpi line
    local what=$1 pat=$2; shift 2
    mpi 2 "$@" > out 2> err
    local rc=$?
    [ $rc = 2 ] || fail "$what: exit $rc, want 2: $(cat err)"
    [ "$(fsb_lines err)" = 1 ] || fail "$what: $(fsb_lines err) messages: $(grep '^fsbench-mpi' err)"
    has_line err "$pat" || fail "$what: message: $(grep '^fsbench-mpi' err)"
    [ ! -s out ] || fail "$what: stdout: $(cat out)"
    ! has_entries "$D" || fail "$what: created $(ls -A "$D")"
}
one_message "bad -t" "^fsbench-mpi tiotest: option -t: 0 is out of range" tiotest -t 0 -d "$D"
one_message "check" "^fsbench-mpi tiotest: block size .* is larger than the file size" tiotest -f 1 -b 2097152 -d "$D"
one_message "missing -d" "^fsbench-mpi tiotest: option -d: cannot use" tiotest -d "$D/none"
one_message "fs_mark -t" "^fsbench-mpi fs_mark: -t 3 must be a multiple" fs_mark -t 3 -d "$D" -d "$D"
one_message "--stonewall" "^fsbench-mpi tiotest: option --stonewall: 'x' is not a duration" tiotest --stonewall x -d "$D"
one_message "--mpi-timeout" "^fsbench-mpi fs_mark: option --mpi-timeout" fs_mark --mpi-timeout=1ms -d "$D"
one_message "unknown" "^fsbench-mpi: unknown workload 'nosuch'" nosuch -d "$D"

# --help: the workload's table, then fsbench-mpi's
mpi 2 fs_mark --help > out 2> err || fail "--help: exit $?: $(cat err)"
IFS= read -r -d '' help < out
for o in --files --threads --percentiles --shared-dir --stonewall --mpi-timeout; do
    [[ $help == *"$o"* ]] || fail "--help lacks $o"
done
mapfile -t lines < out
n=0
for l in "${lines[@]}"; do [[ $l == usage:* ]] && n=$((n + 1)); done
[ "$n" = 1 ] || fail "--help printed by more than one rank: $n"
"$FSBENCH" __man-options mpi --list > list || fail "__man-options mpi"
mapfile -t opts < list
[ "${opts[*]} " = "--shared-dir --stonewall --mpi-timeout " ] || fail "options: $(cat list)"
# tiotest -R names devices: no per-rank directories there (a block device in /dev itself, not
# a link)
dev=
for d in /dev/*; do [ -b "$d" ] && [ ! -L "$d" ] && { dev=$d; break; }; done
[ -n "$dev" ] || skip "no block device in /dev for tiotest -R (the rest passed)"
one_message "-R" "^fsbench-mpi tiotest: each rank works in its own DIR/rank.R, which needs -d directories" \
    tiotest -R -d "$dev"
ok "fsbench-mpi usage: one message, exit 2, from rank 0"
