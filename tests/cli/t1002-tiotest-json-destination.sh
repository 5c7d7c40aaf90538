#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1002: a --json destination that cannot be written is bad input, found before anything runs:
# one line on stderr naming --json, exit 2, nothing created, nothing printed (not a whole run
# whose result is then lost). Cases: a missing directory, an existing directory, a directory
# the user cannot write (as nobody, when root). A writable destination works and leaves no
# temporary file.
# (Every other destination class, and every command: t0100.)
. "$(dirname "$0")/lib.sh"
DIR=$SCRATCH/d OUT=$SCRATCH/out.d
mkdir -p "$DIR" "$OUT"
[ "$(id -u)" != 0 ] || need_cmd setpriv

bad_json() { # bad_json DEST [RUNNER...]
    local dest=$1 rc; shift
    "$@" "$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" --json "$dest" > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
    [ "$rc" = 2 ] || fail "--json '$dest': exit $rc, expected 2 before running; stdout: $(head -c 200 "$SCRATCH/out"); stderr: $(cat "$SCRATCH/err")"
    [ "$(wc -l < "$SCRATCH/err")" = 1 ] && grep -q -- "--json.*'$dest'" "$SCRATCH/err" ||
        fail "--json '$dest': expected one line naming --json and the file: $(cat "$SCRATCH/err")"
    [ ! -s "$SCRATCH/out" ] || fail "--json '$dest': the run happened: $(head -3 "$SCRATCH/out")"
    [ -z "$(ls -A "$DIR")" ] || fail "--json '$dest': created $(ls -A "$DIR")"
}

bad_json "$SCRATCH/missing/r.json"
ok "--json into a missing directory: exit 2 before running"
bad_json "$OUT"
[ -z "$(ls -A "$OUT")" ] || fail "--json DIR: created in it: $(ls -A "$OUT")"
ok "--json naming a directory: exit 2 before running"
if [ "$(id -u)" = 0 ]; then
    # root writes anywhere: the user who cannot write is nobody
    chmod 711 "$SCRATCH"; chmod 777 "$DIR"; chmod 755 "$OUT"
    bad_json "$OUT/r.json" setpriv --reuid=65534 --regid=65534 --clear-groups
    ok "--json into a directory nobody cannot write: exit 2 before running"
else
    chmod 555 "$OUT"
    bad_json "$OUT/r.json"
    chmod 755 "$OUT"
    ok "--json into a directory this user cannot write: exit 2 before running"
fi

"$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" -T --json "$OUT/r.json" > /dev/null || fail "--json into a writable directory: exit $?"
[ "$(ls -A "$OUT")" = r.json ] || fail "--json: left in the directory: $(ls -A "$OUT")"
no_files "$DIR"
ok "a writable destination works, no temporary file left"

# a FIFO (like /dev/null or /dev/stdout) is written in place: renaming over it replaced it with
# a regular file, so --json /dev/null run as root destroyed /dev/null
mkfifo "$SCRATCH/fifo"
timeout 20 cat "$SCRATCH/fifo" > "$SCRATCH/got" &
cpid=$!
"$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" -T --quiet --json "$SCRATCH/fifo" > /dev/null ||
    { kill $cpid 2> /dev/null; fail "--json FIFO: exit $?"; }
[ -p "$SCRATCH/fifo" ] || { kill $cpid 2> /dev/null; fail "--json FIFO: replaced by a regular file"; }
wait $cpid
grep -q '"schema": "fsbench-result"' "$SCRATCH/got" || fail "--json FIFO: nothing read from it"
no_files "$DIR"
ok "--json to a FIFO writes into it and leaves it a FIFO"
