/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare's output: what differs, then one row per figure, one column per result, then the
 * deltas against the baseline with their verdicts; and the same as JSON. */
#include "report/compare_text.h"

#include <math.h>
#include <string.h>

#define VAL_W 22
#define NAME_W 30

const char *cmp_verdict_name(const struct cmp_row *row, const struct cmp_delta *d)
{
	return vd_word(&d->v, row->fig->dir == RR_HIGHER_BETTER ? 1 : row->fig->dir == RR_LOWER_BETTER ? -1 : 0);
}

const char *cmp_display(const char *unit, double *v)
{
	if (!strcmp(unit, "ns")) {
		*v /= 1000;
		return "us";
	}
	return unit;
}

/* enough digits to see a few % differences, no more */
void cmp_fmt_num(double v, double ref, char *buf, size_t len)
{
	double a = fabs(ref);

	if (!isfinite(v))
		snprintf(buf, len, "inf");
	else if (a >= 1e5)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

static void fmt_cell(const struct cmp_cell *c, const char *unit, char *buf, size_t len)
{
	double m, ci;
	char a[40], b[40];

	if (!c->present) {
		snprintf(buf, len, "-");
		return;
	}
	m = c->s.mean;
	ci = c->s.ci;
	cmp_display(unit, &m);
	cmp_display(unit, &ci);
	cmp_fmt_num(m, m, a, sizeof(a));
	if (c->s.n < 2 || c->s.sd == 0) {
		snprintf(buf, len, "%s", a);
		return;
	}
	{
		double lo = c->s.lo, hi = c->s.hi;
		char l[40];

		(void)ci;
		cmp_display(unit, &lo);
		cmp_display(unit, &hi);
		cmp_fmt_num(lo, m, l, sizeof(l));
		cmp_fmt_num(hi, m, b, sizeof(b));
		snprintf(buf, len, "%s [%s, %s]", a, l, b);
	}
}

/* "-4.8% worse x0.952 [0.93, 0.97]": the change, the verdict, the ratio (or difference) and its
 * interval; untested verdicts say so without numbers that look like a test */
static void fmt_delta(const struct cmp_row *row, const struct cmp_delta *d, char *buf, size_t len)
{
	const struct vd_test *v = &d->v;
	double pct = vd_pct(v);
	size_t at;

	if (v->kind == VD_NA) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (isfinite(pct))
		at = (size_t)snprintf(buf, len, "%+.1f%% %s", pct, cmp_verdict_name(row, d));
	else
		at = (size_t)snprintf(buf, len, "%s", cmp_verdict_name(row, d));
	if (v->tested && at < len) {
		if (v->e.log)
			at += (size_t)snprintf(buf + at, len - at, " x%.3g [%.3g, %.3g]", v->ratio, v->lo, v->hi);
		else
			at += (size_t)snprintf(buf + at, len - at, " %+.3g [%.3g, %.3g]", v->ratio, v->lo, v->hi);
	}
	if (d->fails && at < len)
		snprintf(buf + at, len - at, " FAIL");
}

/* printf's width counts bytes; '±' is two of them and one column */
static void pad(FILE *out, const char *s, int width)
{
	int cols = 0;

	for (const char *p = s; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	fputs(s, out);
	for (; cols < width; cols++)
		fputc(' ', out);
}

void cmp_print_text(FILE *out, const struct cmp_table *t)
{
	char buf[128];

	fprintf(out, "Comparing %u %s results; baseline: %s\n", t->nres, t->res[0].workload, t->res[0].name);
	for (unsigned i = 0; i < t->nres; i++)
		fprintf(out, "  [%u] %s: %s, %u run%s%s\n", i + 1, t->res[i].name, t->res[i].path,
			t->res[i].nruns, t->res[i].nruns == 1 ? "" : "s",
			t->res[i].ncomplete < t->res[i].nruns ? " (some incomplete)" : "");
	fputc('\n', out);
	if (!t->ndiffs) {
		fprintf(out, "The results do not differ in configuration, environment or command line.\n\n");
	} else {
		fprintf(out, "What differs:\n");
		for (unsigned d = 0; d < t->ndiffs; d++) {
			const struct cmp_diff *df = &t->diffs[d];
			bool shortv = true;

			for (unsigned i = 0; i < t->nres; i++)
				shortv &= !df->value[i] || strlen(df->value[i]) < VAL_W;
			if (shortv && strlen(df->key) < NAME_W + 8) {
				fputs("  ", out);
				pad(out, df->key, NAME_W + 8);
				for (unsigned i = 0; i < t->nres; i++) {
					fputc(' ', out);
					pad(out, df->value[i] ? df->value[i] : "(none)", VAL_W);
				}
				fputc('\n', out);
				continue;
			}
			fprintf(out, "  %s\n", df->key);
			for (unsigned i = 0; i < t->nres; i++)
				fprintf(out, "      [%u] %s\n", i + 1, df->value[i] ? df->value[i] : "(none)");
		}
		fputc('\n', out);
	}

	pad(out, "figure", NAME_W);
	pad(out, " unit", 8);
	for (unsigned i = 0; i < t->nres; i++) {
		snprintf(buf, sizeof(buf), " [%u] %.*s", i + 1, VAL_W - 6, t->res[i].name);
		pad(out, buf, VAL_W + 1);
	}
	for (unsigned i = 1; i < t->nres; i++) {
		snprintf(buf, sizeof(buf), " [%u] vs [1]", i + 1);
		pad(out, buf, 45);
	}
	fputc('\n', out);
	for (unsigned r = 0; r < t->nrows; r++) {
		const struct cmp_row *row = &t->rows[r];
		double one = 1;

		pad(out, row->fig->name, NAME_W);
		fputc(' ', out);
		pad(out, cmp_display(row->fig->unit, &one), 7);
		for (unsigned i = 0; i < t->nres; i++) {
			fputc(' ', out);
			fmt_cell(&row->cell[i], row->fig->unit, buf, sizeof(buf));
			pad(out, buf, VAL_W);
		}
		for (unsigned i = 1; i < t->nres; i++) {
			fputc(' ', out);
			fmt_delta(row, &row->delta[i], buf, sizeof(buf));
			if (i + 1 < t->nres)
				pad(out, buf, 44);
			else
				fputs(buf, out);
		}
		fputc('\n', out);
	}
	fprintf(out, "\nMeans over runs with their 95%% interval [low, high]; rates (MiB/s, IOPS, files/s) use the\n"
		     "harmonic mean. Deltas against [1]: rates, times and latencies as the ratio of geometric means\n"
		     "x[low, high] on the log scale (Welch), percentages as differences. Primary figures: %u tests, Holm;\n"
		     "the others (exploratory): %u tests, Benjamini-Hochberg; derived figures are not tested.\n"
		     "better/worse: the corrected interval excludes 1; equivalent: the 90%% interval lies within\n"
		     "+-%g%%; undecided: neither (more runs would tell); fsbench(1) STATISTICS.\n",
		t->nconfirm, t->nexplore, t->equiv_pct > 0 ? t->equiv_pct : VD_EQUIV_PCT);
	if (t->untested)
		fprintf(out, "Results with a single run cannot be tested: their deltas are undecided whatever their size\n"
			     "(--repeat N gives every figure an interval).\n");
	if (t->fail_set)
		fprintf(out, "--fail-if-worse %g%%: %u figure%s worse by more than that%s.\n", t->fail_pct,
			t->nfailing, t->nfailing == 1 ? " is" : "s are", t->nfailing ? " (FAIL)" : "");
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *cmp_json(const struct cmp_table *t)
{
	json_t *root = json_object(), *res = json_array(), *diffs = json_array(), *rows = json_array();
	json_t *failing = json_array();

	json_object_set_new(root, "schema", json_string("fsbench-compare"));
	json_object_set_new(root, "schema_version", json_integer(1));
	json_object_set_new(root, "workload", json_string(t->res[0].workload));
	json_object_set_new(root, "baseline", json_string(t->res[0].name));
	json_object_set_new(root, "correction", json_pack("{s:{s:s,s:i},s:{s:s,s:i},s:f,s:f}", "confirmatory", "method",
		"holm", "tests", (int)t->nconfirm, "exploratory", "method", "benjamini-hochberg", "tests", (int)t->nexplore,
		"alpha", VD_ALPHA, "equivalence_pct", t->equiv_pct > 0 ? t->equiv_pct : VD_EQUIV_PCT));
	for (unsigned i = 0; i < t->nres; i++)
		json_array_append_new(res, json_pack("{s:s,s:s,s:o,s:s,s:i,s:i}", "name", t->res[i].name,
			"path", t->res[i].path, "label", t->res[i].label ? json_string(t->res[i].label) : json_null(),
			"workload", t->res[i].workload, "runs", (int)t->res[i].nruns,
			"complete_runs", (int)t->res[i].ncomplete));
	json_object_set_new(root, "results", res);
	for (unsigned d = 0; d < t->ndiffs; d++) {
		json_t *v = json_array();

		for (unsigned i = 0; i < t->nres; i++)
			json_array_append_new(v, t->diffs[d].value[i] ? json_string(t->diffs[d].value[i]) : json_null());
		json_array_append_new(diffs, json_pack("{s:s,s:o}", "key", t->diffs[d].key, "values", v));
	}
	json_object_set_new(root, "differences", diffs);
	for (unsigned r = 0; r < t->nrows; r++) {
		const struct cmp_row *row = &t->rows[r];
		json_t *o = json_object(), *cells = json_array(), *deltas = json_array();

		json_object_set_new(o, "key", json_string(row->fig->key));
		json_object_set_new(o, "name", json_string(row->fig->name));
		json_object_set_new(o, "unit", json_string(row->fig->unit));
		json_object_set_new(o, "better", json_string(row->fig->dir == RR_HIGHER_BETTER ? "higher" :
							    row->fig->dir == RR_LOWER_BETTER ? "lower" : "neither"));
		for (unsigned i = 0; i < t->nres; i++) {
			const struct cmp_cell *c = &row->cell[i];

			if (!c->present) {
				json_array_append_new(cells, json_null());
				continue;
			}
			json_array_append_new(cells, json_pack("{s:i,s:o,s:s,s:o,s:o,s:o,s:o,s:o}", "runs", (int)c->s.n,
				"mean", jnum(c->s.mean), "mean_kind", c->s.harmonic ? "harmonic" : c->s.geometric ? "geometric" : "arithmetic",
				"ci95_half_width", c->s.n >= 2 ? jnum(c->s.ci) : json_null(),
				"ci95_low", c->s.n >= 2 ? jnum(c->s.lo) : json_null(),
				"ci95_high", c->s.n >= 2 ? jnum(c->s.hi) : json_null(),
				"sd", c->s.n >= 2 ? jnum(c->s.sd) : json_null(),
				"cv_pct", c->s.n >= 2 ? jnum(c->s.cv_pct) : json_null()));
		}
		for (unsigned i = 1; i < t->nres; i++) {
			const struct cmp_delta *d = &row->delta[i];

			const struct vd_test *v = &d->v;

			json_array_append_new(deltas, json_pack("{s:o,s:s,s:s,s:b,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b}",
				"pct", v->kind != VD_NA ? jnum(vd_pct(v)) : json_null(), "verdict", cmp_verdict_name(row, d),
				"family", vd_family_name(v->family), "tested", v->tested, "scale", v->e.log ? "ratio" : "difference",
				"ratio", v->kind != VD_NA && v->e.log ? jnum(v->ratio) : json_null(),
				"difference", v->kind != VD_NA && !v->e.log ? jnum(v->ratio) : json_null(),
				"low", v->tested ? jnum(v->lo) : json_null(), "high", v->tested ? jnum(v->hi) : json_null(),
				"p_value", v->tested ? jnum(v->e.p) : json_null(),
				"p_adjusted", v->tested ? jnum(v->p_adj) : json_null(),
				"t", v->tested ? jnum(v->e.t) : json_null(), "df", v->tested ? jnum(v->e.df) : json_null(),
				"fails", d->fails));
		}
		json_object_set_new(o, "results", cells);
		json_object_set_new(o, "deltas", deltas);
		json_array_append_new(rows, o);
		if (row->delta && t->nres > 1)
			for (unsigned i = 1; i < t->nres; i++)
				if (row->delta[i].fails) {
					json_array_append_new(failing, json_string(row->fig->key));
					break;
				}
	}
	json_object_set_new(root, "figures", rows);
	json_object_set_new(root, "fail_if_worse_pct", t->fail_set ? json_real(t->fail_pct) : json_null());
	json_object_set_new(root, "failing", failing);
	return root;
}
