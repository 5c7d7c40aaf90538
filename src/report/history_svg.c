/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench history report's plot as SVG text (history_svg.h): the runs as dots (flagged runs as
 * hollow triangles), each experiment's mean and interval, the change points as dashed lines. */
#include "report/history_svg.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define ML 80 /* margins: left, right, top, bottom */
#define MR 20
#define MT 48
#define MB 64

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else if ((unsigned char)*s >= 0x20 || *s == '\t')
			fputc(*s, f);
	}
}

/* the value range drawn: every run and interval, a little room around it */
static void yrange(const struct hsvg_plot *p, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (unsigned i = 0; i < p->n; i++)
		if (isfinite(p->v[i])) {
			*lo = fmin(*lo, p->v[i]);
			*hi = fmax(*hi, p->v[i]);
		}
	for (unsigned g = 0; g < p->ng; g++) {
		if (isfinite(p->g[g].lo))
			*lo = fmin(*lo, p->g[g].lo);
		if (isfinite(p->g[g].hi))
			*hi = fmax(*hi, p->g[g].hi);
	}
	if (!isfinite(*lo)) {
		*lo = 0;
		*hi = 1;
	}
	if (*hi - *lo <= fabs(*hi) * 1e-9) {
		double d = fabs(*hi) > 0 ? fabs(*hi) * 0.1 : 1;

		*lo -= d;
		*hi += d;
	}
	*lo -= (*hi - *lo) * 0.08;
	*hi += (*hi - *lo) * 0.08;
}

struct frame {
	double x0, w, y0, h, lo, hi;
	unsigned n;
};

static double fx(const struct frame *fr, double i)
{
	return fr->x0 + (i + 0.5) * fr->w / (fr->n ? fr->n : 1);
}

static double fy(const struct frame *fr, double v)
{
	return fr->y0 + fr->h - (v - fr->lo) / (fr->hi - fr->lo) * fr->h;
}

static void axes(const struct hsvg_plot *p, const struct frame *fr, FILE *f)
{
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n",
		fr->x0, fr->y0, fr->w, fr->h);
	for (int t = 0; t <= 4; t++) {
		double v = fr->lo + (fr->hi - fr->lo) * (0.04 + 0.23 * t), y = fy(fr, v);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			fr->x0, y, fr->x0 + fr->w, y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.4g</text>\n",
			fr->x0 - 4, y + 4, v);
	}
	fputs("<text font-size=\"14\" font-weight=\"bold\" x=\"8\" y=\"18\">", f);
	esc(f, p->title);
	fprintf(f,
		"</text>\n<text font-size=\"11\" transform=\"translate(14,%.1f) rotate(-90)\" text-anchor=\"middle\">",
		fr->y0 + fr->h / 2);
	esc(f, p->ylabel);
	fprintf(f,
		"</text>\n<text font-size=\"11\" x=\"%.1f\" y=\"36\" text-anchor=\"end\">"
		"&#9679; run   &#9651; flagged run (other processes' CPU)   | experiment mean, 95 %% interval"
		"   &#9478; change point</text>\n",
		fr->x0 + fr->w);
}

static void groups(const struct hsvg_plot *p, const struct frame *fr, FILE *f)
{
	for (unsigned k = 0; k < p->ng; k++) {
		const struct hsvg_group *g = &p->g[k];
		double xa = fx(fr, g->first) - 6, xb = fx(fr, g->end - 1) + 6,
		       xm = (fx(fr, g->first) + fx(fr, g->end - 1)) / 2;

		if (k)
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
				fx(fr, g->first - 0.5), fr->y0, fx(fr, g->first - 0.5), fr->y0 + fr->h);
		if (isfinite(g->mean))
			fprintf(f,
				"<line class=\"mean\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#2b6cb0\" "
				"stroke-width=\"2\"/>\n",
				xa, fy(fr, g->mean), xb, fy(fr, g->mean));
		if (isfinite(g->lo) && isfinite(g->hi))
			fprintf(f,
				"<path class=\"interval\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fH%.1f\" stroke=\"#2b6cb0\" "
				"fill=\"none\"><title>95 %% interval %.4g to %.4g</title></path>\n",
				xm - 5, fy(fr, g->hi), xm + 5, xm, fy(fr, g->hi), fy(fr, g->lo), xm - 5,
				fy(fr, g->lo), xm + 5, g->lo, g->hi);
		fprintf(f, "<text font-size=\"10\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", xm,
			fr->y0 + fr->h + 16);
		esc(f, g->label);
		fprintf(f,
			"</text>\n<text font-size=\"10\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">",
			xm, fr->y0 + fr->h + 30);
		esc(f, g->sublabel);
		fputs("</text>\n", f);
	}
}

static void runs(const struct hsvg_plot *p, const struct frame *fr, FILE *f)
{
	for (unsigned i = 0; i < p->n; i++) {
		double x = fx(fr, i), y = fy(fr, p->v[i]);

		if (!isfinite(p->v[i]))
			continue;
		if (p->flagged[i])
			fprintf(f,
				"<path class=\"run flagged\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"#fff\" "
				"stroke=\"#dd6b20\" stroke-width=\"2\"><title>run %u: %.4g, flagged for other processes' CPU"
				"</title></path>\n",
				x, y - 6, x + 5.5, y + 4, x - 5.5, y + 4, i + 1, p->v[i]);
		else
			fprintf(f,
				"<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#1a202c\"><title>run %u: "
				"%.4g</title></circle>\n",
				x, y, i + 1, p->v[i]);
	}
}

static void changes(const struct hsvg_plot *p, const struct frame *fr, FILE *f)
{
	for (unsigned k = 0; k < p->nchange; k++) {
		double x = fx(fr, p->change[k] - 0.5);

		fprintf(f,
			"<line class=\"change\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c53030\" "
			"stroke-width=\"2\" stroke-dasharray=\"6 4\"><title>change between run %u and run %u</title></line>\n",
			x, fr->y0, x, fr->y0 + fr->h, p->change[k], p->change[k] + 1);
		fprintf(f,
			"<text class=\"change-label\" font-size=\"11\" fill=\"#c53030\" x=\"%.1f\" y=\"%.1f\">",
			x + 4, fr->y0 + 14 + 14.0 * (k % 3));
		esc(f, p->change_label ? p->change_label[k] : "change");
		fputs("</text>\n", f);
	}
}

int hsvg_write(const struct hsvg_plot *p, FILE *out)
{
	struct frame fr = { .x0 = ML, .y0 = MT, .n = p->n };

	fr.w = p->width - ML - MR;
	fr.h = p->height - MT - MB;
	yrange(p, &fr.lo, &fr.hi);
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		p->width, p->height, p->width, p->height);
	axes(p, &fr, out);
	groups(p, &fr, out);
	changes(p, &fr, out);
	runs(p, &fr, out);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
