/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fleet's history: runs of other databases added by content hash, and runs written out as
 * JSON Lines (history.h says what both do). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/errmsg.h"
#include "core/matrix.h"
#include "report/history.h"
#include "report/history_int.h"

/* a growing text for the content hash */
struct text {
	char *s;
	size_t n, cap;
	bool oom;
};

static void put(struct text *t, const char *s)
{
	size_t l = strlen(s) + 1;   /* each field ends in a NUL: "ab","c" and "a","bc" differ */

	if (t->oom)
		return;
	if (t->n + l > t->cap) {
		char *ns = realloc(t->s, t->cap = (t->n + l) * 2 + 256);

		if (!ns) {
			t->oom = true;
			return;
		}
		t->s = ns;
	}
	memcpy(t->s + t->n, s, l);
	t->n += l;
}

static void put_col(struct text *t, sqlite3_stmt *q, int i)
{
	char num[40];

	switch (sqlite3_column_type(q, i)) {
	case SQLITE_NULL:
		put(t, "null");
		break;
	case SQLITE_INTEGER:
		snprintf(num, sizeof(num), "%lld", (long long)sqlite3_column_int64(q, i));
		put(t, num);
		break;
	case SQLITE_FLOAT:
		snprintf(num, sizeof(num), "%.17g", sqlite3_column_double(q, i));
		put(t, num);
		break;
	default:
		put(t, sqlite3_column_text(q, i) ? (const char *)sqlite3_column_text(q, i) : "");
	}
}

#define RUN_COLS "e.name, e.host, e.first_started_at, r.cell, r.config_hash, r.config, r.kernel_release, r.host," \
		 " r.fsbench_version, r.started_at, r.ended_at, r.repeat, r.run_order, r.other_cpu_pct, r.other_cpu_flag, r.used"
#define RUN_NCOLS 16

/* the content hash of run id in db (history.h): 0, or -1 with err */
static int run_hash(sqlite3 *db, long long id, char out[32], char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	struct text t = { 0 };
	int r, rc = -1;

	if (sqlite3_prepare_v2(db, "SELECT " RUN_COLS " FROM runs r JOIN experiments e ON e.id = r.experiment_id"
			       " WHERE r.id = ?1", -1, &q, NULL))
		return errmsg(err, errlen, "%s", sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, id);
	if ((r = sqlite3_step(q)) != SQLITE_ROW)
		goto out;
	for (int i = 0; i < RUN_NCOLS; i++)
		put_col(&t, q, i);
	sqlite3_finalize(q);
	if (sqlite3_prepare_v2(db, "SELECT key, name, unit, better, rate, key_fig, value FROM figures WHERE run_id = ?1"
			       " ORDER BY key", -1, &q, NULL))
		return errmsg(err, errlen, "%s", sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, id);
	while ((r = sqlite3_step(q)) == SQLITE_ROW)
		for (int i = 0; i < 7; i++)
			put_col(&t, q, i);
	if (r != SQLITE_DONE)
		goto out;
	if (t.oom) {
		errmsg(err, errlen, "out of memory");
		goto done;
	}
	mx_hash(t.s ? t.s : "", t.n, out);
	rc = 0;
	goto done;
out:
	errmsg(err, errlen, "%s", r == SQLITE_DONE ? "no such run" : sqlite3_errmsg(db));
done:
	sqlite3_finalize(q);
	free(t.s);
	return rc;
}

/* q's column from src's column i (same type) */
static void copy_col(sqlite3_stmt *to, int at, sqlite3_stmt *from, int i)
{
	sqlite3_bind_value(to, at, sqlite3_column_value(from, i));
}

/* the statements of one import */
struct imp {
	sqlite3 *src, *dst;
	sqlite3_stmt *runs, *exp_ins, *exp_id, *run_find, *run_ins, *figs, *fig_ins;
	sqlite3_stmt *envs, *env_ins;   /* both databases have run_env: a run's environment too */
};

static int imp_prepare_env(struct imp *m)
{
	return sqlite3_prepare_v2(m->src, "SELECT key, value FROM run_env WHERE run_id = ?", -1, &m->envs, NULL) ||
	       sqlite3_prepare_v2(m->dst, "INSERT INTO run_env(run_id, key, value) VALUES(?,?,?)", -1, &m->env_ins, NULL);
}

/* the source run's environment rows for the new run id */
static int imp_env(struct imp *m, long long id, long long src_id)
{
	int r;

	if (!m->envs)
		return 0;
	sqlite3_reset(m->envs);
	sqlite3_bind_int64(m->envs, 1, src_id);
	while ((r = sqlite3_step(m->envs)) == SQLITE_ROW) {
		sqlite3_reset(m->env_ins);
		sqlite3_bind_int64(m->env_ins, 1, id);
		copy_col(m->env_ins, 2, m->envs, 0);
		copy_col(m->env_ins, 3, m->envs, 1);
		if (sqlite3_step(m->env_ins) != SQLITE_DONE)
			return -1;
	}
	return r == SQLITE_DONE ? 0 : -1;
}

static int imp_prepare(struct imp *m)
{
	return sqlite3_prepare_v2(m->src, "SELECT r.id, e.name, e.host, e.first_started_at, e.kernel_release,"
				  " e.fsbench_version, e.workload, e.dir, r.cell, r.config_hash, r.config, r.kernel_release,"
				  " r.host, r.fsbench_version, r.started_at, r.ended_at, r.repeat, r.run_order, r.other_cpu_pct,"
				  " r.other_cpu_flag, r.used FROM runs r JOIN experiments e ON e.id = r.experiment_id"
				  " ORDER BY e.first_started_at, e.id, r.run_order, r.id", -1, &m->runs, NULL) ||
	       sqlite3_prepare_v2(m->dst, "INSERT OR IGNORE INTO experiments(name, host, first_started_at, kernel_release,"
				  " fsbench_version, workload, dir, imported_at) VALUES(?,?,?,?,?,?,?,?)", -1, &m->exp_ins, NULL) ||
	       sqlite3_prepare_v2(m->dst, "SELECT id FROM experiments WHERE name = ? AND host = ? AND first_started_at = ?",
				  -1, &m->exp_id, NULL) ||
	       sqlite3_prepare_v2(m->dst, "SELECT id FROM runs WHERE experiment_id = ? AND cell = ? AND repeat = ?"
				  " AND started_at = ?", -1, &m->run_find, NULL) ||
	       sqlite3_prepare_v2(m->dst, "INSERT INTO runs(experiment_id, cell, config_hash, config, kernel_release, host,"
				  " fsbench_version, started_at, ended_at, repeat, run_order, other_cpu_pct, other_cpu_flag, used)"
				  " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &m->run_ins, NULL) ||
	       sqlite3_prepare_v2(m->src, "SELECT key, name, unit, better, rate, key_fig, value FROM figures"
				  " WHERE run_id = ?", -1, &m->figs, NULL) ||
	       sqlite3_prepare_v2(m->dst, "INSERT INTO figures(run_id, key, name, unit, better, rate, key_fig, value)"
				  " VALUES(?,?,?,?,?,?,?,?)", -1, &m->fig_ins, NULL);
}

static void imp_finalize(struct imp *m)
{
	sqlite3_finalize(m->runs);
	sqlite3_finalize(m->exp_ins);
	sqlite3_finalize(m->exp_id);
	sqlite3_finalize(m->run_find);
	sqlite3_finalize(m->run_ins);
	sqlite3_finalize(m->figs);
	sqlite3_finalize(m->fig_ins);
	sqlite3_finalize(m->envs);
	sqlite3_finalize(m->env_ins);
}

/* the experiment of the source row in dst (made when new): its id, or -1 */
static long long imp_exp(struct imp *m, const char *now, struct history_import *st)
{
	long long id = -1;

	sqlite3_reset(m->exp_ins);
	for (int i = 1; i <= 7; i++)
		copy_col(m->exp_ins, i, m->runs, i);
	history_bind_text(m->exp_ins, 8, now);
	if (sqlite3_step(m->exp_ins) != SQLITE_DONE)
		return -1;
	st->exps_added += sqlite3_changes(m->dst) > 0;
	sqlite3_reset(m->exp_id);
	for (int i = 1; i <= 3; i++)
		copy_col(m->exp_id, i, m->runs, i);
	if (sqlite3_step(m->exp_id) == SQLITE_ROW)
		id = sqlite3_column_int64(m->exp_id, 0);
	return id;
}

/* the source run (m->runs' row) into dst with its figures */
static int imp_insert(struct imp *m, long long exp_id, long long src_id)
{
	long long id;
	int r;

	sqlite3_reset(m->run_ins);
	sqlite3_bind_int64(m->run_ins, 1, exp_id);
	for (int i = 2; i <= 14; i++)
		copy_col(m->run_ins, i, m->runs, i + 6);
	if (sqlite3_step(m->run_ins) != SQLITE_DONE)
		return -1;
	id = sqlite3_last_insert_rowid(m->dst);
	sqlite3_reset(m->figs);
	sqlite3_bind_int64(m->figs, 1, src_id);
	while ((r = sqlite3_step(m->figs)) == SQLITE_ROW) {
		sqlite3_reset(m->fig_ins);
		sqlite3_bind_int64(m->fig_ins, 1, id);
		for (int i = 0; i < 7; i++)
			copy_col(m->fig_ins, i + 2, m->figs, i);
		if (sqlite3_step(m->fig_ins) != SQLITE_DONE)
			return -1;
	}
	return r == SQLITE_DONE ? imp_env(m, id, src_id) : -1;
}

/* one source run: added, already there (the same hash) or there with other content */
static int imp_run(struct imp *m, const char *now, struct history_import *st, char *err, size_t errlen)
{
	long long src_id = sqlite3_column_int64(m->runs, 0), exp_id = imp_exp(m, now, st);
	char a[32], b[32];

	if (exp_id < 0)
		return errmsg(err, errlen, "%s", sqlite3_errmsg(m->dst));
	sqlite3_reset(m->run_find);
	sqlite3_bind_int64(m->run_find, 1, exp_id);
	copy_col(m->run_find, 2, m->runs, 8);
	copy_col(m->run_find, 3, m->runs, 16);
	copy_col(m->run_find, 4, m->runs, 14);
	if (sqlite3_step(m->run_find) == SQLITE_ROW) {
		if (run_hash(m->src, src_id, a, err, errlen) ||
		    run_hash(m->dst, sqlite3_column_int64(m->run_find, 0), b, err, errlen))
			return -1;
		*(strcmp(a, b) ? &st->runs_differ : &st->runs_same) += 1;
		return 0;
	}
	if (imp_insert(m, exp_id, src_id))
		return errmsg(err, errlen, "%s", sqlite3_errmsg(m->dst));
	st->runs_added++;
	return 0;
}

int history_import_db(struct history *h, const char *src, struct history_import *st, char *err, size_t errlen)
{
	struct history *s = NULL;
	struct imp m = { 0 };
	char now[40], e[512];
	time_t t = time(NULL);
	struct tm tm;
	int r, rc = -1;

	memset(st, 0, sizeof(*st));
	if (history_open(src, false, &s, err, errlen))
		return -1;
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	m.src = s->db;
	m.dst = h->db;
	if (history_exec(h->db, "BEGIN IMMEDIATE;", e, sizeof(e))) {
		history_close(s);
		return errmsg(err, errlen, "%s", e);
	}
	if (imp_prepare(&m) || (s->has_env && h->has_env && imp_prepare_env(&m))) {
		errmsg(err, errlen, "%s", sqlite3_errmsg(m.runs ? m.dst : m.src));
		goto out;
	}
	while ((r = sqlite3_step(m.runs)) == SQLITE_ROW)
		if (imp_run(&m, now, st, err, errlen))
			goto out;
	if (r != SQLITE_DONE) {
		errmsg(err, errlen, "%s", sqlite3_errmsg(m.src));
		goto out;
	}
	imp_finalize(&m);
	memset(&m, 0, sizeof(m));
	if (history_exec(h->db, "COMMIT;", e, sizeof(e))) {
		errmsg(err, errlen, "%s", e);
		goto out;
	}
	rc = 0;
out:
	imp_finalize(&m);
	if (rc) {
		history_exec(h->db, "ROLLBACK;", e, sizeof(e));
		memset(st, 0, sizeof(*st));
	}
	history_close(s);
	return rc;
}

/* ---- export ---- */

static json_t *col_json(sqlite3_stmt *q, int i)
{
	char buf[4096];

	switch (sqlite3_column_type(q, i)) {
	case SQLITE_NULL:
		return json_null();
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(q, i));
	case SQLITE_FLOAT:
		return isfinite(sqlite3_column_double(q, i)) ? json_real(sqlite3_column_double(q, i)) : json_null();
	default:
		history_col_text(q, i, buf, sizeof(buf));
		return json_string(buf);
	}
}

/* one run as a JSON object: its record, content hash and figures */
static json_t *run_json(sqlite3 *db, sqlite3_stmt *q, sqlite3_stmt *qf, char *err, size_t errlen)
{
	static const char *const names[] = { "experiment", "experiment_host", "experiment_started_at", "cell",
					     "config_hash", "config", "kernel_release", "host", "fsbench_version",
					     "started_at", "ended_at", "repeat", "run_order", "other_cpu_pct",
					     "other_cpu_flag", "used" };
	long long id = sqlite3_column_int64(q, 0);
	json_t *o = json_object(), *figs = json_object();
	char hash[32];
	int r;

	if (!o || !figs || run_hash(db, id, hash, err, errlen)) {
		json_decref(o);
		json_decref(figs);
		return NULL;
	}
	json_object_set_new(o, "run_hash", json_string(hash));
	for (int i = 0; i < RUN_NCOLS; i++) {
		json_t *v = col_json(q, i + 1);

		/* the configuration as the JSON it is, else as text */
		if (!strcmp(names[i], "config") && json_is_string(v)) {
			json_t *p = json_loads(json_string_value(v), JSON_DECODE_ANY, NULL);

			if (p) {
				json_decref(v);
				v = p;
			}
		} else if (!strcmp(names[i], "other_cpu_flag") || !strcmp(names[i], "used")) {
			json_t *b = json_boolean(json_integer_value(v));

			json_decref(v);
			v = b;
		}
		json_object_set_new(o, names[i], v);
	}
	sqlite3_reset(qf);
	sqlite3_bind_int64(qf, 1, id);
	while ((r = sqlite3_step(qf)) == SQLITE_ROW) {
		char key[256], name[256], unit[64];
		int better = sqlite3_column_int(qf, 3);

		history_col_text(qf, 0, key, sizeof(key));
		history_col_text(qf, 1, name, sizeof(name));
		history_col_text(qf, 2, unit, sizeof(unit));
		json_object_set_new(figs, key, json_pack("{s:o, s:s, s:s, s:s, s:b, s:b}", "value", col_json(qf, 6),
							 "name", name, "unit", unit, "better",
							 better > 0 ? "higher" : better < 0 ? "lower" : "neither", "rate",
							 sqlite3_column_int(qf, 4), "key_figure", sqlite3_column_int(qf, 5)));
	}
	json_object_set_new(o, "figures", figs);
	if (r != SQLITE_DONE) {
		errmsg(err, errlen, "%s", sqlite3_errmsg(db));
		json_decref(o);
		return NULL;
	}
	return o;
}

int history_export(struct history *h, const struct history_sel *sel, FILE *out, unsigned *nruns, char *err,
		   size_t errlen)
{
	sqlite3_stmt *q = NULL, *qf = NULL;
	char like[256];
	int r, rc = -1;

	*nruns = 0;
	if (sqlite3_prepare_v2(h->db, "SELECT r.id, " RUN_COLS " FROM runs r JOIN experiments e ON e.id = r.experiment_id"
			       " WHERE (?1 IS NULL OR e.name = ?1) AND (?2 IS NULL OR r.cell = ?2)"
			       " AND (?3 IS NULL OR substr(r.config_hash, 1, length(?3)) = ?3)"
			       " AND (?4 IS NULL OR r.started_at >= ?4) AND (?5 = 0 OR r.other_cpu_flag = 0)"
			       " ORDER BY r.started_at, e.id, r.run_order, r.id", -1, &q, NULL) ||
	    sqlite3_prepare_v2(h->db, "SELECT key, name, unit, better, rate, key_fig, value FROM figures"
			       " WHERE run_id = ?1 ORDER BY rowid", -1, &qf, NULL)) {
		errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
		goto out;
	}
	(void)like;
	if (sel->experiment)
		history_bind_text(q, 1, sel->experiment);
	if (sel->cell)
		history_bind_text(q, 2, sel->cell);
	if (sel->config)
		history_bind_text(q, 3, sel->config);
	if (sel->since)
		history_bind_text(q, 4, sel->since);
	sqlite3_bind_int(q, 5, sel->exclude_flagged);
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		json_t *o = run_json(h->db, q, qf, err, errlen);

		if (!o)
			goto out;
		if (json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER) || fputc('\n', out) == EOF) {
			json_decref(o);
			errmsg(err, errlen, "write error");
			goto out;
		}
		json_decref(o);
		(*nruns)++;
	}
	if (r != SQLITE_DONE) {
		errmsg(err, errlen, "%s", sqlite3_errmsg(h->db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(q);
	sqlite3_finalize(qf);
	return rc;
}
