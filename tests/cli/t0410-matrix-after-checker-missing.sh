#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (unshare -m copies every mount the other tests hold, and pins their devices)
# t0410: fsbench matrix --after fsck with the filesystem's checker missing is refused before
# anything is set up: exit 3, the line naming the checker and its Debian package, no result
# directory. The checker is hidden in a mount namespace of its own (/dev/null bound over it is
# no executable file). Apart from t7060 (the rest of --after), which then runs beside the
# other tests: only this part, a second long, needs the machine's mounts to itself.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd mkfs.ext4
need_cmd e2fsck
need_cmd unshare
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"

E2FSCK=$(readlink -f "$(command -v e2fsck)")
unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$E2FSCK" \
    "$FSBENCH" matrix --after fsck --fs ext4 --no-db -o "$SCRATCH/bad" -- fs_mark -n 10 > out 2> err
rc=$?
[ $rc = 3 ] || fail "e2fsck missing: exit $rc, not 3: $(cat err)"
grep -q "e2fsck (for ext4) is not installed (Debian: e2fsprogs)" err || fail "e2fsck missing: $(cat err)"
[ ! -e "$SCRATCH/bad" ] || fail "a missing checker left a result directory"
ok "a missing checker: exit 3 with its package named, nothing set up"
