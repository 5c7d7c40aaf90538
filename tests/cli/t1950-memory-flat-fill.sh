#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Memory does not grow with the length of a fill (issue 25): the peak RSS of an fs_mark -F
# --json --csv fill of 30 iterations is within 1 MiB of one of 3 (each iteration's record
# goes to the result's spool as it completes; kept in memory, with --interval 1ms's time
# series, they took +1.5 MiB here). Both results are complete, valid JSON with every iteration, the CSV has a row
# per iteration, and the spool left no file behind; --csv alone has its rows. The fills are by
# inodes (-s 0) on tmpfs mounts of 6,100 and 60,100 inodes: seconds, and tmpfs pages are not the
# process's RSS.
. "$(dirname "$0")/lib.sh"

# ASan's allocator holds freed memory in quarantine and maps shadow memory as it goes: its
# RSS says nothing about fsbench's own (make asan sets FSBENCH_SANITIZED)
[ -n "${FSBENCH_SANITIZED:-}" ] && skip "peak RSS is not fsbench's own under a sanitizer"
need_root
need_cmd cc
need_cmd jq
MAXRSS=$(maxrss_tool) || exit $?
MNT=$SCRATCH/mnt
OUT=$SCRATCH/out
mkdir -p "$OUT"
trap 'umount "$MNT" 2>/dev/null; _lib_cleanup' EXIT

# fill INODES: peak RSS in KiB of a fill of a fresh tmpfs with that many inodes; the results in
# $OUT/INODES.json and .csv
fill() {
    mkdir -p "$MNT"
    mount -t tmpfs -o "size=64m,nr_inodes=$1,mode=0700" fsbench-t1950 "$MNT" ||
        skip "cannot mount a tmpfs here"
    "$MAXRSS" "$SCRATCH/rss" "$FSBENCH" fs_mark -d "$MNT/f" -n 1000 -t 2 -s 0 -F -S 0 --interval 1ms \
        -l "$SCRATCH/fill.log" --json "$OUT/$1.json" --csv "$OUT/$1.csv" >"$SCRATCH/stdout" 2>"$SCRATCH/err" ||
        fail "fs_mark -F on $1 inodes: exit $?: $(head -3 "$SCRATCH/err")"
    umount "$MNT" || fail "umount $MNT"
    cat "$SCRATCH/rss"
}

# check INODES COMPLETE: the result is valid JSON with every iteration, numbered 1..N, COMPLETE of
# them complete and one partial; the CSV has a row for each
check() {
    local j=$OUT/$1.json n
    jq -e . "$j" >/dev/null || fail "$1: not valid JSON: $(tail -c 200 "$j")"
    n=$(jq '.iterations | length' "$j")
    [ "$n" = $(($2 + 1)) ] || fail "$1: $n iterations in the JSON, expected $(($2 + 1))"
    jq -e --argjson n "$n" '.summary.iterations == $n and .end.reason == "filesystem_full" and
        ([.iterations[].iteration] == [range(1; $n + 1)]) and
        ([.iterations[] | select(.partial)] | length) == 1 and .iterations[-1].partial and
        ([.iterations[] | .latency.create.count] | add) == .summary.files and
        (.latency.create.buckets | length) > 0' "$j" >/dev/null ||
        fail "$1: iterations or summary: $(jq -c '{summary, end, n: (.iterations | length)}' "$j")"
    [ "$(wc -l < "$OUT/$1.csv")" = $((n + 1)) ] || fail "$1: CSV rows: $(wc -l < "$OUT/$1.csv"), expected header + $n"
}

small=$(fill 6100) || exit $?
large=$(fill 60100) || exit $?
case $small$large in *[!0-9]*|'') fail "no peak RSS measured ('$small', '$large')" ;; esac
check 6100 3
check 60100 30
left=$(ls -A "$OUT" | grep -Evx '(6100|60100)\.(json|csv)')
[ -z "$left" ] || fail "files left beside the results: $left"
# --csv alone keeps the iterations too (it crashed when only --json made them kept)
mkdir -p "$MNT" && mount -t tmpfs -o size=16m,mode=0700 fsbench-t1950 "$MNT" || skip "cannot mount a tmpfs here"
"$FSBENCH" fs_mark -d "$MNT/c" -n 10 -s 0 -L 2 -S 0 -l "$SCRATCH/fill.log" --csv "$OUT/alone.csv" \
    >"$SCRATCH/stdout" 2>"$SCRATCH/err"; rc=$?
umount "$MNT" || fail "umount $MNT"
[ "$rc" = 0 ] || fail "--csv alone: exit $rc: $(head -3 "$SCRATCH/err")"
[ "$(wc -l < "$OUT/alone.csv")" = 3 ] || fail "--csv alone: $(cat "$OUT/alone.csv")"
rm -f "$OUT/alone.csv"
diff=$((large - small))
[ "$diff" -lt 1024 ] ||
    fail "peak RSS grows with the fill: $small KiB at 3 iterations, $large KiB at 30 ($(printf %+d "$diff") KiB, limit +1024)"
ok "peak RSS $small KiB at 3 iterations, $large KiB at 30 ($(printf %+d "$diff") KiB, limit +1024); JSON and CSV complete"
