/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench export --openmetrics FILE DIR|RESULT...: results' figures for a monitoring stack
 * (node_exporter's textfile collector). A directory is a matrix result (each cell's runs as
 * one result, labelled with the cell); a file is any result fsbench wrote. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/outputs.h"
#include "core/opt.h"
#include "core/quote.h"
#include "report/matrix_read.h"
#include "report/openmetrics.h"
#include "report/opt_text.h"
#include "report/result_read.h"

#define EXPORT_MAX 1000

struct export_config {
	const char *openmetrics;
	int help;
};

#define F(x) offsetof(struct export_config, x)
static const struct opt export_opts[] = {
	{ 0, "openmetrics", OPT_STR, F(openmetrics), "FILE", 0, 0, 0, 0,
	  "write OpenMetrics text to FILE ('-': stdout): one gauge per figure, "
	  "fsbench_<figure>_<unit>{workload,fs,cell,phase}, in base units (seconds, bytes, ratio); "
	  "for node_exporter's textfile collector" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help" },
	{ 0 },
};
#undef F

static const struct opt_cmd export_cmd = {
	.name = "export",
	.summary = "Export results (DIR|RESULT... after the options: matrix result directories, result files)\n"
		   "for other tools. Each figure is the mean over a result's runs (harmonic for rates).",
	.opts = export_opts,
};

const struct cmd_options export_options = { &export_cmd, sizeof(struct export_config), NULL };

struct export_ctx {
	struct om_item item[EXPORT_MAX];
	unsigned n;
	struct rr_result *res;           /* the files loaded, EXPORT_MAX */
	unsigned nres;
	struct mx *mx;                   /* the directories loaded, EXPORT_MAX */
	unsigned nmx;
};

static const char *fstype(const struct rr_result *r)
{
	const struct rr_fact *f = rr_fact_find(r, "environment.targets[0].fstype");

	return f ? f->value : NULL;
}

static int add(struct export_ctx *x, const struct rr_result *r, const char *cell, const char *result)
{
	if (x->n == EXPORT_MAX)
		return -E2BIG;
	x->item[x->n++] = (struct om_item){ .r = r, .fs = fstype(r), .cell = cell, .result = result };
	return 0;
}

/* one operand: 0, or EXIT_USAGE after its one line */
static int load(const char *prog, struct export_ctx *x, const char *path)
{
	char err[1024], q[QUOTE_MAX];
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		struct mx *m = &x->mx[x->nmx++];

		if (mread_load(path, false, m, err, sizeof(err))) {
			fprintf(stderr, "%s: '%s': %s\n", prog, quote_str(path, q, sizeof(q)), err);
			return EXIT_USAGE;
		}
		for (unsigned c = 0; c < m->ncells; c++)
			if (m->cell[c].nrun && add(x, &m->cell[c].merged, m->cell[c].name, NULL))
				goto many;
		return 0;
	}
	if (rr_load_file(path, &x->res[x->nres], err, sizeof(err))) {
		rr_free(&x->res[x->nres]);
		fprintf(stderr, "%s: '%s': %s\n", prog, quote_str(path, q, sizeof(q)), err);
		return EXIT_USAGE;
	}
	x->nres++;
	if (add(x, &x->res[x->nres - 1], NULL, x->res[x->nres - 1].name))
		goto many;
	return 0;
many:
	fprintf(stderr, "%s: more than %d results\n", prog, EXPORT_MAX);
	return EXIT_USAGE;
}

int cmd_export(int argc, char **argv, const char *prog)
{
	struct export_config c = { 0 };
	struct export_ctx *x = calloc(1, sizeof(*x));
	const char **ops = calloc((size_t)argc + 1, sizeof(char *));
	char **opts = calloc((size_t)argc + 1, sizeof(char *));
	char err[1024];
	int nopts, nops, code = EXIT_OK;
	struct outfile *of;

	if (!x || !ops || !opts || !(x->res = calloc(EXPORT_MAX, sizeof(*x->res))) ||
	    !(x->mx = calloc(EXPORT_MAX, sizeof(*x->mx)))) {
		fprintf(stderr, "%s: out of memory\n", prog);
		code = EXIT_FAILED;
		goto out;
	}
	if (cmd_split_operands(&export_cmd, argc, argv, opts, &nopts, ops, &nops, EXPORT_MAX, err, sizeof(err)) ||
	    opt_parse(&export_cmd, nopts, opts, &c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		code = EXIT_USAGE;
		goto out;
	}
	if (c.help) {
		opt_text_help(&export_cmd, &(struct export_config){ 0 }, prog, stdout);
		printf("\nExit status: 0; 1 when the output cannot be written; 2 on a bad command line or a\n"
		       "result or directory that cannot be read.\n");
		goto out;
	}
	if (!c.openmetrics || !nops) {
		fprintf(stderr, "%s: usage: %s --openmetrics FILE DIR|RESULT...\n", prog, prog);
		code = EXIT_USAGE;
		goto out;
	}
	if ((code = outputs_check(prog, &(const struct outputs_dest){ "--openmetrics", c.openmetrics,
								     OUTFILE_REPLACE }, 1)))
		goto out;
	for (int i = 0; i < nops && !code; i++)
		code = load(prog, x, ops[i]);
	if (code)
		goto out;
	if (!(of = outputs_open(prog, c.openmetrics, OUTFILE_REPLACE))) {
		code = EXIT_FAILED;
		goto out;
	}
	if (om_write(of->f, x->item, x->n)) {
		int rc = outfile_error(of) ? outfile_error(of) : -EIO;

		outfile_abort(of);
		fprintf(stderr, "%s: cannot write '%s': %s\n", prog, c.openmetrics, strerror(-rc));
		code = EXIT_FAILED;
	} else if (outputs_commit(prog, of, c.openmetrics)) {
		code = EXIT_FAILED;
	}
out:
	if (x) {
		for (unsigned i = 0; i < x->nres; i++)
			rr_free(&x->res[i]);
		for (unsigned i = 0; i < x->nmx; i++)
			mread_free(&x->mx[i]);
		free(x->res);
		free(x->mx);
	}
	free(x);
	free(ops);
	free(opts);
	return code;
}
