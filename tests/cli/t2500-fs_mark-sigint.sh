#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fs_mark and SIGINT: what completed stays on stdout, stderr gets the average and
# p50/p90/p99 of per-iteration files/sec, files are removed unless kept, exit 130.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /dev/shm/fsbench-t2500.XXXXXX 2>/dev/null) || T=$(mktemp -d "$SCRATCH/t.XXXXXX")
trap '_lib_cleanup; rm -rf "$T"' EXIT
cd "$SCRATCH" || fail "cd"

rows_out() { awk '/^FSUse%/ { f = 1; next } f' out | wc -l; }
# interrupt WHEN DIR ARGS...: start fs_mark on -d DIR, SIGINT it once DIR holds a file (WHEN
# files: its handlers are in place by then) or once 2 rows are out (WHEN rows), at most 10 s:
# conditions, not a fixed sleep that a loaded machine outlasts (it ran alone for that)
interrupt() {
    local when=$1 dir=$2 i; shift 2
    "$FSBENCH" fs_mark -l log -d "$dir" "$@" > out 2> err &
    local pid=$!
    for i in $(seq 200); do
        case $when in
        files) [ -n "$(find "$dir" -type f 2> /dev/null | head -1)" ] && break ;;
        rows) [ "$(rows_out)" -ge 2 ] && break ;;
        esac
        nap 0.05
    done
    kill -INT $pid
    wait $pid; rc=$?
}

# in the middle of a long first iteration: no row, files removed, test dir removed
interrupt files "$T/a" -n 1000000 -s 0 -S 0 -t 2
[ $rc = 130 ] || fail "exit $rc, want 130: $(cat err)"
[ ! -e "$T/a" ] || fail "files left: $(find "$T/a" -type f | wc -l)"
grep -q 'interrupted; removing the files' err || fail "stderr: $(cat err)"
[ "$(rows_out)" = 0 ] || fail "an interrupted iteration was printed as a row"

# many short iterations (-L keeps files): the completed rows, then the summary on stderr
mkdir "$T/b"
interrupt rows "$T/b" -n 200 -s 0 -S 0 -L 1000000
[ $rc = 130 ] || fail "exit $rc, want 130"
rows=$(rows_out)
[ "$rows" -ge 2 ] || fail "only $rows rows before the interrupt"
grep -Eq "Iterations reported: $rows, files created: [0-9]+" err || fail "summary count: $(cat err)"
grep -Eq 'sum of per-thread rates \(fs_mark\): +average [0-9.]+ +p50 [0-9.]+ +p90 [0-9.]+ +p99 [0-9.]+' err || fail "summary rates: $(cat err)"
grep -q 'files are kept' err || fail "-L keeps files: $(cat err)"
files=$(find "$T/b" -type f | wc -l)
[ "$files" -ge $((rows * 200)) ] || fail "$files files kept, $rows rows of 200"
ok "SIGINT"
