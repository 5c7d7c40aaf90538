#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1300: -c really verifies (tiotest 0.4.2's -c never fails: its CRC table is all zeros).
# A clean -c run passes. Between the write phases and the reads, --between-phases damages the
# first thread's file; the read must fail: exit 1, one error line on stderr naming the file and
# the offset of the damaged block, the "Results incomplete" line on stdout, no files left.
# Damage kinds: one flipped byte (checksum), a valid block copied to another offset (misplaced),
# the other thread's block at the same offset (wrong file), the whole file rolled back to its
# state before the random write (stale blocks). Also with the mmap engine (-M).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
DIR=$SCRATCH/d
mkdir -p "$DIR"
BS=4096

# clean runs pass
for e in "" "-M" "-t 3 -b 1000"; do
    "$FSBENCH" tiotest -t 2 -f 2 -r 300 -c $e -d "$DIR" -T > "$SCRATCH/out" 2> "$SCRATCH/err" ||
        fail "clean -c run $e: exit $?: $(cat "$SCRATCH/err")"
    [ -z "$(not_warnings "$SCRATCH/err")" ] || fail "clean -c run $e: stderr: $(cat "$SCRATCH/err")"
    ! grep -q incomplete "$SCRATCH/out" || fail "clean -c run $e: marked incomplete"
    no_files "$DIR"
done
ok "clean -c runs pass"

# damaged RE SCRIPT [ARGS...]: SCRIPT runs (sh) once the random write is done, with $1 $2
# the two test files; the run must fail with one stderr line matching RE. The lines are read
# and matched in the shell (five greps and a wc a case before).
damaged() {
    local re=$1 script=$2 rc l errs=() outs found=; shift 2
    "$FSBENCH" tiotest -t 2 -f 1 -r 200 -b $BS -c -d "$DIR" "$@" \
        --between-phases "[ \"\$FSBENCH_PHASE_NEXT\" = read ] || exit 0; set -- \$FSBENCH_FILES; $script" \
        > "$SCRATCH/out" 2> "$SCRATCH/err"
    rc=$?
    [ "$rc" = 1 ] || fail "-c with damage ($script): exit $rc, expected 1; stderr: $(cat "$SCRATCH/err")"
    mapfile -t outs < "$SCRATCH/err"
    for l in "${outs[@]}"; do [[ $l =~ $WARNING_RE ]] || errs+=("$l"); done
    [ ${#errs[@]} = 1 ] || fail "-c with damage ($script): expected one stderr line: $(cat "$SCRATCH/err")"
    for l in "${outs[@]}"; do [[ $l =~ $re ]] && found=1; done
    [ -n "$found" ] || fail "-c with damage ($script): message does not match /$re/: $(cat "$SCRATCH/err")"
    mapfile -t outs < "$SCRATCH/out"
    found=
    for l in "${outs[@]}"; do [ "$l" = "Results incomplete: the run stopped during the Read phase." ] && found=1; done
    [ -n "$found" ] || fail "-c with damage: no 'Results incomplete' line on stdout: $(cat "$SCRATCH/out")"
    [ "${outs[0]:-}" = "Tiotest results for 2 concurrent io threads:" ] || fail "-c with damage: no tables"
    no_files "$DIR"
}
thr0="$DIR/_tiotest_pid[0-9]+\.thr0"

# one byte flipped in the middle of block 5 (byte 5*4096+2000): reported at that block's offset
damaged "verify '$thr0' at offset $((5 * BS))(:|,| ).*(checksum|corrupt)" \
    "printf '\\377' | dd of=\"\$1\" bs=1 seek=$((5 * BS + 2000)) conv=notrunc status=none"
ok "a flipped byte: exit 1, file and offset $((5 * BS)) named"
# the same with the mmap engine
damaged "verify '$thr0' at offset $((5 * BS))" \
    "printf '\\377' | dd of=\"\$1\" bs=1 seek=$((5 * BS + 2000)) conv=notrunc status=none" -M
ok "a flipped byte with -M"
# flipped in the header's offset field of block 7: still caught
damaged "verify '$thr0' at offset $((7 * BS))" \
    "printf '\\001' | dd of=\"\$1\" bs=1 seek=$((7 * BS + 9)) conv=notrunc status=none"
ok "a flipped header byte"
# block 3 copied over block 9: every byte a valid block, at the wrong place
damaged "verify '$thr0' at offset $((9 * BS))" \
    "dd if=\"\$1\" of=\"\$1\" bs=$BS skip=3 seek=9 count=1 conv=notrunc status=none"
ok "a misplaced block (block 3 copied to block 9)"
# thread 1's block 4 over thread 0's block 4
damaged "verify '$thr0' at offset $((4 * BS))" \
    "dd if=\"\$2\" of=\"\$1\" bs=$BS skip=4 seek=4 count=1 conv=notrunc status=none"
ok "a block from the other thread's file"
# stale: save the files after the write phase, put them back after the random write
"$FSBENCH" tiotest -t 2 -f 1 -r 200 -b $BS -c -d "$DIR" --between-phases "set -- \$FSBENCH_FILES;
    case \$FSBENCH_PHASE_NEXT in random_write) cp \"\$1\" '$SCRATCH/saved' ;; read) cat '$SCRATCH/saved' > \"\$1\" ;; esac" \
    > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "-c with stale blocks: exit $rc, expected 1: $(cat "$SCRATCH/err")"
grep -Eq "verify '$thr0' at offset [0-9]+.*stale" "$SCRATCH/err" || fail "-c with stale blocks: $(cat "$SCRATCH/err")"
no_files "$DIR"
ok "stale blocks (file rolled back past the random write)"

# the damage is found by the random read too when the sequential read is skipped: overwrite
# all of thread 0's file with 0xff bytes, so any block it reads is bad
"$FSBENCH" tiotest -t 2 -f 1 -r 50 -b $BS -c -k 2 -d "$DIR" --between-phases \
    "[ \"\$FSBENCH_PHASE_NEXT\" = random_read ] || exit 0; set -- \$FSBENCH_FILES
     head -c 1048576 /dev/zero | tr '\\000' '\\377' | dd of=\"\$1\" conv=notrunc status=none" \
    > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
[ "$rc" = 1 ] || fail "-c -k 2 with damage: exit $rc, expected 1: $(cat "$SCRATCH/err")"
grep -Eq "verify '$thr0' at offset [0-9]+" "$SCRATCH/err" || fail "-c -k 2: $(cat "$SCRATCH/err")"
grep -q '^Results incomplete: the run stopped during the Random Read phase\.$' "$SCRATCH/out" || fail "-c -k 2: no incomplete line"
no_files "$DIR"
ok "random read verifies too"
