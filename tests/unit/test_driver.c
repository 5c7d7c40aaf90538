/* SPDX-License-Identifier: GPL-2.0-or-later */
/* core/driver end to end through a test-only workload registered from this binary (no I/O in
 * its phases, one marker file per run through the cleanup registry): repeats, the first error
 * stopping the repeats, cleanup between and after runs, --keep, the generic JSON read back by
 * the result reader, compare on two results, the release, prepare-run and phase-end hooks, the
 * stonewall, and merging results of several processes. The whole workload is this file's first half: a workload is
 * one file plus its registration. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cmd/cmd.h"
#include "core/cleanup.h"
#include "core/driver.h"
#include "report/result_read.h"
#include "workload/run_opts.h"
#include "workload/workload.h"

/* ---- the test workload ---- */
struct nullio_config {
	uint64_t ops;                /* per worker */
	uint64_t fail_run;           /* 1-based run whose worker 1 fails halfway; 0: none */
	const char *dir;             /* where each run leaves its marker file */
	bool keep;
	int help;
	struct run_opts run;
};

enum { NULLIO_OPS_PER_S, NULLIO_LAT_MEAN, NULLIO_NFIGS };

struct nullio_result {
	struct run_head head;
	double fig[NULLIO_NFIGS];
	struct opstat st;
};

struct nullio_worker {
	const struct nullio_config *c;
	bool fail;
	struct opstat st;
};

#define F(x) offsetof(struct nullio_config, x)
static const struct opt nullio_opts[] = {
	{ 'n', "ops", OPT_UINT, F(ops), "N", 1, 1000000000, 0, 0, "ops per worker" },
	{ 0, "fail-run", OPT_UINT, F(fail_run), "RUN", 0, 1000, 0, 0, "this run fails" },
	{ 0, "dir", OPT_STR, F(dir), "DIR", 0, 0, OPT_F_TARGET, 0, "marker files go here" },
	{ 0, "keep", OPT_FLAG, F(keep), NULL, 0, 0, 0, 0, "keep the last marker" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "help" },
	RUN_OPTS(F, "phase"),
	{ 0 },
};
static const struct opt_cmd nullio_cmd = { .name = "nullio", .summary = "test", .opts = nullio_opts };

static const struct figure nullio_figs_run[NULLIO_NFIGS] = {
	{ "ops_per_s", "ops_per_s", "ops/s", "ops/s", FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_KEY },
	{ "latency_mean_ns", "latency_mean_ns", "latency mean", "ns", FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, 0 },
};
static const struct figure_set nullio_figs = {
	.run = nullio_figs_run, .nrun = NULLIO_NFIGS,
	.run_values_off = offsetof(struct nullio_result, fig),
};

static void nullio_defaults(void *cfg)
{
	struct nullio_config *c = cfg;

	memset(c, 0, sizeof(*c));
	c->ops = 1000;
	c->dir = "/tmp";
	RUN_OPTS_DEFAULTS(c);
}

static int nullio_check(void *cfg, int argc, char **argv, char *err, size_t errlen)
{
	const struct nullio_config *c = cfg;

	(void)argc;
	(void)argv;
	if (access(c->dir, W_OK)) {
		snprintf(err, errlen, "--dir: cannot use '%s'", c->dir);
		return -EINVAL;
	}
	return 0;
}

static int nullio_work(struct worker *w)
{
	struct nullio_worker *nw = w->ctx;

	for (uint64_t i = 0; i < nw->c->ops && !run_stopping(); i++) {
		if (nw->fail && i == nw->c->ops / 2) {
			run_fail(EIO, "write", "nullio", (int64_t)i);
			return -EIO;
		}
		opstat_add(&nw->st, i % 1000 + 1, 4096);
	}
	return 0;
}

static int nullio_run(struct driver *d, const void *cfg, void *result)
{
	const struct nullio_config *c = cfg;
	struct nullio_result *r = result;
	struct nullio_worker nw[2];
	struct worker workers[2] = { { .ctx = &nw[0] }, { .ctx = &nw[1] } };
	struct phase ph = { .name = "null", .nworkers = 2, .work = nullio_work, .workers = workers };
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/nullio.%u", c->dir, d->run);
	fd = cleanup_create_file(path, O_WRONLY, 0600);
	if (fd < 0) {
		run_fail_msg(-fd, "cannot create '%s'", path);
		return fd;
	}
	close(fd);
	opstat_init(&r->st);
	for (int i = 0; i < 2; i++) {
		nw[i] = (struct nullio_worker){ .c = c, .fail = i == 1 && c->fail_run == d->run + 1 };
		opstat_init(&nw[i].st);
		workers[i].live = &nw[i].st;
	}
	driver_phase(d, &ph, NULL, NULL);
	for (int i = 0; i < 2; i++)
		opstat_merge(&r->st, &nw[i].st);
	r->fig[NULLIO_OPS_PER_S] = (double)r->st.ops / ((double)(ph.end_ns - ph.start_ns + 1) / 1e9);
	r->fig[NULLIO_LAT_MEAN] = hist_mean(&r->st.lat);
	r->head.complete = !run_stopping();
	r->head.end = r->head.complete ? RUN_END_DONE : RUN_END_ERROR;
	return 0;
}

static int nullio_merge(void *dst, const void *src)
{
	struct nullio_result *a = dst;
	const struct nullio_result *b = src;

	opstat_merge(&a->st, &b->st);
	a->fig[NULLIO_OPS_PER_S] += b->fig[NULLIO_OPS_PER_S];
	a->fig[NULLIO_LAT_MEAN] = hist_mean(&a->st.lat);
	return 0;
}

static bool nullio_keep(const void *cfg, const void *result)
{
	(void)result;
	return ((const struct nullio_config *)cfg)->keep;
}

static const struct workload_ops workload_nullio = {
	.name = "nullio", .summary = "no I/O: the driver's test workload", .cmd = &nullio_cmd,
	.config_size = sizeof(struct nullio_config), .run_opts_off = offsetof(struct nullio_config, run),
	.result_size = sizeof(struct nullio_result), .defaults = nullio_defaults, .check = nullio_check,
	.run = nullio_run, .merge = nullio_merge, .keep = nullio_keep,
	.figs = &nullio_figs, .hidden = true,
};

/* ---- the tests ---- */
static char dir[] = "/tmp/fsbench-test-driver.XXXXXX";

static unsigned files_in(const char *d, const char *prefix)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	unsigned n = 0;

	while (dp && (e = readdir(dp)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	if (dp)
		closedir(dp);
	return n;
}

static int run_cmd(const char *extra1, const char *extra2, const char *json, const char *repeat)
{
	char *argv[16];
	int argc = 0;

	argv[argc++] = (char *)"nullio";
	argv[argc++] = (char *)"--dir";
	argv[argc++] = dir;
	argv[argc++] = (char *)"--quiet";
	argv[argc++] = (char *)"--repeat";
	argv[argc++] = (char *)repeat;
	if (json) {
		argv[argc++] = (char *)"--json";
		argv[argc++] = (char *)json;
	}
	if (extra1)
		argv[argc++] = (char *)extra1;
	if (extra2)
		argv[argc++] = (char *)extra2;
	argv[argc] = NULL;
	return cmd_workload(workload_find("nullio"), argc, argv, "nullio");
}

static unsigned releases, prepares;

static int count_release(void *arg, const struct phase *p)
{
	(void)arg;
	(void)p;
	releases++;
	return 0;
}

static unsigned phase_ends, stonewalled;

static void count_phase_end(void *arg, const struct phase *p, const struct observe_phase *obs)
{
	(void)arg;
	(void)obs;
	phase_ends++;
	stonewalled += p->stonewalled;
}

static int count_prepare(void *arg, unsigned run)
{
	(void)arg;
	prepares++;
	return run == 2 ? -EBUSY : 0;     /* the third run cannot be prepared */
}

/* One merge rule for every workload (driver_head_merge): complete when both are; the end that
 * weighs more (error > signal > no space > full > done) with its errno and detail; each
 * workload's merge hook applies it to zeroed results of its own. */
static void head_merge(void)
{
	static const struct { enum run_end a, b, want; } t[] = {
		{ RUN_END_DONE, RUN_END_ERROR, RUN_END_ERROR },
		{ RUN_END_ERROR, RUN_END_SIGNAL, RUN_END_ERROR },
		{ RUN_END_FULL, RUN_END_NOSPACE, RUN_END_NOSPACE },
		{ RUN_END_SIGNAL, RUN_END_FULL, RUN_END_SIGNAL },
		{ RUN_END_DONE, RUN_END_DONE, RUN_END_DONE },
	};
	static const char *const names[] = { "tiotest", "fs_mark", "mdtest" };

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct run_head a = { .end = t[i].a, .complete = t[i].a == RUN_END_DONE, .end_err = 1 };
		struct run_head b = { .end = t[i].b, .complete = t[i].b == RUN_END_DONE, .end_err = 2 };

		snprintf(b.end_detail, sizeof(b.end_detail), "b's detail");
		driver_head_merge(&a, &b);
		CHECK(a.end == t[i].want && a.complete == (t[i].want == RUN_END_DONE) &&
		      a.end_err == (t[i].want == t[i].a ? 1 : 2), "case %zu: end %d err %d", i, a.end,
		      a.end_err);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct workload_ops *w = workload_find(names[i]);
		void *x = w ? calloc(1, w->result_size) : NULL, *y = w ? calloc(1, w->result_size) : NULL;
		struct run_head *a = x, *b = y;

		if (!x || !y) {
			CHECK(0, "%s: allocation", names[i]);
			free(x);
			free(y);
			continue;
		}
		a->complete = true;
		a->end = RUN_END_DONE;
		b->end = RUN_END_ERROR;
		b->end_err = EIO;
		snprintf(b->end_detail, sizeof(b->end_detail), "a disk went away");
		CHECK(w->merge(x, y) == 0, "%s merges", names[i]);
		CHECK(!a->complete && a->end == RUN_END_ERROR && a->end_err == EIO &&
		      !strcmp(a->end_detail, "a disk went away"), "%s: the error, its errno and detail "
		      "win (end %d err %d)", names[i], a->end, a->end_err);
		w->result_free(x);
		w->result_free(y);
		free(x);
		free(y);
	}
}

int main(void)
{
	char a[4200], b[4200], err[512];
	struct rr_result r;
	const struct rr_figure *f;
	unsigned n = 0;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	head_merge();
	CHECK(workload_register(&workload_nullio) == 0, "register");
	CHECK(workload_register(&workload_nullio) == -EEXIST, "a name is registered once");
	CHECK(workload_find("nullio") == &workload_nullio, "found by name");
	for (const struct workload_ops *w; (w = workload_at(n)); n++)
		CHECK(w->name && w->cmd && w->run && w->figs && w->check && w->defaults,
		      "workload %u (%s) has every required hook", n, w->name);
	CHECK(n >= 3 && workload_find("tiotest") && workload_find("fs_mark"), "registry walk: %u", n);

	/* repeats, JSON, cleanup between and after the runs */
	snprintf(a, sizeof(a), "%s/a.json", dir);
	CHECK(run_cmd(NULL, NULL, a, "3") == 0, "three runs exit 0");
	CHECK(files_in(dir, "nullio.") == 0, "every run's marker file removed");
	CHECK(rr_load_file(a, &r, err, sizeof(err)) == 0, "the generic JSON loads: %s", err);
	CHECK(r.nruns == 3 && r.ncomplete == 3, "runs %u complete %u", r.nruns, r.ncomplete);
	f = rr_find(&r, "ops_per_s");
	CHECK(f && f->rate && f->key_fig && f->v[0] > 0 && f->v[2] > 0, "ops_per_s per run");
	f = rr_find(&r, "latency_mean_ns");
	CHECK(f && fabs(f->v[1] - 500.5) < 1e-6 && f->dir == RR_LOWER_BETTER, "latency mean %g",
	      f ? f->v[1] : -1);
	rr_free(&r);

	/* the first error stops the repeats, the JSON says which run, nothing is left */
	snprintf(b, sizeof(b), "%s/b.json", dir);
	CHECK(run_cmd("--fail-run", "2", b, "3") == EXIT_FAILED, "a failing run exits 1");
	CHECK(files_in(dir, "nullio.") == 0, "the failed run's marker removed");
	CHECK(rr_load_file(b, &r, err, sizeof(err)) == 0, "failed result loads: %s", err);
	CHECK(r.nruns == 2 && r.ncomplete == 1 && r.incomplete_reason, "2 runs, 1 complete: %u %u",
	      r.nruns, r.ncomplete);
	rr_free(&r);

	/* --keep: the last run's marker stays (and only it) */
	CHECK(run_cmd("--keep", NULL, NULL, "2") == 0, "--keep exit 0");
	CHECK(files_in(dir, "nullio.1") == 1 && files_in(dir, "nullio.0") == 0, "--keep keeps the last");
	snprintf(err, sizeof(err), "%s/nullio.1", dir);
	unlink(err);

	/* bad input: exit 2 before anything runs */
	{
		char *argv[] = { (char *)"nullio", (char *)"--dir", (char *)"/nonexistent/x", NULL };

		CHECK(cmd_workload(&workload_nullio, 3, argv, "nullio") == EXIT_USAGE, "bad --dir exit 2");
	}

	/* compare reads two generic results */
	{
		char *argv[] = { (char *)"compare", a, b, NULL };

		CHECK(cmd_compare(3, argv, "fsbench compare") == 0, "compare a b");
	}

	/* hooks and merging, through the driver itself */
	{
		struct nullio_config c;
		struct driver d = { .w = &workload_nullio, .cfg = &c, .opts = &c.run,
				    .hooks = { .release = count_release, .prepare_run = count_prepare } };
		struct driver_result r1, r2;
		const struct nullio_result *x;

		nullio_defaults(&c);
		c.dir = dir;
		c.run.repeat = 3;
		CHECK(driver_run(&d, &r1) == 0, "driver_run");
		CHECK(r1.nruns == 2 && prepares == 3 && releases == 2, "prepare-run stops the third run: "
		      "runs %u prepares %u releases %u", r1.nruns, prepares, releases);
		CHECK(r1.failed && r1.error.err == EBUSY, "the hook's failure is the first error");
		driver_finish(&workload_nullio, &r1, false);
		d.hooks = (struct driver_hooks){ 0 };
		c.run.repeat = 2;
		CHECK(driver_run(&d, &r2) == 0 && r2.nruns == 2 && !r2.failed, "a second driver_run in "
		      "the same process starts clean");
		driver_finish(&workload_nullio, &r2, false);
		r1.nruns = 2;
		CHECK(driver_result_merge(&workload_nullio, &r1, &r2) == 0, "merge");
		x = driver_result_run(&workload_nullio, &r1, 0);
		CHECK(x->st.ops == 4 * c.ops && x->st.lat.count == 4 * c.ops, "merged counts: %llu",
		      (unsigned long long)x->st.ops);
		driver_result_free(&workload_nullio, &r1);
		driver_result_free(&workload_nullio, &r2);
		CHECK(files_in(dir, "nullio.") == 0, "driver_finish removed the markers");
	}
	/* the stonewall: phases of "endless" workers end at the deadline, each run completes, the
	 * next one runs; a stop it raised does not outlive its phase */
	{
		struct nullio_config c;
		struct driver d = { .w = &workload_nullio, .cfg = &c, .opts = &c.run,
				    .stonewall_ns = 50000000, .hooks = { .phase_end = count_phase_end } };
		struct driver_result res;
		const struct nullio_result *x;

		nullio_defaults(&c);
		c.dir = dir;
		c.ops = UINT64_C(1) << 50;
		c.run.repeat = 2;
		CHECK(driver_run(&d, &res) == 0, "driver_run");
		CHECK(res.nruns == 2 && !res.failed && !res.signal, "two complete runs: %u", res.nruns);
		CHECK(phase_ends == 2 && stonewalled == 2, "phase_end saw %u phases, %u stonewalled",
		      phase_ends, stonewalled);
		x = driver_result_run(&workload_nullio, &res, 1);
		CHECK(x->head.complete && x->st.ops > 0 && x->st.ops < c.ops, "the second run did work "
		      "and stopped: %llu ops", (unsigned long long)x->st.ops);
		CHECK(!run_stopping(), "no stop left after the stonewall");
		driver_finish(&workload_nullio, &res, false);
		driver_result_free(&workload_nullio, &res);
	}
	unlink(a);
	unlink(b);
	rmdir(dir);
	return check_done("test_driver");
}
