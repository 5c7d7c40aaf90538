#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1001: -F (drop caches) without root is a clear error before anything runs: one line on
# stderr naming -F, exit 3 (unsupported here), nothing created. tiotest instead printed a
# warning per thread, did no I/O and reported empty tables with exit 0.
# As root the test drops privileges to nobody (setpriv, else su); as a normal user it runs as is.
. "$(dirname "$0")/lib.sh"

DIR=$SCRATCH/dir
mkdir -p "$DIR"
if [ "$(id -u)" = 0 ]; then
    # nobody must reach the directory and the binary
    chmod 711 "$SCRATCH" && chmod 777 "$DIR"
    if command -v setpriv >/dev/null 2>&1; then
        as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    elif command -v su >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
        as_user() { su nobody -s /bin/sh -c '"$0" "$@"' -- "$@"; }
    else
        skip "root, and neither setpriv nor su to drop privileges"
    fi
    as_user test -x "$FSBENCH" || skip "nobody cannot execute $FSBENCH"
    as_user test -w "$DIR" || skip "nobody cannot write to $DIR"
    [ "$(as_user id -u)" != 0 ] || skip "could not drop root"
else
    as_user() { "$@"; }
fi

for args in "-F" "-F -t 2 -f 1 -r 1" "--drop-caches -t 1 -f 1 -r 1 -T" "-t 1 -f 1 -r 1 -cF"; do
    as_user "$FSBENCH" tiotest $args -d "$DIR" > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
    [ "$rc" = 3 ] || fail "tiotest $args as uid $(as_user id -u): exit $rc, expected 3; stderr: $(cat "$SCRATCH/err")"
    [ "$(wc -l < "$SCRATCH/err")" = 1 ] || fail "tiotest $args: expected one line on stderr: $(cat "$SCRATCH/err")"
    grep -Eq -- '-F.*root' "$SCRATCH/err" || fail "tiotest $args: message does not name -F and root: $(cat "$SCRATCH/err")"
    [ ! -s "$SCRATCH/out" ] || fail "tiotest $args: printed results: $(cat "$SCRATCH/out")"
    [ -z "$(ls -A "$DIR")" ] || fail "tiotest $args: created files: $(ls -A "$DIR")"
done
# the same user can run without -F (so exit 3 was about -F, not about the directory)
as_user "$FSBENCH" tiotest -t 1 -f 1 -r 1 -T -d "$DIR" > "$SCRATCH/out" || fail "run without -F failed as uid $(as_user id -u)"
no_files "$DIR"
ok "-F without root: exit 3, one line, nothing created"
