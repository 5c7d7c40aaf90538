#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8020: the history database with synthetic experiments (lib_matrix.sh) on "kernels" 6.1, 6.2
# and 6.3: report records each directory once; list, show and trend read them back (trend's plot
# not blank); history check against the earlier runs of the same configuration hash passes a
# no-change (exit 0 with --fail-if-worse) and flags a synthetic 30 % regression of one cell
# (exit 1, that cell only, REGRESSION), which a gate wider than the regression lets through; a
# changed configuration hash has nothing to compare with (exit 3). The database path: --db, a
# symbolic link refused (report: exit 2 before anything is written), nothing created by reading.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
check=${BUILD:+$BUILD/tests/test_plot_cairo}
[ -n "$check" ] && [ -x "$check" ] || skip "needs test_plot_cairo from the build (run through make check)"
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH
mx_base tiotest base.json
cells='a fs=ext4 1.0 0.03
b fs=xfs 1.0 0.03'
echo "$cells" | MX_T0=1790000000 MX_KERNEL=6.1.0 mx_make k1 base.json 11 4 ci
echo "$cells" | MX_T0=1790100000 MX_KERNEL=6.2.0 mx_make k2 base.json 12 4 ci
echo "$cells" | MX_T0=1790200000 MX_KERNEL=6.3.0 mx_make same base.json 13 4 ci
printf 'a fs=ext4 0.7 0.03\nb fs=xfs 1.0 0.03\n' | MX_T0=1790200000 MX_KERNEL=6.3.0 mx_make slow base.json 13 4 ci
printf 'a fs=ext4 0.7 0.03\nb fs=xfs 1.0 0.03\n' | MX_T0=1790300000 MX_HASH_SUFFIX=-new mx_make newcfg base.json 14 4 ci

expect_exit 1 fsb history --db h.db list 2> e.txt
grep -q "cannot open 'h.db'" e.txt || fail "reading created or opened a missing database: $(cat e.txt)"
[ ! -e h.db ] || fail "history list created the database"
for d in k1 k2; do fsb report --db h.db $d > /dev/null || fail "report $d"; done
fsb report --db h.db k1 | grep -q 'history: 0 runs added' || fail "k1 recorded twice"
fsb history --db h.db list > list.txt || fail "list: exit $?"
[ "$(grep -c '^[0-9]' list.txt)" = 2 ] || fail "list: $(cat list.txt)"
grep -qE '^1 +ci +2026-09-21T14:13:20Z +tiotest +6\.1\.0 +testhost +2 +8$' list.txt || fail "list row: $(cat list.txt)"
fsb history --db h.db show ci > show.txt || fail "show: exit $?"
[ "$(grep -c '^experiment ' show.txt)" = 2 ] && grep -qE '^    write rate +[0-9.]+ \[[0-9.]+, [0-9.]+\] MiB/s +\(4 runs\)$' show.txt ||
    fail "show: $(head -5 show.txt)"
fsb history --db h.db show 2 | grep -q '^experiment 2: ci' || fail "show by id"
expect_exit 2 fsb history --db h.db show nosuch
ok "recorded once; list and show"

cp h.db h2.db
fsb report --db h.db same > /dev/null || fail "report same"
fsb history --db h.db check --fail-if-worse 10 > chk.txt; rc=$?
cat chk.txt
[ $rc = 0 ] || fail "no change: check exit $rc"
grep -q ' 0 decided different; 0 regressions: decided worse by more than 10%' chk.txt || fail "no change: $(tail -2 chk.txt)"
grep -qE '^ci +a +\(config h-a\) latest: 4 runs on 6\.3\.0; earlier: 8 runs on 6\.1\.0, 6\.2\.0$' chk.txt ||
    fail "check: the cell line"
ok "check: a no-change passes the gate"

fsb report --db h2.db slow > /dev/null || fail "report slow"
fsb history --db h2.db check --fail-if-worse 10 > chk.txt; rc=$?
[ $rc = 1 ] || fail "regression: check exit $rc: $(cat chk.txt)"
grep -qE '^ci +a +write rate +.* x0\.[67][0-9]* \[0\.[0-9]+, 0\.[0-9]+\] .* worse REGRESSION$' chk.txt || fail "regression row: $(grep 'write rate' chk.txt)"
grep -E 'REGRESSION' chk.txt | grep -vq '^ci  *a ' && fail "cell b flagged: $(grep REGRESSION chk.txt)"
expect_exit 0 fsb history --db h2.db check --fail-if-worse 50 > /dev/null
expect_exit 0 fsb history --db h2.db check > /dev/null
expect_exit 1 fsb history --db h2.db check --experiment ci --cell a --fail-if-worse 10 > /dev/null
expect_exit 0 fsb history --db h2.db check --cell b --fail-if-worse 10 > /dev/null
ok "check: a 30 % regression of one cell fails a 10 % gate, not a 50 % one"

fsb report --db h2.db newcfg > /dev/null || fail "report newcfg"
# nothing compared: a gate that checked nothing does not pass (exit 3)
expect_exit 3 fsb history --db h2.db check --fail-if-worse 10 > chk.txt 2> /dev/null
grep -q '(no earlier runs with config h-a-new: nothing to check against)' chk.txt || fail "new config: $(cat chk.txt)"
ok "check: a new configuration hash has nothing to compare with (exit 3)"

fsb history --db h2.db trend write.rate_mib_per_s -o trend.png > trend.txt || fail "trend: exit $?"
[ "$(grep -cE '^[0-9]+ +20' trend.txt)" = 8 ] || fail "trend rows: $(cat trend.txt)"
"$check" trend.png 1200 800 10000 || fail "trend.png blank"
fsb history --db h2.db trend write.rate_mib_per_s --cell b --width 600 --height 400 -o trend.svg > /dev/null &&
    grep -q 'width="600pt" height="400pt"' trend.svg || fail "trend svg"
expect_exit 2 fsb history --db h2.db trend nosuch.figure
expect_exit 2 fsb history --db h2.db trend write.rate_mib_per_s -o t.jpg
expect_exit 2 fsb history --db h2.db list -o x.png
expect_exit 2 fsb history --db h2.db bogus
expect_exit 2 fsb history --db h2.db check --fail-if-worse ten
ok "trend: table and plot; usage errors"

ln -s h.db link.db
expect_exit 1 fsb history --db link.db list 2> e.txt
grep -q 'symbolic link' e.txt || fail "symlink: $(cat e.txt)"
expect_exit 2 fsb report --db link.db k1 > /dev/null 2> e.txt
grep -q 'symbolic link' e.txt || fail "report into a symlink: $(cat e.txt)"
fsb report k1 > /dev/null || fail "report into the default database"
[ -f "$XDG_DATA_HOME/fsbench/history.db" ] || fail "no database at the default path"
fsb history list | grep -q '^1 ' || fail "history list of the default database"
ok "the database path: --db, default, symbolic link refused"
