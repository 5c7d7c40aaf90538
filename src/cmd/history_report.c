/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench history report -o DIR: the changes history changes finds, and per configuration each
 * primary figure's runs over kernels and time (report/history_svg), as report.md and one
 * self-contained report.html (report/doc). DIR is made, or an empty one of this user's, or one
 * an earlier history report wrote (its marker file and nothing but its files). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/history_int.h"
#include "cmd/outputs.h"
#include "core/quote.h"
#include "report/doc.h"
#include "report/history_svg.h"

#define HR_MARK ".fsbench-history-report"

/* a name a history report writes in its directory */
static bool own_name(const char *n)
{
	size_t l = strlen(n);

	return !strcmp(n, HR_MARK) || !strcmp(n, "report.md") || !strcmp(n, "report.html") ||
	       (!strncmp(n, "plot-", 5) && l > 9 && !strcmp(n + l - 4, ".svg") &&
		strspn(n + 5, "0123456789") == l - 9);
}

/* -o DIR before anything is read or written: 0, or EXIT_USAGE said */
int hist_report_check_dir(const char *dir, const char *prog)
{
	char q[QUOTE_MAX], parent[4096];
	struct stat st;
	struct dirent *de;
	unsigned n = 0, mine = 0;
	bool mark = false;
	DIR *d;
	int fd;

	quote_str(dir, q, sizeof(q));
	if (lstat(dir, &st)) {
		char *slash;

		if (errno != ENOENT)
			goto cannot;
		snprintf(parent, sizeof(parent), "%s", dir);
		slash = strrchr(parent, '/');
		if (slash)
			slash[slash == parent] = '\0';
		if (stat(slash ? parent : ".", &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "%s: option -o: cannot create '%s': its parent is not a directory\n",
				prog, q);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: option -o: '%s' is %s\n", prog, q,
			S_ISLNK(st.st_mode) ? "a symbolic link: refusing it" : "not a directory");
		return EXIT_USAGE;
	}
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		goto cannot;
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022) || !(d = fdopendir(fd))) {
		close(fd);
		fprintf(stderr, "%s: option -o: the directory '%s' is not this user's alone\n", prog, q);
		return EXIT_USAGE;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		mine += own_name(de->d_name) && (de->d_type == DT_REG || de->d_type == DT_UNKNOWN);
		mark |= !strcmp(de->d_name, HR_MARK) && de->d_type == DT_REG;
	}
	closedir(d);
	if (n && (!mark || mine != n)) {
		fprintf(stderr,
			"%s: option -o: '%s' is not empty and not a history report's directory: refusing to "
			"write into it\n",
			prog, q);
		return EXIT_USAGE;
	}
	return 0;
cannot:
	fprintf(stderr, "%s: option -o: cannot use '%s': %s\n", prog, q, strerror(errno));
	return EXIT_USAGE;
}

/* one file of the report, whole (complete or absent); 0 or -1 said */
static int write_file(const char *dir, const char *name, const char *text, size_t len, const char *prog)
{
	char path[4096 + 64];
	struct outfile *of;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(of = outputs_open(prog, path, OUTFILE_REPLACE)))
		return -1;
	if (len && fwrite(text, 1, len, of->f) != len) {
		outfile_abort(of);
		fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(EIO));
		return -1;
	}
	return outputs_commit(prog, of, path) ? -1 : 0;
}

struct hrep {
	struct history *h;
	const struct hist_config *c;
	const struct hist_found *f;
	const char *prog;
	struct doc d;
	unsigned nplot;
	int failed;
};

static const char *verdict_of(const struct hist_found *f, const struct hc_change *ch)
{
	return vd_word(&ch->t, f->s[f->map[ch->series]].v->better);
}

/* the change list: primary figures first */
static void change_list(struct hrep *r)
{
	static const char *const head[] = { "figure",
					    "configuration",
					    "last run before",
					    "first run after",
					    "ratio [95% interval]",
					    "verdict",
					    "environment differences",
					    "p (change)" };
	const struct hist_found *f = r->f;

	doc_h(&r->d, 2, "Changes");
	if (!f->nch) {
		doc_p(&r->d, "No change found in %u series (%u with at least %u runs).", f->nh,
		      f->long_enough, 2 * f->o.min_size);
		return;
	}
	doc_table(&r->d, 8, head, "llllrlll");
	for (int pass = 0; pass < 2; pass++)
		for (unsigned k = 0; k < f->nch; k++) {
			const struct hc_change *ch = &f->ch[k];
			const struct history_series *s = &f->s[f->map[ch->series]];
			const struct history_val *a = &s->v[ch->at - 1], *b = &s->v[ch->at];
			char fig[160], cfg[400], la[400], fb[400], est[64], env[1024], p[32];
			const char *row[8] = { fig, cfg, la, fb, est, verdict_of(f, ch), env, p };

			if ((ch->t.family == VD_CONFIRMATORY) != !pass)
				continue;
			snprintf(fig, sizeof(fig), "%s%s", s->v->name,
				 ch->t.family == VD_CONFIRMATORY ? " (primary)" : "");
			snprintf(cfg, sizeof(cfg), "%s (cell %s, host %s)", s->v->config_hash, s->v->cell,
				 s->v->host);
			snprintf(la, sizeof(la), "run %u: %s, %s, %s", ch->at, a->kernel, a->started,
				 a->host);
			snprintf(fb, sizeof(fb), "run %u: %s, %s, %s", ch->at + 1, b->kernel, b->started,
				 b->host);
			hist_fmt_effect(&ch->t, est, sizeof(est));
			hist_env_diff(r->h, a, b, env, sizeof(env));
			if (!*env)
				snprintf(env, sizeof(env), "none recorded");
			snprintf(p, sizeof(p), "%.3g", ch->p_perm);
			doc_row(&r->d, row);
		}
	doc_table_end(&r->d);
}

/* the series' experiments: groups of consecutive runs, each summarised as history trend does */
static unsigned groups(const struct history_series *s, struct hsvg_group *g, char (*date)[16])
{
	double *v = malloc(s->n * sizeof(double));
	unsigned ng = 0;

	for (unsigned i = 0; v && i < s->n;) {
		unsigned j = i;
		struct stats_summary st;
		bool clipped;

		while (j < s->n && s->v[j].exp_id == s->v[i].exp_id &&
		       !strcmp(s->v[j].kernel, s->v[i].kernel))
			j++;
		for (unsigned k = i; k < j; k++)
			v[k - i] = s->v[k].value;
		snprintf(date[ng], sizeof(date[ng]), "%.10s", s->v[i].started);
		g[ng] = (struct hsvg_group){ i, j, NAN, NAN, NAN, s->v[i].kernel, date[ng] };
		if (!hc_summary(v, j - i, !strcmp(s->v->unit, "%"), &st, &clipped)) {
			g[ng].mean = st.mean;
			if (st.n >= 2 && st.sd > 0) {
				g[ng].lo = st.lo;
				g[ng].hi = st.hi;
			}
		}
		ng++;
		i = j;
	}
	free(v);
	return ng;
}

static void group_table(struct hrep *r, const struct history_series *s, const struct hsvg_group *g,
			unsigned ng)
{
	static const char *const head[] = { "experiment", "kernel",  "first run",	   "host",
					    "runs",	  "flagged", "mean [95% interval]" };

	doc_table(&r->d, 7, head, "llllrrl");
	for (unsigned k = 0; k < ng; k++) {
		const struct history_val *v = &s->v[g[k].first];
		struct stats_summary st = { .n = g[k].end - g[k].first,
					    .mean = g[k].mean,
					    .lo = g[k].lo,
					    .hi = g[k].hi,
					    .sd = isnan(g[k].lo) ? 0 : 1 };
		char runs[16], fl[16], mean[96];
		const char *row[7] = { v->exp, v->kernel, v->started, v->host, runs, fl, mean };
		unsigned nf = 0;

		for (unsigned i = g[k].first; i < g[k].end; i++)
			nf += s->v[i].flagged;
		snprintf(runs, sizeof(runs), "%u", g[k].end - g[k].first);
		snprintf(fl, sizeof(fl), "%u", nf);
		hist_fmt_mean(&st, v->unit, mean, sizeof(mean));
		doc_row(&r->d, row);
	}
	doc_table_end(&r->d);
}

/* one series drawn: its runs, experiments and changes; the SVG beside report.md too */
static void series_plot(struct hrep *r, unsigned si)
{
	const struct history_series *s = &r->f->s[r->f->map[si]];
	struct hsvg_group *g = calloc(s->n, sizeof(*g));
	char(*date)[16] = calloc(s->n, sizeof(*date)), (*lab)[96] = calloc(r->f->nch + 1, sizeof(*lab));
	const char **labp = calloc(r->f->nch + 1, sizeof(*labp));
	unsigned *at = calloc(r->f->nch + 1, sizeof(*at)), nat = 0, ng, nflag = 0;
	bool *fl = calloc(s->n, sizeof(*fl));
	double *v = calloc(s->n, sizeof(*v));
	char *svg = NULL, title[512], ylabel[160], name[32], cap[512];
	size_t len = 0;
	FILE *mem;

	if (!g || !date || !lab || !labp || !at || !fl || !v) {
		r->failed = 1;
		goto out;
	}
	for (unsigned i = 0; i < s->n; i++) {
		v[i] = s->v[i].value;
		nflag += fl[i] = s->v[i].flagged;
	}
	for (unsigned k = 0; k < r->f->nch; k++)
		if (r->f->ch[k].series == si) {
			char est[64];

			hist_fmt_effect(&r->f->ch[k].t, est, sizeof(est));
			snprintf(lab[nat], sizeof(lab[nat]), "%s %s", est, verdict_of(r->f, &r->f->ch[k]));
			labp[nat] = lab[nat];
			at[nat++] = r->f->ch[k].at;
		}
	ng = groups(s, g, date);
	snprintf(title, sizeof(title), "%s, config %s (cell %s), host %s", s->v->name, s->v->config_hash,
		 s->v->cell, s->v->host);
	snprintf(ylabel, sizeof(ylabel), "%s (%s)", s->v->name, s->v->unit);
	if (!(mem = open_memstream(&svg, &len))) {
		r->failed = 1;
		goto out;
	}
	hsvg_write(&(struct hsvg_plot){ title, ylabel, v, fl, s->n, g, ng, at, labp, nat, 960, 380 }, mem);
	if (fclose(mem)) {
		r->failed = 1;
		goto out;
	}
	doc_h(&r->d, 3, "%s [%s]", s->v->name, s->v->key);
	snprintf(name, sizeof(name), "plot-%u.svg", ++r->nplot);
	snprintf(cap, sizeof(cap),
		 "%s: %u runs (%u flagged, drawn as hollow triangles), %u change%s (dashed)", s->v->name,
		 s->n, nflag, nat, nat == 1 ? "" : "s");
	if (write_file(r->c->output, name, svg, len, r->prog))
		r->failed = -1;
	doc_svg(&r->d, svg, len, name, cap);
	group_table(r, s, g, ng);
out:
	free(svg);
	free(g);
	free(date);
	free(lab);
	free(labp);
	free(at);
	free(fl);
	free(v);
}

/* the series drawn: the FIGURE operands, else the primary figures */
static bool drawn(const struct hrep *r, const struct history_series *s)
{
	return r->c->nargs || hist_family(s->v) == VD_CONFIRMATORY;
}

static void body(struct hrep *r)
{
	const struct hist_found *f = r->f;
	const struct history_series *prev = NULL;

	doc_begin(&r->d, "fsbench history report");
	doc_p(&r->d,
	      "Change points: E-divisive means (Matteson and James 2014) on the log of each figure, alpha %g, %u "
	      "permutations, a change kept at p <= %g, at least %u runs a side; runs in %s order%s. %u series searched "
	      "(%u with at least %u runs), %u change%s found. Intervals: each experiment's geometric mean and its 95 %% "
	      "interval, cut at its lowest and highest run (as history trend and check).",
	      f->o.alpha, f->o.perms, f->o.sig, f->o.min_size, f->by_kernel ? "kernel release" : "start",
	      r->c->all_hosts ? ", hosts together" : ", each host apart", f->nh, f->long_enough,
	      2 * f->o.min_size, f->nch, f->nch == 1 ? "" : "s");
	if (f->nleft)
		doc_p(&r->d,
		      "Flagged runs: %u flagged for other processes' CPU, left out (--exclude-flagged).",
		      f->nleft);
	else
		doc_p(&r->d,
		      "Flagged runs: %u flagged for other processes' CPU, counted and drawn as hollow triangles.",
		      f->nflag);
	change_list(r);
	for (unsigned i = 0; i < f->nh; i++) {
		const struct history_series *s = &f->s[f->map[i]];

		if (!drawn(r, s))
			continue;
		if (!prev || strcmp(prev->v->host, s->v->host) ||
		    strcmp(prev->v->config_hash, s->v->config_hash))
			doc_h(&r->d, 2, "Configuration %s (cell %s, host %s)", s->v->config_hash, s->v->cell,
			      s->v->host);
		prev = s;
		series_plot(r, i);
	}
	doc_end(&r->d);
}

int hist_report(struct history *h, const struct hist_config *c, const char *prog)
{
	struct hist_found f;
	struct hrep r = { .h = h, .c = c, .f = &f, .prog = prog };
	char *md = NULL, *html = NULL;
	size_t nmd = 0, nhtml = 0;
	int code;

	if ((code = hist_found_make(h, c, &f, prog)))
		return code;
	if (!f.nh) {
		code = hist_found_nothing(&f, prog);
		goto out;
	}
	/* the marker first: a report cut short leaves a directory the next one may take */
	if (mkdir(c->output, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot create '%s': %s\n", prog, c->output, strerror(errno));
		code = EXIT_FAILED;
		goto out;
	}
	if (write_file(c->output, HR_MARK, "", 0, prog)) {
		code = EXIT_FAILED;
		goto out;
	}
	if (!(r.d.md = open_memstream(&md, &nmd)) || !(r.d.html = open_memstream(&html, &nhtml))) {
		fprintf(stderr, "%s: out of memory\n", prog);
		code = EXIT_FAILED;
		goto out;
	}
	body(&r);
	fclose(r.d.md);
	fclose(r.d.html);
	r.d.md = r.d.html = NULL;
	if (r.failed || write_file(c->output, "report.md", md, nmd, prog) ||
	    write_file(c->output, "report.html", html, nhtml, prog)) {
		if (r.failed > 0)
			fprintf(stderr, "%s: out of memory\n", prog);
		code = EXIT_FAILED;
		goto out;
	}
	printf("report: %s/report.html, %s/report.md: %u series searched, %u change%s, %u plot%s\n",
	       c->output, c->output, f.nh, f.nch, f.nch == 1 ? "" : "s", r.nplot, r.nplot == 1 ? "" : "s");
	hist_say_flagged(stdout, f.nflag, f.nleft, "");
	code = EXIT_OK;
out:
	if (r.d.md)
		fclose(r.d.md);
	if (r.d.html)
		fclose(r.d.html);
	free(md);
	free(html);
	hist_found_free(&f);
	return code;
}
