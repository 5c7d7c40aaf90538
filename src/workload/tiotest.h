/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tiotest workload: t threads, one file each, four phases (write, random write, read,
 * random read) with one synchronous op of bs bytes at a time, as tiotest 0.4.2 does them.
 * workload_tiotest (workload/workload.h) is its ops: options, checks, the run; the figures are
 * computed once here (tio_fig), report/tiotest_text.c prints them. */
#ifndef FSB_WORKLOAD_TIOTEST_H
#define FSB_WORKLOAD_TIOTEST_H
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/cost.h"
#include "core/driver.h"
#include "core/observe.h"
#include "core/opt.h"
#include "core/run.h"
#include "core/sample.h"
#include "sys/layout.h"
#include "engine/engine.h"
#include "sys/procio.h"

enum tio_phase { TIO_WRITE, TIO_RWRITE, TIO_READ, TIO_RREAD, TIO_NPHASES };

extern const char *const tio_phase_name[TIO_NPHASES];   /* "write", "random_write", ... */
extern const char *const tio_phase_label[TIO_NPHASES];  /* "Write", "Random Write", ... */

struct tio_config {
	/* as parsed (tiotest units) */
	uint64_t file_bytes;         /* -f, per thread */
	uint64_t block_bytes;        /* -b */
	struct opt_strs dirs;        /* -d */
	uint64_t threads;            /* -t */
	uint64_t random_ops;         /* -r, per thread */
	struct opt_uints skip;       /* -k */
	bool serial_write, sync, direct, mmap, verify, drop_caches, raw;
	bool raw_offset_first;       /* -O */
	uint64_t raw_offset_bytes;   /* -o */
	uint64_t debug;              /* -D */
	int help;
	/* presentation only (report/tiotest_text.c reads them; the run does not) */
	struct {
		bool no_latency, terse;      /* -L -T */
		bool percentiles;            /* --percentiles */
	} text;
	/* fsbench's own (long options only) */
	uint64_t seed;
	bool keep;
	const char *between;         /* --between-phases CMD */
	bool layout;                 /* --layout: the layout table after the classic output */
	struct run_opts run;         /* the options every workload shares */
	struct engine_opts eng;      /* --engine, --iodepth (-M: mmap) */
	/* derived by tio_config_check() */
	bool json_stdout;            /* --json -: stdout carries the JSON and nothing else */
	bool run_phase[TIO_NPHASES];
	uint64_t blocks;             /* per thread */
};

/* The figures of a phase, in the order of tio_phase_figs[] (figure.h). */
enum tio_fig {
	TIO_FIG_RATE,                /* MiB/s over the phase wall time */
	TIO_FIG_IOPS,
	TIO_FIG_USR_PCT, TIO_FIG_SYS_PCT,    /* process CPU over the phase wall time */
	TIO_FIG_LAT_MEAN, TIO_FIG_LAT_P50, TIO_FIG_LAT_P90, TIO_FIG_LAT_P99, TIO_FIG_LAT_P999,
	TIO_FIG_LAT_MAX,             /* ns, per op */
	TIO_FIG_OVER_2S_PCT, TIO_FIG_OVER_10S_PCT,
	/* the test files' layout after the phase (struct tio_layout), NAN where not measured */
	TIO_FIG_LAYOUT_EXTENTS_PER_MIB, TIO_FIG_LAYOUT_MEAN_EXTENT_BYTES, TIO_FIG_LAYOUT_DISCONT_PER_MIB,
	TIO_FIG_COST,                /* COST_NFIGS cost-per-op figures (core/cost.h) */
	TIO_NFIGS = TIO_FIG_COST + COST_NFIGS
};
/* ... and of a run: its Total latency row */
enum tio_run_fig { TIO_RFIG_LAT_MEAN, TIO_RFIG_LAT_P99, TIO_RFIG_LAT_MAX, TIO_RFIG_OVER_2S_PCT,
		   TIO_RFIG_OVER_10S_PCT, TIO_RFIG_AFTER /* the sync after the run, core/afterrun.h */,
		   TIO_NRFIGS = TIO_RFIG_AFTER + AFTERRUN_NFIGS };
extern const struct figure tio_phase_figs[TIO_NFIGS];
extern const struct figure tio_run_figs[TIO_NRFIGS];
extern const struct workload_ops workload_tiotest;

struct tio_thread_result {
	char path[PATH_MAX];
	uint64_t ops, bytes;
	uint64_t start_ns, end_ns;   /* relative to the phase start */
	uint64_t flush_ns;           /* the end-of-phase fsync */
	double usr_s, sys_s;
	uint64_t nvcsw, nivcsw;
};

/* The test files' layout after a phase (sys/layout.h), taken outside the phase window: after
 * each write phase, and with -k after the last phase that ran, the files as the reads met them. */
struct tio_layout {
	bool measured;               /* taken after this phase */
	bool absent;                 /* ... but there is none to be had (tmpfs, -R): why says so */
	char why[LAYOUT_REASON_MAX];
	struct layout_sum sum;       /* every test file */
	struct layout_file *files;   /* per thread, malloc'd; NULL when absent */
};

struct tio_phase_result {
	bool ran;                    /* the phase was started */
	bool complete;               /* ... and every worker finished its ops */
	struct opstat st;            /* all workers merged */
	uint64_t start_ns;           /* the release, absolute CLOCK_MONOTONIC (after a job's merge:
				      * the first release on the job's common timeline) */
	uint64_t wall_ns, first_done_ns, last_done_ns;   /* from start_ns (wall_ns: from the ramp) */
	bool time_limited;           /* stopped by --time-limit (a job: on any process) */
	uint64_t ramp_ns;            /* --ramp left out of st and wall_ns, 0: none */
	uint64_t first_done_ops;     /* every thread's progress when the first finished */
	uint64_t first_done_bytes;
	double usr_s, sys_s;         /* process CPU over the phase window */
	struct procio io;            /* /proc/self/io delta */
	bool has_workers;            /* the engine reports kernel workers (io_uring's io-wq) */
	struct engine_workers wq;    /* ... live at the end of each thread's phase, summed */
	bool has_submit;             /* the engine times its submitting calls (io_uring) */
	struct engine_submit_stats sub;  /* ... every thread's, the end-of-phase fsync's included */
	struct observe_phase obs;    /* kstat delta, profile, warnings (core/observe.h) */
	struct sample *samples;      /* time series, malloc'd */
	unsigned nsamples;
	uint64_t sample_interval_ns;
	struct tio_thread_result *threads;   /* nthreads: c->threads, or every process's */
	unsigned nthreads;
	double fig[TIO_NFIGS];       /* computed once the phase ended */
	struct tio_layout layout;
	struct cost_raw cost;        /* from the threads and the kernel view, with fig */
};

struct tio_result {
	struct run_head head;        /* must stay first */
	struct tio_phase_result phase[TIO_NPHASES];
	struct opstat total;         /* every op of every phase that ran (the Total row) */
	int stopped_in;              /* phase the run stopped in, or -1 */
	double fig[TIO_NRFIGS];
	uint64_t seed;
	int pid;
};

/* Checks cross-option constraints and fills the derived fields. Returns 0, or with a one-line
 * message in err: -EINVAL for bad input, -EPERM or -EOPNOTSUPP when it cannot run here. */
int tio_config_check(struct tio_config *c, char *err, size_t errlen);
void tio_defaults(struct tio_config *c);
/* Computes every phase's figures and the run's from the raw counters (the run does it when it
 * ends; exposed for tests and merges). */
void tio_result_figures(struct tio_result *r);
/* A phase is in the tables when it ran and did at least one op (tiotest leaves a row out when
 * its block count is zero). */
static inline bool tio_phase_shown(const struct tio_phase_result *p)
{
	return p->ran && p->st.ops > 0;
}
#endif
