#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Checks, and when root with apt-get installs, the Debian packages listed in deps.txt.
# --check: only checks, and says what is missing with the apt-get line (a plain `make`).
# usage: scripts/deps.sh [--check] build|test|mpi|all
set -u
check_only=
[ "${1:-}" = --check ] && { check_only=1; shift; }
stage=${1:-all}
top=$(dirname "$0")/..
wanted=""
while read -r s pkg; do
    case "$s" in ''|'#'*) continue ;; esac
    [ "$stage" = all ] || [ "$s" = "$stage" ] || [ "$s" = build ] || continue
    wanted="$wanted $pkg"
done < "$top/deps.txt"
# one dpkg-query for them all (one per package read dpkg's database ~40 times: 16 s of a
# loaded make check); a package counts under its name and its arch-qualified name
installed=" $(dpkg-query -W -f='${Status}|${Package}|${binary:Package}\n' $wanted 2>/dev/null |
    awk -F'|' '$1 == "install ok installed" { printf "%s %s ", $2, $3 }')"
missing=""
for pkg in $wanted; do
    case "$installed" in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
done
[ -z "$missing" ] && exit 0
if [ -z "$check_only" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    log=$(mktemp)
    if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
        tail -n 20 "$log" >&2; rm -f "$log"
        echo "deps: apt-get install failed for:$missing" >&2; exit 1
    fi
    rm -f "$log"
    exit 0
fi
echo "deps: missing Debian packages; run as root (or: make deps):" >&2
echo "  apt-get install$missing" >&2
exit 1
