#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1400 (root): tiotest on a real filesystem, a loop-mounted ext4 of 300 MiB made and removed
# by the test. -t 2 -f 32 -r 2000: all four rows with the right MBs, the JSON names the target
# fstype ext4 on a loop device, bytes exact, no files left. -X (O_DIRECT) works, and really
# bypasses the page cache: the kernel's read_bytes/write_bytes for the process cover the bytes
# of every phase. -X with an unaligned block size (tiotest: exit 255, no output) is a clean
# failure naming the block size, before any phase (exit 3). -F (drop caches, root) and -S run.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
# loop_fs keeps its mounts in a shell variable for the cleanup: call it in this shell
loop_fs ext4 300 > "$SCRATCH/mnt"
MNT=$(cat "$SCRATCH/mnt")
[ -d "$MNT" ] && mountpoint -q "$MNT" || fail "loop_fs did not mount ext4 at '$MNT'"

"$FSBENCH" tiotest -t 2 -f 32 -r 2000 -d "$MNT" --json "$SCRATCH/r.json" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "ext4 run: exit $?: $(cat "$SCRATCH/err")"
[ -z "$(not_warnings "$SCRATCH/err")" ] || fail "ext4 run: stderr: $(cat "$SCRATCH/err")"
grep -Eq '^\| Write +64 MBs \|' "$SCRATCH/out" || fail "no 'Write 64 MBs' row: $(cat "$SCRATCH/out")"
grep -Eq '^\| Random Write +16 MBs \|' "$SCRATCH/out" || fail "no 'Random Write 16 MBs' row (2*2000*4096/2^20 = 15.6)"
grep -Eq '^\| Read +64 MBs \|' "$SCRATCH/out" || fail "no 'Read 64 MBs' row"
grep -Eq '^\| Random Read +16 MBs \|' "$SCRATCH/out" || fail "no 'Random Read 16 MBs' row"
grep -q '^| Total        |' "$SCRATCH/out" || fail "no Total latency row"
jq -e '.environment.targets[0] | .fstype == "ext4" and (.source | startswith("/dev/loop"))' "$SCRATCH/r.json" > /dev/null ||
    fail "JSON target: $(jq -c '.environment.targets' "$SCRATCH/r.json")"
jq -e '[.phases[].bytes] == [67108864, 16384000, 67108864, 16384000] and all(.phases[]; .complete)' "$SCRATCH/r.json" > /dev/null ||
    fail "JSON bytes: $(jq -c '[.phases[].bytes]' "$SCRATCH/r.json")"
no_files "$MNT"
ok "ext4: tables, JSON, no files left"

"$FSBENCH" tiotest -t 2 -f 16 -r 500 -X -d "$MNT" -T --json "$SCRATCH/x.json" > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "ext4 -X: exit $?: $(cat "$SCRATCH/err")"
[ "$(wc -l < "$SCRATCH/out")" = 5 ] || fail "ext4 -X -T: not five lines: $(cat "$SCRATCH/out")"
grep -q '^write:32\.00000,' "$SCRATCH/out" || fail "ext4 -X: write MB: $(cat "$SCRATCH/out")"
jq -e '.config.o_direct == true and all(.phases[];
        if (.name | test("write")) then .proc_io.write_bytes >= .bytes else .proc_io.read_bytes >= .bytes end)' \
    "$SCRATCH/x.json" > /dev/null ||
    fail "ext4 -X: the kernel did not move the bytes to/from the device (page cache used?): $(jq -c '.phases[] | {name, bytes, proc_io}' "$SCRATCH/x.json")"
no_files "$MNT"
ok "ext4 -X: O_DIRECT, reads and writes reach the device"

# found before any phase: cannot run here (t1570 has more cases)
"$FSBENCH" tiotest -t 1 -f 4 -r 100 -X -b 1000 -d "$MNT" > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 3 ] || fail "ext4 -X -b 1000: exit $rc, expected 3: $(cat "$SCRATCH/err")"
[ "$(wc -l < "$SCRATCH/err")" = 1 ] && grep -q 'O_DIRECT.*refuses 1000-byte blocks' "$SCRATCH/err" ||
    fail "ext4 -X -b 1000: expected one line naming the O_DIRECT block size: $(cat "$SCRATCH/err")"
[ ! -s "$SCRATCH/out" ] || fail "ext4 -X -b 1000: stdout: $(cat "$SCRATCH/out")"
no_files "$MNT"
ok "ext4 -X with an unaligned block: clean failure"

# -S makes every write a journal commit on ext4: keep it small
for opt in "-F -f 4" "-S -f 1 -r 50" "-W -f 4" "-c -X -f 4"; do
    "$FSBENCH" tiotest -t 2 -r 200 $opt -d "$MNT" -T > "$SCRATCH/out" 2> "$SCRATCH/err" ||
        fail "ext4 $opt: exit $?: $(cat "$SCRATCH/err")"
    mb=$(echo "$opt" | sed -E 's/.*-f ([0-9]+).*/\1/')
    grep -q "^read:$((2 * mb))\.00000," "$SCRATCH/out" || fail "ext4 $opt: $(cat "$SCRATCH/out")"
    no_files "$MNT"
done
ok "ext4 -F, -S, -W, -c -X"
[ "$(ls -A "$MNT")" = lost+found ] || fail "ext4: left in the filesystem: $(ls -A "$MNT")"
