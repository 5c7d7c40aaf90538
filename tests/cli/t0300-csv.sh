#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0300: --csv FILE for every workload: the header is the run and phase/iteration columns, then
# one "KEY (UNIT)" column per declared figure; each row's values are the JSON's figures at
# their paths (jq), for tiotest (a row per phase) and fs_mark with --repeat 2 (a row per
# iteration and run). --csv is checked before the run (a symbolic link: exit 2, nothing run).
. "$(dirname "$0")/lib.sh"
need_cmd jq
mkdir -p d fm

# csv_vs_json CSV JSON RUNS ARRAY JQPATHS...: each data row's cells equal the JSON's values
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

fsb tiotest -t 2 -f 2 -r 50 -b 4096 -d d --quiet --json t.json --csv t.csv > out 2> err || fail "tiotest: $(cat err)"
head -1 t.csv | grep -qx 'run,phase,rate_mib_per_s (MiB/s),iops (IOPS),cpu_usr_pct (%),cpu_sys_pct (%),latency_mean_ns (ns),latency_p50_ns (ns),latency_p90_ns (ns),latency_p99_ns (ns),latency_p99_9_ns (ns),latency_max_ns (ns),latency_over_2s_pct (%),latency_over_10s_pct (%),layout_extents_per_mib (extents/MiB),layout_mean_extent_bytes (bytes),layout_discontinuities_per_mib (/MiB),total.latency_mean_ns (ns),total.latency_p99_ns (ns),total.latency_max_ns (ns),total.latency_over_2s_pct (%),total.latency_over_10s_pct (%)' ||
    fail "tiotest header: $(head -1 t.csv)"
[ "$(cut -d, -f2 t.csv | tail -n +2 | tr '\n' ' ')" = "write random_write read random_read " ] || fail "phases: $(cut -d, -f2 t.csv)"
csv_vs_json t.csv t.json phases E.rate_mib_per_s E.iops E.cpu_usr_pct E.cpu_sys_pct E.latency.mean_ns E.latency.p50_ns \
    E.latency.p90_ns E.latency.p99_ns E.latency.p99_9_ns E.latency.max_ns E.latency.over_2s_pct E.latency.over_10s_pct \
    E.layout.extents_per_mib E.layout.mean_extent_bytes E.layout.discontinuities_per_mib \
    R.total_latency.mean_ns R.total_latency.p99_ns R.total_latency.max_ns R.total_latency.over_2s_pct R.total_latency.over_10s_pct
ok "tiotest --csv equals the JSON"

fsb fs_mark -d fm -t 1 -n 30 -s 4096 -L 2 --repeat 2 --stat --json f.json --csv f.csv > out 2> err || fail "fs_mark: $(cat err)"
head -1 f.csv | grep -q '^run,iteration,app_overhead_ns (ns),stat_files_per_sec (files/s),.*,files_per_sec (files/s),files_per_sec_aggregate (files/s)$' ||
    fail "fs_mark header: $(head -1 f.csv)"
csv_vs_json f.csv f.json iterations E.app_overhead_ns E.phases.stat.files_per_sec E.phases.read.files_per_sec \
    E.phases.unlink.files_per_sec E.layout.extents_per_file E.layout.one_extent_pct E.layout.inode_group_pct \
    E.layout.dir_group_pct R.summary.files_per_sec_sum_of_threads.average R.summary.files_per_sec_aggregate.average
[ "$(tail -n +2 f.csv | cut -d, -f1,2 | tr '\n' ' ')" = "1,1 1,2 2,1 2,2 " ] || fail "fs_mark rows: $(cut -d, -f1,2 f.csv)"
ok "fs_mark --csv equals the JSON"

# checked before anything runs, like --json
ln -s t.csv link.csv
fsb tiotest -t 1 -f 1 -d d --csv link.csv > out 2> err; rc=$?
[ $rc = 2 ] || fail "--csv to a symbolic link: exit $rc, expected 2"
grep -q "option --csv: cannot write 'link.csv': is a symbolic link" err || fail "message: $(cat err)"
[ ! -s out ] || fail "ran anyway: $(cat out)"
ok "--csv checked before the run"
