/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench history check: the latest experiment of each name (and host) against the earlier runs
 * of the same cell and configuration hash, decided by core/verdict; --fail-if-worse a CI gate,
 * --junit its XML, --bisect the exit status git bisect run wants (0 good, 1 bad, 125 skip). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "cmd/history_int.h"
#include "cmd/outputs.h"
#include "core/figure.h"
#include "core/hchange.h"
#include "core/quote.h"
#include "core/verdict.h"
#include "report/junit.h"
#include "report/result_read.h"

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

struct chk_set {
	struct chk *ck;
	unsigned n, cap;
	struct history_exp *x;               /* the experiments (the checks point at their names) */
	unsigned nflag, nleft;               /* runs flagged, of them left out */
	unsigned ntests, nsig, nfail, ncmp;
	double fail_pct;
};

static void chk_free(struct chk_set *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		free((void *)s->ck[i].meta);
		free(s->ck[i].a);
		free(s->ck[i].b);
	}
	free(s->ck);
	free(s->x);
}

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

/* x[e] is its name's latest experiment (on its host, unless --all-hosts) */
static bool latest_exp(const struct history_exp *x, unsigned nx, unsigned e, const struct hist_config *c)
{
	for (unsigned f = 0; f < nx; f++)
		if (f != e && !strcmp(x[f].name, x[e].name) && (c->all_hosts || !strcmp(x[f].host, x[e].host)) &&
		    (strcmp(x[f].started, x[e].started) > 0 || (!strcmp(x[f].started, x[e].started) && x[f].id > x[e].id)))
			return false;
	return true;
}

/* an earlier run that k's latest runs are checked against */
static bool earlier_of(const struct history_val *w, const struct history_val *m, long long latest_id,
		       const struct hist_config *c)
{
	return w->exp_id != latest_id && (c->all_hosts || !strcmp(w->host, m->host)) &&
	       (!c->baseline || !strcmp(w->kernel, c->baseline));
}

/* the check of v[i]'s cell and figure: its latest values (experiment x) and earlier ones */
static int chk_new(struct chk_set *s, const struct history_exp *x, const struct history_val *v, unsigned nv,
		   unsigned i, const struct hist_config *c)
{
	struct chk *k;

	if (s->n == s->cap) {
		struct chk *nc = realloc(s->ck, (s->cap = s->cap ? s->cap * 2 : 64) * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		s->ck = nc;
	}
	k = &s->ck[s->n++];
	memset(k, 0, sizeof(*k));
	k->exp = x->name;
	k->workload = x->workload;
	/* the history_val array lives until the next experiment: copy what is kept */
	if (!(k->meta = malloc(sizeof(*k->meta))) || !(k->a = malloc(nv * sizeof(double))) ||
	    !(k->b = malloc(nv * sizeof(double))))
		return -ENOMEM;
	*(struct history_val *)k->meta = v[i];
	for (unsigned j = 0; j < nv; j++) {
		if (strcmp(v[j].cell, v[i].cell) || strcmp(v[j].key, v[i].key) ||
		    strcmp(v[j].config_hash, v[i].config_hash) || !hist_take(&v[j], c))
			continue;
		if (v[j].exp_id == x->id) {
			k->b[k->nb++] = v[j].value;
		} else if (earlier_of(&v[j], &v[i], x->id, c)) {
			size_t at = strlen(k->kernels);

			k->a[k->na++] = v[j].value;
			if (!strstr(k->kernels, v[j].kernel) && at + strlen(v[j].kernel) + 3 < sizeof(k->kernels))
				snprintf(k->kernels + at, sizeof(k->kernels) - at, "%s%s", at ? ", " : "", v[j].kernel);
		}
	}
	return 0;
}

/* every check of experiment x (its name's latest) */
static int gather_exp(struct history *h, const struct history_exp *x, const struct hist_config *c, struct chk_set *s,
		      char *err, size_t errlen)
{
	struct history_val *v;
	unsigned nv, f, l;

	if (history_values(h, 0, x->name, c->cell, NULL, &v, &nv, err, errlen))
		return -1;
	hist_count_flagged(v, nv, 0, NULL, c, &f, &l);
	s->nflag += f;
	s->nleft += l;
	for (unsigned i = 0; i < nv; i++) {
		bool seen = false;

		if (v[i].exp_id != x->id || !hist_take(&v[i], c))
			continue;
		for (unsigned j = 0; j < s->n && !seen; j++)
			seen = s->ck[j].meta->exp_id == x->id && !strcmp(s->ck[j].meta->cell, v[i].cell) &&
			       !strcmp(s->ck[j].meta->key, v[i].key);
		if (!seen && chk_new(s, x, v, nv, i, c)) {
			free(v);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	free(v);
	return 0;
}

static int gather(struct history *h, const struct hist_config *c, struct chk_set *s, const char *prog)
{
	struct history_exp *x;
	unsigned nx;
	char err[512];

	if (history_experiments(h, &s->x, &nx, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return -1;
	}
	x = s->x;
	for (unsigned e = 0; e < nx; e++) {
		if ((c->experiment && strcmp(x[e].name, c->experiment)) || !latest_exp(x, nx, e, c))
			continue;
		if (gather_exp(h, &x[e], c, s, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			return -1;
		}
	}
	return 0;
}

/* every check's verdict: the same corrections as report and compare */
static int decide(struct chk_set *s, bool fail_set)
{
	struct vd_test *vt = malloc((s->n ? s->n : 1) * sizeof(*vt));

	if (!vt)
		return -1;
	for (unsigned i = 0; i < s->n; i++) {
		struct chk *k = &s->ck[i];
		unsigned fl = rr_figure_flags(k->workload, k->meta->key);
		enum vd_family fam = fl & FIG_DERIVED ? VD_FAM_NONE : fl & FIG_PRIMARY ? VD_CONFIRMATORY : VD_EXPLORATORY;

		/* the earlier runs are not paired with the latest: unpaired, as report's incomplete rounds */
		vd_compare(k->a, k->na, NULL, k->b, k->nb, NULL, strcmp(k->meta->unit, "%") != 0, fam, &vt[i]);
		if (!k->na || !k->nb)
			continue;
		s->ncmp++;
		hist_summarize(k->a, k->na, k->meta->rate, k->meta->unit, &k->sa);
		hist_summarize(k->b, k->nb, k->meta->rate, k->meta->unit, &k->sb);
	}
	if (vd_decide(vt, s->n, &(struct vd_opts){ VD_ALPHA, VD_EQUIV_PCT })) {
		free(vt);
		return -1;
	}
	for (unsigned i = 0; i < s->n; i++) {
		s->ck[i].v = vt[i];
		s->ntests += vt[i].tested;
		s->nsig += vt[i].kind == VD_DIFFERENT;
		s->ck[i].fails = fail_set && vd_fails(&vt[i], s->ck[i].meta->better, s->fail_pct);
		s->nfail += s->ck[i].fails;
	}
	free(vt);
	return 0;
}

/* the cell's heading line before its first figure; "nothing to check against" for a cell without
 * earlier runs. false: the row is not printed. */
static bool print_cell(FILE *out, const struct chk_set *s, unsigned i)
{
	const struct chk *k = &s->ck[i];
	bool first = true;

	for (unsigned j = 0; j < i && first; j++)
		first = !(!strcmp(s->ck[j].meta->cell, k->meta->cell) && s->ck[j].meta->exp_id == k->meta->exp_id);
	if (!k->na) {
		if (first)
			fprintf(out, "%-20.20s %-16.16s (no earlier runs with config %s: nothing to check against)\n", k->exp,
				k->meta->cell, k->meta->config_hash[0] ? k->meta->config_hash : "-");
		return false;
	}
	if (!i || strcmp(s->ck[i - 1].meta->cell, k->meta->cell) || s->ck[i - 1].meta->exp_id != k->meta->exp_id)
		fprintf(out, "%-20.20s %-16.16s (config %s) latest: %u run%s on %s; earlier: %u run%s on %s\n", k->exp,
			k->meta->cell, k->meta->config_hash[0] ? k->meta->config_hash : "-", k->nb, k->nb == 1 ? "" : "s",
			k->meta->kernel, k->na, k->na == 1 ? "" : "s", k->kernels);
	return true;
}

static void print_table(FILE *out, const struct hist_config *c, const struct chk_set *s)
{
	fprintf(out, "%-20s %-16s %-30s %-26s %-26s %-28s %9s  %s\n", "experiment", "cell", "figure", "earlier runs",
		"latest runs", "effect [interval]", "p (adj.)", "verdict");
	for (unsigned i = 0; i < s->n; i++) {
		const struct chk *k = &s->ck[i];
		char a[128], b[128], pa[24], est[64];
		bool sig = k->v.kind == VD_DIFFERENT;
		/* why untested, unless the verdict says it ("same (no variation)") */
		const char *why = !k->v.tested && k->v.kind == VD_UNDECIDED ? k->v.why : NULL;

		if (!print_cell(out, s, i) || (!c->all && !k->meta->key_fig && !sig && k->v.family != VD_CONFIRMATORY))
			continue;
		hist_fmt_mean(&k->sa, k->meta->unit, a, sizeof(a));
		hist_fmt_mean(&k->sb, k->meta->unit, b, sizeof(b));
		if (isnan(k->v.p_adj))
			snprintf(pa, sizeof(pa), "-");
		else
			snprintf(pa, sizeof(pa), "%.2g", k->v.p_adj);
		hist_fmt_effect(&k->v, est, sizeof(est));
		fprintf(out, "%-20.20s %-16.16s %-30.30s %-26s %-26s %-28s %9s  %s%s%s%s%s\n", k->exp, k->meta->cell,
			k->meta->name, a, b, est, pa, vd_word(&k->v, k->meta->better), why ? " (" : "", why ? why : "",
			why ? ")" : "", k->fails ? " REGRESSION" : "");
	}
}

/* --bisect, over the primary figures checked (none: the key figures): 1 bad when one is decided
 * worse by more than the margin (--fail-if-worse, else VD_EQUIV_PCT); 0 good when every one's
 * interval rules out a regression beyond it (core/hchange); else 125, cannot decide (nothing
 * compared, or an interval reaching beyond the margin). Exploratory figures do not bisect.
 * *why: what made it 125. */
static int bisect_status(const struct chk_set *s, const char **why)
{
	bool any_primary = false, open = false, bad = false;

	*why = NULL;
	if (!s->ncmp) {
		*why = "nothing compared";
		return 125;
	}
	for (unsigned i = 0; i < s->n; i++)
		any_primary |= s->ck[i].na && s->ck[i].nb && s->ck[i].v.family == VD_CONFIRMATORY;
	for (unsigned i = 0; i < s->n; i++) {
		const struct chk *k = &s->ck[i];

		if (!k->na || !k->nb || (any_primary ? k->v.family != VD_CONFIRMATORY : !k->meta->key_fig))
			continue;
		bad |= vd_fails(&k->v, k->meta->better, s->fail_pct);
		open |= !hc_rules_out_worse(&k->v, k->meta->better, s->fail_pct);
	}
	if (bad)
		return 1;
	if (open) {
		*why = any_primary ? "a primary figure's interval reaches beyond the margin (more runs would decide it)" :
		       "a key figure's interval reaches beyond the margin (more runs would decide it)";
		return 125;
	}
	return 0;
}

static int parse_fail_pct(const struct hist_config *c, double *pct, const char *prog)
{
	char *end, q[QUOTE_MAX];

	*pct = 0;
	if (!c->fail_if_worse)
		return 0;
	*pct = strtod(c->fail_if_worse, &end);
	if (end == c->fail_if_worse || *end || !isfinite(*pct) || *pct < 0 || *pct > 1e6) {
		fprintf(stderr, "%s: option --fail-if-worse: '%s' is not a percentage (0..1000000)\n", prog,
			quote_str(c->fail_if_worse, q, sizeof(q)));
		return -1;
	}
	return 0;
}

/* the closing lines; the exit status */
static int conclude(FILE *out, const struct hist_config *c, const struct chk_set *s, const struct timespec *t0,
		    const char *prog)
{
	fprintf(out, "\n%u tests (the latest experiment's runs against the earlier runs of the same cell and configuration\n"
		"hash; ratios of geometric means on the log scale, Welch; primary figures Holm, the others\n"
		"Benjamini-Hochberg, derived ones not tested; fsbench(1) STATISTICS): %u decided different", s->ntests,
		s->nsig);
	if (c->fail_if_worse || c->bisect)
		fprintf(out, "; %u regression%s: decided worse by more than %g%%", s->nfail, s->nfail == 1 ? "" : "s",
			s->fail_pct);
	fprintf(out, ".\n");
	hist_say_flagged(out, s->nflag, s->nleft, "");
	if (!s->ncmp)
		/* a gate that checked nothing must not pass: exit 3, "cannot decide here" */
		fprintf(stderr, "%s: nothing to check: %s%s\n", prog,
			!s->n && s->nleft ? "every run was left out (--exclude-flagged)" :
			!s->n ? "the database has no runs" : "no figure has both latest and earlier runs of the same configuration",
			c->experiment || c->cell || c->baseline ? " for that selection" : "");
	if (c->bisect) {
		const char *why;
		int st = bisect_status(s, &why);

		fprintf(out, "bisect: %s\n", st == 0 ? "good (exit 0)" : st == 1 ? "bad (exit 1)" : "skip (exit 125)");
		if (why)
			fprintf(out, "bisect: cannot decide: %s\n", why);
		if (s->ncmp && c->junit && check_junit(c, s->ck, s->n, t0, prog))
			return HIST_EXIT_ABORT;
		return st;
	}
	if (!s->ncmp)
		return EXIT_UNSUPPORTED;
	if (c->junit && check_junit(c, s->ck, s->n, t0, prog))
		return EXIT_FAILED;
	return c->fail_if_worse && s->nfail ? EXIT_FAILED : EXIT_OK;
}

int hist_check(struct history *h, const struct hist_config *c, const char *prog)
{
	struct chk_set s = { 0 };
	/* --junit -: the XML alone on standard output */
	FILE *out = c->junit && outfile_is_stdout(c->junit) ? stderr : stdout;
	struct timespec t0;
	int code;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (parse_fail_pct(c, &s.fail_pct, prog))
		return c->bisect ? HIST_EXIT_ABORT : EXIT_USAGE;
	if (c->bisect && !c->fail_if_worse)
		s.fail_pct = VD_EQUIV_PCT;
	if (gather(h, c, &s, prog)) {
		chk_free(&s);
		return c->bisect ? HIST_EXIT_ABORT : EXIT_FAILED;
	}
	if (decide(&s, c->fail_if_worse || c->bisect)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		chk_free(&s);
		return c->bisect ? HIST_EXIT_ABORT : EXIT_FAILED;
	}
	print_table(out, c, &s);
	code = conclude(out, c, &s, &t0, prog);
	chk_free(&s);
	return code;
}
