/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench compare: results side by side, deltas against the first, significance from the
 * repeated runs (Welch's t-test), what differs between the results, and a regression gate. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/outputs.h"
#include "core/opt.h"
#include "report/opt_text.h"
#include "core/quote.h"
#include "core/stats.h"
#include "core/verdict.h"
#include "report/compare_text.h"
#include "report/result_read.h"

#define CMP_MAX_RESULTS 16

struct cmp_config {
	bool force;
	const char *fail_if_worse;
	const char *equivalence;
	const char *json;
	int help;
};

#define F(x) offsetof(struct cmp_config, x)
static const struct opt cmp_opts[] = {
	{ 0, "force", OPT_FLAG, F(force), NULL, 0, 0, 0, 0,
	  "compare results of different workloads (only the figures they share line up)" },
	{ 0, "fail-if-worse", OPT_STR, F(fail_if_worse), "PCT", 0, 0, 0, 0,
	  "exit 1 when a figure is decided worse than the baseline by more than PCT % (a single run per side is undecided, never a failure)" },
	{ 0, "equivalence", OPT_STR, F(equivalence), "PCT", 0, 0, 0, 0,
	  "the equivalence margin: ratios within [1/(1+PCT/100), 1+PCT/100] are equivalent (default 5)" },
	{ 0, "json", OPT_STR, F(json), "FILE", 0, 0, 0, 0,
	  "write the comparison as JSON to FILE ('-' or /dev/stdout: stdout, then nothing else goes to stdout)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help" },
	{ 0 },
};

const struct opt_cmd cmp_cmd = {
	.name = "compare",
	.summary = "Compare results (JSON files of fsbench runs) side by side: RESULT... after the options,\n"
		   "the first is the baseline. Repeated runs (--repeat) get intervals and significance marks.\n"
		   "A matrix directory DIR is each of its cells, DIR:CELL one cell (its runs as one result).",
	.opts = cmp_opts,
};

static void cmp_defaults(struct cmp_config *c)
{
	memset(c, 0, sizeof(*c));
}

static void cmp_defaults_any(void *c)
{
	cmp_defaults(c);
}

const struct cmd_options compare_options = { &cmp_cmd, sizeof(struct cmp_config), cmp_defaults_any };

/* opt_parse takes options only: move the file operands out (everything not an option or an
 * option's value; "--" ends the options). */
int cmd_split_operands(const struct opt_cmd *c, int argc, char **argv, char **opts, int *nopts,
		       const char **files, int *nfiles, int maxfiles, char *err, size_t errlen)
{
	bool only_files = false;

	*nopts = 0;
	*nfiles = 0;
	opts[(*nopts)++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool takes = false;

		if (only_files || a[0] != '-' || !a[1]) {
			if (*nfiles >= maxfiles) {
				snprintf(err, errlen, "more than %d results", maxfiles);
				return -1;
			}
			files[(*nfiles)++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_files = true;
			continue;
		}
		opts[(*nopts)++] = argv[i];
		if (a[1] == '-') {
			size_t n = strcspn(a + 2, "=");

			for (const struct opt *o = c->opts; o->sname || o->lname; o++)
				if (o->lname && strlen(o->lname) == n && !strncmp(o->lname, a + 2, n))
					takes = !a[2 + n] && o->type != OPT_FLAG && o->type != OPT_HELP;
		} else {
			for (const struct opt *o = c->opts; o->sname || o->lname; o++)
				if (o->sname == a[strlen(a) - 1] && a[2] == '\0')
					takes = o->type != OPT_FLAG && o->type != OPT_HELP;
		}
		if (takes && i + 1 < argc)
			opts[(*nopts)++] = argv[++i];
	}
	return 0;
}

static int parse_pct(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || *v < 0 || *v > 1e6)
		return -1;
	return 0;
}

/* The delta of result i against the baseline, estimated by core/verdict (a result's runs are
 * not paired with another's: unpaired); the verdict waits for the corrections (correct()). */
static void delta(struct cmp_table *t, struct cmp_row *row, unsigned i, double *va, unsigned na,
		  double *vb, unsigned nb)
{
	struct cmp_delta *d = &row->delta[i];
	const struct rr_figure *f = row->fig;
	enum vd_family fam = f->derived ? VD_FAM_NONE : f->primary ? VD_CONFIRMATORY : VD_EXPLORATORY;

	memset(d, 0, sizeof(*d));
	vd_compare(va, na, NULL, vb, nb, NULL, strcmp(f->unit, "%") != 0, fam, &d->v);
	t->untested |= !d->v.tested && d->v.kind == VD_UNDECIDED;
}

static int dir_of(const struct rr_figure *f)
{
	return f->dir == RR_HIGHER_BETTER ? 1 : f->dir == RR_LOWER_BETTER ? -1 : 0;
}

/* the corrections over every delta (all figures, all results against the baseline): Holm in
 * the confirmatory family, Benjamini-Hochberg in the exploratory one; then the verdicts, and
 * --fail-if-worse on decided verdicts only */
static int correct(struct cmp_table *t)
{
	unsigned n = t->nrows * (t->nres ? t->nres - 1 : 0), k = 0;
	struct vd_test *v = malloc((n ? n : 1) * sizeof(*v));

	if (!v)
		return -1;
	for (unsigned r = 0; r < t->nrows; r++)
		for (unsigned i = 1; i < t->nres; i++)
			v[k++] = t->rows[r].delta[i].v;
	if (vd_decide(v, n, &(struct vd_opts){ VD_ALPHA, t->equiv_pct > 0 ? t->equiv_pct : VD_EQUIV_PCT })) {
		free(v);
		return -1;
	}
	k = 0;
	for (unsigned r = 0; r < t->nrows; r++)
		for (unsigned i = 1; i < t->nres; i++) {
			struct cmp_delta *d = &t->rows[r].delta[i];

			d->v = v[k++];
			t->nconfirm += d->v.tested && d->v.family == VD_CONFIRMATORY;
			t->nexplore += d->v.tested && d->v.family == VD_EXPLORATORY;
			d->fails = t->fail_set && vd_fails(&d->v, dir_of(t->rows[r].fig), t->fail_pct);
			t->nfailing += d->fails;
		}
	free(v);
	return 0;
}

static int build_rows(struct cmp_table *t)
{
	unsigned maxruns = 1, cap = 0;
	double *va, *vb;

	for (unsigned i = 0; i < t->nres; i++) {
		cap += t->res[i].nfig;
		maxruns = t->res[i].nruns > maxruns ? t->res[i].nruns : maxruns;
	}
	t->rows = calloc(cap ? cap : 1, sizeof(*t->rows));
	va = malloc(maxruns * sizeof(double));
	vb = malloc(maxruns * sizeof(double));
	if (!t->rows || !va || !vb)
		goto oom;
	/* rows in the baseline's order, then what only later results have */
	for (unsigned i = 0; i < t->nres; i++) {
		for (unsigned f = 0; f < t->res[i].nfig; f++) {
			const struct rr_figure *fig = &t->res[i].fig[f];
			struct cmp_row *row;
			unsigned r, na;

			for (r = 0; r < t->nrows && strcmp(t->rows[r].fig->key, fig->key); r++)
				;
			if (r < t->nrows)
				continue;
			row = &t->rows[t->nrows++];
			row->fig = fig;
			row->cell = calloc(t->nres, sizeof(*row->cell));
			row->delta = calloc(t->nres, sizeof(*row->delta));
			if (!row->cell || !row->delta)
				goto oom;
			for (unsigned k = 0; k < t->nres; k++) {
				const struct rr_figure *g = rr_find(&t->res[k], fig->key);
				unsigned n = g ? rr_values(&t->res[k], g, vb) : 0;

				row->cell[k].present = n > 0 &&
						       !(!fig->rate && strcmp(fig->unit, "%") ? stats_summarize_geo(vb, n, &row->cell[k].s) :
							 stats_summarize(vb, n, fig->rate, &row->cell[k].s));
			}
			na = rr_find(&t->res[0], fig->key) ? rr_values(&t->res[0], rr_find(&t->res[0], fig->key), va) : 0;
			for (unsigned k = 1; k < t->nres; k++) {
				const struct rr_figure *g = rr_find(&t->res[k], fig->key);
				unsigned nb = g ? rr_values(&t->res[k], g, vb) : 0;

				delta(t, row, k, va, na, vb, nb);
			}
		}
	}
	free(va);
	free(vb);
	return correct(t);
oom:
	free(va);
	free(vb);
	return -1;
}

static int build_diffs(struct cmp_table *t)
{
	unsigned cap = 0;

	for (unsigned i = 0; i < t->nres; i++)
		cap += t->res[i].nfacts;
	t->diffs = calloc(cap ? cap : 1, sizeof(*t->diffs));
	if (!t->diffs)
		return -1;
	for (unsigned i = 0; i < t->nres; i++) {
		for (unsigned f = 0; f < t->res[i].nfacts; f++) {
			const char *key = t->res[i].facts[f].key;
			bool same = true, seen = false;
			const char *first = NULL;

			for (unsigned d = 0; d < t->ndiffs && !seen; d++)
				seen = !strcmp(t->diffs[d].key, key);
			/* a fact of an earlier result was already examined with this key */
			for (unsigned k = 0; k < i && !seen; k++)
				seen = rr_fact_find(&t->res[k], key) != NULL;
			if (seen)
				continue;
			for (unsigned k = 0; k < t->nres; k++) {
				const struct rr_fact *x = rr_fact_find(&t->res[k], key);
				const char *v = x ? x->value : NULL;

				if (k == 0)
					first = v;
				else if (!v != !first || (v && strcmp(v, first)))
					same = false;
			}
			if (same)
				continue;
			t->diffs[t->ndiffs].key = key;
			t->diffs[t->ndiffs].value = calloc(t->nres, sizeof(char *));
			if (!t->diffs[t->ndiffs].value)
				return -1;
			for (unsigned k = 0; k < t->nres; k++) {
				const struct rr_fact *x = rr_fact_find(&t->res[k], key);

				t->diffs[t->ndiffs].value[k] = x ? x->value : NULL;
			}
			t->ndiffs++;
		}
	}
	return 0;
}

static void table_free(struct cmp_table *t)
{
	for (unsigned r = 0; r < t->nrows; r++) {
		free(t->rows[r].cell);
		free(t->rows[r].delta);
	}
	free(t->rows);
	for (unsigned d = 0; d < t->ndiffs; d++)
		free((void *)t->diffs[d].value);
	free(t->diffs);
}

/* --fail-if-worse and --equivalence into the table: 0, or -1 said */
static int pct_opts(const struct cmp_config *c, struct cmp_table *t, const char *prog)
{
	char q[QUOTE_MAX];

	if (c->fail_if_worse) {
		if (parse_pct(c->fail_if_worse, &t->fail_pct)) {
			fprintf(stderr, "%s: option --fail-if-worse: '%s' is not a percentage (0..1000000)\n", prog,
				quote_str(c->fail_if_worse, q, sizeof(q)));
			return -1;
		}
		t->fail_set = true;
	}
	if (c->equivalence &&
	    (parse_pct(c->equivalence, &t->equiv_pct) || !(t->equiv_pct > 0) || t->equiv_pct >= 100)) {
		fprintf(stderr, "%s: option --equivalence: '%s' is not a percentage above 0 and below 100\n", prog,
			quote_str(c->equivalence, q, sizeof(q)));
		return -1;
	}
	return 0;
}

/* one workload unless --force (-1 said), and a warning for each result with incomplete runs */
static int results_check(const struct rr_result *res, int n, bool force, const char *prog)
{
	for (int i = 1; i < n && !force; i++) {
		if (strcmp(res[i].workload, res[0].workload)) {
			fprintf(stderr, "%s: '%s' is a %s result, '%s' a %s result: refusing to compare different "
				"workloads (--force compares the figures they share)\n", prog, res[0].path,
				res[0].workload, res[i].path, res[i].workload);
			return -1;
		}
	}
	for (int i = 0; i < n; i++)
		if (res[i].ncomplete < res[i].nruns)
			fprintf(stderr, "%s: warning: '%s': %u of %u runs incomplete (%s); their figures are partial\n",
				prog, res[i].path, res[i].nruns - res[i].ncomplete, res[i].nruns,
				res[i].incomplete_reason ? res[i].incomplete_reason : "unknown");
	return 0;
}

int cmd_compare(int argc, char **argv, const char *prog)
{
	struct cmp_config c, defaults;
	struct rr_result res[CMP_MAX_RESULTS];
	struct cmp_table t = { 0 };
	const char *files[CMP_MAX_RESULTS];
	char **opts = calloc((size_t)argc + 1, sizeof(char *));
	char err[512];
	int nopts, nfiles, code = EXIT_OK;

	cmp_defaults(&c);
	defaults = c;
	if (!opts) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAILED;
	}
	if (cmd_split_operands(&cmp_cmd, argc, argv, opts, &nopts, files, &nfiles, CMP_MAX_RESULTS, err,
			       sizeof(err)) || opt_parse(&cmp_cmd, nopts, opts, &c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		free(opts);
		return EXIT_USAGE;
	}
	free(opts);
	if (c.help) {
		opt_text_help(&cmp_cmd, &defaults, prog, stdout);
		printf("\nExit status: 0, 1 when --fail-if-worse is exceeded, 2 on a bad command line or result file.\n");
		return EXIT_OK;
	}
	if (nfiles < 1) {
		fprintf(stderr, "%s: needs at least two results (the first is the baseline)\n", prog);
		return EXIT_USAGE;
	}
	if (pct_opts(&c, &t, prog))
		return EXIT_USAGE;
	if (c.json) {
		const struct outputs_dest d = { "--json", c.json, OUTFILE_REPLACE };

		if ((code = outputs_check(prog, &d, 1)))
			return code;
	}
	if (cmd_load_results(prog, files, nfiles, res, CMP_MAX_RESULTS, &nfiles))
		return EXIT_USAGE;
	if (nfiles < 2) {
		fprintf(stderr, "%s: needs at least two results (the first is the baseline)\n", prog);
		code = EXIT_USAGE;
		goto out;
	}
	t.nres = (unsigned)nfiles;
	t.res = res;
	if (results_check(res, nfiles, c.force, prog)) {
		code = EXIT_USAGE;
		goto out;
	}
	if (build_rows(&t) || build_diffs(&t)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		code = EXIT_FAILED;
		goto out;
	}
	if (!outfile_is_stdout(c.json))
		cmp_print_text(stdout, &t);
	fflush(stdout);
	if (c.json) {
		json_t *root = cmp_json(&t);
		int rc = root ? outputs_json(prog, c.json, root) : -ENOMEM;

		if (!root)
			fprintf(stderr, "%s: out of memory\n", prog);
		json_decref(root);
		if (rc) {
			code = EXIT_FAILED;
			goto out;
		}
	}
	if (t.nfailing)
		code = EXIT_FAILED;
out:
	table_free(&t);
	for (int i = 0; i < nfiles; i++)
		rr_free(&res[i]);
	return code;
}
