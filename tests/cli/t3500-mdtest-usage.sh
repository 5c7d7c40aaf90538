#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3500: fsbench mdtest's option handling: mdtest's own checks with its messages, the options
# fsbench refuses rather than ignore (exit 2, nothing created), -h (exit 1, as mdtest), the
# item counts rounded as mdtest rounds them, and what a failed call does (exit 1, the path).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
D=$SCRATCH/d

refuse() {
    local want=$1; shift
    fsb mdtest -d "$D" "$@" > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
    [ "$rc" = 2 ] || fail "mdtest $*: exit $rc, expected 2: $(cat "$SCRATCH/err")"
    # the message and its one line by bash (a grep and a wc a case were a third of the test's CPU)
    local lines
    mapfile -t lines < "$SCRATCH/err"
    [[ ${lines[*]} == *"$want"* ]] || fail "mdtest $*: message not '$want': $(cat "$SCRATCH/err")"
    [ ${#lines[@]} = 1 ] || fail "mdtest $*: not one line: $(cat "$SCRATCH/err")"
    [ ! -e "$D" ] || fail "mdtest $*: created -d before refusing"
}
# mdtest's checks, its words
refuse "only specify the number of items or the number of items per directory" -n 10 -I 5 -u
refuse "items must be a multiple of items per directory" -n 10 -I 3
refuse "-k not compatible with -w" -n 1 -k -w 10
refuse "-u not compatible with -S" -n 1 -u -S
refuse "read bytes must be smaller than write bytes" -n 1 -e 10 -w 5
refuse "branch factor must be greater than or equal to zero" -n 1 -b 0 -z 1
# refused, not ignored
refuse "-c (collective creates) is not supported" -n 1 -c
refuse "-W and -x are not supported" -n 1 -W 5
refuse "-W and -x are not supported" -n 1 -x sw.txt
refuse "-f, -l and -s are not supported" -n 1 -l 4
refuse "-X and --verify-write" -n 1 -X
refuse "fsbench runs no shell command" -n 1 --run-cmd-before-phase "echo hi"
refuse "--json has every figure" -n 1 --saveRankPerformanceDetails x.csv
refuse "only the POSIX API" -n 1 -a DUMMY
refuse "one directory" -n 1 -d "$SCRATCH/a@$SCRATCH/b"
refuse "-n with -I" -n 10 -I 5
refuse "-k with --iodepth above 1" -n 1 -k --engine io_uring --iodepth 4
refuse "mmap cannot run mdtest" -n 1 --engine mmap
refuse "unknown option" -n 1 -q
refuse "-z" -n 1 -z 1001
refuse "is not an existing directory" -n 1 -d "$SCRATCH/no/such"
ok "refusals: exit 2, one line, nothing created"

fsb mdtest -h > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "-h: exit $rc, expected 1 (as mdtest)"
grep -q -- '-n N' "$SCRATCH/out" || fail "-h: no help on stdout"
fsb mdtest --help > /dev/null || fail "--help: exit $?"
ok "help"

# accepted with no effect: -t -B -v -V -G --dataPacketType --warningAsErrors -a POSIX
fsb mdtest -n 4 -t -B 1 -v -V 2 -G 5 --dataPacketType=i --warningAsErrors -a POSIX -d "$D" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "accepted options: exit $?: $(cat "$SCRATCH/err")"
grep -q '^   File creation ' "$SCRATCH/out" || fail "accepted options: no table"
[ ! -e "$D" ] || fail "-d left behind"
ok "accepted options"

# mdtest's rounding: -n 20 over a tree of 7 directories is 2 per directory, 14 items
fsb mdtest -n 20 -z 2 -b 2 -F -d "$D" > "$SCRATCH/out" 2> "$SCRATCH/err" || fail "rounding: $(cat "$SCRATCH/err")"
grep -qx '1 tasks, 14 files' "$SCRATCH/out" || fail "rounding: $(grep tasks "$SCRATCH/out")"
fsb mdtest -n 20 -z 2 -b 2 -L -D -d "$D" > "$SCRATCH/out" 2> "$SCRATCH/err" || fail "leaf rounding: $(cat "$SCRATCH/err")"
grep -qx '1 tasks, 20 directories' "$SCRATCH/out" || fail "leaf rounding: $(grep tasks "$SCRATCH/out")"
ok "item counts rounded as mdtest rounds them"

# a failed call ends the run: a name there already (an earlier -C run), exit 1, the path named,
# no table, and the earlier run's names left alone
fsb mdtest -n 3 -C -d "$D" > /dev/null 2>&1 || fail "-C run: exit $?"
find "$D" | sort > "$SCRATCH/before"
fsb mdtest -n 3 -d "$D" > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "second run over -C's names: exit $rc, expected 1"
grep -q "test-dir.0-0.*exists" "$SCRATCH/err" || fail "second run: error does not name test-dir: $(cat "$SCRATCH/err")"
! grep -q SUMMARY "$SCRATCH/out" || fail "second run printed a SUMMARY"
find "$D" | sort | diff - "$SCRATCH/before" || fail "the failed run changed the earlier run's names"
fsb mdtest -n 3 -r -d "$D" > /dev/null 2>&1 || fail "-r run: exit $?"
[ -z "$(ls -A "$D")" ] || fail "-r left $(ls -A "$D")"
ok "a failed call: exit 1, the path, nothing of another run touched"
