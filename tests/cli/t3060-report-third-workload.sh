#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3060: a workload report/ does not know is presented by its own presentation file alone
# (HACKING.md, "Add a workload"). The test build's hidden workload testwl (workload/testwl.c,
# report/testwl_text.c) declares its result layout (one step with its latency) and a classic
# table from figures: compare reads its results, plot --type latency draws its step's latency
# (without the layout: "has no latency histograms"), and `fsbench report` on a matrix directory
# of its runs shows its classic table. And no file of report/ (nor compare, plot, report in
# cmd/) names a workload but the workload's own presentation file.
. "$(dirname "$0")/lib.sh"
need_cmd jq
use_test_build
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH
cd "$SCRATCH" || fail "cd"

# the rule, on the sources when they are here
src=$TESTS_DIR/../src
if [ -d "$src/report" ]; then
    bad=$(grep -nE '"(tiotest|fs_mark|mdtest|testwl)"' "$src"/report/*.c "$src"/cmd/compare.c \
        "$src"/cmd/plot.c "$src"/cmd/report.c | grep -vE '^[^:]*/report/(tiotest|fs_mark|mdtest|testwl)_text\.c:')
    [ -z "$bad" ] || fail "report/ names a workload outside its presentation file: $bad"
    ok "report/ names no workload outside the workloads' presentation files"
fi

fsb testwl -n 20000 --repeat 3 --quiet --json a.json > /dev/null || fail "testwl a: exit $?"
fsb testwl -n 40000 --repeat 3 --quiet --json b.json > /dev/null || fail "testwl b: exit $?"
[ "$(jq -r '.runs[0].steps[0].name' a.json)" = spin ] || fail "a.json: no step"

fsb compare a.json b.json > cmp.txt 2> cmp.err || fail "compare: exit $?: $(cat cmp.err)"
grep -q '^Comparing 2 testwl results' cmp.txt || fail "compare: $(head -3 cmp.txt)"
grep -Eq '^ops/s +ops/s ' cmp.txt && grep -Eq '^latency mean ' cmp.txt || fail "compare figures: $(cat cmp.txt)"
ok "compare reads testwl's results"

fsb plot --type latency -o lat.svg a.json b.json 2> plot.err || fail "plot latency: exit $?: $(cat plot.err)"
[ -s lat.svg ] || fail "lat.svg empty"
fsb plot --type compare -o cmp.svg a.json b.json 2> plot.err || fail "plot compare: exit $?: $(cat plot.err)"
[ -s cmp.svg ] || fail "cmp.svg empty"
ok "plot draws testwl's step latency (its layout) and its figures"

# a matrix directory (what `fsbench matrix -o m` writes) of two cells, two runs each
mkdir -p m/runs/small m/runs/big || fail "mkdir"
runs="[]" k=0
for r in 1 2; do
    for c in small big; do
        n=20000
        [ $c = big ] && n=40000
        fsb testwl -n $n --quiet --json "m/runs/$c/run-$r.json" > /dev/null || fail "testwl $c $r"
        runs=$(jq -c --arg c $c --argjson r $r --argjson o $k --arg j "runs/$c/run-$r.json" \
            --arg s "2026-01-01T00:0$k:00Z" --arg e "2026-01-01T00:0$k:30Z" \
            '. + [{cell: $c, repeat: $r, order: $o, started_at: $s, ended_at: $e, json: $j, exit_status: 0,
                   other_cpu_pct: 1.5, other_cpu_flag: false}]' <<<"$runs")
        k=$((k + 1))
    done
done
jq -n --argjson runs "$runs" '
    {schema: "fsbench-matrix", version: 1,
     experiment: {name: "third", axes: [{name: "ops", values: ["small", "big"]}],
                  cells: [{name: "small", axes: {ops: "small"}, config: {cell: "small"}, config_hash: "h-small"},
                          {name: "big", axes: {ops: "big"}, config: {cell: "big"}, config_hash: "h-big"}],
                  workload: "testwl", workload_args: ["-n", "20000"]},
     kernel_release: "6.1.0-test", host: "testhost", fsbench_version: "0.1.0",
     target: {kind: "image", size_bytes: 1073741824}, undo: [], runs: $runs}' > m/manifest.json || fail "manifest"
fsb report --no-db m > rep.txt 2> rep.err || fail "report: exit $?: $(cat rep.err)"
grep -Eq '^third: testwl, 2 cells, 4 of 4 runs used$' rep.txt || fail "report summary: $(cat rep.txt)"
grep -Eq '^testwl classic: [0-9.]+ ops/s, latency mean 500\.5 ns$' m/report.md ||
    fail "report.md: not testwl's classic table: $(grep -n -A3 -i classic m/report.md | head -20)"
grep -q 'testwl classic: ' m/report.html || fail "report.html: not testwl's classic table"
ok "report shows testwl's classic table from its figures"
