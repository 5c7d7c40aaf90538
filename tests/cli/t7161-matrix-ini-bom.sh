#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7161: an experiment file that begins with a UTF-8 byte order mark (as some editors write it)
# is read as without it: its first section and keys count, the plan is the same as the file's
# without the mark, and an error in it still names the right line. A mark elsewhere is a byte
# like any other (an unknown key).
. "$(dirname "$0")/lib.sh"
body='[experiment]
name = bom
workload = tiotest
args = -t 1 -f 1 -r 10
repeat = 2

[axis mount]
values = defaults noatime
'
printf '%s' "$body" > plain.ini
printf '\357\273\277%s' "$body" > bom.ini
[ "$(head -c 3 bom.ini | od -An -tx1 | tr -d ' ')" = efbbbf ] || fail "the test file has no mark"
fsb matrix --dry-run plain.ini > plain.out 2> err || fail "without the mark: $(cat err)"
fsb matrix --dry-run bom.ini > bom.out 2> err || fail "with the mark: exit $?: $(cat err)"
[ ! -s err ] || fail "with the mark: said $(cat err)"
diff plain.out bom.out > /dev/null || fail "not the same plan: $(diff plain.out bom.out)"
grep -q '^experiment bom: tiotest, 2 cells x 2 runs' bom.out || fail "plan: $(cat bom.out)"
grep -q '^cell noatime: ext4, mount noatime' bom.out || fail "cells: $(cat bom.out)"

# a comment first, an error further down: its own line number
printf '\357\273\277; made elsewhere\n[experiment]\nworkload = tiotest\nbogus = 1\n' > bad.ini
expect_exit 2 fsb matrix --dry-run bad.ini > out 2> err
grep -q "bad.ini:4: \[experiment\]: unknown key 'bogus'" err || fail "error line: $(cat err)"
# the mark anywhere but at the start is part of the line
printf '[experiment]\n\357\273\277workload = tiotest\n' > mid.ini
expect_exit 2 fsb matrix --dry-run mid.ini > out 2> err
grep -q "mid.ini:2: \[experiment\]: unknown key" err || fail "a mark inside: $(cat err)"
ok "an experiment file with a UTF-8 byte order mark reads as without it"
