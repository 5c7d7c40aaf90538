/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interval samples and the live progress line, from the workers' live op statistics (relaxed
 * loads: the workers' hot loop gains no lock and no syscall).
 *
 * Who takes the snapshots. The workers: each live statistic points at the sampler's tick
 * (struct opstat_tick, core/run.h), and the first op to complete past the next tick calls
 * into the sampler, which snapshots every worker's statistics under its lock (a trylock: a
 * worker that finds it taken goes on) and arms the next tick. So nothing wakes up during a
 * phase to take them (a thread woken every 5 ms took 14-15 ns of CPU per tiotest op on tmpfs,
 * bench/README.md, tiotest.sh, "The reporter's ticks"). The phase's reporter thread draws the
 * progress line (4 times a second), writes --stream's intervals, and takes a snapshot the
 * workers owe (all of them inside one long op) when it is a second late, or a tick late when
 * it is awake anyway; a phase shorter than a second without progress line or --stream never
 * wakes it.
 *
 * Interval choice. The user asks for an interval (--interval, default 1 s) but a phase should
 * have at least ~20 points (a phase of 100 ms or more). The reporter starts at a base tick of
 * interval / 2^k (the first such value <= 5 ms) and keeps cumulative snapshots; whenever it
 * holds 40 intervals and the tick is still below the interval, it drops every other snapshot
 * and doubles the tick (merging two intervals is dropping the snapshot between them, since the
 * snapshots are cumulative). Once the tick equals the interval, finished intervals are turned
 * into samples at once, so memory stays bounded (about 40 sparse histograms) whatever the
 * phase length. The last interval ends at the phase end and may be shorter; a phase shorter
 * than 100 ms gets fewer than 20 points. */
#ifndef FSB_SAMPLE_H
#define FSB_SAMPLE_H
#include <stdbool.h>
#include <stdint.h>

struct phase;

struct sample {
	uint64_t t_ns;           /* end of the interval, from the phase start */
	uint64_t dt_ns;          /* its length */
	uint64_t ops, bytes;     /* completed in the interval, all workers */
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns; /* latency of the ops completed in it */
	/* a job's interval (fsbench-mpi --stream): each process's part; the latencies above are
	 * then not set (percentiles do not add up over processes) */
	const struct sample *parts;
	unsigned nparts;
	unsigned proc;           /* in parts: the process's number (the MPI rank) */
	bool ramp;               /* it began inside the phase's ramp (--ramp): not in the figures */
};

struct sampler;

/* Started by phase_run() before the window opens, when p->interval_ns or p->progress is set:
 * the thread is made and parked outside the phase, as the workers are (its clone and stack
 * are not the phase's work; no change in rate was measurable at depth 1 on tmpfs:
 * bench/README.md, uring.sh). */
struct sampler *sampler_start(struct phase *p);
/* The window is open (p->start_ns set) and the workers are parked: the ticks count from the
 * start, and each worker's live statistics take them from here (no system call: called
 * right before the release). */
void sampler_arm(struct sampler *s);
/* After the release: the reporter thread's clock starts (it is woken once, for that). */
void sampler_go(struct sampler *s);
/* After the last join: takes the final snapshot, stores the samples in p, clears the line. */
void sampler_stop(struct sampler *s);
#endif
