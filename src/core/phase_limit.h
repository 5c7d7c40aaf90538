/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Time-limited phases and the ramp, for every workload and every rank alike (fio time_based,
 * elbencho --timelimit, IOR -D; fsbench-mpi --stonewall is the same limit).
 *
 * One timer thread per phase, armed at the release (after the release hook, so every rank of
 * a job counts from the same barrier exit):
 *   ramp_ns   at release + ramp_ns it snapshots each worker's main op statistics (worker.live,
 *             relaxed loads as the sampler's); after the join the snapshot is subtracted, so
 *             the phase's ops, bytes and latency histogram are those after the ramp, and
 *             phase.ramp_ns says how much of the window the workload must leave out of its
 *             rates. A phase that ends before the ramp keeps all of its figures (ramp_ns 0).
 *             The interval samples stay, those that began inside the ramp marked (sample.ramp).
 *   limit_ns  at release + limit_ns it raises RUN_STOP_PHASE; the workers stop at their next op,
 *             the work done so far counts, phase.stonewalled marks it ("stopped by time
 *             limit"), and the stop is lifted after the join so the next phase runs.
 * An error or a signal that came first stays the reason the phase stopped. */
#ifndef FSB_CORE_PHASE_LIMIT_H
#define FSB_CORE_PHASE_LIMIT_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/run.h"

struct phase_limit {
	uint64_t limit_ns;       /* 0: no limit */
	uint64_t ramp_ns;        /* 0: no ramp */
	/* the timer's state, the module's own */
	struct phase *p;
	uint64_t t0_ns;
	struct opstat *snap;     /* p->nworkers snapshots at the ramp's end */
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool armed, cancel, fired, snapped;
};

/* Arms the timer for p, released now. 0 (nothing to arm with both at 0), or -errno. */
int phase_limit_arm(struct phase_limit *l, struct phase *p);
/* After the join: stops the timer, marks p (stonewalled, ramp_ns, ramp_ops, the samples),
 * subtracts the ramp from the workers' live statistics and lifts a stop the limit raised. */
void phase_limit_disarm(struct phase_limit *l, struct phase *p);
/* The start of the phase's measured window: the release, or the ramp's end. */
static inline uint64_t phase_measured_start(const struct phase *p)
{
	return p->start_ns + p->ramp_ns;
}
#endif
