#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0340: every kind of JSON the CLI writes validates against its JSON Schema in doc/schema
# (python3-jsonschema, draft 7): tiotest and fs_mark results (one run, and --repeat's runs),
# a matrix's manifest.json, its run files and report's summary.json. The schemas have teeth: a
# result with a wrong type in the environment, or without its environment, does not validate.
. "$(dirname "$0")/lib.sh"
need_cmd jq
need_jsonschema
S=$TESTS_DIR/../doc/schema
mkdir -p d fm

fsb tiotest -t 2 -f 2 -r 50 -d d --quiet --json t1.json > out 2> err || fail "tiotest: $(cat err)"
fsb tiotest -t 1 -f 1 -r 20 -d d --quiet --repeat 2 --json t2.json > out 2> err || fail "tiotest --repeat: $(cat err)"
fsb fs_mark -d fm -t 1 -n 20 -s 4096 -L 2 --json f1.json > out 2> err || fail "fs_mark: $(cat err)"
fsb fs_mark -d fm -t 2 -n 10 -s 0 -L 1 --repeat 2 --stat --json f2.json > out 2> err || fail "fs_mark --repeat: $(cat err)"
schema_valid "$S/result-tiotest.schema.json" t1.json t2.json
schema_valid "$S/result-fs_mark.schema.json" f1.json f2.json

# teeth: a wrong type, a missing environment, the other workload's schema (checked with the
# above and the matrix's files in one Python: half a second of CPU a batch); both broken
# documents from one jq
mapfile -t bad < <(jq -c -n --slurpfile t t1.json --slurpfile f f1.json \
    '($t[0] | .environment.targets[0].fstype = 5), ($f[0] | del(.environment))')
[ ${#bad[@]} = 2 ] || fail "jq: the broken results"
printf '%s\n' "${bad[0]}" > bad1.json
printf '%s\n' "${bad[1]}" > bad2.json
schema_invalid "$S/result-tiotest.schema.json" bad1.json   # a number as fstype
schema_invalid "$S/result-fs_mark.schema.json" bad2.json    # a result without environment
schema_invalid "$S/result-fs_mark.schema.json" t1.json      # a tiotest result as fs_mark
results_checked() {
    ok "tiotest and fs_mark results validate"
    ok "the schemas reject broken results"
}

if ! { [ "$(id -u)" = 0 ] && command -v mkfs.ext4 > /dev/null; }; then
    schema_checks "tiotest and fs_mark results, broken results"
    results_checked
    skip "the matrix part needs root and mkfs.ext4"
fi
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
fsb matrix --fs ext4 --mount-opts defaults --mount-opts noatime --repeat 1 --size 320 \
    --max-other-cpu 100 -o "$SCRATCH/m" -- tiotest -t 1 -f 2 -r 50 > out 2> err || fail "matrix: $(cat err)"
schema_valid "$S/matrix-manifest.schema.json" m/manifest.json
schema_valid "$S/matrix-summary.schema.json" m/summary.json
schema_valid "$S/result-tiotest.schema.json" m/runs/*/*.json
schema_checks "tiotest and fs_mark results, broken results; a matrix's manifest, summary and run files"
results_checked
ok "a matrix's manifest, summary and run files validate"
