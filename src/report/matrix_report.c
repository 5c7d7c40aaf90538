/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A matrix directory's analysis written out: summary.json, plots, report.md, report.html, the
 * history, the terminal summary (matrix_report.h). The numbers come from core/effects; this
 * file analyses, words the numbers and the answer, and puts the outputs together (the files
 * each in its own: matrix_report_int.h). */
#include "report/matrix_report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/errmsg.h"
#include "core/effects.h"
#include "core/outfile.h"
#include "report/compare_text.h"
#include "report/doc.h"
#include "report/history.h"
#include "report/matrix_read.h"
#include "report/matrix_report_int.h"
#include "report/matrix_why.h"
#include "report/matrix_after.h"
#include "report/plot_cairo.h"

/* ---- numbers as people read them ---- */

/* v in the figure's display unit (ns as us or ms, chosen by ref so one row shares it) */
const char *mrep_disp_unit(const char *unit, double ref, double *scale)
{
	*scale = 1;
	if (!strcmp(unit, "ns")) {
		if (fabs(ref) >= 1e6) {
			*scale = 1e-6;
			return "ms";
		}
		*scale = 1e-3;
		return "us";
	}
	return unit;
}


/* v in the display unit that ref chooses (an interval's bounds in its estimate's unit) */
static void fmt_val_as(const struct rr_figure *f, double v, double ref, char *buf, size_t len,
		       bool unit)
{
	double sc;
	const char *u = mrep_disp_unit(f->unit, ref, &sc);

	cmp_fmt_num(v * sc, ref * sc, buf, len);
	if (unit)
		snprintf(buf + strlen(buf), len - strlen(buf), " %s", u);
}

void mrep_fmt_val(const struct rr_figure *f, double v, char *buf, size_t len, bool unit)
{
	fmt_val_as(f, v, v, buf, len, unit);
}

/* a cell in the row's display unit: sc is the scale the row's unit column chose */
void mrep_fmt_cell(const struct an *a, unsigned c, unsigned f, double sc, char *buf, size_t len)
{
	const struct eff_cell *ec = &a->r.cell[c * a->nfig + f];
	char m[40], h[40];

	if (!ec->present) {
		snprintf(buf, len, "-");
		return;
	}
	cmp_fmt_num(ec->s.mean * sc, ec->s.mean * sc, m, sizeof(m));
	if (ec->s.n < 2 || ec->s.sd == 0) {
		snprintf(buf, len, "%s", m);
		return;
	}
	{
		char l[40], out[128];
		size_t n;

		cmp_fmt_num(ec->s.lo * sc, ec->s.mean * sc, l, sizeof(l));
		cmp_fmt_num(ec->s.hi * sc, ec->s.mean * sc, h, sizeof(h));
		snprintf(out, sizeof(out), "%s [%s, %s]", m, l, h);
		n = strlen(out) < len ? strlen(out) : len - 1;
		memcpy(buf, out, n);
		buf[n] = '\0';
	}
}

void mrep_fmt_p(double p, char *buf, size_t len)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p < 1e-4)
		snprintf(buf, len, "%.1e", p);
	else
		snprintf(buf, len, "%.4f", p);
}

const char *mrep_better_name(enum rr_dir d)
{
	return d == RR_HIGHER_BETTER ? "higher" : d == RR_LOWER_BETTER ? "lower" : "neither";
}

/* "btrfs-on" or, for cells named otherwise, their axis values */
const char *mrep_cell_name(const struct an *a, unsigned c)
{
	return a->m->cell[c].name;
}

/* what the effect test changes: "fs: ext4 -> btrfs (toggle=off)" */
void mrep_effect_label(const struct an *a, const struct eff_test *t, char *buf, size_t len)
{
	const struct mx *m = a->m;
	size_t at;

	at = (size_t)snprintf(buf, len, "%s: %s -> %s", m->axis[t->axis].name, mread_value(m, t->cell[0], t->axis),
			      mread_value(m, t->cell[1], t->axis));
	for (unsigned x = 0, first = 1; x < m->naxes && at < len; x++) {
		if (x == t->axis)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", first ? " (" : ", ", m->axis[x].name,
				       mread_value(m, t->cell[0], x));
		first = 0;
		if (x + 1 == m->naxes || (x + 2 == m->naxes && t->axis == x + 1))
			at += (size_t)snprintf(buf + at, len - at, ")");
	}
}

/* the effect of B at each level of A, in words: "toggle off -> on: -51.0% at fs=btrfs,
 * +1.7% at fs=ext4" */
void mrep_interaction_words(const struct an *a, const struct eff_test *t, char *buf, size_t len)
{
	const struct mx *m = a->m;
	const struct eff_cell *c[4];
	double e1, e2;

	for (int k = 0; k < 4; k++)
		c[k] = &a->r.cell[t->cell[k] * a->nfig + t->fig];
	if (!c[0]->present || !c[1]->present || !c[2]->present || !c[3]->present || c[0]->s.mean == 0 ||
	    c[1]->s.mean == 0) {
		snprintf(buf, len, "-");
		return;
	}
	e1 = (c[2]->s.mean / c[0]->s.mean - 1) * 100;
	e2 = (c[3]->s.mean / c[1]->s.mean - 1) * 100;
	snprintf(buf, len, "%s %s -> %s: %+.1f%% at %s=%s, %+.1f%% at %s=%s", m->axis[t->axis_b].name,
		 mread_value(m, t->cell[0], t->axis_b), mread_value(m, t->cell[2], t->axis_b), e1, m->axis[t->axis].name,
		 mread_value(m, t->cell[0], t->axis), e2, m->axis[t->axis].name, mread_value(m, t->cell[1], t->axis));
}

/* a ratio with enough digits: 0.048, 0.97, 1.03, 12.4 */
static void fmt_ratio(double r, char *buf, size_t len)
{
	if (!isfinite(r))
		snprintf(buf, len, "inf");
	else if (r >= 100)
		snprintf(buf, len, "%.0f", r);
	else if (r >= 0.1)
		snprintf(buf, len, "%.3g", r);
	else
		snprintf(buf, len, "%.2g", r);
}

/* the estimate and its interval: "x0.048 [0.041, 0.056]" (a ratio B/A) or "+1.30 [0.40, 2.20] %"
 * (a difference, in the figure's unit) */
void mrep_fmt_estimate(const struct an *a, const struct eff_test *t, char *buf, size_t len)
{
	const struct vd_test *v = &t->v;
	char e[40], l[40], h[40];

	if (v->kind == VD_NA) {
		snprintf(buf, len, "-");
		return;
	}
	if (v->e.log) {
		fmt_ratio(v->ratio, e, sizeof(e));
		if (isnan(v->lo)) {
			snprintf(buf, len, "x%s", e);
			return;
		}
		fmt_ratio(v->lo, l, sizeof(l));
		fmt_ratio(v->hi, h, sizeof(h));
		snprintf(buf, len, "x%s [%s, %s]", e, l, h);
		return;
	}
	mrep_fmt_val(a->fig[t->fig], v->ratio, e, sizeof(e), false);
	if (isnan(v->lo)) {
		snprintf(buf, len, "%s%s %s", v->ratio > 0 ? "+" : "", e, a->fig[t->fig]->unit);
		return;
	}
	fmt_val_as(a->fig[t->fig], v->lo, v->ratio, l, sizeof(l), false);
	fmt_val_as(a->fig[t->fig], v->hi, v->ratio, h, sizeof(h), true);
	snprintf(buf, len, "%s%s [%s, %s]", v->ratio > 0 ? "+" : "", e, l, h);
}

/* the verdict in words: an effect's "worse", an interaction's "yes" / "no" / "undecided" */
const char *mrep_verdict_word(const struct an *a, const struct eff_test *t)
{
	const struct rr_figure *f = a->fig[t->fig];

	if (t->kind == EFF_INTERACTION) {
		switch (t->v.kind) {
		case VD_DIFFERENT: return "yes";
		case VD_EQUIVALENT: return "no";
		case VD_DETERMINISTIC: return "yes (deterministic)";
		case VD_SAME_CONST: return "no (no variation)";
		default: return vd_word(&t->v, 0);
		}
	}
	return vd_word(&t->v, f->dir == RR_HIGHER_BETTER ? 1 : f->dir == RR_LOWER_BETTER ? -1 : 0);
}

/* how the test was made and what would decide it: "paired, 3 rounds; ~4 more rounds would decide it" */
void mrep_fmt_how(const struct eff_test *t, char *buf, size_t len)
{
	const struct vd_test *v = &t->v;
	size_t at = 0;

	buf[0] = '\0';
	if (!v->tested) {
		if (v->why)
			snprintf(buf, len, "not tested: %s", v->why);
		return;
	}
	at = (size_t)snprintf(buf, len, "%s%s, n %u, %s", v->e.paired ? "paired by round" : "unpaired",
			      v->incomplete ? " (incomplete rounds)" : "", v->e.n, vd_family_name(v->family));
	if (v->kind == VD_UNDECIDED && isfinite(v->more_rounds) && at < len)
		snprintf(buf + at, len - at, v->more_rounds > 1000 ? "; more than 1000 more rounds would decide it" :
			 "; ~%.0f more round%s would decide it", v->more_rounds, v->more_rounds == 1 ? "" : "s");
}

/* ---- the analysis ---- */

/* --primary KEY,...: a figure's key, or its key without the group ("rate_mib_per_s" for every
 * phase's rate); NULL: the workload's declarations */
static bool is_primary(const char *list, const struct rr_figure *f)
{
	const char *dot = strchr(f->key, '.');

	if (!list)
		return f->primary;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if ((strlen(f->key) == n && !strncmp(p, f->key, n)) ||
		    (dot && strlen(dot + 1) == n && !strncmp(p, dot + 1, n)))
			return true;
		p += n;
		p += *p == ',';
	}
	return false;
}

static int analyse(struct an *a)
{
	const struct mx *m = a->m;
	unsigned cap = 0;
	struct eff_input in;

	a->primary = a->o->primary ? a->o->primary : m->primary;
	a->equiv_pct = a->o->equiv_pct > 0 ? a->o->equiv_pct : m->equiv_pct > 0 ? m->equiv_pct : VD_EQUIV_PCT;
	for (unsigned c = 0; c < m->ncells; c++)
		cap += m->cell[c].merged.nfig;
	a->fig = calloc(cap + 1, sizeof(*a->fig));
	a->ef = calloc(cap + 1, sizeof(*a->ef));
	a->cell_value = calloc((size_t)m->ncells * (m->naxes ? m->naxes : 1) + 1, sizeof(unsigned));
	a->n = calloc(m->ncells + 1, sizeof(unsigned));
	if (!a->fig || !a->ef || !a->cell_value || !a->n)
		return -1;
	/* rows in the first cell's order, then what only later cells have */
	for (unsigned c = 0; c < m->ncells; c++)
		for (unsigned f = 0; f < m->cell[c].merged.nfig; f++) {
			const struct rr_figure *fg = &m->cell[c].merged.fig[f];
			unsigned k;

			for (k = 0; k < a->nfig && strcmp(a->fig[k]->key, fg->key); k++)
				;
			if (k < a->nfig)
				continue;
			a->fig[a->nfig] = fg;
			a->ef[a->nfig].rate = fg->rate;
			a->ef[a->nfig].ratio = strcmp(fg->unit, "%") != 0;
			a->ef[a->nfig].dir = fg->dir == RR_HIGHER_BETTER ? 1 : fg->dir == RR_LOWER_BETTER ? -1 : 0;
			a->ef[a->nfig].family = fg->derived ? VD_FAM_NONE :
						is_primary(a->primary, fg) ? VD_CONFIRMATORY : VD_EXPLORATORY;
			a->nfig++;
		}
	if (!(a->v = calloc((size_t)m->ncells * a->nfig + 1, sizeof(*a->v))) ||
	    !(a->round = calloc(m->ncells + 1, sizeof(*a->round))))
		return -1;
	for (unsigned c = 0; c < m->ncells; c++) {
		a->n[c] = m->cell[c].merged.nruns;
		/* the merged runs are the cell's used runs in order: each one's round */
		if (m->rounds && m->cell[c].nrun == a->n[c]) {
			if (!(a->round[c] = calloc(m->cell[c].nrun + 1, sizeof(unsigned))))
				return -1;
			for (unsigned k = 0; k < m->cell[c].nrun; k++)
				a->round[c][k] = m->run[m->cell[c].run[k]].repeat;
		}
		for (unsigned x = 0; x < m->naxes; x++)
			a->cell_value[c * m->naxes + x] = m->cell[c].value[x];
		for (unsigned f = 0; f < a->nfig; f++) {
			const struct rr_figure *g = rr_find(&m->cell[c].merged, a->fig[f]->key);

			a->v[c * a->nfig + f] = g ? g->v : NULL;
		}
	}
	in = (struct eff_input){ .naxes = m->naxes, .ncells = m->ncells, .nfig = a->nfig, .cell_value = a->cell_value,
				 .fig = a->ef, .v = a->v, .n = a->n,
				 .round = (const unsigned *const *)a->round,
				 .opts = { m->alpha > 0 ? m->alpha : VD_ALPHA, a->equiv_pct } };
	if (eff_analyze(&in, &a->r))
		return -1;
	for (unsigned k = 0; k < a->r.nt; k++) {
		const struct eff_test *t = &a->r.t[k];
		bool sig = t->v.kind == VD_DIFFERENT;

		a->nsig += sig;
		a->nsig_eff += sig && t->kind == EFF_EFFECT;
		a->nsig_ia += sig && t->kind == EFF_INTERACTION;
		a->ntested_ia += t->v.tested && t->kind == EFF_INTERACTION;
		a->npaired += t->v.tested && t->v.e.paired;
		a->nunpaired += t->v.tested && !t->v.e.paired;
		a->incomplete |= t->v.incomplete;
	}
	return 0;
}

static void an_free(struct an *a)
{
	for (unsigned c = 0; a->round && c < a->m->ncells; c++)
		free(a->round[c]);
	free(a->round);
	eff_free(&a->r);
	free(a->fig);
	free(a->ef);
	free(a->cell_value);
	free((void *)a->v);
	free(a->n);
}

/* the effect test between cell 0 and cell c for figure f, either way round; NULL */
const struct eff_test *mrep_test_vs_first(const struct an *a, unsigned c, unsigned f)
{
	for (unsigned k = 0; k < a->r.nt; k++) {
		const struct eff_test *t = &a->r.t[k];

		if (t->kind == EFF_EFFECT && t->fig == f &&
		    ((t->cell[0] == 0 && t->cell[1] == c) || (t->cell[1] == 0 && t->cell[0] == c)))
			return t;
	}
	return NULL;
}

/* ---- the answer: the summary's first lines ---- */

#define ANSWER_MAX_EXPLORATORY 8

static void answer_test(const struct an *a, const struct eff_test *t, enum answer_kind k, answer_fn *fn, void *ctx)
{
	char lab[768], est[128], how[160], line[1280];

	if (t->kind == EFF_EFFECT) {
		mrep_effect_label(a, t, lab, sizeof(lab));
	} else {
		char words[320];

		mrep_interaction_words(a, t, words, sizeof(words));
		snprintf(lab, sizeof(lab), "interaction %s x %s (%s)", a->m->axis[t->axis].name,
			 a->m->axis[t->axis_b].name, words);
	}
	mrep_fmt_estimate(a, t, est, sizeof(est));
	mrep_fmt_how(t, how, sizeof(how));
	snprintf(line, sizeof(line), "%s%s, %s: %s %s%s%s%s", k == ANS_EXPLORATORY ? "exploratory: " : "",
		 a->fig[t->fig]->name, lab, mrep_verdict_word(a, t), est, *how ? " (" : "", how,
		 *how ? ")" : "");
	fn(ctx, k, t, line);
}

/* "write.rate" and "write.iops" share the group "write"; "files_per_sec" and its aggregate none */
static bool same_group(const struct rr_figure *f, const struct rr_figure *g)
{
	const char *df = strchr(f->key, '.'), *dg = strchr(g->key, '.');
	size_t nf = df ? (size_t)(df - f->key) : 0, ng = dg ? (size_t)(dg - g->key) : 0;

	return nf == ng && !strncmp(f->key, g->key, nf);
}

static void answer_interactions(const struct an *a, answer_fn *fn, void *ctx)
{
	for (unsigned k = 0; k < a->r.nt; k++) {
		const struct eff_test *t = &a->r.t[k];

		if (t->kind == EFF_INTERACTION && t->v.family == VD_CONFIRMATORY)
			answer_test(a, t, ANS_INTERACTION, fn, ctx);
	}
}

/* The primary figures' interactions of every two axes first: an experiment with two axes asks
 * whether one changes the other's effect ("does the toggle hurt btrfs more than ext4?"), and
 * its per-axis effects (one per level of the other axis) would push that answer down the page.
 * Then for each axis the primary figures' effects, the exploratory figures that moved, and
 * primary figures of one comparison that moved apart. */
void mrep_answer(const struct an *a, answer_fn *fn, void *ctx)
{
	unsigned nexp = 0, moved = 0;

	answer_interactions(a, fn, ctx);
	for (unsigned x = 0; x < a->m->naxes; x++)
		for (unsigned k = 0; k < a->r.nt; k++) {
			const struct eff_test *t = &a->r.t[k];

			if (t->kind == EFF_EFFECT && t->axis == x && t->v.family == VD_CONFIRMATORY)
				answer_test(a, t, ANS_EFFECT, fn, ctx);
		}
	for (unsigned k = 0; k < a->r.nt; k++) {
		const struct eff_test *t = &a->r.t[k];

		if (t->v.family != VD_EXPLORATORY || t->v.kind != VD_DIFFERENT)
			continue;
		if (nexp++ < ANSWER_MAX_EXPLORATORY)
			answer_test(a, t, ANS_EXPLORATORY, fn, ctx);
		else
			moved++;
	}
	if (moved) {
		char line[160];

		snprintf(line, sizeof(line), "exploratory: %u more figure%s moved (Effects below, summary.json)", moved,
			 moved == 1 ? "" : "s");
		fn(ctx, ANS_EXPLORATORY, NULL, line);
	}
	/* related primary figures of one comparison in opposite directions: the same unit and the
	 * same group (fs_mark's files/sec and aggregate; not two tiotest phases) */
	for (unsigned i = 0; i < a->r.nt; i++)
		for (unsigned j = i + 1; j < a->r.nt; j++) {
			const struct eff_test *t = &a->r.t[i], *u = &a->r.t[j];
			char lab[256], line[768];

			if (t->kind != EFF_EFFECT || u->kind != EFF_EFFECT || t->cell[0] != u->cell[0] ||
			    t->cell[1] != u->cell[1] || t->v.family != VD_CONFIRMATORY || u->v.family != VD_CONFIRMATORY ||
			    strcmp(a->fig[t->fig]->unit, a->fig[u->fig]->unit) || !same_group(a->fig[t->fig], a->fig[u->fig]) ||
			    t->v.sign * u->v.sign >= 0 ||
			    (t->v.kind != VD_DIFFERENT && u->v.kind != VD_DIFFERENT))
				continue;
			mrep_effect_label(a, t, lab, sizeof(lab));
			snprintf(line, sizeof(line), "%s and %s move in opposite directions, %s (%+.1f%% vs %+.1f%%): they "
				 "measure the same runs differently (a sum of each thread's own rate against all the work over "
				 "the wall time), so threads that finish far apart, or one slow phase, move them apart",
				 a->fig[t->fig]->name, a->fig[u->fig]->name, lab, vd_pct(&t->v), vd_pct(&u->v));
			fn(ctx, ANS_DISAGREE, NULL, line);
		}
}

/* ---- plots ---- */

/* a plot of results, or the --after bars */
struct plot_src {
	const struct rr_result *res;
	unsigned nres;
	const struct plot_bars *bars;
};

static int render(const struct plot_src *src, const struct plot_opts *po, FILE *out, char *e, size_t elen)
{
	return src->bars ? plot_bars_render(src->bars, po, out, e, elen) : plot_render(src->res, src->nres, po, out, e, elen);
}

/* one plot to SVG (kept in memory for the HTML, written to DIR/NAME.svg) and PNG; 0 or -1 */
static int plot_both(const char *dir, const char *name, const struct plot_src *src, struct plot_opts *po,
		     struct plot_buf *pb, char *err, size_t errlen)
{
	char path[4096], e[512];
	FILE *mem;
	struct outfile *of;
	int rc;

	memset(pb, 0, sizeof(*pb));
	if (!(mem = open_memstream(&pb->svg, &pb->svg_len)))
		return errmsg(err, errlen, "out of memory");
	po->format = PLOT_SVG;
	rc = render(src, po, mem, e, sizeof(e));
	if (fclose(mem) || rc)
		return errmsg(err, errlen, "%s: %s", name, rc == -EINVAL ? e : "cannot draw");
	for (int fmt = 0; fmt < 2; fmt++) {
		snprintf(path, sizeof(path), "%s/%s.%s", dir, name, fmt ? "png" : "svg");
		if (!(of = outfile_open(path, OUTFILE_REPLACE, &rc, e, sizeof(e))))
			return errmsg(err, errlen, "cannot write '%s': %s", path, e);
		if (fmt) {
			po->format = PLOT_PNG;
			rc = render(src, po, of->f, e, sizeof(e));
		} else {
			rc = fwrite(pb->svg, 1, pb->svg_len, of->f) == pb->svg_len ? 0 : -EIO;
		}
		if (rc) {
			outfile_abort(of);
			return errmsg(err, errlen, "cannot write '%s': %s", path, rc == -EINVAL ? e : strerror(EIO));
		}
		if ((rc = outfile_commit(of)))
			return errmsg(err, errlen, "cannot write '%s': %s", path, strerror(-rc));
	}
	pb->ok = true;
	return 0;
}

/* ---- the terminal ---- */

static void answer_to_term(void *ctx, enum answer_kind k, const struct eff_test *t, const char *line)
{
	(void)k;
	(void)t;
	fprintf(ctx, "  %s\n", line);
}

static void terminal(FILE *term, const struct an *a, const char *dir, unsigned added, bool db)
{
	const struct mx *m = a->m;
	unsigned used = 0;

	if (!term)
		return;
	for (unsigned r = 0; r < m->nruns; r++)
		used += m->run[r].used;
	fprintf(term, "%s: %s, %u cells, %u of %u runs used\n", m->name, m->workload, m->ncells, used, m->nruns);
	mafter_findings_term(term, m);
	mrep_answer(a, answer_to_term, term);
	fprintf(term, "  (%u confirmatory test%s, Holm; %u exploratory, Benjamini-Hochberg; %u paired by round, %u "
		"unpaired; fsbench(1) STATISTICS)\n", a->r.nconfirm, a->r.nconfirm == 1 ? "" : "s", a->r.nexplore,
		a->npaired, a->nunpaired);
	if (m->nwarn)
		fprintf(term, "  %u warning%s (see the report), the first: %s\n", m->nwarn, m->nwarn == 1 ? "" : "s", m->warn[0]);
	if (db)
		fprintf(term, "  history: %u run%s added\n", added, added == 1 ? "" : "s");
	fprintf(term, "report: %s/report.html (report.md, summary.json, plots beside it)\n", dir);
}

/* ---- putting it together ---- */

static int write_json(const char *path, const json_t *root, char *err, size_t errlen)
{
	char e[256];
	int rc;
	struct outfile *of = outfile_open(path, OUTFILE_REPLACE, &rc, e, sizeof(e));

	if (!of)
		return errmsg(err, errlen, "cannot write '%s': %s", path, e);
	if (json_dumpf(root, of->f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0 || fputc('\n', of->f) == EOF) {
		rc = outfile_error(of) ? outfile_error(of) : -EIO;
		outfile_abort(of);
		return errmsg(err, errlen, "cannot write '%s': %s", path, strerror(-rc));
	}
	if ((rc = outfile_commit(of)))
		return errmsg(err, errlen, "cannot write '%s': %s", path, strerror(-rc));
	return 0;
}

/* o->stop asked between the report's files: true (and err says before which) to end it */
static bool stopped(const struct matrix_report_opts *o, const char *before, char *err, size_t errlen)
{
	if (!o->stop || !o->stop())
		return false;
	errmsg(err, errlen, "interrupted before %s", before);
	return true;
}

static const char *const outputs[] = { "summary.json", "report.md", "report.html", "plot-compare.svg",
				       "plot-compare.png", "plot-fill.svg", "plot-fill.png", "plot-after.svg", "plot-after.png" };

int matrix_decided(const char *dir, const struct matrix_report_opts *o, double alpha, bool *decided,
		   unsigned *undecided, char *err, size_t errlen)
{
	struct mx m;
	struct an a = { 0 };
	int rc = 0;

	*decided = false;
	*undecided = 0;
	if (mread_load(dir, o->exclude_flagged, &m, err, errlen)) {
		mread_free(&m);
		return -EINVAL;
	}
	m.alpha = alpha;
	a.m = &m;
	a.o = o;
	if (analyse(&a)) {
		errmsg(err, errlen, "out of memory");
		rc = -ENOMEM;
	} else {
		for (unsigned k = 0; k < a.r.nt; k++) {
			const struct vd_test *v = &a.r.t[k].v;

			*undecided += v->family == VD_CONFIRMATORY && (v->kind == VD_UNDECIDED || v->kind == VD_NA);
		}
		*decided = !*undecided;
	}
	an_free(&a);
	mread_free(&m);
	return rc;
}

int matrix_explain(const char *dir, const char *cell_a, const char *cell_b, FILE *term, char *err, size_t errlen)
{
	static const struct matrix_report_opts o = { .no_db = true };
	struct mx m;
	struct an a = { 0 };
	struct mwhy_in in = { .cell_a = -1, .cell_b = -1 };
	char e[512];
	int rc = 0;

	if (mread_load(dir, false, &m, e, sizeof(e))) {
		errmsg(err, errlen, "'%s': %s", dir, e);
		mread_free(&m);
		return -EINVAL;
	}
	for (unsigned c = 0; cell_a && c < m.ncells; c++) {
		if (!strcmp(m.cell[c].name, cell_a))
			in.cell_a = (int)c;
		if (!strcmp(m.cell[c].name, cell_b))
			in.cell_b = (int)c;
	}
	if (cell_a && (in.cell_a < 0 || in.cell_b < 0 || in.cell_a == in.cell_b)) {
		errmsg(err, errlen, in.cell_a == in.cell_b && in.cell_a >= 0 ? "two different cells, please" :
		       "no cell '%s' in '%s'", in.cell_a < 0 ? cell_a : cell_b, dir);
		mread_free(&m);
		return -EINVAL;
	}
	a.m = &m;
	a.o = &o;
	if (analyse(&a)) {
		errmsg(err, errlen, "out of memory");
		rc = -ENOMEM;
	} else {
		in.m = &m;
		in.fig = a.fig;
		in.nfig = a.nfig;
		in.r = &a.r;
		fprintf(term,
			"%s: %s, %u cells; the primary effects, decided then undecided, and what changed with them\n\n",
			m.name, m.workload, m.ncells);
		if (!mwhy_term(term, &in)) {
			fprintf(term,
				"no primary effect decided better or worse, or undecided%s (each is equivalent or "
				"has no estimate): nothing to explain\n",
				cell_a ? " between these cells" : "");
			rc = -ENODATA;
		}
	}
	an_free(&a);
	mread_free(&m);
	return rc;
}

/* every output can be written, and the database's path has no symbolic link on it, before
 * anything is written: 0, or -EINVAL with the reason in err; dbp the database's path */
static int check_outputs(const char *dir, const struct matrix_report_opts *o, char *dbp, size_t dblen,
			 char *err, size_t errlen)
{
	char path[4096], e[512];

	for (size_t k = 0; k < sizeof(outputs) / sizeof(outputs[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, outputs[k]);
		if (outfile_check(path, OUTFILE_REPLACE, e, sizeof(e))) {
			errmsg(err, errlen, "cannot write '%s': %s", path, e);
			return -EINVAL;
		}
	}
	if (o->junit && outfile_check(o->junit, OUTFILE_REPLACE, e, sizeof(e))) {
		errmsg(err, errlen, "option --junit: cannot write '%s': %s", o->junit, e);
		return -EINVAL;
	}
	if (o->no_db)
		return 0;
	if (o->db)
		snprintf(dbp, dblen, "%s", o->db);
	else if (history_default_path(dbp, dblen, e, sizeof(e))) {
		errmsg(err, errlen, "history: %s (--no-db records nothing)", e);
		return -EINVAL;
	}
	if (history_check_path(dbp, e, sizeof(e))) {
		errmsg(err, errlen, "history: %s", e);
		return -EINVAL;
	}
	return 0;
}

/* the plots of a report: the cells that have runs, their median runs, the verdicts to mark */
struct rep_plots {
	struct plot_buf cmp, fill, after;
	struct mafter_plot aplot;
	struct rr_result *res;
	struct plot_mark *marks;
	unsigned *bold;
	unsigned nres, nmarks;
	bool has_fill;
	char note[200];
};

/* 0, or -1 out of memory */
static int plots_collect(const struct an *a, struct rep_plots *p)
{
	const struct mx *m = a->m;

	p->res = calloc(m->ncells + 1, sizeof(*p->res));
	p->bold = calloc(m->ncells + 1, sizeof(*p->bold));
	p->marks = calloc((size_t)m->ncells * a->nfig + 1, sizeof(*p->marks));
	if (!p->res || !p->bold || !p->marks)
		return -1;
	for (unsigned c = 0; c < m->ncells; c++) {
		if (!m->cell[c].nrun)
			continue;
		/* a shallow copy: plot only reads */
		p->res[p->nres] = m->cell[c].merged;
		p->bold[p->nres] = m->cell[c].median > 0 ? (unsigned)m->cell[c].median : 0;
		p->has_fill |= m->cell[c].merged.nfill > 0;
		for (unsigned f = 0; f < a->nfig; f++) {
			const struct eff_test *t = c ? mrep_test_vs_first(a, c, f) : NULL;

			if (t && p->nres)
				p->marks[p->nmarks++] =
					(struct plot_mark){ a->fig[f]->key, p->nres,
							    t->v.kind == VD_DIFFERENT ||
									    t->v.kind == VD_EQUIVALENT
								    ? mrep_verdict_word(a, t)
								    : "" };
		}
		p->nres++;
	}
	return 0;
}

/* plot-compare, plot-fill, plot-after: 0, or -1 with the reason in err */
static int plots_draw(const char *dir, const struct an *a, FILE *term, struct rep_plots *p, char *err,
		      size_t errlen)
{
	const struct mx *m = a->m;
	const struct matrix_report_opts *o = a->o;
	char e[512];

	if (p->nres && m->cell[0].nrun) {
		struct plot_opts po = { .type = PLOT_COMPARE,
					.width = 1200,
					.height = 800,
					.marks = p->marks,
					.nmarks = p->nmarks,
					.marks_note = p->note };

		snprintf(p->note, sizeof(p->note),
			 "verdicts against %s: the report's (confirmatory %u tests, Holm; exploratory "
			 "%u, BH; none for cells two axes apart)",
			 m->cell[0].name, a->r.nconfirm, a->r.nexplore);
		const struct plot_src src = { p->res, p->nres, NULL };

		if (plot_both(dir, "plot-compare", &src, &po, &p->cmp, e, sizeof(e))) {
			/* results without key figures: no compare plot, said */
			if (!strstr(e, "cannot write"))
				fprintf(term ? term : stderr, "fsbench report: no compare plot: %s\n", e);
			else
				return errmsg(err, errlen, "%s", e);
		}
	}
	if (p->has_fill) {
		struct plot_opts po = { .type = PLOT_FILL,
					.width = 1200,
					.height = 800,
					.bold_run = p->bold,
					.band = true,
					.bold_what = o->fill_y ? "median run by aggregate files/sec"
							       : "median run",
					.fill_y = o->fill_y,
					.smooth = o->smooth };

		const struct plot_src src = { p->res, p->nres, NULL };

		if (plot_both(dir, "plot-fill", &src, &po, &p->fill, e, sizeof(e)))
			return errmsg(err, errlen, "%s", e);
	}
	if (!mafter_plot_build(m, &p->aplot)) {
		struct plot_opts po = { .width = 1200, .height = 600 };
		const struct plot_src src = { NULL, 0, &p->aplot.b };

		if (plot_both(dir, "plot-after", &src, &po, &p->after, e, sizeof(e)))
			return errmsg(err, errlen, "%s", e);
	}
	return 0;
}

static void plots_free(struct rep_plots *p)
{
	free(p->cmp.svg);
	free(p->fill.svg);
	free(p->after.svg);
	mafter_plot_free(&p->aplot);
	free(p->res);
	free(p->bold);
	free(p->marks);
}

/* report.md and report.html: 0, or -1 with the reason in err */
static int write_docs(const char *dir, const struct an *a, const struct rep_plots *p, char *err,
		      size_t errlen)
{
	struct outfile *md, *html;
	struct doc d = { 0 };
	char path[4096], e[512];
	int r1, r2;

	snprintf(path, sizeof(path), "%s/report.md", dir);
	if (!(md = outfile_open(path, OUTFILE_REPLACE, &r1, e, sizeof(e))))
		return errmsg(err, errlen, "cannot write '%s': %s", path, e);
	snprintf(path, sizeof(path), "%s/report.html", dir);
	if (!(html = outfile_open(path, OUTFILE_REPLACE, &r2, e, sizeof(e)))) {
		outfile_abort(md);
		return errmsg(err, errlen, "cannot write '%s': %s", path, e);
	}
	d.md = md->f;
	d.html = html->f;
	mrep_write_doc(&d, a, &p->cmp, &p->fill, &p->after);
	r1 = outfile_commit(md);
	r2 = outfile_commit(html);
	if (r1 || r2)
		return errmsg(err, errlen, "cannot write '%s/%s': %s", dir, r1 ? "report.md" : "report.html",
			      strerror(-(r1 ? r1 : r2)));
	return 0;
}

/* the runs into the history database: 0; -EIO with the reason in err; -EINTR when o->stop
 * ended it */
static int record_history(const char *dbp, const struct mx *m, const struct matrix_report_opts *o,
			  unsigned *added, char *err, size_t errlen)
{
	struct history *h;
	char e[512];

	if (stopped(o, "the history", err, errlen))
		return -EINTR;
	if (history_open_stop(dbp, true, o->stop, &h, e, sizeof(e))) {
		if (!stopped(o, "the history", err, errlen))
			errmsg(err, errlen, "history: %s", e);
		return o->stop && o->stop() ? -EINTR : -EIO;
	}
	if (history_add_matrix(h, m, added, e, sizeof(e))) {
		history_close(h);
		if (!stopped(o, "the history", err, errlen))
			errmsg(err, errlen, "history '%s': %s", dbp, e);
		return o->stop && o->stop() ? -EINTR : -EIO;
	}
	history_close(h);
	return 0;
}

int matrix_report_opts(const char *dir, const struct matrix_report_opts *o, FILE *term, char *err, size_t errlen)
{
	struct mx m;
	struct an a = { 0 };
	struct rep_plots p = { 0 };
	char path[4096], e[512], dbp[4096];
	unsigned added = 0;
	int rc;
	json_t *sum = NULL;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (mread_load(dir, o->exclude_flagged, &m, e, sizeof(e))) {
		errmsg(err, errlen, "'%s': %s", dir, e);
		rc = -EINVAL;
		goto out;
	}
	if ((rc = check_outputs(dir, o, dbp, sizeof(dbp), err, errlen)))
		goto out;
	rc = -EIO;
	a.m = &m;
	a.o = o;
	if (analyse(&a)) {
		errmsg(err, errlen, "out of memory");
		goto out;
	}
	if (!(sum = mrep_summary_json(&a))) {
		errmsg(err, errlen, "out of memory");
		goto out;
	}
	if (stopped(o, "summary.json", err, errlen))
		goto intr;
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (write_json(path, sum, err, errlen))
		goto out;
	if (plots_collect(&a, &p)) {
		errmsg(err, errlen, "out of memory");
		goto out;
	}
	if (stopped(o, "the plots", err, errlen))
		goto intr;
	if (plots_draw(dir, &a, term, &p, err, errlen))
		goto out;
	if (stopped(o, "report.md and report.html", err, errlen))
		goto intr;
	if (write_docs(dir, &a, &p, err, errlen))
		goto out;
	if (o->junit) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (mrep_write_junit(&a, o->junit,
				     (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, err,
				     errlen))
			goto out;
	}
	if (!o->no_db && (rc = record_history(dbp, &m, o, &added, err, errlen)))
		goto out;
	terminal(term, &a, dir, added, !o->no_db);
	rc = 0;
	if (!m.nused) {
		/* written, and said: nothing to compare is not a result */
		errmsg(err, errlen, "0 of %u runs used%s: nothing to compare", m.nruns,
		       m.nexcluded ? " (every usable run flagged and left out: --exclude-flagged)" : "");
		rc = -ENODATA;
	}
	goto out;
intr:
	rc = -EINTR;
out:
	json_decref(sum);
	plots_free(&p);
	an_free(&a);
	mread_free(&m);
	return rc;
}
