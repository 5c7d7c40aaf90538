#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: slow (one of the longest: started first so that it does not end the parallel part alone)
# t1540: every catchable signal whose default action ends the process ends a run through the
# same cleanup as SIGINT, for both workloads (tiotest and fs_mark): nothing is left on disk.
# QUIT, USR1, USR2, ALRM, VTALRM, PROF, IO, PWR, STKFLT, XCPU and the real-time signals exit
# 128 + signal; SIGPIPE (a reader that went away: `| head -1`, or kill -PIPE) exits 1 without a
# word on stderr; SIGXFSZ (`ulimit -f`) is the run's first error, EFBIG naming the file, exit 1.
# An ignore inherited for a signal other than INT, QUIT, TERM and PIPE stays (nohup's rule, t1500).
# Before: each of these killed fsbench on the spot and left its files or directory.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
cd "$SCRATCH" || fail "cd"
cases=0

# start WORKLOAD DIR: a run that does not end by itself, in the background ($pid); returns once
# it has created files (its signal handlers are in place before that). The polls start no
# process (has_entries, nap: lib.sh) and look every 10 ms: the run works at full speed on two
# threads until the signal, and fs_mark's cleanup removes all it made, so each poll's delay was
# CPU (ls and sleep per 50 ms: 50 s of CPU for the test under load, 2 s a case)
start() {
    local wl=$1 dir=$2 i
    case $wl in
    tiotest) mkdir -p "$dir"
             "$FSBENCH" tiotest -t 2 -f 4 -r 1000000000 -d "$dir" > out 2> err & ;;
    fs_mark) "$FSBENCH" fs_mark -d "$dir" -n 1000000 -s 0 -S 0 -t 2 -l log > out 2> err & ;;
    esac
    pid=$!
    for ((i = 0; i < 1000; i++)); do has_entries "$dir" && break; nap 0.01; done
    has_entries "$dir" || { kill -KILL $pid; fail "$wl: no files after 10 s: $(cat err)"; }
}

# finish WHAT: wait (at most 10 s) for $pid; sets rc
finish() {
    local i
    for ((i = 0; i < 1000; i++)); do kill -0 $pid 2> /dev/null || break; nap 0.01; done
    if kill -0 $pid 2> /dev/null; then kill -KILL $pid; fail "$1: still running 10 s after the signal"; fi
    wait $pid; rc=$?
}

# nothing_left WORKLOAD DIR WHAT: tiotest's files are gone (the directory is the test's),
# fs_mark's directory is gone (fs_mark created it)
nothing_left() {
    case $1 in
    tiotest) ! has_entries "$2" || fail "$3: files left: $(ls -A "$2")"; rmdir "$2" ;;
    fs_mark) [ ! -e "$2" ] || fail "$3: left behind: $(find "$2" | head -3) ($(find "$2" | wc -l) entries)" ;;
    esac
}

for wl in tiotest fs_mark; do
    for sig in QUIT USR1 USR2 ALRM VTALRM PROF IO PWR STKFLT XCPU RTMIN RTMIN+3 RTMAX; do
        num=$(kill -l "$sig") || fail "kill -l $sig"
        start "$wl" "$SCRATCH/$wl-$num"
        kill -s "$sig" $pid
        finish "$wl SIG$sig"
        [ "$rc" = $((128 + num)) ] || fail "$wl SIG$sig: exit $rc, expected $((128 + num)): $(cat err)"
        nothing_left "$wl" "$SCRATCH/$wl-$num" "$wl SIG$sig"
        cases=$((cases + 1))
    done
    ok "$wl: 13 terminating signals exit 128 + signal, nothing left"

    # SIGPIPE sent by hand mid-run: exit 1, nothing on stderr
    start "$wl" "$SCRATCH/$wl-pipe"
    kill -PIPE $pid
    finish "$wl SIGPIPE"
    [ "$rc" = 1 ] || fail "$wl SIGPIPE: exit $rc, expected 1: $(cat err)"
    [ -z "$(not_warnings err)" ] || fail "$wl SIGPIPE: stderr not quiet: $(cat err)"
    nothing_left "$wl" "$SCRATCH/$wl-pipe" "$wl SIGPIPE"
    cases=$((cases + 1))

    # an inherited ignore of SIGUSR1 stays: the run goes on, SIGINT then stops it
    case $wl in
    tiotest) mkdir -p "$SCRATCH/$wl-ign"
             (trap '' USR1; exec "$FSBENCH" tiotest -t 2 -f 4 -r 1000000000 -d "$SCRATCH/$wl-ign" > out 2> err) & ;;
    fs_mark) (trap '' USR1; exec "$FSBENCH" fs_mark -d "$SCRATCH/$wl-ign" -n 1000000 -s 0 -S 0 -t 2 -l log > out 2> err) & ;;
    esac
    pid=$!
    for ((i = 0; i < 1000; i++)); do has_entries "$SCRATCH/$wl-ign" && break; nap 0.01; done
    kill -USR1 $pid
    nap 0.3
    kill -0 $pid 2> /dev/null || { wait $pid; fail "$wl: USR1 ignored by the parent stopped the run (exit $?)"; }
    kill -INT $pid
    finish "$wl SIGINT after an ignored USR1"
    [ "$rc" = 130 ] || fail "$wl: SIGINT after an ignored USR1: exit $rc: $(cat err)"
    nothing_left "$wl" "$SCRATCH/$wl-ign" "$wl USR1 ignored"
    cases=$((cases + 1))
done
ok "SIGPIPE by kill: exit 1, quiet, nothing left; an inherited ignore of USR1 stays (both workloads)"

# a reader that goes away: | head -1. tiotest prints after each run, so the second of three
# runs writes to a closed pipe; fs_mark prints its header first and a row per iteration.
# tiotest's second run waits at its first phase boundary (the 4th: 3 a run) until the reader has
# gone (at most 10 s), so that it is gone whatever the load, with no run long enough to make sure
# of it (-r 200000 took 20 s of the test under load)
gate="n=\$(( \$(cat '$SCRATCH/phases') + 1 )); echo \$n > '$SCRATCH/phases'; [ \$n -le 3 ] ||
    for i in \$(seq 200); do [ -e '$SCRATCH/gone' ] && break; sleep 0.05; done"
reader() { head -1 > /dev/null; touch "$SCRATCH/gone"; }
mkdir -p "$SCRATCH/tp"
echo 0 > "$SCRATCH/phases"; rm -f "$SCRATCH/gone"
"$FSBENCH" tiotest -t 2 -f 4 -r 1000 -d "$SCRATCH/tp" --repeat 3 --between-phases "$gate" 2> err | reader
rc=${PIPESTATUS[0]}
[ "$rc" = 1 ] || fail "tiotest | head -1: exit $rc, expected 1: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "tiotest | head -1: stderr not quiet: $(cat err)"
nothing_left tiotest "$SCRATCH/tp" "tiotest | head -1"
mkdir -p "$SCRATCH/tp"
"$FSBENCH" fs_mark -d "$SCRATCH/fp" -n 50000 -s 0 -S 0 -l log --repeat 3 2> err | head -1 > /dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 1 ] || fail "fs_mark | head -1: exit $rc, expected 1: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "fs_mark | head -1: stderr not quiet: $(cat err)"
nothing_left fs_mark "$SCRATCH/fp" "fs_mark | head -1"
# --json - into a reader that reads 10 bytes: the JSON write fails, quietly
mkdir -p "$SCRATCH/tj"
"$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$SCRATCH/tj" --json - --repeat 8 2> err | head -c 10 > /dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 1 ] && [ -z "$(not_warnings err)" ] || fail "tiotest --json - | head -c 10: exit $rc: $(cat err)"
nothing_left tiotest "$SCRATCH/tj" "tiotest --json - | head -c 10"
"$FSBENCH" fs_mark -d "$SCRATCH/fj" -n 10 -s 0 -S 0 -l log --json - --repeat 40 2> err | head -c 10 > /dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 1 ] && [ -z "$(not_warnings err)" ] || fail "fs_mark --json - | head -c 10: exit $rc: $(cat err)"
nothing_left fs_mark "$SCRATCH/fj" "fs_mark --json - | head -c 10"
cases=$((cases + 2))

# the same with SIGPIPE ignored by the parent: EPIPE, and the same end (before: the run went
# on to the end and exited 0, its results lost)
echo 0 > "$SCRATCH/phases"; rm -f "$SCRATCH/gone"
(trap '' PIPE; exec "$FSBENCH" tiotest -t 2 -f 4 -r 1000 -d "$SCRATCH/tp" --repeat 3 --between-phases "$gate" 2> err) | reader
rc=${PIPESTATUS[0]}
[ "$rc" = 1 ] || fail "SIGPIPE ignored, tiotest | head -1: exit $rc, expected 1: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "SIGPIPE ignored, tiotest | head -1: stderr not quiet: $(cat err)"
nothing_left tiotest "$SCRATCH/tp" "SIGPIPE ignored, tiotest | head -1"
cases=$((cases + 3))
ok "| head -1: exit 1, quiet, nothing left (both workloads; SIGPIPE ignored by the parent too)"

# ulimit -f: files larger than the limit are EFBIG, the run's first error
mkdir -p "$SCRATCH/tx"
(ulimit -f 100; exec "$FSBENCH" tiotest -t 2 -f 1 -r 10 -d "$SCRATCH/tx" > out 2> err); rc=$?
[ "$rc" = 1 ] || fail "tiotest ulimit -f: exit $rc, expected 1: $(cat err)"
grep -Eq "'$SCRATCH/tx/_tiotest_pid[0-9]+\.thr[01]'.*File too large" err || fail "tiotest ulimit -f: message: $(cat err)"
nothing_left tiotest "$SCRATCH/tx" "tiotest ulimit -f"
(ulimit -f 100; exec "$FSBENCH" fs_mark -d "$SCRATCH/fx" -n 10 -s 204800 -S 0 -t 2 -l log > out 2> err); rc=$?
[ "$rc" = 1 ] || fail "fs_mark ulimit -f: exit $rc, expected 1: $(cat err)"
grep -Eq "^fsbench fs_mark: write '$SCRATCH/fx/[^']+': File too large$" err || fail "fs_mark ulimit -f: message: $(cat err)"
nothing_left fs_mark "$SCRATCH/fx" "fs_mark ulimit -f"
cases=$((cases + 2))
ok "ulimit -f: EFBIG names the file, exit 1, nothing left (both workloads)"
ok "$cases signal cases"
