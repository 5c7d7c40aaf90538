#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3560: fsbench matrix runs mdtest (ext4 and xfs loop images, two rounds): every run ok, each
# run's JSON an mdtest result on its cell's filesystem, the report's figures are mdtest's
# rates with its SUMMARY rows in the classic section, the history records it, and -d given to
# the matrix's workload (the matrix supplies the target) is refused.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
need_cmd mkfs.xfs
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"

fsb matrix --fs ext4,xfs --repeat 2 --size 320 --max-other-cpu 100 -o "$SCRATCH/r" --db "$SCRATCH/h.db" \
    -- mdtest -n 300 -F -z 1 -b 2 > out 2> err || fail "matrix exit $?: $(cat err)"
M=$SCRATCH/r/manifest.json
jq -e '.state == "done" and .experiment.workload == "mdtest" and (.runs | length) == 4 and
       ([.runs[].status == "ok"] | all)' "$M" > /dev/null || fail "manifest: $(jq -c '{state, runs: [.runs[].status]}' "$M")"
for i in 0 1 2 3; do
    json=$SCRATCH/r/$(jq -r ".runs[$i].json" "$M")
    cell=$(jq -r ".runs[$i].cell" "$M")
    jq -e --arg fs "$cell" '.workload == "mdtest" and .complete and .operations.file_create.latency.count == 300 and
        .environment.targets[0].fstype == $fs' "$json" > /dev/null ||
        fail "run $i ($cell): $(jq -c '{workload, complete, n: .operations.file_create.latency.count, fs: .environment.targets[0].fstype}' "$json")"
done
R=$SCRATCH/r/report.md
[ -s "$R" ] || fail "no report.md"
grep -q '^| file creation rate | ops/s |' "$R" || fail "report: no file creation rate row"
grep -q '^SUMMARY rate (in ops/sec)' "$R" || fail "report: no mdtest SUMMARY in the classic section"
grep -Eq '^   File creation +[0-9]+\.[0-9]{3}$' "$R" || fail "report: no File creation row"
fsb history --db "$SCRATCH/h.db" list > hl 2>&1 || fail "history list: $(cat hl)"
grep -q ' mdtest ' hl || fail "history: no mdtest experiment: $(cat hl)"
ok "matrix, report and history of mdtest"

fsb matrix --fs ext4 --size 320 -o "$SCRATCH/r2" --no-db -- mdtest -n 10 -d /tmp/x > out 2> err; rc=$?
[ "$rc" = 2 ] || fail "-d in the matrix's workload arguments: exit $rc: $(cat err)"
[ ! -e "$SCRATCH/r2" ] || fail "a refused matrix made its directory"
ok "-d refused: the matrix supplies the target"
