/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two profiles compared by cost per op, sampling artefacts folded (core/profdiff.h). */
#include "core/profdiff.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct profdiff_artefact profdiff_artefacts[] = {
	{ "pvm_irq_enable", "paravirtual interrupt enable: the time with interrupts off before it" },
	{ "native_irq_enable", "interrupt enable: the time with interrupts off before it" },
	{ "xen_irq_enable*", "Xen interrupt enable: the time with interrupts off before it" },
	{ "arch_local_irq_enable", "interrupt enable: the time with interrupts off before it" },
	{ "_raw_spin_unlock_irqrestore", "lock release that re-enables interrupts" },
	{ "_raw_spin_unlock_irq", "lock release that re-enables interrupts" },
	{ "finish_task_switch*", "interrupts back on after a context switch" },
	{ "*_safe_halt", "the idle halt: the CPU waiting for work" },
	{ "default_idle", "the idle loop" },
	{ NULL, NULL },
};

bool profdiff_is_artefact(const char *symbol)
{
	for (const struct profdiff_artefact *a = profdiff_artefacts; a->pattern; a++)
		if (!fnmatch(a->pattern, symbol, 0))
			return true;
	return false;
}

double profdiff_us_per_sample(const struct perf_profile *p, uint64_t ops)
{
	if (!p->hz || !ops)
		return NAN;
	return 1e6 / (double)p->hz / (double)ops;
}

/* ---- the symbols of both sides, one slot each ---- */

struct sym {
	char image[64], symbol[128];
	uint64_t s[2];           /* samples on each side (self or inclusive) */
	uint64_t self[2];        /* with chains: the samples it is the (folded) leaf of */
	bool artefact;
};

struct tab {
	struct sym *v;
	size_t n, cap;
};

static long tab_get(struct tab *t, const char *image, const char *symbol)
{
	/* symbols, not images, name a frame of a chain: image "" matches any */
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].symbol, symbol) && (!*image || !*t->v[i].image || !strcmp(t->v[i].image, image))) {
			if (!*t->v[i].image && *image)
				snprintf(t->v[i].image, sizeof(t->v[i].image), "%s", image);
			return (long)i;
		}
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 64;
		struct sym *nv = realloc(t->v, nc * sizeof(*nv));

		if (!nv)
			return -1;
		t->v = nv;
		t->cap = nc;
	}
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	snprintf(t->v[t->n].image, sizeof(t->v[t->n].image), "%s", image);
	snprintf(t->v[t->n].symbol, sizeof(t->v[t->n].symbol), "%s", symbol);
	t->v[t->n].artefact = profdiff_is_artefact(symbol);
	return (long)t->n++;
}

static const char *image_of(const struct perf_profile *p, const char *symbol)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].symbol, symbol))
			return p->v[i].image;
	return "";
}

/* the chains' inclusive samples, artefact frames dropped (their time is their caller's) */
static int from_stacks(struct tab *t, const struct perf_profile *p, int side, uint64_t *total)
{
	long seen[256];

	*total = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		const char *f = strchr(p->stacks[i].folded, ';');   /* past the comm */
		unsigned nseen = 0;
		long leaf = -1;

		*total += p->stacks[i].count;
		while (f) {
			char name[128];
			const char *end;
			size_t len;
			long k;
			unsigned u;

			f++;
			end = strchr(f, ';');
			len = end ? (size_t)(end - f) : strlen(f);
			snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), f);
			f = end;
			/* a chain of artefacts only (the idle halt) keeps its last one */
			if (profdiff_is_artefact(name) && (f || nseen))
				continue;
			if ((k = tab_get(t, image_of(p, name), name)) < 0)
				return -ENOMEM;
			leaf = k;
			for (u = 0; u < nseen && seen[u] != k; u++)
				;
			if (u == nseen && nseen < sizeof(seen) / sizeof(seen[0])) {
				seen[nseen++] = k;
				t->v[k].s[side] += p->stacks[i].count;
			}
		}
		if (leaf >= 0)
			t->v[leaf].self[side] += p->stacks[i].count;
	}
	return 0;
}

static int from_entries(struct tab *t, const struct perf_profile *p, int side, uint64_t *total)
{
	*total = p->samples;
	for (size_t i = 0; i < p->n; i++) {
		long k;

		if (!p->v[i].samples)
			continue;
		if ((k = tab_get(t, p->v[i].image, p->v[i].symbol)) < 0)
			return -ENOMEM;
		t->v[k].s[side] += p->v[i].samples;
	}
	return 0;
}

static int by_change(const void *x, const void *y)
{
	const struct profdiff_row *a = x, *b = y;
	double da = isnan(a->a_us) ? fabs(a->b_pct - a->a_pct) : fabs(a->b_us - a->a_us);
	double db = isnan(b->a_us) ? fabs(b->b_pct - b->a_pct) : fabs(b->b_us - b->a_us);

	return da < db ? 1 : da > db ? -1 : strcmp(a->symbol, b->symbol);
}

int profdiff_compute(const struct perf_profile *a, uint64_t ops_a, const struct perf_profile *b,
		     uint64_t ops_b, struct profdiff *d)
{
	struct tab t = { 0 };
	uint64_t tot[2] = { 0, 0 };
	const struct perf_profile *p[2] = { a, b };
	double per[2] = { profdiff_us_per_sample(a, ops_a), profdiff_us_per_sample(b, ops_b) };
	int rc = 0;

	memset(d, 0, sizeof(*d));
	d->inclusive = a->nstacks && b->nstacks;
	d->per_op = !isnan(per[0]) && !isnan(per[1]);
	for (int s = 0; s < 2 && !rc; s++)
		rc = d->inclusive ? from_stacks(&t, p[s], s, &tot[s]) : from_entries(&t, p[s], s, &tot[s]);
	if (rc || !(d->v = calloc(t.n + 1, sizeof(*d->v)))) {
		free(t.v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t.n; i++) {
		struct profdiff_row *r = &d->v[d->n++];

		memcpy(r->image, t.v[i].image, sizeof(r->image));
		memcpy(r->symbol, t.v[i].symbol, sizeof(r->symbol));
		/* the chains count samples the table's total may not (lost frames): the share is of
		 * the samples the rows come from */
		r->a_pct = tot[0] ? 100.0 * (double)t.v[i].s[0] / (double)tot[0] : 0;
		r->b_pct = tot[1] ? 100.0 * (double)t.v[i].s[1] / (double)tot[1] : 0;
		r->a_us = d->per_op ? (double)t.v[i].s[0] * per[0] : NAN;
		r->b_us = d->per_op ? (double)t.v[i].s[1] * per[1] : NAN;
		r->artefact = t.v[i].artefact && !d->inclusive;
		r->a_self_pct = d->inclusive && tot[0] ? 100.0 * (double)t.v[i].self[0] / (double)tot[0] : r->a_pct;
		r->b_self_pct = d->inclusive && tot[1] ? 100.0 * (double)t.v[i].self[1] / (double)tot[1] : r->b_pct;
	}
	free(t.v);
	qsort(d->v, d->n, sizeof(*d->v), by_change);
	return 0;
}

void profdiff_free(struct profdiff *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}
