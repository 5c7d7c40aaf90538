#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t2700: fs_mark --repeat, --label and the create loop's time series. Three runs each print the
# classic output as a single run does, then a summary of the runs (mean ± 95% interval and CV
# per figure, on '#' lines); the JSON keeps every run under "runs" (one run stays at the top
# level), the label, and per iteration "intervals" whose ops add up to the files created.
# -k keeps only the last run's files; an unwritable --json is refused before anything runs.
. "$(dirname "$0")/lib.sh"
need_cmd jq
T=$(mktemp -d /dev/shm/fsbench-t2700.XXXXXX 2>/dev/null) || T=$(mktemp -d "$SCRATCH/t.XXXXXX")
trap '_lib_cleanup; rm -rf "$T"' EXIT
cd "$SCRATCH" || fail "cd"

fsb fs_mark -d "$T/a" -t 2 -n 2000 -s 512 -S 0 -L 2 --repeat 3 --label 'kmemleak=on' --json r.json -l log \
    > out 2> err || fail "run: $(cat err)"
[ ! -s err ] || [ -z "$(not_warnings err)" ] || fail "stderr not empty: $(cat err)"
# every run prints the header block and its rows, as a single run does
[ "$(grep -c '^#  fs_mark ' out)" = 3 ] || fail "expected 3 header blocks: $(cat out)"
[ "$(grep -c '^FSUse%        Count         Size    Files/sec     App Overhead$' out)" = 3 ] || fail "column headers"
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +512 +[0-9.]+ +[0-9]+$' out)" = 6 ] || fail "expected 6 classic rows: $(cat out)"
[ "$(grep -c '^#  fs_mark ' log)" = 3 ] || fail "the log has not every run's header"
grep -q '^#	Summary of 3 runs: mean ± 95% confidence interval (coefficient of variation)$' out || fail "no summary: $(cat out)"
for f in 'Files/sec' 'Agg Files/sec' 'App Overhead' 'CREAT p99'; do
    grep -Eq "^#	$f +[0-9.]+ ± [0-9.]+ +[a-z/]+ +\(CV +[0-9.]+%, n=3\)$" out || fail "summary line '$f': $(grep Summary -A6 out)"
done
ok "3 runs printed, summary with 4 figures"

# the three checks of r.json in one jq (the diagnostics only on a failure); the time series:
# present, the ops add up to the files of the iteration, times increase
jq_read v r.json '.label == "kmemleak=on" and .config.repeat == 3 and (.runs | length) == 3 and (has("iterations") | not)' \
    '[.runs[] | ([.iterations[].iteration] == [1, 2]) and (.iterations | length) == 2 and .end.reason == "done" and .summary.iterations == 2
        and .summary.files == 8000] | all' \
    '[.runs[].iterations[] | (.intervals | length) >= 2 and .interval_ns > 0
        and ([.intervals[].ops] | add) == .files and .files == 4000
        and ([.intervals[].t_ns] | . == sort)
        and ([.intervals[] | .p50_ns <= .p99_ns] | all)] | all'
[ "${v[0]}" = true ] || fail "runs/label: $(jq -c '{label, config, n: (.runs | length)}' r.json)"
[ "${v[1]}" = true ] || fail "per-run iterations/end/summary"
[ "${v[2]}" = true ] ||
    fail "intervals: $(jq -c '.runs[0].iterations[0] | {files, interval_ns, intervals}' r.json | head -c 600)"
ok "JSON: label, runs[3], intervals summing to the files created"

# fresh files each run: -L keeps files, so only the last run's 2 x 2000 x 2 stay
left=$(find "$T/a" -type f | wc -l)
[ "$left" = 8000 ] || fail "$left files kept, expected the last run's 8000"
rm -rf "$T/a"

# a single run: the run is the top level, label null; compare and plot read both shapes
fsb fs_mark -d "$T/b" -t 2 -n 2000 -s 512 -S 0 --json one.json -l log > out1 2> err || fail "single run: $(cat err)"
jq -e '.label == null and (has("runs") | not) and (.iterations | length) == 1 and .end.reason == "done"
       and (.iterations[0].intervals | length) >= 1' one.json >/dev/null || fail "single-run JSON shape"
grep -q 'Summary of' out1 && fail "a summary of runs for a single run"
[ ! -e "$T/b" ] || fail "files left behind by a single run"
fsb compare r.json one.json > cmp 2> err || fail "compare: $(cat err)"
grep -q '^files/sec ' cmp || fail "compare has no files/sec row: $(cat cmp)"
ok "single run at the top level; compare reads both"

# -k with --repeat: only the last run's files stay
fsb fs_mark -d "$T/k" -n 300 -s 0 -S 0 -k --repeat 2 -l log --quiet > /dev/null 2> err || fail "-k: $(cat err)"
[ "$(find "$T/k" -type f | wc -l)" = 300 ] || fail "-k --repeat 2 kept $(find "$T/k" -type f | wc -l) files, expected 300"

# an unwritable --json destination: exit 2, nothing created
expect_exit 2 fsb fs_mark -d "$T/never" -n 10 -s 0 -S 0 -l log --json /nonexistent-dir/r.json 2> err
grep -q 'option --json: cannot write' err || fail "message: $(cat err)"
[ ! -e "$T/never" ] || fail "the run started despite the --json destination"
ok "-k keeps the last run only; unwritable --json refused first"
