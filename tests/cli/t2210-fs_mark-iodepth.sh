#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t2210: fs_mark with create chains in flight (--iodepth), end to end through the hidden test
# engine testq (FSBENCH_TEST_ENGINES=1: chains queue at submit and run at reap time, in random
# order, with the real syscalls).
# - every -S method at depth 8 makes the same files and counts the same ops per type (create,
#   write, fsync, close, reopen, sync, dirsync, stat, read, unlink) as psync at depth 1, and
#   issues the same syscalls per file (strace, as t2200 checks psync);
# - short writes (FSBENCH_TESTQ_SHORT=2) are finished: every file has its -s bytes;
# - a depth larger than the work; SIGINT with chains in flight: exit 130, nothing left;
# - fill mode at depth 8 on a small tmpfs (root): ends cleanly as at depth 1;
# - engines that cannot run fs_mark, and depths psync cannot keep: one line, exit 2.
. "$(dirname "$0")/lib.sh"
use_test_build  # its environment switches (core/testhook.h)
need_cmd jq
T=$(mktemp -d /dev/shm/fsbench-t2210.XXXXXX 2>/dev/null) || T=$(mktemp -d "$SCRATCH/t.XXXXXX")
trap '_lib_cleanup; rm -rf "$T"' EXIT
cd "$SCRATCH" || fail "cd"
N=25
EXTRA="-n $N -s 100 -w 40 -t 2 --stat --read --dirsync"
counts() { jq -c '[.iterations[] | .files, (.latency | to_entries | map(select(.value.count > 0) | [.key, .value.count]))]' "$1"; }

for S in 0 1 2 3 4 5 6; do
    fsb fs_mark -d "$T/a" -l log -S $S $EXTRA --json a.json > out 2> err || fail "-S $S depth 1: $(cat err)"
    FSBENCH_TEST_ENGINES=1 fsb fs_mark -d "$T/b" -l log -S $S $EXTRA --engine testq --iodepth 8 --json b.json \
        > out 2> err || fail "-S $S depth 8: $(cat err)"
    # one jq a method (a jq costs ~50 ms of CPU): both runs' counts compared, depth 8's config
    mapfile -t res < <(jq -n 'def counts: [.iterations[] | .files,
            (.latency | to_entries | map(select(.value.count > 0) | [.key, .value.count]))];
        input as $a | input | (counts == ($a | counts)),
            (.iterations[0].files == 50 and .config.engine == "testq" and .config.iodepth == 8)' a.json b.json)
    [ "${res[0]:-}" = true ] || fail "-S $S: depth 1 $(counts a.json), depth 8 $(counts b.json)"
    [ "${res[1]:-}" = true ] ||
        fail "-S $S depth 8: $(jq -c '[.iterations[0].files, .config.engine, .config.iodepth]' b.json)"
    [ ! -e "$T/a" ] && [ ! -e "$T/b" ] || fail "-S $S: files left behind"
done
ok "-S 0..6 at depth 8: the same files and op counts as psync at depth 1"

if command -v strace > /dev/null 2>&1; then
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    # the six counts of a trace in one awk (seven greps a method before); index() for the
    # fixed strings, the regular expressions grep -E's
    cnt_all() {
        awk 'index($0, "O_CREAT|O_EXCL") { c++ } /write\([0-9]+, "\\0.*, (40|20)\) = / { w++ }
            /^[0-9]+ +fsync\(/ { f++ } /^[0-9]+ +sync\(\)/ { s++ } index($0, "unlinkat(") { u++ }
            index($0, "O_RDONLY|O_NOFOLLOW|O_CLOEXEC) = ") && !index($0, "O_DIRECTORY") { r++ }
            END { print c + 0, w + 0, f + 0, s + 0, r + 0, u + 0 }' "$1"
    }
    for S in 0 1 2 3 4 5 6; do
        FSBENCH_TEST_ENGINES=1 strace -f -qq -o st -e trace=openat,write,fsync,fdatasync,sync,close,unlinkat \
            "$FSBENCH" fs_mark -d "$T/s" -l log -n 7 -s 100 -w 40 -S $S --engine testq --iodepth 8 > out 2> err ||
            fail "strace -S $S: $(cat err)"
        read -r c w f s r u < <(cnt_all st)
        case $S in
        0) want="0 0 0" ;; 1) want="7 0 0" ;; 2) want="1 1 1" ;; 3|5) want="7 0 7" ;; 4|6) want="7 1 7" ;;
        esac
        [ "$c $w $f $s $r $u" = "7 21 $want 7" ] || fail "strace -S $S at depth 8: creates, writes, fsyncs, syncs, reopens, unlinks '$c $w $f $s $r $u', want '7 21 $want 7'"
    done
    ok "-S 0..6 at depth 8: the syscalls of each method, per file"
fi

FSBENCH_TESTQ_SHORT=2 FSBENCH_TEST_ENGINES=1 fsb fs_mark -d "$T/c" -l log -n $N -s 1000 -w 40 -t 2 -S 1 -k \
    --engine testq --iodepth 8 --json c.json > out 2> err || fail "short writes: $(cat err)"
[ "$(find "$T/c" -type f -size 1000c | wc -l)" = 50 ] && [ "$(find "$T/c" -type f | wc -l)" = 50 ] ||
    fail "short writes: $(find "$T/c" -type f -printf '%s\n' | sort | uniq -c)"
jq -e '.iterations[0].latency.write.count > 50 * 25 and .iterations[0].latency.write.count < 50 * 50 and
       .iterations[0].latency.fsync.count == 50' c.json > /dev/null || fail "short writes: $(counts c.json)"
rm -rf "$T/c"
ok "short writes finished: every file has its 1000 bytes"

FSBENCH_TEST_ENGINES=1 fsb fs_mark -d "$T/d" -l log -n 5 -s 0 -t 2 --engine testq --iodepth 64 --json d.json \
    > out 2> err || fail "depth 64 for 5 files: $(cat err)"
jq -e '.iterations[0].files == 10' d.json > /dev/null || fail "depth 64 for 5 files: $(counts d.json)"
[ ! -e "$T/d" ] || fail "depth 64: files left"
ok "a depth larger than the work"

# a million files per thread must fit, inodes included: /dev/shm is shared with whatever else
# runs on the machine, so as root the run gets a tmpfs of its own
E=$T/e
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$SCRATCH/tm"
    mount -t tmpfs -o size=256m,nr_inodes=2200000 tmpfs "$SCRATCH/tm" || fail "cannot mount a tmpfs"
    echo "$SCRATCH/tm" >> "$_MOUNTS_FILE"
    E=$SCRATCH/tm/e
fi
FSBENCH_TEST_ENGINES=1 "$FSBENCH" fs_mark -l log -d "$E" -n 1000000 -s 0 -S 0 -t 2 --engine testq --iodepth 32 \
    > out 2> err &
pid=$!
# chains in flight from the first files on: 256 of them made (not a fixed second of
# creating at full speed, every file of which the cleanup then removed), at most 10 s
for i in $(seq 200); do
    [ "$(find "$E" -type f 2> /dev/null | head -256 | wc -l)" -ge 256 ] && break
    nap 0.05
done
kill -0 $pid 2> /dev/null || fail "SIGINT: the run ended before the signal: $(cat err)"
kill -INT $pid
wait $pid; rc=$?
[ $rc = 130 ] || fail "SIGINT at depth 32: exit $rc, want 130: $(cat err)"
[ ! -e "$E" ] || fail "SIGINT: files left: $(find "$E" -type f | wc -l)"
ok "SIGINT with chains in flight: exit 130, nothing left"

if [ "$(id -u)" = 0 ]; then
    mkdir "$SCRATCH/small"
    if mount -t tmpfs -o size=2m tmpfs "$SCRATCH/small" 2> /dev/null; then
        echo "$SCRATCH/small" >> "$_MOUNTS_FILE"
        FSBENCH_TEST_ENGINES=1 fsb fs_mark -d "$SCRATCH/small/f" -l log -n 100 -s 40960 -w 16384 -t 2 -S 0 -F \
            --engine testq --iodepth 8 > out 2> err; rc=$?
        [ "$rc" = 0 ] || fail "fill at depth 8: exit $rc: $(cat err)"
        tail -1 out | grep -q ' partial$' || fail "fill at depth 8: last row: $(tail -2 out)"
        grep -q 'fill ended, the filesystem is full: .*No space left on device' err || fail "fill at depth 8: $(cat err)"
        count=$(tail -1 out | awk '{ print $2 }') files=$(find "$SCRATCH/small/f" -type f | wc -l)
        # complete files are counted; a file cut short by ENOSPC stays, up to depth per thread
        [ "$files" -ge "$count" ] && [ "$files" -le $((count + 16)) ] || fail "fill at depth 8: Count $count, $files files"
        ok "fill mode at depth 8 ends cleanly"
    fi
fi

bad() {   # bad RE ARGS...
    local re=$1 rc; shift
    local -a lines
    "$FSBENCH" fs_mark -d "$T/x" -l badlog -n 5 "$@" > out 2> err; rc=$?
    [ "$rc" = 2 ] || fail "$*: exit $rc, expected 2: $(cat err)"
    mapfile -t lines < err
    [ "${#lines[@]}" = 1 ] && [[ ${lines[0]} =~ $re ]] || fail "$*: stderr: $(cat err)"
    [ ! -e "$T/x" ] && [ ! -e badlog ] || fail "$*: created something"
}
bad "option --engine: mmap cannot run fs_mark: it has no metadata operations" --engine mmap
bad "option --iodepth 3: the psync engine is synchronous" --iodepth 3
bad "unknown engine 'nope' \(known: psync, mmap, io_uring\)" --engine nope
FSBENCH_TEST_ENGINES=1 bad "option --iodepth: 5000 is out of range" --engine testq --iodepth 5000
ok "engines and depths fs_mark cannot use: exit 2"
