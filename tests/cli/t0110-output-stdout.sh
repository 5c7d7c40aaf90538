#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0110: standard output and the descriptors a user names. For each command (tiotest,
# fs_mark, compare):
#  - --json /dev/stdout > out.txt: out.txt holds the JSON alone (valid), /dev/stdout is still
#    the system's symlink (it was once renamed over); --json - the same;
#  - --json /dev/full: exit 1 naming the file and "No space left on device";
#  - > /dev/full (stdout itself, also for `fsbench --help` and `list`): exit 1 naming
#    standard output and ENOSPC, not exit 0 with the results lost;
#  - fs_mark -l /dev/full: exit 1, ENOSPC; fs_mark with stdout and stderr closed (>&- 2>&-)
#    writes the header exactly once to its log (the log once became fd 1 and got it twice).
. "$(dirname "$0")/lib.sh"
need_cmd jq
DIR=$SCRATCH/d
mkdir -p "$DIR" "$SCRATCH/res"
fsb tiotest -t 1 -f 1 -r 10 -d "$SCRATCH/res" -T --quiet --json "$SCRATCH/res/a.json" > /dev/null ||
    fail "making a result"
A=$SCRATCH/res/a.json
cases=0

run() {
    local cmd=$1; shift
    case $cmd in
    tiotest) "$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" -T --quiet "$@" ;;
    fs_mark) "$FSBENCH" fs_mark -d "$DIR/fsm" -n 10 -s 0 -l "$SCRATCH/fs_log.txt" --quiet "$@" ;;
    compare) "$FSBENCH" compare "$@" "$A" "$A" ;;
    esac
}

# the system's own link: fsbench must never replace it (checked after every case)
stdout_link=$(readlink /dev/stdout)
[ -n "$stdout_link" ] || skip "/dev/stdout is not a symlink here"
link_intact() {
    [ -L /dev/stdout ] && [ "$(readlink /dev/stdout)" = "$stdout_link" ] && return
    local was
    was=$(ls -l /dev/stdout)
    # a regression must not leave the machine without its /dev/stdout (run as root)
    rm -f /dev/stdout && ln -s "$stdout_link" /dev/stdout
    fail "$1: /dev/stdout was no longer the symlink to $stdout_link (repaired): $was"
}

# err_has TEXT: the last stderr holds TEXT (grep -q's answer, without a grep)
err_has() {
    local err=
    IFS= read -r -d '' err < "$SCRATCH/err"
    [[ $err == *"$1"* ]]
}

# each --json DEST's output in its own file, all checked by one jq after the loop (a jq each
# was a fifth of the test's CPU); outs_what names them for the message
outs=() outs_what=()
for cmd in tiotest fs_mark compare; do
    for dest in /dev/stdout - /dev/fd/1 /proc/self/fd/1; do
        cases=$((cases + 1))
        out=$SCRATCH/out-$cases.txt
        run $cmd --json "$dest" > "$out" 2> "$SCRATCH/err" || fail "$cmd --json $dest: exit $?: $(cat "$SCRATCH/err")"
        link_intact "$cmd --json $dest"
        # empty, it would vanish among the others: checked here
        [ -f "$out" ] && [ -s "$out" ] || fail "$cmd --json $dest > out.txt: not the JSON alone: empty"
        outs+=("$out") outs_what+=("$cmd --json $dest")
    done
    cases=$((cases + 1))
    run $cmd --json /dev/full > /dev/null 2> "$SCRATCH/err"; rc=$?
    [ "$rc" = 1 ] && err_has "cannot write '/dev/full': No space left on device" ||
        fail "$cmd --json /dev/full: exit $rc: $(cat "$SCRATCH/err")"
    [ -c /dev/full ] || fail "$cmd --json /dev/full: /dev/full is no longer a device"
    for args in "" "--json $SCRATCH/out.json"; do
        cases=$((cases + 1))
        # shellcheck disable=SC2086
        run $cmd $args > /dev/full 2> "$SCRATCH/err"; rc=$?
        [ "$rc" = 1 ] && err_has "cannot write standard output: No space left on device" ||
            fail "$cmd $args > /dev/full: exit $rc, expected 1 naming ENOSPC: $(cat "$SCRATCH/err")"
    done
done
for args in --help list --version "tiotest --help" "fs_mark --help" "compare --help" "plot --help"; do
    cases=$((cases + 1))
    # shellcheck disable=SC2086
    "$FSBENCH" $args > /dev/full 2> "$SCRATCH/err"; rc=$?
    [ "$rc" = 1 ] && err_has "standard output: No space left on device" ||
        fail "fsbench $args > /dev/full: exit $rc: $(cat "$SCRATCH/err")"
done
if ! jq -e . "${outs[@]}" > /dev/null 2>&1; then
    for i in "${!outs[@]}"; do
        jq -e . "${outs[i]}" > /dev/null ||
            fail "${outs_what[i]} > out.txt: not the JSON alone: $(head -c 300 "${outs[i]}")"
    done
    fail "the --json outputs together are not JSON values: ${outs[*]}"
fi
ok "standard output: JSON alone through 4 names, ENOSPC on a file and on stdout ($cases cases)"

cases=$((cases + 1))
run fs_mark -l /dev/full > /dev/null 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] && grep -q "'/dev/full': No space left on device" "$SCRATCH/err" ||
    fail "fs_mark -l /dev/full: exit $rc: $(cat "$SCRATCH/err")"
[ -z "$(ls -A "$DIR")" ] || fail "fs_mark -l /dev/full: files left: $(ls -A "$DIR")"
ok "fs_mark -l /dev/full: exit 1, ENOSPC"

for closed in '>&-' '2>&- > /dev/null' '>&- 2>&-'; do
    cases=$((cases + 1))
    rm -f "$SCRATCH/fs_log.txt"
    eval "\"\$FSBENCH\" fs_mark -d \"\$DIR/fsm\" -n 10 -s 0 -l \"\$SCRATCH/fs_log.txt\" --quiet $closed"
    n=$(grep -c '^#  fs_mark' "$SCRATCH/fs_log.txt")
    [ "$n" = 1 ] || fail "fs_mark $closed: the header is $n times in the log: $(cat "$SCRATCH/fs_log.txt")"
    [ "$(grep -c '^ *[0-9]' "$SCRATCH/fs_log.txt")" = 1 ] || fail "fs_mark $closed: rows: $(cat "$SCRATCH/fs_log.txt")"
done
ok "fs_mark with stdout/stderr closed: the header once in the log"
ok "$cases cases"
