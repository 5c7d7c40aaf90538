#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: exclusive lease-break-time (writes /proc/sys/fs/lease-break-time or checks that it is unchanged)
# t7030: fsbench matrix --undo DIR. A runner SIGKILLed in the middle of a run (filesystem
# mounted, knob written) leaves a complete manifest; --undo puts everything back (unmount, loop
# devices, images, folders, the knob), a second --undo finds nothing to do, and --undo refuses
# the directory of a runner that is still alive. Then identities: entries naming things that
# are not what fsbench made (another inode, a knob someone changed since) are left alone.
. "$(dirname "$0")/lib.sh"
need_matrix_ext4
K=/proc/sys/fs/lease-break-time
[ -w $K ] || skip "no $K to write here"
old=$(cat $K)
# a failure part-way leaves nothing behind either: the runner killed, its directory undone (the
# knob restored, the mount gone), so that the next test of the knob's group reads its default
pid= r=
undo_on_exit() {
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    [ -n "$r" ] && [ -f "$r/manifest.json" ] && "$FSBENCH" matrix --undo "$r" >/dev/null 2>&1
    [ "$(cat $K)" = "$old" ] || echo "$old" > $K
}
trap 'undo_on_exit; _lib_cleanup' EXIT

# wait until the manifest says a filesystem is mounted and the knob written: mid-run
wait_mounted() {
    local M=$1/manifest.json
    json_wait "$M" '[.undo[] | select(.kind == "mount" and .state == "done" and (.undone | not))]
                    | length > 0' 300 0.05
}

r=$SCRATCH/r
"$FSBENCH" matrix --fs ext4 --knob $K=43 --repeat 200 --size 64 --max-other-cpu 100 -o "$r" \
    -- tiotest -t 1 -f 32 -r 500 > out 2> err &
pid=$!
# Freeze the runner at a moment its filesystem is mounted and its knob written: the manifest
# can still say "mounted" while a run's teardown is under way (unmounted, the knob not yet
# restored), a window that a loaded machine widens. Stopped, it is still alive for --undo's
# refusal, and the kill below lands with the mount in place.
frozen=
for _ in $(seq 1 20); do
    wait_mounted "$r" || { kill -INT $pid; wait $pid; fail "never saw a mounted run: $(cat err)"; }
    kill -STOP $pid
    if grep -q "$TMPDIR" /proc/self/mountinfo && [ "$(cat $K)" = 43 ]; then frozen=1; break; fi
    kill -CONT $pid
    nap 0.1
done
[ -n "$frozen" ] || { kill -KILL $pid; wait $pid; fail "never froze the runner with its run mounted"; }
# alive: --undo refuses, touches nothing
fsb matrix --undo "$r" 2> uerr; rc=$?
[ $rc = 2 ] && grep -q "still running (pid $pid)" uerr || fail "--undo of a live runner: exit $rc: $(cat uerr)"
grep -q "$TMPDIR" /proc/self/mountinfo || fail "--undo of a live runner unmounted something"
kill -KILL $pid
wait $pid 2>/dev/null; pid=
[ "$(cat $K)" = 43 ] || fail "the knob is not left written by the killed runner ($(cat $K))"
grep -q "$TMPDIR" /proc/self/mountinfo || fail "nothing left mounted to repair"
jq -e '.state == "running"' "$r/manifest.json" >/dev/null || fail "manifest state after the kill"

fsb matrix --undo "$r" > uout 2> uerr || fail "--undo exit $?: $(cat uerr)"
grep -q "undo: mount .*: unmounted" uerr || fail "--undo did not unmount: $(cat uerr)"
grep -q "undo: knob $K: restored to $old" uerr || fail "--undo did not restore the knob: $(cat uerr)"
[ "$(cat $K)" = "$old" ] || fail "knob left at $(cat $K)"
! grep -q "$TMPDIR" /proc/self/mountinfo || fail "a mount left after --undo"
for _ in 1 2 3 4 5 6 7 8 9 10; do losetup -a | grep -q "$TMPDIR" || break; nap 0.2; done
! losetup -a | grep -q "$TMPDIR" || fail "a loop device left after --undo: $(losetup -a | grep "$TMPDIR")"
[ -z "$(ls -A "$TMPDIR")" ] || fail "left in the scratch parent: $(ls -A "$TMPDIR")"
jq -e '([.undo[].undone] | all) and .undo_complete == true and .state == "killed"' "$r/manifest.json" \
    >/dev/null || fail "manifest after --undo: $(jq -c '{state, undo_complete}' "$r/manifest.json")"
fsb matrix --undo "$r" 2> uerr2 || fail "second --undo exit $?"
grep -q "nothing left to undo" uerr2 || fail "second --undo: $(cat uerr2)"

# identities: a manifest whose entries name what fsbench did not make. Its scratch directory
# carries no marker of this experiment, so nothing in it is proven fsbench's: every entry is
# left and reported, exit 1 (before issue 17 the manifest's own dev/ino were believed and this
# exited 0). The knob is in the manifest's experiment record, but the folder carries no list of
# knobs the runner declared (trusted.fsbench.knobs): left too.
mkdir -p "$SCRATCH/id"
echo keep > "$SCRATCH/id/image.img"
mkdir "$SCRATCH/id/dir"
ino=$(stat -c %i "$SCRATCH/id/image.img") dev=$(stat -c %d "$SCRATCH/id/image.img")
truncate -s 64M "$SCRATCH/id/other.img"
L=$(losetup -f --show "$SCRATCH/id/other.img") || fail "losetup"
trap 'umount "$SCRATCH/id/mnt" 2>/dev/null; losetup -d "$L"; undo_on_exit; _lib_cleanup' EXIT
mkfs.ext4 -q -F "$L" && mkdir "$SCRATCH/id/mnt" && mount "$L" "$SCRATCH/id/mnt" || fail "test mount"
jq -n --arg img "$SCRATCH/id/image.img" --argjson ino "$ino" --argjson dev "$dev" --arg sc "$SCRATCH/id" \
      --arg d "$SCRATCH/id/dir" --arg loop "$L" --arg mnt "$SCRATCH/id/mnt" --arg k "$K" --arg old "$old" '
  { schema: "fsbench-matrix", version: 1, state: "running", pid: 1, pid_start: 1,
    experiment: { axes: [ { name: "lease-break-time", kind: "knob", knob: $k } ] },
    target: { kind: "image", scratch: $sc }, undo: [
    { id: 0, kind: "dir", path: $d, dev: $dev, ino: 1, undone: false },
    { id: 1, kind: "image", path: $img, dev: $dev, ino: $ino, undone: false },
    { id: 2, kind: "loop", image: $img, device: $loop, backing_dev: $dev, backing_ino: 1, undone: false },
    { id: 3, kind: "mount", source: $loop, target: $mnt, undone: false },
    { id: 4, kind: "knob", path: $k, previous: "7", value: "44", readback: "44", undone: false } ] }' \
    > "$SCRATCH/id/manifest.json"
fsb matrix --undo "$SCRATCH/id" > /dev/null 2> ierr; rc=$?
[ $rc = 1 ] || fail "--undo of foreign entries: exit $rc: $(cat ierr)"
[ -e "$SCRATCH/id/image.img" ] && [ "$(cat "$SCRATCH/id/image.img")" = keep ] || fail "removed a file it did not create"
[ -d "$SCRATCH/id/dir" ] || fail "removed a folder it did not create"
mountpoint -q "$SCRATCH/id/mnt" || fail "unmounted a mount it did not make"
losetup "$L" >/dev/null 2>&1 || fail "detached a loop device backed by another file"
[ "$(cat $K)" = "$old" ] || fail "wrote a knob someone else had changed"
for k in "dir $SCRATCH/id/dir" "image $SCRATCH/id/image.img" "loop $L" "mount $SCRATCH/id/mnt"; do
    grep -q "undo: $k: left: not proven fsbench's: .* not this experiment's scratch directory" ierr ||
        fail "$k: $(cat ierr)"
done
grep -q "knob $K: left: not a knob the experiment declared" ierr || fail "knob: $(cat ierr)"
echo "ok: --undo repairs a killed runner, once, and only what it made"
