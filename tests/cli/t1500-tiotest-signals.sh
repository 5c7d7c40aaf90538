#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1500: SIGINT / SIGTERM in the middle of a phase. A long run on tmpfs (huge -r) is
# signalled once its random write is under way: exit 130 (SIGINT) / 143 (SIGTERM), the tables
# so far and then the "Results incomplete" line on stdout, the JSON (if asked) says so, no test
# files left. tiotest died on the signal with its files left behind.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR"

# random_write_streamed FILE: FILE (--stream) has a random write line: the run is inside it
random_write_streamed() {
    local l
    [ -e "$1" ] && mapfile -t l < "$1" && [[ "${l[*]}" == *'"phase":"random_write"'* ]]
}

# interrupt SIG CODE ARGS...: start, wait until mid random write, signal, check
interrupt() {
    local sig=$1 code=$2 pid rc i; shift 2
    rm -f "$SCRATCH/s.jsonl"
    "$FSBENCH" tiotest -t 2 -f 4 -r 1000000000 -d "$DIR" --interval 20ms --stream "$SCRATCH/s.jsonl" "$@" \
        > "$SCRATCH/out" 2> "$SCRATCH/err" &
    pid=$!
    # the (endless) random write is under way once the stream has a line of it: the run at
    # full speed for a second after its files appeared was most of this test's CPU
    for i in $(seq 1000); do
        random_write_streamed "$SCRATCH/s.jsonl" && break
        nap 0.01
    done
    random_write_streamed "$SCRATCH/s.jsonl" || { kill -KILL $pid; fail "no random write after 10 s: $(cat "$SCRATCH/err")"; }
    kill -0 $pid 2> /dev/null || fail "the run ended before the signal: $(cat "$SCRATCH/err")"
    kill -"$sig" $pid
    for i in $(seq 100); do kill -0 $pid 2> /dev/null || break; nap 0.05; done
    if kill -0 $pid 2> /dev/null; then kill -KILL $pid; fail "SIG$sig: still running 5 s after the signal"; fi
    wait $pid; rc=$?
    [ "$rc" = "$code" ] || fail "SIG$sig: exit $rc, expected $code; stderr: $(cat "$SCRATCH/err")"
    [ -z "$(ls -A "$DIR")" ] || fail "SIG$sig: files left: $(ls -A "$DIR")"
    [ "$(tail -1 "$SCRATCH/out")" = "Results incomplete: the run stopped during the Random Write phase." ] ||
        fail "SIG$sig: last stdout line: $(tail -1 "$SCRATCH/out")"
}

interrupt INT 130
head -1 "$SCRATCH/out" | grep -qx 'Tiotest results for 2 concurrent io threads:' || fail "SIGINT: no tables"
grep -Eq '^\| Write +8 MBs \|' "$SCRATCH/out" || fail "SIGINT: no complete Write row: $(cat "$SCRATCH/out")"
grep -Eq '^\| Random Write +[0-9]+ MBs \|' "$SCRATCH/out" || fail "SIGINT: no partial Random Write row"
! grep -Eq '^\| (Read|Random Read) ' "$SCRATCH/out" || fail "SIGINT: rows of phases that never ran"
grep -q '^| Total        |' "$SCRATCH/out" || fail "SIGINT: no latency table"
ok "SIGINT: exit 130, partial tables, incomplete marker, no files"

interrupt TERM 143 -T --json "$SCRATCH/r.json"
[ "$(wc -l < "$SCRATCH/out")" = 6 ] || fail "SIGTERM -T: expected 5 terse lines and the marker: $(cat "$SCRATCH/out")"
grep -q '^write:8\.00000,' "$SCRATCH/out" || fail "SIGTERM -T: write line: $(cat "$SCRATCH/out")"
grep -q '^read:0\.00000,0\.00000,' "$SCRATCH/out" || fail "SIGTERM -T: read line should be zeros"
jq -e '.complete == false and (.stop_reason | test("SIGTERM|signal 15")) and .error == null and
       [.phases[] | [.name, .complete]] == [["write", true], ["random_write", false]] and
       .phases[1].ops > 0 and .phases[1].ops < 2 * 1000000000' "$SCRATCH/r.json" > /dev/null ||
    fail "SIGTERM: JSON: $(jq -c '{complete, stop_reason, error, p: [.phases[] | {name, complete, ops}]}' "$SCRATCH/r.json")"
ok "SIGTERM: exit 143, terse partial results, JSON incomplete, no files"

# under nohup SIGHUP is ignored on purpose: a hangup must not stop the run (it did: exit 129).
# The hangup is sent inside the random write, and the run cannot end before it: the hook after
# that phase waits (at most 10 s) for the test to have sent it (before: -r 300000, long enough
# under most loads, was a second of CPU, and a run ended before the kill passed unseen)
rm -f "$SCRATCH/s.jsonl" "$SCRATCH/hup"
nohup "$FSBENCH" tiotest -t 1 -f 4 -r 20000 -T -d "$DIR" --interval 20ms --stream "$SCRATCH/s.jsonl" \
    --between-phases "[ \"\$FSBENCH_PHASE_DONE\" != random_write ] ||
        for i in \$(seq 1000); do [ -e '$SCRATCH/hup' ] && break; sleep 0.01; done" > "$SCRATCH/out" 2> "$SCRATCH/err" &
pid=$!
for i in $(seq 1000); do random_write_streamed "$SCRATCH/s.jsonl" && break; nap 0.01; done
kill -HUP $pid || fail "nohup + SIGHUP: the run was gone before the hangup: $(cat "$SCRATCH/err")"
touch "$SCRATCH/hup"
wait $pid; rc=$?
[ "$rc" = 0 ] || fail "nohup + SIGHUP: exit $rc, expected 0: $(cat "$SCRATCH/err")"
[ -z "$(ls -A "$DIR")" ] || fail "nohup + SIGHUP: files left: $(ls -A "$DIR")"
ok "nohup: SIGHUP stays ignored, the run completes"
