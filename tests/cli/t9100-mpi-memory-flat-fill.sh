#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Not serial: peak RSS is each rank's own; beside load 21-23 it grew +1.1-1.4 MiB and +0.1-0.4.
# fsbench-mpi: memory flat in the number of a fill's iterations (issue 25), on every rank. Two
# ranks fill the same 16,000 files as 250 iterations of 32 files a rank and as 1,000 of 8,
# with --sysstats, --csv and the log; the peak RSS of each rank at 1,000 iterations is
# compared with its peak at 250. Before, every rank kept its packed iterations until the end
# and rank 0 all of them, and rank 0 built the job's "mpi" object (every phase of every rank,
# a kernel view each) for the CSV too: rank 1 grew by +4.3 MiB and rank 0 by +26 MiB here
# (load ~5). Then the iterations went to rank 0 as they completed and were spooled there:
# rank 1 +0.1 MiB, rank 0 still +1.4 MiB, the job's record of each phase of each rank (~2 KiB
# an iteration with its host's kernel view, packed) that the --sysstats text reports at the
# end. Now those go to rank 0 as each phase ends and are spooled too: both ranks within the
# same limit.
# A fixed number of iterations (-L) on a tmpfs with inodes to spare, not -F: the same
# iterations on both ranks in every fill (-F ends at the first rank that finds it full). Each
# fill runs twice and each rank's lower peak counts: a rank's single peak strays upward by up
# to ~0.6 MiB here now and then, the growth measured is systematic.
. "$(dirname "$0")/lib.sh"

[ -n "${FSBENCH_SANITIZED:-}" ] && skip "peak RSS is not fsbench's own under a sanitizer"
need_root
need_mpi
need_cmd cc
MAXRSS=$(maxrss_tool) || exit $?
LIMIT_RANK0_KIB=${LIMIT_RANK0_KIB:-1024}
LIMIT_OTHERS_KIB=${LIMIT_OTHERS_KIB:-1024}
MNT=$SCRATCH/mnt
OUT=$SCRATCH/out
mkdir -p "$OUT" "$MNT"
trap 'umount "$MNT" 2>/dev/null; _lib_cleanup' EXIT

# fill N TRY: 16,000 files as N files a rank an iteration; each rank's peak RSS in
# $OUT/N.TRY.rss.R, the outputs in $OUT/N.*
fill() {
    local n=$1 try=$2
    mount -t tmpfs -o size=16m,nr_inodes=16100,mode=0700 fsbench-t9100 "$MNT" || skip "cannot mount a tmpfs here"
    # shellcheck disable=SC2016 # expanded by each rank's shell
    mpirun --oversubscribe --allow-run-as-root --bind-to none "${MPIRUN_OPTS[@]}" -np 2 \
        sh -c 'm=$0 o=$1; shift; exec "$m" "$o.$OMPI_COMM_WORLD_RANK" "$@"' "$MAXRSS" "$OUT/$n.$try.rss" \
        "$FSBENCH_MPI" fs_mark -d "$MNT/f" -n "$n" -L $((8000 / n)) -k -t 1 -s 0 -S 0 --sysstats \
        -l "$OUT/$n.log" --csv "$OUT/$n.csv" < /dev/null > "$OUT/$n.txt" 2> "$OUT/$n.err" ||
        fail "-n $n: exit $?: $(head -3 "$OUT/$n.err")"
    umount "$MNT" || fail "umount $MNT"
}

# check N ITERATIONS: a CSV row, a classic row and a --sysstats kstat row for each iteration
check() {
    local rows
    [ "$(wc -l < "$OUT/$1.csv")" = $(($2 + 1)) ] || fail "-n $1: CSV rows: $(wc -l < "$OUT/$1.csv")"
    rows=$(grep -cE '^ +[0-9]+ +[0-9]+ +0 ' "$OUT/$1.txt")
    [ "$rows" = "$2" ] || fail "-n $1: $rows classic rows for $2 iterations"
    rows=$(grep -c '^iteration [0-9]' "$OUT/$1.txt")
    [ "$rows" = "$2" ] || fail "-n $1: $rows --sysstats kstat rows for $2 iterations"
    grep -q "^iteration $2 " "$OUT/$1.txt" || fail "-n $1: no kstat row for iteration $2"
}

for try in 1 2; do
    fill 32 $try
    check 32 250
    fill 8 $try
    check 8 1000
done
# peak N R: rank R's lower peak of the two fills
peak() {
    local a b
    a=$(cat "$OUT/$1.1.rss.$2" 2>/dev/null) b=$(cat "$OUT/$1.2.rss.$2" 2>/dev/null)
    case $a$b in *[!0-9]*|'') fail "no peak RSS of rank $2 at -n $1 ('$a', '$b')" ;; esac
    [ "$a" -lt "$b" ] && echo "$a" || echo "$b"
}
p32_0=$(peak 32 0) && p8_0=$(peak 8 0) && p32_1=$(peak 32 1) && p8_1=$(peak 8 1) || exit 1
d0=$((p8_0 - p32_0))
d1=$((p8_1 - p32_1))
summary="rank 0 $p32_0 KiB at 250 iterations, $p8_0 at 1,000 ($(printf %+d $d0) KiB, limit +$LIMIT_RANK0_KIB); rank 1 $p32_1, $p8_1 ($(printf %+d $d1) KiB, limit +$LIMIT_OTHERS_KIB)"
[ "$d1" -lt "$LIMIT_OTHERS_KIB" ] || fail "rank 1's peak RSS grows with the iterations: $summary"
[ "$d0" -lt "$LIMIT_RANK0_KIB" ] || fail "rank 0's peak RSS grows with the iterations: $summary"
ok "$summary; rows complete"
