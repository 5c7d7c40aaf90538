#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8400: history changes and check --bisect on synthetic experiments (lib_matrix.sh): cell a
# 30 % slower from kernel label 6.2.0 on, cell b unchanged. changes finds the step of cell a's
# primary figures between the last 6.1.0 run and the first 6.2.0 one (run 5 of 10), decides it
# worse with an interval below 1, lists what else moved and the kernel as the environment's
# difference, primary figures first; nothing in cell b. FIGURE operands, --cell, --config,
# --since, --order, --exclude-flagged select; too few runs: exit 3. check --bisect: exit 1 on
# the step, 0 on a flat history, 125 when an interval reaches beyond the margin (noisy, few
# runs) or nothing is compared; an error exits 255, a usage error too (git bisect run stops).
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH
mx_base tiotest base.json
printf 'a fs=ext4 1.0 0.05\nb fs=xfs 1.0 0.05\n' | MX_T0=1790000000 MX_KERNEL=6.1.0 MX_FLAG="b:2" mx_make k1 base.json 21 5 ci
printf 'a fs=ext4 0.7 0.05\nb fs=xfs 1.0 0.05\n' | MX_T0=1790100000 MX_KERNEL=6.2.0 mx_make k2 base.json 22 5 ci
printf 'a fs=ext4 1.0 0.05\nb fs=xfs 1.0 0.05\n' | MX_T0=1790100000 MX_KERNEL=6.2.0 mx_make flat base.json 23 5 ci
printf 'a fs=ext4 1.0 0.25\nb fs=xfs 1.0 0.25\n' | MX_T0=1790000000 MX_KERNEL=6.1.0 mx_make n1 base.json 31 2 ci
printf 'a fs=ext4 1.0 0.25\nb fs=xfs 1.0 0.25\n' | MX_T0=1790100000 MX_KERNEL=6.2.0 mx_make n2 base.json 32 2 ci
for d in k1 k2; do fsb report --db h.db $d > /dev/null || fail "report $d"; done
for d in k1 flat; do fsb report --db flat.db $d > /dev/null || fail "report $d (flat)"; done
for d in n1 n2; do fsb report --db noisy.db $d > /dev/null || fail "report $d (noisy)"; done

fsb history --db h.db changes > ch.txt; rc=$?
cat ch.txt
[ $rc = 0 ] || fail "changes: exit $rc"
grep -q '^write rate \[write.rate_mib_per_s\] (primary), config h-a (cell a), host testhost$' ch.txt ||
    fail "no change of cell a's write rate"
grep -A2 '^write rate \[write.rate_mib_per_s\]' ch.txt > wr.txt
grep -qE '^  between run 5 and run 6 of 10: last before 2026-09-21T14:2[0-9]:[0-9]{2}Z on 6\.1\.0 \(testhost\), first after 2026-09-22T18:00:00Z on 6\.2\.0 \(testhost\)$' wr.txt ||
    fail "the change is not between the last 6.1.0 run and the first 6.2.0 one: $(cat wr.txt)"
grep -qE '^  x0\.[67][0-9]* \[0\.[0-9]+, 0\.[0-9]+\], 5 runs before \(0 flagged\), 5 after \(0 flagged\), change p 0\.0[0-9]+: worse$' wr.txt ||
    fail "the change's ratio and verdict: $(cat wr.txt)"
grep -q 'config h-b' ch.txt && fail "a change in the unchanged cell b: $(grep -A2 'config h-b' ch.txt)"
grep -q '^  environment: kernel 6.1.0 -> 6.2.0 ' ch.txt || fail "the kernel not named as the difference"
grep -qE '^  also moved: [0-9]+ of [0-9]+ other figures of the same runs \(exploratory, Benjamini-Hochberg\)$' ch.txt ||
    fail "no context"
grep -qE "^    (random_)?(read|write) latency (mean|p50|p90) +x1\\.[3-6][0-9]* \\[" ch.txt || fail "no latency move in the context"
first=$(grep -m1 -E '^[a-z].*\[.*\].*config' ch.txt)
case $first in *"(primary)"*) ;; *) fail "primary figures not first: $first" ;; esac
grep -q '^[0-9]* series searched ([0-9]* with at least 6 runs), 4 changes found, 4 decided worse' ch.txt ||
    fail "summary: $(tail -2 ch.txt)"
grep -q '^1 run flagged for other processes.* CPU, counted' ch.txt || fail "the flagged run not counted: $(tail -1 ch.txt)"
ok "changes: the step of cell a found at the kernel change, worse, with its context"

fsb history --db h.db changes write.rate_mib_per_s --cell b > b.txt || fail "changes FIGURE --cell b: exit $?"
grep -q '^1 series searched (1 with at least 6 runs), 0 changes found' b.txt || fail "cell b: $(tail -2 b.txt)"
fsb history --db h.db changes write.rate_mib_per_s --config h-a --order kernel > a.txt || fail "--config: exit $?"
grep -q '^1 series searched (1 with at least 6 runs), 1 change found, 1 decided worse' a.txt || fail "--config h-a: $(tail -2 a.txt)"
expect_exit 3 fsb history --db h.db changes --since 2026-09-22 > /dev/null 2> e.txt
grep -q 'fewer runs than two sides need' e.txt || fail "--since: $(cat e.txt)"
fsb history --db h.db changes write.rate_mib_per_s --cell b --exclude-flagged > x.txt || fail "--exclude-flagged: exit $?"
grep -q '^1 run flagged for other processes.* CPU left out (--exclude-flagged)$' x.txt || fail "left out: $(tail -1 x.txt)"
expect_exit 2 fsb history --db h.db changes --order size
expect_exit 2 fsb history --db h.db changes --since yesterday
expect_exit 2 fsb history --db h.db list --since 2026-01-01
expect_exit 2 fsb history --db h.db changes --baseline 6.1.0
ok "changes: figures, cell, config, since, order, flagged runs; usage errors"

fsb history --db h.db check --bisect --fail-if-worse 10 > bis.txt; rc=$?
[ $rc = 1 ] || fail "bisect on the step: exit $rc: $(tail -4 bis.txt)"
grep -q '^bisect: bad (exit 1)$' bis.txt || fail "bisect line: $(tail -3 bis.txt)"
expect_exit 1 fsb history --db h.db check --bisect --baseline 6.1.0 > /dev/null
# 5 runs a side at CV 5 %, Holm over the primary figures: the interval rules out 20 %, not 10 %
fsb history --db flat.db check --bisect --fail-if-worse 20 > bis.txt; rc=$?
[ $rc = 0 ] || fail "bisect on a flat history: exit $rc: $(tail -4 bis.txt)"
grep -q '^bisect: good (exit 0)$' bis.txt || fail "flat bisect line: $(tail -3 bis.txt)"
fsb history --db noisy.db check --bisect --fail-if-worse 10 > bis.txt; rc=$?
cat bis.txt
[ $rc = 125 ] || fail "bisect on 2 noisy runs a side: exit $rc: $(tail -4 bis.txt)"
grep -q "^bisect: cannot decide: a primary figure's interval reaches beyond the margin" bis.txt || fail "125 why: $(tail -2 bis.txt)"
expect_exit 125 fsb history --db flat.db check --bisect --baseline 5.0.0 > /dev/null 2>&1
expect_exit 255 fsb history --db nosuch.db check --bisect 2> /dev/null
expect_exit 255 fsb history --db flat.db check --bisect --fail-if-worse ten 2> /dev/null
expect_exit 255 fsb history --db flat.db check --bisect --bogus 2> /dev/null
expect_exit 255 fsb history --db flat.db list --bisect 2> /dev/null
ok "check --bisect: 1 on the step, 0 flat, 125 undecided or nothing compared, 255 on errors"
