#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3010: compare's mechanics on results this build writes: real tiotest and fs_mark runs
# (--repeat 3, and a single run) whose figures jq then sets to known values, so that whether
# two results differ is decided by construction, never by the machine's noise:
# - clearly apart (100, 102, 98 against 50, 51, 49): worse, the ratio 0.5 with its interval
#   (the write rate is primary: Holm over the phases' rates, the confirmatory family), and the
#   --fail-if-worse gate trips;
# - close (100, 102, 98 against 97, 99, 95): undecided (never "no difference"), the gate holds;
# - identical results: no row better, worse or changed; the write rate equivalent;
# - single runs, or a single run against repeated ones: a delta, undecided, and the gate holds
#   (a single run cannot be tested: it is not a failure by direction alone; this used to fail);
# - what differs between the results (a config field) is listed.
# Whether 512-byte blocks really are slower than 64 KiB ones is a measurement, not a test:
# bench/compare_ab.sh.
. "$(dirname "$0")/lib.sh"
need_cmd jq
dir=/dev/shm
[ -d "$dir" ] && [ -w "$dir" ] || dir=$SCRATCH
d=$(mktemp -d "$dir/fsbench-t3010.XXXXXX") || fail "mktemp"
trap 'rm -rf "$d"; _lib_cleanup' EXIT
cd "$SCRATCH" || fail "cd"

fsb tiotest -t 1 -f 2 -r 100 -b 65536 -d "$d" --repeat 3 --quiet --json tio3.json > /dev/null || fail "tiotest --repeat 3"
fsb tiotest -t 1 -f 2 -r 100 -b 65536 -d "$d" --quiet --json tio1.json > /dev/null || fail "tiotest"
fsb fs_mark -d "$d/f" -L 2 -n 20 -s 0 -S 0 --repeat 3 --quiet --json fsm3.json -l log > /dev/null || fail "fs_mark --repeat 3"
jq -e '(.runs | length) == 3' tio3.json fsm3.json > /dev/null || fail "the real results do not have 3 runs each"
jq -e 'has("runs") | not' tio1.json > /dev/null || fail "a single run is not at the top level"

# the numbers as a JSON array by bash (it was a jq more per file: ~50 ms of CPU each)
json_list() { local IFS=,; echo "[$*]"; }
# tio FILE LABEL RATE...: FILE with its label set and, run by run, the write phase's rate
tio() {
    local f=$1 l=$2; shift 2
    jq --arg l "$l" --argjson r "$(json_list "$@")" '.label = $l |
        if has("runs") then .runs |= [range(0; length) as $i | .[$i] | (.phases[] | select(.name == "write")
            | .rate_mib_per_s) = $r[$i]]
        else (.phases[] | select(.name == "write") | .rate_mib_per_s) = $r[0] end' "$f"
}
# fsm FILE LABEL RATE...: the same for fs_mark's files/sec (its summary average)
fsm() {
    local f=$1 l=$2; shift 2
    jq --arg l "$l" --argjson r "$(json_list "$@")" '.label = $l |
        .runs |= [range(0; length) as $i | .[$i] | .summary.files_per_sec_sum_of_threads.average = $r[$i]]' "$f"
}
starred() { grep -E ' (better|worse|changed) ' "$1"; }

tio tio3.json A 100 102 98 > a.json
tio tio3.json B 50 51 49 | jq '.config.block_size_bytes = 512' > b.json
tio tio3.json C 97 99 95 > c.json
tio tio3.json A2 100 102 98 > a2.json
tio tio1.json A1 100 > a1.json
tio tio1.json B1 50 > b1.json

fsb compare a.json b.json > out.txt || fail "compare A B: exit $?"
# harmonic means 3/(1/100+1/102+1/98) = 99.97 and 49.99; Welch on the reciprocals: p = 4.5e-5,
# Holm-adjusted over the 53 tests: 0.0024
grep -E '^write rate +MiB/s +99\.97 \[95\.24, 105\.20\] +49\.99 \[47\.62, 52\.60\] +-50\.0% worse x0\.5 \[0\.4[0-9]+, 0\.5[0-9]+\]$' out.txt ||
    fail "A B: the write rate is not -50.0% worse x0.5 [...]: $(grep '^write rate' out.txt)"
[ "$(starred out.txt | grep -cv '^write rate ')" = 0 ] || fail "A B: rows starred that were not changed: $(starred out.txt)"
grep -E '^  config\.block_size_bytes +65536 +512' out.txt > /dev/null || fail "A B: block size not listed as a difference"
expect_exit 1 fsb compare --fail-if-worse 20 a.json b.json > /dev/null
expect_exit 0 fsb compare --fail-if-worse 60 a.json b.json > /dev/null
ok "clearly apart: -50.0% worse x0.5, the only decided row; the gate trips at 20 %, not at 60 %"

fsb compare a.json c.json > out.txt || fail "compare A C: exit $?"
grep -E '^write rate +MiB/s +99\.97 \[95\.24, 105\.20\] +96\.97 \[92\.25, 102\.21\] +-3\.0% undecided x0\.97 \[0\.9[0-9]*, 1\.0[0-9]*\]$' out.txt ||
    fail "A C: the write rate is not 'undecided (-3.0%)': $(grep '^write rate' out.txt)"
! grep -q 'no difference' out.txt || fail "A C: 'no difference' is not a verdict"
[ -z "$(starred out.txt)" ] || fail "A C: starred: $(starred out.txt)"
expect_exit 0 fsb compare --fail-if-worse 2 a.json c.json > /dev/null
ok "close: undecided (-3.0%), a 2 % gate holds (not decided)"

fsb compare a.json a2.json > out.txt || fail "compare A A2: exit $?"
[ -z "$(grep -E '(better|worse|changed)( |$)' out.txt)" ] || fail "identical: rows differ: $(grep -E 'better|worse|changed' out.txt)"
grep -E '^write rate .* \+0\.0% equivalent x1 \[0\.966, 1\.04\]$' out.txt || fail "identical: write rate not equivalent"
ok "identical: no row better, worse or changed; the write rate equivalent"

fsb compare a1.json b1.json > out.txt || fail "compare A1 B1: exit $?"
grep -E '^write rate +MiB/s +100\.0 +50\.00 +-50\.0% undecided$' out.txt || fail "single runs: $(grep '^write rate' out.txt)"
[ -z "$(starred out.txt)" ] || fail "single runs starred: $(starred out.txt)"
grep -q 'cannot be tested' out.txt || fail "single runs: no note on untested deltas"
fsb compare a.json b1.json > out.txt || fail "compare A B1: exit $?"
grep -E '^write rate +MiB/s +99\.97 \[95\.24, 105\.20\] +50\.00 +-50\.0% undecided$' out.txt || fail "repeated against single: $(grep '^write rate' out.txt)"
[ -z "$(starred out.txt)" ] || fail "repeated against single starred: $(starred out.txt)"
# the gate fails on decided verdicts only, as history check does (it used to fail a single run
# by the direction of its delta alone)
expect_exit 0 fsb compare --fail-if-worse 20 a1.json b1.json > /dev/null
ok "single runs: a delta, undecided, the note; the gate does not fail an untested delta"

fsm fsm3.json FA 1000 1020 980 > fa.json
fsm fsm3.json FB 500 510 490 > fb.json
fsm fsm3.json FA2 1000 1020 980 > fa2.json
fsb compare fa.json fb.json > out.txt || fail "compare fs_mark A B: exit $?"
grep -E '^files/sec +files/s +999\.7 \[952\.4, 1052\.0\] +499\.9 \[476\.2, 526\.0\] +-50\.0% worse x0\.5 \[0\.4[0-9]+, 0\.5[0-9]+\]$' out.txt ||
    fail "fs_mark A B: files/sec: $(grep '^files/sec ' out.txt)"
fsb compare fa.json fa2.json > out.txt || fail "compare fs_mark A A2: exit $?"
[ -z "$(grep -E '(better|worse|changed)( |$)' out.txt)" ] || fail "fs_mark identical: $(grep -E 'better|worse|changed' out.txt)"
ok "fs_mark: files/sec -50.0% worse x0.5; identical results do not differ"
