#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0210: the environment switches the tests use (FSBENCH_URING_MISSING, FSBENCH_TEST_ENGINES,
# FSBENCH_PROFILE_FORCE_DENY, FSBENCH_TESTQ_SHORT) are compiled only into the test build
# (build/fsbench-test, core/testhook.h): the product binary holds none of their names, ignores
# them (no test engine), and its man page does not mention them; the test build still has them.
. "$(dirname "$0")/lib.sh"
HOOKS='FSBENCH_URING_MISSING|FSBENCH_TEST_ENGINES|FSBENCH_PROFILE_FORCE_DENY|FSBENCH_TESTQ_SHORT'

found=$(grep -aoE "$HOOKS" "$FSBENCH" | sort -u | tr '\n' ' ')
[ -z "$found" ] || fail "the product binary holds test switches: $found"
ok "no test switch in $FSBENCH"

FSBENCH_TEST_ENGINES=1 fsb list engines > engines || fail "fsbench list engines"
! awk '/^[^ ]/ { print $1 }' engines | grep -qx testq || fail "FSBENCH_TEST_ENGINES=1 shows the test engine in the product"
FSBENCH_TEST_ENGINES=1 fsb tiotest --engine testq -t 1 -f 1 -d "$SCRATCH" > out 2> err; rc=$?
[ "$rc" = 2 ] || fail "--engine testq in the product: exit $rc, expected 2"
grep -q "unknown engine 'testq'" err || fail "--engine testq: $(cat err)"
ok "the product ignores FSBENCH_TEST_ENGINES=1"

MAN=${BUILD:-$TESTS_DIR/../build}/fsbench.1
if [ -f "$MAN" ]; then
    ! grep -qE "$HOOKS" "$MAN" || fail "the man page documents test switches: $(grep -oE "$HOOKS" "$MAN" | sort -u)"
    ok "the man page names no test switch"
fi

use_test_build
FSBENCH_TEST_ENGINES=1 fsb list engines > engines || fail "fsbench-test list engines"
awk '/^[^ ]/ { print $1 }' engines | grep -qx testq || fail "the test build lacks the test engine"
ok "the test build has them"
