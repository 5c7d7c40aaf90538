/* Unit tests for core/stats: the t distribution against independent values (mpmath
 * quadrature of the t density, 30 digits), Welch's test against R's t.test, the harmonic mean
 * and its interval, and the degenerate cases (no spread, too few runs, non-positive rates). */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "core/stats.h"

static int close_rel(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b) || (b == 0 && fabs(a) < rel);
}

int main(void)
{
	static const struct { double df, q; } q975[] = {
		{ 1, 12.7062047361747 }, { 2, 4.30265272974946 }, { 3, 3.18244630528371 },
		{ 5, 2.57058183563632 }, { 10, 2.22813885198627 }, { 30, 2.04227245630124 },
		{ 5.882352941176471, 2.45882370969915 },
	};
	static const struct { double a[5]; unsigned na; double b[5]; unsigned nb; double t, df, p; } welch[] = {
		/* R: t.test(c(2,4,6,8,10), c(1,2,3,4,5)): t = 1.8974, df = 5.8824, p-value = 0.1075 */
		{ { 1, 2, 3, 4, 5 }, 5, { 2, 4, 6, 8, 10 }, 5, 1.89736659610103, 5.88235294117647, 0.107531194930627 },
		{ { 10.1, 10.3, 9.9 }, 3, { 11.0, 11.4, 10.9, 11.2 }, 4, 6.40312423743285, 4.71553246753247, 0.00170892108995545 },
		{ { 100, 101, 99.5 }, 3, { 100.2, 100.9, 99.1 }, 3, -0.146037715053348, 3.88685422441451, 0.891150933155926 },
	};
	struct stats_summary s;
	struct stats_welch w;

	for (unsigned i = 0; i < sizeof(q975) / sizeof(q975[0]); i++) {
		double q = stats_t_quantile(0.975, q975[i].df);

		CHECK(close_rel(q, q975[i].q, 1e-9), "t(0.975, %g) = %.15g, want %.15g", q975[i].df, q, q975[i].q);
		CHECK(close_rel(stats_t_quantile(0.025, q975[i].df), -q975[i].q, 1e-9), "lower quantile df %g", q975[i].df);
		CHECK(close_rel(stats_t_cdf(q975[i].q, q975[i].df), 0.975, 1e-10), "cdf at the quantile df %g", q975[i].df);
	}
	CHECK(close_rel(stats_t_quantile(0.975, 1e6), 1.959966, 1e-5), "large df tends to the normal");
	CHECK(close_rel(stats_t_cdf(2, 10), 0.96330598261463, 1e-11), "cdf(2, 10) = %.15g", stats_t_cdf(2, 10));
	CHECK(close_rel(stats_t_cdf(-1.5, 3.5), 0.108909093507673, 1e-11), "cdf(-1.5, 3.5) = %.15g", stats_t_cdf(-1.5, 3.5));
	CHECK(stats_t_cdf(0, 7) == 0.5, "cdf(0) = 0.5");
	CHECK(stats_t_cdf(INFINITY, 3) == 1 && stats_t_cdf(-INFINITY, 3) == 0, "cdf at infinities");
	CHECK(isnan(stats_t_quantile(0, 3)) && isnan(stats_t_quantile(1, 3)) && isnan(stats_t_cdf(1, 0)),
	      "out-of-domain arguments give NaN, not a loop");
	CHECK(close_rel(stats_betai(2, 3, 0.4), 0.5248, 1e-12), "I_0.4(2,3) = %.15g", stats_betai(2, 3, 0.4));
	CHECK(close_rel(stats_betai(0.5, 0.5, 0.2), 0.295167235300867, 1e-11), "I_0.2(.5,.5)");

	for (unsigned i = 0; i < sizeof(welch) / sizeof(welch[0]); i++) {
		CHECK(stats_welch(welch[i].a, welch[i].na, welch[i].b, welch[i].nb, false, &w) == 0, "welch %u runs", i);
		CHECK(close_rel(w.t, welch[i].t, 1e-10), "welch %u t = %.15g, want %.15g", i, w.t, welch[i].t);
		CHECK(close_rel(w.df, welch[i].df, 1e-10), "welch %u df = %.15g, want %.15g", i, w.df, welch[i].df);
		CHECK(close_rel(w.p, welch[i].p, 1e-8), "welch %u p = %.15g, want %.15g", i, w.p, welch[i].p);
	}

	/* mean and interval: 1..5, mean 3, s = sqrt(2.5), half-width t(.975,4) * s / sqrt(5) */
	{
		double v[] = { 1, 2, 3, 4, 5 };

		CHECK(stats_summarize(v, 5, false, &s) == 0, "summarize");
		CHECK(s.mean == 3 && close_rel(s.sd, sqrt(2.5), 1e-15), "mean %g sd %g", s.mean, s.sd);
		CHECK(close_rel(s.ci, 2.77644510519779 * sqrt(2.5) / sqrt(5), 1e-9), "ci %.15g", s.ci);
		CHECK(close_rel(s.lo, 3 - s.ci, 1e-15) && close_rel(s.hi, 3 + s.ci, 1e-15), "interval");
		CHECK(close_rel(s.cv_pct, 100 * sqrt(2.5) / 3, 1e-12), "cv %g", s.cv_pct);
	}
	/* rates: harmonic mean of 100 and 50 (same work at 100/s and 50/s) is 66.67/s */
	{
		double v[] = { 100, 50 }, z[] = { 100, 0 }, one[] = { 42 };

		CHECK(close_rel(stats_hmean(v, 2), 200.0 / 3, 1e-15), "hmean %g", stats_hmean(v, 2));
		CHECK(stats_hmean(z, 2) == 0, "hmean with a zero rate is 0");
		CHECK(stats_summarize(v, 2, true, &s) == 0 && s.harmonic, "harmonic summary");
		CHECK(close_rel(s.mean, 200.0 / 3, 1e-15), "harmonic mean %g", s.mean);
		CHECK(s.lo > 0 && s.lo < s.mean && isinf(s.hi), "a 2-run rate interval of t(.975,1)=12.7 is unbounded above");
		CHECK(stats_summarize(z, 2, true, &s) == 0 && !s.harmonic && s.mean == 50,
		      "a zero rate falls back to the arithmetic mean");
		CHECK(stats_summarize(one, 1, true, &s) == 0 && s.mean == 42 && s.ci == 0 && s.sd == 0, "one run: no interval");
		CHECK(stats_summarize(one, 0, false, &s) == -1, "no runs");
	}
	/* rates tested on reciprocals, and the sign of t follows the rate */
	{
		double a[] = { 100, 101, 99 }, b[] = { 50, 51, 49 };

		CHECK(stats_welch(a, 3, b, 3, true, &w) == 0 && w.t < 0 && w.p < 0.001, "slower b: t %g p %g", w.t, w.p);
		CHECK(stats_welch(b, 3, a, 3, true, &w) == 0 && w.t > 0 && w.p < 0.001, "faster b: t %g p %g", w.t, w.p);
	}
	/* degenerate: identical runs, constant but different, too few */
	{
		double a[] = { 7, 7, 7 }, b[] = { 7, 7, 7 }, c[] = { 8, 8, 8 };

		CHECK(stats_welch(a, 3, b, 3, false, &w) == 0 && w.p == 1 && w.t == 0, "identical: p 1");
		CHECK(stats_welch(a, 3, c, 3, false, &w) == 0 && w.p == 0 && w.t > 0, "constant, different: p 0");
		CHECK(stats_welch(a, 1, c, 3, false, &w) == -1, "one run on a side: no test");
	}
	return check_done("test_stats");
}
