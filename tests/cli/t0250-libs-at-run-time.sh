#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0250: cairo, libblkid and libmount are loaded at run time (sys/dl.h), cairo only by the
# commands that draw, libblkid and libmount only by matrix. No binary links them (no NEEDED
# entry in fsbench, the test build, fsbench-mpi); `--version`, a small tiotest run and compare
# load none of them (the dynamic loader's own list of the objects it opens, LD_DEBUG=files);
# plot loads cairo, matrix --dry-run libblkid and libmount. With a libcairo.so.2 that is no
# cairo first in the loader's path (LD_LIBRARY_PATH, this process only: an empty file; a shared
# object without cairo's functions), every command that draws (plot, report, history trend -o,
# matrix) fails with one line and exit 3 before it writes or sets up anything, and the other
# commands still work; with an empty libmount.so.1 or libblkid.so.1, matrix the same.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
export HOME=$SCRATCH
dir=/dev/shm
[ -d "$dir" ] && [ -w "$dir" ] || dir=$SCRATCH
d=$(mktemp -d "$dir/fsbench-t0250.XXXXXX") || fail "mktemp"
trap 'rm -rf "$d"; _lib_cleanup' EXIT

# NEEDED entries: cairo is no longer linked
if command -v readelf > /dev/null 2>&1; then
    for b in "$FSBENCH" "$FSBENCH_TEST" "${FSBENCH_MPI:-}"; do
        [ -n "$b" ] && [ -x "$b" ] || continue
        readelf -d "$b" > needed.txt || fail "readelf $b"
        grep -q 'NEEDED.*libjansson' needed.txt || fail "$b: readelf shows no libjansson: $(cat needed.txt)"
        ! grep -qE 'NEEDED.*lib(cairo|blkid|mount)' needed.txt ||
            fail "$b links $(grep -E 'NEEDED.*lib(cairo|blkid|mount)' needed.txt)"
    done
    ok "no binary links cairo, libblkid or libmount"
fi

# loaded: every object the dynamic loader opened for one command, dlopen'd ones included
loaded() {
    rm -f ld.*
    LD_DEBUG=files LD_DEBUG_OUTPUT=$SCRATCH/ld "$@" > /dev/null 2> /dev/null
    local rc=$?
    cat ld.* > ld.txt 2> /dev/null
    grep -q 'file=libjansson' ld.txt || fail "LD_DEBUG=files shows nothing for $*: $(head -c 300 ld.txt)"
    return $rc
}
none() { ! grep -E 'file=lib(cairo|blkid|mount|selinux)' ld.txt || fail "$1 loads them"; }
loaded fsb --version || fail "--version"
none --version
loaded fsb tiotest -t 1 -f 1 -r 20 -d "$d" --quiet --json a.json || fail "tiotest"
none tiotest
fsb tiotest -t 1 -f 1 -r 20 -b 1024 -d "$d" --quiet --json b.json > /dev/null || fail "tiotest b"
loaded fsb compare a.json b.json
none compare
# the method sees them when they are loaded
loaded fsb plot -o p.png a.json || fail "plot"
grep -q 'file=libcairo.so.2' ld.txt || fail "plot does not show cairo loaded: $(grep file= ld.txt | head)"
[ -s p.png ] || fail "no p.png"
mx=(matrix --fs ext4 --mount-opts noatime --repeat 1 --size 320 -o "$SCRATCH/mx" -- tiotest -t 1 -f 1 -r 20)
loaded fsb matrix --dry-run "${mx[@]:1}" || fail "matrix --dry-run"
grep -q 'file=libmount.so.1' ld.txt && grep -q 'file=libblkid.so.1' ld.txt ||
    fail "matrix does not show libmount and libblkid loaded: $(grep file= ld.txt | head)"
[ ! -e "$SCRATCH/mx" ] || fail "matrix --dry-run made its directory"
ok "cairo loaded by plot, libblkid and libmount by matrix, none by --version, tiotest or compare"

# a matrix directory and a history database to draw from, made with cairo there
mx_base tiotest base.json
printf 'a fs=ext4 1.0 0.03\nb fs=xfs 1.0 0.03\n' | mx_make m base.json 3 3 fs
fsb report --db h.db m > /dev/null || fail "report"
ls -lR --time-style=full-iso m > m.before

# lib/: an empty file; so/: a shared object named libcairo.so.2 without cairo's functions
mkdir lib so && : > lib/libcairo.so.2
# (a copy of libinih, which fsbench links: compiling a stub was most of this test's CPU)
inih=$(ldd "$FSBENCH" | awk '$1 == "libinih.so.1" && $3 ~ /^\// { print $3 }')
if [ -n "$inih" ]; then
    cp "$inih" so/libcairo.so.2 || fail "cp $inih"
elif command -v cc > /dev/null 2>&1; then
    echo 'int fsbench_t0250_not_cairo(void) { return 0; }' > so/x.c
    cc -shared -fPIC -Wl,-soname,libcairo.so.2 -o so/libcairo.so.2 so/x.c || fail "cc"
fi
# one line from fsbench (under make asan, LeakSanitizer may add its own), nothing written
refused() {
    local what=$1
    shift
    expect_exit 3 env LD_LIBRARY_PATH=$SCRATCH/$what "$@" 2> err.txt > out.txt
    [ "$(grep -c fsbench err.txt)" = 1 ] || fail "$*: not one line: $(cat err.txt)"
    grep -q "^fsbench [a-z]*: cannot draw: .*libcairo.so.2.*(Debian package libcairo2)$" err.txt ||
        fail "$*: $(cat err.txt)"
}
for what in lib so; do
    [ -e $what/libcairo.so.2 ] || continue
    refused $what "$FSBENCH" plot -o x.png a.json
    refused $what "$FSBENCH" plot -o x.svg a.json b.json
    [ ! -e x.png ] && [ ! -e x.svg ] || fail "$what: a refused plot left a file"
    refused $what "$FSBENCH" report --db h.db m
    ls -lR --time-style=full-iso m > m.after
    cmp -s m.before m.after || fail "$what: report touched the directory: $(diff m.before m.after)"
    refused $what "$FSBENCH" history --db h.db trend write.rate_mib_per_s -o t.png
    [ ! -e t.png ] || fail "$what: trend left a file"
    refused $what "$FSBENCH" "${mx[@]}"
    [ ! -e "$SCRATCH/mx" ] || fail "$what: matrix made its directory"
    # the rest works without cairo
    LD_LIBRARY_PATH=$SCRATCH/$what fsb --version > /dev/null || fail "$what: --version"
    LD_LIBRARY_PATH=$SCRATCH/$what fsb tiotest -t 1 -f 1 -r 20 -d "$d" --quiet --json c.json > /dev/null 2>&1 ||
        fail "$what: tiotest"
    LD_LIBRARY_PATH=$SCRATCH/$what fsb compare a.json c.json > /dev/null || fail "$what: compare"
    LD_LIBRARY_PATH=$SCRATCH/$what fsb history --db h.db list > /dev/null || fail "$what: history list"
    grep -q "no function cairo_arc\|file too short\|invalid ELF" err.txt || fail "$what: reason: $(cat err.txt)"
done
grep -q 'no function cairo_arc' err.txt || [ ! -e so/libcairo.so.2 ] || fail "so: reason: $(cat err.txt)"
ok "without cairo: plot, report, history trend -o and matrix exit 3 with one line, nothing written"

for lib in libmount.so.1 libblkid.so.1; do
    rm -rf bad && mkdir bad && : > bad/$lib
    expect_exit 3 env LD_LIBRARY_PATH=$SCRATCH/bad "$FSBENCH" "${mx[@]}" 2> err.txt > out.txt
    [ "$(grep -c fsbench err.txt)" = 1 ] || fail "$lib: not one line: $(cat err.txt)"
    grep -q "^fsbench matrix: .*$lib: file too short (Debian package ${lib%.so.1}1)$" err.txt ||
        fail "$lib: $(cat err.txt)"
    [ ! -e "$SCRATCH/mx" ] || fail "$lib: matrix made its directory"
    LD_LIBRARY_PATH=$SCRATCH/bad fsb tiotest -t 1 -f 1 -r 20 -d "$d" --quiet > /dev/null 2>&1 ||
        fail "$lib: tiotest"
done
ok "without libmount or libblkid: matrix exits 3 with one line, tiotest runs"
