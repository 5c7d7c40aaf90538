/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Worker threads released by a start barrier, phase timing and CPU accounting, the process-wide
 * stop flag and the first error. A workload supplies the work hook; the core owns timing. */
#ifndef FSB_RUN_H
#define FSB_RUN_H
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/hist.h"

/* Why the run stopped early: nonzero stops every worker at its next op. RUN_STOP_PHASE ends
 * only the phase in progress (the driver's stonewall, core/driver.h), which the driver lifts
 * once the phase's workers are joined. */
enum run_stop_reason { RUN_GO = 0, RUN_STOP_ERROR = 1, RUN_STOP_SIGNAL = 2, RUN_STOP_PHASE = 3 };
extern atomic_int run_stop;

static inline bool run_stopping(void)
{
	return atomic_load_explicit(&run_stop, memory_order_relaxed) != RUN_GO;
}

/* The first error of the run, recorded by whichever thread hits it first. */
struct run_error {
	int err;                 /* errno value */
	const char *syscall;     /* "pwrite", "open", ... or "verify"; NULL: detail is the message */
	char path[PATH_MAX];
	int64_t offset;          /* -1 when the error has no offset */
	char detail[256];        /* extra text (verification failures), may be empty */
};

/* Records the first error and raises the stop flag; later calls only keep the flag raised. */
void run_fail(int err, const char *syscall, const char *path, int64_t offset);
void run_fail_detail(int err, const char *syscall, const char *path, int64_t offset,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* An error that is a whole message ("cannot create 'x': No space left on device"), as setup
 * errors are: formatted as it is. */
void run_fail_msg(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const struct run_error *run_error_get(void);     /* NULL when no error */
void run_error_format(const struct run_error *e, char *buf, size_t len);
/* Signal handling: every catchable signal whose default action ends the process raises the
 * stop flag instead (run.c has the list and the rules on inherited dispositions);
 * run_signal() tells which came first, 0 for none. SIGXFSZ is caught but stops nothing: the
 * write returns EFBIG and the caller reports it as an error. */
int run_signals_install(void);
int run_signal(void);
/* "SIGINT", "SIGRTMIN+3"; sigabbrev_np() has no name for the real-time signals */
void run_signal_name(int sig, char *buf, size_t len);
/* Forgets the first error (and the stop it raised) before another run in the same process;
 * a signal's stop stays. */
void run_reset(void);

/* The interval samples' next boundary, as a worker's live statistics see it (core/sample.h):
 * due, in lat_now() units, is when the next snapshot of all workers is owed; the worker whose
 * op completes at or after it calls opstat_tick_fire (core/sample.c), which takes the snapshot
 * (or leaves it to whoever is taking it) and moves due on. No thread wakes up to take
 * snapshots during a phase. */
struct opstat_tick {
	_Atomic uint64_t due;
};
void opstat_tick_fire(struct opstat_tick *t);

/* Per-op statistics of one op type in one worker; merged after join. */
struct opstat {
	uint64_t ops;
	uint64_t bytes;
	uint64_t over_2s;        /* ops slower than 2 s / 10 s, exact (tiotest's columns) */
	uint64_t over_10s;
	struct hist lat;
	/* set on a worker's live statistics while its phase keeps interval samples (the
	 * sampler, core/sample.c), NULL otherwise; opstat_merge never copies it */
	struct opstat_tick *tick;
};

void opstat_init(struct opstat *s);
void opstat_merge(struct opstat *dst, const struct opstat *src);

static inline void opstat_add(struct opstat *s, uint64_t lat_ns, uint64_t bytes)
{
	HIST_PUBLISH(s->ops, s->ops + 1);
	HIST_PUBLISH(s->bytes, s->bytes + bytes);
	hist_record(&s->lat, lat_ns);
	if (__builtin_expect(lat_ns > 2000000000u, 0)) {
		s->over_2s++;
		if (lat_ns > UINT64_C(10000000000))
			s->over_10s++;
	}
}

/* opstat_add for a worker's live statistics, done: the op's completion, lat_now() units. When
 * the op ends past the samples' next boundary, the snapshot is taken first: it holds what
 * completed before this op (one compare per op otherwise). */
static inline void opstat_add_at(struct opstat *s, uint64_t done, uint64_t lat_ns, uint64_t bytes)
{
	struct opstat_tick *t = s->tick;

	if (__builtin_expect(t && done >= atomic_load_explicit(&t->due, memory_order_relaxed), 0))
		opstat_tick_fire(t);
	opstat_add(s, lat_ns, bytes);
}

struct phase;

/* What the live status line shows (drawn by report/progress_text.c, through phase.draw). */
struct progress_view {
	const char *label;       /* "tiotest", "fs_mark run 2/3 iteration 5" */
	const char *phase;       /* "write" */
	const char *ops_unit;    /* "files": the rate is in ops/s; NULL: MiB/s */
	double pct;              /* done, 0..100; < 0 when unknown */
	double rate;
	double eta_s;            /* < 0 when unknown */
	bool erase;              /* the phase ended: erase the line */
};

struct worker {
	unsigned id;
	struct phase *phase;
	void *ctx;               /* the workload's per-worker state */
	uint64_t start_ns;       /* absolute CLOCK_MONOTONIC: released .. work hook returned */
	uint64_t end_ns;
	double usr_s, sys_s;     /* RUSAGE_THREAD over the same window */
	uint64_t nvcsw, nivcsw;  /* ... and its voluntary and involuntary context switches */
	int rc;                  /* the work hook's return: 0 or -errno */
	pthread_t tid;
	bool started;
	/* the worker's main op statistics, set by the workload before phase_run(): other
	 * threads read it while the worker runs (first-done snapshot, interval samples,
	 * progress line) with relaxed loads; opstat_add() publishes with relaxed stores */
	struct opstat *live;
	uint64_t ramp_ops;       /* live's ops in the phase's ramp, left out of it (phase_limit.h) */
};

struct sample;

struct phase {
	const char *name;
	unsigned nworkers;
	bool serial;             /* run the workers one after another inside one window */
	int (*work)(struct worker *w);
	/* run by each worker thread before it parks at the start barrier, so outside the
	 * window (serial phases have no barrier: inside it), and before the thread takes its
	 * private descriptor table, so what it opens here stays open in the process after the
	 * thread (an io_uring ring the thread must make itself); 0, or -errno recorded by the
	 * hook (run_fail): the worker then does no work; NULL: none */
	int (*prepare)(struct worker *w);
	/* run by each worker thread whose work ran, after its window closed (w->end_ns) and its
	 * CPU time was taken, before the thread exits: what must be read in the worker's own
	 * thread but is not the work (io_uring's io-wq workers, which go with the thread: reading
	 * /proc for them took ~0.1 ms, 0.3-0.8 % of a 30 ms phase); serial phases run it inside
	 * their one window; NULL: none */
	void (*finish)(struct worker *w);
	struct worker *workers;  /* nworkers entries, ctx set by the caller */
	/* results, valid after phase_run() */
	uint64_t start_ns;       /* barrier release */
	uint64_t end_ns;         /* last worker done */
	uint64_t first_done_ns;  /* first worker done */
	uint64_t first_done_ops; /* all workers' progress when the first one finished */
	uint64_t first_done_bytes;
	bool stonewalled;        /* stopped by the time limit (core/phase_limit.h) */
	uint64_t ramp_ns;        /* the ramp left out of the live figures (phase_limit.h), 0: none */
	uint64_t ramp_ops;       /* the ops done in it, all workers */
	double usr_s, sys_s;     /* process CPU from release to after the last join: exact total
				  * (CLOCK_PROCESS_CPUTIME_ID), split as RUSAGE_SELF splits it */
	double cpu0_s;
	atomic_uint ndone;
	/* interval samples and progress (sample.h); zero/false for none */
	uint64_t interval_ns;    /* the longest interval wanted (--interval) */
	bool progress;           /* redraw a status line (through draw) */
	void (*draw)(const struct progress_view *v);
	uint64_t expected_ops;   /* all workers together, for % done and ETA; 0 if unknown */
	const char *label;       /* progress line prefix, e.g. "tiotest" */
	const char *ops_unit;    /* progress shows ops/s in this unit ("files") instead of MiB/s */
	/* with interval_ns: each interval of exactly interval_ns (the last one up to the phase
	 * end) as it completes, from the reporter thread (--stream); NULL for none */
	void (*stream)(void *arg, const struct phase *p, const struct sample *s);
	void *stream_arg;
	/* the release hook (core/driver.h): called once every worker is parked, right before the
	 * release; a failure is the run's first error and the workers stop at once */
	int (*release)(void *arg, const struct phase *p);
	void *release_arg;
	struct sample *samples;  /* results: malloc'd, the caller frees */
	unsigned nsamples;
	uint64_t sample_interval_ns; /* the interval the samples ended up with */
};

/* Runs one phase: creates the workers, waits until all are parked, takes the clock and the
 * process rusage, releases them at once, joins them all. Returns 0, or -errno when threads
 * could not be created (then the stop flag is raised and the error recorded). */
int phase_run(struct phase *p);
#endif
