/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A matrix result directory read back: the manifest, each run's result and profiles, per cell
 * the runs as one result and the median run (matrix_read.h). */
#include "report/matrix_read.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/drift.h"
#include "core/errmsg.h"
#include "core/stats.h"
#include "core/verdict.h"
#include "report/afterrun_report.h"

#define MX_MAX_MANIFEST_BYTES (64u << 20)
#define MX_MAX_STR 256

static void warn(struct mx *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct mx *m, const char *fmt, ...)
{
	char line[512], **nw;
	va_list ap;

	if (m->nwarn >= MX_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!(nw = realloc(m->warn, (m->nwarn + 1) * sizeof(*nw))))
		return;
	m->warn = nw;
	if ((m->warn[m->nwarn] = strdup(line)))
		m->nwarn++;
}

static void noise_warnings(struct mx *m);

/* a printable copy of a JSON string (NULL when j is not a string and !opt; "" when absent and opt) */
static char *str_of(const json_t *j, bool opt)
{
	char buf[MX_MAX_STR + 1];

	if (!j && opt)
		return strdup("");
	if (!json_is_string(j))
		return NULL;
	return strdup(rr_printable(json_string_value(j), buf, sizeof(buf)));
}

static int get_str(const json_t *o, const char *key, bool opt, char **out, const char *where, char *err, size_t errlen)
{
	const json_t *j = json_object_get(o, key);

	if (j && json_is_null(j) && opt)
		j = NULL;
	if (!(*out = str_of(j, opt)))
		return errmsg(err, errlen, "%s: field '%s' is %s", where, key, j ? "not a string" : "missing");
	return 0;
}

const char *mread_value(const struct mx *m, unsigned cell, unsigned axis)
{
	return m->axis[axis].values[m->cell[cell].value[axis]];
}

const struct mread_run *mread_median_run(const struct mx *m, unsigned cell)
{
	const struct mread_cell *c = &m->cell[cell];

	return c->median < 0 ? NULL : &m->run[c->run[c->median]];
}

/* a run's path: relative, no "..", no empty or "." component, printable, not too long */
static bool safe_rel(const char *p)
{
	const char *s = p;

	if (!*p || *p == '/' || strlen(p) > 1024)
		return false;
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == '\\')
			return false;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		s += n;
		if (*s == '/')
			s++;
	}
	return true;
}

/* A file of the directory (rel: safe_rel), opened for reading. A matrix directory is outside
 * input and the report may run as root, so nothing is read through a symbolic link (each
 * component below the directory opened O_NOFOLLOW: a link swapped in later is refused too), and
 * only a regular file; as root, only one owned by root or the invoking user with no other name
 * (a hard link would bring another file's content). The fd; -ENOENT when it is absent; another
 * -errno with the reason in why when refused (no byte of the file read). */
static int open_in(int dfd, const char *rel, char *why, size_t len)
{
	char part[1100];
	const char *p = rel;
	struct stat st;
	int cur = dfd, fd = -1;

	for (;;) {
		size_t n = strcspn(p, "/");
		bool last = p[n] == '\0';
		int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | (last ? O_NONBLOCK : O_DIRECTORY);

		snprintf(part, sizeof(part), "%.*s", (int)n, p);
		fd = openat(cur, part, flags);
		if (fd < 0) {
			int e = errno;

			if (e != ENOENT && !fstatat(cur, part, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
				e = ELOOP;
			if (e == ELOOP)
				snprintf(why, len, "'%.*s' is a symbolic link", (int)(p + n - rel), rel);
			else
				snprintf(why, len, "%s", strerror(e));
			if (cur != dfd)
				close(cur);
			return -e;
		}
		if (cur != dfd)
			close(cur);
		if (last)
			break;
		cur = fd;
		p += n + 1;
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		snprintf(why, len, "%s", strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, len, "not a regular file");
		return -EINVAL;
	}
	if (geteuid() == 0 && st.st_uid != 0 && st.st_uid != getuid()) {
		close(fd);
		snprintf(why, len, "owned by uid %u, not root (the report runs as root)", (unsigned)st.st_uid);
		return -EPERM;
	}
	if (geteuid() == 0 && st.st_nlink != 1) {
		close(fd);
		snprintf(why, len, "%u hard links (as root, a file of one name only)", (unsigned)st.st_nlink);
		return -EPERM;
	}
	return fd;
}

/* ---- profiles: a run result's phases[].profile / iterations[].profile ---- */

static struct perf_profile *profile_of(const json_t *j)
{
	struct perf_profile *p = calloc(1, sizeof(*p));
	const json_t *e = json_object_get(j, "entries"), *st = json_object_get(j, "stacks"), *x;
	size_t i, n = 0;

	if (!p || !json_is_array(e))
		goto bad;
	p->hz = json_is_integer(json_object_get(j, "frequency_hz")) ?
		(unsigned)json_integer_value(json_object_get(j, "frequency_hz")) : 0;
	p->system_wide = json_is_string(json_object_get(j, "scope")) &&
			 !strcmp(json_string_value(json_object_get(j, "scope")), "system");
	x = json_object_get(j, "samples");
	p->samples = json_is_integer(x) && json_integer_value(x) > 0 ? (uint64_t)json_integer_value(x) : 0;
	x = json_object_get(j, "lost");
	p->lost = json_is_integer(x) && json_integer_value(x) > 0 ? (uint64_t)json_integer_value(x) : 0;
	if (json_array_size(e) > 1000000 || !(p->v = calloc(json_array_size(e) + 1, sizeof(*p->v))))
		goto bad;
	json_array_foreach(e, i, x) {
		const json_t *s = json_object_get(x, "samples"), *im = json_object_get(x, "image"),
			     *sy = json_object_get(x, "symbol");

		if (!json_is_integer(s) || json_integer_value(s) < 0 || !json_is_string(im) || !json_is_string(sy))
			goto bad;
		p->v[n].samples = (uint64_t)json_integer_value(s);
		rr_printable(json_string_value(im), p->v[n].image, sizeof(p->v[n].image));
		rr_printable(json_string_value(sy), p->v[n].symbol, sizeof(p->v[n].symbol));
		p->v[n].pct = p->samples ? 100.0 * (double)p->v[n].samples / (double)p->samples : 0;
		n++;
	}
	p->n = n;
	if (json_is_array(st) && json_array_size(st) <= 1000000) {
		if (!(p->stacks = calloc(json_array_size(st) + 1, sizeof(*p->stacks))))
			goto bad;
		json_array_foreach(st, i, x) {
			const json_t *s = json_object_get(x, "stack"), *c = json_object_get(x, "count");
			size_t len;

			if (!json_is_string(s) || !json_is_integer(c) || json_integer_value(c) < 0)
				goto bad;
			len = strlen(json_string_value(s));
			if (len > 65536 || !(p->stacks[p->nstacks].folded = malloc(len + 1)))
				goto bad;
			rr_printable(json_string_value(s), p->stacks[p->nstacks].folded, len + 1);
			p->stacks[p->nstacks++].count = (uint64_t)json_integer_value(c);
		}
	}
	return p;
bad:
	perf_profile_free(p);
	return NULL;
}

static int prof_add(struct mread_profile **arr, unsigned *n, const char *name, struct perf_profile *p,
		    uint64_t ops, const char *window)
{
	for (unsigned k = 0; k < *n; k++)
		if (!strcmp((*arr)[k].name, name)) {
			(*arr)[k].ops += ops;
			return perf_profile_merge(&(*arr)[k].p, p);
		}
	{
		struct mread_profile *na = realloc(*arr, (*n + 1) * sizeof(*na));

		if (!na) {
			perf_profile_free(p);
			return -ENOMEM;
		}
		*arr = na;
		snprintf(na[*n].name, sizeof(na[*n].name), "%s", name);
		snprintf(na[*n].window, sizeof(na[*n].window), "%s", window);
		na[*n].p = p;
		na[*n].ops = ops;
		(*n)++;
	}
	return 0;
}

/* the groups' profiles of one run object (tiotest phases, fs_mark iterations merged) */
static int run_profiles(struct mread_run *r, const json_t *run)
{
	const json_t *ph = json_object_get(run, "phases"), *it = json_object_get(run, "iterations"), *x;
	size_t i;

	json_array_foreach(ph, i, x) {
		const json_t *pj = json_object_get(x, "profile"), *nm = json_object_get(x, "name");
		struct perf_profile *p;
		char name[48];

		if (!pj || !json_is_object(pj) || !json_is_string(nm))
			continue;
		if (!(p = profile_of(pj)))
			return -EINVAL;
		if (prof_add(&r->prof, &r->nprof, rr_printable(json_string_value(nm), name, sizeof(name)), p,
			     json_is_integer(json_object_get(x, "ops")) ? (uint64_t)json_integer_value(json_object_get(x, "ops")) : 0,
			     "the phase's timed window"))
			return -ENOMEM;
	}
	json_array_foreach(it, i, x) {
		const json_t *pj = json_object_get(x, "profile"), *w = json_object_get(run, "profile_window");
		const json_t *use = json_object_get(x, "fs_use_pct");
		struct perf_profile *p;
		char window[128] = "every iteration's create loop";

		/* fs_mark --profile-window: only the iterations of that FSUse% range */
		if (json_is_object(w) && json_is_integer(use) &&
		    (json_integer_value(use) < json_integer_value(json_object_get(w, "from_pct")) ||
		     json_integer_value(use) > json_integer_value(json_object_get(w, "to_pct"))))
			continue;

		if (!pj || !json_is_object(pj))
			continue;
		if (!(p = profile_of(pj)))
			return -EINVAL;
		if (json_is_object(w))
			snprintf(window, sizeof(window), "the create loops of the iterations at FSUse%% %lld-%lld %% "
				 "(--profile-window)", (long long)json_integer_value(json_object_get(w, "from_pct")),
				 (long long)json_integer_value(json_object_get(w, "to_pct")));
		if (prof_add(&r->prof, &r->nprof, "create loops", p,
			     json_is_integer(json_object_get(x, "files")) ? (uint64_t)json_integer_value(json_object_get(x, "files")) : 0,
			     window))
			return -ENOMEM;
	}
	return 0;
}

static void load_profiles(struct mx *m, struct mread_run *r, int fd)
{
	json_error_t je;
	json_t *root;
	const json_t *runs, *x;
	size_t i;
	int rc = 0, rerr;

	/* the result reader has read the file already, within its size bound: the same file again */
	if (lseek(fd, 0, SEEK_SET) < 0 || !(root = rr_json_load(fd, RR_MAX_FILE_BYTES, &je, &rerr)))
		return;
	runs = json_object_get(root, "runs");
	if (json_is_array(runs)) {
		json_array_foreach(runs, i, x)
			if (!rc)
				rc = run_profiles(r, x);
	} else {
		rc = run_profiles(r, root);
	}
	json_decref(root);
	if (rc)
		warn(m, "%s: its profile is unreadable (%s): left out", r->json, strerror(-rc));
}

/* ---- the manifest ---- */

static int read_axes(struct mx *m, const json_t *exp, char *err, size_t errlen)
{
	const json_t *axes = json_object_get(exp, "axes"), *a;
	size_t i;

	if (!json_is_array(axes) || json_array_size(axes) > MX_MAX_AXES)
		return errmsg(err, errlen, "experiment.axes is missing, not an array or longer than %d", MX_MAX_AXES);
	if (!(m->axis = calloc(json_array_size(axes) + 1, sizeof(*m->axis))))
		return errmsg(err, errlen, "out of memory");
	json_array_foreach(axes, i, a) {
		struct mread_axis *ax = &m->axis[m->naxes];
		const json_t *vals = json_object_get(a, "values"), *v;
		char where[64];
		size_t k;

		snprintf(where, sizeof(where), "experiment.axes[%zu]", i);
		if (get_str(a, "name", false, &ax->name, where, err, errlen))
			return -1;
		m->naxes++;
		if (!json_is_array(vals) || !json_array_size(vals) || json_array_size(vals) > MX_MAX_VALUES)
			return errmsg(err, errlen, "%s.values is missing, empty or longer than %d", where, MX_MAX_VALUES);
		if (!(ax->values = calloc(json_array_size(vals), sizeof(char *))))
			return errmsg(err, errlen, "out of memory");
		json_array_foreach(vals, k, v) {
			if (!(ax->values[k] = str_of(v, false)))
				return errmsg(err, errlen, "%s.values[%zu] is not a string", where, k);
			ax->nvalues++;
		}
		for (unsigned j = 0; j + 1 < m->naxes; j++)
			if (!strcmp(m->axis[j].name, ax->name))
				return errmsg(err, errlen, "%s: axis '%s' twice", where, ax->name);
	}
	return 0;
}

static int read_cells(struct mx *m, const json_t *exp, char *err, size_t errlen)
{
	const json_t *cells = json_object_get(exp, "cells"), *c;
	size_t i;

	if (!json_is_array(cells) || !json_array_size(cells) || json_array_size(cells) > MX_MAX_CELLS)
		return errmsg(err, errlen, "experiment.cells is missing, empty or longer than %d", MX_MAX_CELLS);
	if (!(m->cell = calloc(json_array_size(cells), sizeof(*m->cell))))
		return errmsg(err, errlen, "out of memory");
	json_array_foreach(cells, i, c) {
		struct mread_cell *cl = &m->cell[m->ncells];
		const json_t *ax = json_object_get(c, "axes"), *cfg = json_object_get(c, "config");
		char where[64];

		snprintf(where, sizeof(where), "experiment.cells[%zu]", i);
		cl->median = -1;
		m->ncells++;
		if (!json_is_object(c))
			return errmsg(err, errlen, "%s is not an object", where);
		if (get_str(c, "name", false, &cl->name, where, err, errlen) ||
		    get_str(c, "config_hash", true, &cl->config_hash, where, err, errlen))
			return -1;
		if (!(cl->config_json = cfg ? json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : strdup("{}")))
			return errmsg(err, errlen, "out of memory");
		if (!json_is_object(ax))
			return errmsg(err, errlen, "%s.axes is missing or not an object", where);
		for (unsigned a = 0; a < m->naxes; a++) {
			const json_t *v = json_object_get(ax, m->axis[a].name);
			unsigned k;

			if (!json_is_string(v))
				return errmsg(err, errlen, "%s.axes: no value for axis '%s'", where, m->axis[a].name);
			for (k = 0; k < m->axis[a].nvalues; k++) {
				char buf[MX_MAX_STR + 1];

				if (!strcmp(m->axis[a].values[k], rr_printable(json_string_value(v), buf, sizeof(buf))))
					break;
			}
			if (k == m->axis[a].nvalues)
				return errmsg(err, errlen, "%s.axes: '%s' is not a value of axis '%s'", where,
					    json_string_value(v), m->axis[a].name);
			cl->value[a] = k;
		}
		for (unsigned j = 0; j + 1 < m->ncells; j++) {
			bool same = true;

			if (!strcmp(m->cell[j].name, cl->name))
				return errmsg(err, errlen, "%s: cell '%s' twice", where, cl->name);
			for (unsigned a = 0; a < m->naxes; a++)
				same &= m->cell[j].value[a] == cl->value[a];
			if (same && m->naxes)
				return errmsg(err, errlen, "%s: cells '%s' and '%s' have the same axis values", where,
					    m->cell[j].name, cl->name);
		}
	}
	return 0;
}

static int read_runs(struct mx *m, const json_t *root, char *err, size_t errlen)
{
	const json_t *runs = json_object_get(root, "runs"), *r;
	size_t i;

	if (!json_is_array(runs) || json_array_size(runs) > MX_MAX_RUNS)
		return errmsg(err, errlen, "runs is missing, not an array or longer than %d", MX_MAX_RUNS);
	if (!(m->run = calloc(json_array_size(runs) + 1, sizeof(*m->run))))
		return errmsg(err, errlen, "out of memory");
	json_array_foreach(runs, i, r) {
		struct mread_run *ru = &m->run[m->nruns];
		const json_t *x;
		char where[64], *cell = NULL;
		unsigned c;

		/* a warm-up run is discarded by design: not a run of the experiment */
		if (json_is_true(json_object_get(r, "warmup")))
			continue;
		snprintf(where, sizeof(where), "runs[%zu]", i);
		ru->other_cpu_pct = NAN;
		ru->steal_pct = NAN;
		m->nruns++;
		if (!json_is_object(r))
			return errmsg(err, errlen, "%s is not an object", where);
		if (get_str(r, "cell", false, &cell, where, err, errlen))
			return -1;
		for (c = 0; c < m->ncells && strcmp(m->cell[c].name, cell); c++)
			;
		if (c == m->ncells) {
			errmsg(err, errlen, "%s: cell '%s' is not one of experiment.cells", where, cell);
			free(cell);
			return -1;
		}
		free(cell);
		ru->cell = c;
		ru->umount_s = afterrun_umount_read(r);
		if (get_str(r, "after", true, &ru->after_json, where, err, errlen))
			return -1;
		if (!*ru->after_json) {
			free(ru->after_json);
			ru->after_json = NULL;
		} else if (!safe_rel(ru->after_json)) {
			return errmsg(err, errlen, "%s.after: '%s' is not a path inside the directory", where,
				    ru->after_json);
		}
		/* a run whose set-up failed or that was stopped has no result file: it stays in the
		 * runs table with the reason, out of the statistics */
		if (!json_is_string(json_object_get(r, "json"))) {
			const char *st = json_string_value(json_object_get(r, "status"));
			char e[96], pr[64];

			snprintf(e, sizeof(e), "no result (%s)", st ? rr_printable(st, pr, sizeof(pr)) : "no status");
			ru->problem = strdup(e);
			ru->repeat = json_is_integer(json_object_get(r, "repeat")) ?
				     (unsigned)json_integer_value(json_object_get(r, "repeat")) : (unsigned)i;
			continue;
		}
		if (get_str(r, "json", false, &ru->json, where, err, errlen) ||
		    get_str(r, "started_at", true, &ru->started_at, where, err, errlen) ||
		    get_str(r, "ended_at", true, &ru->ended_at, where, err, errlen))
			return -1;
		if (!safe_rel(ru->json))
			return errmsg(err, errlen, "%s.json: '%s' is not a path inside the directory", where, ru->json);
		x = json_object_get(r, "repeat");
		if (x && (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > 1000000))
			return errmsg(err, errlen, "%s.repeat is not a count", where);
		ru->repeat = x ? (unsigned)json_integer_value(x) : (unsigned)i;
		x = json_object_get(r, "order");
		if (x && (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > 100000000))
			return errmsg(err, errlen, "%s.order is not a count", where);
		ru->order = x ? (unsigned)json_integer_value(x) : (unsigned)i;
		/* the runner writes "exit"; "exit_status" is read too */
		if (!(x = json_object_get(r, "exit_status")))
			x = json_object_get(r, "exit");
		if (x && !json_is_null(x) && !json_is_integer(x))
			return errmsg(err, errlen, "%s.exit_status is not an integer", where);
		ru->exit_status = json_is_integer(x) ? (int)json_integer_value(x) : 0;
		x = json_object_get(r, "other_cpu_pct");
		if (x && !json_is_null(x) && (!json_is_number(x) || !isfinite(json_number_value(x))))
			return errmsg(err, errlen, "%s.other_cpu_pct is not a number", where);
		if (json_is_number(x))
			ru->other_cpu_pct = json_number_value(x);
		/* the runner writes "other_cpu_flagged"; "other_cpu_flag" is read too */
		if (!(x = json_object_get(r, "other_cpu_flag")))
			x = json_object_get(r, "other_cpu_flagged");
		if (x && !json_is_null(x) && !json_is_boolean(x))
			return errmsg(err, errlen, "%s.other_cpu_flag is not a boolean", where);
		ru->other_cpu_flag = json_is_true(x);
		x = json_object_get(json_object_get(r, "cpu"), "steal_pct");
		if (json_is_number(x) && isfinite(json_number_value(x)))
			ru->steal_pct = json_number_value(x);
	}
	return 0;
}

/* --after's file: the checker's verdict (a finding whatever became of the run), and its figures
 * as the last run of the run's result */
static int load_after(struct mx *m, int dfd, struct mread_run *r, char *err, size_t errlen)
{
	char e[512];
	int fd, rc;

	if (!r->after_json)
		return 0;
	fd = open_in(dfd, r->after_json, e, sizeof(e));
	if (fd < 0 && fd != -ENOENT)
		return errmsg(err, errlen, "%s: refused: %s", r->after_json, e);
	rc = fd < 0 ? after_load_fd(-1, &r->after, e, sizeof(e)) : after_load_fd(fd, &r->after, e, sizeof(e));
	if (fd >= 0)
		close(fd);
	else
		snprintf(e, sizeof(e), "%s", strerror(ENOENT));
	if (rc) {
		r->after_problem = strdup(e);
		warn(m, "%s: %s: the after-run checks of cell %s run %u are left out", r->after_json, e,
		     m->cell[r->cell].name, r->repeat);
		after_free(&r->after);
		return 0;
	}
	r->has_after = m->has_after = true;
	if (r->after.finding) {
		m->nfindings++;
		m->cell[r->cell].nfindings++;
	}
	if (r->loaded && r->r.nruns)
		for (unsigned k = 0; k < AF_N; k++)
			if (!isnan(r->after.v[k]) && rr_figure_put(&r->r, &after_figs[k], r->r.nruns - 1, r->after.v[k])) {
				warn(m, "%s: out of memory: the after-run figures of cell %s run %u are left out",
				     r->after_json, m->cell[r->cell].name, r->repeat);
				break;
			}
	return 0;
}

/* 0; -1 with the reason in err when the run's file is refused (open_in) */
static int load_run(struct mx *m, int dfd, struct mread_run *r, char *err, size_t errlen)
{
	char e[512];
	int fd;

	if (r->problem || !r->json)
		return 0;
	if (r->exit_status != 0) {
		snprintf(e, sizeof(e), "exit status %d", r->exit_status);
		r->problem = strdup(e);
		warn(m, "%s: cell %s run %u ended with exit status %d: left out", r->json, m->cell[r->cell].name,
		     r->repeat, r->exit_status);
		return 0;
	}
	fd = open_in(dfd, r->json, e, sizeof(e));
	if (fd < 0 && fd != -ENOENT)
		return errmsg(err, errlen, "%s: refused: %s", r->json, e);
	if (fd < 0 || rr_load_fd(fd, r->json, &r->r, e, sizeof(e))) {
		char msg[700];

		if (fd < 0)
			snprintf(e, sizeof(e), "cannot open: %s", strerror(ENOENT));
		else
			close(fd);
		snprintf(msg, sizeof(msg), "unreadable: %s", e);
		r->problem = strdup(msg);
		warn(m, "%s: %s: left out", r->json, e);
		rr_free(&r->r);
		return 0;
	}
	r->loaded = true;
	if (strcmp(r->r.workload, m->workload) && m->workload[0]) {
		snprintf(e, sizeof(e), "a %s result in a %s experiment", r->r.workload, m->workload);
		r->problem = strdup(e);
		warn(m, "%s: %s: left out", r->json, e);
		close(fd);
		return 0;
	}
	if (r->r.ncomplete < r->r.nruns) {
		snprintf(e, sizeof(e), "incomplete (%s)", r->r.incomplete_reason ? r->r.incomplete_reason : "unknown");
		r->problem = strdup(e);
		warn(m, "%s: cell %s run %u is incomplete (%s): left out", r->json, m->cell[r->cell].name, r->repeat,
		     r->r.incomplete_reason ? r->r.incomplete_reason : "unknown");
		close(fd);
		return 0;
	}
	load_profiles(m, r, fd);
	close(fd);
	if (r->other_cpu_flag && m->exclude_flagged) {
		r->problem = strdup("flagged: other processes took CPU (--exclude-flagged)");
		r->flag_excluded = true;
		return 0;
	}
	r->used = true;
	return 0;
}

/* the cell's used runs as one result, its median run by the first key figure */
static int build_cell(struct mx *m, unsigned ci)
{
	struct mread_cell *c = &m->cell[ci];
	const struct rr_result **src;
	const struct rr_figure *f = NULL;
	unsigned nsrc = 0;

	if (!(c->run = calloc(m->nruns + 1, sizeof(unsigned))) || !(src = calloc(m->nruns + 1, sizeof(*src))))
		return -1;
	for (unsigned r = 0; r < m->nruns; r++) {
		if (m->run[r].cell != ci)
			continue;
		c->nflagged += m->run[r].other_cpu_flag;
		if (!m->run[r].used)
			continue;
		c->run[c->nrun++] = r;
		src[nsrc++] = &m->run[r].r;
	}
	for (unsigned k = 0; k < c->nrun; k++) {
		const struct mread_run *r = &m->run[c->run[k]];

		if (!r->has_after)
			continue;
		if (r->after.has_fsck) {
			c->nfsck++;
			c->nfsck_clean += !strcmp(r->after.verdict, "clean");
			c->nfsck_absent += !strcmp(r->after.verdict, "absent");
		}
		if (r->after.has_freespace && r->after.free_absent && !c->free_absent)
			c->free_absent = r->after.free_absent;
		if (r->after.has_freespace && !r->after.free_absent) {
			c->nfree++;
			for (unsigned b = 0; b < AFTER_BUCKETS; b++) {
				c->free_extents[b] += r->after.hist_extents[b];
				c->free_bytes[b] += r->after.hist_bytes[b];
			}
		}
	}
	if (rr_concat(&c->merged, src, nsrc, c->name)) {
		free(src);
		return -1;
	}
	free(src);
	if (!c->nrun) {
		warn(m, "cell %s has no usable run", c->name);
		return 0;
	}
	for (unsigned k = 0; k < c->merged.nfig && !f; k++)
		if (c->merged.fig[k].key_fig)
			f = &c->merged.fig[k];
	if (!f && c->merged.nfig)
		f = &c->merged.fig[0];
	c->median = 0;
	if (f && c->merged.nruns == c->nrun) {
		int k = stats_median_index(f->v, c->nrun);

		c->median = k < 0 ? 0 : k;
		snprintf(c->median_fig, sizeof(c->median_fig), "%s", f->name);
	}
	/* profiles merged over the used runs */
	for (unsigned k = 0; k < c->nrun; k++) {
		struct mread_run *r = &m->run[c->run[k]];

		for (unsigned g = 0; g < r->nprof; g++) {
			struct mread_profile *mine = NULL;
			struct perf_profile *cp = NULL;

			for (unsigned j = 0; j < c->nprof && !mine; j++)
				if (!strcmp(c->prof[j].name, r->prof[g].name))
					mine = &c->prof[j];
			/* a copy: the run keeps its own */
			if (!(cp = perf_profile_dup(r->prof[g].p)))
				return -1;
			if (mine) {
				mine->ops += r->prof[g].ops;
				if (perf_profile_merge(&mine->p, cp))
					return -1;
			} else if (prof_add(&c->prof, &c->nprof, r->prof[g].name, cp, r->prof[g].ops, r->prof[g].window)) {
				return -1;
			}
		}
	}
	return 0;
}

/* DIR's manifest.json, opened below dfd (open_in), checked to be a manifest of version 1: the
 * document, or NULL with the reason in err */
static json_t *load_manifest(int dfd, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root;
	const json_t *x;
	struct stat st;
	char e[512];
	int fd, rerr;

	if ((fd = open_in(dfd, "manifest.json", e, sizeof(e))) < 0) {
		errmsg(err, errlen, "manifest.json: %s%s", fd == -ENOENT ? "" : "refused: ", e);
		return NULL;
	}
	if (fstat(fd, &st) || st.st_size > MX_MAX_MANIFEST_BYTES) {
		errmsg(err, errlen, "manifest.json: not a regular file of at most %u MiB", MX_MAX_MANIFEST_BYTES >> 20);
		close(fd);
		return NULL;
	}
	root = rr_json_load(fd, MX_MAX_MANIFEST_BYTES, &je, &rerr);
	close(fd);
	if (!root) {
		if (rerr)
			errmsg(err, errlen, "manifest.json: %s",
			       rerr == EFBIG ? "grew past its size limit" : strerror(rerr));
		else
			errmsg(err, errlen, "manifest.json: line %d: %s", je.line,
			       rr_printable(je.text, e, sizeof(e)));
		return NULL;
	}
	x = json_object_get(root, "schema");
	if (!json_is_string(x) || strcmp(json_string_value(x), "fsbench-matrix")) {
		errmsg(err, errlen, "manifest.json: not an fsbench matrix manifest (schema is not \"fsbench-matrix\")");
		goto bad;
	}
	x = json_object_get(root, "version");
	if (!x)
		x = json_object_get(root, "schema_version");
	if (!json_is_integer(x) || json_integer_value(x) != 1) {
		errmsg(err, errlen, "manifest.json: version %s is not 1 (a newer fsbench wrote it?)",
		     json_is_integer(x) ? "other" : "missing");
		goto bad;
	}
	if (!json_is_object(json_object_get(root, "experiment"))) {
		errmsg(err, errlen, "manifest.json: experiment is missing or not an object");
		goto bad;
	}
	return root;
bad:
	json_decref(root);
	return NULL;
}

/* the experiment's name, workload and its arguments, the kernel, host, version and target
 * kind: 0, or -1 with the reason in err */
static int read_names(struct mx *m, const json_t *root, const json_t *exp, char *err, size_t errlen)
{
	const json_t *t = json_object_get(root, "target"), *x, *a;
	size_t i;

	if (get_str(exp, "name", true, &m->name, "manifest.json: experiment", err, errlen) ||
	    get_str(exp, "workload", true, &m->workload, "manifest.json: experiment", err, errlen) ||
	    get_str(root, "kernel_release", true, &m->kernel_release, "manifest.json", err, errlen) ||
	    /* the runner writes the host as an object (env_host); a bare name is read too */
	    get_str(json_is_object(json_object_get(root, "host")) ? json_object_get(root, "host") : root,
		    json_is_object(json_object_get(root, "host")) ? "hostname" : "host", true, &m->host,
		    "manifest.json", err, errlen) ||
	    get_str(root, "fsbench_version", true, &m->fsbench_version, "manifest.json", err, errlen) ||
	    get_str(json_is_object(t) ? t : root, json_is_object(t) ? "kind" : "target_kind", true, &m->target_kind,
		    "manifest.json: target", err, errlen))
		return -1;
	if (!m->name[0]) {
		free(m->name);
		m->name = strdup("matrix");
	}
	x = json_object_get(exp, "workload_args");
	if (x && !json_is_array(x))
		return errmsg(err, errlen, "manifest.json: experiment.workload_args is not an array");
	if (x && json_array_size(x) > 1000)
		return errmsg(err, errlen, "manifest.json: experiment.workload_args is longer than 1000");
	if (!(m->wargs = calloc(json_array_size(x) + 1, sizeof(char *))))
		return errmsg(err, errlen, "out of memory");
	json_array_foreach (x, i, a) {
		if (!(m->wargs[i] = str_of(a, false)))
			return errmsg(err, errlen,
				      "manifest.json: experiment.workload_args[%zu] is not a string", i);
		m->nwargs++;
	}
	return 0;
}

/* the first aged target's recipe and state (matrix --age) */
static void read_aged(struct mx *m, const json_t *root)
{
	const json_t *ag = json_object_get(root, "aged"), *a0 = json_array_get(ag, 0);
	const json_t *u = json_object_get(a0, "used_pct"), *epf = json_object_get(a0, "extents_per_file");

	m->naged = json_is_array(ag) && json_array_size(ag) < 100000 ? (unsigned)json_array_size(ag) : 0;
	rr_printable(json_string_value(json_object_get(a0, "recipe")) ?: "", m->aged_recipe,
		     sizeof(m->aged_recipe));
	m->aged_used_pct = json_is_number(u) ? json_number_value(u) : NAN;
	m->aged_epf = json_is_number(epf) ? json_number_value(epf) : NAN;
	m->aged_files = json_is_integer(json_object_get(a0, "files"))
				? json_integer_value(json_object_get(a0, "files"))
				: -1;
}

/* the design: order, fresh, mkfs count, ageing, primary figures, margin, alpha, axes, cells
 * and runs: 0, or -1 with the reason in err */
static int read_design(struct mx *m, const json_t *root, const json_t *exp, char *err, size_t errlen)
{
	const char *ord = json_string_value(json_object_get(exp, "order"));
	char e2[512];

	const char *prim = json_string_value(json_object_get(exp, "primary"));
	const json_t *eq = json_object_get(exp, "equivalence_pct");

	/* runs in rounds that each ran every cell: interleaved or rotated, not sequential */
	m->rounds = !ord || strcmp(ord, "sequential");
	m->fresh_never = !strcmp(json_string_value(json_object_get(exp, "fresh")) ?: "", "never");
	m->mkfs_count = json_is_integer(json_object_get(root, "mkfs_count"))
				? json_integer_value(json_object_get(root, "mkfs_count"))
				: -1;
	read_aged(m, root);
	/* outside input: a list that fails the check is ignored (the declared figures), said */
	if (prim && !vd_primary_check(prim) && !(m->primary = strdup(prim)))
		return errmsg(err, errlen, "out of memory");
	if (prim && !m->primary)
		warn(m,
		     "manifest.json: experiment.primary is not a list of figure keys: the declared primary figures used");
	if (json_is_number(eq) && json_number_value(eq) > 0 && json_number_value(eq) < 100)
		m->equiv_pct = json_number_value(eq);
	eq = json_object_get(exp, "alpha");
	m->alpha = json_is_number(eq) && json_number_value(eq) > 0 && json_number_value(eq) <= VD_ALPHA
			   ? json_number_value(eq)
			   : VD_ALPHA;
	if (read_axes(m, exp, e2, sizeof(e2)) || read_cells(m, exp, e2, sizeof(e2)) ||
	    read_runs(m, root, e2, sizeof(e2)))
		return errmsg(err, errlen, "manifest.json: %s", e2);
	return 0;
}

/* the runs flagged and used, and what that warrants */
static void count_runs(struct mx *m)
{
	unsigned flagged = 0, used = 0;

	for (unsigned r = 0; r < m->nruns; r++) {
		flagged += m->run[r].other_cpu_flag;
		used += m->run[r].used;
		m->nexcluded += m->run[r].flag_excluded;
	}
	m->nused = used;
	m->nflagged = flagged;
	if (flagged)
		warn(m, "%u of %u runs flagged: other processes took CPU beyond the runner's threshold (%s)",
		     flagged, m->nruns,
		     m->exclude_flagged ? "left out: --exclude-flagged"
					: "counted; marked in the runs table");
	if (!used)
		warn(m, "no usable run: nothing to analyse");
}

int mread_load(const char *dir, bool exclude_flagged, struct mx *m, char *err, size_t errlen)
{
	char path[4096];
	json_t *root = NULL;
	const json_t *exp;
	int rc = -1, dfd = -1;

	memset(m, 0, sizeof(*m));
	m->exclude_flagged = exclude_flagged;
	if (!(m->dir = strdup(dir)))
		return errmsg(err, errlen, "out of memory");
	if (snprintf(path, sizeof(path), "%s/manifest.json", dir) >= (int)sizeof(path))
		return errmsg(err, errlen, "the directory name is too long");
	/* DIR as named; below it, nothing through a symbolic link (open_in) */
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return errmsg(err, errlen, "%s", strerror(errno));
	if (!(root = load_manifest(dfd, err, errlen)))
		goto out;
	exp = json_object_get(root, "experiment");
	if (read_names(m, root, exp, err, errlen) || read_design(m, root, exp, err, errlen))
		goto out;
	for (unsigned r = 0; r < m->nruns; r++)
		if (load_run(m, dfd, &m->run[r], err, errlen) || load_after(m, dfd, &m->run[r], err, errlen))
			goto out;
		else if (m->run[r].loaded && afterrun_umount_put(&m->run[r].r, m->run[r].umount_s))
			goto oom;
	/* a manifest without a workload takes the runs' */
	if (!m->workload[0])
		for (unsigned r = 0; r < m->nruns && !m->workload[0]; r++)
			if (m->run[r].loaded) {
				free(m->workload);
				if (!(m->workload = strdup(m->run[r].r.workload)))
					goto oom;
			}
	for (unsigned c = 0; c < m->ncells; c++)
		if (build_cell(m, c))
			goto oom;
	count_runs(m);
	noise_warnings(m);
	rc = 0;
	goto out;
oom:
	errmsg(err, errlen, "out of memory");
out:
	json_decref(root);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

/* ---- noise, measured and named: warnings the report carries (its Warnings section) ---- */

static const char *warn_words(const char *id)
{
	static const char *const w[][2] = {
		{ "cache_absorbed_writes", "writes absorbed by the page cache" },
		{ "page_cache_reads", "reads served from the page cache" },
		{ "cpu_bound", "bound by kernel CPU" },
		{ "early_finisher", "threads finished far apart" },
		{ "short_phase", "phases (iterations) shorter than 1 s" },
	};

	for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++)
		if (!strcmp(w[k][0], id))
			return w[k][1];
	return id;
}

/* what each cell's runs warned, counted: "6 of 6 runs: writes absorbed ..." */
static void cell_run_warnings(struct mx *m, unsigned ci)
{
	const struct mread_cell *c = &m->cell[ci];
	const char *seen[32];
	unsigned nseen = 0;

	for (unsigned k = 0; k < c->nrun; k++) {
		const struct rr_result *r = &m->run[c->run[k]].r;

		for (unsigned w = 0; w < r->nwarns; w++) {
			const struct rr_warn *x = &r->warns[w];
			unsigned runs = 0, ph = 0, of = 0;
			bool dup = false;

			for (unsigned s = 0; s < nseen && !dup; s++)
				dup = !strcmp(seen[s], x->id);
			if (dup || nseen == 32)
				continue;
			seen[nseen++] = x->id;
			for (unsigned j = 0; j < c->nrun; j++) {
				const struct rr_result *o = &m->run[c->run[j]].r;
				bool had = false;

				for (unsigned v = 0; v < o->nwarns; v++)
					if (!strcmp(o->warns[v].id, x->id)) {
						had = true;
						ph += o->warns[v].phases;
						of += o->warns[v].of;
					}
				runs += had;
			}
			warn(m, "cell %s: %u of %u runs warned: %s (%u of their %u phases or iterations), e.g. %s", c->name,
			     runs, c->nrun, warn_words(x->id), ph, of, x->msg);
		}
	}
}

/* an optional iteration figure measured in some iterations only (fs_mark --layout) */
static void cell_coverage(struct mx *m, unsigned ci)
{
	const struct mread_cell *c = &m->cell[ci];
	const char *seen[16];
	unsigned nseen = 0;

	for (unsigned k = 0; k < c->nrun; k++) {
		const struct rr_result *r = &m->run[c->run[k]].r;

		for (unsigned v = 0; v < r->ncover; v++) {
			unsigned present = 0, of = 0;
			bool dup = false;
			const struct rr_figure *f;

			for (unsigned s = 0; s < nseen && !dup; s++)
				dup = !strcmp(seen[s], r->cover[v].key);
			if (dup || nseen == 16)
				continue;
			seen[nseen++] = r->cover[v].key;
			for (unsigned j = 0; j < c->nrun; j++) {
				const struct rr_result *o = &m->run[c->run[j]].r;
				bool had = false;
				unsigned iters = 0;

				for (unsigned w = 0; w < o->ncover; w++)
					if (!strcmp(o->cover[w].key, r->cover[v].key)) {
						present += o->cover[w].present;
						of += o->cover[w].of;
						had = true;
					}
				/* a run whose every iteration had it: fully covered */
				if (!had && o->nfill)
					for (unsigned s = 0; s < o->nfill; s++)
						iters += o->fill[s].n;
				present += iters;
				of += iters;
			}
			f = rr_find(&m->run[c->run[k]].r, r->cover[v].key);
			warn(m, "cell %s: %s measured in %u of %u iterations (%.0f %%); the others had nothing to "
			     "measure yet: its figures describe those %u only", c->name, f ? f->name : r->cover[v].key,
			     present, of, of ? 100.0 * present / of : 0.0, present);
		}
	}
}

/* each cell's key figures across its runs in run order (core/drift.h), the tests corrected
 * together (Holm): a drift is named with its trend */
static void drift_warnings(struct mx *m)
{
	struct dt {
		unsigned cell;
		const struct rr_figure *f;
		struct drift d;
	} *t = NULL;
	double *p = NULL;
	unsigned n = 0, cap = 0;

	for (unsigned ci = 0; ci < m->ncells; ci++) {
		const struct rr_result *r = &m->cell[ci].merged;

		for (unsigned f = 0; f < r->nfig; f++) {
			struct drift d;

			if (!r->fig[f].key_fig || r->nruns < 5 || drift_test(r->fig[f].v, r->nruns, &d))
				continue;
			if (n == cap) {
				struct dt *nt = realloc(t, (cap = cap ? 2 * cap : 32) * sizeof(*t));

				if (!nt)
					goto out;
				t = nt;
			}
			t[n++] = (struct dt){ ci, &r->fig[f], d };
		}
	}
	if (!n || !(p = malloc(n * sizeof(double))))
		goto out;
	for (unsigned k = 0; k < n; k++)
		p[k] = t[k].d.p;
	stats_holm(p, n, p);
	for (unsigned k = 0; k < n; k++)
		if (p[k] < 0.05)
			warn(m, "cell %s: %s drifts across its %u runs in run order: %+.1f %% per run, %+.0f %% from the "
			     "first to the last (Kendall tau %+.2f, p %.2g, Holm over %u drift tests): the machine changed "
			     "during the experiment", m->cell[t[k].cell].name, t[k].f->name, t[k].d.n, t[k].d.slope_pct,
			     t[k].d.total_pct, t[k].d.tau, p[k], n);
out:
	free(t);
	free(p);
}

static void steal_warning(struct mx *m)
{
	unsigned n = 0;
	double hi = 0;

	for (unsigned r = 0; r < m->nruns; r++)
		if (!isnan(m->run[r].steal_pct) && m->run[r].steal_pct >= 5) {
			n++;
			hi = fmax(hi, m->run[r].steal_pct);
		}
	if (n)
		warn(m, "%u of %u runs lost 5 %% or more of the machine's CPU to steal time (up to %.1f %%): the "
		     "hypervisor ran other guests meanwhile", n, m->nruns, hi);
}

static void noise_warnings(struct mx *m)
{
	steal_warning(m);
	drift_warnings(m);
	for (unsigned c = 0; c < m->ncells; c++) {
		cell_run_warnings(m, c);
		cell_coverage(m, c);
	}
}

static void prof_free(struct mread_profile *p, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		perf_profile_free(p[k].p);
	free(p);
}

void mread_free(struct mx *m)
{
	free(m->primary);
	for (unsigned a = 0; a < m->naxes; a++) {
		for (unsigned k = 0; k < m->axis[a].nvalues; k++)
			free(m->axis[a].values[k]);
		free(m->axis[a].values);
		free(m->axis[a].name);
	}
	free(m->axis);
	for (unsigned c = 0; c < m->ncells; c++) {
		free(m->cell[c].name);
		free(m->cell[c].config_json);
		free(m->cell[c].config_hash);
		free(m->cell[c].run);
		rr_free(&m->cell[c].merged);
		prof_free(m->cell[c].prof, m->cell[c].nprof);
	}
	free(m->cell);
	for (unsigned r = 0; r < m->nruns; r++) {
		free(m->run[r].started_at);
		free(m->run[r].ended_at);
		free(m->run[r].json);
		free(m->run[r].problem);
		free(m->run[r].after_json);
		free(m->run[r].after_problem);
		after_free(&m->run[r].after);
		rr_free(&m->run[r].r);
		prof_free(m->run[r].prof, m->run[r].nprof);
	}
	free(m->run);
	for (unsigned k = 0; k < m->nwargs; k++)
		free(m->wargs[k]);
	free(m->wargs);
	for (unsigned k = 0; k < m->nwarn; k++)
		free(m->warn[k]);
	free(m->warn);
	free(m->dir);
	free(m->name);
	free(m->workload);
	free(m->kernel_release);
	free(m->host);
	free(m->fsbench_version);
	free(m->target_kind);
	memset(m, 0, sizeof(*m));
}
