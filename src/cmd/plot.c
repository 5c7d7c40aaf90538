/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench plot: results drawn with cairo to PNG or SVG (by the -o extension). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd.h"
#include "cmd/outputs.h"
#include "core/opt.h"
#include "report/opt_text.h"
#include "report/json.h"
#include "core/quote.h"
#include "report/plot_cairo.h"
#include "report/result_read.h"
#include "core/stats.h"
#include "core/verdict.h"

#define PLOT_MAX_RESULTS 10

struct plot_config {
	const char *output;
	const char *type;
	const char *x;
	const char *title;
	const char *y;
	uint64_t smooth;
	uint64_t width, height;
	bool force;
	int help;
};

#define F(x) offsetof(struct plot_config, x)
static const struct opt plot_opts[] = {
	{ 'o', "output", OPT_STR, F(output), "FILE", 0, 0, 0, 0,
	  "the plot to write: FILE.png or FILE.svg (required)" },
	{ 't', "type", OPT_STR, F(type), "TYPE", 0, 0, 0, 0,
	  "fill (fs_mark files/sec against FSUse%), timeline (over time: MiB/s per tiotest phase, files/s over fs_mark's create loops), latency (distribution per phase), compare (key figures as bars with 95% intervals); default: fill for fs_mark, compare for several results, else timeline" },
	{ 0, "x", OPT_STR, F(x), "AXIS", 0, 0, 0, 0, "fill's x axis: fsuse or count (default: fsuse, or count when FSUse% hardly changes)" },
	{ 0, "y", OPT_STR, F(y), "FIGURE", 0, 0, 0, 0, "fill's y axis: files (fs_mark's files/sec, the threads' rates summed) or aggregate (files over the iteration's wall time)" },
	{ 0, "smooth", OPT_UINT, F(smooth), "N", 0, 100000, 0, 0, "fill: a moving median over N iterations (0: none)" },
	{ 0, "title", OPT_STR, F(title), "TEXT", 0, 0, 0, 0, "the title instead of one made from the type" },
	{ 0, "width", OPT_UINT, F(width), "PIXELS", 200, 10000, 0, 0, "image width" },
	{ 0, "height", OPT_UINT, F(height), "PIXELS", 200, 10000, 0, 0, "image height" },
	{ 0, "force", OPT_FLAG, F(force), NULL, 0, 0, 0, 0, "draw results of different workloads together" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help" },
	{ 0 },
};

const struct opt_cmd plot_cmd = {
	.name = "plot",
	.summary = "Draw results (JSON files of fsbench runs, RESULT... after the options) to PNG or SVG;\n"
		   "one line or bar colour per result, named by its --label or file name (results with one label\n"
		   "are one); a matrix directory DIR is each of its cells, DIR:CELL one cell.",
	.opts = plot_opts,
};

static void plot_defaults(struct plot_config *c)
{
	memset(c, 0, sizeof(*c));
	c->width = 1200;
	c->height = 800;
}

static void plot_defaults_any(void *c)
{
	plot_defaults(c);
}

const struct cmd_options plot_options = { &plot_cmd, sizeof(struct plot_config), plot_defaults_any };

/* fill: each result's median run by its files/sec figure (the one the y axis shows), drawn
 * bold; run 0 when the result lacks it */
static void median_runs(const struct rr_result *res, unsigned nres, bool agg, unsigned *bold)
{
	for (unsigned i = 0; i < nres; i++) {
		const struct rr_figure *f = rr_find(&res[i], agg ? "files_per_sec_aggregate" : "files_per_sec");
		int m = f ? stats_median_index(f->v, res[i].nruns) : -1;

		bold[i] = m < 0 ? 0 : (unsigned)m;
	}
}

/* compare: each result's key figures against the baseline's, decided by core/verdict as compare
 * decides them (unpaired; primary figures Holm, the others Benjamini-Hochberg); the decided
 * verdicts go on the bars */
static unsigned compare_marks(const struct rr_result *res, unsigned nres, struct plot_mark *marks,
			      unsigned max, char *note, size_t notelen)
{
	struct vd_test t[PLOT_MAX_RESULTS * 24];
	int dir[PLOT_MAX_RESULTS * 24];
	double *va, *vb;
	unsigned n = 0, maxruns = 1, m = 0;

	for (unsigned i = 0; i < nres; i++)
		maxruns = res[i].nruns > maxruns ? res[i].nruns : maxruns;
	va = malloc(maxruns * sizeof(double));
	vb = malloc(maxruns * sizeof(double));
	for (unsigned f = 0, nf = 0; va && vb && f < res[0].nfig && nf < 24; f++) {
		const struct rr_figure *a = &res[0].fig[f];
		unsigned na;

		if (!a->key_fig)
			continue;
		nf++;
		na = rr_values(&res[0], a, va);
		for (unsigned i = 1; i < nres && n < max && n < sizeof(t) / sizeof(t[0]); i++) {
			const struct rr_figure *b = rr_find(&res[i], a->key);
			unsigned nb = b ? rr_values(&res[i], b, vb) : 0;

			vd_compare(va, na, NULL, vb, nb, NULL, strcmp(a->unit, "%") != 0,
				   a->derived ? VD_FAM_NONE : a->primary ? VD_CONFIRMATORY : VD_EXPLORATORY, &t[n]);
			dir[n] = a->dir == RR_HIGHER_BETTER ? 1 : a->dir == RR_LOWER_BETTER ? -1 : 0;
			marks[n++] = (struct plot_mark){ a->key, i, "" };
		}
	}
	free(va);
	free(vb);
	vd_decide(t, n, &(struct vd_opts){ VD_ALPHA, VD_EQUIV_PCT });
	for (unsigned k = 0; k < n; k++) {
		m += t[k].tested;
		if (t[k].kind == VD_DIFFERENT || t[k].kind == VD_EQUIVALENT)
			marks[k].stars = vd_word(&t[k], dir[k]);
	}
	if (m)
		snprintf(note, notelen, "verdicts: ratios on the log scale, %u test%s (primary figures Holm, others "
			 "Benjamini-Hochberg); fsbench(1) STATISTICS", m, m == 1 ? "" : "s");
	else
		snprintf(note, notelen, "no verdicts: a result has a single run (--repeat N gives intervals and tests)");
	return n;
}

/* the options into po: 0, or EXIT_USAGE (said) */
static int plot_opts_of(const char *prog, const struct plot_config *c, struct plot_opts *po)
{
	const char *ext;
	char q[QUOTE_MAX];

	if (!c->output) {
		fprintf(stderr, "%s: option -o/--output is required (FILE.png or FILE.svg)\n", prog);
		return EXIT_USAGE;
	}
	ext = strrchr(c->output, '.');
	if (ext && !strcasecmp(ext, ".png")) {
		po->format = PLOT_PNG;
	} else if (ext && !strcasecmp(ext, ".svg")) {
		po->format = PLOT_SVG;
	} else {
		fprintf(stderr, "%s: option -o: '%s' ends in neither .png nor .svg\n", prog,
			quote_str(c->output, q, sizeof(q)));
		return EXIT_USAGE;
	}
	po->type = PLOT_AUTO;
	if (c->type) {
		unsigned t;

		for (t = PLOT_FILL; t <= PLOT_COMPARE && strcmp(c->type, plot_type_name[t]); t++)
			;
		if (t > PLOT_COMPARE) {
			fprintf(stderr, "%s: option --type: '%s' is not fill, timeline, latency or compare\n",
				prog, quote_str(c->type, q, sizeof(q)));
			return EXIT_USAGE;
		}
		po->type = (enum plot_type)t;
	}
	if (c->x && strcmp(c->x, "fsuse") && strcmp(c->x, "count")) {
		fprintf(stderr, "%s: option --x: '%s' is not fsuse or count\n", prog,
			quote_str(c->x, q, sizeof(q)));
		return EXIT_USAGE;
	}
	po->fill_x = !c->x ? 0 : !strcmp(c->x, "count") ? 2 : 1;
	if (c->y && strcmp(c->y, "files") && strcmp(c->y, "aggregate")) {
		fprintf(stderr, "%s: option --y: '%s' is not files or aggregate\n", prog,
			quote_str(c->y, q, sizeof(q)));
		return EXIT_USAGE;
	}
	po->fill_y = c->y && !strcmp(c->y, "aggregate");
	po->smooth = (unsigned)c->smooth;
	po->width = (unsigned)c->width;
	po->height = (unsigned)c->height;
	po->title = c->title;
	return 0;
}

int cmd_plot_ready(const char *prog)
{
	char err[512];

	if (!plot_load(err, sizeof(err)))
		return EXIT_OK;
	fprintf(stderr, "%s: cannot draw: %s\n", prog, err);
	return EXIT_UNSUPPORTED;
}

int cmd_plot(int argc, char **argv, const char *prog)
{
	struct plot_config c, defaults;
	struct plot_opts po = { 0 };
	struct rr_result res[PLOT_MAX_RESULTS];
	const char *files[PLOT_MAX_RESULTS];
	char **opts = calloc((size_t)argc + 1, sizeof(char *));
	char err[1024], q[QUOTE_MAX], note[160];
	struct plot_mark marks[PLOT_MAX_RESULTS * 24];
	unsigned bold[PLOT_MAX_RESULTS];
	int nopts, nfiles, code = EXIT_OK, rc;
	struct outfile *of;

	plot_defaults(&c);
	defaults = c;
	if (!opts) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAILED;
	}
	if (cmd_split_operands(&plot_cmd, argc, argv, opts, &nopts, files, &nfiles, PLOT_MAX_RESULTS, err,
			       sizeof(err)) || opt_parse(&plot_cmd, nopts, opts, &c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		free(opts);
		return EXIT_USAGE;
	}
	free(opts);
	if (c.help) {
		opt_text_help(&plot_cmd, &defaults, prog, stdout);
		return EXIT_OK;
	}
	if (!nfiles) {
		fprintf(stderr, "%s: no result to draw (usage: %s -o FILE.png RESULT...)\n", prog, prog);
		return EXIT_USAGE;
	}
	if ((rc = plot_opts_of(prog, &c, &po)) || (rc = cmd_plot_ready(prog)))
		return rc;
	if ((rc = outputs_check(prog, &(const struct outputs_dest){ "-o", c.output, OUTFILE_REPLACE }, 1)))
		return rc;
	if (cmd_load_results(prog, files, nfiles, res, PLOT_MAX_RESULTS, &nfiles))
		return EXIT_USAGE;
	if (cmd_group_labels(res, &nfiles)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		code = EXIT_FAILED;
		goto out;
	}
	for (int i = 1; i < nfiles && !c.force; i++)
		if (strcmp(res[i].workload, res[0].workload)) {
			fprintf(stderr, "%s: '%s' is a %s result, '%s' a %s result: refusing to draw different "
				"workloads together (--force)\n", prog, res[0].path, res[0].workload, res[i].path,
				res[i].workload);
			code = EXIT_USAGE;
			goto out;
		}
	median_runs(res, (unsigned)nfiles, po.fill_y, bold);
	po.bold_run = bold;
	po.bold_what = po.fill_y ? "median run by aggregate files/sec" : "median run by files/sec";
	po.nmarks = compare_marks(res, (unsigned)nfiles, marks, sizeof(marks) / sizeof(marks[0]), note, sizeof(note));
	po.marks = marks;
	po.marks_note = note;
	if (!(of = outputs_open(prog, c.output, OUTFILE_REPLACE))) {
		code = EXIT_FAILED;
		goto out;
	}
	rc = plot_render(res, (unsigned)nfiles, &po, of->f, err, sizeof(err));
	if (rc == -EIO) {
		/* the write's own errno (ENOSPC), said by the commit */
		if (outputs_commit(prog, of, c.output) == 0)
			fprintf(stderr, "%s: cannot write '%s': %s\n", prog, quote_str(c.output, q, sizeof(q)),
				strerror(EIO));
		code = EXIT_FAILED;
	} else if (rc) {
		/* a result without data for the type is bad input; nothing is left written */
		outfile_abort(of);
		fprintf(stderr, "%s: %s\n", prog, err);
		code = rc == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
	} else if (outputs_commit(prog, of, c.output)) {
		code = EXIT_FAILED;
	}
out:
	for (int i = 0; i < nfiles; i++)
		rr_free(&res[i]);
	return code;
}
