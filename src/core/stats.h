/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Statistics for comparing repeated runs: means, 95 % confidence intervals from Student's t
 * distribution, and Welch's unequal-variance t-test.
 *
 * Design. A figure measured over n repeated runs is summarised by its mean and the half-width
 * of its 95 % confidence interval, t(0.975, n-1) * s / sqrt(n). Two results differ
 * significantly when Welch's test rejects equal means at the 5 % level (two-sided); Welch's
 * test does not assume equal variances, which A/B runs on different filesystems rarely have.
 *
 * Rates (MiB/s, IOPS, files/s) of runs that each do the same amount of work are averaged with
 * the harmonic mean: total work over total time is the harmonic mean of the per-run rates,
 * the arithmetic mean overweights fast runs. Their statistics are computed on the reciprocals
 * (time per unit of work, which is what averages linearly); the interval is mapped back to rate
 * units exactly (lo, hi) and, for the "mean ± half-width" display, by the delta method
 * (half-width of the reciprocal times H^2).
 *
 * The t distribution. The CDF goes through the regularized incomplete beta function
 * (I_x(df/2, 1/2) with x = df / (df + t^2)), evaluated with the continued fraction of
 * Numerical Recipes (modified Lentz), accurate to ~1e-12 relative; quantiles invert the CDF by
 * bisection. Degrees of freedom may be fractional (Welch-Satterthwaite).
 *
 * Many tests at once. A report that runs m tests at the 5 % level finds about 0.05 m
 * "significant" differences where there are none. Holm's step-down correction (Holm 1979)
 * controls the family-wise error rate: with the p-values sorted, p(1) <= ... <= p(m), the
 * adjusted p(i) is max over j <= i of min(1, (m - j + 1) p(j)); a test is significant when its
 * adjusted p-value is below 0.05. It is never less powerful than Bonferroni (m p) and needs no
 * assumption about how the tests depend on each other.
 *
 * Interaction of two factors A, B (two levels each, four cells): whether B's effect depends on
 * A, the difference of differences (A2B2 - A1B2) - (A2B1 - A1B1). Rates go on the log scale:
 * the log of a ratio of ratios, ln(H22 H11 / (H12 H21)) of the harmonic means, whose variance
 * is taken by the delta method, var ln H = var(mean of 1/x) / (mean of 1/x)^2 / n; other
 * figures on their own scale. The estimate's variance is the sum of the four cells' v_i
 * (s_i^2 / n_i, or its log-scale equivalent), its degrees of freedom Welch-Satterthwaite's,
 * (sum v_i)^2 / sum(v_i^2 / (n_i - 1)), its interval est +- t(0.975, df) sqrt(sum v_i), its test
 * t = est / sqrt(sum v_i) two-sided. */
#ifndef FSB_STATS_H
#define FSB_STATS_H
#include <stdbool.h>

#define STATS_ALPHA 0.05

struct stats_summary {
	unsigned n;
	double mean;      /* arithmetic, or harmonic when summarised as a rate */
	double sd;        /* sample standard deviation (of the reciprocals for a rate); 0 when n < 2 */
	double ci;        /* 95 % half-width in the units of mean; 0 when n < 2 */
	double lo, hi;    /* the 95 % interval; hi is INFINITY when a rate's interval is unbounded */
	double cv_pct;    /* coefficient of variation, % (of the reciprocals for a rate) */
	bool harmonic;
	bool geometric;   /* mean is the geometric mean, lo/hi its interval on the log scale */
};

struct stats_welch {
	double t;         /* (mean_b - mean_a) / standard error */
	double df;        /* Welch-Satterthwaite degrees of freedom */
	double p;         /* two-sided p-value */
};

double stats_mean(const double *v, unsigned n);
/* sample variance (divisor n - 1); 0 when n < 2 */
double stats_var(const double *v, unsigned n);
/* harmonic mean; 0 when n is 0 or any value is <= 0 */
double stats_hmean(const double *v, unsigned n);
/* regularized incomplete beta I_x(a, b), a, b > 0, x in [0, 1] */
double stats_betai(double a, double b, double x);
/* Student's t: P(T <= t) with df > 0 degrees of freedom */
double stats_t_cdf(double t, double df);
/* the t with P(T <= t) = p, p in (0, 1) */
double stats_t_quantile(double p, double df);
/* Summarises v[0..n-1]. harmonic: as a rate (needs every value > 0, else falls back to the
 * arithmetic mean and clears s->harmonic). Returns 0, or -1 when n is 0. */
int stats_summarize(const double *v, unsigned n, bool harmonic, struct stats_summary *s);
/* The same for a positive quantity that is not a rate (a time, a latency, a size): the geometric
 * mean and its interval exp(mean ln x +- t s_ln / sqrt(n)), which never reaches below 0; sd and
 * cv_pct of the values themselves, ci the larger distance to a bound. Falls back to
 * stats_summarize(v, n, false, s) when a value is <= 0. */
int stats_summarize_geo(const double *v, unsigned n, struct stats_summary *s);
/* Welch's t-test of a against b (on the reciprocals when harmonic and all values > 0). Needs
 * at least 2 values on each side, else returns -1. With no variance on either side the p-value
 * is 1 for equal means and 0 otherwise. */
int stats_welch(const double *a, unsigned na, const double *b, unsigned nb, bool harmonic,
		struct stats_welch *w);

/* The index of v's median (of the lower middle one for an even n; NaN values left out); -1
 * when none. The "median run" of a cell: a real run, not an average of two. */
int stats_median_index(const double *v, unsigned n);
/* out[k]: the median of v over the window of w points centred on k (shorter at the ends;
 * the mean of the two middle values for an even count). w <= 1 copies. NaN values left out
 * (out[k] NaN when the window has none). 0, or -1 out of memory. */
int stats_moving_median(const double *v, unsigned n, unsigned w, double *out);

/* Holm's adjusted p-values of p[0..n-1] into adj[0..n-1] (adj may be p). A NaN entry is not a
 * test: it stays NaN and does not count in m. Returns m, the number of tests. */
/* Adjusted p-values in adj (NaN where p is NaN): Holm's step-down (bh false) or
 * Benjamini-Hochberg's step-up (bh true); returns how many were adjusted. */
unsigned stats_p_adjust(const double *p, unsigned n, bool bh, double *adj);
unsigned stats_holm(const double *p, unsigned n, double *adj);

struct stats_interaction {
	bool log;         /* on the log scale (rates): est is ln of a ratio of ratios */
	double est;       /* (A2B2 - A1B2) - (A2B1 - A1B1) */
	double se, df, t, p;
	double lo, hi;    /* its 95 % interval (on the same scale as est) */
};

/* The interaction of the four cells v[0] A1B1, v[1] A2B1, v[2] A1B2, v[3] A2B2 (n[i] values
 * each). rate: on the log scale of the harmonic means (every value must be > 0). Needs 2 values
 * in every cell; returns -1 otherwise. With no spread at all, p is 1 when est is 0, else 0. */
int stats_interaction(const double *const v[4], const unsigned n[4], bool rate,
		      struct stats_interaction *out);
#endif
