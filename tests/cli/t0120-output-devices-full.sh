#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0120 (root): block devices are never written, a full filesystem loses nothing.
#  - A loop device (over an image of random bytes) reached as a destination: through a symlink
#    (ln -s /dev/loopN x.json), named directly, as standard output behind --json /dev/stdout,
#    as fs_mark's -l (link or name), behind the derived X.folded, compare --json and plot -o:
#    each exit 2 before running, the device's content unchanged.
#  - A 64 KiB tmpfs holding a previous result: tiotest, fs_mark and compare --json onto it
#    run out of space; each exits 1 naming ENOSPC (not "Input/output error"), the previous
#    result is intact and no temporary is left. fs_mark -l on the full filesystem: exit 1,
#    ENOSPC (the rows were once dropped with exit 0).
. "$(dirname "$0")/lib.sh"
need_root
need_cmd losetup
need_cmd jq
DIR=$SCRATCH/d CWD=$SCRATCH/cwd OUT=$SCRATCH/out
mkdir -p "$DIR" "$CWD" "$OUT" "$SCRATCH/res"
fsb tiotest -t 1 -f 1 -r 10 -d "$SCRATCH/res" -T --quiet --json "$SCRATCH/res/a.json" > /dev/null ||
    fail "making a result"
A=$SCRATCH/res/a.json

head -c 1048576 /dev/urandom > "$SCRATCH/blk.img"
LOOP=$(losetup -f --show "$SCRATCH/blk.img" 2> /dev/null) || skip "cannot set up a loop device here"
[ -b "$LOOP" ] || skip "no block device node for $LOOP"
trap 'losetup -d "$LOOP" 2> /dev/null; _lib_cleanup' EXIT
SUM=$(md5sum < "$LOOP")
ln -s "$LOOP" "$OUT/dev.json"
ln -s "$LOOP" "$OUT/dev.png"
ln -s "$LOOP" "$OUT/planted.folded"
cases=0

# the commands run in CWD, where the test works (no subshell to cd)
cd "$CWD" || fail "cd $CWD"
run() {
    local cmd=$1; shift
    case $cmd in
    tiotest) "$FSBENCH" tiotest -t 1 -f 1 -r 10 -d "$DIR" -T --quiet "$@" ;;
    fs_mark) "$FSBENCH" fs_mark -d "$DIR/fsm" -n 10 -s 0 --quiet "$@" ;;
    compare) "$FSBENCH" compare "$@" "$A" "$A" ;;
    plot) "$FSBENCH" plot "$@" "$A" ;;
    esac
}

# refused CMD REGEX ARGS... (stdout: $STDOUT, default a file). A line of stderr matching REGEX
# and the directories' entries are looked for in the shell (grep and two ls a case before).
refused() {
    local cmd=$1 re=$2 rc l lines found=; shift 2
    cases=$((cases + 1))
    run "$cmd" "$@" > "${STDOUT:-$SCRATCH/stdout}" 2> "$SCRATCH/stderr"; rc=$?
    [ "$(md5sum < "$LOOP")" = "$SUM" ] || fail "$cmd $*: the block device was written"
    mapfile -t lines < "$SCRATCH/stderr"
    for l in "${lines[@]}"; do [[ $l =~ $re ]] && found=1; done
    [ "$rc" = 2 ] && [ -n "$found" ] ||
        fail "$cmd $*: exit $rc, expected 2 and /$re/: $(cat "$SCRATCH/stderr")"
    ! has_entries "$DIR" && ! has_entries "$CWD" || fail "$cmd $*: the run started"
    [ -L "$OUT/dev.json" ] && [ -L "$OUT/planted.folded" ] || fail "$cmd $*: a link was replaced"
}

for cmd in tiotest fs_mark; do
    refused $cmd "option --json: .*dev.json.*is a symbolic link" --json "$OUT/dev.json"
    refused $cmd "option --json: cannot write '$LOOP': is a block device" --json "$LOOP"
    STDOUT=$LOOP refused $cmd "option --json: cannot write '/dev/stdout': file descriptor 1 is a block device" \
        --json /dev/stdout
    refused $cmd "option --profile-callgraph: .*planted.folded.*is a symbolic link" \
        --profile-callgraph --json "$OUT/planted.json"
done
refused fs_mark "option -l: .*dev.json.*is a symbolic link" -l "$OUT/dev.json"
refused fs_mark "option -l: cannot write '$LOOP': is a block device" -l "$LOOP"
refused compare "option --json: cannot write '$LOOP': is a block device" --json "$LOOP"
refused compare "option --json: .*is a symbolic link" --json "$OUT/dev.json"
refused plot "option -o: .*dev.png.*is a symbolic link" -o "$OUT/dev.png"
ok "$cases block device destinations refused, the device unchanged"

# a full filesystem: the previous result stays, exit 1 with the real errno
M=$SCRATCH/tiny
mkdir -p "$M"
mount -t tmpfs -o size=64k fsbench-t0120 "$M" || skip "cannot mount a tmpfs"
echo "$M" >> "$_MOUNTS_FILE"
cp "$A" "$M/r.json" || fail "the previous result does not fit: $(ls -l "$A")"
# 8 KiB left: less than any result (the smallest, fs_mark's, is over 10 KiB)
dd if=/dev/zero of="$M/fill" bs=4096 2> /dev/null
truncate -s -8192 "$M/fill" || fail "truncate"
for cmd in tiotest fs_mark compare; do
    cases=$((cases + 1))
    run $cmd --json "$M/r.json" > /dev/null 2> "$SCRATCH/stderr"; rc=$?
    [ "$rc" = 1 ] && grep -q "cannot write '$M/r.json': No space left on device" "$SCRATCH/stderr" ||
        fail "$cmd --json on a full filesystem: exit $rc, expected 1 naming ENOSPC: $(cat "$SCRATCH/stderr")"
    cmp -s "$A" "$M/r.json" || fail "$cmd --json on a full filesystem: the previous result changed"
    [ "$(ls -A "$M" | tr '\n' ' ')" = "fill r.json " ] || fail "$cmd --json on a full filesystem: left $(ls -A "$M")"
done
ok "JSON that does not fit: exit 1, ENOSPC, the previous result intact, no temporary"

# a previous log that ends on a page boundary: tmpfs has no room for one more byte
head -c 4095 /dev/zero | tr '\0' '#' > "$M/fs_log.txt" && echo >> "$M/fs_log.txt"
dd if=/dev/zero of="$M/fill2" bs=4096 2> /dev/null
cases=$((cases + 1))
run fs_mark -l "$M/fs_log.txt" > /dev/null 2> "$SCRATCH/stderr"; rc=$?
[ "$rc" = 1 ] && grep -q "'$M/fs_log.txt': No space left on device" "$SCRATCH/stderr" ||
    fail "fs_mark -l on a full filesystem: exit $rc, expected 1 naming ENOSPC: $(cat "$SCRATCH/stderr")"
[ -z "$(ls -A "$DIR")" ] || fail "fs_mark -l on a full filesystem: files left: $(ls -A "$DIR")"
ok "fs_mark -l on a full filesystem: exit 1, ENOSPC"
ok "$cases cases"
