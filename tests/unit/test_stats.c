/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/stats: the t distribution against independent values (mpmath
 * quadrature of the t density, 30 digits), Welch's test against R's t.test, the harmonic mean
 * and its interval, and the degenerate cases (no spread, too few runs, non-positive rates);
 * Holm's adjusted p-values against R's p.adjust(p, "holm") and by hand; the interaction of two
 * factors against the same formulas evaluated by mpmath at 30 digits (t CDF by the incomplete
 * beta, quantile by root finding). */
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
	/* the median run (a real run: the lower middle one for an even count) and moving medians */
	{
		static const struct { double v[6]; unsigned n; int want; } med[] = {
			{ { 5, 1, 3 }, 3, 2 }, { { 4, 1, 3, 2 }, 4, 3 }, { { NAN, 7, NAN }, 3, 1 },
			{ { NAN }, 1, -1 }, { { 2, 2, 2 }, 3, 1 }, { { 10, 30, 20, 40, 50, 60 }, 6, 1 },
		};
		double v[] = { 1, 9, 2, 8, 3, NAN, 4 }, out[7];
		static const double w3[] = { 5, 2, 8, 3, 5.5, 3.5, 4 };

		for (unsigned i = 0; i < sizeof(med) / sizeof(med[0]); i++)
			CHECK(stats_median_index(med[i].v, med[i].n) == med[i].want, "median index %u: %d, want %d", i,
			      stats_median_index(med[i].v, med[i].n), med[i].want);
		CHECK(stats_moving_median(v, 7, 3, out) == 0, "moving median");
		for (unsigned k = 0; k < 7; k++)
			CHECK(out[k] == w3[k], "moving median [%u] = %g, want %g", k, out[k], w3[k]);
		CHECK(stats_moving_median(v, 7, 1, out) == 0 && out[1] == 9 && isnan(out[5]), "window 1 copies");
	}
	/* Holm: R p.adjust(c(.01,.04,.03,.005), "holm") = .03 .06 .06 .02; NaN is no test */
	{
		static const struct { double p[5], want[5]; unsigned n, m; } holm[] = {
			{ { 0.01, 0.04, 0.03, 0.005 }, { 0.03, 0.06, 0.06, 0.02 }, 4, 4 },
			{ { 0.02, NAN, 0.5, 0.001 }, { 0.04, NAN, 0.5, 0.003 }, 4, 3 },
			{ { 0.3, 0.6, 0.9 }, { 0.9, 1, 1 }, 3, 3 },
			{ { 0.01, 0.01, 0.5 }, { 0.03, 0.03, 0.5 }, 3, 3 },
			{ { 0.04 }, { 0.04 }, 1, 1 },
			{ { 0.0, 1.0, 0.049, 0.2, 0.01 }, { 0.0, 1.0, 0.147, 0.4, 0.04 }, 5, 5 },
		};

		for (unsigned i = 0; i < sizeof(holm) / sizeof(holm[0]); i++) {
			double adj[5];
			unsigned m = stats_holm(holm[i].p, holm[i].n, adj);

			CHECK(m == holm[i].m, "holm %u: m = %u, want %u", i, m, holm[i].m);
			for (unsigned k = 0; k < holm[i].n; k++)
				CHECK(isnan(holm[i].want[k]) ? isnan(adj[k]) : close_rel(adj[k], holm[i].want[k], 1e-12),
				      "holm %u[%u] = %g, want %g", i, k, adj[k], holm[i].want[k]);
		}
		CHECK(stats_holm(NULL, 0, NULL) == 0, "no tests");
	}
	/* interaction (A2B2 - A1B2) - (A2B1 - A1B1): linear, and on the log scale for rates */
	{
		static const struct {
			double c[4][4];
			unsigned n;
			bool rate;
			double est, se, df, t, p, lo, hi;
		} ia[] = {
			{ { { 10, 11, 12 }, { 20, 21, 22 }, { 10, 12, 14 }, { 30, 33, 36 } }, 3, false,
			  11.0, 2.2360679774997897, 4.5454545454545455, 4.9193495504995373, 0.0056822602831105894,
			  5.0747386619273906, 16.925261338072609 },
			{ { { 10, 11, 12 }, { 20, 21, 22 }, { 30, 31, 32 }, { 40, 41, 43 } }, 3, false,
			  0.33333333333333333, 1.3333333333333333, 6.7368421052631579, 0.25, 0.81003876963474877,
			  -2.8446378925533351, 3.5113045592200017 },
			/* the reference post's shape: the toggle halves btrfs' rate, not ext4's */
			{ { { 40.6, 41.0, 40.2 }, { 23.0, 22.5, 23.6 }, { 41.3, 41.5, 40.9 }, { 46.9, 47.3, 46.5 } }, 3, true,
			  0.69590026907752458, 0.01627448865602599, 3.6899041099965325, 42.760192580296653,
			  4.1280586680664197e-6, 0.64917732552684032, 0.74262321262820883 },
			{ { { 100, 102, 98, 101 }, { 50, 51, 49, 50.5 }, { 100, 101, 99, 100 }, { 50, 50.5, 49.5, 51 } }, 4, true,
			  0.0049137684847247885, 0.014317165227629304, 9.8537985484605712, 0.34320819845273455,
			  0.73865138747599114, -0.027051136845828303, 0.03687867381527788 },
		};
		struct stats_interaction r;

		for (unsigned i = 0; i < sizeof(ia) / sizeof(ia[0]); i++) {
			const double *v[4] = { ia[i].c[0], ia[i].c[1], ia[i].c[2], ia[i].c[3] };
			const unsigned n[4] = { ia[i].n, ia[i].n, ia[i].n, ia[i].n };

			CHECK(stats_interaction(v, n, ia[i].rate, &r) == 0 && r.log == ia[i].rate, "interaction %u", i);
			CHECK(close_rel(r.est, ia[i].est, 1e-12), "interaction %u est %.17g want %.17g", i, r.est, ia[i].est);
			CHECK(close_rel(r.se, ia[i].se, 1e-12), "interaction %u se %.17g", i, r.se);
			CHECK(close_rel(r.df, ia[i].df, 1e-12), "interaction %u df %.17g", i, r.df);
			CHECK(close_rel(r.t, ia[i].t, 1e-12), "interaction %u t %.17g", i, r.t);
			CHECK(close_rel(r.p, ia[i].p, 1e-8), "interaction %u p %.17g want %.17g", i, r.p, ia[i].p);
			CHECK(close_rel(r.lo, ia[i].lo, 1e-9) && close_rel(r.hi, ia[i].hi, 1e-9),
			      "interaction %u interval [%.17g, %.17g]", i, r.lo, r.hi);
		}
		/* degenerate: too few runs, a non-positive rate, no spread */
		{
			double a[] = { 1, 1, 1 }, b[] = { 2, 2, 2 }, z[] = { 0, 1, 2 };
			const double *same[4] = { a, a, a, a }, *diff[4] = { a, b, a, a }, *zero[4] = { z, a, a, a };
			const unsigned n3[4] = { 3, 3, 3, 3 }, n1[4] = { 3, 1, 3, 3 };

			CHECK(stats_interaction(same, n1, false, &r) == -1, "one run in a cell: no test");
			CHECK(stats_interaction(zero, n3, true, &r) == -1, "a zero rate has no log");
			CHECK(stats_interaction(zero, n3, false, &r) == 0, "a zero is fine on the linear scale");
			CHECK(stats_interaction(same, n3, true, &r) == 0 && r.est == 0 && r.p == 1, "identical: p 1");
			CHECK(stats_interaction(diff, n3, false, &r) == 0 && r.est == -1 && r.p == 0 && r.lo == -1,
			      "constant, different: p 0, est %g", r.est);
		}
	}
	return check_done("test_stats");
}
