/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mdtest's presentation: its header lines and its SUMMARY rate / SUMMARY time tables in its
 * layout (hpc/ior src/mdtest.c, IOR 4.x), so that scripts that parse mdtest's output parse
 * this one; and the JSON result (the generic head, the figures, each operation's latency and
 * each iteration's phases). The values are the workload's (workload/mdtest.c computes them). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/afterrun_report.h"
#include "report/generic_report.h"
#include "report/json.h"
#include "report/json_kstat.h"
#include "report/kstat_text.h"
#include "report/profile_text.h"
#include "report/result_read.h"
#include "report/workload_report.h"
#include "workload/mdtest.h"

struct mdt_out {
	const struct mdt_config *c;
	struct report_out *o;
	void *gen;                   /* the generic presentation's state (--repeat summary) */
};

static int mdt_begin(void *st, const void *cfg, struct report_out *o)
{
	struct mdt_out *x = st;

	x->c = cfg;
	x->o = o;
	if (!(x->gen = calloc(1, generic_report.state_size)))
		return -ENOMEM;
	return generic_report.begin(x->gen, cfg, o);
}

static void mdt_end(void *st)
{
	struct mdt_out *x = st;

	free(x->gen);
	x->gen = NULL;
}

/* mdtest's PrintTimestamp(): local time, %m/%d/%Y %T */
static void stamp(FILE *f, const char *what, long long unix_s)
{
	char buf[80] = "";
	time_t t = (time_t)unix_s;
	struct tm tm;

	if (localtime_r(&t, &tm))
		strftime(buf, sizeof(buf), "%m/%d/%Y %T", &tm);
	fprintf(f, "-- %s at %s --\n\n", what, buf);
}

static void header(const struct mdt_out *x, const struct mdt_result *r)
{
	const struct mdt_config *c = x->c;
	FILE *f = x->o->text;
	uint64_t items_all = (uint64_t)r->nprocs * r->items;

	stamp(f, "started", r->head.started_unix_s);
	fprintf(f, "mdtest-%s was launched with %u total task(s) on %u node(s)\n", MDT_COMPAT_VERSION,
		r->nprocs, r->nhosts);
	fprintf(f, "Command line used: %s", x->o->argc > 0 ? x->o->argv[0] : "mdtest");
	for (int i = 1; i < x->o->argc; i++)
		fprintf(f, " '%s'", x->o->argv[i]);
	fprintf(f, "\n");
	if (c->read && c->read_bytes == 0)
		fprintf(f, "WARNING: Read bytes is 0, thus, a read test will actually just open/close\n");
	fprintf(f, "Nodemap: ");
	for (unsigned i = 0; i < r->nranks; i++)
		fputc(r->rank_host[i] == r->rank_host[0] ? '1' : '0', f);
	fprintf(f, "\n");
	if (r->fs_ok && r->fs_bytes && r->fs_files) {
		double gib = (double)r->fs_bytes / (double)(1 << 30);
		const char *unit = "GiB";

		if (gib > 1024) {
			gib = (double)r->fs_bytes / (double)(UINT64_C(1) << 40);
			unit = "TiB";
		}
		fprintf(f, "%-20s: %s\n", "Path", c->dir);
		fprintf(f, "%-20s: %.1f %s   Used FS: %2.1f%%   Inodes: %.1f Mi   Used Inodes: %2.1f%%\n",
			"FS", gib, unit, (1 - (double)r->fs_free_bytes / (double)r->fs_bytes) * 100,
			(double)r->fs_files / (double)(1 << 20),
			(1 - (double)r->fs_free_files / (double)r->fs_files) * 100);
	}
	if (r->seed > 0)
		fprintf(f, "random seed: %lld\n", (long long)r->seed);
	if (c->files_only && c->dirs_only)
		fprintf(f, "%u tasks, %llu files/directories\n", r->nprocs, (unsigned long long)items_all);
	else if (c->files_only && !c->shared_file)
		fprintf(f, "%u tasks, %llu files\n", r->nprocs, (unsigned long long)items_all);
	else if (c->files_only)
		fprintf(f, "%u tasks, 1 file\n", r->nprocs);
	else if (c->dirs_only)
		fprintf(f, "%u tasks, %llu directories\n", r->nprocs, (unsigned long long)items_all);
}

/* one SUMMARY table, mdtest's rows and columns: the item tests of the kind that ran (no
 * "Directory read" row), then the tree's two */
static void table(const struct mdt_out *x, const struct mdt_result *r, unsigned m)
{
	const struct mdt_config *c = x->c;
	FILE *f = x->o->text;
	unsigned start = 0, stop = MDT_TREE_CREATE;

	if (c->files_only && !c->dirs_only)
		start = MDT_FILE_CREATE;
	if (c->dirs_only && !c->files_only)
		stop = MDT_FILE_CREATE;
	if (m)
		fprintf(f, "\nSUMMARY time (in ms/op): (of %u iterations)\n", r->niters);
	else
		fprintf(f, "\nSUMMARY rate (in ops/sec): (of %u iterations)\n", r->niters);
	fprintf(f, "   Operation                     Max            Min           Mean        Std Dev\n");
	fprintf(f, "   ---------                     ---            ---           ----        -------\n");
	for (unsigned t = start; t < stop; t++) {
		const double *v = r->table[m][t];

		if (t == MDT_DIR_READ)
			continue;
		fprintf(f, "   %-18s     %14.3f %14.3f %14.3f %14.3f\n", mdt_test_name[t], v[MDT_MAX],
			v[MDT_MIN], v[MDT_MEAN], v[MDT_SD]);
	}
	for (unsigned t = MDT_TREE_CREATE; t < MDT_NTESTS; t++) {
		const double *v = r->table[m][t];

		fprintf(f, "   %-22s %14.3f %14.3f %14.3f %14.3f\n", mdt_test_name[t], v[MDT_MAX],
			v[MDT_MIN], v[MDT_MEAN], v[MDT_SD]);
	}
}

/* --time-limit and --ramp, after the tables (a line mdtest does not print, so only then): which
 * phases the limit stopped, with the items they did by then */
static void limit_marks(const struct mdt_out *x, const struct mdt_result *r)
{
	FILE *f = x->o->text;
	const struct run_opts *ro = &x->c->run;
	unsigned n = 0;

	for (unsigned j = 0; j < r->niters; j++)
		for (unsigned t = 0; t < MDT_NTESTS; t++) {
			const struct mdt_cell *c = &r->cell[j][t];

			if (!c->ran || !c->time_limited)
				continue;
			fprintf(f, "%s%s (iteration %u): stopped by time limit, %llu items in %.3f s\n",
				n++ ? "" : "\n", mdt_test_name[t], j + 1, (unsigned long long)c->items,
				(double)(c->end_ns - c->start_ns) / 1e9);
		}
	if (ro->ramp_ns)
		fprintf(f, "\nramp: the first %.3f s of each phase left out of its items, time and rate "
			"(--ramp)\n", (double)ro->ramp_ns / 1e9);
}

/* --sysstats: the kernel's view of each phase, a row per test and iteration; --profile: each
 * test's profile, its iterations merged. After the tables and mdtest's last line, as tiotest's
 * and fs_mark's. */
static void kernel_view(const struct mdt_out *x, const struct mdt_result *r)
{
	FILE *f = x->o->text;
	char label[64];
	bool head = false;

	for (unsigned j = 0; x->c->run.sysstats && j < r->niters; j++)
		for (unsigned t = 0; t < MDT_NTESTS; t++) {
			const struct mdt_cell *c = &r->cell[j][t];

			if (!c->ran || !c->obs.taken)
				continue;
			if (!head) {
				kstat_text_header(f);
				head = true;
			}
			if (r->niters > 1)
				snprintf(label, sizeof(label), "%s #%u", mdt_test_key[t], j + 1);
			else
				snprintf(label, sizeof(label), "%s", mdt_test_key[t]);
			kstat_text_row(f, label, &c->obs.k);
		}
	/* the sync after the run (core/afterrun.h), under the phases' rows as tiotest's and
	 * fs_mark's */
	if (x->c->run.sysstats)
		afterrun_text(f, &r->head.after);
	for (unsigned t = 0; t < MDT_NTESTS; t++)
		if (r->profile[t]) {
			snprintf(label, sizeof(label), "%s phase", mdt_test_name[t]);
			profile_text_print(f, label, r->profile[t], (unsigned)x->c->run.profile_top);
		}
}

static void mdt_run_end(void *st, unsigned run, const void *result)
{
	struct mdt_out *x = st;
	const struct mdt_result *r = result;
	FILE *f = x->o->text;

	(void)run;
	if (f) {
		header(x, r);
		if (r->head.complete) {
			if (x->c->print_both) {
				table(x, r, 0);
				table(x, r, 1);
			} else {
				table(x, r, x->c->print_time);
			}
			limit_marks(x, r);
			stamp(f, "finished", r->finished_unix_s);
		}
		kernel_view(x, r);
		fflush(f);
	}
	if (!r->head.complete && x->o->err && !x->o->quiet_signal)
		fprintf(x->o->err, "%s: the run did not complete: no SUMMARY (%u iteration(s) begun)\n",
			x->o->prog, r->niters);
}

static void mdt_summary(void *st, const struct driver_result *res)
{
	struct mdt_out *x = st;

	/* the --repeat summary: the generic one, over the declared figures */
	generic_report.summary(x->gen, res);
}

static json_t *cells_json(const struct mdt_result *r)
{
	json_t *arr = json_array();

	for (unsigned j = 0; j < r->niters; j++) {
		json_t *it = json_object();

		for (unsigned t = 0; t < MDT_NTESTS; t++) {
			const struct mdt_cell *c = &r->cell[j][t];

			if (!c->ran)
				continue;
			json_object_set_new(it, mdt_test_key[t],
					    json_pack("{s:o,s:o,s:o,s:b,s:o}", "items", json_u64(c->items),
						      "wall_ns", json_u64(c->end_ns - c->start_ns),
						      "rate_per_s", json_num(c->end_ns > c->start_ns ?
							      (double)c->items * 1e9 / (double)(c->end_ns - c->start_ns) : 0),
						      "stopped_by_time_limit", c->time_limited,
						      "ramp_ns", json_u64(c->ramp_ns)));
			/* the kernel-side view (core/observe.h), when taken */
			if (c->obs.taken)
				json_object_set_new(json_object_get(it, mdt_test_key[t]), "kernel",
						    kstat_json(&c->obs.k));
		}
		json_array_append_new(arr, it);
	}
	return arr;
}

static json_t *run_json(const struct mdt_out *x, const struct driver_result *res, unsigned i)
{
	const struct mdt_result *r = driver_result_run(x->o->w, res, i);
	json_t *o = json_object(), *ops, *sum = json_object();

	json_run_end(o, res, &r->head, i + 1 == res->nruns);
	json_object_set_new(o, "tasks", json_u64(r->nprocs));
	json_object_set_new(o, "items_per_task", json_u64(r->items));
	json_object_set_new(o, "tree_directories", json_u64(r->tree_dirs));
	json_figures(o, x->o->w->figs->run, x->o->w->figs->nrun, r->fig);
	afterrun_json(o, &r->head.after);
	ops = json_object_get(o, "operations");
	for (unsigned t = 0; t < MDT_NTESTS && ops; t++) {
		json_t *op = json_object_get(ops, mdt_test_key[t]);

		json_t *eo = json_object();

		if (op && r->op[t].ops)
			json_object_set_new(op, "latency", json_latency(&r->op[t]));
		for (unsigned e = 0; e < ENGINE_NOPS; e++)
			if (r->engine_ops[t][e])
				json_object_set_new(eo, engine_op_key[e], json_u64(r->engine_ops[t][e]));
		if (op && r->profile[t])
			json_object_set_new(op, "profile", perf_json(r->profile[t]));
		if (op && json_object_size(eo))
			json_object_set_new(op, "engine_ops", eo);
		else
			json_decref(eo);
	}
	for (unsigned m = 0; m < 2; m++) {
		json_t *tab = json_object();

		for (unsigned t = 0; t < MDT_NTESTS; t++) {
			const double *v = r->table[m][t];

			if (t == MDT_DIR_READ)
				continue;
			json_object_set_new(tab, mdt_test_key[t],
					    json_pack("{s:o,s:o,s:o,s:o}", "max", json_num(v[MDT_MAX]),
						      "min", json_num(v[MDT_MIN]), "mean", json_num(v[MDT_MEAN]),
						      "stddev", json_num(v[MDT_SD])));
		}
		json_object_set_new(sum, m ? "time_s" : "rate_per_s", tab);
	}
	json_object_set_new(o, "summary", sum);
	json_object_set_new(o, "iterations", cells_json(r));
	return o;
}

static json_t *mdt_json(void *st, const struct driver_result *res)
{
	struct mdt_out *x = st;
	const struct run_opts *ro = &x->c->run;
	struct json_run_info ri = { .argc = x->o->argc, .argv = x->o->argv, .workload = "mdtest",
				    .res = res,
				    .started_unix_s = ((const struct run_head *)res->runs)->started_unix_s };
	json_t *root = json_result_head(&ri), *cfg = json_options(x->o->w->cmd, x->c);

	json_object_set_new(root, "label", ro->label ? json_string(ro->label) : json_null());
	json_engine_setup(cfg, &x->c->eng);
	json_object_set_new(root, "config", cfg);
	if (res->nruns == 1) {
		json_t *run = run_json(x, res, 0);

		json_object_update(root, run);
		json_decref(run);
	} else {
		json_t *arr = json_array();

		for (unsigned i = 0; i < res->nruns; i++)
			json_array_append_new(arr, run_json(x, res, i));
		json_object_set_new(root, "runs", arr);
	}
	return root;
}

/* mdtest's SUMMARY rate rows for the run (its Mean: the figure; one run, so no spread) */
static void classic_mdtest(FILE *o, const struct rr_result *r)
{
	fprintf(o,
		"SUMMARY rate (in ops/sec): (the Mean of this run's iterations)\n   %-22s %14s\n   %-22s %14s\n",
		"Operation", "Mean", "---------", "----");
	for (unsigned t = 0; t < MDT_NTESTS; t++)
		for (unsigned f = 0; f < r->nfig; f++) {
			size_t n = strlen(mdt_test_key[t]);

			if (!strncmp(r->fig[f].key, mdt_test_key[t], n) &&
			    !strcmp(r->fig[f].key + n, "_per_s") && !isnan(r->fig[f].v[0]))
				fprintf(o, "   %-22s %14.3f\n", mdt_test_name[t], r->fig[f].v[0]);
		}
}

const struct workload_report mdtest_report = {
	.state_size = sizeof(struct mdt_out),
	.begin = mdt_begin,
	.run_end = mdt_run_end,
	.summary = mdt_summary,
	.json = mdt_json,
	.end = mdt_end,
	.classic_from_figures = classic_mdtest,
};
