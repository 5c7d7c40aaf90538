/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --csv: a result's declared figures (core/figure.h) as a table, one row per group (tiotest's
 * phases) or per iteration (fs_mark's), read from the result's own JSON by each figure's path,
 * so the CSV and the JSON cannot disagree. No workload is known here by name. */
#include "report/csv.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* the value at a dotted path inside obj, NULL when absent */
static const json_t *at_path(const json_t *obj, const char *path)
{
	char key[128];

	while (obj && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		obj = json_object_get(obj, key);
		path += n + (dot ? 1 : 0);
	}
	return obj;
}

/* RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled */
static void put_text(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* a number as the JSON writes it (JSON_REAL_PRECISION(10)); anything else: an empty cell */
static void put_value(FILE *f, const json_t *v)
{
	if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		fprintf(f, "%.10g", json_real_value(v));
}

static void put_head(FILE *f, const struct figure *fig, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		char h[256];

		snprintf(h, sizeof(h), "%s (%s)", fig[i].key, fig[i].unit);
		fputc(',', f);
		put_text(f, h);
	}
}

static void put_values(FILE *f, const struct figure *fig, unsigned n, const json_t *obj)
{
	for (unsigned i = 0; i < n; i++) {
		fputc(',', f);
		put_value(f, at_path(obj, fig[i].path));
	}
}

/* "phases" -> "phase": the row's column is named after one element of the array */
static void put_singular(FILE *f, const char *arr)
{
	size_t n = strlen(arr);

	fprintf(f, "%.*s", (int)(n > 1 && arr[n - 1] == 's' ? n - 1 : n), arr);
}

static void put_row(FILE *f, const struct figure_set *fs, unsigned run, const char *unit,
		    const json_t *elem, const json_t *ro)
{
	fprintf(f, "%u", run + 1);
	if (unit) {
		fputc(',', f);
		put_text(f, unit);
	}
	if (fs->groups)
		put_values(f, fs->group, fs->ngroup, elem);
	else if (fs->iters)
		put_values(f, fs->iter, fs->niter, elem);
	put_values(f, fs->run, fs->nrun, ro);
	fputc('\n', f);
}

struct csv_rows {
	FILE *f;
	const struct figure_set *fs;
	unsigned run;
	const json_t *ro;
};

/* an element's row: groups are named ("write"); iterations numbered from 1 */
static void elem_row(FILE *f, const struct figure_set *fs, unsigned run, size_t i, const json_t *e,
		     const json_t *ro)
{
	char n[32];
	const json_t *name = json_object_get(e, "name");

	if (fs->groups && json_is_string(name)) {
		put_row(f, fs, run, json_string_value(name), e, ro);
	} else {
		snprintf(n, sizeof(n), "%zu", i + 1);
		put_row(f, fs, run, n, e, ro);
	}
}

/* a spooled element's row, as one in memory */
static int spooled_row(void *arg, size_t i, const json_t *e)
{
	struct csv_rows *c = arg;

	elem_row(c->f, c->fs, c->run, i, e, c->ro);
	return ferror(c->f) ? -EIO : 0;
}

int csv_write(FILE *f, const struct figure_set *figs, const json_t *root, const struct json_spool *sp)
{
	/* a workload that declares no figures still gets its runs, one row each */
	static const struct figure_set none;
	const struct figure_set *fs = figs ? figs : &none;
	const json_t *runs = json_object_get(root, "runs"), *ro;
	const char *arr = fs->groups ? fs->groups : fs->iters;
	size_t nruns = json_is_array(runs) ? json_array_size(runs) : 1;

	fputs("run", f);
	if (arr) {
		fputc(',', f);
		put_singular(f, arr);
	}
	if (fs->groups)
		put_head(f, fs->group, fs->ngroup);
	else if (fs->iters)
		put_head(f, fs->iter, fs->niter);
	put_head(f, fs->run, fs->nrun);
	fputc('\n', f);
	for (size_t r = 0; r < nruns; r++) {
		const json_t *elems, *e;
		size_t i;

		ro = json_is_array(runs) ? json_array_get(runs, r) : root;
		if (!arr) {
			put_row(f, fs, (unsigned)r, NULL, NULL, ro);
			continue;
		}
		elems = json_object_get(ro, arr);
		if (json_spool_seg(sp, elems) >= 0) {
			struct csv_rows c = { f, fs, (unsigned)r, ro };
			int rc = json_spool_foreach(sp, (unsigned)json_spool_seg(sp, elems), spooled_row, &c);

			if (rc)
				return rc;
			continue;
		}
		json_array_foreach(elems, i, e)
			elem_row(f, fs, (unsigned)r, i, e, ro);
	}
	return ferror(f) ? -EIO : 0;
}
