/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Why section and `fsbench explain`'s text (report/matrix_why.h). */
#include "report/matrix_why.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/profdiff.h"
#include "core/why.h"
#include "report/matrix_report_int.h"

#define WHY_FIGURES 4            /* explanatory figures per effect */
#define WHY_SYMBOLS 3            /* profile symbols per effect */

bool mwhy_explains(const char *key)
{
	const char *dot = strrchr(key, '.');

	return cost_is_key(dot ? dot + 1 : key) || !strncmp(key, "after.", 6);
}

/* the group of a figure: its key up to the first dot ("write"), "" for a run's or an
 * iteration's figure (fs_mark) */
static unsigned *groups(const struct mwhy_in *in)
{
	unsigned *g = calloc(in->nfig + 1, sizeof(*g));

	for (unsigned f = 0; g && f < in->nfig; f++) {
		const char *d = strchr(in->fig[f]->key, '.');
		size_t len = d ? (size_t)(d - in->fig[f]->key) : 0;

		/* after.* figures are the run's: in every group */
		if (!strncmp(in->fig[f]->key, "after.", 6))
			len = 0;
		g[f] = f;
		for (unsigned k = 0; k < f; k++) {
			const char *e = strchr(in->fig[k]->key, '.');
			size_t l2 = e && strncmp(in->fig[k]->key, "after.", 6) ? (size_t)(e - in->fig[k]->key) : 0;

			if (l2 == len && !strncmp(in->fig[k]->key, in->fig[f]->key, len)) {
				g[f] = g[k];
				break;
			}
		}
	}
	return g;
}

static void fmt_num(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 100 || v == 0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

/* "x5.6 [4.9, 6.4]" or "+2.1 [0.4, 3.8] us" */
static void fmt_change(const struct eff_test *t, const char *unit, char *buf, size_t len)
{
	const struct vd_test *v = &t->v;
	char e[32], l[32], h[32];

	if (v->kind == VD_NA || !isfinite(v->ratio)) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_num(v->ratio, e, sizeof(e));
	fmt_num(v->lo, l, sizeof(l));
	fmt_num(v->hi, h, sizeof(h));
	if (v->e.log)
		snprintf(buf, len, isfinite(v->lo) ? "x%s [%s, %s]" : "x%s", e, l, h);
	else
		snprintf(buf, len, isfinite(v->lo) ? "%s%s [%s, %s] %s" : "%s%s %s", v->ratio > 0 ? "+" : "", e,
			 isfinite(v->lo) ? l : unit, h, unit);
}

static const char *stars(const struct vd_test *v)
{
	if (!v->tested || !isfinite(v->p_adj))
		return "";
	return v->p_adj < 0.001 ? " (***)" : v->p_adj < 0.01 ? " (**)" : v->p_adj < 0.05 ? " (*)" : "";
}

static int dir_of(const struct rr_figure *f)
{
	return f->dir == RR_HIGHER_BETTER ? 1 : f->dir == RR_LOWER_BETTER ? -1 : 0;
}

static bool in_pair(const struct mwhy_in *in, const struct eff_test *t)
{
	if (in->cell_a < 0)
		return true;
	return (t->cell[0] == (unsigned)in->cell_a && t->cell[1] == (unsigned)in->cell_b) ||
	       (t->cell[0] == (unsigned)in->cell_b && t->cell[1] == (unsigned)in->cell_a);
}

/* the profile group of a figure: the tiotest phase, or fs_mark's create loops */
static void prof_pair(const struct mwhy_in *in, const struct eff_test *t, const struct mread_profile **p0,
		      const struct mread_profile **p1)
{
	const char *key = in->fig[t->fig]->key, *dot = strchr(key, '.');
	const struct mread_cell *c0 = &in->m->cell[t->cell[0]], *c1 = &in->m->cell[t->cell[1]];

	*p0 = *p1 = NULL;
	for (unsigned g = 0; g < c0->nprof; g++) {
		const char *n = c0->prof[g].name;

		if (dot ? strlen(n) == (size_t)(dot - key) && !strncmp(n, key, (size_t)(dot - key)) :
			  !strcmp(n, "create loops"))
			*p0 = &c0->prof[g];
	}
	for (unsigned g = 0; *p0 && g < c1->nprof; g++)
		if (!strcmp(c1->prof[g].name, (*p0)->name))
			*p1 = &c1->prof[g];
	if (!*p1)
		*p0 = NULL;
}

struct emit {
	void (*head)(void *ctx, const char *title, const char *note);
	void (*row)(void *ctx, const char *const *cols);   /* 5 columns */
	void (*end)(void *ctx);
	void *ctx;
};

static const char *const why_head[] = { "what", "A", "B", "change B/A", "exploratory verdict" };

/* The title and the note above an effect's rows. A decided effect: its verdict and change. An
 * undecided one says so first, with its interval and what would decide it, and that the rows
 * are the largest changes measured, none of which decides it: an undecided effect is not shown
 * as "no difference" (fsbench(1) STATISTICS). */
static void effect_head(const struct mwhy_in *in, const struct eff_test *t, unsigned n,
			const struct mread_profile *p0, const struct emit *e)
{
	const struct rr_figure *f = in->fig[t->fig];
	bool undecided = why_status(t) == WHY_UNDECIDED;
	char title[640], note[1536], chg[96], how[192];
	size_t at;

	fmt_change(t, f->unit, chg, sizeof(chg));
	at = (size_t)snprintf(title, sizeof(title), "%s, %s: %s -> %s: ", f->name, in->m->axis[t->axis].name,
			      mread_value(in->m, t->cell[0], t->axis),
			      mread_value(in->m, t->cell[1], t->axis));
	if (undecided)
		snprintf(title + at, sizeof(title) - at,
			 "undecided (%s); the largest measured changes, none of which decides it", chg);
	else
		snprintf(title + at, sizeof(title) - at, "%s %s", vd_word(&t->v, dir_of(f)), chg);
	at = (size_t)snprintf(note, sizeof(note), "A = %s, B = %s. ", in->m->cell[t->cell[0]].name,
			      in->m->cell[t->cell[1]].name);
	if (undecided) {
		mrep_fmt_how(t, how, sizeof(how));
		at += (size_t)snprintf(
			note + at, sizeof(note) - at,
			"%s is undecided (%s): the rows are the largest changes measured between these "
			"cells, with their own verdicts; they do not decide it, and an undecided effect is "
			"not evidence that nothing changed. ",
			f->name, how);
	}
	if (!n && at < sizeof(note))
		at += (size_t)snprintf(note + at, sizeof(note) - at,
				       "No cost-per-op figures in these results (fsbench older than them). ");
	if (at < sizeof(note))
		snprintf(note + at, sizeof(note) - at,
			 p0 ? "Profile window: %s." : "No profile of this group (fsbench matrix --profile).",
			 p0 && p0->window[0] ? p0->window : "not recorded");
	e->head(e->ctx, title, note);
}

/* the rows of the explanatory figures pick[0..n) */
static void figure_rows(const struct mwhy_in *in, const unsigned *pick, unsigned n, const struct emit *e)
{
	for (unsigned i = 0; i < n; i++) {
		const struct eff_test *x = &in->r->t[pick[i]];
		const struct rr_figure *g = in->fig[x->fig];
		const struct eff_cell *ca = &in->r->cell[x->cell[0] * in->nfig + x->fig];
		const struct eff_cell *cb = &in->r->cell[x->cell[1] * in->nfig + x->fig];
		/* the cells on the scale of the change beside them: a difference (a figure with
		 * a value <= 0 cannot be a ratio) next to arithmetic means */
		bool arith = !x->v.e.log;
		char a[48], b[48], c[96], v[96];
		const char *row[5] = { g->name, a, b, c, v };

		fmt_num(!ca->present ? NAN : arith ? ca->mean : ca->s.mean, a, sizeof(a));
		fmt_num(!cb->present ? NAN : arith ? cb->mean : cb->s.mean, b, sizeof(b));
		if (strcmp(g->unit, "%")) {
			snprintf(a + strlen(a), sizeof(a) - strlen(a), " %s", g->unit);
			snprintf(b + strlen(b), sizeof(b) - strlen(b), " %s", g->unit);
		}
		fmt_change(x, g->unit, c, sizeof(c));
		snprintf(v, sizeof(v), "%s%s", vd_word(&x->v, dir_of(g)), stars(&x->v));
		e->row(e->ctx, row);
	}
}

static bool same_samples(const struct profdiff_row *x, const struct profdiff_row *y)
{
	return x->a_pct == y->a_pct && x->b_pct == y->b_pct && x->a_us == y->a_us && x->b_us == y->b_us &&
	       x->artefact == y->artefact;
}

/* The profile symbols whose cost per op changed most between p0 and p1. With call chains,
 * symbols with the very same samples on both sides are one row: inclusive costs repeat along a
 * call chain (kthread, ret_from_fork, ret_from_fork_asm), and three rows of it hid the rest.
 * Self costs that happen to be equal are different functions' and stay apart. */
static void profile_rows(const struct mread_profile *p0, const struct mread_profile *p1, const struct emit *e)
{
	struct profdiff pd;
	bool *done;

	if (profdiff_compute(p0->p, p0->ops, p1->p, p1->ops, &pd))
		return;
	done = calloc(pd.n + 1, sizeof(*done));
	for (size_t i = 0, shown = 0; done && i < pd.n && shown < WHY_SYMBOLS; i++) {
		const struct profdiff_row *s = &pd.v[i];
		char w[320], a[48], b[48], c[96], v[96];
		const char *row[5] = { w, a, b, c, v };
		size_t at;
		bool more = false;

		if (done[i])
			continue;
		shown++;
		at = (size_t)snprintf(w, sizeof(w), "profile: %s", s->symbol);
		for (size_t j = i + 1; j < pd.n; j++) {
			if (!pd.inclusive || done[j] || !same_samples(&pd.v[j], s))
				continue;
			done[j] = more = true;
			if (at < sizeof(w))
				at += (size_t)snprintf(w + at, sizeof(w) - at, ", %s", pd.v[j].symbol);
		}
		if (at < sizeof(w))
			snprintf(w + at, sizeof(w) - at, "%s (%s%s)", s->artefact ? " [artefact]" : "",
				 pd.inclusive ? "inclusive" : "self", more ? ", the same samples" : "");
		if (pd.per_op) {
			fmt_num(s->a_us, a, sizeof(a));
			fmt_num(s->b_us, b, sizeof(b));
			c[0] = '+';
			fmt_num(s->b_us - s->a_us, c + (s->b_us >= s->a_us), sizeof(c) - 1);
			strcat(a, " us/op");
			strcat(b, " us/op");
			strcat(c, " us/op");
		} else {
			snprintf(a, sizeof(a), "%.2f %%", s->a_pct);
			snprintf(b, sizeof(b), "%.2f %%", s->b_pct);
			snprintf(c, sizeof(c), "-");
		}
		snprintf(v, sizeof(v), "share %+.2f points (not tested)", s->b_pct - s->a_pct);
		e->row(e->ctx, row);
	}
	free(done);
	profdiff_free(&pd);
}

/* the decided primary effects first (what the experiment showed), then the undecided ones */
static unsigned why(const struct mwhy_in *in, const struct emit *e)
{
	static const enum why_kind order[] = { WHY_DECIDED, WHY_UNDECIDED };
	unsigned *grp = groups(in), nout = 0;
	bool *expl = calloc(in->nfig + 1, sizeof(*expl));
	unsigned pick[WHY_FIGURES];

	if (!grp || !expl)
		goto out;
	for (unsigned f = 0; f < in->nfig; f++)
		expl[f] = mwhy_explains(in->fig[f]->key);
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		for (unsigned k = 0; k < in->r->nt; k++) {
			const struct eff_test *t = &in->r->t[k];
			const struct mread_profile *p0, *p1;
			unsigned n;

			if (why_status(t) != order[o] || !in_pair(in, t))
				continue;
			nout++;
			n = why_rank(in->r, k, grp, expl, pick, WHY_FIGURES);
			prof_pair(in, t, &p0, &p1);
			effect_head(in, t, n, p0, e);
			figure_rows(in, pick, n, e);
			if (p0)
				profile_rows(p0, p1, e);
			e->end(e->ctx);
		}
	}
out:
	free(grp);
	free(expl);
	return nout;
}

/* ---- report.md / report.html ---- */

static void doc_head(void *ctx, const char *title, const char *note)
{
	doc_h(ctx, 3, "%s", title);
	doc_p(ctx, "%s", note);
	doc_table(ctx, 5, why_head, NULL);
}

static void doc_row_(void *ctx, const char *const *cols)
{
	doc_row(ctx, cols);
}

static void doc_end_(void *ctx)
{
	doc_table_end(ctx);
}

void mwhy_doc(struct doc *d, const struct mwhy_in *in)
{
	const struct emit e = { doc_head, doc_row_, doc_end_, d };
	bool any = false;

	for (unsigned k = 0; k < in->r->nt && !any; k++)
		any = why_status(&in->r->t[k]) != WHY_NONE;
	if (!any)
		return;
	doc_h(d, 2, "Why");
	doc_p(d,
	      "For each primary effect decided better or worse: the cost-per-op figures (each worker's own CPU, "
	      "its wait, its context switches and the device's bytes and requests, per op or per file) whose "
	      "change is largest, with their exploratory verdicts (Benjamini-Hochberg: (***) p < 0.001, (**) < 0.01, "
	      "(*) < 0.05), and the profile symbols whose cost per op changed most (not tested). They point "
	      "at the cause; they do not prove it. Then each undecided primary effect, headed as undecided, "
	      "with the same rows: the largest changes measured between its two cells, none of which decides "
	      "it (an undecided effect is not evidence that nothing changed; more rounds may decide it). "
	      "fsbench explain DIR shows the same on a terminal.");
	why(in, &e);
}

/* ---- the terminal ---- */

static void term_head(void *ctx, const char *title, const char *note)
{
	fprintf(ctx, "%s\n  %s\n", title, note);
}

static void term_row(void *ctx, const char *const *cols)
{
	fprintf(ctx, "  %-44s %14s -> %-14s %-22s %s\n", cols[0], cols[1], cols[2], cols[3], cols[4]);
}

static void term_end(void *ctx)
{
	fputc('\n', ctx);
}

unsigned mwhy_term(FILE *out, const struct mwhy_in *in)
{
	const struct emit e = { term_head, term_row, term_end, out };

	return why(in, &e);
}
