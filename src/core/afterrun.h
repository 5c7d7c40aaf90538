/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a run leaves behind, timed: after the workload's last timed window (outside every timed
 * figure), syncfs(2) on each of the run's filesystems, inside a kernel-view window of its own,
 * and, in a matrix run, the unmount (the runner times it; the report reads it back).
 *
 *   after.sync_s    the syncfs calls' wall time, together (every filesystem the targets are on);
 *   after.sync_mib  what the targets' own devices wrote meanwhile (diskstats), in MiB: the
 *                   writeback the run deferred (with -S 0 and delalloc, the block allocation
 *                   too). NaN without a block device (tmpfs) or a kernel view;
 *   after.umount_s  the unmount of the run's filesystem (fsbench matrix: umount2 alone).
 *
 * The dirty and writeback memory before and after the sync are kept beside them (meminfo:
 * system-wide, so another process's dirty pages count too; the device bytes are the targets'
 * alone). Not taken when the run ended by a signal or an error, without a kernel view (another
 * process of a job takes it), or when a target is not a directory (tiotest -R): the figures
 * are then NaN, absent. A job of several processes reports its first process's host. */
#ifndef FSB_CORE_AFTERRUN_H
#define FSB_CORE_AFTERRUN_H
#include <stdbool.h>
#include <stdint.h>

#include "core/figure.h"
#include "sys/kstat.h"

struct afterrun {
	bool taken;                  /* every target's filesystem was synced */
	int err;                     /* why not, when a target could not be: errno; else 0 */
	unsigned nfs;                /* filesystems synced */
	uint64_t sync_ns;            /* the syncfs calls, together */
	bool have_k;                 /* k holds the window's kernel view */
	struct kstat_delta k;        /* around the syncfs calls: device bytes, dirty memory */
};

enum { AFTERRUN_SYNC_S, AFTERRUN_SYNC_MIB, AFTERRUN_NFIGS };

/* The two figures a run's result carries, as designated initialisers at base .. base + 1 of a
 * workload's run figure table (exploratory: they explain, they are not the question). */
#define AFTERRUN_FIGURES(base)                                                                           \
	[(base) + AFTERRUN_SYNC_S] = { "after.sync_s", "after.sync_s", "sync after the run", "s",          \
				       FIG_LOWER_BETTER, FIG_MEAN, FIG_MAX, FIG_OPTIONAL },                \
	[(base) + AFTERRUN_SYNC_MIB] = { "after.sync_mib", "after.sync_mib", "written by that sync", "MiB", \
					 FIG_NEUTRAL, FIG_MEAN, FIG_SUM, FIG_OPTIONAL }

/* The unmount's figure: fsbench matrix records it per run in its manifest (runs[].umount_s). */
extern const struct figure afterrun_umount_fig;

struct driver;
struct run_head;

/* After a run of d's workload has returned (h its result): syncs the targets' filesystems
 * when the run ended normally and d has a kernel view, into h->after, and sets the result's
 * after figures (NaN when not taken). */
void afterrun_run(struct driver *d, struct run_head *h, const char *const *targets, unsigned ntargets);
/* f[AFTERRUN_NFIGS] */
void afterrun_figures(const struct afterrun *a, double *f);
/* The dirty and writeback memory (bytes) before the sync: 0 without a kernel view */
uint64_t afterrun_dirty_before(const struct afterrun *a);
#endif
