/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/core/drift.c: Kendall's S and its exact p against enumeration of every
   permutation and R's cor.test(x, y, method = "kendall") (exact for n < 50 without ties), the
   Theil-Sen slope on log values, bad input; then by simulation, runs without drift (log-normal
   noise, CV 5-50 %): the false-positive rate at alpha 0.05 stays at or below 5 %; and the power
   against a steady drift is reported. */
#include "core/drift.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"

struct ref {
	unsigned n;
	double v[8];
	long s;
	double tau, p;           /* p: exact enumeration (R: cor.test ... method = "kendall") */
};

static const struct ref refs[] = {
	/* R: cor.test(1:6, c(1,3,2,5,4,6), method = "kendall"): T = 13, p-value = 0.05556, tau 0.7333 */
	{ 6, { 1, 3, 2, 5, 4, 6 }, 11, 0.733333333, 0.0555555556 },
	{ 5, { 1, 2, 3, 4, 5 }, 10, 1.0, 0.0166666667 },
	{ 5, { 5, 4, 3, 2, 1 }, -10, -1.0, 0.0166666667 },
	{ 4, { 1, 2, 3, 4 }, 6, 1.0, 0.0833333333 },
	{ 3, { 3, 1, 2 }, -1, -0.333333333, 1.0 },
	{ 7, { 2.0, 1.5, 3.1, 2.9, 4.2, 3.8, 5.0 }, 15, 0.714285714, 0.0301587302 },
	{ 8, { 10, 12, 9, 14, 13, 15, 11, 16 }, 14, 0.5, 0.1086805556 },
	{ 3, { 7, 7, 7 }, 0, 0, 1.0 },
};

/* splitmix64 and Box-Muller: the same stream on every machine */
static uint64_t rng = 0x5eed;
static double unif(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif());
}

/* share of sims where the test says p < 0.05 */
static double rate(unsigned n, double cv, double drift_per_run, unsigned sims)
{
	double sd = sqrt(log(1 + cv * cv)), v[64];
	unsigned hits = 0;

	for (unsigned k = 0; k < sims; k++) {
		struct drift d;

		for (unsigned i = 0; i < n; i++)
			v[i] = 100 * exp(sd * normal() + log1p(drift_per_run) * i);
		if (drift_test(v, n, &d) == 0 && d.p < 0.05)
			hits++;
	}
	return (double)hits / sims;
}

int main(void)
{
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		const struct ref *r = &refs[i];
		struct drift d;

		CHECK(drift_test(r->v, r->n, &d) == 0, "ref %zu: test failed", i);
		CHECK(d.s == r->s, "ref %zu: S %ld, want %ld", i, d.s, r->s);
		CHECK(fabs(d.tau - r->tau) < 1e-6, "ref %zu: tau %.6f, want %.6f", i, d.tau, r->tau);
		CHECK(fabs(d.p - r->p) < 1e-8, "ref %zu: p %.10f, want %.10f", i, d.p, r->p);
	}
	/* exact enumeration, larger n: perfect order, and S = 40 of 20 runs; S = 300 of 50 runs */
	CHECK(fabs(drift_kendall_p(10, 45) / 5.511463844797178e-07 - 1) < 1e-9, "n 10 monotone: %g",
	      drift_kendall_p(10, 45));
	CHECK(fabs(drift_kendall_p(20, 40) - 0.20862839781386738) < 1e-9, "n 20 S 40: %.12f", drift_kendall_p(20, 40));
	CHECK(fabs(drift_kendall_p(50, 300) - 0.011570156422960377) < 1e-9, "n 50 S 300: %.12f",
	      drift_kendall_p(50, 300));
	/* the normal approximation beyond DRIFT_EXACT_MAX agrees with the exact tail where they meet */
	{
		double var = 61.0 * 60 * (2 * 61 + 5) / 18, z = (400.0 - 1) / sqrt(var);

		CHECK(fabs(drift_kendall_p(61, 400) - erfc(z / sqrt(2))) < 1e-12, "n 61: normal approximation");
		var = 60.0 * 59 * (2 * 60 + 5) / 18;
		z = (400.0 - 1) / sqrt(var);
		CHECK(fabs(drift_kendall_p(60, 400) / erfc(z / sqrt(2)) - 1) < 0.1, "n 60: exact %.5f, normal %.5f",
		      drift_kendall_p(60, 400), erfc(z / sqrt(2)));
	}
	/* Theil-Sen on log values: the median pairwise slope 0.152715 per run (exact enumeration) */
	{
		struct drift d;

		CHECK(drift_test(refs[5].v, 7, &d) == 0, "slope: test");
		CHECK(fabs(d.slope_pct - 16.499305075) < 1e-6, "slope %.9f %% per run", d.slope_pct);
		CHECK(fabs(d.total_pct - 150.0) < 1e-6, "first to last %.9f %%", d.total_pct);
	}
	/* one outlier barely moves the slope: 100, 101, ..., 109 with run 5 at 1000 */
	{
		double v[10];
		struct drift d;

		for (int i = 0; i < 10; i++)
			v[i] = 100 + i;
		v[5] = 1000;
		CHECK(drift_test(v, 10, &d) == 0 && fabs(d.slope_pct - 0.95) < 0.2, "outlier: slope %.3f %%", d.slope_pct);
	}
	/* bad input */
	{
		const double zero[3] = { 1, 0, 2 }, neg[3] = { 1, -1, 2 }, nan3[3] = { 1, NAN, 2 }, two[2] = { 1, 2 };
		struct drift d;

		CHECK(drift_test(zero, 3, &d) == -EDOM, "a zero");
		CHECK(drift_test(neg, 3, &d) == -EDOM, "a negative value");
		CHECK(drift_test(nan3, 3, &d) == -EDOM, "a NaN");
		CHECK(drift_test(two, 2, &d) == -EINVAL, "two runs");
	}
	/* no drift: false positives at alpha 0.05, 20000 experiments each (standard error 0.15 %) */
	{
		static const unsigned ns[] = { 5, 6, 8, 10, 20, 30 };
		static const double cvs[] = { 0.05, 0.5 };

		for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
			for (size_t b = 0; b < 2; b++) {
				double fp = rate(ns[a], cvs[b], 0, 20000);

				printf("no drift, n %2u, CV %2.0f %%: false positives %.2f %%\n", ns[a], cvs[b] * 100, fp * 100);
				CHECK(fp <= 0.055, "n %u CV %.2f: false-positive rate %.4f above 5 %%", ns[a], cvs[b], fp);
			}
	}
	/* power, reported; a 3 % per run drift under 5 % noise over 10 runs is found */
	{
		double pw = rate(10, 0.05, 0.03, 5000);

		printf("drift 3 %% per run, CV 5 %%, n 10: found in %.1f %%\n", pw * 100);
		printf("drift 1 %% per run, CV 5 %%, n 10: found in %.1f %%\n", rate(10, 0.05, 0.01, 5000) * 100);
		printf("drift 3 %% per run, CV 20 %%, n 6: found in %.1f %%\n", rate(6, 0.20, 0.03, 5000) * 100);
		CHECK(pw >= 0.9, "power %.3f", pw);
	}
	return check_done("test_drift");
}
