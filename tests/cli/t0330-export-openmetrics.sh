#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0330: fsbench export --openmetrics FILE DIR|RESULT...: OpenMetrics text that promtool
# accepts (check metrics: syntax and Prometheus' naming lint), from a tiotest result, an
# fs_mark result and a matrix directory (one sample per cell, labelled with it); values in base
# units equal the JSON's (MiB/s x 2^20, ns / 1e9); each family once; "# EOF" last. A bad
# command line or an unreadable result: exit 2 and no file.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
need_cmd promtool
mkdir -p d fm

fsb tiotest -t 1 -f 2 -r 100 -d d --quiet --json t.json > out 2> err || fail "tiotest: $(cat err)"
fsb fs_mark -d fm -t 1 -n 30 -s 4096 -L 2 --json f.json > out 2> err || fail "fs_mark: $(cat err)"
mx_base tiotest base.json
mx_make m base.json 1 2 fsx <<'C'
a fs=ext4 1.0 0.03
b fs=xfs 1.5 0.03
C
fsb export --openmetrics om.txt t.json f.json m > out 2> err || fail "export: exit $?: $(cat err)"
[ ! -s out ] || fail "stdout not empty: $(cat out)"
promtool check metrics < om.txt > pt.out 2>&1 || fail "promtool: $(cat pt.out) in $(head -c 3000 om.txt)"
[ "$(tail -1 om.txt)" = "# EOF" ] || fail "no # EOF at the end"
[ -z "$(grep '^# TYPE' om.txt | sort | uniq -d)" ] || fail "a family twice: $(grep '^# TYPE' om.txt | sort | uniq -d)"
! grep -Eiq ' -?(nan|inf)$' om.txt || fail "nan/inf in the export"
ok "promtool accepts it"

# values: tiotest's write rate and p99 latency; fs_mark's files/sec (mean of its one run)
want=$(jq '.phases[] | select(.name == "write") | .rate_mib_per_s * 1048576' t.json)
got=$(grep '^fsbench_rate_bytes_per_second{workload="tiotest",.*phase="write",result="t.json"}' om.txt | awk '{print $2}')
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-8 * b) }' || fail "write rate: $got, JSON $want"
want=$(jq '.phases[] | select(.name == "random_read") | .latency.p99_ns / 1e9' t.json)
got=$(grep '^fsbench_latency_p99_seconds{workload="tiotest",.*phase="random_read",result="t.json"}' om.txt | awk '{print $2}')
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-8 * b) }' || fail "p99: $got, JSON $want"
want=$(jq '.summary.files_per_sec_sum_of_threads.average' f.json)
got=$(grep '^fsbench_files_per_second{workload="fs_mark",.*result="f.json"}' om.txt | awk '{print $2}')
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-8 * b) }' || fail "files/sec: $got, JSON $want"
for c in a b; do
    grep -q "^fsbench_rate_bytes_per_second{workload=\"tiotest\",fs=\"[a-z0-9]*\",cell=\"$c\",phase=\"write\"} " om.txt ||
        fail "no sample for cell $c: $(grep '^fsbench_rate_bytes' om.txt)"
done
ok "values in base units, one sample per cell"

fsb export t.json > out 2> err; rc=$?
[ $rc = 2 ] && grep -q "usage" err || fail "no --openmetrics: exit $rc: $(cat err)"
echo '{' > bad.json
fsb export --openmetrics x.txt t.json bad.json > out 2> err; rc=$?
[ $rc = 2 ] && grep -q "'bad.json'" err && [ ! -e x.txt ] || fail "unreadable result: exit $rc: $(cat err)"
ok "bad input: exit 2, nothing written"

# documented: --help from the options table, the man page's EXPORT section with the same options
fsb export --help > help.txt || fail "export --help: exit $?"
grep -q -- '--openmetrics=FILE' help.txt || fail "--help lacks --openmetrics: $(cat help.txt)"
man_page=${BUILD:-$(dirname "$FSBENCH")/build}/fsbench.1
if [ -r "$man_page" ]; then
    grep -q '^\.SH EXPORT' "$man_page" && grep -q 'openmetrics' "$man_page" || fail "man page lacks EXPORT/--openmetrics"
    fsb help 2>/dev/null | grep -q export || fsb --help 2>&1 | grep -q export || fail "export not in the command list"
fi
ok "export documented"
