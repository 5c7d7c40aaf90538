#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t5030: when perf may not be used, --profile says what to change in one line on stderr and
# the benchmark runs without a profile, with the exit status it has without --profile. Tested
# with FSBENCH_PROFILE_FORCE_DENY=1 and, as root, for real as nobody (perf_event_paranoid >= 2
# forbids kernel sampling to unprivileged users).
. "$(dirname "$0")/lib.sh"
use_test_build  # its environment switches (core/testhook.h)
D=$SCRATCH/dir
mkdir -p "$D"
ARGS="-t 1 -f 1 -r 100 -d $D --quiet"

fsb tiotest $ARGS > "$SCRATCH/out0" 2> "$SCRATCH/err0"; rc0=$?
FSBENCH_PROFILE_FORCE_DENY=1 fsb tiotest $ARGS --profile > "$SCRATCH/out1" 2> "$SCRATCH/err1"; rc1=$?
[ "$rc0" = "$rc1" ] || fail "exit $rc1 with a denied --profile, $rc0 without"
[ "$(wc -l < "$SCRATCH/err1")" = 1 ] || fail "expected one line on stderr: $(cat "$SCRATCH/err1")"
grep -q '^fsbench tiotest: --profile: perf_event_open is not permitted (kernel.perf_event_paranoid is .*; running without a profile$' \
    "$SCRATCH/err1" || fail "message: $(cat "$SCRATCH/err1")"
! grep -q '^Profile:' "$SCRATCH/out1" || fail "a profile was printed"
grep -q '^| Write ' "$SCRATCH/out1" || fail "the benchmark did not run"
ok "forced deny: one line, exit $rc1 as without --profile"

# the check as nobody cannot run everywhere: a visible skip then (the forced deny has passed)
[ "$(id -u)" = 0 ] || skip "forced deny passed; the check as nobody needs root"
command -v setpriv >/dev/null 2>&1 || skip "forced deny passed; the check as nobody needs setpriv (util-linux)"
par=$(cat /proc/sys/kernel/perf_event_paranoid) || fail "cannot read kernel.perf_event_paranoid"
[ "$par" -ge 2 ] || skip "forced deny passed; perf_event_paranoid is $par, so nobody may sample: no real deny to check"
chmod 711 "$SCRATCH" && chmod 777 "$D"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# a build under a directory nobody may not enter (/root) runs from a copy in the scratch directory
BIN=$FSBENCH
if ! as_nobody test -x "$BIN"; then
    mkdir -m 755 "$SCRATCH/bin" && cp "$FSBENCH" "$SCRATCH/bin/fsbench" && chmod 755 "$SCRATCH/bin/fsbench" ||
        fail "cannot copy $FSBENCH"
    BIN=$SCRATCH/bin/fsbench
fi
as_nobody test -x "$BIN" || skip "forced deny passed; nobody cannot run $BIN (a directory above it is not searchable)"
as_nobody "$BIN" tiotest $ARGS > "$SCRATCH/out2" 2> "$SCRATCH/err2"; rc2=$?
as_nobody "$BIN" tiotest $ARGS --profile > "$SCRATCH/out3" 2> "$SCRATCH/err3"; rc3=$?
[ "$rc2" = "$rc3" ] || fail "as nobody: exit $rc3 with --profile, $rc2 without"
[ "$(wc -l < "$SCRATCH/err3")" = 1 ] && grep -q "perf_event_paranoid is $par" "$SCRATCH/err3" ||
    fail "as nobody: $(cat "$SCRATCH/err3")"
ok "as nobody with perf_event_paranoid $par: one line, exit $rc3"
