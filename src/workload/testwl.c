/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testwl: a workload of the test build only (workload/registry.c, core/testhook.h), hidden, that
 * does no I/O: two workers count ops into their histograms. It is the third workload report/
 * does not know: its presentation is report/testwl_text.c alone (t3060). */
#include <stddef.h>
#include <string.h>

#include "core/clock.h"
#include "core/driver.h"
#include "core/run.h"
#include "workload/run_opts.h"
#include "workload/testwl.h"
#include "workload/workload.h"

struct testwl_config {
	uint64_t ops; /* per worker */
	int help;
	struct run_opts run;
};

struct testwl_worker {
	const struct testwl_config *c;
	struct opstat st;
};

#define F(x) offsetof(struct testwl_config, x)
static const struct opt testwl_opts[] = {
	{ 'n', "ops", OPT_UINT, F(ops), "N", 1, 1000000000, 0, 0, "ops per worker" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "print this help and exit" },
	RUN_OPTS(F, "step"),
	{ 0 },
};
#undef F
static const struct opt_cmd testwl_cmd = { .name = "testwl",
					   .summary = "no I/O: the test build's workload",
					   .opts = testwl_opts };

static const struct figure testwl_figs_run[TESTWL_NFIGS] = {
	{ "ops_per_s", "ops_per_s", "ops/s", "ops/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_KEY },
	{ "latency_mean_ns", "latency_mean_ns", "latency mean", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST,
	  0 },
};
static const struct figure_set testwl_figs = {
	.run = testwl_figs_run,
	.nrun = TESTWL_NFIGS,
	.run_values_off = offsetof(struct testwl_result, fig),
};

static void testwl_defaults(void *cfg)
{
	struct testwl_config *c = cfg;

	memset(c, 0, sizeof(*c));
	c->ops = 1000;
	RUN_OPTS_DEFAULTS(c);
}

static int testwl_check(void *cfg, int argc, char **argv, char *err, size_t errlen)
{
	(void)cfg;
	(void)argc;
	(void)argv;
	(void)err;
	(void)errlen;
	return 0;
}

static int testwl_work(struct worker *w)
{
	struct testwl_worker *tw = w->ctx;

	for (uint64_t i = 0; i < tw->c->ops && !run_stopping(); i++)
		opstat_add_at(&tw->st, lat_now(), i % 1000 + 1, 4096);
	return 0;
}

static int testwl_run(struct driver *d, const void *cfg, void *result)
{
	struct testwl_result *r = result;
	struct testwl_worker tw[2];
	struct worker workers[2] = { { .ctx = &tw[0] }, { .ctx = &tw[1] } };
	struct phase ph = { .name = "spin", .nworkers = 2, .work = testwl_work, .workers = workers };

	opstat_init(&r->st);
	for (int i = 0; i < 2; i++) {
		tw[i] = (struct testwl_worker){ .c = cfg };
		opstat_init(&tw[i].st);
		workers[i].live = &tw[i].st;
	}
	driver_phase(d, &ph, NULL, NULL);
	for (int i = 0; i < 2; i++)
		opstat_merge(&r->st, &tw[i].st);
	r->fig[TESTWL_OPS_PER_S] = (double)r->st.ops / ((double)(ph.end_ns - ph.start_ns + 1) / 1e9);
	r->fig[TESTWL_LAT_MEAN] = hist_mean(&r->st.lat);
	r->head.complete = !run_stopping();
	r->head.end = r->head.complete ? RUN_END_DONE : RUN_END_ERROR;
	return 0;
}

extern const struct workload_report testwl_report;

const struct workload_ops workload_testwl = {
	.name = "testwl",
	.summary = "no I/O: the test build's workload",
	.cmd = &testwl_cmd,
	.config_size = sizeof(struct testwl_config),
	.run_opts_off = offsetof(struct testwl_config, run),
	.result_size = sizeof(struct testwl_result),
	.defaults = testwl_defaults,
	.check = testwl_check,
	.run = testwl_run,
	.figs = &testwl_figs,
	.report = &testwl_report,
	.hidden = true,
};
