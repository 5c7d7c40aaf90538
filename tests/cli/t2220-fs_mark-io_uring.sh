#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t2220: fs_mark through the io_uring engine (issue 12): create chains in the ring.
# - -S 0..6 at depths 1, 8 and 32 on tmpfs (and on loop ext4 as root): the same files and op
#   counts as psync at depth 1, and the ring operations by opcode per phase (the JSON's
#   ring_ops, counted by the engine) are each sync method's syscall sequence per file:
#   openat, the writes, fsync (-S 1), close; the reopen passes of -S 2..6; dir fsync
#   (--dirsync), fdatasync (--fdatasync), fsetxattr (--xattr); statx, read, unlinkat phases;
# - a depth larger than the work; SIGINT with chains in flight: exit 130, nothing left;
# - an opcode this kernel lacks (FSBENCH_URING_MISSING, the probe's test hook): exit 3, one
#   line, nothing created.
. "$(dirname "$0")/lib.sh"
use_test_build  # its environment switches (core/testhook.h)
need_cmd jq
T=$(mktemp -d /dev/shm/fsbench-t2220.XXXXXX 2>/dev/null) || T=$(mktemp -d "$SCRATCH/t.XXXXXX")
trap '_lib_cleanup; rm -rf "$T"' EXIT
cd "$SCRATCH" || fail "cd"
SKIPPED=

fsb fs_mark -d "$T/z" -l log -n 2 --engine io_uring > out 2> err; rc=$?
[ $rc = 3 ] && skip "io_uring cannot run here: $(cat err)"
[ $rc = 0 ] || fail "io_uring smoke run: exit $rc: $(cat err)"

N=20 TH=2
F=$((N * TH))
EXTRA="-n $N -s 8192 -w 4096 -t $TH --stat --read"
counts() { jq -c '[.iterations[] | .files, (.latency | to_entries | map(select(.value.count > 0) | [.key, .value.count]))]' "$1"; }
ring() { jq -Sc '.iterations[0].ring_ops' "$1"; }

# want S SYNC DIRSYNC: the expected ring_ops (keys sorted, as jq -Sc prints them: written out
# here, no jq started) for F files of 8192 bytes in 4096-byte writes; SYNC is fsync or
# fdatasync, DIRSYNC 1 with --dirsync
want() {
    local S=$1 sy=$2 ds=$3 open=$F fs=0 c
    case $S in
    0) ;; 1) fs=$F ;; 2) open=$((F + TH)) fs=$TH ;; 3|4|5|6) open=$((2 * F)) fs=$F ;;
    esac
    [ "$ds" = 1 ] && fs=$((fs + F))
    c="\"close\":$open"
    [ "$fs" -gt 0 ] && c+=",\"$sy\":$fs"
    c+=",\"openat\":$open,\"write\":$((2 * F))"
    echo "{\"create\":{$c},\"read\":{\"close\":$F,\"openat\":$F,\"read\":$((3 * F))},\"stat\":{\"statx\":$F},\"unlink\":{\"unlinkat\":$F}}"
}

# one jq a method: psync's counts, and each depth's run checked against them and the wanted ring
# ops (a jq a check, then a jq a run, were most of the test's CPU); a failure names each part
check_methods() {   # check_methods WHERE DEPTH...
    local where=$1 S depth w dj i; shift
    local -a res bs=()
    printf -v dj '%s,' "$@"
    for depth in "$@"; do bs+=("b$depth.json"); done
    for S in 0 1 2 3 4 5 6; do
        fsb fs_mark -d "$where/a" -l log -S $S $EXTRA --json a.json > out 2> err || fail "psync -S $S: $(cat err)"
        w=$(want $S fsync 0)
        for depth in "$@"; do
            fsb fs_mark -d "$where/b" -l log -S $S $EXTRA --engine io_uring --iodepth $depth --json b$depth.json \
                > out 2> err || fail "io_uring -S $S depth $depth: $(cat err)"
            # (an empty stderr needs no grep: 42 runs)
            [ ! -s err ] || [ -z "$(not_warnings err)" ] || fail "io_uring -S $S depth $depth: stderr: $(cat err)"
            [ ! -e "$where/a" ] && [ ! -e "$where/b" ] || fail "-S $S: files left behind"
        done
        mapfile -t res < <(jq -n --argjson w "$w" --argjson ds "[${dj%,}]" --argjson F $F '
            def counts: [.iterations[] | .files, (.latency | to_entries | map(select(.value.count > 0) | [.key, .value.count]))];
            (input | counts) as $ca | $ds[] as $d | input
            | counts == $ca and .iterations[0].files == $F and .config.engine == "io_uring" and .config.iodepth == $d and
              .iterations[0].ring_ops == $w' a.json "${bs[@]}")
        i=0
        for depth in "$@"; do
            [ "${res[i]:-}" = true ] ||
                fail "$where -S $S depth $depth: psync $(counts a.json), io_uring $(counts b$depth.json);" \
                    "$(jq -c .config b$depth.json); ring_ops $(ring b$depth.json), want $w"
            i=$((i + 1))
        done
    done
}

check_methods "$T" 1 8 32
jq -e '.iterations[0] | has("ring_ops") | not' a.json > /dev/null || fail "psync has ring_ops"
ok "tmpfs -S 0..6 at depths 1, 8, 32: psync's files and op counts, each method's ring ops per file"

fsb fs_mark -d "$T/b" -l log -S 1 $EXTRA --dirsync --fdatasync --engine io_uring --iodepth 8 --json b.json \
    > out 2> err || fail "--dirsync --fdatasync: $(cat err)"
w=$(want 1 fdatasync 1)
# fdatasync always runs in an io-wq worker (no non-blocking attempt): at least one was there
jq_read v b.json ".iterations[0].ring_ops == $w" '.iterations[0].io_wq | .create.threads >= 1 and
    (.create.cpu_s | type) == "number" and ([.stat, .read, .unlink] | all(.threads >= 0))'
[ "${v[0]}" = true ] || fail "--dirsync --fdatasync: $(ring b.json), want $w"
[ "${v[1]}" = true ] || fail "io_wq: $(jq -c '.iterations[0].io_wq' b.json)"
ok "--dirsync --fdatasync: fdatasync of each file and of its directory in the chain; io_wq per phase"

# user xattrs on tmpfs since 6.6; elsewhere the run says the filesystem refuses them
if fsb fs_mark -d "$T/x" -l log -n $N -s 0 -t 1 -S 0 --xattr 32 > out 2> err; then
    fsb fs_mark -d "$T/x" -l log -n $N -s 0 -t 1 -S 0 --xattr 32 --engine io_uring --iodepth 8 --json x.json \
        > out 2> err || fail "--xattr through the ring: $(cat err)"
    jq -e --argjson n $N '.iterations[0].ring_ops.create == {openat: $n, fsetxattr: $n, close: $n} and
        .iterations[0].latency.xattr.count == $n' x.json > /dev/null || fail "--xattr: $(ring x.json)"
    ok "--xattr: fsetxattr in each create chain"
else
    SKIPPED="$SKIPPED; --xattr (this tmpfs has no user xattrs: $(head -1 err))"
fi

fsb fs_mark -d "$T/w" -l log -n 10 -s 0 -t 2 -S 1 --stat --engine io_uring --iodepth 4 --sysstats --quiet > out 2>&1 ||
    fail "--sysstats: $(cat out)"
grep -q '^io-wq workers per iteration and phase' out &&
    grep -Eq '^1 +create [0-9]+ threads [0-9.]+ s stat [0-9]+ threads [0-9.]+ s unlink [0-9]+ threads [0-9.]+ s$' out ||
    fail "--sysstats io-wq rows: $(cat out)"
ok "--sysstats: io-wq workers per iteration and phase"

fsb fs_mark -d "$T/d" -l log -n 5 -s 0 -t 2 --engine io_uring --iodepth 1000 --json d.json \
    > out 2> err || fail "depth 1000 for 5 files: $(cat err)"
jq -e '.iterations[0].files == 10 and .iterations[0].ring_ops.create.openat == 10' d.json > /dev/null ||
    fail "depth 1000 for 5 files: $(counts d.json) $(ring d.json)"
[ ! -e "$T/d" ] || fail "depth 1000: files left"
ok "a depth larger than the work"

"$FSBENCH" fs_mark -l log -d "$T/e" -n 1000000 -s 4096 -S 0 -t 2 --engine io_uring --iodepth 32 > out 2> err &
pid=$!
# chains in flight from the first files on: 256 of them made (not a fixed second of
# creating at full speed, every file of which the cleanup then removed), at most 10 s
for i in $(seq 200); do
    [ "$(find "$T/e" -type f 2> /dev/null | head -256 | wc -l)" -ge 256 ] && break
    nap 0.05
done
kill -0 $pid 2> /dev/null || fail "SIGINT: the run ended before the signal: $(cat err)"
kill -INT $pid
wait $pid; rc=$?
[ $rc = 130 ] || fail "SIGINT at depth 32: exit $rc, want 130: $(cat err)"
[ ! -e "$T/e" ] || fail "SIGINT: files left: $(find "$T/e" -type f | wc -l)"
ok "SIGINT with chains in flight: exit 130, nothing left"

cannot() {   # cannot RE ARGS...
    local re=$1 rc; shift
    local -a lines
    "$FSBENCH" fs_mark -d "$T/x" -l badlog -n 5 --engine io_uring "$@" > out 2> err; rc=$?
    [ "$rc" = 3 ] || fail "$*: exit $rc, expected 3: $(cat err)"
    mapfile -t lines < err
    [ "${#lines[@]}" = 1 ] && [[ ${lines[0]} =~ $re ]] || fail "$*: stderr: $(cat err)"
    [ ! -e "$T/x" ] && [ ! -e badlog ] || fail "$*: created something"
}
FSBENCH_URING_MISSING=fsetxattr cannot "needs IORING_OP_FSETXATTR \(Linux 5\.19\); this kernel \(.*\) does not have it"
FSBENCH_URING_MISSING=openat cannot "needs IORING_OP_OPENAT \(Linux 5\.15 \(direct descriptors\)\)" --iodepth 8
FSBENCH_URING_MISSING=unlinkat cannot "needs IORING_OP_UNLINKAT \(Linux 5\.11\)"
FSBENCH_URING_MISSING=sparse cannot "needs sparse registered file tables for direct descriptors \(Linux 5\.19\)"
ok "an opcode this kernel lacks: exit 3, one line, nothing created"

if [ "$(id -u)" = 0 ]; then
    M=$(loop_fs ext4 300) || exit $?
    EXTRA="-n 10 -s 8192 -w 4096 -t $TH --stat --read" F=$((10 * TH))
    check_methods "$M" 1 32
    ok "loop ext4 -S 0..6 at depths 1, 32: psync's files and op counts, each method's ring ops"
    # fill mode: ENOSPC in the middle of chains in flight ends the run as at depth 1
    mkdir "$SCRATCH/small"
    mount -t tmpfs -o size=2m tmpfs "$SCRATCH/small" || fail "mount a small tmpfs"
    echo "$SCRATCH/small" >> "$_MOUNTS_FILE"
    fsb fs_mark -d "$SCRATCH/small/f" -l log -n 100 -s 40960 -w 16384 -t 2 -S 0 -F --engine io_uring --iodepth 8 \
        > out 2> err; rc=$?
    [ "$rc" = 0 ] || fail "fill at depth 8: exit $rc: $(cat err)"
    tail -1 out | grep -q ' partial$' || fail "fill at depth 8: last row: $(tail -2 out)"
    grep -q 'fill ended, the filesystem is full: .*No space left on device' err || fail "fill at depth 8: $(cat err)"
    count=$(tail -1 out | awk '{ print $2 }') files=$(find "$SCRATCH/small/f" -type f | wc -l)
    [ "$files" -ge "$count" ] && [ "$files" -le $((count + 16)) ] || fail "fill at depth 8: Count $count, $files files"
    ok "fill mode at depth 8 ends cleanly (complete files counted, at most depth per thread cut short)"
else
    SKIPPED="$SKIPPED; loop ext4 (needs root)"
fi
[ -z "$SKIPPED" ] || skip "${SKIPPED#; }"
