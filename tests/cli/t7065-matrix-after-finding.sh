#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7065: a filesystem corrupted during a run is a finding, reported first. While fs_mark runs in
# a matrix cell with --after fsck, the test overwrites, through the loop device and O_DIRECT,
# the inode-table block of files written and synced earlier (the kernel holds it clean, so
# nothing writes it back). After the run e2fsck -fn must report errors: the runner says FINDING
# with the checker's words, the after file and the manifest record it, and the report lists it
# first (terminal, report.md before the summary, summary.json "findings"). The run's own
# figures stay in the statistics: the finding is about the filesystem, not the measurement.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd debugfs
need_cmd dd
need_cmd mkfs.ext4
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
R=$SCRATCH/r

# -S 1: an fsync per file keeps the run going long enough to corrupt it in flight
fsb matrix --fs ext4 --repeat 1 --size 256M --after fsck --no-db --max-other-cpu 100 -o "$R" \
    -- fs_mark -n 300 -s 4096 -S 1 -t 1 -L 20 > out 2> err &
pid=$!
dev= mnt= corrupted=
for i in $(seq 1 600); do
    if [ -z "$mnt" ] && [ -s "$R/manifest.json" ] &&
       jq -e '.runs[0].status == "running"' "$R/manifest.json" >/dev/null 2>&1; then
        dev=$(jq -r '[.undo[] | select(.kind == "loop")][0].device' "$R/manifest.json")
        mnt=$(jq -r '[.undo[] | select(.kind == "mount")][0].target' "$R/manifest.json")
    fi
    # 200 files on disk: the oldest's inode block is full of inodes nobody writes again
    if [ -n "$mnt" ] && [ "$(find "$mnt" -type f 2>/dev/null | head -200 | wc -l)" = 200 ]; then
        sync -f "$mnt"
        # the 100th oldest: its block holds files only (not the root directory or the journal)
        ino=$(find "$mnt" -type f -printf '%i\n' | sort -n | sed -n 100p)
        blk=$(debugfs -c -R "imap <$ino>" "$dev" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
        bs=$(dumpe2fs -h "$dev" 2>/dev/null | sed -n 's/^Block size: *//p')
        [ -n "$blk" ] && [ -n "$bs" ] || { kill $pid; wait; fail "cannot locate inode $ino on $dev"; }
        dd if=/dev/urandom of="$dev" bs="$bs" seek="$blk" count=1 oflag=direct conv=notrunc status=none ||
            { kill $pid; wait; fail "cannot write $dev"; }
        corrupted=$ino
        break
    fi
    kill -0 $pid 2>/dev/null || break
    nap 0.05
done
wait $pid
rc=$?
[ -n "$corrupted" ] || fail "the run ended before it could be corrupted (rc $rc): $(cat err)"
[ $rc = 0 ] || fail "matrix exit $rc: $(cat err)"
grep -q '^fsbench matrix: FINDING after run 1/1 fs_mark #1: e2fsck found errors (exit [0-9]*): ' err ||
    fail "no finding said: $(cat err)"
grep -q 'FINDING: after 1 run the filesystem checker found errors' err || fail "no closing finding line: $(cat err)"
A=$R/runs/fs_mark/after-run-1.json
jq -e '.fsck.verdict == "errors" and .fsck.finding and .fsck.exit_status >= 4 and
       (.fsck.messages | length) > 0 and .fsck.message_lines > 0' "$A" >/dev/null ||
    fail "the after file does not hold the errors: $(jq -c .fsck "$A")"
jq -e '.runs[0].fsck_verdict == "errors" and .runs[0].fsck_finding and .runs[0].status == "ok"' \
    "$R/manifest.json" >/dev/null || fail "the manifest does not record it: $(jq -c '.runs[0]' "$R/manifest.json")"
# the report: first
grep -q '^  FINDING: after 1 run the filesystem checker found errors or could not check:' out ||
    fail "the terminal summary has no finding: $(cat out)"
grep -q '^    fs_mark run 1: e2fsck found errors: ' out || fail "the terminal does not name the run: $(cat out)"
f=$(grep -n '^## Findings' "$R/report.md" | cut -d: -f1)
s=$(grep -n '^## Summary' "$R/report.md" | cut -d: -f1)
[ -n "$f" ] && [ -n "$s" ] && [ "$f" -lt "$s" ] || fail "report.md: findings not before the summary ($f, $s)"
grep -q '^- cell fs_mark, run 1: e2fsck found errors (exit [0-9]*, [0-9]* problem lines\?): runs/fs_mark/after-run-1.json' \
    "$R/report.md" || fail "report.md does not list the finding: $(sed -n "$f,$((f+8))p" "$R/report.md")"
# the checker names an inode of the overwritten block ($corrupted's, or one beside it: e2fsck may
# stop at the first) or a checksum
sed -n "$f,${s}p" "$R/report.md" | grep -Eq "[Ii]node [0-9]+ |checksum" ||
    fail "report.md does not quote the checker: $(sed -n "$f,$((f+20))p" "$R/report.md")"
jq -e '.findings | length == 1 and .[0].cell == "fs_mark" and .[0].verdict == "errors" and .[0].tool == "e2fsck"' \
    "$R/summary.json" >/dev/null || fail "summary.json findings: $(jq -c .findings "$R/summary.json")"
jq -e '.cells[0].after.findings == 1 and .cells[0].runs_used == 1 and .cells[0].figures.files_per_sec.n == 1' \
    "$R/summary.json" >/dev/null || fail "summary.json cell: $(jq -c '.cells[0] | {after, runs_used}' "$R/summary.json")"
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left"
ok "a filesystem corrupted in flight: e2fsck's errors reported first (inode $corrupted)"
