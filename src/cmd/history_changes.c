/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench history changes: each configuration's series of a figure split where it changed
 * (core/hchange: E-divisive means, permutation test; verdicts by core/verdict), each change with
 * its context: the other figures of the same runs compared across it (an exploratory family)
 * and what the history knows of the environment on either side. */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/history_int.h"
#include "core/figure.h"
#include "core/hchange.h"
#include "report/result_read.h"

/* the other figures that moved, listed under a change */
#define HC_CONTEXT_MAX 8

enum vd_family hist_family(const struct history_val *v)
{
	unsigned fl = rr_figure_flags(v->workload, v->key);

	return fl & FIG_DERIVED ? VD_FAM_NONE : fl & FIG_PRIMARY ? VD_CONFIRMATORY : VD_EXPLORATORY;
}

/* the series changes searches: the FIGURE operands, else (--all) every figure but derived ones,
 * else the primary and key figures */
static bool searched(const struct history_series *s, const struct hist_config *c)
{
	const struct history_val *v = s->v;

	if (!s->n)
		return false;
	if (c->nargs) {
		for (unsigned k = 0; k < c->nargs; k++)
			if (!strcmp(c->args[k], v->key))
				return true;
		return false;
	}
	if (c->all)
		return hist_family(v) != VD_FAM_NONE;
	return hist_family(v) == VD_CONFIRMATORY || v->key_fig;
}

/* the hc_series of the searched series; *map[i]: its index in s */
static int build(const struct history_series *s, unsigned ns, const struct hist_config *c, struct hc_series **out,
		 double ***vals, unsigned **map, unsigned *n)
{
	*n = 0;
	*out = calloc(ns ? ns : 1, sizeof(**out));
	*vals = calloc(ns ? ns : 1, sizeof(**vals));
	*map = calloc(ns ? ns : 1, sizeof(**map));
	if (!*out || !*vals || !*map)
		return -ENOMEM;
	for (unsigned i = 0; i < ns; i++) {
		const struct history_val *v = s[i].v;
		struct hc_series *h = &(*out)[*n];
		char name[512];

		if (!searched(&s[i], c))
			continue;
		if (!((*vals)[*n] = malloc(s[i].n * sizeof(double))))
			return -ENOMEM;
		for (unsigned k = 0; k < s[i].n; k++)
			(*vals)[*n][k] = v[k].value;
		snprintf(name, sizeof(name), "%s|%s|%s", c->all_hosts ? "" : v->host, v->config_hash, v->key);
		*h = (struct hc_series){ (*vals)[*n], s[i].n, strcmp(v->unit, "%") != 0, hist_family(v), hc_seed(name) };
		(*map)[(*n)++] = i;
	}
	return 0;
}

/* run id r among v[lo..hi) */
static bool has_run(const struct history_val *v, unsigned lo, unsigned hi, long long r)
{
	for (unsigned i = lo; i < hi; i++)
		if (v[i].run_id == r)
			return true;
	return false;
}

/* the other figures of the same runs before and after the change, one exploratory family */
static void print_context(const struct history_series *s, unsigned ns, unsigned self, const struct hc_change *ch)
{
	const struct history_series *me = &s[self];
	const double **a = calloc(ns, sizeof(*a)), **b = calloc(ns, sizeof(*b));
	unsigned *na = calloc(ns, sizeof(*na)), *nb = calloc(ns, sizeof(*nb)), *who = calloc(ns, sizeof(*who)), nf = 0;
	double *buf = NULL;
	bool *log_ok = calloc(ns, sizeof(*log_ok));
	struct vd_test *t = calloc(ns, sizeof(*t));
	unsigned shown = 0;

	if (!a || !b || !na || !nb || !who || !log_ok || !t)
		goto out;
	for (unsigned i = 0; i < ns; i++) {
		const struct history_series *o = &s[i];
		double *va, *vb;

		if (i == self || !o->n || strcmp(o->v->host, me->v->host) || strcmp(o->v->config_hash, me->v->config_hash) ||
		    hist_family(o->v) == VD_FAM_NONE || !(va = malloc(2 * o->n * sizeof(double))))
			continue;
		vb = va + o->n;
		for (unsigned k = 0; k < o->n; k++) {
			if (has_run(me->v, ch->lo, ch->at, o->v[k].run_id))
				va[na[nf]++] = o->v[k].value;
			else if (has_run(me->v, ch->at, ch->hi, o->v[k].run_id))
				vb[nb[nf]++] = o->v[k].value;
		}
		a[nf] = va;
		b[nf] = vb;
		log_ok[nf] = strcmp(o->v->unit, "%") != 0;
		who[nf++] = i;
	}
	if (nf && hc_context(a, na, b, nb, log_ok, nf, t))
		goto out;
	for (unsigned f = 0; f < nf; f++)
		shown += t[f].kind == VD_DIFFERENT;
	if (!shown)
		printf("  nothing else decided different (%u other figure%s of the same runs, exploratory)\n", nf,
		       nf == 1 ? "" : "s");
	else
		printf("  also moved: %u of %u other figures of the same runs (exploratory, Benjamini-Hochberg)\n", shown, nf);
	/* the largest moves first */
	for (unsigned k = 0; k < shown && k < HC_CONTEXT_MAX; k++) {
		unsigned best = nf;
		char est[64];

		for (unsigned f = 0; f < nf; f++)
			if (t[f].kind == VD_DIFFERENT && (best == nf || fabs(vd_pct(&t[f])) > fabs(vd_pct(&t[best]))))
				best = f;
		hist_fmt_effect(&t[best], est, sizeof(est));
		printf("    %-36s %-28s %s\n", s[who[best]].v->name, est, vd_word(&t[best], s[who[best]].v->better));
		t[best].kind = VD_NA;   /* listed */
	}
	if (shown > HC_CONTEXT_MAX)
		printf("    (and %u more)\n", shown - HC_CONTEXT_MAX);
out:
	for (unsigned f = 0; a && f < nf; f++)
		free((void *)a[f]);
	free(buf);
	free(a);
	free(b);
	free(na);
	free(nb);
	free(who);
	free(log_ok);
	free(t);
}

void hist_env_diff(struct history *h, const struct history_val *last, const struct history_val *first, char *buf,
		   size_t len)
{
	static const struct { const char *name; size_t off; } fields[] = {
		{ "kernel", offsetof(struct history_val, kernel) },
		{ "host", offsetof(struct history_val, host) },
		{ "fsbench", offsetof(struct history_val, version) },
		{ "experiment", offsetof(struct history_val, exp) },
	};
	static const char *const env_name[HISTORY_ENV_N] = { "mount options", "superblock options", "governor", "THP" };
	struct history_env ea, eb;
	char err[256];
	size_t k = 0;
	bool any = false;

	buf[0] = '\0';
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]) && k < len; f++) {
		const char *a = (const char *)last + fields[f].off, *b = (const char *)first + fields[f].off;
		int n;

		if (!strcmp(a, b))
			continue;
		n = snprintf(buf + k, len - k, "%s%s %s -> %s", k ? "; " : "", fields[f].name, *a ? a : "?", *b ? b : "?");
		k += n > 0 ? (size_t)n : 0;
	}
	/* what cannot be read is said as not recorded */
	if (history_run_env(h, last->run_id, &ea, err, sizeof(err)) ||
	    history_run_env(h, first->run_id, &eb, err, sizeof(err))) {
		memset(&ea, 0, sizeof(ea));
		memset(&eb, 0, sizeof(eb));
	}
	for (unsigned e = 0; e < HISTORY_ENV_N && k < len; e++) {
		int n;

		any |= ea.has[e] || eb.has[e];
		if ((!ea.has[e] && !eb.has[e]) || (ea.has[e] && eb.has[e] && !strcmp(ea.v[e], eb.v[e])))
			continue;
		n = snprintf(buf + k, len - k, "%s%s %s -> %s", k ? "; " : "", env_name[e],
			     ea.has[e] ? ea.v[e] : "(not recorded)", eb.has[e] ? eb.v[e] : "(not recorded)");
		k += n > 0 ? (size_t)n : 0;
	}
	if (!any && k < len)
		snprintf(buf + k, len - k, "%s(mount options, governor: not recorded)", k ? "; " : "");
}

/* what the history knows of the environment on either side: the values of the last run before
 * and the first after that differ */
static void print_env(struct history *h, const struct history_series *me, const struct hc_change *ch)
{
	char d[1024];

	hist_env_diff(h, &me->v[ch->at - 1], &me->v[ch->at], d, sizeof(d));
	printf("  environment: %s (configuration: the same hash on both sides)\n",
	       *d ? d : "kernel, host, fsbench version, mount options and governor the same");
}

static void print_change(struct history *h, const struct history_series *s, unsigned ns, unsigned idx,
			 const struct hc_change *ch)
{
	const struct history_series *me = &s[idx];
	const struct history_val *v = me->v, *last = &v[ch->at - 1], *first = &v[ch->at];
	unsigned fb = 0, fa = 0;
	char est[64];

	for (unsigned i = ch->lo; i < ch->hi; i++)
		*(i < ch->at ? &fb : &fa) += v[i].flagged;
	hist_fmt_effect(&ch->t, est, sizeof(est));
	printf("%s [%s]%s, config %s (cell %s), host %s\n", v->name, v->key,
	       ch->t.family == VD_CONFIRMATORY ? " (primary)" : "", v->config_hash, v->cell, v->host);
	printf("  between run %u and run %u of %u: last before %s on %s (%s), first after %s on %s (%s)\n", ch->at,
	       ch->at + 1, me->n, last->started, last->kernel, last->host, first->started, first->kernel, first->host);
	printf("  %s, %u run%s before (%u flagged), %u after (%u flagged), change p %.3g: %s\n", est, ch->at - ch->lo,
	       ch->at - ch->lo == 1 ? "" : "s", fb, ch->hi - ch->at, fa, ch->p_perm, vd_word(&ch->t, v->better));
	print_context(s, ns, idx, ch);
	print_env(h, me, ch);
}

/* the runs flagged among the searched series: each run is in one configuration (and host), whose
 * series all hold it, so per configuration the most of any of its series, summed */
static unsigned flagged_runs(const struct history_series *s, const unsigned *map, unsigned nm, unsigned *left)
{
	unsigned n = 0;

	*left = 0;
	for (unsigned m = 0; m < nm; m++) {
		const struct history_series *a = &s[map[m]];
		unsigned fl = a->flagged, lo = a->left_out;
		bool first = true;

		for (unsigned j = 0; j < nm; j++) {
			const struct history_series *b = &s[map[j]];

			if (strcmp(a->v->host, b->v->host) || strcmp(a->v->config_hash, b->v->config_hash))
				continue;
			if (j < m) {
				first = false;
				break;
			}
			fl = b->flagged > fl ? b->flagged : fl;
			lo = b->left_out > lo ? b->left_out : lo;
		}
		if (first) {
			n += fl;
			*left += lo;
		}
	}
	return n;
}

void hist_found_free(struct hist_found *f)
{
	for (unsigned i = 0; f->vals && i < f->nh; i++)
		free(f->vals[i]);
	free(f->vals);
	free(f->map);
	free(f->hs);
	free(f->ch);
	history_series_free(f->s, f->ns);
	memset(f, 0, sizeof(*f));
}

int hist_found_make(struct history *h, const struct hist_config *c, struct hist_found *f, const char *prog)
{
	struct history_sel sel;
	unsigned bad = 0;
	char err[512];
	int rc;

	memset(f, 0, sizeof(*f));
	hist_sel(c, &sel);
	f->by_kernel = sel.by_kernel;
	if (history_series(h, &sel, &f->s, &f->ns, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_FAILED;
	}
	if (build(f->s, f->ns, c, &f->hs, &f->vals, &f->map, &f->nh))
		goto oom;
	ediv_defaults(&f->o, 0);
	if ((rc = hc_find(f->hs, f->nh, &f->o, &f->ch, &f->nch, &bad))) {
		if (rc != -E2BIG)
			goto oom;
		fprintf(stderr, "%s: the series of %s (config %s) has %u runs, more than %u: select fewer (--since, --config)\n",
			prog, f->s[f->map[bad]].v->key, f->s[f->map[bad]].v->config_hash, f->hs[bad].n, EDIV_MAX_N);
		hist_found_free(f);
		return EXIT_FAILED;
	}
	for (unsigned i = 0; i < f->nh; i++)
		f->long_enough += f->hs[i].n >= 2 * f->o.min_size;
	f->nflag = flagged_runs(f->s, f->map, f->nh, &f->nleft);
	return 0;
oom:
	fprintf(stderr, "%s: out of memory\n", prog);
	hist_found_free(f);
	return EXIT_FAILED;
}

int hist_found_nothing(const struct hist_found *f, const char *prog)
{
	if (f->long_enough)
		return 0;
	fprintf(stderr, "%s: nothing to search: %s\n", prog,
		!f->nh ? "no runs of those figures in the database for that selection" :
		"every series has fewer runs than two sides need");
	return EXIT_UNSUPPORTED;
}

int hist_changes(struct history *h, const struct hist_config *c, const char *prog)
{
	struct hist_found f;
	unsigned worse = 0;
	int code;

	if ((code = hist_found_make(h, c, &f, prog)))
		return code;
	printf("change points: E-divisive means (Matteson and James 2014) on the log of each figure (percentages as\n"
	       "they are), alpha %g, %u permutations, a change kept at p <= %g, at least %u runs a side; runs in %s order%s\n\n",
	       f.o.alpha, f.o.perms, f.o.sig, f.o.min_size, f.by_kernel ? "kernel release" : "start", c->all_hosts ?
	       ", hosts together" : ", each host apart");
	/* primary figures first */
	for (int pass = 0; pass < 2; pass++)
		for (unsigned k = 0; k < f.nch; k++)
			if ((f.ch[k].t.family == VD_CONFIRMATORY) == !pass) {
				print_change(h, f.s, f.ns, f.map[f.ch[k].series], &f.ch[k]);
				worse += f.ch[k].t.kind == VD_DIFFERENT && f.ch[k].t.sign * f.s[f.map[f.ch[k].series]].v->better < 0;
				printf("\n");
			}
	printf("%u series searched (%u with at least %u runs), %u change%s found, %u decided worse (fsbench(1) HISTORY).\n",
	       f.nh, f.long_enough, 2 * f.o.min_size, f.nch, f.nch == 1 ? "" : "s", worse);
	hist_say_flagged(stdout, f.nflag, f.nleft, "");
	code = hist_found_nothing(&f, prog);
	hist_found_free(&f);
	return code;
}
