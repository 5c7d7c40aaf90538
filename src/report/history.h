/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The history database (SQLite): every run of every matrix experiment with its figures, keyed
 * by experiment, cell, the hash of the cell's full configuration, kernel release, host,
 * fsbench version and time, so that later runs can be checked against earlier ones of the
 * same configuration (across kernel versions, in CI).
 *
 * Schema (version 1; `meta` holds it):
 *   experiments(id, name, host, first_started_at, kernel_release, fsbench_version, workload,
 *               dir, imported_at; UNIQUE(name, host, first_started_at))
 *   runs(id, experiment_id, cell, config_hash, config, kernel_release, host, fsbench_version,
 *        started_at, ended_at, repeat, run_order, other_cpu_pct, other_cpu_flag, used;
 *        UNIQUE(experiment_id, cell, repeat, started_at))
 *   figures(run_id, key, name, unit, better, rate, key_fig, value; PRIMARY KEY(run_id, key))
 *   run_env(run_id, key, value; PRIMARY KEY(run_id, key)): made with every new database; one
 *     made before it lacks it (not damaged: read without it, runs added without it)
 * An experiment is one matrix directory; adding it again adds nothing (INSERT OR IGNORE on
 * the unique keys), so `fsbench report DIR` can run any number of times.
 *
 * The database file is opened by SQLite, not through core/outfile: a symbolic link anywhere on
 * its path is refused here (the directories walked with O_NOFOLLOW from / or the working
 * directory, then the file itself; sqlite3_open_v2 also gets SQLITE_OPEN_NOFOLLOW), and so is
 * anything but a regular file. A new database is a file this code creates (O_EXCL) or one with no
 * table at all; an existing one is checked against the schema (tables, columns, unique keys,
 * indexes, version) and never altered to fit: one that differs is refused as damaged. */
#ifndef FSB_REPORT_HISTORY_H
#define FSB_REPORT_HISTORY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct history;
struct mx;

/* $XDG_DATA_HOME/fsbench/history.db, else $HOME/.local/share/fsbench/history.db. 0, or -1
 * with the reason in err (neither variable set). */
int history_default_path(char *buf, size_t len, char *err, size_t errlen);
/* Opens (create: and creates, with its directory, mode 0700) the database at path. 0, or -1
 * with the reason in err (nothing created then). */
int history_open(const char *path, bool create, struct history **h, char *err, size_t errlen);
/* The same; stop (NULL: none) ends a wait for another writer's lock (up to 10 s otherwise) when
 * it returns true. */
int history_open_stop(const char *path, bool create, bool (*stop)(void), struct history **h, char *err,
		      size_t errlen);
/* What history_open would refuse about path before it creates anything (a symbolic link on the
 * way or at the path, a directory there): 0, or -1 with the reason in err. A missing directory
 * is no refusal. */
int history_check_path(const char *path, char *err, size_t errlen);
void history_close(struct history *h);
/* Records the experiment's runs (all of them, used or not: `used` says which the statistics
 * could take: a flagged run left out by the report's --exclude-flagged is recorded as usable,
 * flagged, so that history decides for itself) and their figures in one transaction. *added: runs new to the database. */
int history_add_matrix(struct history *h, const struct mx *m, unsigned *added, char *err, size_t errlen);

/* ---- queries ---- */

/* What a run's environment was, beyond its record (table run_env: run_id, key, value; made with
 * every new database; one made before it lacks the table and is read without it): the target's
 * mount and superblock options, cpu0's CPU frequency governor, transparent huge pages. */
#define HISTORY_ENV_N 4
extern const char *const history_env_keys[HISTORY_ENV_N];
struct history_env {
	char v[HISTORY_ENV_N][256];
	bool has[HISTORY_ENV_N];   /* recorded (the run's result had it) */
};
/* run run_id's environment (nothing recorded: every has[] false). 0, or -1 with the reason in err. */
int history_run_env(struct history *h, long long run_id, struct history_env *e, char *err, size_t errlen);

struct history_exp {
	long long id;
	char name[128], host[128], started[40], kernel[128], version[32], workload[32];
	unsigned cells, runs;
};

/* every experiment, oldest first; *out malloc'ed */
int history_experiments(struct history *h, struct history_exp **out, unsigned *n, char *err, size_t errlen);

/* one run's values of one figure (or every figure: key NULL) */
struct history_val {
	long long run_id, exp_id;
	char cell[128], config_hash[80], kernel[128], started[40], key[96], name[96], unit[16];
	int better;              /* 1 higher, -1 lower, 0 neither */
	bool rate, key_fig, used, flagged;
	double value;
	char host[128], exp[128], workload[32];
	char version[32];        /* the run's fsbench version */
};

/* values, filtered by experiment id (0: any) or name (NULL: any), cell (NULL: any) and figure
 * key (NULL: any), ordered by time; *out malloc'ed */
int history_values(struct history *h, long long exp_id, const char *exp_name, const char *cell,
		   const char *key, struct history_val **out, unsigned *n, char *err, size_t errlen);

/* A selection of runs for history changes, export and report. NULL / 0 members select all. */
struct history_sel {
	const char *experiment;  /* its name */
	const char *cell;
	const char *config;      /* a configuration hash, or a prefix of one */
	const char *since;       /* runs started at or after (ISO 8601 text, compared as text) */
	const char *const *keys; /* figure keys (nkeys of them) */
	unsigned nkeys;
	bool all_hosts;          /* a series spans hosts (else each host's runs are a series of their own) */
	bool by_kernel;          /* a series in kernel release order (strverscmp), then time; else time */
	bool exclude_flagged;    /* leave out the runs flagged for other processes' CPU */
};

/* One figure of one configuration (and host) over time: its usable runs in order. */
struct history_series {
	struct history_val *v;   /* v[0..n): the runs' values; v[0] names the series */
	unsigned n;
	unsigned flagged;        /* of them flagged */
	unsigned left_out;       /* flagged runs left out (exclude_flagged) */
};

/* The series of sel: grouped by host (unless all_hosts), configuration hash and figure key,
 * ordered by host, hash, key; runs the report could not use are left out. *out malloc'ed, free
 * with history_series_free. 0, or -1 with the reason in err. */
int history_series(struct history *h, const struct history_sel *sel, struct history_series **out, unsigned *n,
		   char *err, size_t errlen);
void history_series_free(struct history_series *s, unsigned n);
/* true when v (a run's value) is in sel (not counting exclude_flagged) */
bool history_sel_match(const struct history_sel *sel, const struct history_val *v);

/* ---- a fleet's history (history_fleet.c) ---- */

/* A run's content hash: "fnv1a64:" + 16 hex digits of FNV-1a 64 over its experiment (name, host,
 * first start), its record (cell, configuration hash and configuration, kernel, host, fsbench
 * version, start, end, repeat, order, other CPU and flag, used) and every figure (key, name,
 * unit, direction, kind, value to 17 digits), in key order. Two databases holding the same run
 * give it the same hash. */
struct history_import {
	unsigned exps_added;     /* experiments new to the database */
	unsigned runs_added;
	unsigned runs_same;      /* already there, the same content hash */
	unsigned runs_differ;    /* already there (same experiment, cell, repeat, start), another hash: kept as it was */
};

/* Adds every run of the database at src (opened as history_open does, never created) that h
 * lacks, in one transaction: a run already there with the same content hash is not added again.
 * 0, or -1 with the reason in err (nothing added then). */
int history_import_db(struct history *h, const char *src, struct history_import *st, char *err, size_t errlen);
/* The runs of sel (one JSON object a line, oldest first: fsbench(1) HISTORY, history export) to
 * out. *nruns: lines written. 0, or -1 with the reason in err. */
int history_export(struct history *h, const struct history_sel *sel, FILE *out, unsigned *nruns, char *err,
		   size_t errlen);
#endif
