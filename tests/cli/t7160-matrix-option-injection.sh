#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7160: mkfs and mount options cannot reach another device (issue 17). A victim loop device of
# the test's own, holding an ext4 filesystem, is named through every way an option could smuggle
# it in: an operand, after a value (separate, glued, --long=), after "--", a value missing (the
# device would become it), an override (-f, -F in a cluster), the options that take a device or
# a path (mke2fs -J device=, xfs -l logdev=, -r rtdev=, -d name=, btrfs --rootdir), and mount
# options (loop=, offset=, journal_path=, logdev=, device=, bind, remount, propagation, x-*,
# context=), from the command line and from an experiment file. Each is refused before anything
# is set up: exit 2, one line, no result directory, nothing in the scratch parent, no loop
# device attached, the victim's signature (blkid) and bytes unchanged. Then accepted options do
# reach mkfs and mount(2): a run with them, and the victim still unchanged.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd blkid
need_cmd losetup
for t in mkfs.ext4 mkfs.xfs mkfs.btrfs; do need_cmd $t; done
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
truncate -s 256M "$SCRATCH/victim.img"
mkfs.ext4 -q -F -L victim "$SCRATCH/victim.img" || fail "mkfs of the victim"
V=$(losetup -f --show "$SCRATCH/victim.img") || fail "losetup"
# a binary that lets an injection through (the old one did) may leave a mount of the test's own
# behind, its source the victim: the trap takes it down too
cleanup() {
    awk -v d="$TMPDIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | tac |
        while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
    losetup -d "$V" 2>/dev/null
    _lib_cleanup
}
trap cleanup EXIT
# the checks after each of the 40 refusals start few processes (they were 15 a case, a third of
# the test's CPU): the loop devices from sysfs, the scratch parent by a glob, the victim's first
# 4 MiB compared with a copy (cmp) instead of hashed, blkid's probe as it prints it (its order
# is fixed and DEVNAME is always $V: a grep and a sort a case were a third of the test's CPU)
sig() { blkid -p -o export "$V"; }
sig_before=$(sig)
head -c 4M "$V" > "$SCRATCH/victim.head" || fail "read the victim"
same() { cmp -s -n 4194304 "$SCRATCH/victim.head" "$V"; }
grep -q '^TYPE=ext4$' <<< "$sig_before" || fail "the victim has no ext4 signature: $sig_before"

loops() {   # loop devices backed by a file under TMPDIR
    local f b n=0
    for f in /sys/block/loop*/loop/backing_file; do
        [ -r "$f" ] && read -r b < "$f" 2> /dev/null && [[ $b == "$TMPDIR"* ]] && n=$((n + 1))
    done
    echo $n
}
refused() {
    local why=$1 lines; shift
    fsb matrix -o "$SCRATCH/result" --repeat 1 --size 320 "$@" > out 2> err; local rc=$?
    [ $rc = 2 ] || fail "$why: exit $rc, expected 2: $(cat err)"
    mapfile -t lines < err
    [ ${#lines[@]} = 1 ] || fail "$why: not one line: $(cat err)"
    [ ! -e "$SCRATCH/result" ] || fail "$why: the result directory was created"
    ! has_entries "$TMPDIR" || fail "$why: something in the scratch parent: $(ls -A "$TMPDIR")"
    [ "$(loops)" = 0 ] || fail "$why: a loop device was attached: $(losetup -a)"
    [ "$(sig)" = "$sig_before" ] || fail "$why: the victim's signature changed: $(sig)"
    same || fail "$why: the victim was written"
}
W=(-- tiotest -t 1 -f 1 -r 10)

# mkfs: operands, however they hide
refused "btrfs operand" --fs btrfs --mkfs-opts "btrfs:$V" "${W[@]}"
grep -q "'$V' is not an option" err || fail "operand message: $(cat err)"
refused "btrfs operand after a value" --fs btrfs --mkfs-opts "btrfs:-L x $V" "${W[@]}"
refused "btrfs operand after a glued value" --fs btrfs --mkfs-opts "btrfs:-Lx $V" "${W[@]}"
refused "btrfs operand after --long=value" --fs btrfs --mkfs-opts "btrfs:--label=x $V" "${W[@]}"
refused "btrfs operand after --" --fs btrfs --mkfs-opts "btrfs:-- $V" "${W[@]}"
refused "btrfs value missing" --fs btrfs --mkfs-opts "btrfs:-m single -L" "${W[@]}"
grep -q "'-L' needs a value" err || fail "missing value message: $(cat err)"
refused "btrfs quoted operand" --fs btrfs --mkfs-opts "btrfs:-m single '$V'" "${W[@]}"
refused "ext4 operand" --fs ext4 --mkfs-opts "ext4:$V" "${W[@]}"
refused "ext4 operand after a size" --fs ext4 --mkfs-opts "ext4:-b 4096 $V" "${W[@]}"
refused "options of a type no cell has" --fs ext4 --mkfs-opts "btrfs:$V" "${W[@]}"
# overrides
refused "btrfs -f" --fs btrfs --mkfs-opts "btrfs:-f" "${W[@]}"
refused "btrfs --force" --fs btrfs --mkfs-opts "btrfs:--force" "${W[@]}"
refused "ext4 -F in a cluster" --fs ext4 --mkfs-opts "ext4:-qF $V" "${W[@]}"
grep -q "option '-F' is not accepted" err || fail "-F message: $(cat err)"
refused "xfs -f" --fs xfs --mkfs-opts "xfs:-f" "${W[@]}"
# options that take a device or a path
refused "ext4 external journal" --fs ext4 --mkfs-opts "ext4:-J device=$V" "${W[@]}"
grep -q "device= is not accepted" err || fail "journal device message: $(cat err)"
refused "ext4 journal device after a size" --fs ext4 --mkfs-opts "ext4:-J size=4,device=$V" "${W[@]}"
refused "ext4 undo file" --fs ext4 --mkfs-opts "ext4:-z $SCRATCH/undo" "${W[@]}"
refused "ext4 root directory" --fs ext4 --mkfs-opts "ext4:-d /etc" "${W[@]}"
refused "xfs log device" --fs xfs --mkfs-opts "xfs:-l logdev=$V,size=8m" "${W[@]}"
refused "xfs realtime device" --fs xfs --mkfs-opts "xfs:-r rtdev=$V" "${W[@]}"
refused "xfs data name" --fs xfs --mkfs-opts "xfs:-d name=$V" "${W[@]}"
refused "btrfs rootdir" --fs btrfs --mkfs-opts "btrfs:--rootdir=/etc" "${W[@]}"
[ ! -e "$SCRATCH/undo" ] || fail "an undo file was written"

# mount options
refused "loop=" --mount-opts "loop=$V" "${W[@]}"
grep -q "an option of mount(8)" err || fail "loop= message: $(cat err)"
refused "offset=,loop" --mount-opts "offset=0,loop" "${W[@]}"
refused "x-mount.mkdir" --mount-opts "x-mount.mkdir" "${W[@]}"
refused "journal_path=" --mount-opts "noatime,journal_path=$V" "${W[@]}"
refused "journal_dev=" --mount-opts "journal_dev=$(stat -c '%t%02T' "$V")" "${W[@]}"
refused "xfs logdev=" --fs xfs --mount-opts "logdev=$V" "${W[@]}"
refused "btrfs device=" --fs btrfs --mount-opts "device=$V" "${W[@]}"
refused "defaults,bind" --mount-opts "defaults,bind" "${W[@]}"
grep -q "bind, move, remount" err || fail "bind message: $(cat err)"
refused "remount" --mount-opts remount "${W[@]}"
refused "rshared" --mount-opts rshared "${W[@]}"
refused "context=" --mount-opts 'context="system_u:object_r:tmp_t:s0"' "${W[@]}"

# the same from experiment files: [experiment] keys and axis values
ini() { printf '[experiment]\nworkload = tiotest\nargs = -t 1 -f 1 -r 10\n%b' "$1" > "$SCRATCH/x.ini"; }
ini "fs = btrfs\nmkfs-opts = btrfs:-L x $V\n"
refused "file: mkfs-opts" "$SCRATCH/x.ini"
ini "[axis fs]\nvalues = btrfs\n[axis mkfs]\nvalues = -K \"-L x $V\"\n"
refused "file: mkfs axis" "$SCRATCH/x.ini"
grep -q "axis mkfs: value" err || fail "axis message: $(cat err)"
ini "[axis fs]\nvalues = ext4 xfs\n[axis mk]\nkind = mkfs\nvalues = ext4:-q xfs:-l\\\\ logdev=$V\n"
refused "file: typed mkfs axis value" "$SCRATCH/x.ini"
ini "mount-opts = loop=$V\n"
refused "file: mount-opts" "$SCRATCH/x.ini"
ini "[axis alloc]\nkind = mount\nvalues = delalloc offset=0,loop=$V\n[cell a]\nalloc = delalloc\n"
refused "file: mount axis" "$SCRATCH/x.ini"

# accepted options reach mkfs and mount(2): one run, its mkfs command and mount options recorded
fsb matrix -o "$SCRATCH/r" --repeat 1 --size 64 --fs ext4 --no-db \
    --mkfs-opts "ext4:-b 4096 -O ^has_journal -E stride=4,stripe_width=8 -L fsb7160 -m 0" \
    --mount-opts "defaults,noatime,nodelalloc" -- tiotest -t 1 -f 1 -r 10 > out 2> err ||
    fail "a run with accepted options: $(cat err)"
M=$SCRATCH/r/manifest.json
cmd=$(jq -r '.applied[].command | select(startswith("mkfs."))' "$M")
[ "$cmd" = "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 -b 4096 -O ^has_journal -E stride=4,stripe_width=8 -L fsb7160 -m 0 ${cmd##* }" ] &&
    [[ ${cmd##* } == /dev/loop* && ${cmd##* } != "$V" ]] || fail "the mkfs command: $cmd"
mo=$(jq -r '.environment.targets[0] | .mount_options + "," + .super_options' "$SCRATCH"/r/runs/*/run-1.json)
[[ ,$mo, == *,noatime,* && ,$mo, == *,nodelalloc,* ]] || fail "mounted with '$mo'"
[ "$(sig)" = "$sig_before" ] && same || fail "the victim changed during the run"
! has_entries "$TMPDIR" && [ "$(loops)" = 0 ] || fail "something left: $(ls -A "$TMPDIR") $(losetup -a)"
ok "mkfs and mount option injections refused before set-up, the victim unchanged; accepted ones applied"
