#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3000: compare on synthetic results with known numbers: exact deltas, ratios, intervals and
# verdicts; identical results are "equivalent" (never "no difference"); figures without variation
# are not tested; single runs are undecided; --fail-if-worse on decided verdicts only; --json;
# what differs is listed first; different workloads refused without --force.
. "$(dirname "$0")/lib.sh"
need_cmd jq
C=$TESTS_DIR/fuzz/corpus
cd "$SCRATCH" || fail "cd"

# runs RATE... : a result with one run per rate (write phase rate; p99 fixed at 9151 ns); the
# rates' array by bash, and the checks of compare's text read it by <<< (a jq and a subshell less)
runs() {
    local label=$1; shift
    jq -c --arg lbl "$label" --argjson rates "[$(IFS=,; echo "$*")]" '
        . as $r | {complete, stop_reason, error, phases, total_latency} as $run
        | del(.complete, .stop_reason, .error, .phases, .total_latency)
        | .label = $lbl
        | .runs = [ $rates[] as $x | $run | .phases[0].rate_mib_per_s = $x | .phases[0].latency.p99_ns = 9151 ]' \
        "$C/valid_tiotest.json"
}
runs A 100 102 98 > a.json
runs B 50 51 49 > b.json
runs A2 100 102 98 > a2.json
jq -c '.config.o_sync = true' b.json > b-sync.json

out=$(fsb compare a.json b.json) || fail "compare exit $?"
echo "$out"
# harmonic means: 3/(1/100+1/102+1/98) = 99.973, 3/(1/50+1/51+1/49) = 49.987, intervals from the
# reciprocals; the ratio of geometric means exactly 0.5 (every rate halved), Welch on the logs;
# the write rate is the only figure that varies, so the only test (primary: confirmatory family)
# and its interval needs no correction: 0.5 x exp(+-t(0.975, 4) 0.02 sqrt(2/3)) = [0.478, 0.523]
grep -E '^write rate +MiB/s +99\.97 \[95\.24, 105\.20\] +49\.99 \[47\.62, 52\.60\] +-50\.0% worse x0\.5 \[0\.478, 0\.523\]$' <<< "$out" ||
    fail "write rate row"
grep -Eq '^x\[low, high\] on the log scale \(Welch\), percentages as differences\. Primary figures: 1 tests, Holm;$' <<< "$out" ||
    fail "the families are not named"
# a figure that does not vary within either result is not tested; IOPS is the rate again
grep -E '^write latency p99 +us +9\.15 +9\.15 +\+0\.0% same \(no variation\)$' <<< "$out" || fail "p99 row"
grep -E '^write IOPS +IOPS +.* not tested \(derived\)$' <<< "$out" || fail "IOPS row"
grep -q 'The results do not differ\|What differs' <<<"$out" || fail "no differences section"
ok "exact deltas and marks"

out=$(fsb compare a.json a2.json) || fail "identical exit $?"
n=$(grep -cE '(better|worse|changed|undecided)( |$)' <<< "$out")
[ "$n" = 0 ] || fail "identical runs show $n differences"
! grep -q 'no difference' <<< "$out" || fail "'no difference' is not a verdict"
# identical spread 2 %: the 90 % interval of the ratio is well within +-5 %
grep -E '^write rate .* \+0\.0% equivalent x1 \[0\.966, 1\.04\]$' <<< "$out" || fail "identical: equivalent"
[ "$(grep -c 'same (no variation)$' <<< "$out")" -ge 30 ] || fail "identical runs: constant figures not 'same (no variation)'"
ok "identical runs: equivalent, constant figures untested"

fsb compare a.json b-sync.json > diff.txt || fail "exit $?"
grep -E '^  config\.o_sync +false +true' diff.txt || fail "config.o_sync not shown as differing"
grep -E '^  label +A +B' diff.txt || fail "label not shown as differing"
ok "what differs comes first"

# single runs: a delta, undecided whatever its size, and the note
jq -c 'del(.runs) + .runs[0]' a.json > a1.json
jq -c 'del(.runs) + .runs[0] | .phases[0].rate_mib_per_s = 110' a.json > b1.json
out=$(fsb compare a1.json b1.json) || fail "single exit $?"
grep -E '^write rate +MiB/s +100\.0 +110\.0 +\+10\.0% undecided$' <<< "$out" || fail "single-run row"
grep -q 'cannot be tested' <<< "$out" || fail "no note on untested deltas"
# the note names the option, not one workload (tiotest and fs_mark both have --repeat)
grep -q '^(--repeat N gives every figure an interval)\.$' <<< "$out" || fail "note: $out"
# a single run per side cannot be tested: never a failure by direction alone
jq -c 'del(.runs) + .runs[0] | .phases[0].rate_mib_per_s = 50' a.json > w1.json
expect_exit 0 fsb compare --fail-if-worse 10 a1.json w1.json > /dev/null
ok "single runs"

expect_exit 1 fsb compare --fail-if-worse 10 a.json b.json > /dev/null
fsb compare --fail-if-worse 10 a.json b.json | grep -q 'write rate .* worse x0\.5 \[.*\] FAIL$' || fail "FAIL mark"
expect_exit 0 fsb compare --fail-if-worse 60 a.json b.json > /dev/null
expect_exit 0 fsb compare --fail-if-worse 10 b.json a.json > /dev/null
expect_exit 2 fsb compare --fail-if-worse ten a.json b.json
ok "--fail-if-worse"

fsb compare --json - a.json b.json > cmp.json || fail "--json - exit $?"
jq -e '.schema == "fsbench-compare" and .baseline == "A" and (.results | length) == 2 and
       .correction.confirmatory.method == "holm" and .correction.confirmatory.tests == 1 and
       .correction.exploratory.method == "benjamini-hochberg" and .correction.equivalence_pct == 5' cmp.json >/dev/null ||
    fail "json head"
jq -e '.figures[] | select(.key == "write.rate_mib_per_s") | .deltas[0].verdict == "worse" and
       (.deltas[0].pct * 10 | round) == -500 and .deltas[0].p_value < 0.001 and .results[0].mean_kind == "harmonic"
       and .deltas[0].family == "confirmatory" and .deltas[0].scale == "ratio" and .deltas[0].ratio == 0.5
       and .deltas[0].low < 0.5 and .deltas[0].high > 0.5 and .deltas[0].high < 1
       and .results[0].runs == 3' cmp.json >/dev/null || fail "json figure"
fsb compare --json out.json a.json b.json > text.txt && [ -s out.json ] && grep -q '^write rate' text.txt ||
    fail "--json FILE keeps the text on stdout"
ok "--json"

expect_exit 2 fsb compare a.json "$C/valid_fs_mark.json" 2> err.txt
grep -q 'refusing to compare different workloads' err.txt || fail "mixed workloads message: $(cat err.txt)"
expect_exit 0 fsb compare --force a.json "$C/valid_fs_mark.json" > /dev/null
expect_exit 2 fsb compare a.json
expect_exit 2 fsb compare --bogus a.json b.json
ok "usage and workloads"
