#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t2710: fs_mark's live progress line: with stderr on a pseudo-terminal it appears on stderr
# (run, iteration, phase, % done) and is redrawn in place; stdout carries what a non-terminal
# run prints (numbers aside); --quiet and a non-terminal stderr show none (--quiet: no warnings
# either).
. "$(dirname "$0")/lib.sh"
need_cmd script
d=$(mktemp -d /dev/shm/fsbench-t2710.XXXXXX) || fail "mktemp"
trap 'rm -rf "$d"; _lib_cleanup' EXIT
args="fs_mark -d $d/x -n 80000 -s 0 -S 0 -L 2 -l $SCRATCH/log"

# stderr is the pty (script's output), stdout goes to a file
script -qec "$FSBENCH $args >$SCRATCH/tty.out" /dev/null >"$SCRATCH/tty.err" </dev/null ||
    fail "run under a pseudo-terminal failed"
grep -a -q 'fs_mark iteration 1 create: .*%' "$SCRATCH/tty.err" ||
    fail "no progress line on the terminal: $(head -c 300 "$SCRATCH/tty.err" | od -c | head)"
grep -a -q 'fs_mark iteration 2 create: ' "$SCRATCH/tty.err" || fail "no progress line for iteration 2"
grep -a -q $'\033\[K' "$SCRATCH/tty.err" || fail "the progress line is not redrawn in place"
grep -a -q 'create:' "$SCRATCH/tty.out" && fail "progress text leaked to stdout"
rm -rf "$d/x"

"$FSBENCH" $args >"$SCRATCH/plain.out" 2>"$SCRATCH/plain.err" || fail "plain run failed"
# (the run's warnings, if any, are on stderr either way; nothing else is)
[ -z "$(not_warnings "$SCRATCH/plain.err")" ] || fail "stderr not empty without a terminal: $(cat "$SCRATCH/plain.err")"
rm -rf "$d/x"
mask() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g; s/^#  fs_mark .*//; s/starting at .*//' "$1"; }
diff <(mask "$SCRATCH/tty.out" | tr -d '\r') <(mask "$SCRATCH/plain.out") >/dev/null ||
    fail "stdout differs between terminal and non-terminal runs: $(diff <(mask "$SCRATCH/tty.out" | tr -d '\r') <(mask "$SCRATCH/plain.out"))"

script -qec "$FSBENCH $args --quiet >/dev/null" /dev/null >"$SCRATCH/quiet.err" </dev/null || fail "--quiet run failed"
grep -a -q 'create:' "$SCRATCH/quiet.err" && fail "--quiet still drew a progress line"
grep -a -q 'warning' "$SCRATCH/quiet.err" && fail "--quiet still printed warnings: $(cat "$SCRATCH/quiet.err")"
ok "progress line on a terminal only, stdout unchanged"
