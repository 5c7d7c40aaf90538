/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench matrix --after in the report (report/matrix_after.h). */
#include "report/matrix_after.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

/* the first line of a finding's messages, or its reason */
static void first_line(const struct after_data *a, char *buf, size_t len)
{
	/* timed out: what it printed before is not the point, the limit is */
	const char *s = a->messages && *a->messages && !a->timed_out ? a->messages : a->reason ? a->reason : "";

	snprintf(buf, len, "%.*s", (int)strcspn(s, "\n"), *s ? s : "no message");
}

static const char *finding_words(const struct after_data *a)
{
	return !strcmp(a->verdict, "errors") ? "found errors" : a->timed_out ? "timed out" :
	       a->exit_status >= 0 ? "could not finish the check" : "could not check the filesystem";
}

void mafter_findings_doc(struct doc *d, const struct mx *m)
{
	if (!m->nfindings)
		return;
	doc_h(d, 2, "Findings");
	doc_p(d, "After %u of the runs the filesystem's own checker found errors or could not check the "
		 "filesystem. A benchmark that leaves a corrupt filesystem behind is a result before any rate: "
		 "the checker's own words for each run follow (the run's after-run-K.json has them all).", m->nfindings);
	for (unsigned r = 0; r < m->nruns; r++) {
		const struct mread_run *ru = &m->run[r];

		if (!ru->has_after || !ru->after.finding)
			continue;
		if (ru->after.exit_status >= 0)
			doc_li(d, "cell %s, run %u: %s %s (exit %d, %u problem line%s): %s", m->cell[ru->cell].name,
			       ru->repeat, ru->after.tool[0] ? ru->after.tool : "the checker", finding_words(&ru->after),
			       ru->after.exit_status, ru->after.message_lines, ru->after.message_lines == 1 ? "" : "s",
			       ru->after_json);
		else
			doc_li(d, "cell %s, run %u: %s %s: %s", m->cell[ru->cell].name, ru->repeat,
			       ru->after.tool[0] ? ru->after.tool : "the checker", finding_words(&ru->after),
			       ru->after.reason && *ru->after.reason ? ru->after.reason : ru->after_json);
	}
	doc_list_end(d);
	for (unsigned r = 0; r < m->nruns; r++) {
		const struct mread_run *ru = &m->run[r];

		if (ru->has_after && ru->after.finding && ru->after.messages && *ru->after.messages) {
			doc_p(d, "%s run %u, what %s said:", m->cell[ru->cell].name, ru->repeat,
			      ru->after.tool[0] ? ru->after.tool : "the checker");
			doc_pre(d, ru->after.messages);
		}
	}
}

void mafter_findings_term(FILE *term, const struct mx *m)
{
	unsigned shown = 0;

	if (!term || !m->nfindings)
		return;
	fprintf(term, "  FINDING: after %u run%s the filesystem checker found errors or could not check:\n",
		m->nfindings, m->nfindings == 1 ? "" : "s");
	for (unsigned r = 0; r < m->nruns && shown < 8; r++) {
		const struct mread_run *ru = &m->run[r];
		char line[300];

		if (!ru->has_after || !ru->after.finding)
			continue;
		first_line(&ru->after, line, sizeof(line));
		fprintf(term, "    %s run %u: %s %s: %s\n", m->cell[ru->cell].name, ru->repeat,
			ru->after.tool[0] ? ru->after.tool : "the checker", finding_words(&ru->after), line);
		shown++;
	}
	if (m->nfindings > shown)
		fprintf(term, "    ... and %u more (the report's Findings)\n", m->nfindings - shown);
}

/* a cell's after-run figure: mean and 95 % interval over its used runs */
static int cell_summary(const struct mx *m, unsigned c, unsigned fig, struct stats_summary *s)
{
	const struct rr_figure *f = rr_find(&m->cell[c].merged, after_figs[fig].key);
	double v[MX_MAX_RUNS > 1000 ? 1000 : MX_MAX_RUNS];
	unsigned n = 0;

	for (unsigned k = 0; f && k < m->cell[c].merged.nruns && n < sizeof(v) / sizeof(v[0]); k++)
		if (!isnan(f->v[k]))
			v[n++] = f->v[k];
	return stats_summarize(v, n, false, s);
}

static void verdicts(const struct mread_cell *c, char *buf, size_t len)
{
	if (!c->nfsck)
		snprintf(buf, len, "-");
	else if (c->nfsck_absent == c->nfsck)
		snprintf(buf, len, "no checker");
	else
		snprintf(buf, len, "%u/%u clean%s", c->nfsck_clean, c->nfsck - c->nfsck_absent,
			 c->nfindings ? ", FINDINGS" : "");
}

/* the histogram's rows: from the smallest bucket any cell has to the largest */
static void bucket_range(const struct mx *m, unsigned *lo, unsigned *hi)
{
	*lo = AFTER_BUCKETS;
	*hi = 0;
	for (unsigned c = 0; c < m->ncells; c++)
		for (unsigned b = 0; b < AFTER_BUCKETS; b++)
			if (m->cell[c].nfree && m->cell[c].free_extents[b] > 0) {
				*lo = b < *lo ? b : *lo;
				*hi = b > *hi ? b : *hi;
			}
}

static double total_bytes(const struct mread_cell *c)
{
	double t = 0;

	for (unsigned b = 0; b < AFTER_BUCKETS; b++)
		t += c->free_bytes[b];
	return t;
}

void mafter_section_doc(struct doc *d, const struct mx *m, const char *svg, size_t svg_len)
{
	unsigned nc = m->ncells + 1, lo, hi;
	const char **head, **cells;
	char (*buf)[96];

	if (!m->has_after)
		return;
	head = calloc(nc + 4, sizeof(char *));
	cells = calloc(nc + 4, sizeof(char *));
	buf = calloc(nc + 4, sizeof(*buf));
	if (!head || !cells || !buf)
		goto out;
	doc_h(d, 2, "After the runs: filesystem check and free space");
	doc_p(d, "After each run the filesystem was unmounted and checked read-only by its own checker (e2fsck -fn, "
		 "xfs_repair -n, btrfs check --readonly), timed (wall and CPU time, peak memory from wait4), and its "
		 "free extents were listed by the filesystem's own tool (e2freefrag, xfs_db freesp; btrfs has none). "
		 "Their figures are in the figures table above and tested with the others; here: the verdicts, and "
		 "free space by the size of the free extent holding it, summed over each cell's runs.");
	{
		static const char *const h[] = { "cell", "fsck verdicts", "fsck wall time", "free space histogram" };

		doc_table(d, 4, h, "llrl");
		for (unsigned c = 0; c < m->ncells; c++) {
			const struct mread_cell *cl = &m->cell[c];
			struct stats_summary s;

			verdicts(cl, buf[0], sizeof(buf[0]));
			if (cell_summary(m, c, AF_FSCK_WALL, &s))
				snprintf(buf[1], sizeof(buf[1]), "-");
			else if (s.n < 2)
				snprintf(buf[1], sizeof(buf[1]), "%.3f s", s.mean);
			else
				snprintf(buf[1], sizeof(buf[1]), "%.3f ± %.3f s", s.mean, s.ci);
			if (cl->nfree)
				snprintf(buf[2], sizeof(buf[2]), "%u run%s", cl->nfree, cl->nfree == 1 ? "" : "s");
			else
				snprintf(buf[2], sizeof(buf[2]), "absent: %.80s", cl->free_absent ? cl->free_absent : "not measured");
			cells[0] = cl->name;
			cells[1] = buf[0];
			cells[2] = buf[1];
			cells[3] = buf[2];
			doc_row(d, cells);
		}
		doc_table_end(d);
	}
	bucket_range(m, &lo, &hi);
	if (lo <= hi) {
		head[0] = "free extent size";
		for (unsigned c = 0; c < m->ncells; c++)
			head[c + 1] = m->cell[c].name;
		doc_p(d, "Share of the free space in free extents of each size (from the size shown up to twice it), "
			 "and the number of those extents, summed over the cell's runs:");
		doc_table(d, nc, head, NULL);
		for (unsigned b = lo; b <= hi; b++) {
			after_bucket_name(b, buf[0], sizeof(buf[0]));
			cells[0] = buf[0];
			for (unsigned c = 0; c < m->ncells; c++) {
				const struct mread_cell *cl = &m->cell[c];
				double t = total_bytes(cl);

				if (!cl->nfree || t <= 0)
					snprintf(buf[c + 1], sizeof(buf[c + 1]), "-");
				else
					snprintf(buf[c + 1], sizeof(buf[c + 1]), "%.1f%% (%.0f)", 100 * cl->free_bytes[b] / t,
						 cl->free_extents[b]);
				cells[c + 1] = buf[c + 1];
			}
			doc_row(d, cells);
		}
		doc_table_end(d);
	}
	if (svg)
		doc_figure(d, svg, svg_len, "plot-after.svg", "plot-after.png",
			   "Left: the checker's wall and CPU time per cell (mean, 95% interval; above the bars how many runs "
			   "it found clean). Right: free space by free extent size, % of each cell's free space");
out:
	free(head);
	free(cells);
	free(buf);
}

json_t *mafter_cell_json(const struct mx *m, unsigned c)
{
	const struct mread_cell *cl = &m->cell[c];
	json_t *o, *h = json_array();
	unsigned lo, hi;

	if (!m->has_after) {
		json_decref(h);
		return json_null();
	}
	o = json_pack("{s:i,s:i,s:i,s:i}", "fsck_runs", (int)cl->nfsck, "fsck_clean", (int)cl->nfsck_clean,
		      "fsck_absent", (int)cl->nfsck_absent, "findings", (int)cl->nfindings);
	json_object_set_new(o, "freespace_runs", json_integer(cl->nfree));
	json_object_set_new(o, "freespace_absent", cl->free_absent && !cl->nfree ? json_string(cl->free_absent)
									   : json_null());
	bucket_range(m, &lo, &hi);
	for (unsigned b = lo; cl->nfree && b <= hi; b++)
		json_array_append_new(h, json_pack("{s:I,s:I,s:f,s:f}", "min_bytes", (json_int_t)(1ULL << b),
			"max_bytes", (json_int_t)(b < 62 ? 1ULL << (b + 1) : 1ULL << 62), "extents", cl->free_extents[b],
			"free_bytes", cl->free_bytes[b]));
	json_object_set_new(o, "freespace_histogram", cl->nfree ? h : (json_decref(h), json_null()));
	return o;
}

json_t *mafter_findings_json(const struct mx *m)
{
	json_t *a = json_array(), *f;

	for (unsigned r = 0; r < m->nruns; r++) {
		const struct mread_run *ru = &m->run[r];
		char line[300];

		if (!ru->has_after || !ru->after.finding)
			continue;
		first_line(&ru->after, line, sizeof(line));
		f = json_pack("{s:s,s:i,s:s,s:s,s:s,s:o,s:i,s:s}", "cell", m->cell[ru->cell].name,
			"repeat", (int)ru->repeat, "check", "fsck", "verdict", ru->after.verdict, "tool", ru->after.tool,
			"exit_status", ru->after.exit_status >= 0 ? json_integer(ru->after.exit_status) : json_null(),
			"message_lines", (int)ru->after.message_lines, "first_line", line);
		json_object_set_new(f, "timed_out", json_boolean(ru->after.timed_out));
		json_array_append_new(a, f);
	}
	return a;
}

/* ---- the plot ---- */

struct plot_mem {
	const char *series[MX_MAX_CELLS];
	const char *groups0[2];
	double v0[MX_MAX_CELLS * 2], lo0[MX_MAX_CELLS * 2], hi0[MX_MAX_CELLS * 2];
	char notes[MX_MAX_CELLS * 2][32];
	const char *notep[MX_MAX_CELLS * 2];
	char gname[AFTER_BUCKETS][16];
	const char *groups1[AFTER_BUCKETS];
	double v1[MX_MAX_CELLS * AFTER_BUCKETS];
};

int mafter_plot_build(const struct mx *m, struct mafter_plot *p)
{
	struct plot_mem *pm;
	unsigned nc = m->ncells, lo, hi, np = 0;
	bool fsck = false;

	memset(p, 0, sizeof(*p));
	if (!m->has_after || !nc || !(pm = calloc(1, sizeof(*pm))))
		return -1;
	p->mem = pm;
	for (unsigned c = 0; c < nc; c++) {
		pm->series[c] = m->cell[c].name;
		for (unsigned g = 0; g < 2; g++) {
			struct stats_summary s;
			unsigned i = c * 2 + g;

			pm->v0[i] = pm->lo0[i] = pm->hi0[i] = NAN;
			if (cell_summary(m, c, g ? AF_FSCK_CPU : AF_FSCK_WALL, &s))
				continue;
			fsck = true;
			pm->v0[i] = s.mean;
			pm->lo0[i] = s.n >= 2 ? s.lo : NAN;
			pm->hi0[i] = s.n >= 2 ? s.hi : NAN;
			if (!g) {
				verdicts(&m->cell[c], pm->notes[i], sizeof(pm->notes[i]));
				pm->notep[i] = pm->notes[i];
			}
		}
	}
	if (fsck) {
		pm->groups0[0] = "wall time";
		pm->groups0[1] = "CPU time (user + system)";
		p->panel[np++] = (struct plot_bar_panel){ .title = "filesystem check after each run (mean, 95% interval)",
			.ylabel = "seconds", .ngroups = 2, .groups = pm->groups0, .v = pm->v0, .lo = pm->lo0, .hi = pm->hi0,
			.notes = pm->notep };
	}
	bucket_range(m, &lo, &hi);
	if (lo <= hi) {
		unsigned ng = hi - lo + 1;

		for (unsigned b = lo; b <= hi; b++) {
			after_bucket_name(b, pm->gname[b - lo], sizeof(pm->gname[0]));
			pm->groups1[b - lo] = pm->gname[b - lo];
		}
		for (unsigned c = 0; c < nc; c++) {
			double t = total_bytes(&m->cell[c]);

			for (unsigned b = lo; b <= hi; b++)
				pm->v1[c * ng + (b - lo)] = m->cell[c].nfree && t > 0 ? 100 * m->cell[c].free_bytes[b] / t : NAN;
		}
		p->panel[np++] = (struct plot_bar_panel){ .title = "free space by free extent size (summed over the runs)",
			.xlabel = "free extents of this size up to twice it", .ylabel = "% of the free space", .ngroups = ng,
			.groups = pm->groups1, .v = pm->v1 };
	}
	if (!np) {
		mafter_plot_free(p);
		return -1;
	}
	p->b = (struct plot_bars){ .title = "After the runs: the filesystem's checker and its free space", .nseries = nc,
				   .series = pm->series, .npanels = np, .panel = p->panel };
	return 0;
}

void mafter_plot_free(struct mafter_plot *p)
{
	free(p->mem);
	memset(p, 0, sizeof(*p));
}
