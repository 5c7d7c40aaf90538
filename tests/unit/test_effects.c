/* Unit tests for core/effects: which cells are compared (pairs one axis apart, the earlier value
 * the baseline; 2x2 squares for interactions) in full, partial and 2x3 designs; the numbers are
 * core/stats' own (Welch, interaction) and one Holm family spans effects and interactions;
 * verdicts by direction. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/effects.h"

static int close_rel(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b) || (b == 0 && fabs(a) < rel);
}

static unsigned count(const struct eff_result *r, enum eff_kind k)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->nt; i++)
		n += r->t[i].kind == k;
	return n;
}

int main(void)
{
	/* fs {ext4, btrfs} x toggle {off, on}; cells in an order that is not the axes' */
	static const unsigned cv[4 * 2] = { 1, 1, 0, 0, 1, 0, 0, 1 };   /* btrfs/on ext4/off btrfs/off ext4/on */
	static const double rate[4][3] = {
		{ 23.0, 22.5, 23.6 }, { 40.6, 41.0, 40.2 }, { 46.9, 47.3, 46.5 }, { 41.3, 41.5, 40.9 },
	};
	static const double lat[4][3] = { { 5, 5, 5 }, { 5, 5, 5 }, { 5, 5, 5 }, { 5, 5, 5 } };
	static const struct eff_figure figs[2] = { { true, 1 }, { false, -1 } };
	const double *v[8];
	const unsigned n[4] = { 3, 3, 3, 3 };
	struct eff_input in = { .naxes = 2, .ncells = 4, .nfig = 2, .cell_value = cv, .fig = figs, .v = v, .n = n };
	struct eff_result r;

	for (unsigned c = 0; c < 4; c++) {
		v[c * 2] = rate[c];
		v[c * 2 + 1] = lat[c];
	}
	CHECK(eff_analyze(&in, &r) == 0, "analyze 2x2");
	CHECK(r.nt == 10 && count(&r, EFF_EFFECT) == 8 && count(&r, EFF_INTERACTION) == 2,
	      "2x2: 4 pairs x 2 figures + 1 square x 2: %u tests", r.nt);
	CHECK(r.ntests == 10, "every test in the family: %u", r.ntests);
	CHECK(r.cell[1 * 2].present && close_rel(r.cell[1 * 2].s.mean, 3 / (1 / 40.6 + 1 / 41.0 + 1 / 40.2), 1e-12),
	      "cell mean is harmonic for a rate: %g", r.cell[2].s.mean);
	for (unsigned i = 0; i < r.nt; i++) {
		const struct eff_test *t = &r.t[i];

		if (t->kind == EFF_EFFECT) {
			unsigned a = t->cell[0], b = t->cell[1];
			struct stats_welch w;

			CHECK(cv[a * 2 + t->axis] < cv[b * 2 + t->axis] && cv[a * 2 + (1 - t->axis)] == cv[b * 2 + (1 - t->axis)],
			      "effect %u: cells %u -> %u one axis apart, baseline first", i, a, b);
			stats_welch(rate[a], 3, rate[b], 3, true, &w);
			if (t->fig == 0) {
				CHECK(t->tested && close_rel(t->p, w.p, 1e-15), "effect %u: Welch's p", i);
			} else {
				CHECK(t->tested && t->p == 1 && t->verdict == EFF_SAME, "constant latency: p 1, no difference");
			}
		} else {
			CHECK(t->axis == 0 && t->axis_b == 1, "interaction axes %u %u", t->axis, t->axis_b);
			/* A1B1 ext4/off (1), A2B1 btrfs/off (2), A1B2 ext4/on (3), A2B2 btrfs/on (0) */
			CHECK(t->cell[0] == 1 && t->cell[1] == 2 && t->cell[2] == 3 && t->cell[3] == 0,
			      "square %u %u %u %u", t->cell[0], t->cell[1], t->cell[2], t->cell[3]);
			if (t->fig == 0) {
				const double *vv[4] = { rate[1], rate[2], rate[3], rate[0] };
				struct stats_interaction ia;

				stats_interaction(vv, n, true, &ia);
				CHECK(t->tested && close_rel(t->ia.est, ia.est, 1e-15) && t->significant,
				      "rate interaction: est %g p %g adj %g", t->ia.est, t->p, t->p_adj);
				CHECK(close_rel(t->pct, (exp(ia.est) - 1) * 100, 1e-12), "as a ratio of ratios: %g %%", t->pct);
				/* ln((23.03/46.9) / (41.23/40.6)) < 0: the toggle costs btrfs, not ext4 */
				CHECK(t->ia.est < 0 && t->verdict == EFF_CHANGED, "the toggle hurts btrfs more");
			}
		}
	}
	/* Holm by hand over the 10: the rate tests' p-values times their rank factors */
	{
		double all[10], adj[10];

		for (unsigned i = 0; i < r.nt; i++)
			all[i] = r.t[i].p;
		stats_holm(all, 10, adj);
		for (unsigned i = 0; i < r.nt; i++)
			CHECK(r.t[i].p_adj == adj[i], "test %u adjusted %g, want %g", i, r.t[i].p_adj, adj[i]);
	}
	for (unsigned i = 0; i < r.nt; i++) {
		const struct eff_test *t = &r.t[i];

		/* ext4/on -> btrfs/on: 41.23 -> 23.03 MiB/s: worse */
		if (t->kind == EFF_EFFECT && t->fig == 0 && t->cell[0] == 3 && t->cell[1] == 0)
			CHECK(t->significant && t->verdict == EFF_WORSE && t->pct < -40, "btrfs/on worse: %g %%", t->pct);
	}
	eff_free(&r);

	/* a partial design: btrfs/on missing, so no square */
	{
		static const unsigned cv3[3 * 2] = { 0, 0, 1, 0, 0, 1 };
		const double *v3[6] = { rate[1], lat[1], rate[2], lat[2], rate[3], lat[3] };
		struct eff_input in3 = { .naxes = 2, .ncells = 3, .nfig = 2, .cell_value = cv3, .fig = figs, .v = v3, .n = n };

		CHECK(eff_analyze(&in3, &r) == 0 && count(&r, EFF_EFFECT) == 4 && count(&r, EFF_INTERACTION) == 0,
		      "3 of 4 cells: 2 pairs x 2 figures, no interaction (%u tests)", r.nt);
		eff_free(&r);
	}
	/* 2x3: pairs: A (3 of them) + B (3 pairs x 2) = 9; squares: 3 (B value pairs) */
	{
		unsigned cv6[6 * 2];
		const double *v6[6 * 2];
		const unsigned n6[6] = { 3, 3, 3, 3, 3, 3 };
		struct eff_input in6 = { .naxes = 2, .ncells = 6, .nfig = 2, .cell_value = cv6, .fig = figs, .v = v6, .n = n6 };

		for (unsigned c = 0; c < 6; c++) {
			cv6[c * 2] = c % 2;
			cv6[c * 2 + 1] = c / 2;
			v6[c * 2] = rate[c % 4];
			v6[c * 2 + 1] = lat[0];
		}
		CHECK(eff_analyze(&in6, &r) == 0 && count(&r, EFF_EFFECT) == 18 && count(&r, EFF_INTERACTION) == 6,
		      "2x3: 9 pairs and 3 squares per figure: %u effects, %u interactions", count(&r, EFF_EFFECT),
		      count(&r, EFF_INTERACTION));
		eff_free(&r);
	}
	/* single runs: no test, a delta all the same */
	{
		const unsigned n1[4] = { 1, 1, 1, 1 };
		struct eff_input in1 = in;

		in1.n = n1;
		CHECK(eff_analyze(&in1, &r) == 0 && r.ntests == 0, "single runs: nothing tested");
		for (unsigned i = 0; i < r.nt; i++)
			CHECK(!r.t[i].tested && isnan(r.t[i].p_adj), "untested %u", i);
		eff_free(&r);
	}
	CHECK(strcmp(eff_stars(0.0005), "***") == 0 && strcmp(eff_stars(0.005), "**") == 0 &&
	      strcmp(eff_stars(0.02), "*") == 0 && strcmp(eff_stars(0.05), "") == 0 && strcmp(eff_stars(NAN), "") == 0, "stars");
	return check_done("test_effects");
}
