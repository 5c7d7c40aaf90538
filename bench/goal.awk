# SPDX-License-Identifier: GPL-2.0-or-later
# bench/goal.awk: a bench's goal line from its per-round ratios, decided as fsbench decides its
# verdicts: "met", "MISSED" or "undecided" when the rounds cannot tell (never a miss or a pass
# that the spread of the host could have made).
#
# Input: one line per round and case, "CASE RATIO" (e.g. "read 0.981": fsbench's rate over the
# same round's reference's; higher is better). Variables: g (the goal: every case's ratio >= g),
# what (the goal line's text), alpha (default 0.05), extra (text appended in the parentheses),
# head (the line's first word in place of "goal", for a line that is not a goal: an A/A's).
#
# The rule: for each case, the median of its rounds' ratios and a distribution-free interval for
# the true median from order statistics (the binomial's tail, no assumption on the ratios'
# distribution; exact for continuous ones), two-sided at alpha / m for m cases (Bonferroni: the
# goal is a claim about every case at once). A case is met when its interval lies at or above
# g, missed when it lies below, undecided otherwise. The goal: MISSED when any case is missed,
# met when every case is met, else undecided. So a "met" is wrong (some case's true median below
# g) at most alpha / 2 of the time and a "MISSED" (every true median at or above g) at most
# alpha / 2; below 6 rounds of one case (8 of four) no interval excludes anything and every
# goal is undecided. tests/cli/t2645-bench-goal-rule.sh simulates both error rates.
#
# With -v by_exp=1 the lines are "EXPERIMENT CASE RATIO" and each experiment (consecutive lines)
# gets its own goal line: what the simulation feeds it.
#
# Output: the goal line, "goal: WHAT: met|MISSED|undecided (lowest case median ... [lo, hi], CASE;
# EXTRA)", after one line per case ("  CASE: median M [LO, HI] of N rounds: met|missed|undecided").

function binom_cdf(k, n,    i, p, s) {    # P(X <= k), X ~ Bin(n, 1/2)
	if (k < 0)
		return 0
	p = 0.5 ^ n
	s = p
	for (i = 1; i <= k; i++) {
		p = p * (n - i + 1) / i
		s += p
	}
	return s
}

function sort_num(a, n,    i, j, t) {  # insertion sort, a[1..n]
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
}

# the goal line of the rounds read so far, then forgotten (the next experiment's, with -v by_exp=1)
function decide(    c, name, k, i, x, med, r, lo, hi, has, d, missed, undecided, low_case, low_med,
		low_lo, low_hi, verdict) {
	if (!m) {
		printf "%s: %s: undecided (no rounds)\n", head, what
		return
	}
	missed = 0
	undecided = 0
	low_case = ""
	for (c = 1; c <= m; c++) {
		name = order[c]
		k = n[name]
		for (i = 1; i <= k; i++)
			x[i] = v[name, i]
		sort_num(x, k)
		med = k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
		# the largest r with P(X <= r - 1) <= alpha / (2 m): the interval [x_r, x_(k-r+1)]
		r = 0
		while (binom_cdf(r, k) <= alpha / (2 * m))
			r++
		has = r >= 1 && r <= k - r + 1
		lo = has ? x[r] : "-"
		hi = has ? x[k - r + 1] : "-"
		if (has && lo >= g)
			d = "met"
		else if (has && hi < g)
			d = "missed"
		else
			d = "undecided"
		missed += d == "missed"
		undecided += d == "undecided"
		if (has)
			printf "  %s: median %.3f [%.3f, %.3f] of %d rounds: %s\n", name, med, lo, hi, k, d
		else
			printf "  %s: median %.3f of %d rounds (too few for an interval at %g): %s\n", name, med, k,
				alpha / m, d
		if (low_case == "" || med < low_med) {
			low_case = name
			low_med = med
			low_lo = lo
			low_hi = hi
		}
		for (i = 1; i <= k; i++)
			delete v[name, i]
		delete n[name]
	}
	verdict = missed ? "MISSED" : undecided ? "undecided" : "met"
	if (low_lo == "-")
		printf "%s: %s: %s (lowest median %.3f, %s, too few rounds to decide", head, what, verdict, low_med, low_case
	else
		printf "%s: %s: %s (lowest median %.3f [%.3f, %.3f], %s", head, what, verdict, low_med, low_lo, low_hi,
			low_case
	printf "; %d of %d cases undecided%s%s)\n", undecided, m, extra != "" ? "; " : "", extra
	m = 0
}

BEGIN {
	if (alpha == "")
		alpha = 0.05
	if (head == "")
		head = "goal"
}

# -v by_exp=1: "EXPERIMENT CASE RATIO", a goal line per experiment (the simulation's input)
by_exp && NF >= 3 {
	if (NR > 1 && $1 != last)
		decide()
	last = $1
	$1 = ""
	$0 = substr($0, 2)
}

NF >= 2 {
	if (!($1 in n)) {
		order[++m] = $1
		n[$1] = 0
	}
	v[$1, ++n[$1]] = $2 + 0
}

END {
	decide()
}
