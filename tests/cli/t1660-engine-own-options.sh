#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1660: an engine's own options are the engine's (issue 19, item 4). io_uring's table
# (--io_uring-sqpoll, --io_uring-fixed, --hipri) is listed under the engine's name by
# `fsbench list engines`, by each engine workload's --help, by the man page's ENGINES entry,
# and offered by the completion; given with psync or mmap each is one line and exit 2 before
# anything is created; --hipri where nothing polls (tmpfs; as root a loop ext4 and a raw loop
# device, tiotest -R: the targets as the table declares them) is exit 3 from the engine's
# check; through fsbench-mpi the options reach every rank (each rank's ring is an SQPOLL one)
# and a misplaced one is the job's exit 2.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
DIR=$SCRATCH/d
mkdir -p "$DIR"
OPTS="--io_uring-sqpoll --io_uring-fixed --hipri"
# as listed: with the value-taking ones (t1690 tests --io_uring-spin's refusals)
LISTED="$OPTS --io_uring-spin"

# `fsbench list engines`: the options, indented, right under io_uring's line
fsb list engines > engines || fail "list engines: exit $?"
got=$(awk '/^[^ ]/ { e = $1; next } { print e, $1 }' engines | tr '\n' ' ')
[ "$got" = "io_uring --io_uring-sqpoll io_uring --io_uring-fixed io_uring --hipri io_uring --io_uring-spin=USEC " ] ||
    fail "list engines: options under their engines: '$got'"
ok "list engines: io_uring's options under it"

# --help of every workload with --engine: the same options after a heading naming the engine
for w in tiotest fs_mark mdtest; do
    fsb "$w" --help > help || fail "$w --help: exit $?"
    got=$(awk '/^io_uring engine options \(--engine io_uring only\):$/ { f = 1; next }
               f && /^$/ { exit } f { sub(/=.*/, "", $1); print $1 }' help | tr '\n' ' ')
    [ "$got" = "$LISTED " ] || fail "$w --help: under io_uring: '$got'"
    [ "$(grep -c -- '--io_uring-sqpoll' help)" = 1 ] || fail "$w --help lists --io_uring-sqpoll elsewhere too"
    fsb __man-options "$w" --list > list || fail "__man-options $w --list"
    for o in $LISTED; do grep -qx -- "$o" list || fail "__man-options $w --list lacks $o"; done
done
ok "tiotest, fs_mark, mdtest --help: io_uring's options under its name"

# the man page: in ENGINES, between io_uring's entry and the next, inside .RS/.RE
MAN=${BUILD:-$TESTS_DIR/../build}/fsbench.1
[ -f "$MAN" ] || fail "no built man page ($MAN)"
got=$(awk '/^\.SH ENGINES/ { s = 1; next } s && /^\.SH/ { exit }
           s && prev == ".TP" && /^\.B [a-z_]+$/ { e = $2 }
           s && e == "io_uring" && /^\.RS/ { r = 1 } s && /^\.RE/ { r = 0 }
           s && r && prev == ".TP" && /^\.B / { print $2 } { prev = $0 }' "$MAN" | sed 's/\\-/-/g' | tr '\n' ' ')
[ "$got" = "$LISTED " ] || fail "man ENGINES: under io_uring: '$got'"
ok "man page: io_uring's options in its ENGINES entry"

# the completion: the options for the workloads, and only names as engines
COMP=${BUILD:-$TESTS_DIR/../build}/completion/fsbench
[ -f "$COMP" ] || fail "no built completion ($COMP)"
grep -q "^_fsbench_engines='psync mmap io_uring'$" "$COMP" || fail "completion engines: $(grep _fsbench_engines= "$COMP")"
for o in $LISTED; do
    grep "^_fsbench_opts_tiotest=" "$COMP" | grep -q -- " $o " || fail "completion: tiotest lacks $o"
done
ok "completion: io_uring's options for tiotest, engines by name"

refused() {   # refused STATUS RE WORKLOAD ARGS...
    local want=$1 re=$2 w=$3 rc; shift 3
    local -a lines
    fsb "$w" -d "$DIR" "$@" > out 2> err; rc=$?
    [ "$rc" = "$want" ] || fail "$w $*: exit $rc, expected $want: $(cat err)"
    # read by the shell (29 refusals: a wc, a grep and an ls each were a third of the test's
    # processes); =~ is grep -E's regular expression
    mapfile -t lines < err
    [ "${#lines[@]}" = 1 ] && [[ ${lines[0]} =~ $re ]] || fail "$w $*: stderr: $(cat err)"
    ! has_entries "$DIR" || fail "$w $*: created $(ls -A "$DIR")"
}
for o in $OPTS; do
    refused 2 "^fsbench tiotest: option $o applies to --engine io_uring only \(not psync\)$" tiotest $o -X -t 1 -f 1
    refused 2 "^fsbench tiotest: option $o applies to --engine io_uring only \(not mmap\)$" tiotest --engine mmap -t 1 -f 1 $o
    refused 2 "^fsbench tiotest: option $o applies to --engine io_uring only \(not mmap\)$" tiotest -M -t 1 -f 1 $o
    refused 2 "option $o applies to --engine io_uring only \(not psync\)$" fs_mark -n 5 $o --engine psync
    refused 2 "option $o applies to --engine io_uring only \(not psync\)$" mdtest -n 5 $o
done
refused 2 "unknown option '--io_uring-nope'" tiotest --engine io_uring --io_uring-nope
ok "io_uring's options with psync or mmap: one line, exit 2, nothing created"

# --hipri where nothing polls: the engine's check, exit 3 (io_uring must work here)
fsb tiotest --engine io_uring -t 1 -f 1 -r 10 -d "$DIR" > /dev/null 2> err; rc=$?
[ $rc = 3 ] && skip "io_uring cannot run here: $(cat err) (the listings and refusals passed)"
[ $rc = 0 ] || fail "io_uring smoke run: exit $rc: $(cat err)"
refused 3 "option --hipri: '.*' is on tmpfs, not on a block device" tiotest --engine io_uring --hipri -X -t 1 -f 1
refused 2 "option --hipri: polled completion is for O_DIRECT transfers \(add -X\)" tiotest --engine io_uring --hipri -t 1 -f 1
refused 2 "option --hipri: polled completion is for O_DIRECT reads and writes, which mdtest does not do" \
    mdtest --engine io_uring --hipri -n 5
ok "--hipri on tmpfs: exit 3; without O_DIRECT: exit 2"

SKIPPED=
if [ "$(id -u)" = 0 ] && command -v losetup > /dev/null; then
    M=$(loop_fs ext4 64) || exit $?
    mkdir -p "$M/d"
    fsb tiotest --engine io_uring --hipri -X -t 1 -f 1 -d "$M/d" > /dev/null 2> err; rc=$?
    [ $rc = 3 ] && grep -Eq "^fsbench tiotest: option --hipri: device loop[0-9]+ does not support polled I/O" err ||
        fail "--hipri on a loop ext4: exit $rc: $(cat err)"
    [ -z "$(ls -A "$M/d")" ] || fail "--hipri on a loop ext4: created $(ls -A "$M/d")"
    # a raw device (-R names devices): the device itself is the target
    truncate -s 16M "$SCRATCH/raw.img"
    LOOP=$(losetup -f --show "$SCRATCH/raw.img" 2> err) || fail "cannot attach a loop device: $(cat err)"
    trap 'losetup -d "$LOOP" 2> /dev/null; _lib_cleanup' EXIT
    fsb tiotest --engine io_uring --hipri -X -R -t 1 -f 1 -d "$LOOP" > /dev/null 2> err; rc=$?
    [ $rc = 3 ] && grep -q "^fsbench tiotest: option --hipri: device ${LOOP#/dev/} does not support polled I/O" err ||
        fail "--hipri on raw $LOOP: exit $rc: $(cat err)"
    ok "--hipri on a loop ext4 and on a raw loop device: exit 3"
else
    SKIPPED="--hipri on loop devices (needs root and losetup)"
fi

# fsbench-mpi: the leader's options reach every rank, a misplaced one is the job's exit 2
if [ -x "${FSBENCH_MPI:-$(dirname "$FSBENCH")/fsbench-mpi}" ] && command -v mpirun > /dev/null &&
   command -v strace > /dev/null; then
    need_mpi
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0   # LSan cannot run under ptrace
    mpi 2 tiotest --io_uring-sqpoll -t 1 -f 1 -r 10 -d "$DIR" > out 2> err; rc=$?
    [ $rc = 2 ] && [ "$(fsb_lines err)" = 1 ] &&
        grep -q "^fsbench-mpi tiotest: option --io_uring-sqpoll applies to --engine io_uring only (not psync)" err ||
        fail "mpi: misplaced --io_uring-sqpoll: exit $rc: $(cat err)"
    [ -z "$(ls -A "$DIR")" ] || fail "mpi: misplaced option: created $(ls -A "$DIR")"
    strace -f -e trace=io_uring_setup -o st mpirun --oversubscribe --allow-run-as-root \
        "${MPIRUN_OPTS[@]}" -np 2 "$FSBENCH_MPI" tiotest --engine io_uring --io_uring-sqpoll \
        -t 1 -f 1 -r 10 -d "$DIR" < /dev/null > out 2> err || fail "mpi sqpoll run: exit $?: $(cat err)"
    # every workload ring of the job is an SQPOLL one (a rank without the option would make
    # its rings without it), made by threads of both ranks: each rank's setup and each phase's
    # worker make one (the leader's check probes with rings of 4 entries and no CQSIZE: not
    # counted; a kernel that refuses a flag beside SQPOLL is asked again without it)
    plain=$(grep 'IORING_SETUP_CQSIZE' st | grep -vc 'IORING_SETUP_SQPOLL')
    n=$(awk '/IORING_SETUP_SQPOLL\|IORING_SETUP_CQSIZE/ { print $1 }' st | sort -u | wc -l)
    [ "$plain" = 0 ] && [ "$n" -ge 2 ] ||
        fail "mpi: $plain rings without SQPOLL, SQPOLL rings from $n threads: $(grep io_uring_setup st | head -5)"
    [ -z "$(ls -A "$DIR")" ] || fail "mpi sqpoll run: left $(ls -A "$DIR")"
    ok "fsbench-mpi: --io_uring-sqpoll reaches both ranks; misplaced, the job's exit 2"
else
    SKIPPED="${SKIPPED:+$SKIPPED; }fsbench-mpi forwarding (needs fsbench-mpi, mpirun, strace)"
fi
[ -z "$SKIPPED" ] || skip "not checked: $SKIPPED"
