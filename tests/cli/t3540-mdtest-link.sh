#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3540: a link named `mdtest` to the binary is `fsbench mdtest`: the same output (the command
# line names the link, as mdtest names its argv[0]), -h exits 1 with help on stdout as mdtest
# does, bad input exits 2 with the message prefixed "mdtest:", the files go to -d and are
# removed; `make install` puts the link beside tiotest's and fs_mark's.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
D=$SCRATCH/d BIN=$SCRATCH/bin
mkdir -p "$BIN"
ln -s "$FSBENCH" "$BIN/mdtest" || fail "cannot make the link"
MASK=$TESTS_DIR/cli/mdtest_mask.pl

"$BIN/mdtest" -n 10 -d "$D" > link.out 2> err || fail "mdtest link: exit $?: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "mdtest link wrote to stderr: $(cat err)"
grep -qx "Command line used: $BIN/mdtest '-n' '10' '-d' '$D'" link.out || fail "command line: $(grep Command link.out)"
fsb mdtest -n 10 -d "$D" > direct.out 2> err || fail "fsbench mdtest: exit $?"
diff <(perl "$MASK" direct.out) <(perl "$MASK" link.out) || fail "the link's output differs from fsbench mdtest's"
diff <(perl "$MASK" link.out) "$TESTS_DIR/cli/mdtest-golden/all.txt" || fail "the link's output differs from mdtest's"
[ ! -e "$D" ] || fail "files left in $D"
ok "output via the link"

"$BIN/mdtest" -h > out 2> err; rc=$?
[ "$rc" = 1 ] || fail "mdtest -h via link: exit $rc, expected 1"
grep -q -- '-n N' out || fail "mdtest -h via link: no help on stdout"
"$BIN/mdtest" -n 1 -k -w 5 -d "$D" > out 2> err; rc=$?
[ "$rc" = 2 ] || fail "bad input via link: exit $rc"
grep -qx 'mdtest: -k not compatible with -w' err || fail "message via link: $(cat err)"
ok "help and errors via the link"

need_cmd make
TOP=$(cd "$TESTS_DIR/.." && pwd)
grep -q 'COMPATDIR)/mdtest$' "$TOP/Makefile" || fail "make install does not link mdtest into COMPATDIR"
ok "installed beside tiotest and fs_mark"
