#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8053: SIGINT while the runner writes its report, after every run completed: the experiment
# stands (exit 0 when every run was ok, manifest state "done"), the report ends between its
# files (the manifest's report: "interrupted"), and the line says so and how to write it. The
# signal lands in the report deterministically: the history database is held locked by another
# writer, so the report waits at its last step (report.html written) until the signal ends it.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_root
need_cmd jq
need_cmd sqlite3
need_cmd mkfs.ext4
export HOME=$SCRATCH
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"

# a history database to hold locked: made by a report of a synthetic experiment
mx_base tiotest base.json
mx_make m base.json 4 2 other <<'C'
a fs=ext4 1.0 0.03
C
fsb report --db h.db m > /dev/null 2> err || fail "report: $(cat err)"
mkfifo lockin
sqlite3 h.db < lockin > lock.out 2>&1 &
lock=$!
exec 7> lockin
echo 'BEGIN EXCLUSIVE;' >&7
echo "SELECT 'locked';" >&7
for _ in $(seq 100); do grep -q locked lock.out && break; nap 0.1; done
grep -q locked lock.out || fail "the lock: $(cat lock.out)"
trap 'exec 7>&-; kill $lock 2>/dev/null; _lib_cleanup' EXIT

"$FSBENCH" matrix --fs ext4 --repeat 1 --size 256 --name sigrep --db h.db --max-other-cpu 100 \
    -o "$SCRATCH/r" -- tiotest -t 1 -f 1 -r 100 > out 2> err &
pid=$!
for _ in $(seq 1200); do [ -e "$SCRATCH/r/report.html" ] && break; kill -0 $pid 2>/dev/null || break; nap 0.1; done
[ -e "$SCRATCH/r/report.html" ] || { wait $pid; fail "no report.html (exit $?): $(cat err)"; }
kill -INT $pid
wait $pid
rc=$?
exec 7>&-
wait $lock 2>/dev/null
[ $rc = 0 ] || fail "exit $rc, expected 0 (the experiment completed): $(cat err)"
grep -qx "fsbench matrix: experiment complete; report interrupted before the history by SIGINT: 'fsbench report $SCRATCH/r' writes it" err ||
    fail "no line saying so: $(cat err)"
! grep -q 'interrupted by SIGINT; everything set up is undone' err || fail "said the experiment was interrupted"
M=$SCRATCH/r/manifest.json
jq -e '.state == "done" and .report.status == "interrupted" and .undo_complete' $M > /dev/null ||
    fail "manifest: $(jq -c '{state, report, undo_complete}' $M)"
! grep -q "$TMPDIR" /proc/self/mountinfo || fail "a mount left"
fsb history --db h.db list > list.txt 2> err || fail "history: $(cat err)"
! grep -q sigrep list.txt || fail "the interrupted report recorded the history anyway"
fsb report --db h.db "$SCRATCH/r" > /dev/null 2> err || fail "report again: $(cat err)"
fsb history --db h.db list | grep -q sigrep || fail "fsbench report DIR did not write the history"
ok "SIGINT during the report: exit 0, state done, report interrupted, said"
