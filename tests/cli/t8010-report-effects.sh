#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test: slow (one of the longest: started first so that it does not end the parallel part alone)
# t8010: the report's statistics decide by construction (synthetic matrices, lib_matrix.sh):
# - an injected effect (one cell's rates x 0.7, 3 % noise, 5 runs) is decided worse on every
#   phase's rate (the confirmatory family), with a ratio interval around 0.7;
# - an A/A pair (two cells of the same distribution under two names, 5 % noise) over 8 seeds:
#   no test decided better or worse after the corrections, although uncorrected some p-values
#   fall under 0.05 (which is why the corrections are there);
# - a 2x2 whose toggle halves one filesystem's rate only: the interaction is "yes", its ratio of
#   ratios about 2; a 2x2 whose effects multiply (no interaction on the log scale): no
#   interaction decided, though the four effects are.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
mx_base tiotest base.json

mx_make inj base.json 5 5 injected <<'C'
base fs=ext4 1.0 0.03
slow fs=xfs 0.7 0.03
C
fsb report --no-db inj > /dev/null || fail "report inj: exit $?"
# the 4 phases' checks with one jq (a jq costs ~50 ms of CPU)
PHASES="write random_write read random_read"
exprs=()
for p in $PHASES; do
    exprs+=("\"$p.rate_mib_per_s\" as \$k | [.effects[] | select(.figure == \$k) | .verdict == \"worse\"
        and .family == \"confirmatory\" and .delta_pct < -25 and .delta_pct > -35 and .p_adjusted < 0.05
        and .low < 0.7 and .high > 0.66 and .high < 1] | (length > 0 and .[-1])")
done
jq_read v inj/summary.json "${exprs[@]}"
i=0
for p in $PHASES; do
    [ "${v[i]}" = true ] ||
        fail "injected: $p rate not flagged: $(jq -c --arg k "$p.rate_mib_per_s" '.effects[] | select(.figure == $k)' inj/summary.json)"
    i=$((i + 1))
done
grep -q '^| write rate | fs: ext4 -> xfs | .* | x0\.[0-9]* \\\[0\.[0-9]*, 0\.[0-9]*\\\] | confirmatory | .* | worse | paired by round' inj/report.md ||
    fail "injected: the report's row: $(grep '^| write rate | fs' inj/report.md)"
ok "an injected 30 % slowdown is decided worse on every rate, with its interval"

raw=0
for seed in 1 2 3 4 5 6 7 8; do
    rm -rf aa
    mx_make aa base.json $seed 5 aa <<'C'
a fs=one 1.0 0.05
b fs=two 1.0 0.05
C
    fsb report --no-db aa > /dev/null || fail "report aa seed $seed: exit $?"
    jq_read v aa/summary.json '[.effects[], .interactions[] | select(.verdict == "better" or .verdict == "worse")] | length' \
        '[.effects[] | select(.p_value != null and .p_value < 0.05)] | length'
    n=${v[0]}
    [ "$n" = 0 ] || fail "A/A seed $seed: $n tests decided after the correction: $(jq -c '[.effects[] | select(.verdict == "better" or .verdict == "worse") | .figure]' aa/summary.json)"
    raw=$((raw + v[1]))
done
echo "A/A: $raw uncorrected p < 0.05 over 8 seeds"
[ "$raw" -gt 0 ] || fail "A/A: no raw p < 0.05 at all over 8 seeds: the check would not show the correction at work"
ok "A/A over 8 seeds: nothing decided after the corrections ($raw raw p < 0.05 without it)"

mx_make ia base.json 9 5 interaction <<'C'
e-on fs=ext4,toggle=on 1.0 0.03
e-off fs=ext4,toggle=off 1.0 0.03
b-on fs=btrfs,toggle=on 0.5 0.03
b-off fs=btrfs,toggle=off 1.0 0.03
C
fsb report --no-db ia > ia.txt || fail "report ia: exit $?"
jq -e '.interactions[] | select(.figure == "write.rate_mib_per_s") | .verdict == "yes" and .scale == "ratio"
       and .axes == ["fs", "toggle"] and .cells == ["e-on", "b-on", "e-off", "b-off"]
       and .delta_pct > 80 and .delta_pct < 120
       and .low < .ratio and .ratio < .high and .low > 1' ia/summary.json > /dev/null ||
    fail "interaction: $(jq -c '.interactions[] | select(.figure == "write.rate_mib_per_s")' ia/summary.json)"
grep -q '^  write rate, interaction fs x toggle (toggle on -> off: .*): yes x' ia.txt || fail "interaction not on the terminal"
grep -q '^| write rate | A=fs x B=toggle | toggle on -> off: .* | confirmatory | .* | yes | ' ia/report.md ||
    fail "interaction: the report's row"

mx_make add base.json 10 5 additive <<'C'
e-on fs=ext4,toggle=on 1.0 0.02
e-off fs=ext4,toggle=off 1.25 0.02
b-on fs=btrfs,toggle=on 0.5 0.02
b-off fs=btrfs,toggle=off 0.625 0.02
C
fsb report --no-db add > /dev/null || fail "report add: exit $?"
jq -e '[.interactions[] | select(.figure | endswith("rate_mib_per_s")) | .verdict == "yes"] | any | not' add/summary.json \
    > /dev/null || fail "additive on the log scale: an interaction flagged"
jq -e '[.effects[] | select(.figure == "write.rate_mib_per_s") | .verdict == "better" or .verdict == "worse"] | all' \
    add/summary.json > /dev/null || fail "additive: the four effects are not all decided"
ok "interaction: flagged when the toggle hurts one filesystem only, not when the effects multiply"
