#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: slow (one of the longest: started first so that it does not end the parallel part alone)
# t0245: the Debian packaging. debian/control's Build-Depends are deps.txt's build and mpi
# stages (less what build-essential brings). In a copy of the tree under the scratch directory
# `dpkg-buildpackage -us -uc -b` builds fsbench and fsbench-mpi (Open MPI's libraries only in
# the second), lintian reports no error, and the packages, extracted with dpkg -x (the machine's
# installed packages are left alone), hold the binary (its --version runs), the man page, the
# completion, the examples and docs, and the compatibility links under /usr/lib/fsbench/compat
# (not /usr/bin/fs_mark, which Debian's fsmark owns). Skipped (77) only without dpkg-dev.
# Then, as root, the packages installed, run and removed (the last part says how).
. "$(dirname "$0")/lib.sh"
unsanitized_only
TOP=$(cd "$TESTS_DIR/.." && pwd)

# Build-Depends = deps.txt's build + mpi stages; gcc, make, libc6-dev are build-essential
awk '($1 == "build" || $1 == "mpi") && $2 !~ /^(gcc|make|libc6-dev)$/ { print $2 }' "$TOP/deps.txt" | sort > deps.build
sed -n '/^Build-Depends:/,/^[A-Z]/p' "$TOP/debian/control" | sed '$d; s/^Build-Depends://' | tr ',' '\n' |
    sed 's/([^)]*)//; s/\[.*\]//; s/[[:space:]]//g' | grep -v '^$' | grep -vx 'debhelper-compat' | sort > control.build
diff deps.build control.build > build.diff || fail "Build-Depends and deps.txt differ (< deps.txt, > control): $(cat build.diff)"
ok "Build-Depends match deps.txt: $(tr '\n' ' ' < control.build)"

need_cmd dpkg-buildpackage
need_cmd dh
need_cmd lintian
SRC=$SCRATCH/src/fsbench-0.1.0
mkdir -p "$SRC"
tar -C "$TOP" --exclude-vcs --anchored --exclude=./build --exclude=./build-asan --exclude=./fsbench \
    --exclude=./fsbench-mpi -cf - . | tar -C "$SRC" -xf - || fail "cannot copy the tree"
# parallel: every core; noddebs: no -dbgsym packages; not noopt: the real flags are checked
# and none of the test runner's variables (BUILD would send the Makefile to the tree's build/)
( cd "$SRC" && env -u BUILD -u BIN -u FSBENCH -u FSBENCH_TEST -u FSBENCH_MPI -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u CPPFLAGS -u LDFLAGS -u CC -u V \
    DEB_BUILD_OPTIONS="parallel=$(nproc) noddebs" timeout 900 dpkg-buildpackage -us -uc -b ) > build.log 2>&1 ||
    fail "dpkg-buildpackage: $(tail -n 20 build.log)"
ls "$SCRATCH"/src/fsbench_*.deb "$SCRATCH"/src/fsbench-mpi_*.deb > debs 2>/dev/null || fail "no packages: $(ls "$SCRATCH/src")"
[ "$(wc -l < debs)" = 2 ] || fail "packages: $(cat debs)"
ok "dpkg-buildpackage: $(xargs -n1 basename < debs | tr '\n' ' ')"
# the hardening flags reached the compile lines (dh_auto_build with V=1)
grep -q -- '-D_FORTIFY_SOURCE=2.*-fstack-protector-strong.*-c -o build/obj/core/quote.o' build.log ||
    fail "dpkg-buildflags' hardening not on the compile lines: $(grep -m1 quote.o build.log)"

lintian --tag-display-limit 0 "$SCRATCH"/src/fsbench_*.changes > lintian.out 2>&1
if grep -q '^E: ' lintian.out; then
    fail "lintian errors: $(grep '^E: ' lintian.out)"
fi
ok "lintian: no errors ($(grep -c '^W: ' lintian.out) warnings)"
sed 's/^/    lintian: /' lintian.out

X=$SCRATCH/x
dpkg -x "$SCRATCH"/src/fsbench_*.deb "$X" || fail "dpkg -x fsbench"
dpkg -x "$SCRATCH"/src/fsbench-mpi_*.deb "$X" || fail "dpkg -x fsbench-mpi"
for f in usr/bin/fsbench usr/bin/fsbench-mpi usr/share/man/man1/fsbench.1.gz \
    usr/share/bash-completion/completions/fsbench usr/share/zsh/vendor-completions/_fsbench \
    usr/share/doc/fsbench/README.md.gz usr/share/doc/fsbench/examples/000-tiotest-btrfs-ext4-toggle.ini; do
    [ -e "$X/$f" ] || fail "no $f in the packages"
done
for c in fs_mark tiotest; do
    [ "$(readlink "$X/usr/lib/fsbench/compat/$c")" = ../../../bin/fsbench ] ||
        fail "/usr/lib/fsbench/compat/$c: $(readlink "$X/usr/lib/fsbench/compat/$c")"
done
[ ! -e "$X/usr/bin/fs_mark" ] && [ ! -L "$X/usr/bin/fs_mark" ] || fail "the package ships /usr/bin/fs_mark"
dpkg-deb -I "$SCRATCH"/src/fsbench_*.deb > info.fsbench
dpkg-deb -I "$SCRATCH"/src/fsbench-mpi_*.deb > info.mpi
! grep -qi 'openmpi\|libmpi' info.fsbench || fail "fsbench depends on Open MPI: $(grep Depends info.fsbench)"
# cairo, libblkid, libmount are dlopen'ed (sys/dl.h): dpkg-shlibdeps does not see them, control names them
for p in libcairo2 libblkid1 libmount1; do
    grep -q "^ Depends:.*$p" info.fsbench || fail "fsbench does not depend on $p: $(grep Depends info.fsbench)"
done
grep -q 'libopenmpi' info.mpi || fail "fsbench-mpi does not depend on Open MPI: $(grep Depends info.mpi)"
v=$("$X/usr/bin/fsbench" --version) || fail "the packaged fsbench --version: exit $?"
[[ $v == "fsbench 0.1.0 (release)" ]] || fail "the packaged --version: '$v'"
# the compatibility name works through the link (argv[0] dispatch)
"$X/usr/lib/fsbench/compat/tiotest" --help > help 2>&1 || fail "compat tiotest --help: exit $?"
grep -q 'tiotest' help || fail "compat tiotest --help: $(head -3 help)"
ok "extracted: $v, man page, completion, examples, compat links"

# Installed: dpkg -i of both packages, the installed fsbench runs the demo's tiotest and says
# its version, then dpkg -r and --purge leave nothing. Never over what the machine had: an
# fsbench package (any state) or a file at one of the packages' paths skips (77). Under dpkg's
# frontend lock held for the whole sequence (as apt holds it; DPKG_FRONTEND_LOCKED tells dpkg),
# so an apt-get of someone else's waits rather than failing us, or we it; the trap purges what
# this test installed, whatever fails.
need_root
need_cmd python3
cat > dpkg-lock.py <<'PY'
import fcntl, os, sys, time
fd = os.open("/var/lib/dpkg/lock-frontend", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
for _ in range(600):
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        break
    except OSError:
        time.sleep(0.5)
else:
    sys.exit("dpkg's frontend lock: still held after 300 s")
os.set_inheritable(fd, True)
os.environ["DPKG_FRONTEND_LOCKED"] = "1"
os.execvp(sys.argv[1], sys.argv[1:])
PY
cat > install.sh <<'SH'
. "$TESTS_DIR/cli/lib.sh"
cd "$OUT" || exit 1
for p in fsbench fsbench-mpi; do
    s=$(dpkg-query -W -f '${db:Status-Status}' "$p" 2> /dev/null)
    [ -z "$s" ] || [ "$s" = not-installed ] || skip "the package $p is on this machine ($s): not replaced"
done
for f in /usr/bin/fsbench /usr/bin/fsbench-mpi /usr/lib/fsbench /usr/share/doc/fsbench /usr/share/man/man1/fsbench.1.gz; do
    [ ! -e "$f" ] && [ ! -L "$f" ] || skip "$f is on this machine (not from a package): not replaced"
done
installed=
undo() {
    [ -n "$installed" ] && dpkg --purge fsbench-mpi fsbench > purge-trap.log 2>&1
    _lib_cleanup
}
trap undo EXIT
installed=1
dpkg -i "$SRC"/fsbench_*.deb "$SRC"/fsbench-mpi_*.deb > install.log 2>&1 || fail "dpkg -i: $(tail -n 20 install.log)"
for p in fsbench fsbench-mpi; do
    [ "$(dpkg-query -W -f '${db:Status-Status}' $p)" = installed ] || fail "$p: $(dpkg-query -W -f '${db:Status-Status}' $p)"
done
[ "$(command -v fsbench)" = /usr/bin/fsbench ] || fail "fsbench on PATH: $(command -v fsbench)"
v=$(/usr/bin/fsbench --version) || fail "the installed fsbench --version: exit $?"
[[ $v == "fsbench 0.1.0 (release)" ]] || fail "the installed --version: '$v'"
mkdir demo
/usr/bin/fsbench tiotest -t 1 -f 8 -d demo > demo.out 2> demo.err || fail "the installed fsbench tiotest: exit $?: $(cat demo.err)"
[ -z "$(not_warnings demo.err)" ] || fail "the installed fsbench tiotest, stderr: $(cat demo.err)"
grep -q '^| Write  *8 MBs' demo.out && grep -q '^| Random Read ' demo.out || fail "the installed tiotest's output: $(cat demo.out)"
[ -z "$(ls -A demo)" ] || fail "the installed tiotest left $(ls -A demo)"
ok "dpkg -i: $v runs the demo's tiotest from /usr/bin"
dpkg -r fsbench-mpi fsbench > remove.log 2>&1 || fail "dpkg -r: $(tail -n 20 remove.log)"
[ ! -e /usr/bin/fsbench ] && [ ! -e /usr/bin/fsbench-mpi ] && [ ! -e /usr/lib/fsbench ] || fail "dpkg -r left $(ls -d /usr/bin/fsbench* /usr/lib/fsbench 2> /dev/null)"
dpkg --purge fsbench-mpi fsbench > purge.log 2>&1 || fail "dpkg --purge: $(tail -n 20 purge.log)"
installed=
for p in fsbench fsbench-mpi; do
    s=$(dpkg-query -W -f '${db:Status-Status}' $p 2> /dev/null)
    [ -z "$s" ] || [ "$s" = not-installed ] || fail "$p after --purge: $s"
done
[ ! -e /usr/share/doc/fsbench ] && [ ! -e /usr/share/bash-completion/completions/fsbench ] || fail "--purge left files"
ok "dpkg -r and --purge: nothing left"
SH
OUT=$SCRATCH SRC=$SCRATCH/src TESTS_DIR=$TESTS_DIR FSBENCH=$FSBENCH python3 dpkg-lock.py bash install.sh
rc=$?
[ $rc = 0 ] || exit $rc
