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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/errmsg.h"
#include "core/figure.h"
#include "report/matrix_read.h"

#define HISTORY_SCHEMA 1

struct history {
	sqlite3 *db;
};

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

/* mkdir -p of path's parent, mode 0700 for what it creates */
static int make_parent(const char *path, char *err, size_t errlen)
{
	char dir[4096];
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return errmsg(err, errlen, "path too long");
	if (!(slash = strrchr(dir, '/')) || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return errmsg(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		*p = '/';
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return errmsg(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
	return 0;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
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
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS experiments("
	" id INTEGER PRIMARY KEY, name TEXT NOT NULL, host TEXT NOT NULL, first_started_at TEXT NOT NULL,"
	" kernel_release TEXT NOT NULL, fsbench_version TEXT NOT NULL, workload TEXT NOT NULL, dir TEXT NOT NULL,"
	" imported_at TEXT NOT NULL, UNIQUE(name, host, first_started_at));"
	"CREATE TABLE IF NOT EXISTS runs("
	" id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
	" cell TEXT NOT NULL, config_hash TEXT NOT NULL, config TEXT NOT NULL, kernel_release TEXT NOT NULL,"
	" host TEXT NOT NULL, fsbench_version TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT NOT NULL,"
	" repeat INTEGER NOT NULL, run_order INTEGER NOT NULL, other_cpu_pct REAL, other_cpu_flag INTEGER NOT NULL,"
	" used INTEGER NOT NULL, UNIQUE(experiment_id, cell, repeat, started_at));"
	"CREATE TABLE IF NOT EXISTS figures("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL, name TEXT NOT NULL,"
	" unit TEXT NOT NULL, better INTEGER NOT NULL, rate INTEGER NOT NULL, key_fig INTEGER NOT NULL,"
	" value REAL NOT NULL, PRIMARY KEY(run_id, key));"
	"CREATE INDEX IF NOT EXISTS runs_by_config ON runs(config_hash, started_at);"
	"CREATE INDEX IF NOT EXISTS figures_by_key ON figures(key);";

int history_open(const char *path, bool create, struct history **hp, char *err, size_t errlen)
{
	struct history *h;
	struct stat st;
	int fd, flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | (create ? SQLITE_OPEN_CREATE : 0);
	sqlite3_stmt *q = NULL;
	char e[512];

	*hp = NULL;
	if (!path || !*path)
		return errmsg(err, errlen, "no database path");
	if (create && make_parent(path, e, sizeof(e)))
		return errmsg(err, errlen, "%s", e);
	/* SQLite would follow a symbolic link: refuse one, and anything but a regular file */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return errmsg(err, errlen, "'%s' is a symbolic link: refusing it as the history database", path);
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
	if (fd < 0)
		return errmsg(err, errlen, "cannot open '%s': %s", path,
			    errno == ELOOP ? "is a symbolic link" : strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return errmsg(err, errlen, "'%s' is not a regular file", path);
	}
	close(fd);
	if (!(h = calloc(1, sizeof(*h))))
		return errmsg(err, errlen, "out of memory");
	if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK) {
		errmsg(err, errlen, "cannot open '%s': %s", path, h->db ? sqlite3_errmsg(h->db) : "out of memory");
		history_close(h);
		return -1;
	}
	sqlite3_busy_timeout(h->db, 10000);
	sqlite3_extended_result_codes(h->db, 1);
	if (exec(h->db, "PRAGMA foreign_keys = ON;", e, sizeof(e)) ||
	    exec(h->db, "BEGIN IMMEDIATE;", e, sizeof(e))) {
		errmsg(err, errlen, "'%s': %s", path, e);
		history_close(h);
		return -1;
	}
	if (exec(h->db, schema_sql, e, sizeof(e))) {
		exec(h->db, "ROLLBACK;", e + 256, sizeof(e) - 256);
		errmsg(err, errlen, "'%s' is not an fsbench history database (%s)", path, e);
		history_close(h);
		return -1;
	}
	/* the schema version: written once, checked after */
	if (sqlite3_prepare_v2(h->db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &q, NULL) == SQLITE_OK) {
		int r = sqlite3_step(q);

		if (r == SQLITE_ROW && atoi((const char *)sqlite3_column_text(q, 0)) != HISTORY_SCHEMA) {
			errmsg(err, errlen, "'%s': history schema version %s, this fsbench reads %d", path,
			     (const char *)sqlite3_column_text(q, 0), HISTORY_SCHEMA);
			sqlite3_finalize(q);
			exec(h->db, "ROLLBACK;", e, sizeof(e));
			history_close(h);
			return -1;
		}
		sqlite3_finalize(q);
		if (r == SQLITE_DONE && exec(h->db, "INSERT INTO meta VALUES('schema_version', '1');", e, sizeof(e))) {
			errmsg(err, errlen, "'%s': %s", path, e);
			history_close(h);
			return -1;
		}
	}
	if (exec(h->db, "COMMIT;", e, sizeof(e))) {
		errmsg(err, errlen, "'%s': %s", path, e);
		history_close(h);
		return -1;
	}
	*hp = h;
	return 0;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h);
}

static int bind_text(sqlite3_stmt *q, int i, const char *s)
{
	return sqlite3_bind_text(q, i, s ? s : "", -1, SQLITE_TRANSIENT);
}

int history_add_matrix(struct history *h, const struct mx *m, unsigned *added, char *err, size_t errlen)
{
	sqlite3_stmt *qe = NULL, *qid = NULL, *qr = NULL, *qf = NULL;
	const char *first = NULL;
	char now[40], e[512];
	time_t t = time(NULL);
	struct tm tm;
	long long exp_id;
	int rc = -1;

	*added = 0;
	/* the experiment is identified by its name, host and first run's start */
	for (unsigned r = 0; r < m->nruns; r++)
		if (m->run[r].started_at[0] && (!first || strcmp(m->run[r].started_at, first) < 0))
			first = m->run[r].started_at;
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (exec(h->db, "BEGIN IMMEDIATE;", e, sizeof(e)))
		return errmsg(err, errlen, "%s", e);
	if (sqlite3_prepare_v2(h->db, "INSERT OR IGNORE INTO experiments(name, host, first_started_at, kernel_release,"
			       " fsbench_version, workload, dir, imported_at) VALUES(?,?,?,?,?,?,?,?)", -1, &qe, NULL) ||
	    sqlite3_prepare_v2(h->db, "SELECT id FROM experiments WHERE name = ? AND host = ? AND first_started_at = ?",
			       -1, &qid, NULL) ||
	    sqlite3_prepare_v2(h->db, "INSERT OR IGNORE INTO runs(experiment_id, cell, config_hash, config, kernel_release,"
			       " host, fsbench_version, started_at, ended_at, repeat, run_order, other_cpu_pct,"
			       " other_cpu_flag, used) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &qr, NULL) ||
	    sqlite3_prepare_v2(h->db, "INSERT OR IGNORE INTO figures(run_id, key, name, unit, better, rate, key_fig, value)"
			       " VALUES(?,?,?,?,?,?,?,?)", -1, &qf, NULL)) {
		errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
		goto out;
	}
	bind_text(qe, 1, m->name);
	bind_text(qe, 2, m->host);
	bind_text(qe, 3, first ? first : "");
	bind_text(qe, 4, m->kernel_release);
	bind_text(qe, 5, m->fsbench_version);
	bind_text(qe, 6, m->workload);
	bind_text(qe, 7, m->dir);
	bind_text(qe, 8, now);
	if (sqlite3_step(qe) != SQLITE_DONE) {
		errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
		goto out;
	}
	bind_text(qid, 1, m->name);
	bind_text(qid, 2, m->host);
	bind_text(qid, 3, first ? first : "");
	if (sqlite3_step(qid) != SQLITE_ROW) {
		errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
		goto out;
	}
	exp_id = sqlite3_column_int64(qid, 0);
	for (unsigned r = 0; r < m->nruns; r++) {
		const struct mread_run *ru = &m->run[r];
		const struct mread_cell *c = &m->cell[ru->cell];
		long long run_id;

		sqlite3_reset(qr);
		sqlite3_bind_int64(qr, 1, exp_id);
		bind_text(qr, 2, c->name);
		bind_text(qr, 3, c->config_hash);
		bind_text(qr, 4, c->config_json);
		bind_text(qr, 5, m->kernel_release);
		bind_text(qr, 6, m->host);
		bind_text(qr, 7, m->fsbench_version);
		bind_text(qr, 8, ru->started_at);
		bind_text(qr, 9, ru->ended_at);
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
		if (!ru->loaded)
			continue;
		for (unsigned f = 0; f < ru->r.nfig; f++) {
			const struct rr_figure *fg = &ru->r.fig[f];
			double v = ru->r.nruns == 1 ? fg->v[0] : figure_combine(fg->rate ? FIG_HMEAN : FIG_MEAN, fg->v, ru->r.nruns);

			/* a run file of several runs goes in as one run: their mean */
			if (isnan(v))
				continue;
			sqlite3_reset(qf);
			sqlite3_bind_int64(qf, 1, run_id);
			bind_text(qf, 2, fg->key);
			bind_text(qf, 3, fg->name);
			bind_text(qf, 4, fg->unit);
			sqlite3_bind_int(qf, 5, fg->dir == RR_HIGHER_BETTER ? 1 : fg->dir == RR_LOWER_BETTER ? -1 : 0);
			sqlite3_bind_int(qf, 6, fg->rate);
			sqlite3_bind_int(qf, 7, fg->key_fig);
			sqlite3_bind_double(qf, 8, v);
			if (sqlite3_step(qf) != SQLITE_DONE) {
				errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
				goto out;
			}
		}
	}
	if (exec(h->db, "COMMIT;", e, sizeof(e))) {
		errmsg(err, errlen, "%s", e);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(qe);
	sqlite3_finalize(qid);
	sqlite3_finalize(qr);
	sqlite3_finalize(qf);
	if (rc) {
		exec(h->db, "ROLLBACK;", e, sizeof(e));
		*added = 0;
	}
	return rc;
}

static void col_text(sqlite3_stmt *q, int i, char *buf, size_t len)
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
		col_text(q, 1, x->name, sizeof(x->name));
		col_text(q, 2, x->host, sizeof(x->host));
		col_text(q, 3, x->started, sizeof(x->started));
		col_text(q, 4, x->kernel, sizeof(x->kernel));
		col_text(q, 5, x->version, sizeof(x->version));
		col_text(q, 6, x->workload, sizeof(x->workload));
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
			       " f.key, f.name, f.unit, f.better, f.rate, f.key_fig, r.used, r.other_cpu_flag, f.value"
			       " FROM runs r JOIN figures f ON f.run_id = r.id JOIN experiments e ON e.id = r.experiment_id"
			       " WHERE (?1 = 0 OR r.experiment_id = ?1) AND (?2 IS NULL OR e.name = ?2)"
			       " AND (?3 IS NULL OR r.cell = ?3) AND (?4 IS NULL OR f.key = ?4)"
			       " ORDER BY e.first_started_at, e.id, r.run_order, r.id, f.rowid", -1, &q, NULL))
		return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	sqlite3_bind_int64(q, 1, exp_id);
	if (exp_name)
		bind_text(q, 2, exp_name);
	if (cell)
		bind_text(q, 3, cell);
	if (key)
		bind_text(q, 4, key);
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
		col_text(q, 2, v->cell, sizeof(v->cell));
		col_text(q, 3, v->config_hash, sizeof(v->config_hash));
		col_text(q, 4, v->kernel, sizeof(v->kernel));
		col_text(q, 5, v->started, sizeof(v->started));
		col_text(q, 6, v->key, sizeof(v->key));
		col_text(q, 7, v->name, sizeof(v->name));
		col_text(q, 8, v->unit, sizeof(v->unit));
		v->better = sqlite3_column_int(q, 9);
		v->rate = sqlite3_column_int(q, 10);
		v->key_fig = sqlite3_column_int(q, 11);
		v->used = sqlite3_column_int(q, 12);
		v->flagged = sqlite3_column_int(q, 13);
		v->value = sqlite3_column_double(q, 14);
	}
	sqlite3_finalize(q);
	if (r != SQLITE_DONE)
		return errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
	return 0;
}
