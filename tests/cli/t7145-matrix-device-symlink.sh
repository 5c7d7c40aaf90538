#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7145: --device given as a symbolic link, re-pointed to another device between runs (by a
# mkfs.ext4 wrapper first in PATH, after the first mkfs). The experiment keeps using the device
# the link led to at the start: every mkfs names it (its /dev node, not the link), the manifest
# records it, the after-run checker runs on it (the runner lets go of its claim for it), and the
# other device's signature and bytes are unchanged. A link to something
# that is not a block device is refused at once (exit 2).
. "$(dirname "$0")/lib.sh"
need_root
need_cmd losetup
need_cmd mkfs.ext4
need_cmd blkid
need_cmd md5sum
need_cmd jq
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR" "$SCRATCH/bin"
A= B=
cleanup() {
    [ -n "$B" ] && losetup -d "$B" 2>/dev/null
    [ -n "$A" ] && losetup -d "$A" 2>/dev/null
    _lib_cleanup
}
trap cleanup EXIT
truncate -s 64M "$SCRATCH/a.img" "$SCRATCH/b.img"
mkfs.ext4 -q -F "$SCRATCH/b.img" || fail "mkfs b"
A=$(losetup -f --show "$SCRATCH/a.img") || fail "losetup a"
B=$(losetup -f --show "$SCRATCH/b.img") || fail "losetup b"
uuid_b=$(blkid -p -s UUID -o value "$B")
sum_b=$(md5sum < "$B")
LINK=$SCRATCH/dev
ln -s "$A" "$LINK"

real=$(command -v mkfs.ext4)
cat > "$SCRATCH/bin/mkfs.ext4" <<EOS
#!/bin/bash
echo "\$*" >> "$SCRATCH/mkfs.log"
"$real" "\$@"; rc=\$?
ln -sfn "$B" "$LINK"
exit \$rc
EOS
chmod +x "$SCRATCH/bin/mkfs.ext4"

PATH=$SCRATCH/bin:$PATH fsb matrix --device "$LINK" --destroy "$LINK" --fs ext4 --fresh per-run --repeat 2 --after fsck \
    --max-other-cpu 100 -o "$SCRATCH/result" -- tiotest -t 1 -f 1 -r 10 > out 2> err ||
    fail "exit $?: $(cat err)"
[ "$(readlink "$LINK")" = "$B" ] || fail "the wrapper did not re-point the link (is mkfs still looked up in PATH?)"
[ "$(wc -l < "$SCRATCH/mkfs.log")" = 2 ] || fail "not two mkfs runs through the wrapper: $(cat "$SCRATCH/mkfs.log")"
while read -r line; do
    [ "${line##* }" = "$A" ] || fail "mkfs ran on another device than $A: $line"
done < "$SCRATCH/mkfs.log"
M=$SCRATCH/result/manifest.json
# the checker ran on the device the runner had let go of (its claim would make it "in use")
jq -e --arg a "$A" '.state == "done" and .target.device == $a and ([.runs[] | .status == "ok"] | all)
                    and ([.runs[] | .fsck_verdict == "clean"] | all)
                    and ([.undo[] | select(.kind == "mount") | .source == $a] | all)' "$M" >/dev/null ||
    fail "manifest: $(jq -c '{state, target, runs: [.runs[] | .status]}' "$M")"
[ "$(blkid -p -s UUID -o value "$B")" = "$uuid_b" ] || fail "the other device's signature changed"
[ "$(md5sum < "$B")" = "$sum_b" ] || fail "the other device was written"
blkid -p -s TYPE -o value "$A" | grep -q ext4 || fail "no filesystem made on $A"

# the link now leads to a file: not a block device, refused before anything is set up
ln -sfn "$SCRATCH/a.img" "$LINK"
fsb matrix --device "$LINK" -o "$SCRATCH/result2" -- tiotest -t 1 > out 2> err; rc=$?
[ $rc = 2 ] || fail "a link to a file: exit $rc, expected 2: $(cat err)"
grep -q "not a block device" err || fail "a link to a file: $(cat err)"
[ ! -e "$SCRATCH/result2" ] || fail "a link to a file: the result directory was created"
echo "ok: --device through a symbolic link is resolved once, held, and used to the end"
