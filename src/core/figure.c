/* Combining a figure's values as its declaration says (core/figure.h). */
#include "core/figure.h"

#include <math.h>

double figure_combine(enum fig_agg agg, const double *v, unsigned n)
{
	double sum = 0, rsum = 0, max = -INFINITY;
	unsigned k = 0;
	bool nonpos = false;

	for (unsigned i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		sum += v[i];
		if (v[i] > 0)
			rsum += 1 / v[i];
		else
			nonpos = true;
		if (v[i] > max)
			max = v[i];
		k++;
	}
	if (!k)
		return NAN;
	switch (agg) {
	case FIG_SUM:
		return sum;
	case FIG_MAX:
		return max;
	case FIG_HMEAN:
		/* a zero rate has no reciprocal: the arithmetic mean is the honest fallback */
		return nonpos ? sum / k : k / rsum;
	default:
		return sum / k;
	}
}
