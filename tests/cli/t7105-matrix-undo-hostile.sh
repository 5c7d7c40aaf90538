#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: exclusive lease-break-time (writes /proc/sys/fs/lease-break-time or checks that it is unchanged)
# t7105: --undo trusts no manifest (issue 17, critical 1). A manifest written by nobody into an
# -o directory nobody owns, one nobody owns in root's directory, one in a directory others may
# write, one that is a symbolic link, and one whose pid has no start time: refused (exit 2),
# the victims intact. Then a killed experiment's own manifest with foreign entries added (a file,
# a folder, a loop device and its mount outside the scratch directory, a "knob" that is a
# regular file, a path climbing out of the scratch directory): the experiment's own set-up is
# undone, every foreign entry is reported and left, exit 1, the victims intact.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd jq
need_cmd mkfs.ext4
need_cmd runuser
id nobody >/dev/null 2>&1 || skip "no user nobody"
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
K=/proc/sys/fs/lease-break-time
[ -w $K ] || skip "no $K to write here"
old=$(cat $K)
chmod 0711 "$SCRATCH"      # nobody may reach its own folder in here

V=$SCRATCH/v
mkdir -p "$V/dir"
echo secret > "$V/file"
echo secret > "$V/file2"
truncate -s 64M "$V/other.img"
L=$(losetup -f --show "$V/other.img") || fail "losetup"
trap 'umount "$V/mnt" 2>/dev/null; losetup -d "$L" 2>/dev/null; _lib_cleanup' EXIT
mkfs.ext4 -q -F "$L" && mkdir "$V/mnt" && mount "$L" "$V/mnt" && echo data > "$V/mnt/data" || fail "test mount"
fdev=$(stat -c %d "$V/file") fino=$(stat -c %i "$V/file") f2ino=$(stat -c %i "$V/file2")
odev=$(stat -c %d "$V/other.img") oino=$(stat -c %i "$V/other.img")

# holds FILE TEXT: FILE is the one line TEXT (read by bash: a cat each was 36 processes)
holds() {
    local l
    mapfile -t l < "$1" 2> /dev/null && [ ${#l[@]} = 1 ] && [ "${l[0]}" = "$2" ]
}
intact() {
    holds "$V/file" secret || fail "$1: the victim file: $(cat "$V/file" 2>&1)"
    holds "$V/file2" secret || fail "$1: the second victim file: $(cat "$V/file2" 2>&1)"
    [ -d "$V/dir" ] || fail "$1: removed the victim folder"
    mountpoint -q "$V/mnt" && holds "$V/mnt/data" data || fail "$1: unmounted the victim mount"
    losetup "$L" > /dev/null 2>&1 || fail "$1: detached the victim loop device"
    holds $K "$old" || fail "$1: changed $K to $(cat $K)"
}

# a manifest aimed at the victims (the identities in it are right: only its author is wrong)
hostile() {
    jq -n --arg f "$V/file" --arg f2 "$V/file2" --argjson fd "$fdev" --argjson fi "$fino" \
          --argjson f2i "$f2ino" --arg d "$V/dir" --arg loop "$L" --arg img "$V/other.img" \
          --argjson od "$odev" --argjson oi "$oino" --arg mnt "$V/mnt" --arg k "$K" --arg sc "$V" '
    { schema: "fsbench-matrix", version: 1, state: "running", pid: 2147483000, pid_start: 1,
      experiment: { axes: [ { name: "f", kind: "knob", knob: $f2 }, { name: "k", kind: "knob", knob: $k } ] },
      target: { kind: "image", scratch: $sc }, undo: [
      { id: 0, kind: "dir", path: $d, undone: false },
      { id: 1, kind: "image", path: $f, dev: $fd, ino: $fi, undone: false },
      { id: 2, kind: "loop", image: $img, device: $loop, backing_dev: $od, backing_ino: $oi, undone: false },
      { id: 3, kind: "mount", source: $loop, target: $mnt, undone: false },
      { id: 4, kind: "knob", path: $k, previous: "7", value: "x", readback: "x", undone: false },
      { id: 5, kind: "knob", path: $f2, previous: "pwned", value: "secret", readback: "secret", undone: false } ] }'
}

refused() {
    local what=$1 dir=$2 want=$3
    fsb matrix --undo "$dir" > /dev/null 2> err; local rc=$?
    [ $rc = 2 ] || fail "$what: exit $rc, expected 2: $(cat err)"
    grep -q -- "$want" err || fail "$what: no '$want' in: $(cat err)"
    intact "$what"
}

# 1. nobody's -o directory (the matrix itself refuses it as root: t7100) with nobody's manifest
mkdir "$SCRATCH/theirs" && chown nobody "$SCRATCH/theirs"
hostile > "$SCRATCH/h.json"
chmod 0644 "$SCRATCH/h.json"
runuser -u nobody -- cp "$SCRATCH/h.json" "$SCRATCH/theirs/manifest.json" || fail "nobody cannot write"
refused "nobody's manifest in nobody's folder" "$SCRATCH/theirs" "belongs to uid"
# 2. root's manifest in nobody's folder (nobody could swap it at any time)
rm -f "$SCRATCH/theirs/manifest.json"; hostile > "$SCRATCH/theirs/manifest.json"
refused "root's manifest in nobody's folder" "$SCRATCH/theirs" "belongs to uid"
# 3. nobody's manifest in root's folder
mkdir "$SCRATCH/m3" && hostile > "$SCRATCH/m3/manifest.json" && chown nobody "$SCRATCH/m3/manifest.json"
refused "nobody's manifest in root's folder" "$SCRATCH/m3" "belongs to another user"
# 4. root's manifest that others may write, and a folder others may write
chown root "$SCRATCH/m3/manifest.json"; chmod 0666 "$SCRATCH/m3/manifest.json"
refused "a manifest others may write" "$SCRATCH/m3" "others may write it"
chmod 0644 "$SCRATCH/m3/manifest.json"; chmod 0777 "$SCRATCH/m3"
refused "a folder others may write" "$SCRATCH/m3" "writable by everyone"
chmod 0755 "$SCRATCH/m3"
# 5. a symbolic link in the manifest's place
mkdir "$SCRATCH/m5" && ln -s "$SCRATCH/m3/manifest.json" "$SCRATCH/m5/manifest.json"
refused "a manifest that is a link" "$SCRATCH/m5" "symbolic link"
# 6. pid 1 without a start time is not a dead runner
mkdir "$SCRATCH/m6" && hostile | jq '.pid = 1 | del(.pid_start)' > "$SCRATCH/m6/manifest.json"
refused "pid 1 without a start time" "$SCRATCH/m6" "no start time"

# 7. a real experiment, SIGKILLed mid-run, its manifest then given foreign entries
wait_mounted() {
    local M=$1/manifest.json
    json_wait "$M" '[.undo[] | select(.kind == "mount" and .state == "done" and (.undone | not))] | length > 0' \
        300 0.05
}
r=$SCRATCH/r
"$FSBENCH" matrix --fs ext4 --knob $K=43 --repeat 200 --size 64 --max-other-cpu 100 --no-db -o "$r" \
    -- tiotest -t 1 -f 32 -r 500 > out 2> err &
pid=$!
wait_mounted "$r" || { kill -INT $pid; wait $pid; fail "never saw a mounted run: $(cat err)"; }
kill -KILL $pid
wait $pid 2> /dev/null
[ "$(cat $K)" = 43 ] || fail "the killed runner left $K at $(cat $K), not 43"
sc=$(jq -r .target.scratch "$r/manifest.json")
img=$(jq -r '.undo[] | select(.kind == "image") | .path' "$r/manifest.json")
[ -d "$sc" ] && [ -f "$img" ] || fail "no scratch folder or image to undo: $sc $img"
foreign=$(hostile | jq --arg sc "$sc" --arg img "$img" --arg f "$V/file" '.undo
    + [ { kind: "image", path: ($sc + "/../v/file"), undone: false },
        { kind: "loop", image: $img, device: .undo[2].device, undone: false },
        { kind: "mount", source: .undo[2].device, target: ($sc + "/x"), undone: false } ]
    | map(. + { foreign: true })')
# and the regular file declared as a knob, as an edited experiment record would: the runner's
# own list (the result directory's trusted.fsbench.knobs) does not have it
jq --argjson f "$foreign" --arg f2 "$V/file2" \
    '.undo += $f | .experiment.axes += [ { name: "f", kind: "knob", knob: $f2 } ]' "$r/manifest.json" > "$SCRATCH/m.json" &&
    cat "$SCRATCH/m.json" > "$r/manifest.json" || fail "jq"
# the image entry climbing out of the scratch folder names the victim through the real one
ln -s "$V" "$(dirname "$sc")/v" 2> /dev/null
fsb matrix --undo "$r" > /dev/null 2> uerr; rc=$?
rm -f "$(dirname "$sc")/v"
[ $rc = 1 ] || fail "--undo with foreign entries: exit $rc, expected 1: $(cat uerr)"
intact "foreign entries in a real manifest"
# its own set-up is undone
[ "$(cat $K)" = "$old" ] || fail "$K not restored: $(cat $K)"
! grep -q "$sc" /proc/self/mountinfo || fail "the experiment's mount is left"
[ ! -e "$sc" ] || fail "the scratch folder is left: $(ls -A "$sc")"
# every foreign entry reported as left
n=$(grep -c ": left: " uerr)
[ "$n" = 8 ] || fail "$n entries reported left, expected 8: $(cat uerr)"
for k in "dir $V/dir" "image $V/file" "loop $L" "mount $V/mnt" "knob $V/file2" "image $sc/../v/file"; do
    grep -q "undo: $k: left: " uerr || fail "not reported left: $k: $(cat uerr)"
done
grep -q "undo: knob $V/file2: left: not a knob the experiment declared" uerr || fail "a file as a knob: $(cat uerr)"
grep -q "undo: knob $K: left: changed by someone else since (now 43; fsbench wrote x over 7)" uerr ||
    fail "a declared knob holding another value: $(cat uerr)"
grep -q "undo: loop $L: left: it is attached to a file that is not this experiment's image" uerr ||
    fail "loop backed by another file: $(cat uerr)"
grep -q "undo: mount $sc/x: not mounted" uerr || fail "mount in the scratch folder: $(cat uerr)"
ok "--undo refuses manifests others could write and leaves what is not proven its own"
