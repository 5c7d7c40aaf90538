#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3050: plot --type timeline on a real fs_mark result (3 iterations of 20000 empty files on
# tmpfs): PNG and SVG not blank; the one "create" line holds every iteration's samples end to
# end (x only grows); without --type a single fs_mark result is still drawn as fill; with
# --force a tiotest and an fs_mark result share one timeline (a panel per phase, create too).
. "$(dirname "$0")/lib.sh"
check=${BUILD:+$BUILD/tests/test_plot_cairo}
[ -n "$check" ] && [ -x "$check" ] || skip "needs test_plot_cairo from the build (run through make check)"
dir=/dev/shm
[ -d "$dir" ] && [ -w "$dir" ] || dir=$SCRATCH
d=$dir/fsbench-t3050.$$
mkdir -p "$d" && trap 'rm -rf "$d"; _lib_cleanup' EXIT
cd "$SCRATCH" || fail "cd"
# -L keeps the files of every iteration: the directory goes right after
fsb fs_mark -d "$d" -s 0 -S 0 -n 20000 -L 3 --json f.json > /dev/null || fail "fs_mark"
rm -rf "$d" && mkdir -p "$d" || fail "cannot empty $d"
[ "$(grep -o '"intervals":' f.json | wc -l)" = 3 ] || fail "f.json: not 3 iterations with intervals"

fsb plot --type timeline -o tl.png f.json || fail "plot timeline png"
"$check" tl.png 1200 800 20000 || fail "tl.png"
fsb plot --type timeline --width 900 --height 600 -o tl.svg f.json || fail "plot timeline svg"
grep -q 'width="900pt" height="600pt"' tl.svg || fail "tl.svg size"
# the result's line: the first palette colour, stroked (the legend's swatch is filled)
line=$(grep 'stroke:rgb(12%,47%,71%)' tl.svg | grep -o 'd="M [^"]*"')
[ -n "$line" ] || fail "tl.svg: no line drawn"
# the sampler gives a short create loop at least ~20 points: 3 loops end to end are many more
# than one loop's, and x never goes back at an iteration boundary
echo "$line" | tr -d 'd="' | tr 'ML' '\n\n' | awk '
    NF == 2 { n++; if (n > 1 && $1 <= x) bad++; x = $1 }
    END { print n " points, " bad + 0 " backwards"; exit !(n >= 45 && bad == 0) }' ||
    fail "tl.svg: the create line is not 3 iterations end to end"
ok "fs_mark timeline to PNG and SVG: one create line, iterations end to end"

fsb plot -o auto.png f.json && fsb plot --type fill -o fill.png f.json || fail "plot default, fill"
cmp -s auto.png fill.png || fail "without --type a single fs_mark result is not drawn as fill"
ok "the default for fs_mark stays fill"

fsb tiotest -t 1 -f 8 -r 500 -d "$d" --json t.json > /dev/null || fail "tiotest"
fsb plot --type timeline --force -o mix.png t.json f.json || fail "plot timeline tiotest + fs_mark"
"$check" mix.png 1200 800 20000 || fail "mix.png"
ok "tiotest and fs_mark timelines together (--force)"
