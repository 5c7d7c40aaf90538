#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3520: fsbench mdtest --json: the declared figures (each operation's rate, the SUMMARY rate's
# Mean, and its p50/p99 latency), totals exact (items x iterations in the latency counts, items
# per iteration), the tables as printed, --repeat's runs, compare on two results, and no file
# left behind.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
D=$SCRATCH/d

# -n 20 over a tree of 3 directories (-z 1 -b 2): 6 per directory, 18 items, 3 iterations
fsb mdtest -n 20 -i 3 -z 1 -b 2 -w 64 -e 64 -d "$D" --json "$SCRATCH/r.json" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "run: exit $?: $(cat "$SCRATCH/err")"
[ ! -e "$D" ] || fail "-d left behind"
J=$SCRATCH/r.json
# every figure with one jq (a jq costs ~50 ms of CPU; a jq per check was most of the test's CPU)
OPS="dir_create dir_stat dir_remove file_create file_stat file_read file_remove"
exprs=()
for op in $OPS; do
    exprs+=("\"$op\" as \$op | .operations[\$op].latency.count == 54 and ([.iterations[][\$op].items] == [18,18,18])"
        "\"$op\" as \$op | .operations[\$op] | (.rate_per_s > 0) and (.latency_p50_ns > 0) and (.latency_p99_ns >= .latency_p50_ns)"
        "\"$op\" as \$op | (.operations[\$op].rate_per_s - .summary.rate_per_s[\$op].mean | fabs) < 1e-6 and
        (([.iterations[][\$op].rate_per_s] | add / 3) - .summary.rate_per_s[\$op].mean | fabs) < 1e-3")
done
jq_read v "$J" '.workload == "mdtest" and .complete == true and .tasks == 1 and .items_per_task == 18 and
       .tree_directories == 3 and (.iterations | length) == 3' "${exprs[@]}" \
    '.operations.dir_rename.latency.count == 54 and .operations.tree_create.latency.count == 9 and
       .operations.tree_remove.latency.count == 9' \
    '.operations | has("dir_read") | not' \
    '.summary.rate_per_s.file_create.mean | tostring'
[ "${v[0]}" = true ] || fail "head: $(jq -c '{workload,complete,tasks,items_per_task}' "$J")"
i=1
for op in $OPS; do
    [ "${v[i]}" = true ] ||
        fail "$op: not 18 items x 3 iterations: $(jq -c --arg op "$op" '.operations[$op].latency.count' "$J")"
    [ "${v[i + 1]}" = true ] || fail "$op: figures: $(jq -c --arg op "$op" '.operations[$op] | del(.latency)' "$J")"
    # the figure is the table's Mean, the Mean the mean of the iterations' rates
    [ "${v[i + 2]}" = true ] || fail "$op: rate figure is not the SUMMARY Mean"
    i=$((i + 3))
done
# the rename rotates 18 names: 18 renames; the tree: 3 directories made and removed per iteration
[ "${v[i]}" = true ] || fail "rename and tree counts"
[ "${v[i + 1]}" = true ] || fail "a dir_read figure (mdtest does not show it)"
# the printed Mean is the JSON's to its 3 decimals (compared as numbers: rounding the JSON's
# again, as jq's round of x 1000 did, can land on the other side of a ...5 that printf's %.3f
# of the double did not: CI printed 102841.662 against a rounded 102841.661)
mean=$(awk '/^   File creation/ { print $5 }' "$SCRATCH/out")
awk -v p="$mean" -v m="${v[i + 2]}" 'BEGIN { d = p - m; exit !(p != "" && d <= 0.0005 + 1e-9 && -d <= 0.0005 + 1e-9) }' ||
    fail "printed Mean $mean is not the JSON's ${v[i + 2]}"
ok "figures, totals and tables"

# the declarations: rates primary for the item operations, latencies lower-better
fsb __man-options --figures > "$SCRATCH/figs" 2>/dev/null || true
fsb compare "$J" "$J" > "$SCRATCH/cmp" 2> "$SCRATCH/err" || fail "compare: $(cat "$SCRATCH/err")"
grep -q 'file creation rate' "$SCRATCH/cmp" || fail "compare does not show the file creation rate: $(head -20 "$SCRATCH/cmp")"
ok "compare reads it"

fsb mdtest -n 6 -F --repeat 2 -d "$D" --json "$SCRATCH/r2.json" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "--repeat: exit $?: $(cat "$SCRATCH/err")"
jq -e '(.runs | length) == 2 and ([.runs[].operations.file_create.latency.count] == [6, 6]) and
       .runs[0].operations.dir_create.rate_per_s == null' "$SCRATCH/r2.json" > /dev/null || fail "--repeat runs"
[ "$(grep -c '^SUMMARY rate' "$SCRATCH/out")" = 2 ] || fail "--repeat: not two SUMMARY tables"
grep -q '^Summary of 2 runs' "$SCRATCH/out" || fail "--repeat: no summary of the runs"
[ ! -e "$D" ] || fail "-d left behind"
ok "--repeat"

fsb mdtest -n 4 -d "$D" --json - > "$SCRATCH/out" 2> "$SCRATCH/err" || fail "--json -: exit $?"
jq -e '.workload == "mdtest"' "$SCRATCH/out" > /dev/null || fail "--json -: stdout is not the JSON alone"
ok "--json - owns stdout"

# the schema (doc/schema/result-mdtest.schema.json), with teeth
need_jsonschema "the schema was not checked"
S=$TESTS_DIR/../doc/schema
schema_valid "$S/result-mdtest.schema.json" "$J" "$SCRATCH/r2.json"
jq '.environment = 5' "$J" > bad.json
schema_invalid "$S/result-mdtest.schema.json" bad.json   # a wrong environment
schema_invalid "$S/result-fs_mark.schema.json" "$J"      # an mdtest result as fs_mark
schema_checks
ok "schema"
