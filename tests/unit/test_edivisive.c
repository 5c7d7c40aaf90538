/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/core/edivisive.c: Q against an independent implementation of Matteson and
   James's statistic (tests/unit/test_edivisive.c's table was computed by a direct Python
   transcription of the formula, every pair summed), the best split, the permutation p-value
   against exact enumeration of every permutation, bad input; then by simulation on log-normal
   series: a step at a known run is found there (+-1) in the right direction at CV 5-30 %, and
   the false-alarm rate on flat series (the share of series with any change reported) stays at
   or below sig = 5 % within the simulation's error. */
#include "core/edivisive.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

struct qref {
	unsigned m, tau;
	double alpha, y[10], q;
};

static const struct qref qrefs[] = {
	{ 6, 3, 1.0, { 1, 2, 3, 4, 5, 6 }, 5.0 },
	{ 6, 3, 1.0, { 0, 0, 0, 1, 1, 1 }, 3.0 },
	{ 6, 2, 1.0, { 0, 0, 0, 1, 1, 1 }, 1.333333333333 },
	{ 8, 4, 1.0, { 10, 11, 9, 10, 20, 21, 19, 20 }, 36.0 },
	{ 8, 5, 1.0, { 10, 11, 9, 10, 20, 21, 19, 20 }, 19.375 },
	{ 8, 4, 0.5, { 10, 11, 9, 10, 20, 21, 19, 20 }, 9.023697757330 },
	{ 9, 5, 1.0, { 3.1, 2.7, 3.3, 2.9, 3.0, 1.2, 1.4, 0.9, 1.1 }, 7.007407407407 },
	{ 9, 5, 1.5, { 3.1, 2.7, 3.3, 2.9, 3.0, 1.2, 1.4, 0.9, 1.1 }, 10.579511111489 },
};

/* p by enumeration of all m! orders (the largest best-split Q, min_size 2, at least the observed) */
struct pref {
	unsigned m;
	double y[8], q, p;
};

static const struct pref prefs[] = {
	{ 6, { 1, 2, 3, 10, 11, 12 }, 23.0, 0.1 },
	{ 7, { 1, 5, 2, 6, 3, 7, 4 }, 1.142857143, 0.644444444444 },
	{ 6, { 1.0, 1.1, 0.9, 1.05, 2.0, 2.1 }, 2.488888889, 0.133333333333 },
};

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

/* n log values, CV cv, the values from `at` on times factor (1: flat). Returns the number of
   changes found; *hit: one at at +- 1 with the later side lower (factor < 1) or higher. */
static unsigned series(unsigned n, double cv, unsigned at, double factor, uint64_t seed, bool *hit)
{
	double y[64], sd = sqrt(log(1 + cv * cv));
	struct ediv_opts o;
	struct ediv_change ch[EDIV_MAX_CHANGES];
	unsigned nch = 0;

	for (unsigned i = 0; i < n; i++)
		y[i] = log(100) + sd * normal() + (i >= at ? log(factor) : 0);
	ediv_defaults(&o, seed);
	if (ediv_detect(y, n, &o, ch, EDIV_MAX_CHANGES, &nch))
		return 0;
	*hit = false;
	for (unsigned k = 0; k < nch; k++) {
		double before = 0, after = 0;
		unsigned lo = k ? ch[k - 1].at : 0, hi = k + 1 < nch ? ch[k + 1].at : n;

		for (unsigned i = lo; i < ch[k].at; i++)
			before += y[i] / (ch[k].at - lo);
		for (unsigned i = ch[k].at; i < hi; i++)
			after += y[i] / (hi - ch[k].at);
		if (ch[k].at + 1 >= at && ch[k].at <= at + 1 && (factor < 1 ? after < before : after > before))
			*hit = true;
	}
	return nch;
}

int main(void)
{
	struct ediv_opts o;
	struct ediv_change ch[EDIV_MAX_CHANGES];
	unsigned tau, nch;
	double q;

	for (size_t i = 0; i < sizeof(qrefs) / sizeof(qrefs[0]); i++) {
		const struct qref *r = &qrefs[i];

		q = ediv_q(r->y, r->m, r->tau, r->alpha);
		CHECK(fabs(q - r->q) < 1e-9, "Q ref %zu: %.12f, want %.12f", i, q, r->q);
	}
	CHECK(ediv_best(qrefs[3].y, 8, 3, 1.0, &tau, &q) == 0 && tau == 4 && fabs(q - 36.0) < 1e-9,
	      "best split of ref 3: tau %u Q %.9f", tau, q);
	CHECK(ediv_best(qrefs[6].y, 9, 3, 1.0, &tau, &q) == 0 && tau == 5 && fabs(q - 7.007407407407) < 1e-9,
	      "best split of ref 6: tau %u Q %.9f", tau, q);
	CHECK(ediv_best(qrefs[0].y, 5, 3, 1.0, &tau, &q) == -EINVAL, "too short to split");
	CHECK(isnan(ediv_q(qrefs[0].y, 6, 1, 1.0)), "tau 1 has no Q");

	/* the permutation p against enumeration: 20000 shuffles, binomial sd <= 0.0036 */
	for (size_t i = 0; i < sizeof(prefs) / sizeof(prefs[0]); i++) {
		const struct pref *r = &prefs[i];

		ediv_defaults(&o, 42 + i);
		o.min_size = 2;
		o.perms = 20000;
		o.sig = 0.999;
		CHECK(ediv_detect(r->y, r->m, &o, ch, 1, &nch) == 0 && nch == 1, "p ref %zu: no change reported", i);
		if (nch == 1) {
			CHECK(fabs(ch[0].q - r->q) < 1e-6, "p ref %zu: Q %.9f, want %.9f", i, ch[0].q, r->q);
			CHECK(fabs(ch[0].p - r->p) < 0.015, "p ref %zu: p %.4f, exact %.4f", i, ch[0].p, r->p);
		}
	}

	/* bad input, nothing to split */
	ediv_defaults(&o, 1);
	CHECK(ediv_detect((double[]){ 1, 2, NAN, 4, 5, 6 }, 6, &o, ch, 4, &nch) == -EINVAL, "NaN refused");
	CHECK(ediv_detect(qrefs[0].y, 5, &o, ch, 4, &nch) == 0 && nch == 0, "5 values: nothing to split");
	CHECK(ediv_detect((double[]){ 7, 7, 7, 7, 7, 7, 7, 7 }, 8, &o, ch, 4, &nch) == 0 && nch == 0, "constant");
	o.min_size = 1;
	CHECK(ediv_detect(qrefs[0].y, 6, &o, ch, 4, &nch) == -EINVAL, "min_size 1 refused");
	ediv_defaults(&o, 1);
	o.alpha = 2;
	CHECK(ediv_detect(qrefs[0].y, 6, &o, ch, 4, &nch) == -EINVAL, "alpha 2 refused");

	/* two steps, clean: both found where they are */
	{
		double y[24];

		for (unsigned i = 0; i < 24; i++)
			y[i] = (i < 8 ? 10 : i < 16 ? 14 : 9) + 0.1 * ((i * 7) % 5);
		ediv_defaults(&o, 3);
		CHECK(ediv_detect(y, 24, &o, ch, EDIV_MAX_CHANGES, &nch) == 0 && nch == 2 && ch[0].at == 8 && ch[1].at == 16,
		      "two steps: %u changes, at %u, %u", nch, nch ? ch[0].at : 0, nch > 1 ? ch[1].at : 0);
	}

	/* a step found at the right run, right direction: 200 series per noise level, 10 + 10 runs,
	   the step about 3 noise sd (ln(1 + CV^2)^0.5) */
	{
		static const struct { double cv, factor, min_hit; } pw[] = {
			{ 0.05, 0.86, 0.90 }, { 0.10, 0.74, 0.90 }, { 0.20, 0.55, 0.90 }, { 0.30, 0.42, 0.90 },
			{ 0.10, 1.35, 0.90 },
		};

		for (size_t k = 0; k < sizeof(pw) / sizeof(pw[0]); k++) {
			unsigned hits = 0, sims = 200;

			for (unsigned s = 0; s < sims; s++) {
				bool hit = false;

				series(20, pw[k].cv, 10, pw[k].factor, 1000 + s, &hit);
				hits += hit;
			}
			printf("step x%.2f at run 10 of 20, CV %.0f %%: found (+-1, right direction) in %.1f %% of %u series\n",
			       pw[k].factor, pw[k].cv * 100, 100.0 * hits / sims, sims);
			CHECK((double)hits / sims >= pw[k].min_hit, "CV %.2f x%.2f: found in %u of %u", pw[k].cv, pw[k].factor,
			      hits, sims);
		}
	}

	/* the false-alarm rate on flat series: 1000 series per length and noise; binomial sd at
	   5 %: 0.69 %, so 6.5 % is 2.2 sd above the bound */
	{
		static const struct { unsigned n; double cv; } fa[] = { { 8, 0.05 }, { 20, 0.10 }, { 20, 0.30 }, { 40, 0.05 } };

		for (size_t k = 0; k < sizeof(fa) / sizeof(fa[0]); k++) {
			unsigned alarms = 0, sims = 1000;

			for (unsigned s = 0; s < sims; s++) {
				bool hit;

				alarms += series(fa[k].n, fa[k].cv, fa[k].n, 1.0, 77 + s, &hit) > 0;
			}
			printf("flat series of %u runs, CV %.0f %%: false alarms in %.1f %% of %u (sig 5 %%)\n", fa[k].n,
			       fa[k].cv * 100, 100.0 * alarms / sims, sims);
			CHECK((double)alarms / sims <= 0.065, "false-alarm rate %.3f of %u runs", (double)alarms / sims, fa[k].n);
		}
	}
	return check_done("test_edivisive");
}
