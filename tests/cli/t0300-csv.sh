#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0300: --csv FILE for every workload: the header is the run and phase/iteration columns, then
# one "KEY (UNIT)" column per declared figure; each row's values are the JSON's figures at
# their paths (jq), for tiotest (a row per phase) and fs_mark with --repeat 2 (a row per
# iteration and run). --csv is checked before the run (a symbolic link: exit 2, nothing run).
. "$(dirname "$0")/lib.sh"
need_cmd jq
mkdir -p d fm

. "$TESTS_DIR/cli/lib_csv.sh"

fsb tiotest -t 2 -f 2 -r 50 -b 4096 -d d --quiet --json t.json --csv t.csv > out 2> err || fail "tiotest: $(cat err)"
head -1 t.csv | grep -qx 'run,phase,rate_mib_per_s (MiB/s),iops (IOPS),cpu_usr_pct (%),cpu_sys_pct (%),latency_mean_ns (ns),latency_p50_ns (ns),latency_p90_ns (ns),latency_p99_ns (ns),latency_p99_9_ns (ns),latency_max_ns (ns),latency_over_2s_pct (%),latency_over_10s_pct (%),layout_extents_per_mib (extents/MiB),layout_mean_extent_bytes (bytes),layout_discontinuities_per_mib (/MiB),cpu_usr_us_per_op (us),cpu_sys_us_per_op (us),wait_us_per_op (us),vcsw_per_op (switches),ivcsw_per_op (switches),device_bytes_per_op (bytes),device_requests_per_op (requests),total.latency_mean_ns (ns),total.latency_p99_ns (ns),total.latency_max_ns (ns),total.latency_over_2s_pct (%),total.latency_over_10s_pct (%),after.sync_s (s),after.sync_mib (MiB)' ||
    fail "tiotest header: $(head -1 t.csv)"
[ "$(cut -d, -f2 t.csv | tail -n +2 | tr '\n' ' ')" = "write random_write read random_read " ] || fail "phases: $(cut -d, -f2 t.csv)"
csv_vs_json t.csv t.json phases "${TIOTEST_CSV_PATHS[@]}"
ok "tiotest --csv equals the JSON"

fsb fs_mark -d fm -t 1 -n 30 -s 4096 -L 2 --repeat 2 --stat --json f.json --csv f.csv > out 2> err || fail "fs_mark: $(cat err)"
head -1 f.csv | grep -q '^run,iteration,app_overhead_ns (ns),stat_files_per_sec (files/s),.*,files_per_sec (files/s),files_per_sec_aggregate (files/s),after.sync_s (s),after.sync_mib (MiB)$' ||
    fail "fs_mark header: $(head -1 f.csv)"
csv_vs_json f.csv f.json iterations "${FS_MARK_CSV_PATHS[@]}"
[ "$(tail -n +2 f.csv | cut -d, -f1,2 | tr '\n' ' ')" = "1,1 1,2 2,1 2,2 " ] || fail "fs_mark rows: $(cut -d, -f1,2 f.csv)"
ok "fs_mark --csv equals the JSON"

# checked before anything runs, like --json
ln -s t.csv link.csv
fsb tiotest -t 1 -f 1 -d d --csv link.csv > out 2> err; rc=$?
[ $rc = 2 ] || fail "--csv to a symbolic link: exit $rc, expected 2"
grep -q "option --csv: cannot write 'link.csv': is a symbolic link" err || fail "message: $(cat err)"
[ ! -s out ] || fail "ran anyway: $(cat out)"
ok "--csv checked before the run"
