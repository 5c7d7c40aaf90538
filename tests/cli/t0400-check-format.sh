#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0400: scripts/check-format.sh checks the C lines a change touches against .clang-format, and
# only those: in a scratch repository with the tree's .clang-format, a badly laid out line added
# after the base fails (exit 1, the diff and the count printed), --advisory prints it and exits
# 0, --fix applies it, after which the check passes; a badly laid out line that was already
# there before the base is not flagged; a change with no C file passes.
. "$(dirname "$0")/lib.sh"
unsanitized_only
need_cmd git
need_cmd clang-format
need_cmd python3
{ command -v git-clang-format || [ -x "$(git --exec-path)/git-clang-format" ]; } > /dev/null 2>&1 ||
    skip "no git clang-format"
TOP=$(cd "$TESTS_DIR/.." && pwd)
R=$SCRATCH/repo
mkdir -p "$R/scripts"
cp "$TOP/scripts/check-format.sh" "$R/scripts/"
cp "$TOP/.clang-format" "$R/"
cd "$R" || fail "cd"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@localhost GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@localhost
git init -q -b main . && git add -A && git commit -q -m base || fail "git init"
# an old badly laid out line stays unflagged
printf 'int old(int a)\n{\n\treturn a+1 ;\n}\n' > a.c
git add a.c && git commit -q -m old || fail "commit"
base=$(git rev-parse HEAD)
git checkout -q -b topic || fail "branch"

printf 'README\n' > README && git add README && git commit -q -m doc || fail "commit"
scripts/check-format.sh > out 2>&1; rc=$?
[ "$rc" = 0 ] || fail "no C change: exit $rc: $(cat out)"
ok "a change without C lines passes"

printf '\nint added(int b)\n{\n\treturn b*2 ;\n}\n' >> a.c && git commit -q -am added || fail "commit"
scripts/check-format.sh > out 2>&1; rc=$?
[ "$rc" = 1 ] || fail "bad added line: exit $rc, expected 1: $(cat out)"
grep -qF -- '-	return b*2 ;' out && grep -qF -- '+	return b * 2;' out || fail "the diff: $(cat out)"
! grep -qF 'return a+1' out || fail "an untouched line was flagged: $(cat out)"
grep -q '^format: 1 changed lines differ from .clang-format' out || fail "the count: $(tail -1 out)"
scripts/check-format.sh --advisory > out 2>&1; rc=$?
[ "$rc" = 0 ] && grep -q '^format: 1 changed lines differ' out || fail "--advisory: exit $rc: $(cat out)"
ok "an added badly laid out line: exit 1 with the diff, --advisory exit 0, the old line left alone"

scripts/check-format.sh --fix > out 2>&1 || fail "--fix: exit $?: $(cat out)"
grep -qF '	return b * 2;' a.c && grep -qF '	return a+1 ;' a.c || fail "--fix: $(cat a.c)"
scripts/check-format.sh "$base" > out 2>&1; rc=$?
[ "$rc" = 0 ] || fail "after --fix: exit $rc: $(cat out)"
ok "--fix lays out the changed lines only; then the check passes"
