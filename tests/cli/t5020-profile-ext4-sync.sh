#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t5020: --profile on a phase that lives in a known kernel path (O_SYNC writes on a loop ext4):
# plausible kernel symbols among the top entries, the JSON profile's percentages add up to
# 100, --profile-top limits the table, and --profile-callgraph writes folded stacks that parse
# ("frame;frame;... count"). Asserts on symbol name patterns, never on percentages.
. "$(dirname "$0")/lib.sh"
need_cmd jq
loop_fs ext4 256 > "$SCRATCH/mnt"
MNT=$(cat "$SCRATCH/mnt")
mountpoint -q "$MNT" || fail "loop_fs did not mount ext4 at '$MNT'"

# this process only (FSBENCH_PROFILE_SCOPE=process): on a shared machine a system-wide profile
# also holds whatever else runs, which no assertion can predict
FSBENCH_PROFILE_SCOPE=process fsb tiotest -S -t 2 -f 8 -r 300 -k 2 -k 3 -d "$MNT" --quiet --profile --profile-top 20 \
    --profile-callgraph --json "$SCRATCH/r.json" > "$SCRATCH/out" 2> "$SCRATCH/err"
rc=$?
if grep -q -- '--profile: .*running without a profile' "$SCRATCH/err"; then
    skip "perf not permitted here: $(cat "$SCRATCH/err")"
fi
[ $rc = 0 ] || fail "tiotest -S --profile: exit $rc: $(cat "$SCRATCH/err")"
J=$SCRATCH/r.json
grep -q '^Profile: Write phase, [0-9]* samples, cpu-clock at 999 Hz, this process' "$SCRATCH/out" ||
    fail "no Write phase profile: $(cat "$SCRATCH/out")"
grep -q '^samples  %        image name' "$SCRATCH/out" || fail "no table header"
# the table: at most 20 rows per phase
rows=$(awk '/^Profile: Write phase/{t=1;next} t&&/^samples/{next} t&&/^[0-9]/{n++} t&&!/^[0-9]/{exit} END{print n+0}' "$SCRATCH/out")
[ "$rows" -ge 1 ] && [ "$rows" -le 20 ] || fail "write table has $rows rows"
# a synchronous write path: ext4/jbd2/block layer/VFS/syscall entry symbols near the top
top=$(jq -r '.phases[0].profile.entries[:20][] | "\(.image) \(.symbol)"' "$J")
# A sampled profile on a loaded machine can, now and then, have its few top leaves elsewhere
# (softirqs, unlocks re-enabling interrupts); the call chains then still show the write path:
# most of the write phase's sampled stacks must pass through ext4, jbd2 or the VFS.
if ! echo "$top" | grep -Eq 'vmlinux (ext4_|jbd2|vfs_|do_sys|entry_SYSCALL|blk_|submit_bio|iomap|__filemap|filemap_|file_write|_copy_from|copy_folio)'; then
    share=$(awk '/^write;/ { n += $NF; if ($0 ~ /(ext4_|jbd2|vfs_write|ksys_write|__x64_sys_pwrite)/) k += $NF }
                 END { print (n ? int(100 * k / n) : 0) }' "$SCRATCH/r.folded")
    [ "$share" -ge 50 ] ||
        fail "no plausible kernel symbol among the top 20 of the write phase, and only $share% of its stacks pass through the write path: $top"
fi
ok "kernel write path in the top entries: $(echo "$top" | grep -E 'ext4_|jbd2|vfs_' | head -3 | tr '\n' ',')"

for i in $(jq '.phases | keys[]' "$J"); do
    jq -e --argjson i "$i" '.phases[$i].profile as $p | ($p.entries | map(.pct) | add) as $s |
        ($p.samples == 0) or ($s > 99.9 and $s < 100.1)' "$J" >/dev/null ||
        fail "phase $i: percentages do not add up to 100"
    jq -e --argjson i "$i" '.phases[$i].profile as $p | ($p.entries | map(.samples) | add // 0) == $p.samples' \
        "$J" >/dev/null || fail "phase $i: entry samples do not add up to the total"
done
ok "percentages add up to 100 in every phase"

F=$SCRATCH/r.folded
[ -s "$F" ] || fail "no folded stacks file $F"
bad=$(grep -Evc '^[^ ;]+(;[^ ;]+)+ [1-9][0-9]*$' "$F")
[ "$bad" = 0 ] || fail "$bad malformed folded lines: $(grep -Ev '^[^ ;]+(;[^ ;]+)+ [1-9][0-9]*$' "$F" | head -3)"
grep -q '^write;' "$F" || fail "no write-phase stacks"
grep -Eq '^write;fsbench;[^ ]*(ext4_|jbd2)' "$F" || fail "no ext4/jbd2 frame in the write stacks"
ok "folded stacks parse ($(wc -l < "$F") lines)"
