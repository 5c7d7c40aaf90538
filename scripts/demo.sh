#!/bin/sh
# make demo: the main job on a fresh scratch directory under the build tree, sized to finish
# in well under a minute: tiotest (classic tables + percentiles + JSON), then the other
# workloads this build has.
# usage: scripts/demo.sh ./fsbench build/demo
set -eu
bin=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir/files"
echo "== fsbench tiotest -t 2 -f 64 -r 20000 -b 4096 -d $dir/files --percentiles --json $dir/tiotest.json"
"$bin" tiotest -t 2 -f 64 -r 20000 -b 4096 -d "$dir/files" --percentiles --json "$dir/tiotest.json"
echo "JSON result: $dir/tiotest.json"
if "$bin" list | grep -qx fs_mark; then
    echo
    echo "== fsbench fs_mark -d $dir/files -D 16 -n 2000 -t 2 -s 4096 -L 3 -S 0 --json $dir/fs_mark.json"
    "$bin" fs_mark -d "$dir/files" -D 16 -n 2000 -t 2 -s 4096 -L 3 -S 0 --json "$dir/fs_mark.json"
    echo "JSON result: $dir/fs_mark.json"
fi
left=$(find "$dir/files" -mindepth 1 | head -3)
[ -z "$left" ] || { echo "demo: files left behind: $left" >&2; exit 1; }
rmdir "$dir/files"
