#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0380: --csv equals the JSON's figures beyond t0300's two runs: every workload the binary
# lists has its columns checked (a new workload fails here until lib_csv.sh knows its figures'
# JSON paths); tiotest --repeat 2 (a row per phase and run, each run's own figures on its
# rows); fs_mark --layout (the layout columns filled, not only empty in both); and
# fsbench-mpi's --csv, the job's figures (tiotest and fs_mark).
. "$(dirname "$0")/lib.sh"
need_cmd jq
. "$TESTS_DIR/cli/lib_csv.sh"
mkdir -p d fm

workloads=$(fsb list workloads) || fail "fsbench list workloads"
for w in $workloads; do
    v=${w^^}_CSV_PATHS
    declare -p "$v" > /dev/null 2>&1 || fail "workload $w: no CSV check (lib_csv.sh has no $v)"
    fsb "$w" --help > help || fail "$w --help"
    [[ $(< help) == *--csv=FILE* ]] || fail "workload $w: no --csv in its --help"
done
ok "every workload ($(echo $workloads)) has its CSV checked"

fsb tiotest -t 2 -f 2 -r 50 -b 4096 -d d --quiet --repeat 2 --json t.json --csv t.csv > out 2> err || fail "tiotest: $(cat err)"
[ "$(tail -n +2 t.csv | cut -d, -f1,2 | tr '\n' ' ')" = "1,write 1,random_write 1,read 1,random_read 2,write 2,random_write 2,read 2,random_read " ] ||
    fail "tiotest --repeat 2 rows: $(cut -d, -f1,2 t.csv | tr '\n' ' ')"
csv_vs_json t.csv t.json phases "${TIOTEST_CSV_PATHS[@]}"
ok "tiotest --repeat 2: --csv equals the JSON, run by run"

fsb fs_mark -d fm -t 1 -n 30 -s 65536 -L 2 --layout --json f.json --csv f.csv > out 2> err || fail "fs_mark --layout: $(cat err)"
if [ "$(jq '[.iterations[].layout.extents_per_file | numbers] | length' f.json)" -gt 0 ]; then
    [ -n "$(tail -n +2 f.csv | cut -d, -f7 | tr -d '\n')" ] || fail "fs_mark --layout: empty layout columns: $(cat f.csv)"
    csv_vs_json f.csv f.json iterations "${FS_MARK_CSV_PATHS[@]}"
    ok "fs_mark --layout: its layout columns equal the JSON"
else
    echo "skip part: no file layout here ($(stat -f -c %T .))"
fi

fsb mdtest -n 20 -i 2 -d "$SCRATCH/mdt" --json m.json --csv m.csv > out 2> err || fail "mdtest: $(cat err)"
[ "$(tail -n +2 m.csv | wc -l)" = 1 ] || fail "mdtest -i 2: not one row per run: $(cat m.csv)"
csv_vs_json_run m.csv m.json "${MDTEST_CSV_PATHS[@]}"
ok "mdtest: --csv equals the JSON (its rates and latency percentiles)"

need_mpi
mkdir -p md mfm
mpi 2 tiotest -t 1 -f 2 -r 50 -d md --quiet --json mt.json --csv mt.csv > out 2> err || fail "fsbench-mpi tiotest: $(cat err)"
mpi 2 fs_mark -d mfm -t 1 -n 20 -s 4096 -L 2 --stat --json mf.json --csv mf.csv > out 2> err || fail "fsbench-mpi fs_mark: $(cat err)"
[ "$(head -1 mt.csv)" = "$(head -1 t.csv)" ] || fail "fsbench-mpi tiotest header: $(head -1 mt.csv)"
[ "$(head -1 mf.csv)" = "$(head -1 f.csv)" ] || fail "fsbench-mpi fs_mark header: $(head -1 mf.csv)"
csv_vs_json mt.csv mt.json phases "${TIOTEST_CSV_PATHS[@]}"
csv_vs_json mf.csv mf.json iterations "${FS_MARK_CSV_PATHS[@]}"
# the job's figures: the ops of both ranks (2 x 2 MiB written in 4 KiB blocks)
[ "$(jq '.phases[0].ops' mt.json)" = 1024 ] || fail "not the job's result: $(jq -c '.phases[0]' mt.json)"
ok "fsbench-mpi --csv equals the job's JSON"
