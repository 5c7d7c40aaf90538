#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run.sh [FSBENCH]: run every benchmark script bench/*.sh (except this one) with the fsbench
# binary path as its argument. `make bench` calls `bench/run.sh ./fsbench`. Exits non-zero when a
# script fails to run (the scripts themselves report goals, they do not fail on them).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FSBENCH=${1:-$HERE/../fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
rc=0
for s in "$HERE"/*.sh; do
    [ "$(basename "$s")" = run.sh ] && continue
    echo "=== $(basename "$s")"
    bash "$s" "$FSBENCH" || { echo "=== $(basename "$s") failed (exit $?)"; rc=1; }
    echo
done
exit $rc
