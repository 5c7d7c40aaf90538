#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t5100: fs_mark's kernel view. --sysstats prints a kstat row per iteration under the classic
# output (which stays as it was); the JSON has "kernel" and "warnings" in every iteration with
# or without it. --profile on tmpfs with -s 0 (the create loop is file creation in the kernel)
# shows symbols of that path among the top entries, the table once per run after the rows,
# and the JSON a profile per iteration adding up to 100%. A denied --profile is one line on
# stderr and the exit status of a run without it.
. "$(dirname "$0")/lib.sh"
use_test_build  # its environment switches (core/testhook.h)
need_cmd jq
T=$(mktemp -d /dev/shm/fsbench-t5100.XXXXXX 2>/dev/null) || skip "no /dev/shm (tmpfs) here"
trap '_lib_cleanup; rm -rf "$T"' EXIT
[ "$(stat -f -c %T "$T")" = tmpfs ] || skip "/dev/shm is not tmpfs"
cd "$SCRATCH" || fail "cd"

fsb fs_mark -d "$T/a" -n 500 -s 4096 -S 0 -L 3 --sysstats --json k.json -l log > out 2> err ||
    fail "--sysstats: $(cat err)"
grep -q '^Kernel view per phase' out || fail "no kernel view table: $(cat out)"
for i in 1 2 3; do
    grep -Eq "^iteration $i +\(none\) " out || fail "no kstat row for iteration $i: $(cat out)"
done
# the table comes after the classic rows
[ "$(awk '/^FSUse%/{f=NR} /^Kernel view/{k=NR} END{print (f && k > f + 3)}' out)" = 1 ] || fail "table before the rows"
jq -e '([.iterations[] | (.kernel | has("cpu") and has("disks") and has("wall_ns")) and (.warnings | type) == "array"] | all)
       and (.iterations | length) == 3' k.json >/dev/null || fail "JSON kernel per iteration"
# buffered writes to tmpfs: the cache warning in each iteration of the JSON, one line on stderr
# naming the three iterations
jq -e '[.iterations[].warnings | map(.id) | index("cache_absorbed_writes")] | all' k.json >/dev/null ||
    fail "no cache_absorbed_writes warning in the JSON: $(jq -c '.iterations[].warnings' k.json)"
[ "$(grep -c 'no block device' err)" = 1 ] || fail "warning on stderr: $(cat err)"
grep -Eq '^fsbench fs_mark: warning: no block device under .* \(tmpfs\), so these rates are memory speed, not storage: iterations 1-3 \(2\.0 MiB written\)$' err ||
    fail "warning on stderr: $(cat err)"
rm -rf "$T/a"
# without --sysstats: no table, nothing on stderr but warnings, the JSON still has the kernel view
fsb fs_mark -d "$T/b" -n 200 -s 0 -S 0 --json k2.json -l log > out2 2> err2 || fail "plain run"
[ -z "$(not_warnings err2)" ] || fail "stderr not empty without --sysstats: $(cat err2)"
grep -q 'Kernel view' out2 && fail "kernel view table without --sysstats"
jq -e '.iterations[0].kernel.wall_ns > 0' k2.json >/dev/null || fail "no kernel view in the JSON"
ok "--sysstats table per iteration, JSON kernel/warnings per iteration"

# --profile: this process only, so other work on a shared machine stays out
FSBENCH_PROFILE_SCOPE=process fsb fs_mark -d "$T/p" -s 0 -S 0 -n 20000 -L 2 --profile --profile-top 25 \
    --profile-callgraph --json p.json -l log > pout 2> perr
rc=$?
if grep -q -- '--profile: .*running without a profile' perr; then
    skip "perf not permitted here: $(cat perr)"
fi
[ $rc = 0 ] || fail "--profile: exit $rc: $(cat perr)"
[ "$(grep -c '^Profile: ' pout)" = 1 ] || fail "expected one profile table per run: $(cat pout)"
grep -q '^Profile: create loop, iterations 1-2 together, [0-9]* samples, cpu-clock at 999 Hz, this process' pout ||
    fail "profile title: $(grep '^Profile' pout)"
grep -q '^samples  %        image name' pout || fail "no table header"
[ "$(awk '/^FSUse%/{f=NR} /^Profile:/{p=NR} END{print (f && p > f + 2)}' pout)" = 1 ] || fail "profile before the rows"
# image name and symbol name: the first column after %, and the last (app name sits between)
top=$(awk '/^samples  %/{t=1;next} t&&/^[0-9]/{print $3" "$NF} t&&!/^[0-9]/{exit}' pout)
echo "$top" | grep -Eq 'vmlinux .*(shmem_|d_alloc|do_sys_open|path_openat|__x64_sys|entry_SYSCALL|do_filp_open|alloc_inode|new_inode|d_lookup|link_path_walk|dentry|inode_init)' ||
    fail "no file-creation kernel symbol among the top entries: $top"
ok "file creation symbols in the profile: $(echo "$top" | grep -E 'shmem_|d_alloc|path_openat|open|inode' | head -3 | tr '\n' ',')"
jq -e '([.iterations[] | .profile as $p | ($p.samples == 0) or
        ((($p.entries | map(.pct) | add) > 99.9) and (($p.entries | map(.pct) | add) < 100.1))] | all)
       and (.iterations | length) == 2' p.json >/dev/null || fail "per-iteration profiles do not add up to 100%"
F=p.folded
[ -s "$F" ] || fail "no folded stacks file"
bad=$(grep -Evc '^[^ ;]+(;[^ ;]+)+ [1-9][0-9]*$' "$F")
[ "$bad" = 0 ] || fail "$bad malformed folded lines"
grep -q '^create;' "$F" || fail "folded stacks have no create root: $(head -3 "$F")"
ok "per-iteration JSON profiles add up to 100%, folded stacks parse"

ARGS="-d $T/d -n 300 -s 0 -S 0 -l log"
fsb fs_mark $ARGS > o0 2> e0; rc0=$?
FSBENCH_PROFILE_FORCE_DENY=1 fsb fs_mark $ARGS --profile > o1 2> e1; rc1=$?
[ "$rc0" = "$rc1" ] || fail "exit $rc1 with a denied --profile, $rc0 without"
[ "$(not_warnings e1 | wc -l)" = 1 ] || fail "expected one line on stderr: $(cat e1)"
grep -q '^fsbench fs_mark: --profile: .*; running without a profile$' e1 || fail "message: $(cat e1)"
grep -q '^Profile:' o1 && fail "a profile was printed"
grep -Eq '^ +[0-9]+ +300 +0 ' o1 || fail "the benchmark did not run: $(cat o1)"
ok "denied --profile: one line, exit $rc1 as without"
