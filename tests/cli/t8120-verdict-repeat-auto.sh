#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (its verdicts or shares are measurements that other tests' load would blur)
# t8120: matrix --repeat auto on real loop filesystems: the sync mount's write rate (tiotest,
# --primary write.rate_mib_per_s: many times slower; the read phases' rates, from the page
# cache, may stay undecided for many rounds) is decided in fewer rounds than --max-rounds, the manifest records the
# looks, the rounds used and why it stopped, and every verdict of the report is at the level of
# the look it stopped at: 0.025 at the first look (3 rounds), 0.025 / 3 at each of the later
# ones (a weighted Bonferroni over the looks: valid under optional stopping, fsbench(1) STATISTICS). An A/A with
# --max-rounds 3 stops at 3 rounds, undecided, and says so. Usage errors before anything runs.
# The sync mount at 2 MiB and 250 random writes (t8100's size): x0.014-0.027 [.., 0.03-0.05].
. "$(dirname "$0")/lib.sh"
need_matrix_ext4

expect_exit 2 fsb matrix --repeat 0 --fs ext4 -- tiotest
expect_exit 2 fsb matrix --repeat sometimes --fs ext4 -- tiotest
expect_exit 2 fsb matrix --max-rounds 5 --fs ext4 -- tiotest
expect_exit 2 fsb matrix --repeat auto --max-rounds 2 --fs ext4 -- tiotest
ok "usage"

fsb matrix --fs ext4 --mount-opts defaults --mount-opts sync --repeat auto --max-rounds 12 --size 256 \
    --primary write.rate_mib_per_s --max-other-cpu 100 --no-db -o "$SCRATCH/s" -- tiotest -t 1 -f 2 -r 250 > out 2> err ||
    fail "matrix exit $?: $(cat err)"
cat out err
M=$SCRATCH/s/manifest.json
jq -e '.experiment.repeat_auto | .max_rounds == 12 and .looks == [3, 5, 8, 12] and .stopped == "decided"
       and .rounds_used < 12' "$M" > /dev/null || fail "repeat_auto: $(jq -c '.experiment.repeat_auto' "$M")"
used=$(jq '.experiment.repeat_auto.rounds_used' "$M")
[ "$(jq '[.runs[] | select(.warmup | not)] | length' "$M")" = $((2 * used)) ] || fail "not $used rounds of runs"
grep -q "^fsbench matrix: --repeat auto: $used rounds; every primary effect decided$" err || fail "stderr: $(cat err)"
S=$SCRATCH/s/summary.json
alpha=$(jq -n --argjson u "$used" 'if $u == 3 then 0.025 else 0.025 / 3 end')
jq -e --argjson a "$alpha" '(.correction.alpha - $a | fabs) < 1e-12 and .correction.confirmatory.tests == 1 and ([.effects[] | select(.family == "confirmatory") | .figure == "write.rate_mib_per_s" and .verdict == "worse"
       and (.level - (1 - $a * .p_value / .p_adjusted) | fabs) < 1e-9] | all)' "$S" > /dev/null ||
    fail "summary: $(jq -c '.correction, [.effects[] | select(.family == "confirmatory") | {figure, verdict, level}]' "$S")"
[ "$used" = 3 ] || grep -q "^fsbench matrix: round 3: 1 primary effect undecided at alpha 0.025 (look 1 of 4): going on$" err ||
    fail "stderr: the first look: $(cat err)"
ok "sync mount: the write rate decided worse in $used rounds, at $alpha (the level of its look of 4)"

# aa SEED: the A/A with a single look (at 0.05); 0 when no primary figure is better or worse
aa() {
    rm -rf "$SCRATCH/a"
    fsb matrix --fs ext4 --mount-opts defaults --mount-opts rw --repeat auto --max-rounds 3 --fresh per-run --size 256 \
        --seed "$1" --max-other-cpu 100 --no-db -o "$SCRATCH/a" -- tiotest -t 1 -f 8 -r 1000 > out 2> err ||
        fail "A/A matrix exit $?: $(cat err)"
    jq -e '.experiment.repeat_auto | .looks == [3] and .rounds_used == 3 and .stopped != null' "$SCRATCH/a/manifest.json" \
        > /dev/null || fail "A/A: $(jq -c '.experiment.repeat_auto' "$SCRATCH/a/manifest.json")"
    grep -Eq '^fsbench matrix: --repeat auto: 3 rounds; (--max-rounds reached, some primary effects undecided|every primary effect decided)$' err ||
        fail "A/A: stderr: $(cat err)"
    jq -e '[.effects[] | select(.family == "confirmatory") | .verdict != "better" and .verdict != "worse"] | all' \
        "$SCRATCH/a/summary.json" > /dev/null
}
# a decided A/A is the 5 % the family-wise error allows at a single look: once, another seed
# must not repeat it (twice in a row: 0.25 %), as in t8110
if ! aa 1; then
    echo "A/A seed 1: $(head -n 6 out)"
    aa 2 || fail "A/A: a primary figure decided twice: $(head -n 6 out)"
fi
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left"
ok "A/A: 3 rounds at most, nothing better or worse"
