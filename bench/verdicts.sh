#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/verdicts.sh: do the verdicts hold on real runs (issue 18)? On loop images (as root):
# (a) AA A/A experiments (AA_ROUNDS interleaved rounds each, tiotest, two spellings of the same
#     mount options: defaults and rw): better/worse verdicts on the primary figures (goal 0),
#     equivalent and undecided counts, and the exploratory figures' better/worse for reference;
#     AA_ARGS are more matrix options for them and AA_TIO their tiotest arguments (t8130's A/A:
#     AA_ARGS="--fresh never --primary rate_mib_per_s,write.device_bytes_per_op,random_write.device_bytes_per_op"
#     AA_TIO="-t 1 -f 64 -r 20000");
# (b) known effects with --repeat auto (at most MAX_ROUNDS): -o sync against defaults (fs_mark,
#     tiotest write), btrfs against ext4 (tiotest random write), example 000's toggle (the bdi
#     strict_limit with max_bytes 1 MiB, ext4, tiotest write), and a moderate one: the same toggle
#     on btrfs with max_bytes 32 MiB and a MOD_TIO file: each effect's ratio and verdict and
#     the rounds used (experiment.repeat_auto in manifest.json; goal <= 3 above 2x, <= 8 at 20 %);
# (c) the simulated power table, printed by the unit test build/tests/test_verdict_sim.
# usage: bench/verdicts.sh [./fsbench]
# env: AA=10 AA_ROUNDS=3 MAX_ROUNDS=20 SIZE=256 (MiB images) PARTS="aa known sim"
#      TIO="-t 1 -f 16 -r 2000" FSM="-n 200 -s 4096 -S 0 -t 1" BUILD=build
#      AA_TIO="$TIO" AA_ARGS="" MOD_TIO="-t 1 -f 256 -r 2000" MOD_SIZE=1024
set -eu
bin=${1:-./fsbench}
aa=${AA:-10} aa_rounds=${AA_ROUNDS:-3} max_rounds=${MAX_ROUNDS:-20} size=${SIZE:-256}
parts=${PARTS:-aa known sim} build=${BUILD:-build}
tio=${TIO:--t 1 -f 16 -r 2000} fsm=${FSM:--n 200 -s 4096 -S 0 -t 1}
aa_tio=${AA_TIO:-$tio} mod_tio=${MOD_TIO:--t 1 -f 256 -r 2000} mod_size=${MOD_SIZE:-1024}
read -ra tio_args <<< "$tio"
read -ra aa_tio_args <<< "$aa_tio"
read -ra aa_args <<< "${AA_ARGS:-}"
read -ra fsm_args <<< "$fsm"
dir=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-verdicts.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export TMPDIR=$dir
cp "$bin" "$dir/fsbench"
bin=$dir/fsbench
load() { echo "load: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs), $(date -u '+%F %T UTC')"; }
mx() { # NAME ARGS...: one matrix into $dir/NAME, its log kept
    local name=$1; shift
    "$bin" matrix --size "$size" --max-other-cpu 100 --no-db -o "$dir/$name" "$@" > "$dir/$name.log" 2>&1 ||
        { echo "$name: fsbench matrix failed:" >&2; tail -5 "$dir/$name.log" >&2; return 1; }
}

if [[ " $parts " == *" aa "* ]]; then
    echo "== (a) A/A: $aa experiments x $aa_rounds rounds, ext4, mount defaults vs rw, tiotest $aa_tio${AA_ARGS:+, $AA_ARGS}"
    load
    for i in $(seq 1 "$aa"); do
        mx "aa$i" --fs ext4 --mount-opts defaults --mount-opts rw --repeat "$aa_rounds" \
            "${aa_args[@]}" -- tiotest "${aa_tio_args[@]}"
    done
    # one line per experiment, then the totals: primary (confirmatory) and exploratory verdicts
    for i in $(seq 1 "$aa"); do
        jq -r --arg i "$i" '[.effects[] | select(.family == "confirmatory")] as $c
            | [.effects[] | select(.family == "exploratory")] as $x
            | def n($s; $v): [$s[] | select(.verdict == $v)] | length;
            "\($i)\t\($c | length)\t\(n($c; "better"))\t\(n($c; "worse"))\t\(n($c; "equivalent"))\t\(n($c; "undecided"))\t\($x | length)\t\(n($x; "better") + n($x; "worse"))"' \
            "$dir/aa$i/summary.json"
    done > "$dir/aa.tsv"
    { printf 'run\tprimary\tbetter\tworse\tequiv\tundecided\texplor\texplor b/w\n'
      cat "$dir/aa.tsv"
      awk -F'\t' '{ for (k = 2; k <= 8; k++) s[k] += $k } END { printf "total"; for (k = 2; k <= 8; k++) printf "\t%d", s[k]; print "" }' "$dir/aa.tsv"
    } | column -t -s $'\t'
    awk -F'\t' '{ bw += $3 + $4 } END { printf "goal: no better/worse verdict on a primary figure in %d A/A experiments: %s (%d)\n",
        NR, (bw == 0 ? "met" : "MISSED"), bw }' "$dir/aa.tsv"
    echo
fi

if [[ " $parts " == *" known "* ]]; then
    echo "== (b) known effects, --repeat auto --max-rounds $max_rounds"
    load
    cat > "$dir/strict.ini" <<EOF
[experiment]
name = strict
workload = tiotest
args = $tio -b 4096
bdi-max-bytes = 1M

[axis fs]
values = ext4

[axis strict]
kind = bdi-strict-limit
values = 0 1
labels = nostrict strict
EOF
    sed -e "s/^args = .*/args = $mod_tio -b 4096/" -e 's/^bdi-max-bytes = .*/bdi-max-bytes = 32M/' \
        -e 's/^values = ext4$/values = btrfs/' -e 's/^name = strict$/name = strict32/' "$dir/strict.ini" > "$dir/strict32.ini"
    auto=(--repeat auto --max-rounds "$max_rounds")
    mx sync-fs_mark --fs ext4 --mount-opts defaults --mount-opts sync "${auto[@]}" -- fs_mark "${fsm_args[@]}"
    mx sync-tiotest --fs ext4 --mount-opts defaults --mount-opts sync --primary write.rate_mib_per_s "${auto[@]}" \
        -- tiotest "${tio_args[@]}"
    mx btrfs-ext4 --fs ext4 --fs btrfs --primary random_write.rate_mib_per_s "${auto[@]}" -- tiotest "${tio_args[@]}"
    mx strict-limit "$dir/strict.ini" --primary write.rate_mib_per_s "${auto[@]}"
    size=$mod_size mx strict32-btrfs "$dir/strict32.ini" --primary write.rate_mib_per_s "${auto[@]}"
    for name in sync-fs_mark sync-tiotest btrfs-ext4 strict-limit strict32-btrfs; do
        jq -r --arg n "$name" --slurpfile m "$dir/$name/manifest.json" '.effects[] | select(.family == "confirmatory")
            | "\($n)\t\(.figure)\tx\(if .ratio then (.ratio * 1000 | round / 1000) else "-" end)\t\(.verdict)\t\($m[0].experiment.repeat_auto.rounds_used)\t\($m[0].experiment.repeat_auto.stopped)"' \
            "$dir/$name/summary.json"
    done > "$dir/known.tsv"
    { printf 'effect\tprimary figure\tratio\tverdict\trounds\tstopped\n'; cat "$dir/known.tsv"; } | column -t -s $'\t'
    # decided within 3 rounds above 2x (or below 1/2), within 8 at 20 %
    awk -F'\t' '{ r = substr($3, 2) + 0; if (r <= 0) { bad++; next }
        big = (r >= 2 || r <= 0.5); mid = (r >= 1.2 || r <= 1 / 1.2)
        if ($4 != "better" && $4 != "worse") bad++
        else if (big && $5 > 3) bad++
        else if (mid && $5 > 8) bad++ }
        END { printf "goal: each known effect decided, within 3 rounds above 2x and 8 at 20 %%: %s (%d of %d not)\n",
              (bad ? "MISSED" : "met"), bad, NR }' "$dir/known.tsv"
    echo "looks at rounds $(jq -r '.experiment.repeat_auto.looks | map(tostring) | join(", ")' "$dir/sync-fs_mark/manifest.json")"
    echo
fi

if [[ " $parts " == *" sim "* ]]; then
    echo "== (c) simulated false positives and power ($build/tests/test_verdict_sim)"
    load
    [ -x "$build/tests/test_verdict_sim" ] || make -s "$build/tests/test_verdict_sim" > /dev/null
    "$build/tests/test_verdict_sim" | grep -v ' passed, .* failed$'
fi
