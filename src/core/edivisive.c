/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E-divisive means with a permutation test: the design note is in edivisive.h. */
#include "core/edivisive.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void ediv_defaults(struct ediv_opts *o, uint64_t seed)
{
	o->alpha = EDIV_ALPHA;
	o->sig = EDIV_SIG;
	o->perms = EDIV_PERMS;
	o->min_size = EDIV_MIN_SIZE;
	o->seed = seed;
}

static double dist(double a, double b, double alpha)
{
	double d = fabs(a - b);

	return alpha == 1.0 ? d : pow(d, alpha);
}

static double q_of(double wl, double wr, double b, unsigned tau, unsigned m)
{
	double l = tau, r = m - tau;

	return l * r / m * (2 * b / (l * r) - wl / (l * (l - 1) / 2) - wr / (r * (r - 1) / 2));
}

double ediv_q(const double *y, unsigned m, unsigned tau, double alpha)
{
	double wl = 0, wr = 0, b = 0;

	if (tau < 2 || tau + 2 > m)
		return NAN;
	for (unsigned i = 0; i < m; i++)
		for (unsigned j = i + 1; j < m; j++) {
			double d = dist(y[i], y[j], alpha);

			if (j < tau)
				wl += d;
			else if (i >= tau)
				wr += d;
			else
				b += d;
		}
	return q_of(wl, wr, b, tau, m);
}

/* The best split of the segment whose values are D's rows idx[0..m) (D: n x n distances): the
 * sums for the first tau, then one value moved from the right to the left side at a time. */
static void seg_best(const double *D, unsigned n, const unsigned *idx, unsigned m, unsigned min_size, unsigned *tau,
		     double *q)
{
	double wl = 0, wr = 0, b = 0;
	unsigned t0 = min_size;

	*tau = 0;
	*q = -INFINITY;
	for (unsigned i = 0; i < m; i++)
		for (unsigned j = i + 1; j < m; j++) {
			double d = D[(size_t)idx[i] * n + idx[j]];

			if (j < t0)
				wl += d;
			else if (i >= t0)
				wr += d;
			else
				b += d;
		}
	for (unsigned t = t0; t + min_size <= m; t++) {
		const double *row = D + (size_t)idx[t] * n;
		double rl = 0, rr = 0, v = q_of(wl, wr, b, t, m);

		if (v > *q) {
			*q = v;
			*tau = t;
		}
		for (unsigned i = 0; i < t; i++)
			rl += row[idx[i]];
		for (unsigned j = t + 1; j < m; j++)
			rr += row[idx[j]];
		wl += rl;
		wr -= rr;
		b += rr - rl;
	}
}

static double *distances(const double *y, unsigned n, double alpha)
{
	double *D = malloc((size_t)n * n * sizeof(*D));

	if (!D)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		D[(size_t)i * n + i] = 0;
		for (unsigned j = i + 1; j < n; j++)
			D[(size_t)i * n + j] = D[(size_t)j * n + i] = dist(y[i], y[j], alpha);
	}
	return D;
}

int ediv_best(const double *y, unsigned m, unsigned min_size, double alpha, unsigned *tau, double *q)
{
	double *D;
	unsigned *idx;

	if (min_size < 2 || m < 2 * min_size)
		return -EINVAL;
	D = distances(y, m, alpha);
	idx = malloc(m * sizeof(*idx));
	if (!D || !idx) {
		free(D);
		free(idx);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < m; i++)
		idx[i] = i;
	seg_best(D, m, idx, m, min_size, tau, q);
	free(D);
	free(idx);
	return 0;
}

/* splitmix64: uniform in [0, k) (k small: the modulo's bias is below 2^-50) */
static unsigned rnd(uint64_t *s, unsigned k)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (unsigned)(z % k);
}

/* The largest best-split Q over the segments bounded by cut[0..ncut) (cut[0] = 0, cut[ncut-1]
 * = n) with values idx; *which: that segment */
static double max_q(const double *D, unsigned n, const unsigned *idx, const unsigned *cut, unsigned ncut,
		    unsigned min_size, unsigned *which, unsigned *tau)
{
	double best = -INFINITY;

	for (unsigned s = 0; s + 1 < ncut; s++) {
		unsigned m = cut[s + 1] - cut[s], t;
		double q;

		if (m < 2 * min_size)
			continue;
		seg_best(D, n, idx + cut[s], m, min_size, &t, &q);
		if (q > best) {
			best = q;
			*which = s;
			*tau = t;
		}
	}
	return best;
}

/* the permutation p-value of q_obs: shuffles within each segment */
static double perm_p(const double *D, unsigned n, unsigned *idx, const unsigned *cut, unsigned ncut,
		     const struct ediv_opts *o, uint64_t *rng, double q_obs)
{
	unsigned ge = 0, w, t;

	for (unsigned r = 0; r < o->perms; r++) {
		for (unsigned s = 0; s + 1 < ncut; s++)
			for (unsigned i = cut[s + 1] - 1; i > cut[s]; i--) {
				unsigned j = cut[s] + rnd(rng, i - cut[s] + 1), x = idx[i];

				idx[i] = idx[j];
				idx[j] = x;
			}
		/* a tolerance for the sums' rounding: an equal Q counts as at least as large */
		if (max_q(D, n, idx, cut, ncut, o->min_size, &w, &t) >= q_obs - 1e-12 * fabs(q_obs))
			ge++;
	}
	return (1.0 + ge) / (o->perms + 1.0);
}

int ediv_detect(const double *y, unsigned n, const struct ediv_opts *o, struct ediv_change *out, unsigned max,
		unsigned *nout)
{
	unsigned *idx = NULL, *cut = NULL, ncut = 2;
	double *D = NULL;
	uint64_t rng = o->seed;
	int rc = -ENOMEM;

	*nout = 0;
	if (o->min_size < 2 || !(o->alpha > 0 && o->alpha < 2) || !(o->sig > 0 && o->sig < 1) || !o->perms)
		return -EINVAL;
	if (n > EDIV_MAX_N)
		return -E2BIG;
	for (unsigned i = 0; i < n; i++)
		if (!isfinite(y[i]))
			return -EINVAL;
	if (n < 2 * o->min_size)
		return 0;
	if (!(D = distances(y, n, o->alpha)) || !(idx = malloc(n * sizeof(*idx))) ||
	    !(cut = malloc((max + 2) * sizeof(*cut))))
		goto out;
	cut[0] = 0;
	cut[1] = n;
	while (*nout < max) {
		unsigned w = 0, t = 0, at;
		double q, p;

		for (unsigned i = 0; i < n; i++)
			idx[i] = i;
		q = max_q(D, n, idx, cut, ncut, o->min_size, &w, &t);
		if (!isfinite(q) || q <= 0)
			break;
		p = perm_p(D, n, idx, cut, ncut, o, &rng, q);
		if (p > o->sig)
			break;
		at = cut[w] + t;
		memmove(cut + w + 2, cut + w + 1, (ncut - w - 1) * sizeof(*cut));
		cut[w + 1] = at;
		ncut++;
		/* in index order */
		{
			unsigned k = *nout;

			while (k > 0 && out[k - 1].at > at) {
				out[k] = out[k - 1];
				k--;
			}
			out[k] = (struct ediv_change){ at, q, p };
		}
		(*nout)++;
	}
	rc = 0;
out:
	free(D);
	free(idx);
	free(cut);
	return rc;
}
