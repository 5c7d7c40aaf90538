#!/bin/bash
# t5010: a tmpfs target has no block device, and buffered reads from it raise the page cache
# warning: one line per read phase on stderr with --sysstats, and in the JSON always.
. "$(dirname "$0")/lib.sh"
need_cmd jq
need_root
T=$SCRATCH/tmpfs
mkdir -p "$T"
mount -t tmpfs -o size=64m fsbench-t5010 "$T" 2>/dev/null || skip "cannot mount tmpfs"
_LOOP_MOUNTS+=("$T")

fsb tiotest -t 1 -f 8 -r 500 -k 1 -d "$T" --quiet --json "$SCRATCH/r.json" > /dev/null 2> "$SCRATCH/err0" ||
    fail "tiotest on tmpfs failed"
[ ! -s "$SCRATCH/err0" ] || fail "warnings on stderr without --sysstats: $(cat "$SCRATCH/err0")"
J=$SCRATCH/r.json
[ "$(jq -r '.environment.targets[0].block_device.kind' "$J")" = none ] || fail "tmpfs has a block device?"
[ "$(jq -r '.environment.targets[0].fstype' "$J")" = tmpfs ] || fail "fstype not tmpfs"
jq -e '[.phases[] | select(.name == "read") | .warnings[] | select(.id == "page_cache_reads")] | length == 1' \
    "$J" >/dev/null || fail "no page_cache_reads warning in the JSON read phase"
ok "tmpfs: no device; page_cache_reads in the JSON"

fsb tiotest -t 1 -f 8 -r 500 -k 1 -d "$T" --quiet --sysstats > "$SCRATCH/out" 2> "$SCRATCH/err" ||
    fail "tiotest --sysstats failed"
grep -q '^fsbench tiotest: warning: read: .*MiB read from a filesystem without a block device' "$SCRATCH/err" ||
    fail "no read warning on stderr: $(cat "$SCRATCH/err")"
grep -q 'warning: random_read: ' "$SCRATCH/err" || fail "no random_read warning"
grep -Eq '^Write +\(none\)' "$SCRATCH/out" || fail "--sysstats row for a deviceless target: $(cat "$SCRATCH/out")"
ok "warnings on stderr with the numbers"
