#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7250: fsbench matrix --age-cache DIR on a loop ext4. The first experiment ages the filesystem
# (an aging step in its manifest) and keeps the image in DIR; the second starts from that entry:
# no mkfs, no aging step, "aged from cache KEY", the same files (the list's checksum of names and
# sizes, read from the restored filesystem). An entry that was tampered with (its image changed),
# that belongs to another user, or that is a symbolic link is ignored with a warning and never
# used (the run ages instead) nor touched. --age-cache without --age, with --device, or in a
# directory others may write: exit 2, nothing done.
. "$(dirname "$0")/lib.sh"
need_matrix_ext4
cache=$SCRATCH/cache

run() { # DIR
    fsb matrix --fs ext4 --age fill=40%,churn=1 --age-cache "$cache" --seed 7 --size 64 --repeat 1 --no-db \
        -o "$1" -- tiotest -t 1 -f 2 -r 10 -b 4096 > out 2> "$1.err" || fail "$1: exit $?: $(cat "$1.err")"
}
# look DIR N EXPR PREFIX...: c = EXPR's N values from DIR's manifest, then for each PREFIX how
# many applied steps begin with it: one jq a manifest (a jq costs ~50 ms of CPU; they were 15)
look() {
    local d=$1 n=$2 e=$3; shift 3
    mapfile -t c < <(jq -r -c "($e), ([.applied[].command] as \$a | \$ARGS.positional[] as \$p
        | [\$a[] | select(startswith(\$p))] | length)" "$d/manifest.json" --args "$@")
    [ ${#c[@]} = $((n + $#)) ] || fail "$d/manifest.json: ${c[*]}"
}

run a
look a 3 '(.aged[0].cache == null and .mkfs_count == 1), .aged[0].list_hash, .aged[0].files' \
    'age fill=40%,churn=1 seed 7' 'kept in cache '
ha=${c[1]} fa=${c[2]}
[ "${c[3]}" = 1 ] || fail "no aging step: $(jq -c .applied a/manifest.json)"
[ "${c[4]}" = 1 ] || fail "not kept: $(cat a.err)"
entry=$(ls "$cache")
[ "$(echo "$entry" | wc -l)" = 1 ] && [ -f "$cache/$entry/image" ] && [ -f "$cache/$entry/key" ] ||
    fail "the cache: $(ls -la "$cache")"
case $entry in ext4-????????????????) ;; *) fail "entry name $entry" ;; esac
[ "$(stat -c %u:%a "$cache/$entry")" = 0:700 ] || fail "entry mode $(stat -c %u:%a "$cache/$entry")"
[ "${c[0]}" = true ] || fail "a: $(jq -c .aged a/manifest.json)"
ok "the first experiment aged and kept its image ($entry)"

run b
export ENTRY=$entry
look b 4 '(.aged[0].cache == $ENV.ENTRY and .mkfs_count == 0), .aged[0].list_hash, .aged[0].files,
    (.aged[0].used_pct >= 37 and .aged[0].used_pct <= 43)' 'age ' "aged from cache $entry"
hb=${c[1]}
[ "${c[4]}" = 0 ] || fail "b aged again: $(jq -c .applied b/manifest.json)"
[ "${c[5]}" = 1 ] || fail "b: not from the cache: $(cat b.err)"
[ "${c[0]}" = true ] || fail "b: $(jq -c '{aged, mkfs_count}' b/manifest.json)"
[ "$ha" = "$hb" ] || fail "other files from the cache: $ha $hb"
[ "${c[2]}" = "$fa" ] && [ "${c[3]}" = true ] || fail "b's aged state: $(jq -c .aged b/manifest.json)"
grep -q "aged image from cache $entry" b.err || fail "not said: $(cat b.err)"
[ "$(ls "$cache")" = "$entry" ] || fail "the cache changed: $(ls "$cache")"
ok "the second experiment started from the cache: no aging step, the same files ($hb)"

# a pristine copy, to put back between the hostile cases
cp -a --sparse=always "$cache/$entry" "$SCRATCH/pristine"
# what is in the cache and the link's target: names, owners, modes, sizes, times, inodes, contents
# (cksum's CRC: a tenth of md5sum's CPU on the 128 MiB image, read six times)
state() {
    find -P "$cache" "$SCRATCH/elsewhere" -mindepth 1 -printf '%p %u %m %s %T@ %i\n' 2>/dev/null | sort
    find -P "$cache" "$SCRATCH/elsewhere" -type f -exec cksum {} + 2>/dev/null | sort
}
hostile() { # NAME: the run ages (no cache use), says why, and leaves the entry as it was
    local before
    before=$(state | md5sum)
    run "$1"
    grep -q "^fsbench matrix: warning: --age-cache: entry $entry.*not used" "$1.err" || fail "$1: no warning: $(cat "$1.err")"
    look "$1" 0 empty 'aged from cache' 'age fill='
    [ "${c[0]}" = 0 ] && [ "${c[1]}" = 1 ] ||
        fail "$1: used the entry: $(jq -c .applied "$1/manifest.json")"
    [ "$(state | md5sum)" = "$before" ] || fail "$1: the entry was touched"
    [ -z "$(ls "$cache" | grep -v "^$entry\$")" ] || fail "$1: left in the cache: $(ls "$cache")"
}
printf 'tampered' | dd of="$cache/$entry/image" bs=1 seek=$((32 * 1048576 + 12345)) conv=notrunc 2> /dev/null
hostile tampered
ok "a tampered image: ignored with a warning, aged instead"

rm -rf "$cache/$entry" && cp -a --sparse=always "$SCRATCH/pristine" "$cache/$entry"
chown nobody "$cache/$entry"
hostile foreign
ok "an entry of another user's: ignored with a warning"

rm -rf "$cache/$entry" && cp -a --sparse=always "$SCRATCH/pristine" "$SCRATCH/elsewhere"
ln -s "$SCRATCH/elsewhere" "$cache/$entry"
hostile linked
[ "$(readlink "$cache/$entry")" = "$SCRATCH/elsewhere" ] || fail "the link was replaced"
ok "an entry that is a symbolic link: ignored with a warning, not followed"

expect_exit 2 fsb matrix --fs ext4 --age-cache "$cache" -o x -- tiotest -t 1 -f 1 2> err
grep -q 'option --age-cache: needs --age' err || fail "$(cat err)"
expect_exit 2 fsb matrix --device /dev/nonexistent --age fill=40% --age-cache "$cache" -o x -- tiotest -t 1 -f 1 2> err
grep -q 'option --age-cache: images only' err || fail "$(cat err)"
mkdir -m 0777 "$SCRATCH/open"
expect_exit 2 fsb matrix --fs ext4 --age fill=40% --age-cache "$SCRATCH/open" -o x -- tiotest -t 1 -f 1 2> err
grep -q 'option --age-cache: .*writable by everyone' err || fail "$(cat err)"
[ ! -e x ] || fail "a refused --age-cache set something up"
ok "--age-cache without --age, with --device, in a directory others may write: exit 2"
