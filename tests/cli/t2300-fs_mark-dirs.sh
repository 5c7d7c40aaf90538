#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fs_mark: where files land (threads over -d, TIME_HASH, ROUND_ROBIN, --spread), unique
# names (-r 0), cumulative Count, -L implies -k, nothing left behind without -k.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /dev/shm/fsbench-t2300.XXXXXX 2>/dev/null) || T=$(mktemp -d "$SCRATCH/t.XXXXXX")
trap '_lib_cleanup; rm -rf "$T"' EXIT
cd "$SCRATCH" || fail "cd"
run() { fsb fs_mark -l log "$@" > out 2> err || fail "fs_mark $*: $(cat err)"; }
per_dir() { find "$1" -mindepth 1 -type f -printf '%h\n' | sort | uniq -c | awk '{ print $1 }' | sort -n | uniq -c | awk '{ printf "%sx%s ", $1, $2 }'; }

# threads split over -d as fs_mark does: thread i + j*ndirs in directory i
run -d "$T/a" -d "$T/b" -t 4 -n 10 -s 0 -S 0 -k
[ "$(find "$T/a" -type f | wc -l) $(find "$T/b" -type f | wc -l)" = "20 20" ] || fail "-t 4 over 2 dirs"
grep -q 'Version 3.3, 4 thread' out || fail "thread count in header"
rm -rf "$T"/*
# fewer threads than dirs: raised to the number of dirs
run -d "$T/a" -d "$T/b" -n 5 -s 0 -S 0 -k
grep -q 'Version 3.3, 2 thread' out || fail "-t raised to the dir count"
rm -rf "$T"/*

# TIME_HASH: a short run stays in one subdirectory (fs_mark.md §4)
run -d "$T/a" -t 2 -D 16 -n 300 -s 0 -S 0 -k
[ "$(per_dir "$T/a")" = "1x600 " ] || fail "TIME_HASH: $(per_dir "$T/a")"
[ "$(find "$T/a" -mindepth 1 -maxdepth 1 -type d | wc -l)" = 16 ] || fail "16 subdirectories"
rm -rf "$T"/*
# ROUND_ROBIN: -t 2 -D 16 -N 100 -n 1000 gives 10 subdirs of 200 (the threads share them)
run -d "$T/a" -t 2 -D 16 -N 100 -n 1000 -s 0 -S 0 -k
[ "$(per_dir "$T/a")" = "10x200 " ] || fail "ROUND_ROBIN: $(per_dir "$T/a")"
rm -rf "$T"/*
# --spread: evenly, file by file
run -d "$T/a" -t 2 -D 8 -n 400 -s 0 -S 0 -k --spread
[ "$(per_dir "$T/a")" = "8x100 " ] || fail "--spread: $(per_dir "$T/a")"
grep -q 'Spread evenly across 8 subdirectories' out || fail "--spread header"
rm -rf "$T"/*

# -r 0: unique names (fs_mark 3.3 gave every file of one second the same name)
run -d "$T/a" -n 500 -s 0 -S 0 -r 0 -k
[ "$(find "$T/a" -type f | wc -l)" = 500 ] || fail "-r 0: not 500 distinct files"
find "$T/a" -type f -printf '%f\n' | awk '{ if (length($0) != 40) bad = 1 } END { exit bad }' || fail "-r 0: names are not 40 characters"
rm -rf "$T"/*
# -p/-r: names of -p characters ending in -r random ones; -r > -p gives -r characters
run -d "$T/a" -n 50 -s 0 -S 0 -p 12 -r 4 -k
find "$T/a" -type f -printf '%f\n' | grep -Evq '^[0-9a-f~]{8}[0-9A-Z]{4}$' && fail "-p 12 -r 4 names"
rm -rf "$T"/*
run -d "$T/a" -n 50 -s 0 -S 0 -p 8 -r 12 -k
find "$T/a" -type f -printf '%f\n' | grep -Evq '^[0-9A-Z]{12}$' && fail "-p 8 -r 12 names"
rm -rf "$T"/*

# -L: Count is cumulative over iterations of threads x n, and -L keeps the files
run -d "$T/a" -t 2 -n 50 -s 10 -S 0 -L 3
[ "$(awk '/^FSUse%/ { f = 1; next } f { printf "%s ", $2 }' out)" = "100 200 300 " ] || fail "Count column: $(cat out)"
[ "$(find "$T/a" -type f | wc -l)" = 300 ] || fail "-L did not keep the files"
rm -rf "$T"/*

# without -k: no file and no directory fsbench created is left; a directory it did not
# create is kept, and a file it did not create in it is untouched
run -d "$T/new" -D 4 -n 100 -s 100 -S 0
[ ! -e "$T/new" ] || fail "left $(find "$T/new" | head -3)"
mkdir "$T/mine" && echo keep > "$T/mine/user-file"
run -d "$T/mine" -n 100 -s 0 -S 3
[ "$(ls "$T/mine")" = "user-file" ] || fail "the user's directory was changed: $(ls "$T/mine" | head)"
# a symlink planted where a subdirectory goes is not followed
mkdir "$T/victim" "$T/sl" && ln -s "$T/victim" "$T/sl/00"
fsb fs_mark -l log -d "$T/sl" -D 2 -n 10 -s 0 -S 0 > out 2> err && fail "followed a symlink subdirectory"
[ -z "$(ls "$T/victim")" ] || fail "files created through a symlink"
[ -L "$T/sl/00" ] || fail "the symlink was removed"
ok "directory policies and names"
