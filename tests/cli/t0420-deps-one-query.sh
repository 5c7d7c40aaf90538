#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0420: scripts/deps.sh asks dpkg-query once for all of deps.txt's packages of a stage (one
# call per package read dpkg's database ~40 times: 16 s of make check on a loaded machine), and
# still names exactly the missing ones, in deps.txt's order, with the apt-get line, exit 1; a
# package is found under its name or its arch-qualified name. A fake dpkg-query on PATH
# answers in the format asked for and counts its calls; --check never installs.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$TESTS_DIR/.." && pwd)
T=$SCRATCH/t
mkdir -p "$T/scripts" "$SCRATCH/bin"
cp "$TOP/scripts/deps.sh" "$T/scripts/"
cat > "$SCRATCH/bin/dpkg-query" <<'FAKE'
#!/bin/bash
echo call >> "$CALLS"
fmt= rc=0
for a in "$@"; do
    case $a in
    -W) ;;
    -f=*) fmt=${a#-f=} ;;
    -*) echo "fake dpkg-query: unexpected $a" >&2; exit 2 ;;
    *)  p=${a%:amd64}
        case " $MISSING " in *" $p "*) echo "dpkg-query: no packages found matching $a" >&2; rc=1; continue ;; esac
        out=${fmt//'${Status}'/install ok installed}
        out=${out//'${Package}'/$p}
        out=${out//'${binary:Package}'/$p:amd64}
        printf '%b' "$out" ;;
    esac
done
exit $rc
FAKE
chmod +x "$SCRATCH/bin/dpkg-query"
cat > "$T/deps.txt" <<'DEPS'
# stage package
build gcc
build libfoo-dev:amd64
test pkg-a
test pkg-b
mpi pkg-m
DEPS
export CALLS=$SCRATCH/calls
run() {   # run MISSING STAGE: deps.sh --check STAGE with the fake, MISSING not installed
    rm -f "$CALLS"
    MISSING=$1 PATH=$SCRATCH/bin:$PATH sh "$T/scripts/deps.sh" --check "$2" > out 2> err
    rc=$?
    calls=$(wc -l < "$CALLS" 2>/dev/null || echo 0)
}

run "" test
[ $rc = 0 ] || fail "all installed: exit $rc: $(cat err)"
[ ! -s out ] && [ ! -s err ] || fail "all installed: output: $(cat out err)"
[ "$calls" = 1 ] || fail "all installed: $calls dpkg-query calls, expected 1"
ok "every package installed: exit 0, silent, one dpkg-query"

run "pkg-b gcc pkg-m" test
[ $rc = 1 ] || fail "missing: exit $rc, expected 1"
[ "$calls" = 1 ] || fail "missing: $calls dpkg-query calls, expected 1"
grep -qx '  apt-get install gcc pkg-b' err || fail "missing: not the apt-get line of gcc pkg-b: $(cat err)"
ok "missing packages: the apt-get line names them in deps.txt's order, not another stage's"

run "libfoo-dev" all
[ $rc = 1 ] && grep -qx '  apt-get install libfoo-dev:amd64' err ||
    fail "arch-qualified missing: exit $rc: $(cat err)"
run "" all
[ $rc = 0 ] && [ "$calls" = 1 ] || fail "all stages: exit $rc, $calls calls: $(cat err)"
ok "an arch-qualified package is found, or named as deps.txt spells it"
