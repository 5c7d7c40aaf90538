/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which exploratory effects explain a primary one (core/why.h). */
#include "core/why.h"

#include <math.h>
#include <stdlib.h>

enum why_kind why_status(const struct eff_test *t)
{
	if (t->kind != EFF_EFFECT || t->v.family != VD_CONFIRMATORY)
		return WHY_NONE;
	if (t->v.kind == VD_DIFFERENT || t->v.kind == VD_DETERMINISTIC)
		return WHY_DECIDED;
	/* an effect with no estimate (a side without values) has nothing to set the rows against */
	if (t->v.kind == VD_UNDECIDED && isfinite(t->v.ratio))
		return WHY_UNDECIDED;
	return WHY_NONE;
}

double why_size(const struct eff_test *t)
{
	const struct vd_test *v = &t->v;

	if (v->kind == VD_NA || v->kind == VD_NOT_TESTED || !isfinite(v->ratio))
		return -1;
	if (v->e.log)
		return v->ratio > 0 ? fabs(log(v->ratio)) : -1;
	if (isfinite(v->base) && v->base != 0)
		return fabs(v->ratio / v->base);
	return v->ratio == 0 ? 0 : -1;
}

double why_floor(const struct eff_test *t)
{
	const struct vd_test *v = &t->v;
	double lo, hi;

	if (v->kind == VD_DETERMINISTIC)
		return why_size(t) > 0 ? why_size(t) : 0;
	if (v->kind != VD_DIFFERENT || !isfinite(v->lo) || !isfinite(v->hi))
		return 0;
	if (v->e.log) {
		if (v->lo <= 0 || v->hi <= 0)
			return 0;
		lo = log(v->lo);
		hi = log(v->hi);
	} else {
		if (!isfinite(v->base) || v->base == 0)
			return 0;
		lo = v->lo / fabs(v->base);
		hi = v->hi / fabs(v->base);
	}
	/* the interval's end nearest to no change; 0 when it holds no change */
	return lo > 0 ? lo : hi < 0 ? -hi : 0;
}

/* x ranks above y: the larger change the interval guarantees, then the larger point estimate */
static bool above(const struct eff_test *x, const struct eff_test *y)
{
	double fx = why_floor(x), fy = why_floor(y);

	return fx != fy ? fx > fy : why_size(x) > why_size(y);
}

unsigned why_rank(const struct eff_result *r, unsigned t, const unsigned *group, const bool *explains,
		  unsigned *out, unsigned max)
{
	const struct eff_test *p = &r->t[t];
	unsigned n = 0;

	for (unsigned k = 0; k < r->nt; k++) {
		const struct eff_test *x = &r->t[k];
		unsigned j;

		if (k == t || x->kind != EFF_EFFECT || x->cell[0] != p->cell[0] || x->cell[1] != p->cell[1] ||
		    !explains[x->fig] || group[x->fig] != group[p->fig])
			continue;
		/* insertion into the top max, largest first */
		for (j = n; j > 0 && above(x, &r->t[out[j - 1]]); j--)
			if (j < max)
				out[j] = out[j - 1];
		if (j < max) {
			out[j] = k;
			if (n < max)
				n++;
		}
	}
	return n;
}
