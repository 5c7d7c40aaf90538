/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Result files back into a model (result_read.h). The figures are the workloads' own
 * declarations (core/figure.h); where each workload keeps its groups, iterations, latency and
 * time series is its presentation's layout (report/workload_report.h). */
#include "report/result_read.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/run.h"
#include "report/json.h"
#include "report/workload_report.h"
#include "workload/workload.h"

/* figures are counts, rates, percentages and nanoseconds: anything beyond is not a result */
#define RR_MAX_VALUE 1e19
#define RR_MAX_DEPTH 4

struct ctx {
	struct rr_result *r;
	const struct rr_layout *def;
	const struct figure_set *figs;
	char *err;
	size_t errlen;
	char where[160];          /* "runs[2].phases[1]" */
	int version;              /* the file's schema_version */
};

static int fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct ctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->where[0])
		snprintf(c->err, c->errlen, "%s: %s", c->where, msg);
	else
		snprintf(c->err, c->errlen, "%s", msg);
	return -1;
}

char *rr_printable(const char *s, char *out, size_t outlen)
{
	size_t i = 0;

	if (!outlen)
		return out;
	for (; s && *s && i + 1 < outlen; s++)
		out[i++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
	out[i] = '\0';
	return out;
}

static char *xstrdup_printable(const char *s, size_t max)
{
	char *o = malloc(max + 1);

	if (o)
		rr_printable(s, o, max + 1);
	return o;
}

/* dotted lookup through objects only */
static json_t *jpath(const json_t *o, const char *path)
{
	char key[64];
	const char *p = path;

	while (o && *p) {
		size_t n = strcspn(p, ".");

		if (n >= sizeof(key) || !json_is_object(o))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		p += n;
		if (*p == '.')
			p++;
	}
	return (json_t *)o;
}

/* 0: *v set; 1: absent (null, which is how fsbench writes a figure it could not compute, or
 * missing and optional); -1: error */
static int num_at(struct ctx *c, const json_t *o, const char *path, bool optional, double *v)
{
	json_t *x = jpath(o, path);

	if ((!x && optional) || json_is_null(x))
		return 1;
	if (!json_is_number(x))
		return fail(c, "field '%s' is missing or not a number", path);
	*v = json_number_value(x);
	if (!isfinite(*v) || *v < 0 || *v > RR_MAX_VALUE)
		return fail(c, "field '%s' is out of range (%g)", path, *v);
	return 0;
}

static struct rr_figure *fig_get(struct ctx *c, const char *group, const struct figure *d,
				 const char *key_suffix, const char *name_suffix)
{
	struct rr_result *r = c->r;
	char key[96], name[96];
	struct rr_figure *f;

	snprintf(key, sizeof(key), "%s%s%s%s", group ? group : "", group ? "." : "", d->key,
		 key_suffix ? key_suffix : "");
	snprintf(name, sizeof(name), "%s%s%s%s", group ? group : "", group ? " " : "", d->name,
		 name_suffix ? name_suffix : "");
	for (unsigned i = 0; i < r->nfig; i++)
		if (!strcmp(r->fig[i].key, key))
			return &r->fig[i];
	if (r->nfig >= RR_MAX_FIGURES) {
		fail(c, "more than %d figures", RR_MAX_FIGURES);
		return NULL;
	}
	{
		struct rr_figure *nf = realloc(r->fig, (r->nfig + 1) * sizeof(*nf));

		if (!nf) {
			fail(c, "out of memory");
			return NULL;
		}
		r->fig = nf;
	}
	f = &r->fig[r->nfig];
	memset(f, 0, sizeof(*f));
	f->v = malloc(r->nruns * sizeof(double));
	if (!f->v) {
		fail(c, "out of memory");
		return NULL;
	}
	for (unsigned i = 0; i < r->nruns; i++)
		f->v[i] = NAN;
	r->nfig++;
	rr_figure_declare(f, d, key, name);
	return f;
}

static int fig_set(struct ctx *c, unsigned run, const char *group, const struct figure *d,
		   const char *key_suffix, const char *name_suffix, double v)
{
	if (d->flags & FIG_NOCOMPARE) {
		struct rr_result *r = c->r;
		struct rr_shown *ns;

		if (r->nshown >= RR_MAX_FIGURES * 4)
			return 0;
		if (!(ns = realloc(r->shown, (r->nshown + 1) * sizeof(*ns))))
			return fail(c, "out of memory");
		r->shown = ns;
		ns = &r->shown[r->nshown++];
		snprintf(ns->key, sizeof(ns->key), "%s%s%s%s", group ? group : "", group ? "." : "", d->key,
			 key_suffix ? key_suffix : "");
		ns->run = run;
		ns->v = v;
		return 0;
	}
	struct rr_figure *f = fig_get(c, group, d, key_suffix, name_suffix);

	if (!f)
		return -1;
	if (!isnan(f->v[run]))
		return fail(c, "figure '%s' appears twice in one run (duplicate name?)", f->key);
	f->v[run] = v;
	return 0;
}

static struct rr_lat *lat_get(struct ctx *c, const char *name)
{
	struct rr_result *r = c->r;
	struct rr_lat *nl;

	for (unsigned i = 0; i < r->nlat; i++)
		if (!strcmp(r->lat[i].name, name))
			return &r->lat[i];
	if (r->nlat >= RR_MAX_GROUPS) {
		fail(c, "more than %d latency groups", RR_MAX_GROUPS);
		return NULL;
	}
	nl = realloc(r->lat, (r->nlat + 1) * sizeof(*nl));
	if (!nl) {
		fail(c, "out of memory");
		return NULL;
	}
	r->lat = nl;
	nl = &r->lat[r->nlat];
	snprintf(nl->name, sizeof(nl->name), "%s", name);
	nl->h = malloc(sizeof(*nl->h));
	if (!nl->h) {
		fail(c, "out of memory");
		return NULL;
	}
	hist_init(nl->h);
	r->nlat++;
	return nl;
}

static int lat_parse(struct ctx *c, const json_t *lat, const char *what, struct opstat *tmp)
{
	char e[256];

	if (json_latency_parse(lat, tmp, e, sizeof(e)))
		return fail(c, "%s: %s", what, e);
	return 0;
}

static struct rr_series *series_new(struct ctx *c, struct rr_series **arr, unsigned *n,
				    const char *name, unsigned run, size_t npoints)
{
	struct rr_series *ns, *s;

	if (*n >= RR_MAX_RUNS * 8) {
		fail(c, "too many series");
		return NULL;
	}
	ns = realloc(*arr, (*n + 1) * sizeof(*ns));
	if (!ns) {
		fail(c, "out of memory");
		return NULL;
	}
	*arr = ns;
	s = &ns[(*n)++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->run = run;
	s->x = calloc(npoints ? npoints : 1, sizeof(double));
	s->x2 = calloc(npoints ? npoints : 1, sizeof(double));
	s->y = calloc(npoints ? npoints : 1, sizeof(double));
	s->y2 = calloc(npoints ? npoints : 1, sizeof(double));
	if (!s->x || !s->x2 || !s->y || !s->y2) {
		fail(c, "out of memory");
		return NULL;
	}
	return s;
}

/* A group or op name, usable in a figure key and printable. */
static int check_name(struct ctx *c, const json_t *v, char *out, size_t outlen)
{
	const char *s = json_string_value(v);

	if (!s || !*s)
		return fail(c, "missing or empty name");
	if (strlen(s) >= outlen)
		return fail(c, "name is longer than %zu characters", outlen - 1);
	rr_printable(s, out, outlen);
	return 0;
}

/* Appends the samples of arr (the field named field) to s, their times shifted by offset_ns;
 * *end_ns becomes the last sample's t_ns (unchanged without samples). s has room for them. */
static int intervals_append(struct ctx *c, struct rr_series *s, const char *field, const json_t *arr,
			    size_t at, double offset_ns, double *end_ns)
{
	const json_t *e;
	size_t i;

	json_array_foreach(arr, i, e) {
		double t, dt, ops, bytes;
		int rc[4];

		snprintf(c->where + at, sizeof(c->where) - at, ".%s[%zu]", field, i);
		if (!json_is_object(e))
			return fail(c, "not an object");
		if ((rc[0] = num_at(c, e, "t_ns", false, &t)) < 0 || (rc[1] = num_at(c, e, "dt_ns", false, &dt)) < 0 ||
		    (rc[2] = num_at(c, e, "ops", false, &ops)) < 0 || (rc[3] = num_at(c, e, "bytes", false, &bytes)) < 0)
			return -1;
		if (rc[0] == 0)
			*end_ns = t;
		/* a null figure: no point */
		if (rc[0] || rc[1] || rc[2] || rc[3] || dt <= 0)
			continue;
		s->x[s->n] = (offset_ns + t) / 1e9;
		s->y[s->n] = c->def->series_y_ops ? ops / (dt / 1e9) : bytes / 1048576.0 / (dt / 1e9);
		s->x2[s->n] = ops / (dt / 1e9);
		s->n++;
	}
	c->where[at] = '\0';
	return 0;
}

static int read_intervals(struct ctx *c, unsigned run, const char *group, const json_t *arr,
			  size_t at)
{
	struct rr_series *s;
	double end_ns = 0;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return fail(c, "field '%s' is not an array", c->def->group_intervals);
	if (json_array_size(arr) > RR_MAX_ELEMS)
		return fail(c, "more than %d intervals", RR_MAX_ELEMS);
	s = series_new(c, &c->r->timeline, &c->r->ntimeline, group, run, json_array_size(arr));
	if (!s)
		return -1;
	return intervals_append(c, s, c->def->group_intervals, arr, at, 0, &end_ns);
}

/* The iterations' time series as one per run: each iteration's samples start where the
 * previous iteration's create loop ended. That end is the last sample's t_ns, not wall_ns: the
 * sampler's final snapshot is at the phase end (after the join), a little after wall_ns (the
 * slowest worker's loop end), so wall_ns would let an iteration's first point fall before the
 * previous one's last. An iteration without samples adds its wall_ns, when it has one. The
 * time between create loops (stat, read, unlink, statfs) is not on this axis. */
static int read_iter_intervals(struct ctx *c, unsigned run, const json_t *iters, size_t at)
{
	const struct rr_layout *d = c->def;
	const json_t *it, *arr;
	struct rr_series *s;
	size_t i, total = 0;
	bool any = false;
	double offset_ns = 0;

	json_array_foreach(iters, i, it) {
		arr = json_object_get(it, d->iter_intervals);
		any |= arr != NULL;
		if (json_is_array(arr))
			total += json_array_size(arr);
	}
	if (!any)
		return 0;      /* results from before fs_mark kept time series */
	if (total > RR_MAX_ELEMS)
		return fail(c, "more than %d intervals", RR_MAX_ELEMS);
	s = series_new(c, &c->r->timeline, &c->r->ntimeline, d->iter_series, run, total);
	if (!s)
		return -1;
	json_array_foreach(iters, i, it) {
		size_t here = at + (size_t)snprintf(c->where + at, sizeof(c->where) - at, "%s%s[%zu]",
						    at ? "." : "", d->iters, i);
		double end_ns = -1, wall_ns;

		if (here >= sizeof(c->where))
			here = sizeof(c->where) - 1;
		arr = json_object_get(it, d->iter_intervals);
		if (arr && !json_is_array(arr))
			return fail(c, "field '%s' is not an array", d->iter_intervals);
		if (arr && intervals_append(c, s, d->iter_intervals, arr, here, offset_ns, &end_ns))
			return -1;
		if (end_ns < 0 && d->iter_wall) {
			int rc = num_at(c, it, d->iter_wall, true, &wall_ns);

			if (rc < 0)
				return -1;
			if (rc == 0)
				end_ns = wall_ns;
		}
		if (end_ns > 0)
			offset_ns += end_ns;
	}
	c->where[at] = '\0';
	return 0;
}

static int read_groups(struct ctx *c, unsigned run, const json_t *ro, struct opstat *tmp)
{
	const struct rr_layout *d = c->def;
	const json_t *arr = json_object_get(ro, d->groups), *g;
	size_t at = strlen(c->where), i;

	if (!json_is_array(arr))
		return fail(c, "field '%s' is missing or not an array", d->groups);
	if (json_array_size(arr) > RR_MAX_GROUPS)
		return fail(c, "more than %d %s", RR_MAX_GROUPS, d->groups);
	json_array_foreach(arr, i, g) {
		char name[40];
		struct rr_lat *l;

		snprintf(c->where + at, sizeof(c->where) - at, "%s%s[%zu]", at ? "." : "", d->groups, i);
		if (!json_is_object(g))
			return fail(c, "not an object");
		if (check_name(c, json_object_get(g, "name"), name, sizeof(name)))
			return -1;
		for (unsigned k = 0; k < c->figs->ngroup; k++) {
			const struct figure *f = &c->figs->group[k];
			double v;
			int rc = num_at(c, g, f->path, f->flags & FIG_OPTIONAL, &v);

			if (rc < 0 || (rc == 0 && fig_set(c, run, name, f, NULL, NULL, v)))
				return -1;
		}
		if (d->group_lat) {
			if (lat_parse(c, json_object_get(g, d->group_lat), d->group_lat, tmp) ||
			    !(l = lat_get(c, name)))
				return -1;
			hist_merge(l->h, &tmp->lat);
		}
		if (d->group_intervals &&
		    read_intervals(c, run, name, json_object_get(g, d->group_intervals), strlen(c->where)))
			return -1;
	}
	c->where[at] = '\0';
	return 0;
}

struct op_acc {
	char name[40];
	struct hist *h;
};

/* lats: op name -> latency with buckets; each one's histogram into ops[] (this run, by name)
 * and into the result's latency groups (every run) */
static int merge_lats(struct ctx *c, const json_t *lats, struct opstat *tmp, struct op_acc *ops,
		      unsigned *nops)
{
	const char *op;
	const json_t *lv;

	json_object_foreach((json_t *)lats, op, lv) {
		char name[40];
		unsigned k;
		struct rr_lat *l;

		if (!*op || strlen(op) >= sizeof(name))
			return fail(c, "op name is empty or longer than %zu characters", sizeof(name) - 1);
		rr_printable(op, name, sizeof(name));
		if (lat_parse(c, lv, name, tmp))
			return -1;
		for (k = 0; k < *nops && strcmp(ops[k].name, name); k++)
			;
		if (k == *nops) {
			if (*nops >= RR_MAX_GROUPS)
				return fail(c, "more than %d op types", RR_MAX_GROUPS);
			snprintf(ops[k].name, sizeof(ops[k].name), "%s", name);
			if (!(ops[k].h = malloc(sizeof(struct hist))))
				return fail(c, "out of memory");
			hist_init(ops[k].h);
			(*nops)++;
		}
		hist_merge(ops[k].h, &tmp->lat);
		if (!(l = lat_get(c, name)))
			return -1;
		hist_merge(l->h, &tmp->lat);
	}
	return 0;
}

/* an iteration's point on the fill curve, when it has one: 0, or -1 */
static int fill_point(struct ctx *c, const json_t *it, struct rr_series *fill)
{
	const struct rr_layout *d = c->def;
	double x, x2, y;
	int rx, rx2, ry;

	/* fs_mark writes -1 when statfs failed, null for a figure it could not compute:
	 * such a point has no place on the curve */
	if (!json_is_integer(jpath(it, d->fill_x)) || json_integer_value(jpath(it, d->fill_x)) >= 0) {
		if ((rx = num_at(c, it, d->fill_x, false, &x)) < 0 ||
		    (rx2 = num_at(c, it, d->fill_x2, false, &x2)) < 0 ||
		    (ry = num_at(c, it, d->fill_y, false, &y)) < 0)
			return -1;
		if (!rx && !rx2 && !ry) {
			double y2 = NAN, a, o;
			int ra, rov;

			if (d->fill_y2 && num_at(c, it, d->fill_y2, true, &y2) < 0)
				return -1;
			/* optional: older results, null when not computed */
			if ((ra = num_at(c, it, d->fill_agg, true, &a)) < 0 ||
			    (rov = num_at(c, it, d->fill_overhead, true, &o)) < 0)
				return -1;
			if (ra)
				a = NAN;
			if (rov)
				o = NAN;
			fill->x[fill->n] = x;
			fill->x2[fill->n] = x2;
			fill->y[fill->n] = y;
			fill->y2[fill->n] = y2;
			fill->agg[fill->n] = a;
			fill->overhead_ns[fill->n] = o;
			fill->n++;
		}
	}
	return 0;
}

/* a run's iteration figures, combined as declared; each op type's latency mean and p99 over
 * the run; the optional figures some of its niters iterations lacked: 0, or -1 */
static int iter_figures(struct ctx *c, unsigned run, size_t niters, const struct figure_acc *acc, size_t nf,
			const struct op_acc *ops, unsigned nops)
{
	const struct rr_layout *d = c->def;

	for (size_t k = 0; k < nf; k++) {
		const struct figure *f = &c->figs->iter[k];
		double v;

		if (!acc[k].n)
			continue;
		/* the iterations of a run combine as the figure's declaration says */
		v = figure_acc_value(&acc[k], f->over_runs);
		if (fig_set(c, run, NULL, f, NULL, NULL, v))
			return -1;
	}
	for (unsigned k = 0; k < nops; k++) {
		/* the op types an iteration holds: their histograms, merged over the run */
		static const struct figure mean = {
			"latency_mean_ns", NULL,     "latency mean", "ns",
			FIG_LOWER_BETTER,  FIG_MEAN, FIG_HIST,	     FIG_OPTIONAL
		};
		struct figure p99 = { "latency_p99_ns", NULL,	  "latency p99", "ns",
				      FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST,	 FIG_OPTIONAL };

		if (!ops[k].h->count)
			continue;
		if (d->iter_lat_key_fig && !strcmp(ops[k].name, d->iter_lat_key_fig))
			p99.flags |= FIG_KEY;
		if (fig_set(c, run, ops[k].name, &mean, NULL, NULL, hist_mean(ops[k].h)) ||
		    fig_set(c, run, ops[k].name, &p99, NULL, NULL, (double)hist_percentile(ops[k].h, 99)))
			return -1;
	}
	for (size_t k = 0; k < nf; k++) {
		struct rr_coverage *cv;

		/* an optional iteration figure some iterations lacked: say how many had it */
		if (!acc[k].n || acc[k].n >= niters || c->r->ncover >= RR_MAX_FIGURES)
			continue;
		if (!(cv = realloc(c->r->cover, (c->r->ncover + 1) * sizeof(*cv))))
			return fail(c, "out of memory");
		c->r->cover = cv;
		cv = &cv[c->r->ncover++];
		snprintf(cv->key, sizeof(cv->key), "%s", c->figs->iter[k].key);
		cv->run = run;
		cv->present = acc[k].n;
		cv->of = (unsigned)niters;
	}
	return 0;
}

static int read_iters(struct ctx *c, unsigned run, const json_t *ro, struct opstat *tmp)
{
	const struct rr_layout *d = c->def;
	const json_t *arr = json_object_get(ro, d->iters), *it;
	size_t at = strlen(c->where), i, nf = 0;
	struct figure_acc acc[16] = { { 0 } };
	struct op_acc ops[RR_MAX_GROUPS];
	unsigned nops = 0;
	struct rr_series *fill = NULL;
	int rc = -1;

	nf = c->figs->niter;
	if (nf > 16)
		return fail(c, "internal: too many iteration figures");
	if (!json_is_array(arr))
		return fail(c, "field '%s' is missing or not an array", d->iters);
	if (json_array_size(arr) > RR_MAX_ELEMS)
		return fail(c, "more than %d %s", RR_MAX_ELEMS, d->iters);
	if (d->fill_y && !(fill = series_new(c, &c->r->fill, &c->r->nfill, "fill", run, json_array_size(arr))))
		return -1;
	if (fill && (!(fill->agg = calloc(json_array_size(arr) + 1, sizeof(double))) ||
		     !(fill->overhead_ns = calloc(json_array_size(arr) + 1, sizeof(double)))))
		return fail(c, "out of memory");
	json_array_foreach(arr, i, it) {
		const json_t *lats;

		snprintf(c->where + at, sizeof(c->where) - at, "%s%s[%zu]", at ? "." : "", d->iters, i);
		if (!json_is_object(it)) {
			fail(c, "not an object");
			goto out;
		}
		for (size_t k = 0; k < nf; k++) {
			const struct figure *f = &c->figs->iter[k];
			double v;
			int r = num_at(c, it, f->path, f->flags & FIG_OPTIONAL, &v);

			if (r < 0)
				goto out;
			if (r)
				continue;
			figure_acc_add(&acc[k], v);
		}
		if (fill && fill_point(c, it, fill))
			goto out;
		if (!d->iter_lats)
			continue;
		lats = json_object_get(it, d->iter_lats);
		if (!json_is_object(lats)) {
			fail(c, "field '%s' is missing or not an object", d->iter_lats);
			goto out;
		}
		/* schema 1 kept the buckets per iteration; from 2 the run has them (below) and an
		 * iteration's latency is percentiles only */
		if (c->version < 2 && merge_lats(c, lats, tmp, ops, &nops))
			goto out;
	}
	c->where[at] = '\0';
	if (c->version >= 2 && d->run_lats) {
		const json_t *lats = json_object_get(ro, d->run_lats);

		/* absent when fsbench ran out of memory at the end of the run: no latency figures */
		if (lats && !json_is_object(lats)) {
			fail(c, "field '%s' is not an object", d->run_lats);
			goto out;
		}
		snprintf(c->where + at, sizeof(c->where) - at, "%s%s", at ? "." : "", d->run_lats);
		if (lats && merge_lats(c, lats, tmp, ops, &nops))
			goto out;
	}
	c->where[at] = '\0';
	if (iter_figures(c, run, json_array_size(arr), acc, nf, ops, nops))
		goto out;
	rc = 0;
out:
	for (unsigned k = 0; k < nops; k++)
		free(ops[k].h);
	return rc;
}

/* the warnings of each phase or iteration ({id, message} objects): one entry per id per run */
static int read_warnings(struct ctx *c, unsigned run, const json_t *arr)
{
	const json_t *g, *w;
	size_t i, j;

	if (!json_is_array(arr))
		return 0;
	json_array_foreach(arr, i, g) {
		json_array_foreach(json_object_get(g, "warnings"), j, w) {
			const char *id = json_string_value(json_object_get(w, "id")),
				   *msg = json_string_value(json_object_get(w, "message"));
			struct rr_warn *rw = NULL;

			if (!id)
				continue;
			for (unsigned k = 0; k < c->r->nwarns && !rw; k++)
				if (c->r->warns[k].run == run && !strncmp(c->r->warns[k].id, id, sizeof(rw->id) - 1))
					rw = &c->r->warns[k];
			if (!rw) {
				char *p;

				if (c->r->nwarns >= RR_MAX_FIGURES)
					return 0;
				if (!(rw = realloc(c->r->warns, (c->r->nwarns + 1) * sizeof(*rw))))
					return fail(c, "out of memory");
				c->r->warns = rw;
				rw = &rw[c->r->nwarns++];
				memset(rw, 0, sizeof(*rw));
				rw->run = run;
				rw->of = (unsigned)json_array_size(arr);
				snprintf(rw->id, sizeof(rw->id), "%s", id);
				if ((p = xstrdup_printable(msg ? msg : "", sizeof(rw->msg) - 1))) {
					snprintf(rw->msg, sizeof(rw->msg), "%s", p);
					free(p);
				}
			}
			rw->phases++;
		}
	}
	return 0;
}

static int read_run_figs(struct ctx *c, unsigned run, const json_t *ro)
{
	for (unsigned k = 0; k < c->figs->nrun; k++) {
		const struct figure *f = &c->figs->run[k];
		double v;
		int r = num_at(c, ro, f->path, f->flags & FIG_OPTIONAL, &v);

		if (r < 0 || (r == 0 && fig_set(c, run, NULL, f, NULL, NULL, v)))
			return -1;
	}
	return 0;
}

static int read_run(struct ctx *c, unsigned run, const json_t *ro)
{
	const struct rr_layout *d = c->def;
	struct opstat *tmp;
	bool complete = false;
	const char *reason = NULL;
	int rc = -1;

	if (!json_is_object(ro))
		return fail(c, "a run is not an object");
	if (d->complete_field) {
		const json_t *x = json_object_get(ro, d->complete_field);

		if (!json_is_boolean(x))
			return fail(c, "field '%s' is missing or not a boolean", d->complete_field);
		complete = json_is_true(x);
		reason = json_string_value(json_object_get(ro, "stop_reason"));
	} else if (d->end_field) {
		reason = json_string_value(jpath(ro, d->end_field));
		if (!reason)
			return fail(c, "field '%s' is missing or not a string", d->end_field);
		for (const char *const *ok = d->end_ok; *ok; ok++)
			complete |= !strcmp(reason, *ok);
	}
	if (complete)
		c->r->ncomplete++;
	else if (!c->r->incomplete_reason)
		c->r->incomplete_reason = xstrdup_printable(reason ? reason : "unknown", 64);
	if (!(tmp = malloc(sizeof(*tmp))))
		return fail(c, "out of memory");
	/* run-wide figures first for fs_mark (files/sec leads), after the phases for tiotest */
	if (d->iters && read_run_figs(c, run, ro))
		goto out;
	if (d->groups && read_groups(c, run, ro, tmp))
		goto out;
	if (d->iters && read_iters(c, run, ro, tmp))
		goto out;
	if (d->iter_intervals && read_iter_intervals(c, run, json_object_get(ro, d->iters), strlen(c->where)))
		goto out;
	if (!d->iters && read_run_figs(c, run, ro))
		goto out;
	if ((d->iters || d->groups) && read_warnings(c, run, json_object_get(ro, d->iters ? d->iters : d->groups)))
		goto out;
	rc = 0;
out:
	free(tmp);
	return rc;
}

static int fact_add(struct ctx *c, const char *key, const char *value)
{
	struct rr_result *r = c->r;
	struct rr_fact *nf;

	if (r->nfacts >= RR_MAX_FACTS)
		return 0;     /* enough to say what differs; the rest is not shown */
	nf = realloc(r->facts, (r->nfacts + 1) * sizeof(*nf));
	if (!nf)
		return fail(c, "out of memory");
	r->facts = nf;
	nf[r->nfacts].key = xstrdup_printable(key, 160);
	nf[r->nfacts].value = xstrdup_printable(value, 400);
	if (!nf[r->nfacts].key || !nf[r->nfacts].value) {
		free(nf[r->nfacts].key);
		free(nf[r->nfacts].value);
		return fail(c, "out of memory");
	}
	r->nfacts++;
	return 0;
}

static void scalar_text(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.10g", json_real_value(v));
	else if (json_is_true(v))
		snprintf(buf, len, "true");
	else if (json_is_false(v))
		snprintf(buf, len, "false");
	else if (json_is_null(v))
		snprintf(buf, len, "null");
	else
		snprintf(buf, len, "...");
}

/* config and environment as flat "key = value" facts; arrays of scalars joined by spaces */
static int flatten(struct ctx *c, const char *prefix, const json_t *v, int depth)
{
	char key[160], buf[400];

	if (json_is_object(v)) {
		const char *k;
		json_t *x;

		if (depth >= RR_MAX_DEPTH)
			return fact_add(c, prefix, "{...}");
		json_object_foreach((json_t *)v, k, x) {
			snprintf(key, sizeof(key), "%s.%s", prefix, k);
			if (flatten(c, key, x, depth + 1))
				return -1;
		}
		return 0;
	}
	if (json_is_array(v)) {
		size_t i, at = 0;
		json_t *x;
		bool scalars = true;

		json_array_foreach(v, i, x)
			scalars &= !json_is_object(x) && !json_is_array(x);
		if (!scalars) {
			if (depth >= RR_MAX_DEPTH)
				return fact_add(c, prefix, "[...]");
			json_array_foreach(v, i, x) {
				if (i >= 16)
					break;
				snprintf(key, sizeof(key), "%s[%zu]", prefix, i);
				if (flatten(c, key, x, depth + 1))
					return -1;
			}
			return 0;
		}
		buf[0] = '\0';
		json_array_foreach(v, i, x) {
			char one[200];

			if (at + 2 >= sizeof(buf))
				break;
			scalar_text(x, one, sizeof(one));
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s", i ? " " : "", one);
			if (at >= sizeof(buf))
				at = sizeof(buf) - 1;
		}
		return fact_add(c, prefix, buf);
	}
	scalar_text(v, buf, sizeof(buf));
	return fact_add(c, prefix, buf);
}

static int read_head(struct ctx *c, const json_t *root)
{
	struct rr_result *r = c->r;
	const json_t *schema = json_object_get(root, "schema"), *ver = json_object_get(root, "schema_version");
	const json_t *wl = json_object_get(root, "workload"), *label = json_object_get(root, "label");
	const json_t *cfg = json_object_get(root, "config"), *env = json_object_get(root, "environment");
	const json_t *cmd = json_object_get(root, "command_line");
	const struct workload_ops *w;
	char name[64];

	if (!json_is_object(root))
		return fail(c, "not an fsbench result (the top level is not an object)");
	if (!json_is_string(schema) || strcmp(json_string_value(schema), FSB_JSON_SCHEMA))
		return fail(c, "not an fsbench result (no \"schema\": \"%s\")", FSB_JSON_SCHEMA);
	if (!json_is_integer(ver) || json_integer_value(ver) < FSB_JSON_SCHEMA_VERSION_MIN ||
	    json_integer_value(ver) > FSB_JSON_SCHEMA_VERSION)
		return fail(c, "unsupported schema_version (this fsbench reads %d to %d)", FSB_JSON_SCHEMA_VERSION_MIN,
			    FSB_JSON_SCHEMA_VERSION);
	c->version = (int)json_integer_value(ver);
	if (!json_is_string(wl))
		return fail(c, "field 'workload' is missing or not a string");
	w = workload_find(json_string_value(wl));
	/* a workload without a layout: the generic result (report/generic_report.c), its run
	 * figures and "complete" */
	if (w && w->figs) {
		static const struct rr_layout generic = { .complete_field = "complete" };

		c->def = w->report && w->report->layout ? w->report->layout : &generic;
		c->figs = w->figs;
	}
	if (!c->def)
		return fail(c, "unknown workload '%s'", rr_printable(json_string_value(wl), name, sizeof(name)));
	if (!(r->workload = strdup(json_string_value(wl))))
		return fail(c, "out of memory");
	r->timeline_y = c->def->series_y;
	r->timeline_unit = c->def->series_unit;
	r->timeline_x = c->def->series_x;
	if (label && !json_is_null(label)) {
		if (!json_is_string(label))
			return fail(c, "field 'label' is not a string");
		if (json_string_length(label) > 0 && !(r->label = xstrdup_printable(json_string_value(label), 64)))
			return fail(c, "out of memory");
	}
	if (!json_is_object(cfg))
		return fail(c, "field 'config' is missing or not an object");
	if (env && !json_is_object(env))
		return fail(c, "field 'environment' is not an object");
	if (cmd && !json_is_array(cmd))
		return fail(c, "field 'command_line' is not an array");
	if (r->label && fact_add(c, "label", r->label))
		return -1;
	if (cmd && flatten(c, "command_line", cmd, 0))
		return -1;
	if (flatten(c, "config", cfg, 0))
		return -1;
	if (env && flatten(c, "environment", env, 0))
		return -1;
	return 0;
}

static int read_root(struct ctx *c, const json_t *root)
{
	const json_t *runs;

	if (read_head(c, root))
		return -1;
	runs = json_object_get(root, "runs");
	if (runs) {
		const json_t *ro;
		size_t i;

		if (!json_is_array(runs))
			return fail(c, "field 'runs' is not an array");
		if (!json_array_size(runs))
			return fail(c, "field 'runs' is empty");
		if (json_array_size(runs) > RR_MAX_RUNS)
			return fail(c, "more than %d runs", RR_MAX_RUNS);
		c->r->nruns = (unsigned)json_array_size(runs);
		json_array_foreach(runs, i, ro) {
			snprintf(c->where, sizeof(c->where), "runs[%zu]", i);
			if (read_run(c, (unsigned)i, ro))
				return -1;
		}
		c->where[0] = '\0';
		return 0;
	}
	c->r->nruns = 1;
	return read_run(c, 0, root);
}

/* root (from a buffer or a file) into r; NULL root: je says why */
static int load(json_t *root, const json_error_t *je, const char *name, struct rr_result *r, char *err,
		size_t errlen)
{
	struct ctx c = { .r = r, .err = err, .errlen = errlen };
	const char *base = strrchr(name, '/');
	int rc;

	if (!(r->path = xstrdup_printable(name, 4096))) {
		json_decref(root);
		return fail(&c, "out of memory");
	}
	if (!root) {
		char text[120];

		return fail(&c, "not valid JSON: line %d column %d: %s", je->line, je->column,
			    rr_printable(je->text, text, sizeof(text)));
	}
	rc = read_root(&c, root);
	json_decref(root);
	if (rc)
		return -1;
	if (!(r->name = r->label ? strdup(r->label) : xstrdup_printable(base ? base + 1 : name, 64)))
		return fail(&c, "out of memory");
	if (!r->nfig)
		return fail(&c, "the result has no figures (no phase or iteration ran)");
	return 0;
}

static void too_large(char *err, size_t errlen)
{
	snprintf(err, errlen, "larger than %llu MiB: not loaded (an fsbench result is far smaller; loading "
		 "takes several times the file size in memory)", (unsigned long long)(RR_MAX_FILE_BYTES >> 20));
}

int rr_load_buffer(const char *buf, size_t len, const char *name, struct rr_result *r, char *err,
		   size_t errlen)
{
	json_error_t je;

	memset(r, 0, sizeof(*r));
	if (len > RR_MAX_FILE_BYTES) {
		too_large(err, errlen);
		return -1;
	}
	return load(json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je), &je, name, r, err, errlen);
}

struct reader {
	int fd, err;
	uint64_t bytes, max;
};

/* jansson's input callback: a read error is kept (jansson would only see the end of input) */
static size_t read_some(void *buf, size_t len, void *arg)
{
	struct reader *rd = arg;
	ssize_t n;

	do
		n = read(rd->fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		rd->err = errno;
		return (size_t)-1;
	}
	rd->bytes += (uint64_t)n;
	/* a file that grew past the limit after the size check */
	if (rd->bytes > rd->max) {
		rd->err = EFBIG;
		return (size_t)-1;
	}
	return (size_t)n;
}

json_t *rr_json_load(int fd, uint64_t max, json_error_t *je, int *err)
{
	struct reader rd = { .fd = fd, .max = max };
	json_t *root = json_load_callback(read_some, &rd, JSON_REJECT_DUPLICATES, je);

	*err = rd.err;
	if (rd.err) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int rr_load_file(const char *path, struct rr_result *r, char *err, size_t errlen)
{
	int fd, rc;

	memset(r, 0, sizeof(*r));
	/* O_NONBLOCK: a FIFO named as a result must not hang the command */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	rc = rr_load_fd(fd, path, r, err, errlen);
	close(fd);
	return rc;
}

int rr_load_fd(int fd, const char *name, struct rr_result *r, char *err, size_t errlen)
{
	int rerr;
	struct stat st;
	json_error_t je;
	json_t *root;

	memset(r, 0, sizeof(*r));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		return -1;
	}
	if ((unsigned long long)st.st_size > RR_MAX_FILE_BYTES) {
		too_large(err, errlen);
		return -1;
	}
	/* parsed as it is read: the text is never held whole next to the tree */
	root = rr_json_load(fd, RR_MAX_FILE_BYTES, &je, &rerr);
	if (rerr == EFBIG) {
		too_large(err, errlen);
		return -1;
	}
	if (rerr) {
		snprintf(err, errlen, "cannot read: %s", strerror(rerr));
		return -1;
	}
	return load(root, &je, name, r, err, errlen);
}
