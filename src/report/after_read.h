/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading back what fsbench matrix --after wrote after a run (runs/CELL/after-run-K.json: the
 * fsck and freespace objects of report/json_after.h), as the run's figures and what the report
 * shows beside them: the checker's verdict and first lines, the free-extent histogram.
 *
 * The figures are declared once, here (core/figure.h), and join the run's own figures in the
 * matrix report: compared across cells with the same tests and correction, drawn, recorded in
 * the history. A figure the file lacks (a checker that did not run, btrfs's free space) is NaN:
 * absent, never zero. The file is outside input: types, ranges and sizes are checked, strings
 * kept printable. */
#ifndef FSB_REPORT_AFTER_READ_H
#define FSB_REPORT_AFTER_READ_H
#include <stdbool.h>
#include <stddef.h>

#include "core/figure.h"

#define AFTER_MAX_FILE_BYTES (1u << 24)
#define AFTER_BUCKETS 64             /* free extents by floor(log2(their smallest size in bytes)) */
#define AFTER_SMALL_BYTES (1u << 20) /* "small" free extents: under 1 MiB */

enum {
	AF_FSCK_WALL,                /* s */
	AF_FSCK_CPU,                 /* s, user + system */
	AF_FSCK_RSS,                 /* MiB */
	AF_FREE_MIB,
	AF_FREE_EXTENTS,
	AF_FREE_MEAN,                /* KiB: free space over free extents */
	AF_FREE_LARGEST,             /* MiB (e2freefrag; xfs_db does not say) */
	AF_FREE_SMALL,               /* % of free space in extents under 1 MiB */
	AF_N
};
extern const struct figure after_figs[AF_N];

struct after_data {
	bool has_fsck, has_freespace;
	/* fsck */
	char verdict[16];            /* "clean", "errors", "failed", "absent" */
	bool finding;                /* errors, or the checker could not check */
	bool timed_out;              /* killed at its time limit (--after-timeout) */
	char tool[32];
	int exit_status;             /* -1: none */
	char *reason;                /* absent or failed: why (""), malloc'd */
	char *messages;              /* the checker's problem lines, newline-separated, malloc'd */
	unsigned message_lines;      /* all of them (messages may keep fewer) */
	/* freespace */
	char *free_absent;           /* the reason it is absent, NULL when present */
	double hist_extents[AFTER_BUCKETS], hist_bytes[AFTER_BUCKETS];
	double v[AF_N];              /* NaN: absent */
};

/* 0, or -1 with a one-line reason in err (without the file name). a is safe to after_free(). */
int after_load(const char *path, struct after_data *a, char *err, size_t errlen);
/* The same from an open file, read from where it is (the caller closes it). */
int after_load_fd(int fd, struct after_data *a, char *err, size_t errlen);
void after_free(struct after_data *a);
/* "4 KiB", "1 MiB": bucket b's lower bound as people read it */
void after_bucket_name(unsigned b, char *buf, size_t len);
#endif
