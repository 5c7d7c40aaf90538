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
# every figure with one jq (a jq costs ~50 ms of CPU; a jq per check was most of the test's CPU)
OPS="create write fsync close reopen stat read_open read"
exprs=()
for op in $OPS; do
    exprs+=("\"$op\" as \$op | .iterations[0].latency[\$op] | .count > 0 and has(\"buckets\") == false
        and .p50_ns <= .p90_ns and .p90_ns <= .p99_ns and .p99_ns <= .p99_9_ns and .p99_9_ns <= .max_ns
        and .min_ns > 0 and .min_ns <= .mean_ns and .mean_ns <= .max_ns"
        "\"$op\" as \$op | ([.iterations[].latency[\$op].count] | add) as \$n | .latency[\$op]
        | .count == \$n and ([.buckets[][2]] | add) == \$n and .max_ns >= .p99_ns")
done
jq_read v r.json '.schema == "fsbench-result" and .workload == "fs_mark" and (.command_line | length) > 5' \
    '.config.threads == 2 and .config.files_per_thread == 300 and .config.sync_method == 5 and .config.keep' \
    '(.iterations | length) == 2 and .iterations[1].count == 1200 and .iterations[0].files == 600' \
    "${exprs[@]}" \
    '.iterations[0].latency.create.count == 600 and .iterations[0].latency.write.count == 2400
       and .iterations[0].latency.fsync.count == 600 and .iterations[0].latency.sync.count == 0
       and .iterations[0].latency.sync.p99_ns == null and .latency.sync.count == 0' \
    '.schema_version == 2' \
    '.iterations[0] | .files_per_sec_sum_of_threads > 0 and .files_per_sec_aggregate > 0 and .app_overhead_ns > 0
       and .fs_use_pct >= 0 and .inode_use_pct >= 0 and .phases.stat.files == 600 and .phases.read.files_per_sec > 0' \
    '.end.reason == "done" and .summary.iterations == 2 and .summary.files == 1200'
[ "${v[0]}" = true ] || fail "head"
[ "${v[1]}" = true ] || fail "config"
[ "${v[2]}" = true ] || fail "iterations"
# per iteration: count and percentiles per op type, no buckets (schema 2); per run: the buckets,
# merged over the iterations, summing to the iterations' counts
i=3
for op in $OPS; do
    [ "${v[i]}" = true ] || fail "iterations[0].latency.$op: $(jq -c --arg op "$op" '.iterations[0].latency[$op]' r.json)"
    [ "${v[i + 1]}" = true ] ||
        fail "latency.$op of the run: $(jq -c --arg op "$op" '.latency[$op] | del(.buckets)' r.json)"
    i=$((i + 2))
done
[ "${v[i]}" = true ] || fail "op counts"
[ "${v[i + 1]}" = true ] || fail "schema_version: $(jq .schema_version r.json)"
[ "${v[i + 2]}" = true ] || fail "figures"
[ "${v[i + 3]}" = true ] || fail "end/summary"
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
