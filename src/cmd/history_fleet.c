/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench history import DB... and export: a fleet's history, merged by each run's content
 * hash (report/history_fleet.c), and the runs as JSON Lines for other tools. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/history_int.h"
#include "cmd/outputs.h"
#include "core/quote.h"

int hist_import(struct history *h, const struct hist_config *c, const char *prog)
{
	struct history_import tot = { 0 };
	char err[1024], q[QUOTE_MAX];

	for (unsigned i = 0; i < c->nargs; i++) {
		struct history_import st = { 0 };

		if (history_import_db(h, c->args[i], &st, err, sizeof(err))) {
			fprintf(stderr, "%s: import '%s': %s\n", prog, quote_str(c->args[i], q, sizeof(q)), err);
			return EXIT_FAILED;
		}
		printf("%s: %u run%s added (%u new experiment%s), %u already there", quote_str(c->args[i], q, sizeof(q)),
		       st.runs_added, st.runs_added == 1 ? "" : "s", st.exps_added, st.exps_added == 1 ? "" : "s",
		       st.runs_same);
		if (st.runs_differ)
			printf(", %u kept as they were (the same run recorded with other content)", st.runs_differ);
		printf("\n");
		tot.runs_added += st.runs_added;
		tot.runs_same += st.runs_same;
		tot.runs_differ += st.runs_differ;
	}
	if (c->nargs > 1)
		printf("in all: %u runs added, %u already there\n", tot.runs_added, tot.runs_same);
	return EXIT_OK;
}

int hist_export(struct history *h, const struct hist_config *c, const char *prog)
{
	struct history_sel sel;
	struct outfile *of = NULL;
	FILE *out = stdout;
	unsigned n;
	char err[512];

	hist_sel(c, &sel);
	if (c->output && !outfile_is_stdout(c->output)) {
		if (!(of = outputs_open(prog, c->output, OUTFILE_REPLACE)))
			return EXIT_FAILED;
		out = of->f;
	}
	if (history_export(h, &sel, out, &n, err, sizeof(err))) {
		if (of)
			outfile_abort(of);
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_FAILED;
	}
	if (of && outputs_commit(prog, of, c->output))
		return EXIT_FAILED;
	fprintf(stderr, "%s: %u run%s exported\n", prog, n, n == 1 ? "" : "s");
	return n ? EXIT_OK : EXIT_UNSUPPORTED;
}
