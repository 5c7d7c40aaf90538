# SPDX-License-Identifier: GPL-2.0-or-later
# The check of --csv against the JSON, for t0300 and t0380 (source it after lib.sh).
# csv_vs_json CSV JSON ARRAY JQPATHS...: each data row's cells equal the JSON's values
# (to 9 significant digits; an empty cell is an absent figure); JQPATHS name each figure
# column's jq path, relative to the row's element (E.) or its run (R.)
csv_vs_json() {
    local csv=$1 json=$2 arr=$3; shift 3
    local exp=$SCRATCH/expected.csv prog='' p
    for p in "$@"; do
        prog="$prog, (${p/#E./\$e.} | if type == \"number\" then tostring else \"\" end)"
    done
    prog=${prog//R./\$r.}
    jq -r "((.runs // [.]) | to_entries[]) as \$run | \$run.value as \$r
        | \$r.$arr | to_entries[] | .value as \$e
        | [(\$run.key + 1 | tostring), (if \$e.name then \$e.name else (.key + 1 | tostring) end) $prog] | join(\",\")" \
        "$json" > "$exp" || fail "jq on $json"
    csv_cmp "$csv" "$exp" 2
}


# csv_cmp CSV EXPECTED LABELS: the CSV's data rows equal EXPECTED's, the first LABELS cells
# as text, the others as numbers (to 9 significant digits; empty on both sides is absent)
csv_cmp() {
    local csv=$1 exp=$2 labels=$3 c e
    # the rows counted and paired in the shell and one awk (tail, wc and paste were 6 processes)
    mapfile -t c < "$csv"
    mapfile -t e < "$exp"
    [ $((${#c[@]} - 1)) = "${#e[@]}" ] || fail "$csv: $((${#c[@]} - 1)) rows, the JSON has ${#e[@]}"
    awk -F, -v labels="$labels" '
        NR == FNR { if (FNR > 1) row[FNR - 1] = $0; next }
        {
            n = split(row[FNR], c, ",")
            if (NF != n) { print "row " FNR ": " n " cells, expected " NF; bad = 1; next }
            for (i = 1; i <= NF; i++) {
                if (i <= labels) { if (c[i] != $i) { print "row " FNR " cell " i ": " c[i] " != " $i; bad = 1 } continue }
                if (c[i] == "" && $i == "") continue
                d = c[i] - $i; if (d < 0) d = -d; m = $i < 0 ? -$i : $i
                if (c[i] == "" || $i == "" || d > 1e-9 * m) { print "row " FNR " cell " i ": csv " c[i] " json " $i; bad = 1 }
            }
        }
        END { exit bad }' "$csv" "$exp" || fail "$csv differs from the JSON"
}

# csv_vs_json_run CSV JSON JQPATHS...: one row per run (mdtest), the run's number and then its
# figures; JQPATHS are jq paths relative to the run (R.)
csv_vs_json_run() {
    local csv=$1 json=$2; shift 2
    local exp=$SCRATCH/expected.csv prog='' p
    for p in "$@"; do
        prog="$prog, (${p/#R./\$r.} | if type == \"number\" then tostring else \"\" end)"
    done
    jq -r "((.runs // [.]) | to_entries[]) as \$run | \$run.value as \$r
        | [(\$run.key + 1 | tostring) $prog] | join(\",\")" "$json" > "$exp" || fail "jq on $json"
    csv_cmp "$csv" "$exp" 1
}

# the figure columns of each workload's CSV, as jq paths for csv_vs_json
TIOTEST_CSV_PATHS=(E.rate_mib_per_s E.iops E.cpu_usr_pct E.cpu_sys_pct E.latency.mean_ns E.latency.p50_ns
    E.latency.p90_ns E.latency.p99_ns E.latency.p99_9_ns E.latency.max_ns E.latency.over_2s_pct E.latency.over_10s_pct
    E.layout.extents_per_mib E.layout.mean_extent_bytes E.layout.discontinuities_per_mib
    E.cost.cpu_usr_us_per_op E.cost.cpu_sys_us_per_op E.cost.wait_us_per_op E.cost.vcsw_per_op E.cost.ivcsw_per_op
    E.cost.device_bytes_per_op E.cost.device_requests_per_op
    R.total_latency.mean_ns R.total_latency.p99_ns R.total_latency.max_ns R.total_latency.over_2s_pct R.total_latency.over_10s_pct
    R.after.sync_s R.after.sync_mib)
FS_MARK_CSV_PATHS=(E.app_overhead_ns E.phases.stat.files_per_sec E.phases.read.files_per_sec
    E.phases.unlink.files_per_sec
    E.cost.cpu_usr_us_per_file E.cost.cpu_sys_us_per_file E.cost.wait_us_per_file E.cost.vcsw_per_file
    E.cost.ivcsw_per_file E.cost.device_bytes_per_file E.cost.device_requests_per_file
    E.layout.extents_per_file E.layout.one_extent_pct E.layout.inode_group_pct
    E.layout.dir_group_pct R.summary.files_per_sec_sum_of_threads.average R.summary.files_per_sec_aggregate.average
    R.after.sync_s R.after.sync_mib)
MDTEST_CSV_PATHS=()
for _op in dir_create dir_stat dir_rename dir_remove file_create file_stat file_read file_remove tree_create tree_remove; do
    MDTEST_CSV_PATHS+=("R.operations.$_op.rate_per_s")
done
for _op in dir_create dir_stat dir_rename dir_remove file_create file_stat file_read file_remove; do
    MDTEST_CSV_PATHS+=("R.operations.$_op.latency_p50_ns" "R.operations.$_op.latency_p99_ns")
done
MDTEST_CSV_PATHS+=(R.after.sync_s R.after.sync_mib)
unset _op
