/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A matrix directory's analysis written out: summary.json, plots, report.md, report.html, the
 * history, the terminal summary (matrix_report.h). The numbers come from core/effects; this
 * file lays them out. */
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
#include "core/profdiff.h"
#include "core/outfile.h"
#include "report/compare_text.h"
#include "report/doc.h"
#include "report/history.h"
#include "report/junit.h"
#include "report/matrix_read.h"
#include "report/matrix_why.h"
#include "report/matrix_after.h"
#include "report/plot_cairo.h"
#include "report/workload_report.h"
#include "workload/workload.h"

#define MAX_SHOWN 8              /* significant effects on the terminal */

/* the analysis' inputs and results, shared by the writers below */
struct an {
	const struct mx *m;
	const struct matrix_report_opts *o;
	unsigned nfig;
	const struct rr_figure **fig;    /* [nfig]: each figure's declaration, from the first cell having it */
	struct eff_figure *ef;
	unsigned *cell_value;
	const double **v;
	unsigned *n;
	unsigned **round;                /* [cell]: each used run's round; NULL when not in rounds */
	const char *primary;             /* --primary, else the run's; NULL: the declared figures */
	double equiv_pct;                /* --equivalence, else the run's, else VD_EQUIV_PCT */
	struct eff_result r;
	unsigned nsig, nsig_eff, nsig_ia, ntested_ia;   /* decided better/worse (or an interaction) */
	unsigned npaired, nunpaired;     /* tested, paired by round or not */
	bool incomplete;                 /* some test wanted pairing and had incomplete rounds */
};

/* ---- numbers as people read them ---- */

/* v in the figure's display unit (ns as us or ms, chosen by ref so one row shares it) */
static const char *disp_unit(const char *unit, double ref, double *scale)
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
	const char *u = disp_unit(f->unit, ref, &sc);

	cmp_fmt_num(v * sc, ref * sc, buf, len);
	if (unit)
		snprintf(buf + strlen(buf), len - strlen(buf), " %s", u);
}

static void fmt_val(const struct rr_figure *f, double v, char *buf, size_t len, bool unit)
{
	fmt_val_as(f, v, v, buf, len, unit);
}

/* a cell in the row's display unit: sc is the scale the row's unit column chose */
static void fmt_cell(const struct an *a, unsigned c, unsigned f, double sc, char *buf, size_t len)
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

static void fmt_p(double p, char *buf, size_t len)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p < 1e-4)
		snprintf(buf, len, "%.1e", p);
	else
		snprintf(buf, len, "%.4f", p);
}

static const char *better_name(enum rr_dir d)
{
	return d == RR_HIGHER_BETTER ? "higher" : d == RR_LOWER_BETTER ? "lower" : "neither";
}

/* "btrfs-on" or, for cells named otherwise, their axis values */
static const char *cell_name(const struct an *a, unsigned c)
{
	return a->m->cell[c].name;
}

/* what the effect test changes: "fs: ext4 -> btrfs (toggle=off)" */
static void effect_label(const struct an *a, const struct eff_test *t, char *buf, size_t len)
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
static void interaction_words(const struct an *a, const struct eff_test *t, char *buf, size_t len)
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
static void fmt_estimate(const struct an *a, const struct eff_test *t, char *buf, size_t len)
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
	fmt_val(a->fig[t->fig], v->ratio, e, sizeof(e), false);
	if (isnan(v->lo)) {
		snprintf(buf, len, "%s%s %s", v->ratio > 0 ? "+" : "", e, a->fig[t->fig]->unit);
		return;
	}
	fmt_val_as(a->fig[t->fig], v->lo, v->ratio, l, sizeof(l), false);
	fmt_val_as(a->fig[t->fig], v->hi, v->ratio, h, sizeof(h), true);
	snprintf(buf, len, "%s%s [%s, %s]", v->ratio > 0 ? "+" : "", e, l, h);
}

/* the verdict in words: an effect's "worse", an interaction's "yes" / "no" / "undecided" */
static const char *verdict_word(const struct an *a, const struct eff_test *t)
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
static void fmt_how(const struct eff_test *t, char *buf, size_t len)
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
static const struct eff_test *test_vs_first(const struct an *a, unsigned c, unsigned f)
{
	for (unsigned k = 0; k < a->r.nt; k++) {
		const struct eff_test *t = &a->r.t[k];

		if (t->kind == EFF_EFFECT && t->fig == f &&
		    ((t->cell[0] == 0 && t->cell[1] == c) || (t->cell[1] == 0 && t->cell[0] == c)))
			return t;
	}
	return NULL;
}

/* ---- summary.json ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* ---- the answer: the summary's first lines ---- */

#define ANSWER_MAX_EXPLORATORY 8

enum answer_kind { ANS_EFFECT, ANS_INTERACTION, ANS_EXPLORATORY, ANS_DISAGREE };

/* One line of the answer; t the test behind it (NULL for a disagreement's line). */
typedef void answer_fn(void *ctx, enum answer_kind k, const struct eff_test *t, const char *line);

static void answer_test(const struct an *a, const struct eff_test *t, enum answer_kind k, answer_fn *fn, void *ctx)
{
	char lab[768], est[128], how[160], line[1280];

	if (t->kind == EFF_EFFECT) {
		effect_label(a, t, lab, sizeof(lab));
	} else {
		char words[320];

		interaction_words(a, t, words, sizeof(words));
		snprintf(lab, sizeof(lab), "interaction %s x %s (%s)", a->m->axis[t->axis].name,
			 a->m->axis[t->axis_b].name, words);
	}
	fmt_estimate(a, t, est, sizeof(est));
	fmt_how(t, how, sizeof(how));
	snprintf(line, sizeof(line), "%s%s, %s: %s %s%s%s%s", k == ANS_EXPLORATORY ? "exploratory: " : "",
		 a->fig[t->fig]->name, lab, verdict_word(a, t), est, *how ? " (" : "", how, *how ? ")" : "");
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
static void answer(const struct an *a, answer_fn *fn, void *ctx)
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
			effect_label(a, t, lab, sizeof(lab));
			snprintf(line, sizeof(line), "%s and %s move in opposite directions, %s (%+.1f%% vs %+.1f%%): they "
				 "measure the same runs differently (a sum of each thread's own rate against all the work over "
				 "the wall time), so threads that finish far apart, or one slow phase, move them apart",
				 a->fig[t->fig]->name, a->fig[u->fig]->name, lab, vd_pct(&t->v), vd_pct(&u->v));
			fn(ctx, ANS_DISAGREE, NULL, line);
		}
}

static const char *const answer_kind_name[] = { "effect", "interaction", "exploratory", "disagreement" };

static void verdict_json(const struct an *a, const struct eff_test *t, json_t *o);

static void answer_to_json(void *ctx, enum answer_kind k, const struct eff_test *t, const char *line)
{
	json_t *o = json_pack("{s:s,s:s}", "kind", answer_kind_name[k], "text", line);

	if (t) {
		const struct an *a = *(const struct an **)ctx;

		json_object_set_new(o, "figure", json_string(a->fig[t->fig]->key));
		verdict_json(a, t, o);
	}
	json_array_append_new(((json_t **)ctx)[1], o);
}

static json_t *answer_json(const struct an *a)
{
	json_t *arr = json_array();
	void *ctx[2] = { (void *)a, arr };

	answer(a, answer_to_json, ctx);
	return arr;
}

/* a test's verdict, as every writer shows it */
static void verdict_json(const struct an *a, const struct eff_test *t, json_t *o)
{
	const struct vd_test *v = &t->v;

	json_object_set_new(o, "verdict", json_string(verdict_word(a, t)));
	json_object_set_new(o, "family", json_string(vd_family_name(v->family)));
	json_object_set_new(o, "tested", json_boolean(v->tested));
	json_object_set_new(o, "not_tested_because", v->why && !v->tested ? json_string(v->why) : json_null());
	json_object_set_new(o, "scale", json_string(v->e.log ? "ratio" : "difference"));
	json_object_set_new(o, "ratio", v->kind != VD_NA && v->e.log ? jnum(v->ratio) : json_null());
	json_object_set_new(o, "difference", v->kind != VD_NA && !v->e.log ? jnum(v->ratio) : json_null());
	json_object_set_new(o, "low", v->tested ? jnum(v->lo) : json_null());
	json_object_set_new(o, "high", v->tested ? jnum(v->hi) : json_null());
	json_object_set_new(o, "level", v->tested ? jnum(v->level) : json_null());
	json_object_set_new(o, "delta_pct", v->kind != VD_NA ? jnum(vd_pct(v)) : json_null());
	json_object_set_new(o, "paired", json_boolean(v->tested && v->e.paired));
	json_object_set_new(o, "incomplete_rounds", json_boolean(v->incomplete));
	json_object_set_new(o, "n", v->tested ? json_integer(v->e.n) : json_null());
	json_object_set_new(o, "t", v->tested ? jnum(v->e.t) : json_null());
	json_object_set_new(o, "df", v->tested ? jnum(v->e.df) : json_null());
	json_object_set_new(o, "p_value", v->tested ? jnum(v->e.p) : json_null());
	json_object_set_new(o, "p_adjusted", v->tested ? jnum(v->p_adj) : json_null());
	json_object_set_new(o, "more_rounds", isfinite(v->more_rounds) ? json_real(v->more_rounds) : json_null());
}

static json_t *summary_json(const struct an *a)
{
	const struct mx *m = a->m;
	json_t *root = json_object(), *cells = json_array(), *eff = json_array(), *ia = json_array();
	json_t *runs = json_array(), *warn = json_array(), *axes = json_array();

	json_object_set_new(root, "schema", json_string("fsbench-matrix-summary"));
	json_object_set_new(root, "schema_version", json_integer(1));
	json_object_set_new(root, "experiment", json_string(m->name));
	json_object_set_new(root, "workload", json_string(m->workload));
	json_object_set_new(root, "kernel_release", json_string(m->kernel_release));
	json_object_set_new(root, "host", json_string(m->host));
	json_object_set_new(root, "fsbench_version", json_string(m->fsbench_version));
	json_object_set_new(root, "correction", json_pack("{s:{s:s,s:i,s:s},s:{s:s,s:i,s:s},s:f,s:f}",
		"confirmatory", "method", "holm", "tests", (int)a->r.nconfirm, "figures", "the primary figures' effects and interactions",
		"exploratory", "method", "benjamini-hochberg", "tests", (int)a->r.nexplore, "figures", "every other tested figure",
		"alpha", m->alpha > 0 ? m->alpha : VD_ALPHA, "equivalence_pct", a->equiv_pct));
	json_object_set_new(root, "answer", answer_json(a));
	json_object_set_new(root, "findings", mafter_findings_json(m));
	json_object_set_new(root, "flagged_runs", json_string(m->exclude_flagged ? "excluded" : "included"));
	for (unsigned x = 0; x < m->naxes; x++) {
		json_t *vals = json_array();

		for (unsigned k = 0; k < m->axis[x].nvalues; k++)
			json_array_append_new(vals, json_string(m->axis[x].values[k]));
		json_array_append_new(axes, json_pack("{s:s,s:o}", "name", m->axis[x].name, "values", vals));
	}
	json_object_set_new(root, "axes", axes);
	for (unsigned c = 0; c < m->ncells; c++) {
		const struct mread_cell *cl = &m->cell[c];
		const struct mread_run *med = mread_median_run(m, c);
		json_t *o = json_object(), *av = json_object(), *figs = json_object();

		for (unsigned x = 0; x < m->naxes; x++)
			json_object_set_new(av, m->axis[x].name, json_string(mread_value(m, c, x)));
		for (unsigned f = 0; f < a->nfig; f++) {
			const struct eff_cell *ec = &a->r.cell[c * a->nfig + f];
			bool two = ec->present && ec->s.n >= 2;

			if (!ec->present)
				continue;
			json_object_set_new(figs, a->fig[f]->key, json_pack("{s:i,s:o,s:s,s:o,s:o,s:o,s:o}",
				"n", (int)ec->s.n, "mean", jnum(ec->s.mean), "mean_kind", ec->s.harmonic ? "harmonic" : ec->s.geometric ? "geometric" : "arithmetic",
				"ci95_half_width", two ? jnum(ec->s.ci) : json_null(), "ci95_low", two ? jnum(ec->s.lo) : json_null(),
				"ci95_high", two ? jnum(ec->s.hi) : json_null(), "cv_pct", two ? jnum(ec->s.cv_pct) : json_null()));
		}
		json_object_set_new(o, "name", json_string(cl->name));
		json_object_set_new(o, "axes", av);
		json_object_set_new(o, "config_hash", json_string(cl->config_hash));
		json_object_set_new(o, "runs_used", json_integer(cl->nrun));
		json_object_set_new(o, "runs_flagged", json_integer(cl->nflagged));
		json_object_set_new(o, "median_run", med ? json_string(med->json) : json_null());
		json_object_set_new(o, "median_by", cl->median_fig[0] ? json_string(cl->median_fig) : json_null());
		json_object_set_new(o, "figures", figs);
		json_object_set_new(o, "after", mafter_cell_json(m, c));
		json_array_append_new(cells, o);
	}
	json_object_set_new(root, "cells", cells);
	for (unsigned k = 0; k < a->r.nt; k++) {
		const struct eff_test *t = &a->r.t[k];
		const struct rr_figure *f = a->fig[t->fig];
		json_t *o;

		if (t->kind == EFF_EFFECT) {
			const struct eff_cell *c0 = &a->r.cell[t->cell[0] * a->nfig + t->fig];
			const struct eff_cell *c1 = &a->r.cell[t->cell[1] * a->nfig + t->fig];

			o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:[s,s],s:s,s:s}", "figure", f->key, "name", f->name, "unit", f->unit,
				"better", better_name(f->dir), "axis", m->axis[t->axis].name, "cells", cell_name(a, t->cell[0]),
				cell_name(a, t->cell[1]), "from", mread_value(m, t->cell[0], t->axis), "to",
				mread_value(m, t->cell[1], t->axis));
			json_object_set_new(o, "mean_from", c0->present ? jnum(c0->s.mean) : json_null());
			json_object_set_new(o, "mean_to", c1->present ? jnum(c1->s.mean) : json_null());
			verdict_json(a, t, o);
			json_array_append_new(eff, o);
		} else {
			o = json_pack("{s:s,s:s,s:s,s:[s,s],s:[s,s,s,s],s:s}", "figure", f->key, "name", f->name, "unit", f->unit,
				"axes", m->axis[t->axis].name, m->axis[t->axis_b].name, "cells", cell_name(a, t->cell[0]),
				cell_name(a, t->cell[1]), cell_name(a, t->cell[2]), cell_name(a, t->cell[3]),
				"scale", t->v.e.log ? "log" : "linear");
			verdict_json(a, t, o);
			json_array_append_new(ia, o);
		}
	}
	json_object_set_new(root, "effects", eff);
	json_object_set_new(root, "interactions", ia);
	for (unsigned r = 0; r < m->nruns; r++) {
		const struct mread_run *ru = &m->run[r];

		json_array_append_new(runs, json_pack("{s:s,s:i,s:i,s:s?,s:s?,s:s?,s:i,s:o,s:b,s:b,s:o}", "cell",
			m->cell[ru->cell].name, "repeat", (int)ru->repeat, "order", (int)ru->order, "json", ru->json,
			"started_at", ru->started_at, "ended_at", ru->ended_at, "exit_status", ru->exit_status,
			"other_cpu_pct", jnum(ru->other_cpu_pct), "other_cpu_flag", ru->other_cpu_flag, "used", ru->used,
			"problem", ru->problem ? json_string(ru->problem) : json_null()));
	}
	json_object_set_new(root, "runs", runs);
	/* noise: steal per run; flagged runs counted, and those left out */
	for (unsigned r = 0; r < m->nruns; r++)
		json_object_set_new(json_array_get(runs, r), "steal_pct", jnum(m->run[r].steal_pct));
	json_object_set_new(root, "runs_counted", json_pack("{s:i,s:i,s:i,s:i}", "runs", (int)m->nruns, "used",
							    (int)m->nused, "flagged", (int)m->nflagged,
							    "flagged_left_out", (int)m->nexcluded));
	for (unsigned w = 0; w < m->nwarn; w++)
		json_array_append_new(warn, json_string(m->warn[w]));
	json_object_set_new(root, "warnings", warn);
	return root;
}

/* ---- the classic tables of a cell's median run, rebuilt from its figures ---- */

static char *classic_text(const struct mx *m, const struct mread_run *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	const struct workload_ops *w;

	if (!o)
		return NULL;
	w = workload_find(m->workload);
	if (w && w->report && w->report->classic_from_figures)
		w->report->classic_from_figures(o, &r->r);
	else
		for (unsigned f = 0; f < r->r.nfig; f++)
			fprintf(o, "%-40s %14.4g %s\n", r->r.fig[f].name, r->r.fig[f].v[0], r->r.fig[f].unit);
	if (fclose(o)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- plots ---- */

struct plot_buf {
	char *svg;
	size_t svg_len;
	bool ok;
};

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

/* ---- report.md and report.html ---- */

static bool shown_fig(const struct an *a, unsigned f)
{
	return a->fig[f]->key_fig;
}

static void section_cells(struct doc *d, const struct an *a)
{
	const struct mx *m = a->m;
	const char *head[MX_MAX_AXES + 6];
	char buf[MX_MAX_AXES + 6][160];
	const char *cells[MX_MAX_AXES + 6];
	unsigned nc = 0;

	head[nc++] = "cell";
	for (unsigned x = 0; x < m->naxes; x++)
		head[nc++] = m->axis[x].name;
	head[nc++] = "runs used";
	head[nc++] = "flagged (other CPU)";
	head[nc++] = "median run";
	head[nc++] = "config hash";
	doc_h(d, 2, "Cells");
	doc_table(d, nc, head, NULL);
	for (unsigned c = 0; c < m->ncells; c++) {
		const struct mread_run *med = mread_median_run(m, c);
		unsigned k = 0;

		cells[k++] = m->cell[c].name;
		for (unsigned x = 0; x < m->naxes; x++)
			cells[k++] = mread_value(m, c, x);
		snprintf(buf[0], sizeof(buf[0]), "%u", m->cell[c].nrun);
		cells[k++] = buf[0];
		snprintf(buf[1], sizeof(buf[1]), "%u", m->cell[c].nflagged);
		cells[k++] = buf[1];
		snprintf(buf[2], sizeof(buf[2]), "%s", med ? med->json : "-");
		cells[k++] = buf[2];
		cells[k++] = m->cell[c].config_hash[0] ? m->cell[c].config_hash : "-";
		doc_row(d, cells);
	}
	doc_table_end(d);
}

static void section_figures(struct doc *d, const struct an *a)
{
	const struct mx *m = a->m;
	unsigned nc = m->ncells + 2;
	const char **head = calloc(nc, sizeof(char *)), **cells = calloc(nc, sizeof(char *));
	char (*buf)[128] = calloc(nc, sizeof(*buf));

	if (!head || !cells || !buf)
		goto out;
	doc_h(d, 2, "Figures by cell");
	doc_p(d, "Mean over the runs and its 95%% confidence interval [low, high] (Student's t); rates (MiB/s, "
		 "IOPS, files/s) are harmonic means, each run doing the same work, with the interval mapped back from "
		 "the reciprocals. In parentheses: the verdict of the cell against %s, the first cell, where the two "
		 "differ in one axis and it is decided (Effects below). CV per cell and figure is in summary.json.",
	      m->cell[0].name);
	head[0] = "figure";
	head[1] = "unit";
	for (unsigned c = 0; c < m->ncells; c++)
		head[c + 2] = m->cell[c].name;
	doc_table(d, nc, head, NULL);
	for (unsigned f = 0; f < a->nfig; f++) {
		double sc, ref = NAN;

		for (unsigned c = 0; c < m->ncells && isnan(ref); c++)
			if (a->r.cell[c * a->nfig + f].present)
				ref = a->r.cell[c * a->nfig + f].s.mean;
		cells[0] = a->fig[f]->name;
		cells[1] = disp_unit(a->fig[f]->unit, ref, &sc);
		for (unsigned c = 0; c < m->ncells; c++) {
			const struct eff_test *t = c ? test_vs_first(a, c, f) : NULL;
			const char *st = t && (t->v.kind == VD_DIFFERENT || t->v.kind == VD_EQUIVALENT) ? verdict_word(a, t) : "";

			fmt_cell(a, c, f, sc, buf[c], sizeof(buf[c]) - 16);
			if (*st)
				snprintf(buf[c] + strlen(buf[c]), sizeof(buf[c]) - strlen(buf[c]), " (%s)", st);
			cells[c + 2] = buf[c];
		}
		doc_row(d, cells);
	}
	doc_table_end(d);
out:
	free(head);
	free(cells);
	free(buf);
}

static const char *const verdict_legend =
	"Effects of rates, times and latencies are ratios B/A of geometric means with their interval [low, high] "
	"on the log scale; percentages are differences. Paired by round when every round ran both cells "
	"(drift between rounds cancels), else unpaired (Welch). Primary figures form the confirmatory family "
	"(Holm), the others the exploratory one (Benjamini-Hochberg); derived figures are shown, not tested. "
	"The interval is the family-corrected one (it excludes 1 exactly when the corrected p < 0.05); "
	"\"equivalent\": the 90%% interval lies within the margin of +-%g%%; \"undecided\": neither, with the "
	"rounds that would decide it at the observed spread; figures that do not vary within either cell are "
	"not tested. fsbench(1) STATISTICS has the reasoning.";

static void section_effects(struct doc *d, const struct an *a)
{
	const struct mx *m = a->m;
	static const char *const head[] = { "figure", "from -> to", "from", "to", "effect [interval]", "family",
					     "p (adj.)", "verdict", "how" };

	doc_h(d, 2, "Effects");
	doc_p(d, verdict_legend, a->equiv_pct);
	doc_p(d, "Confirmatory: %u tests (Holm); exploratory: %u tests (Benjamini-Hochberg). Shown: the primary and "
		 "key figures and every decided difference; summary.json has every test.", a->r.nconfirm, a->r.nexplore);
	for (unsigned x = 0; x < m->naxes; x++) {
		unsigned hidden = 0;
		bool any = false;

		for (unsigned k = 0; k < a->r.nt; k++) {
			const struct eff_test *t = &a->r.t[k];
			char lab[256], from[48], to[48], est[128], pa[24], how[160];
			const char *cells[9] = { a->fig[t->fig]->name, lab, from, to, est, vd_family_name(t->v.family), pa,
						 verdict_word(a, t), how };
			const struct eff_cell *c0, *c1;

			if (t->kind != EFF_EFFECT || t->axis != x)
				continue;
			if (!shown_fig(a, t->fig) && t->v.family != VD_CONFIRMATORY && t->v.kind != VD_DIFFERENT) {
				hidden++;
				continue;
			}
			if (!any) {
				doc_h(d, 3, "%s", m->axis[x].name);
				doc_table(d, 9, head, NULL);
				any = true;
			}
			c0 = &a->r.cell[t->cell[0] * a->nfig + t->fig];
			c1 = &a->r.cell[t->cell[1] * a->nfig + t->fig];
			effect_label(a, t, lab, sizeof(lab));
			if (c0->present)
				fmt_val(a->fig[t->fig], c0->s.mean, from, sizeof(from), true);
			else
				snprintf(from, sizeof(from), "-");
			if (c1->present)
				fmt_val(a->fig[t->fig], c1->s.mean, to, sizeof(to), true);
			else
				snprintf(to, sizeof(to), "-");
			fmt_estimate(a, t, est, sizeof(est));
			fmt_p(t->v.p_adj, pa, sizeof(pa));
			fmt_how(t, how, sizeof(how));
			doc_row(d, cells);
		}
		if (any)
			doc_table_end(d);
		if (hidden)
			doc_p(d, "%s: %u more tests of other figures, none decided different (summary.json).", m->axis[x].name,
			      hidden);
	}
}

static void section_interactions(struct doc *d, const struct an *a)
{
	static const char *const head[] = { "figure", "axes", "B's effect at each A", "ratio of ratios [interval]",
					     "family", "p (adj.)", "interaction", "how" };
	unsigned nia = 0, hidden = 0;
	bool any = false;

	for (unsigned k = 0; k < a->r.nt; k++)
		nia += a->r.t[k].kind == EFF_INTERACTION;
	doc_h(d, 2, "Interactions");
	if (!nia) {
		doc_p(d, "No interaction to test: it needs two axes and the four cells of a 2x2 square.");
		return;
	}
	doc_p(d, "Does one axis' effect depend on another's value? The difference of differences "
		 "(A2B2 - A1B2) - (A2B1 - A1B1) on the log scale, shown as the ratio of the two ratios (1: the same "
		 "relative effect at both A values); for percentages the difference of differences in their unit. "
		 "Paired by round: the per-round contrast and a one-sample t; else the four cells' variances "
		 "(Welch-Satterthwaite). \"yes\": the corrected interval excludes 1, \"no\": the 90%% interval lies "
		 "within the equivalence margin, else undecided. Shown: the primary and key figures and every decided "
		 "interaction.");
	for (unsigned k = 0; k < a->r.nt; k++) {
		const struct eff_test *t = &a->r.t[k];
		char axes[160], words[320], est[128], pa[24], how[160];
		const char *cells[8] = { a->fig[t->fig]->name, axes, words, est, vd_family_name(t->v.family), pa,
					 verdict_word(a, t), how };

		if (t->kind != EFF_INTERACTION)
			continue;
		if (!shown_fig(a, t->fig) && t->v.family != VD_CONFIRMATORY && t->v.kind != VD_DIFFERENT) {
			hidden++;
			continue;
		}
		if (!any) {
			doc_table(d, 8, head, NULL);
			any = true;
		}
		snprintf(axes, sizeof(axes), "A=%s x B=%s", a->m->axis[t->axis].name, a->m->axis[t->axis_b].name);
		interaction_words(a, t, words, sizeof(words));
		fmt_estimate(a, t, est, sizeof(est));
		fmt_p(t->v.p_adj, pa, sizeof(pa));
		fmt_how(t, how, sizeof(how));
		doc_row(d, cells);
	}
	if (any)
		doc_table_end(d);
	if (hidden)
		doc_p(d, "%u more interaction tests of other figures, none decided (summary.json).", hidden);
}

static void section_classic(struct doc *d, const struct an *a)
{
	const struct mx *m = a->m;

	doc_h(d, 2, "Each cell's median run");
	doc_p(d, "The classic %s output of each cell's median run (the run with the median %s), rebuilt from its "
		 "result file's figures.", m->workload, m->cell[0].median_fig[0] ? m->cell[0].median_fig : "first figure");
	for (unsigned c = 0; c < m->ncells; c++) {
		const struct mread_run *r = mread_median_run(m, c);
		char *txt;

		if (!r)
			continue;
		doc_h(d, 3, "%s (%s)", m->cell[c].name, r->json);
		if ((txt = classic_text(m, r))) {
			doc_pre(d, txt);
			free(txt);
		}
	}
}

/* ---- profiles ---- */

static void profile_pair(struct doc *d, const struct an *a, unsigned c0, unsigned c1,
			 const struct mread_profile *g0, const struct mread_profile *g1, unsigned top)
{
	const struct mx *m = a->m;
	const struct perf_profile *p0 = g0->p, *p1 = g1->p;
	static const char *const h2[] = { "symbol", "image", "A us/op", "B us/op", "change us/op", "A %", "B %",
					  "share change (points)" };
	char hA[160], hB[160], sA[64] = "", sB[64] = "";
	const char *h1[8] = { "samples A", "% A", "image A", "symbol A", "samples B", "% B", "image B", "symbol B" };
	struct profdiff pd;
	bool marked = false;

	snprintf(hA, sizeof(hA), "A = %s", m->cell[c0].name);
	snprintf(hB, sizeof(hB), "B = %s", m->cell[c1].name);
	if (g0->ops && p0->samples)
		snprintf(sA, sizeof(sA), ", %.3g per op", (double)p0->samples / (double)g0->ops);
	if (g1->ops && p1->samples)
		snprintf(sB, sizeof(sB), ", %.3g per op", (double)p1->samples / (double)g1->ops);
	doc_h(d, 3, "%s: %s against %s", g0->name, m->cell[c0].name, m->cell[c1].name);
	doc_p(d, "Window: %s. %s: %llu samples%s; %s: %llu samples%s (cpu-clock, merged over each cell's runs). Top %u "
		 "symbols side by side:", g0->window[0] ? g0->window : "not recorded", hA, (unsigned long long)p0->samples,
	      sA, hB, (unsigned long long)p1->samples, sB, top);
	doc_table(d, 8, h1, NULL);
	for (unsigned i = 0; i < top && (i < p0->n || i < p1->n); i++) {
		char s0[24], q0[24], s1[24], q1[24];
		const char *row[8] = { "", "", "", "", "", "", "", "" };

		if (i < p0->n) {
			snprintf(s0, sizeof(s0), "%llu", (unsigned long long)p0->v[i].samples);
			snprintf(q0, sizeof(q0), "%.4f", p0->v[i].pct);
			row[0] = s0;
			row[1] = q0;
			row[2] = p0->v[i].image;
			row[3] = p0->v[i].symbol;
		}
		if (i < p1->n) {
			snprintf(s1, sizeof(s1), "%llu", (unsigned long long)p1->v[i].samples);
			snprintf(q1, sizeof(q1), "%.4f", p1->v[i].pct);
			row[4] = s1;
			row[5] = q1;
			row[6] = p1->v[i].image;
			row[7] = p1->v[i].symbol;
		}
		doc_row(d, row);
	}
	doc_table_end(d);
	if (profdiff_compute(p0, g0->ops, p1, g1->ops, &pd))
		return;
	doc_p(d, "Window: %s. The symbols whose %s moved most from A to B, %s, with the change of their share "
		 "beside it. %s", g0->window[0] ? g0->window : "not recorded",
	      pd.per_op ? "cost per op" : "share of the samples",
	      pd.inclusive ? "inclusive (call chains recorded: a symbol with every function it called; sampling "
			     "artefacts folded into their callers)" :
			     "self (no call chains: the time in the symbol itself; --profile-callgraph ranks by "
			     "inclusive cost)",
	      pd.per_op ? "Cost per op: samples / frequency / ops of the windows, in us." :
			  "No cost per op: the results lack the frequency or the ops.");
	doc_table(d, 8, h2, NULL);
	for (size_t i = 0; i < pd.n && i < top; i++) {
		const struct profdiff_row *r = &pd.v[i];
		char sym[160], ua[24], ub[24], du[24], pa[24], pb[24], dp[24];
		const char *row[8] = { sym, r->image, ua, ub, du, pa, pb, dp };

		snprintf(sym, sizeof(sym), "%s%s", r->symbol, r->artefact ? " (artefact)" : "");
		marked |= r->artefact;
		if (pd.per_op) {
			snprintf(ua, sizeof(ua), "%.3g", r->a_us);
			snprintf(ub, sizeof(ub), "%.3g", r->b_us);
			snprintf(du, sizeof(du), "%+.3g", r->b_us - r->a_us);
		} else {
			snprintf(ua, sizeof(ua), "-");
			snprintf(ub, sizeof(ub), "-");
			snprintf(du, sizeof(du), "-");
		}
		snprintf(pa, sizeof(pa), "%.2f", r->a_pct);
		snprintf(pb, sizeof(pb), "%.2f", r->b_pct);
		snprintf(dp, sizeof(dp), "%+.2f", r->b_pct - r->a_pct);
		doc_row(d, row);
	}
	doc_table_end(d);
	if (marked)
		doc_p(d, "(artefact): a point where interrupts come back on or the CPU idles; on a virtual machine "
			 "cpu-clock samples land there for time spent in its caller with interrupts off. With call "
			 "chains (--profile-callgraph) they are folded into the caller. fsbench(1), Profiles, lists them.");
	profdiff_free(&pd);
}

static void section_profiles(struct doc *d, const struct an *a)
{
	const struct mx *m = a->m;
	unsigned top = a->o->profile_top ? a->o->profile_top : 10;
	bool any = false;

	for (unsigned c = 0; c < m->ncells; c++)
		any |= m->cell[c].nprof > 0;
	if (!any)
		return;
	doc_h(d, 2, "Profiles");
	doc_p(d, "Kernel profiles (perf, cpu-clock) per cell, merged over its runs, for each pair of cells one axis "
		 "apart: the two cells' top symbols side by side, then the symbols whose cost per op moved most.");
	for (unsigned k = 0; k < a->r.nt; k++) {
		const struct eff_test *t = &a->r.t[k];
		const struct mread_cell *c0 = &m->cell[t->cell[0]], *c1 = &m->cell[t->cell[1]];

		/* one per pair of cells: the pair's first figure */
		if (t->kind != EFF_EFFECT || t->fig != 0)
			continue;
		for (unsigned g = 0; g < c0->nprof; g++)
			for (unsigned h = 0; h < c1->nprof; h++)
				if (!strcmp(c0->prof[g].name, c1->prof[h].name))
					profile_pair(d, a, t->cell[0], t->cell[1], &c0->prof[g], &c1->prof[h], top);
	}
}

static void section_runs(struct doc *d, const struct an *a)
{
	const struct mx *m = a->m;
	static const char *const head[] = { "order", "cell", "repeat", "started", "exit", "other CPU %", "flagged",
					    "used", "file", "steal %" };
	unsigned *idx;

	doc_h(d, 2, "Runs");
	doc_p(d, "In the order they ran. Flagged: other processes took more CPU than the runner's threshold during "
		 "the run (%s).", m->exclude_flagged ? "left out of the statistics: --exclude-flagged" :
		 "counted in the statistics; fsbench report --exclude-flagged leaves them out");
	doc_table(d, 10, head, NULL);
	idx = calloc(m->nruns + 1, sizeof(*idx));
	for (unsigned k = 0; idx && k < m->nruns; k++)
		idx[k] = k;
	/* insertion sort by order: the manifest may list them by cell */
	for (unsigned k = 1; idx && k < m->nruns; k++)
		for (unsigned j = k; j > 0 && m->run[idx[j - 1]].order > m->run[idx[j]].order; j--) {
			unsigned tmp = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = tmp;
		}
	for (unsigned k = 0; k < m->nruns; k++) {
		const struct mread_run *r = &m->run[idx ? idx[k] : k];
		char o[16], rp[16], ex[16], cpu[24], used[300], st[24];

		snprintf(o, sizeof(o), "%u", r->order);
		snprintf(rp, sizeof(rp), "%u", r->repeat);
		snprintf(ex, sizeof(ex), "%d", r->exit_status);
		if (isnan(r->other_cpu_pct))
			snprintf(cpu, sizeof(cpu), "-");
		else
			snprintf(cpu, sizeof(cpu), "%.1f", r->other_cpu_pct);
		snprintf(used, sizeof(used), "%s%s%s", r->used ? "yes" : "no", r->problem ? ": " : "", r->problem ? r->problem : "");
		if (isnan(r->steal_pct))
			snprintf(st, sizeof(st), "-");
		else
			snprintf(st, sizeof(st), "%.1f", r->steal_pct);
		{
			const char *row[10] = { o, m->cell[r->cell].name, rp, r->started_at, ex, cpu,
					       r->other_cpu_flag ? "FLAGGED" : "", used, r->json ? r->json : "-", st };

			doc_row(d, row);
		}
	}
	doc_table_end(d);
	free(idx);
}

static void answer_to_doc(void *ctx, enum answer_kind k, const struct eff_test *t, const char *line)
{
	(void)k;
	(void)t;
	doc_li(ctx, "%s", line);
}

static void write_doc(struct doc *d, const struct an *a, const struct plot_buf *cmp, const struct plot_buf *fill,
		      const struct plot_buf *after)
{
	const struct mx *m = a->m;
	char args[1024] = "";
	size_t at = 0;
	unsigned used = 0;

	for (unsigned k = 0; k < m->nwargs && at < sizeof(args); k++)
		at += (size_t)snprintf(args + at, sizeof(args) - at, "%s%s", k ? " " : "", m->wargs[k]);
	for (unsigned r = 0; r < m->nruns; r++)
		used += m->run[r].used;
	doc_begin(d, m->name);
	doc_p(d, "fsbench matrix: %s %s; %u cells, %u runs (%u used in the statistics). Kernel %s on %s, fsbench %s, "
		 "targets: %s.", m->workload, args, m->ncells, m->nruns, used, m->kernel_release[0] ? m->kernel_release : "?",
	      m->host[0] ? m->host : "?", m->fsbench_version[0] ? m->fsbench_version : "?",
	      m->target_kind[0] ? m->target_kind : "?");
	if (m->fresh_never)
		doc_p(d, "One filesystem per type (--fresh never, %lld made): the cells took turns on it, each run "
			 "after the ones before it, so later runs measured a filesystem the earlier ones had aged; "
			 "the rounds still interleave the cells.", m->mkfs_count);
	if (m->naged)
		doc_p(d, "Aged before the runs (--age %s): %u filesystem%s; the first was %.1f %% full with %lld files, "
			 "%.2f extents per file, when its first run began.", m->aged_recipe, m->naged,
		      m->naged == 1 ? "" : "s", m->aged_used_pct, m->aged_files, m->aged_epf);
	/* a checker's finding (a corrupted filesystem) before any performance figure */
	mafter_findings_doc(d, m);
	doc_h(d, 2, "Summary");
	answer(a, answer_to_doc, d);
	doc_list_end(d);
	doc_p(d, "Confirmatory family (primary figures): %u tests, Holm; exploratory: %u tests, Benjamini-Hochberg; "
		 "%u tests paired by round, %u unpaired%s. %u decided different: %u effects, %u interactions.",
	      a->r.nconfirm, a->r.nexplore, a->npaired, a->nunpaired,
	      a->incomplete ? " (some rounds incomplete: those tests unpaired)" : "", a->nsig, a->nsig_eff, a->nsig_ia);
	section_cells(d, a);
	section_figures(d, a);
	section_effects(d, a);
	section_interactions(d, a);
	mwhy_doc(d, &(struct mwhy_in){ .m = m, .fig = a->fig, .nfig = a->nfig, .r = &a->r, .cell_a = -1, .cell_b = -1 });
	if (cmp->ok || fill->ok) {
		doc_h(d, 2, "Plots");
		if (cmp->ok)
			doc_figure(d, cmp->svg, cmp->svg_len, "plot-compare.svg", "plot-compare.png",
				   "Key figures of each cell as ratios to the first cell's mean (log scale), 95% intervals, "
				   "stars from the report's corrected tests, absolute means at the bars");
		if (fill->ok)
			doc_figure(d, fill->svg, fill->svg_len, "plot-fill.svg", "plot-fill.png",
				   "Files/sec as the filesystem fills, every cell on one chart: bold its median run, light "
				   "its other runs");
	}
	mafter_section_doc(d, m, after->ok ? after->svg : NULL, after->svg_len);
	section_classic(d, a);
	section_profiles(d, a);
	section_runs(d, a);
	doc_h(d, 2, "Warnings");
	if (!m->nwarn)
		doc_p(d, "None.");
	for (unsigned w = 0; w < m->nwarn; w++)
		doc_li(d, "%s", m->warn[w]);
	doc_end(d);
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
	answer(a, answer_to_term, term);
	fprintf(term, "  (%u confirmatory tests, Holm; %u exploratory, Benjamini-Hochberg; %u paired by round, %u "
		"unpaired; fsbench(1) STATISTICS)\n", a->r.nconfirm, a->r.nexplore, a->npaired, a->nunpaired);
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

/* ---- --junit: the answer's primary effects and interactions as test cases ---- */

struct junit_ctx {
	const struct an *a;
	struct junit_case *c;
	char **str;              /* every string the cases point to, freed together */
	unsigned n, nstr;
	bool oom;
};

static const char *junit_keep(struct junit_ctx *j, const char *s)
{
	char *d = strdup(s);

	if (!d) {
		j->oom = true;
		return NULL;
	}
	j->str[j->nstr++] = d;
	return d;
}

/* The rule (fsbench(1), REPORT): a primary effect decided worse is a failure; an effect or
 * interaction undecided, without values or not tested is skipped, with the reason; every other
 * verdict (better, equivalent, changed for a figure without a direction, an interaction decided
 * either way, no variation) passes. */
static void answer_to_junit(void *ctx, enum answer_kind k, const struct eff_test *t, const char *line)
{
	struct junit_ctx *j = ctx;
	const struct an *a = j->a;
	struct junit_case *c;
	char lab[768], name[1024];
	const char *word;

	if (!t || (k != ANS_EFFECT && k != ANS_INTERACTION) || j->oom)
		return;
	c = &j->c[j->n];
	word = verdict_word(a, t);
	if (t->kind == EFF_EFFECT)
		effect_label(a, t, lab, sizeof(lab));
	else
		snprintf(lab, sizeof(lab), "interaction %s x %s", a->m->axis[t->axis].name, a->m->axis[t->axis_b].name);
	snprintf(name, sizeof(name), "%s, %s", a->fig[t->fig]->name, lab);
	c->result = t->kind == EFF_EFFECT && t->v.kind == VD_DIFFERENT && !strcmp(word, "worse") ? JUNIT_FAILURE :
		    t->v.kind == VD_UNDECIDED || t->v.kind == VD_NA || t->v.kind == VD_NOT_TESTED ? JUNIT_SKIPPED :
		    JUNIT_PASS;
	c->classname = junit_keep(j, a->m->name ? a->m->name : "report");
	c->name = junit_keep(j, name);
	c->text = junit_keep(j, line);
	c->message = c->result == JUNIT_PASS ? NULL : !t->v.tested && t->v.why ? junit_keep(j, t->v.why) : c->text;
	j->n++;
}

static int write_junit(const struct an *a, const char *path, double secs, char *err, size_t errlen)
{
	struct junit_ctx j = { .a = a };
	const struct junit_suite s = { "fsbench report", a->m->name, a->m->ncells, FSB_VERSION, secs };
	struct outfile *of;
	char e[256];
	int rc;

	j.c = calloc((size_t)a->r.nt + 1, sizeof(*j.c));
	j.str = calloc((size_t)a->r.nt * 4 + 1, sizeof(*j.str));
	if (!j.c || !j.str) {
		rc = errmsg(err, errlen, "out of memory");
		goto out;
	}
	answer(a, answer_to_junit, &j);
	if (j.oom) {
		rc = errmsg(err, errlen, "out of memory");
		goto out;
	}
	if (!(of = outfile_open(path, OUTFILE_REPLACE, &rc, e, sizeof(e)))) {
		rc = errmsg(err, errlen, "cannot write '%s': %s", path, e);
		goto out;
	}
	junit_write(of->f, &s, j.c, j.n);
	if ((rc = outfile_commit(of)))
		rc = errmsg(err, errlen, "cannot write '%s': %s", path, strerror(-rc));
out:
	for (unsigned i = 0; i < j.nstr; i++)
		free(j.str[i]);
	free(j.str);
	free(j.c);
	return rc;
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
		fprintf(term, "%s: %s, %u cells; the primary effects decided, and what changed with them\n\n", m.name,
			m.workload, m.ncells);
		if (!mwhy_term(term, &in)) {
			fprintf(term, "no primary effect decided better or worse%s: nothing to explain\n",
				cell_a ? " between these cells" : "");
			rc = -ENODATA;
		}
	}
	an_free(&a);
	mread_free(&m);
	return rc;
}

int matrix_report_opts(const char *dir, const struct matrix_report_opts *o, FILE *term, char *err, size_t errlen)
{
	struct mx m;
	struct an a = { 0 };
	struct plot_buf cmp = { 0 }, fill = { 0 }, after = { 0 };
	struct mafter_plot aplot = { 0 };
	struct rr_result *res = NULL;
	struct plot_mark *marks = NULL;
	char path[4096], e[512], note[200], dbp[4096];
	unsigned added = 0, nres = 0, *bold = NULL, nmarks = 0;
	int rc;
	bool has_fill = false;
	json_t *sum = NULL;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (mread_load(dir, o->exclude_flagged, &m, e, sizeof(e))) {
		errmsg(err, errlen, "'%s': %s", dir, e);
		rc = -EINVAL;
		goto out;
	}
	/* every output can be written, before anything is */
	for (size_t k = 0; k < sizeof(outputs) / sizeof(outputs[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, outputs[k]);
		if (outfile_check(path, OUTFILE_REPLACE, e, sizeof(e))) {
			errmsg(err, errlen, "cannot write '%s': %s", path, e);
			rc = -EINVAL;
			goto out;
		}
	}
	if (o->junit && outfile_check(o->junit, OUTFILE_REPLACE, e, sizeof(e))) {
		errmsg(err, errlen, "option --junit: cannot write '%s': %s", o->junit, e);
		rc = -EINVAL;
		goto out;
	}
	/* and the database's path (no symbolic link on it) */
	if (!o->no_db) {
		if (o->db)
			snprintf(dbp, sizeof(dbp), "%s", o->db);
		else if (history_default_path(dbp, sizeof(dbp), e, sizeof(e))) {
			errmsg(err, errlen, "history: %s (--no-db records nothing)", e);
			rc = -EINVAL;
			goto out;
		}
		if (history_check_path(dbp, e, sizeof(e))) {
			errmsg(err, errlen, "history: %s", e);
			rc = -EINVAL;
			goto out;
		}
	}
	rc = -EIO;
	a.m = &m;
	a.o = o;
	if (analyse(&a)) {
		errmsg(err, errlen, "out of memory");
		goto out;
	}
	if (!(sum = summary_json(&a))) {
		errmsg(err, errlen, "out of memory");
		goto out;
	}
	if (stopped(o, "summary.json", err, errlen))
		goto intr;
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (write_json(path, sum, err, errlen))
		goto out;

	/* plots of the cells that have runs */
	res = calloc(m.ncells + 1, sizeof(*res));
	bold = calloc(m.ncells + 1, sizeof(*bold));
	marks = calloc((size_t)m.ncells * a.nfig + 1, sizeof(*marks));
	if (!res || !bold || !marks) {
		errmsg(err, errlen, "out of memory");
		goto out;
	}
	for (unsigned c = 0; c < m.ncells; c++) {
		if (!m.cell[c].nrun)
			continue;
		/* a shallow copy: plot only reads */
		res[nres] = m.cell[c].merged;
		bold[nres] = m.cell[c].median > 0 ? (unsigned)m.cell[c].median : 0;
		has_fill |= m.cell[c].merged.nfill > 0;
		for (unsigned f = 0; f < a.nfig; f++) {
			const struct eff_test *t = c ? test_vs_first(&a, c, f) : NULL;

			if (t && nres)
				marks[nmarks++] = (struct plot_mark){ a.fig[f]->key, nres,
								      t->v.kind == VD_DIFFERENT || t->v.kind == VD_EQUIVALENT ?
								      verdict_word(&a, t) : "" };
		}
		nres++;
	}
	if (stopped(o, "the plots", err, errlen))
		goto intr;
	if (nres && m.cell[0].nrun) {
		struct plot_opts po = { .type = PLOT_COMPARE, .width = 1200, .height = 800, .marks = marks,
					.nmarks = nmarks, .marks_note = note };

		snprintf(note, sizeof(note), "verdicts against %s: the report's (confirmatory %u tests, Holm; exploratory "
			 "%u, BH; none for cells two axes apart)", m.cell[0].name, a.r.nconfirm, a.r.nexplore);
		const struct plot_src src = { res, nres, NULL };

		if (plot_both(dir, "plot-compare", &src, &po, &cmp, e, sizeof(e))) {
			/* results without key figures: no compare plot, said */
			if (!strstr(e, "cannot write"))
				fprintf(term ? term : stderr, "fsbench report: no compare plot: %s\n", e);
			else {
				errmsg(err, errlen, "%s", e);
				goto out;
			}
		}
	}
	if (has_fill) {
		struct plot_opts po = { .type = PLOT_FILL, .width = 1200, .height = 800, .bold_run = bold, .band = true,
					.bold_what = o->fill_y ? "median run by aggregate files/sec" : "median run",
					.fill_y = o->fill_y, .smooth = o->smooth };

		const struct plot_src src = { res, nres, NULL };

		if (plot_both(dir, "plot-fill", &src, &po, &fill, e, sizeof(e))) {
			errmsg(err, errlen, "%s", e);
			goto out;
		}
	}
	if (!mafter_plot_build(&m, &aplot)) {
		struct plot_opts po = { .width = 1200, .height = 600 };
		const struct plot_src src = { NULL, 0, &aplot.b };

		if (plot_both(dir, "plot-after", &src, &po, &after, e, sizeof(e))) {
			errmsg(err, errlen, "%s", e);
			goto out;
		}
	}
	if (stopped(o, "report.md and report.html", err, errlen))
		goto intr;
	{
		struct outfile *md, *html;
		struct doc d = { 0 };
		int r1, r2;

		snprintf(path, sizeof(path), "%s/report.md", dir);
		if (!(md = outfile_open(path, OUTFILE_REPLACE, &r1, e, sizeof(e)))) {
			errmsg(err, errlen, "cannot write '%s': %s", path, e);
			goto out;
		}
		snprintf(path, sizeof(path), "%s/report.html", dir);
		if (!(html = outfile_open(path, OUTFILE_REPLACE, &r2, e, sizeof(e)))) {
			outfile_abort(md);
			errmsg(err, errlen, "cannot write '%s': %s", path, e);
			goto out;
		}
		d.md = md->f;
		d.html = html->f;
		write_doc(&d, &a, &cmp, &fill, &after);
		r1 = outfile_commit(md);
		r2 = outfile_commit(html);
		if (r1 || r2) {
			errmsg(err, errlen, "cannot write '%s/%s': %s", dir, r1 ? "report.md" : "report.html",
			     strerror(-(r1 ? r1 : r2)));
			goto out;
		}
	}
	if (o->junit) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (write_junit(&a, o->junit, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, err,
				errlen))
			goto out;
	}
	if (!o->no_db) {
		struct history *h;

		if (stopped(o, "the history", err, errlen))
			goto intr;
		if (history_open_stop(dbp, true, o->stop, &h, e, sizeof(e))) {
			if (!stopped(o, "the history", err, errlen))
				errmsg(err, errlen, "history: %s", e);
			goto out_stop;
		}
		if (history_add_matrix(h, &m, &added, e, sizeof(e))) {
			history_close(h);
			if (!stopped(o, "the history", err, errlen))
				errmsg(err, errlen, "history '%s': %s", dbp, e);
			goto out_stop;
		}
		history_close(h);
	}
	terminal(term, &a, dir, added, !o->no_db);
	rc = 0;
	if (!m.nused) {
		/* written, and said: nothing to compare is not a result */
		errmsg(err, errlen, "0 of %u runs used%s: nothing to compare", m.nruns,
		       m.nexcluded ? " (every usable run flagged and left out: --exclude-flagged)" : "");
		rc = -ENODATA;
	}
	goto out;
out_stop:
	if (!o->stop || !o->stop())
		goto out;
intr:
	rc = -EINTR;
out:
	json_decref(sum);
	free(cmp.svg);
	free(fill.svg);
	free(after.svg);
	mafter_plot_free(&aplot);
	free(res);
	free(bold);
	free(marks);
	an_free(&a);
	mread_free(&m);
	return rc;
}
