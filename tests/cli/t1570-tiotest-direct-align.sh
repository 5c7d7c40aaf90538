#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1570 (root): -X with a block size O_DIRECT refuses (not a multiple of the logical block size)
# is found before any phase: exit 3 ("cannot run here", as O_DIRECT unsupported), one line naming
# the directory or device, nothing on stdout, no files. Before: the first pwrite failed with
# EINVAL, a table of zeros and "Results incomplete" on stdout, exit 1. An aligned -b still runs.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd mkfs.ext4
loop_fs ext4 32 > "$SCRATCH/mnt" || exit $?
M=$(cat "$SCRATCH/mnt")
cd "$SCRATCH" || fail "cd"
cases=0

for b in 100 1000 4097; do
    "$FSBENCH" tiotest -X -b $b -f 1 -t 2 -r 10 -d "$M" > out 2> err; rc=$?
    [ "$rc" = 3 ] || fail "-X -b $b on ext4: exit $rc, expected 3: $(cat err) $(cat out)"
    grep -q "O_DIRECT on '$M' refuses $b-byte blocks" err && [ "$(not_warnings err | wc -l)" = 1 ] ||
        fail "-X -b $b: stderr: $(cat err)"
    [ ! -s out ] || fail "-X -b $b: stdout: $(cat out)"
    no_files "$M"
    cases=$((cases + 1))
done
"$FSBENCH" tiotest -X -b 4096 -f 1 -t 2 -r 10 -d "$M" -T > out 2> err || fail "-X -b 4096: exit $?: $(cat err)"
no_files "$M"
cases=$((cases + 1))
ok "-X with an unaligned -b on ext4: exit 3 before any phase"

if command -v losetup > /dev/null 2>&1 && [ -e /dev/loop-control ]; then
    truncate -s 8M raw.img
    L=$(losetup -f --show raw.img 2> /dev/null) || skip "ext4 cases passed; cannot attach a loop device"
    "$FSBENCH" tiotest -R -X -b 100 -f 1 -t 1 -r 10 -d "$L" > out 2> err; rc=$?
    losetup -d "$L"
    [ "$rc" = 3 ] && grep -q "O_DIRECT on '$L' refuses 100-byte blocks" err || fail "-R -X -b 100: exit $rc: $(cat err)"
    [ "$(tr -d '\0' < raw.img | wc -c)" = 0 ] || fail "-R -X -b 100: the device was written"
    cases=$((cases + 1))
fi
ok "$cases O_DIRECT alignment cases"
