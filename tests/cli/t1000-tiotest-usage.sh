#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: slow (one of the longest: started first so that it does not end the parallel part alone)
# t1000: tiotest usage errors. Every bad-input class (junk, negative, zero where invalid,
# overflow, unknown option, missing value, -k 4, out of range, bad size suffix, suffix on a
# short option, bs > file size, bad -d) ends with exactly one line on stderr that names the
# option or the problem, nothing on stdout, exit 2, and nothing created on disk (neither in
# the -d directory nor in the working directory, the default target).
# Also: -h prints help on stdout and exits 1 (as tiotest does), --help exits 0, `fsbench`
# alone and an unknown command exit 2. (-F without root: t1001.)
. "$(dirname "$0")/lib.sh"

DIR=$SCRATCH/dir CWD=$SCRATCH/cwd
mkdir -p "$DIR" "$CWD"
echo "not a directory" > "$SCRATCH/afile"
cases=0
cd "$CWD" || fail "cd $CWD"

# bad CODE REGEX ARGS...: fsbench tiotest ARGS fails with CODE, one stderr line matching REGEX.
# The checks are bash builtins (a grep, wc and ls per case were most of this test's time): err
# read whole, its newlines counted as wc -l does, the line matched with [[ =~ ]] (ERE, as grep
# -E), the two directories' entries (dot files too) globbed; fsbench runs in $CWD, where the
# test works, without a subshell to cd.
bad() {
    local code=$1 re=$2 rc err nl left ents; shift 2
    cases=$((cases + 1))
    "$FSBENCH" tiotest "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
    rc=$?
    IFS= read -r -d '' err < "$SCRATCH/err"
    [ "$rc" = "$code" ] || fail "tiotest $*: exit $rc, expected $code; stderr: $err"
    [ ! -s "$SCRATCH/out" ] || fail "tiotest $*: wrote to stdout: $(head -3 "$SCRATCH/out")"
    nl=${err//[!$'\n']/}
    [ "${#nl}" = 1 ] || fail "tiotest $*: expected exactly one line on stderr, got: $err"
    [[ $err == 'fsbench tiotest: '* ]] || fail "tiotest $*: message lacks the program name: $err"
    [[ $err =~ $re ]] || fail "tiotest $*: message does not match /$re/: $err"
    shopt -s nullglob dotglob
    ents=("$DIR"/* "$CWD"/*)
    shopt -u nullglob dotglob
    left=${ents[*]}
    [ -z "$left" ] || fail "tiotest $*: created in -d dir or cwd: $left"
}

S="-t 1 -f 1 -r 1"   # a valid small run, so that only the option under test is wrong

# junk
for o in -t -f -b -r -k -D -o; do bad 2 "option $o: 'abc' is not a whole number" $S -d "$DIR" $o abc; done
for o in --threads --random-ops --seed --debug; do bad 2 "option $o: 'abc'" $S -d "$DIR" $o abc; done
bad 2 "option --size: 'abc' is not a size" $S -d "$DIR" --size abc
bad 2 "option -f: '1.5'" $S -d "$DIR" -f 1.5
bad 2 "option -t: ' 2'" $S -d "$DIR" -t ' 2'
bad 2 "option -t: '\+2'" $S -d "$DIR" -t +2
bad 2 "option -f: '0x10'" $S -d "$DIR" -f 0x10
bad 2 "option -t: ''" $S -d "$DIR" -t ''
# negative
for o in -t -f -b -r -k -D; do bad 2 "option $o: '-1'" $S -d "$DIR" $o -1; done
bad 2 "option --size: '-1'" $S -d "$DIR" --size -1
# zero where invalid
for o in -t -f -b -r; do bad 2 "option $o: 0 is out of range" $S -d "$DIR" $o 0; done
bad 2 "option --size: 0 is out of range" $S -d "$DIR" --size 0
bad 2 "option --block-size: 0 is out of range" $S -d "$DIR" --block-size 0
bad 2 "option --random-ops: 0 is out of range" $S -d "$DIR" --random-ops=0
bad 2 "option -t: 0 is out of range" -t0 -f 1 -r 1 -d "$DIR"    # attached, as getopt takes it
# overflow
for o in -t -f -b -r -D -k; do bad 2 "option $o: '99999999999999999999' is too large" $S -d "$DIR" $o 99999999999999999999; done
bad 2 "option --seed: '18446744073709551616' is too large" $S -d "$DIR" --seed 18446744073709551616
# 2^44 MiB is 2^64 bytes: must not wrap around to 0
bad 2 "option -f: .*(too large|out of range)" $S -d "$DIR" -f 17592186044416
bad 2 "option --size: .*(too large|out of range)" $S -d "$DIR" --size 16777216t
# out of range
bad 2 "option -t: 4097 is out of range" $S -d "$DIR" -t 4097
bad 2 "option -D: 101 is out of range" $S -d "$DIR" -D 101
bad 2 "option -f: 1073741825 is out of range" $S -d "$DIR" -f 1073741825
bad 2 "option -b: 1073741825 is out of range" $S -d "$DIR" -b 1073741825
# -k takes 0..3 (tiotest: "Wrong test number 4")
bad 2 "option -k: 4 is out of range" $S -d "$DIR" -k 4
bad 2 "option -k: 4 is out of range" $S -d "$DIR" -k4
bad 2 "option --skip: 9 is out of range" $S -d "$DIR" --skip 9
# unknown option, stray argument
bad 2 "unknown option '-Z'" $S -d "$DIR" -Z
bad 2 "unknown option '-Z'" $S -d "$DIR" -LZ
bad 2 "unknown option '--bogus'" $S -d "$DIR" --bogus
bad 2 "unknown option '--size-x'" $S -d "$DIR" --size-x=1
bad 2 "unexpected argument 'extra'" $S -d "$DIR" extra
bad 2 "option --keep takes no value" $S -d "$DIR" --keep=1
# missing value (the option is the last argument)
for o in -t -f -b -r -k -d -D -o; do bad 2 "option $o needs a value" $S -d "$DIR" $o; done
for o in --threads --size --json --seed --between-phases --dir; do bad 2 "option $o needs a value" $S -d "$DIR" $o; done
# bad suffix on long size options
for v in 10x 1kk 1.5m k 1p 4KBs; do bad 2 "option --size: '$v' is not a size" $S -d "$DIR" --size "$v"; done
bad 2 "option --block-size: '4q' is not a size" $S -d "$DIR" --block-size 4q
bad 2 "option --raw-offset: '1z' is not a size" $S -d "$DIR" -R --raw-offset 1z
# a suffix on a short option is rejected (tiotest's atoi would silently read 10k as 10)
bad 2 "option -f: '10k' is not a whole number" $S -d "$DIR" -f 10k
bad 2 "option -b: '4k' is not a whole number" $S -d "$DIR" -b 4k
bad 2 "option -o: '1m' is not a whole number" $S -d "$DIR" -R -o 1m
# bs > file size (tiotest: SIGFPE)
bad 2 "block size 1048577 bytes is larger than the file size 1048576 bytes" $S -d "$DIR" -b 1048577
bad 2 "block size 8192 bytes is larger than the file size 4096 bytes" $S -d "$DIR" --size 4k --block-size 8k
# -d
bad 2 "option -d: cannot use '$SCRATCH/nonexistent': No such file or directory" $S -d "$SCRATCH/nonexistent"
bad 2 "option -d: '$SCRATCH/afile' is not a directory" $S -d "$SCRATCH/afile"
bad 2 "option -d: cannot use '$SCRATCH/nonexistent'" $S -t 2 -d "$DIR" -d "$SCRATCH/nonexistent"
bad 2 "option -d: empty value" $S -d ''
# cross-option constraints
bad 2 "option -c: .*32 bytes" $S -d "$DIR" -c -b 16
bad 2 "-X and -M" $S -d "$DIR" -X -M
bad 2 "-o and -O only apply to raw devices" $S -d "$DIR" -o 1
bad 2 "option -R: '$DIR' is not a block device" $S -d "$DIR" -R
# a bad option after --json FILE: the JSON file is not created either
bad 2 "option -t: 0 is out of range" $S -d "$DIR" --json "$DIR/out.json" -t 0
bad 2 "option -t: 0 is out of range" $S --json out.json -t 0
ok "$cases bad inputs: one line on stderr, exit 2, nothing created"

# the same parser accepts the valid forms getopt and the long options allow
(cd "$CWD" && "$FSBENCH" tiotest -t1 -f1 -r1 -k3 -LT -d "$DIR") > "$SCRATCH/out" || fail "valid clustered options rejected"
[ "$(wc -l < "$SCRATCH/out")" = 5 ] || fail "-LT: expected 5 terse lines: $(cat "$SCRATCH/out")"
"$FSBENCH" tiotest --threads=1 --size=512k --block-size=4k --random-ops=1 --terse --dir="$DIR" > "$SCRATCH/out" ||
    fail "valid long options rejected"
grep -qx 'write:0\.50000,.*' "$SCRATCH/out" || fail "--size=512k is not 0.5 MiB: $(cat "$SCRATCH/out")"
"$FSBENCH" tiotest -t 1 --size 1M -b 4096 -r 1 -T -d "$DIR" | grep -qx 'write:1\.00000,.*' || fail "--size 1M is not 1 MiB"
no_files "$DIR"
ok "valid forms accepted"

# help
"$FSBENCH" tiotest -h > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "-h: exit $rc, expected 1 (as tiotest)"
grep -q '^usage: fsbench tiotest' "$SCRATCH/out" || fail "-h: no usage on stdout"
grep -q -- '-f, --size' "$SCRATCH/out" || fail "-h: option list missing"
[ ! -s "$SCRATCH/err" ] || fail "-h wrote to stderr: $(cat "$SCRATCH/err")"
"$FSBENCH" tiotest --help > "$SCRATCH/out2" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 0 ] || fail "--help: exit $rc, expected 0"
cmp -s "$SCRATCH/out" "$SCRATCH/out2" || fail "-h and --help print different text"
[ ! -s "$SCRATCH/err" ] || fail "--help wrote to stderr"
ok "-h exits 1, --help exits 0, same text on stdout"

# the top level
"$FSBENCH" > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 2 ] || fail "fsbench without arguments: exit $rc, expected 2"
[ ! -s "$SCRATCH/out" ] || fail "fsbench without arguments wrote to stdout"
grep -q usage "$SCRATCH/err" || fail "fsbench without arguments: no usage on stderr"
"$FSBENCH" nosuchcommand > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 2 ] || fail "unknown command: exit $rc, expected 2"
[ "$(wc -l < "$SCRATCH/err")" = 1 ] && grep -q "nosuchcommand" "$SCRATCH/err" ||
    fail "unknown command: expected one line naming it: $(cat "$SCRATCH/err")"
[ ! -s "$SCRATCH/out" ] || fail "unknown command wrote to stdout"
ok "fsbench alone and an unknown command exit 2"
