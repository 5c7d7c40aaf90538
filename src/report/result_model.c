/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model of a result read back (result_read.h), once loaded: lookups by key, figures added
 * beside it (matrix --after), several results as the runs of one (rr_concat), freeing. */
#include "report/result_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/figure.h"
#include "workload/workload.h"

static void series_free(struct rr_series *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(s[i].x);
		free(s[i].x2);
		free(s[i].y);
		free(s[i].y2);
		free(s[i].agg);
		free(s[i].overhead_ns);
	}
	free(s);
}

void rr_free(struct rr_result *r)
{
	for (unsigned i = 0; i < r->nfig; i++)
		free(r->fig[i].v);
	free(r->fig);
	for (unsigned i = 0; i < r->nlat; i++)
		free(r->lat[i].h);
	free(r->lat);
	series_free(r->timeline, r->ntimeline);
	series_free(r->fill, r->nfill);
	for (unsigned i = 0; i < r->nfacts; i++) {
		free(r->facts[i].key);
		free(r->facts[i].value);
	}
	free(r->facts);
	free(r->shown);
	free(r->warns);
	free(r->cover);
	free(r->path);
	free(r->name);
	free(r->label);
	free(r->workload);
	free(r->incomplete_reason);
	memset(r, 0, sizeof(*r));
}

void rr_figure_declare(struct rr_figure *f, const struct figure *d, const char *key, const char *name)
{
	snprintf(f->key, sizeof(f->key), "%s", key);
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->unit = d->unit;
	f->dir = (enum rr_dir)d->dir;
	f->rate = figure_is_rate(d);
	f->key_fig = d->flags & FIG_KEY;
	f->primary = d->flags & FIG_PRIMARY;
	f->derived = d->flags & FIG_DERIVED;
}

int rr_figure_put(struct rr_result *r, const struct figure *d, unsigned run, double v)
{
	struct rr_figure *f = NULL;

	if (run >= r->nruns)
		return -EINVAL;
	for (unsigned i = 0; i < r->nfig && !f; i++)
		if (!strcmp(r->fig[i].key, d->key))
			f = &r->fig[i];
	if (!f) {
		struct rr_figure *nf;

		if (r->nfig >= RR_MAX_FIGURES)
			return -E2BIG;
		if (!(nf = realloc(r->fig, (r->nfig + 1) * sizeof(*nf))))
			return -ENOMEM;
		r->fig = nf;
		f = &r->fig[r->nfig];
		memset(f, 0, sizeof(*f));
		if (!(f->v = malloc(r->nruns * sizeof(double))))
			return -ENOMEM;
		for (unsigned i = 0; i < r->nruns; i++)
			f->v[i] = NAN;
		r->nfig++;
		rr_figure_declare(f, d, d->key, d->name);
	}
	f->v[run] = v;
	return 0;
}

unsigned rr_figure_flags(const char *workload, const char *key)
{
	const struct workload_ops *w = workload ? workload_find(workload) : NULL;
	const struct figure_set *fs = w ? w->figs : NULL;
	const char *dot = strchr(key, '.');

	if (!fs)
		return 0;
	for (unsigned k = 0; k < fs->nrun; k++)
		if (!strcmp(fs->run[k].key, key))
			return fs->run[k].flags;
	for (unsigned k = 0; k < fs->niter; k++)
		if (!strcmp(fs->iter[k].key, key))
			return fs->iter[k].flags;
	for (unsigned k = 0; dot && k < fs->ngroup; k++)
		if (!strcmp(fs->group[k].key, dot + 1))
			return fs->group[k].flags;
	return 0;
}

const struct rr_figure *rr_find(const struct rr_result *r, const char *key)
{
	for (unsigned i = 0; i < r->nfig; i++)
		if (!strcmp(r->fig[i].key, key))
			return &r->fig[i];
	return NULL;
}

double rr_run_value(const struct rr_result *r, const char *key, unsigned run)
{
	const struct rr_figure *f = rr_find(r, key);

	return f && run < r->nruns ? f->v[run] : NAN;
}

double rr_fact_num(const struct rr_result *r, const char *key)
{
	const struct rr_fact *f = rr_fact_find(r, key);
	char *end;
	double v;

	if (!f)
		return NAN;
	v = strtod(f->value, &end);
	return end != f->value && !*end ? v : NAN;
}

double rr_shown(const struct rr_result *r, const char *key, unsigned run)
{
	for (unsigned i = 0; i < r->nshown; i++)
		if (r->shown[i].run == run && !strcmp(r->shown[i].key, key))
			return r->shown[i].v;
	return NAN;
}

const struct rr_fact *rr_fact_find(const struct rr_result *r, const char *key)
{
	for (unsigned i = 0; i < r->nfacts; i++)
		if (!strcmp(r->facts[i].key, key))
			return &r->facts[i];
	return NULL;
}

unsigned rr_values(const struct rr_result *r, const struct rr_figure *f, double *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->nruns; i++)
		if (!isnan(f->v[i]))
			out[n++] = f->v[i];
	return n;
}

static int series_copy(struct rr_series **arr, unsigned *n, const struct rr_series *src, unsigned run)
{
	struct rr_series *ns = realloc(*arr, (*n + 1) * sizeof(*ns)), *s;
	size_t bytes = (src->n ? src->n : 1) * sizeof(double);

	if (!ns)
		return -1;
	*arr = ns;
	s = &ns[(*n)++];
	*s = *src;
	s->run = run;
	s->x = malloc(bytes);
	s->x2 = malloc(bytes);
	s->y = malloc(bytes);
	s->y2 = src->y2 ? malloc(bytes) : NULL;
	s->agg = src->agg ? malloc(bytes) : NULL;
	s->overhead_ns = src->overhead_ns ? malloc(bytes) : NULL;
	if (!s->x || !s->x2 || !s->y || (src->y2 && !s->y2) || (src->agg && !s->agg) ||
	    (src->overhead_ns && !s->overhead_ns))
		return -1;
	memcpy(s->x, src->x, src->n * sizeof(double));
	memcpy(s->x2, src->x2, src->n * sizeof(double));
	memcpy(s->y, src->y, src->n * sizeof(double));
	if (src->y2)
		memcpy(s->y2, src->y2, src->n * sizeof(double));
	if (src->agg)
		memcpy(s->agg, src->agg, src->n * sizeof(double));
	if (src->overhead_ns)
		memcpy(s->overhead_ns, src->overhead_ns, src->n * sizeof(double));
	return 0;
}

int rr_concat(struct rr_result *dst, const struct rr_result *const *src, unsigned n, const char *name)
{
	unsigned total = 0, off = 0;

	memset(dst, 0, sizeof(*dst));
	for (unsigned k = 0; k < n; k++)
		total += src[k]->nruns;
	if (!(dst->name = strdup(name)) || !(dst->path = strdup(name)) ||
	    !(dst->workload = strdup(n ? src[0]->workload : "")))
		goto oom;
	dst->nruns = total;
	for (unsigned k = 0; k < n; k++) {
		const struct rr_result *r = src[k];

		dst->ncomplete += r->ncomplete;
		if (!dst->incomplete_reason && r->incomplete_reason &&
		    !(dst->incomplete_reason = strdup(r->incomplete_reason)))
			goto oom;
		if (!dst->timeline_y) {
			dst->timeline_y = r->timeline_y;
			dst->timeline_unit = r->timeline_unit;
			dst->timeline_x = r->timeline_x;
		}
		for (unsigned f = 0; f < r->nfig; f++) {
			struct rr_figure *d = NULL;

			for (unsigned j = 0; j < dst->nfig && !d; j++)
				if (!strcmp(dst->fig[j].key, r->fig[f].key))
					d = &dst->fig[j];
			if (!d) {
				struct rr_figure *nf = realloc(dst->fig, (dst->nfig + 1) * sizeof(*nf));

				if (!nf)
					goto oom;
				dst->fig = nf;
				d = &dst->fig[dst->nfig];
				*d = r->fig[f];
				if (!(d->v = malloc((total ? total : 1) * sizeof(double))))
					goto oom;
				dst->nfig++;
				for (unsigned i = 0; i < total; i++)
					d->v[i] = NAN;
			}
			for (unsigned i = 0; i < r->nruns; i++)
				d->v[off + i] = r->fig[f].v[i];
		}
		for (unsigned s = 0; s < r->nfill; s++)
			if (series_copy(&dst->fill, &dst->nfill, &r->fill[s], off + r->fill[s].run))
				goto oom;
		for (unsigned s = 0; s < r->ntimeline; s++)
			if (series_copy(&dst->timeline, &dst->ntimeline, &r->timeline[s],
					off + r->timeline[s].run))
				goto oom;
		for (unsigned l = 0; l < r->nlat; l++) {
			struct rr_lat *d = NULL;

			for (unsigned j = 0; j < dst->nlat && !d; j++)
				if (!strcmp(dst->lat[j].name, r->lat[l].name))
					d = &dst->lat[j];
			if (!d) {
				struct rr_lat *nl = realloc(dst->lat, (dst->nlat + 1) * sizeof(*nl));

				if (!nl)
					goto oom;
				dst->lat = nl;
				d = &dst->lat[dst->nlat];
				snprintf(d->name, sizeof(d->name), "%s", r->lat[l].name);
				if (!(d->h = malloc(sizeof(*d->h))))
					goto oom;
				dst->nlat++;
				hist_init(d->h);
			}
			hist_merge(d->h, r->lat[l].h);
		}
		off += r->nruns;
	}
	if (n && src[0]->nfacts) {
		if (!(dst->facts = calloc(src[0]->nfacts, sizeof(*dst->facts))))
			goto oom;
		for (unsigned i = 0; i < src[0]->nfacts; i++) {
			dst->nfacts = i + 1;
			if (!(dst->facts[i].key = strdup(src[0]->facts[i].key)) ||
			    !(dst->facts[i].value = strdup(src[0]->facts[i].value)))
				goto oom;
		}
	}
	return 0;
oom:
	/* a series half copied has its arrays or NULL: rr_free frees both */
	return -1;
}
