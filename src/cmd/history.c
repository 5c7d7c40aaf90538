/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench history list|show|trend|check: what the history database (report/history.h) holds,
 * a figure over kernel releases and time, and the latest runs of each cell checked against
 * the earlier ones of the same configuration (Welch, Holm-Bonferroni; a CI gate). */
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
#include "core/stats.h"
#include "core/verdict.h"
#include "report/history.h"
#include "report/junit.h"
#include "report/result_read.h"
#include "report/opt_text.h"
#include "report/plot_cairo.h"

struct hist_config {
	const char *db;
	const char *cell;
	const char *experiment;
	const char *fail_if_worse;
	const char *output;
	const char *junit;
	bool all;
	bool include_flagged;    /* the default since flagged runs stay in; kept for old scripts */
	bool exclude_flagged;
	uint64_t width, height;
	int help;
};

#define F(x) offsetof(struct hist_config, x)
static const struct opt hist_opts[] = {
	{ 0, "db", OPT_STR, F(db), "FILE", 0, 0, 0, 0,
	  "the history database (default: $XDG_DATA_HOME/fsbench/history.db, else ~/.local/share/fsbench/history.db)" },
	{ 0, "experiment", OPT_STR, F(experiment), "NAME", 0, 0, 0, 0, "trend, check: only this experiment's runs" },
	{ 0, "cell", OPT_STR, F(cell), "CELL", 0, 0, 0, 0, "trend, check: only this cell's runs" },
	{ 0, "fail-if-worse", OPT_STR, F(fail_if_worse), "PCT", 0, 0, 0, 0,
	  "check: exit 1 when a figure of the latest runs is decided worse than the earlier runs by more than PCT % (fsbench(1) STATISTICS)" },
	{ 0, "all", OPT_FLAG, F(all), NULL, 0, 0, 0, 0, "show, check: every figure, not the key figures and what changed" },
	{ 0, "exclude-flagged", OPT_FLAG, F(exclude_flagged), NULL, 0, 0, 0, 0,
	  "show, trend, check: leave out the runs flagged for other processes' CPU (default: counted, marked, "
	  "and how many said); with nothing left to check or draw, exit 3" },
	{ 0, "include-flagged", OPT_FLAG, F(include_flagged), NULL, 0, 0, 0, 0,
	  "the default: count the runs flagged for other processes' CPU (kept for old scripts)" },
	{ 0, "junit", OPT_STR, F(junit), "FILE", 0, 0, 0, 0,
	  "check: also write JUnit XML, a test case per figure checked: a failure for each REGRESSION (what "
	  "fails --fail-if-worse), skipped for undecided or untested (- standard output: the table then goes to "
	  "standard error; nothing is written when nothing was checked)" },
	{ 'o', "output", OPT_STR, F(output), "FILE", 0, 0, 0, 0, "trend: draw it to FILE.png or FILE.svg" },
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
		   "  check                 the latest runs of each cell against the earlier ones with the same configuration hash",
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

static const char *display(const char *unit, double ref, double *scale)
{
	*scale = 1;
	if (!strcmp(unit, "ns")) {
		*scale = fabs(ref) >= 1e6 ? 1e-6 : 1e-3;
		return fabs(ref) >= 1e6 ? "ms" : "us";
	}
	return unit;
}

static void fmt_mean(const struct stats_summary *s, const char *unit, char *buf, size_t len)
{
	double sc;
	const char *u = display(unit, s->mean, &sc);
	int dec = fabs(s->mean * sc) >= 1e5 ? 0 : fabs(s->mean * sc) >= 100 ? 1 : fabs(s->mean * sc) >= 1 ? 2 : 3;

	if (s->n >= 2 && s->sd > 0)
		snprintf(buf, len, "%.*f [%.*f, %.*f] %s", dec, s->mean * sc, dec, s->lo * sc, dec, s->hi * sc, u);
	else
		snprintf(buf, len, "%.*f %s", dec, s->mean * sc, u);
}

/* rates: the harmonic mean; other positive figures but percentages: the geometric mean, whose
 * interval never reaches below 0 (core/stats.h); percentages: the arithmetic mean */
static int summarize(const double *v, unsigned n, bool rate, const char *unit, struct stats_summary *s)
{
	if (!rate && strcmp(unit, "%"))
		return stats_summarize_geo(v, n, s);
	return stats_summarize(v, n, rate, s);
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
static bool take(const struct history_val *v, const struct hist_config *c)
{
	return v->used && !(c->exclude_flagged && v->flagged);
}

/* Runs (distinct run ids; values come ordered by run) among v[0..n) that match cell (NULL: any)
 * and key (NULL: any): *flagged of them flagged, *left of those left out by --exclude-flagged. */
static void count_flagged(const struct history_val *v, unsigned n, long long exp_id, const char *cell,
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

static void say_flagged(FILE *out, unsigned flagged, unsigned left, const char *indent)
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
			count_flagged(v, nv, 0, v[a].cell, c, &nflag, &nleft);
			say_flagged(stdout, nflag, nleft, "    ");
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
					if (!strcmp(v[g].cell, v[f].cell) && !strcmp(v[g].key, v[f].key) && take(&v[g], c)) {
						vals[k++] = v[g].value;
						kf += v[g].flagged;
					}
				if (k && !summarize(vals, k, v[f].rate, v[f].unit, &s)) {
					fmt_mean(&s, v[f].unit, buf, sizeof(buf));
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
	for (unsigned i = 0; i < nv; i++) {
		unsigned k;

		for (k = 0; k < nslot && slot_id[k] != v[i].exp_id; k++)
			;
		if (k == nslot) {
			slot_id[nslot] = v[i].exp_id;
			for (unsigned e = 0; e < nx; e++)
				if (x[e].id == v[i].exp_id)
					snprintf(xlab[nslot], sizeof(xlab[nslot]), "%.60s\n%.10s #%lld", x[e].kernel, x[e].started,
						 x[e].id);
			nslot++;
		}
		for (k = 0; k < nline && strcmp(line[k], v[i].cell); k++)
			;
		if (k == nline)
			snprintf(line[nline++], sizeof(line[0]), "%s", v[i].cell);
	}
	mean = malloc((size_t)nslot * nline * sizeof(double));
	lo = malloc((size_t)nslot * nline * sizeof(double));
	hi = malloc((size_t)nslot * nline * sizeof(double));
	if (!mean || !lo || !hi)
		goto oom;
	printf("%s (%s), mean ± 95%% interval per experiment and cell:\n", v[0].name, v[0].unit);
	printf("%-6s %-21s %-24s %-20s %4s  %s\n", "exp", "first run", "kernel", "cell", "runs", "mean");
	for (unsigned l = 0; l < nline; l++)
		for (unsigned s = 0; s < nslot; s++) {
			unsigned k = 0, kf = 0, idx = l * nslot + s;
			struct stats_summary st;
			const struct history_val *any = NULL;
			char buf[96];

			for (unsigned i = 0; i < nv; i++)
				if (v[i].exp_id == slot_id[s] && !strcmp(v[i].cell, line[l]) && take(&v[i], c)) {
					vals[k++] = v[i].value;
					kf += v[i].flagged;
					any = &v[i];
				}
			mean[idx] = lo[idx] = hi[idx] = NAN;
			if (!k || summarize(vals, k, any->rate, any->unit, &st))
				continue;
			nrows++;
			mean[idx] = st.mean;
			lo[idx] = k >= 2 ? st.lo : st.mean;
			hi[idx] = k >= 2 ? st.hi : st.mean;
			fmt_mean(&st, any->unit, buf, sizeof(buf));
			if (kf)
				snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (%u flagged)", kf);
			for (unsigned e = 0; e < nx; e++)
				if (x[e].id == slot_id[s])
					printf("%-6lld %-21s %-24s %-20s %4u  %s\n", slot_id[s], x[e].started, any->kernel,
					       line[l], k, buf);
		}
	count_flagged(v, nv, 0, NULL, c, &nflag, &nleft);
	say_flagged(stdout, nflag, nleft, "");
	if (!nrows) {
		char q[QUOTE_MAX];

		/* an empty table or plot would read as "measured, nothing there" */
		fprintf(stderr, "%s: nothing to show for '%s': every run of that selection was left out%s\n", prog,
			quote_str(key, q, sizeof(q)), nleft ? " (--exclude-flagged)" : "");
		code = EXIT_UNSUPPORTED;
		goto out;
	}
	if (c->output) {
		const char *ext = strrchr(c->output, '.');
		struct plot_opts po = { .width = (unsigned)c->width, .height = (unsigned)c->height };
		const char **xl = calloc(nslot, sizeof(char *)), **ln = calloc(nline, sizeof(char *));
		char title[200], ylabel[160];
		struct plot_trend t;
		struct outfile *of;
		int rc;

		if (!xl || !ln) {
			free(xl);
			free(ln);
			goto oom;
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
			goto out;
		}
		rc = plot_trend_render(&t, &po, of->f, err, sizeof(err));
		free(xl);
		free(ln);
		if (rc) {
			outfile_abort(of);
			fprintf(stderr, "%s: cannot draw '%s': %s\n", prog, c->output, rc == -EIO ? strerror(EIO) : err);
			goto out;
		}
		if (outputs_commit(prog, of, c->output))
			goto out;
		printf("plot: %s\n", c->output);
	}
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

/* ---- check ---- */

struct chk {
	const char *exp;                     /* the experiment's name */
	const struct history_val *meta;      /* cell, figure */
	char kernels[160];                   /* the earlier runs' kernel releases */
	double *a, *b;                       /* earlier, latest */
	unsigned na, nb;
	const char *workload;
	struct stats_summary sa, sb;
	struct vd_test v;                    /* core/verdict: the same verdict as report and compare */
	bool fails;
};

/* --junit: a test case per figure checked (both latest and earlier runs): a failure exactly
 * where the table says REGRESSION (what fails --fail-if-worse), skipped when undecided or
 * untested (with why), else passed. 0, or -1 said. */
static int check_junit(const struct hist_config *c, const struct chk *ck, unsigned nchk, const struct timespec *t0,
		       const char *prog)
{
	struct junit_case *jc = calloc((size_t)nchk + 1, sizeof(*jc));
	char (*cls)[160] = calloc((size_t)nchk + 1, sizeof(*cls));
	char (*name)[256] = calloc((size_t)nchk + 1, sizeof(*name));
	char (*msg)[320] = calloc((size_t)nchk + 1, sizeof(*msg));
	char exps[512] = "";
	unsigned n = 0, cells = 0;
	struct timespec t1;
	struct outfile *of;
	int rc = -1;

	if (!jc || !cls || !name || !msg) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto out;
	}
	for (unsigned i = 0; i < nchk; i++) {
		const struct chk *k = &ck[i];
		const char *word = vd_word(&k->v, k->meta->better);
		bool seen = false;
		size_t at = strlen(exps);

		if (!k->na || !k->nb)
			continue;
		for (unsigned j = 0; j < i && !seen; j++)
			seen = ck[j].na && ck[j].nb && ck[j].meta->exp_id == k->meta->exp_id &&
			       !strcmp(ck[j].meta->cell, k->meta->cell);
		cells += !seen;
		if (!strstr(exps, k->exp) && at + strlen(k->exp) + 3 < sizeof(exps))
			snprintf(exps + at, sizeof(exps) - at, "%s%s", at ? ", " : "", k->exp);
		snprintf(cls[n], sizeof(cls[n]), "history.%s.%s", k->exp, k->meta->cell);
		snprintf(name[n], sizeof(name[n]), "%s (%s)", k->meta->name, k->meta->key);
		jc[n].classname = cls[n];
		jc[n].name = name[n];
		jc[n].result = k->fails ? JUNIT_FAILURE :
			       k->v.kind == VD_UNDECIDED || k->v.kind == VD_NA || k->v.kind == VD_NOT_TESTED ? JUNIT_SKIPPED :
			       JUNIT_PASS;
		snprintf(msg[n], sizeof(msg[n]), "%s%s%s%s: %+.1f%% (%u latest runs against %u earlier, config %s)", word,
			 k->fails ? " REGRESSION beyond " : "", k->fails ? c->fail_if_worse : "", k->fails ? "%" : "",
			 k->v.kind == VD_NA ? 0.0 : vd_pct(&k->v), k->nb, k->na,
			 k->meta->config_hash[0] ? k->meta->config_hash : "-");
		if (!k->v.tested && k->v.why && jc[n].result == JUNIT_SKIPPED)
			snprintf(msg[n], sizeof(msg[n]), "%s: %s", word, k->v.why);
		jc[n].message = msg[n];
		jc[n].text = msg[n];
		n++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	{
		const struct junit_suite s = { "fsbench history check", c->experiment ? c->experiment : exps, cells,
					       FSB_VERSION,
					       (double)(t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9 };

		if (!(of = outputs_open(prog, c->junit, OUTFILE_REPLACE)))
			goto out;
		junit_write(of->f, &s, jc, n);
		if (outputs_commit(prog, of, c->junit))
			goto out;
	}
	rc = 0;
out:
	free(jc);
	free(cls);
	free(name);
	free(msg);
	return rc;
}

static int do_check(struct history *h, const struct hist_config *c, const char *prog)
{
	struct history_exp *x;
	struct history_val *v = NULL;
	unsigned nx, nv, nchk = 0, cap = 0, ntests = 0, nsig = 0, nfail = 0, ncmp = 0, nflag = 0, nleft = 0;
	struct chk *ck = NULL;
	struct vd_test *vt = NULL;
	bool fail_set = c->fail_if_worse != NULL;
	double fail_pct = 0;
	char err[512];
	int code = EXIT_FAILED;
	/* --junit -: the XML alone on standard output */
	FILE *out = c->junit && outfile_is_stdout(c->junit) ? stderr : stdout;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	if (c->fail_if_worse) {
		char *end;

		fail_pct = strtod(c->fail_if_worse, &end);
		if (end == c->fail_if_worse || *end || !isfinite(fail_pct) || fail_pct < 0 || fail_pct > 1e6) {
			char q[QUOTE_MAX];

			fprintf(stderr, "%s: option --fail-if-worse: '%s' is not a percentage (0..1000000)\n", prog,
				quote_str(c->fail_if_worse, q, sizeof(q)));
			return EXIT_USAGE;
		}
	}
	if (history_experiments(h, &x, &nx, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_FAILED;
	}
	/* each experiment name's latest experiment against the earlier ones of that name */
	for (unsigned e = 0; e < nx; e++) {
		bool latest = true;

		if (c->experiment && strcmp(x[e].name, c->experiment))
			continue;
		for (unsigned f = 0; f < nx && latest; f++)
			latest = !(f != e && !strcmp(x[f].name, x[e].name) &&
				   (strcmp(x[f].started, x[e].started) > 0 || (!strcmp(x[f].started, x[e].started) && x[f].id > x[e].id)));
		if (!latest)
			continue;
		free(v);
		if (history_values(h, 0, x[e].name, c->cell, NULL, &v, &nv, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			goto out;
		}
		{
			unsigned f, l;

			count_flagged(v, nv, 0, NULL, c, &f, &l);
			nflag += f;
			nleft += l;
		}
		for (unsigned i = 0; i < nv; i++) {
			struct chk *k = NULL;

			if (v[i].exp_id != x[e].id || !take(&v[i], c))
				continue;
			for (unsigned j = 0; j < nchk && !k; j++)
				if (ck[j].meta->exp_id == x[e].id && !strcmp(ck[j].meta->cell, v[i].cell) &&
				    !strcmp(ck[j].meta->key, v[i].key))
					k = &ck[j];
			if (k)
				continue;
			if (nchk == cap) {
				struct chk *nc = realloc(ck, (cap = cap ? cap * 2 : 64) * sizeof(*nc));

				if (!nc)
					goto oom;
				ck = nc;
			}
			k = &ck[nchk++];
			memset(k, 0, sizeof(*k));
			k->exp = x[e].name;
			k->workload = x[e].workload;
			/* the history_val array lives until the next experiment: copy what is kept */
			if (!(k->meta = malloc(sizeof(*k->meta))) || !(k->a = malloc(nv * sizeof(double))) ||
			    !(k->b = malloc(nv * sizeof(double))))
				goto oom;
			*(struct history_val *)k->meta = v[i];
			for (unsigned j = 0; j < nv; j++) {
				if (strcmp(v[j].cell, v[i].cell) || strcmp(v[j].key, v[i].key) ||
				    strcmp(v[j].config_hash, v[i].config_hash) || !take(&v[j], c))
					continue;
				if (v[j].exp_id == x[e].id) {
					k->b[k->nb++] = v[j].value;
				} else {
					size_t at = strlen(k->kernels);

					k->a[k->na++] = v[j].value;
					if (!strstr(k->kernels, v[j].kernel) && at + strlen(v[j].kernel) + 3 < sizeof(k->kernels))
						snprintf(k->kernels + at, sizeof(k->kernels) - at, "%s%s", at ? ", " : "", v[j].kernel);
				}
			}
		}
	}
	if (!(vt = malloc((nchk ? nchk : 1) * sizeof(*vt))))
		goto oom;
	for (unsigned i = 0; i < nchk; i++) {
		struct chk *k = &ck[i];
		unsigned fl = rr_figure_flags(k->workload, k->meta->key);
		enum vd_family fam = fl & FIG_DERIVED ? VD_FAM_NONE : fl & FIG_PRIMARY ? VD_CONFIRMATORY : VD_EXPLORATORY;

		/* the earlier runs are not paired with the latest: unpaired, as report's incomplete rounds */
		vd_compare(k->a, k->na, NULL, k->b, k->nb, NULL, strcmp(k->meta->unit, "%") != 0, fam, &vt[i]);
		if (!k->na || !k->nb)
			continue;
		ncmp++;
		summarize(k->a, k->na, k->meta->rate, k->meta->unit, &k->sa);
		summarize(k->b, k->nb, k->meta->rate, k->meta->unit, &k->sb);
	}
	if (vd_decide(vt, nchk, &(struct vd_opts){ VD_ALPHA, VD_EQUIV_PCT }))
		goto oom;
	for (unsigned i = 0; i < nchk; i++) {
		ck[i].v = vt[i];
		ntests += vt[i].tested;
		nsig += vt[i].kind == VD_DIFFERENT;
		ck[i].fails = fail_set && vd_fails(&vt[i], ck[i].meta->better, fail_pct);
		nfail += ck[i].fails;
	}
	fprintf(out, "%-20s %-16s %-30s %-26s %-26s %-28s %9s  %s\n", "experiment", "cell", "figure", "earlier runs",
		"latest runs", "effect [interval]", "p (adj.)", "verdict");
	for (unsigned i = 0; i < nchk; i++) {
		struct chk *k = &ck[i];
		char a[128], b[128], pa[24], est[64];
		bool sig = k->v.kind == VD_DIFFERENT;
		/* why untested, unless the verdict says it ("same (no variation)") */
		const char *why = !k->v.tested && k->v.kind == VD_UNDECIDED ? k->v.why : NULL;

		if (!k->na) {
			bool seen = false;

			for (unsigned j = 0; j < i && !seen; j++)
				seen = !strcmp(ck[j].meta->cell, k->meta->cell) && ck[j].meta->exp_id == k->meta->exp_id;
			if (!seen) {
				fprintf(out, "%-20.20s %-16.16s (no earlier runs with config %s: nothing to check against)\n",
				       k->exp, k->meta->cell, k->meta->config_hash[0] ? k->meta->config_hash : "-");
			}
			continue;
		}
		if (!i || strcmp(ck[i - 1].meta->cell, k->meta->cell) || ck[i - 1].meta->exp_id != k->meta->exp_id)
			fprintf(out, "%-20.20s %-16.16s (config %s) latest: %u run%s on %s; earlier: %u run%s on %s\n", k->exp,
			       k->meta->cell, k->meta->config_hash[0] ? k->meta->config_hash : "-", k->nb, k->nb == 1 ? "" : "s",
			       k->meta->kernel, k->na, k->na == 1 ? "" : "s", k->kernels);
		if (!c->all && !k->meta->key_fig && !sig && k->v.family != VD_CONFIRMATORY)
			continue;
		fmt_mean(&k->sa, k->meta->unit, a, sizeof(a));
		fmt_mean(&k->sb, k->meta->unit, b, sizeof(b));
		if (isnan(k->v.p_adj))
			snprintf(pa, sizeof(pa), "-");
		else
			snprintf(pa, sizeof(pa), "%.2g", k->v.p_adj);
		if (k->v.kind == VD_NA)
			snprintf(est, sizeof(est), "-");
		else if (k->v.e.log && !isnan(k->v.lo))
			snprintf(est, sizeof(est), "x%.3g [%.3g, %.3g]", k->v.ratio, k->v.lo, k->v.hi);
		else if (k->v.e.log)
			snprintf(est, sizeof(est), "x%.3g", k->v.ratio);
		else if (!isnan(k->v.lo))
			snprintf(est, sizeof(est), "%+.3g [%.3g, %.3g]", k->v.ratio, k->v.lo, k->v.hi);
		else
			snprintf(est, sizeof(est), "%+.3g", k->v.ratio);
		fprintf(out, "%-20.20s %-16.16s %-30.30s %-26s %-26s %-28s %9s  %s%s%s%s%s\n", k->exp, k->meta->cell, k->meta->name,
		       a, b, est, pa, vd_word(&k->v, k->meta->better), why ? " (" : "", why ? why : "", why ? ")" : "",
		       k->fails ? " REGRESSION" : "");
	}
	fprintf(out, "\n%u tests (the latest experiment's runs against the earlier runs of the same cell and configuration\n"
	       "hash; ratios of geometric means on the log scale, Welch; primary figures Holm, the others\n"
	       "Benjamini-Hochberg, derived ones not tested; fsbench(1) STATISTICS): %u decided different", ntests, nsig);
	if (c->fail_if_worse)
		fprintf(out, "; %u regression%s: decided worse by more than %g%%", nfail, nfail == 1 ? "" : "s", fail_pct);
	fprintf(out, ".\n");
	say_flagged(out, nflag, nleft, "");
	if (!ncmp) {
		/* a gate that checked nothing must not pass: exit 3, "cannot decide here" */
		fprintf(stderr, "%s: nothing to check: %s%s\n", prog,
			!nchk && nleft ? "every run was left out (--exclude-flagged)" :
			!nchk ? "the database has no runs" : "no figure has both latest and earlier runs of the same configuration",
			c->experiment || c->cell ? " for that selection" : "");
		code = EXIT_UNSUPPORTED;
		goto out;
	}
	if (c->junit && check_junit(c, ck, nchk, &t0, prog))
		goto out;
	code = c->fail_if_worse && nfail ? EXIT_FAILED : EXIT_OK;
	goto out;
oom:
	fprintf(stderr, "%s: out of memory\n", prog);
out:
	for (unsigned i = 0; i < nchk; i++) {
		free((void *)ck[i].meta);
		free(ck[i].a);
		free(ck[i].b);
	}
	free(ck);
	free(vt);
	free(v);
	free(x);
	return code;
}

int cmd_history(int argc, char **argv, const char *prog)
{
	struct hist_config c, defaults;
	const char *ops[3];
	char **opts = calloc((size_t)argc + 1, sizeof(char *));
	char err[1024], path[4096], q[QUOTE_MAX];
	int nopts, nops, code;
	struct history *h;

	hist_defaults(&c);
	defaults = c;
	if (!opts) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAILED;
	}
	if (cmd_split_operands(&hist_cmd, argc, argv, opts, &nopts, ops, &nops, 2, err, sizeof(err)) ||
	    opt_parse(&hist_cmd, nopts, opts, &c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, !strncmp(err, "more than", 9) ? "too many operands" : err);
		free(opts);
		return EXIT_USAGE;
	}
	free(opts);
	if (c.help) {
		opt_text_help(&hist_cmd, &defaults, prog, stdout);
		printf("\nExit status: 0; 1 when check --fail-if-worse finds a regression, or the database cannot be read\n"
		       "or is damaged (never repaired); 2 on a bad command line; 3 when nothing is left to check or draw\n"
		       "(e.g. every run left out by --exclude-flagged, no earlier runs of the same configuration).\n");
		return EXIT_OK;
	}
	if (nops < 1) {
		fprintf(stderr, "%s: needs a command: list, show, trend or check (%s --help)\n", prog, prog);
		return EXIT_USAGE;
	}
	if ((!strcmp(ops[0], "list") || !strcmp(ops[0], "check")) ? nops != 1 :
	    (!strcmp(ops[0], "show") || !strcmp(ops[0], "trend")) ? nops != 2 : true) {
		if (strcmp(ops[0], "list") && strcmp(ops[0], "check") && strcmp(ops[0], "show") && strcmp(ops[0], "trend"))
			fprintf(stderr, "%s: unknown command '%s' (list, show, trend or check)\n", prog,
				quote_str(ops[0], q, sizeof(q)));
		else
			fprintf(stderr, "%s: usage: %s list | show ID|EXPERIMENT | trend FIGURE | check\n", prog, prog);
		return EXIT_USAGE;
	}
	if (c.output) {
		const char *ext = strrchr(c.output, '.');

		if (strcmp(ops[0], "trend")) {
			fprintf(stderr, "%s: option -o is for trend\n", prog);
			return EXIT_USAGE;
		}
		if (!ext || (strcasecmp(ext, ".png") && strcasecmp(ext, ".svg"))) {
			fprintf(stderr, "%s: option -o: '%s' ends in neither .png nor .svg\n", prog,
				quote_str(c.output, q, sizeof(q)));
			return EXIT_USAGE;
		}
		if ((code = outputs_check(prog, &(const struct outputs_dest){ "-o", c.output, OUTFILE_REPLACE }, 1)))
			return code;
	}
	if (c.junit) {
		if (strcmp(ops[0], "check")) {
			fprintf(stderr, "%s: option --junit is for check\n", prog);
			return EXIT_USAGE;
		}
		if ((code = outputs_check(prog, &(const struct outputs_dest){ "--junit", c.junit, OUTFILE_REPLACE }, 1)))
			return code;
	}
	if (c.db)
		snprintf(path, sizeof(path), "%s", c.db);
	else if (history_default_path(path, sizeof(path), err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	/* reading never creates the database */
	if (history_open(path, false, &h, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_FAILED;
	}
	if (!strcmp(ops[0], "list"))
		code = do_list(h, prog);
	else if (!strcmp(ops[0], "show"))
		code = do_show(h, ops[1], &c, prog);
	else if (!strcmp(ops[0], "trend"))
		code = do_trend(h, ops[1], &c, prog);
	else
		code = do_check(h, &c, prog);
	history_close(h);
	return code;
}
