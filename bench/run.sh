#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run.sh [FSBENCH]: run every benchmark script bench/*.sh (except this one) with the fsbench
# binary path as its argument. `make bench` calls `bench/run.sh ./fsbench`. Exits non-zero when a
# script fails to run (the scripts themselves report goals, they do not fail on them). Each script
# ends with its goal lines, "goal: WHAT: met" or "...: MISSED" (with the figure that decides);
# run.sh repeats them all at the end, one line each, prefixed with the script's name.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FSBENCH=${1:-$HERE/../fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
rc=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-bench-run.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
for s in "$HERE"/*.sh; do
    [ "$(basename "$s")" = run.sh ] && continue
    echo "=== $(basename "$s")"
    bash "$s" "$FSBENCH" | tee "$TMP/out"
    st=${PIPESTATUS[0]}
    [ "$st" = 0 ] || { echo "=== $(basename "$s") failed (exit $st)"; rc=1; }
    # every script ends with its goal lines ("goal: WHAT: met|MISSED (...)"), gathered at the end
    sed -n "s/^goal: /$(basename "$s" .sh): /p" "$TMP/out" >> "$TMP/goals"
    echo
done
echo "=== goals (one line each, from the scripts above)"
cat "$TMP/goals" 2>/dev/null
exit $rc
