#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: the main job on a fresh scratch directory under the build tree, sized to finish
# in well under a minute:
#   1. tiotest as the classic tool prints it, plus percentiles and a JSON result;
#   2. fs_mark, five iterations, with a JSON result;
#   3. an A/B question like the reference documents ask: tiotest with and without O_SYNC
#      (-S), three runs each, compared with statistics, and plotted;
#   4. as root: a small experiment (fsbench matrix, two cells: ext4 mounted with and without
#      sync on fresh loop images, runs interleaved), then how to run the full examples. Its
#      question is one figure, "does -o sync slow ext4's writes?", so the write rate is its only
#      primary figure (--primary): one confirmatory test, decided at 3 rounds even when a noisy
#      round widens the interval; the other rates are still reported, as exploratory figures.
# The experiment's runs go into a history database under the demo's directory (--db), never the
# user's $XDG_DATA_HOME/fsbench/history.db: a demo is not a measurement worth keeping.
# usage: scripts/demo.sh ./fsbench build/demo
set -eu
bin=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir/files"
say() { printf '\n== %s\n' "$*"; }

say "fsbench tiotest -t 2 -f 64 -r 20000 -b 4096 -d $dir/files --percentiles --json $dir/tiotest.json"
"$bin" tiotest -t 2 -f 64 -r 20000 -b 4096 -d "$dir/files" --percentiles --json "$dir/tiotest.json"

# -L keeps the files (as fs_mark does), so fs_mark gets a directory of its own, removed after
say "fsbench fs_mark -d $dir/fs_mark -D 16 -n 2000 -t 2 -s 4096 -L 5 -S 0 -l $dir/fs_log.txt --json $dir/fs_mark.json"
"$bin" fs_mark -d "$dir/fs_mark" -D 16 -n 2000 -t 2 -s 4096 -L 5 -S 0 -l "$dir/fs_log.txt" \
    --json "$dir/fs_mark.json"
rm -rf "$dir/fs_mark"
"$bin" plot --type fill --x count -o "$dir/fs_mark-fill.png" "$dir/fs_mark.json"

say "A/B: fsbench tiotest -t 1 -f 8 -r 1000 --repeat 3, buffered (A) against O_SYNC (-S, B)"
"$bin" tiotest -t 1 -f 8 -r 1000 -d "$dir/files" --repeat 3 -T --quiet --label buffered \
    --json "$dir/ab-buffered.json" >/dev/null
"$bin" tiotest -t 1 -f 8 -r 1000 -d "$dir/files" --repeat 3 -T --quiet --label O_SYNC -S \
    --json "$dir/ab-osync.json" >/dev/null
"$bin" compare "$dir/ab-buffered.json" "$dir/ab-osync.json"
"$bin" plot --type compare -o "$dir/ab-compare.png" "$dir/ab-buffered.json" "$dir/ab-osync.json"
"$bin" plot --type latency -o "$dir/ab-latency.svg" "$dir/ab-buffered.json" "$dir/ab-osync.json"

left=$(find "$dir/files" -mindepth 1 | head -3)
[ -z "$left" ] || { echo "demo: files left behind: $left" >&2; exit 1; }
rmdir "$dir/files"
if [ "$(id -u)" = 0 ]; then
    say "fsbench matrix --fs ext4 --mount-opts defaults --mount-opts sync --repeat 3 --primary write.rate_mib_per_s --size 256 --after fsck,freespace --db $dir/history.db -o $dir/matrix -- tiotest -t 1 -f 8 -r 1000"
    "$bin" matrix --fs ext4 --mount-opts defaults --mount-opts sync --repeat 3 --primary write.rate_mib_per_s --size 256 --after fsck,freespace \
        --db "$dir/history.db" -o "$dir/matrix" -- tiotest -t 1 -f 8 -r 1000
    ls -1 "$dir/matrix" "$dir/matrix/runs"
else
    say "fsbench matrix (an experiment on fresh loop images) needs root: not run"
fi
say "results in $dir:"
ls -1 "$dir"
top=$(cd "$(dirname "$0")/.." && pwd)
printf '\nThe reference experiments, a few minutes each on loop images (as root):\n'
printf '  %s matrix %s/examples/000-tiotest-btrfs-ext4-toggle.ini --db %s/history.db -o %s/ex000\n' "$bin" "$top" "$dir" "$dir"
printf '  %s matrix %s/examples/001-fs_mark-delalloc.ini --db %s/history.db -o %s/ex001\n' "$bin" "$top" "$dir" "$dir"
