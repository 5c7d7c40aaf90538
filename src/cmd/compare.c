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
#include "report/compare_text.h"
#include "report/result_read.h"

#define CMP_MAX_RESULTS 16

struct cmp_config {
	bool force;
	const char *fail_if_worse;
	const char *json;
	int help;
};

#define F(x) offsetof(struct cmp_config, x)
static const struct opt cmp_opts[] = {
	{ 0, "force", OPT_FLAG, F(force), NULL, 0, 0, 0, 0,
	  "compare results of different workloads (only the figures they share line up)" },
	{ 0, "fail-if-worse", OPT_STR, F(fail_if_worse), "PCT", 0, 0, 0, 0,
	  "exit 1 when a figure is worse than the baseline by more than PCT % (significantly, when both sides have repeated runs)" },
	{ 0, "json", OPT_STR, F(json), "FILE", 0, 0, 0, 0,
	  "write the comparison as JSON to FILE ('-' or /dev/stdout: stdout, then nothing else goes to stdout)" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help" },
	{ 0 },
};

const struct opt_cmd cmp_cmd = {
	.name = "compare",
	.summary = "Compare results (JSON files of fsbench runs) side by side: RESULT... after the options,\n"
		   "the first is the baseline. Repeated runs (--repeat) get intervals and significance marks.",
	.opts = cmp_opts,
};

void cmp_defaults(struct cmp_config *c)
{
	memset(c, 0, sizeof(*c));
}

/* for fsbench __man-options */
void compare_options(bool list, FILE *out)
{
	struct cmp_config d;

	cmp_defaults(&d);
	if (list)
		opt_text_list(&cmp_cmd, out);
	else
		opt_text_man(&cmp_cmd, &d, out);
}

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

int cmd_load_results(const char *prog, const char **files, int nfiles, struct rr_result *res)
{
	char err[1024];

	for (int i = 0; i < nfiles; i++) {
		char name[QUOTE_MAX];

		if (rr_load_file(files[i], &res[i], err, sizeof(err))) {
			fprintf(stderr, "%s: '%s': %s\n", prog, quote_str(files[i], name, sizeof(name)), err);
			for (int j = 0; j <= i; j++)
				rr_free(&res[j]);
			return -1;
		}
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

/* The delta of result i against the baseline and its test; the verdict waits for the
 * correction over every test of the comparison (verdict()). */
static void delta(struct cmp_table *t, struct cmp_row *row, unsigned i, double *va, unsigned na,
		  double *vb, unsigned nb)
{
	struct cmp_delta *d = &row->delta[i];
	const struct cmp_cell *a = &row->cell[0], *b = &row->cell[i];

	memset(d, 0, sizeof(*d));
	d->p_adj = NAN;
	if (!a->present || !b->present)
		return;
	if (a->s.mean != 0) {
		d->pct_valid = true;
		d->pct = (b->s.mean - a->s.mean) / fabs(a->s.mean) * 100;
	}
	if (stats_welch(va, na, vb, nb, row->fig->rate, &d->w) == 0)
		d->tested = true;
	else
		t->untested |= b->s.mean != a->s.mean;
}

static void verdict(struct cmp_table *t, struct cmp_row *row, unsigned i)
{
	struct cmp_delta *d = &row->delta[i];
	const struct cmp_cell *a = &row->cell[0], *b = &row->cell[i];
	enum rr_dir dir = row->fig->dir;
	bool up;

	if (!a->present || !b->present)
		return;
	if (d->tested && !(d->p_adj < STATS_ALPHA)) {
		d->verdict = CMP_SAME;
		return;
	}
	if (b->s.mean == a->s.mean) {
		d->verdict = CMP_SAME;
		return;
	}
	if (!d->pct_valid)
		return;    /* from 0 to something: no percentage, no verdict */
	up = b->s.mean > a->s.mean;
	if (dir == RR_NEUTRAL)
		d->verdict = CMP_CHANGED;
	else
		d->verdict = (up == (dir == RR_HIGHER_BETTER)) ? CMP_BETTER : CMP_WORSE;
	if (t->fail_set && d->verdict == CMP_WORSE && fabs(d->pct) > t->fail_pct)
		d->fails = true;
}

/* Holm's correction over every delta tested (all figures, all results against the baseline):
 * the stars and verdicts go by the adjusted p-values. */
static int correct(struct cmp_table *t)
{
	unsigned n = t->nrows * (t->nres ? t->nres - 1 : 0), k = 0;
	double *p = malloc((n ? n : 1) * sizeof(double));

	if (!p)
		return -1;
	for (unsigned r = 0; r < t->nrows; r++)
		for (unsigned i = 1; i < t->nres; i++)
			p[k++] = t->rows[r].delta[i].tested ? t->rows[r].delta[i].w.p : NAN;
	t->ntests = stats_holm(p, n, p);
	k = 0;
	for (unsigned r = 0; r < t->nrows; r++)
		for (unsigned i = 1; i < t->nres; i++) {
			t->rows[r].delta[i].p_adj = p[k++];
			verdict(t, &t->rows[r], i);
			t->nfailing += t->rows[r].delta[i].fails;
		}
	free(p);
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

				row->cell[k].present = n > 0 && !stats_summarize(vb, n, fig->rate, &row->cell[k].s);
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
	if (nfiles < 2) {
		fprintf(stderr, "%s: needs at least two results (the first is the baseline)\n", prog);
		return EXIT_USAGE;
	}
	if (c.fail_if_worse) {
		char q[QUOTE_MAX];

		if (parse_pct(c.fail_if_worse, &t.fail_pct)) {
			fprintf(stderr, "%s: option --fail-if-worse: '%s' is not a percentage (0..1000000)\n", prog,
				quote_str(c.fail_if_worse, q, sizeof(q)));
			return EXIT_USAGE;
		}
		t.fail_set = true;
	}
	if (c.json) {
		const struct outputs_dest d = { "--json", c.json, OUTFILE_REPLACE };

		if ((code = outputs_check(prog, &d, 1)))
			return code;
	}
	if (cmd_load_results(prog, files, nfiles, res))
		return EXIT_USAGE;
	t.nres = (unsigned)nfiles;
	t.res = res;
	for (int i = 1; i < nfiles && !c.force; i++) {
		if (strcmp(res[i].workload, res[0].workload)) {
			fprintf(stderr, "%s: '%s' is a %s result, '%s' a %s result: refusing to compare different "
				"workloads (--force compares the figures they share)\n", prog, res[0].path,
				res[0].workload, res[i].path, res[i].workload);
			code = EXIT_USAGE;
			goto out;
		}
	}
	for (int i = 0; i < nfiles; i++)
		if (res[i].ncomplete < res[i].nruns)
			fprintf(stderr, "%s: warning: '%s': %u of %u runs incomplete (%s); their figures are partial\n",
				prog, res[i].path, res[i].nruns - res[i].ncomplete, res[i].nruns,
				res[i].incomplete_reason ? res[i].incomplete_reason : "unknown");
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
