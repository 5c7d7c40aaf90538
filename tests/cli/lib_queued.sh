# SPDX-License-Identifier: GPL-2.0-or-later
# What every queued engine must do in tiotest, written once (t1620: testq, t1630: io_uring).
# Source after lib.sh; needs $DIR (an empty directory) and $BS.
#
#   queued_cases ENGINE
#     - the same blocks written at depth 1 and 32 (the seed's offsets, -c's contents);
#     - a flipped block found by the read at depth 32: exit 1, one line naming file and offset,
#       the incomplete line, no files left;
#     - a depth larger than the work (16 blocks, 10 random ops, depth 1000);
#     - SIGINT in an endless random write at depth 32: requests in flight reaped, exit 130,
#       no files left, the incomplete line last.
queued_cases() {
    local e=$1 depth pid rc i
    for depth in 1 32; do
        "$FSBENCH" tiotest --engine "$e" --iodepth $depth -t 2 -f 1 -r 100 -c -k 2 -k 3 --keep -d "$DIR" -T \
            > /dev/null 2> "$SCRATCH/err" || fail "$e --keep depth $depth: exit $?: $(cat "$SCRATCH/err")"
        cat "$DIR"/_tiotest_pid*.thr0 "$DIR"/_tiotest_pid*.thr1 | md5sum > "$SCRATCH/sum$depth"
        rm -f "$DIR"/_tiotest_pid*
    done
    cmp -s "$SCRATCH/sum1" "$SCRATCH/sum32" || fail "$e: depth 1 and depth 32 wrote different blocks"
    ok "$e: the same blocks written at depth 1 and 32"

    # a flipped byte in block 5 of thread 0's file
    "$FSBENCH" tiotest --engine "$e" --iodepth 32 -t 2 -f 1 -r 200 -b "$BS" -c -d "$DIR" \
        --between-phases "[ \"\$FSBENCH_PHASE_NEXT\" = read ] || exit 0; set -- \$FSBENCH_FILES;
            printf '\\377' | dd of=\"\$1\" bs=1 seek=$((5 * BS + 2000)) conv=notrunc status=none" \
        > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
    [ "$rc" = 1 ] || fail "$e: flipped block at depth 32: exit $rc, expected 1: $(cat "$SCRATCH/err")"
    [ "$(not_warnings "$SCRATCH/err" | wc -l)" = 1 ] ||
        fail "$e: flipped block: expected one stderr line: $(cat "$SCRATCH/err")"
    grep -Eq "verify '$DIR/_tiotest_pid[0-9]+\.thr0' at offset $((5 * BS))(:|,| ).*(checksum|corrupt)" "$SCRATCH/err" ||
        fail "$e: flipped block: $(cat "$SCRATCH/err")"
    grep -q '^Results incomplete: the run stopped during the Read phase\.$' "$SCRATCH/out" ||
        fail "$e: flipped block: no incomplete line"
    no_files "$DIR"
    ok "$e: a flipped block is caught at depth 32"

    "$FSBENCH" tiotest --engine "$e" --iodepth 1000 -t 1 -f 1 -b 65536 -r 10 -c -d "$DIR" \
        --json "$SCRATCH/big.json" > /dev/null 2> "$SCRATCH/err" || fail "$e: depth 1000: exit $?: $(cat "$SCRATCH/err")"
    jq -e '[.phases[].ops] == [16, 10, 16, 10]' "$SCRATCH/big.json" > /dev/null || fail "$e: depth 1000: ops"
    no_files "$DIR"
    ok "$e: a depth larger than the work"

    "$FSBENCH" tiotest --engine "$e" --iodepth 32 -t 2 -f 4 -r 1000000000 -k 2 -k 3 -d "$DIR" \
        > "$SCRATCH/out" 2> "$SCRATCH/err" &
    pid=$!
    for i in $(seq 100); do [ -n "$(ls -A "$DIR")" ] && break; sleep 0.05; done
    sleep 1
    kill -0 $pid 2> /dev/null || fail "$e: SIGINT: the run ended before the signal: $(cat "$SCRATCH/err")"
    kill -INT $pid
    for i in $(seq 200); do kill -0 $pid 2> /dev/null || break; sleep 0.05; done
    if kill -0 $pid 2> /dev/null; then kill -KILL $pid; fail "$e: SIGINT: still running 10 s after the signal"; fi
    wait $pid; rc=$?
    [ "$rc" = 130 ] || fail "$e: SIGINT at depth 32: exit $rc: $(cat "$SCRATCH/err")"
    [ -z "$(ls -A "$DIR")" ] || fail "$e: SIGINT: files left: $(ls -A "$DIR")"
    [ "$(tail -1 "$SCRATCH/out")" = "Results incomplete: the run stopped during the Random Write phase." ] ||
        fail "$e: SIGINT: last line: $(tail -1 "$SCRATCH/out")"
    ok "$e: SIGINT with requests in flight: exit 130, no files"
}
