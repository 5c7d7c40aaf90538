#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8000: fsbench report on a synthetic 2x2 matrix directory (tests/cli/lib_matrix.sh: real
# tiotest results of this build, figures set to known values; a kernel profile in the write
# phase; one run flagged for other CPU) writes every artefact: summary.json with the two families
# (the phases' rates confirmatory, Holm; the rest exploratory, Benjamini-Hochberg), the answer,
# 4 cells, 4 x 53 effects and 53 interactions; plot-compare.svg and .png (not blank);
# report.md and report.html with each section (classic tables of the median runs, profiles
# side by side and the moved-most table, runs with the flagged one, warnings); the terminal
# summary ends with the report's path. Again: the same files, nothing added to the history.
# --exclude-flagged leaves the flagged run out. An fs_mark 1x2 gets the fill plot and fs_mark's
# rows. Usage errors are exit 2 with nothing written.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
check=${BUILD:+$BUILD/tests/test_plot_cairo}
[ -n "$check" ] && [ -x "$check" ] || skip "needs test_plot_cairo from the build (run through make check)"
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH

mx_base tiotest base.json
MX_PROFILE=1 MX_FLAG="btrfs-off:2" mx_make m base.json 1 4 kmemleak <<'C'
ext4-on fs=ext4,kmemleak=on 1.0 0.03
ext4-off fs=ext4,kmemleak=off 1.02 0.03
btrfs-on fs=btrfs,kmemleak=on 0.5 0.03
btrfs-off fs=btrfs,kmemleak=off 1.0 0.03
C
fsb report m > out.txt 2> err.txt || fail "report: exit $?: $(cat err.txt)"
cat out.txt
# nothing of fsbench's on stderr (under make asan, LeakSanitizer's note on its suppressions may be)
grep -q 'fsbench' err.txt && fail "stderr: $(cat err.txt)"
for f in summary.json report.md report.html plot-compare.svg plot-compare.png; do
    [ -s "m/$f" ] || fail "m/$f missing"
done
[ ! -e m/plot-fill.svg ] || fail "a fill plot of tiotest results"
ls m | grep -q '\.tmp\.' && fail "temporary files left: $(ls m)"
tail -n 1 out.txt | grep -qx 'report: m/report.html (report.md, summary.json, plots beside it)' || fail "no report path"
grep -Eq '^kmemleak: tiotest, 4 cells, 16 of 16 runs used$' out.txt || fail "summary line"
# the answer first: the interactions (the question two axes ask), then each axis' effects
sed -n 2p out.txt | grep -Eq '^  write rate, interaction fs x kmemleak \(.*\): yes x1\.9[0-9]* \[' ||
    fail "the answer's first line: $(sed -n 2p out.txt)"
grep -Eq '^  write rate, fs: ext4 -> btrfs \(kmemleak=on\): worse x0\.[0-9]+ \[0\.[0-9]+, 0\.[0-9]+\] \(paired by round, n 4, confirmatory\)$' out.txt ||
    fail "the effect line"
grep -Eq '^  \(20 confirmatory tests, Holm; [0-9]+ exploratory, Benjamini-Hochberg; [0-9]+ paired by round, 0 unpaired' out.txt ||
    fail "the families line"
[ -f "$XDG_DATA_HOME/fsbench/history.db" ] || fail "no history database at \$XDG_DATA_HOME/fsbench/history.db"
grep -q 'history: 16 runs added' out.txt || fail "history: not 16 runs added"
ok "every artefact, the summary and its path; 16 runs into the default database"

S=m/summary.json
# one interaction per figure the results compare (nf), four effects per figure (each axis at
# each level of the other); the 4 phases' rates x 5 tests are the confirmatory family
# summary.json's checks with one jq (a jq costs ~50 ms of CPU); a failure's diagnostic reads more
jq_read v $S '(.interactions | length) as $nf | $nf > 20
       and .schema == "fsbench-matrix-summary" and .schema_version == 1
       and .correction.confirmatory.method == "holm" and .correction.confirmatory.tests == 20
       and .correction.exploratory.method == "benjamini-hochberg"
       and .correction.confirmatory.tests + .correction.exploratory.tests < 5 * $nf
       and (.cells | length) == 4 and (.effects | length) == 4 * $nf
       and (.runs | length) == 16 and .flagged_runs == "included"' \
    '[.effects[] | has("figure", "axis", "cells", "from", "to", "mean_from", "mean_to", "delta_pct", "p_value",
        "p_adjusted", "verdict", "family", "ratio", "low", "high", "paired")] | all' \
    '[.interactions[] | has("figure", "axes", "cells", "scale", "ratio", "low", "high", "p_value",
        "p_adjusted", "verdict", "family", "paired")] | all' \
    '[.answer[] | select(.kind == "effect")] | length == 16 and (.[0] | .verdict == "worse" and .family == "confirmatory"
       and .paired and .low < .ratio and .ratio < .high and .high < 1)' \
    '[.effects[] | select(.figure | endswith(".iops")) | .tested or .verdict != "not tested (derived)"] | any | not' \
    '.cells[0] | .name == "ext4-on" and .axes == {"fs": "ext4", "kmemleak": "on"} and .runs_used == 4
       and .config_hash == "h-ext4-on" and (.median_run | startswith("runs/ext4-on/"))
       and .figures["write.rate_mib_per_s"].mean_kind == "harmonic"' \
    '[.runs[] | select(.other_cpu_flag)] | length == 1 and .[0].cell == "btrfs-off" and .[0].used' \
    '[(.effects + .interactions)[] | select(.p_value != null) | .p_adjusted >= .p_value - 1e-12 and .p_adjusted <= 1]
       | all'
[ "${v[0]}" = true ] || fail "summary.json head: $(jq -c '{correction, n: (.effects | length)}' $S)"
[ "${v[1]}" = true ] || fail "an effect lacks a field"
[ "${v[2]}" = true ] || fail "an interaction lacks a field"
[ "${v[3]}" = true ] || fail "summary.json: the answer"
# IOPS is the rate again: never tested
[ "${v[4]}" = true ] || fail "IOPS tested"
[ "${v[5]}" = true ] || fail "cells[0]"
[ "${v[6]}" = true ] || fail "the flagged run"
# p_adjusted >= p_value, and Holm's largest is at most 1
[ "${v[7]}" = true ] || fail "adjusted p-values"
ok "summary.json: 4 effects and 1 interaction per figure, two families, the answer"

M=m/report.md
for s in '## Summary' '## Cells' '## Figures by cell' '## Effects' '### fs' '### kmemleak' '## Interactions' \
         '## Plots' "## Each cell's median run" '## Profiles' '## Runs' '## Warnings'; do
    grep -qxF "$s" $M || fail "report.md lacks '$s'"
done
grep -q 'Benjamini-Hochberg' $M && grep -q 'Holm' $M || fail "the corrections are not named"
[ "$(grep -c '^Tiotest results for 1 concurrent io threads:$' $M)" = 4 ] || fail "not 4 classic tables"
grep -qE '^\| Write +1 MBs \| +0\.0 s \| +[0-9]+\.[0-9]{3} MB/s \|' $M || fail "classic throughput row"
grep -qE '^\| Total +\| +[0-9.]+ ms \|' $M || fail "classic latency total row"
grep -q '^### write: ext4-on against btrfs-on$' $M || fail "profile pair"
# by cost per op (inclusive: the synthetic profile has call chains), the share change beside it
grep -qE '^\| do_get_write_access \| jbd2 \| [0-9.e+]+ \| [0-9.e+]+ \| \+[0-9.e+]+ \| 30\.00 \| 50\.00 \| \+20\.00 \|$' $M ||
    fail "the moved-most row (cost per op, inclusive shares)"
grep -q '| FLAGGED |' $M || fail "the flagged run is not marked"
grep -q '1 of 16 runs flagged' $M || fail "no warning about the flagged run"
grep -q '(plot-compare.svg, plot-compare.png)' $M || fail "the plot is not linked"
ok "report.md: every section, classic tables, profiles, flagged run"

H=m/report.html
grep -q '^<!DOCTYPE html>' $H && grep -q '<svg style="max-width:100%;height:auto"' $H || fail "report.html: no inline svg"
[ "$(grep -c '<table>' $H)" -ge 10 ] || fail "report.html: tables"
grep -qi 'http' $H && fail "report.html names a URL: $(grep -oi '.\{20\}http.\{20\}' $H | head -3)"
"$check" m/plot-compare.png 1200 800 20000 || fail "plot-compare.png blank"
grep -q 'width="1200pt" height="800pt"' m/plot-compare.svg || fail "plot-compare.svg size"
ok "report.html self-contained, plots drawn"

cp $S first.json
fsb report m > again.txt || fail "again: exit $?"
grep -q 'history: 0 runs added' again.txt || fail "again: runs added twice: $(grep history again.txt)"
cmp -s first.json $S || fail "summary.json changed on a second report"
fsb report --no-db --exclude-flagged m > ex.txt || fail "--exclude-flagged"
grep -q '15 of 16 runs used' ex.txt || fail "--exclude-flagged: $(head -1 ex.txt)"
jq -e '.flagged_runs == "excluded" and ([.runs[] | select(.other_cpu_flag)][0].used | not)
       and ([.cells[] | select(.name == "btrfs-off")][0].runs_used == 3)' $S > /dev/null || fail "excluded in summary"
grep -q 'history' ex.txt && fail "--no-db recorded: $(cat ex.txt)"
ok "idempotent; --exclude-flagged; --no-db"

mx_base fs_mark fbase.json
mx_make f fbase.json 2 3 delalloc <<'C'
delalloc mount=delalloc 1.0 0.05
nodelalloc mount=nodelalloc 1.5 0.05
C
fsb report --no-db --smooth 3 f > fout.txt || fail "fs_mark report: exit $?"
for x in svg png; do [ -s f/plot-fill.$x ] && [ -s f/plot-compare.$x ] || fail "f: plot-*.$x"; done
"$check" f/plot-fill.png 1200 800 20000 || fail "plot-fill.png blank"
grep -q '^FSUse%        Count         Size    Files/sec     App Overhead$' f/report.md || fail "fs_mark rows"
[ "$(grep -c '^<figure>' f/report.html)" = 2 ] || fail "report.html: not two inline plots"
# two plots inline: their ids apart (a glyph of one must not resolve to the other's)
[ "$(grep -o 'id="s1-' f/report.html | wc -l)" -gt 0 ] && [ "$(grep -o 'id="s2-' f/report.html | wc -l)" -gt 0 ] ||
    fail "inline SVG ids not prefixed"
jq -e '.effects[] | select(.figure == "files_per_sec") | .verdict == "better" and .family == "confirmatory"' f/summary.json > /dev/null ||
    fail "fs_mark: files/sec x1.5 not better"
ok "fs_mark: fill and compare plots, fs_mark's rows, two inline SVGs apart"

expect_exit 2 fsb report
expect_exit 2 fsb report m f
expect_exit 2 fsb report --bogus m
expect_exit 2 fsb report --y pie m
expect_exit 2 fsb report --db x.db --no-db m
mkdir empty
expect_exit 2 fsb report --no-db empty 2> e.txt
grep -q "manifest.json" e.txt || fail "no manifest: $(cat e.txt)"
[ -z "$(ls empty)" ] || fail "something written into a directory without a manifest"
cp -r m sym && rm sym/report.html && ln -s /dev/null sym/report.html
expect_exit 2 fsb report --no-db sym 2> e.txt
grep -q 'symbolic link' e.txt || fail "symlink: $(cat e.txt)"
ok "usage errors: exit 2, nothing written"
