#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: exclusive lease-break-time (writes /proc/sys/fs/lease-break-time or checks that it is unchanged)
# t7000: fsbench matrix's command line. --help and the man page cover the options table; bad
# input (unknown filesystem, a knob outside /proc/sys and /sys, bad experiment files, workload
# arguments that are the runner's) exits 2 with one line and nothing set up (no result
# directory, no scratch folder, no loop device); --dry-run plans without root; not root is 3.
. "$(dirname "$0")/lib.sh"

MAN=
for m in ${BUILD:+"$BUILD/fsbench.1"} "$(dirname "$FSBENCH")/fsbench.1" "$TESTS_DIR/../build/fsbench.1"; do
    [ -f "$m" ] && { MAN=$m; break; }
done
[ -n "$MAN" ] || fail "no built man page (run make)"
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN" > man
fsb __man-options matrix --list > list || fail "__man-options matrix --list"
fsb matrix --help > help || fail "matrix --help exit $?"
awk '/^\.SH MATRIX/ {t=1; next} t && /^\.SH/ {exit} t' man > sect
[ -s sect ] || fail "man page has no MATRIX section"
# each option looked up by bash in the texts read once (two greps an option were a third of the
# test's CPU): in --help as a fixed string, in the man page as grep -E's line "^.B (A, )?L( |$)"
n=0 nl=$'\n'
help_text=$(< help) sect_text=$nl$(< sect)$nl
while read -r a b; do
    n=$((n + 1)); l=${b:-$a}
    [[ $help_text == *"$l"* ]] || fail "matrix --help lacks $l"
    re="${nl}\\.B ($a, )?$l( [^${nl}]*)?${nl}"
    [[ $sect_text =~ $re ]] || fail "man MATRIX lacks $a $b"
done < list
m=$(awk '/^\.SS Options/{o=1;next} o&&/^\.S[SH]/{exit} o&&prev==".TP"&&/^\.B /{print} {prev=$0}' sect | wc -l)
[ "$m" = "$n" ] || fail "man MATRIX lists $m options, the table $n"
grep -q '^\[experiment\]' sect || fail "man MATRIX has no experiment file example"
grep -qx matrix <(fsb list) || fail "matrix not in fsbench list"

export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
# bad input: exit 2, exactly one line on stderr, nothing created
bad() {
    local why=$1; shift
    fsb matrix -o "$SCRATCH/result" "$@" > out 2> err; local rc=$?
    [ $rc = 2 ] || fail "$why: exit $rc, expected 2: $(cat err)"
    # by bash alone: the three processes a case were a third of the test's CPU
    local lines
    mapfile -t lines < err
    [ ${#lines[@]} = 1 ] || fail "$why: not one line on stderr: $(cat err)"
    [[ ${lines[0]} == "fsbench matrix: "* ]] || fail "$why: message not prefixed: $(cat err)"
    [ ! -e "$SCRATCH/result" ] || fail "$why: the result directory was created"
    ! has_entries "$TMPDIR" || fail "$why: something in the scratch parent: $(ls -A "$TMPDIR")"
}
bad "unknown fs" --fs ext4,ext5 -- tiotest -t 1
grep -q "unknown filesystem 'ext5'" err || fail "unknown fs message: $(cat err)"
bad "knob outside /proc/sys" --knob /etc/hostname=x -- tiotest -t 1
grep -q "not a file under /proc/sys or /sys" err || fail "knob message: $(cat err)"
bad "missing knob" --knob /proc/sys/fs/no-such-knob=1 -- tiotest -t 1
bad "knob without =" --knob /proc/sys/fs/lease-break-time -- tiotest -t 1
bad "unknown workload" -- nosuchworkload
bad "no workload" --fs ext4
bad "target given" -- tiotest -d /tmp
grep -q "supplies --dir" err || fail "target message: $(cat err)"
bad "json given" -- fs_mark --json x.json
bad "repeat given" -- tiotest --repeat 3
bad "bad workload option" -- tiotest -t 0
bad "order" --order random -- tiotest
bad "fresh" --fresh sometimes -- tiotest
bad "destroy without device" --destroy /dev/null -- tiotest
bad "mkfs-opts without type" --mkfs-opts nothing -- tiotest
bad "bdi strict" --bdi-strict-limit 2 -- tiotest
bad "two files" a.ini b.ini
printf '[experiment]\nworkload = tiotest\nrepeat = many\n' > e1.ini
bad "bad INI value" e1.ini
grep -q "e1.ini:3: option --repeat" err || fail "INI value error without its line: $(cat err)"
printf '[experiment]\nworkload = tiotest\n[axis what]\nvalues = a b\n' > e2.ini
bad "INI axis without kind" e2.ini
grep -q "e2.ini:3:" err || fail "INI axis error without its line: $(cat err)"
printf '[experiment\nworkload = tiotest\n' > e3.ini
bad "INI syntax" e3.ini
grep -q "e3.ini:1:" err || fail "INI syntax error without its line: $(cat err)"
printf '[experiment]\nworkload = tiotest\n[axis fs]\nvalues = ext4 xfs\n[cell a]\nfs = zfs\n' > e4.ini
bad "INI cell value" e4.ini
printf '[experiment]\nworkload = tiotest\ndevice = /dev/sda\n' > e5.ini
bad "device in a file" e5.ini
bad "missing INI" nosuch.ini -- tiotest
! losetup -a 2>/dev/null | grep -q "$TMPDIR" || fail "a loop device appeared"

# --dry-run: the plan, no root needed, nothing created
fsb matrix --fs ext4,xfs --mount-opts defaults --mount-opts noatime --repeat 2 --seed 3 --dry-run \
    -o "$SCRATCH/result" -- tiotest -t 1 -f 1 > plan 2> err || fail "dry-run exit $?: $(cat err)"
[ "$(grep -c '^cell ' plan)" = 4 ] || fail "dry-run: not 4 cells: $(cat plan)"
grep -q '^cell xfs-noatime: xfs, mount noatime' plan || fail "dry-run cell: $(cat plan)"
[ "$(grep '^order:' plan | wc -w)" = 9 ] || fail "dry-run order: $(grep '^order:' plan)"
fsb matrix --fs ext4,xfs --mount-opts defaults --mount-opts noatime --repeat 2 --seed 3 --dry-run \
    -- tiotest -t 1 -f 1 > plan2 2>/dev/null
cmp -s plan plan2 || fail "dry-run: the same seed gave another plan"
[ ! -e "$SCRATCH/result" ] || fail "dry-run created the result directory"

# an experiment file: the command line wins over [experiment]
printf '[experiment]\nname = ex\nworkload = fs_mark\nargs = -D 4 -n 10 -s 4096 -F\nrepeat = 5\n[axis fs]\nvalues = ext4 xfs\n' > ok.ini
fsb matrix ok.ini --repeat 1 --dry-run > plan 2> err || fail "dry-run of a file exit $?: $(cat err)"
grep -q '^experiment ex: fs_mark, 2 cells x 1 runs, .*fresh per-run' plan ||
    fail "file + command line, fill means fresh per run: $(head -1 plan)"

# a knob whose value cannot be read back (drop_caches is write-only in effect) is refused unless
# its values are one-way; "-" leaves a knob as it is
if [ "$(id -u)" = 0 ]; then
    bad "unrestorable knob" --knob /proc/sys/vm/drop_caches=1 --dry-run -- tiotest -t 1
    grep -q "could not be restored; mark the values one-way" err || fail "unrestorable: $(cat err)"
    printf '[experiment]\nworkload = tiotest\n[axis drop]\nknob = /proc/sys/vm/drop_caches\nvalues = - 1\nlabels = kept dropped\none-way = 1\n' > ow.ini
    fsb matrix ow.ini --dry-run > plan 2> err || fail "one-way knob refused: $(cat err)"
    grep -q '^cell dropped: .*drop_caches=1 (one-way)' plan && grep -q '^order: kept#1 kept#2 kept#3 dropped#1' plan ||
        fail "one-way cells run last: $(cat plan)"
fi

# the examples stay valid experiment files
n=0
for ex in "$TESTS_DIR"/../examples/*.ini; do
    n=$((n + 1))
    fsb matrix "$ex" --dry-run > plan 2> err || fail "$ex: exit $?: $(cat err)"
    grep -q '^order: ' plan || fail "$ex: no plan: $(cat plan)"
done
[ $n -ge 2 ] || fail "fewer than two examples in examples/"

# not root: exit 3 with one line (checked as nobody when root)
if [ "$(id -u)" = 0 ]; then
    need_cmd setpriv
    chmod 755 "$SCRATCH"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$FSBENCH" matrix --fs ext4 -o "$SCRATCH/result" \
        -- tiotest -t 1 > out 2> err; rc=$?
else
    fsb matrix --fs ext4 -o "$SCRATCH/result" -- tiotest -t 1 > out 2> err; rc=$?
fi
[ $rc = 3 ] || fail "not root: exit $rc, expected 3: $(cat err)"
[ "$(wc -l < err)" = 1 ] && grep -q "needs root" err || fail "not root message: $(cat err)"
if [ "$(id -u)" = 0 ]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups "$FSBENCH" matrix --undo "$SCRATCH" 2> err; rc=$?
    [ $rc = 3 ] || fail "--undo not root: exit $rc: $(cat err)"
    # as root, a directory without a manifest is bad input
    fsb matrix --undo "$SCRATCH" 2> err; rc=$?
    [ $rc = 2 ] && grep -q "no manifest.json" err || fail "--undo without a manifest: exit $rc: $(cat err)"
    fsb matrix --undo "$SCRATCH" --warmup 2> err; rc=$?
    [ $rc = 2 ] || fail "--undo with another option: exit $rc"
fi
echo "ok: matrix usage, help, man page, bad input, dry run, not root"
