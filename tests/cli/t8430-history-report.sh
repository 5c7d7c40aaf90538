#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8430: history report -o DIR on synthetic experiments (lib_matrix.sh, kernel labels through
# MX_KERNEL as in t8400): cell a 30 % slower from kernel label 6.2.0 on, one flagged run.
# report.md lists the write rate's change between the last 6.1.0 run and the first 6.2.0 one,
# worse, with its interval and the kernel as the environment's difference; report.html, rendered
# by headless Chromium (--dump-dom), has the change marker and the flagged run's marker, and
# nothing it loads from outside. Refusals, each exit 2 before anything is written: no -o, a
# non-empty directory fsbench did not write, a symbolic link, a file; a second report into its
# own directory replaces it; no runs selected: exit 3 and no directory.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
CHROME=$(command -v chromium || command -v chromium-browser) || skip "needs chromium (deps.txt: test chromium)"
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH
mx_base tiotest base.json
printf 'a fs=ext4 1.0 0.05\nb fs=xfs 1.0 0.05\n' | MX_T0=1790000000 MX_KERNEL=6.1.0 MX_FLAG="a:2" mx_make k1 base.json 21 5 ci
printf 'a fs=ext4 0.7 0.05\nb fs=xfs 1.0 0.05\n' | MX_T0=1790100000 MX_KERNEL=6.2.0 mx_make k2 base.json 22 5 ci
for d in k1 k2; do fsb report --db h.db $d > /dev/null || fail "report $d"; done

fsb history --db h.db report -o rep > out.txt || fail "report: exit $?: $(cat out.txt)"
cat out.txt
grep -q "^report: rep/report.html, rep/report.md: [0-9]* series searched, 4 changes, 8 plots$" out.txt || fail "summary: $(head -1 out.txt)"
[ -s rep/report.md ] && [ -s rep/report.html ] && [ -s rep/plot-1.svg ] || fail "files: $(ls rep)"
row=$(grep '^| write rate (primary) | h-a (cell a, host testhost) |' rep/report.md) || fail "no change row of cell a's write rate: $(grep '^|' rep/report.md | head -5)"
echo "$row"
echo "$row" | grep -qE '\| run 5: 6\.1\.0, 2026-09-21T14:2[0-9]:[0-9]{2}Z, testhost \| run 6: 6\.2\.0, 2026-09-22T18:00:00Z, testhost \| x0\.[67][0-9]* \\\[0\.[0-9]+, 0\.[0-9]+\\\] \| worse \| kernel 6\.1\.0 -> 6\.2\.0 \|' ||
    fail "the change row: $row"
grep -q 'h-b (cell b' rep/report.md && grep -q '^| [a-z_]* rate (primary) | h-b' rep/report.md && fail "a change in cell b"
grep -q "^Flagged runs: 1 flagged for other processes' CPU, counted and drawn as hollow triangles\.$" rep/report.md ||
    fail "the flagged run not counted"
grep -q '^## Configuration h-a (cell a, host testhost)$' rep/report.md || fail "no section of configuration h-a"
grep -q '^| ci | 6\.1\.0 | .* | 5 | 1 | [0-9.]* \\\[[0-9.]*, [0-9.]*\\\] MiB/s |$' rep/report.md || fail "no experiment row with its interval"
ok "report.md: the change list, the flagged run, the per-experiment intervals"

chrome() {
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
        --disable-background-networking --user-data-dir="$SCRATCH/chrome" "$@" 2> "$SCRATCH/chrome.err"
}
chrome --dump-dom "file://$SCRATCH/rep/report.html" > dom.html || fail "chromium --dump-dom: exit $?: $(tail -3 chrome.err)"
[ "$(grep -o '<svg' dom.html | wc -l)" = 8 ] || fail "the DOM has $(grep -o '<svg' dom.html | wc -l) plots"
grep -q '<line class="change" [^>]*><title>change between run 5 and run 6</title></line>' dom.html ||
    fail "no change marker in the DOM"
grep -q '<path class="run flagged" [^>]*><title>run 2: [0-9.]*, flagged for other processes' dom.html ||
    fail "no flagged-run marker in the DOM"
grep -q '<h2>Changes</h2>' dom.html && grep -q '<td>worse</td>' dom.html || fail "no change table in the DOM"
urls=$(grep -oiE '(src|href)="[^"]*"' dom.html | grep -i 'http' | head -3)
[ -z "$urls" ] || fail "external URLs in the DOM: $urls"
grep -qiE '<(script|link|img|iframe)[ >]' dom.html && fail "the DOM loads something"
ok "report.html in Chromium: the change and flagged-run markers, self-contained"

# refusals: exit 2, one line, nothing written
mkdir busy; echo x > busy/notes.txt
expect_exit 2 fsb history --db h.db report > /dev/null 2> e1.txt
grep -q 'report needs -o DIR' e1.txt && [ "$(wc -l < e1.txt)" = 1 ] || fail "no -o: $(cat e1.txt)"
expect_exit 2 fsb history --db h.db report -o busy > /dev/null 2> e2.txt
grep -q "'busy' is not empty and not a history report's directory" e2.txt && [ "$(wc -l < e2.txt)" = 1 ] || fail "busy: $(cat e2.txt)"
[ "$(ls -A busy)" = notes.txt ] || fail "written into busy: $(ls -A busy)"
ln -s rep link
expect_exit 2 fsb history --db h.db report -o link > /dev/null 2> e3.txt
grep -q "symbolic link" e3.txt || fail "link: $(cat e3.txt)"
expect_exit 2 fsb history --db h.db report -o busy/notes.txt > /dev/null 2> e4.txt
grep -q "not a directory" e4.txt || fail "file: $(cat e4.txt)"
expect_exit 2 fsb history --db h.db report -o new/sub > /dev/null 2> e5.txt
[ ! -e new ] || fail "a missing parent created"
expect_exit 2 fsb history --db h.db report -o rep2 --order size > /dev/null
expect_exit 2 fsb history --db h.db report -o rep2 --fail-if-worse 5 > /dev/null
expect_exit 2 fsb history --db h.db report -o rep2 --since yesterday > /dev/null
[ ! -e rep2 ] || fail "rep2 created by a refused command"
expect_exit 3 fsb history --db h.db report -o rep3 no.such.figure > /dev/null 2> e6.txt
[ ! -e rep3 ] || fail "rep3 created with nothing to report"
mv busy/notes.txt . && rmdir busy
fsb history --db h.db report -o busy write.rate_mib_per_s --cell a > /dev/null || fail "an empty directory: exit $?"
[ -s busy/report.html ] || fail "nothing written into the empty directory"
touch -d @1000 rep/report.md
fsb history --db h.db report -o rep > /dev/null || fail "report again into its own directory: exit $?"
[ "$(stat -c %Y rep/report.md)" != 1000 ] || fail "report.md not replaced"
ok "refusals exit 2 before writing; an empty or its own directory is taken"
