#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8040: a matrix directory is outside input. A manifest that is not JSON, of another schema or
# version, with a run path outside the directory (.., absolute), a run of an unknown cell, a
# cell without a value for an axis or with one the axis lacks, two cells of the same name: exit 2,
# one line naming the problem, nothing written. A run whose file is missing, not a result, of
# another workload, incomplete, or whose exit status is not 0: left out with a warning, the
# report written from the others.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
export HOME=$SCRATCH
mx_base tiotest base.json
mx_make good base.json 4 3 hostile <<'C'
a fs=ext4 1.0 0.03
b fs=xfs 1.0 0.03
C

# bad MANIFEST-JQ-FILTER WHAT: the report refuses, exit 2, the message names WHAT, no file written.
# The 13 manifests come from one jq (a jq each before: ~56 ms of CPU a start), one a line in
# the cases' order; the message and the directory are read by the shell.
cases=(
    '.schema = "other"' 'not an fsbench matrix manifest'
    '.version = 2' 'version'
    '.runs[0].json = "../../etc/passwd"' 'not a path inside the directory'
    '.runs[0].json = "/etc/passwd"' 'not a path inside the directory'
    '.runs[0].json = "runs/./a/run-1.json"' 'not a path inside the directory'
    '.runs[0].cell = "zzz"' "cell 'zzz' is not one of experiment.cells"
    '.experiment.cells[0].axes = {}' "no value for axis 'fs'"
    '.experiment.cells[0].axes.fs = "zfs"' "'zfs' is not a value of axis 'fs'"
    '.experiment.cells[1].name = "a"' "cell 'a' twice"
    '.experiment.cells[1].axes.fs = "ext4"' 'have the same axis values'
    '.experiment.axes = "fs"' 'experiment.axes'
    '.runs[0].other_cpu_flag = "yes"' 'other_cpu_flag is not a boolean'
    '.runs = {}' 'runs is missing'
)
prog=
for ((i = 0; i < ${#cases[@]}; i += 2)); do prog+="${prog:+, }(${cases[i]})"; done
mapfile -t manifests < <(jq -c "$prog" good/manifest.json)
[ ${#manifests[@]} = $((${#cases[@]} / 2)) ] || fail "jq: ${#manifests[@]} manifests for $((${#cases[@]} / 2)) filters"
bad() {
    local e f
    rm -rf x && cp -r good x || fail "cp"
    printf '%s\n' "${manifests[$3]}" > x/manifest.json
    expect_exit 2 fsb report --no-db x 2> e.txt
    e=; IFS= read -r -d '' e < e.txt
    [[ $e == *"$2"* ]] || fail "$1: message '$(cat e.txt)' lacks '$2'"
    f=(x/*)
    [ "${f[*]}" = "x/manifest.json x/runs" ] || fail "$1: written: $(ls x)"
}
for ((i = 0; i < ${#cases[@]}; i += 2)); do bad "${cases[i]}" "${cases[i + 1]}" $((i / 2)); done
rm -rf x && cp -r good x && echo '{"schema": "fsbench-matrix", "version": 1,' > x/manifest.json
expect_exit 2 fsb report --no-db x 2> e.txt
grep -q 'manifest.json: line' e.txt || fail "truncated JSON: $(cat e.txt)"
ok "bad manifests: exit 2, the problem named, nothing written"

rm -rf y && cp -r good y || fail "cp"
rm y/runs/a/run-1.json
echo 'not json' > y/runs/a/run-2.json
jq '.runs |= map(if .cell == "b" and .repeat == 1 then .exit_status = 1 else . end)' good/manifest.json > y/manifest.json
jq '.complete = false | .stop_reason = "signal"' good/runs/b/run-2.json > y/runs/b/run-2.json
fsb report --no-db y > out.txt 2> err.txt || fail "left-out runs: exit $?: $(cat err.txt)"
grep -q '^hostile: tiotest, 2 cells, 2 of 6 runs used' out.txt || fail "runs used: $(head -1 out.txt)"
jq -e '[.runs[] | select(.used | not) | .problem] | length == 4 and (map(test("unreadable|exit status 1|incomplete")) | all)' \
    y/summary.json > /dev/null || fail "problems: $(jq -c '[.runs[].problem]' y/summary.json)"
[ "$(jq '.warnings | length' y/summary.json)" -ge 4 ] || fail "warnings: $(jq -c .warnings y/summary.json)"
grep -q 'ended with exit status 1: left out' y/report.md || fail "no warning in the report"
ok "bad runs: left out with a warning each, the report written from the others"
