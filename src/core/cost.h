/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cost per operation: what one op of a phase (one file of an fs_mark iteration) cost the
 * workers and the device. The raw counters add up over threads and processes; the figures are
 * recomputed from them (FIG_RECOMPUTE), never averaged.
 *
 *   CPU per op    each worker's own user and system time (RUSAGE_THREAD over its window), summed,
 *                 over the ops: the process's other threads (main, reporter) are left out;
 *   wait per op   each worker's window (released .. done) minus its CPU, summed, over the ops:
 *                 the time the workers were blocked (I/O, locks, the run queue);
 *   switches      voluntary (blocked) and involuntary (preempted) context switches per op, from
 *                 the same RUSAGE_THREAD readings;
 *   device        bytes and requests the filesystems' devices completed in the window (diskstats,
 *                 read and write together), per op: NaN without a kernel view.
 *
 * Work the kernel does in other threads (writeback, journal, a filesystem's workers) is not in
 * the workers' CPU: the profile's helper threads show it. These are exploratory figures: they
 * explain a primary figure's effect (report's Why), they are not the question. */
#ifndef FSB_CORE_COST_H
#define FSB_CORE_COST_H
#include <stdbool.h>
#include <stdint.h>

#include "core/figure.h"

struct kstat_delta;

struct cost_raw {
	uint64_t ops;
	double usr_s, sys_s;     /* the workers' own CPU, summed */
	double busy_s;           /* the workers' windows, summed */
	uint64_t nvcsw, nivcsw;
	bool have_dev;
	uint64_t dev_bytes, dev_reqs;
};

enum { COST_USR, COST_SYS, COST_WAIT, COST_VCSW, COST_IVCSW, COST_DEV_BYTES, COST_DEV_REQS, COST_NFIGS };

/* The declarations, as designated initialisers at base .. base + COST_NFIGS - 1 of a figure
 * table; per names the op ("op", "file"). */
#define COST_FIGURES(base, per)                                                                         \
	[(base) + COST_USR] = { "cpu_usr_us_per_" per, "cost.cpu_usr_us_per_" per, "user CPU per " per, "us", \
				FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },                     \
	[(base) + COST_SYS] = { "cpu_sys_us_per_" per, "cost.cpu_sys_us_per_" per, "system CPU per " per,     \
				"us", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },               \
	[(base) + COST_WAIT] = { "wait_us_per_" per, "cost.wait_us_per_" per, "wait per " per, "us",          \
				 FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },                    \
	[(base) + COST_VCSW] = { "vcsw_per_" per, "cost.vcsw_per_" per, "voluntary switches per " per,        \
				 "switches", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },        \
	[(base) + COST_IVCSW] = { "ivcsw_per_" per, "cost.ivcsw_per_" per, "involuntary switches per " per,   \
				  "switches", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_OPTIONAL },       \
	[(base) + COST_DEV_BYTES] = { "device_bytes_per_" per, "cost.device_bytes_per_" per,                  \
				      "device bytes per " per, "bytes", FIG_LOWER_BETTER, FIG_MEAN,          \
				      FIG_RECOMPUTE, FIG_OPTIONAL },                                         \
	[(base) + COST_DEV_REQS] = { "device_requests_per_" per, "cost.device_requests_per_" per,             \
				     "device requests per " per, "requests", FIG_LOWER_BETTER, FIG_MEAN,     \
				     FIG_RECOMPUTE, FIG_OPTIONAL }

/* a cost figure's key without its group ("cpu_sys_us_per_op", "wait_us_per_file") */
bool cost_is_key(const char *key);
/* one worker: its CPU, its window and its context switches */
void cost_add_worker(struct cost_raw *c, double usr_s, double sys_s, uint64_t busy_ns, uint64_t nvcsw,
		     uint64_t nivcsw);
/* the device part, from the window's kernel view (the primary devices, read and write) */
void cost_add_kstat(struct cost_raw *c, const struct kstat_delta *k);
void cost_merge(struct cost_raw *dst, const struct cost_raw *src);
/* f[COST_NFIGS]: NaN where there is nothing to divide (no ops, no kernel view) */
void cost_figures(const struct cost_raw *c, double *f);
#endif
