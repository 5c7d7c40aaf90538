/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What report/history.c shares with the other files of the history database (history_fleet.c:
 * import and export): the handle and three SQLite helpers. Not for other modules. */
#ifndef FSB_REPORT_HISTORY_INT_H
#define FSB_REPORT_HISTORY_INT_H
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

struct history {
	sqlite3 *db;
	bool (*stop)(void);
	bool has_env;            /* the run_env table: a database made before it lacks it */
};

/* sql run; 0, or -1 with SQLite's message in err */
int history_exec(sqlite3 *db, const char *sql, char *err, size_t errlen);
/* s (NULL: "") bound as text, copied */
int history_bind_text(sqlite3_stmt *q, int i, const char *s);
/* column i as printable text (outside text: report/result_read's rr_printable) */
void history_col_text(sqlite3_stmt *q, int i, char *buf, size_t len);
#endif
