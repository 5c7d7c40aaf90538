#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t2645: the benches' goal rule (bench/goal.awk: met, MISSED or undecided from the per-round
# ratios' medians and their order-statistic intervals, Bonferroni over the cases) on seeded
# synthetic experiments: 4 cases x 21 rounds, 4000 experiments a scenario, the same awk as the
# benches (Debian's mawk). Asserted: a "met" when one case's true median is 2 % below the goal
# and a "MISSED" when every case sits exactly at it both stay <= 2.5 % + 3 binomial standard
# errors, under log-normal noise (CV 10 %) and under noise in two humps (x1.2 or /1.2 at random
# each round: the host's slow spells); a goal met by 10 % at CV 5 % is "met" >= 95 % of the
# time; under 6 rounds of one case (8 of four) nothing is decided. Then a known case by hand: the line's numbers.
. "$(dirname "$0")/lib.sh"
unsanitized_only
RULE=$TESTS_DIR/../bench/goal.awk
[ -r "$RULE" ] || fail "no $RULE"
need_cmd awk

# sim SEED ROUNDS NOISE(lognormal|humps) CV TRUTHS...: the share of experiments decided met,
# MISSED, undecided ("met missed undecided"), 4000 experiments of one case per truth (x the goal 1)
sim() {
    local seed=$1 rounds=$2 noise=$3 cv=$4
    shift 4
    awk -v seed="$seed" -v rounds="$rounds" -v noise="$noise" -v cv="$cv" -v truths="$*" 'BEGIN {
        srand(seed)
        nt = split(truths, t, " ")
        s = sqrt(log(1 + cv * cv))
        for (e = 1; e <= 4000; e++)
            for (r = 1; r <= rounds; r++)
                for (c = 1; c <= nt; c++) {
                    # Box-Muller; the noise has median 1 on both kinds
                    z = sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand())
                    f = exp(s * z)
                    if (noise == "humps")
                        f *= rand() < 0.5 ? 1.2 : 1 / 1.2
                    printf "%d c%d %.9g\n", e, c, t[c] * f
                }
    }' | awk -f "$RULE" -v by_exp=1 -v g=1 -v what=sim |
        awk '/^goal: / { n++; if ($3 == "met") m++; else if ($3 == "MISSED") x++; else u++ }
             END { printf "%.4f %.4f %.4f\n", m / n, x / n, u / n }'
}
# 2.5 % + 3 standard errors of a share at 4000 experiments
LIMIT=$(awk 'BEGIN { printf "%.4f", 0.025 + 3 * sqrt(0.025 * 0.975 / 4000) }')
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

for noise in lognormal humps; do
    read -r met missed und < <(sim 11 21 $noise 0.10 0.98 1.1 1.1 1.1)
    echo "$noise: one case at 0.98 x the goal: met $met, MISSED $missed, undecided $und"
    le "$met" "$LIMIT" || fail "$noise: 'met' with a case below the goal in $met of the experiments (> $LIMIT)"
    read -r met missed und < <(sim 12 21 $noise 0.10 1 1 1 1)
    echo "$noise: every case at the goal: met $met, MISSED $missed, undecided $und"
    le "$missed" "$LIMIT" || fail "$noise: 'MISSED' with every case at the goal in $missed (> $LIMIT)"
done
read -r met missed und < <(sim 13 21 lognormal 0.05 1.1 1.1 1.1 1.1)
echo "every case at 1.1 x the goal, CV 5 %: met $met, MISSED $missed, undecided $und"
le 0.95 "$met" || fail "a goal met by 10 % at CV 5 %: 'met' in only $met"
# too few rounds for an interval at alpha / (2 m): 0.5^n > 0.025 below 6 rounds of one case,
# > 0.00625 below 8 of four
read -r met missed und < <(sim 14 5 lognormal 0.05 1.5)
[ "$met $missed $und" = "0.0000 0.0000 1.0000" ] || fail "5 rounds of one case decided: met $met, MISSED $missed"
read -r met missed und < <(sim 15 7 lognormal 0.05 1.5 1.5 1.5 1.5)
[ "$met $missed $und" = "0.0000 0.0000 1.0000" ] || fail "7 rounds of four cases decided: met $met, MISSED $missed"
read -r met missed und < <(sim 16 6 lognormal 0.05 1.5)
[ "$met" = 1.0000 ] || fail "6 rounds of one case at 1.5 x the goal: met only $met"
ok "false met and false MISSED <= $LIMIT under log-normal and two-humped noise; power; undecided below 6 rounds (8 of 4 cases)"

# by hand: 21 rounds 0.90..1.10 for one case: median 1.000, interval [x_6, x_16] (P(Bin(21, 1/2)
# <= 5) = 0.0133 <= 0.025 < P(<= 6) = 0.0392): 0.950 and 1.050, so undecided at 0.97 and met at 0.95
seq 0 20 | awk '{ printf "read %.2f\n", 0.90 + $1 / 100 }' > r
awk -f "$RULE" -v g=0.97 -v what="x" -v extra="ratio of medians 0.99" r > out
grep -qx '  read: median 1.000 \[0.950, 1.050\] of 21 rounds: undecided' out || fail "by hand: $(cat out)"
grep -qx 'goal: x: undecided (lowest median 1.000 \[0.950, 1.050\], read; 1 of 1 cases undecided; ratio of medians 0.99)' out ||
    fail "by hand, the goal line: $(cat out)"
awk -f "$RULE" -v g=0.95 -v what="x" r | grep -q '^goal: x: met ' || fail "by hand at 0.95: $(awk -f "$RULE" -v g=0.95 -v what=x r)"
awk -f "$RULE" -v g=1.06 -v what="x" r | grep -q '^goal: x: MISSED ' || fail "by hand at 1.06"
ok "the goal line by hand"
