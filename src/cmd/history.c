/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench history: the options, the dispatch, and list|show|trend: what the history database
 * (report/history.h) holds and a figure over kernel releases and time. check, changes, import
 * and export are in history_check.c, history_changes.c and history_fleet.c. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cmd/cmd.h"
#include "cmd/outputs.h"
#include "core/opt.h"
#include "core/quote.h"
#include "core/figure.h"
#include "core/hchange.h"
#include "core/stats.h"
#include "core/verdict.h"
#include "cmd/history_int.h"
#include "report/history.h"
#include "report/junit.h"
#include "report/result_read.h"
#include "report/opt_text.h"
#include "report/plot_cairo.h"


#define F(x) offsetof(struct hist_config, x)
static const struct opt hist_opts[] = {
	{ 0, "db", OPT_STR, F(db), "FILE", 0, 0, 0, 0,
	  "the history database (default: $XDG_DATA_HOME/fsbench/history.db, else ~/.local/share/fsbench/history.db)" },
	{ 0, "experiment", OPT_STR, F(experiment), "NAME", 0, 0, 0, 0,
	  "trend, check, changes, export, report: only this experiment's runs" },
	{ 0, "cell", OPT_STR, F(cell), "CELL", 0, 0, 0, 0, "trend, check, changes, export, report: only this cell's runs" },
	{ 0, "config", OPT_STR, F(config), "HASH", 0, 0, 0, 0,
	  "changes, export, report: only the runs of this configuration hash (or hashes beginning so)" },
	{ 0, "since", OPT_STR, F(since), "DATE", 0, 0, 0, 0,
	  "changes, export, report: only the runs started at or after DATE (UTC, ISO 8601: 2026-09-21 or 2026-09-21T14:00:00Z)" },
	{ 0, "order", OPT_STR, F(order), "time|kernel", 0, 0, 0, 0,
	  "changes, report: a series in the order the runs started (time, the default) or of kernel releases (version order, then time)" },
	{ 0, "all-hosts", OPT_FLAG, F(all_hosts), NULL, 0, 0, 0, 0,
	  "check, changes, report: one series across hosts (default: each host's runs are compared only with that host's)" },
	{ 0, "fail-if-worse", OPT_STR, F(fail_if_worse), "PCT", 0, 0, 0, 0,
	  "check: exit 1 when a figure of the latest runs is decided worse than the earlier runs by more than PCT % (fsbench(1) STATISTICS)" },
	{ 0, "bisect", OPT_FLAG, F(bisect), NULL, 0, 0, 0, 0,
	  "check: the exit status git bisect run wants: 0 good (every primary figure's interval rules out a regression "
	  "beyond --fail-if-worse, 5 % without it), 1 bad (one decided worse beyond it), 125 cannot decide (nothing "
	  "compared, an interval reaching beyond it), 255 an error (stops the bisection)" },
	{ 0, "baseline", OPT_STR, F(baseline), "KERNEL", 0, 0, 0, 0,
	  "check: the earlier runs are only those of kernel release KERNEL (the known-good one of a bisection)" },
	{ 0, "all", OPT_FLAG, F(all), NULL, 0, 0, 0, 0,
	  "show, check, changes, report: every figure, not the key figures and what changed (changes, report: every figure searched)" },
	{ 0, "exclude-flagged", OPT_FLAG, F(exclude_flagged), NULL, 0, 0, 0, 0,
	  "show, trend, check, changes, export, report: leave out the runs flagged for other processes' CPU (default: "
	  "counted, marked, and how many said); with nothing left to check or draw, exit 3" },
	{ 0, "include-flagged", OPT_FLAG, F(include_flagged), NULL, 0, 0, 0, 0,
	  "the default: count the runs flagged for other processes' CPU (kept for old scripts)" },
	{ 0, "junit", OPT_STR, F(junit), "FILE", 0, 0, 0, 0,
	  "check: also write JUnit XML, a test case per figure checked: a failure for each REGRESSION (what "
	  "fails --fail-if-worse), skipped for undecided or untested (- standard output: the table then goes to "
	  "standard error; nothing is written when nothing was checked)" },
	{ 'o', "output", OPT_STR, F(output), "FILE", 0, 0, 0, 0,
	  "trend: draw it to FILE.png or FILE.svg; export: write to FILE (default standard output); report: the "
	  "directory (made, or an empty one, or an earlier history report's)" },
	{ 0, "width", OPT_UINT, F(width), "PIXELS", 200, 10000, 0, 0, "trend: image width" },
	{ 0, "height", OPT_UINT, F(height), "PIXELS", 200, 10000, 0, 0, "trend: image height" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help" },
	{ 0 },
};

static const struct opt_cmd hist_cmd = {
	.name = "history",
	.summary = "The history of matrix runs (fsbench matrix and fsbench report record them):\n"
		   "  list                  the experiments recorded\n"
		   "  show ID|EXPERIMENT    an experiment's cells and key figures (every experiment of that name)\n"
		   "  trend FIGURE          a figure's mean per experiment and cell, over kernel releases and time (-o: a plot)\n"
		   "  check                 the latest runs of each cell against the earlier ones with the same configuration hash\n"
		   "  changes [FIGURE...]   change points in each configuration's series (E-divisive means, permutation test)\n"
		   "  import DB...          add the runs of other history databases (another machine's) to this one\n"
		   "  export                the runs as JSON Lines (-o FILE, else standard output)\n"
		   "  report [FIGURE...] -o DIR  report.html (self-contained) and report.md: the changes, each primary figure's runs",
	.opts = hist_opts,
};

static void hist_defaults(struct hist_config *c)
{
	memset(c, 0, sizeof(*c));
	c->width = 1200;
	c->height = 800;
}

static void hist_defaults_any(void *c)
{
	hist_defaults(c);
}

const struct cmd_options history_options = { &hist_cmd, sizeof(struct hist_config), hist_defaults_any };

const char *hist_display(const char *unit, double ref, double *scale)
{
	*scale = 1;
	if (!strcmp(unit, "ns")) {
		*scale = fabs(ref) >= 1e6 ? 1e-6 : 1e-3;
		return fabs(ref) >= 1e6 ? "ms" : "us";
	}
	return unit;
}

void hist_fmt_mean(const struct stats_summary *s, const char *unit, char *buf, size_t len)
{
	double sc;
	const char *u = hist_display(unit, s->mean, &sc);
	int dec = fabs(s->mean * sc) >= 1e5 ? 0 : fabs(s->mean * sc) >= 100 ? 1 : fabs(s->mean * sc) >= 1 ? 2 : 3;

	if (s->n >= 2 && s->sd > 0)
		snprintf(buf, len, "%.*f [%.*f, %.*f] %s", dec, s->mean * sc, dec, s->lo * sc, dec, s->hi * sc, u);
	else
		snprintf(buf, len, "%.*f %s", dec, s->mean * sc, u);
}

/* core/hchange's summary: one rule for the intervals of show, trend and check */
int hist_summarize(const double *v, unsigned n, bool rate, const char *unit, struct stats_summary *s)
{
	bool clipped;

	(void)rate;
	return hc_summary(v, n, !strcmp(unit, "%"), s, &clipped);
}

/* ---- list, show ---- */

static int do_list(struct history *h, const char *prog)
{
	struct history_exp *x;
	unsigned n;
	char err[512];

	if (history_experiments(h, &x, &n, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_FAILED;
	}
	printf("%-5s %-24s %-21s %-10s %-24s %-16s %5s %5s\n", "id", "experiment", "first run", "workload", "kernel",
	       "host", "cells", "runs");
	for (unsigned i = 0; i < n; i++)
		printf("%-5lld %-24s %-21s %-10s %-24s %-16s %5u %5u\n", x[i].id, x[i].name, x[i].started, x[i].workload,
		       x[i].kernel, x[i].host, x[i].cells, x[i].runs);
	if (!n)
		printf("(no experiment recorded yet: fsbench matrix, or fsbench report DIR, records them)\n");
	free(x);
	return EXIT_OK;
}

/* per (experiment, cell, figure) group of consecutive values: its summary */
struct group {
	long long exp_id;
	const struct history_val *first;
	double *v;
	unsigned n;
};

/* A run the report could use (complete, of the experiment's workload), flagged or not, unless
 * --exclude-flagged. Flagged runs are never dropped silently: every output counts them. */
bool hist_take(const struct history_val *v, const struct hist_config *c)
{
	return v->used && !(c->exclude_flagged && v->flagged);
}

/* Runs (distinct run ids; values come ordered by run) among v[0..n) that match cell (NULL: any)
 * and key (NULL: any): *flagged of them flagged, *left of those left out by --exclude-flagged. */
void hist_count_flagged(const struct history_val *v, unsigned n, long long exp_id, const char *cell,
			  const struct hist_config *c, unsigned *flagged, unsigned *left)
{
	long long last = -1;

	*flagged = *left = 0;
	for (unsigned i = 0; i < n; i++) {
		if ((exp_id && v[i].exp_id != exp_id) || (cell && strcmp(v[i].cell, cell)) || !v[i].used ||
		    v[i].run_id == last)
			continue;
		last = v[i].run_id;
		*flagged += v[i].flagged;
		*left += v[i].flagged && c->exclude_flagged;
	}
}

void hist_say_flagged(FILE *out, unsigned flagged, unsigned left, const char *indent)
{
	if (left)
		fprintf(out, "%s%u run%s flagged for other processes' CPU left out (--exclude-flagged)\n", indent, left,
		       left == 1 ? "" : "s");
	else if (flagged)
		fprintf(out, "%s%u run%s flagged for other processes' CPU, counted (--exclude-flagged leaves %s out)\n",
		       indent, flagged, flagged == 1 ? "" : "s", flagged == 1 ? "it" : "them");
}

static int do_show(struct history *h, const char *what, const struct hist_config *c, const char *prog)
{
	struct history_exp *x;
	struct history_val *v;
	unsigned n, nv;
	char err[512], *end;
	long long id = strtoll(what, &end, 10);
	bool by_id = *what && !*end, any = false;

	if (history_experiments(h, &x, &n, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_FAILED;
	}
	for (unsigned i = 0; i < n; i++) {
		if (by_id ? x[i].id != id : strcmp(x[i].name, what))
			continue;
		any = true;
		printf("experiment %lld: %s (%s), first run %s, kernel %s, host %s, fsbench %s: %u cells, %u runs\n",
		       x[i].id, x[i].name, x[i].workload, x[i].started, x[i].kernel, x[i].host, x[i].version, x[i].cells,
		       x[i].runs);
		if (history_values(h, x[i].id, NULL, NULL, NULL, &v, &nv, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			free(x);
			return EXIT_FAILED;
		}
		/* cell by cell, figure by figure, in the order recorded */
		for (unsigned a = 0; a < nv; a++) {
			unsigned nflag, nleft;
			bool seen = false;

			for (unsigned b = 0; b < a && !seen; b++)
				seen = !strcmp(v[b].cell, v[a].cell);
			if (seen)
				continue;
			printf("  %s (config %s)\n", v[a].cell, v[a].config_hash[0] ? v[a].config_hash : "-");
			hist_count_flagged(v, nv, 0, v[a].cell, c, &nflag, &nleft);
			hist_say_flagged(stdout, nflag, nleft, "    ");
			for (unsigned f = a; f < nv; f++) {
				double *vals;
				unsigned k = 0, kf = 0;
				bool dup = false;
				struct stats_summary s;
				char buf[96];

				if (strcmp(v[f].cell, v[a].cell) || (!c->all && !v[f].key_fig))
					continue;
				for (unsigned g = a; g < f && !dup; g++)
					dup = !strcmp(v[g].cell, v[f].cell) && !strcmp(v[g].key, v[f].key);
				if (dup || !(vals = malloc(nv * sizeof(double))))
					continue;
				for (unsigned g = f; g < nv; g++)
					if (!strcmp(v[g].cell, v[f].cell) && !strcmp(v[g].key, v[f].key) && hist_take(&v[g], c)) {
						vals[k++] = v[g].value;
						kf += v[g].flagged;
					}
				if (k && !hist_summarize(vals, k, v[f].rate, v[f].unit, &s)) {
					hist_fmt_mean(&s, v[f].unit, buf, sizeof(buf));
					if (kf)
						printf("    %-36s %-28s (%u run%s, %u flagged)\n", v[f].name, buf, k,
						       k == 1 ? "" : "s", kf);
					else
						printf("    %-36s %-28s (%u run%s)\n", v[f].name, buf, k, k == 1 ? "" : "s");
				} else if (!k) {
					printf("    %-36s %-28s (0 runs left)\n", v[f].name, "-");
				}
				free(vals);
			}
		}
		free(v);
	}
	free(x);
	if (!any) {
		char q[QUOTE_MAX];

		fprintf(stderr, "%s: no experiment '%s' in the database (fsbench history list)\n", prog,
			quote_str(what, q, sizeof(q)));
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* ---- trend ---- */

/* trend -o: the means and intervals drawn, a line per cell over the experiments. 0, or -1 said. */
static int trend_plot(const struct hist_config *c, const struct history_val *v, char (*xlab)[200], unsigned nslot,
		      char (*line)[128], unsigned nline, const double *mean, const double *lo, const double *hi,
		      const char *prog)
{
	const char *ext = strrchr(c->output, '.');
	struct plot_opts po = { .width = (unsigned)c->width, .height = (unsigned)c->height };
	const char **xl = calloc(nslot, sizeof(char *)), **ln = calloc(nline, sizeof(char *));
	char title[200], ylabel[160], err[512];
	struct plot_trend t;
	struct outfile *of;
	int rc;

	if (!xl || !ln) {
		free(xl);
		free(ln);
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	for (unsigned s = 0; s < nslot; s++)
		xl[s] = xlab[s];
	for (unsigned l = 0; l < nline; l++)
		ln[l] = line[l];
	po.format = ext && !strcasecmp(ext, ".svg") ? PLOT_SVG : PLOT_PNG;
	snprintf(title, sizeof(title), "%s over kernel releases and time", v[0].name);
	snprintf(ylabel, sizeof(ylabel), "%s (%s)", v[0].name, v[0].unit);
	t = (struct plot_trend){ .title = title, .ylabel = ylabel, .nx = nslot, .nlines = nline, .xlabels = xl,
				 .lines = ln, .mean = mean, .lo = lo, .hi = hi };
	if (!(of = outputs_open(prog, c->output, OUTFILE_REPLACE))) {
		free(xl);
		free(ln);
		return -1;
	}
	rc = plot_trend_render(&t, &po, of->f, err, sizeof(err));
	free(xl);
	free(ln);
	if (rc) {
		outfile_abort(of);
		fprintf(stderr, "%s: cannot draw '%s': %s\n", prog, c->output, rc == -EIO ? strerror(EIO) : err);
		return -1;
	}
	if (outputs_commit(prog, of, c->output))
		return -1;
	printf("plot: %s\n", c->output);
	return 0;
}

/* trend's slots (the experiments, labelled by kernel and date) and lines (the cells) */
static void trend_axes(const struct history_val *v, unsigned nv, const struct history_exp *x, unsigned nx,
		       long long *slot_id, char (*xlab)[200], unsigned *nslot, char (*line)[128], unsigned *nline)
{
	for (unsigned i = 0; i < nv; i++) {
		unsigned k;

		for (k = 0; k < *nslot && slot_id[k] != v[i].exp_id; k++)
			;
		if (k == *nslot) {
			slot_id[*nslot] = v[i].exp_id;
			for (unsigned e = 0; e < nx; e++)
				if (x[e].id == v[i].exp_id)
					snprintf(xlab[*nslot], sizeof(xlab[*nslot]), "%.60s\n%.10s #%lld", x[e].kernel,
						 x[e].started, x[e].id);
			(*nslot)++;
		}
		for (k = 0; k < *nline && strcmp(line[k], v[i].cell); k++)
			;
		if (k == *nline)
			snprintf(line[(*nline)++], sizeof(line[0]), "%s", v[i].cell);
	}
}

static int do_trend(struct history *h, const char *key, const struct hist_config *c, const char *prog)
{
	struct history_val *v;
	struct history_exp *x;
	unsigned nv, nx, nslot = 0, nline = 0, nrows = 0, nflag, nleft;
	char err[512];
	long long *slot_id = NULL;
	char (*line)[128] = NULL, (*xlab)[200] = NULL;
	double *mean = NULL, *lo = NULL, *hi = NULL, *vals = NULL;
	int code = EXIT_FAILED;

	if (history_values(h, 0, c->experiment, c->cell, key, &v, &nv, err, sizeof(err)) ||
	    history_experiments(h, &x, &nx, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_FAILED;
	}
	if (!nv) {
		char q[QUOTE_MAX];

		fprintf(stderr, "%s: no values of figure '%s'%s in the database (fsbench history show NAME lists the "
			"figures)\n", prog, quote_str(key, q, sizeof(q)), c->cell || c->experiment ? " for that selection" : "");
		free(v);
		free(x);
		return EXIT_USAGE;
	}
	slot_id = calloc(nv, sizeof(*slot_id));
	line = calloc(nv, sizeof(*line));
	xlab = calloc(nv, sizeof(*xlab));
	vals = malloc(nv * sizeof(double));
	if (!slot_id || !line || !xlab || !vals)
		goto oom;
	trend_axes(v, nv, x, nx, slot_id, xlab, &nslot, line, &nline);
	mean = malloc((size_t)nslot * nline * sizeof(double));
	lo = malloc((size_t)nslot * nline * sizeof(double));
	hi = malloc((size_t)nslot * nline * sizeof(double));
	if (!mean || !lo || !hi)
		goto oom;
	printf("%s (%s), per experiment and cell: geometric mean [95%% interval, cut at the lowest and highest run]:\n",
	       v[0].name, v[0].unit);
	printf("%-6s %-21s %-24s %-20s %4s  %s\n", "exp", "first run", "kernel", "cell", "runs", "mean");
	for (unsigned l = 0; l < nline; l++)
		for (unsigned s = 0; s < nslot; s++) {
			unsigned k = 0, kf = 0, idx = l * nslot + s;
			struct stats_summary st;
			const struct history_val *any = NULL;
			char buf[96];

			for (unsigned i = 0; i < nv; i++)
				if (v[i].exp_id == slot_id[s] && !strcmp(v[i].cell, line[l]) && hist_take(&v[i], c)) {
					vals[k++] = v[i].value;
					kf += v[i].flagged;
					any = &v[i];
				}
			mean[idx] = lo[idx] = hi[idx] = NAN;
			if (!k || hist_summarize(vals, k, any->rate, any->unit, &st))
				continue;
			nrows++;
			mean[idx] = st.mean;
			lo[idx] = k >= 2 ? st.lo : st.mean;
			hi[idx] = k >= 2 ? st.hi : st.mean;
			hist_fmt_mean(&st, any->unit, buf, sizeof(buf));
			if (kf)
				snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (%u flagged)", kf);
			for (unsigned e = 0; e < nx; e++)
				if (x[e].id == slot_id[s])
					printf("%-6lld %-21s %-24s %-20s %4u  %s\n", slot_id[s], x[e].started, any->kernel,
					       line[l], k, buf);
		}
	hist_count_flagged(v, nv, 0, NULL, c, &nflag, &nleft);
	hist_say_flagged(stdout, nflag, nleft, "");
	if (!nrows) {
		char q[QUOTE_MAX];

		/* an empty table or plot would read as "measured, nothing there" */
		fprintf(stderr, "%s: nothing to show for '%s': every run of that selection was left out%s\n", prog,
			quote_str(key, q, sizeof(q)), nleft ? " (--exclude-flagged)" : "");
		code = EXIT_UNSUPPORTED;
		goto out;
	}
	if (c->output && trend_plot(c, v, xlab, nslot, line, nline, mean, lo, hi, prog))
		goto out;
	code = EXIT_OK;
	goto out;
oom:
	fprintf(stderr, "%s: out of memory\n", prog);
out:
	free(v);
	free(x);
	free(slot_id);
	free(line);
	free(xlab);
	free(vals);
	free(mean);
	free(lo);
	free(hi);
	return code;
}

void hist_fmt_effect(const struct vd_test *t, char *buf, size_t len)
{
	if (t->kind == VD_NA)
		snprintf(buf, len, "-");
	else if (t->e.log && !isnan(t->lo))
		snprintf(buf, len, "x%.3g [%.3g, %.3g]", t->ratio, t->lo, t->hi);
	else if (t->e.log)
		snprintf(buf, len, "x%.3g", t->ratio);
	else if (!isnan(t->lo))
		snprintf(buf, len, "%+.3g [%.3g, %.3g]", t->ratio, t->lo, t->hi);
	else
		snprintf(buf, len, "%+.3g", t->ratio);
}

void hist_sel(const struct hist_config *c, struct history_sel *sel)
{
	*sel = (struct history_sel){ .experiment = c->experiment, .cell = c->cell, .config = c->config,
				     .since = c->since, .all_hosts = c->all_hosts,
				     .by_kernel = c->order && !strcmp(c->order, "kernel"),
				     .exclude_flagged = c->exclude_flagged };
}

/* ---- the command line ---- */

struct hist_sub {
	const char *name;
	int (*run)(struct history *h, const struct hist_config *c, const char *prog);
	unsigned min_args, max_args;
	bool create;             /* the database is made when missing (import) */
	const char *opts;        /* options for it alone, beyond the shared ones: a space-separated list */
};

static int run_list(struct history *h, const struct hist_config *c, const char *prog)
{
	(void)c;
	return do_list(h, prog);
}

static int run_show(struct history *h, const struct hist_config *c, const char *prog)
{
	return do_show(h, c->args[0], c, prog);
}

static int run_trend(struct history *h, const struct hist_config *c, const char *prog)
{
	return do_trend(h, c->args[0], c, prog);
}

#define HIST_MAX_ARGS 64
static const struct hist_sub hist_subs[] = {
	{ "list", run_list, 0, 0, false, "" },
	{ "show", run_show, 1, 1, false, "" },
	{ "trend", run_trend, 1, 1, false, "-o" },
	{ "check", hist_check, 0, 0, false, "--junit --bisect --baseline --fail-if-worse" },
	{ "changes", hist_changes, 0, HIST_MAX_ARGS, false, "--order --since --config" },
	{ "import", hist_import, 1, HIST_MAX_ARGS, true, "" },
	{ "export", hist_export, 0, 0, false, "-o --since --config" },
	{ "report", hist_report, 0, HIST_MAX_ARGS, false, "-o --order --since --config" },
};

/* an option given to a command it is not for: EXIT_USAGE said, else 0 */
static int opts_fit(const struct hist_sub *sub, const struct hist_config *c, const char *prog)
{
	static const struct { const char *name; size_t off; } only[] = {
		{ "-o", offsetof(struct hist_config, output) }, { "--junit", offsetof(struct hist_config, junit) },
		{ "--baseline", offsetof(struct hist_config, baseline) },
		{ "--fail-if-worse", offsetof(struct hist_config, fail_if_worse) },
		{ "--order", offsetof(struct hist_config, order) }, { "--since", offsetof(struct hist_config, since) },
		{ "--config", offsetof(struct hist_config, config) },
	};
	char words[128];

	snprintf(words, sizeof(words), " %s ", sub->opts);
	for (size_t i = 0; i < sizeof(only) / sizeof(only[0]); i++) {
		char w[40];

		snprintf(w, sizeof(w), " %s ", only[i].name);
		if (*(const char *const *)((const char *)c + only[i].off) && !strstr(words, w)) {
			fprintf(stderr, "%s: option %s is not for %s\n", prog, only[i].name, sub->name);
			return EXIT_USAGE;
		}
	}
	if (c->bisect && strcmp(sub->name, "check")) {
		fprintf(stderr, "%s: option --bisect is for check\n", prog);
		return EXIT_USAGE;
	}
	return 0;
}

/* -o, --junit, --order, --since for the command: 0, or the exit status said */
static int opts_check(const struct hist_sub *sub, const struct hist_config *c, const char *prog)
{
	const char *ext = c->output ? strrchr(c->output, '.') : NULL;
	char q[QUOTE_MAX];
	int code;

	if ((code = opts_fit(sub, c, prog)))
		return code;
	if (c->order && strcmp(c->order, "time") && strcmp(c->order, "kernel")) {
		fprintf(stderr, "%s: option --order: '%s' is neither time nor kernel\n", prog, quote_str(c->order, q, sizeof(q)));
		return EXIT_USAGE;
	}
	if (c->since && (strlen(c->since) < 10 || strspn(c->since, "0123456789") != 4 || c->since[4] != '-' ||
			 c->since[7] != '-' || strspn(c->since + 10, "0123456789T:.Z+-") != strlen(c->since + 10))) {
		fprintf(stderr, "%s: option --since: '%s' is not a date (2026-09-21 or 2026-09-21T14:00:00Z)\n", prog,
			quote_str(c->since, q, sizeof(q)));
		return EXIT_USAGE;
	}
	if (!strcmp(sub->name, "trend") && c->output) {
		if (!ext || (strcasecmp(ext, ".png") && strcasecmp(ext, ".svg"))) {
			fprintf(stderr, "%s: option -o: '%s' ends in neither .png nor .svg\n", prog, quote_str(c->output, q, sizeof(q)));
			return EXIT_USAGE;
		}
	}
	if (!strcmp(sub->name, "report")) {
		if (!c->output) {
			fprintf(stderr, "%s: report needs -o DIR\n", prog);
			return EXIT_USAGE;
		}
		if ((code = hist_report_check_dir(c->output, prog)))
			return code;
	} else if (c->output &&
		   (code = outputs_check(prog, &(const struct outputs_dest){ "-o", c->output, OUTFILE_REPLACE }, 1))) {
		return code;
	}
	if (c->junit && (code = outputs_check(prog, &(const struct outputs_dest){ "--junit", c->junit, OUTFILE_REPLACE }, 1)))
		return code;
	/* trend -o draws with cairo (history report writes its SVG itself) */
	if (!strcmp(sub->name, "trend") && c->output)
		return cmd_plot_ready(prog);
	return 0;
}

/* the command and its operands: the entry, or NULL said */
static const struct hist_sub *find_sub(const char *const *ops, int nops, const char *prog)
{
	char q[QUOTE_MAX];

	if (nops < 1) {
		fprintf(stderr, "%s: needs a command: list, show, trend, check, changes, import, export or report (%s --help)\n",
			prog, prog);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(hist_subs) / sizeof(hist_subs[0]); i++) {
		const struct hist_sub *s = &hist_subs[i];

		if (strcmp(ops[0], s->name))
			continue;
		if ((unsigned)nops - 1 < s->min_args || (unsigned)nops - 1 > s->max_args) {
			fprintf(stderr, "%s: usage: %s list | show ID|EXPERIMENT | trend FIGURE | check | changes [FIGURE...] | "
				"import DB... | export | report -o DIR\n", prog, prog);
			return NULL;
		}
		return s;
	}
	fprintf(stderr, "%s: unknown command '%s' (list, show, trend, check, changes, import, export or report)\n", prog,
		quote_str(ops[0], q, sizeof(q)));
	return NULL;
}

static void print_help(const struct hist_config *defaults, const char *prog)
{
	opt_text_help(&hist_cmd, defaults, prog, stdout);
	printf("\nExit status: 0; 1 when check --fail-if-worse finds a regression, or the database cannot be read\n"
	       "or is damaged (never repaired); 2 on a bad command line; 3 when nothing is left to check or draw\n"
	       "(e.g. every run left out by --exclude-flagged, no earlier runs of the same configuration), or\n"
	       "when trend -o cannot load cairo (libcairo2), which draws the plot.\n"
	       "check --bisect: 0 good, 1 bad, 125 cannot decide, 255 an error.\n");
}

/* --bisect anywhere on the command line: its errors exit 255 (git bisect run stops) */
static bool bisect_asked(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--bisect"))
			return true;
	return false;
}

int cmd_history(int argc, char **argv, const char *prog)
{
	struct hist_config c, defaults;
	const char *ops[HIST_MAX_ARGS + 2];
	char **opts = calloc((size_t)argc + 1, sizeof(char *));
	char err[1024], path[4096];
	int nopts, nops, code, bad = bisect_asked(argc, argv) ? HIST_EXIT_ABORT : EXIT_USAGE;
	const struct hist_sub *sub;
	struct history *h;

	hist_defaults(&c);
	defaults = c;
	if (!opts) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAILED;
	}
	if (cmd_split_operands(&hist_cmd, argc, argv, opts, &nopts, ops, &nops, HIST_MAX_ARGS + 1, err, sizeof(err)) ||
	    opt_parse(&hist_cmd, nopts, opts, &c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, !strncmp(err, "more than", 9) ? "too many operands" : err);
		free(opts);
		return bad;
	}
	free(opts);
	if (c.help) {
		print_help(&defaults, prog);
		return EXIT_OK;
	}
	if (!(sub = find_sub(ops, nops, prog)))
		return bad;
	c.args = ops + 1;
	c.nargs = (unsigned)nops - 1;
	if ((code = opts_check(sub, &c, prog)))
		return code == EXIT_USAGE ? bad : code;
	if (c.db)
		snprintf(path, sizeof(path), "%s", c.db);
	else if (history_default_path(path, sizeof(path), err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return bad;
	}
	/* reading never creates the database; import adds to it, so it may make it */
	if (history_open(path, sub->create, &h, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return c.bisect ? HIST_EXIT_ABORT : EXIT_FAILED;
	}
	code = sub->run(h, &c, prog);
	history_close(h);
	return code;
}
