/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which exploratory effects explain a primary one (core/why.h). */
#include "core/why.h"

#include <math.h>
#include <stdlib.h>

bool why_wanted(const struct eff_test *t)
{
	return t->kind == EFF_EFFECT && t->v.family == VD_CONFIRMATORY &&
	       (t->v.kind == VD_DIFFERENT || t->v.kind == VD_DETERMINISTIC);
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

unsigned why_rank(const struct eff_result *r, unsigned t, const unsigned *group, const bool *explains,
		  unsigned *out, unsigned max)
{
	const struct eff_test *p = &r->t[t];
	unsigned n = 0;

	for (unsigned k = 0; k < r->nt; k++) {
		const struct eff_test *x = &r->t[k];
		double s;
		unsigned j;

		if (k == t || x->kind != EFF_EFFECT || x->cell[0] != p->cell[0] || x->cell[1] != p->cell[1] ||
		    !explains[x->fig] || group[x->fig] != group[p->fig])
			continue;
		s = why_size(x);
		/* insertion into the top max, largest first */
		for (j = n; j > 0 && why_size(&r->t[out[j - 1]]) < s; j--)
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
