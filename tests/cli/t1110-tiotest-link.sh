#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1110: a link named `tiotest` to the binary is `fsbench tiotest`: the same terse and table
# layout, `tiotest -h` exits 1 with help on stdout (as tiotest does), bad input exits 2 with
# the message prefixed "tiotest:", and the files still go to -d and are removed.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
DIR=$SCRATCH/d BIN=$SCRATCH/bin
mkdir -p "$DIR" "$BIN"
ln -s "$FSBENCH" "$BIN/tiotest" || fail "cannot make the link"

"$BIN/tiotest" -t 1 -f 4 -r 100 -d "$DIR" -T > "$SCRATCH/out" 2> "$SCRATCH/err" || fail "tiotest link: exit $?: $(cat "$SCRATCH/err")"
[ -z "$(not_warnings "$SCRATCH/err")" ] || fail "tiotest link wrote to stderr: $(cat "$SCRATCH/err")"
[ "$(wc -l < "$SCRATCH/out")" = 5 ] || fail "tiotest -T via link: not five lines: $(cat "$SCRATCH/out")"
f='[0-9]+\.[0-9]{5}'
grep -Eq "^write:4\.00000(,$f){7}$" "$SCRATCH/out" || fail "write line: $(sed -n 1p "$SCRATCH/out")"
grep -Eq "^rwrite:0\.39062(,$f){7}$" "$SCRATCH/out" || fail "rwrite line (100*4096/2^20 = 0.39062): $(sed -n 2p "$SCRATCH/out")"
grep -Eq "^read:4\.00000(,$f){7}$" "$SCRATCH/out" || fail "read line: $(sed -n 3p "$SCRATCH/out")"
grep -Eq "^rread:0\.39062(,$f){7}$" "$SCRATCH/out" || fail "rread line: $(sed -n 4p "$SCRATCH/out")"
grep -Eq "^total:$f(,$f){3}$" "$SCRATCH/out" || fail "total line: $(sed -n 5p "$SCRATCH/out")"
no_files "$DIR"
ok "terse via the link"

# the tables: same lines as `fsbench tiotest` once the numbers are masked
"$BIN/tiotest" -t 2 -f 4 -r 100 -d "$DIR" > "$SCRATCH/link" || fail "tiotest link tables: exit $?"
"$FSBENCH" tiotest -t 2 -f 4 -r 100 -d "$DIR" > "$SCRATCH/direct" || fail "fsbench tiotest tables: exit $?"
sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g' "$SCRATCH/link" > "$SCRATCH/link.m"
sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g' "$SCRATCH/direct" > "$SCRATCH/direct.m"
diff -u "$SCRATCH/direct.m" "$SCRATCH/link.m" || fail "tables via the link differ from fsbench tiotest"
head -1 "$SCRATCH/link" | grep -qx 'Tiotest results for 2 concurrent io threads:' || fail "title line via link"
[ "$(wc -l < "$SCRATCH/link")" = 21 ] || fail "tables via the link: $(wc -l < "$SCRATCH/link") lines, expected 21"
no_files "$DIR"
ok "tables via the link"

"$BIN/tiotest" -h > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "tiotest -h via link: exit $rc, expected 1"
grep -q -- '-f, --size' "$SCRATCH/out" || fail "tiotest -h via link: no help on stdout"
"$BIN/tiotest" --help > /dev/null; rc=$?
[ "$rc" = 0 ] || fail "tiotest --help via link: exit $rc, expected 0"
(cd "$DIR" && "$BIN/tiotest" -t 0) > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 2 ] || fail "tiotest -t 0 via link: exit $rc, expected 2"
grep -qx "tiotest: option -t: 0 is out of range (1..4096)" "$SCRATCH/err" || fail "tiotest -t 0 message: $(cat "$SCRATCH/err")"
# tiotest has no subcommands: "tiotest tiotest" is a stray argument, not a dispatch
(cd "$DIR" && "$BIN/tiotest" tiotest -t 1) > /dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || fail "'tiotest tiotest' via link: exit $rc, expected 2"
[ -z "$(ls -A "$DIR")" ] || fail "bad input via link created files: $(ls -A "$DIR")"
ok "tiotest -h exits 1, --help 0, bad input 2 via the link"
