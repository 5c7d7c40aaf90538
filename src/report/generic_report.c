/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The presentation of a workload without a classic format of its own: one line per declared
 * run figure after each run, the --repeat summary from the declarations, and a JSON result
 * with the common head and each run's figures. Nothing here knows a figure by name. */
#include "report/generic_report.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/stats.h"
#include "report/json.h"

struct gen_out {
	const void *cfg;
	struct report_out *o;
	const struct workload_ops *w;
};

static const double *run_values(const struct workload_ops *w, const void *result)
{
	return (const double *)((const char *)result + w->figs->run_values_off);
}

static int gen_begin(void *st, const void *cfg, struct report_out *o)
{
	struct gen_out *x = st;

	x->cfg = cfg;
	x->o = o;
	x->w = o->w;
	return 0;
}

static void gen_run_end(void *st, unsigned run, const void *result)
{
	struct gen_out *x = st;
	const struct figure_set *fs = x->w->figs;
	const struct run_head *h = result;
	const double *v = run_values(x->w, result);
	FILE *out = x->o->text;

	if (!out)
		return;
	fprintf(out, "%s run %u:%s\n", x->w->name, run + 1, h->complete ? "" : " (incomplete)");
	for (unsigned i = 0; i < fs->nrun; i++)
		fprintf(out, "  %-28s %14.3f %s\n", fs->run[i].name, v[i], fs->run[i].unit);
	fflush(out);
}

static void gen_summary(void *st, const struct driver_result *res)
{
	struct gen_out *x = st;
	const struct figure_set *fs = x->w->figs;
	FILE *out = x->o->text;
	double *v = calloc(res->nruns ? res->nruns : 1, sizeof(double));

	if (!out || !v) {
		free(v);
		return;
	}
	fprintf(out, "Summary of %u runs: mean ± 95%% confidence interval (coefficient of variation)\n",
		res->nruns);
	for (unsigned i = 0; i < fs->nrun; i++) {
		struct stats_summary s;
		unsigned k = 0;

		for (unsigned r = 0; r < res->nruns; r++) {
			const void *run = driver_result_run(x->w, res, r);

			if (((const struct run_head *)run)->complete)
				v[k++] = run_values(x->w, run)[i];
		}
		if (stats_summarize(v, k, figure_is_rate(&fs->run[i]), &s))
			continue;
		fprintf(out, "  %-28s %14.3f ± %-10.3f %-8s (CV %5.1f%%, n=%u)\n", fs->run[i].name,
			s.mean, s.ci, fs->run[i].unit, s.cv_pct, s.n);
	}
	free(v);
}

static json_t *gen_run_json(const struct gen_out *x, const struct driver_result *res, unsigned i)
{
	const void *run = driver_result_run(x->w, res, i);
	json_t *o = json_object();

	json_run_end(o, res, run, i + 1 == res->nruns);
	json_figures(o, x->w->figs->run, x->w->figs->nrun, run_values(x->w, run));
	return o;
}

static json_t *gen_json(void *st, const struct driver_result *res)
{
	struct gen_out *x = st;
	const struct run_opts *ro = workload_run_opts(x->w, x->cfg);
	struct json_run_info ri = { .argc = x->o->argc, .argv = x->o->argv, .workload = x->w->name,
				    .res = res,
				    .started_unix_s = ((const struct run_head *)res->runs)->started_unix_s };
	json_t *root = json_result_head(&ri);

	json_object_set_new(root, "label", ro->label ? json_string(ro->label) : json_null());
	json_object_set_new(root, "config", json_options(x->w->cmd, x->cfg));
	if (res->nruns == 1) {
		json_t *run = gen_run_json(x, res, 0);

		json_object_update(root, run);
		json_decref(run);
	} else {
		json_t *arr = json_array();

		for (unsigned i = 0; i < res->nruns; i++)
			json_array_append_new(arr, gen_run_json(x, res, i));
		json_object_set_new(root, "runs", arr);
	}
	return root;
}

const struct workload_report generic_report = {
	.state_size = sizeof(struct gen_out),
	.begin = gen_begin,
	.run_end = gen_run_end,
	.summary = gen_summary,
	.json = gen_json,
};
