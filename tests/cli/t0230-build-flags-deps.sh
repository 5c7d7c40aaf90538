#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0230: the build respects and appends to the caller's flags, so dpkg-buildflags' hardening
# applies: with CPPFLAGS=-D_FORTIFY_SOURCE=3 CFLAGS=-O2 LDFLAGS=-Wl,-z,now every compile line
# (V=1) carries both and every link line LDFLAGS; one object is really compiled that way. Every
# library comes through pkg-config (cairo, blkid, mount: their headers only, they are loaded at
# run time). A plain `make` installs nothing: with a build package missing it names it with the
# apt-get line and stops, even as root, without calling apt-get.
. "$(dirname "$0")/lib.sh"
unsanitized_only
need_cmd make
need_cmd pkg-config
TOP=$(cd "$TESTS_DIR/.." && pwd)
B=$SCRATCH/b
FLAGS=(CPPFLAGS=-D_FORTIFY_SOURCE=3 CFLAGS=-O2 LDFLAGS=-Wl,-z,now)

make -C "$TOP" -n V=1 BUILD="$B" BIN="$B/fsbench" "${FLAGS[@]}" "$B/fsbench" "$B/fsbench-test" > lines 2> err ||
    fail "make -n: $(cat err)"
# a recipe's continued lines joined
sed -i -e ':a' -e '/\\$/N; s/\\\n//; ta' lines
grep -E '^(cc|gcc|\S*gcc) .* -c ' lines > compile || true
grep -E '^(cc|gcc|\S*gcc) .* -o \S*fsbench(-test)? ' lines > link || true
[ "$(wc -l < compile)" -gt 50 ] || fail "only $(wc -l < compile) compile lines in make -n V=1"
[ "$(wc -l < link)" = 2 ] || fail "$(wc -l < link) link lines, expected 2"
! grep -v -- '-D_FORTIFY_SOURCE=3' compile | grep -q . || fail "a compile line without CPPFLAGS: $(grep -v -- -D_FORTIFY_SOURCE=3 compile | head -1)"
! grep -v -- ' -O2 ' compile | grep -q . || fail "a compile line without CFLAGS: $(grep -v -- ' -O2 ' compile | head -1)"
# appended: the caller's flags come after fsbench's own (-std=gnu11 ... -O2)
! grep -v -- '-std=gnu11 .* -O2' compile | grep -q . || fail "CFLAGS not after fsbench's flags: $(head -1 compile)"
! grep -v -- '-Wl,-z,now' link | grep -q . || fail "a link line without LDFLAGS: $(head -1 link)"
for p in jansson zlib inih sqlite3 liburing; do
    for l in $(pkg-config --libs "$p"); do
        grep -qF -- " $l" link || fail "$p: '$l' (pkg-config --libs $p) not on the link line"
    done
done
# cairo, blkid, mount: their headers through pkg-config, never linked (sys/dl.h loads them)
for f in $(pkg-config --cflags cairo blkid mount); do
    grep -qF -- " $f" compile || fail "'$f' (pkg-config --cflags cairo blkid mount) not on the compile lines"
done
! grep -qE -- ' -l(cairo|blkid|mount)( |$)' link || fail "linked: $(grep -m1 -oE -- ' -l(cairo|blkid|mount)( |$)' link)"
ok "$(wc -l < compile) compile lines with -D_FORTIFY_SOURCE=3 and -O2, the link lines with LDFLAGS and pkg-config's libraries"

# one object for real, printed as make prints it with V=1
make -C "$TOP" V=1 BUILD="$B" BIN="$B/fsbench" "${FLAGS[@]}" "$B/obj/core/quote.o" > out 2> err ||
    fail "make V=1 $B/obj/core/quote.o: $(tail -3 err)"
grep -E -- '-D_FORTIFY_SOURCE=3.* -O2 .*-c -o \S*quote\.o' out > /dev/null || fail "the compile line: $(cat out)"
[ -f "$B/obj/core/quote.o" ] || fail "no object"
ok "an object compiled with them"

# a package missing: dpkg-query says libjansson-dev is not installed; apt-get must not run.
# The fake answers each package in the format asked for (deps.sh asks once for them all).
mkdir -p fake
cat > fake/dpkg-query <<'SH'
#!/bin/bash
fmt= rc=0
for a; do
    case $a in
    -W) ;;
    -f=*) fmt=${a#-f=} ;;
    libjansson-dev) rc=1 ;;
    *) out=${fmt//'${Status}'/install ok installed}; out=${out//'${Package}'/$a}
       printf '%b' "${out//'${binary:Package}'/$a}" ;;
    esac
done
exit $rc
SH
printf '#!/bin/sh\ntouch "%s/apt-called"\nexit 0\n' "$SCRATCH" > fake/apt-get
chmod +x fake/*
PATH=$SCRATCH/fake:$PATH make -C "$TOP" BUILD="$SCRATCH/b2" BIN="$SCRATCH/b2/fsbench" "$SCRATCH/b2/fsbench" > out 2> err; rc=$?
[ "$rc" = 2 ] || fail "make with libjansson-dev missing: exit $rc, expected make's 2"
[ ! -e apt-called ] || fail "a plain make called apt-get"
grep -q "apt-get install libjansson-dev" err || fail "make did not say what to install: $(cat err)"
[ ! -e "$SCRATCH/b2/obj" ] || fail "make compiled without its packages"
ok "a plain make with a package missing: $(grep -c . err) lines on stderr, exit $rc, no apt-get"
