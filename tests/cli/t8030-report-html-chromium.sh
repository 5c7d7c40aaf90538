#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8030: report.html as a browser shows it: headless Chromium (deps.txt, test stage) renders
# the report of a synthetic 2x2 (with profiles) to a screenshot that is not one colour and has
# plenty drawn (test_plot_cairo counts the pixels that are not white); its DOM (--dump-dom) has
# the tables (cells, figures, effects, interactions, classic tables, profiles, runs) and the
# inline plots, and no src or href that names a URL (http...): the file is self-contained.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
check=${BUILD:+$BUILD/tests/test_plot_cairo}
[ -n "$check" ] && [ -x "$check" ] || skip "needs test_plot_cairo from the build (run through make check)"
CHROME=$(command -v chromium || command -v chromium-browser) || skip "needs chromium (deps.txt: test chromium)"
export HOME=$SCRATCH
mx_base tiotest base.json
MX_PROFILE=1 mx_make m base.json 3 3 html <<'C'
ext4-on fs=ext4,kmemleak=on 1.0 0.03
ext4-off fs=ext4,kmemleak=off 1.0 0.03
btrfs-on fs=btrfs,kmemleak=on 0.5 0.03
btrfs-off fs=btrfs,kmemleak=off 1.0 0.03
C
fsb report --no-db m > /dev/null || fail "report: exit $?"

# no network, no profile left behind: a user data directory in the scratch directory
chrome() {
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
        --disable-background-networking --user-data-dir="$SCRATCH/chrome" "$@" 2> "$SCRATCH/chrome.err"
}
# one Chromium for both (its headless mode does every --screenshot/--dump-dom asked): a
# start of it costs ~3 s of CPU here
chrome --screenshot="$SCRATCH/shot.png" --window-size=1280,2000 --dump-dom "file://$SCRATCH/m/report.html" > dom.html ||
    fail "chromium --screenshot --dump-dom: exit $?: $(tail -3 "$SCRATCH/chrome.err")"
[ -s shot.png ] || fail "no screenshot"
"$check" shot.png 1280 2000 50000 || fail "the screenshot is (nearly) blank"
ok "report.html renders: a 1280x2000 screenshot with ink"

[ "$(grep -o '<table>' dom.html | wc -l)" -ge 12 ] || fail "the DOM has $(grep -o '<table>' dom.html | wc -l) tables"
for h in Cells 'Figures by cell' Effects Interactions Plots "Each cell's median run" Profiles Runs Warnings; do
    grep -q "<h2>$h</h2>" dom.html || grep -q "<h2>${h//\'/\&#39;}</h2>" dom.html || fail "the DOM lacks the section $h"
done
grep -q '<th>figure</th><th>axes</th>' dom.html || fail "no interaction table in the DOM"
grep -q 'Tiotest results for 1 concurrent io threads:' dom.html || fail "no classic table in the DOM"
[ "$(grep -o '<svg' dom.html | wc -l)" -ge 1 ] || fail "no inline svg in the DOM"
urls=$(grep -oiE '(src|href)="[^"]*"' dom.html | grep -i 'http' | head -3)
[ -z "$urls" ] || fail "external URLs in the DOM: $urls"
grep -qiE '<(script|link|img|iframe)[ >]' dom.html && fail "the DOM loads something: $(grep -oiE '<(script|link|img|iframe)[^>]*>' dom.html | head -3)"
ok "the DOM: the tables and inline plots, no external URL"
