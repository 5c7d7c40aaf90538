/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The drift test across a cell's runs in run order (core/drift.h: the method and its limits). */
#include "core/drift.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

double drift_kendall_p(unsigned n, long s)
{
	long m = (long)n * (n - 1) / 2, as = labs(s);
	double *d, *nd, p = 0;

	if (n < 2 || as == 0)
		return 1;
	if (n > DRIFT_EXACT_MAX) {
		double var = (double)n * (n - 1) * (2.0 * n + 5) / 18, z = ((double)as - 1) / sqrt(var);

		return fmin(1, erfc(z / sqrt(2)));
	}
	/* P(D = k) for D the inversions of a random permutation of k items, k = 1..n: adding the
	 * k-th item adds 0..k-1 inversions, each with probability 1/k; S = m - 2 D */
	d = calloc((size_t)m + 1, sizeof(double));
	nd = calloc((size_t)m + 1, sizeof(double));
	if (!d || !nd) {
		free(d);
		free(nd);
		return NAN;
	}
	d[0] = 1;
	for (unsigned k = 2; k <= n; k++) {
		long top = (long)k * (k - 1) / 2;
		double run = 0;

		/* nd[j] = (d[j] + d[j-1] + ... + d[j-k+1]) / k, a sliding sum */
		for (long j = 0; j <= top; j++) {
			run += d[j];
			if (j - (long)k >= 0)
				run -= d[j - k];
			nd[j] = run / k;
		}
		for (long j = 0; j <= top; j++)
			d[j] = nd[j];
	}
	for (long k = 0; k <= m; k++)
		if (labs(m - 2 * k) >= as)
			p += d[k];
	free(d);
	free(nd);
	return fmin(1, p);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int drift_test(const double *v, unsigned n, struct drift *out)
{
	size_t np = (size_t)n * (n - 1) / 2, k = 0;
	double *sl, med;
	long s = 0;

	if (n < 3)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (!isfinite(v[i]) || v[i] <= 0)
			return -EDOM;
	if (!(sl = malloc(np * sizeof(double))))
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++) {
			s += (v[j] > v[i]) - (v[j] < v[i]);
			sl[k++] = (log(v[j]) - log(v[i])) / (double)(j - i);
		}
	qsort(sl, np, sizeof(double), cmp_double);
	med = np % 2 ? sl[np / 2] : (sl[np / 2 - 1] + sl[np / 2]) / 2;
	free(sl);
	out->n = n;
	out->s = s;
	out->tau = (double)s / (double)np;
	out->p = drift_kendall_p(n, s);
	out->slope_pct = (exp(med) - 1) * 100;
	out->total_pct = (exp(med * (n - 1)) - 1) * 100;
	return isnan(out->p) ? -ENOMEM : 0;
}
