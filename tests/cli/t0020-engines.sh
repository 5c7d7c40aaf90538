#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0020: every engine in the registry (asked of the binary: `fsbench list engines`, the test
# engines included with FSBENCH_TEST_ENGINES=1) is listed with its summary, is in the man
# page's ENGINES section unless it is a test engine, and runs a tiny tiotest and fs_mark job
# (--json records it) or refuses the workload with one line and exit 2 before anything is
# created; a depth above 1 runs or is refused the same way. A new engine is covered without
# anyone adding it here.
. "$(dirname "$0")/lib.sh"
use_test_build  # its environment switches (core/testhook.h)
need_cmd jq

MAN=
for m in ${BUILD:+"$BUILD/fsbench.1"} "$(dirname "$FSBENCH")/fsbench.1" "$TESTS_DIR/../build/fsbench.1"; do
    [ -f "$m" ] && { MAN=$m; break; }
done
[ -n "$MAN" ] || fail "no built man page (run make)"
# the entries (.TP, then .B NAME) of the ENGINES section
awk '/^\.SH ENGINES/{f=1;next} f&&/^\.SH/{exit} f&&prev==".TP"&&/^\.B /{print $2} {prev=$0}' "$MAN" > man-engines

# an engine's line starts with its name; its own options follow it, indented
fsb list engines | grep -v '^ ' > visible || fail "fsbench list engines"
FSBENCH_TEST_ENGINES=1 fsb list engines | grep -v '^ ' > all || fail "FSBENCH_TEST_ENGINES=1 fsbench list engines"
awk '{ print $1 }' visible > visible.names
[ "$(head -2 visible.names | tr '\n' ' ')" = "psync mmap " ] || fail "built-in engines: $(cat visible)"
grep -qx testq <(awk '{ print $1 }' all) || fail "the test engine is not listed with FSBENCH_TEST_ENGINES=1"
! grep -qx testq visible.names || fail "the test engine is listed without FSBENCH_TEST_ENGINES=1"
awk 'NF < 3 { exit 1 }' all || fail "an engine without a summary: $(cat all)"

# run ENGINE WORKLOAD ARGS...: 0 (it ran) or 2 (refused, one line naming the engine), else fail.
# Each run writes its own JSON; the engines they name are read by one jq after the loop (a jq
# per run was a third of the test's CPU). w stays: each run must leave it empty.
k=0 jsons=() jsons_engine=() jsons_what=()
mkdir -p w
run() {
    local e=$1 w=$2 rc j lines; shift 2
    k=$((k + 1)) j=r$k.json
    FSBENCH_TEST_ENGINES=1 fsb "$w" "$@" --engine "$e" --quiet --json "$j" > out 2> err; rc=$?
    mapfile -t lines < err
    case $rc in
    0) jsons+=("$j") jsons_engine+=("$e") jsons_what+=("$e $w")
       ! has_entries w || fail "$e $w: files left: $(ls -A w)" ;;
    2) [ ${#lines[@]} = 1 ] && [[ ${lines[0]} == *"$e"* ]] || fail "$e $w $*: refused without one line naming it: $(cat err)"
       [ ! -e "$j" ] && ! has_entries w || fail "$e $w: refused but created something" ;;
    3) # cannot run here (io_uring disabled or too old): one line, nothing created, a skip
       [ ${#lines[@]} = 1 ] && [[ ${lines[0]} == *"$e"* ]] || fail "$e $w $*: exit 3 without one line naming it: $(cat err)"
       [ ! -e "$j" ] && ! has_entries w || fail "$e $w: exit 3 but created something"
       echo "$e: $(cat err)" >> cannot ;;
    *) fail "$e $w $*: exit $rc: $(cat err)" ;;
    esac
    return $rc
}

n=0
while read -r e _; do
    n=$((n + 1))
    if grep -qx "$e" visible.names; then
        grep -qx "$e" man-engines || fail "$e: not in the man page's ENGINES section"
    else
        ! grep -qx "$e" man-engines || fail "$e: a test engine in the man page"
    fi
    ran=0
    run "$e" tiotest -t 2 -f 1 -r 100 -c -d w && ran=1
    run "$e" fs_mark -d w/f -n 20 -s 4096 -S 1 -t 2 -l log && ran=1
    run "$e" tiotest -t 1 -f 1 -r 100 -c -d w --iodepth 4
    run "$e" fs_mark -d w/f -n 20 -s 4096 -S 1 -l log --iodepth 4
    [ $ran = 1 ] || [ -s cannot ] || fail "$e runs no workload at all"
done < all
# each JSON names its engine
if [ ${#jsons[@]} != 0 ]; then
    mapfile -t got < <(jq -r '.config.engine' "${jsons[@]}")
    for i in "${!jsons[@]}"; do
        [ "${got[i]:-}" = "${jsons_engine[i]}" ] ||
            fail "${jsons_what[i]}: JSON engine: $(jq -c .config.engine "${jsons[i]}")"
    done
fi
ok "$n engines: listed, documented, each runs or refuses each workload cleanly"
[ ! -s cannot ] || skip "engines that cannot run on this system were not run: $(sort -u cannot | head -3)"
