# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the numbered CLI tests. Source it first: it makes a scratch directory,
# and removes it (and any loop mount the test made) on exit.
set -u
# the folders by parameter expansion, not dirname: a fork per line, in every test
_LIB_DIR=${BASH_SOURCE[0]%/*}
[ "$_LIB_DIR" != "${BASH_SOURCE[0]}" ] || _LIB_DIR=.
# and no $(cd ... && pwd) subshell: the cd below leaves this directory anyway
cd "$_LIB_DIR/.." || exit 1
TESTS_DIR=$PWD
cd "$OLDPWD" || exit 1
FSBENCH=${FSBENCH:-${TESTS_DIR%/*}/fsbench}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-test.XXXXXX")
# mounts are recorded in a file, not a variable: loop_fs is usually called as $(loop_fs ...),
# in a subshell whose variables die with it
_MOUNTS_FILE=$SCRATCH/.mounts

_lib_cleanup() {
    local m i
    if [ -f "$_MOUNTS_FILE" ]; then
        # the last mounted first (mapfile and a loop down, not a tac)
        mapfile -t m < "$_MOUNTS_FILE"
        for ((i = ${#m[@]} - 1; i >= 0; i--)); do
            umount "${m[i]}" 2>/dev/null || umount -l "${m[i]}" 2>/dev/null
        done
    fi
    rm -rf "$SCRATCH" ${_SHM_DIR:+"$_SHM_DIR"}
}
trap _lib_cleanup EXIT
# fsbench's history database (fsbench matrix, report) goes to the scratch directory, never to
# the home of whoever runs the tests
export XDG_DATA_HOME=$SCRATCH/xdg
# run from the scratch directory: whatever a command writes to its working directory (fs_mark's
# default log, fs_log.txt) lands there and goes with it, never in the source tree
cd "$SCRATCH" || exit 1

fsb() { "$FSBENCH" "$@"; }

# python3 is Debian's (deps.txt: python3-jsonschema is its module) when there, also for the tools
# that run `env python3` (git clang-format), not one earlier in PATH: a pyenv shim costs a second
# of CPU per start and has other modules. The look is fork-free (hash fills BASH_CMDS; -ef: the
# same file, also through tests/run.sh's link of it), the link only made when needed.
if [ -x /usr/bin/python3 ] && { ! hash python3 2>/dev/null || ! [ "${BASH_CMDS[python3]}" -ef /usr/bin/python3 ]; }; then
    mkdir -p "$SCRATCH/.bin" && ln -s /usr/bin/python3 "$SCRATCH/.bin/python3" && PATH=$SCRATCH/.bin:$PATH
fi

# use_test_build: the rest of the test runs the test build (build/fsbench-test: the product
# plus the environment switches of core/testhook.h, Makefile), for the tests that use them.
FSBENCH_TEST=${FSBENCH_TEST:-${BUILD:-$TESTS_DIR/../build}/fsbench-test}
use_test_build() {
    [ -x "$FSBENCH_TEST" ] || skip "needs the test build $FSBENCH_TEST (make $FSBENCH_TEST)"
    FSBENCH=$FSBENCH_TEST
}

fail() { echo "FAIL: $*" >&2; exit 1; }
# on stderr: a skip inside $(...) or under "> file" (loop_fs, maxrss_tool) still reaches the log
skip() { echo "skip: $*" >&2; exit 77; }
ok() { echo "ok: $*"; }

# unsanitized_only: for a test of no compiled code (the license, the layout check, the build and
# the packaging): `make check` runs it; `make asan` (FSBENCH_SANITIZED) would only repeat it.
unsanitized_only() {
    [ -z "${FSBENCH_SANITIZED:-}" ] || skip "runs in make check, not under a sanitizer (it tests no code the sanitizer builds)"
}
need_root() { [ "$EUID" = 0 ] || skip "needs root"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "needs $1"; }

# need_matrix_ext4: what a matrix test on ext4 images needs (root, jq, mkfs.ext4), and TMPDIR in
# the scratch directory: the matrix's scratch folder and images go with it
need_matrix_ext4() {
    need_root
    need_cmd jq
    need_cmd mkfs.ext4
    export TMPDIR=$SCRATCH/tmp
    mkdir -p "$TMPDIR"
}

# loop_fs TYPE SIZE_MB: make and mount a loop filesystem; prints its mount point. Works in a
# subshell too: M=$(loop_fs ext4 300) || exit $?  (the "|| exit" passes a skip or failure on)
loop_fs() {
    local type=$1 size=$2 img mnt
    need_root
    need_cmd "mkfs.$type"
    img=$SCRATCH/$type.img mnt=$SCRATCH/mnt-$type
    mkdir -p "$mnt"
    truncate -s "${size}M" "$img" || fail "truncate $img"
    case $type in
    ext4) mkfs.ext4 -q -F "$img" >/dev/null 2>&1 ;;
    xfs) mkfs.xfs -q -f "$img" >/dev/null 2>&1 ;;
    *) "mkfs.$type" "$img" >/dev/null 2>&1 ;;
    esac || skip "mkfs.$type failed"
    mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount $type here"
    echo "$mnt" >> "$_MOUNTS_FILE"
    echo "$mnt"
}

# _built_current BIN SRC...: BIN is set, executable and newer than every SRC (make's build of a
# bench tool, usable as it is)
_built_current() {
    local bin=$1 f
    shift
    [ -n "$bin" ] && [ -x "$bin" ] || return 1
    for f in "$@"; do [ ! "$f" -nt "$bin" ] || return 1; done
}

# maxrss_tool: prints the path of bench/maxrss.c built (runs a command, writes its peak RSS in
# KiB to a file): BUILD/bench/maxrss when current, else built there once for every test that
# needs it (a compiler run costs ~0.8 s of CPU here; five tests compiled it each), through a
# temporary name and a rename, as tests run side by side; the scratch directory's when BUILD
# is not set or not writable.
#   MAXRSS=$(maxrss_tool) || exit $?
maxrss_tool() {
    local src=$TESTS_DIR/../bench/maxrss.c bin=${BUILD:+$BUILD/bench/maxrss} tmp
    if _built_current "$bin" "$src"; then
        echo "$bin"
        return 0
    fi
    if [ -n "$bin" ] && mkdir -p "${bin%/*}" 2> /dev/null && [ -w "${bin%/*}" ]; then
        tmp=$bin.tmp.$$
        if cc -O2 -o "$tmp" "$src" >&2 && mv -f "$tmp" "$bin"; then
            echo "$bin"
            return 0
        fi
        rm -f "$tmp"
    fi
    bin=$SCRATCH/maxrss
    [ -x "$bin" ] || cc -O2 -o "$bin" "$src" >&2 || fail "cannot build $src"
    echo "$bin"
}

# bare_tiotest_to DEST: bench/bare_tiotest.c, warning-free, at DEST: make check's build of it
# (Makefile BENCH_HELPERS, the same line with -Werror: that build is the check) when newer than
# its sources, copied; else compiled here (~1.5 s of CPU on a busy host)
bare_tiotest_to() {
    local root=$TESTS_DIR/.. built=${BUILD:+$BUILD/bench/bare_tiotest}
    _built_current "$built" "$root/bench/bare_tiotest.c" "$root/src/core/clock.c" "$root/src/core/clock.h" ||
        built=
    grep -qF '$(CC) -O2 -std=gnu11 -D_GNU_SOURCE -iquote src -Wall -Wextra -Werror -o $@' "$root/Makefile" ||
        built=
    if [ -n "$built" ]; then
        cp "$built" "$1" || fail "cannot copy $built"
        return 0
    fi
    "${CC:-cc}" -O2 -std=gnu11 -D_GNU_SOURCE -iquote "$root/src" -Wall -Wextra -Werror -o "$1" \
        "$root/bench/bare_tiotest.c" "$root/src/core/clock.c" 2>"$SCRATCH/cc.err" ||
        fail "bare_tiotest does not build warning-free: $(head -5 "$SCRATCH/cc.err")"
}

# no_files DIR: DIR holds nothing fsbench left behind
no_files() {
    local left
    left=$(find "$1" -mindepth 1 -name '_tiotest_*' -o -mindepth 1 -name '*.tmp.*' 2>/dev/null)
    [ -z "$left" ] || fail "files left behind in $1: $left"
}

# nap SECONDS: sleep without starting a process (a read that times out on a FIFO nobody writes):
# for polling loops, where a `sleep` (and an `ls` or `pgrep`) per turn costs more CPU than what
# they wait for under load. The FIFO is opened on the first nap.
nap() {
    if [ -z "${_NAP_FD:-}" ]; then
        [ -p "$SCRATCH/.nap" ] || mkfifo "$SCRATCH/.nap" || fail "mkfifo $SCRATCH/.nap"
        exec {_NAP_FD}<> "$SCRATCH/.nap"
    fi
    read -r -t "$1" -u "$_NAP_FD"
    return 0
}

# json_wait FILE EXPR TURNS SECONDS: wait (a nap of SECONDS between looks, TURNS looks at
# most) until `jq -e EXPR` holds on FILE; returns 1 when the turns are over. jq runs only when
# FILE's text changed since its last look (read by the shell, no process): a jq costs ~50 ms of
# CPU, a jq a look every 50 ms was the CPU of the wait.
json_wait() {
    local file=$1 expr=$2 turns=$3 secs=$4 i text last=
    for ((i = 0; i < turns; i++)); do
        text=
        [ -s "$file" ] && IFS= read -r -d '' text < "$file"
        if [ -n "$text" ] && [ "$text" != "$last" ]; then
            last=$text
            jq -e "$expr" "$file" > /dev/null 2>&1 && return 0
        fi
        nap "$secs"
    done
    return 1
}

# catching PID [SECONDS]: waits (up to SECONDS, default 60) until PID runs $FSBENCH (or
# $FSBENCH_TEST/$FSBENCH_MPI) and catches SIGINT and SIGTERM; 0 then or when PID is gone, 1 on
# the timeout. A background job of a non-interactive shell starts with SIGINT ignored, so a
# signal sent before the program's handler is in place is lost (t7020 hung so under ASan at
# load 41: a SIGINT 0.42 s after the start). Builtins only: it polls every 10 ms.
catching() {
    local pid=$1 turns=$(( ${2:-60} * 100 )) k v
    while [ "$turns" -gt 0 ]; do
        kill -0 "$pid" 2>/dev/null || return 0
        if [ "/proc/$pid/exe" -ef "$FSBENCH" ] || [ "/proc/$pid/exe" -ef "${FSBENCH_TEST:-/}" ] ||
            [ "/proc/$pid/exe" -ef "${FSBENCH_MPI:-/}" ]; then
            while read -r k v; do
                [ "$k" = SigCgt: ] && (( (16#$v & 0x4002) == 0x4002 )) && return 0
            done < "/proc/$pid/status"
        fi
        nap 0.01
        turns=$((turns - 1))
    done
    return 1
}

# has_entries DIR: DIR exists and holds something (a glob, no `ls` forked)
has_entries() {
    local e
    for e in "$1"/* "$1"/.[!.]* "$1"/..?*; do [ -e "$e" ] || [ -L "$e" ] && return 0; done
    return 1
}

# jq_read NAME FILE EXPR...: several values of one JSON file with one jq (Debian's jq 1.6
# compiles its builtins at every start: ~50 ms of CPU a call, a jq per value was most of some
# tests' CPU). NAME becomes an array of the EXPRs' values in order, each printed as `jq -r -c`
# prints it (strings raw, the rest compact JSON: a condition reads "true" or "false"). Each EXPR
# must give at most one value, on one line; more fail, naming the expression. An expression
# that gives none or fails at run time (.[] of null) reads false, as `jq -e` fails on both: the
# test's own message says which check failed. Shell values: export them, read them as $ENV.NAME.
#   jq_read v "$M" '.state == "done"' '.runs | length'
#   [ "${v[0]}" = true ] || fail "state: $(jq -c .state "$M")"    (the diagnostic only on failure)
jq_read() {
    local -n _jq_read_out=$1
    local _jr_file=$2 _jr_prog="" _jr_e _jr_i=0 _jr_n=$(($# - 2))
    shift 2
    for _jr_e in "$@"; do
        _jr_prog+="${_jr_prog:+, }([try ($_jr_e) catch false] | if length == 0 then false
            elif length > 1 then error(\"jq_read: expression $_jr_i gives \(length) values\")
            elif (.[0] | type) == \"string\" and (.[0] | test(\"\\n\")) then error(\"jq_read: expression $_jr_i: newline\")
            else .[0] end)"
        _jr_i=$((_jr_i + 1))
    done
    mapfile -t _jq_read_out < <(jq -r -c "$_jr_prog" "$_jr_file" 2> "$SCRATCH/.jq_read.err"; echo "rc=$?")
    [ "${_jq_read_out[-1]}" = rc=0 ] || fail "jq_read $_jr_file: ${_jq_read_out[-1]} $(head -c 2000 "$SCRATCH/.jq_read.err")"
    unset '_jq_read_out[-1]'
    [ "${#_jq_read_out[@]}" = "$_jr_n" ] || fail "jq_read $_jr_file: ${#_jq_read_out[@]} values, $_jr_n expressions"
}

# US: the field separator of rows that one jq prints for several records (`map(tostring) |
# join("\u001f")`, read by `IFS=$US read -r a b c`): unlike a tab's, read keeps its empty fields
US=$'\x1f'

# expect_exit CODE CMD...: run CMD, check its exit status
expect_exit() {
    local want=$1; shift
    "$@"; local got=$?
    [ "$got" = "$want" ] || fail "exit $got, expected $want: $*"
}

# A run may end with warning lines on stderr when its figures describe the page cache or the
# CPU ("fsbench tiotest: warning: ...", "tiotest: warning: ..." through the link), depending on
# the machine. not_warnings FILE prints FILE's other lines, which a test can expect empty:
#   [ -z "$(not_warnings err)" ] || fail "stderr: $(cat err)"
WARNING_RE='^(fsbench(-mpi)? )?(tiotest|fs_mark): warning: '
# (a read loop, no grep: grep's exit status, 0 when it prints a line, 1 when none)
not_warnings() {
    local line rc=1
    while IFS= read -r line || [ -n "$line" ]; do
        [[ $line =~ $WARNING_RE ]] || { printf '%s\n' "$line"; rc=0; }
    done < "$1" || return 2
    return $rc
}

# fsbench-mpi (make builds it beside fsbench when Open MPI is there: deps.txt's mpi stage, which
# make check installs). need_mpi skips when it is missing; mpi NP ARGS runs NP ranks on this
# host (MPIRUN_OPTS: more mpirun options, e.g. --mca settings).
case $FSBENCH in */*) FSBENCH_MPI=${FSBENCH_MPI:-${FSBENCH%/*}/fsbench-mpi} ;; *) FSBENCH_MPI=${FSBENCH_MPI:-./fsbench-mpi} ;; esac
MPIRUN_OPTS=()
need_mpi() {
    [ -x "$FSBENCH_MPI" ] || skip "fsbench-mpi not built ($FSBENCH_MPI): no Open MPI (deps.txt mpi stage)"
    need_cmd mpirun
    need_cmd jq
    # Open MPI on one host, the transports it picks here anyway (ob1 over shared memory and
    # self): without this every rank and mpirun opened and probed the tcp btl and the cm pml
    # with its psm/psm2 mtls before dropping them, ~50 ms of CPU a run on this 2-core host.
    # fsbench's MPI code is the same over any transport. The caller's own settings win.
    export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
    # PMIx's job data in a hash table, not its shared-memory store (ds21/ds12), which mpirun
    # and each rank set up at start: a 2-rank job 0.61 -> 0.50 s of CPU (8 jobs, load 9-13)
    export PMIX_MCA_gds=${PMIX_MCA_gds:-hash}
    # the shared-memory transport's segment files (vader_segment.HOST.JOB.RANK) in a directory
    # of this test's on /dev/shm, removed with it: a rank that is killed (the signal tests) never
    # unlinks its own, and ~50 of 4 MiB each had piled up in /dev/shm
    if [ -z "${OMPI_MCA_btl_vader_backing_directory:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
        _SHM_DIR=$(mktemp -d /dev/shm/fsbench-test.XXXXXX) || fail "cannot make a directory in /dev/shm"
        export OMPI_MCA_btl_vader_backing_directory=$_SHM_DIR
    fi
    # make asan: Open MPI keeps its allocations to the end (mpi-lsan.supp); full stacks so
    # that the suppressions see the MPI libraries in them, and only them
    if [ -n "${FSBENCH_SANITIZED:-}" ]; then
        export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0
        export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$TESTS_DIR/cli/mpi-lsan.supp:print_suppressions=0
    fi
}
mpi() {
    local np=$1; shift
    mpirun --oversubscribe --allow-run-as-root "${MPIRUN_OPTS[@]}" -np "$np" "$FSBENCH_MPI" "$@" < /dev/null
}
# fsbench's own lines on stderr (mpirun adds banners of its own around a non-zero exit)
# (a read loop, no grep -c: it runs in polling loops)
fsb_lines() {
    local line n=0
    while IFS= read -r line || [ -n "$line" ]; do
        [[ $line == fsbench-mpi* ]] && n=$((n + 1))
    done < "$1"
    echo "$n"
}
# the pid of rank R of the mpirun whose pid is P (its children: ranks on this host). Builtins
# only (it runs in polling loops): the children from /proc/P/task/*/children, each one's
# environment read by mapfile (was a pgrep, and a tr and a grep per child).
rank_pid() {
    local t p c env e
    for t in /proc/"$1"/task/*/children; do
        c=()
        read -r -a c < "$t" 2>/dev/null # (no newline at its end: read fails, c is filled)
        for p in "${c[@]}"; do
            mapfile -t -d '' env < "/proc/$p/environ" 2>/dev/null || continue
            for e in "${env[@]}"; do
                [ "$e" = "OMPI_COMM_WORLD_RANK=$2" ] && { echo "$p"; return 0; }
            done
        done
    done
    return 1
}

# JSON Schema checks (doc/schema, tests/cli/schema_check.py, python3-jsonschema), run in one
# Python per batch: starting Python and importing jsonschema costs over a second of CPU, which
# a check per file paid each time. have_jsonschema says whether the module is there (without
# importing it), need_jsonschema [WHY] skips when not; schema_valid and schema_invalid queue
# checks, schema_checks runs the queue and fails with every unmet expectation. Relative paths
# are the working directory's at queue time.
#   schema_valid [--lines] SCHEMA FILE...     every FILE validates (--lines: JSON Lines)
#   schema_invalid [--lines] SCHEMA FILE...   each FILE on its own does not
#   schema_checks [WHAT]                      run them (WHAT names them in the failure)
_SCHEMA_QUEUE=$SCRATCH/.schema-queue
PYTHON3=python3
have_jsonschema() {
    # Debian's python3 (above) and its python3-jsonschema on disk: no Python started to look
    # (~0.25 s of CPU; schema_checks starts the one that checks)
    [ "$PYTHON3" = python3 ] && [ -x /usr/bin/python3 ] &&
        [ -f /usr/lib/python3/dist-packages/jsonschema/__init__.py ] && return 0
    "$PYTHON3" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("jsonschema") is None)' 2> /dev/null
}
need_jsonschema() {
    need_cmd "$PYTHON3"
    have_jsonschema || skip "needs python3-jsonschema${1:+ ($1)}"
}
_schema_queue() {
    local a
    printf '%s\0' "$1"; shift
    [ "${1:-}" = --lines ] && { printf '%s\0' "$1"; shift; }
    for a in "$@"; do
        case $a in /*) ;; *) a=$PWD/$a ;; esac
        printf '%s\0' "$a"
    done
    printf '\0'
} >> "$_SCHEMA_QUEUE"
schema_valid() { _schema_queue valid "$@"; }
schema_invalid() { _schema_queue invalid "$@"; }
schema_checks() {
    [ -s "$_SCHEMA_QUEUE" ] || fail "schema_checks: no check queued"
    "$PYTHON3" "$TESTS_DIR/cli/schema_check.py" --batch "$_SCHEMA_QUEUE" > "$SCRATCH/.schema-out" 2>&1 ||
        fail "JSON schemas${1:+ ($1)}: $(head -c 3000 "$SCRATCH/.schema-out")"
    rm -f "$_SCHEMA_QUEUE"
}
