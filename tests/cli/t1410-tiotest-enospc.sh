#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1410 (root): ENOSPC ends the run cleanly (tiotest: exit(-1) from a thread, no results, files
# left). A 16 MiB loop ext4 and -f 64: exit 1, exactly one error line on stderr with
# "No space left on device" and the file, the results so far on stdout followed by the
# "Results incomplete" line, the JSON says incomplete with the error, and no _tiotest files.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
loop_fs ext4 16 > "$SCRATCH/mnt"    # in this shell: loop_fs records the mount for cleanup
MNT=$(cat "$SCRATCH/mnt")
[ -d "$MNT" ] && mountpoint -q "$MNT" || fail "loop_fs did not mount ext4 at '$MNT'"

for t in 1 2; do
    "$FSBENCH" tiotest -t $t -f 64 -r 100 -d "$MNT" --json "$SCRATCH/r$t.json" > "$SCRATCH/out" 2> "$SCRATCH/err"; rc=$?
    [ "$rc" = 1 ] || fail "-t $t ENOSPC: exit $rc, expected 1; stderr: $(cat "$SCRATCH/err")"
    [ "$(not_warnings "$SCRATCH/err" | wc -l)" = 1 ] || fail "-t $t ENOSPC: expected one error line, got: $(cat "$SCRATCH/err")"
    grep -Eq "^fsbench tiotest: pwrite '$MNT/_tiotest_pid[0-9]+\.thr[0-9]+' at offset [0-9]+: No space left on device$" "$SCRATCH/err" ||
        fail "-t $t ENOSPC: message: $(cat "$SCRATCH/err")"
    head -1 "$SCRATCH/out" | grep -qx "Tiotest results for $t concurrent io threads:" || fail "-t $t ENOSPC: no tables: $(cat "$SCRATCH/out")"
    grep -Eq '^\| Write +[0-9]+ MBs \|' "$SCRATCH/out" || fail "-t $t ENOSPC: no partial Write row"
    ! grep -q '^| Read ' "$SCRATCH/out" || fail "-t $t ENOSPC: a Read row after the run stopped in the write phase"
    [ "$(tail -1 "$SCRATCH/out")" = "Results incomplete: the run stopped during the Write phase." ] ||
        fail "-t $t ENOSPC: last stdout line is not the 'Results incomplete' line: $(tail -2 "$SCRATCH/out")"
    jq -e '.complete == false and .stop_reason == "error" and .error.errno == 28 and .error.syscall == "pwrite" and
           ([.phases[].name] == ["write"]) and .phases[0].complete == false and .phases[0].bytes > 0 and
           .phases[0].bytes < 64 * 1048576 * .config.threads' "$SCRATCH/r$t.json" > /dev/null ||
        fail "-t $t ENOSPC: JSON: $(jq -c '{complete, stop_reason, error, p: [.phases[] | {name, complete, bytes}]}' "$SCRATCH/r$t.json")"
    no_files "$MNT"
    [ "$(ls -A "$MNT")" = lost+found ] || fail "-t $t ENOSPC: left in the filesystem: $(ls -A "$MNT")"
done
# the space is back: a run that fits passes on the same filesystem
"$FSBENCH" tiotest -t 1 -f 4 -r 100 -d "$MNT" -T > /dev/null || fail "a small run after ENOSPC failed (space not freed?)"
no_files "$MNT"
ok "ENOSPC: exit 1, one error line, partial results marked incomplete, no files left"
