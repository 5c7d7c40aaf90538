#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0130: values from the command line echoed in error messages are escaped: a newline, an
# escape sequence (colour, window title), a C1 control or an invalid byte in an option value,
# an argument, an option name or an output path never reaches the terminal raw. Each case:
# one line on stderr, no ESC/C1/CR byte in it, the escaped form (\n, \x1b) present, exit 2.
. "$(dirname "$0")/lib.sh"
DIR=$SCRATCH/d
mkdir -p "$DIR"
NL=$'\n' ESC=$'\e' BEL=$'\a' CR=$'\r' CSI=$'\xc2\x9b' BAD=$'\xff'
cases=0

# escaped WANT CMD ARGS...: exit 2, one line, holding WANT (a fixed string), nothing raw. Run
# in $DIR; the checks are bash's own matching on the bytes (LC_ALL=C), not a process each.
escaped() {
    local rc
    cases=$((cases + 1))
    "$FSBENCH" "${@:2}" > /dev/null 2> "$SCRATCH/err"; rc=$?
    escaped_check "$rc" "$@"
}
escaped_check() {
    local LC_ALL=C rc=$1 want=$2 e nl
    shift 2
    [ "$rc" = 2 ] || fail "$(printf '%q ' "$@"): exit $rc, expected 2: $(od -c "$SCRATCH/err" | head -5)"
    IFS= read -r -d '' e < "$SCRATCH/err"
    nl=${e//[^$NL]/}
    [ "${#nl}" = 1 ] || fail "$(printf '%q ' "$@"): not one line: $(od -c "$SCRATCH/err" | head -8)"
    [[ $e != *[$ESC$BEL$CR]* && $e != *"$CSI"* && $e != *"$BAD"* ]] ||
        fail "$(printf '%q ' "$@"): a raw control byte in: $(od -c "$SCRATCH/err" | head -8)"
    [[ $e == *"$want"* ]] || fail "$(printf '%q ' "$@"): '$want' not in: $(cat "$SCRATCH/err")"
}
cd "$DIR" || fail "cd $DIR"

v="1${NL}${ESC}[31mred${ESC}]0;title${BEL}"
want='1\n\x1b[31mred\x1b]0;title\x07'
for cmd in tiotest "fs_mark -d $DIR/fsm"; do
    escaped "$want" $cmd -t "$v"
    escaped "$want" $cmd --threads="$v"
    escaped "$want" $cmd --interval "$v"
    escaped "$want" $cmd --repeat "$v"
    escaped 'x\r\xc2\x9b2J\xff' $cmd -t "x${CR}${CSI}2J${BAD}"
    escaped "'--x\\x1b[2J'" $cmd "--x${ESC}[2J"
    escaped "'-\\x1b'" $cmd "-${ESC}"
    escaped "'a\\nb'" $cmd "a${NL}b"
    escaped "'$SCRATCH/no\\ndir/r.json'" $cmd --json "$SCRATCH/no${NL}dir/r.json"
    escaped "'$SCRATCH/no\\x1b[1mdir/r.json'" $cmd --json "$SCRATCH/no${ESC}[1mdir/r.json"
    escaped "'$SCRATCH/no\\ndir/f'" $cmd --profile-callgraph --profile-folded "$SCRATCH/no${NL}dir/f"
done
escaped "'$SCRATCH/no\\ndir/log'" fs_mark -d "$DIR/fsm" -l "$SCRATCH/no${NL}dir/log"
escaped "'1\\n'" fs_mark -n "1${NL}"
escaped "'\\x1b[31m'" compare --fail-if-worse "${ESC}[31m" a b
escaped "'$SCRATCH/no\\ndir/c.json'" compare --json "$SCRATCH/no${NL}dir/c.json" a b
escaped "'$SCRATCH/no\\nfile.json'" compare "$SCRATCH/no${NL}file.json" b
escaped "'x\\n.jpg'" plot -o "x${NL}.jpg" a
escaped "'\\x1b'" plot --type "${ESC}" -o x.png a
escaped "'\\x1b'" plot --x "${ESC}" -o x.png a
escaped "'$SCRATCH/no\\ndir/p.png'" plot -o "$SCRATCH/no${NL}dir/p.png" a
escaped "'\\x1b[2J'" "${ESC}[2J"
ok "$cases messages echo their values escaped"
