/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testwl's presentation (workload/testwl.c, the test build only): the generic text and JSON,
 * each run's "steps" with their latency, the layout that reads them back and a classic table
 * from figures. It is all a new workload adds to report/ (HACKING.md, t3060). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/generic_report.h"
#include "report/json.h"
#include "report/result_read.h"
#include "report/workload_report.h"
#include "workload/testwl.h"

/* the generic presentation's state inside this one's */
struct testwl_out {
	const struct workload_ops *w;
	void *gen;
};

static int testwl_begin(void *st, const void *cfg, struct report_out *o)
{
	struct testwl_out *x = st;

	x->w = o->w;
	if (!(x->gen = calloc(1, generic_report.state_size)))
		return -ENOMEM;
	return generic_report.begin(x->gen, cfg, o);
}

static void testwl_run_end(void *st, unsigned run, const void *result)
{
	generic_report.run_end(((struct testwl_out *)st)->gen, run, result);
}

static void testwl_summary(void *st, const struct driver_result *res)
{
	generic_report.summary(((struct testwl_out *)st)->gen, res);
}

/* the generic document, and in each run its one step with the latency */
static json_t *testwl_json(void *st, const struct driver_result *res)
{
	struct testwl_out *x = st;
	json_t *root = generic_report.json(x->gen, res), *runs;

	if (!root)
		return NULL;
	runs = json_object_get(root, "runs");
	for (unsigned i = 0; i < res->nruns; i++) {
		const struct testwl_result *r = driver_result_run(x->w, res, i);
		json_t *step = json_pack("{s:s,s:o}", "name", "spin", "latency", json_latency(&r->st));

		json_object_set_new(runs ? json_array_get(runs, i) : root, "steps", json_pack("[o]", step));
	}
	return root;
}

static void testwl_end(void *st)
{
	struct testwl_out *x = st;

	free(x->gen);
	x->gen = NULL;
}

static const struct rr_layout testwl_layout = {
	.groups = "steps",
	.group_lat = "latency",
	.complete_field = "complete",
};

static void testwl_classic(FILE *o, const struct rr_result *r)
{
	fprintf(o, "testwl classic: %.1f ops/s, latency mean %.1f ns\n", rr_run_value(r, "ops_per_s", 0),
		rr_run_value(r, "latency_mean_ns", 0));
}

const struct workload_report testwl_report = {
	.state_size = sizeof(struct testwl_out),
	.begin = testwl_begin,
	.run_end = testwl_run_end,
	.summary = testwl_summary,
	.json = testwl_json,
	.end = testwl_end,
	.layout = &testwl_layout,
	.classic_from_figures = testwl_classic,
};
