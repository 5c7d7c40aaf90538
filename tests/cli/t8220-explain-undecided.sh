#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8220: an undecided primary effect is explained too (issue 20: example 001 on a loaded host
# had files/sec undecided and an empty Why section). A synthetic matrix directory
# (lib_matrix.sh) of three cells: btrfs half as fast as ext4 with little noise (decided), xfs
# 10 % slower with 25 % noise in 3 rounds (undecided); xfs's device bytes per op are 3x ext4's
# with 2 % noise (decided, exploratory), its system CPU per op 4x with 60 % noise (undecided).
# explain and the report's Why section give the decided effects first, then xfs's write rate
# headed "undecided (xR [lo, hi]); the largest measured changes, none of which decides it" with
# what would decide it, its rows with their own verdicts and stars (the decided device bytes
# before the larger but undecided CPU), the profile with its window; never "no difference".
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
mx_base tiotest base.json

MX_PROFILE=1 mx_make mx base.json 11 3 undecided <<'C'
ext4 fs=ext4 1.0 0.02
btrfs fs=btrfs 0.5 0.02
xfs fs=xfs 0.9 0.25
C
# cost per op of every phase: device bytes 4096 (xfs 3x, 2 % noise), system CPU 10 us (xfs 4x,
# 60 % noise: undecided in 3 rounds), wait 20 us everywhere
# (each cell its own pattern of noise, s, so that no ratio is the same in every round)
for f in mx/runs/*/run-*.json; do
    case $f in */xfs/*) m=3 c=4 cv=0.6 s=2 ;; */btrfs/*) m=1 c=1 cv=0.02 s=1 ;; *) m=1 c=1 cv=0.02 s=0 ;; esac
    r=${f##*run-}; r=${r%.json}
    jq -c --argjson m "$m" --argjson c "$c" --argjson cv "$cv" --argjson s "$s" --argjson r "$r" '
        .phases |= [to_entries[] | .key as $i | .value
        | .cost.device_bytes_per_op = 4096 * $m * (1 + 0.02 * ((($r * 7 + $i + $s * 3) % 5) - 2))
        | .cost.cpu_sys_us_per_op = 10 * $c * (1 + $cv * ((($r * 5 + $i * 2 + $s) % 3) - 1))
        | .cost.wait_us_per_op = 20 * (1 + 0.03 * ((($r * 3 + $i + $s) % 5) - 2))]' "$f" > "$f.new" &&
        mv "$f.new" "$f" || fail "jq on $f"
done

fsb explain mx > out.txt || fail "explain: exit $?"
cat out.txt
grep -qi 'no difference' out.txt && fail "explain says \"no difference\""
head -1 out.txt | grep -q 'the primary effects, decided then undecided' || fail "the header: $(head -1 out.txt)"
grep -Eq '^write rate, fs: ext4 -> btrfs: worse x0\.[45]' out.txt || fail "the decided effect is gone"
title='^write rate, fs: ext4 -> xfs: undecided \(x[0-9.]+ \[[0-9.]+, [0-9.]+\]\); the largest measured changes, none of which decides it$'
grep -Eq "$title" out.txt || fail "no undecided write rate headed as such"
# every decided title before the first undecided one
last_dec=$(grep -n ': worse x\|: better x' out.txt | tail -1 | cut -d: -f1)
first_und=$(grep -n ': undecided (x' out.txt | head -1 | cut -d: -f1)
[ -n "$last_dec" ] && [ -n "$first_und" ] && [ "$last_dec" -lt "$first_und" ] ||
    fail "decided effects ($last_dec) not before the undecided ones ($first_und)"
awk -v t="$title" '$0 ~ t {on = 1} on && /^$/ {exit} on' out.txt > und.txt
grep -q 'write rate is undecided (paired by round, n 3, confirmatory; .*would decide it)' und.txt ||
    fail "what would decide it: $(sed -n 2p und.txt)"
grep -q 'not evidence that nothing changed' und.txt || fail "the undecided note"
grep -q 'Profile window: the phase.s timed window\.' und.txt || fail "no profile window"
sed -n 3p und.txt | grep -Eq '^  write device bytes per op +4[0-9.]* bytes -> 12[0-9.]* bytes +x(2\.9|3)[0-9.]* \[[0-9.]+, [0-9.]+\] +worse \(\*+\)$' ||
    fail "the decided device bytes per op not first, with its stars: $(sed -n 3p und.txt)"
grep -Eq '^  write system CPU per op +10\.?[0-9]* us -> [0-9.]+ us +x[0-9.]+ .* +undecided$' und.txt ||
    fail "system CPU per op not shown undecided: $(grep 'system CPU' und.txt)"
grep -Eq '^  profile: do_get_write_access' und.txt || fail "no profile row"
ok "explain: the undecided write rate headed as undecided, its largest changes with their verdicts"

fsb explain mx ext4 xfs > pair.txt || fail "explain the undecided pair: exit $?"
grep -Eq "$title" pair.txt && ! grep -q btrfs pair.txt || fail "the pair ext4 xfs: $(cat pair.txt)"
ok "explain ext4 xfs: only the undecided pair, exit 0"

fsb report --no-db mx > /dev/null || fail "report: exit $?"
sed -n '/^## Why$/,/^## [^W]/p' mx/report.md > why.md
[ -s why.md ] || fail "no Why section"
grep -qi 'no difference' why.md && fail "the Why section says \"no difference\""
grep -Eq '^### write rate, fs: ext4 -> xfs: undecided \(x[0-9.]+ \\\[[0-9.]+, [0-9.]+\\\]\); the largest measured changes, none of which decides it$' why.md ||
    fail "the Why section's undecided heading: $(grep 'ext4 -> xfs' why.md)"
grep -Eq '^\| write device bytes per op \| 4[0-9.]* bytes \| 12[0-9.]* bytes \| x(2\.9|3).*\| worse \((\\\*)+\) \|$' why.md ||
    fail "the Why section's row: $(grep 'write device bytes' why.md)"
ok "the report's Why section: the undecided effect with its rows"
