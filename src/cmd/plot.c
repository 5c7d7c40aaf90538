/* fsbench plot: results drawn with cairo to PNG or SVG (by the -o extension). */
#include <errno.h>
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

#define PLOT_MAX_RESULTS 10

struct plot_config {
	const char *output;
	const char *type;
	const char *x;
	const char *title;
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
		   "one line or bar colour per result, named by its --label or file name.",
	.opts = plot_opts,
};

static void plot_defaults(struct plot_config *c)
{
	memset(c, 0, sizeof(*c));
	c->width = 1200;
	c->height = 800;
}

void plot_options(bool list, FILE *out)
{
	struct plot_config d;

	plot_defaults(&d);
	if (list)
		opt_text_list(&plot_cmd, out);
	else
		opt_text_man(&plot_cmd, &d, out);
}

int cmd_plot(int argc, char **argv, const char *prog)
{
	struct plot_config c, defaults;
	struct plot_opts po = { 0 };
	struct rr_result res[PLOT_MAX_RESULTS];
	const char *files[PLOT_MAX_RESULTS], *ext;
	char **opts = calloc((size_t)argc + 1, sizeof(char *));
	char err[1024], q[QUOTE_MAX];
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
	if (!c.output) {
		fprintf(stderr, "%s: option -o/--output is required (FILE.png or FILE.svg)\n", prog);
		return EXIT_USAGE;
	}
	ext = strrchr(c.output, '.');
	if (ext && !strcasecmp(ext, ".png")) {
		po.format = PLOT_PNG;
	} else if (ext && !strcasecmp(ext, ".svg")) {
		po.format = PLOT_SVG;
	} else {
		fprintf(stderr, "%s: option -o: '%s' ends in neither .png nor .svg\n", prog,
			quote_str(c.output, q, sizeof(q)));
		return EXIT_USAGE;
	}
	po.type = PLOT_AUTO;
	if (c.type) {
		unsigned t;

		for (t = PLOT_FILL; t <= PLOT_COMPARE && strcmp(c.type, plot_type_name[t]); t++)
			;
		if (t > PLOT_COMPARE) {
			fprintf(stderr, "%s: option --type: '%s' is not fill, timeline, latency or compare\n", prog,
				quote_str(c.type, q, sizeof(q)));
			return EXIT_USAGE;
		}
		po.type = (enum plot_type)t;
	}
	if (c.x && strcmp(c.x, "fsuse") && strcmp(c.x, "count")) {
		fprintf(stderr, "%s: option --x: '%s' is not fsuse or count\n", prog, quote_str(c.x, q, sizeof(q)));
		return EXIT_USAGE;
	}
	po.fill_x = !c.x ? 0 : !strcmp(c.x, "count") ? 2 : 1;
	po.width = (unsigned)c.width;
	po.height = (unsigned)c.height;
	po.title = c.title;
	if ((rc = outputs_check(prog, &(const struct outputs_dest){ "-o", c.output, OUTFILE_REPLACE }, 1)))
		return rc;
	if (cmd_load_results(prog, files, nfiles, res))
		return EXIT_USAGE;
	for (int i = 1; i < nfiles && !c.force; i++)
		if (strcmp(res[i].workload, res[0].workload)) {
			fprintf(stderr, "%s: '%s' is a %s result, '%s' a %s result: refusing to draw different "
				"workloads together (--force)\n", prog, res[0].path, res[0].workload, res[i].path,
				res[i].workload);
			code = EXIT_USAGE;
			goto out;
		}
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
