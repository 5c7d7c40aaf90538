#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Not serial: its SIGTERM waits until fsbench catches it (lib.sh: catching), then lands in the
# work or after it (both are checked).
# t7115: how --undo keeps its manifest (issue 17): 5,000 entries take seconds, not a rewrite of
# the whole file after each (64 s before); a manifest it cannot write is exit 1, not 0; a
# SIGTERM leaves no manifest.json.tmp.* and a manifest that parses.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mount
gone=$SCRATCH/gone      # the scratch folder the entries were in, removed already

# manifest DIR N: N folder entries in a scratch folder that is gone ("already gone" each)
manifest() {
    mkdir -p "$1"
    jq -n --arg sc "$gone" --argjson n "$2" '
      { schema: "fsbench-matrix", version: 1, state: "running", pid: 2147483000, pid_start: 1,
        target: { kind: "image", scratch: $sc },
        undo: [ range(0; $n) | { id: ., kind: "dir", path: ($sc + "/d\(.)"), state: "done", undone: false } ] }' \
        > "$1/manifest.json"
}

manifest "$SCRATCH/big" 5000
start=$(date +%s)
timeout 30 "$FSBENCH" matrix --undo "$SCRATCH/big" > /dev/null 2> err; rc=$?
took=$(( $(date +%s) - start ))
[ $rc = 0 ] || fail "5,000 entries: exit $rc: $(tail -3 err)"
[ $took -le 5 ] || fail "5,000 entries took $took s"
[ "$(grep -c ': already gone$' err)" = 5000 ] || fail "not 5,000 entries said: $(tail -3 err)"
jq -e '([.undo[].undone] | all) and .undo_complete == true and .state == "killed"' "$SCRATCH/big/manifest.json" \
    > /dev/null || fail "the manifest after 5,000 entries"
no_files "$SCRATCH/big"

# a manifest it cannot write: a read-only bind mount of its folder
manifest "$SCRATCH/ro" 3
mount --bind "$SCRATCH/ro" "$SCRATCH/ro" || skip "cannot bind-mount here"
echo "$SCRATCH/ro" >> "$_MOUNTS_FILE"
mount -o remount,bind,ro "$SCRATCH/ro" || skip "cannot remount read-only"
fsb matrix --undo "$SCRATCH/ro" > /dev/null 2> err; rc=$?
[ $rc = 1 ] || fail "an unwritable manifest: exit $rc, expected 1: $(cat err)"
grep -q "cannot write '$SCRATCH/ro/manifest.json'" err || fail "an unwritable manifest: $(cat err)"
umount "$SCRATCH/ro"

# SIGTERM while it works: no temporary left, a manifest that parses
manifest "$SCRATCH/term" 20000
"$FSBENCH" matrix --undo "$SCRATCH/term" > /dev/null 2> err &
pid=$!
catching $pid || fail "fsbench matrix --undo does not catch SIGTERM 60 s after its start"
sleep 0.4
kill -TERM $pid
wait $pid; rc=$?
[ $rc = 143 ] || [ $rc = 0 ] || fail "SIGTERM: exit $rc: $(tail -3 err)"
no_files "$SCRATCH/term"
jq -e '.undo | length == 20000' "$SCRATCH/term/manifest.json" > /dev/null || fail "the manifest after SIGTERM"
if [ $rc = 143 ]; then
    grep -q "interrupted by SIGTERM" err || fail "SIGTERM not said: $(tail -3 err)"
    fsb matrix --undo "$SCRATCH/term" > /dev/null 2> err || fail "--undo after SIGTERM: exit $?: $(tail -3 err)"
fi
jq -e '[.undo[].undone] | all' "$SCRATCH/term/manifest.json" > /dev/null || fail "not all undone at last"
ok "--undo: 5,000 entries in ${took} s, an unwritable manifest is exit 1, SIGTERM leaves no temporary"
