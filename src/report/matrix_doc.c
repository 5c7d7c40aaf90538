/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.md and report.html of a matrix report (matrix_report_int.h), both through doc.c:
 * the answer, cells, figures, effects, interactions, the median runs' classic tables, the
 * profiles side by side, the runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/profdiff.h"
#include "report/doc.h"
#include "report/matrix_after.h"
#include "report/matrix_report_int.h"
#include "report/matrix_why.h"
#include "report/workload_report.h"
#include "workload/workload.h"

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
	char(*buf)[128] = calloc(nc, sizeof(*buf));

	if (!head || !cells || !buf)
		goto out;
	doc_h(d, 2, "Figures by cell");
	doc_p(d,
	      "Mean over the runs and its 95%% confidence interval [low, high] (Student's t); rates (MiB/s, "
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
		cells[1] = mrep_disp_unit(a->fig[f]->unit, ref, &sc);
		for (unsigned c = 0; c < m->ncells; c++) {
			const struct eff_test *t = c ? mrep_test_vs_first(a, c, f) : NULL;
			const char *st = t && (t->v.kind == VD_DIFFERENT || t->v.kind == VD_EQUIVALENT)
						 ? mrep_verdict_word(a, t)
						 : "";

			mrep_fmt_cell(a, c, f, sc, buf[c], sizeof(buf[c]) - 16);
			if (*st)
				snprintf(buf[c] + strlen(buf[c]), sizeof(buf[c]) - strlen(buf[c]), " (%s)",
					 st);
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

/* a test's estimate, adjusted p and how, which its row's cells point to */
struct test_cells {
	char est[128], pa[24], how[160];
};

static void test_row(struct doc *d, const struct an *a, const struct eff_test *t, struct test_cells *tc,
		     const char *const *cells)
{
	mrep_fmt_estimate(a, t, tc->est, sizeof(tc->est));
	mrep_fmt_p(t->v.p_adj, tc->pa, sizeof(tc->pa));
	mrep_fmt_how(t, tc->how, sizeof(tc->how));
	doc_row(d, cells);
}

static void section_effects(struct doc *d, const struct an *a)
{
	const struct mx *m = a->m;
	static const char *const head[] = { "figure", "from -> to", "from",    "to", "effect [interval]",
					    "family", "p (adj.)",   "verdict", "how" };

	doc_h(d, 2, "Effects");
	doc_p(d, verdict_legend, a->equiv_pct);
	doc_p(d,
	      "Confirmatory: %u tests (Holm); exploratory: %u tests (Benjamini-Hochberg). Shown: the primary and "
	      "key figures and every decided difference; summary.json has every test.",
	      a->r.nconfirm, a->r.nexplore);
	for (unsigned x = 0; x < m->naxes; x++) {
		unsigned hidden = 0;
		bool any = false;

		for (unsigned k = 0; k < a->r.nt; k++) {
			const struct eff_test *t = &a->r.t[k];
			char lab[256], from[48], to[48];
			struct test_cells tc;
			const char *cells[9] = { a->fig[t->fig]->name,
						 lab,
						 from,
						 to,
						 tc.est,
						 vd_family_name(t->v.family),
						 tc.pa,
						 mrep_verdict_word(a, t),
						 tc.how };
			const struct eff_cell *c0, *c1;

			if (t->kind != EFF_EFFECT || t->axis != x)
				continue;
			if (!shown_fig(a, t->fig) && t->v.family != VD_CONFIRMATORY &&
			    t->v.kind != VD_DIFFERENT) {
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
			mrep_effect_label(a, t, lab, sizeof(lab));
			if (c0->present)
				mrep_fmt_val(a->fig[t->fig], c0->s.mean, from, sizeof(from), true);
			else
				snprintf(from, sizeof(from), "-");
			if (c1->present)
				mrep_fmt_val(a->fig[t->fig], c1->s.mean, to, sizeof(to), true);
			else
				snprintf(to, sizeof(to), "-");
			test_row(d, a, t, &tc, cells);
		}
		if (any)
			doc_table_end(d);
		if (hidden)
			doc_p(d, "%s: %u more tests of other figures, none decided different (summary.json).",
			      m->axis[x].name, hidden);
	}
}

static void section_interactions(struct doc *d, const struct an *a)
{
	static const char *const head[] = {
		"figure", "axes",     "B's effect at each A", "ratio of ratios [interval]",
		"family", "p (adj.)", "interaction",	      "how"
	};
	unsigned nia = 0, hidden = 0;
	bool any = false;

	for (unsigned k = 0; k < a->r.nt; k++)
		nia += a->r.t[k].kind == EFF_INTERACTION;
	doc_h(d, 2, "Interactions");
	if (!nia) {
		doc_p(d, "No interaction to test: it needs two axes and the four cells of a 2x2 square.");
		return;
	}
	doc_p(d,
	      "Does one axis' effect depend on another's value? The difference of differences "
	      "(A2B2 - A1B2) - (A2B1 - A1B1) on the log scale, shown as the ratio of the two ratios (1: the same "
	      "relative effect at both A values); for percentages the difference of differences in their unit. "
	      "Paired by round: the per-round contrast and a one-sample t; else the four cells' variances "
	      "(Welch-Satterthwaite). \"yes\": the corrected interval excludes 1, \"no\": the 90%% interval lies "
	      "within the equivalence margin, else undecided. Shown: the primary and key figures and every decided "
	      "interaction.");
	for (unsigned k = 0; k < a->r.nt; k++) {
		const struct eff_test *t = &a->r.t[k];
		char axes[160], words[320];
		struct test_cells tc;
		const char *cells[8] = {
			a->fig[t->fig]->name,	 axes,	words, tc.est, vd_family_name(t->v.family), tc.pa,
			mrep_verdict_word(a, t), tc.how
		};

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
		snprintf(axes, sizeof(axes), "A=%s x B=%s", a->m->axis[t->axis].name,
			 a->m->axis[t->axis_b].name);
		mrep_interaction_words(a, t, words, sizeof(words));
		test_row(d, a, t, &tc, cells);
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
	doc_p(d,
	      "The classic %s output of each cell's median run (the run with the median %s), rebuilt from its "
	      "result file's figures.",
	      m->workload, m->cell[0].median_fig[0] ? m->cell[0].median_fig : "first figure");
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

/* One side of the side-by-side table's row i: samples, share, image, symbol (left "" past its end) */
static void profile_side(const struct perf_profile *p, unsigned i, char num[2][24], const char **cell)
{
	if (i >= p->n)
		return;
	snprintf(num[0], 24, "%llu", (unsigned long long)p->v[i].samples);
	snprintf(num[1], 24, "%.4f", p->v[i].pct);
	cell[0] = num[0];
	cell[1] = num[1];
	cell[2] = p->v[i].image;
	cell[3] = p->v[i].symbol;
}

static void profile_pair(struct doc *d, const struct an *a, unsigned c0, unsigned c1,
			 const struct mread_profile *g0, const struct mread_profile *g1, unsigned top)
{
	const struct mx *m = a->m;
	const struct perf_profile *p0 = g0->p, *p1 = g1->p;
	static const char *const h2[] = { "symbol",	  "image", "A us/op", "B us/op",
					  "change us/op", "A %",   "B %",     "share change (points)" };
	char hA[160], hB[160], sA[64] = "", sB[64] = "";
	const char *h1[8] = { "samples A", "% A", "image A", "symbol A",
			      "samples B", "% B", "image B", "symbol B" };
	struct profdiff pd;
	bool marked = false;

	snprintf(hA, sizeof(hA), "A = %s", m->cell[c0].name);
	snprintf(hB, sizeof(hB), "B = %s", m->cell[c1].name);
	if (g0->ops && p0->samples)
		snprintf(sA, sizeof(sA), ", %.3g per op", (double)p0->samples / (double)g0->ops);
	if (g1->ops && p1->samples)
		snprintf(sB, sizeof(sB), ", %.3g per op", (double)p1->samples / (double)g1->ops);
	doc_h(d, 3, "%s: %s against %s", g0->name, m->cell[c0].name, m->cell[c1].name);
	doc_p(d,
	      "Window: %s. %s: %llu samples%s; %s: %llu samples%s (cpu-clock, merged over each cell's runs). Top %u "
	      "symbols side by side:",
	      g0->window[0] ? g0->window : "not recorded", hA, (unsigned long long)p0->samples, sA, hB,
	      (unsigned long long)p1->samples, sB, top);
	doc_table(d, 8, h1, NULL);
	for (unsigned i = 0; i < top && (i < p0->n || i < p1->n); i++) {
		char num[2][2][24];
		const char *row[8] = { "", "", "", "", "", "", "", "" };

		profile_side(p0, i, num[0], row);
		profile_side(p1, i, num[1], row + 4);
		doc_row(d, row);
	}
	doc_table_end(d);
	if (profdiff_compute(p0, g0->ops, p1, g1->ops, &pd))
		return;
	doc_p(d,
	      "Window: %s. The symbols whose %s moved most from A to B, %s, with the change of their share "
	      "beside it. %s",
	      g0->window[0] ? g0->window : "not recorded", pd.per_op ? "cost per op" : "share of the samples",
	      pd.inclusive
		      ? "inclusive (call chains recorded: a symbol with every function it called; sampling "
			"artefacts folded into their callers)"
		      : "self (no call chains: the time in the symbol itself; --profile-callgraph ranks by "
			"inclusive cost)",
	      pd.per_op ? "Cost per op: samples / frequency / ops of the windows, in us."
			: "No cost per op: the results lack the frequency or the ops.");
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
		doc_p(d,
		      "(artefact): a point where interrupts come back on or the CPU idles; on a virtual machine "
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
	doc_p(d,
	      "Kernel profiles (perf, cpu-clock) per cell, merged over its runs, for each pair of cells one axis "
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
					profile_pair(d, a, t->cell[0], t->cell[1], &c0->prof[g], &c1->prof[h],
						     top);
	}
}

static void section_runs(struct doc *d, const struct an *a)
{
	const struct mx *m = a->m;
	static const char *const head[] = { "order",	   "cell",    "repeat", "started", "exit",
					    "other CPU %", "flagged", "used",	"file",	   "steal %" };
	unsigned *idx;

	doc_h(d, 2, "Runs");
	doc_p(d,
	      "In the order they ran. Flagged: other processes took more CPU than the runner's threshold during "
	      "the run (%s).",
	      m->exclude_flagged
		      ? "left out of the statistics: --exclude-flagged"
		      : "counted in the statistics; fsbench report --exclude-flagged leaves them out");
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
		snprintf(used, sizeof(used), "%s%s%s", r->used ? "yes" : "no", r->problem ? ": " : "",
			 r->problem ? r->problem : "");
		if (isnan(r->steal_pct))
			snprintf(st, sizeof(st), "-");
		else
			snprintf(st, sizeof(st), "%.1f", r->steal_pct);
		{
			const char *row[10] = { o,
						m->cell[r->cell].name,
						rp,
						r->started_at,
						ex,
						cpu,
						r->other_cpu_flag ? "FLAGGED" : "",
						used,
						r->json ? r->json : "-",
						st };

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

void mrep_write_doc(struct doc *d, const struct an *a, const struct plot_buf *cmp,
		    const struct plot_buf *fill, const struct plot_buf *after)
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
	doc_p(d,
	      "fsbench matrix: %s%s%s; %u cells, %u runs (%u used in the statistics). Kernel %s on %s, fsbench %s, "
	      "targets: %s.",
	      m->workload, args[0] ? " " : "", args, m->ncells, m->nruns, used, m->kernel_release[0] ? m->kernel_release : "?",
	      m->host[0] ? m->host : "?", m->fsbench_version[0] ? m->fsbench_version : "?",
	      m->target_kind[0] ? m->target_kind : "?");
	if (m->fresh_never)
		doc_p(d,
		      "One filesystem per type (--fresh never, %lld made): the cells took turns on it, each run "
		      "after the ones before it, so later runs measured a filesystem the earlier ones had aged; "
		      "the rounds still interleave the cells.",
		      m->mkfs_count);
	if (m->naged)
		doc_p(d,
		      "Aged before the runs (--age %s): %u filesystem%s; the first was %.1f %% full with %lld files, "
		      "%.2f extents per file, when its first run began.",
		      m->aged_recipe, m->naged, m->naged == 1 ? "" : "s", m->aged_used_pct, m->aged_files,
		      m->aged_epf);
	/* a checker's finding (a corrupted filesystem) before any performance figure */
	mafter_findings_doc(d, m);
	doc_h(d, 2, "Summary");
	mrep_answer(a, answer_to_doc, d);
	doc_list_end(d);
	doc_p(d,
	      "Confirmatory family (primary figures): %u tests, Holm; exploratory: %u tests, Benjamini-Hochberg; "
	      "%u tests paired by round, %u unpaired%s. %u decided different: %u effects, %u interactions.",
	      a->r.nconfirm, a->r.nexplore, a->npaired, a->nunpaired,
	      a->incomplete ? " (some rounds incomplete: those tests unpaired)" : "", a->nsig, a->nsig_eff,
	      a->nsig_ia);
	section_cells(d, a);
	section_figures(d, a);
	section_effects(d, a);
	section_interactions(d, a);
	mwhy_doc(d, &(struct mwhy_in){
			    .m = m, .fig = a->fig, .nfig = a->nfig, .r = &a->r, .cell_a = -1, .cell_b = -1 });
	if (cmp->ok || fill->ok) {
		doc_h(d, 2, "Plots");
		if (cmp->ok)
			doc_figure(
				d, cmp->svg, cmp->svg_len, "plot-compare.svg", "plot-compare.png",
				"Key figures of each cell as ratios to the first cell's mean (log scale), 95% intervals, "
				"stars from the report's corrected tests, absolute means at the bars");
		if (fill->ok)
			doc_figure(
				d, fill->svg, fill->svg_len, "plot-fill.svg", "plot-fill.png",
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
