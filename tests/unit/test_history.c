/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for report/history on a temporary database: the default path ($XDG_DATA_HOME, then
 * ~/.local/share), the database's directory created 0700, a symbolic link or a directory at the
 * path refused, an experiment recorded once however often it is added, its runs' figures read
 * back by experiment, cell and figure, a later experiment kept apart, and a database of another
 * schema version refused. */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "report/history.h"
#include "report/matrix_read.h"

/* an experiment of 2 cells x 2 runs, every run the corpus result */
static void make_mx(struct mx *m, const char *result, const char *t0)
{
	static const char *const vals[2] = { "ext4", "xfs" };
	char err[512];

	memset(m, 0, sizeof(*m));
	m->dir = strdup("/tmp/exp");
	m->name = strdup("unit");
	m->workload = strdup("tiotest");
	m->kernel_release = strdup("6.1.0");
	m->host = strdup("h");
	m->fsbench_version = strdup("0.1.0");
	m->target_kind = strdup("image");
	m->naxes = 1;
	m->axis = calloc(1, sizeof(*m->axis));
	m->axis[0].name = strdup("fs");
	m->axis[0].nvalues = 2;
	m->axis[0].values = calloc(2, sizeof(char *));
	m->ncells = 2;
	m->cell = calloc(2, sizeof(*m->cell));
	for (unsigned c = 0; c < 2; c++) {
		m->axis[0].values[c] = strdup(vals[c]);
		m->cell[c].name = strdup(vals[c]);
		m->cell[c].value[0] = c;
		m->cell[c].config_json = strdup("{}");
		m->cell[c].config_hash = strdup(c ? "hash-xfs" : "hash-ext4");
		m->cell[c].median = -1;
	}
	m->nruns = 4;
	m->run = calloc(4, sizeof(*m->run));
	for (unsigned r = 0; r < 4; r++) {
		char ts[40];

		snprintf(ts, sizeof(ts), "%s%u", t0, r);
		m->run[r].cell = r % 2;
		m->run[r].repeat = r / 2 + 1;
		m->run[r].order = r;
		m->run[r].started_at = strdup(ts);
		m->run[r].ended_at = strdup(ts);
		m->run[r].json = strdup("runs/x.json");
		m->run[r].other_cpu_pct = r == 3 ? 50 : NAN;
		m->run[r].other_cpu_flag = r == 3;
		m->run[r].used = true;
		m->run[r].loaded = rr_load_file(result, &m->run[r].r, err, sizeof(err)) == 0;
		CHECK(m->run[r].loaded, "corpus %s: %s", result, err);
	}
}

int main(void)
{
	char tmp[] = "/tmp/fsbench-history.XXXXXX", path[4096], other[4096], err[512], corpus[4096];
	const char *slash = strrchr(__FILE__, '/');
	struct history *h = NULL;
	struct history_exp *x;
	struct history_val *v;
	unsigned n, added;
	struct stat st;
	struct mx m;

	snprintf(corpus, sizeof(corpus), "%.*s/../fuzz/corpus/valid_tiotest.json", slash ? (int)(slash - __FILE__) : 1,
		 slash ? __FILE__ : ".");
	CHECK(mkdtemp(tmp) != NULL, "mkdtemp");

	setenv("XDG_DATA_HOME", "/x/data", 1);
	setenv("HOME", "/home/u", 1);
	CHECK(history_default_path(path, sizeof(path), err, sizeof(err)) == 0 && !strcmp(path, "/x/data/fsbench/history.db"),
	      "XDG_DATA_HOME: %s", path);
	setenv("XDG_DATA_HOME", "relative", 1);
	CHECK(history_default_path(path, sizeof(path), err, sizeof(err)) == 0 &&
	      !strcmp(path, "/home/u/.local/share/fsbench/history.db"), "a relative XDG_DATA_HOME is ignored: %s", path);
	unsetenv("XDG_DATA_HOME");
	CHECK(history_default_path(path, sizeof(path), err, sizeof(err)) == 0 &&
	      !strcmp(path, "/home/u/.local/share/fsbench/history.db"), "HOME: %s", path);
	unsetenv("HOME");
	CHECK(history_default_path(path, sizeof(path), err, sizeof(err)) == -1 && strstr(err, "--db"), "neither: %s", err);

	snprintf(path, sizeof(path), "%s/a/b/history.db", tmp);
	CHECK(history_open(path, false, &h, err, sizeof(err)) == -1 && !h, "no database, not created: %s", err);
	CHECK(history_open(path, true, &h, err, sizeof(err)) == 0 && h, "create: %s", err);
	snprintf(other, sizeof(other), "%s/a/b", tmp);
	CHECK(stat(other, &st) == 0 && (st.st_mode & 0777) == 0700, "its directory is 0700: %o", st.st_mode & 0777);

	make_mx(&m, corpus, "2026-01-01T00:00:0");
	CHECK(history_add_matrix(h, &m, &added, err, sizeof(err)) == 0 && added == 4, "4 runs added (%u): %s", added, err);
	CHECK(history_add_matrix(h, &m, &added, err, sizeof(err)) == 0 && added == 0, "again: nothing added (%u)", added);
	CHECK(history_experiments(h, &x, &n, err, sizeof(err)) == 0 && n == 1 && x[0].runs == 4 && x[0].cells == 2 &&
	      !strcmp(x[0].name, "unit") && !strcmp(x[0].started, "2026-01-01T00:00:00") && !strcmp(x[0].kernel, "6.1.0"),
	      "one experiment of 2 cells, 4 runs (%u)", n);
	free(x);
	{
		const struct rr_figure *f = rr_find(&m.run[0].r, "write.rate_mib_per_s");

		CHECK(history_values(h, 0, "unit", "xfs", "write.rate_mib_per_s", &v, &n, err, sizeof(err)) == 0 && n == 2,
		      "xfs' write rate: 2 runs (%u)", n);
		CHECK(n == 2 && f && fabs(v[0].value - f->v[0]) <= 1e-12 * f->v[0] && v[0].rate && v[0].better == 1 && v[0].key_fig &&
		      !strcmp(v[0].config_hash, "hash-xfs") && !strcmp(v[0].unit, "MiB/s"), "the value, its declaration");
		CHECK(n == 2 && !v[0].flagged && v[1].flagged, "the flagged run says so");
		free(v);
		CHECK(history_values(h, 0, NULL, NULL, NULL, &v, &n, err, sizeof(err)) == 0 && n == 4 * m.run[0].r.nfig,
		      "every figure of every run: %u", n);
		free(v);
	}
	mread_free(&m);
	make_mx(&m, corpus, "2026-02-01T00:00:0");
	CHECK(history_add_matrix(h, &m, &added, err, sizeof(err)) == 0 && added == 4, "a later experiment: 4 more");
	CHECK(history_experiments(h, &x, &n, err, sizeof(err)) == 0 && n == 2 && x[1].id > x[0].id, "two experiments");
	if (n == 2)
		CHECK(history_values(h, x[1].id, NULL, "ext4", "write.rate_mib_per_s", &v, &n, err, sizeof(err)) == 0 && n == 2,
		      "by experiment id: %u", n);
	free(x);
	free(v);
	mread_free(&m);
	history_close(h);

	/* refused: a symbolic link, a directory, another schema version */
	snprintf(other, sizeof(other), "%s/link.db", tmp);
	CHECK(symlink(path, other) == 0, "symlink");
	CHECK(history_open(other, true, &h, err, sizeof(err)) == -1 && strstr(err, "symbolic link"), "a link: %s", err);
	snprintf(other, sizeof(other), "%s/a", tmp);
	CHECK(history_open(other, true, &h, err, sizeof(err)) == -1, "a directory: %s", err);
	{
		sqlite3 *db;

		CHECK(sqlite3_open(path, &db) == SQLITE_OK &&
		      sqlite3_exec(db, "UPDATE meta SET value = '2' WHERE key = 'schema_version'", NULL, NULL, NULL) == SQLITE_OK,
		      "set version 2");
		sqlite3_close(db);
		CHECK(history_open(path, false, &h, err, sizeof(err)) == -1 && strstr(err, "schema version"), "version 2: %s", err);
	}
	snprintf(other, sizeof(other), "rm -rf '%s'", tmp);
	CHECK(system(other) == 0, "cleanup");
	return check_done("test_history");
}
