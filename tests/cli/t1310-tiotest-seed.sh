#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1310: random offsets are reproducible from --seed, different seeds give different offsets,
# and each thread draws its own stream (tiotest seeded from the microseconds of the clock).
# How it is seen: only the random write runs (-k 0 -k 2 -k 3) on sparse files with -c, so the
# blocks that hold data are exactly the blocks the random write chose; with --keep the files
# stay to be read. Same seed: identical files. Other seed, or the other thread: another set of
# blocks. Offsets are block aligned (a -c block is found only at its own offset) and inside the
# file. With strace (a test dependency): the pwrite offsets themselves, in order.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd perl
BS=4096 R=40 NB=256   # -f 1: 256 blocks per thread, 40 draws each

# blocks DIR THR: the indices of the blocks of thread THR's file that hold data
blocks() {
    local f
    f=$(ls "$1"/_tiotest_pid*.thr"$2") || fail "no file for thread $2 in $1"
    [ "$(stat -c %s "$f")" = $((NB * BS)) ] || fail "$f: size $(stat -c %s "$f"), expected $((NB * BS))"
    perl -e 'open my $f, "<", $ARGV[0] or die; binmode $f; my ($i, $b) = (0);
             while (read($f, $b, $ARGV[1])) { print "$i\n" if $b =~ /[^\0]/; $i++ }' "$f" "$BS"
}
run() { # run NAME SEED...: seeded random-write-only run, files kept in $SCRATCH/NAME
    local name=$1; shift
    mkdir -p "$SCRATCH/$name"
    "$FSBENCH" tiotest -t 2 -f 1 -r $R -b $BS -c -k 0 -k 2 -k 3 --keep "$@" -d "$SCRATCH/$name" -T > /dev/null 2> "$SCRATCH/err" ||
        fail "run $name ($*): exit $?: $(cat "$SCRATCH/err")"
    blocks "$SCRATCH/$name" 0 > "$SCRATCH/$name.b0"
    blocks "$SCRATCH/$name" 1 > "$SCRATCH/$name.b1"
}
run a --seed 1
run b --seed 1
run c --seed 2
run d --seed 18446744073709551615

for x in a c d; do
    for t in 0 1; do
        n=$(wc -l < "$SCRATCH/$x.b$t")
        [ "$n" -ge 1 ] && [ "$n" -le $R ] || fail "run $x thread $t: $n blocks with data, expected 1..$R"
    done
done
cmp -s "$SCRATCH/a.b0" "$SCRATCH/b.b0" && cmp -s "$SCRATCH/a.b1" "$SCRATCH/b.b1" ||
    fail "same --seed, different blocks written: $(paste -sd, "$SCRATCH/a.b0") vs $(paste -sd, "$SCRATCH/b.b0")"
for t in 0 1; do
    cmp -s "$SCRATCH"/a/*.thr$t "$SCRATCH"/b/*.thr$t || fail "same --seed: thread $t's files differ"
done
ok "same seed: the same blocks, identical files"
! cmp -s "$SCRATCH/a.b0" "$SCRATCH/c.b0" || fail "--seed 1 and --seed 2: thread 0 wrote the same blocks"
! cmp -s "$SCRATCH/a.b1" "$SCRATCH/c.b1" || fail "--seed 1 and --seed 2: thread 1 wrote the same blocks"
! cmp -s "$SCRATCH/a.b0" "$SCRATCH/d.b0" || fail "--seed 1 and --seed 2^64-1: thread 0 wrote the same blocks"
ok "other seeds: other blocks"
for x in a c d; do
    ! cmp -s "$SCRATCH/$x.b0" "$SCRATCH/$x.b1" || fail "run $x: threads 0 and 1 wrote the same blocks (same stream)"
done
ok "each thread its own stream"

# the JSON records the seed
mkdir -p "$SCRATCH/j"
"$FSBENCH" tiotest -t 1 -f 1 -r 1 --seed 12345 -d "$SCRATCH/j" --json - | grep -q '"seed": 12345' || fail "config.seed is not 12345 in the JSON"

command -v strace > /dev/null 2>&1 || skip "seed checks passed; strace not installed, pwrite offsets not traced"
trace() { # trace NAME SEED: the random write's pwrite offsets, per thread, in order
    mkdir -p "$SCRATCH/s$1"
    # LeakSanitizer cannot run under ptrace: the ASan build is traced without it
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=pwrite64 -o "$SCRATCH/s$1.trace" \
        "$FSBENCH" tiotest -t 2 -f 1 -r $R -b $BS -k 0 -k 2 -k 3 --seed "$2" -d "$SCRATCH/s$1" -T > /dev/null 2>&1 ||
        fail "strace run $1 failed"
    # "PID pwrite64(FD, "..."..., 4096, OFFSET) = 4096" or "... OFFSET <unfinished ...>": per pid,
    # the offsets in order
    perl -ne 'print "$1 $2\n" if /^(\d+)\s+pwrite64\(\d+, .*, (\d+)(?:\) += \d+| <unfinished \.\.\.>)$/' "$SCRATCH/s$1.trace" |
        sort -s -k1,1n | awk '{ if ($1 != p) { if (p) print ""; p = $1 } printf "%s ", $2 } END { print "" }' > "$SCRATCH/s$1.off"
}
trace 1 7
trace 2 7
trace 3 8
[ "$(grep -c . "$SCRATCH/s1.off")" = 2 ] || fail "strace: expected two threads with pwrites: $(cat "$SCRATCH/s1.off")"
awk -v r=$R '{ if (NF != r) exit 1 }' "$SCRATCH/s1.off" || fail "strace: a thread did not do $R pwrites"
awk -v bs=$BS -v nb=$NB '{ for (i = 1; i <= NF; i++) if ($i % bs || $i >= bs * nb) exit 1 }' "$SCRATCH/s1.off" ||
    fail "strace: an offset not block aligned or outside the file: $(cat "$SCRATCH/s1.off")"
sort "$SCRATCH/s1.off" > "$SCRATCH/s1.sorted"; sort "$SCRATCH/s2.off" > "$SCRATCH/s2.sorted"; sort "$SCRATCH/s3.off" > "$SCRATCH/s3.sorted"
cmp -s "$SCRATCH/s1.sorted" "$SCRATCH/s2.sorted" || fail "strace: same seed, different offset sequences"
! cmp -s "$SCRATCH/s1.sorted" "$SCRATCH/s3.sorted" || fail "strace: different seeds, same offset sequences"
[ "$(sed -n 1p "$SCRATCH/s1.off")" != "$(sed -n 2p "$SCRATCH/s1.off")" ] || fail "strace: both threads used the same offsets"
ok "strace: offset sequences reproducible, block aligned, per thread"
