#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7200: compare and plot read matrix directories by cell (tests/cli/lib_matrix.sh's synthetic
# directory): DIR is each cell as one result of its runs, named by the cell; DIR:CELL one cell;
# cells of two directories are named DIR:CELL; an unknown cell is exit 2 naming the cells. plot
# draws a directory one colour per cell, and a cell's run files (one label) as one series.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH

mx_base tiotest base.json
mx_make m base.json 1 3 cells <<'C'
a fs=ext4 1.0 0.02
b fs=xfs 0.5 0.02
C
cp -a m m2

fsb compare m > out.txt 2> err.txt || fail "compare m: exit $?: $(cat err.txt)"
fsb compare --json cmp.json m 2> err.txt || fail "compare --json m: exit $?: $(cat err.txt)"
jq_read v cmp.json '[.results[] | [.name, .path, .runs]] == [["a", "m:a", 3], ["b", "m:b", 3]]' \
    '.baseline == "a" and ([.figures[] | select(.key == "write.rate_mib_per_s") | .deltas[0].verdict] == ["worse"])'
[ "${v[0]}" = true ] || fail "compare m: not the cells with 3 runs each: $(jq -c .results cmp.json)"
[ "${v[1]}" = true ] || fail "compare m: b's write rate is not worse than a's: $(jq -c '.rows[0]' cmp.json)"
ok "compare DIR: each cell one result of its runs"

fsb compare --json cmp2.json m:b m:a 2> err.txt || fail "compare m:b m:a: exit $?: $(cat err.txt)"
jq -e '[.results[] | .name] == ["b", "a"] and .baseline == "b"' cmp2.json > /dev/null ||
    fail "compare m:b m:a: $(jq -c .results cmp2.json)"
fsb compare --json cmp3.json m:a m2 2> err.txt || fail "compare m:a m2: exit $?: $(cat err.txt)"
jq -e '[.results[] | .name] == ["m:a", "m2:a", "m2:b"]' cmp3.json > /dev/null ||
    fail "two directories: cells not named DIR:CELL: $(jq -c .results cmp3.json)"
ok "DIR:CELL, and cells of two directories named by both"

expect_exit 2 fsb compare m:zz m 2> err.txt
grep -q "'m' has no cell zz (its cells: a b)" err.txt || fail "unknown cell: $(cat err.txt)"
expect_exit 2 fsb compare m:a 2> err.txt
mkdir empty
expect_exit 2 fsb compare empty m 2> err.txt
grep -q "'empty': manifest.json" err.txt || fail "not a matrix directory: $(cat err.txt)"
ok "an unknown cell, one result, a directory without a manifest: exit 2"

# the runs' files of a real matrix carry the cell as label
# (one jq for the six files, each written back by bash: a jq and a mv a file were ~0.4 s of CPU)
files=()
for c in a b; do for k in 1 2 3; do files+=(m/runs/$c/run-$k.json); done; done
mapfile -t labelled < <(jq -c '.label = (input_filename | split("/")[-2])' "${files[@]}")
[ ${#labelled[@]} = 6 ] || fail "labels: ${#labelled[@]} results from jq"
for i in "${!files[@]}"; do printf '%s\n' "${labelled[i]}" > "${files[i]}" || fail "${files[i]}"; done
# palette colours 1-3 (Tableau 10) as cairo writes them in SVG
c1='rgb(12%,47%,71%)' c2='rgb(100%,50%,5%)' c3='rgb(17%,63%,17%)'
fsb plot --type compare -o dir.svg m 2> err.txt || fail "plot m: exit $?: $(cat err.txt)"
fsb plot --type compare -o runs.svg m/runs/*/run-*.json 2> err.txt || fail "plot run files: exit $?: $(cat err.txt)"
for f in dir.svg runs.svg; do
    grep -qF "$c1" $f && grep -qF "$c2" $f || fail "$f: not the first two colours"
    grep -qF "$c3" $f && fail "$f: a third colour for two cells"
done
fsb plot --type timeline -o m.png m:a m:b 2> err.txt || fail "plot m:a m:b: exit $?: $(cat err.txt)"
expect_exit 2 fsb plot -o x.png m:zz
[ ! -e x.png ] || fail "a refused plot left a file"
ok "plot DIR and a cell's run files: one colour per cell"
