#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: exclusive lease-break-time (writes /proc/sys/fs/lease-break-time or checks that it is unchanged)
# t7020: SIGINT (and once SIGTERM) at seeded random points of an experiment, ext4 and btrfs
# with a knob axis: whatever it was doing (mkfs, mount, a run, the teardown), afterwards there
# is no mount, no loop device, no image or scratch folder, the knob holds its old value, the
# exit status is 128 + the signal (or 0 when it finished first) and the manifest says every
# entry was undone. The experiment is far longer than the delays (200 rounds), so every signal
# lands in it, wherever that is. Each delay counts from the moment fsbench catches the signals.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
need_cmd mkfs.btrfs
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
K=/proc/sys/fs/lease-break-time
[ -w $K ] || skip "no $K to write here"
old=$(cat $K)

# loop_left: a loop device backed by a file under TMPDIR (sysfs, as losetup -a reads it: a
# losetup and a grep a look were most of the checks' processes)
loop_left() {
    local f b
    for f in /sys/block/loop*/loop/backing_file; do
        [ -r "$f" ] && read -r b < "$f" 2> /dev/null && [[ $b == *"$TMPDIR"* ]] && return 0
    done
    return 1
}
check_clean() {
    local r=$1 what=$2 M=$1/manifest.json k
    read -r k < $K
    [ "$k" = "$old" ] || fail "$what: knob left at $(cat $K) (was $old)"
    ! grep -q "$TMPDIR" /proc/self/mountinfo || fail "$what: a mount left: $(grep "$TMPDIR" /proc/self/mountinfo)"
    # autoclear may take a moment after the last close
    for _ in 1 2 3 4 5 6 7 8 9 10; do loop_left || break; nap 0.2; done
    ! loop_left || fail "$what: a loop device left: $(losetup -a | grep "$TMPDIR")"
    ! has_entries "$TMPDIR" || fail "$what: left in the scratch parent: $(ls -A "$TMPDIR")"
    [ -s "$M" ] || fail "$what: no manifest"
    # read with the state by the caller's jq_read (a jq costs ~50 ms of CPU)
    [ "${v[1]}" = true ] || fail "$what: undo entries not undone: $(jq -c '[.undo[] | select(.undone | not)]' "$M")"
    [ "${v[2]}" = true ] || fail "$what: undo_complete not set"
}

n=0
for seed in 11 23 37 41 59; do
    # a delay from the seed: 0.05 .. 3 s, over set-up, runs and teardown
    delay=$(awk -v s=$seed 'BEGIN { srand(s); printf "%.2f", 0.05 + rand() * 2.95 }')
    sig=INT; want=130
    [ $seed = 41 ] && { sig=TERM; want=143; }
    r=$SCRATCH/r$seed
    "$FSBENCH" matrix --fs ext4,btrfs --knob $K=41 --knob $K=42 --repeat 200 --size 256 --seed $seed \
        --max-other-cpu 100 -o "$r" -- tiotest -t 2 -f 8 -r 200 > out 2> err &
    pid=$!
    # the delay counts from fsbench's handlers: a signal before them is lost (lib.sh: catching)
    catching $pid || fail "seed $seed: fsbench does not catch SIGINT and SIGTERM 60 s after its start"
    sleep "$delay"
    kill -$sig $pid 2>/dev/null
    # an experiment that does not end within 120 s of its signal hangs: say where (every
    # process below it and what each waits in), once seen under ASan at load 4.5
    for _ in $(seq 1200); do kill -0 $pid 2>/dev/null || break; nap 0.1; done
    if kill -0 $pid 2>/dev/null; then
        for q in $pid $(pgrep -d ' ' -P $pid) $(for c in $(pgrep -P $pid); do pgrep -P $c; done); do
            echo "pid $q: $(tr '\0' ' ' < /proc/$q/cmdline 2>/dev/null | cut -c1-200)"
            for t in /proc/$q/task/*; do echo "  task ${t##*/}: $(cat $t/wchan 2>/dev/null) $(cut -d' ' -f3 $t/stat 2>/dev/null)"; done
        done >&2
        fail "seed $seed: SIG$sig after ${delay}s: still running 120 s later (its processes above): $(cat err)"
    fi
    wait $pid; rc=$?
    [ $rc = $want ] || fail "seed $seed: SIG$sig after ${delay}s: exit $rc, expected $want: $(cat err)"
    [ -s "$r/manifest.json" ] || fail "seed $seed: no manifest"
    jq_read v "$r/manifest.json" '.state == "interrupted"' '[.undo[].undone] | all' '.undo_complete == true'
    [ "${v[0]}" = true ] ||
        fail "seed $seed: state $(jq -r .state "$r/manifest.json")"
    grep -q "interrupted by SIG$sig; everything set up is undone" err || fail "seed $seed: $(cat err)"
    n=$((n + 1))
    check_clean "$r" "seed $seed (SIG$sig after ${delay}s)"
done
echo "ok: $n interrupted experiments left nothing behind"
