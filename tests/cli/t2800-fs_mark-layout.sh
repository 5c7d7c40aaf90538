#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t2800: fs_mark --layout[=N]: after each iteration's timed phases and before its unlink, a
# seeded sample of N files is mapped (FIEMAP). tmpfs has no FIEMAP: absent with the reason, "-"
# in the columns, never zeros. As root on a loop ext4: small files (-s 4096, fsync per file) are
# single-extent; the block groups fsbench gives for a few sampled files (from the superblock)
# match what debugfs says of the same inodes (imap: the inode's group; stat: the first data
# block, whose group dumpe2fs's geometry gives); files that are unlinked after the iteration
# were mapped first; plot --type fill draws a result with the layout, compare reads its figures.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq

mkdir -p /dev/shm/fsbench-t2800.$$ && T=/dev/shm/fsbench-t2800.$$ || skip "no /dev/shm"
trap '_lib_cleanup; rm -rf "$T"' EXIT
[ "$(stat -f -c %T "$T")" = tmpfs ] || skip "/dev/shm is not tmpfs here"
fsb fs_mark -d "$T/a" -n 20 -s 4096 -L 2 --layout=5 --json "$SCRATCH/t.json" -l "$SCRATCH/log" --quiet > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "tmpfs: exit $?: $(cat "$SCRATCH/err")"
jq -e '.config.layout_files == 5 and (.iterations | length) == 2 and all(.iterations[].layout;
         .absent == "FIEMAP is not supported on tmpfs: no extents to measure" and .extents_per_file == null
         and .one_extent_pct == null and .inode_group_pct == null and .sampled == 1)
       and (.layout_block_groups.absent | test("tmpfs"))' "$SCRATCH/t.json" > /dev/null ||
    fail "tmpfs: $(jq -c '[.iterations[].layout], .layout_block_groups' "$SCRATCH/t.json")"
grep -Eq 'Extents/file +1-extent%$' "$SCRATCH/out" && [ "$(grep -Ec ' +- +-$' "$SCRATCH/out")" = 2 ] ||
    fail "tmpfs: columns: $(cat "$SCRATCH/out")"
ok "tmpfs: absent with the reason, '-' in the columns"

need_root
need_cmd mkfs.ext4
need_cmd debugfs
need_cmd dumpe2fs
loop_fs ext4 300 > "$SCRATCH/mnt" || exit $?
M=$(cat "$SCRATCH/mnt")
IMG=$SCRATCH/ext4.img

# without -k the files are unlinked after each iteration: the sample was mapped before
fsb fs_mark -d "$M/u" -n 300 -s 4096 -t 2 -D 4 --layout --json "$SCRATCH/u.json" -l "$SCRATCH/log" --quiet > /dev/null 2> "$SCRATCH/err" ||
    fail "ext4 unlink run: exit $?: $(cat "$SCRATCH/err")"
jq -e '.iterations[0].layout | .sampled == 600 and .placed == 600 and .one_extent_pct == 100
       and .extents_per_file == 1 and .extents_hist == [[1, 1, 600]] and .located == 600' "$SCRATCH/u.json" > /dev/null ||
    fail "ext4: every file of the iteration, single-extent: $(jq -c '.iterations[0].layout' "$SCRATCH/u.json")"
[ ! -e "$M/u" ] || [ -z "$(find "$M/u" -type f)" ] || fail "files left after the unlink phase"
ok "ext4: the files are mapped before the unlink phase; 4 KiB files in one extent each"

# -L 3 keeps the files: unmount, then ask debugfs about the sampled inodes
fsb fs_mark -d "$M/k" -n 400 -s 8192 -t 2 -D 4 -L 3 --layout=40 --json "$SCRATCH/k.json" -l "$SCRATCH/log" --quiet > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "ext4 -L 3: exit $?: $(cat "$SCRATCH/err")"
jq -e '(.iterations | length) == 3 and all(.iterations[].layout; .sampled == 40 and .one_extent_pct == 100
         and (.examples | length) >= 1 and .inode_group_pct != null and .dir_group_pct != null)
       and .layout_block_groups.exact == true and (.layout_block_groups.source | startswith("superblock of /dev/loop"))' \
    "$SCRATCH/k.json" > /dev/null || fail "ext4 -L 3: $(jq -c '[.iterations[].layout], .layout_block_groups' "$SCRATCH/k.json")"
[ "$(grep -Ec ' +1\.00 +100\.0$' "$SCRATCH/out")" = 3 ] || fail "ext4: columns: $(cat "$SCRATCH/out")"
umount "$M" || fail "umount"
BPG=$(dumpe2fs -h "$IMG" 2> /dev/null | sed -n 's/^Blocks per group: *//p')
FIRST=$(dumpe2fs -h "$IMG" 2> /dev/null | sed -n 's/^First block: *//p')
[ -n "$BPG" ] && [ -n "$FIRST" ] || fail "dumpe2fs: no geometry"
jq -e --argjson bpg "$BPG" --argjson first "$FIRST" '.layout_block_groups.blocks_per_group == $bpg
       and .layout_block_groups.first_data_block == $first' "$SCRATCH/k.json" > /dev/null ||
    fail "geometry: $(jq -c .layout_block_groups "$SCRATCH/k.json") vs dumpe2fs $BPG blocks per group, first $FIRST"
n=0
while read -r ino igrp dino dgrp datagrp first ext; do
    g=$(debugfs -R "imap <$ino>" "$IMG" 2> /dev/null | sed -n 's/^Inode [0-9]* is part of block group \([0-9]*\)$/\1/p')
    [ "$g" = "$igrp" ] || fail "inode $ino: fsbench says group $igrp, debugfs imap says '$g'"
    g=$(debugfs -R "imap <$dino>" "$IMG" 2> /dev/null | sed -n 's/^Inode [0-9]* is part of block group \([0-9]*\)$/\1/p')
    [ "$g" = "$dgrp" ] || fail "directory $dino: fsbench says group $dgrp, debugfs imap says '$g'"
    b=$(debugfs -R "stat <$ino>" "$IMG" 2> /dev/null | sed -n '/^EXTENTS:/{n;s/^([0-9-]*):\([0-9]*\).*/\1/p;}')
    [ "$b" = "$first" ] || fail "inode $ino: fsbench says first block $first, debugfs stat says '$b'"
    [ $(( (b - FIRST) / BPG )) = "$datagrp" ] || fail "inode $ino: block $b is in group $(( (b - FIRST) / BPG )), fsbench says $datagrp"
    [ "$ext" = 1 ] || fail "inode $ino: $ext extents"
    n=$((n + 1))
done < <(jq -r '.iterations[].layout.examples[] | "\(.ino) \(.inode_group) \(.dir_ino) \(.dir_group) \(.data_group) \(.first_block) \(.extents)"' "$SCRATCH/k.json")
[ "$n" -ge 3 ] || fail "only $n sampled files to check"
ok "ext4: $n sampled files' inode, directory and data groups match debugfs and dumpe2fs"

fsb plot --type fill -o "$SCRATCH/fill.png" "$SCRATCH/k.json" 2> "$SCRATCH/err" || fail "plot: $(cat "$SCRATCH/err")"
[ -s "$SCRATCH/fill.png" ] || fail "plot: no image"
fsb compare "$SCRATCH/k.json" "$SCRATCH/u.json" > "$SCRATCH/cmp" 2> "$SCRATCH/err" || fail "compare: $(cat "$SCRATCH/err")"
grep -Eq '^extents per file ' "$SCRATCH/cmp" && grep -Eq '^files in one extent ' "$SCRATCH/cmp" ||
    fail "compare: no layout rows: $(cat "$SCRATCH/cmp")"
ok "plot --type fill and compare take the layout"
