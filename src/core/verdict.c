/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Estimates, corrections and verdicts of "B against A" (design note in verdict.h). */
#include "core/verdict.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

static bool positive(const double *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!(v[i] > 0) || isinf(v[i]))
			return false;
	return true;
}

static double mean_of(const double *v, unsigned n, bool lg)
{
	double s = 0;

	for (unsigned i = 0; i < n; i++)
		s += lg ? log(v[i]) : v[i];
	return n ? s / n : NAN;
}

static double var_of(const double *v, unsigned n, bool lg)
{
	double m = mean_of(v, n, lg), s = 0;

	if (n < 2)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		double y = lg ? log(v[i]) : v[i];

		s += (y - m) * (y - m);
	}
	return s / (n - 1);
}

/* est and se known: t, p; se 0 is "no spread" (p 1 for est 0, else 0) */
static void finish(struct vd_est *e)
{
	if (!(e->se > 0) || e->se < DBL_MIN * 1e10 || e->se < fabs(e->est) * 1e-14) {
		e->se = 0;
		e->t = e->est == 0 ? 0 : e->est > 0 ? INFINITY : -INFINITY;
		e->p = e->est == 0 ? 1 : 0;
		return;
	}
	e->t = e->est / e->se;
	e->p = fmin(1, 2 * stats_t_cdf(-fabs(e->t), e->df));
}

int vd_welch(const double *a, unsigned na, const double *b, unsigned nb, bool lg, struct vd_est *e)
{
	double va, vb, den;

	*e = (struct vd_est){ .log = lg, .n = (na + nb) / 2, .p = NAN, .t = NAN };
	if (na < 2 || nb < 2 || (lg && (!positive(a, na) || !positive(b, nb))))
		return -1;
	va = var_of(a, na, lg) / na;
	vb = var_of(b, nb, lg) / nb;
	e->est = mean_of(b, nb, lg) - mean_of(a, na, lg);
	e->se = sqrt(va + vb);
	den = va * va / (na - 1) + vb * vb / (nb - 1);
	e->df = den > 0 ? (va + vb) * (va + vb) / den : na + nb - 2;
	finish(e);
	return 0;
}

int vd_one_sample(const double *d, unsigned n, struct vd_est *e)
{
	*e = (struct vd_est){ .n = n, .p = NAN, .t = NAN };
	if (n < 2)
		return -1;
	e->est = mean_of(d, n, false);
	e->se = sqrt(var_of(d, n, false) / n);
	e->df = n - 1;
	finish(e);
	return 0;
}

int vd_paired(const double *a, const double *b, unsigned n, bool lg, struct vd_est *e)
{
	double *d;
	int rc;

	if (n < 2 || (lg && (!positive(a, n) || !positive(b, n)))) {
		*e = (struct vd_est){ .log = lg, .p = NAN, .t = NAN };
		return -1;
	}
	if (!(d = malloc(n * sizeof(*d)))) {
		*e = (struct vd_est){ .log = lg, .p = NAN, .t = NAN };
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		d[i] = lg ? log(b[i]) - log(a[i]) : b[i] - a[i];
	rc = vd_one_sample(d, n, e);
	e->log = lg;
	e->paired = true;
	free(d);
	return rc;
}

int vd_interaction(const double *const v[4], const unsigned n[4], bool lg, struct vd_est *e)
{
	static const double sign[4] = { 1, -1, -1, 1 };
	double sumv = 0, den = 0;
	unsigned tot = 0;

	*e = (struct vd_est){ .log = lg, .p = NAN, .t = NAN };
	for (int c = 0; c < 4; c++) {
		double vi;

		if (n[c] < 2 || (lg && !positive(v[c], n[c])))
			return -1;
		vi = var_of(v[c], n[c], lg) / n[c];
		e->est += sign[c] * mean_of(v[c], n[c], lg);
		sumv += vi;
		den += vi * vi / (n[c] - 1);
		tot += n[c];
	}
	e->n = tot / 4;
	e->se = sqrt(sumv);
	e->df = den > 0 ? sumv * sumv / den : tot - 4;
	finish(e);
	return 0;
}

void vd_interval(const struct vd_est *e, double level, double *lo, double *hi)
{
	double h = 0;

	if (e->se > 0)
		h = stats_t_quantile(1 - (1 - level) / 2, e->df) * e->se;
	*lo = e->est - h;
	*hi = e->est + h;
}

unsigned vd_bh(const double *p, unsigned n, double *adj)
{
	return stats_p_adjust(p, n, true, adj);
}

/* ---- one comparison ---- */

/* finite values (and their rounds) into out */
static unsigned finite_vals(const double *v, unsigned n, const unsigned *r, double *out, unsigned *rout)
{
	unsigned m = 0;

	for (unsigned i = 0; i < n; i++)
		if (isfinite(v[i])) {
			if (rout)
				rout[m] = r[i];
			out[m++] = v[i];
		}
	return m;
}

static bool constant(const double *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		if (v[i] != v[0])
			return false;
	return true;
}

/* b[k] is matched to a[k] by round: every round of a once in b and no other. Reorders b (and
 * rb). true when complete. */
static bool pair_up(const double *a, const unsigned *ra, unsigned na, double *b, unsigned *rb, unsigned nb)
{
	if (na != nb)
		return false;
	for (unsigned i = 0; i < na; i++) {
		unsigned j, hits = 0;

		for (unsigned k = 0; k < i; k++)
			if (ra[k] == ra[i])
				return false;
		for (unsigned k = 0; k < nb; k++)
			hits += rb[k] == ra[i];
		if (hits != 1)
			return false;
		for (j = i; rb[j] != ra[i]; j++)
			;
		if (j != i) {
			double tv = b[i];
			unsigned tr = rb[i];

			b[i] = b[j];
			rb[i] = rb[j];
			b[j] = tv;
			rb[j] = tr;
		}
	}
	(void)a;
	return true;
}

static void init(struct vd_test *t, enum vd_family fam)
{
	memset(t, 0, sizeof(*t));
	t->family = fam;
	t->p_adj = NAN;
	t->ratio = t->lo = t->hi = NAN;
	t->more_rounds = NAN;
	t->e.p = NAN;
	t->kind = VD_NA;
}

/* the point estimate of untested comparisons, for display */
static void point(struct vd_test *t, double est, bool lg, double base)
{
	t->e.log = lg;
	t->e.est = est;
	t->base = base;
	t->ratio = lg ? exp(est) : est;
	t->sign = est > 0 ? 1 : est < 0 ? -1 : 0;
}

void vd_compare(const double *a0, unsigned na0, const unsigned *ra0, const double *b0, unsigned nb0,
		const unsigned *rb0, bool log_ok, enum vd_family fam, struct vd_test *t)
{
	double *a = malloc((na0 + 1) * sizeof(double)), *b = malloc((nb0 + 1) * sizeof(double));
	unsigned *ra = malloc((na0 + 1) * sizeof(unsigned)), *rb = malloc((nb0 + 1) * sizeof(unsigned));
	bool rounds = ra0 && rb0, lg;
	unsigned na, nb;

	init(t, fam);
	if (!a || !b || !ra || !rb) {
		t->why = "out of memory";
		goto out;
	}
	na = finite_vals(a0, na0, rounds ? ra0 : NULL, a, rounds ? ra : NULL);
	nb = finite_vals(b0, nb0, rounds ? rb0 : NULL, b, rounds ? rb : NULL);
	if (!na || !nb)
		goto out;
	lg = log_ok && positive(a, na) && positive(b, nb);
	point(t, mean_of(b, nb, lg) - mean_of(a, na, lg), lg, lg ? exp(mean_of(a, na, true)) : mean_of(a, na, false));
	if (fam == VD_FAM_NONE) {
		t->kind = VD_NOT_TESTED;
		t->why = "derived from another figure";
		goto out;
	}
	t->kind = VD_UNDECIDED;
	if (na < 2 || nb < 2) {
		t->why = "fewer than 2 runs on a side";
		goto out;
	}
	if (constant(a, na) && constant(b, nb)) {
		t->kind = a[0] == b[0] ? VD_SAME_CONST : VD_DETERMINISTIC;
		t->why = "no variation within either side";
		goto out;
	}
	if (rounds && pair_up(a, ra, na, b, rb, nb)) {
		vd_paired(a, b, na, lg, &t->e);
	} else {
		t->incomplete = rounds;
		vd_welch(a, na, b, nb, lg, &t->e);
	}
	t->tested = true;
out:
	free(a);
	free(b);
	free(ra);
	free(rb);
}

void vd_compare_interaction(const double *const v0[4], const unsigned n0[4], const unsigned *const r0[4],
			    bool log_ok, enum vd_family fam, struct vd_test *t)
{
	static const double sign[4] = { 1, -1, -1, 1 };
	double *v[4] = { NULL };
	unsigned *r[4] = { NULL }, n[4];
	bool rounds = r0[0] && r0[1] && r0[2] && r0[3], lg = log_ok, allconst = true, oom = false;
	double est = 0, base;

	init(t, fam);
	for (int c = 0; c < 4; c++) {
		v[c] = malloc((n0[c] + 1) * sizeof(double));
		r[c] = malloc((n0[c] + 1) * sizeof(unsigned));
		if (!v[c] || !r[c]) {
			oom = true;
			continue;
		}
		n[c] = finite_vals(v0[c], n0[c], rounds ? r0[c] : NULL, v[c], rounds ? r[c] : NULL);
	}
	if (oom) {
		t->why = "out of memory";
		goto out;
	}
	for (int c = 0; c < 4; c++) {
		if (!n[c])
			goto out;
		lg &= positive(v[c], n[c]);
	}
	for (int c = 0; c < 4; c++) {
		est += sign[c] * mean_of(v[c], n[c], lg);
		allconst &= constant(v[c], n[c]);
	}
	base = mean_of(v[0], n[0], lg);
	point(t, est, lg, lg ? exp(base) : base);
	if (fam == VD_FAM_NONE) {
		t->kind = VD_NOT_TESTED;
		t->why = "derived from another figure";
		goto out;
	}
	t->kind = VD_UNDECIDED;
	if (n[0] < 2 || n[1] < 2 || n[2] < 2 || n[3] < 2) {
		t->why = "fewer than 2 runs in a cell";
		goto out;
	}
	if (allconst) {
		t->kind = est == 0 ? VD_SAME_CONST : VD_DETERMINISTIC;
		t->why = "no variation within any cell";
		goto out;
	}
	if (rounds && pair_up(v[0], r[0], n[0], v[1], r[1], n[1]) && pair_up(v[0], r[0], n[0], v[2], r[2], n[2]) &&
	    pair_up(v[0], r[0], n[0], v[3], r[3], n[3])) {
		double *c = malloc(n[0] * sizeof(double));

		if (!c) {
			t->why = "out of memory";
			goto out;
		}
		for (unsigned k = 0; k < n[0]; k++) {
			c[k] = 0;
			for (int q = 0; q < 4; q++)
				c[k] += sign[q] * (lg ? log(v[q][k]) : v[q][k]);
		}
		vd_one_sample(c, n[0], &t->e);
		t->e.paired = true;
		t->e.log = lg;
		free(c);
	} else {
		t->incomplete = rounds;
		vd_interaction((const double *const *)v, n, lg, &t->e);
	}
	t->tested = true;
out:
	for (int c = 0; c < 4; c++) {
		free(v[c]);
		free(r[c]);
	}
}

/* ---- the verdicts ---- */

static double to_ratio(const struct vd_est *e, double x)
{
	return e->log ? exp(x) : x;
}

/* rounds in all that a t at level alpha (two-sided) would need to put |est| h clear of its
 * bound: n (t se / h)^2 */
static double rounds_for(const struct vd_est *e, double h, double alpha)
{
	double t;

	if (!(h > 0) || !(e->se > 0) || !(e->df > 0))
		return NAN;
	t = stats_t_quantile(1 - alpha / 2, e->df);
	return e->n * (t * e->se / h) * (t * e->se / h);
}

static void decide_one(struct vd_test *t, const struct vd_opts *o)
{
	const struct vd_est *e = &t->e;
	double alpha = o->alpha, a_i, lo, hi, margin, nd, ne;

	t->sign = e->est > 0 ? 1 : e->est < 0 ? -1 : 0;
	t->ratio = to_ratio(e, e->est);
	/* the corrected interval: level 1 - alpha p / p_adj excludes the null iff p_adj < alpha */
	a_i = e->p > 0 && t->p_adj > 0 ? alpha * e->p / t->p_adj : alpha / (t->family_size ? t->family_size : 1);
	if (t->p_adj < alpha) {
		t->kind = VD_DIFFERENT;
		vd_interval(e, 1 - a_i, &lo, &hi);
		t->level = 1 - a_i;
		t->lo = to_ratio(e, lo);
		t->hi = to_ratio(e, hi);
		return;
	}
	margin = e->log ? log1p(o->equiv_pct / 100) : o->equiv_pct / 100 * fabs(t->base);
	vd_interval(e, 1 - 2 * alpha, &lo, &hi);
	if (margin > 0 && lo > -margin && hi < margin) {
		t->kind = VD_EQUIVALENT;
		t->level = 1 - 2 * alpha;
		t->lo = to_ratio(e, lo);
		t->hi = to_ratio(e, hi);
		return;
	}
	t->kind = VD_UNDECIDED;
	vd_interval(e, 1 - a_i, &lo, &hi);
	t->level = 1 - a_i;
	t->lo = to_ratio(e, lo);
	t->hi = to_ratio(e, hi);
	/* at the observed spread: to a difference at Bonferroni's level for the family (Holm's
	 * first step), or to equivalence (a one-sided alpha each side: two-sided 2 alpha) */
	nd = rounds_for(e, fabs(e->est), alpha / (t->family_size ? t->family_size : 1));
	ne = rounds_for(e, margin - fabs(e->est), 2 * alpha);
	nd = isnan(nd) ? ne : isnan(ne) ? nd : fmin(nd, ne);
	if (!isnan(nd))
		t->more_rounds = fmax(1, ceil(nd) - e->n);
}

int vd_decide(struct vd_test *t, unsigned n, const struct vd_opts *o)
{
	double *pc = malloc((n ? n : 1) * sizeof(double)), *pe = malloc((n ? n : 1) * sizeof(double));
	unsigned mc, me;

	if (!n || !pc || !pe) {
		free(pc);
		free(pe);
		return n ? -1 : 0;
	}
	for (unsigned i = 0; i < n; i++) {
		pc[i] = t[i].tested && t[i].family == VD_CONFIRMATORY ? t[i].e.p : NAN;
		pe[i] = t[i].tested && t[i].family == VD_EXPLORATORY ? t[i].e.p : NAN;
	}
	mc = stats_holm(pc, n, pc);
	me = vd_bh(pe, n, pe);
	for (unsigned i = 0; i < n; i++) {
		if (!t[i].tested)
			continue;
		t[i].p_adj = t[i].family == VD_CONFIRMATORY ? pc[i] : pe[i];
		t[i].family_size = t[i].family == VD_CONFIRMATORY ? mc : me;
		decide_one(&t[i], o);
	}
	free(pc);
	free(pe);
	return 0;
}

const char *vd_word(const struct vd_test *t, int dir)
{
	switch (t->kind) {
	case VD_NOT_TESTED: return "not tested (derived)";
	case VD_UNDECIDED: return "undecided";
	case VD_EQUIVALENT: return "equivalent";
	case VD_SAME_CONST: return "same (no variation)";
	case VD_DETERMINISTIC: return "differs in every run (deterministic)";
	case VD_DIFFERENT:
		if (dir == 0)
			return "changed";
		return (t->sign > 0) == (dir > 0) ? "better" : "worse";
	default: return "n/a";
	}
}

double vd_pct(const struct vd_test *t)
{
	if (t->e.log)
		return (exp(t->e.est) - 1) * 100;
	return t->base != 0 ? t->e.est / fabs(t->base) * 100 : NAN;
}

bool vd_fails(const struct vd_test *t, int dir, double pct)
{
	double d = vd_pct(t);

	return t->kind == VD_DIFFERENT && dir != 0 && (t->sign > 0) != (dir > 0) && isfinite(d) && fabs(d) > pct;
}

unsigned vd_looks(unsigned max_rounds, unsigned looks[VD_MAX_LOOKS])
{
	static const unsigned at[] = { 3, 5, 8, 12, 20, 30, 45, 70, 100, 150, 250, 400 };
	unsigned n = 0;

	if (max_rounds < VD_MIN_ROUNDS)
		return 0;
	for (unsigned k = 0; k < sizeof(at) / sizeof(at[0]) && at[k] < max_rounds && n < VD_MAX_LOOKS - 1; k++)
		looks[n++] = at[k];
	looks[n++] = max_rounds;
	return n;
}

double vd_look_alpha(unsigned nlooks, unsigned k)
{
	if (nlooks <= 1)
		return VD_ALPHA;
	return k == 0 ? VD_ALPHA / 2 : VD_ALPHA / 2 / (nlooks - 1);
}

double vd_stop_alpha(const unsigned looks[], unsigned nlooks, unsigned rounds)
{
	unsigned k = 0;

	while (k + 1 < nlooks && looks[k] < rounds)
		k++;
	return vd_look_alpha(nlooks, k);
}

int vd_parse_equiv(const char *s, double *pct)
{
	char *end;

	errno = 0;
	*pct = strtod(s, &end);
	if (errno || end == s || *end || !(*pct > 0) || !(*pct < 100))
		return -EINVAL;
	return 0;
}

int vd_primary_check(const char *list)
{
	bool empty = true;

	if (!*list)
		return -EINVAL;
	for (const char *p = list; *p; p++) {
		if (*p == ',') {
			if (empty)
				return -EINVAL;
			empty = true;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-')
			return -EINVAL;
		empty = false;
	}
	return empty ? -EINVAL : 0;
}

const char *vd_family_name(enum vd_family f)
{
	return f == VD_CONFIRMATORY ? "confirmatory" : f == VD_EXPLORATORY ? "exploratory" : "none";
}
