#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (its verdicts or shares are measurements that other tests' load would blur)
# t8110: an A/A experiment on real loop filesystems: ext4 mounted "defaults" and "rw" (two
# spellings of the same options), mkfs before every run, 3 interleaved rounds. No primary figure
# (each phase's rate) is decided better or worse; each is equivalent or undecided with its
# interval, never "no difference" (what the old report printed). On this shared host the runs'
# spread is far wider than the 5 % equivalence margin, so "equivalent" is not asserted here (t8130
# asserts it on a figure the load does not move: the write phases' device bytes per op). A 5 %
# family-wise error rate is the design, for noise scattered around the truth; a host whose steal
# bursts slow one run of most rounds makes it several times that at 3 rounds (fsbench(1),
# STATISTICS: 26 % when every round has one run 2x slower). CI's sanitized runs had steal in 5-6
# of 6 runs, and two A/As in a row decided random_write there once (0.84 and 0.51, CIs clear of
# 1). So a decided A/A is tried again with other seeds, and only three in a row fail
# (test_verdict_sim asserts the nominal rate on thousands of experiments). The derived figures
# (IOPS) and the layout that does not vary are not tested; report --primary moves a figure into
# the confirmatory family and --equivalence changes the margin, both recorded in summary.json.
. "$(dirname "$0")/lib.sh"
need_matrix_ext4

# aa SEED: the experiment; 0 when no primary figure is decided better or worse
aa() {
    rm -rf "$SCRATCH/r"
    fsb matrix --fs ext4 --mount-opts defaults --mount-opts rw --repeat 3 --fresh per-run --size 256 --max-other-cpu 100 \
        --seed "$1" --no-db -o "$SCRATCH/r" -- tiotest -t 1 -f 16 -r 1000 > out 2> err || fail "matrix exit $?: $(cat err)"
    cat out
    [ "$(jq '[.effects[] | select(.family == "confirmatory")] | length' "$S")" = 4 ] || fail "not the 4 phase rates confirmatory"
    jq -e '[.effects[] | select(.family == "confirmatory") | .verdict == "equivalent" or .verdict == "undecided"] | all' "$S" \
        > /dev/null
}
S=$SCRATCH/r/summary.json
# a decided A/A is the 5 % the family-wise error allows (more under steal bursts): other seeds
# must not repeat it (three in a row: 0.0125 % at 5 %; 0.02 % at the 6 % that 52 A/As of the
# sanitized binary beside two CPU hogs decided here)
decided() { jq -c '[.effects[] | select(.family == "confirmatory") | {figure, verdict, ratio, low, high}]' "$S"; }
if ! aa 1; then
    echo "A/A seed 1: $(decided)"
    if ! aa 2; then
        echo "A/A seed 2: $(decided)"
        aa 3 || fail "A/A: a primary figure decided three times in a row: $(decided)"
    fi
fi
jq -e '[.effects[] | select(.family == "confirmatory") | .low < .ratio and .ratio < .high and .low > 0] | all' "$S" \
    > /dev/null || fail "A/A: intervals"
grep -Eq '^  write rate, mount: defaults -> rw \(fs=ext4\): (undecided|equivalent) x[0-9.]+ \[[0-9.]+, [0-9.]+\]' out ||
    fail "A/A: terminal line: $(sed -n 2p out)"
grep -q 'no difference' out "$SCRATCH/r/report.md" && fail "'no difference' printed"
jq -e '[.effects[] | select(.figure | endswith(".iops")) | .tested == false and .verdict == "not tested (derived)"] | all' \
    "$S" > /dev/null || fail "IOPS tested"
jq -e '[.effects[] | select(.figure | endswith("layout_extents_per_mib")) | .tested == false and .p_value == null] | all' \
    "$S" > /dev/null || fail "constant layout tested"
ok "A/A at 3 rounds: no primary figure better or worse; derived and constant figures untested"

fsb report --no-db --primary latency_p99_ns --equivalence 50 "$SCRATCH/r" > rep.txt || fail "report --primary: exit $?"
jq -e '.correction.equivalence_pct == 50 and ([.effects[] | select(.family == "confirmatory") | .figure
       | endswith("latency_p99_ns")] | length > 0 and all)' "$S" > /dev/null ||
    fail "--primary/--equivalence: $(jq -c '.correction' "$S")"
expect_exit 2 fsb report --no-db --equivalence 0 "$SCRATCH/r"
expect_exit 2 fsb report --no-db --primary 'a,,b' "$SCRATCH/r"
expect_exit 2 fsb matrix --equivalence 100 --fs ext4 -- tiotest
ok "--primary and --equivalence"
