#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: exclusive lease-break-time (writes /proc/sys/fs/lease-break-time or checks that it is unchanged)
# t7100: what fsbench matrix refuses before anything is set up (exit 2, one line, no scratch
# folder, no loop device, no result directory): --name that is not a plain name, a knob with an
# empty value, a knob through a symbolic link that is not the kernel's, a --dir that does not
# exist, and, as root, an -o or --dir that someone other than root could write in (issue 17).
. "$(dirname "$0")/lib.sh"
need_root
need_cmd mkfs.ext4
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
K=/proc/sys/fs/lease-break-time
[ -w $K ] || skip "no $K to write here"
old=$(cat $K)
id nobody >/dev/null 2>&1 || skip "no user nobody"

# refused CASE ARGS...: exit 2, one line naming CASE's subject, nothing set up (the checks by
# bash alone: a process costs ~6 ms of CPU, they were 9 a case)
refused() {
    local what=$1 want=$2 lines f b cur; shift 2
    [ ! -e "$SCRATCH/r" ] || rm -rf "$SCRATCH/r"
    "$FSBENCH" matrix --fs ext4 --repeat 1 --size 64 --max-other-cpu 100 "$@" \
        -- tiotest -t 1 -f 8 > out 2> err; local rc=$?
    [ $rc = 2 ] || fail "$what: exit $rc, expected 2: $(cat err)"
    mapfile -t lines < err
    [ ${#lines[@]} = 1 ] || fail "$what: not one line: $(cat err)"
    [[ ${lines[0]} == *"$want"* ]] || fail "$what: no '$want' in: $(cat err)"
    ! has_entries "$TMPDIR" || fail "$what: set something up in the scratch parent: $(ls -A "$TMPDIR")"
    for f in /sys/block/loop*/loop/backing_file; do
        [ -r "$f" ] && read -r b < "$f" 2> /dev/null && [[ $b == *"$SCRATCH"* ]] &&
            fail "$what: attached a loop device: $(losetup -a | grep "$SCRATCH")"
    done
    [ ! -e "$SCRATCH/r" ] || fail "$what: created the result directory"
    read -r cur < $K
    [ "$cur" = "$old" ] || fail "$what: changed the knob"
}

refused "--name ../x" "option --name '../x'" --name ../x -o "$SCRATCH/r"
refused "--name a/b" "option --name 'a/b'" --name a/b -o "$SCRATCH/r"
refused "--knob PATH=" "an empty value" --knob "$K=" -o "$SCRATCH/r"
ln -s $K "$SCRATCH/klink"
refused "--knob through a link" "is a symbolic link" --knob "$SCRATCH/klink=43" -o "$SCRATCH/r"
mkdir "$SCRATCH/kdir" && ln -s /proc/sys/fs "$SCRATCH/kdir/fs"
refused "--knob through a linked folder" "is a symbolic link" --knob "$SCRATCH/kdir/fs/lease-break-time=43" -o "$SCRATCH/r"
refused "--dir missing" "option --dir" --dir "$SCRATCH/no-such-dir" -o "$SCRATCH/r"
refused "--dir relative missing" "option --dir" --dir no-such-dir -o "$SCRATCH/r"
refused "-o under a missing folder" "option -o" -o "$SCRATCH/no/r"

# as root: a result directory or scratch parent another user could write in
mkdir "$SCRATCH/theirs" && chown nobody "$SCRATCH/theirs"
refused "-o owned by nobody" "belongs to uid" -o "$SCRATCH/theirs"
refused "-o inside a folder of nobody's" "belongs to uid" -o "$SCRATCH/theirs/r"
mkdir -m 0777 "$SCRATCH/open" && chmod 0777 "$SCRATCH/open"
refused "-o world-writable" "writable by everyone" -o "$SCRATCH/open"
refused "--dir owned by nobody" "option --dir: refusing" --dir "$SCRATCH/theirs" -o "$SCRATCH/r"
refused "--dir world-writable, not sticky" "option --dir: refusing" --dir "$SCRATCH/open" -o "$SCRATCH/r"
[ -z "$(ls -A "$SCRATCH/theirs")" ] && [ -z "$(ls -A "$SCRATCH/open")" ] || fail "wrote into a refused folder"

# what the rules keep: a sticky world-writable parent (/tmp's kind) is fine for --dir
mkdir "$SCRATCH/sticky" && chmod 1777 "$SCRATCH/sticky"
fsb matrix --fs ext4 --repeat 1 --size 64 --max-other-cpu 100 --no-db --dir "$SCRATCH/sticky" \
    -o "$SCRATCH/ok" -- tiotest -t 1 -f 8 -r 10 > out 2> err || fail "sticky --dir: exit $?: $(cat err)"
[ -z "$(ls -A "$SCRATCH/sticky")" ] || fail "left in the sticky --dir: $(ls -A "$SCRATCH/sticky")"
ok "refused before set-up: --name, empty knob value, knob through a link, --dir, -o and --dir of others"
