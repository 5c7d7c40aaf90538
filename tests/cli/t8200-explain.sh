#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8200: fsbench explain on a synthetic matrix directory (lib_matrix.sh) whose btrfs cell is half
# as fast, spends 5.6x the system CPU per op and waits as long per op, with a profile (call
# chains) where do_get_write_access gains the samples: for the decided write rate, explain
# prints the system CPU per op first (x5.6, decided worse), the wait per op unchanged, and the
# profile's symbols by cost per op with the window; the report's Why section has the same rows;
# explain writes nothing; a cell it does not have is exit 2, every primary effect equivalent
# exit 3.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
mx_base tiotest base.json

MX_PROFILE=1 mx_make mx base.json 5 5 why <<'C'
ext4 fs=ext4 1.0 0.03
btrfs fs=btrfs 0.5 0.03
C
# the cost per op of every phase: system CPU 10 us (ext4) or 56 us (btrfs), wait 20 us on both,
# each run its own few per cent of noise
# (one jq for every run: m and r from each file's name, a run's JSON a line)
files=(mx/runs/*/run-*.json)
mapfile -t outs < <(jq -c '(if (input_filename | test("/btrfs/")) then 5.6 else 1 end) as $m
    | (input_filename | capture("run-(?<r>[0-9]+)[.]json$").r | tonumber) as $r
    | .phases |= [to_entries[] | .key as $i | .value
        | .cost.cpu_sys_us_per_op = 10 * $m * (1 + 0.02 * ((($r * 7 + $i + ($m | floor)) % 5) - 2))
        | .cost.wait_us_per_op = 20 * (1 + 0.03 * ((($r * 3 + $i + 2 * ($m | floor)) % 5) - 2))]' "${files[@]}")
[ "${#outs[@]}" = "${#files[@]}" ] || fail "jq on ${files[*]}: ${#outs[@]} results"
for i in "${!files[@]}"; do printf '%s\n' "${outs[i]}" > "${files[i]}" || fail "cannot write ${files[i]}"; done
before=$(cd mx && find . | sort | md5sum)
fsb explain mx > out.txt || fail "explain: exit $?"
cat out.txt
[ "$(cd mx && find . | sort | md5sum)" = "$before" ] || fail "explain wrote into the directory"
sed -n '/^write rate, fs: ext4 -> btrfs: worse x0\.[45]/,/^$/p' out.txt > write.txt
[ -s write.txt ] || fail "no explanation of the write rate"
sed -n 3p write.txt | grep -Eq '^  write system CPU per op +10\.?[0-9]* us -> 5[0-9.]* us +x5\.[0-9]* \[[0-9.]*, [0-9.]*\] +worse \(\*+\)$' ||
    fail "system CPU per op not the first row, x5.6 and decided: $(sed -n 3p write.txt)"
grep -Eq '^  write wait per op +[0-9.]+ us -> [0-9.]+ us +x(0\.9|1)[0-9.]* .* (undecided|equivalent)' write.txt ||
    fail "wait per op not shown as unchanged: $(grep 'wait per op' write.txt)"
grep -q 'Profile window: the phase.s timed window\.' write.txt || fail "no profile window"
# jbd2_journal calls do_get_write_access alone: the same samples, one row
grep -Eq '^  profile: (do_get_write_access, jbd2_journal|jbd2_journal, do_get_write_access) \(inclusive, the same samples\) +[0-9]+ us/op -> [0-9]+ us/op +\+[0-9]+ us/op +share \+20\.00 points \(not tested\)$' write.txt ||
    fail "the profile row: $(grep do_get_write write.txt)"
ok "explain: system CPU per op x5.6 decided first, wait unchanged, the profile by cost per op with its window"

fsb explain mx ext4 btrfs > pair.txt || fail "explain a pair: exit $?"
cmp -s out.txt pair.txt || fail "the only pair explained differently"
expect_exit 2 fsb explain mx ext4 xfs
expect_exit 2 fsb explain mx ext4
expect_exit 2 fsb explain "$SCRATCH/nothing"
ok "usage errors: exit 2"

fsb report --no-db mx > /dev/null || fail "report: exit $?"
grep -q '^## Why$' mx/report.md || fail "no Why section"
sed -n '/^## Why$/,/^## /p' mx/report.md > why.md
grep -Eq '^\| write system CPU per op \| 10\.?[0-9]* us \| 5[0-9.]* us \| x5\.[0-9]* .*\| worse \((\\\*)+\) \|$' why.md ||
    fail "the Why section's row: $(grep 'write system CPU' why.md)"
grep -q 'Window: the phase.s timed window\. The symbols whose cost per op moved most' mx/report.md ||
    fail "the profile diff states neither its window nor its ranking"
ok "the report's Why section"

# every primary effect equivalent (the same rate within 0.2 %): nothing decided or undecided
mx_make aa base.json 1 5 aa <<'C'
a fs=one 1.0 0.002
b fs=two 1.0 0.002
C
expect_exit 3 fsb explain aa
ok "every primary effect equivalent: exit 3"
