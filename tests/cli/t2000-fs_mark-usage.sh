#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fs_mark: bad input is one line on stderr naming the problem, exit 2, and nothing created
# (no test directory, no log file); -h/--help; the options table drives help and man page.
. "$(dirname "$0")/lib.sh"
cd "$SCRATCH" || fail "cd"

# (stderr read by the shell: an rm, a wc and a grep a case were most of the processes; every
# WANT is a plain string, so grep's match is a substring match)
bad() {
    local want=$1 lines; shift
    fsb fs_mark "$@" >out 2>err; local rc=$?
    [ $rc = 2 ] || fail "exit $rc, expected 2: $*"
    mapfile -t lines < err
    [ "${#lines[@]}" = 1 ] || fail "expected one line on stderr for: $* -- $(cat err)"
    [[ ${lines[0]} == *"$want"* ]] || fail "stderr for '$*' does not mention '$want': $(cat err)"
    [ ! -s out ] || fail "stdout not empty for: $*"
    [ ! -e d ] && [ ! -e d2 ] || fail "a test directory was created for: $*"
    [ ! -e fs_log.txt ] || fail "a log file was created for: $*"
}

bad "-d" -n 10
bad "-n" -d d -n 0
bad "-w" -d d -w 0
bad "-S" -d d -S 7
bad "-S" -d d -S7
bad "multiple" -d d -d d2 -t 3
bad "-D 1" -d d -D 1
bad "-N" -d d -N 5
bad "--spread" -d d --spread
bad "-n" -d d -n 1000001
bad "-p" -d d -p 300
bad "-n" -d d -n abc
bad "-n" -d d -n -5
bad "unknown option" -d d -x
bad "unexpected" -d d extra
bad "-w" -d d -w 1048577
bad "--fdatasync" -d d -S 0 --fdatasync
long=$(printf 'x%.0s' $(seq 1 4080))
bad "limit" -d "d/$long" -n 1
# attached values work as with getopt
fsb fs_mark -dd -n10 -s0 -S0 -w4096 -p20 -r5 -lmy.log >out 2>err || fail "attached values: $(cat err)"
grep -q 'File names: 20 bytes long, (15 initial bytes of time stamp with 5 random' out || fail "attached -p/-r"
[ ! -e d ] || fail "d left behind (created by fsbench, files not kept)"
[ -s my.log ] || fail "-l log not written"

# -h: usage on stderr and exit 1, as fs_mark; --help: stdout, exit 0
fsb fs_mark -h >out 2>err; [ $? = 1 ] || fail "-h exit"
grep -q -- '-S, --sync-method' err || fail "-h usage on stderr"
fsb fs_mark --help >out 2>err || fail "--help exit"
[ ! -e fs_log.txt ] || fail "help created a log"
# every table option is in --help and in the man page
fsb __man-options fs_mark --list > list || fail "__man-options --list"
[ "$(wc -l < list)" -ge 25 ] || fail "options list too short"
fsb __man-options fs_mark > man || fail "__man-options"
# the engines' own options are in --help too, and in the man page's ENGINES section, not in
# fs_mark's (t1660 checks them there)
fsb list engines | awk '/^[ \t]/ { sub(/=.*/, "", $1); print $1 }' > engine-opts
[ -s engine-opts ] || fail "fsbench list engines shows no engine options"
# (the names are letters and dashes: substring matches in the shell, not 4 processes a name)
help=$(<out) manpage=$(<man)
declare -A engine_opt
while read -r n; do engine_opt[$n]=1; done < engine-opts
while read -r names; do
    for n in $names; do
        [[ $help == *"$n"* ]] || fail "--help lacks $n"
        [ -n "${engine_opt[$n]:-}" ] && continue
        [[ $manpage == *"${n//-/'\-'}"* ]] || fail "man page lacks $n"
    done
done < list

# a link named fs_mark runs the subcommand
ln -s "$FSBENCH" fs_mark
./fs_mark -d d -n 5 -s 0 -S 0 >out 2>err || fail "link: $(cat err)"
grep -q '^#  ./fs_mark  -d  d ' out || fail "link: header echo: $(head -3 out)"
grep -q '^FSUse%' out || fail "link: no table"

# a -d whose parent is missing, or that is a file: exit 2 before the header, the log or anything
rm -f fs_log.txt
touch afile
for d in "$SCRATCH/missing/a" "$SCRATCH/afile" "$SCRATCH/afile/sub"; do
    fsb fs_mark -d "$d" -n 5 -s 0 -S 0 >out 2>err; rc=$?
    [ $rc = 2 ] || fail "-d $d: exit $rc, expected 2"
    [ "$(wc -l < err)" = 1 ] && grep -q "option -d" err || fail "-d $d: stderr: $(cat err)"
    [ -s out ] && fail "-d $d: stdout not empty: $(head -3 out)"
    [ -e fs_log.txt ] && fail "-d $d: the log was created"
    [ -e "$SCRATCH/missing" ] && fail "-d $d: created its parent"
done
# -D beyond RLIMIT_NOFILE (the directories stay open): exit 2 before the header, the log or the
# directory (was: exit 1 after the header, with the log and -d created); a plain run fits in 64
rm -f fs_log.txt
(ulimit -n 64; exec "$FSBENCH" fs_mark -d d -D 1000 -n 5 -s 0 -S 0) >out 2>err; rc=$?
[ $rc = 2 ] || fail "ulimit -n 64 -D 1000: exit $rc, expected 2: $(cat err)"
[ "$(wc -l < err)" = 1 ] && grep -q "RLIMIT_NOFILE" err || fail "ulimit -n 64 -D 1000: stderr: $(cat err)"
[ -s out ] && fail "ulimit -n 64 -D 1000: stdout not empty: $(head -3 out)"
[ -e fs_log.txt ] && fail "ulimit -n 64 -D 1000: the log was created"
[ -e d ] && fail "ulimit -n 64 -D 1000: the directory was created"
(ulimit -n 64; exec "$FSBENCH" fs_mark -d d -D 4 -n 5 -s 0 -S 0) >out 2>err || fail "ulimit -n 64 -D 4: exit $?: $(cat err)"
[ -e d ] && fail "ulimit -n 64 -D 4: d left behind"
ok "usage"
