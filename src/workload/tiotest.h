/* The tiotest workload: t threads, one file each, four phases (write, random write, read,
 * random read) with one synchronous op of bs bytes at a time, as tiotest 0.4.2 does them.
 * The command (cmd/tiotest.c) fills tio_config from the options; tio_run() fills tio_result;
 * report code prints it. */
#ifndef FSB_WORKLOAD_TIOTEST_H
#define FSB_WORKLOAD_TIOTEST_H
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/observe.h"
#include "core/opt.h"
#include "core/run.h"
#include "core/sample.h"
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
	bool no_latency, terse, serial_write, sync, direct, mmap, verify, drop_caches, raw;
	bool raw_offset_first;       /* -O */
	uint64_t raw_offset_bytes;   /* -o */
	uint64_t debug;              /* -D */
	int help;
	/* fsbench's own (long options only) */
	const char *json;
	bool percentiles;
	uint64_t seed;
	bool keep;
	const char *between;         /* --between-phases CMD */
	uint64_t interval_ns;        /* --interval: time series resolution */
	bool quiet;                  /* --quiet: no progress line */
	uint64_t repeat;             /* --repeat N */
	const char *label;           /* --label NAME */
	bool progress;               /* derived: stderr is a terminal and not --quiet */
	bool sysstats;               /* --sysstats: kernel view table and warnings on stderr */
	bool profile, profile_callgraph;   /* --profile, --profile-callgraph */
	bool profile_inclusive;      /* --profile-inclusive: call chains, inclusive table */
	uint64_t profile_hz, profile_top;
	const char *profile_folded;  /* --profile-folded FILE */
	struct observe *obs;         /* set by the command: kernel-side session, NULL for none */
	/* derived by tio_config_check() */
	bool run_phase[TIO_NPHASES];
	uint64_t blocks;             /* per thread */
};

struct tio_thread_result {
	char path[PATH_MAX];
	uint64_t ops, bytes;
	uint64_t start_ns, end_ns;   /* relative to the phase start */
	uint64_t flush_ns;           /* the end-of-phase fsync */
	double usr_s, sys_s;
};

struct tio_phase_result {
	bool ran;                    /* the phase was started */
	bool complete;               /* ... and every worker finished its ops */
	struct opstat st;            /* all workers merged */
	uint64_t wall_ns, first_done_ns, last_done_ns;
	uint64_t first_done_ops;     /* every thread's progress when the first finished */
	uint64_t first_done_bytes;
	double usr_s, sys_s;         /* process CPU over the phase window */
	struct procio io;            /* /proc/self/io delta */
	struct observe_phase obs;    /* kstat delta, profile, warnings (core/observe.h) */
	struct sample *samples;      /* time series, malloc'd */
	unsigned nsamples;
	uint64_t sample_interval_ns;
	struct tio_thread_result *threads;
};

struct tio_result {
	struct tio_phase_result phase[TIO_NPHASES];
	struct opstat total;         /* every op of every phase that ran (the Total row) */
	bool complete;
	int stopped_in;              /* phase the run stopped in, or -1 */
	uint64_t seed;
	int pid;
};

/* Checks cross-option constraints and fills the derived fields. Returns 0, or -1 with a one-line
 * message in err and *exit_code set (2 usage, 3 unsupported here). */
int tio_config_check(struct tio_config *c, char *err, size_t errlen, int *exit_code);
/* Runs the workload. Files are created and registered for cleanup; the caller runs cleanup.
 * Returns 0 when it ran (completely or stopped: see r->complete and run_error_get()), or
 * -errno when it could not start (message already on stderr). */
int tio_run(const struct tio_config *c, struct tio_result *r, const char *prog);
void tio_result_free(struct tio_result *r);
#endif
