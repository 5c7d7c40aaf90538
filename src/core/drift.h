/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drift across a cell's runs in the order they ran: did the machine change under the experiment?
 *
 * The test is Mann-Kendall's: Kendall's S between run order and the values (concordant minus
 * discordant pairs), two-sided. It is rank-based, so it needs no assumption about the noise's
 * shape and one outlier moves S by at most n - 1. Its p-value is exact for n <= DRIFT_EXACT_MAX
 * (the null distribution of the number of inversions of a random permutation, by recurrence),
 * beyond that the normal approximation with a continuity correction (variance n(n-1)(2n+5)/18).
 * Tied values count 0 in S and the p-value is the no-ties one: conservative with ties. The
 * discreteness makes small n conservative too: n = 3 cannot reach p < 0.05 (its least p is 1/3),
 * n = 4 neither (1/12); n = 5 only when the runs are monotone (1/60).
 *
 * The trend is the Theil-Sen slope of log values (the median of the pairwise slopes): a change per
 * run as a ratio, robust to one outlier, printed as % per run and % from the first run to the
 * last. tests/unit/test_drift.c checks p against exact enumeration and R's cor.test(method =
 * "kendall"), and its false-positive rate on runs without drift by simulation. */
#ifndef FSB_CORE_DRIFT_H
#define FSB_CORE_DRIFT_H

#define DRIFT_EXACT_MAX 60

struct drift {
	unsigned n;
	long s;                  /* Kendall's S */
	double tau;              /* S / (n (n - 1) / 2) */
	double p;                /* two-sided */
	double slope_pct;        /* Theil-Sen, per run, in % (exp(slope) - 1) */
	double total_pct;        /* first run to last: exp(slope (n - 1)) - 1, in % */
};

/* v[0..n) in run order, every value finite and > 0. 0; -EINVAL for n < 3, -EDOM for a value
 * that is not, -ENOMEM. */
int drift_test(const double *v, unsigned n, struct drift *out);
/* The two-sided p-value of S for n runs without drift (|S'| >= |S|). */
double drift_kendall_p(unsigned n, long s);
#endif
