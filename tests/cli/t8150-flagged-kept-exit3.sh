#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8150: runs flagged for other processes' CPU are never dropped silently. Every run of two
# synthetic experiments (lib_matrix.sh) is flagged. By default report and history show, trend
# and check keep them, marked and counted; --exclude-flagged leaves them out and each output says
# how many. With nothing left, each command says so and exits 3 (cannot decide here), never 0:
# report --exclude-flagged (0 runs used), history check --fail-if-worse --exclude-flagged,
# history trend -o --exclude-flagged (no empty plot). A new configuration hash leaves check
# nothing to compare: 3 too.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH
mx_base tiotest base.json
cells='a fs=ext4 1.0 0.03
b fs=xfs 1.0 0.03'
all='a:1 a:2 a:3 b:1 b:2 b:3'
echo "$cells" | MX_FLAG="$all" MX_T0=1790000000 MX_KERNEL=6.1.0 mx_make k1 base.json 21 3 ci
echo "$cells" | MX_FLAG="$all" MX_T0=1790100000 MX_KERNEL=6.2.0 mx_make k2 base.json 22 3 ci

expect_exit 0 fsb report --db h.db k1 > r1.txt
grep -q '6 of 6 runs used' r1.txt || fail "report: flagged runs not used: $(head -1 r1.txt)"
grep -q '6 of 6 runs flagged' k1/report.md || fail "report.md: flagged runs not said"
expect_exit 0 fsb report --db h.db k2 > /dev/null
expect_exit 3 fsb report --no-db --exclude-flagged k1 > r0.txt 2> e0.txt
grep -q '0 of 6 runs used' r0.txt || fail "report --exclude-flagged: $(head -1 r0.txt)"
grep -q 'nothing to compare' e0.txt || fail "report --exclude-flagged: no message: $(cat e0.txt)"
[ -s k1/report.md ] || fail "report --exclude-flagged: no report written"
jq -e '.runs_counted == {runs: 6, used: 0, flagged: 6, flagged_left_out: 6}' k1/summary.json > /dev/null ||
    fail "summary.json: $(jq -c .runs_counted k1/summary.json)"
ok "report: flagged runs kept by default; --exclude-flagged with every run flagged: 0 runs used, exit 3"

expect_exit 0 fsb history --db h.db show ci > show.txt
grep -q "3 runs flagged for other processes' CPU, counted" show.txt || fail "show: not counted: $(cat show.txt)"
grep -qE '^    write rate +[0-9.]+ \[[0-9.]+, [0-9.]+\] MiB/s +\(3 runs, 3 flagged\)$' show.txt || fail "show: not marked: $(cat show.txt)"
expect_exit 0 fsb history --db h.db show --exclude-flagged ci > show0.txt
grep -q "3 runs flagged for other processes' CPU left out (--exclude-flagged)" show0.txt || fail "show --exclude-flagged: $(cat show0.txt)"
grep -qE '^    write rate .*\(0 runs left\)$' show0.txt || fail "show --exclude-flagged: rows: $(cat show0.txt)"
ok "history show: flagged runs kept and marked; --exclude-flagged says how many it left out"

expect_exit 0 fsb history --db h.db check --fail-if-worse 5 > chk.txt
grep -q "12 runs flagged for other processes' CPU, counted" chk.txt || fail "check: flagged not said: $(tail -3 chk.txt)"
grep -qE '^ci +a +write rate ' chk.txt || fail "check: nothing compared: $(cat chk.txt)"
expect_exit 3 fsb history --db h.db check --fail-if-worse 5 --exclude-flagged > chk0.txt 2> e.txt
grep -q 'nothing to check: every run was left out (--exclude-flagged)' e.txt || fail "check --exclude-flagged: $(cat e.txt)"
grep -q "12 runs flagged for other processes' CPU left out" chk0.txt || fail "check --exclude-flagged: count: $(cat chk0.txt)"
ok "history check: flagged runs checked by default; every run left out: exit 3, said"

expect_exit 0 fsb history --db h.db trend write.rate_mib_per_s -o t.png > tr.txt
[ -s t.png ] || fail "trend: no plot"
[ "$(grep -cE '^[0-9]+ +20.* \(3 flagged\)$' tr.txt)" = 4 ] || fail "trend: rows not marked: $(cat tr.txt)"
expect_exit 3 fsb history --db h.db trend write.rate_mib_per_s --exclude-flagged -o t0.png > tr0.txt 2> e.txt
[ ! -e t0.png ] || fail "trend --exclude-flagged: an empty plot was drawn"
grep -q 'nothing to show' e.txt || fail "trend --exclude-flagged: $(cat e.txt)"
grep -q "12 runs flagged for other processes' CPU left out" tr0.txt || fail "trend --exclude-flagged: count: $(cat tr0.txt)"
ok "history trend: flagged runs marked; nothing left to draw: exit 3, no plot"

printf 'a fs=ext4 1.0 0.03\nb fs=xfs 1.0 0.03\n' | MX_T0=1790300000 MX_HASH_SUFFIX=-new mx_make newcfg base.json 23 3 ci
expect_exit 0 fsb report --db h.db newcfg > /dev/null
expect_exit 3 fsb history --db h.db check --fail-if-worse 5 > chk.txt 2> e.txt
grep -q 'nothing to check: no figure has both latest and earlier runs' e.txt || fail "new config: $(cat e.txt)"
ok "history check: a new configuration alone has nothing to compare: exit 3"
