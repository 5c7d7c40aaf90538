/* SPDX-License-Identifier: GPL-2.0-or-later */
/* summary.json of a matrix report (matrix_report_int.h): the answer, each cell, effect and
 * interaction with its verdict, the runs and the warnings. */
#include <jansson.h>
#include <math.h>

#include "report/matrix_after.h"
#include "report/matrix_report_int.h"

/* ---- summary.json ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
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

	mrep_answer(a, answer_to_json, ctx);
	return arr;
}

/* a test's verdict, as every writer shows it */
static void verdict_json(const struct an *a, const struct eff_test *t, json_t *o)
{
	const struct vd_test *v = &t->v;

	json_object_set_new(o, "verdict", json_string(mrep_verdict_word(a, t)));
	json_object_set_new(o, "family", json_string(vd_family_name(v->family)));
	json_object_set_new(o, "tested", json_boolean(v->tested));
	json_object_set_new(o, "not_tested_because",
			    v->why && !v->tested ? json_string(v->why) : json_null());
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
	json_object_set_new(o, "more_rounds",
			    isfinite(v->more_rounds) ? json_real(v->more_rounds) : json_null());
}

/* cell c: its axes' values, runs, median run and each figure's mean and interval */
static json_t *cell_json(const struct an *a, unsigned c)
{
	const struct mx *m = a->m;
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
		json_object_set_new(figs, a->fig[f]->key,
				    json_pack("{s:i,s:o,s:s,s:o,s:o,s:o,s:o}", "n", (int)ec->s.n, "mean",
					      jnum(ec->s.mean), "mean_kind",
					      ec->s.harmonic	? "harmonic"
					      : ec->s.geometric ? "geometric"
								: "arithmetic",
					      "ci95_half_width", two ? jnum(ec->s.ci) : json_null(),
					      "ci95_low", two ? jnum(ec->s.lo) : json_null(), "ci95_high",
					      two ? jnum(ec->s.hi) : json_null(), "cv_pct",
					      two ? jnum(ec->s.cv_pct) : json_null()));
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
	return o;
}

/* an effect or an interaction with its verdict */
static json_t *test_json(const struct an *a, const struct eff_test *t)
{
	const struct mx *m = a->m;
	const struct rr_figure *f = a->fig[t->fig];
	json_t *o;

	if (t->kind == EFF_EFFECT) {
		const struct eff_cell *c0 = &a->r.cell[t->cell[0] * a->nfig + t->fig];
		const struct eff_cell *c1 = &a->r.cell[t->cell[1] * a->nfig + t->fig];

		o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:[s,s],s:s,s:s}", "figure", f->key, "name", f->name,
			      "unit", f->unit, "better", mrep_better_name(f->dir), "axis",
			      m->axis[t->axis].name, "cells", mrep_cell_name(a, t->cell[0]),
			      mrep_cell_name(a, t->cell[1]), "from", mread_value(m, t->cell[0], t->axis),
			      "to", mread_value(m, t->cell[1], t->axis));
		json_object_set_new(o, "mean_from", c0->present ? jnum(c0->s.mean) : json_null());
		json_object_set_new(o, "mean_to", c1->present ? jnum(c1->s.mean) : json_null());
	} else {
		o = json_pack("{s:s,s:s,s:s,s:[s,s],s:[s,s,s,s],s:s}", "figure", f->key, "name", f->name,
			      "unit", f->unit, "axes", m->axis[t->axis].name, m->axis[t->axis_b].name,
			      "cells", mrep_cell_name(a, t->cell[0]), mrep_cell_name(a, t->cell[1]),
			      mrep_cell_name(a, t->cell[2]), mrep_cell_name(a, t->cell[3]), "scale",
			      t->v.e.log ? "log" : "linear");
	}
	verdict_json(a, t, o);
	return o;
}

static json_t *runs_json(const struct mx *m)
{
	json_t *runs = json_array();

	for (unsigned r = 0; r < m->nruns; r++) {
		const struct mread_run *ru = &m->run[r];

		json_array_append_new(
			runs,
			json_pack("{s:s,s:i,s:i,s:s?,s:s?,s:s?,s:i,s:o,s:b,s:b,s:o}", "cell",
				  m->cell[ru->cell].name, "repeat", (int)ru->repeat, "order", (int)ru->order,
				  "json", ru->json, "started_at", ru->started_at, "ended_at", ru->ended_at,
				  "exit_status", ru->exit_status, "other_cpu_pct", jnum(ru->other_cpu_pct),
				  "other_cpu_flag", ru->other_cpu_flag, "used", ru->used, "problem",
				  ru->problem ? json_string(ru->problem) : json_null()));
	}
	/* noise: steal per run; flagged runs counted, and those left out */
	for (unsigned r = 0; r < m->nruns; r++)
		json_object_set_new(json_array_get(runs, r), "steal_pct", jnum(m->run[r].steal_pct));
	return runs;
}

json_t *mrep_summary_json(const struct an *a)
{
	const struct mx *m = a->m;
	json_t *root = json_object(), *cells = json_array(), *eff = json_array(), *ia = json_array();
	json_t *warn = json_array(), *axes = json_array();

	json_object_set_new(root, "schema", json_string("fsbench-matrix-summary"));
	json_object_set_new(root, "schema_version", json_integer(1));
	json_object_set_new(root, "experiment", json_string(m->name));
	json_object_set_new(root, "workload", json_string(m->workload));
	json_object_set_new(root, "kernel_release", json_string(m->kernel_release));
	json_object_set_new(root, "host", json_string(m->host));
	json_object_set_new(root, "fsbench_version", json_string(m->fsbench_version));
	json_object_set_new(root, "correction",
			    json_pack("{s:{s:s,s:i,s:s},s:{s:s,s:i,s:s},s:f,s:f}", "confirmatory", "method",
				      "holm", "tests", (int)a->r.nconfirm, "figures",
				      "the primary figures' effects and interactions", "exploratory",
				      "method", "benjamini-hochberg", "tests", (int)a->r.nexplore, "figures",
				      "every other tested figure", "alpha",
				      m->alpha > 0 ? m->alpha : VD_ALPHA, "equivalence_pct", a->equiv_pct));
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
	for (unsigned c = 0; c < m->ncells; c++)
		json_array_append_new(cells, cell_json(a, c));
	json_object_set_new(root, "cells", cells);
	for (unsigned k = 0; k < a->r.nt; k++)
		json_array_append_new(a->r.t[k].kind == EFF_EFFECT ? eff : ia, test_json(a, &a->r.t[k]));
	json_object_set_new(root, "effects", eff);
	json_object_set_new(root, "interactions", ia);
	json_object_set_new(root, "runs", runs_json(m));
	json_object_set_new(root, "runs_counted",
			    json_pack("{s:i,s:i,s:i,s:i}", "runs", (int)m->nruns, "used", (int)m->nused,
				      "flagged", (int)m->nflagged, "flagged_left_out", (int)m->nexcluded));
	for (unsigned w = 0; w < m->nwarn; w++)
		json_array_append_new(warn, json_string(m->warn[w]));
	json_object_set_new(root, "warnings", warn);
	return root;
}
