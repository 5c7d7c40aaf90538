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
    [ "$(tail -n +2 "$csv" | wc -l)" = "$(wc -l < "$exp")" ] || fail "$csv: $(tail -n +2 "$csv" | wc -l) rows, the JSON has $(wc -l < "$exp")"
    paste -d '\n' <(tail -n +2 "$csv") "$exp" | awk -F, '
        NR % 2 { split($0, c, ","); n = NF; next }
        {
            if (NF != n) { print "row " NR/2 ": " n " cells, expected " NF; bad = 1; next }
            for (i = 1; i <= NF; i++) {
                if (i <= 2) { if (c[i] != $i) { print "row " NR/2 " cell " i ": " c[i] " != " $i; bad = 1 } continue }
                if (c[i] == "" && $i == "") continue
                d = c[i] - $i; if (d < 0) d = -d; m = $i < 0 ? -$i : $i
                if (c[i] == "" || $i == "" || d > 1e-9 * m) { print "row " NR/2 " cell " i ": csv " c[i] " json " $i; bad = 1 }
            }
        }
        END { exit bad }' || fail "$csv differs from the JSON"
}

# the figure columns of each workload's CSV, as jq paths for csv_vs_json
TIOTEST_CSV_PATHS=(E.rate_mib_per_s E.iops E.cpu_usr_pct E.cpu_sys_pct E.latency.mean_ns E.latency.p50_ns
    E.latency.p90_ns E.latency.p99_ns E.latency.p99_9_ns E.latency.max_ns E.latency.over_2s_pct E.latency.over_10s_pct
    E.layout.extents_per_mib E.layout.mean_extent_bytes E.layout.discontinuities_per_mib
    R.total_latency.mean_ns R.total_latency.p99_ns R.total_latency.max_ns R.total_latency.over_2s_pct R.total_latency.over_10s_pct)
FS_MARK_CSV_PATHS=(E.app_overhead_ns E.phases.stat.files_per_sec E.phases.read.files_per_sec
    E.phases.unlink.files_per_sec E.layout.extents_per_file E.layout.one_extent_pct E.layout.inode_group_pct
    E.layout.dir_group_pct R.summary.files_per_sec_sum_of_threads.average R.summary.files_per_sec_aggregate.average)
