#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1530: --between-phases CMD, the hook the other tests use to damage files between phases.
# It runs between consecutive phases that run (not before the first, not after the last),
# with FSBENCH_PHASE_DONE / FSBENCH_PHASE_NEXT naming them and FSBENCH_FILES listing the test
# files (which exist then). A failing command stops the run: exit 1, exactly one error line,
# the results so far marked incomplete, no files. A signal that arrives during the command
# stops the run before the next phase: exit 130, and that phase is not reported as run.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR"
export LOG=$SCRATCH/log

: > "$LOG"
"$FSBENCH" tiotest -t 2 -f 1 -r 10 -d "$DIR" -T -k 1 --between-phases \
    'echo "$FSBENCH_PHASE_DONE>$FSBENCH_PHASE_NEXT" >> "$LOG"; for f in $FSBENCH_FILES; do [ -f "$f" ] && echo "$f" >> "$LOG.files"; done' \
    > "$SCRATCH/out" 2> "$SCRATCH/err" || fail "exit $?: $(cat "$SCRATCH/err")"
[ "$(tr '\n' ' ' < "$LOG")" = "write>read read>random_read " ] ||
    fail "calls: '$(tr '\n' ' ' < "$LOG")', expected 'write>read read>random_read' (random write skipped)"
[ "$(sort -u "$LOG.files" | grep -cE "^$DIR/_tiotest_pid[0-9]+\.thr[01]$")" = 2 ] ||
    fail "FSBENCH_FILES did not list the two existing test files: $(sort -u "$LOG.files")"
no_files "$DIR"
ok "called between the phases that run, with the phase names and the files"

"$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" -T --between-phases 'exit 3' > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "failing command: exit $rc, expected 1"
[ "$(not_warnings "$SCRATCH/err" | wc -l)" = 1 ] || fail "failing command: expected one error line: $(cat "$SCRATCH/err")"
grep -q "between-phases 'exit 3'.*after the write phase" "$SCRATCH/err" || fail "failing command: message: $(cat "$SCRATCH/err")"
grep -q '^write:1\.00000,' "$SCRATCH/out" && grep -q '^Results incomplete' "$SCRATCH/out" ||
    fail "failing command: partial results: $(cat "$SCRATCH/out")"
no_files "$DIR"
ok "a failing command: exit 1, one line, incomplete results, no files"

"$FSBENCH" tiotest -t 2 -f 1 -r 10 -d "$DIR" -T --json "$SCRATCH/r.json" \
    --between-phases 'kill -INT $PPID; exit 0' > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 130 ] || fail "SIGINT during the command: exit $rc, expected 130: $(cat "$SCRATCH/err")"
grep -q '^rwrite:0\.00000,0\.00000,' "$SCRATCH/out" || fail "SIGINT during the command: the random write ran: $(cat "$SCRATCH/out")"
! grep -q 'during the Random Write phase' "$SCRATCH/out" || fail "SIGINT during the command: reported as stopping inside the random write"
jq -e '[.phases[].name] == ["write"] and .complete == false' "$SCRATCH/r.json" > /dev/null ||
    fail "SIGINT during the command: JSON phases $(jq -c '[.phases[] | [.name, .ops]]' "$SCRATCH/r.json")"
no_files "$DIR"
ok "SIGINT during the command: stops before the next phase"
