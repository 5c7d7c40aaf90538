#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3030: plot renders real results: each type to PNG and SVG, of the asked size (1200x800 by
# default), not blank (non-background pixels counted by test_plot_cairo reading the PNG back);
# the default type follows the results; bad -o and --type are usage errors.
. "$(dirname "$0")/lib.sh"
check=${BUILD:+$BUILD/tests/test_plot_cairo}
[ -n "$check" ] && [ -x "$check" ] || skip "needs test_plot_cairo from the build (run through make check)"
dir=/dev/shm
[ -d "$dir" ] && [ -w "$dir" ] || dir=$SCRATCH
d=$dir/fsbench-t3030.$$
mkdir -p "$d" && trap 'rm -rf "$d"; _lib_cleanup' EXIT
cd "$SCRATCH" || fail "cd"
fsb tiotest -t 2 -f 8 -r 2000 -d "$d" --label A --json a.json > /dev/null || fail "tiotest A"
fsb tiotest -t 2 -f 8 -r 2000 -b 1024 -d "$d" --label B --json b.json > /dev/null || fail "tiotest B"
fsb fs_mark -d "$d" -n 200 -t 2 -L 3 -s 4096 -S 0 --json f.json > /dev/null || fail "fs_mark"
fsb fs_mark -d "$d" -n 200 -t 2 -L 3 -s 4096 -S 1 --json g.json > /dev/null || fail "fs_mark 2"

for t in timeline latency compare; do
    fsb plot --type $t -o $t.png a.json b.json || fail "plot $t png"
    "$check" $t.png 1200 800 20000 || fail "$t.png"
    fsb plot --type $t --width 800 --height 500 -o $t.svg a.json b.json || fail "plot $t svg"
    grep -q 'width="800pt" height="500pt"' $t.svg || fail "$t.svg size"
    [ "$(grep -c '<path' $t.svg)" -ge 10 ] || fail "$t.svg has almost nothing drawn"
done
fsb plot --type fill -o fill.png f.json g.json && "$check" fill.png 1200 800 10000 || fail "fill png"
fsb plot --type fill --x count -o fill.svg f.json g.json && grep -q 'height="800pt"' fill.svg || fail "fill svg"
ok "every type to PNG and SVG"

fsb plot -o auto1.png f.json && fsb plot -o auto2.png a.json b.json && fsb plot -o auto3.png a.json ||
    fail "default types"
for p in auto1 auto2 auto3; do "$check" $p.png 1200 800 10000 || fail "$p.png"; done
ok "default types render"

expect_exit 2 fsb plot -o x.jpg a.json
expect_exit 2 fsb plot --type pie -o x.png a.json
expect_exit 2 fsb plot a.json
expect_exit 2 fsb plot --type fill -o x.png a.json
expect_exit 2 fsb plot -o x.png a.json f.json
[ ! -e x.png ] && [ ! -e x.jpg ] || fail "a refused plot left a file"
ls | grep -q '\.tmp\.' && fail "temporary files left: $(ls)"
ok "usage errors"
