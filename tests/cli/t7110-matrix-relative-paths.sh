#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: exclusive lease-break-time (writes /proc/sys/fs/lease-break-time or checks that it is unchanged)
# t7110: relative paths are made absolute (and knob paths resolved) when the command is parsed
# (issue 17, critical 4): an experiment started with a relative -o, --dir and --knob, killed
# mid-run, is undone by --undo from another directory (the same mount, loop device, knob), and
# the manifest records the absolute paths. A knob given relative to /proc/sys/fs, or through
# the kernel's own /sys/block link, is recorded as the file it is.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
need_cmd realpath
K=/proc/sys/fs/lease-break-time
[ -w $K ] || skip "no $K to write here"
old=$(cat $K)
mkdir -p "$SCRATCH/work/sc"
cd "$SCRATCH/work" || fail "cd"
rk=$(realpath --relative-to="$PWD" $K)

wait_mounted() {
    local M=$1/manifest.json
    json_wait "$M" '[.undo[] | select(.kind == "mount" and .state == "done" and (.undone | not))] | length > 0' \
        300 0.05
}
"$FSBENCH" matrix --fs ext4 --knob "$rk=43" --dir sc --repeat 200 --size 64 --max-other-cpu 100 --no-db \
    -o r -- tiotest -t 1 -f 32 -r 500 > out 2> err &
pid=$!
wait_mounted r || { kill -INT $pid; wait $pid; fail "never saw a mounted run: $(cat err)"; }
kill -KILL $pid
wait $pid 2> /dev/null
[ "$(cat $K)" = 43 ] || fail "the killed runner left $K at $(cat $K), not 43"
M=$SCRATCH/work/r/manifest.json
jq -e --arg k "$K" --arg sc "$SCRATCH/work/sc/" '
    ([.undo[] | select(.kind == "knob") | .path] | all(. == $k)) and
    (.target.scratch | startswith($sc)) and
    ([.undo[] | select(.kind == "mount") | .target] | all(startswith($sc))) and
    .dir == ($sc | rtrimstr("sc/") + "r")' "$M" > /dev/null ||
    fail "relative paths in the manifest: $(jq -c '{dir, target, knobs: [.undo[] | select(.kind == "knob") | .path]}' "$M")"

cd / || fail "cd /"
fsb matrix --undo "$SCRATCH/work/r" > /dev/null 2> uerr || fail "--undo from /: exit $?: $(cat uerr)"
grep -q "undo: mount .*: unmounted" uerr || fail "--undo from / did not unmount: $(cat uerr)"
grep -q "undo: knob $K: restored to $old" uerr || fail "--undo from / did not restore $K: $(cat uerr)"
[ "$(cat $K)" = "$old" ] || fail "$K left at $(cat $K)"
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left: $(grep "$SCRATCH" /proc/self/mountinfo)"
for _ in 1 2 3 4 5 6 7 8 9 10; do losetup -a | grep -q "$SCRATCH" || break; nap 0.2; done
! losetup -a | grep -q "$SCRATCH" || fail "a loop device left: $(losetup -a | grep "$SCRATCH")"
[ -z "$(ls -A "$SCRATCH/work/sc")" ] || fail "left in the --dir: $(ls -A "$SCRATCH/work/sc")"

# a knob relative to /proc/sys/fs, and one through /sys/block/NAME (the kernel's link)
cd /proc/sys/fs || fail "cd /proc/sys/fs"
fsb matrix --fs ext4 --knob lease-break-time=44 --dry-run -o "$SCRATCH/d" -- tiotest -t 1 -f 8 \
    > "$SCRATCH/dout" 2> "$SCRATCH/derr" ||
    fail "--knob relative to /proc/sys/fs: exit $?: $(cat "$SCRATCH/derr")"
grep -q ", $K=44" "$SCRATCH/dout" || fail "the relative knob is not recorded as $K: $(cat "$SCRATCH/dout")"
cd "$SCRATCH" || fail "cd"
truncate -s 16M q.img
Q=$(losetup -f --show q.img) || fail "losetup"
trap 'losetup -d "$Q"; _lib_cleanup' EXIT
real=$(realpath "/sys/block/${Q#/dev/}/queue/read_ahead_kb")
fsb matrix --fs ext4 --knob "/sys/block/${Q#/dev/}/queue/read_ahead_kb=64" --dry-run -- tiotest -t 1 -f 8 \
    > dout 2> derr || fail "--knob through /sys/block: exit $?: $(cat derr)"
grep -q ", $real=64" dout || fail "the /sys/block knob is not recorded as $real: $(cat dout)"
ok "relative -o, --dir and knob paths: absolute at parse time, --undo from / undoes the same objects"
