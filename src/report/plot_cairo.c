/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drawing results with cairo: panels with linear or log axes, lines, bars, legend. */
#include "report/plot_cairo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "report/plot_cairo_int.h"
#include "report/plot_dl.h"

/* Under LeakSanitizer (make asan): fontconfig, loaded by cairo's font selection, keeps its
 * configuration until FcFini(), which only a program that owns fontconfig may call. Those
 * blocks are not fsbench's; everything of cairo's is released (see plot_render). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\n";
}

/* cairo's functions (plot_dl.h): set by plot_load, which every entry point calls first */
static const struct plot_dl *cx;

const char *const plot_type_name[] = { "auto", "fill", "timeline", "latency", "compare" };

#define FONT "DejaVu Sans"
#define NCOLORS 10
/* Tableau 10: distinguishable, also for the common colour blindnesses */
static const double palette[NCOLORS][3] = {
	{ 0.12, 0.47, 0.71 }, { 1.00, 0.50, 0.05 }, { 0.17, 0.63, 0.17 }, { 0.84, 0.15, 0.16 },
	{ 0.58, 0.40, 0.74 }, { 0.55, 0.34, 0.29 }, { 0.89, 0.47, 0.76 }, { 0.50, 0.50, 0.50 },
	{ 0.74, 0.74, 0.13 }, { 0.09, 0.75, 0.81 },
};

struct panel {
	double x, y, w, h;       /* the plotting area inside the axes */
	struct axis ax, ay;
	char title[160];
};

static void color(cairo_t *cr, unsigned i, double alpha)
{
	const double *c = palette[i % NCOLORS];

	cx->set_source_rgba(cr, c[0], c[1], c[2], alpha);
}

static double map(const struct axis *a, double v, double from, double len)
{
	double t;

	if (a->log) {
		v = v > 0 ? log10(v) : log10(a->lo);
		t = (v - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	} else {
		t = (v - a->lo) / (a->hi - a->lo);
	}
	return from + t * len;
}

static double px(const struct panel *p, double v)
{
	return map(&p->ax, v, p->x, p->w);
}

static double py(const struct panel *p, double v)
{
	return p->y + p->h - (map(&p->ay, v, 0, p->h));
}

static void text(cairo_t *cr, double x, double y, const char *s, double size, double ax, double ay, bool bold)
{
	cairo_text_extents_t e;

	cx->select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
			     bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cx->set_font_size(cr, size);
	cx->text_extents(cr, s, &e);
	cx->move_to(cr, x - e.x_bearing - ax * e.width, y - e.y_bearing - ay * e.height);
	cx->show_text(cr, s);
}

static void draw_axes(cairo_t *cr, const struct panel *p)
{
	char buf[48];

	cx->set_source_rgb(cr, 1, 1, 1);
	cx->rectangle(cr, p->x, p->y, p->w, p->h);
	cx->fill(cr);
	cx->set_line_width(cr, 1);
	/* grid and ticks */
	for (int axis = 0; axis < 2; axis++) {
		const struct axis *a = axis ? &p->ay : &p->ax;
		double v, step, rt[32];
		unsigned nrt = 0;

		if (a->hide)
			continue;
		if (a->log)
			step = 0;
		else
			step = nice_step(a->hi - a->lo, axis ? 6 : 8);
		if (a->kind == 3) {
			nrt = ratio_ticks(a, rt, 32);
			step = nrt >= 2 && a->hi / a->lo < 6 ? rt[1] - rt[0] : 0;
		}
		for (int i = 0; i < 200; i++) {
			double pos;

			if (a->kind == 3) {
				if ((unsigned)i >= nrt)
					break;
				v = rt[i];
			} else if (a->log) {
				v = a->lo * pow(10, i);
			} else {
				v = a->lo + i * step;
			}
			if (v > a->hi * (1 + 1e-9) + (a->log ? 0 : 1e-9 * step))
				break;
			pos = axis ? py(p, v) : px(p, v);
			cx->set_source_rgb(cr, 0.88, 0.88, 0.88);
			if (axis) {
				cx->move_to(cr, p->x, pos);
				cx->line_to(cr, p->x + p->w, pos);
			} else {
				cx->move_to(cr, pos, p->y);
				cx->line_to(cr, pos, p->y + p->h);
			}
			cx->stroke(cr);
			cx->set_source_rgb(cr, 0.2, 0.2, 0.2);
			fmt_tick(a, v, step, buf, sizeof(buf));
			if (axis)
				text(cr, p->x - 6, pos, buf, 11, 1, 0.5, false);
			else
				text(cr, pos, p->y + p->h + 6, buf, 11, 0.5, 0, false);
		}
	}
	cx->set_source_rgb(cr, 0.2, 0.2, 0.2);
	cx->rectangle(cr, p->x, p->y, p->w, p->h);
	cx->stroke(cr);
	if (p->ax.label)
		text(cr, p->x + p->w / 2, p->y + p->h + 24, p->ax.label, 12, 0.5, 0, false);
	if (p->ay.label) {
		cx->save(cr);
		cx->translate(cr, p->x - 62, p->y + p->h / 2);
		cx->rotate(cr, -M_PI / 2);
		text(cr, 0, 0, p->ay.label, 12, 0.5, 0.5, false);
		cx->restore(cr);
	}
	if (p->title[0])
		text(cr, p->x + p->w / 2, p->y - 8, p->title, 13, 0.5, 1, true);
}

/* n panels in a grid under the title and legend band */
static void layout(struct panel *p, unsigned n, double w, double h, double top)
{
	unsigned cols = n <= 1 ? 1 : n <= 4 ? 2 : 3, rows = (n + cols - 1) / cols;
	double cw = w / cols, ch = (h - top) / rows;

	for (unsigned i = 0; i < n; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		p[i].x = (i % cols) * cw + 88;
		p[i].y = top + (i / cols) * ch + 26;
		p[i].w = cw - 88 - 24;
		p[i].h = ch - 26 - 50;
	}
}

/* one entry per name, centred at y: a colour swatch each */
static void legend_names(cairo_t *cr, const char *const *names, unsigned n, double w, double y)
{
	double total = 0, x;
	cairo_text_extents_t e;

	cx->select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cx->set_font_size(cr, 13);
	for (unsigned i = 0; i < n; i++) {
		cx->text_extents(cr, names[i], &e);
		total += 30 + e.x_advance + 24;
	}
	x = total < w ? (w - total) / 2 : 10;
	for (unsigned i = 0; i < n; i++) {
		color(cr, i, 1);
		cx->rectangle(cr, x, y - 6, 22, 12);
		cx->fill(cr);
		cx->set_source_rgb(cr, 0.1, 0.1, 0.1);
		text(cr, x + 30, y, names[i], 13, 0, 0.5, false);
		cx->text_extents(cr, names[i], &e);
		x += 30 + e.x_advance + 24;
	}
}

static void legend(cairo_t *cr, const struct rr_result *res, unsigned nres, double w, double y)
{
	const char *names[256] = { 0 };
	unsigned n = nres < 256 ? nres : 256;

	for (unsigned i = 0; i < n; i++)
		names[i] = res[i].name;
	legend_names(cr, names, n, w, y);
}

static void polyline(cairo_t *cr, const struct panel *p, const double *x, const double *y, unsigned n,
		     unsigned ci, double alpha, bool marks, double width)
{
	bool pen = false;

	cx->save(cr);
	cx->rectangle(cr, p->x, p->y, p->w, p->h);
	cx->clip(cr);
	color(cr, ci, alpha);
	cx->set_line_width(cr, width);
	for (unsigned k = 0; k < n; k++) {
		if (isnan(y[k]) || isnan(x[k])) {
			pen = false;
			continue;
		}
		if (pen)
			cx->line_to(cr, px(p, x[k]), py(p, y[k]));
		else
			cx->move_to(cr, px(p, x[k]), py(p, y[k]));
		pen = true;
	}
	cx->stroke(cr);
	if (marks && n <= 200) {
		for (unsigned k = 0; k < n; k++) {
			if (isnan(y[k]) || isnan(x[k]))
				continue;
			cx->arc(cr, px(p, x[k]), py(p, y[k]), 3, 0, 2 * M_PI);
			cx->fill(cr);
		}
	}
	cx->restore(cr);
}

/* The fill's second y: extents per file (fs_mark --layout), its axis on the right from 1 (one
 * extent per file, no fragmentation) up; dashed lines, broken where an iteration has none. */
static void draw_fill_y2(cairo_t *cr, const struct panel *p0, const struct rr_result *res, unsigned nres,
			 bool by_count, double y2max)
{
	struct panel p = *p0;
	char buf[48];
	double step, dash[] = { 6, 4 };

	memset(&p.ay, 0, sizeof(p.ay));
	p.ay.label = "extents per file (dashed)";
	axis_fit(&p.ay, 0, y2max > 1 ? y2max : 2, true);
	step = nice_step(p.ay.hi - p.ay.lo, 6);
	cx->set_source_rgb(cr, 0.2, 0.2, 0.2);
	for (int i = 0; i < 200; i++) {
		double v = p.ay.lo + i * step;

		if (v > p.ay.hi * (1 + 1e-9) + 1e-9 * step)
			break;
		fmt_tick(&p.ay, v, step, buf, sizeof(buf));
		text(cr, p.x + p.w + 6, py(&p, v), buf, 11, 0, 0.5, false);
	}
	cx->save(cr);
	cx->translate(cr, p.x + p.w + 44, p.y + p.h / 2);
	cx->rotate(cr, M_PI / 2);
	text(cr, 0, 0, p.ay.label, 12, 0.5, 0.5, false);
	cx->restore(cr);
	cx->save(cr);
	cx->rectangle(cr, p.x, p.y, p.w, p.h);
	cx->clip(cr);
	cx->set_dash(cr, dash, 2, 0);
	cx->set_line_width(cr, 1.5);
	for (unsigned i = 0; i < nres; i++)
		for (unsigned s = 0; s < res[i].nfill; s++) {
			const struct rr_series *se = &res[i].fill[s];
			const double *x = by_count ? se->x2 : se->x;
			bool open = false;

			color(cr, i, s ? 0.45 : 1);
			for (unsigned k = 0; k < se->n; k++) {
				if (isnan(se->y2[k])) {
					open = false;
					continue;
				}
				if (open)
					cx->line_to(cr, px(&p, x[k]), py(&p, se->y2[k]));
				else
					cx->move_to(cr, px(&p, x[k]), py(&p, se->y2[k]));
				open = true;
			}
			cx->stroke(cr);
		}
	cx->restore(cr);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the q-quantile of sorted v[0..n), linear between order statistics (R's type 7) */
static double quantile(const double *v, unsigned n, double q)
{
	double h = (n - 1) * q;
	unsigned lo = (unsigned)h;

	return lo + 1 < n ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

#define FILL_BINS 50

/* the median step between a run's consecutive iterations along x (0 when none) */
static double median_step(const struct rr_result *res, unsigned nres, bool by_count)
{
	double *d = NULL, m = 0;
	size_t n = 0, cap = 0;

	for (unsigned i = 0; i < nres; i++)
		for (unsigned s = 0; s < res[i].nfill; s++) {
			const struct rr_series *se = &res[i].fill[s];
			const double *x = by_count ? se->x2 : se->x;

			for (unsigned k = 1; k < se->n; k++) {
				if (!(x[k] > x[k - 1]))
					continue;
				if (n == cap) {
					double *nd = realloc(d, (cap = cap ? 2 * cap : 256) * sizeof(double));

					if (!nd) {
						free(d);
						return 0;
					}
					d = nd;
				}
				d[n++] = x[k] - x[k - 1];
			}
		}
	if (n) {
		qsort(d, n, sizeof(double), cmp_dbl);
		m = quantile(d, (unsigned)n, 0.5);
	}
	free(d);
	return m;
}

/* --band: per result, the iterations of all its runs binned by x, each bin's median drawn as
 * the curve (at the median x of its points) and its quartiles as the band. A bin is as wide as
 * the runs' median step between iterations, at least 1 % (FSUse%) or 1/FILL_BINS of the range
 * (Count), so that each bin holds about one iteration of every run. Neighbouring iterations of
 * one run jump (short iterations, writeback bursts); the median over runs shows the curve. */
static int draw_fill_band(cairo_t *cr, const struct panel *p, const struct rr_result *res, unsigned nres,
			  const struct plot_opts *o, bool by_count, double xmax)
{
	double width = fmax(by_count ? (xmax > 0 ? xmax / FILL_BINS : 1) : 1, median_step(res, nres, by_count));
	unsigned nb = (unsigned)fmin(100000, floor(fmax(xmax, 0) / width)) + 1;
	double *bx = malloc(nb * sizeof(double)), *md = malloc(nb * sizeof(double)),
	       *q1 = malloc(nb * sizeof(double)), *q3 = malloc(nb * sizeof(double)), *v = NULL, *vx = NULL;
	size_t cap = 0;
	int rc = -1;

	if (!bx || !md || !q1 || !q3)
		goto out;
	for (unsigned i = 0; i < nres; i++) {
		unsigned n = 0;

		for (unsigned b = 0; b < nb; b++) {
			double lo = b * width, hi = (b + 1) * width;
			size_t k = 0;

			for (unsigned s = 0; s < res[i].nfill; s++) {
				const struct rr_series *se = &res[i].fill[s];
				const double *y = o->fill_y ? se->agg : se->y;

				for (unsigned j = 0; y && j < se->n; j++) {
					double x = by_count ? se->x2[j] : se->x[j];

					if (isnan(y[j]) || isnan(x) || !(x >= lo && (x < hi || b + 1 == nb)))
						continue;
					if (k == cap) {
						double *nv = realloc(v, (cap ? 2 * cap : 256) * sizeof(double)),
						       *nx = nv ? realloc(vx, (cap ? 2 * cap : 256) * sizeof(double)) : NULL;

						if (nv)
							v = nv;
						if (!nv || !nx)
							goto out;
						vx = nx;
						cap = cap ? 2 * cap : 256;
					}
					vx[k] = x;
					v[k++] = y[j];
				}
			}
			if (!k)
				continue;
			qsort(v, k, sizeof(double), cmp_dbl);
			qsort(vx, k, sizeof(double), cmp_dbl);
			bx[n] = quantile(vx, (unsigned)k, 0.5);
			md[n] = quantile(v, (unsigned)k, 0.5);
			q1[n] = quantile(v, (unsigned)k, 0.25);
			q3[n] = quantile(v, (unsigned)k, 0.75);
			n++;
		}
		if (!n)
			continue;
		cx->save(cr);
		cx->rectangle(cr, p->x, p->y, p->w, p->h);
		cx->clip(cr);
		color(cr, i, 0.22);
		cx->move_to(cr, px(p, bx[0]), py(p, q3[0]));
		for (unsigned k = 1; k < n; k++)
			cx->line_to(cr, px(p, bx[k]), py(p, q3[k]));
		for (unsigned k = n; k-- > 0;)
			cx->line_to(cr, px(p, bx[k]), py(p, q1[k]));
		cx->close_path(cr);
		cx->fill(cr);
		cx->restore(cr);
		polyline(cr, p, bx, md, n, i, 1, n <= 100, 2.5);
	}
	rc = 0;
out:
	free(bx);
	free(md);
	free(q1);
	free(q3);
	free(v);
	free(vx);
	return rc;
}

/* Counts along FSUse% (its range) or Count: a run that hardly fills the filesystem (tmpfs, a
 * big disk) has one FSUse% value. */
static bool fill_by_count(const struct rr_result *res, unsigned nres, const struct plot_opts *o)
{
	double umin = INFINITY, umax = -INFINITY;

	for (unsigned i = 0; i < nres; i++)
		for (unsigned s = 0; s < res[i].nfill; s++)
			for (unsigned k = 0; k < res[i].fill[s].n; k++) {
				umin = fmin(umin, res[i].fill[s].x[k]);
				umax = fmax(umax, res[i].fill[s].x[k]);
			}
	return o->fill_x == 2 || (o->fill_x == 0 && !(umax - umin >= 2));
}

/* The ranges of the curves (x, y, the longest series), whether a result has several runs, and
 * --layout's second axis (y2max, 0 without); -1 with err for a result with nothing to draw. */
static int fill_ranges(const struct rr_result *res, unsigned nres, const struct plot_opts *o, bool by_count,
		       double *xmax, double *ymax, unsigned *maxn, bool *several, double *y2max, char *err,
		       size_t errlen)
{
	for (unsigned i = 0; i < nres; i++) {
		if (!res[i].nfill) {
			snprintf(err, errlen,
				 "'%s' has no fs_mark iterations to draw (--type fill is for fs_mark)",
				 res[i].path);
			return -1;
		}
		*several |= res[i].nfill > 1;
		for (unsigned s = 0; s < res[i].nfill; s++) {
			const struct rr_series *se = &res[i].fill[s];
			const double *y = o->fill_y ? se->agg : se->y;
			bool any = false;

			*maxn = se->n > *maxn ? se->n : *maxn;
			for (unsigned k = 0; y && k < se->n; k++) {
				double x = by_count ? se->x2[k] : se->x[k];

				if (isnan(y[k]))
					continue;
				any = true;
				*xmax = x > *xmax ? x : *xmax;
				*ymax = y[k] > *ymax ? y[k] : *ymax;
			}
			if (!any && se->n && o->fill_y) {
				snprintf(err, errlen,
					 "'%s' has no aggregate files/sec per iteration (a result of an "
					 "older fsbench)",
					 res[i].path);
				return -1;
			}
			/* fs_mark --layout: extents per file on a second axis, on the right, dashed */
			for (unsigned k = 0; se->y2 && k < se->n; k++)
				if (!isnan(se->y2[k]))
					*y2max = fmax(fmax(*y2max, se->y2[k]), 1);
		}
	}
	return 0;
}

/* What each result's fills left dirty at their end (after.sync_mib, written by the sync after
 * the run) and that sync's time, the mean over its runs, top right in its colour. */
static void draw_fill_after(cairo_t *cr, const struct panel *p, const struct rr_result *res, unsigned nres)
{
	for (unsigned i = 0, line = 0; i < nres; i++) {
		const struct rr_figure *mib = rr_find(&res[i], "after.sync_mib"),
				       *sec = rr_find(&res[i], "after.sync_s");
		double v[2] = { 0, 0 };
		unsigned n[2] = { 0, 0 };
		char buf[160];

		for (unsigned r = 0; r < res[i].nruns; r++)
			for (int k = 0; k < 2; k++) {
				const struct rr_figure *f = k ? sec : mib;

				if (f && !isnan(f->v[r])) {
					v[k] += f->v[r];
					n[k]++;
				}
			}
		if (!n[0] || !n[1])
			continue;
		snprintf(buf, sizeof(buf), "%s%sleft dirty at the end: %.0f MiB, synced in %.2f s%s",
			 nres > 1 ? res[i].name : "", nres > 1 ? ": " : "", v[0] / n[0], v[1] / n[1],
			 n[0] > 1 ? " (mean of its runs)" : "");
		color(cr, i, 1);
		text(cr, p->x + p->w - 8, p->y + 10 + 16 * line++, buf, 11, 1, 0, false);
	}
}

static int draw_fill(cairo_t *cr, const struct rr_result *res, unsigned nres, const struct plot_opts *o,
		     double top, char *err, size_t errlen)
{
	struct panel p;
	double xmax = 0, ymax = 0, *ys = NULL, y2max = 0;
	unsigned maxn = 1;
	bool by_count = fill_by_count(res, nres, o), several = false;
	char ylabel[128];

	layout(&p, 1, o->width, o->height, top);
	if (fill_ranges(res, nres, o, by_count, &xmax, &ymax, &maxn, &several, &y2max, err, errlen))
		return -1;
	if (!(ys = malloc(maxn * sizeof(double))))
		return snprintf(err, errlen, "out of memory"), -1;
	p.ax.label = by_count ? "files created (Count)" : "filesystem used (FSUse%)";
	snprintf(ylabel, sizeof(ylabel), "%s",
		 o->fill_y ? "files/sec aggregate (files / iteration time)"
			   : "files/sec (fs_mark: the threads' rates summed)");
	if (o->smooth > 1)
		snprintf(ylabel + strlen(ylabel), sizeof(ylabel) - strlen(ylabel), ", moving median of %u", o->smooth);
	p.ay.label = ylabel;
	if (y2max > 0)
		p.w -= 56;
	if (o->band)
		snprintf(p.title, sizeof(p.title), "bold: each %s's median over its runs per %s, band: their "
			 "quartiles; faint: the runs", nres > 1 ? "line colour" : "result",
			 by_count ? "Count bin" : "FSUse%");
	else if (several)
		snprintf(p.title, sizeof(p.title), "bold: each %s's %s; light: its other runs",
			 nres > 1 ? "line colour" : "result", o->bold_what ? o->bold_what : "first run");
	axis_fit(&p.ax, 0, by_count ? xmax : (xmax > 0 ? xmax : 100), true);
	axis_fit(&p.ay, 0, ymax, true);
	draw_axes(cr, &p);
	/* the light runs first, the bold one over them; with the band, every run faint under it */
	for (unsigned i = 0; i < nres && o->band; i++)
		for (unsigned s = 0; s < res[i].nfill; s++) {
			const struct rr_series *se = &res[i].fill[s];

			polyline(cr, &p, by_count ? se->x2 : se->x, o->fill_y ? se->agg : se->y, se->n, i, 0.15, false,
				 0.8);
		}
	if (o->band && draw_fill_band(cr, &p, res, nres, o, by_count, xmax)) {
		free(ys);
		return snprintf(err, errlen, "out of memory"), -1;
	}
	for (int bold = 0; bold < 2 && !o->band; bold++)
		for (unsigned i = 0; i < nres; i++)
			for (unsigned s = 0; s < res[i].nfill; s++) {
				const struct rr_series *se = &res[i].fill[s];
				const double *y = o->fill_y ? se->agg : se->y;

				if ((se->run == (o->bold_run ? o->bold_run[i] : 0)) != (bool)bold)
					continue;
				if (stats_moving_median(y, se->n, o->smooth, ys)) {
					free(ys);
					return snprintf(err, errlen, "out of memory"), -1;
				}
				polyline(cr, &p, by_count ? se->x2 : se->x, ys, se->n, i, bold ? 1 : 0.35,
					 bold && se->n <= 200, bold ? 2.5 : 1.2);
			}
	free(ys);
	if (y2max > 0)
		draw_fill_y2(cr, &p, res, nres, by_count, y2max);
	draw_fill_after(cr, &p, res, nres);
	return 0;
}

/* names of the groups the results have, in first-seen order */
static unsigned group_names(const struct rr_result *res, unsigned nres, bool timeline, char names[][48],
			    unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < nres; i++) {
		unsigned cnt = timeline ? res[i].ntimeline : res[i].nlat;

		for (unsigned s = 0; s < cnt; s++) {
			const char *nm = timeline ? res[i].timeline[s].name : res[i].lat[s].name;
			unsigned k;

			if (!timeline && !res[i].lat[s].h->count)
				continue;
			for (k = 0; k < n && strcmp(names[k], nm); k++)
				;
			if (k == n && n < max)
				snprintf(names[n++], 48, "%s", nm);
		}
	}
	return n;
}

static int draw_timeline(cairo_t *cr, const struct rr_result *res, unsigned nres, const struct plot_opts *o,
			 double top, char *err, size_t errlen)
{
	char names[9][48], ylabel[9][96];
	struct panel p[9];
	unsigned ng;

	for (unsigned i = 0; i < nres; i++) {
		unsigned pts = 0;

		for (unsigned s = 0; s < res[i].ntimeline; s++)
			pts += res[i].timeline[s].n;
		if (!pts) {
			snprintf(err, errlen, "'%s' has no time series (--interval sets their resolution; results of "
				 "older fsbench versions may have none)", res[i].path);
			return -1;
		}
	}
	ng = group_names(res, nres, true, names, 9);
	layout(p, ng, o->width, o->height, top);
	for (unsigned g = 0; g < ng; g++) {
		double xmax = 0, ymax = 0;
		const struct rr_result *first = NULL;

		for (unsigned i = 0; i < nres; i++)
			for (unsigned s = 0; s < res[i].ntimeline; s++) {
				const struct rr_series *se = &res[i].timeline[s];

				if (strcmp(se->name, names[g]))
					continue;
				if (!first)
					first = &res[i];
				for (unsigned k = 0; k < se->n; k++) {
					xmax = se->x[k] > xmax ? se->x[k] : xmax;
					ymax = se->y[k] > ymax ? se->y[k] : ymax;
				}
			}
		snprintf(p[g].title, sizeof(p[g].title), "%.47s", names[g]);
		/* the axes as the workload of the panel's first series says (--force mixes workloads) */
		snprintf(ylabel[g], sizeof(ylabel[g]), "%s (%s)", first->timeline_y, first->timeline_unit);
		p[g].ax.label = first->timeline_x;
		p[g].ay.label = ylabel[g];
		axis_fit(&p[g].ax, 0, xmax, true);
		axis_fit(&p[g].ay, 0, ymax, true);
		draw_axes(cr, &p[g]);
		for (unsigned i = 0; i < nres; i++)
			for (unsigned s = 0; s < res[i].ntimeline; s++) {
				const struct rr_series *se = &res[i].timeline[s];

				if (!strcmp(se->name, names[g]))
					polyline(cr, &p[g], se->x, se->y, se->n, i, se->run ? 0.4 : 1, se->n <= 60, 2);
			}
	}
	return 0;
}

/* y of the "nines" axis for a cumulative fraction f: 0 at 0 %, 1 at 90 %, 2 at 99 % ... */
static double nines(double f)
{
	return -log10(1 - f);
}

static int draw_latency(cairo_t *cr, const struct rr_result *res, unsigned nres, const struct plot_opts *o,
			double top, char *err, size_t errlen)
{
	char names[9][48];
	struct panel p[9];
	unsigned ng = group_names(res, nres, false, names, 9);

	if (!ng) {
		snprintf(err, errlen, "'%s' has no latency histograms", res[0].path);
		return -1;
	}
	layout(p, ng, o->width, o->height, top);
	for (unsigned g = 0; g < ng; g++) {
		double lo = INFINITY, hi = 0, ymax = 1;

		for (unsigned i = 0; i < nres; i++)
			for (unsigned s = 0; s < res[i].nlat; s++) {
				const struct hist *h = res[i].lat[s].h;

				if (strcmp(res[i].lat[s].name, names[g]) || !h->count)
					continue;
				lo = fmin(lo, (double)(h->min ? h->min : 1));
				hi = fmax(hi, (double)h->max);
				ymax = fmax(ymax, ceil(log10((double)h->count)));
			}
		snprintf(p[g].title, sizeof(p[g].title), "%.47s", names[g]);
		p[g].ax.log = true;
		p[g].ax.kind = 1;
		p[g].ax.label = "latency (log scale)";
		p[g].ay.kind = 2;
		p[g].ay.label = "operations at or below (percentile)";
		axis_fit(&p[g].ax, lo, hi, false);
		p[g].ay.lo = 0;
		p[g].ay.hi = fmin(ymax, 6);
		draw_axes(cr, &p[g]);
		for (unsigned i = 0; i < nres; i++)
			for (unsigned s = 0; s < res[i].nlat; s++) {
				const struct hist *h = res[i].lat[s].h;
				double cum = 0, *x, *y;
				unsigned n = 0;
				static const double marks[] = { 50, 99, 99.9 };

				if (strcmp(res[i].lat[s].name, names[g]) || !h->count)
					continue;
				x = malloc(2 * HIST_NBUCKETS * sizeof(double));
				y = malloc(2 * HIST_NBUCKETS * sizeof(double));
				if (!x || !y) {
					free(x);
					free(y);
					snprintf(err, errlen, "out of memory");
					return -1;
				}
				/* a step CDF: each bucket's count is reached at its upper bound */
				for (unsigned b = 0; b < HIST_NBUCKETS; b++) {
					uint64_t blo, bhi;
					double f;

					if (!h->buckets[b])
						continue;
					hist_bucket_range(b, &blo, &bhi);
					x[n] = fmax((double)blo, 1);
					y[n++] = nines(fmin(cum / (double)h->count, 1 - 1e-9));
					cum += (double)h->buckets[b];
					f = cum / (double)h->count;
					/* the last point would be at 100 %, off any nines axis: stop at the top */
					x[n] = fmax((double)bhi + 1, 1);
					y[n++] = f >= 1 ? p[g].ay.hi : nines(f);
				}
				polyline(cr, &p[g], x, y, n, i, 1, false, 2);
				free(x);
				free(y);
				color(cr, i, 1);
				for (unsigned m = 0; m < 3; m++) {
					double v = (double)hist_percentile(h, marks[m]), yy = nines(marks[m] / 100);

					if (yy > p[g].ay.hi)
						continue;
					cx->arc(cr, px(&p[g], fmax(v, 1)), py(&p[g], yy), 4.5, 0, 2 * M_PI);
					cx->fill(cr);
				}
			}
	}
	return 0;
}

static const char *mark_of(const struct plot_opts *o, const char *key, unsigned res)
{
	for (unsigned k = 0; k < o->nmarks; k++)
		if (o->marks[k].res == res && !strcmp(o->marks[k].key, key))
			return o->marks[k].stars ? o->marks[k].stars : "";
	return "";
}

/* a figure's name under its bars: the first word bold, the rest with the unit, the direction */
static void compare_names(cairo_t *cr, const struct panel *p, double xc, const struct rr_figure *fig)
{
	char a[160], b[96], *sp;
	const char *unit = fig->unit;

	snprintf(a, sizeof(a), "%s", fig->name);
	b[0] = '\0';
	if ((sp = strchr(a, ' '))) {
		*sp = '\0';
		snprintf(b, sizeof(b), "%.90s", sp + 1);
	}
	cx->set_source_rgb(cr, 0.1, 0.1, 0.1);
	text(cr, xc, p->y + p->h + 8, a, 11, 0.5, 0, true);
	snprintf(a, sizeof(a), "%.60s (%s)", b, !strcmp(unit, "ns") ? "time" : unit);
	text(cr, xc, p->y + p->h + 23, a, 10, 0.5, 0, false);
	text(cr, xc, p->y + p->h + 37, fig->dir == RR_HIGHER_BETTER ? "higher is better" : "lower is better",
	     9.5, 0.5, 0, false);
}

/* result i's bar from 1 to the ratio r, x0 wide bw; its whisker from lo to hi (lo NaN: none) */
static void compare_bar(cairo_t *cr, const struct panel *p, unsigned i, double x0, double bw, double r,
			double lo, double hi)
{
	double xc = x0 + bw / 2;

	color(cr, i, 0.85);
	cx->rectangle(cr, x0 + 2, fmin(py(p, r), py(p, 1)), bw - 4, fmax(fabs(py(p, 1) - py(p, r)), 1.5));
	cx->fill(cr);
	cx->set_source_rgb(cr, 0.1, 0.1, 0.1);
	if (!isnan(lo)) {
		cx->set_line_width(cr, 1.5);
		cx->move_to(cr, xc, py(p, hi));
		cx->line_to(cr, xc, py(p, lo));
		cx->move_to(cr, xc - 4, py(p, hi));
		cx->line_to(cr, xc + 4, py(p, hi));
		cx->move_to(cr, xc - 4, py(p, lo));
		cx->line_to(cr, xc + 4, py(p, lo));
		cx->stroke(cr);
	}
}

/* the ratio axis over [rmin, rmax] and the dashed line at 1 */
static void compare_axes(cairo_t *cr, struct panel *p, double rmin, double rmax, const struct plot_opts *o)
{
	/* room for the labels: a quarter of the range on each side */
	double lr = log(rmax / rmin);

	lr = lr > 0.05 ? lr : 0.05;
	p->ax.lo = 0;
	p->ax.hi = 1;
	p->ay.log = true;
	p->ay.kind = 3;
	p->ay.lo = rmin * exp(-0.3 * lr);
	p->ay.hi = rmax * exp(0.3 * lr);
	p->ay.label = "ratio to the baseline's mean (log scale; whiskers: 95% interval)";
	p->ax.hide = true;
	if (o->marks_note)
		snprintf(p->title, sizeof(p->title), "%s", o->marks_note);
	draw_axes(cr, p);
	cx->set_source_rgb(cr, 0.3, 0.3, 0.3);
	cx->set_line_width(cr, 1);
	cx->set_dash(cr, (const double[]){ 6, 4 }, 2, 0);
	cx->move_to(cr, p->x, py(p, 1));
	cx->line_to(cr, p->x + p->w, py(p, 1));
	cx->stroke(cr);
	cx->set_dash(cr, NULL, 0, 0);
}

/* The key figures of every result as ratios to the baseline's mean, on a log axis (a 10x tail
 * does not flatten the rest, 2x and 0.5x are the same distance from 1x), the 95 % interval
 * of each ratio (the result's interval over the baseline's mean), the stars the caller tested,
 * and each mean's absolute value at the end of its bar. */
static int draw_compare(cairo_t *cr, const struct rr_result *res, unsigned nres, const struct plot_opts *o,
			double top, char *err, size_t errlen)
{
	const struct rr_figure *figs[24];
	unsigned nf = 0;
	struct panel p;
	double rmin = 1, rmax = 1, *v;
	unsigned maxruns = 1;

	for (unsigned i = 0; i < nres; i++)
		maxruns = res[i].nruns > maxruns ? res[i].nruns : maxruns;
	for (unsigned f = 0; f < res[0].nfig && nf < 24; f++)
		if (res[0].fig[f].key_fig)
			figs[nf++] = &res[0].fig[f];
	if (!nf) {
		snprintf(err, errlen, "'%s' has no figures to draw", res[0].path);
		return -1;
	}
	if (!(v = malloc(maxruns * sizeof(double)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	layout(&p, 1, o->width, o->height, top);
	p.h -= 26;   /* three lines of figure names under the bars */
	for (int pass = 0; pass < 2; pass++) {
		double gw = p.w / nf, bw = gw * 0.8 / nres;

		for (unsigned f = 0; f < nf; f++) {
			struct stats_summary base;
			unsigned n0 = rr_values(&res[0], figs[f], v);

			if (!n0 || stats_summarize(v, n0, figs[f]->rate, &base) || !(base.mean > 0))
				continue;
			if (pass == 1)
				compare_names(cr, &p, p.x + gw * (f + 0.5), figs[f]);
			for (unsigned i = 0; i < nres; i++) {
				const struct rr_figure *g = rr_find(&res[i], figs[f]->key);
				struct stats_summary s;
				unsigned n = g ? rr_values(&res[i], g, v) : 0;
				double x0, xc, r, lo, hi, end;
				char lab[96];
				const char *st;
				bool up;

				if (!n || stats_summarize(v, n, figs[f]->rate, &s) || !(s.mean > 0))
					continue;
				r = s.mean / base.mean;
				/* an interval of 2 runs can reach 0 or infinity: the axis keeps to 3x the ratio */
				lo = n >= 2 && s.lo > 0 ? fmax(s.lo / base.mean, r / 3) : r;
				hi = n >= 2 && isfinite(s.hi) ? fmin(s.hi / base.mean, r * 3) : n >= 2 ? r * 3 : r;
				if (pass == 0) {
					rmin = fmin(rmin, lo);
					rmax = fmax(rmax, hi);
					continue;
				}
				x0 = p.x + gw * f + gw * 0.1 + bw * i;
				xc = x0 + bw / 2;
				compare_bar(cr, &p, i, x0, bw, r, n >= 2 ? lo : NAN, hi);
				/* the absolute value (and stars) beyond the bar's end and its interval */
				up = r >= 1;
				end = up ? py(&p, fmax(hi, r)) - 4 : py(&p, fmin(lo, r)) + 4;
				fmt_abs(s.mean, figs[f]->unit, lab, sizeof(lab) - 8);
				st = i ? mark_of(o, figs[f]->key, i) : "";
				if (*st)
					snprintf(lab + strlen(lab), sizeof(lab) - strlen(lab), " %s", st);
				cx->save(cr);
				cx->translate(cr, xc, end);
				cx->rotate(cr, -M_PI / 2);
				text(cr, 0, 0, lab, bw >= 16 ? 10 : 8, up ? 0 : 1, 0.5, *st != '\0');
				cx->restore(cr);
			}
		}
		if (pass == 0)
			compare_axes(cr, &p, rmin, rmax, o);
	}
	free(v);
	return 0;
}

enum plot_type plot_default_type(const struct rr_result *res, unsigned nres)
{
	bool all_fill = true, timeline = true;

	for (unsigned i = 0; i < nres; i++) {
		unsigned pts = 0;

		all_fill &= res[i].nfill > 0;
		for (unsigned s = 0; s < res[i].ntimeline; s++)
			pts += res[i].timeline[s].n;
		timeline &= pts >= 2;
	}
	if (all_fill)
		return PLOT_FILL;
	if (nres >= 2)
		return PLOT_COMPARE;
	return timeline ? PLOT_TIMELINE : PLOT_LATENCY;
}

int plot_load(char *err, size_t errlen)
{
	return (cx = plot_dl_load(err, errlen)) ? 0 : -ENOENT;
}

static cairo_status_t write_stream(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* a white page of o's size and format, drawn into out; with a title and legend entries
 * (names) on top when given */
static cairo_surface_t *page_new(const struct plot_opts *o, FILE *out, cairo_t **cr, const char *title,
				 const char *const *names, unsigned n)
{
	cairo_surface_t *surf;

	if (o->format == PLOT_SVG)
		surf = cx->svg_surface_create_for_stream(write_stream, out, o->width, o->height);
	else
		surf = cx->image_surface_create(CAIRO_FORMAT_ARGB32, (int)o->width, (int)o->height);
	*cr = cx->create(surf);
	cx->set_source_rgb(*cr, 1, 1, 1);
	cx->paint(*cr);
	if (title) {
		cx->set_source_rgb(*cr, 0.05, 0.05, 0.05);
		text(*cr, o->width / 2.0, 12, title, 17, 0.5, 0, true);
		legend_names(*cr, names, n, o->width, 48);
	}
	return surf;
}

/* the page written (PNG: now; SVG: as drawn) and everything of cairo's freed: 0, -EINVAL (drawn
 * was not 0: nothing to draw, err says), -EIO (a write to out failed), -ENOMEM (cairo's reason) */
static int page_end(cairo_surface_t *surf, cairo_t *cr, const struct plot_opts *o, FILE *out, int drawn,
		    char *err, size_t errlen)
{
	cairo_status_t st;

	cx->destroy(cr);
	if (!drawn && o->format == PLOT_PNG)
		st = cx->surface_write_to_png_stream(surf, write_stream, out);
	else
		st = CAIRO_STATUS_SUCCESS;
	cx->surface_finish(surf);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cx->surface_status(surf);
	cx->surface_destroy(surf);
	/* nothing of cairo is alive now: drop its font caches (they hold fontconfig patterns that
	 * LeakSanitizer would report at exit) */
	cx->debug_reset_static_data();
	if (drawn)
		return -EINVAL;
	if (st == CAIRO_STATUS_WRITE_ERROR)
		return -EIO;
	if (st != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "cairo: %s", cx->status_to_string(st));
		return -ENOMEM;
	}
	return 0;
}

int plot_render(const struct rr_result *res, unsigned nres, const struct plot_opts *o, FILE *out,
		char *err, size_t errlen)
{
	enum plot_type type = o->type == PLOT_AUTO ? plot_default_type(res, nres) : o->type;
	cairo_t *cr;
	cairo_surface_t *surf;
	char title[256];
	int rc;

	if ((rc = plot_load(err, errlen)))
		return rc;
	surf = page_new(o, out, &cr, NULL, NULL, 0);

	if (o->title)
		snprintf(title, sizeof(title), "%s", o->title);
	else if (type == PLOT_FILL)
		snprintf(title, sizeof(title), "fs_mark: files/sec as the filesystem fills");
	else if (type == PLOT_TIMELINE)
		snprintf(title, sizeof(title), "%s: %s over time, per phase", res[0].workload, res[0].timeline_y);
	else if (type == PLOT_LATENCY)
		snprintf(title, sizeof(title), "%s: latency distribution (dots: p50, p99, p99.9)", res[0].workload);
	else
		snprintf(title, sizeof(title), "%s: key figures relative to %s", res[0].workload, res[0].name);
	cx->set_source_rgb(cr, 0.05, 0.05, 0.05);
	text(cr, o->width / 2.0, 12, title, 17, 0.5, 0, true);
	legend(cr, res, nres, o->width, 48);
	switch (type) {
	case PLOT_FILL: rc = draw_fill(cr, res, nres, o, 66, err, errlen); break;
	case PLOT_TIMELINE: rc = draw_timeline(cr, res, nres, o, 66, err, errlen); break;
	case PLOT_LATENCY: rc = draw_latency(cr, res, nres, o, 66, err, errlen); break;
	default: rc = draw_compare(cr, res, nres, o, 66, err, errlen); break;
	}
	return page_end(surf, cr, o, out, rc, err, errlen);
}

int plot_trend_render(const struct plot_trend *t, const struct plot_opts *o, FILE *out, char *err,
		      size_t errlen)
{
	cairo_surface_t *surf;
	cairo_t *cr;
	struct panel p;
	double ymax = 0;

	if (!t->nx || !t->nlines) {
		snprintf(err, errlen, "nothing to draw");
		return -EINVAL;
	}
	if (plot_load(err, errlen))
		return -ENOENT;
	surf = page_new(o, out, &cr, o->title ? o->title : t->title, t->lines, t->nlines);
	layout(&p, 1, o->width, o->height, 66);
	p.h -= 20;   /* two lines of slot labels */
	for (unsigned k = 0; k < t->nx * t->nlines; k++) {
		if (isnan(t->mean[k]))
			continue;
		ymax = fmax(ymax, isfinite(t->hi[k]) ? t->hi[k] : t->mean[k]);
	}
	p.ax.lo = -0.5;
	p.ax.hi = t->nx - 0.5;
	p.ax.hide = true;
	p.ay.label = t->ylabel;
	snprintf(p.title, sizeof(p.title), "mean of each experiment's runs, whiskers: 95%% interval");
	axis_fit(&p.ay, 0, ymax > 0 ? ymax * 1.05 : 1, true);
	draw_axes(cr, &p);
	for (unsigned i = 0; i < t->nx; i++) {
		char a[96];
		const char *nl = strchr(t->xlabels[i], '\n');

		snprintf(a, sizeof(a), "%.*s", nl ? (int)(nl - t->xlabels[i]) : 95, t->xlabels[i]);
		cx->set_source_rgb(cr, 0.2, 0.2, 0.2);
		text(cr, px(&p, i), p.y + p.h + 6, a, 10.5, 0.5, 0, false);
		if (nl)
			text(cr, px(&p, i), p.y + p.h + 21, nl + 1, 10, 0.5, 0, false);
	}
	for (unsigned l = 0; l < t->nlines; l++) {
		double xs[256], ys[256];
		unsigned n = 0;

		for (unsigned i = 0; i < t->nx && n < 256; i++) {
			xs[n] = i;
			ys[n++] = t->mean[l * t->nx + i];
		}
		polyline(cr, &p, xs, ys, n, l, 1, true, 2);
		color(cr, l, 1);
		cx->set_line_width(cr, 1.5);
		for (unsigned i = 0; i < t->nx; i++) {
			unsigned k = l * t->nx + i;
			double xc = px(&p, i) + (l - (t->nlines - 1) / 2.0) * 4;

			if (isnan(t->mean[k]) || !isfinite(t->lo[k]) || !isfinite(t->hi[k]) || t->lo[k] == t->hi[k])
				continue;
			cx->move_to(cr, xc, py(&p, fmin(t->hi[k], p.ay.hi)));
			cx->line_to(cr, xc, py(&p, fmax(t->lo[k], p.ay.lo)));
			cx->stroke(cr);
		}
	}
	return page_end(surf, cr, o, out, 0, err, errlen);
}

int plot_bars_render(const struct plot_bars *b, const struct plot_opts *o, FILE *out, char *err,
		     size_t errlen)
{
	struct panel p[4];
	cairo_surface_t *surf;
	cairo_t *cr;
	unsigned np = b->npanels < 4 ? b->npanels : 4;

	if (!np || !b->nseries) {
		snprintf(err, errlen, "nothing to draw");
		return -EINVAL;
	}
	if (plot_load(err, errlen))
		return -ENOENT;
	surf = page_new(o, out, &cr, o->title ? o->title : b->title, b->series, b->nseries);
	layout(p, np, o->width, o->height, 66);
	for (unsigned k = 0; k < np; k++) {
		const struct plot_bar_panel *bp = &b->panel[k];
		unsigned ng = bp->ngroups, ns = b->nseries;
		double ymax = 0, slot, bw;

		for (unsigned i = 0; i < ng * ns; i++) {
			if (isnan(bp->v[i]))
				continue;
			ymax = fmax(ymax, bp->v[i]);
			if (bp->hi && isfinite(bp->hi[i]))
				ymax = fmax(ymax, bp->hi[i]);
		}
		p[k].ax.lo = -0.5;
		p[k].ax.hi = ng - 0.5;
		p[k].ax.hide = true;
		p[k].ax.label = bp->xlabel;
		p[k].ay.label = bp->ylabel;
		snprintf(p[k].title, sizeof(p[k].title), "%s", bp->title ? bp->title : "");
		axis_fit(&p[k].ay, 0, ymax > 0 ? ymax * 1.12 : 1, true);
		draw_axes(cr, &p[k]);
		slot = p[k].w / (ng ? ng : 1);
		bw = slot * 0.8 / ns;
		double label_end = -1e9;

		for (unsigned g = 0; g < ng; g++) {
			cairo_text_extents_t e;

			/* a label only where it does not run into the last one drawn */
			cx->select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
			cx->set_font_size(cr, 10.5);
			cx->text_extents(cr, bp->groups[g], &e);
			if (px(&p[k], g) - e.width / 2 > label_end + 6) {
				cx->set_source_rgb(cr, 0.2, 0.2, 0.2);
				text(cr, px(&p[k], g), p[k].y + p[k].h + 6, bp->groups[g], 10.5, 0.5, 0, false);
				label_end = px(&p[k], g) + e.width / 2;
			}
			for (unsigned s = 0; s < ns; s++) {
				unsigned i = s * ng + g;
				double x0 = px(&p[k], g) - slot * 0.4 + s * bw, top;

				if (isnan(bp->v[i]))
					continue;
				top = py(&p[k], fmin(bp->v[i], p[k].ay.hi));
				color(cr, s, 0.85);
				cx->rectangle(cr, x0 + bw * 0.05, top, bw * 0.9, py(&p[k], 0) - top);
				cx->fill(cr);
				if (bp->lo && bp->hi && isfinite(bp->lo[i]) && isfinite(bp->hi[i]) && bp->hi[i] > bp->lo[i]) {
					double xc = x0 + bw / 2;

					cx->set_source_rgb(cr, 0.1, 0.1, 0.1);
					cx->set_line_width(cr, 1.5);
					cx->move_to(cr, xc, py(&p[k], fmin(bp->hi[i], p[k].ay.hi)));
					cx->line_to(cr, xc, py(&p[k], fmax(bp->lo[i], 0)));
					cx->move_to(cr, xc - bw * 0.15,
						    py(&p[k], fmin(bp->hi[i], p[k].ay.hi)));
					cx->line_to(cr, xc + bw * 0.15,
						    py(&p[k], fmin(bp->hi[i], p[k].ay.hi)));
					cx->stroke(cr);
					top = fmin(top, py(&p[k], fmin(bp->hi[i], p[k].ay.hi)));
				}
				if (bp->notes && bp->notes[i] && *bp->notes[i]) {
					cx->set_source_rgb(cr, 0.1, 0.1, 0.1);
					text(cr, x0 + bw / 2, top - 3, bp->notes[i], bw > 60 ? 11 : 9, 0.5, 1, false);
				}
			}
		}
	}
	return page_end(surf, cr, o, out, 0, err, errlen);
}
