/* SPDX-License-Identifier: GPL-2.0-or-later */
/* OpenMetrics text from results (report/openmetrics.h). Names follow Prometheus' conventions
 * (promtool check metrics): base units spelled out (seconds, bytes, ratio), no abbreviated
 * unit inside a name, so a figure key's own unit tokens (_ns, _mib_per_s, _pct) are dropped
 * and the unit appended once. */
#include "report/openmetrics.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/figure.h"
#include "workload/workload.h"

struct om_unit {
	const char *unit, *suffix;
	double scale;
};

static const struct om_unit om_units[] = {
	{ "ns", "seconds", 1e-9 },
	{ "MiB/s", "bytes_per_second", 1048576.0 },
	{ "IOPS", "ops_per_second", 1 },
	{ "%", "ratio", 0.01 },
	{ "files/s", "files_per_second", 1 },
	{ "bytes", "bytes", 1 },
	{ "extents/MiB", "extents_per_byte", 1.0 / 1048576.0 },
	{ "/MiB", "per_byte", 1.0 / 1048576.0 },
};

/* the unit spellings a key carries that the appended unit replaces */
static bool unit_token(const char *t)
{
	static const char *const tok[] = { "ns", "us", "ms", "s", "sec", "pct", "mib", "iops", NULL };

	for (unsigned i = 0; tok[i]; i++)
		if (!strcmp(t, tok[i]))
			return true;
	return false;
}

static void append_tokens(char *name, size_t len, const char *key)
{
	char buf[128], *save = NULL, *t[32];
	unsigned n = 0;

	snprintf(buf, sizeof(buf), "%s", key);
	for (char *p = buf; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			*p = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : '_';
	for (char *x = strtok_r(buf, "_", &save); x && n < 32; x = strtok_r(NULL, "_", &save))
		t[n++] = x;
	for (unsigned i = 0; i < n; i++) {
		/* "per" before a dropped unit goes with it */
		if (unit_token(t[i]) || (!strcmp(t[i], "per") && (i + 1 == n || unit_token(t[i + 1]))))
			continue;
		size_t at = strlen(name);

		snprintf(name + at, len - at, "_%s", t[i]);
	}
}

void om_name(const char *workload, const char *key, const char *unit, char *name, size_t len,
	     char *phase, size_t plen, double *scale)
{
	const struct workload_ops *w = workload ? workload_find(workload) : NULL;
	const char *dot = strchr(key, '.'), *fig = key;
	const char *suffix = NULL;

	phase[0] = '\0';
	if (dot && w && w->figs && w->figs->groups)
		for (unsigned i = 0; i < w->figs->ngroup; i++)
			if (!strcmp(dot + 1, w->figs->group[i].key)) {
				snprintf(phase, plen, "%.*s", (int)(dot - key), key);
				fig = dot + 1;
				break;
			}
	*scale = 1;
	for (unsigned i = 0; i < sizeof(om_units) / sizeof(om_units[0]); i++)
		if (unit && !strcmp(unit, om_units[i].unit)) {
			suffix = om_units[i].suffix;
			*scale = om_units[i].scale;
		}
	snprintf(name, len, "fsbench");
	append_tokens(name, len, fig);
	if (suffix) {
		size_t at = strlen(name), head = strcspn(suffix, "_");

		/* "fsbench_files" + "files_per_second": the unit already starts there */
		if (at > head && name[at - head - 1] == '_' && !strncmp(name + at - head, suffix, head))
			at -= head + 1;
		snprintf(name + at, len - at, "_%s", suffix);
	} else if (unit && unit[0]) {
		append_tokens(name, len, unit);
	}
}

/* a label value: backslash, quote and newline escaped */
static void put_label(FILE *f, bool *first, const char *k, const char *v)
{
	if (!v || !v[0])
		return;
	fprintf(f, "%s%s=\"", *first ? "" : ",", k);
	*first = false;
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

static double fig_value(const struct rr_result *r, const struct rr_figure *g)
{
	double *v = malloc((r->nruns ? r->nruns : 1) * sizeof(*v));
	double x;
	unsigned n;

	if (!v)
		return NAN;
	n = rr_values(r, g, v);
	x = figure_combine(g->rate ? FIG_HMEAN : FIG_MEAN, v, n);
	free(v);
	return x;
}

int om_write(FILE *f, const struct om_item *items, unsigned n)
{
	/* each family once, its samples together: families in order of first appearance */
	char (*fam)[160] = NULL;
	unsigned nfam = 0, cap = 0;

	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < items[i].r->nfig; k++) {
			const struct rr_figure *g = &items[i].r->fig[k];
			char name[160], phase[64];
			double scale;
			unsigned j;

			om_name(items[i].r->workload, g->key, g->unit, name, sizeof(name), phase, sizeof(phase), &scale);
			for (j = 0; j < nfam && strcmp(fam[j], name); j++)
				;
			if (j < nfam)
				continue;
			if (nfam == cap) {
				void *x = realloc(fam, (cap = cap ? cap * 2 : 64) * sizeof(*fam));

				if (!x) {
					free(fam);
					return -ENOMEM;
				}
				fam = x;
			}
			snprintf(fam[nfam++], sizeof(*fam), "%s", name);
		}
	for (unsigned j = 0; j < nfam; j++) {
		bool head = false;

		for (unsigned i = 0; i < n; i++)
			for (unsigned k = 0; k < items[i].r->nfig; k++) {
				const struct om_item *it = &items[i];
				const struct rr_figure *g = &it->r->fig[k];
				char name[160], phase[64];
				double scale, v;
				bool first = true;

				om_name(it->r->workload, g->key, g->unit, name, sizeof(name), phase, sizeof(phase), &scale);
				if (strcmp(name, fam[j]) || isnan(v = fig_value(it->r, g)) || isinf(v))
					continue;
				if (!head) {
					fprintf(f, "# HELP %s fsbench figure %s (%s)\n", name,
						phase[0] ? strchr(g->key, '.') + 1 : g->key, g->unit ? g->unit : "");
					fprintf(f, "# TYPE %s gauge\n", name);
					head = true;
				}
				fprintf(f, "%s{", name);
				put_label(f, &first, "workload", it->r->workload);
				put_label(f, &first, "fs", it->fs);
				put_label(f, &first, "cell", it->cell);
				put_label(f, &first, "phase", phase);
				put_label(f, &first, "result", it->result);
				fprintf(f, "} %.10g\n", v * scale);
			}
	}
	free(fam);
	fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}
