#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3571: mdtest's kernel view and profile as tiotest's and fs_mark's: --sysstats prints a
# kernel-view row per phase under the tables, the JSON has each phase's "kernel" object, and
# --profile prints and stores each test's profile (when perf is permitted here).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd jq
D=$SCRATCH/d

fsb mdtest -n 2000 -F -i 2 -d "$D" --sysstats --json a.json > a.out 2> err || fail "exit $?: $(cat err)"
[ ! -e "$D" ] || fail "files left in $D"
grep -q '^Kernel view per phase' a.out || fail "no kernel view under the tables: $(cat a.out)"
for t in file_create file_stat file_read file_remove tree_create tree_remove; do
	for i in 1 2; do
		grep -q "^$t #$i " a.out || fail "no kernel-view row for $t #$i: $(cat a.out)"
	done
done
# the classic output comes first and is unchanged: the kernel view follows mdtest's last line
awk '/^-- finished at/ { f = NR } /^Kernel view per phase/ { k = NR } END { exit !(f && k > f) }' a.out ||
    fail "kernel view not after the tables: $(cat a.out)"
jq -e '[.iterations[][] | .kernel.wall_ns > 0] | length == 12 and all' a.json > /dev/null ||
    fail "JSON kernel view per phase: $(jq -c '[.iterations[][] | .kernel | keys?]' a.json)"
ok "--sysstats: a row per phase and iteration; the JSON's kernel per phase"

fsb mdtest -n 2000 -F -d "$D" > b.out 2> err || fail "plain: exit $?: $(cat err)"
! grep -q 'Kernel view' b.out || fail "kernel view without --sysstats"

fsb mdtest -n 5000 -F -d "$D" --profile --json c.json > c.out 2> err || fail "profile: exit $?: $(cat err)"
if grep -q 'profile' err && ! grep -q '^Profile: ' c.out; then
	ok "--profile: perf not permitted here ($(head -1 err))"
	exit 0
fi
grep -q '^Profile: File creation phase, [0-9]* samples' c.out || fail "no creation profile: $(cat c.out)"
jq -e '.operations.file_create.profile.samples >= 0 and (.operations.file_create.profile.entries | type == "array")' \
    c.json > /dev/null || fail "JSON profile: $(jq -c '.operations.file_create.profile | keys?' c.json)"
ok "--profile: each test's profile in the text and the JSON"
