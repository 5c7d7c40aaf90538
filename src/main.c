/* fsbench: the workloads (from their registry, workload/registry.c) and the table of the other
 * subcommands, and dispatch on argv[0] so that a link named after a classic tool (tiotest)
 * behaves exactly as that tool's subcommand. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/clock.h"
#include "workload/workload.h"

struct subcmd {
	const char *name;
	int (*fn)(int argc, char **argv, const char *prog);
	const char *summary;
	bool hidden;
};

static const struct subcmd subcmds[] = {
	{ "compare", cmd_compare, "results side by side: deltas, 95% intervals, significance, what differs", false },
	{ "plot", cmd_plot, "draw results to PNG or SVG: fill curves, timelines, latency CDFs, bars", false },
	{ "__man-options", cmd_man_options, "print a subcommand's options as man page text (build use)", true },
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

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const struct workload_ops *w;
	char prog[64];

	base = base ? base + 1 : argv[0];
	clock_init();
	if ((w = workload_find(base)) && !w->hidden)
		return cmd_workload(w, argc, argv, w->name);
	for (size_t i = 0; i < NSUBCMDS; i++)
		if (!subcmds[i].hidden && !strcmp(base, subcmds[i].name))
			return subcmds[i].fn(argc, argv, subcmds[i].name);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("fsbench %s\n", FSB_VERSION);
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
		snprintf(prog, sizeof(prog), "fsbench %s", w->name);
		return cmd_workload(w, argc - 1, argv + 1, prog);
	}
	for (size_t i = 0; i < NSUBCMDS; i++) {
		if (strcmp(argv[1], subcmds[i].name))
			continue;
		snprintf(prog, sizeof(prog), "fsbench %s", subcmds[i].name);
		return subcmds[i].fn(argc - 1, argv + 1, prog);
	}
	fprintf(stderr, "fsbench: unknown command '%s' (try 'fsbench --help')\n", argv[1]);
	return EXIT_USAGE;
}
