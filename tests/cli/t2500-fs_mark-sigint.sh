#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (signals it after a fixed sleep: under load it may not have started)
# fs_mark and SIGINT: what completed stays on stdout, stderr gets the average and
# p50/p90/p99 of per-iteration files/sec, files are removed unless kept, exit 130.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /dev/shm/fsbench-t2500.XXXXXX 2>/dev/null) || T=$(mktemp -d "$SCRATCH/t.XXXXXX")
trap '_lib_cleanup; rm -rf "$T"' EXIT
cd "$SCRATCH" || fail "cd"

interrupt() {   # interrupt SECONDS ARGS...: start fs_mark, SIGINT it after SECONDS
    local secs=$1; shift
    "$FSBENCH" fs_mark -l log "$@" > out 2> err &
    local pid=$!
    sleep "$secs"
    kill -INT $pid
    wait $pid; rc=$?
}

# in the middle of a long first iteration: no row, files removed, test dir removed
interrupt 0.7 -d "$T/a" -n 1000000 -s 0 -S 0 -t 2
[ $rc = 130 ] || fail "exit $rc, want 130: $(cat err)"
[ ! -e "$T/a" ] || fail "files left: $(find "$T/a" -type f | wc -l)"
grep -q 'interrupted; removing the files' err || fail "stderr: $(cat err)"
[ "$(awk '/^FSUse%/ { f = 1; next } f' out | wc -l)" = 0 ] || fail "an interrupted iteration was printed as a row"

# many short iterations (-L keeps files): the completed rows, then the summary on stderr
mkdir "$T/b"
interrupt 1 -d "$T/b" -n 200 -s 0 -S 0 -L 1000000
[ $rc = 130 ] || fail "exit $rc, want 130"
rows=$(awk '/^FSUse%/ { f = 1; next } f' out | wc -l)
[ "$rows" -ge 2 ] || fail "only $rows rows before the interrupt"
grep -Eq "Iterations reported: $rows, files created: [0-9]+" err || fail "summary count: $(cat err)"
grep -Eq 'sum of per-thread rates \(fs_mark\): +average [0-9.]+ +p50 [0-9.]+ +p90 [0-9.]+ +p99 [0-9.]+' err || fail "summary rates: $(cat err)"
grep -q 'files are kept' err || fail "-L keeps files: $(cat err)"
files=$(find "$T/b" -type f | wc -l)
[ "$files" -ge $((rows * 200)) ] || fail "$files files kept, $rows rows of 200"
ok "SIGINT"
