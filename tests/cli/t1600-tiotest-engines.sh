#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1600: the other I/O modes on tmpfs.
# -M (mmap): a small full run with -c passes; files of 1 GiB and more work (tiotest 0.4.2
# aborts at -f 1024 and segfaults at -f 1100) and random ops reach past the first GiB (tiotest
# limited them to the first 1 GiB chunk): run on sparse files, random phases only, to stay fast.
# -W: the write phase runs its threads one after another (JSON: each starts after the previous
# one ended), the other phases do not. -S: every open of a test file has O_SYNC (strace), and
# -M does its I/O without pread/pwrite.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR"

"$FSBENCH" tiotest -M -c -t 2 -f 4 -r 500 -d "$DIR" --json "$SCRATCH/m.json" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "-M -c: exit $?: $(cat "$SCRATCH/err")"
grep -Eq '^\| Random Read +4 MBs \|' "$SCRATCH/out" || fail "-M: rows: $(cat "$SCRATCH/out")"
jq -e '.config.engine == "mmap" and [.phases[].bytes] == [8388608, 4096000, 8388608, 4096000]' "$SCRATCH/m.json" > /dev/null ||
    fail "-M JSON: $(jq -c '[.config.engine, [.phases[].bytes]]' "$SCRATCH/m.json")"
"$FSBENCH" tiotest -M -S -t 1 -f 1 -r 50 -d "$DIR" -T > /dev/null || fail "-M -S: exit $?"
no_files "$DIR"
ok "-M: small run with -c, and -M -S"

for f in 1024 1100; do
    "$FSBENCH" tiotest -M -t 1 -f $f -r 1000 -k 0 -k 2 -d "$DIR" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
        fail "-M -f $f: exit $?: $(cat "$SCRATCH/err")"
    grep -Eq '^\| Random Write +4 MBs \|' "$SCRATCH/out" && grep -Eq '^\| Random Read +4 MBs \|' "$SCRATCH/out" ||
        fail "-M -f $f: rows: $(cat "$SCRATCH/out")"
    no_files "$DIR"
done
ok "-M with 1024 and 1100 MiB files"
# where the random writes landed: only written pages of the sparse file hold data
# (SEEK_DATA/SEEK_HOLE on tmpfs); 2000 draws over 1100 MiB put about 140 past 1 GiB
"$FSBENCH" tiotest -M -c -t 1 -f 1100 -r 2000 -k 0 -k 2 -k 3 --keep -d "$DIR" -T > /dev/null || fail "-M -c -f 1100 --keep: exit $?"
file=$(ls "$DIR"/_tiotest_pid*.thr0)
[ "$(stat -c %s "$file")" = $((1100 * 1048576)) ] || fail "-M -f 1100: file size $(stat -c %s "$file")"
read -r below past < <(perl -e '
    open my $f, "<", $ARGV[0] or die "$!\n"; my ($pos, $below, $past, $g) = (0, 0, 0, 1 << 30);
    while (defined(my $d = sysseek($f, $pos, 3))) {            # SEEK_DATA
        my $h = sysseek($f, $d, 4); $h = -s $f unless defined $h; # SEEK_HOLE
        $below += ($h < $g ? $h : $g) - $d if $d < $g; $past += $h - ($d > $g ? $d : $g) if $h > $g;
        $pos = $h; }
    print "$below $past\n";' "$file")
[ -n "$past" ] && [ "$past" -gt 0 ] || fail "-M -f 1100: no random write landed past the first GiB ($below bytes below)"
[ "$below" -gt "$past" ] || fail "-M -f 1100: $below data bytes below 1 GiB, $past past it: not uniform"
rm -f "$DIR"/*
ok "-M: random writes reach past 1 GiB ($past of $((past + below)) data bytes)"

"$FSBENCH" tiotest -W -t 3 -f 2 -r 100 -d "$DIR" --json "$SCRATCH/w.json" > /dev/null || fail "-W: exit $?"
jq -e '.config.serial_write == true and (.phases[0].threads as $t | all(range(1; $t | length); $t[.].start_ns >= $t[. - 1].end_ns))' \
    "$SCRATCH/w.json" > /dev/null || fail "-W: write threads overlap: $(jq -c '.phases[0].threads | map([.start_ns, .end_ns])' "$SCRATCH/w.json")"
jq -e '.phases[0].wall_ns >= ([.phases[0].threads[] | .end_ns - .start_ns] | add)' "$SCRATCH/w.json" > /dev/null ||
    fail "-W: the write phase is shorter than its threads one after another"
no_files "$DIR"
ok "-W: write threads one at a time"

need_cmd strace
# (LeakSanitizer cannot run under ptrace: the ASan build is traced without it)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=openat,open,pwrite64,pread64 -o "$SCRATCH/S.trace" "$FSBENCH" tiotest -S -t 2 -f 1 -r 20 -d "$DIR" -T > /dev/null ||
    fail "-S under strace: exit $?"
# the phases' opens: not setup's O_CREAT, nor the layout's one read-only open per file (FIEMAP)
opens=$(grep -E 'open(at)?\(.*_tiotest_pid[0-9]+\.thr[0-9]+"' "$SCRATCH/S.trace" | grep -v -e O_CREAT -e O_RDONLY)
[ "$(echo "$opens" | grep -c .)" = 8 ] || fail "-S: expected 8 phase opens (4 phases x 2 threads): $opens"
! echo "$opens" | grep -v O_SYNC || fail "-S: a phase opened its file without O_SYNC"
no_files "$DIR"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=pwrite64,pread64,mmap -o "$SCRATCH/M.trace" "$FSBENCH" tiotest -M -t 1 -f 1 -r 20 -d "$DIR" -T > /dev/null ||
    fail "-M under strace: exit $?"
! grep -Eq '^[0-9]+ +p(read|write)64\([0-9]+, .*, 4096, [0-9]+' "$SCRATCH/M.trace" || fail "-M: pread/pwrite used: $(grep -m3 -E 'p(read|write)64' "$SCRATCH/M.trace")"
[ "$(grep -cE 'mmap\(NULL, 1048576, PROT_READ\|PROT_WRITE, MAP_SHARED' "$SCRATCH/M.trace")" = 4 ] ||
    fail "-M: expected one shared 1 MiB mapping per phase: $(grep mmap "$SCRATCH/M.trace" | grep MAP_SHARED)"
no_files "$DIR"
ok "-S opens with O_SYNC in every phase; -M maps and copies"
