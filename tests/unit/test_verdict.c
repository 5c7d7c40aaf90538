/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/verdict against published reference values: R's t.test on its `sleep` data
 * (Welch, paired, one-sample; the same on the log scale of exp(extra)), R's qt(), p.adjust() for
 * Holm and Benjamini-Hochberg, TOST by the 90 % interval of R's t.test(conf.level = 0.9); then
 * the verdict rules (corrected interval consistent with p_adj, equivalence, undecided with the
 * rounds to decide, constant figures untested, single runs undecided, pairing by round, the
 * --fail-if-worse rule). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/stats.h"
#include "core/verdict.h"

/* R: sleep$extra, group 1 and group 2 (the same 10 patients) */
static const double g1[10] = { 0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0 };
static const double g2[10] = { 1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4 };

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static void test_quantiles(void)
{
	/* R: qt(0.975, c(1, 2, 9, 30)), qt(0.95, 9), qt(0.995, 4) */
	static const struct { double p, df, q; } qt[] = {
		{ 0.975, 1, 12.706205 }, { 0.975, 2, 4.302653 }, { 0.975, 9, 2.262157 }, { 0.975, 30, 2.042272 },
		{ 0.95, 9, 1.833113 }, { 0.995, 4, 4.604095 }, { 0.025, 9, -2.262157 },
	};

	for (unsigned i = 0; i < sizeof(qt) / sizeof(qt[0]); i++)
		CHECK(near(stats_t_quantile(qt[i].p, qt[i].df), qt[i].q, 5e-6), "qt(%g, %g) = %.6f, want %.6f", qt[i].p,
		      qt[i].df, stats_t_quantile(qt[i].p, qt[i].df), qt[i].q);
}

static void test_welch_paired(void)
{
	struct vd_est e;
	double lo, hi, x1[10], x2[10];

	/* R: t.test(extra ~ group, data = sleep): t = -1.8608, df = 17.776, p-value = 0.07939,
	 * 95 percent confidence interval -3.3654832 0.2054832 (group 1 minus group 2) */
	CHECK(vd_welch(g2, 10, g1, 10, false, &e) == 0, "welch");
	vd_interval(&e, 0.95, &lo, &hi);
	CHECK(near(e.t, -1.8608, 5e-5) && near(e.df, 17.776, 5e-4) && near(e.p, 0.07939, 5e-6) && !e.paired,
	      "Welch: t %.5f df %.4f p %.6f", e.t, e.df, e.p);
	CHECK(near(lo, -3.3654832, 5e-6) && near(hi, 0.2054832, 5e-6), "Welch CI [%.7f, %.7f]", lo, hi);

	/* the log scale: Welch on ln x is t.test(log(x)): x = exp(extra) gives the same numbers, the
	 * ratio exp(-1.58) and the interval exp(CI) */
	for (int i = 0; i < 10; i++) {
		x1[i] = exp(g1[i]);
		x2[i] = exp(g2[i]);
	}
	CHECK(vd_welch(x2, 10, x1, 10, true, &e) == 0 && e.log, "welch on logs");
	vd_interval(&e, 0.95, &lo, &hi);
	CHECK(near(e.t, -1.8608, 5e-5) && near(e.df, 17.776, 5e-4) && near(e.p, 0.07939, 5e-6) &&
	      near(exp(e.est), exp(-1.58), 1e-12) && near(exp(lo), exp(-3.3654832), 1e-6) && near(exp(hi), exp(0.2054832), 1e-6),
	      "Welch on logs: t %.5f ratio %g [%g, %g]", e.t, exp(e.est), exp(lo), exp(hi));
	CHECK(vd_welch(g2, 10, g1, 10, true, &e) == -1, "the log scale refuses values <= 0");

	/* R: t.test(extra ~ group, data = sleep, paired = TRUE): t = -4.0621, df = 9,
	 * p-value = 0.002833, 95 percent confidence interval -2.4598858 -0.7001142 */
	CHECK(vd_paired(g2, g1, 10, false, &e) == 0 && e.paired, "paired");
	vd_interval(&e, 0.95, &lo, &hi);
	CHECK(near(e.t, -4.0621, 5e-5) && e.df == 9 && near(e.p, 0.002833, 5e-7) && near(lo, -2.4598858, 5e-7) &&
	      near(hi, -0.7001142, 5e-7), "paired: t %.5f p %.7f [%.7f, %.7f]", e.t, e.p, lo, hi);
	CHECK(vd_paired(x2, x1, 10, true, &e) == 0 && near(e.t, -4.0621, 5e-5) && near(exp(e.est), exp(-1.58), 1e-12),
	      "paired on logs: the per-round log ratios");
	/* R: t.test(extra ~ group, data = sleep, paired = TRUE, conf.level = 0.9):
	 * -2.2930053 -0.8669947 (the TOST interval at alpha 0.05) */
	vd_paired(g2, g1, 10, false, &e);
	vd_interval(&e, 0.90, &lo, &hi);
	CHECK(near(lo, -2.2930053, 5e-7) && near(hi, -0.8669947, 5e-7), "paired 90%%: [%.7f, %.7f]", lo, hi);

	/* one-sample t on the differences is the paired test */
	{
		double d[10];
		struct vd_est o;

		for (int i = 0; i < 10; i++)
			d[i] = g1[i] - g2[i];
		CHECK(vd_one_sample(d, 10, &o) == 0 && near(o.t, -4.0621, 5e-5) && near(o.p, 0.002833, 5e-7),
		      "one-sample on the differences");
	}
	/* the unpaired interaction with two cells that do not vary is Welch on the other two:
	 * (A1B1 - A2B1) - (A1B2 - A2B2) with A2B1 = group 1, A1B1 = group 2 */
	{
		static const double z[3] = { 0, 0, 0 };
		const double *v[4] = { g2, g1, z, z };
		const unsigned n[4] = { 10, 10, 3, 3 };

		CHECK(vd_interaction(v, n, false, &e) == 0 && near(e.est, 1.58, 1e-12) && near(e.df, 17.776, 5e-4) &&
		      near(e.p, 0.07939, 5e-6), "interaction reduces to Welch: est %g df %g p %g", e.est, e.df, e.p);
	}
	CHECK(vd_welch(g1, 1, g2, 10, false, &e) == -1 && vd_paired(g1, g2, 1, false, &e) == -1, "n < 2 refused");
}

static void test_corrections(void)
{
	/* R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm") = 0.05 0.08 0.09 0.09 0.09;
	 * "BH" = 0.05 0.05 0.05 0.05 0.05 */
	static const double p[5] = { 0.01, 0.02, 0.03, 0.04, 0.05 };
	static const double holm[5] = { 0.05, 0.08, 0.09, 0.09, 0.09 };
	/* R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02 */
	static const double q[4] = { 0.01, 0.04, 0.03, 0.005 };
	static const double bhq[4] = { 0.02, 0.04, 0.04, 0.02 };
	/* R: p.adjust(c(0.001, NA, 0.2, 0.04), "BH") = 0.003 NA 0.2 0.06 */
	const double r[4] = { 0.001, NAN, 0.2, 0.04 };
	static const double bhr[4] = { 0.003, NAN, 0.2, 0.06 };
	double adj[5];

	CHECK(stats_holm(p, 5, adj) == 5, "holm m");
	for (int i = 0; i < 5; i++)
		CHECK(near(adj[i], holm[i], 1e-12), "holm[%d] %g want %g", i, adj[i], holm[i]);
	CHECK(vd_bh(p, 5, adj) == 5, "bh m");
	for (int i = 0; i < 5; i++)
		CHECK(near(adj[i], 0.05, 1e-12), "bh[%d] %g want 0.05", i, adj[i]);
	vd_bh(q, 4, adj);
	for (int i = 0; i < 4; i++)
		CHECK(near(adj[i], bhq[i], 1e-12), "bh q[%d] %g want %g", i, adj[i], bhq[i]);
	CHECK(vd_bh(r, 4, adj) == 3, "NaN is not a test");
	for (int i = 0; i < 4; i++)
		CHECK(isnan(bhr[i]) ? isnan(adj[i]) : near(adj[i], bhr[i], 1e-12), "bh r[%d] %g want %g", i, adj[i], bhr[i]);
}

/* a vd_test from the sleep differences shifted by `shift` and scaled by `scale` (log scale) */
static void sleep_test(double shift, double scale, enum vd_family fam, struct vd_test *t)
{
	double a[10], b[10];

	for (int i = 0; i < 10; i++) {
		a[i] = 1;
		b[i] = exp((g1[i] - g2[i] + shift) * scale);
	}
	vd_compare(a, 10, NULL, b, 10, NULL, true, fam, t);
}

static void test_verdicts(void)
{
	struct vd_opts o = { VD_ALPHA, 5 };
	struct vd_test t[3];
	double a[10], b[10];
	unsigned ra[10], rb[10];

	/* unpaired against a constant baseline: Welch where one side has no variance is the
	 * one-sample t of the other; the sleep differences /10 are a -15 % effect, p 0.0028 */
	sleep_test(0, 0.1, VD_CONFIRMATORY, &t[0]);
	CHECK(vd_decide(t, 1, &o) == 0 && t[0].tested && t[0].kind == VD_DIFFERENT && t[0].sign < 0 &&
	      near(t[0].e.p, 0.002833, 5e-7) && !strcmp(vd_word(&t[0], 1), "worse") && !strcmp(vd_word(&t[0], -1), "better") &&
	      !strcmp(vd_word(&t[0], 0), "changed"), "worse: p %g", t[0].e.p);
	/* one test: the corrected interval is the 95 % one, R's exp([-0.24598858, -0.07001142]) */
	CHECK(near(t[0].lo, exp(-0.24598858), 1e-7) && near(t[0].hi, exp(-0.07001142), 1e-7) && near(t[0].level, 0.95, 1e-12),
	      "interval [%g, %g] level %g", t[0].lo, t[0].hi, t[0].level);
	CHECK(vd_fails(&t[0], 1, 10) && !vd_fails(&t[0], 1, 20) && !vd_fails(&t[0], -1, 1), "fail-if-worse: -14.6 %%");

	/* centred: mean 0, 90 % interval +-0.07130053 (R, conf.level 0.9, /10): inside ln(1.08),
	 * not inside ln(1.05) */
	sleep_test(1.58, 0.1, VD_CONFIRMATORY, &t[0]);
	vd_decide(t, 1, &o);
	CHECK(t[0].kind == VD_UNDECIDED && isfinite(t[0].more_rounds) && t[0].more_rounds >= 1,
	      "margin 5 %%: undecided, %g more rounds", t[0].more_rounds);
	/* to equivalence: h = ln 1.05, n (t se / h)^2 with se 0.03889587, t = qt(0.95, 9) */
	{
		double need = 10 * pow(1.833113 * 0.03889587 / log(1.05), 2);

		CHECK(near(t[0].more_rounds, ceil(need) - 10, 1e-9), "more rounds %g want %g", t[0].more_rounds, ceil(need) - 10);
	}
	o.equiv_pct = 8;
	sleep_test(1.58, 0.1, VD_CONFIRMATORY, &t[0]);
	vd_decide(t, 1, &o);
	CHECK(t[0].kind == VD_EQUIVALENT && near(log(t[0].lo), -0.07130053, 1e-7) && near(log(t[0].hi), 0.07130053, 1e-7) &&
	      near(t[0].level, 0.90, 1e-12), "margin 8 %%: equivalent [%g, %g]", t[0].lo, t[0].hi);
	o.equiv_pct = 5;

	/* Holm over three: the corrected interval excludes 1 exactly when p_adj < 0.05 */
	sleep_test(0, 0.1, VD_CONFIRMATORY, &t[0]);     /* p 0.0028 */
	sleep_test(0.9, 0.1, VD_CONFIRMATORY, &t[1]);   /* p about 0.08 */
	sleep_test(1.2, 0.1, VD_CONFIRMATORY, &t[2]);
	vd_decide(t, 3, &o);
	for (int i = 0; i < 3; i++)
		CHECK((t[i].p_adj < 0.05) == (t[i].kind == VD_DIFFERENT) &&
		      (t[i].kind != VD_UNDECIDED || (t[i].lo < 1 && t[i].hi > 1)) &&
		      (t[i].kind != VD_DIFFERENT || t[i].hi < 1) && t[i].family_size == 3,
		      "test %d: p %g adj %g [%g, %g]", i, t[i].e.p, t[i].p_adj, t[i].lo, t[i].hi);
	CHECK(near(t[0].p_adj, 3 * t[0].e.p, 1e-12) && near(t[0].level, 1 - 0.05 / 3, 1e-12), "Holm's first: 3 p, a wider interval");
	/* the same three exploratory: BH, never stricter than Holm */
	for (int i = 0; i < 3; i++)
		t[i].family = VD_EXPLORATORY;
	sleep_test(0, 0.1, VD_EXPLORATORY, &t[0]);
	sleep_test(0.9, 0.1, VD_EXPLORATORY, &t[1]);
	sleep_test(1.2, 0.1, VD_EXPLORATORY, &t[2]);
	vd_decide(t, 3, &o);
	CHECK(t[0].kind == VD_DIFFERENT && !strcmp(vd_family_name(t[0].family), "exploratory"), "exploratory");

	/* no variation within either side: not tested */
	for (int i = 0; i < 10; i++) {
		a[i] = 4096;
		b[i] = i < 10 ? 4096 : 0;
	}
	vd_compare(a, 10, NULL, b, 10, NULL, true, VD_CONFIRMATORY, &t[0]);
	b[0] = 8192;
	for (int i = 0; i < 10; i++)
		b[i] = 8192;
	vd_compare(a, 10, NULL, b, 10, NULL, true, VD_CONFIRMATORY, &t[1]);
	vd_decide(t, 2, &o);
	CHECK(!t[0].tested && t[0].kind == VD_SAME_CONST && isnan(t[0].p_adj) &&
	      !strcmp(vd_word(&t[0], 1), "same (no variation)"), "constant and equal");
	CHECK(!t[1].tested && t[1].kind == VD_DETERMINISTIC && isnan(t[1].p_adj) && t[1].ratio == 2 &&
	      !strcmp(vd_word(&t[1], 1), "differs in every run (deterministic)") && !vd_fails(&t[1], -1, 1),
	      "constant and different");
	/* a single run per side: undecided, never a failure */
	a[0] = 100;
	b[0] = 10;
	vd_compare(a, 1, NULL, b, 1, NULL, true, VD_CONFIRMATORY, &t[0]);
	vd_decide(t, 1, &o);
	CHECK(!t[0].tested && t[0].kind == VD_UNDECIDED && near(t[0].ratio, 0.1, 1e-12) && !vd_fails(&t[0], 1, 5) &&
	      near(vd_pct(&t[0]), -90, 1e-9), "single runs: undecided");
	/* derived: shown, not tested */
	vd_compare(g2, 10, NULL, g1, 10, NULL, false, VD_FAM_NONE, &t[0]);
	vd_decide(t, 1, &o);
	CHECK(!t[0].tested && t[0].kind == VD_NOT_TESTED && near(t[0].ratio, -1.58, 1e-12), "derived");
	/* a value <= 0: the difference, not a ratio */
	vd_compare(g2, 10, NULL, g1, 10, NULL, true, VD_EXPLORATORY, &t[0]);
	CHECK(t[0].tested && !t[0].e.log && near(t[0].e.p, 0.07939, 5e-6), "non-positive: a difference");

	/* rounds: paired when complete (any order), unpaired and said when a round is missing */
	for (int i = 0; i < 10; i++) {
		a[i] = exp(g2[i]);
		ra[i] = (unsigned)i + 1;
		b[9 - i] = exp(g1[i]);
		rb[9 - i] = (unsigned)i + 1;
	}
	vd_compare(a, 10, ra, b, 10, rb, true, VD_CONFIRMATORY, &t[0]);
	CHECK(t[0].tested && t[0].e.paired && !t[0].incomplete && near(t[0].e.t, -4.0621, 5e-5), "paired by round");
	rb[3] = 42;
	vd_compare(a, 10, ra, b, 10, rb, true, VD_CONFIRMATORY, &t[0]);
	CHECK(t[0].tested && !t[0].e.paired && t[0].incomplete && near(t[0].e.t, -1.8608, 5e-5), "incomplete: Welch");
	b[2] = NAN;
	rb[3] = 7;
	vd_compare(a, 10, ra, b, 10, rb, true, VD_CONFIRMATORY, &t[0]);
	CHECK(t[0].tested && !t[0].e.paired && t[0].incomplete && t[0].e.n == 9, "a failed run: unpaired");

	/* a paired interaction: the per-round contrasts' one-sample t */
	{
		double c11[10], c21[10], c12[10], c22[10];
		const double *v[4] = { c11, c21, c12, c22 };
		const unsigned n[4] = { 10, 10, 10, 10 }, *r[4] = { ra, ra, ra, ra };

		for (int i = 0; i < 10; i++) {
			ra[i] = (unsigned)i;
			c11[i] = 100 * (1 + 0.01 * i);          /* a drift every cell shares */
			c21[i] = 50 * (1 + 0.01 * i);
			c12[i] = 100 * (1 + 0.01 * i);
			c22[i] = exp(g1[i] - g2[i]) * 50 * (1 + 0.01 * i);
		}
		vd_compare_interaction(v, n, r, true, VD_CONFIRMATORY, &t[0]);
		CHECK(t[0].tested && t[0].e.paired && t[0].e.log && near(t[0].e.t, -4.0621, 5e-5) &&
		      near(t[0].e.est, -1.58, 1e-12), "paired interaction: t %g est %g", t[0].e.t, t[0].e.est);
	}
}

/* --repeat auto's looks and their levels: the levels of every look add up to 0.05 (the union
 * bound), half of it at the first; a stop between looks uses the next look's level */
static void test_looks(void)
{
	static const struct {
		unsigned max, n, looks[6];
	} c[] = {
		{ 2, 0, { 0 } }, { 3, 1, { 3 } }, { 4, 2, { 3, 4 } }, { 12, 4, { 3, 5, 8, 12 } },
		{ 20, 5, { 3, 5, 8, 12, 20 } }, { 25, 6, { 3, 5, 8, 12, 20, 25 } },
	};

	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		unsigned looks[VD_MAX_LOOKS], n = vd_looks(c[i].max, looks);
		double sum = 0;

		CHECK(n == c[i].n && (n == 0 || !memcmp(looks, c[i].looks, n * sizeof(unsigned))), "looks for %u: %u",
		      c[i].max, n);
		for (unsigned k = 0; k < n; k++)
			sum += vd_look_alpha(n, k);
		CHECK(n == 0 || near(sum, 0.05, 1e-15), "levels for %u add up to %g", c[i].max, sum);
	}
	CHECK(vd_look_alpha(1, 0) == 0.05 && vd_look_alpha(5, 0) == 0.025 && vd_look_alpha(5, 1) == 0.00625 &&
	      vd_look_alpha(5, 4) == 0.00625 && vd_look_alpha(2, 1) == 0.025, "look levels");
	{
		unsigned looks[VD_MAX_LOOKS], n = vd_looks(12, looks);

		CHECK(vd_stop_alpha(looks, n, 0) == 0.025 && vd_stop_alpha(looks, n, 3) == 0.025 &&
		      near(vd_stop_alpha(looks, n, 4), 0.05 / 6, 1e-15) && near(vd_stop_alpha(looks, n, 12), 0.05 / 6, 1e-15) &&
		      near(vd_stop_alpha(looks, n, 40), 0.05 / 6, 1e-15), "stop levels");
	}
}

int main(void)
{
	test_quantiles();
	test_looks();
	test_welch_paired();
	test_corrections();
	test_verdicts();
	return check_done("test_verdict");
}
