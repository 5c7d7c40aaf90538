#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1531: --between-phases with paths that FSBENCH_FILES cannot carry. FSBENCH_FILES_LIST names a
# file with one test file per line: a -d with spaces works in a `while read -r` loop; the list
# is fsbench's own (a private mkdtemp directory, mode 0700) and is gone at the end, --keep or not.
# With --json - the command's stdout goes to stderr: stdout is the JSON alone. A signal that
# stops fsbench while the command runs stops the command too (it waited for a `sleep 600`).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
cd "$SCRATCH" || fail "cd"
DIR="$SCRATCH/a dir  with spaces"
mkdir -p "$DIR"
export LOG=$SCRATCH/log
cases=0

# every listed file exists, 3 lines; the list's own directory is private
HOOK='n=0; while IFS= read -r f; do [ -f "$f" ] || { echo "missing: $f" >&2; exit 5; }; n=$((n + 1)); done < "$FSBENCH_FILES_LIST"
      [ $n = 3 ] || { echo "$n lines" >&2; exit 6; }
      [ "$(stat -c %a "$(dirname "$FSBENCH_FILES_LIST")")" = 700 ] || exit 7
      echo "$FSBENCH_FILES_LIST" >> "$LOG"'
for keep in "" --keep; do
    : > "$LOG"
    "$FSBENCH" tiotest -t 3 -f 1 -r 10 -d "$DIR" -T $keep --between-phases "$HOOK" > out 2> err ||
        fail "spaces $keep: exit $?: $(cat err)"
    [ "$(wc -l < "$LOG")" = 3 ] || fail "spaces $keep: the command ran $(wc -l < "$LOG") times, expected 3"
    list=$(head -1 "$LOG")
    [ ! -e "$list" ] && [ ! -e "$(dirname "$list")" ] || fail "spaces $keep: the list or its directory is left: $list"
    cases=$((cases + 1))
done
[ "$(ls "$DIR" | wc -l)" = 3 ] || fail "--keep: expected the 3 test files kept: $(ls "$DIR")"
rm -f "$DIR"/_tiotest_*
ok "FSBENCH_FILES_LIST: one path per line, spaces and all; removed at the end, --keep or not"

# --json -: nothing but the JSON on stdout, whatever the command prints
"$FSBENCH" tiotest -t 2 -f 1 -r 10 -d "$DIR" --json - \
    --between-phases 'echo "hello from the hook"; echo "err from the hook" >&2; printf "no newline"' > out 2> err ||
    fail "--json -: exit $?: $(cat err)"
# (the hook's text is in the JSON's command line, so: one JSON document and nothing else)
jq -e -s 'length == 1 and (.[0].phases | length == 4)' out > /dev/null && [ "$(head -c 1 out)" = "{" ] ||
    fail "--json -: stdout is not the JSON alone: $(head -c 300 out)"
[ "$(grep -c 'hello from the hook' err)" = 3 ] && [ "$(grep -c 'err from the hook' err)" = 3 ] ||
    fail "--json -: the command's output is not on stderr: $(cat err)"
no_files "$DIR"
cases=$((cases + 1))
# without --json - the command's stdout stays stdout
"$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" -T --between-phases 'echo "hello from the hook"' > out 2> err ||
    fail "plain: exit $?: $(cat err)"
[ "$(grep -c 'hello from the hook' out)" = 3 ] || fail "plain: the command's stdout: $(cat out)"
cases=$((cases + 1))
ok "--json -: the command's stdout goes to stderr; otherwise to stdout"

# SIGTERM while the command sleeps: fsbench ends at once (143), the command with it, no files
"$FSBENCH" tiotest -t 2 -f 1 -r 10 -d "$DIR" -T --between-phases 'echo $$ > "$LOG.pid"; exec sleep 600' > out 2> err &
pid=$!
for i in $(seq 100); do [ -s "$LOG.pid" ] && break; nap 0.05; done
[ -s "$LOG.pid" ] || { kill -KILL $pid; fail "the command did not start: $(cat err)"; }
kill -TERM $pid
for i in $(seq 100); do kill -0 $pid 2> /dev/null || break; nap 0.05; done
if kill -0 $pid 2> /dev/null; then kill -KILL $pid; kill -KILL "$(cat "$LOG.pid")"; fail "still waiting for the command 5 s after SIGTERM"; fi
wait $pid; rc=$?
[ "$rc" = 143 ] || fail "SIGTERM during the command: exit $rc, expected 143: $(cat err)"
! kill -0 "$(cat "$LOG.pid")" 2> /dev/null || { kill -KILL "$(cat "$LOG.pid")"; fail "the command outlived the run"; }
no_files "$DIR"
cases=$((cases + 1))
ok "SIGTERM during the command: exit 143 at once, the command stopped, no files"

# a -d with a newline cannot be listed one per line: bad input
NL="$SCRATCH/new
line"
mkdir -p "$NL"
"$FSBENCH" tiotest -t 1 -f 1 -d "$NL" --between-phases true > out 2> err; rc=$?
[ "$rc" = 2 ] && grep -q 'newline' err || fail "-d with a newline: exit $rc: $(cat err)"
[ -z "$(ls -A "$NL")" ] || fail "-d with a newline: files created"
cases=$((cases + 1))
ok "$cases between-phases cases"
