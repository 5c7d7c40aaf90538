#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3510: fsbench mdtest's standard output, byte for byte once what varies is masked (dates,
# the command line, -d's path and size, each SUMMARY value at its width), against the output
# of the real mdtest (hpc/ior at 5fcf0ba, built with mpicc) for the same arguments, kept in
# tests/cli/mdtest-golden/NAME.txt; and the names a -C run leaves, against the real mdtest's
# tree-X.txt (find | sort of -d). tests/cli/mdtest_mask.pl is the mask both went through.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
G=$TESTS_DIR/cli/mdtest-golden
MASK=$TESTS_DIR/cli/mdtest_mask.pl
[ -f "$G/all.txt" ] || fail "no golden files in $G"
D=$SCRATCH/d

golden() {
    local name=$1; shift
    fsb mdtest "$@" -d "$D" > "$SCRATCH/$name.out" 2> "$SCRATCH/$name.err" ||
        fail "$name: exit $?: $(cat "$SCRATCH/$name.err")"
    perl "$MASK" "$SCRATCH/$name.out" > "$SCRATCH/$name.m"
    diff -u "$G/$name.txt" "$SCRATCH/$name.m" || fail "$name ($*): output differs from mdtest's"
    [ -z "$(not_warnings "$SCRATCH/$name.err")" ] || fail "$name: stderr: $(cat "$SCRATCH/$name.err")"
    ok "$name: $*"
}

golden all -n 10
golden files3 -n 20 -F -i 3 -z 2 -b 2 -P
golden dirsleaf -n 12 -D -Z -z 1 -b 3 -L
golden shared -n 10 -F -S
golden rand -n 8 -w 100 -e 100 -F -R --random-seed 7
golden uniq -n 30 -u -z 2 -b 2 -i 2
golden renm -n 10 -D -C -U -r
golden ipd -I 3 -z 1 -b 2
[ ! -e "$D" ] || fail "-d left behind by a run with -r: $(ls -A "$D")"
golden createonly -n 5 -C
[ -d "$D/test-dir.0-0" ] || fail "-C without -r removed its tree"
rm -rf "$D"

# the names: what -C leaves is what mdtest's -C leaves
tree() {
    local name=$1; shift
    fsb mdtest "$@" -C -d "$D" > /dev/null 2> "$SCRATCH/err" || fail "tree $name: exit $?: $(cat "$SCRATCH/err")"
    (cd "$D" && find . | LC_ALL=C sort) > "$SCRATCH/tree"
    LC_ALL=C sort "$G/tree-$name.txt" | diff -u - "$SCRATCH/tree" || fail "tree $name ($*): names differ from mdtest's"
    # and a later -r run removes them all, -d included (mdtest removes -d only if it made it:
    # here -d exists, so it stays, empty)
    fsb mdtest "$@" -r -d "$D" > /dev/null 2> "$SCRATCH/err" || fail "tree $name -r: exit $?: $(cat "$SCRATCH/err")"
    [ -z "$(ls -A "$D")" ] || fail "tree $name: -r left $(ls -A "$D")"
    rm -rf "$D"
    ok "names of $*"
}
tree a -n 20 -z 2 -b 2
tree b -n 20 -z 2 -b 2 -L -u
tree c -I 3 -z 3 -b 2 -F
tree d -n 7 -w 10 -S
tree e -n 10 -z 3 -b 1 -L -D
