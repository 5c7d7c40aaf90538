/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --profile: sample on-CPU activity during a window with perf_event_open (software cpu-clock,
 * frequency mode) and turn the samples into a per-symbol profile and, with call chains, folded
 * stacks.
 *
 * Scope: one event per CPU system-wide (pid -1) when permitted, which also sees the kernel
 * threads that work for the benchmark (jbd2, kworkers flushing); idle is excluded. Otherwise
 * one event per CPU for this process with inherit, so worker threads created later are covered
 * (the kernel refuses mmap on an inherited per-task event with cpu -1, hence per-CPU events even
 * then). Each event has its own ring buffer, drained by a reader thread woken at a quarter full
 * and at the end of the window, so nothing is lost at the default rate.
 *
 * Attribution: a system-wide event sees the whole machine, so each sample goes by its pid and
 * tid to this run's table or to another process (perf_classify below). Tasks are named from
 * /proc/PID/task/TID/comm when first sampled, and from PERF_RECORD_COMM (attr.comm): a task
 * that execs or is renamed during the window (a dd started by a shell) gets its new name even
 * when it is gone by the time its samples are read.
 *
 * Lifecycle: perf_open() once at setup (prints nothing; returns why not), perf_begin() right
 * before a window, perf_end() right after (returns that window's profile), perf_close(). */
#ifndef FSB_SYS_PERF_H
#define FSB_SYS_PERF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/perf_attr.h"
#include "core/perf_profile.h"

#define PERF_DEFAULT_HZ 999

struct perf_config {
	unsigned hz;
	bool callgraph;          /* record kernel call chains (folded stacks) */
	unsigned ndevs;
	struct perf_dev devs[PERF_MAX_DEVS];   /* the targets' devices and the disks under them */
};

struct perf_session;

/* Opens the events (disabled) and loads the symbol tables. On failure returns -errno and
 * puts into why one line saying what to change ("kernel.perf_event_paranoid is 2 ..."). The
 * environment variable FSBENCH_PROFILE_FORCE_DENY=1 makes it fail as if not permitted (in the
 * test build only, core/testhook.h);
 * FSBENCH_PROFILE_SCOPE=process skips the system-wide attempt. */
int perf_open(struct perf_session **ps, const struct perf_config *c, char *why, size_t whylen);
int perf_begin(struct perf_session *ps);
/* Stops sampling only (cheap: take other end-of-window readings after it). */
void perf_stop(struct perf_session *ps);
/* Stops sampling, drains, symbolises. *out is NULL on failure; free with perf_profile_free. */
int perf_end(struct perf_session *ps, struct perf_profile **out);
void perf_close(struct perf_session *ps);
#endif
