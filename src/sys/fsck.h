/* SPDX-License-Identifier: GPL-2.0-or-later */
/* After a run: the filesystem's own checker, read-only, on the unmounted device, timed
 * (fsbench matrix --after fsck; fsbench __after fsck exercises it). A checker that finds
 * corruption after a benchmark is a finding: callers report it before anything else.
 *
 *   ext2, ext3, ext4   e2fsck -f -n DEVICE        0 clean; 1, 2, 4 problems; 8 and up failed
 *   xfs                xfs_repair -n DEVICE       0 clean, 1 problems, else failed (-f for an image)
 *   btrfs              btrfs check --readonly DEVICE    0 clean; non-zero with "error(s) found"
 *                                                 in its output: problems; else failed
 * Any other filesystem: absent, with the reason. The device is resolved once (sys/fsdev.h) and
 * must not be mounted (-EBUSY, nothing run). The checker runs through sys/spawn.h: argv, no
 * shell, LC_ALL=C, output captured, wall and CPU time and peak RSS from wait4, in a process
 * group of its own that is killed whole at the time limit (o->timeout_ns; FSDEV_TIMEOUT_AUTO:
 * from the device's size, sys/fsdev.h) or when o->stop says so: the check then failed (timed
 * out, or stopped), whatever the checker printed or returned before.
 *
 * Use:
 *	struct fsck_result r;
 *	int rc = fsck_run("/dev/loop0", "ext4", NULL, &r);   // 0: r.verdict says what it found
 *	... r.verdict, r.messages, r.run.wall_ns, r.run.max_rss_kib ...
 *	fsck_result_free(&r);
 * report/json_after.h writes it as JSON, report/after_text.h as text. */
#ifndef FSB_SYS_FSCK_H
#define FSB_SYS_FSCK_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/spawn.h"

#define FSCK_MSG_LINES 20            /* problem lines kept (all are counted) */
#define FSCK_WHY_MAX 256

enum fsck_verdict {
	FSCK_CLEAN,                  /* the checker ran and found nothing */
	FSCK_ERRORS,                 /* it found problems: messages has the first ones */
	FSCK_FAILED,                 /* it could not check (operational error, signal, timeout,
				      * stopped: run.timed_out and run.stopped say which) */
	FSCK_ABSENT,                 /* no checker for this filesystem, or none installed: why */
};
extern const char *const fsck_verdict_name[];   /* "clean", "errors", "failed", "absent" */

struct fsck_result {
	enum fsck_verdict verdict;
	char fstype[32];
	char device[PATH_MAX];       /* as resolved */
	const char *tool;            /* "e2fsck", "xfs_repair", "btrfs"; NULL when absent */
	char command[PATH_MAX + 128];/* the argv run, space-separated */
	char why[FSCK_WHY_MAX];      /* absent or failed: the reason */
	char *messages;              /* the problem lines, newline-separated, malloc'd ("" for none) */
	unsigned message_lines;      /* all of them, more than messages keeps past FSCK_MSG_LINES */
	uint64_t timeout_ns;         /* the time limit it ran under; 0: none */
	struct spawn_result run;     /* exit status, signal, times, RSS, the whole output */
};

/* Runs fstype's checker on device. 0 when it ran or there is none (verdict and why say);
 * -EBUSY (mounted), -ENOENT (no such device, or the checker is not installed: verdict absent),
 * -EINVAL (not a device or image), or another -errno, each with why. r is always safe to
 * fsck_result_free(). o may be NULL. */
int fsck_run(const char *device, const char *fstype, const struct spawn_opts *o, struct fsck_result *r);
void fsck_result_free(struct fsck_result *r);
/* fstype's checker by name ("e2fsck", "xfs_repair", "btrfs"), NULL when fsbench knows none */
const char *fsck_tool(const char *fstype);

/* The parsing, for tests: the verdict from the checker's exit and output, and its problem
 * lines (the output less its progress lines) into a malloc'd string. */
enum fsck_verdict fsck_verdict_of(const char *tool, int exit_code, int signal, const char *out);
char *fsck_messages(const char *tool, const char *out, unsigned max_lines, unsigned *nlines);
#endif
