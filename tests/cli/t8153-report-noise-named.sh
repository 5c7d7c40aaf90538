#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8153: noise measured and named in the report (synthetic matrices, lib_matrix.sh):
# - a drift across a cell's runs in run order (cell a's write rate +10 % per run, 8 runs) is a
#   warning with its trend; the cell without one gets none;
# - each run's own warnings (its phases' "warnings") are carried into the report, counted per
#   cell ("N of M runs warned");
# - steal time recorded by the runner (the manifest's cpu.steal_pct) at 5 % or more is said;
# - fs_mark --layout figures measured in some iterations only: the coverage, iterations measured
#   of the total, is said beside them.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
mx_base tiotest base.json
# the base's own warnings (tmpfs, short phases) out: only the ones set below
jq '.phases[].warnings = []' base.json > x.json && mv x.json base.json || fail "jq base"
printf 'a fs=ext4 1.0 0.01\nb fs=xfs 1.0 0.01\n' | mx_make m base.json 41 8 noise
# each loop's files with one jq (a jq costs ~50 ms of CPU), a file's JSON a line, written back
# by the shell: rewrite JQ_PROGRAM FILE...
rewrite() {
    local prog=$1 i; shift
    local -a outs
    mapfile -t outs < <(jq -c "$prog" "$@")
    [ "${#outs[@]}" = $# ] || fail "jq on $*: ${#outs[@]} results"
    for ((i = 1; i <= $#; i++)); do printf '%s\n' "${outs[i - 1]}" > "${!i}" || fail "cannot write ${!i}"; done
}
rewrite '(input_filename | capture("run-(?<r>[0-9]+)[.]json$").r | tonumber) as $r
    | (.phases[] | select(.name == "write") | .rate_mib_per_s) = 100 * pow(1.1; $r)' m/runs/a/run-{1..8}.json
rewrite '(.phases[] | select(.name == "write") | .warnings) = [{id: "cache_absorbed_writes",
        message: "write: the device wrote 1.0 MiB of the 64.0 MiB written (2%) within the phase: the page cache absorbed the rest (use -S or -X)"}]
        | (.phases[] | select(.name == "random_write") | .warnings) = [{id: "short_phase",
        message: "random_write: 0.120 s, shorter than 1 s: start-up and the clock'"'"'s and the scheduler'"'"'s granularity weigh on its figures (give it more work)"}]' \
        m/runs/b/run-1.json m/runs/b/run-3.json
jq '.runs[2].cpu = {busy_pct: 50, own_pct: 20, kthread_pct: 5, other_pct: 10, steal_pct: 12.5}' m/manifest.json > x.json &&
    mv x.json m/manifest.json || fail "jq manifest"
expect_exit 0 fsb report --no-db m > out.txt
W=$(sed -n '/^## Warnings/,/^## /p' m/report.md)
grep -qE '^- cell a: write rate drifts across its 8 runs in run order: \+10\.0 % per run, \+95 % from the first to the last \(Kendall tau \+1\.00, p [0-9.e-]+, Holm over [0-9]+ drift tests\)' <<<"$W" ||
    fail "no drift warning for cell a: $W"
grep -q '^- cell b: .* drifts' <<<"$W" && fail "a drift warning for cell b: $W"
grep -qF -- '- cell b: 2 of 8 runs warned: writes absorbed by the page cache (2 of their 8 phases or iterations), e.g. write: the device wrote 1.0 MiB' <<<"$W" ||
    fail "cell b's run warnings not carried: $W"
grep -qF -- '- cell b: 2 of 8 runs warned: phases (iterations) shorter than 1 s' <<<"$W" || fail "short phases not carried: $W"
grep -q '^- cell a: .* runs warned' <<<"$W" && fail "cell a warned: $W"
grep -qF -- '- 1 of 16 runs lost 5 % or more of the machine'"'"'s CPU to steal time (up to 12.5 %)' <<<"$W" || fail "steal: $W"
jq -e '[.runs[] | .steal_pct] | (map(select(. == 12.5)) | length) == 1' m/summary.json > /dev/null ||
    fail "summary.json: steal: $(jq -c '[.runs[].steal_pct]' m/summary.json)"
grep -qE '^\| [0-9]+ \| a \| 2 \| .* \| 12\.5 \|$' m/report.md || fail "runs table: no steal: $(grep '^| [0-9]* | a | 2 |' m/report.md)"
ok "report: a drift with its trend, the runs' warnings per cell, steal time"

mx_base fs_mark fbase.json
# --layout's figures in the first two of the base's iterations only, as before data is placed
jq '.iterations[].warnings = [] | .iterations |= [to_entries[] | .value + (if .key < 2 then {layout: {extents_per_file: 1.5, one_extent_pct: 50}}
    else {layout: {extents_per_file: null, one_extent_pct: null}} end)]' fbase.json > x.json && mv x.json fbase.json
n=$(jq '.iterations | length' fbase.json)
printf 'a fs=ext4 1.0 0.02\nb fs=xfs 1.0 0.02\n' | mx_make f fbase.json 42 3 fill
expect_exit 0 fsb report --no-db f > /dev/null
grep -qF "cell a: extents per file measured in 6 of $((3 * n)) iterations" f/report.md ||
    fail "no coverage: $(sed -n '/^## Warnings/,/^## /p' f/report.md)"
ok "report: --layout's coverage, iterations measured of the total"
