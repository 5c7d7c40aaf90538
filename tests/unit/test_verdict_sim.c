/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Simulation of core/verdict's rules on synthetic experiments (seeded, a few seconds): log-normal
 * noise at CV 5-50 %, a slow drift across rounds that every cell shares, one outlier run, 2 cells
 * and 2x2 designs, 3-10 rounds, paired by round as the runner's interleaved design is.
 * Asserted: the confirmatory family's family-wise false-positive rate on A/A (and on the
 * interactions of a 2x2 whose effects multiply) stays <= 7 % (5 % plus the binomial margin of
 * 2000 experiments); the exploratory family's false discovery rate <= 7 %; TOST never calls a
 * 10 % effect equivalent within 5 % more than 5 % (+ margin) of the time; --repeat auto's
 * stopping rule (looks at 3, 5, 8, 12, 20 rounds, alpha / 2 at the first, alpha / 8 at each later) keeps the A/A false-positive
 * rate <= 7 % under optional stopping, where looking at every round at the full alpha does not
 * (printed: about 25 %). Power and rounds used are printed, not asserted. The t's limit is
 * asserted too: one run of every round 2x slower (either cell) is decided > 15 % of the time at 3
 * rounds, <= 7 % at 10 (the figures fsbench(1) STATISTICS gives). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/verdict.h"

#define NEXP 2000
#define MAXN 20

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	/* xorshift64*: plenty for a simulation, and the same numbers on every machine */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal(void)
{
	double u = uniform(), v = uniform();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* log-normal noise of coefficient of variation cv around 1 */
static double noise(double cv)
{
	double s = sqrt(log1p(cv * cv));

	return exp(s * normal() - s * s / 2);
}

struct scen {
	double cv;
	unsigned n;
	bool drift, outlier;
	double humps; /* the share of rounds where one run (either cell) is 2x slower */
};

/* one cell's n runs: mean mu, shared round factors, and maybe one outlier (x1.5) */
static void cell(double *v, unsigned n, double mu, double cv, const double *round, int outlier_at)
{
	for (unsigned r = 0; r < n; r++)
		v[r] = mu * round[r] * noise(cv) * ((int)r == outlier_at ? 1.5 : 1);
}

static void rounds(double *round, unsigned n, bool drift)
{
	/* a slow drift: the machine gets up to 20 % slower over the rounds, plus a noisy round */
	for (unsigned r = 0; r < n; r++)
		round[r] = drift ? (1 - 0.2 * r / (n > 1 ? n - 1 : 1)) * noise(0.1) : 1;
}

static const unsigned rr[MAXN] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 };

/* A/A, 2 cells, two primary figures (fs_mark's files/sec and aggregate): how often any is decided
 * better or worse; and a known effect: how often decided */
static double aa_fwer(const struct scen *s, double effect, double *power)
{
	unsigned fp = 0, hit = 0;
	struct vd_opts o = { VD_ALPHA, VD_EQUIV_PCT };

	for (unsigned e = 0; e < NEXP; e++) {
		double round[MAXN], a[2][MAXN], b[2][MAXN];
		struct vd_test t[2];
		bool any = false;
		int out = s->outlier ? (int)(uniform() * s->n) : -1, outcell = uniform() < 0.5;

		double slow[2][MAXN];

		rounds(round, s->n, s->drift);
		/* a disturbance hits a whole run: both its figures */
		for (unsigned r = 0; r < s->n; r++) {
			bool slowed = s->humps > 0 && uniform() < s->humps, which = slowed && uniform() < 0.5;

			slow[0][r] = slowed && !which ? 0.5 : 1;
			slow[1][r] = slowed && which ? 0.5 : 1;
		}
		for (int f = 0; f < 2; f++) {
			cell(a[f], s->n, 100, s->cv, round, outcell == 0 ? out : -1);
			cell(b[f], s->n, 100 * effect, s->cv, round, outcell == 1 ? out : -1);
			for (unsigned r = 0; r < s->n; r++) {
				a[f][r] *= slow[0][r];
				b[f][r] *= slow[1][r];
			}
			vd_compare(a[f], s->n, rr, b[f], s->n, rr, true, VD_CONFIRMATORY, &t[f]);
		}
		vd_decide(t, 2, &o);
		for (int f = 0; f < 2; f++)
			any |= t[f].kind == VD_DIFFERENT;
		if (effect == 1)
			fp += any;
		else
			hit += t[0].kind == VD_DIFFERENT && t[0].sign == (effect > 1 ? 1 : -1);
	}
	if (power)
		*power = (double)hit / NEXP;
	return (double)fp / NEXP;
}

/* 2x2 whose effects multiply (ratio 0.5 on A, 0.8 on B: no interaction on the log scale), or
 * with an interaction (B's effect x ia at A2): confirmatory family of 4 effects + 1 interaction;
 * how often the interaction is decided "yes" */
static double ia_rate(const struct scen *s, double ia)
{
	unsigned yes = 0;
	struct vd_opts o = { VD_ALPHA, VD_EQUIV_PCT };

	for (unsigned e = 0; e < NEXP; e++) {
		double round[MAXN], v[4][MAXN];
		static const double mu[4] = { 100, 50, 80, 40 };
		struct vd_test t[5];
		const double *vv[4] = { v[0], v[1], v[2], v[3] };
		const unsigned n[4] = { s->n, s->n, s->n, s->n }, *r[4] = { rr, rr, rr, rr };
		int out = s->outlier ? (int)(uniform() * s->n) : -1, outcell = (int)(uniform() * 4);

		rounds(round, s->n, s->drift);
		for (int c = 0; c < 4; c++)
			cell(v[c], s->n, mu[c] * (c == 3 ? ia : 1), s->cv, round, c == outcell ? out : -1);
		vd_compare(v[0], s->n, rr, v[1], s->n, rr, true, VD_CONFIRMATORY, &t[0]);
		vd_compare(v[2], s->n, rr, v[3], s->n, rr, true, VD_CONFIRMATORY, &t[1]);
		vd_compare(v[0], s->n, rr, v[2], s->n, rr, true, VD_CONFIRMATORY, &t[2]);
		vd_compare(v[1], s->n, rr, v[3], s->n, rr, true, VD_CONFIRMATORY, &t[3]);
		vd_compare_interaction(vv, n, r, true, VD_CONFIRMATORY, &t[4]);
		vd_decide(t, 5, &o);
		yes += t[4].kind == VD_DIFFERENT;
	}
	return (double)yes / NEXP;
}

/* exploratory: 20 figures, the first 5 with a real effect (x1.3), 15 without; BH within the
 * family. The false discovery proportion averaged over experiments. */
static double fdr(const struct scen *s, double *power)
{
	double sum = 0;
	unsigned hits = 0;
	struct vd_opts o = { VD_ALPHA, VD_EQUIV_PCT };

	for (unsigned e = 0; e < NEXP / 2; e++) {
		double round[MAXN], a[MAXN], b[MAXN];
		struct vd_test t[20];
		unsigned disc = 0, fals = 0;

		rounds(round, s->n, s->drift);
		for (int f = 0; f < 20; f++) {
			cell(a, s->n, 100, s->cv, round, -1);
			cell(b, s->n, f < 5 ? 130 : 100, s->cv, round, -1);
			vd_compare(a, s->n, rr, b, s->n, rr, true, VD_EXPLORATORY, &t[f]);
		}
		vd_decide(t, 20, &o);
		for (int f = 0; f < 20; f++)
			if (t[f].kind == VD_DIFFERENT) {
				disc++;
				fals += f >= 5;
				hits += f < 5;
			}
		sum += disc ? (double)fals / disc : 0;
	}
	*power = hits / (5.0 * NEXP / 2);
	return sum / (NEXP / 2);
}

/* paired by round against unpaired (Welch on the logs) on the same data: power for effect */
static void pair_vs_unpaired(const struct scen *s, double effect, double *pp, double *pu)
{
	unsigned hp = 0, hu = 0;
	struct vd_opts o = { VD_ALPHA, VD_EQUIV_PCT };

	for (unsigned e = 0; e < NEXP / 2; e++) {
		double round[MAXN], a[MAXN], b[MAXN];
		struct vd_test t[2];

		rounds(round, s->n, s->drift);
		cell(a, s->n, 100, s->cv, round, -1);
		cell(b, s->n, 100 * effect, s->cv, round, -1);
		vd_compare(a, s->n, rr, b, s->n, rr, true, VD_CONFIRMATORY, &t[0]);
		vd_compare(a, s->n, NULL, b, s->n, NULL, true, VD_EXPLORATORY, &t[1]);
		vd_decide(t, 2, &o);
		hp += t[0].kind == VD_DIFFERENT;
		hu += t[1].kind == VD_DIFFERENT;
	}
	*pp = hp / (NEXP / 2.0);
	*pu = hu / (NEXP / 2.0);
}

/* --repeat auto: 2 cells, 2 primary figures, rounds added until both are decided at the looks
 * vd_looks gives for max 20 (each at vd_look_alpha), or 20 rounds. Returns how often a figure was
 * decided better or worse (A/A: a false positive); *rounds the mean rounds used. naive: every
 * round a look at the full alpha (what optional stopping must not do). */
static bool even_split; /* the looks at alpha / nlooks each, for the comparison table */

static double auto_rule(const struct scen *s, double effect, bool naive, double *mean_rounds)
{
	unsigned looks[VD_MAX_LOOKS], nl = vd_looks(20, looks), dec = 0, used = 0;
	struct vd_opts o = { VD_ALPHA, VD_EQUIV_PCT };

	for (unsigned e = 0; e < NEXP / 2; e++) {
		double round[MAXN], a[2][MAXN], b[2][MAXN];
		unsigned k = 0, n = 20;

		rounds(round, 20, s->drift);
		for (int f = 0; f < 2; f++) {
			cell(a[f], 20, 100, s->cv, round, -1);
			cell(b[f], 20, 100 * effect, s->cv, round, -1);
		}
		for (unsigned r = VD_MIN_ROUNDS; r <= 20; r++) {
			struct vd_test t[2];
			bool all = true, any = false;

			if (!naive && (k >= nl || looks[k] != r))
				continue;
			if (!naive)
				o.alpha = even_split ? VD_ALPHA / nl : vd_look_alpha(nl, k);
			k++;
			for (int f = 0; f < 2; f++)
				vd_compare(a[f], r, rr, b[f], r, rr, true, VD_CONFIRMATORY, &t[f]);
			vd_decide(t, 2, &o);
			for (int f = 0; f < 2; f++) {
				all &= t[f].kind == VD_DIFFERENT || t[f].kind == VD_EQUIVALENT;
				any |= t[f].kind == VD_DIFFERENT;
			}
			/* naive: stops at the first "different", as a user watching p-values would */
			if (naive ? any || r == 20 : all || r == 20) {
				dec += any;
				n = r;
				break;
			}
		}
		used += n;
	}
	*mean_rounds = used / (NEXP / 2.0);
	return dec / (NEXP / 2.0);
}

/* the share of --repeat auto experiments that stop decided at the first look (3 rounds), and
 * the mean rounds used */
static double first_look(const struct scen *s, double effect, double *mean_rounds)
{
	unsigned looks[VD_MAX_LOOKS], nl = vd_looks(20, looks), at3 = 0, used = 0;

	for (unsigned e = 0; e < NEXP / 2; e++) {
		double round[MAXN], a[2][MAXN], b[2][MAXN];
		unsigned n = 20;

		rounds(round, 20, s->drift);
		for (int f = 0; f < 2; f++) {
			cell(a[f], 20, 100, s->cv, round, -1);
			cell(b[f], 20, 100 * effect, s->cv, round, -1);
		}
		for (unsigned k = 0; k < nl; k++) {
			struct vd_opts o = { even_split ? VD_ALPHA / nl : vd_look_alpha(nl, k), VD_EQUIV_PCT };
			struct vd_test t[2];
			bool all = true;

			for (int f = 0; f < 2; f++)
				vd_compare(a[f], looks[k], rr, b[f], looks[k], rr, true, VD_CONFIRMATORY, &t[f]);
			vd_decide(t, 2, &o);
			for (int f = 0; f < 2; f++)
				all &= t[f].kind == VD_DIFFERENT || t[f].kind == VD_EQUIVALENT;
			if (all || k == nl - 1) {
				at3 += all && k == 0;
				n = looks[k];
				break;
			}
		}
		used += n;
	}
	*mean_rounds = used / (NEXP / 2.0);
	return at3 / (NEXP / 2.0);
}

/* TOST: a real 10 % effect called equivalent within 5 % */
static double false_equiv(const struct scen *s)
{
	unsigned eq = 0;
	struct vd_opts o = { VD_ALPHA, VD_EQUIV_PCT };

	for (unsigned e = 0; e < NEXP; e++) {
		double round[MAXN], a[MAXN], b[MAXN];
		struct vd_test t;

		rounds(round, s->n, s->drift);
		cell(a, s->n, 100, s->cv, round, -1);
		cell(b, s->n, 110, s->cv, round, -1);
		vd_compare(a, s->n, rr, b, s->n, rr, true, VD_CONFIRMATORY, &t);
		vd_decide(&t, 1, &o);
		eq += t.kind == VD_EQUIVALENT;
	}
	return (double)eq / NEXP;
}

int main(void)
{
	static const double cvs[] = { 0.05, 0.2, 0.5 };
	static const unsigned ns[] = { 3, 5, 10 };
	/* 5 % plus about three binomial standard errors at 2000 experiments (0.5 %), rounded up */
	const double limit = 0.07;

	printf("A/A (2 cells, 2 primary figures, paired by round): family-wise false positives; power for x0.5 and x0.8\n");
	printf("%6s %4s %6s %8s %8s %9s %9s\n", "cv", "n", "drift", "outlier", "FWER", "pow x0.5", "pow x0.8");
	for (unsigned i = 0; i < 3; i++)
		for (unsigned j = 0; j < 3; j++)
			for (int k = 0; k < 2; k++) {
				struct scen s = { cvs[i], ns[j], k == 1, k == 1, 0 };
				double p5, p8, fw = aa_fwer(&s, 1, NULL);

				aa_fwer(&s, 0.5, &p5);
				aa_fwer(&s, 0.8, &p8);
				printf("%5.0f%% %4u %6s %8s %7.2f%% %8.1f%% %8.1f%%\n", s.cv * 100, s.n, s.drift ? "yes" : "no",
				       s.outlier ? "yes" : "no", fw * 100, p5 * 100, p8 * 100);
				CHECK(fw <= limit, "A/A cv %g n %u drift %d: FWER %.3f > %.2f", s.cv, s.n, k, fw, limit);
			}

	/* The t's limit, asserted so that fsbench(1) STATISTICS stays true: noise in two humps (a
	 * host whose steal bursts slow one run of most rounds by about the same factor) looks like an
	 * effect when the few rounds fall on one side. Many rounds bring the rate back. */
	printf("\nA/A with one run of a share of the rounds 2x slower (either cell), cv 5%%: FWER\n");
	printf("%6s %4s %8s\n", "share", "n", "FWER");
	for (unsigned h = 0; h < 2; h++)
		for (unsigned j = 0; j < 4; j++) {
			static const double shares[] = { 0.5, 1.0 };
			static const unsigned hn[] = { 3, 4, 6, 10 };
			const unsigned n = hn[j];
			struct scen s = { 0.05, n, false, false, shares[h] };
			double fw = aa_fwer(&s, 1, NULL);

			printf("%5.0f%% %4u %7.2f%%\n", s.humps * 100, n, fw * 100);
			if (h == 1 && n == 3)
				CHECK(fw > 0.15,
				      "two humps at 3 rounds: FWER %.3f, not the limit STATISTICS states",
				      fw);
			if (n == 10)
				CHECK(fw <= 0.07, "two humps (share %g) at 10 rounds: FWER %.3f > 0.07",
				      s.humps, fw);
		}

	printf("\n2x2, confirmatory family of 4 effects + 1 interaction: interaction decided 'yes'\n");
	printf("%6s %4s %14s %16s\n", "cv", "n", "none (false)", "x0.7 (power)");
	for (unsigned i = 0; i < 3; i++)
		for (unsigned j = 0; j < 3; j++) {
			struct scen s = { cvs[i], ns[j], true, j == 1, 0 };
			double f0 = ia_rate(&s, 1), f1 = ia_rate(&s, 0.7);

			printf("%5.0f%% %4u %13.2f%% %15.1f%%\n", s.cv * 100, s.n, f0 * 100, f1 * 100);
			CHECK(f0 <= limit, "2x2 without interaction cv %g n %u: 'yes' %.3f > %.2f", s.cv, s.n, f0, limit);
		}

	printf("\nexploratory: 20 figures, 5 with x1.3, BH: false discovery rate, power\n");
	for (unsigned i = 0; i < 3; i++)
		for (unsigned j = 0; j < 3; j += 2) {
			struct scen s = { cvs[i], ns[j], true, false, 0 };
			double pw, q = fdr(&s, &pw);

			printf("%5.0f%% %4u FDR %5.2f%% power %5.1f%%\n", s.cv * 100, s.n, q * 100, pw * 100);
			CHECK(q <= limit, "FDR cv %g n %u: %.3f > %.2f", s.cv, s.n, q, limit);
		}

	printf("\npaired by round against unpaired, power for x0.8 (each alone in its family)\n");
	for (unsigned i = 0; i < 2; i++)
		for (unsigned j = 0; j < 2; j++)
			for (int k = 0; k < 2; k++) {
				struct scen s = { cvs[i], ns[j], k == 1, false, 0 };
				double pp, pu;

				pair_vs_unpaired(&s, 0.8, &pp, &pu);
				printf("%5.0f%% %4u drift %-3s paired %5.1f%% unpaired %5.1f%%\n", s.cv * 100, s.n, k ? "yes" : "no",
				       pp * 100, pu * 100);
			}

	printf("\n--repeat auto (looks at 3, 5, 8, 12, 20 rounds, alpha / 2 at the first, alpha / 8 at each other):\n"
	       "A/A false positives against\n"
	       "a naive look at every round; decided and mean rounds used for x0.5 and x0.8\n");
	for (unsigned i = 0; i < 3; i++) {
		struct scen s = { cvs[i], 0, true, false, 0 };
		double r0, rn, r5, r8, f0 = auto_rule(&s, 1, false, &r0), fn = auto_rule(&s, 1, true, &rn);
		double d5 = auto_rule(&s, 0.5, false, &r5), d8 = auto_rule(&s, 0.8, false, &r8);

		printf("%5.0f%% A/A %5.2f%% (naive %5.2f%%), %4.1f rounds; x0.5 %5.1f%% in %4.1f; x0.8 %5.1f%% in %4.1f\n",
		       s.cv * 100, f0 * 100, fn * 100, r0, d5 * 100, r5, d8 * 100, r8);
		CHECK(f0 <= limit, "--repeat auto A/A cv %g: %.3f > %.2f", s.cv, f0, limit);
	}
	/* why half the level goes to the first look: large effects decided at 3 rounds more often,
	 * for a little more rounds on small ones */
	printf("\n--repeat auto, the weighted looks against alpha / 5 at each: decided at the first look (3\n"
	       "rounds) and mean rounds used\n");
	for (unsigned i = 0; i < 3; i++) {
		struct scen s = { cvs[i], 0, true, false, 0 };
		static const double eff[] = { 0.1, 0.25, 0.5, 0.8 };

		printf("%5.0f%%", s.cv * 100);
		for (unsigned e = 0; e < 4; e++) {
			double rw, re, at3w, at3e;

			even_split = false;
			at3w = first_look(&s, eff[e], &rw);
			even_split = true;
			at3e = first_look(&s, eff[e], &re);
			printf("  x%-4g %3.0f%%/%3.0f%% %4.1f/%4.1f", eff[e], at3w * 100, at3e * 100, rw, re);
		}
		even_split = false;
		printf("\n");
	}
	printf("(each: weighted/even, %% decided at 3 rounds, then mean rounds)\n");

	printf("\nTOST: a real +10 %% effect called equivalent within 5 %%\n");
	for (unsigned i = 0; i < 2; i++)
		for (unsigned j = 0; j < 3; j++) {
			struct scen s = { cvs[i], ns[j], true, false, 0 };
			double q = false_equiv(&s);

			printf("%5.0f%% %4u %5.2f%%\n", s.cv * 100, s.n, q * 100);
			CHECK(q <= limit, "false equivalence cv %g n %u: %.3f", s.cv, s.n, q);
		}
	return check_done("test_verdict_sim");
}
