#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: serial (the step it must find is a measured slowdown that other tests' load would blur)
# t8420: two real matrix experiments (fs_mark, every file fsync'd, on a loop-mounted ext4 image)
# recorded under kernel labels 6.1.0-test and 6.2.0-test (FSBENCH_TEST_KERNEL: a test hook of
# build/fsbench-test) with a slowdown between them, the same configuration hash: the first with
# its image on tmpfs (/dev/shm), the second with its image on an ext4 that this test makes on a
# loop device of its own (over /dev/shm too), whose writes the blkio controller holds to 3000 a
# second (blkio.throttle.write_iops_device of that device: ~6x slower here, by construction).
# history changes finds the step at the kernel change, worse, history report shows it, and
# check --bisect exits 1. (The second image used to be on the shared disk; its fsyncs moved by
# more than the step between runs minutes apart, and the change was found inside its series.)
. "$(dirname "$0")/lib.sh"
need_root
use_test_build
# under a sanitizer fs_mark is CPU-bound and the step between the two experiments is no longer
# the largest change in the series (make asan sets FSBENCH_SANITIZED)
[ -n "${FSBENCH_SANITIZED:-}" ] && skip "the step between the two experiments is not fsbench's own speed under a sanitizer"
need_cmd mkfs.ext4
need_cmd findmnt
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "needs /dev/shm"
T=/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device
[ -w "$T" ] || skip "needs the blkio controller's write throttle ($T: cgroup v1)"
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR" "$SCRATCH/slow"
_SHM_DIR=$(mktemp -d /dev/shm/fsbench-test.XXXXXX) || fail "cannot make a directory in /dev/shm"
truncate -s 1G "$_SHM_DIR/slow.img" && mkfs.ext4 -q -F "$_SHM_DIR/slow.img" > /dev/null 2>&1 || fail "mkfs.ext4"
mount -o loop "$_SHM_DIR/slow.img" "$SCRATCH/slow" || fail "cannot loop-mount the slow ext4"
echo "$SCRATCH/slow" >> "$_MOUNTS_FILE"
dev=$(findmnt -n -o MAJ:MIN "$SCRATCH/slow" | tr -d ' ')
[[ $dev == 7:* ]] || fail "the slow ext4 is not on a loop device: '$dev'"
# the rule goes before the mount (lib's cleanup): the device is this test's, the rule with it
trap 'echo "$dev 0" > "$T" 2> /dev/null; _lib_cleanup' EXIT
echo "$dev 3000" > "$T" || fail "cannot throttle $dev"
for k in 1 2; do
    dir=/dev/shm; [ $k = 2 ] && dir=$SCRATCH/slow
    FSBENCH_TEST_KERNEL=6.$k.0-test fsb matrix --fs ext4 --repeat 6 --size 256 --dir "$dir" --name dw --db "$SCRATCH/h.db" \
        --max-other-cpu 100 -o "$SCRATCH/r$k" -- fs_mark -n 60 -s 4096 -t 1 > out$k 2> err$k || fail "matrix $k: exit $?: $(tail -3 err$k)"
done
fsb history --db h.db list | grep -q ' 6\.2\.0-test ' || fail "the kernel label not recorded: $(fsb history --db h.db list)"
fsb history --db h.db changes files_per_sec > ch.txt || fail "changes: exit $?: $(cat ch.txt)"
cat ch.txt
grep -qE '^  between run 6 and run 7 of 12: .* on 6\.1\.0-test .* on 6\.2\.0-test ' ch.txt || fail "no change at the kernel change"
grep -qE '^  x0\.[0-9]+ \[0\.[0-9]+, 0\.[0-9]+\], 6 runs before .* worse$' ch.txt || fail "not decided worse"
fsb history --db h.db report -o rep files_per_sec > rep.txt || fail "report: exit $?: $(cat rep.txt)"
grep '^| ' rep/report.md | head -3
grep -qE '^\| files/sec .*\| run 6: 6\.1\.0-test, .*\| run 7: 6\.2\.0-test, .*\| x0\.[0-9]+ \\\[0\.[0-9]+, 0\.[0-9]+\\\] \| worse \| kernel 6\.1\.0-test -> 6\.2\.0-test' rep/report.md ||
    fail "the report does not show the change: $(grep '^| ' rep/report.md | head -3)"
grep -q 'class="change"' rep/report.html || fail "no change marked in report.html"
expect_exit 1 fsb history --db h.db check --bisect --fail-if-worse 10 > bis.txt
grep -q '^bisect: bad (exit 1)$' bis.txt || fail "bisect: $(tail -2 bis.txt)"
grep "$SCRATCH" /proc/self/mountinfo | grep -v " $SCRATCH/slow " | grep -q . && fail "a mount left"
ok "a real slowdown between two kernel labels: found by changes, shown by report, bad for --bisect"
