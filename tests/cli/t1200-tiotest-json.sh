#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1200: --json FILE and --json -. The file is valid JSON (jq) with schema, schema_version,
# fsbench_version, command_line, the effective config, the environment (kernel release, CPU
# model, memory, targets with fstype "tmpfs" for a /dev/shm directory) and one object per phase
# that ran, in order: ops, bytes, wall_ns, first_done_ns <= last_done_ns, threads[] (one per
# thread, summing to the phase), latency p50..p99_99 in order and buckets whose counts sum to
# count. Bytes are exact: random phases t*r*bs, sequential t*floor(f*2^20/bs)*bs.
# --json - puts only JSON on stdout; the tables stay on stdout with --json FILE.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
[ "$(stat -f -c %T "$SCRATCH")" = tmpfs ] || skip "no tmpfs at /dev/shm"
DIR=$SCRATCH/d
mkdir -p "$DIR"

# a block size that does not divide the file: 3 MiB / 3000 = 1048 blocks, 576 bytes unused
T=3 F=3 R=700 BS=3000
"$FSBENCH" tiotest -t $T -f $F -r $R -b $BS -d "$DIR" --json "$SCRATCH/r.json" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "run with --json FILE: exit $?: $(cat "$SCRATCH/err")"
[ -z "$(not_warnings "$SCRATCH/err")" ] || fail "stderr not empty: $(cat "$SCRATCH/err")"
head -1 "$SCRATCH/out" | grep -qx "Tiotest results for $T concurrent io threads:" || fail "--json FILE: the tables are not on stdout"
jq -e . "$SCRATCH/r.json" > /dev/null || fail "--json FILE is not valid JSON"
[ -z "$(ls -A "$SCRATCH" | grep -F 'r.json.')" ] || fail "temporary JSON file left: $(ls -A "$SCRATCH")"
! grep -Eiq '(:|\[|,) *-?(nan|inf)' "$SCRATCH/r.json" || fail "nan/inf in the JSON"
no_files "$DIR"

# jqe EXPR MESSAGE [SHOW]: EXPR must be true on the result (as jq -e: its last value neither
# false nor null, and no error); queued, and jqe_run checks the queue in one jq (a jq per
# check was 28 jq, half of the test's CPU), failing at the first untrue one in order with its
# MESSAGE and SHOW's value
jqe_exprs=() jqe_msgs=() jqe_shows=()
jqe() { jqe_exprs+=("$1") jqe_msgs+=("$2") jqe_shows+=("${3:-.}"); }
jqe_run() {
    local prog= e i res
    for e in "${jqe_exprs[@]}"; do
        prog+="${prog:+, }([try ($e) catch false] | length > 0 and (last | . != false and . != null))"
    done
    mapfile -t res < <(jq -c --argjson t $T --argjson f $F --argjson r $R --argjson bs $BS --arg dir "$DIR" \
        "$prog" "$SCRATCH/r.json" 2> "$SCRATCH/jqe.err")
    [ ${#res[@]} = ${#jqe_exprs[@]} ] || fail "jqe: ${#res[@]} answers to ${#jqe_exprs[@]} checks: $(head -c 600 "$SCRATCH/jqe.err")"
    for i in "${!res[@]}"; do
        [ "${res[i]}" = true ] || fail "${jqe_msgs[i]}: $(jq -c "${jqe_shows[i]}" "$SCRATCH/r.json" 2>&1 | head -c 600)"
    done
    jqe_exprs=() jqe_msgs=() jqe_shows=()
}
isint='(type == "number" and . == floor and . >= 0)'

jqe '(.schema | type == "string" and length > 0) and (.schema_version | type == "number" and . >= 1)' "schema, schema_version"
ver=$("$FSBENCH" --version | awk '{print $2}')
jqe ".fsbench_version == \"$ver\"" "fsbench_version is not $ver" .fsbench_version
jqe '.command_line[1:] == ["-t", ($t|tostring), "-f", ($f|tostring), "-r", ($r|tostring), "-b", ($bs|tostring), "-d", $dir, "--json", ($dir | sub("/d$"; "/r.json"))]' \
    "command_line is not the arguments given" .command_line
jqe '.config | .threads == $t and .file_size_bytes == $f * 1048576 and .block_size_bytes == $bs and
     .random_ops_per_thread == $r and .blocks_per_thread == ($f * 1048576 / $bs | floor) and .dirs == [$dir] and
     .phases == ["write", "random_write", "read", "random_read"] and (.seed | type == "number")' "config" .config
# environment
kr=$(uname -r)
mem=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 ))
jqe ".environment.kernel_release == \"$kr\"" "kernel_release is not $kr" .environment
jqe '.environment.cpu_model | type == "string" and length > 0' "cpu_model" .environment
jqe ".environment.mem_total_bytes == $mem" "mem_total_bytes is not MemTotal ($mem)" .environment
jqe '.environment.targets | length == 1 and .[0].path == $dir and .[0].fstype == "tmpfs" and
     (.[0].mount_options | type == "string" and length > 0)' "targets: fstype tmpfs for a /dev/shm dir" .environment.targets
jqe '.complete == true and .error == null' "complete, no error"
jqe_run
ok "header, config and environment"

# phases
jqe '[.phases[].name] == ["write", "random_write", "read", "random_read"]' "phase names/order" '[.phases[].name]'
seq_bytes=$((T * (F * 1048576 / BS) * BS)) rnd_bytes=$((T * R * BS))
jqe ".phases | map(.bytes) == [$seq_bytes, $rnd_bytes, $seq_bytes, $rnd_bytes]" \
    "bytes: sequential t*floor(f*2^20/bs)*bs = $seq_bytes, random t*r*bs = $rnd_bytes" '[.phases[].bytes]'
jqe '.phases | all(.ops * $bs == .bytes and .complete == true)' "ops * bs == bytes" '[.phases[] | {ops, bytes}]'
jqe ".phases | all((.ops, .bytes, .wall_ns, .first_done_ns, .last_done_ns) | $isint)" "integer counts and ns" \
    '[.phases[] | {ops, bytes, wall_ns, first_done_ns, last_done_ns}]'
jqe '.phases | all(.wall_ns > 0 and .first_done_ns <= .last_done_ns and .last_done_ns <= .wall_ns)' \
    "0 < first_done_ns <= last_done_ns <= wall_ns" '[.phases[] | {wall_ns, first_done_ns, last_done_ns}]'
jqe '.phases | all(.threads | length == $t and ([.[].thread] == [range($t)]))' "one threads[] entry per thread" \
    '[.phases[].threads | length]'
jqe '.phases | all(.ops == ([.threads[].ops] | add) and .bytes == ([.threads[].bytes] | add))' \
    "threads[] ops/bytes add up to the phase" '[.phases[] | {ops, t: [.threads[].ops]}]'
jqe '.phases | all(.threads | all(.end_ns >= .start_ns and .flush_ns <= .end_ns - .start_ns))' \
    "per-thread start/end/flush" '[.phases[].threads]'
jqe '.phases | all(.threads | all(.file | test("^" + $dir + "/_tiotest_pid[0-9]+\\.thr[0-9]+$")))' \
    "thread file names" '[.phases[0].threads[].file]'
jqe '.phases[0].threads | [.[].file | capture("thr(?<i>[0-9]+)$").i | tonumber] == [range($t)]' "thread i uses file .thr<i>"
jqe '.phases | all(.ops == (if (.name | startswith("random")) then $t * $r else $t * ($f * 1048576 / $bs | floor) end))' \
    "ops per phase" '[.phases[].ops]'
jqe '.phases | all(.threads | all(.ops > 0))' "a thread did no ops" '[.phases[].threads[].ops]' 
jqe '.phases | all((.cpu_usr_s, .cpu_sys_s) | type == "number" and . >= 0)' "cpu seconds"
jqe_run
ok "phases: ops, bytes, times, threads"

# latency
lat_ok='(.count == $ops and ([.buckets[][2]] | add) == .count and
         .min_ns <= .p50_ns and .p50_ns <= .p90_ns and .p90_ns <= .p99_ns and .p99_ns <= .p99_9_ns and
         .p99_9_ns <= .p99_99_ns and .p99_99_ns <= .max_ns and .min_ns <= .mean_ns and .mean_ns <= .max_ns and
         .over_10s_count <= .over_2s_count and (.over_2s_pct | type == "number") and
         all(.buckets[]; .[0] <= .[1] and .[2] > 0) and
         ([.buckets[][0]] | . == sort))'
jqe ".phases | all(.ops as \$ops | .latency | $lat_ok)" "phase latency: count, percentiles in order, buckets sum to count" \
    '[.phases[].latency | del(.buckets)]'
jqe ".phases | all(.latency | (.count, .min_ns, .max_ns, .sum_ns, .p50_ns, .p90_ns, .p99_ns, .p99_9_ns, .p99_99_ns) | $isint)" \
    "latency counts and ns are integers"
jqe "([.phases[].ops] | add) as \$ops | .total_latency | $lat_ok" "total_latency pools every phase" '.total_latency | del(.buckets)'
jqe '.total_latency.max_ns == ([.phases[].latency.max_ns] | max) and .total_latency.sum_ns == ([.phases[].latency.sum_ns] | add)' \
    "total max/sum"
jqe_run
ok "latency: percentiles, buckets"

# -k: only the phases that ran are in the JSON
"$FSBENCH" tiotest -t 1 -f 1 -r 10 -k 1 -k 3 -d "$DIR" --json "$SCRATCH/k.json" > /dev/null || fail "-k run with --json"
jq -e '[.phases[].name] == ["write", "read"] and .config.phases == ["write", "read"]' "$SCRATCH/k.json" > /dev/null ||
    fail "-k 1 -k 3: phases $(jq -c '[.phases[].name], .config.phases' "$SCRATCH/k.json")"
ok "-k: skipped phases absent"

# --json -: stdout is one JSON document and nothing else, for the terse and the table modes
for mode in "" "-T" "--percentiles"; do
    "$FSBENCH" tiotest -t 2 -f 1 -r 50 -d "$DIR" $mode --json - > "$SCRATCH/stdout.json" 2> "$SCRATCH/err" ||
        fail "--json - $mode: exit $?: $(cat "$SCRATCH/err")"
    [ -z "$(not_warnings "$SCRATCH/err")" ] || fail "--json - $mode: stderr: $(cat "$SCRATCH/err")"
    [ "$(head -c 1 "$SCRATCH/stdout.json")" = "{" ] || fail "--json - $mode: stdout does not start with '{': $(head -2 "$SCRATCH/stdout.json")"
    [ "$(jq -s 'length' "$SCRATCH/stdout.json")" = 1 ] || fail "--json - $mode: stdout is not exactly one JSON document"
    jq -e '.phases | length == 4' "$SCRATCH/stdout.json" > /dev/null || fail "--json - $mode: phases missing"
done
no_files "$DIR"
ok "--json -: only JSON on stdout"
