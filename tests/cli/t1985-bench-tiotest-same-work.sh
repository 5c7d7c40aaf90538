#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/tiotest.sh compares the same work (issue 25): BARE_PHASES runs only the named phases of
# the bare loop (a bad list exits 2 before any file is made); PHASES=write runs only the write
# phase in every contender; fio lays its file out with fallocate=truncate (sparse at its full
# size, as tiotest's ftruncate leaves it) and FIO_EXTEND=1 adds fio_ext (fallocate=none) in the
# same rotation, AA=1 adds bare2 (the bare loop again) and its A/A line; fsbench's ratio to every
# other contender is printed round by round; the own-time line (fsbench's time per op outside
# the syscalls it times, against the bare loop's) is computed from the runs' timed latencies;
# CONTENDERS picks a subset (fsbench and bare in it), refused before anything is made; nothing
# is left in DIR; fewer than 5 rounds only with BENCH_SMOKE=1 (which this test's run uses: two).
# Tiny sizes, no timing bound: any load passes.
. "$(dirname "$0")/lib.sh"
need_cmd "${CC:-cc}"
ROOT=$TESTS_DIR/..
# the bare loop where the bench below looks for it (BUILD/bench, newer than its sources: used as
# it is): make check's (Makefile BENCH_HELPERS: its -Werror is this check) when current, else
# built here, warning-free; one compile (~1.5 s of CPU on a busy host) or none
BARE=$SCRATCH/build/bench/bare_tiotest
mkdir -p "${BARE%/*}"
bare_tiotest_to "$BARE"
mkdir "$SCRATCH/d"

phases() {   # phases LIST EXPECTED_NAMES
    BARE_PHASES=$1 "$BARE" "$SCRATCH/d" 2 4096 300 >"$SCRATCH/out" 2>"$SCRATCH/err"; rc=$?
    [ $rc = 0 ] || fail "BARE_PHASES='$1': exit $rc: $(cat "$SCRATCH/err")"
    # the first word of every line but the first (the clock's), read by the shell
    local lines l names=
    mapfile -t lines < "$SCRATCH/out"
    for l in "${lines[@]:1}"; do read -r l _ <<< "$l"; names+="$l "; done
    [ "$names" = "$2" ] || fail "BARE_PHASES='$1': phases '$names', not '$2'"
    ! has_entries "$SCRATCH/d" || fail "BARE_PHASES='$1': left files behind"
}
phases write "write "
phases "read,random_read" "read random_read "
phases "random_write write" "write random_write "
phases "" "write random_write read random_read "
BARE_PHASES=writes "$BARE" "$SCRATCH/d" 2 4096 300 >/dev/null 2>"$SCRATCH/err"; rc=$?
[ $rc = 2 ] || fail "BARE_PHASES=writes: exit $rc, not 2"
grep -q "BARE_PHASES 'writes' names no phase" "$SCRATCH/err" || fail "BARE_PHASES=writes: $(cat "$SCRATCH/err")"
! has_entries "$SCRATCH/d" || fail "BARE_PHASES=writes: left files behind"
ok "bare_tiotest: BARE_PHASES runs the phases named"

need_cmd jq
need_cmd fio
[ -x "$FSBENCH" ] || skip "no fsbench binary at $FSBENCH"
# two rounds (BENCH_SMOKE: the bench's figures are not what this checks; a fio start is ~0.3 s
# of CPU): each contender runs once a round
ROUNDS=2 BENCH_SMOKE=1 SIZE_MIB=1 ROPS=200 PHASES=write FIO_EXTEND=1 AA=1 DIR=$SCRATCH/d BUILD=$SCRATCH/build \
    RAW=$SCRATCH/raw "$ROOT/bench/tiotest.sh" "$FSBENCH" >"$SCRATCH/bench.out" 2>&1; rc=$?
[ $rc = 0 ] || fail "bench/tiotest.sh: exit $rc: $(tail -5 "$SCRATCH/bench.out")"
! has_entries "$SCRATCH/d" || fail "bench/tiotest.sh left files in DIR: $(ls -A "$SCRATCH/d")"
# only the write phase, six contenders, two rounds: 12 raw lines
[ "$(awk '{ print $2 }' "$SCRATCH/raw" | sort -u)" = write ] ||
    fail "PHASES=write ran other phases: $(awk '{ print $2 }' "$SCRATCH/raw" | sort -u | paste -sd' ')"
[ "$(awk '{ print $1 }' "$SCRATCH/raw" | sort | uniq -c | awk '$1 == 2 { print $2 }' | paste -sd' ')" = \
    "bare bare2 fio fio_ext fsbench untimed" ] || fail "not two runs of each contender: $(cat "$SCRATCH/raw")"
# fsbench's and the bare loops' lines carry their mean timed latency per op (ns), the others "-"
awk '($1 == "fsbench" || $1 ~ /^bare/) && !($5 > 0) || ($1 !~ /^(fsbench|bare)/) && $5 != "-" { bad = 1 }
    END { exit bad }' "$SCRATCH/raw" || fail "the raw lines' latency column: $(cat "$SCRATCH/raw")"
grep -q "fallocate=truncate" "$SCRATCH/bench.out" || fail "fio's configuration line does not say fallocate=truncate"
for c in bare untimed fio fio_ext bare2; do
    grep -Eq "^  ÷ $c +write +ops/s [0-9.]+ \([0-9.]+-[0-9.]+\) +CPU/op [0-9.]+ " "$SCRATCH/bench.out" ||
        fail "no round-by-round ratio against $c: $(grep '÷' "$SCRATCH/bench.out")"
done
# the goal lines from bench/goal.awk: two rounds decide nothing
grep -Eq '^goal: fsbench >= 0\.97 x bare \(timing each op\) ops/s in every phase, round by round: undecided \(lowest median [0-9.]+, write, too few rounds to decide; 1 of 1 cases undecided; ratio of medians lowest [0-9.]+, write; x untimed bare [0-9.]+\)$' \
    "$SCRATCH/bench.out" || fail "the x bare goal line: $(grep '^goal' "$SCRATCH/bench.out")"
grep -Eq '^goal: fsbench >= fio ops/s in every phase, round by round: undecided \(' "$SCRATCH/bench.out" ||
    fail "the fio goal line: $(grep '^goal' "$SCRATCH/bench.out")"
grep -Eq "^goal: fsbench's own time per op \(outside the syscalls it times\) within 0\.97 x bare in every phase, round by round: undecided \(lowest median [0-9.]+, write, too few rounds to decide; 1 of 1 cases undecided; own ns per op, fsbench / bare: [0-9.]+ / [0-9.]+\)$" \
    "$SCRATCH/bench.out" || fail "the own-time goal line: $(grep '^goal' "$SCRATCH/bench.out")"
grep -Eq '^A/A, not a goal: bare2 \(the same bare loop\) >= 0\.97 x bare in every phase, round by round: undecided \(' \
    "$SCRATCH/bench.out" || fail "the A/A line: $(grep '^A/A' "$SCRATCH/bench.out")"
grep -q "load at the start" "$SCRATCH/bench.out" && grep -q "load at the end" "$SCRATCH/bench.out" ||
    fail "the load is not printed at the start and the end"
for bad in "fsbench fio_ext" "fsbench untimed" "bare fio"; do
    want="no contender 'fio_ext'"
    case $bad in *untimed) want="bare must be one" ;; bare*) want="fsbench must be one" ;; esac
    ROUNDS=5 CONTENDERS=$bad DIR=$SCRATCH/d BUILD=$SCRATCH/nobuild "$ROOT/bench/tiotest.sh" "$FSBENCH" \
        >/dev/null 2>"$SCRATCH/err"; rc=$?
    [ $rc = 1 ] || fail "CONTENDERS='$bad': exit $rc, not 1"
    grep -q "CONTENDERS: $want" "$SCRATCH/err" || fail "CONTENDERS='$bad': $(cat "$SCRATCH/err")"
    [ ! -e "$SCRATCH/nobuild" ] || fail "CONTENDERS='$bad': the bare loop was built before the refusal"
done
ROUNDS=5 PHASES=writes DIR=$SCRATCH/d BUILD=$SCRATCH/build "$ROOT/bench/tiotest.sh" "$FSBENCH" \
    >/dev/null 2>"$SCRATCH/err"; rc=$?
[ $rc = 1 ] || fail "PHASES=writes: exit $rc, not 1"
grep -q "PHASES: no phase 'writes'" "$SCRATCH/err" || fail "PHASES=writes: $(cat "$SCRATCH/err")"
# fewer than 5 rounds only for BENCH_SMOKE (refused before anything is built or run)
ROUNDS=2 DIR=$SCRATCH/d BUILD=$SCRATCH/build "$ROOT/bench/tiotest.sh" "$FSBENCH" >/dev/null 2>"$SCRATCH/err"; rc=$?
[ $rc = 1 ] || fail "ROUNDS=2 without BENCH_SMOKE: exit $rc, not 1"
grep -q "ROUNDS must be at least 5" "$SCRATCH/err" || fail "ROUNDS=2 without BENCH_SMOKE: $(cat "$SCRATCH/err")"
ok "bench/tiotest.sh: PHASES, fio with fallocate=truncate and fio_ext, AA, own time, CONTENDERS, BENCH_SMOKE"
