/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel-side view of each phase, for every workload: the targets' block devices (resolved
 * once), a kstat snapshot pair and, with --profile, a perf window around each phase, and the
 * honesty warnings. The command opens one session for the whole run; the workload calls
 * observe_begin() right before phase_run() and observe_end() right after. */
#ifndef FSB_CORE_OBSERVE_H
#define FSB_CORE_OBSERVE_H
#include <stdbool.h>
#include <stdio.h>

#include "core/warn.h"
#include "sys/blockdev.h"
#include "sys/kstat.h"
#include "sys/perf.h"

struct observe_config {
	bool profile;
	unsigned hz;
	bool callgraph;
};

struct observe {
	unsigned ntargets;
	struct blockdev *targets;    /* one per target directory */
	bool has_device;             /* every target is on a block device */
	unsigned ndevs, nprimary;
	const char *devs[KSTAT_MAX_DISKS];   /* point into targets[] */
	struct perf_session *perf;   /* NULL without --profile or when not permitted */
	char perf_why[512];          /* --profile asked but not permitted: why ("" otherwise) */
	struct kstat_snap snap;      /* the open window */
	uint64_t mem_total_bytes;
	unsigned cpus;
};

/* One phase's record. */
struct observe_phase {
	bool taken;
	struct kstat_delta k;
	struct perf_profile *profile;    /* NULL without a profile */
	struct warn_list warns;
};

/* Resolves the targets and opens perf. Never fails the run for perf: when it is not
 * permitted, perf stays NULL and perf_why says why (the command prints it). Returns 0 or
 * -ENOMEM. */
int observe_open(struct observe *o, const struct observe_config *c, const char *const *targets,
		 unsigned ntargets);
void observe_begin(struct observe *o);
void observe_end(struct observe *o, struct observe_phase *p);
/* Fills in the device and host facts of w (has_device, mem_total, cpus, k) and computes p->warns. */
void observe_warn(const struct observe *o, struct observe_phase *p, struct warn_phase *w);
void observe_phase_free(struct observe_phase *p);
void observe_close(struct observe *o);
#endif
