#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t5045: the honesty warnings leave in one write(2) on stderr, every line whole. Written piece by
# piece (stderr is unbuffered: "PROG: warning: ", then each phase's words), an MPI job's ranks
# had mpirun forward the pieces apart from rank 0's stdout, and in CI a run's text began
# "fsbench-mpi tiotest: warning: Tiotest results for 2 ..." (t9070). Traced with strace: fsbench
# and fsbench-mpi (a job of one rank, without mpirun), a tiotest on tmpfs that warns twice.
. "$(dirname "$0")/lib.sh"
need_cmd strace
T=$(mktemp -d /dev/shm/fsbench-t5045.XXXXXX 2>/dev/null) || skip "no /dev/shm (tmpfs) here"
trap '_lib_cleanup; rm -rf "$T"' EXIT
cd "$SCRATCH" || fail "cd"

# one_write PROG TRACE ERR: the writes to fd 2 with a warning are one, holding every line of ERR
one_write() {
    local n lines
    lines=$(grep -c ": warning: " "$3")
    [ "$lines" -ge 2 ] || fail "$1: expected two warning lines at least: $(cat "$3")"
    n=$(grep -c '^[0-9]\+ \+write(2, .*warning: ' "$2")
    [ "$n" = 1 ] || fail "$1: the warnings left in $n writes, not 1: $(grep 'write(2,' "$2" | cut -c1-160)"
    grep -Eq "^[0-9]+ +write\(2, \"$1 tiotest: warning: [^\"]*(\\\\n$1 tiotest: warning: [^\"]*){$((lines - 1))}\\\\n\", [0-9]+\) = [0-9]+\$" "$2" ||
        fail "$1: the write is not the $lines lines whole: $(grep 'write(2,' "$2" | cut -c1-300)"
}
# strace's children are the tool's threads only; the sanitizer's leak check is off under ptrace
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
strace -f -qq -e trace=write -e signal=none -s 1000000 -o fsb.trace \
    "$FSBENCH" tiotest -t 2 -f 4 -r 200 -d "$T" > out 2> err || fail "fsbench under strace: $(cat err)"
one_write fsbench fsb.trace err
ok "fsbench: the warnings in one write"

need_mpi
rm -rf "${T:?}"/*
strace -f -qq -e trace=write -e signal=none -s 1000000 -o mpi.trace \
    "$FSBENCH_MPI" tiotest -t 2 -f 4 -r 200 -d "$T" > out 2> err < /dev/null ||
    fail "fsbench-mpi under strace: $(cat err)"
one_write fsbench-mpi mpi.trace err
ok "fsbench-mpi: the warnings in one write"
