#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (its verdicts or shares are measurements that other tests' load would blur)
# t7050: an effect injected on real loop filesystems is found: fs_mark with 4 KiB files on ext4
# mounted defaults against the same mounted -o sync (every write waits for the disk: many times
# slower by construction, not by chance). The report decides fs_mark's files/sec (a primary
# figure: the confirmatory family, Holm) worse with sync, its ratio interval below 1, and the
# report says so. (The A/A side, identical cells never decided after the correction over many
# seeds, is tested on synthetic directories in t8010; at 3 rounds on real runs in t8100.)
. "$(dirname "$0")/lib.sh"
need_matrix_ext4

# 4 interleaved rounds a cell (8 before: the effect is x0.01-0.03, t8100 decides it at 3)
fsb matrix --fs ext4 --mount-opts defaults --mount-opts sync --repeat 4 --size 256 --seed 7 \
    --max-other-cpu 100 --no-db -o "$SCRATCH/r" -- fs_mark -n 100 -s 4096 -S 0 -t 1 > out 2> err ||
    fail "matrix exit $?: $(cat err)"
S=$SCRATCH/r/summary.json
[ -s "$S" ] || fail "no summary.json: $(cat err)"
jq -e '[.effects[] | select(.figure == "files_per_sec" and .axis == "mount")][0]
       | .from == "defaults" and .to == "sync" and .verdict == "worse" and .family == "confirmatory"
         and .p_adjusted >= .p_value and .delta_pct < -50 and .low < .ratio and .high < 0.5' "$S" >/dev/null ||
    fail "the sync mount's slowdown is not flagged: $(jq -c '[.effects[] | select(.figure == "files_per_sec")]' "$S")"
grep -q '^- files/sec, mount: defaults -> sync.*: worse x0\.' "$SCRATCH/r/report.md" ||
    fail "report.md's summary does not say it: $(grep -m3 'files/sec' "$SCRATCH/r/report.md")"
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left"
ok "a sync mount's slowdown decided worse after the correction"
