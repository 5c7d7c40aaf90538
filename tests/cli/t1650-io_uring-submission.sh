#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1650: submission time with the io_uring engine (issue 12): the time inside the calls that
# hand requests to the kernel (io_uring_submit), per tiotest phase and per fs_mark iteration and
# phase, in the JSON's "submission" object; absent (not zeros) for psync and mmap.
# - tiotest on tmpfs at depths 1 and 32: every phase has it; its SQEs are at least the phase's
#   transfers plus each thread's end-of-phase fsync; at depth 1 one request per call, at depth 32
#   fewer calls than requests; total_ns > 0, min <= p50 <= p99 <= max, mean = total / calls, the
#   buckets count the calls, 0 < share_of_latency <= 1 and it is requests_in_submit_ns over
#   requests_latency_ns, negligible says whether it is below 1 %;
# - fs_mark on tmpfs at depths 1 and 32 (-S 1, --stat, --read): per phase the SQEs are exactly
#   the ring operations the engine counted (ring_ops), a create chain of 5 requests per file goes
#   in one call, the same bounds as above;
# - --sysstats: the submission table with io_uring, none with psync;
# - fsbench-mpi (when built): 2 ranks, the job's submission (and io_wq, ring_ops) merged from both.
# No timing figure is asserted: only counts, orders and bounds that hold on any machine.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR"
SKIPPED=

"$FSBENCH" tiotest --engine io_uring -t 1 -f 1 -r 10 -d "$DIR" > /dev/null 2> "$SCRATCH/err"; rc=$?
[ $rc = 3 ] && skip "io_uring cannot run here: $(cat "$SCRATCH/err")"
[ $rc = 0 ] || fail "io_uring smoke run: exit $rc: $(cat "$SCRATCH/err")"

# what holds for any submission object: . is the object
BOUNDS='(.calls >= 1 and .sqes >= 1 and .total_ns > 0 and .min_ns <= .p50_ns and .p50_ns <= .p99_ns and
    .p99_ns <= .max_ns and .max_ns <= .total_ns and (.mean_ns * .calls - .total_ns | fabs) <= .calls and
    .requests_latency_ns > 0 and .share_of_latency > 0 and .share_of_latency <= 1 and
    ((.requests_in_submit_ns / .requests_latency_ns) - .share_of_latency | fabs) < 1e-6 and
    .negligible == (.share_of_latency < 0.01))'

# tiotest: 2 threads x 512 blocks of 4 KiB, 300 random ops per thread
for depth in 1 32; do
    f=$SCRATCH/t$depth.json
    "$FSBENCH" tiotest --engine io_uring --iodepth $depth -t 2 -f 2 -r 300 -d "$DIR" --json "$f" \
        > /dev/null 2> "$SCRATCH/err" || fail "tiotest depth $depth: exit $?: $(cat "$SCRATCH/err")"
    # one jq a run (a jq costs ~50 ms of CPU); a failure's diagnostic reads more
    jq_read v "$f" '[.phases[].ops] == [1024, 600, 1024, 600]' '.phases | length == 4 and all(has("submission"))' \
        "$depth as \$d | .phases | all(. as \$p | .submission | $BOUNDS and
        .sqes >= \$p.ops + 2 and ([.buckets[][2]] | add) == .calls and
        (if \$d == 1 then .calls >= .sqes else .calls < .sqes end))"
    [ "${v[0]}" = true ] || fail "tiotest depth $depth: ops $(jq -c '[.phases[].ops]' "$f")"
    [ "${v[1]}" = true ] || fail "tiotest depth $depth: no submission object: $(jq -c '[.phases[] | keys]' "$f")"
    [ "${v[2]}" = true ] ||
        fail "tiotest depth $depth: submission: $(jq -c '.phases[] | {name, ops, s: (.submission | del(.buckets))}' "$f")"
    no_files "$DIR"
done
ok "tiotest io_uring depths 1 and 32: submission per phase, sqes >= requests, bounds, share in (0, 1]"

for e in psync mmap; do
    "$FSBENCH" tiotest --engine $e -t 2 -f 1 -r 100 -d "$DIR" --json "$SCRATCH/$e.json" > /dev/null 2> "$SCRATCH/err" ||
        fail "tiotest $e: exit $?: $(cat "$SCRATCH/err")"
    jq -e '.phases | length == 4 and all(has("submission") | not)' "$SCRATCH/$e.json" > /dev/null ||
        fail "tiotest $e has a submission object: $(jq -c '[.phases[].submission]' "$SCRATCH/$e.json")"
done
ok "tiotest psync, mmap: no submission object"

# fs_mark: 2 threads x 50 files of 8192 bytes in 4096-byte writes: per file openat, 2 writes,
# fsync, close in one chain; statx; openat, 3 reads (the last one at the end), close; unlinkat
F=100
for depth in 1 32; do
    f=$SCRATCH/f$depth.json
    "$FSBENCH" fs_mark -d "$DIR/f" -l "$SCRATCH/log" -n 50 -t 2 -s 8192 -w 4096 -S 1 --stat --read \
        --engine io_uring --iodepth $depth --json "$f" > /dev/null 2> "$SCRATCH/err" ||
        fail "fs_mark depth $depth: exit $?: $(cat "$SCRATCH/err")"
    jq_read v "$f" "$F as \$F | .iterations[0] | .files == \$F and (.submission | keys) == [\"create\", \"read\", \"stat\", \"unlink\"]" \
        "$F as \$F | .iterations[0] | . as \$it | .submission | (to_entries | all(.key as \$k | .value |
        $BOUNDS and .sqes == (\$it.ring_ops[\$k] | add))) and .create.sqes >= 5 * \$F and .create.calls <= \$F and
        .stat.sqes >= \$F and .read.sqes >= 5 * \$F and .unlink.sqes >= \$F"
    [ "${v[0]}" = true ] || fail "fs_mark depth $depth: $(jq -c '.iterations[0] | {files, submission}' "$f")"
    [ "${v[1]}" = true ] || fail "fs_mark depth $depth: submission: $(jq -c '.iterations[0] | {ring_ops, submission}' "$f")"
    [ ! -e "$DIR/f" ] || fail "fs_mark depth $depth: files left"
done
"$FSBENCH" fs_mark -d "$DIR/f" -l "$SCRATCH/log" -n 20 -t 2 --stat --json "$SCRATCH/fp.json" > /dev/null 2> "$SCRATCH/err" ||
    fail "fs_mark psync: exit $?: $(cat "$SCRATCH/err")"
jq -e '.iterations[0] | has("submission") | not' "$SCRATCH/fp.json" > /dev/null ||
    fail "fs_mark psync has a submission object: $(jq -c '.iterations[0].submission' "$SCRATCH/fp.json")"
ok "fs_mark io_uring depths 1 and 32: submission per phase, sqes == ring ops, a chain per call; none with psync"

# --sysstats: one row per phase with io_uring; the classic tables stay what they are (t1100)
"$FSBENCH" tiotest --engine io_uring --iodepth 8 -t 1 -f 1 -r 100 -d "$DIR" --sysstats --quiet > "$SCRATCH/out" 2>&1 ||
    fail "--sysstats: $(cat "$SCRATCH/out")"
grep -q '^io_uring submission per phase' "$SCRATCH/out" &&
    [ "$(grep -Ec '^(Write|Random Write|Read|Random Read) +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{3} +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]{2}$' "$SCRATCH/out")" = 4 ] ||
    fail "--sysstats submission table: $(cat "$SCRATCH/out")"
"$FSBENCH" fs_mark -d "$DIR/f" -l "$SCRATCH/log" -n 10 -s 0 -t 2 --stat --engine io_uring --iodepth 4 --sysstats --quiet \
    > "$SCRATCH/out" 2>&1 || fail "fs_mark --sysstats: $(cat "$SCRATCH/out")"
grep -q '^io_uring submission per iteration and phase' "$SCRATCH/out" &&
    [ "$(grep -Ec '^1 (create|stat|unlink) +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{3} ' "$SCRATCH/out")" = 3 ] ||
    fail "fs_mark --sysstats submission rows: $(cat "$SCRATCH/out")"
"$FSBENCH" tiotest -t 1 -f 1 -r 100 -d "$DIR" --sysstats --quiet > "$SCRATCH/out" 2>&1 || fail "psync --sysstats"
! grep -q 'submission' "$SCRATCH/out" || fail "psync prints a submission table: $(cat "$SCRATCH/out")"
ok "--sysstats: submission rows with io_uring, none with psync"

# a job of two processes: what rank 0 reports is both ranks' calls and requests
if [ -x "$FSBENCH_MPI" ] && command -v mpirun > /dev/null 2>&1; then
    need_mpi
    mpi 2 tiotest --engine io_uring --iodepth 8 -t 1 -f 1 -r 100 -d "$DIR" --json "$SCRATCH/m.json" \
        > /dev/null 2> "$SCRATCH/err" || fail "fsbench-mpi tiotest: exit $?: $(cat "$SCRATCH/err")"
    # one rank alone: 256 or 100 transfers and one fsync per phase
    jq -e "[.phases[].ops] == [512, 200, 512, 200] and (.phases | all(has(\"io_wq\") and (.submission | $BOUNDS) and
        .submission.sqes >= .ops + 2))" "$SCRATCH/m.json" > /dev/null ||
        fail "fsbench-mpi tiotest: $(jq -c '.phases[] | {name, ops, io_wq, s: (.submission | del(.buckets))}' "$SCRATCH/m.json")"
    mpi 2 fs_mark -d "$DIR/m" -l "$SCRATCH/log" -n 20 -s 0 -t 1 --engine io_uring --iodepth 4 --json "$SCRATCH/mf.json" \
        > /dev/null 2> "$SCRATCH/err" || fail "fsbench-mpi fs_mark: exit $?: $(cat "$SCRATCH/err")"
    jq -e '.iterations[0] | .files == 40 and .ring_ops.create.openat == 40 and .ring_ops.unlink.unlinkat == 40 and
        has("io_wq") and .submission.create.sqes == (.ring_ops.create | add) and
        .submission.unlink.sqes == 40' "$SCRATCH/mf.json" > /dev/null ||
        fail "fsbench-mpi fs_mark: $(jq -c '.iterations[0] | {files, ring_ops, io_wq, submission}' "$SCRATCH/mf.json")"
    ok "fsbench-mpi, 2 ranks: submission, io_wq and ring_ops merged from both"
else
    SKIPPED="$SKIPPED; fsbench-mpi merge (fsbench-mpi not built, or no mpirun)"
fi
[ -z "$SKIPPED" ] || skip "${SKIPPED#; }"
