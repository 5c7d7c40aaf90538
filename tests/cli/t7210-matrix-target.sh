#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7210: fsbench matrix --target on existing directories, a tmpfs and a loop ext4 the test
# mounts, as root and as nobody (runuser): the cells run, each run's subdirectory is removed,
# nothing else in the directory is touched (a sentinel file, its mtime), the manifest records
# each target's filesystem and mount options. Without root a knob, mkfs or mount axis is exit 3
# with nothing done; as root an fs or mount axis, --after, a missing directory and one others
# may write are exit 2.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd runuser
need_cmd findmnt
id nobody > /dev/null 2>&1 || skip "no user nobody"
chmod 711 "$SCRATCH" || fail "chmod"
T=$SCRATCH/tmpfs
mkdir "$T" && mount -t tmpfs -o size=64m,mode=1777 fsbench-t7210 "$T" || skip "cannot mount a tmpfs here"
echo "$T" >> "$_MOUNTS_FILE"
E=$(loop_fs ext4 128) || exit $?
chmod 1777 "$E" || fail "chmod $E"
for d in "$T" "$E"; do
    echo keep > "$d/sentinel" && touch -d @1500000000 "$d/sentinel" || fail "sentinel in $d"
done
mkdir "$SCRATCH/nb" && chmod 1777 "$SCRATCH/nb" || fail "mkdir nb"
export XDG_DATA_HOME=$SCRATCH/nb/xdg

# check_run DIR: 2 targets x 2 runs ok; the targets as they are mounted; every subdirectory gone
check_run() {
    local R=$1 d
    # one jq for the manifest's figures (a jq costs ~50 ms of CPU); a failure's diagnostic reads more
    export JQ_T=$T JQ_E=$E JQ_TO JQ_EO
    JQ_TO=$(findmnt -no VFS-OPTIONS "$T") JQ_EO=$(findmnt -no VFS-OPTIONS "$E")
    jq_read v "$R/manifest.json" '[.runs[] | select(.status == "ok")] | length == 4' \
        '.target.kind == "directory" and .state == "done" and .undo_complete == true' \
        '[.target.targets[] | [.name, .dir, .fstype, .mount_point, .mount_options]]
            == [["tmp", $ENV.JQ_T, "tmpfs", $ENV.JQ_T, $ENV.JQ_TO], ["ext4", $ENV.JQ_E, "ext4", $ENV.JQ_E, $ENV.JQ_EO]]' \
        '[.undo[] | select(.kind == "workdir" and .undone == true and .undo == "removed")] | length == 4'
    [ "${v[0]}" = true ] || fail "$R: not 4 runs ok: $(jq -c '[.runs[] | .status]' "$R/manifest.json")"
    [ "${v[1]}" = true ] || fail "$R: $(jq -c '{target, state}' "$R/manifest.json")"
    [ "${v[2]}" = true ] || fail "$R: targets not recorded: $(jq -c .target.targets "$R/manifest.json")"
    [ "${v[3]}" = true ] || fail "$R: not 4 subdirectories removed: $(jq -c .undo "$R/manifest.json")"
    [ "$(ls -A "$T")" = sentinel ] || fail "left in $T: $(ls -A "$T")"
    [ "$(ls -A "$E" | grep -v lost+found)" = sentinel ] || fail "left in $E: $(ls -A "$E")"
    for d in "$T" "$E"; do
        [ "$(stat -c %Y "$d/sentinel")" = 1500000000 ] && [ "$(cat "$d/sentinel")" = keep ] ||
            fail "the sentinel in $d was touched"
    done
    [ -s "$R/runs/tmp/run-2.json" ] && [ -s "$R/runs/ext4/run-1.json" ] || fail "$R: run results missing"
}

fsb matrix --target tmp="$T" --target ext4="$E" --repeat 2 --no-db -o "$SCRATCH/r-root" \
    -- tiotest -t 1 -f 1 -r 10 -b 4096 > out 2> err || fail "as root: exit $?: $(cat err)"
check_run "$SCRATCH/r-root"
ok "as root: two targets, subdirectories removed, sentinels untouched, filesystems recorded"

runuser -u nobody -- env XDG_DATA_HOME="$XDG_DATA_HOME" "$FSBENCH" matrix --target tmp="$T" --target ext4="$E" \
    --repeat 2 --no-db -o "$SCRATCH/nb/r" -- fs_mark -n 20 -s 4096 -S 0 -L 2 -k > out 2> err ||
    fail "as nobody: exit $?: $(cat err)"
check_run "$SCRATCH/nb/r"
[ "$(stat -c %U "$SCRATCH/nb/r/manifest.json")" = nobody ] || fail "the manifest is not nobody's"
ok "as nobody: the same, fs_mark -k's files removed with the subdirectory"

# the experiment file's [target] sections, and the command line's --target over them
cat > "$SCRATCH/nb/t.ini" <<INI
[experiment]
workload = tiotest
args = -t 1 -f 1 -r 10 -b 4096
repeat = 1
no-db = yes

[target tmp]
dir = $T

[target ext4]
dir = $E
INI
runuser -u nobody -- "$FSBENCH" matrix "$SCRATCH/nb/t.ini" --dry-run > out 2> err || fail "ini dry run: $(cat err)"
grep -q "^cell tmp: target tmp ($T)" out && grep -q "^cell ext4: target ext4 ($E)" out || fail "ini cells: $(cat out)"
runuser -u nobody -- "$FSBENCH" matrix "$SCRATCH/nb/t.ini" --target only="$T" -o "$SCRATCH/nb/i" > out 2> err ||
    fail "ini with --target: exit $?: $(cat err)"
jq -e '[.target.targets[].name] == ["only"] and ([.runs[] | select(.status == "ok")] | length == 1)' \
    "$SCRATCH/nb/i/manifest.json" > /dev/null || fail "--target over the file's: $(jq -c .target "$SCRATCH/nb/i/manifest.json")"
printf '[target x]\npath = /tmp\n' > "$SCRATCH/nb/bad.ini"
expect_exit 2 fsb matrix "$SCRATCH/nb/bad.ini" -o "$SCRATCH/k" -- tiotest -t 1 -f 1 2> err
grep -q "unknown key 'path' (dir)" err || fail "bad [target]: $(cat err)"
ok "[target NAME] sections, replaced by --target"

for a in "--knob /proc/sys/vm/dirty_ratio=20" "--mount-opts noatime" "--fs ext4" "--drop-caches"; do
    expect_exit 3 runuser -u nobody -- "$FSBENCH" matrix --target tmp="$T" $a -o "$SCRATCH/nb/k" \
        -- tiotest -t 1 -f 1 2> err
    mapfile -t lines < err
    [ ${#lines[@]} = 1 ] && [[ ${lines[0]} == *'needs root'* ]] || fail "as nobody, $a: $(cat err)"
    [ ! -e "$SCRATCH/nb/k" ] || fail "as nobody, $a: something was set up"
done
ok "as nobody: knob, mount, fs axes and --drop-caches refused (exit 3), nothing set up"

mkdir "$SCRATCH/open" && chmod 777 "$SCRATCH/open"
for a in "--fs ext4,xfs" "--mount-opts noatime" "--after fsck" "--target x=$SCRATCH/none" "--target x=$SCRATCH/open" \
         "--target =x" "--target ../x=$T"; do
    expect_exit 2 fsb matrix --target tmp="$T" $a -o "$SCRATCH/k" -- tiotest -t 1 -f 1 2> err
    mapfile -t lines < err
    [ ${#lines[@]} = 1 ] || fail "as root, $a: $(cat err)"
    [ ! -e "$SCRATCH/k" ] || fail "as root, $a: something was set up"
done
[ "$(ls -A "$T")" = sentinel ] || fail "left in $T: $(ls -A "$T")"
ok "as root: fs, mount axes, --after, a missing target, one others may write, bad names: exit 2"
