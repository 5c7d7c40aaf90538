/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Combining a figure's values as its declaration says (core/figure.h). */
#include "core/figure.h"

#include <math.h>

void figure_acc_add(struct figure_acc *a, double v)
{
	if (isnan(v))
		return;
	a->sum += v;
	if (v > 0)
		a->rsum += 1 / v;
	else
		a->nonpos = true;
	if (!a->n || v > a->max)
		a->max = v;
	a->n++;
}

double figure_acc_value(const struct figure_acc *a, enum fig_agg agg)
{
	if (!a->n)
		return NAN;
	switch (agg) {
	case FIG_SUM:
		return a->sum;
	case FIG_MAX:
		return a->max;
	case FIG_HMEAN:
		/* a zero rate has no reciprocal: the arithmetic mean is the honest fallback */
		return a->nonpos ? a->sum / a->n : a->n / a->rsum;
	default:
		return a->sum / a->n;
	}
}

double figure_combine(enum fig_agg agg, const double *v, unsigned n)
{
	struct figure_acc a = { 0 };

	for (unsigned i = 0; i < n; i++)
		figure_acc_add(&a, v[i]);
	return figure_acc_value(&a, agg);
}
