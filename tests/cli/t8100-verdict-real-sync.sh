#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (its verdicts or shares are measurements that other tests' load would blur)
# t8100: verdicts on real loop filesystems, 3 interleaved rounds (the runner's default): the
# demo's question (scripts/demo.sh: ext4 mounted defaults against sync, tiotest, "does sync slow
# the write rate?", so --primary write.rate_mib_per_s as the demo has it) decides the
# sync mount's write rate worse, with the ratio and its interval below 1, paired by round, in
# the confirmatory family, first in the terminal summary and report.md; the other rates are
# exploratory; fs_mark's files/sec
# (primary) is decided worse at 3 rounds too. Both used to read "no difference" (one Holm family
# over every figure, Welch on reciprocals of 3 runs); "no difference" is no verdict any more.
# Figures that do not vary (the write phases' layout on a fresh filesystem) are not tested.
# Sized small: the sync mount is ~40 times slower (x0.025, interval [0.015, 0.05] with 2 MiB and
# 250 random writes, 512 + 250 synchronous writes a run); 8 MiB took 4 times as long to say it.
. "$(dirname "$0")/lib.sh"
need_matrix_ext4

fsb matrix --fs ext4 --mount-opts defaults --mount-opts sync --repeat 3 --primary write.rate_mib_per_s \
    --size 256 --max-other-cpu 100 --no-db -o "$SCRATCH/t" -- tiotest -t 1 -f 2 -r 250 > out 2> err || fail "matrix tiotest exit $?: $(cat err)"
cat out
S=$SCRATCH/t/summary.json
jq -e '[.effects[] | select(.figure == "write.rate_mib_per_s" and .axis == "mount")][0]
       | .from == "defaults" and .to == "sync" and .verdict == "worse" and .family == "confirmatory"
         and .paired and .n == 3 and .scale == "ratio" and .low < .ratio and .ratio < .high and .high < 1' "$S" \
    > /dev/null || fail "sync write rate not decided worse: $(jq -c '[.effects[] | select(.figure == "write.rate_mib_per_s")]' "$S")"
# the answer first: the terminal's second line, report.md's first item
sed -n 2p out | grep -Eq '^  write rate, mount: defaults -> sync \(fs=ext4\): worse x0\.[0-9]+ \[0\.[0-9]+, 0\.[0-9]+\] \(paired by round, n 3, confirmatory\)$' ||
    fail "terminal: the answer is not first: $(sed -n 2p out)"
grep -m1 '^- ' "$SCRATCH/t/report.md" | grep -q '^- write rate, mount: defaults -> sync (fs=ext4): worse x0\.' ||
    fail "report.md: the answer is not first: $(grep -m1 '^- ' "$SCRATCH/t/report.md")"
jq -e '[.effects[] | select(.axis == "mount" and (.figure | test("^(random_write|read|random_read)[.]rate_mib_per_s$")))]
       | length == 3 and all(.family == "exploratory")' "$S" > /dev/null ||
    fail "the other rates are not exploratory: $(jq -c '[.effects[] | select(.figure | test("rate_mib_per_s$")) | {figure, family}]' "$S")"
jq -e '.answer[0] | .kind == "effect" and .figure == "write.rate_mib_per_s" and .verdict == "worse"' "$S" > /dev/null ||
    fail "summary.json: the answer"
grep -q 'no difference' out "$SCRATCH/t/report.md" && fail "'no difference' printed"
# constant figures: not tested, no p-value
jq -e '[.effects[] | select(.figure | test("layout_extents_per_mib$")) | .tested == false and .p_value == null
        and (.verdict == "same (no variation)" or .verdict == "differs in every run (deterministic)")] | length > 0 and all' \
    "$S" > /dev/null || fail "constant layout figures tested: $(jq -c '[.effects[] | select(.figure | test("layout")) | {figure, verdict, p_value}]' "$S")"
ok "tiotest, sync mount at 3 rounds: write rate worse with its interval, first in the summary; constant figures untested"

fsb matrix --fs ext4 --mount-opts defaults --mount-opts sync --repeat 3 --size 256 --max-other-cpu 100 --no-db \
    -o "$SCRATCH/f" -- fs_mark -n 50 -s 4096 -S 0 -t 1 > fout 2> err || fail "matrix fs_mark exit $?: $(cat err)"
cat fout
jq -e '[.effects[] | select(.figure == "files_per_sec" and .axis == "mount")][0]
       | .verdict == "worse" and .family == "confirmatory" and .paired and .high < 1' "$SCRATCH/f/summary.json" \
    > /dev/null || fail "fs_mark files/sec not decided worse: $(jq -c '[.effects[] | select(.figure == "files_per_sec")]' "$SCRATCH/f/summary.json")"
grep -Eq '^  files/sec, mount: defaults -> sync \(fs=ext4\): worse x0\.' fout || fail "fs_mark: terminal"
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left"
ok "fs_mark, sync mount at 3 rounds: files/sec worse"
