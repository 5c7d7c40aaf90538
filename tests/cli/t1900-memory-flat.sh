#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Memory does not grow with the number of ops (issue 2 §4, the non-timing half): the peak RSS of
# a random-write run with 2,000,000 ops is within 1 MiB of one with 20,000 ops. Peak RSS is the
# child's ru_maxrss from wait4(), via bench/maxrss.c; the files live on tmpfs, whose pages are not
# part of the process's RSS.
. "$(dirname "$0")/lib.sh"

# ASan's allocator holds freed memory in quarantine and maps shadow memory as it goes: its
# RSS says nothing about fsbench's own (make asan sets FSBENCH_SANITIZED)
[ -n "${FSBENCH_SANITIZED:-}" ] && skip "peak RSS is not fsbench's own under a sanitizer"
need_cmd cc
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "needs a writable /dev/shm"
SHM=$(mktemp -d /dev/shm/fsbench-t1900.XXXXXX) || skip "cannot make a directory under /dev/shm"
trap 'rm -rf "$SHM"; _lib_cleanup' EXIT

MAXRSS=$(maxrss_tool) || exit $?

peak() {
    "$MAXRSS" "$SCRATCH/rss" "$FSBENCH" tiotest -t 1 -f 4 -k 0 -k 2 -k 3 -r "$1" -d "$SHM" \
        >"$SCRATCH/out" 2>&1 || fail "fsbench tiotest -r $1 failed: $(head -3 "$SCRATCH/out")"
    cat "$SCRATCH/rss"
}

small=$(peak 20000)
large=$(peak 2000000)
case $small$large in *[!0-9]*|'') fail "no peak RSS measured ('$small', '$large')" ;; esac
no_files "$SHM"
diff=$((large - small))
[ "$diff" -le 1024 ] ||
    fail "peak RSS grows with ops: $small KiB at 20000 ops, $large KiB at 2000000 ops ($(printf %+d "$diff") KiB, limit +1024)"
ok "peak RSS $small KiB at 20000 ops, $large KiB at 2000000 ops ($(printf %+d "$diff") KiB, limit +1024)"
