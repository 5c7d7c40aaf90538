/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench __man-options CMD: the options table as man page text, spliced into fsbench.1 at
 * build time so the man page cannot drift from the table. Also --list for tests and the shell
 * completion (scripts/mkcompletion.sh), and --figures: the declared figure keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/job_opts.h"
#include "core/figure.h"
#include "core/opt.h"
#include "report/opt_text.h"
#include "workload/workload.h"

/* Every workload's declared figure keys, one a line, sorted and unique by the caller: a run's
 * and an iteration's as they are, a group's (a phase's) as ".KEY" since the history database
 * prefixes them with the group's name ("write.latency_p99_ns"). */
static void figure_keys(FILE *out)
{
	const struct workload_ops *w;

	for (unsigned i = 0; (w = workload_at(i)); i++) {
		const struct figure_set *s = w->figs;

		if (w->hidden || !s)
			continue;
		for (unsigned k = 0; k < s->nrun; k++)
			fprintf(out, "%s\n", s->run[k].key);
		for (unsigned k = 0; k < s->niter; k++)
			fprintf(out, "%s\n", s->iter[k].key);
		for (unsigned k = 0; k < s->ngroup; k++)
			fprintf(out, ".%s\n", s->group[k].key);
	}
}

/* One command's options: the man page text with its defaults, or (list) the names alone. */
static int print_options(const struct cmd_options *o, bool list)
{
	void *cfg = calloc(1, o->config_size ? o->config_size : 1);

	if (!cfg)
		return EXIT_FAILED;
	if (o->defaults)
		o->defaults(cfg);
	if (list)
		opt_text_list(o->cmd, stdout);
	else
		opt_text_man(o->cmd, cfg, stdout);
	free(cfg);
	return EXIT_OK;
}

static void job_defaults_any(void *o)
{
	job_opts_defaults(o);
}

/* fsbench-mpi's own options, for the man page's MPI section: not a command of fsbench's */
static const struct cmd_options mpi_options = { &job_opt_cmd, sizeof(struct job_opts), job_defaults_any };

int cmd_man_options(int argc, char **argv, const char *prog)
{
	bool list = argc == 3 && !strcmp(argv[2], "--list");
	const struct workload_ops *w;
	const struct subcmd *s;

	if (argc == 2 && !strcmp(argv[1], "--figures")) {
		figure_keys(stdout);
		return EXIT_OK;
	}
	if (argc < 2 || argc > 3 || (argc == 3 && !list)) {
		fprintf(stderr, "%s: usage: fsbench __man-options COMMAND [--list] | --figures\n", prog);
		return EXIT_USAGE;
	}
	if ((w = workload_find(argv[1])))
		return print_options(&(struct cmd_options){ w->cmd, w->config_size, w->defaults }, list);
	if ((s = subcmd_find(argv[1])) && s->opts)
		return print_options(s->opts, list);
	if (!strcmp(argv[1], "mpi"))
		return print_options(&mpi_options, list);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	return EXIT_USAGE;
}
