/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench: the workloads (from their registry, workload/registry.c) and the table of the other
 * subcommands, and dispatch on argv[0] so that a link named after a classic tool (tiotest)
 * behaves exactly as that tool's subcommand. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/clock.h"
#include "core/outfile.h"
#include "core/quote.h"
#include "workload/workload.h"

struct subcmd {
	const char *name;
	int (*fn)(int argc, char **argv, const char *prog);
	const char *summary;
	bool hidden;
};

static const struct subcmd subcmds[] = {
	{ "compare", cmd_compare, "results side by side: deltas, 95% intervals, significance, what differs", false },
	{ "matrix", cmd_matrix, "an experiment: a workload over filesystems, options and knobs on fresh images, interleaved", false },
	{ "plot", cmd_plot, "draw results to PNG or SVG: fill curves, timelines, latency CDFs, bars", false },
	{ "report", cmd_report, "analyse a matrix result directory: effects, interactions, plots, report.html", false },
	{ "explain", cmd_explain, "why a matrix's cells differ: cost per op and profile symbols of each decided effect", false },
	{ "export", cmd_export, "results as OpenMetrics text for a monitoring stack (node_exporter's textfile collector)", false },
	{ "history", cmd_history, "matrix runs over time: list, show, trend, check for regressions", false },
	{ "__man-options", cmd_man_options, "print a subcommand's options as man page text (build use)", true },
	{ "__after", cmd_after, "the after-run tools on a device: fsck (read-only checker), freespace (free extent histogram)", true },
};

#define NSUBCMDS (sizeof(subcmds) / sizeof(subcmds[0]))

static void usage(FILE *out)
{
	const struct workload_ops *w;

	fprintf(out, "usage: fsbench COMMAND [OPTION]...\n"
		     "A filesystem benchmark suite. Commands:\n\n");
	for (unsigned i = 0; (w = workload_at(i)); i++)
		if (!w->hidden)
			fprintf(out, "  %-12s %s\n", w->name, w->summary);
	for (size_t i = 0; i < NSUBCMDS; i++)
		if (!subcmds[i].hidden)
			fprintf(out, "  %-12s %s\n", subcmds[i].name, subcmds[i].summary);
	fprintf(out, "\n'fsbench COMMAND --help' describes a command's options; fsbench(1) has the rest.\n"
		     "Invoked through a link named after a command (tiotest), fsbench runs that command.\n");
}

/* The subcommand (prog: how to name it in messages) and its exit status. */
static int dispatch(int argc, char **argv, const char **prog)
{
	static char name[64];
	const char *base = strrchr(argv[0], '/');
	const struct workload_ops *w;

	base = base ? base + 1 : argv[0];
	if ((w = workload_find(base)) && !w->hidden) {
		*prog = w->name;
		return cmd_workload(w, argc, argv, w->name);
	}
	for (size_t i = 0; i < NSUBCMDS; i++)
		if (!subcmds[i].hidden && !strcmp(base, subcmds[i].name)) {
			*prog = subcmds[i].name;
			return subcmds[i].fn(argc, argv, subcmds[i].name);
		}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		/* the build's `git describe`, or "release" outside a git tree (Makefile) */
		printf("fsbench %s (%s)\n", FSB_VERSION, FSB_COMMIT);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "list")) {
		if (argc > 2)
			return cmd_list(argc - 1, argv + 1, "fsbench list");
		/* every command: the workloads, then the others */
		for (unsigned i = 0; (w = workload_at(i)); i++)
			if (!w->hidden)
				printf("%s\n", w->name);
		for (size_t i = 0; i < NSUBCMDS; i++)
			if (!subcmds[i].hidden)
				printf("%s\n", subcmds[i].name);
		return EXIT_OK;
	}
	if ((w = workload_find(argv[1]))) {
		snprintf(name, sizeof(name), "fsbench %s", w->name);
		*prog = name;
		return cmd_workload(w, argc - 1, argv + 1, name);
	}
	for (size_t i = 0; i < NSUBCMDS; i++) {
		if (strcmp(argv[1], subcmds[i].name))
			continue;
		snprintf(name, sizeof(name), "fsbench %s", subcmds[i].name);
		*prog = name;
		return subcmds[i].fn(argc - 1, argv + 1, name);
	}
	fprintf(stderr, "fsbench: unknown command '%s' (try 'fsbench --help')\n",
		quote_str(argv[1], name, sizeof(name)));
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *prog = "fsbench";
	int code, rc;

	/* before anything is opened: a closed 0, 1 or 2 must not become a log file */
	if ((rc = outfile_std_fds())) {
		fprintf(stderr, "fsbench: cannot open /dev/null for a closed standard descriptor: %s\n",
			strerror(-rc));
		return EXIT_FAILED;
	}
	clock_init();
	code = dispatch(argc, argv, &prog);
	/* results on standard output that did not get there are a failed run, never exit 0;
	 * EPIPE (| head) is said by the status alone */
	rc = outfile_close_stdout();
	if (rc && rc != -EPIPE)
		fprintf(stderr, "%s: cannot write standard output: %s\n", prog, strerror(-rc));
	if (rc && code == EXIT_OK)
		code = EXIT_FAILED;
	return code;
}
