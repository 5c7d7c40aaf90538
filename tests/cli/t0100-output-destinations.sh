#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0100: every output destination is checked before anything runs, by the rules of OUTPUT
# FILES in fsbench(1). For each command that writes files (tiotest, fs_mark: --json, the
# --profile-callgraph folded file, fs_mark's -l; compare --json; plot -o) and each refused
# destination (a symlink to a root-owned 0600 file, a dangling symlink, a symlink planted at
# the derived X.folded, a directory, a missing parent, an over-long name, a name in /dev or
# /proc, a descriptor that is not open, /dev/stdin's link, a /proc knob as the log): exit 2,
# one line on stderr naming the option and the path, nothing on stdout, nothing created, the
# link's target unchanged and the link still a link.
. "$(dirname "$0")/lib.sh"
need_cmd jq
DIR=$SCRATCH/d CWD=$SCRATCH/cwd OUT=$SCRATCH/out
mkdir -p "$DIR" "$CWD" "$OUT"
VICTIM=$SCRATCH/victim
printf 'precious: root only\n' > "$VICTIM"
chmod 600 "$VICTIM"
cp -p "$VICTIM" "$SCRATCH/victim.orig"
VICTIM_TEXT=$(< "$VICTIM")
ln -s "$VICTIM" "$OUT/link.json"
ln -s "$VICTIM" "$OUT/link.png"
ln -s "$VICTIM" "$OUT/planted.folded"
ln -s "$SCRATCH/created-through-link" "$OUT/dangling.json"
mkdir "$OUT/dir.folded"
LONG=$OUT/$(printf 'n%.0s' $(seq 300)).json
# two results for compare and plot, made before the cases (in their own directory)
mkdir -p "$SCRATCH/res"
fsb tiotest -t 1 -f 1 -r 10 -d "$SCRATCH/res" -T --quiet --json "$SCRATCH/res/a.json" > /dev/null ||
    fail "making a result"
A=$SCRATCH/res/a.json
cases=0

# run CMD ARGS...: the command with small settings, from CWD (fs_mark's default log lands
# there; the test works there, no subshell to cd), its test directory under DIR
cd "$CWD" || fail "cd $CWD"
run() {
    local cmd=$1; shift
    case $cmd in
    tiotest) "$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" -T --quiet "$@" ;;
    fs_mark) "$FSBENCH" fs_mark -d "$DIR/fsm" -n 10 -s 0 --quiet "$@" ;;
    compare) "$FSBENCH" compare "$@" "$A" "$A" ;;
    plot) "$FSBENCH" plot "$@" "$A" ;;
    esac
}

# refused CMD REGEX ARGS...: exit 2 before running, one line matching REGEX, nothing made.
# The checks use the shell's own means (mapfile, [[ =~ ]], globs) where they can: they were
# 12 processes a case, 35 cases, most of the test's CPU.
refused() {
    local cmd=$1 re=$2 rc lines names=() e; shift 2
    cases=$((cases + 1))
    run "$cmd" "$@" < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"; rc=$?
    [ "$rc" = 2 ] || fail "$cmd $*: exit $rc, expected 2; stderr: $(cat "$SCRATCH/stderr")"
    mapfile -t lines < "$SCRATCH/stderr"
    [ ${#lines[@]} = 1 ] && [[ ${lines[0]} =~ $re ]] ||
        fail "$cmd $*: expected one line matching /$re/: $(cat "$SCRATCH/stderr")"
    [ ! -s "$SCRATCH/stdout" ] || fail "$cmd $*: printed: $(head -3 "$SCRATCH/stdout")"
    ! has_entries "$DIR" || fail "$cmd $*: the run started: $(ls -A "$DIR")"
    ! has_entries "$CWD" || fail "$cmd $*: created in the working directory: $(ls -A "$CWD")"
    for e in "$OUT"/* "$OUT"/.[!.]* "$OUT"/..?*; do [ -e "$e" ] || [ -L "$e" ] && names+=("${e##*/}"); done
    [ "${names[*]}" = "dangling.json dir.folded link.json link.png planted.folded" ] ||
        fail "$cmd $*: the output directory changed: $(ls -lA "$OUT")"
    [ -L "$OUT/link.json" ] && [ -L "$OUT/planted.folded" ] && [ -L "$OUT/link.png" ] &&
        [ -L "$OUT/dangling.json" ] || fail "$cmd $*: a link was replaced"
    IFS= read -r -d '' e < "$VICTIM"
    [ "$e" = "$VICTIM_TEXT"$'\n' ] && [ "$(stat -c %a "$VICTIM")" = 600 ] ||
        fail "$cmd $*: the link's target changed"
    [ ! -e "$SCRATCH/created-through-link" ] || fail "$cmd $*: a dangling link's target was created"
}

for cmd in tiotest fs_mark; do
    refused $cmd "option --json: cannot write '$OUT/link.json': is a symbolic link" --json "$OUT/link.json"
    refused $cmd "option --json: .*dangling.json.*symbolic link" --json "$OUT/dangling.json"
    # the folded path is derived from --json as the writer derives it: r.json -> r.folded
    refused $cmd "option --profile-callgraph: cannot write '$OUT/planted.folded': is a symbolic link" \
        --profile-callgraph --json "$OUT/planted.json"
    refused $cmd "option --profile-callgraph: cannot write '$OUT/dir.folded': Is a directory" \
        --profile-callgraph --json "$OUT/dir.json"
    refused $cmd "option --profile-folded: .*link.json.*symbolic link" \
        --profile-callgraph --profile-folded "$OUT/link.json"
    refused $cmd "option --profile-folded: .*missing/r.folded.*No such file" \
        --profile-callgraph --json "$OUT/r.json" --profile-folded "$SCRATCH/missing/r.folded"
    refused $cmd "option --json: .*File name too long" --json "$LONG"
    refused $cmd "option --json: cannot write '$OUT': Is a directory" --json "$OUT"
    refused $cmd "option --json: .*No such file" --json "$SCRATCH/missing/r.json"
    refused $cmd "option --json: cannot write '/dev/fsbench-t0100.json': is in /dev" --json /dev/fsbench-t0100.json
    refused $cmd "option --json: .*is on a proc filesystem" --json /proc/self/fsbench-t0100.json
    refused $cmd "option --json: cannot write '/dev/fd/9': file descriptor 9 is not open" --json /dev/fd/9
    refused $cmd "option --json: cannot write '/dev/stdin': is a symbolic link" --json /dev/stdin
done
refused fs_mark "option -l: cannot write '$OUT/link.json': is a symbolic link" -l "$OUT/link.json"
refused fs_mark "option -l: cannot write '$OUT': Is a directory" -l "$OUT"
refused fs_mark "option -l: .*missing/log.*No such file" -l "$SCRATCH/missing/log"
refused fs_mark "option -l: .*is on a proc filesystem" -l /proc/sys/vm/drop_caches
refused fs_mark "option -l: .*File name too long" -l "$LONG"
refused compare "option --json: cannot write '$OUT/link.json': is a symbolic link" --json "$OUT/link.json"
refused compare "option --json: .*No such file" --json "$SCRATCH/missing/c.json"
refused plot "option -o: cannot write '$OUT/link.png': is a symbolic link" -o "$OUT/link.png"
refused plot "option -o: .*No such file" -o "$SCRATCH/missing/p.png"
ok "$cases refused destinations: exit 2 before running, nothing created, no link followed"

# the same destinations made right are written (a regular file replaced, a new one created)
printf 'old\n' > "$OUT/r.json"
run tiotest --json "$OUT/r.json" > /dev/null || fail "tiotest --json: exit $?"
jq -e .schema "$OUT/r.json" > /dev/null || fail "tiotest --json: not a result"
run fs_mark -l "$OUT/fsm.log" --json "$OUT/f.json" > /dev/null || fail "fs_mark -l --json: exit $?"
jq -e .schema "$OUT/f.json" > /dev/null && grep -q '^#  fs_mark' "$OUT/fsm.log" || fail "fs_mark outputs"
run plot -o "$OUT/p.png" > /dev/null || fail "plot -o: exit $?"
run compare --json "$OUT/c.json" > /dev/null && jq -e . "$OUT/c.json" > /dev/null || fail "compare --json"
ls -A "$OUT" | grep -q '\.tmp\.' && fail "temporary left: $(ls -A "$OUT")"
ok "writable destinations are written, no temporary left"
