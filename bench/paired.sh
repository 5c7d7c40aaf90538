#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/paired.sh: paired by round against unpaired on real runs (fsbench(1) STATISTICS, "The
# design is used"). Four matrices on loop images (as root), 5 interleaved rounds each: tiotest
# A/A (defaults vs rw) and defaults vs sync, fs_mark the same; each reported twice, as run (paired
# by round) and with the manifest's order set to sequential (the report then pairs nothing), and
# the width ln(high/low) of every primary effect's interval printed side by side.
# usage: bench/paired.sh [./fsbench] [ROUNDS]
set -eu
bin=${1:-./fsbench} rounds=${2:-5}
dir=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-paired.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export TMPDIR=$dir
run() {
    local name=$1 opts=$2; shift 2
    "$bin" matrix --fs ext4 --mount-opts defaults --mount-opts "$opts" --repeat "$rounds" --size 256 \
        --max-other-cpu 100 --no-db -o "$dir/$name" -- "$@" > /dev/null
    cp -r "$dir/$name" "$dir/$name-u"
    jq '.experiment.order = "sequential"' "$dir/$name/manifest.json" > "$dir/$name-u/manifest.json"
    "$bin" report --no-db "$dir/$name-u" > /dev/null
    echo "== $name"
    paste <(jq -r '.effects[] | select(.family == "confirmatory") | "\(.figure) paired: \(.verdict) width \((.high / .low) | log * 1000 | round / 1000)"' "$dir/$name/summary.json") \
          <(jq -r '.effects[] | select(.family == "confirmatory") | "unpaired: \(.verdict) width \((.high / .low) | log * 1000 | round / 1000)"' "$dir/$name-u/summary.json") |
        tee -a "$dir/widths"
}
run tiotest-aa rw tiotest -t 1 -f 16 -r 1000
run tiotest-sync sync tiotest -t 1 -f 8 -r 1000
run fs_mark-aa rw fs_mark -n 400 -s 4096 -S 0 -t 1
run fs_mark-sync sync fs_mark -n 100 -s 4096 -S 0 -t 1
# the goal line (make bench's summary collects every script's): the design is used, so pairing
# by round narrows the primary effects' intervals on the whole (mean paired / unpaired width)
awk -F'\t' '{ split($1, p, " width "); split($2, u, " width "); if (u[2] + 0 > 0) { n++; s += p[2] / u[2] } }
    END { m = n ? s / n : 0; printf "goal: paired intervals narrower than unpaired on the whole: %s (mean width ratio %.3f over %d effects)\n",
          (n && m <= 1 ? "met" : "MISSED"), m, n }' "$dir/widths"
