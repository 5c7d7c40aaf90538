#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t5040: the honesty warnings are on stderr by default, one line per kind for the whole command:
# a tiotest run on tmpfs prints one memory-speed line naming its four phases with their MiB,
# fs_mark one naming its iterations; stdout is what a --quiet run prints (numbers aside);
# --quiet prints no warning; the JSON keeps every phase's (iteration's) own. With --repeat 3
# each kind is still one line, "in 3 of 3 runs". Stderr holds nothing else.
. "$(dirname "$0")/lib.sh"
need_cmd jq
T=$(mktemp -d /dev/shm/fsbench-t5040.XXXXXX 2>/dev/null) || skip "no /dev/shm (tmpfs) here"
trap '_lib_cleanup; rm -rf "$T"' EXIT
[ "$(stat -f -c %T "$T")" = tmpfs ] || skip "/dev/shm is not tmpfs"
MNT=$(stat -c %m "$T")
cd "$SCRATCH" || fail "cd"
mask() { sed -E 's/^#  fs_mark .*//; s/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g; s/starting at .*//' "$1"; }
# each_once ERR: every warning kind (the text up to the first ':' after "warning: ") once
each_once() {
    local dup
    dup=$(sed -nE 's/^fsbench [a-z_]+: warning: ([^:]*):.*/\1/p' "$1" | sort | uniq -d)
    [ -z "$dup" ] || fail "a warning kind repeated: $dup: $(cat "$1")"
}
NUM='[0-9]+\.[0-9]'

# tiotest: one line naming the four phases, each with its MiB
TIO="tiotest -t 2 -f 4 -r 200 -d $T"
fsb $TIO --json t.json > out 2> err || fail "tiotest: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "tiotest: stderr: $(cat err)"
each_once err
[ "$(grep -c 'no block device' err)" = 1 ] || fail "tiotest: expected one memory-speed line: $(cat err)"
grep -Eq "^fsbench tiotest: warning: no block device under $MNT \(tmpfs\), so these rates are memory speed, not storage: write \(8\.0 MiB written\), random write \($NUM MiB written\), read \(8\.0 MiB read\), random read \($NUM MiB read\)\$" err ||
    fail "tiotest: memory-speed line: $(cat err)"
# a CPU-bound line, when there is one, gives each phase's % of one core
! grep -q 'bound by kernel CPU' err ||
    grep -Eq 'bound by kernel CPU, not by the device \(system CPU in % of one core, out of [0-9]+% usable\): [a-z ]+ \([0-9]+%\)' err ||
    fail "tiotest: CPU line: $(cat err)"
grep -q 'warning' out && fail "tiotest: a warning on stdout"
jq -e '[.phases[] | .warnings | map(.id) | (index("page_cache_reads") or index("cache_absorbed_writes"))] == [true, true, true, true]' \
    t.json > /dev/null || fail "tiotest: JSON phases' warnings: $(jq -c '[.phases[].warnings]' t.json)"
fsb $TIO --quiet > qout 2> qerr || fail "tiotest --quiet: $(cat qerr)"
[ ! -s qerr ] || fail "tiotest --quiet: stderr: $(cat qerr)"
diff <(mask out) <(mask qout) > /dev/null || fail "tiotest: stdout differs from --quiet's: $(diff <(mask out) <(mask qout))"
fsb $TIO -T > tout 2> terr || fail "tiotest -T: $(cat terr)"
[ "$(wc -l < tout)" = 5 ] || fail "tiotest -T: stdout is not five lines: $(cat tout)"
grep -q 'no block device' terr || fail "tiotest -T: no warning on stderr: $(cat terr)"
ok "tiotest: one memory-speed line naming four phases, stdout as --quiet's, JSON per phase"

# fs_mark: one line naming the iterations
FSM="fs_mark -d $T/f -n 300 -s 4096 -S 0 -L 3 -l log"
fsb $FSM --json f.json > out 2> err || fail "fs_mark: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "fs_mark: stderr: $(cat err)"
each_once err
grep -Eq "^fsbench fs_mark: warning: no block device under $MNT \(tmpfs\), so these rates are memory speed, not storage: iterations 1-3 \(1\.2 MiB written\)\$" err ||
    fail "fs_mark: memory-speed line: $(cat err)"
jq -e '[.iterations[].warnings | map(.id) | index("cache_absorbed_writes")] | length == 3 and all' f.json > /dev/null ||
    fail "fs_mark: JSON iterations' warnings: $(jq -c '[.iterations[].warnings]' f.json)"
rm -rf "$T/f"
fsb $FSM --quiet > qout 2> qerr || fail "fs_mark --quiet: $(cat qerr)"
[ ! -s qerr ] || fail "fs_mark --quiet: stderr: $(cat qerr)"
diff <(mask out) <(mask qout) > /dev/null || fail "fs_mark: stdout differs from --quiet's: $(diff <(mask out) <(mask qout))"
rm -rf "$T/f"
ok "fs_mark: one memory-speed line naming the iterations, stdout as --quiet's, JSON per iteration"

# --repeat 3: after the last run, each kind once, in how many runs
fsb $TIO --repeat 3 > out 2> err || fail "tiotest --repeat 3: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "tiotest --repeat 3: stderr: $(cat err)"
each_once err
grep -Eq "^fsbench tiotest: warning: no block device under $MNT \(tmpfs\), .*: write \(8\.0 MiB written\), .*, random read \($NUM MiB read\); in 3 of 3 runs\$" err ||
    fail "tiotest --repeat 3: $(cat err)"
fsb $FSM --repeat 3 > out 2> err || fail "fs_mark --repeat 3: $(cat err)"
[ -z "$(not_warnings err)" ] || fail "fs_mark --repeat 3: stderr: $(cat err)"
each_once err
grep -Eq "^fsbench fs_mark: warning: no block device under $MNT \(tmpfs\), .*: iterations 1-3 \(1\.2 MiB written\); in 3 of 3 runs\$" err ||
    fail "fs_mark --repeat 3: $(cat err)"
ok "--repeat 3: each warning once, in 3 of 3 runs"
