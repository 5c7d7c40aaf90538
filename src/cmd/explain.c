/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench explain DIR [CELL_A CELL_B]: a matrix result directory's Why on the terminal
 * (report/matrix_why.h): for each primary effect, decided or undecided, what changed most with
 * it. Writes nothing. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/opt.h"
#include "report/matrix_report.h"
#include "report/opt_text.h"

struct explain_config {
	int help;
};

#define F(x) offsetof(struct explain_config, x)
static const struct opt explain_opts[] = {
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help" },
	{ 0 },
};

static const struct opt_cmd explain_cmd = {
	.name = "explain",
	.summary =
		"For each primary effect of a matrix result directory (DIR after the options, then optionally two\n"
		"cells' names), decided or undecided: the cost-per-op figures and profile symbols that changed most.",
	.opts = explain_opts,
};

const struct cmd_options explain_options = { &explain_cmd, sizeof(struct explain_config), NULL };

int cmd_explain(int argc, char **argv, const char *prog)
{
	struct explain_config c = { 0 }, defaults = { 0 };
	const char *ops[4];
	char **opts = calloc((size_t)argc + 1, sizeof(char *));
	char err[1024];
	int nopts, nops, rc;

	if (!opts) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAILED;
	}
	if (cmd_split_operands(&explain_cmd, argc, argv, opts, &nopts, ops, &nops, 3, err, sizeof(err)) ||
	    opt_parse(&explain_cmd, nopts, opts, &c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, !strncmp(err, "more than", 9) ? "DIR and at most two cells" : err);
		free(opts);
		return EXIT_USAGE;
	}
	free(opts);
	if (c.help) {
		opt_text_help(&explain_cmd, &defaults, prog, stdout);
		printf("\nExit status: 0; 2 on a bad command line, a directory that is not a readable matrix result or a\n"
		       "cell it does not have; 3 when no primary effect is decided better or worse or undecided (each\n"
		       "equivalent or without an estimate: nothing to explain).\n");
		return EXIT_OK;
	}
	if (nops != 1 && nops != 3) {
		fprintf(stderr, "%s: needs the matrix result directory, and optionally two cells (usage: %s DIR "
			"[CELL_A CELL_B])\n", prog, prog);
		return EXIT_USAGE;
	}
	rc = matrix_explain(ops[0], nops == 3 ? ops[1] : NULL, nops == 3 ? ops[2] : NULL, stdout, err, sizeof(err));
	if (rc == -ENODATA)
		return EXIT_UNSUPPORTED;
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
	}
	return EXIT_OK;
}
