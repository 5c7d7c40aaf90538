/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The changes in a history and their verdicts: hchange.h. */
#include "core/hchange.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

uint64_t hc_seed(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return h;
}

static int grow(struct hc_change **out, unsigned n, unsigned *cap, unsigned more)
{
	struct hc_change *nc;

	if (n + more <= *cap)
		return 0;
	*cap = (n + more) * 2;
	if (!(nc = realloc(*out, *cap * sizeof(*nc))))
		return -ENOMEM;
	*out = nc;
	return 0;
}

/* one series' changes appended to *out */
static int series_changes(const struct hc_series *s, unsigned idx, const struct ediv_opts *o, struct hc_change **out,
			  unsigned *n, unsigned *cap)
{
	struct ediv_change ch[EDIV_MAX_CHANGES];
	struct ediv_opts so = *o;
	bool ln = s->log_ok;
	double *y = malloc((s->n ? s->n : 1) * sizeof(*y));
	unsigned nch = 0;
	int rc;

	if (!y)
		return -ENOMEM;
	for (unsigned i = 0; i < s->n; i++)
		ln = ln && s->v[i] > 0;
	for (unsigned i = 0; i < s->n; i++)
		y[i] = ln ? log(s->v[i]) : s->v[i];
	so.seed = o->seed ^ s->seed;
	rc = ediv_detect(y, s->n, &so, ch, EDIV_MAX_CHANGES, &nch);
	free(y);
	if (rc)
		return rc;
	if (grow(out, *n, cap, nch))
		return -ENOMEM;
	for (unsigned k = 0; k < nch; k++) {
		struct hc_change *c = &(*out)[(*n)++];

		c->series = idx;
		c->lo = k ? ch[k - 1].at : 0;
		c->at = ch[k].at;
		c->hi = k + 1 < nch ? ch[k + 1].at : s->n;
		c->q = ch[k].q;
		c->p_perm = ch[k].p;
		vd_compare(s->v + c->lo, c->at - c->lo, NULL, s->v + c->at, c->hi - c->at, NULL, s->log_ok, s->fam, &c->t);
	}
	return 0;
}

int hc_find(const struct hc_series *s, unsigned ns, const struct ediv_opts *o, struct hc_change **out, unsigned *n,
	    unsigned *bad)
{
	unsigned cap = 0;
	struct vd_test *t;
	int rc;

	*out = NULL;
	*n = 0;
	for (unsigned i = 0; i < ns; i++)
		if ((rc = series_changes(&s[i], i, o, out, n, &cap))) {
			*bad = i;
			goto fail;
		}
	if (!*n)
		return 0;
	/* the corrections over every change found: vd_decide works on an array of tests */
	rc = -ENOMEM;
	if (!(t = malloc(*n * sizeof(*t))))
		goto fail;
	for (unsigned k = 0; k < *n; k++)
		t[k] = (*out)[k].t;
	if (vd_decide(t, *n, &(struct vd_opts){ VD_ALPHA, VD_EQUIV_PCT })) {
		free(t);
		goto fail;
	}
	for (unsigned k = 0; k < *n; k++)
		(*out)[k].t = t[k];
	free(t);
	return 0;
fail:
	free(*out);
	*out = NULL;
	*n = 0;
	return rc;
}

int hc_context(const double *const *a, const unsigned *na, const double *const *b, const unsigned *nb,
	       const bool *log_ok, unsigned nf, struct vd_test *out)
{
	for (unsigned i = 0; i < nf; i++)
		vd_compare(a[i], na[i], NULL, b[i], nb[i], NULL, log_ok[i], VD_EXPLORATORY, &out[i]);
	return vd_decide(out, nf, &(struct vd_opts){ VD_ALPHA, VD_EQUIV_PCT }) ? -ENOMEM : 0;
}

bool hc_rules_out_worse(const struct vd_test *t, int dir, double pct)
{
	double bound, worst;

	if (!dir || t->kind == VD_SAME_CONST)
		return true;
	if (t->kind == VD_NA || t->kind == VD_NOT_TESTED)
		return false;
	bound = t->kind == VD_DETERMINISTIC ? t->ratio : dir > 0 ? t->lo : t->hi;
	if (!isfinite(bound))
		return false;
	if (t->e.log)
		worst = (bound - 1) * 100;
	else if (t->base != 0 && isfinite(t->base))
		worst = bound / fabs(t->base) * 100;
	else
		return false;
	return dir > 0 ? worst >= -pct : worst <= pct;
}

int hc_summary(const double *v, unsigned n, bool pct, struct stats_summary *s, bool *clipped)
{
	double lo = INFINITY, hi = -INFINITY;
	int rc = pct ? stats_summarize(v, n, false, s) : stats_summarize_geo(v, n, s);

	*clipped = false;
	if (rc || !n)
		return rc ? rc : -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	if (n >= 2 && s->lo < lo) {
		s->lo = lo;
		*clipped = true;
	}
	if (n >= 2 && s->hi > hi) {
		s->hi = hi;
		*clipped = true;
	}
	return 0;
}
