#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fs_mark --json: config, per-iteration figures (both files/sec definitions, FSUse%, inode
# use, app overhead, latency percentiles per op type), the run's latency histograms per op type;
# --json - owns stdout; --stat/--read phases; --summary/--percentiles/--inodes columns; memory
# flat in -n.
. "$(dirname "$0")/lib.sh"
need_cmd jq
T=$(mktemp -d /dev/shm/fsbench-t2600.XXXXXX 2>/dev/null) || T=$(mktemp -d "$SCRATCH/t.XXXXXX")
trap '_lib_cleanup; rm -rf "$T"' EXIT
cd "$SCRATCH" || fail "cd"

fsb fs_mark -d "$T/a" -t 2 -n 300 -s 4096 -w 1024 -S 5 -L 2 --stat --read --json r.json -l log > out 2> err || fail "run: $(cat err)"
jq -e '.schema == "fsbench-result" and .workload == "fs_mark" and (.command_line | length) > 5' r.json > /dev/null || fail "head"
jq -e '.config.threads == 2 and .config.files_per_thread == 300 and .config.sync_method == 5 and .config.keep' r.json > /dev/null || fail "config"
jq -e '(.iterations | length) == 2 and .iterations[1].count == 1200 and .iterations[0].files == 600' r.json > /dev/null || fail "iterations"
# per iteration: count and percentiles per op type, no buckets (schema 2); per run: the buckets,
# merged over the iterations, summing to the iterations' counts
for op in create write fsync close reopen stat read_open read; do
    jq -e --arg op "$op" '.iterations[0].latency[$op] | .count > 0 and has("buckets") == false
        and .p50_ns <= .p90_ns and .p90_ns <= .p99_ns and .p99_ns <= .p99_9_ns and .p99_9_ns <= .max_ns
        and .min_ns > 0 and .min_ns <= .mean_ns and .mean_ns <= .max_ns' r.json > /dev/null ||
        fail "iterations[0].latency.$op: $(jq -c --arg op "$op" '.iterations[0].latency[$op]' r.json)"
    jq -e --arg op "$op" '([.iterations[].latency[$op].count] | add) as $n | .latency[$op]
        | .count == $n and ([.buckets[][2]] | add) == $n and .max_ns >= .p99_ns' r.json > /dev/null ||
        fail "latency.$op of the run: $(jq -c --arg op "$op" '.latency[$op] | del(.buckets)' r.json)"
done
jq -e '.iterations[0].latency.create.count == 600 and .iterations[0].latency.write.count == 2400
       and .iterations[0].latency.fsync.count == 600 and .iterations[0].latency.sync.count == 0
       and .iterations[0].latency.sync.p99_ns == null and .latency.sync.count == 0' r.json > /dev/null || fail "op counts"
jq -e '.schema_version == 2' r.json > /dev/null || fail "schema_version: $(jq .schema_version r.json)"
jq -e '.iterations[0] | .files_per_sec_sum_of_threads > 0 and .files_per_sec_aggregate > 0 and .app_overhead_ns > 0
       and .fs_use_pct >= 0 and .inode_use_pct >= 0 and .phases.stat.files == 600 and .phases.read.files_per_sec > 0' r.json > /dev/null || fail "figures"
jq -e '.end.reason == "done" and .summary.iterations == 2 and .summary.files == 1200' r.json > /dev/null || fail "end/summary"
# the text row agrees with the JSON (Count, Files/sec to 0.1)
jq -r '.iterations[] | "\(.count) \(.files_per_sec_sum_of_threads * 10 | round)"' r.json > j.txt
awk '/^FSUse%/ { f = 1; next } f { printf "%s %d\n", $2, $4 * 10 + 0.5 }' out > t.txt
diff j.txt t.txt > /dev/null || fail "text and JSON disagree: $(paste j.txt t.txt)"

# --json -: only JSON on stdout
fsb fs_mark -d "$T/b" -n 50 -s 0 -S 0 --json - -l log > out 2> err || fail "--json -"
jq -e '.iterations[0].count == 50' out > /dev/null || fail "stdout is not the JSON alone"
[ ! -e "$T/b" ] || fail "files left behind"

# the extra columns come after the classic ones; the classic five are unchanged
fsb fs_mark -d "$T/c" -n 100 -s 0 -S 0 --summary --percentiles --inodes -l log > out 2> err || fail "columns"
hdr=$(grep '^FSUse%' out)
[ "${hdr:0:62}" = "FSUse%        Count         Size    Files/sec     App Overhead" ] || fail "classic header changed"
echo "$hdr" | grep -q 'CREAT p50us  CREAT p99us  IUse%  Agg Files/sec$' || fail "extra header: $hdr"
[ "$(awk '/^FSUse%/ { getline; print NF }' out)" = 9 ] || fail "row fields"
grep -q 'files / iteration wall time: *average' out || fail "--summary block"

# memory flat in -n: names are regenerated, never stored (reverse pass needs them all); peak RSS
# from wait4() through bench/maxrss.c (a build dependency only, no /usr/bin/time)
MAXRSS=$(maxrss_tool) || exit $?
rss() {
    "$MAXRSS" "$SCRATCH/rss" "$FSBENCH" fs_mark -d "$T/m" -n "$1" -s 0 -S 3 -l log > /dev/null 2> err ||
        fail "fs_mark -n $1 for the RSS check: $(cat err)"
    cat "$SCRATCH/rss"
}
small=$(rss 1000) && big=$(rss 100000) || exit 1
case $small$big in *[!0-9]*|'') fail "no peak RSS measured ('$small', '$big')" ;; esac
[ $((big - small)) -lt 2048 ] || fail "RSS grows with -n: $small KiB at 1000, $big KiB at 100000"
ok "json"
