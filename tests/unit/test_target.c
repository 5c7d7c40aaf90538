/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workload/target.c: every registered workload's directories come from the one option its
 * table flags OPT_F_TARGET: the kernel view's targets (a missing directory: its nearest
 * existing parent), fsbench-mpi's per-process list, and the option fsbench matrix supplies. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "workload/workload.h"

/* a workload that declares nothing but its target list, registered like a test's */
struct tw_config {
	struct opt_strs where;
	bool devices;
	int help;
};

#define F(x) offsetof(struct tw_config, x)
static const struct opt tw_opts[] = {
	{ 'w', "where", OPT_STRS, F(where), "DIR", 0, 0, OPT_F_TARGET, OPT_LIST_MAX, "directories" },
	{ 'B', "block", OPT_FLAG, F(devices), NULL, 0, 0, OPT_F_NAMES_DEVICES, 0, "devices instead" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "help" },
	{ 0 },
};
#undef F

static const struct opt_cmd tw_cmd = { .name = "targetonly", .summary = "test", .opts = tw_opts };

static void tw_defaults(void *cfg)
{
	memset(cfg, 0, sizeof(struct tw_config));
}

static const struct workload_ops workload_targetonly = {
	.name = "targetonly", .summary = "test: a target declaration only", .cmd = &tw_cmd,
	.config_size = sizeof(struct tw_config), .defaults = tw_defaults, .hidden = true,
};

static char top[] = "/tmp/fsbench-test-target.XXXXXX";

/* the workload's config with its target option set to dir (and extra, when given); the
 * values point into argv, which therefore outlives the config */
static void *config_with(const struct workload_ops *w, const char *dir, const char *extra)
{
	static char args[16][512];
	static unsigned nargs;
	const struct opt *t = workload_target_opt(w);
	void *cfg = calloc(1, w->config_size);
	char *arg = args[nargs++ % 16], err[512];
	char *argv[] = { (char *)w->name, arg, (char *)extra, NULL };

	snprintf(arg, sizeof(args[0]), "--%s=%s", t->lname, dir);
	w->defaults(cfg);
	if (opt_parse(w->cmd, extra ? 3 : 2, argv, cfg, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", w->name, err);
		free(cfg);
		return NULL;
	}
	return cfg;
}

static void nearest_table(void)
{
	static const struct { const char *in, *out; } t[] = {
		{ "/", "/" },
		{ ".", "." },
		{ "", "." },
		{ "/nonexistent-fsbench-x/y", "/" },
		{ "nonexistent-fsbench-x", "." },
		{ "nonexistent-fsbench-x/y//", "." },
		{ "/tmp", "/tmp" },
		{ "/tmp/nonexistent-fsbench-x/a/b/", "/tmp" },
		{ "/tmp///", "/tmp///" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char p[256];

		snprintf(p, sizeof(p), "%s", t[i].in);
		workload_nearest_existing(p);
		CHECK(!strcmp(p, t[i].out), "'%s' -> '%s', not '%s'", t[i].in, p, t[i].out);
	}
}

/* One workload: the targets, the per-process list and the matrix's option from its table. */
static void one_workload(const struct workload_ops *w, const char *device_flag)
{
	const struct opt *t = workload_target_opt(w);
	char missing[256], *buf = NULL;
	const char *out[OPT_LIST_MAX];
	struct opt_strs *l;
	void *cfg;
	int n, rc;

	CHECK(t && t->lname && (t->type == OPT_STR || t->type == OPT_STRS),
	      "%s declares a target option", w->name);
	if (!t || !t->lname)
		return;
	snprintf(missing, sizeof(missing), "%s/%s/not/yet", top, w->name);
	if (!(cfg = config_with(w, missing, NULL))) {
		CHECK(0, "%s takes --%s", w->name, t->lname);
		return;
	}
	n = workload_targets(w, cfg, out, OPT_LIST_MAX, &buf);
	CHECK(n == 1 && !strcmp(out[0], top), "%s: a missing --%s is seen at its nearest existing "
	      "parent: %d '%s'", w->name, t->lname, n, n > 0 ? out[0] : "");
	CHECK(!workload_names_devices(w, cfg), "%s: directories by default", w->name);
	rc = workload_rank_dirs(w, cfg, &l);
	if (opt_flags(t) & OPT_F_TARGET_SHARED)
		CHECK(rc == 0 && !l, "%s: the job's processes share --%s", w->name, t->lname);
	else if (t->type == OPT_STRS)
		CHECK(rc == 0 && l == (struct opt_strs *)((char *)cfg + t->off) && l->n == 1 &&
		      !strcmp(l->v[0], missing), "%s: fsbench-mpi rewrites the --%s list", w->name,
		      t->lname);
	else
		CHECK(rc == -ENOTDIR, "%s: one --%s, not shared: no per-process directories", w->name,
		      t->lname);
	free(buf);
	free(cfg);
	if (!device_flag)
		return;
	/* the devices flag: named as given, never a parent; no per-process directories */
	cfg = config_with(w, "/dev/fsbench-no-such-device", device_flag);
	CHECK(cfg != NULL, "%s takes %s", w->name, device_flag);
	if (!cfg)
		return;
	n = workload_targets(w, cfg, out, OPT_LIST_MAX, &buf);
	CHECK(workload_names_devices(w, cfg) && n == 1 && !strcmp(out[0], "/dev/fsbench-no-such-device"),
	      "%s %s: the device as named", w->name, device_flag);
	CHECK(workload_rank_dirs(w, cfg, &l) == -ENOTDIR, "%s %s: no per-process directories",
	      w->name, device_flag);
	free(buf);
	free(cfg);
}

int main(void)
{
	static const struct { const char *name, *device_flag; } builtin[] = {
		{ "tiotest", "-R" }, { "fs_mark", NULL }, { "mdtest", NULL }, { "targetonly", "-B" },
	};
	const struct workload_ops *w;
	unsigned n = 0;

	CHECK(mkdtemp(top) != NULL, "mkdtemp");
	nearest_table();
	CHECK(workload_register(&workload_targetonly) == 0, "register");
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++) {
		w = workload_find(builtin[i].name);
		CHECK(w != NULL, "%s is registered", builtin[i].name);
		if (w)
			one_workload(w, builtin[i].device_flag);
	}
	/* and every workload registered at all: one target option, or none (then no matrix) */
	for (; (w = workload_at(n)); n++) {
		unsigned ntarget = 0;

		for (const struct opt *o = w->cmd->opts; !opt_is_end(o); o++)
			ntarget += (opt_flags(o) & OPT_F_TARGET) && (o->type == OPT_STR || o->type == OPT_STRS);
		CHECK(ntarget <= 1, "%s flags %u target options", w->name, ntarget);
		CHECK(!workload_target_opt(w) == !ntarget, "%s: the target option is the flagged one",
		      w->name);
	}
	CHECK(n >= 4, "registry walk: %u", n);
	rmdir(top);
	return check_done("test_target");
}
