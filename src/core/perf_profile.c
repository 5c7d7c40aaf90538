/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The profile model (core/perf_profile.h): order and percentages, merge, copy, free; the
 * (app, image, symbol) table that the accounting and the merge share. */
#include "core/perf_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t etab_hash(const char *app, const char *image, const char *sym)
{
	uint64_t h = UINT64_C(14695981039346656037);
	const char *parts[3] = { app, image, sym };

	for (int i = 0; i < 3; i++) {
		for (const char *c = parts[i]; *c; c++)
			h = (h ^ (unsigned char)*c) * UINT64_C(1099511628211);
		h = (h ^ 0xff) * UINT64_C(1099511628211);
	}
	return perf_profile_mix(h);
}

long perf_profile_etab_get(struct perf_profile_etab *e, const char *app, const char *image, const char *sym)
{
	size_t j;

	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;
		struct perf_entry *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return -1;
		e->v = v;
		e->cap = cap;
	}
	if ((e->n + 1) * 2 > e->hcap) {
		size_t cap = e->hcap ? e->hcap * 2 : 512;
		size_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -1;
		for (size_t i = 0; i < e->n; i++) {
			for (j = etab_hash(e->v[i].app, e->v[i].image, e->v[i].symbol) & (cap - 1); h[j];
			     j = (j + 1) & (cap - 1))
				;
			h[j] = i + 1;
		}
		free(e->h);
		e->h = h;
		e->hcap = cap;
	}
	for (j = etab_hash(app, image, sym) & (e->hcap - 1); e->h[j]; j = (j + 1) & (e->hcap - 1)) {
		const struct perf_entry *x = &e->v[e->h[j] - 1];

		if (!strcmp(x->symbol, sym) && !strcmp(x->image, image) && !strcmp(x->app, app))
			return (long)e->h[j] - 1;
	}
	memset(&e->v[e->n], 0, sizeof(e->v[0]));
	snprintf(e->v[e->n].app, sizeof(e->v[0].app), "%s", app);
	snprintf(e->v[e->n].image, sizeof(e->v[0].image), "%s", image);
	snprintf(e->v[e->n].symbol, sizeof(e->v[0].symbol), "%s", sym);
	e->h[j] = e->n + 1;
	return (long)e->n++;
}

static int by_name(const void *a, const void *b)
{
	const struct perf_entry *x = a, *y = b;
	int c = strcmp(x->image, y->image);

	if (!c)
		c = strcmp(x->symbol, y->symbol);
	return c ? c : strcmp(x->app, y->app);
}

static int by_samples(const void *a, const void *b)
{
	const struct perf_entry *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->inclusive != y->inclusive)
		return x->inclusive > y->inclusive ? -1 : 1;
	return by_name(a, b);
}

static int by_inclusive(const void *a, const void *b, void *arg)
{
	const struct perf_entry *v = arg, *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->inclusive != y->inclusive)
		return x->inclusive > y->inclusive ? -1 : 1;
	return by_samples(x, y);
}

int perf_profile_other_cmp(const void *a, const void *b)
{
	const struct perf_other *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

static int other_by_samples(const void *a, const void *b)
{
	const struct perf_other *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return perf_profile_other_cmp(a, b);
}

static int stack_by_name(const void *a, const void *b)
{
	return strcmp(((const struct perf_stack *)a)->folded, ((const struct perf_stack *)b)->folded);
}

static int stack_by_count(const void *a, const void *b)
{
	const struct perf_stack *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->folded, y->folded);
}

/* The order and percentages of a profile whose counts are final. inc: room for n indices
 * (taken over; may be NULL without callgraph). */
void perf_profile_order(struct perf_profile *p, size_t *inc)
{
	double table = (double)p->samples, machine = (double)(p->samples + p->other_samples);

	qsort(p->v, p->n, sizeof(*p->v), by_samples);
	p->nself = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].samples)
			p->nself = i + 1;
		p->v[i].pct = table > 0 ? 100.0 * (double)p->v[i].samples / table : 0;
		p->v[i].inclusive_pct = table > 0 ? 100.0 * (double)p->v[i].inclusive / table : 0;
	}
	free(p->inc);
	p->inc = inc;
	p->ninc = 0;
	for (size_t i = 0; inc && i < p->n; i++)
		if (p->v[i].inclusive)
			inc[p->ninc++] = i;
	if (p->ninc)
		qsort_r(p->inc, p->ninc, sizeof(*p->inc), by_inclusive, p->v);
	qsort(p->other, p->nother, sizeof(*p->other), other_by_samples);
	for (size_t i = 0; i < p->nother; i++)
		p->other[i].pct = machine > 0 ? 100.0 * (double)p->other[i].samples / machine : 0;
	p->other_pct = machine > 0 ? 100.0 * (double)p->other_samples / machine : 0;
	if (p->nstacks)
		qsort(p->stacks, p->nstacks, sizeof(*p->stacks), stack_by_count);
}

/* Merges entries of equal text in place (sorted by text first); the strings of the dropped
 * ones are freed. Returns the new count. */
size_t perf_profile_stacks_merge(struct perf_stack *st, size_t n)
{
	size_t m = 0;

	if (n)
		qsort(st, n, sizeof(*st), stack_by_name);
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(st[m - 1].folded, st[i].folded)) {
			st[m - 1].count += st[i].count;
			free(st[i].folded);
		} else {
			st[m++] = st[i];
		}
	}
	return m;
}

int perf_profile_merge(struct perf_profile **dstp, struct perf_profile *src)
{
	struct perf_profile *d = *dstp;
	struct perf_profile_etab e = { 0 };
	struct perf_other *o;
	struct perf_stack *st;
	size_t *inc = NULL, n, m;

	if (!src)
		return 0;
	if (!d) {
		*dstp = src;
		return 0;
	}
	/* everything that can fail before *dst changes */
	o = malloc((d->nother + src->nother + 1) * sizeof(*o));
	st = malloc((d->nstacks + src->nstacks + 1) * sizeof(*st));
	if (!o || !st)
		goto nomem;
	for (int side = 0; side < 2; side++) {
		const struct perf_profile *x = side ? src : d;

		for (size_t i = 0; i < x->n; i++) {
			long k = perf_profile_etab_get(&e, x->v[i].app, x->v[i].image, x->v[i].symbol);

			if (k < 0)
				goto nomem;
			e.v[k].samples += x->v[i].samples;
			e.v[k].inclusive += x->v[i].inclusive;
		}
	}
	if (!e.v && !(e.v = calloc(1, sizeof(*e.v))))
		goto nomem;
	if ((d->callgraph || src->callgraph) && !(inc = malloc((e.n ? e.n : 1) * sizeof(*inc))))
		goto nomem;
	free(e.h);
	free(d->v);
	d->v = e.v;
	d->n = e.n;
	/* other processes: the same pid and name add up */
	if (d->nother)
		memcpy(o, d->other, d->nother * sizeof(*o));
	if (src->nother)
		memcpy(o + d->nother, src->other, src->nother * sizeof(*o));
	n = d->nother + src->nother;
	qsort(o, n, sizeof(*o), perf_profile_other_cmp);
	m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !perf_profile_other_cmp(&o[m - 1], &o[i]))
			o[m - 1].samples += o[i].samples;
		else
			o[m++] = o[i];
	}
	free(d->other);
	d->other = o;
	d->nother = m;
	/* the stacks' strings move over; duplicates are freed */
	if (d->nstacks)
		memcpy(st, d->stacks, d->nstacks * sizeof(*st));
	if (src->nstacks)
		memcpy(st + d->nstacks, src->stacks, src->nstacks * sizeof(*st));
	free(d->stacks);
	d->stacks = st;
	d->nstacks = perf_profile_stacks_merge(st, d->nstacks + src->nstacks);
	d->samples += src->samples;
	d->other_samples += src->other_samples;
	d->idle_samples += src->idle_samples;
	d->lost += src->lost;
	d->wall_ns += src->wall_ns;
	d->callgraph = d->callgraph || src->callgraph;
	if (src->ncpus > d->ncpus)
		d->ncpus = src->ncpus;
	perf_profile_order(d, inc);
	src->nstacks = 0;
	perf_profile_free(src);
	return 0;
nomem:
	free(e.v);
	free(e.h);
	free(o);
	free(st);
	perf_profile_free(src);
	return -ENOMEM;
}

struct perf_profile *perf_profile_dup(const struct perf_profile *p)
{
	struct perf_profile *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	*c = *p;
	c->v = malloc((p->n + 1) * sizeof(*c->v));
	c->inc = malloc((p->ninc + 1) * sizeof(*c->inc));
	c->other = malloc((p->nother + 1) * sizeof(*c->other));
	c->stacks = calloc(p->nstacks + 1, sizeof(*c->stacks));
	c->nstacks = 0;
	if (!c->v || !c->inc || !c->other || !c->stacks)
		goto fail;
	if (p->n)
		memcpy(c->v, p->v, p->n * sizeof(*c->v));
	if (p->ninc)
		memcpy(c->inc, p->inc, p->ninc * sizeof(*c->inc));
	if (p->nother)
		memcpy(c->other, p->other, p->nother * sizeof(*c->other));
	for (size_t i = 0; i < p->nstacks; i++) {
		c->stacks[i].count = p->stacks[i].count;
		if (!(c->stacks[i].folded = strdup(p->stacks[i].folded)))
			goto fail;
		c->nstacks = i + 1;
	}
	return c;
fail:
	perf_profile_free(c);
	return NULL;
}

void perf_profile_free(struct perf_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstacks; i++)
		free(p->stacks[i].folded);
	free(p->stacks);
	free(p->v);
	free(p->inc);
	free(p->other);
	free(p);
}
