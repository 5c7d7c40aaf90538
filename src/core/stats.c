/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Means, confidence intervals, Welch's t-test, Holm's correction and the interaction of two
 * factors (design note in stats.h). */
#include "core/stats.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

double stats_mean(const double *v, unsigned n)
{
	double s = 0;

	if (!n)
		return 0;
	for (unsigned i = 0; i < n; i++)
		s += v[i];
	return s / n;
}

double stats_var(const double *v, unsigned n)
{
	double m = stats_mean(v, n), s = 0;

	if (n < 2)
		return 0;
	/* two-pass: no cancellation for large means with small spread */
	for (unsigned i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return s / (n - 1);
}

double stats_hmean(const double *v, unsigned n)
{
	double s = 0;

	if (!n)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return 0;
		s += 1.0 / v[i];
	}
	return n / s;
}

/* continued fraction of I_x(a, b) (Numerical Recipes 6.4, modified Lentz) */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 10000; m++) {
		double m2 = 2.0 * m, aa = m * (b - m) * x / ((qam + m2) * (a + m2)), del;

		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	double bt;

	if (!(x > 0))
		return 0;
	if (!(x < 1))
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	/* the fraction converges fast for x below the mean of the beta distribution; above, use
	 * the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) */
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2); half of it is each tail */
	tail = 0.5 * stats_betai(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, target, x, lpdf0;
	bool neg;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	neg = p < 0.5;
	target = neg ? 1 - p : p;
	while (stats_t_cdf(hi, df) < target && hi < 1e300)
		hi *= 2;
	/* Newton's method on the CDF with the density, kept inside the bracket [lo, hi] (a step
	 * that leaves it bisects instead): a few CDF evaluations instead of ~45 of plain bisection */
	lpdf0 = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI);
	x = 0.5 * (lo + hi);
	for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
		double f = stats_t_cdf(x, df) - target, pdf = exp(lpdf0 - (df + 1) / 2 * log1p(x * x / df)), nx;

		if (f < 0)
			lo = x;
		else
			hi = x;
		if (f == 0)
			break;
		nx = pdf > 0 ? x - f / pdf : NAN;
		if (!(nx > lo && nx < hi))
			nx = 0.5 * (lo + hi);
		if (fabs(nx - x) <= 1e-15 * fabs(x))
			break;
		x = nx;
	}
	return neg ? -x : x;
}

static bool all_positive(const double *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!(v[i] > 0) || isinf(v[i]))
			return false;
	return true;
}

/* reciprocals into a new array (the caller frees); NULL on allocation failure */
static double *recip(const double *v, unsigned n)
{
	double *r = malloc((n ? n : 1) * sizeof(*r));

	for (unsigned i = 0; r && i < n; i++)
		r[i] = 1.0 / v[i];
	return r;
}

int stats_summarize(const double *v, unsigned n, bool harmonic, struct stats_summary *s)
{
	double *r = NULL;
	const double *x = v;
	double m, sd, h = 0;

	*s = (struct stats_summary){ .n = n };
	if (!n)
		return -1;
	if (harmonic && all_positive(v, n) && (r = recip(v, n)))
		x = r;
	else
		harmonic = false;
	m = stats_mean(x, n);
	sd = sqrt(stats_var(x, n));
	if (n >= 2)
		h = stats_t_quantile(1 - STATS_ALPHA / 2, n - 1) * sd / sqrt((double)n);
	s->harmonic = harmonic;
	s->sd = sd;
	s->cv_pct = m != 0 ? 100.0 * sd / fabs(m) : 0;
	if (harmonic) {
		s->mean = 1.0 / m;
		s->ci = h * s->mean * s->mean;
		s->lo = 1.0 / (m + h);
		s->hi = m > h ? 1.0 / (m - h) : INFINITY;
	} else {
		s->mean = m;
		s->ci = h;
		s->lo = m - h;
		s->hi = m + h;
	}
	free(r);
	return 0;
}

int stats_summarize_geo(const double *v, unsigned n, struct stats_summary *s)
{
	double ml = 0, vl = 0, h = 0;

	if (stats_summarize(v, n, false, s) || !all_positive(v, n))
		return n ? 0 : -1;
	for (unsigned i = 0; i < n; i++)
		ml += log(v[i]) / n;
	for (unsigned i = 0; n >= 2 && i < n; i++)
		vl += (log(v[i]) - ml) * (log(v[i]) - ml) / (n - 1);
	if (n >= 2)
		h = stats_t_quantile(1 - STATS_ALPHA / 2, n - 1) * sqrt(vl / n);
	s->geometric = true;
	s->mean = exp(ml);
	s->lo = exp(ml - h);
	s->hi = exp(ml + h);
	s->ci = fmax(s->mean - s->lo, s->hi - s->mean);
	return 0;
}

int stats_welch(const double *a, unsigned na, const double *b, unsigned nb, bool harmonic,
		struct stats_welch *w)
{
	double *ra = NULL, *rb = NULL, ma, mb, va, vb, se2;
	const double *xa = a, *xb = b;

	*w = (struct stats_welch){ .t = 0, .df = 0, .p = 1 };
	if (na < 2 || nb < 2)
		return -1;
	if (harmonic && all_positive(a, na) && all_positive(b, nb)) {
		ra = recip(a, na);
		rb = recip(b, nb);
		if (ra && rb) {
			xa = ra;
			xb = rb;
		}
	}
	ma = stats_mean(xa, na);
	mb = stats_mean(xb, nb);
	va = stats_var(xa, na) / na;
	vb = stats_var(xb, nb) / nb;
	se2 = va + vb;
	if (xa == ra) {
		/* a rate's reciprocal: "b faster" is a smaller time per unit; keep t's sign as rates */
		double tmp = ma;

		ma = mb;
		mb = tmp;
	}
	free(ra);
	free(rb);
	/* identical runs (timer-resolution results, synthetic files): no spread at all */
	if (!(se2 > 0) || se2 < DBL_MIN) {
		w->df = na + nb - 2;
		if (mb == ma) {
			w->p = 1;
		} else {
			w->t = mb > ma ? INFINITY : -INFINITY;
			w->p = 0;
		}
		return 0;
	}
	w->t = (mb - ma) / sqrt(se2);
	w->df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
	w->p = 2 * stats_t_cdf(-fabs(w->t), w->df);
	if (w->p > 1)
		w->p = 1;
	return 0;
}

/* A value and its index, sorted by value and then index, so that ties keep their order:
 * the p-value adjustments and the median's index share it. */
struct idx_val {
	double v;
	unsigned i;
};

static int idx_cmp(const void *a, const void *b)
{
	const struct idx_val *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

unsigned stats_p_adjust(const double *p, unsigned n, bool bh, double *adj)
{
	struct idx_val *s = malloc((n ? n : 1) * sizeof(*s));
	unsigned m = 0;
	double run;

	if (!s) {
		/* no memory for the order: Bonferroni, which neither Holm nor BH ever exceeds */
		for (unsigned i = 0; i < n; i++)
			m += !isnan(p[i]);
		for (unsigned i = 0; i < n; i++)
			adj[i] = isnan(p[i]) ? NAN : fmin(1, p[i] * m);
		return m;
	}
	for (unsigned i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[m++] = (struct idx_val){ p[i] < 0 ? 0 : p[i] > 1 ? 1 : p[i], i };
	qsort(s, m, sizeof(*s), idx_cmp);
	for (unsigned i = 0; i < n; i++)
		if (isnan(p[i]))
			adj[i] = NAN;
	if (bh) {
		/* from the largest p down: the running minimum of m p(j) / j */
		run = 1;
		for (unsigned k = m; k-- > 0;) {
			run = fmin(run, fmin(1, m * s[k].v / (k + 1)));
			adj[s[k].i] = run;
		}
	} else {
		/* from the smallest p up: the running maximum of (m - j + 1) p(j) */
		run = 0;
		for (unsigned k = 0; k < m; k++) {
			run = fmax(run, fmin(1, (double)(m - k) * s[k].v));
			adj[s[k].i] = run;
		}
	}
	free(s);
	return m;
}

unsigned stats_holm(const double *p, unsigned n, double *adj)
{
	return stats_p_adjust(p, n, false, adj);
}

int stats_interaction(const double *const v[4], const unsigned n[4], bool rate,
		      struct stats_interaction *out)
{
	static const double sign[4] = { 1, -1, -1, 1 };
	double sumv = 0, den = 0, est = 0;
	unsigned dfmin = 0;

	*out = (struct stats_interaction){ .log = rate, .p = NAN, .t = NAN, .lo = NAN, .hi = NAN };
	for (int c = 0; c < 4; c++) {
		double m, var, vi;

		if (n[c] < 2 || (rate && !all_positive(v[c], n[c])))
			return -1;
		if (rate) {
			double *r = recip(v[c], n[c]);

			if (!r)
				return -1;
			m = stats_mean(r, n[c]);
			var = stats_var(r, n[c]);
			free(r);
			/* ln H = -ln(mean of 1/x); var by the delta method */
			est += sign[c] * -log(m);
			vi = var / (m * m) / n[c];
		} else {
			m = stats_mean(v[c], n[c]);
			var = stats_var(v[c], n[c]);
			est += sign[c] * m;
			vi = var / n[c];
		}
		sumv += vi;
		den += vi * vi / (n[c] - 1);
		dfmin += n[c] - 1;
	}
	out->est = est;
	out->se = sqrt(sumv);
	if (!(sumv > 0) || sumv < DBL_MIN || !(den > 0)) {
		out->df = dfmin;
		out->se = 0;
		out->t = est == 0 ? 0 : est > 0 ? INFINITY : -INFINITY;
		out->p = est == 0 ? 1 : 0;
		out->lo = out->hi = est;
		return 0;
	}
	out->df = sumv * sumv / den;
	out->t = est / out->se;
	out->p = fmin(1, 2 * stats_t_cdf(-fabs(out->t), out->df));
	{
		double h = stats_t_quantile(1 - STATS_ALPHA / 2, out->df) * out->se;

		out->lo = est - h;
		out->hi = est + h;
	}
	return 0;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int stats_median_index(const double *v, unsigned n)
{
	struct idx_val *s = malloc((n ? n : 1) * sizeof(*s));
	unsigned m = 0;
	int r;

	if (!s)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (!isnan(v[i]))
			s[m++] = (struct idx_val){ v[i], i };
	if (!m) {
		free(s);
		return -1;
	}
	qsort(s, m, sizeof(*s), idx_cmp);
	r = (int)s[(m - 1) / 2].i;
	free(s);
	return r;
}

int stats_moving_median(const double *v, unsigned n, unsigned w, double *out)
{
	double *win;

	if (w <= 1) {
		for (unsigned k = 0; k < n; k++)
			out[k] = v[k];
		return 0;
	}
	if (!(win = malloc(w * sizeof(*win))))
		return -1;
	for (unsigned k = 0; k < n; k++) {
		unsigned lo = k >= w / 2 ? k - w / 2 : 0, hi = k + (w - 1) / 2, m = 0;

		for (unsigned j = lo; j <= hi && j < n; j++)
			if (!isnan(v[j]))
				win[m++] = v[j];
		if (!m) {
			out[k] = NAN;
			continue;
		}
		qsort(win, m, sizeof(*win), dbl_cmp);
		out[k] = m % 2 ? win[m / 2] : 0.5 * (win[m / 2 - 1] + win[m / 2]);
	}
	free(win);
	return 0;
}
