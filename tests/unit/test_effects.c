/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/effects: which cells are compared (pairs one axis apart, the earlier value
 * the baseline; 2x2 squares for interactions) in full, partial and 2x3 designs; the numbers are
 * core/verdict's own (Welch on logs, paired by round, interaction); the families (primary
 * figures confirmatory, Holm; constant figures not tested); verdicts by direction. */
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
	static const struct eff_figure figs[2] = { { true, true, 1, VD_CONFIRMATORY }, { false, true, -1, VD_EXPLORATORY } };
	static const unsigned rounds[3] = { 1, 2, 3 };
	const unsigned *rnd[4] = { rounds, rounds, rounds, rounds };
	const double *v[8];
	const unsigned n[4] = { 3, 3, 3, 3 };
	struct eff_input in = { .naxes = 2, .ncells = 4, .nfig = 2, .cell_value = cv, .fig = figs, .v = v, .n = n,
				.opts = { VD_ALPHA, VD_EQUIV_PCT } };
	struct eff_result r;

	for (unsigned c = 0; c < 4; c++) {
		v[c * 2] = rate[c];
		v[c * 2 + 1] = lat[c];
	}
	CHECK(eff_analyze(&in, &r) == 0, "analyze 2x2");
	CHECK(r.nt == 10 && count(&r, EFF_EFFECT) == 8 && count(&r, EFF_INTERACTION) == 2,
	      "2x2: 4 pairs x 2 figures + 1 square x 2: %u tests", r.nt);
	CHECK(r.nconfirm == 5 && r.nexplore == 0, "the rate's 5 tests confirmatory, the constant latency untested: %u %u",
	      r.nconfirm, r.nexplore);
	CHECK(r.cell[1 * 2].present && close_rel(r.cell[1 * 2].s.mean, 3 / (1 / 40.6 + 1 / 41.0 + 1 / 40.2), 1e-12),
	      "cell mean is harmonic for a rate: %g", r.cell[2].s.mean);
	for (unsigned i = 0; i < r.nt; i++) {
		const struct eff_test *t = &r.t[i];

		if (t->kind == EFF_EFFECT) {
			unsigned a = t->cell[0], b = t->cell[1];
			struct vd_est w;

			CHECK(cv[a * 2 + t->axis] < cv[b * 2 + t->axis] && cv[a * 2 + (1 - t->axis)] == cv[b * 2 + (1 - t->axis)],
			      "effect %u: cells %u -> %u one axis apart, baseline first", i, a, b);
			vd_welch(rate[a], 3, rate[b], 3, true, &w);
			if (t->fig == 0) {
				CHECK(t->v.tested && !t->v.e.paired && t->v.e.log && close_rel(t->v.e.p, w.p, 1e-15) &&
				      close_rel(t->v.ratio, exp(w.est), 1e-15), "effect %u: Welch on the logs", i);
			} else {
				CHECK(!t->v.tested && t->v.kind == VD_SAME_CONST && isnan(t->v.p_adj),
				      "constant latency: not tested, same (no variation)");
			}
		} else {
			CHECK(t->axis == 0 && t->axis_b == 1, "interaction axes %u %u", t->axis, t->axis_b);
			/* A1B1 ext4/off (1), A2B1 btrfs/off (2), A1B2 ext4/on (3), A2B2 btrfs/on (0) */
			CHECK(t->cell[0] == 1 && t->cell[1] == 2 && t->cell[2] == 3 && t->cell[3] == 0,
			      "square %u %u %u %u", t->cell[0], t->cell[1], t->cell[2], t->cell[3]);
			if (t->fig == 0) {
				const double *vv[4] = { rate[1], rate[2], rate[3], rate[0] };
				struct vd_est ia;

				vd_interaction(vv, n, true, &ia);
				CHECK(t->v.tested && close_rel(t->v.e.est, ia.est, 1e-12) && t->v.kind == VD_DIFFERENT,
				      "rate interaction: est %g p %g adj %g", t->v.e.est, t->v.e.p, t->v.p_adj);
				/* ln((23.03/46.9) / (41.23/40.6)) < 0: the toggle costs btrfs, not ext4 */
				CHECK(t->v.e.est < 0 && t->v.hi < 1, "the toggle hurts btrfs more: [%g, %g]", t->v.lo, t->v.hi);
			}
		}
	}
	/* Holm by hand over the 5 confirmatory tests */
	{
		double all[10], adj[10];

		for (unsigned i = 0; i < r.nt; i++)
			all[i] = r.t[i].v.tested ? r.t[i].v.e.p : NAN;
		stats_holm(all, 10, adj);
		for (unsigned i = 0; i < r.nt; i++)
			CHECK(r.t[i].v.p_adj == adj[i] || (isnan(adj[i]) && isnan(r.t[i].v.p_adj)),
			      "test %u adjusted %g, want %g", i, r.t[i].v.p_adj, adj[i]);
	}
	for (unsigned i = 0; i < r.nt; i++) {
		const struct eff_test *t = &r.t[i];

		/* ext4/on -> btrfs/on: 41.23 -> 23.03 MiB/s: worse */
		if (t->kind == EFF_EFFECT && t->fig == 0 && t->cell[0] == 3 && t->cell[1] == 0)
			CHECK(t->v.kind == VD_DIFFERENT && !strcmp(vd_word(&t->v, 1), "worse") && vd_pct(&t->v) < -40 &&
			      t->v.lo < t->v.ratio && t->v.ratio < t->v.hi && t->v.hi < 1,
			      "btrfs/on worse: %g %% [%g, %g]", vd_pct(&t->v), t->v.lo, t->v.hi);
	}
	eff_free(&r);

	/* interleaved rounds: paired by round */
	{
		struct eff_input inr = in;

		inr.round = rnd;
		CHECK(eff_analyze(&inr, &r) == 0, "analyze with rounds");
		for (unsigned i = 0; i < r.nt; i++) {
			const struct eff_test *t = &r.t[i];
			struct vd_est e;

			if (t->kind != EFF_EFFECT || t->fig != 0)
				continue;
			vd_paired(rate[t->cell[0]], rate[t->cell[1]], 3, true, &e);
			CHECK(t->v.e.paired && !t->v.incomplete && close_rel(t->v.e.p, e.p, 1e-15) && t->v.e.df == 2,
			      "effect %u paired: p %g want %g", i, t->v.e.p, e.p);
		}
		eff_free(&r);
	}
	/* a failed run (NaN) leaves a round incomplete: unpaired, and said */
	{
		struct eff_input inr = in;
		const double gap[3] = { 40.6, NAN, 40.2 };
		const double *vg[8];

		memcpy(vg, v, sizeof(vg));
		vg[1 * 2] = gap;
		inr.v = vg;
		inr.round = rnd;
		CHECK(eff_analyze(&inr, &r) == 0, "analyze with a gap");
		for (unsigned i = 0; i < r.nt; i++) {
			const struct eff_test *t = &r.t[i];
			bool has = t->cell[0] == 1 || t->cell[1] == 1;

			if (t->kind == EFF_EFFECT && t->fig == 0)
				CHECK(has ? (!t->v.e.paired && t->v.incomplete) : t->v.e.paired, "effect %u: %s", i,
				      has ? "unpaired (incomplete rounds)" : "paired");
		}
		eff_free(&r);
	}

	/* a partial design: btrfs/on missing, so no square */
	{
		static const unsigned cv3[3 * 2] = { 0, 0, 1, 0, 0, 1 };
		const double *v3[6] = { rate[1], lat[1], rate[2], lat[2], rate[3], lat[3] };
		struct eff_input in3 = { .naxes = 2, .ncells = 3, .nfig = 2, .cell_value = cv3, .fig = figs, .v = v3, .n = n,
					 .opts = { VD_ALPHA, VD_EQUIV_PCT } };

		CHECK(eff_analyze(&in3, &r) == 0 && count(&r, EFF_EFFECT) == 4 && count(&r, EFF_INTERACTION) == 0,
		      "3 of 4 cells: 2 pairs x 2 figures, no interaction (%u tests)", r.nt);
		eff_free(&r);
	}
	/* 2x3: pairs: A (3 of them) + B (3 pairs x 2) = 9; squares: 3 (B value pairs) */
	{
		unsigned cv6[6 * 2];
		const double *v6[6 * 2];
		const unsigned n6[6] = { 3, 3, 3, 3, 3, 3 };
		struct eff_input in6 = { .naxes = 2, .ncells = 6, .nfig = 2, .cell_value = cv6, .fig = figs, .v = v6, .n = n6,
					 .opts = { VD_ALPHA, VD_EQUIV_PCT } };

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
	/* single runs: nothing tested; undecided, never "no difference" */
	{
		const unsigned n1[4] = { 1, 1, 1, 1 };
		struct eff_input in1 = in;

		in1.n = n1;
		CHECK(eff_analyze(&in1, &r) == 0 && r.nconfirm + r.nexplore == 0, "single runs: nothing tested");
		for (unsigned i = 0; i < r.nt; i++)
			CHECK(!r.t[i].v.tested && isnan(r.t[i].v.p_adj) && r.t[i].v.kind == VD_UNDECIDED, "untested %u", i);
		eff_free(&r);
	}
	/* a ratio-scale figure (bytes written by the sync after a run) with a 0 in one cell:
	 * example 001's report showed 103 MiB (arithmetic, a 0 among them) beside 22.8 MiB
	 * (geometric) and a change of +61.9 MiB (a difference of arithmetic means). Every cell of
	 * such a figure is summarised arithmetically, and the arithmetic mean is always there. */
	{
		static const unsigned cv1[2] = { 0, 1 };
		static const double a[3] = { 0, 100, 209 }, b[3] = { 2, 734, 2 };
		static const double pa[3] = { 10, 20, 40 }, pb[3] = { 5, 50, 60 };
		static const struct eff_figure f1[2] = { { false, true, -1, VD_EXPLORATORY },
							 { false, true, -1, VD_EXPLORATORY } };
		const double *v1[4] = { a, pa, b, pb };
		const unsigned n1[2] = { 3, 3 };
		struct eff_input in1 = { .naxes = 1,
					 .ncells = 2,
					 .nfig = 2,
					 .cell_value = cv1,
					 .fig = f1,
					 .v = v1,
					 .n = n1,
					 .opts = { VD_ALPHA, VD_EQUIV_PCT } };

		CHECK(eff_analyze(&in1, &r) == 0 && r.nt == 2, "one axis, two figures: %u tests", r.nt);
		CHECK(!r.cell[0].s.geometric && !r.cell[2].s.geometric &&
			      close_rel(r.cell[0].s.mean, 103, 1e-12) &&
			      close_rel(r.cell[2].s.mean, 246, 1e-12),
		      "a 0 in one cell: both cells arithmetic (103, 246): %g %g", r.cell[0].s.mean,
		      r.cell[2].s.mean);
		CHECK(!r.t[0].v.e.log && close_rel(r.t[0].v.ratio, 143, 1e-12), "its change a difference: %g",
		      r.t[0].v.ratio);
		CHECK(r.cell[1].s.geometric && r.cell[3].s.geometric &&
			      close_rel(r.cell[1].s.mean, cbrt(10.0 * 20 * 40), 1e-12) &&
			      close_rel(r.cell[3].s.mean, cbrt(5.0 * 50 * 60), 1e-12) &&
			      close_rel(r.cell[1].mean, 70 / 3.0, 1e-12) &&
			      close_rel(r.cell[3].mean, 115 / 3.0, 1e-12),
		      "all positive: geometric cells (20, 24.7), arithmetic means beside: %g %g %g %g",
		      r.cell[1].s.mean, r.cell[3].s.mean, r.cell[1].mean, r.cell[3].mean);
		eff_free(&r);
	}
	return check_done("test_effects");
}
