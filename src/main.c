/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench: the workloads (from their registry, workload/registry.c) and the table of the other
 * subcommands, and dispatch on argv[0] so that a link named after a classic tool (tiotest)
 * behaves exactly as that tool's subcommand. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/outfile.h"
#include "core/quote.h"
#include "workload/workload.h"

static void usage(FILE *out)
{
	const struct workload_ops *w;
	const struct subcmd *s;

	fprintf(out, "usage: fsbench COMMAND [OPTION]...\n"
		     "A filesystem benchmark suite. Commands:\n\n");
	for (unsigned i = 0; (w = workload_at(i)); i++)
		if (!w->hidden)
			fprintf(out, "  %-12s %s\n", w->name, w->summary);
	for (unsigned i = 0; (s = subcmd_at(i)); i++)
		if (!s->hidden)
			fprintf(out, "  %-12s %s\n", s->name, s->summary);
	fprintf(out, "\n'fsbench COMMAND --help' describes a command's options; fsbench(1) has the rest.\n"
		     "Invoked through a link named after a command (tiotest), fsbench runs that command.\n");
}

/* The subcommand (prog: how to name it in messages) and its exit status. */
static int dispatch(int argc, char **argv, const char **prog)
{
	static char name[64];
	const char *base = strrchr(argv[0], '/');
	const struct workload_ops *w;
	const struct subcmd *s;

	base = base ? base + 1 : argv[0];
	if ((w = workload_find(base)) && !w->hidden) {
		*prog = w->name;
		return cmd_workload(w, argc, argv, w->name);
	}
	if ((s = subcmd_find(base)) && !s->hidden) {
		*prog = s->name;
		return s->fn(argc, argv, s->name);
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
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1, "fsbench list");
	if ((w = workload_find(argv[1]))) {
		snprintf(name, sizeof(name), "fsbench %s", w->name);
		*prog = name;
		return cmd_workload(w, argc - 1, argv + 1, name);
	}
	if ((s = subcmd_find(argv[1]))) {
		snprintf(name, sizeof(name), "fsbench %s", s->name);
		*prog = name;
		return s->fn(argc - 1, argv + 1, name);
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
