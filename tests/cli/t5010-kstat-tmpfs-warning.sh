#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t5010: a tmpfs target has no block device, and buffered reads from it raise the page cache
# warning: in the JSON per read phase, and on stderr (by default, not only with --sysstats) as
# the one line that names every phase with its MiB; --quiet keeps stderr empty.
. "$(dirname "$0")/lib.sh"
need_cmd jq
need_root
T=$SCRATCH/tmpfs
mkdir -p "$T"
mount -t tmpfs -o size=64m fsbench-t5010 "$T" 2>/dev/null || skip "cannot mount tmpfs"
echo "$T" >> "$_MOUNTS_FILE"

fsb tiotest -t 1 -f 8 -r 500 -k 1 -d "$T" --quiet --json "$SCRATCH/r.json" > /dev/null 2> "$SCRATCH/err0" ||
    fail "tiotest on tmpfs failed"
[ ! -s "$SCRATCH/err0" ] || fail "stderr with --quiet: $(cat "$SCRATCH/err0")"
J=$SCRATCH/r.json
[ "$(jq -r '.environment.targets[0].block_device.kind' "$J")" = none ] || fail "tmpfs has a block device?"
[ "$(jq -r '.environment.targets[0].fstype' "$J")" = tmpfs ] || fail "fstype not tmpfs"
jq -e '[.phases[] | select(.name == "read") | .warnings[] | select(.id == "page_cache_reads")] | length == 1' \
    "$J" >/dev/null || fail "no page_cache_reads warning in the JSON read phase"
ok "tmpfs: no device; page_cache_reads in the JSON"

fsb tiotest -t 1 -f 8 -r 500 -k 1 -d "$T" --sysstats > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "tiotest --sysstats failed"
[ "$(grep -c 'no block device' "$SCRATCH/err")" = 1 ] || fail "expected one no-device line: $(cat "$SCRATCH/err")"
grep -Eq "^fsbench tiotest: warning: no block device under $T \(tmpfs\), so these rates are memory speed, not storage: write \(8\.0 MiB written\), read \(8\.0 MiB read\), random read \([0-9.]+ MiB read\)\$" \
    "$SCRATCH/err" || fail "no-device warning on stderr: $(cat "$SCRATCH/err")"
grep -Eq '^Write +\(none\)' "$SCRATCH/out" || fail "--sysstats row for a deviceless target: $(cat "$SCRATCH/out")"
grep -q 'warning' "$SCRATCH/out" && fail "a warning on stdout"
ok "one warning line on stderr naming the three phases with their MiB"
