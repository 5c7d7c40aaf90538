#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7060: fsbench matrix --after fsck,freespace on real loop filesystems. ext4, xfs and btrfs
# cells, two runs each: after every run the filesystem is unmounted, its checker runs (verdict
# clean, timed) and its free extents are listed (ext4, xfs; btrfs: absent with the reason, never
# zeros). The figures reach summary.json as the cells' figures with the effects tested, the
# report has its section and plot-after, the history database records them, and fs_mark
# --layout's extents per file are in the fill. Bad --after values are refused before anything is
# set up (a missing checker too: t0410, alone, since hiding it takes a mount namespace).
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd sqlite3
for t in mkfs.ext4 mkfs.xfs mkfs.btrfs e2fsck xfs_repair btrfs e2freefrag xfs_db; do need_cmd $t; done
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"

# refused before anything: a value that is not a check, and a checker that is not installed
fsb matrix --after fsck,defrag --fs ext4 --no-db -o "$SCRATCH/bad" -- fs_mark -n 10 > out 2> err
[ $? = 2 ] || fail "--after defrag: exit not 2: $(cat err)"
grep -q "option --after: 'defrag' is not fsck, freespace or none" err || fail "--after defrag: $(cat err)"
[ ! -e "$SCRATCH/bad" ] || fail "--after defrag left a result directory"
fsb matrix --after fsck,freespace --fs ext4 --dry-run -- fs_mark -n 10 > out 2> err || fail "dry run: $(cat err)"
grep -q '^after each run, unmounted: fsck freespace$' out || fail "dry run does not say the checks: $(cat out)"

DB=$SCRATCH/h.db
fsb matrix --fs ext4,xfs,btrfs --repeat 2 --size 512M --after fsck,freespace --max-other-cpu 100 \
    --db "$DB" -o "$SCRATCH/r" -- fs_mark -n 50 -s 16384 -L 3 -t 2 --layout > out 2> err ||
    fail "matrix exit $?: $(cat err)"
R=$SCRATCH/r
S=$R/summary.json
[ "$(grep -c 'fsck after run .*: clean, ' err)" = 6 ] || fail "not six clean checks said: $(cat err)"
grep -q 'free space after run .* btrfs #1: absent: btrfs has no free-space histogram tool' err ||
    fail "btrfs free space not said absent: $(cat err)"
# every after-run file read by one jq, the manifest's and the summary's figures by one each (a jq
# costs ~50 ms of CPU: a jq per check was most of the test's own CPU)
afters=() mexprs=()
for c in ext4 xfs btrfs; do
    for k in 1 2; do
        A=$R/runs/$c/after-run-$k.json
        [ -s "$A" ] || fail "no $A"
        afters+=("$A")
        mexprs+=("[.runs[] | select(.after == \"runs/$c/after-run-$k.json\" and .fsck_verdict == \"clean\"
            and .after_status == \"done\")] | length == 1")
    done
done
mapfile -t rows < <(jq -r '[.cell, (.schema == "fsbench-after" and .fsck.verdict == "clean"
        and .fsck.exit_status == 0 and .fsck.wall_ns > 0 and .fsck.finding == false),
    (try (.freespace.absent | test("btrfs")) catch false
        and .freespace.histogram == null and .freespace.free_extents == null),
    (try (.freespace.absent == null and .freespace.free_extents > 0 and
        ([.freespace.histogram[].free_bytes] | add) == .freespace.free_bytes and
        ([.freespace.histogram[].extents] | add) == .freespace.free_extents) catch false)]
    | map(tostring) | join("\u001f")' "${afters[@]}")
[ "${#rows[@]}" = 6 ] || fail "after-run files: ${rows[*]}"
jq_read m "$R/manifest.json" "${mexprs[@]}"
i=0
for c in ext4 xfs btrfs; do
    for k in 1 2; do
        A=$R/runs/$c/after-run-$k.json
        IFS=$US read -r cell fsck_ok btrfs_absent histogram_ok <<<"${rows[i]}"
        [ "$cell" = "$c" ] && [ "$fsck_ok" = true ] || fail "$A: fsck not clean and timed: $(jq -c .fsck "$A")"
        [ "${m[i]}" = true ] || fail "the manifest does not name $A"
        i=$((i + 1))
        [ $k = 1 ] || continue
        if [ $c = btrfs ]; then
            [ "$btrfs_absent" = true ] ||
                fail "btrfs free space is not absent with a reason: $(jq -c .freespace "$R/runs/btrfs/after-run-1.json")"
        else
            # the histogram adds up to the free space the tool reports
            [ "$histogram_ok" = true ] ||
                fail "$c: free-space histogram does not add up: $(jq -c .freespace "$R/runs/$c/after-run-1.json")"
        fi
    done
    # the after-run files are not results: a glob of the run files matches these two only
    [ "$(cd "$R" && echo runs/$c/run-*.json)" = "runs/$c/run-1.json runs/$c/run-2.json" ] ||
        fail "runs/$c/run-*.json: $(cd "$R" && echo runs/$c/run-*.json)"
done
# the cells' figures, with the tests over them
sexprs=()
for c in ext4 xfs btrfs; do
    sexprs+=("[.cells[] | select(.name == \"$c\") | .figures[\"fsck.wall_s\"].n == 2 and
        .figures[\"fsck.wall_s\"].mean > 0 and .figures[\"fsck.max_rss_mib\"].mean > 0 and
        .after.fsck_runs == 2 and .after.fsck_clean == 2 and .after.findings == 0] | (length > 0 and .[-1])")
done
jq_read v "$S" "${sexprs[@]}" \
    '[.cells[] | select(.name == "ext4") | .figures["freespace.mean_extent_kib"].n == 2 and
       .after.freespace_runs == 2 and (.after.freespace_histogram | length) > 0] | (length > 0 and .[-1])' \
    '[.cells[] | select(.name == "btrfs") | (.figures | has("freespace.mean_extent_kib") | not) and
       (.after.freespace_absent | test("btrfs"))] | (length > 0 and .[-1])' \
    '[.effects[] | select(.figure == "fsck.wall_s" and .axis == "fs" and .tested)] | length == 3' \
    '.findings == []'
i=0
for c in ext4 xfs btrfs; do
    [ "${v[i]}" = true ] ||
        fail "cell $c lacks its fsck figures: $(jq -c --arg c $c '.cells[] | select(.name == $c) | .after' "$S")"
    i=$((i + 1))
done
[ "${v[3]}" = true ] || fail "ext4's free-space figures missing: $(jq -c '.cells[0].after' "$S")"
[ "${v[4]}" = true ] || fail "btrfs has free-space figures"
[ "${v[5]}" = true ] ||
    fail "fsck wall time is not tested across the cells: $(jq -c '[.effects[] | select(.figure == "fsck.wall_s")]' "$S")"
[ "${v[6]}" = true ] || fail "findings on clean filesystems: $(jq -c .findings "$S")"
# the report: its section, the plot, extents per file in the fill
grep -q '^## After the runs: filesystem check and free space' "$R/report.md" || fail "report.md has no after section"
grep -q '^| ext4 | 2/2 clean |' "$R/report.md" || fail "report.md lacks ext4's verdicts: $(grep -A5 'fsck verdicts' "$R/report.md")"
! grep -q '^## Findings' "$R/report.md" || fail "report.md has findings"
for f in plot-after.svg plot-after.png; do [ -s "$R/$f" ] || fail "no $f"; done
grep -q 'plot-after' "$R/report.html" && grep -q '<svg' "$R/report.html" || fail "report.html lacks the after plot"
jq -e '[.iterations[] | .layout.extents_per_file // empty] | length == 3' "$R/runs/ext4/run-1.json" >/dev/null ||
    fail "fs_mark --layout figures missing from the run"
# the history
n=$(sqlite3 "$DB" "SELECT count(*) FROM figures WHERE key = 'fsck.wall_s'")
[ "$n" = 6 ] || fail "history has $n fsck.wall_s figures, not 6"
! grep -q "$SCRATCH" /proc/self/mountinfo || fail "a mount left"
ok "matrix --after: checks per run, figures per cell, report, plot and history"
