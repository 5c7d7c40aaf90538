#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0370: every kind of JSON fsbench writes validates against its schema in doc/schema, beyond
# t0340's results, manifest and summary: --stream lines (tiotest, fs_mark, an interrupted run,
# fsbench-mpi's job lines), fsbench-mpi's results (the "mpi" object: mpi-job.schema.json, which
# the result schemas refer to), compare --json, an interrupted run's result, matrix --after's
# after-run-K.json and fsbench __after --json (after.schema.json). Each new schema rejects a
# broken document. (The history database has no JSON export; the environment record is the
# results' "environment".) Before, these kinds had no schema.
. "$(dirname "$0")/lib.sh"
need_cmd jq
need_jsonschema
S=$TESTS_DIR/../doc/schema
valid() { schema_valid "$@"; }       # valid [--lines] SCHEMA FILE...: each validates (queued)
invalid() { schema_invalid "$@"; }   # invalid [--lines] SCHEMA FILE: does not validate (queued)
mkdir -p d fm
# the schema checks are queued and run in one Python at the end (or before the skip of the
# matrix part): each batch cost half a second of CPU; parts lists what they checked
parts=()
checked() {
    local p
    schema_checks "${parts[*]}"
    for p in "${parts[@]}"; do ok "$p"; done
}
# bad_docs FILE NAME EXPR...: writes the result of each jq EXPR on FILE's document to NAME1,
# NAME2 ... (one jq for them all)
bad_docs() {
    local f=$1 n=$2 i=1 doc docs prog=
    shift 2
    for doc in "$@"; do prog+="${prog:+, }($doc)"; done
    mapfile -t docs < <(jq -c "$prog" "$f") && [ ${#docs[@]} = $# ] || fail "jq $prog $f"
    for doc in "${docs[@]}"; do printf '%s\n' "$doc" > "$n$i"; i=$((i + 1)); done
}

# --stream lines, and an interrupted run's result and lines
fsb tiotest -t 2 -f 4 -r 200 -d d --quiet --interval 50ms --stream t.jsonl --json t.json > out 2> err || fail "tiotest: $(cat err)"
fsb fs_mark -d fm -t 1 -n 200 -s 4096 -L 2 --interval 50ms --stream f.jsonl --json f.json > out 2> err || fail "fs_mark: $(cat err)"
"$FSBENCH" tiotest -t 1 -f 1 -r 50000000 -d d --quiet --interval 50ms --stream i.jsonl --json i.json > out 2> err &
pid=$!
trap 'kill -KILL $pid 2> /dev/null; _lib_cleanup' EXIT
for i in $(seq 300); do [ -e i.jsonl ] && mapfile -t l < i.jsonl && [ ${#l[@]} -ge 3 ] && break; nap 0.1; done
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] || fail "interrupted tiotest: exit $rc: $(cat err)"
trap _lib_cleanup EXIT
[ "$(jq .complete i.json)" = false ] || fail "the interrupted result is complete: $(cat err; ls; cat i.jsonl)"
for f in t.jsonl f.jsonl i.jsonl; do
    [ -s $f ] || fail "$f is empty"
done
valid --lines "$S/stream.schema.json" t.jsonl f.jsonl i.jsonl
valid "$S/result-tiotest.schema.json" t.json i.json
valid "$S/result-fs_mark.schema.json" f.json
read -r l < t.jsonl
bad_docs <(printf '%s\n' "$l") bad '.ops = -1' '.extra = 1' 'del(.phase)'
for b in bad1 bad2 bad3; do invalid --lines "$S/stream.schema.json" $b; done

# compare --json: tiotest, fs_mark (--repeat: the tests and their intervals); checked with the
# above in one Python
fsb tiotest -t 1 -f 2 -r 50 -d d --quiet --repeat 2 --json t2.json > out 2> err || fail "tiotest --repeat: $(cat err)"
fsb compare --json c1.json t.json t2.json i.json > out 2> err || fail "compare: $(cat err)"
fsb fs_mark -d fm -t 1 -n 50 -s 4096 -L 2 --repeat 2 --json f2.json > out 2> err || fail "fs_mark --repeat: $(cat err)"
fsb fs_mark -d fm -t 1 -n 50 -s 4096 -L 2 --repeat 2 --json f3.json > out 2> err || fail "fs_mark --repeat: $(cat err)"
fsb compare --json c2.json --fail-if-worse 1000 f2.json f3.json > out 2> err || fail "compare fs_mark: $(cat err)"
valid "$S/compare.schema.json" c1.json c2.json
bad_docs c1.json cbad '.figures[0].deltas[0].verdict = 3'
bad_docs c2.json cbad2 'del(.results)'
invalid "$S/compare.schema.json" cbad1
invalid "$S/compare.schema.json" cbad21
invalid "$S/compare.schema.json" t.json
parts+=("--stream lines and an interrupted run's result validate; broken lines do not"
    "compare --json validates; broken comparisons do not")

# fsbench-mpi: the job's result (its "mpi" object) and --stream's job lines
if [ -x "$FSBENCH_MPI" ] && command -v mpirun > /dev/null; then
    need_mpi
    mkdir -p md mfm
    mpi 2 tiotest -t 1 -f 2 -r 100 -d md --quiet --interval 50ms --stream mt.jsonl --json mt.json > out 2> err ||
        fail "fsbench-mpi tiotest: $(cat err)"
    mpi 2 fs_mark -d mfm -t 1 -n 50 -s 4096 -L 2 --json mf.json > out 2> err || fail "fsbench-mpi fs_mark: $(cat err)"
    read -r l < mt.jsonl
    # the broken documents, and each job's "mpi" object ("no mpi object": not 2 ranks in it)
    printf '[%s,%s,%s]\n' "$(< mt.json)" "$(< mf.json)" "$l" > mall.json
    bad_docs mall.json mbad '.[0].mpi.nranks' '.[1].mpi.nranks' '.[0] | .mpi.ranks[0].clock_offset_ns = "0"' \
        '.[1] | del(.mpi.hosts)' '.[2] | .ranks[0].rank = -1'
    read -r n1 < mbad1 && read -r n2 < mbad2 && [ "$n1" = 2 ] && [ "$n2" = 2 ] || fail "no mpi object"
    valid "$S/result-tiotest.schema.json" mt.json
    valid "$S/result-fs_mark.schema.json" mf.json
    valid --lines "$S/stream.schema.json" mt.jsonl
    invalid "$S/result-tiotest.schema.json" mbad3
    invalid "$S/result-fs_mark.schema.json" mbad4
    invalid --lines "$S/stream.schema.json" mbad5
    parts+=("fsbench-mpi's results and job lines validate; broken ones do not")
else
    echo "skip part: fsbench-mpi not built ($FSBENCH_MPI)"
fi

# matrix --after: after-run-K.json; fsbench __after --json (one check)
[ "$(id -u)" = 0 ] && command -v mkfs.ext4 > /dev/null && command -v e2fsck > /dev/null ||
    { checked; skip "the matrix part needs root, mkfs.ext4 and e2fsck"; }
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
fsb matrix --fs ext4 --mount-opts defaults --mount-opts noatime --repeat 1 --size 320 --after fsck,freespace \
    --max-other-cpu 100 --no-db -o "$SCRATCH/m" -- fs_mark -t 1 -n 50 -s 4096 > out 2> err || fail "matrix: $(cat err)"
ls m/runs/*/after-run-*.json > afters || fail "no after files: $(ls -R m)"
[ "$(wc -l < afters)" = 2 ] || fail "after files: $(cat afters)"
valid "$S/after.schema.json" $(cat afters)
valid "$S/matrix-manifest.schema.json" m/manifest.json
valid "$S/matrix-summary.schema.json" m/summary.json
valid "$S/result-fs_mark.schema.json" $(ls m/runs/*/*.json | grep -v after)
img=$SCRATCH/a.img
truncate -s 64M "$img" && mkfs.ext4 -q -F "$img" > /dev/null 2>&1 || fail "mkfs.ext4 $img"
fsb __after fsck "$img" ext4 --json af.json > out 2> err || fail "__after fsck: $(cat err)"
fsb __after freespace "$img" ext4 --json ar.json > out 2> err || fail "__after freespace: $(cat err)"
valid "$S/after.schema.json" af.json ar.json
a=$(head -1 afters)
bad_docs "$a" abad '.fsck.verdict = "fine"' '.freespace.histogram[0].extents = "many"' 'del(.cell)'
for b in abad1 abad2 abad3; do invalid "$S/after.schema.json" $b; done
parts+=("matrix --after's files and __after --json validate; broken ones do not")
checked
