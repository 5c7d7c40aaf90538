#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7220: fsbench matrix --target with --remount-opts on a loop ext4 the test mounts: each cell's
# runs see its options (the workload's JSON records the mount), the original options are back
# after success (nobarrier taken back with barrier), after SIGINT, and after SIGKILL with
# --undo; a target that is not a mount point, --remount-opts without --target and a remount
# option that is no mount option are exit 2, nothing set up.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd findmnt
E=$(loop_fs ext4 128) || exit $?
orig=$(findmnt -no VFS-OPTIONS,FS-OPTIONS "$E")
opts() { findmnt -no VFS-OPTIONS,FS-OPTIONS "$E"; }

fsb matrix --target e="$E" --remount-opts noatime --remount-opts nobarrier --repeat 2 --no-db -o r \
    -- tiotest -t 1 -f 1 -r 10 -b 4096 > out 2> err || fail "exit $?: $(cat err)"
[ "$(opts)" = "$orig" ] || fail "after success: $(opts), was $orig"
# the manifest and the four runs' JSONs read by one jq (a jq costs ~50 ms of CPU; they were 7)
mapfile -t v < <(jq -n -r '(input | ([.runs[] | select(.status == "ok")] | length == 4),
        ([.undo[] | select(.kind == "remount")] | length == 4 and all(.undone)),
        (.experiment.cells | map(.config.remount_options) == ["noatime", "nobarrier"])),
    (input, input | (try (.environment.targets[0].mount_options | test("noatime")) catch false)
        or ([.. | .mount_options? // empty | strings] | any(test("noatime")))),
    (input, input | [.. | .super_options? // empty | strings] | any(test("nobarrier")))' r/manifest.json \
    r/runs/noatime/run-1.json r/runs/noatime/run-2.json r/runs/nobarrier/run-1.json r/runs/nobarrier/run-2.json)
[ "${#v[@]}" = 7 ] || fail "the manifest and the runs' JSONs: ${v[*]}"
[ "${v[0]}" = true ] || fail "not 4 runs ok"
[ "${v[1]}" = true ] ||
    fail "remounts not undone: $(jq -c '[.undo[] | select(.kind == "remount")]' r/manifest.json)"
for k in 1 2; do
    [ "${v[k + 2]}" = true ] || fail "noatime run $k did not run on a noatime mount"
    [ "${v[k + 4]}" = true ] || fail "nobarrier run $k did not run with nobarrier"
done
[ "${v[2]}" = true ] ||
    fail "the cells' configs: $(jq -c '[.experiment.cells[].config.remount_options]' r/manifest.json)"
ok "each cell on its options, the original ones back after"

"$FSBENCH" matrix --target e="$E" --remount-opts nobarrier --repeat 200 --no-db -o s \
    -- tiotest -t 1 -f 8 -b 4096 > out 2> err &
pid=$!
for _ in $(seq 600); do [[ $(opts) == *nobarrier* ]] && break; nap 0.05; done
opts | grep -q nobarrier || fail "never remounted nobarrier"
kill -INT $pid
wait $pid; rc=$?
[ $rc = 130 ] || fail "SIGINT: exit $rc: $(cat err)"
[ "$(opts)" = "$orig" ] || fail "after SIGINT: $(opts), was $orig"
[ -z "$(ls -A "$E" | grep -v lost+found)" ] || fail "left in $E after SIGINT: $(ls -A "$E")"
ok "SIGINT: remounted back, nothing left"

"$FSBENCH" matrix --target e="$E" --remount-opts nobarrier --repeat 200 --no-db -o k \
    -- tiotest -t 1 -f 8 -b 4096 > out 2> err &
pid=$!
for _ in $(seq 600); do [[ $(opts) == *nobarrier* ]] && break; nap 0.05; done
kill -KILL $pid
{ wait $pid; } 2>/dev/null
opts | grep -q nobarrier || fail "killed, but not left nobarrier: $(opts)"
fsb matrix --undo k > out 2> err || fail "--undo: exit $?: $(cat err)"
[ "$(opts)" = "$orig" ] || fail "after SIGKILL and --undo: $(opts), was $orig: $(cat err)"
[ -z "$(ls -A "$E" | grep -v lost+found)" ] || fail "left in $E after --undo: $(ls -A "$E")"
ok "SIGKILL and --undo: remounted back, the subdirectory removed"

# the manifest's word alone is not proof: an undeclared target is left
mkdir -p "$SCRATCH/other" && mount -t tmpfs -o size=8m fsbench-t7220 "$SCRATCH/other" || fail "tmpfs"
echo "$SCRATCH/other" >> "$_MOUNTS_FILE"
jq --arg m "$SCRATCH/other" '.undo = [.undo[0] | .target = $m | .undone = false | .state = "done"]
    | .state = "running" | .undo_complete = false' k/manifest.json > m.json && mv m.json k/manifest.json
expect_exit 1 fsb matrix --undo k 2> err
grep -q 'left: not proven' err || fail "an undeclared target: $(cat err)"
ok "--undo leaves a target the result directory does not declare"

mkdir "$E/sub"
for a in "--target e=$E/sub --remount-opts noatime" "--remount-opts noatime" \
         "--target e=$E --remount-opts loop=/dev/loop0" "--target e=$E --remount-opts bind"; do
    expect_exit 2 fsb matrix $a -o x -- tiotest -t 1 -f 1 2> err
    [ "$(wc -l < err)" = 1 ] || fail "$a: $(cat err)"
    [ ! -e x ] || fail "$a: something was set up"
done
rmdir "$E/sub"
[ "$(opts)" = "$orig" ] || fail "refusals changed the mount: $(opts)"
ok "not a mount point, no --target, loop= and bind: exit 2"
