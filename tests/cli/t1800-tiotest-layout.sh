#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1800: the test files' layout after tiotest's write phases (FIEMAP, measured by fsbench after
# each write phase, outside the windows). tmpfs has no FIEMAP: absent with the reason, null
# figures, never zeros. -R has no files: absent. As root, on loop filesystems: a file written
# sequentially on ext4 has few extents; on btrfs, which writes random rewrites elsewhere, the
# same file after the random-write phase has more extents and discontinuities than after the
# sequential write (the direction is asserted, not a number). --layout prints the table; -k
# measures after the last phase that ran.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq

# tmpfs: absent, with the reason, in the JSON and the table
mkdir -p /dev/shm/fsbench-t1800.$$ && T=/dev/shm/fsbench-t1800.$$ || skip "no /dev/shm"
trap '_lib_cleanup; rm -rf "$T"' EXIT
[ "$(stat -f -c %T "$T")" = tmpfs ] || skip "/dev/shm is not tmpfs here"
fsb tiotest -t 2 -f 2 -r 100 -d "$T" --layout -L --quiet --json "$SCRATCH/t.json" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "tmpfs: exit $?: $(cat "$SCRATCH/err")"
jq -e '[.phases[] | select(.layout) | .name] == ["write", "random_write"]
       and all(.phases[] | select(.layout) | .layout; .absent == "FIEMAP is not supported on tmpfs: no extents to measure"
           and .extents_per_mib == null and .mean_extent_bytes == null and .discontinuities_per_mib == null
           and (has("extents") | not))
       and all(.phases[] | select(.name | test("read")); has("layout") | not)' "$SCRATCH/t.json" > /dev/null ||
    fail "tmpfs layout: $(jq -c '[.phases[] | {name, layout}]' "$SCRATCH/t.json")"
grep -q '^| Write        | absent: FIEMAP is not supported on tmpfs' "$SCRATCH/out" ||
    fail "tmpfs --layout table: $(cat "$SCRATCH/out")"
ok "tmpfs: layout absent with the reason, null figures, the table says so"

# -k: the last phase that ran gets a layout too (here a read of files no write filled: nothing
# on disk yet, said, not zeros)
fsb tiotest -t 1 -f 1 -r 50 -k 0 -k 1 -d "$T" --quiet --json "$SCRATCH/k.json" > /dev/null 2>&1 ||
    fail "-k 0 -k 1: exit $?"
jq -e '[.phases[] | select(.layout) | .name] == ["random_read"]' "$SCRATCH/k.json" > /dev/null ||
    fail "-k: layout after the last phase: $(jq -c '[.phases[] | {name, layout}]' "$SCRATCH/k.json")"
ok "-k: the layout after the last phase that ran"

need_root
need_cmd mkfs.ext4
need_cmd mkfs.btrfs
loop_fs ext4 300 > "$SCRATCH/mnt" || exit $?
E=$(cat "$SCRATCH/mnt")
fsb tiotest -t 1 -f 32 -r 4000 -d "$E" --layout --quiet --json "$SCRATCH/e.json" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "ext4: exit $?: $(cat "$SCRATCH/err")"
# the check and the figure the ok line names with one jq (a jq costs ~50 ms of CPU)
jq_read v "$SCRATCH/e.json" '(.phases[0].layout) as $l | .phases[0].name == "write" and $l.files == 1 and $l.extents >= 1
       and $l.extents_per_mib < 1 and $l.mapped_bytes == 33554432 and $l.unplaced_files == 0
       and (($l.mean_extent_bytes - $l.mapped_bytes / $l.extents) | fabs) < 1 and ($l.per_file | length) == 1
       and ($l | has("absent") | not)' '.phases[0].layout.extents'
[ "${v[0]}" = true ] ||
    fail "ext4: a sequential 32 MiB file in few extents: $(jq -c '.phases[0].layout' "$SCRATCH/e.json")"
grep -q '^Tiotest file layout after each phase' "$SCRATCH/out" && grep -Eq '^\| Write +\| +1 \| +[0-9]+ \|' "$SCRATCH/out" &&
    grep -Eq '^\| Random Write +\| +1 \|' "$SCRATCH/out" || fail "ext4: --layout table: $(cat "$SCRATCH/out")"
no_files "$E"
ok "ext4: a sequentially written file has few extents (${v[1]} for 32 MiB)"

loop_fs btrfs 400 > "$SCRATCH/mnt" || exit $?
B=$(cat "$SCRATCH/mnt")
# -k 2 -k 3: the random write is the last phase, so the file is as the reads would meet it
fsb tiotest -t 1 -f 32 -r 4000 -k 2 -k 3 -d "$B" --quiet --json "$SCRATCH/b.json" > /dev/null 2> "$SCRATCH/err" ||
    fail "btrfs: exit $?: $(cat "$SCRATCH/err")"
jq_read v "$SCRATCH/b.json" '(.phases[0].layout) as $w | (.phases[1].layout) as $r | .phases[1].name == "random_write"
       and $r.extents > $w.extents and $r.discontinuities > $w.discontinuities
       and $r.extents_per_mib > $w.extents_per_mib and $r.mean_extent_bytes < $w.mean_extent_bytes' \
    '.phases[1].layout.extents' '.phases[0].layout.extents'
[ "${v[0]}" = true ] ||
    fail "btrfs: random writes did not fragment the file: $(jq -c '[.phases[] | {name, layout: (.layout | del(.per_file))}]' "$SCRATCH/b.json")"
no_files "$B"
ok "btrfs: after the random writes ${v[1]} extents, after the sequential write ${v[2]}"

# compare reads the layout figures back (optional figures: the read phases have none)
fsb compare "$SCRATCH/e.json" "$SCRATCH/b.json" --force > "$SCRATCH/cmp" 2> "$SCRATCH/err" ||
    fail "compare: exit $?: $(cat "$SCRATCH/err")"
grep -Eq '^random_write extents per MiB ' "$SCRATCH/cmp" || fail "compare: no layout row: $(cat "$SCRATCH/cmp")"
ok "compare shows the layout figures"

# -R: no files, so no layout: absent with the reason
need_cmd losetup
truncate -s 16M "$SCRATCH/raw.img"
LOOP=$(losetup -f --show "$SCRATCH/raw.img" 2> "$SCRATCH/err") || skip "cannot attach a loop device: $(cat "$SCRATCH/err")"
trap 'losetup -d "$LOOP" 2> /dev/null; _lib_cleanup; rm -rf "$T"' EXIT
fsb tiotest -R -d "$LOOP" -t 1 -f 4 -r 50 -k 1 -k 2 -k 3 --quiet --json "$SCRATCH/r.json" > /dev/null 2> "$SCRATCH/err" ||
    fail "-R: exit $?: $(cat "$SCRATCH/err")"
jq -e '.phases[0].layout | (.absent | test("^-R: ")) and .extents_per_mib == null' "$SCRATCH/r.json" > /dev/null ||
    fail "-R layout: $(jq -c '.phases[0].layout' "$SCRATCH/r.json")"
ok "-R: layout absent, with the reason"
