#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The live progress line: with stderr on a pseudo-terminal it appears on stderr (phase, %,
# MiB/s) and is erased at the end; stdout carries exactly what a non-terminal run prints
# (same lines, numbers aside); --quiet and a non-terminal stderr show none (--quiet: no
# warnings either).
. "$(dirname "$0")/lib.sh"
need_cmd script
d=$(mktemp -d /dev/shm/fsbench-t1700.XXXXXX) || fail "mktemp"
trap 'rm -rf "$d"; _lib_cleanup' EXIT
# the write phase long enough for a progress line (one after 250 ms) on a fast machine; the
# random phases short (200,000 ops each were ~40 % of the CPU; no check looks at their lines)
args="tiotest -t 1 -f 768 -r 2000 -b 4096 -d $d"

# stderr is the pty (script's output), stdout goes to a file
script -qec "$FSBENCH $args >$SCRATCH/tty.out" /dev/null >"$SCRATCH/tty.err" </dev/null ||
    fail "run under a pseudo-terminal failed"
grep -a -q 'tiotest write: .*%.*MiB/s' "$SCRATCH/tty.err" || fail "no progress line on the terminal: $(head -c 300 "$SCRATCH/tty.err" | od -c | head)"
grep -a -q $'\033\[K' "$SCRATCH/tty.err" || fail "the progress line is not redrawn in place"
grep -a -q 'tiotest' "$SCRATCH/tty.out" && fail "progress text leaked to stdout"

"$FSBENCH" $args >"$SCRATCH/plain.out" 2>"$SCRATCH/plain.err" || fail "plain run failed"
# (the run's warnings, if any, are on stderr either way; nothing else is)
[ -z "$(not_warnings "$SCRATCH/plain.err")" ] || fail "stderr not empty without a terminal: $(cat "$SCRATCH/plain.err")"
mask() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g' "$1"; }
diff <(mask "$SCRATCH/tty.out" | tr -d '\r') <(mask "$SCRATCH/plain.out") >/dev/null ||
    fail "stdout differs between terminal and non-terminal runs"

script -qec "$FSBENCH $args --quiet >/dev/null" /dev/null >"$SCRATCH/quiet.err" </dev/null || fail "--quiet run failed"
grep -a -q 'MiB/s' "$SCRATCH/quiet.err" && fail "--quiet still drew a progress line"
grep -a -q 'warning' "$SCRATCH/quiet.err" && fail "--quiet still printed warnings: $(cat "$SCRATCH/quiet.err")"
no_files "$d"
ok "progress line on a terminal only, stdout unchanged"
