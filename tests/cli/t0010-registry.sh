#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0010: every workload in the registry (asked of the binary: `fsbench list workloads`) is a
# command with --help and a man page section whose option list matches its table, is listed by
# `fsbench list` and `fsbench --help`, runs a tiny job on the scratch directory with --json,
# exits 0, leaves nothing behind, and its result is read back by `fsbench compare`. A new
# workload is covered without anyone adding it here.
. "$(dirname "$0")/lib.sh"

MAN=
for m in ${BUILD:+"$BUILD/fsbench.1"} "$(dirname "$FSBENCH")/fsbench.1" "$TESTS_DIR/../build/fsbench.1"; do
    [ -f "$m" ] && { MAN=$m; break; }
done
[ -n "$MAN" ] || fail "no built man page (run make)"
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN" > man.txt

fsb list workloads > workloads || fail "fsbench list workloads"
[ "$(wc -l < workloads)" -ge 2 ] || fail "fewer than two workloads: $(cat workloads)"
fsb list > all || fail "fsbench list"
fsb --help > help || fail "fsbench --help"
expect_exit 2 fsb list nonsense

# a tiny job per workload: what the workload's own options need to be short
tiny() {
    case $1 in
    tiotest) echo "-t 2 -f 1 -r 100 -d $SCRATCH/w" ;;
    fs_mark) echo "-d $SCRATCH/w -n 20 -s 4096 -S 0 -t 2 -l $SCRATCH/log" ;;
    mdtest) echo "-d $SCRATCH/w/m -n 20 -z 1 -b 2" ;;
    *) echo "" ;;
    esac
}

# the texts are read once and searched with bash's own matching: a grep per option cost 3.5 s
# of CPU (6 ms a process)
all_t=$(< all)
help_t=$(< help)
commands=$(awk '/^\.SH COMMANDS/{f=1;next} f&&/^\.SH/{exit} f' "$MAN" | sed -n 's/^\.B //p')
man=$(< man.txt)
nl=$'\n'
n=0
while read -r w; do
    n=$((n + 1))
    [[ "$nl$all_t$nl" == *"$nl$w$nl"* ]] || fail "$w: not in 'fsbench list'"
    [[ "$nl$help_t" == *"$nl  $w "* ]] || fail "$w: not in 'fsbench --help'"
    [[ "$nl$commands$nl" == *"$nl$w$nl"* ]] || fail "$w: not in the man page's COMMANDS"
    fsb "$w" --help > h || fail "$w --help exit $?"
    fsb __man-options "$w" --list > list || fail "__man-options $w --list"
    mapfile -t h_l < h
    mapfile -t list_l < list
    nh=0
    for l in "${h_l[@]}"; do [[ $l =~ ^\ \ +- ]] && nh=$((nh + 1)); done
    [ "$nh" = "${#list_l[@]}" ] || fail "$w: --help lists $nh options, the table ${#list_l[@]}"
    for l in "${list_l[@]}"; do
        read -r a b <<< "$l"
        o=${b:-$a}
        [[ $man == *"$o"* ]] || fail "$w: option $o is not in the man page"
    done
    args=$(tiny "$w")
    [ -n "$args" ] || fail "$w: no tiny job defined in this test for a new workload"
    mkdir -p w
    # shellcheck disable=SC2086
    fsb "$w" $args --quiet --json "$w.json" > out 2> err || fail "$w tiny job exit $?: $(cat err)"
    [ -s "$w.json" ] && jq -e --arg w "$w" '.workload == $w' "$w.json" >/dev/null ||
        fail "$w: JSON missing or not a $w result"
    [ -z "$(ls -A w)" ] || fail "$w: files left in the target: $(ls -A w)"
    fsb compare "$w.json" "$w.json" > cmp || fail "$w: compare cannot read its own result"
    rm -rf w
done < workloads
echo "ok: $n workloads checked"
