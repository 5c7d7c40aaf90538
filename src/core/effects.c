/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Effects and interactions over the cells of an experiment, their verdicts by core/verdict
 * (effects.h). */
#include "core/effects.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the present values of cell c's figure f, packed into out; how many */
static unsigned values(const struct eff_input *in, unsigned c, unsigned f, double *out)
{
	const double *v = in->v[c * in->nfig + f];
	unsigned m = 0;

	for (unsigned i = 0; v && i < in->n[c]; i++)
		if (!isnan(v[i]))
			out[m++] = v[i];
	return m;
}

/* the axes on which cells a and b differ: their count, the first in *axis */
static unsigned differ(const struct eff_input *in, unsigned a, unsigned b, unsigned *axis, unsigned *axis2)
{
	unsigned n = 0;

	for (unsigned x = 0; x < in->naxes; x++)
		if (in->cell_value[a * in->naxes + x] != in->cell_value[b * in->naxes + x]) {
			if (n == 0)
				*axis = x;
			else if (n == 1)
				*axis2 = x;
			n++;
		}
	return n;
}

static int push(struct eff_result *r, unsigned *cap, const struct eff_test *t)
{
	if (r->nt == *cap) {
		unsigned nc = *cap ? *cap * 2 : 64;
		struct eff_test *nt = realloc(r->t, nc * sizeof(*nt));

		if (!nt)
			return -1;
		r->t = nt;
		*cap = nc;
	}
	r->t[r->nt++] = *t;
	return 0;
}

/* each cell's summary of each figure, into r->cell (allocated); 0 or -1 out of memory */
static int summarize_cells(const struct eff_input *in, struct eff_result *r)
{
	unsigned maxn = 1;
	double *buf;

	for (unsigned c = 0; c < in->ncells; c++)
		maxn = in->n[c] > maxn ? in->n[c] : maxn;
	r->cell = calloc((size_t)in->ncells * in->nfig + 1, sizeof(*r->cell));
	buf = malloc(maxn * sizeof(double));
	if (!r->cell || !buf) {
		free(buf);
		return -1;
	}
	for (unsigned f = 0; f < in->nfig; f++) {
		/* rates: harmonic; other ratio-scale figures: geometric (the effects are ratios of
		 * geometric means; an interval never below 0), in every cell or in none: a figure
		 * with a value <= 0 anywhere is summarised arithmetically everywhere, so that its
		 * cells are on one scale side by side */
		bool geo = in->fig[f].ratio && !in->fig[f].rate;

		for (unsigned c = 0; geo && c < in->ncells; c++) {
			unsigned m = values(in, c, f, buf);

			for (unsigned i = 0; i < m; i++)
				geo = geo && buf[i] > 0;
		}
		for (unsigned c = 0; c < in->ncells; c++) {
			struct eff_cell *ec = &r->cell[c * in->nfig + f];
			unsigned m = values(in, c, f, buf);
			struct stats_summary a;

			ec->present = m > 0 && !(geo ? stats_summarize_geo(buf, m, &ec->s)
						     : stats_summarize(buf, m, in->fig[f].rate, &ec->s));
			ec->mean = ec->present && !stats_summarize(buf, m, false, &a) ? a.mean : NAN;
		}
	}
	free(buf);
	return 0;
}

/* effects: every pair of cells one axis apart, the earlier value the baseline */
static int add_effects(const struct eff_input *in, struct eff_result *r, unsigned *cap)
{
	for (unsigned a = 0; a < in->ncells; a++)
		for (unsigned b = 0; b < in->ncells; b++) {
			unsigned axis = 0, axis2 = 0;

			if (a == b || differ(in, a, b, &axis, &axis2) != 1 ||
			    in->cell_value[a * in->naxes + axis] > in->cell_value[b * in->naxes + axis])
				continue;
			for (unsigned f = 0; f < in->nfig; f++) {
				struct eff_test t = { .kind = EFF_EFFECT, .fig = f, .axis = axis, .cell = { a, b } };

				const double *va = in->v[a * in->nfig + f], *vb = in->v[b * in->nfig + f];

				vd_compare(va, va ? in->n[a] : 0, in->round ? in->round[a] : NULL,
					   vb, vb ? in->n[b] : 0, in->round ? in->round[b] : NULL,
					   in->fig[f].ratio, in->fig[f].family, &t.v);
				if (push(r, cap, &t))
					return -1;
			}
		}
	return 0;
}

/* every figure's interaction over the 2x2 square c (c11, c21, c12, c22) of axes ax and bx */
static int add_square(const struct eff_input *in, struct eff_result *r, unsigned *cap, const unsigned c[4],
		      unsigned ax, unsigned bx)
{
	for (unsigned f = 0; f < in->nfig; f++) {
		struct eff_test t = { .kind = EFF_INTERACTION, .fig = f, .axis = ax, .axis_b = bx,
				      .cell = { c[0], c[1], c[2], c[3] } };
		const double *vv[4];
		const unsigned *rr[4];
		unsigned nn[4];

		for (int k = 0; k < 4; k++) {
			vv[k] = in->v[t.cell[k] * in->nfig + f];
			nn[k] = vv[k] ? in->n[t.cell[k]] : 0;
			rr[k] = in->round ? in->round[t.cell[k]] : NULL;
		}
		vd_compare_interaction(vv, nn, rr, in->fig[f].ratio, in->fig[f].family, &t.v);
		if (push(r, cap, &t))
			return -1;
	}
	return 0;
}

/* interactions: every two axes, every 2x2 square of cells equal on the other axes */
static int add_interactions(const struct eff_input *in, struct eff_result *r, unsigned *cap)
{
	for (unsigned c11 = 0; c11 < in->ncells; c11++)
		for (unsigned c21 = 0; c21 < in->ncells; c21++) {
			unsigned ax = 0, unused = 0;

			if (c21 == c11 || differ(in, c11, c21, &ax, &unused) != 1 ||
			    in->cell_value[c11 * in->naxes + ax] > in->cell_value[c21 * in->naxes + ax])
				continue;
			for (unsigned c12 = 0; c12 < in->ncells; c12++) {
				unsigned bx = 0;

				if (c12 == c11 || differ(in, c11, c12, &bx, &unused) != 1 || bx <= ax ||
				    in->cell_value[c11 * in->naxes + bx] > in->cell_value[c12 * in->naxes + bx])
					continue;
				for (unsigned c22 = 0; c22 < in->ncells; c22++) {
					unsigned x1 = 0, x2 = 0;
					const unsigned sq[4] = { c11, c21, c12, c22 };

					/* A2B2: A's value of c21 and B's value of c12, the rest as c11 */
					if (differ(in, c21, c22, &x1, &x2) != 1 || x1 != bx ||
					    in->cell_value[c22 * in->naxes + bx] != in->cell_value[c12 * in->naxes + bx] ||
					    differ(in, c12, c22, &x1, &x2) != 1 || x1 != ax)
						continue;
					if (add_square(in, r, cap, sq, ax, bx))
						return -1;
				}
			}
		}
	return 0;
}

/* the verdicts of every test, corrected per family (vd_decide); the family counts */
static int decide(const struct eff_input *in, struct eff_result *r)
{
	struct vd_test *vt = malloc((r->nt ? r->nt : 1) * sizeof(*vt));

	if (!vt)
		return -1;
	for (unsigned k = 0; k < r->nt; k++)
		vt[k] = r->t[k].v;
	if (vd_decide(vt, r->nt, &in->opts)) {
		free(vt);
		return -1;
	}
	for (unsigned k = 0; k < r->nt; k++) {
		r->t[k].v = vt[k];
		r->nconfirm += vt[k].tested && vt[k].family == VD_CONFIRMATORY;
		r->nexplore += vt[k].tested && vt[k].family == VD_EXPLORATORY;
	}
	free(vt);
	return 0;
}

int eff_analyze(const struct eff_input *in, struct eff_result *r)
{
	unsigned cap = 0;

	memset(r, 0, sizeof(*r));
	if (summarize_cells(in, r) || add_effects(in, r, &cap) || add_interactions(in, r, &cap) || decide(in, r))
		return -1;
	return 0;
}

void eff_free(struct eff_result *r)
{
	free(r->cell);
	free(r->t);
	memset(r, 0, sizeof(*r));
}
