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

void compare_options(bool list, FILE *out);
void plot_options(bool list, FILE *out);
void matrix_options(bool list, FILE *out);
void report_options(bool list, FILE *out);
void explain_options(bool list, FILE *out);
void export_options(bool list, FILE *out);
void history_options(bool list, FILE *out);

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

int cmd_man_options(int argc, char **argv, const char *prog)
{
	bool list = argc == 3 && !strcmp(argv[2], "--list");
	const struct workload_ops *w;

	if (argc == 2 && !strcmp(argv[1], "--figures")) {
		figure_keys(stdout);
		return EXIT_OK;
	}
	if (argc < 2 || argc > 3 || (argc == 3 && !list)) {
		fprintf(stderr, "%s: usage: fsbench __man-options COMMAND [--list] | --figures\n", prog);
		return EXIT_USAGE;
	}
	if ((w = workload_find(argv[1]))) {
		void *cfg = calloc(1, w->config_size);

		if (!cfg)
			return EXIT_FAILED;
		w->defaults(cfg);
		if (list)
			opt_text_list(w->cmd, stdout);
		else
			opt_text_man(w->cmd, cfg, stdout);
		free(cfg);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "matrix")) {
		matrix_options(list, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "mpi")) {
		/* fsbench-mpi's own options, for the man page's MPI section */
		struct job_opts o;

		job_opts_defaults(&o);
		if (list)
			opt_text_list(&job_opt_cmd, stdout);
		else
			opt_text_man(&job_opt_cmd, &o, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "compare") || !strcmp(argv[1], "plot")) {
		(argv[1][0] == 'c' ? compare_options : plot_options)(list, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "report") || !strcmp(argv[1], "history")) {
		(argv[1][0] == 'r' ? report_options : history_options)(list, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "explain")) {
		explain_options(list, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "export")) {
		export_options(list, stdout);
		return EXIT_OK;
	}
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	return EXIT_USAGE;
}
