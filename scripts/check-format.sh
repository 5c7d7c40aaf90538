#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The C lines a change adds or edits, laid out as .clang-format says: git clang-format over the
# lines changed since BASE (the merge base with main; on main itself, the last commit's first
# parent, i.e. what the last merge brought). Untouched lines are never checked: the tree keeps
# hand-aligned tables that clang-format cannot express.
# usage: scripts/check-format.sh [--advisory] [--fix] [BASE]
#   exit 0: clean (or --advisory); 1: the diff to apply is printed (--fix applies it);
#   77: clang-format or git clang-format is absent, or this is not a git work tree (skipped).
set -eu
advisory= fix=
while [ $# -gt 0 ]; do
    case "$1" in
    --advisory) advisory=1; shift ;;
    --fix) fix=1; shift ;;
    *) break ;;
    esac
done
cd "$(dirname "$0")/.."
# git clang-format is a Python script on PATH or in git's exec path: looked for, not run (its
# -h started Python, most of a check's CPU)
command -v clang-format >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 &&
    { command -v git-clang-format || [ -x "$(git --exec-path)/git-clang-format" ]; } >/dev/null 2>&1 ||
    { echo "skip: format: no clang-format / git clang-format (deps.txt test stage)" >&2; exit 77; }
git rev-parse --verify -q HEAD >/dev/null || { echo "skip: format: not a git work tree" >&2; exit 77; }
if [ $# -gt 0 ]; then
    base=$1
else
    base=$(git merge-base HEAD main 2>/dev/null || git rev-parse HEAD)
    if [ "$base" = "$(git rev-parse HEAD)" ]; then
        base=$(git rev-parse -q --verify HEAD^ 2>/dev/null) ||
            { echo "format: nothing to check (one commit)"; exit 0; }
    fi
fi
# no C line changed (git clang-format's own answer then, after starting Python)
if git diff --quiet "$base" -- '*.c' '*.h'; then
    [ -n "$fix" ] || echo "format: the lines changed since $(git rev-parse --short "$base") follow .clang-format"
    exit 0
fi
if [ -n "$fix" ]; then
    git clang-format -q "$base" -- '*.c' '*.h' || true
    exit 0
fi
out=$(git clang-format --diff "$base" -- '*.c' '*.h' 2>&1) || true
case "$out" in
''|*'no modified files to format'*|*'did not modify any files'*)
    echo "format: the lines changed since $(git rev-parse --short "$base") follow .clang-format"
    exit 0 ;;
esac
printf '%s\n' "$out"
n=$(printf '%s\n' "$out" | grep -c '^-[^-]' || true)
echo "format: $n changed lines differ from .clang-format (scripts/check-format.sh --fix $base applies it)"
[ -n "$advisory" ] && exit 0
exit 1
