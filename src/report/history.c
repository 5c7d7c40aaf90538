/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The history database: SQLite, schema and rules in history.h. */
#include "report/history.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/errmsg.h"
#include "core/figure.h"
#include "report/matrix_read.h"

#include "report/history_int.h"

#define HISTORY_SCHEMA 1

/* SQLite's wait for another writer's lock: up to 10 s, in 10 ms steps, and not past a stop
 * (a signal to the runner: its report ends instead of waiting on) */
static int busy_wait(void *arg, int n)
{
	const struct history *h = arg;

	if ((h->stop && h->stop()) || n >= 1000)
		return 0;
	usleep(10000);
	return 1;
}

int history_default_path(char *buf, size_t len, char *err, size_t errlen)
{
	const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	int n;

	/* the XDG spec: a relative XDG_DATA_HOME is invalid and ignored */
	if (x && x[0] == '/')
		n = snprintf(buf, len, "%s/fsbench/history.db", x);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.local/share/fsbench/history.db", home);
	else
		return errmsg(err, errlen, "neither XDG_DATA_HOME nor HOME is an absolute path: name the database with --db");
	if (n < 0 || (size_t)n >= len)
		return errmsg(err, errlen, "the database path is too long");
	return 0;
}

/* The directory path names, opened by walking its components from / (or the working directory)
 * with O_NOFOLLOW: SQLite opens the database by its path and would follow a link anywhere in
 * it, so a symbolic link in any component is refused (someone who can write a directory on the
 * way could point the database, or the empty file it begins as, anywhere). create: missing
 * directories are made (0700) as the walk reaches them; the caller walks once without create
 * first, so that a refusal creates nothing. The directory's fd, or -errno with the reason in err
 * (-ENOENT: a component is missing). */
static int walk_parent(const char *path, bool create, char *err, size_t errlen)
{
	char dir[4096];
	char *p, *slash;
	int cur;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		errmsg(err, errlen, "path too long");
		return -ENAMETOOLONG;
	}
	slash = strrchr(dir, '/');
	if (slash)
		slash[1] = '\0';
	cur = open(dir[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0) {
		int e = errno;

		errmsg(err, errlen, "cannot open '%s': %s", dir[0] == '/' ? "/" : ".", strerror(e));
		return -e;
	}
	for (p = dir; slash && p <= slash; ) {
		size_t n = strcspn(p, "/");
		struct stat st;
		int fd, e;

		p[n] = '\0';
		if (n == 0 || !strcmp(p, ".")) {
			p[n] = '/';
			p += n + 1;
			continue;
		}
		fd = openat(cur, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && create) {
			if (mkdirat(cur, p, 0700) && errno != EEXIST) {
				e = errno;
				errmsg(err, errlen, "cannot create '%s': %s", dir, strerror(e));
				close(cur);
				return -e;
			}
			fd = openat(cur, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0) {
			e = errno;
			if (e != ENOENT && !fstatat(cur, p, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
				e = ELOOP;
			if (e == ELOOP)
				errmsg(err, errlen, "'%s' is a symbolic link: refusing it on the history database's path", dir);
			else
				errmsg(err, errlen, "cannot open '%s': %s", dir, strerror(e));
			close(cur);
			return -e;
		}
		close(cur);
		cur = fd;
		p[n] = '/';
		p += n + 1;
	}
	return cur;
}

int history_check_path(const char *path, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');
	struct stat st;
	int dfd;

	if (!*path || (base && !base[1]))
		return errmsg(err, errlen, "'%s' names no file", path);
	base = base ? base + 1 : path;
	if ((dfd = walk_parent(path, false, err, errlen)) == -ENOENT)
		return 0;   /* made when the database is created */
	if (dfd < 0)
		return -1;
	if (!fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) && !S_ISREG(st.st_mode)) {
		close(dfd);
		if (S_ISLNK(st.st_mode))
			return errmsg(err, errlen, "'%s' is a symbolic link: refusing it as the history database", path);
		return errmsg(err, errlen, "'%s' is not a regular file", path);
	}
	close(dfd);
	return 0;
}

int history_exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		errmsg(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static const char schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE experiments("
	" id INTEGER PRIMARY KEY, name TEXT NOT NULL, host TEXT NOT NULL, first_started_at TEXT NOT NULL,"
	" kernel_release TEXT NOT NULL, fsbench_version TEXT NOT NULL, workload TEXT NOT NULL, dir TEXT NOT NULL,"
	" imported_at TEXT NOT NULL, UNIQUE(name, host, first_started_at));"
	"CREATE TABLE runs("
	" id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
	" cell TEXT NOT NULL, config_hash TEXT NOT NULL, config TEXT NOT NULL, kernel_release TEXT NOT NULL,"
	" host TEXT NOT NULL, fsbench_version TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT NOT NULL,"
	" repeat INTEGER NOT NULL, run_order INTEGER NOT NULL, other_cpu_pct REAL, other_cpu_flag INTEGER NOT NULL,"
	" used INTEGER NOT NULL, UNIQUE(experiment_id, cell, repeat, started_at));"
	"CREATE TABLE figures("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL, name TEXT NOT NULL,"
	" unit TEXT NOT NULL, better INTEGER NOT NULL, rate INTEGER NOT NULL, key_fig INTEGER NOT NULL,"
	" value REAL NOT NULL, PRIMARY KEY(run_id, key));"
	"CREATE INDEX runs_by_config ON runs(config_hash, started_at);"
	"CREATE INDEX figures_by_key ON figures(key);"
	"CREATE TABLE run_env("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL, value TEXT NOT NULL,"
	" PRIMARY KEY(run_id, key));";

/* The schema above as data, to check an existing database against: each table's columns
 * (name, declared type, NOT NULL, position in the primary key), the columns of its unique key,
 * and the indexes. An existing database is never altered to fit: one that differs is damaged. */
struct hcol {
	const char *name, *type;
	int notnull, pk;
};
static const struct htable {
	const char *name;
	const char *unique;       /* a unique key's columns, comma-separated (or the composite primary key) */
	struct hcol col[16];
	bool optional;            /* a table later fsbench versions make: a database made before lacks it */
} htables[] = {
	{ "meta", "key", { { "key", "TEXT", 0, 1 }, { "value", "TEXT", 1, 0 } }, false },
	{ "experiments", "name,host,first_started_at",
	  { { "id", "INTEGER", 0, 1 }, { "name", "TEXT", 1, 0 }, { "host", "TEXT", 1, 0 },
	    { "first_started_at", "TEXT", 1, 0 }, { "kernel_release", "TEXT", 1, 0 },
	    { "fsbench_version", "TEXT", 1, 0 }, { "workload", "TEXT", 1, 0 }, { "dir", "TEXT", 1, 0 },
	    { "imported_at", "TEXT", 1, 0 } }, false },
	{ "runs", "experiment_id,cell,repeat,started_at",
	  { { "id", "INTEGER", 0, 1 }, { "experiment_id", "INTEGER", 1, 0 }, { "cell", "TEXT", 1, 0 },
	    { "config_hash", "TEXT", 1, 0 }, { "config", "TEXT", 1, 0 }, { "kernel_release", "TEXT", 1, 0 },
	    { "host", "TEXT", 1, 0 }, { "fsbench_version", "TEXT", 1, 0 }, { "started_at", "TEXT", 1, 0 },
	    { "ended_at", "TEXT", 1, 0 }, { "repeat", "INTEGER", 1, 0 }, { "run_order", "INTEGER", 1, 0 },
	    { "other_cpu_pct", "REAL", 0, 0 }, { "other_cpu_flag", "INTEGER", 1, 0 }, { "used", "INTEGER", 1, 0 } }, false },
	{ "figures", "run_id,key",
	  { { "run_id", "INTEGER", 1, 1 }, { "key", "TEXT", 1, 2 }, { "name", "TEXT", 1, 0 }, { "unit", "TEXT", 1, 0 },
	    { "better", "INTEGER", 1, 0 }, { "rate", "INTEGER", 1, 0 }, { "key_fig", "INTEGER", 1, 0 },
	    { "value", "REAL", 1, 0 } }, false },
	{ "run_env", "run_id,key",
	  { { "run_id", "INTEGER", 1, 1 }, { "key", "TEXT", 1, 2 }, { "value", "TEXT", 1, 0 } }, true },
};
static const char *const hindexes[][2] = { { "runs_by_config", "runs" }, { "figures_by_key", "figures" } };

/* 1 when table t has a unique index on exactly the columns cols ("a,b"), 0 when not, -1 on error */
static int has_unique(sqlite3 *db, const char *t, const char *cols)
{
	sqlite3_stmt *q = NULL, *qi = NULL;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_index_list(?1) WHERE \"unique\" = 1", -1, &q, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_index_info(?1) ORDER BY seqno)",
			       -1, &qi, NULL)) {
		sqlite3_finalize(q);
		return -1;
	}
	sqlite3_bind_text(q, 1, t, -1, SQLITE_STATIC);
	while (!found && sqlite3_step(q) == SQLITE_ROW) {
		sqlite3_reset(qi);
		sqlite3_bind_text(qi, 1, (const char *)sqlite3_column_text(q, 0), -1, SQLITE_TRANSIENT);
		if (sqlite3_step(qi) == SQLITE_ROW && sqlite3_column_text(qi, 0) &&
		    !strcmp((const char *)sqlite3_column_text(qi, 0), cols))
			found = 1;
	}
	sqlite3_finalize(q);
	sqlite3_finalize(qi);
	return found;
}

/* 1 when the database has table t, 0 when not */
static int has_table(sqlite3 *db, const char *t)
{
	sqlite3_stmt *q = NULL;
	int has = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &q, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(q, 1, t, -1, SQLITE_STATIC);
		has = sqlite3_step(q) == SQLITE_ROW;
	}
	sqlite3_finalize(q);
	return has;
}

/* An existing database against the schema: 0, or -1 with what differs in err (the first thing).
 * *none: it has none of fsbench's tables (then err says nothing). An optional table that is
 * missing is no damage (a database made before it); one that is there is checked. */
static int schema_check(sqlite3 *db, bool *none, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	unsigned present = 0, ntab = sizeof(htables) / sizeof(htables[0]);
	int rc = -1;

	*none = false;
	if (sqlite3_prepare_v2(db, "SELECT cid, name, type, \"notnull\", pk FROM pragma_table_info(?1)", -1, &q, NULL))
		return errmsg(err, errlen, "%s", sqlite3_errmsg(db));
	for (unsigned t = 0; t < ntab; t++) {
		sqlite3_reset(q);
		sqlite3_bind_text(q, 1, htables[t].name, -1, SQLITE_STATIC);
		present += sqlite3_step(q) == SQLITE_ROW;
	}
	if (!present) {
		*none = true;
		rc = 0;
		goto out;
	}
	for (unsigned t = 0; t < ntab; t++) {
		const struct htable *ht = &htables[t];
		unsigned ncol = 0, seen = 0;
		int r;

		while (ht->col[ncol].name)
			ncol++;
		if (ht->optional && !has_table(db, ht->name))
			continue;
		sqlite3_reset(q);
		sqlite3_bind_text(q, 1, ht->name, -1, SQLITE_STATIC);
		while ((r = sqlite3_step(q)) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(q, 1), *type = (const char *)sqlite3_column_text(q, 2);
			unsigned c;

			for (c = 0; c < ncol && strcmp(ht->col[c].name, name ? name : ""); c++)
				;
			if (c == ncol) {
				errmsg(err, errlen, "table '%s' has a column '%s' the schema lacks", ht->name, name ? name : "");
				goto out;
			}
			if (strcasecmp(type ? type : "", ht->col[c].type) || sqlite3_column_int(q, 3) != ht->col[c].notnull ||
			    sqlite3_column_int(q, 4) != ht->col[c].pk) {
				errmsg(err, errlen, "table '%s': column '%s' is not %s%s%s", ht->name, ht->col[c].name, ht->col[c].type,
				       ht->col[c].notnull ? " NOT NULL" : "", ht->col[c].pk ? " (primary key)" : "");
				goto out;
			}
			seen++;
		}
		if (r != SQLITE_DONE) {
			errmsg(err, errlen, "%s", sqlite3_errmsg(db));
			goto out;
		}
		if (!seen) {
			errmsg(err, errlen, "table '%s' is missing", ht->name);
			goto out;
		}
		if (seen < ncol) {
			for (unsigned c = 0; c < ncol; c++) {
				sqlite3_stmt *qc = NULL;
				bool has = false;

				if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &qc, NULL) == SQLITE_OK) {
					sqlite3_bind_text(qc, 1, ht->name, -1, SQLITE_STATIC);
					sqlite3_bind_text(qc, 2, ht->col[c].name, -1, SQLITE_STATIC);
					has = sqlite3_step(qc) == SQLITE_ROW;
				}
				sqlite3_finalize(qc);
				if (!has) {
					errmsg(err, errlen, "table '%s' lacks its column '%s'", ht->name, ht->col[c].name);
					goto out;
				}
			}
		}
		if ((r = has_unique(db, ht->name, ht->unique)) != 1) {
			errmsg(err, errlen, r < 0 ? "%s" : "table '%s' lacks its unique key (%s)", r < 0 ? sqlite3_errmsg(db) : ht->name,
			       ht->unique);
			goto out;
		}
	}
	for (size_t k = 0; k < sizeof(hindexes) / sizeof(hindexes[0]); k++) {
		sqlite3_stmt *qx = NULL;
		bool has = false;

		if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?1 AND tbl_name = ?2",
				       -1, &qx, NULL) == SQLITE_OK) {
			sqlite3_bind_text(qx, 1, hindexes[k][0], -1, SQLITE_STATIC);
			sqlite3_bind_text(qx, 2, hindexes[k][1], -1, SQLITE_STATIC);
			has = sqlite3_step(qx) == SQLITE_ROW;
		}
		sqlite3_finalize(qx);
		if (!has) {
			errmsg(err, errlen, "index '%s' of table '%s' is missing", hindexes[k][0], hindexes[k][1]);
			goto out;
		}
	}
	rc = 0;
out:
	sqlite3_finalize(q);
	return rc;
}

/* the first row's first column of sql as an integer; -1 on error */
static long long scalar(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *q = NULL;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* In the open transaction: a database without any table becomes a new history (create), an
 * existing one is checked against the schema and its version, never altered. */
static int schema_take(sqlite3 *db, const char *path, bool create, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	char e[512];
	bool none;
	int r;

	if (scalar(db, "SELECT COUNT(*) FROM sqlite_master") == 0) {
		if (!create)
			return errmsg(err, errlen, "'%s' is an empty database: no history recorded in it", path);
		if (history_exec(db, schema_sql, e, sizeof(e)) ||
		    history_exec(db, "INSERT INTO meta VALUES('schema_version', '1');", e, sizeof(e)))
			return errmsg(err, errlen, "'%s': %s", path, e);
		return 0;
	}
	if (schema_check(db, &none, e, sizeof(e)))
		return errmsg(err, errlen, "'%s' is damaged: %s (fsbench repairs nothing: move it away and a new "
			      "database is made)", path, e);
	if (none)
		return errmsg(err, errlen, "'%s' is not an fsbench history database (it has none of its tables)", path);
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &q, NULL))
		return errmsg(err, errlen, "'%s': %s", path, sqlite3_errmsg(db));
	r = sqlite3_step(q);
	if (r != SQLITE_ROW) {
		errmsg(err, errlen, r == SQLITE_DONE ? "'%s' is damaged: table 'meta' has no schema_version (fsbench "
		       "repairs nothing: move it away and a new database is made)" : "'%s': %s", path, sqlite3_errmsg(db));
		sqlite3_finalize(q);
		return -1;
	}
	if (!sqlite3_column_text(q, 0) || atoi((const char *)sqlite3_column_text(q, 0)) != HISTORY_SCHEMA) {
		errmsg(err, errlen, "'%s': history schema version %s, this fsbench reads %d", path,
		       sqlite3_column_text(q, 0) ? (const char *)sqlite3_column_text(q, 0) : "(null)", HISTORY_SCHEMA);
		sqlite3_finalize(q);
		return -1;
	}
	sqlite3_finalize(q);
	return 0;
}

int history_open(const char *path, bool create, struct history **hp, char *err, size_t errlen)
{
	return history_open_stop(path, create, NULL, hp, err, errlen);
}

int history_open_stop(const char *path, bool create, bool (*stop)(void), struct history **hp, char *err,
		      size_t errlen)
{
	struct history *h = NULL;
	struct stat st;
	const char *base;
	int dfd, fd, rc = -1;
	bool created = false;
	char e[512];

	*hp = NULL;
	if (!path || !*path)
		return errmsg(err, errlen, "no database path");
	base = strrchr(path, '/');
	if (base && !base[1])
		return errmsg(err, errlen, "'%s' names no file", path);
	base = base ? base + 1 : path;
	/* the whole path checked before anything is made: a refusal creates nothing */
	dfd = walk_parent(path, false, e, sizeof(e));
	if (dfd == -ENOENT && create)
		dfd = walk_parent(path, true, e, sizeof(e));
	if (dfd < 0)
		return errmsg(err, errlen, "%s", e);
	/* SQLite would follow a symbolic link: refuse one, and anything but a regular file */
	if (!fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode)) {
		close(dfd);
		return errmsg(err, errlen, "'%s' is a symbolic link: refusing it as the history database", path);
	}
	fd = openat(dfd, base, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0600);
	if (fd >= 0)
		created = create;
	else if (create && errno == EEXIST)
		fd = openat(dfd, base, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		errmsg(err, errlen, "cannot open '%s': %s", path, errno == ELOOP ? "is a symbolic link" : strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errmsg(err, errlen, "'%s' is not a regular file", path);
		goto out;
	}
	close(fd);
	if (!(h = calloc(1, sizeof(*h)))) {
		errmsg(err, errlen, "out of memory");
		goto out;
	}
	/* the file exists now (made above when new): SQLite never creates one itself */
	if (sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		errmsg(err, errlen, "cannot open '%s': %s", path, h->db ? sqlite3_errmsg(h->db) : "out of memory");
		goto out;
	}
	h->stop = stop;
	sqlite3_busy_handler(h->db, busy_wait, h);
	sqlite3_extended_result_codes(h->db, 1);
	if (history_exec(h->db, "PRAGMA foreign_keys = ON;", e, sizeof(e)) ||
	    history_exec(h->db, "BEGIN IMMEDIATE;", e, sizeof(e))) {
		errmsg(err, errlen, "'%s': %s", path, stop && stop() ? "interrupted waiting for its lock" : e);
		goto out;
	}
	if (schema_take(h->db, path, create, err, errlen)) {
		history_exec(h->db, "ROLLBACK;", e, sizeof(e));
		goto out;
	}
	h->has_env = has_table(h->db, "run_env");
	if (history_exec(h->db, "COMMIT;", e, sizeof(e))) {
		errmsg(err, errlen, "'%s': %s", path, e);
		goto out;
	}
	*hp = h;
	h = NULL;
	rc = 0;
out:
	history_close(h);
	/* a database this call began and could not make is not left behind */
	if (rc && created)
		unlinkat(dfd, base, 0);
	close(dfd);
	return rc;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h);
}

int history_bind_text(sqlite3_stmt *q, int i, const char *s)
{
	return sqlite3_bind_text(q, i, s ? s : "", -1, SQLITE_TRANSIENT);
}

/* the experiment's row (made unless there) and its id in *exp_id; 0, or -1 said in err */
static int add_experiment(struct history *h, const struct mx *m, const char *first, const char *now, sqlite3_stmt *qe,
			  sqlite3_stmt *qid, long long *exp_id, char *err, size_t errlen)
{
	history_bind_text(qe, 1, m->name);
	history_bind_text(qe, 2, m->host);
	history_bind_text(qe, 3, first ? first : "");
	history_bind_text(qe, 4, m->kernel_release);
	history_bind_text(qe, 5, m->fsbench_version);
	history_bind_text(qe, 6, m->workload);
	history_bind_text(qe, 7, m->dir);
	history_bind_text(qe, 8, now);
	if (sqlite3_step(qe) != SQLITE_DONE)
		return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	history_bind_text(qid, 1, m->name);
	history_bind_text(qid, 2, m->host);
	history_bind_text(qid, 3, first ? first : "");
	if (sqlite3_step(qid) != SQLITE_ROW)
		return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	*exp_id = sqlite3_column_int64(qid, 0);
	return 0;
}

/* a new run's figures; 0, or -1 said in err */
static int add_figures(struct history *h, sqlite3_stmt *qf, long long run_id, const struct mread_run *ru, char *err,
		       size_t errlen)
{
	for (unsigned f = 0; f < ru->r.nfig; f++) {
		const struct rr_figure *fg = &ru->r.fig[f];
		double v = ru->r.nruns == 1 ? fg->v[0] : figure_combine(fg->rate ? FIG_HMEAN : FIG_MEAN, fg->v, ru->r.nruns);

		/* a run file of several runs goes in as one run: their mean */
		if (isnan(v))
			continue;
		sqlite3_reset(qf);
		sqlite3_bind_int64(qf, 1, run_id);
		history_bind_text(qf, 2, fg->key);
		history_bind_text(qf, 3, fg->name);
		history_bind_text(qf, 4, fg->unit);
		sqlite3_bind_int(qf, 5, fg->dir == RR_HIGHER_BETTER ? 1 : fg->dir == RR_LOWER_BETTER ? -1 : 0);
		sqlite3_bind_int(qf, 6, fg->rate);
		sqlite3_bind_int(qf, 7, fg->key_fig);
		sqlite3_bind_double(qf, 8, v);
		if (sqlite3_step(qf) != SQLITE_DONE)
			return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	}
	return 0;
}

/* the run's environment the history keeps (history.h's keys), from its result's facts */
static const char *const env_fact[HISTORY_ENV_N] = {
	"environment.targets[0].mount_options", "environment.targets[0].super_options", "environment.cpufreq_governor",
	"environment.thp_enabled",
};
const char *const history_env_keys[HISTORY_ENV_N] = { "mount_options", "super_options", "cpufreq_governor",
						      "thp_enabled" };

static int add_env(struct history *h, sqlite3_stmt *qv, long long run_id, const struct mread_run *ru, char *err,
		   size_t errlen)
{
	for (unsigned k = 0; k < HISTORY_ENV_N; k++) {
		const struct rr_fact *f = rr_fact_find(&ru->r, env_fact[k]);

		if (!f)
			continue;
		sqlite3_reset(qv);
		sqlite3_bind_int64(qv, 1, run_id);
		history_bind_text(qv, 2, history_env_keys[k]);
		history_bind_text(qv, 3, f->value);
		if (sqlite3_step(qv) != SQLITE_DONE)
			return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	}
	return 0;
}

int history_run_env(struct history *h, long long run_id, struct history_env *e, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	int r;

	memset(e, 0, sizeof(*e));
	if (!h->has_env)
		return 0;
	if (sqlite3_prepare_v2(h->db, "SELECT key, value FROM run_env WHERE run_id = ?1", -1, &q, NULL))
		return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	sqlite3_bind_int64(q, 1, run_id);
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(q, 0);

		for (unsigned i = 0; k && i < HISTORY_ENV_N; i++)
			if (!strcmp(k, history_env_keys[i])) {
				history_col_text(q, 1, e->v[i], sizeof(e->v[i]));
				e->has[i] = true;
			}
	}
	sqlite3_finalize(q);
	return r == SQLITE_DONE ? 0 : errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
}

int history_add_matrix(struct history *h, const struct mx *m, unsigned *added, char *err, size_t errlen)
{
	sqlite3_stmt *qe = NULL, *qid = NULL, *qr = NULL, *qf = NULL, *qv = NULL;
	const char *first = NULL;
	char now[40], e[512];
	time_t t = time(NULL);
	struct tm tm;
	long long exp_id = 0;
	int rc = -1;

	*added = 0;
	/* the experiment is identified by its name, host and first run's start */
	for (unsigned r = 0; r < m->nruns; r++)
		if (m->run[r].started_at[0] && (!first || strcmp(m->run[r].started_at, first) < 0))
			first = m->run[r].started_at;
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (history_exec(h->db, "BEGIN IMMEDIATE;", e, sizeof(e)))
		return errmsg(err, errlen, "%s", e);
	if (sqlite3_prepare_v2(h->db, "INSERT OR IGNORE INTO experiments(name, host, first_started_at, kernel_release,"
			       " fsbench_version, workload, dir, imported_at) VALUES(?,?,?,?,?,?,?,?)", -1, &qe, NULL) ||
	    sqlite3_prepare_v2(h->db, "SELECT id FROM experiments WHERE name = ? AND host = ? AND first_started_at = ?",
			       -1, &qid, NULL) ||
	    sqlite3_prepare_v2(h->db, "INSERT OR IGNORE INTO runs(experiment_id, cell, config_hash, config, kernel_release,"
			       " host, fsbench_version, started_at, ended_at, repeat, run_order, other_cpu_pct,"
			       " other_cpu_flag, used) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &qr, NULL) ||
	    sqlite3_prepare_v2(h->db, "INSERT OR IGNORE INTO figures(run_id, key, name, unit, better, rate, key_fig, value)"
			       " VALUES(?,?,?,?,?,?,?,?)", -1, &qf, NULL) ||
	    (h->has_env && sqlite3_prepare_v2(h->db, "INSERT OR IGNORE INTO run_env(run_id, key, value) VALUES(?,?,?)",
					      -1, &qv, NULL))) {
		errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
		goto out;
	}
	if (add_experiment(h, m, first, now, qe, qid, &exp_id, err, errlen))
		goto out;
	for (unsigned r = 0; r < m->nruns; r++) {
		const struct mread_run *ru = &m->run[r];
		const struct mread_cell *c = &m->cell[ru->cell];
		long long run_id;

		sqlite3_reset(qr);
		sqlite3_bind_int64(qr, 1, exp_id);
		history_bind_text(qr, 2, c->name);
		history_bind_text(qr, 3, c->config_hash);
		history_bind_text(qr, 4, c->config_json);
		history_bind_text(qr, 5, m->kernel_release);
		history_bind_text(qr, 6, m->host);
		history_bind_text(qr, 7, m->fsbench_version);
		history_bind_text(qr, 8, ru->started_at);
		history_bind_text(qr, 9, ru->ended_at);
		sqlite3_bind_int64(qr, 10, ru->repeat);
		sqlite3_bind_int64(qr, 11, ru->order);
		if (isnan(ru->other_cpu_pct))
			sqlite3_bind_null(qr, 12);
		else
			sqlite3_bind_double(qr, 12, ru->other_cpu_pct);
		sqlite3_bind_int(qr, 13, ru->other_cpu_flag);
		/* usable: a run left out only by --exclude-flagged stays usable for history's own choice */
		sqlite3_bind_int(qr, 14, ru->used || ru->flag_excluded);
		if (sqlite3_step(qr) != SQLITE_DONE) {
			errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
			goto out;
		}
		if (!sqlite3_changes(h->db))
			continue;   /* there already: its figures too */
		run_id = sqlite3_last_insert_rowid(h->db);
		(*added)++;
		if (ru->loaded && (add_figures(h, qf, run_id, ru, err, errlen) ||
				   (qv && add_env(h, qv, run_id, ru, err, errlen))))
			goto out;
	}
	if (history_exec(h->db, "COMMIT;", e, sizeof(e))) {
		errmsg(err, errlen, "%s", e);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(qe);
	sqlite3_finalize(qid);
	sqlite3_finalize(qr);
	sqlite3_finalize(qf);
	sqlite3_finalize(qv);
	if (rc) {
		history_exec(h->db, "ROLLBACK;", e, sizeof(e));
		*added = 0;
	}
	return rc;
}

void history_col_text(sqlite3_stmt *q, int i, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(q, i);

	rr_printable(s ? (const char *)s : "", buf, len);
}

int history_experiments(struct history *h, struct history_exp **out, unsigned *n, char *err, size_t errlen)
{
	sqlite3_stmt *q;
	unsigned cap = 0;
	int r;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(h->db, "SELECT e.id, e.name, e.host, e.first_started_at, e.kernel_release,"
			       " e.fsbench_version, e.workload, (SELECT COUNT(DISTINCT cell) FROM runs WHERE experiment_id = e.id),"
			       " (SELECT COUNT(*) FROM runs WHERE experiment_id = e.id)"
			       " FROM experiments e ORDER BY e.first_started_at, e.id", -1, &q, NULL))
		return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		struct history_exp *x;

		if (*n == cap) {
			struct history_exp *nx = realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof(*nx));

			if (!nx) {
				sqlite3_finalize(q);
				return errmsg(err, errlen, "out of memory");
			}
			*out = nx;
		}
		x = &(*out)[(*n)++];
		x->id = sqlite3_column_int64(q, 0);
		history_col_text(q, 1, x->name, sizeof(x->name));
		history_col_text(q, 2, x->host, sizeof(x->host));
		history_col_text(q, 3, x->started, sizeof(x->started));
		history_col_text(q, 4, x->kernel, sizeof(x->kernel));
		history_col_text(q, 5, x->version, sizeof(x->version));
		history_col_text(q, 6, x->workload, sizeof(x->workload));
		x->cells = (unsigned)sqlite3_column_int(q, 7);
		x->runs = (unsigned)sqlite3_column_int(q, 8);
	}
	sqlite3_finalize(q);
	if (r != SQLITE_DONE)
		return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	return 0;
}

int history_values(struct history *h, long long exp_id, const char *exp_name, const char *cell,
		   const char *key, struct history_val **out, unsigned *n, char *err, size_t errlen)
{
	sqlite3_stmt *q;
	unsigned cap = 0;
	int r;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(h->db, "SELECT r.id, r.experiment_id, r.cell, r.config_hash, r.kernel_release, r.started_at,"
			       " f.key, f.name, f.unit, f.better, f.rate, f.key_fig, r.used, r.other_cpu_flag, f.value,"
			       " r.host, e.name, e.workload, r.fsbench_version"
			       " FROM runs r JOIN figures f ON f.run_id = r.id JOIN experiments e ON e.id = r.experiment_id"
			       " WHERE (?1 = 0 OR r.experiment_id = ?1) AND (?2 IS NULL OR e.name = ?2)"
			       " AND (?3 IS NULL OR r.cell = ?3) AND (?4 IS NULL OR f.key = ?4)"
			       " ORDER BY e.first_started_at, e.id, r.run_order, r.id, f.rowid", -1, &q, NULL))
		return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	sqlite3_bind_int64(q, 1, exp_id);
	if (exp_name)
		history_bind_text(q, 2, exp_name);
	if (cell)
		history_bind_text(q, 3, cell);
	if (key)
		history_bind_text(q, 4, key);
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		struct history_val *v;

		if (*n == cap) {
			struct history_val *nv = realloc(*out, (cap = cap ? cap * 2 : 256) * sizeof(*nv));

			if (!nv) {
				sqlite3_finalize(q);
				return errmsg(err, errlen, "out of memory");
			}
			*out = nv;
		}
		v = &(*out)[(*n)++];
		v->run_id = sqlite3_column_int64(q, 0);
		v->exp_id = sqlite3_column_int64(q, 1);
		history_col_text(q, 2, v->cell, sizeof(v->cell));
		history_col_text(q, 3, v->config_hash, sizeof(v->config_hash));
		history_col_text(q, 4, v->kernel, sizeof(v->kernel));
		history_col_text(q, 5, v->started, sizeof(v->started));
		history_col_text(q, 6, v->key, sizeof(v->key));
		history_col_text(q, 7, v->name, sizeof(v->name));
		history_col_text(q, 8, v->unit, sizeof(v->unit));
		v->better = sqlite3_column_int(q, 9);
		v->rate = sqlite3_column_int(q, 10);
		v->key_fig = sqlite3_column_int(q, 11);
		v->used = sqlite3_column_int(q, 12);
		v->flagged = sqlite3_column_int(q, 13);
		v->value = sqlite3_column_double(q, 14);
		history_col_text(q, 15, v->host, sizeof(v->host));
		history_col_text(q, 16, v->exp, sizeof(v->exp));
		history_col_text(q, 17, v->workload, sizeof(v->workload));
		history_col_text(q, 18, v->version, sizeof(v->version));
	}
	sqlite3_finalize(q);
	if (r != SQLITE_DONE)
		return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	return 0;
}

bool history_sel_match(const struct history_sel *sel, const struct history_val *v)
{
	bool key = !sel->nkeys;

	for (unsigned k = 0; k < sel->nkeys && !key; k++)
		key = !strcmp(sel->keys[k], v->key);
	return key && (!sel->config || !strncmp(v->config_hash, sel->config, strlen(sel->config))) &&
	       (!sel->since || strcmp(v->started, sel->since) >= 0);
}

/* qsort has no context argument: the selection's order for the comparison below */
static const struct history_sel *sort_sel;
static const struct history_val *sort_base;

static int series_cmp(const void *pa, const void *pb)
{
	const struct history_val *a = &sort_base[*(const unsigned *)pa], *b = &sort_base[*(const unsigned *)pb];
	int c = sort_sel->all_hosts ? 0 : strcmp(a->host, b->host);

	if (!c)
		c = strcmp(a->config_hash, b->config_hash);
	if (!c)
		c = strcmp(a->key, b->key);
	if (!c && sort_sel->by_kernel)
		c = strverscmp(a->kernel, b->kernel);
	if (!c)
		c = strcmp(a->started, b->started);
	if (!c)   /* history_values' order: experiment, run order */
		c = *(const unsigned *)pa < *(const unsigned *)pb ? -1 : *(const unsigned *)pa > *(const unsigned *)pb;
	return c;
}

void history_series_free(struct history_series *s, unsigned n)
{
	for (unsigned i = 0; s && i < n; i++)
		free(s[i].v);
	free(s);
}

int history_series(struct history *h, const struct history_sel *sel, struct history_series **out, unsigned *n,
		   char *err, size_t errlen)
{
	struct history_val *v;
	struct history_series *s = NULL;
	unsigned nv, nk = 0, ns = 0, *ix = NULL;

	*out = NULL;
	*n = 0;
	if (history_values(h, 0, sel->experiment, sel->cell, sel->nkeys == 1 ? sel->keys[0] : NULL, &v, &nv, err, errlen))
		return -1;
	if (!(ix = malloc((nv ? nv : 1) * sizeof(*ix))) || !(s = calloc(nv ? nv : 1, sizeof(*s))))
		goto oom;
	for (unsigned i = 0; i < nv; i++)
		if (v[i].used && history_sel_match(sel, &v[i]))
			ix[nk++] = i;
	sort_sel = sel;
	sort_base = v;
	qsort(ix, nk, sizeof(*ix), series_cmp);
	for (unsigned i = 0; i < nk;) {
		const struct history_val *a = &v[ix[i]];
		struct history_series *cur = &s[ns];
		unsigned j = i;

		while (j < nk && (sel->all_hosts || !strcmp(v[ix[j]].host, a->host)) &&
		       !strcmp(v[ix[j]].config_hash, a->config_hash) && !strcmp(v[ix[j]].key, a->key))
			j++;
		if (!(cur->v = malloc((j - i) * sizeof(*cur->v))))
			goto oom;
		ns++;
		for (; i < j; i++) {
			const struct history_val *x = &v[ix[i]];

			cur->flagged += x->flagged;
			if (x->flagged && sel->exclude_flagged) {
				cur->left_out++;
				continue;
			}
			cur->v[cur->n++] = *x;
		}
	}
	free(ix);
	free(v);
	*out = s;
	*n = ns;
	return 0;
oom:
	free(ix);
	free(v);
	history_series_free(s, ns);
	return errmsg(err, errlen, "out of memory");
}
