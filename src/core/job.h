/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job: one workload run by several processes at once (fsbench-mpi, src/mpi/), reported as
 * one. The workload's own result travels through its pack/merge hooks (workload/workload.h);
 * this module holds what the job adds beside it, with no MPI in it:
 *
 *   - each process's record of its phases, taken through the driver's release and phase_end
 *     hooks (core/driver.h): release and end on the job's common timeline, the main op's
 *     count, bytes and latency, CPU, whether the stonewall ended it, the work it had done
 *     when the job's first rank finished, and the host's kernel view (one rank per host);
 *   - how it ended (its first error, whether that error was its own or the job's stop);
 *   - how records travel (core/pack.h) and how the first process sums them up: per phase the
 *     start skew (the spread of the ranks' release times), the job's window (first release to
 *     last completion) and aggregate rate, the stonewall figure (work done by every rank when
 *     the first rank finished, over the time to then); per host and per rank the counters.
 *
 * The common timeline. CLOCK_MONOTONIC counts from an unspecified point (boot, on Linux), so
 * its values on two hosts are unrelated; even on one host every process reads the same clock
 * and the offset is ~0. At start each rank measures its offset to rank 0's clock by ping-pong
 * (src/mpi/): rank 0 sends at t0, the rank answers with its clock tr, rank 0 receives at t1;
 * tr was read somewhere in [t0, t1] of rank 0's time, so offset = tr - (t0 + t1) / 2 is wrong
 * by at most (t1 - t0) / 2. Of k rounds the one with the shortest round trip has the
 * tightest bound (the others were slowed by a preemption, an interrupt, a busy link), so
 * best-of-k bounds each rank's error by half its best round trip, and a skew between two
 * ranks by the sum of their two bounds. Every time a rank ships is its own minus its offset. */
#ifndef FSB_CORE_JOB_H
#define FSB_CORE_JOB_H
#include <stdbool.h>
#include <stdint.h>

#include "core/hist.h"
#include "core/pack.h"
#include "core/run.h"
#include "sys/kstat.h"

#define JOB_NAME_MAX 32
#define JOB_HOST_MAX 64

/* One phase of one process. Times on the common timeline. */
struct job_phase {
	unsigned run;                /* run of the repeat, 0-based */
	unsigned index;              /* the phase's number in its run, 0-based */
	char name[JOB_NAME_MAX];     /* "write", "create" */
	uint64_t release_ns;         /* the workers' release */
	uint64_t end_ns;             /* its last worker done */
	uint64_t ops, bytes;         /* the phase's main op (each worker's live opstat) */
	double usr_s, sys_s;         /* process CPU over the phase window */
	bool stonewalled;            /* --stonewall ended it */
	bool at_first_set;
	uint64_t at_first_ops;       /* work done when the job's first rank finished the phase */
	uint64_t at_first_bytes;
	/* the host's kernel view (one rank per host) in pack_kstat's form, NULL for none: ~0.5
	 * KiB rather than the 3.5 KiB of the struct, a fill has thousands (job_phase_kstat) */
	unsigned char *k;
	size_t klen;
};

/* A phase name's main op over one run (fs_mark: every iteration's create loop): counts and
 * latency, exact. */
struct job_lat {
	unsigned run;
	char name[JOB_NAME_MAX];
	uint64_t ops, bytes, over_2s, over_10s;
	struct hist *h;              /* where it is recorded */
	struct hist_packed p;        /* where it was received */
};

/* Where a rank's phases are read from when they are not in its phases[]: a fill has thousands,
 * kept out of memory by the caller (src/mpi/ spools them as they complete). get: phase i of
 * the rank into p as job_phase_get gives it; 0 or -errno. */
struct job_phase_src {
	int (*get)(void *arg, unsigned rank, unsigned i, struct job_phase *p);
	void *arg;
};

/* One process of the job. */
struct job_rank {
	unsigned rank, host;
	int pid;
	int64_t clock_offset_ns;     /* its CLOCK_MONOTONIC minus rank 0's */
	uint64_t clock_error_ns;     /* bound of the offset's error: half the best round trip */
	bool delivered;              /* its record reached rank 0 */
	/* how its run ended */
	unsigned nruns;
	bool failed;                 /* a first error was recorded */
	bool echo;                   /* ... and it was the job's stop, not its own error */
	bool nostart;
	bool cleanup_failed;
	int signal;
	struct run_error error;      /* error.syscall points into syscall[] */
	char syscall[32];
	uint64_t error_ns;           /* when it was seen (common timeline) */
	/* its fill found the filesystem full itself (an ENOSPC, or no room for the next
	 * iteration), not told so by another rank: in which run, after how many of its
	 * iterations (units; the last one partial when ENOSPC came in it), and how */
	bool full;
	unsigned full_run, full_units;
	char full_detail[PATH_MAX + 640];
	unsigned nphases, capphases;
	/* NULL when src holds the nphases */
	struct job_phase *phases;
	const struct job_phase_src *src;
	unsigned nlat, caplat;
	struct job_lat *lat;
};

struct job_host {
	char name[JOB_HOST_MAX];
	unsigned nranks;
	unsigned first_rank;         /* the rank that reads its kernel view */
};

/* The job as rank 0 reports it. */
struct job {
	unsigned nranks, nhosts;
	struct job_rank *ranks;
	struct job_host *hosts;
	uint64_t threads_per_rank;
	bool shared_dir;
	uint64_t stonewall_ns;       /* 0: none */
	uint64_t timeout_ns;
	unsigned clock_rounds;       /* k of best-of-k */
	/* the job's first error: its rank (or -1) and its text */
	int error_rank;
	char error_text[PATH_MAX + 768];
	/* ranks that did not deliver a record, and why in one line ("" when all did) */
	char missing[512];
};

/* ---- a process records its phases --------------------------------------------------------- */
/* A phase was released at release_ns (common timeline); returns its record or NULL (no
 * memory: the phase goes unrecorded). */
struct job_phase *job_rank_phase(struct job_rank *r, unsigned run, unsigned index,
				 const char *name, uint64_t release_ns);
/* The phase's kernel view: set (a copy; -ENOMEM), and read into k (false: none). */
int job_phase_set_kstat(struct job_phase *p, const struct kstat_delta *k);
bool job_phase_kstat(const struct job_phase *p, struct kstat_delta *k);
/* Phase i of r (in phases[] or read from its src) into p: a copy, its kernel view its own
 * (job_phase_clear). 0, -ENOENT, -EIO, -ENOMEM. */
int job_phase_get(const struct job_rank *r, unsigned i, struct job_phase *p);
void job_phase_clear(struct job_phase *p);
/* Adds an op's statistics to the run's record for name; -ENOMEM. */
int job_rank_lat_add(struct job_rank *r, unsigned run, const char *name, const struct opstat *s);
/* Its phase records freed (phases[]; nphases 0). */
void job_rank_free_phases(struct job_rank *r);
/* Its phase and latency records freed (once packed: they travel, the rest of it stays). */
void job_rank_free_records(struct job_rank *r);
void job_rank_free(struct job_rank *r);

/* ---- records travel ------------------------------------------------------------------------ */
/* One phase record (its kernel view too): what job_rank_pack ships for each of phases[]. */
void job_phase_pack(const struct job_phase *p, struct pack *o);
/* into p (zeroed first, p->k malloc'd); 0 or -EPROTO/-ENOMEM */
int job_phase_unpack(struct unpack *u, struct job_phase *p);
/* phases[] only: a rank whose phases have a src ships them its own way */
void job_rank_pack(const struct job_rank *r, struct pack *o);
/* into a zeroed r; 0 or -EPROTO/-ENOMEM */
int job_rank_unpack(struct job_rank *r, struct unpack *u);

/* ---- rank 0 sums up --------------------------------------------------------------------------- */
/* One phase of the job: every rank's record of (run, index) together. */
struct job_phase_sum {
	unsigned run, index;
	char name[JOB_NAME_MAX];
	unsigned nranks;             /* ranks that ran it */
	uint64_t release_min_ns, release_max_ns;
	uint64_t first_end_ns;       /* the first rank done */
	uint64_t last_end_ns;        /* the last rank done */
	uint64_t ops, bytes;
	uint64_t at_first_ops, at_first_bytes;
	bool at_first_complete;      /* every rank had its work-at-first-end recorded */
	double usr_s, sys_s;
	unsigned stonewalled;        /* ranks the stonewall stopped */
};

static inline uint64_t job_phase_skew_ns(const struct job_phase_sum *s)
{
	return s->release_max_ns - s->release_min_ns;
}

static inline uint64_t job_phase_window_ns(const struct job_phase_sum *s)
{
	return s->last_end_ns > s->release_min_ns ? s->last_end_ns - s->release_min_ns : 0;
}

/* The job's phases in run and phase order (malloc'd, *n of them); NULL and 0 when none (or
 * no memory). host < 0: every rank; else only that host's ranks. */
struct job_phase_sum *job_phase_sums(const struct job *j, int host, unsigned *n);
/* The merged op statistics of (run, name) over host's ranks (every rank for host < 0), or of
 * one rank (rank >= 0): into s. */
void job_lat_merge(const struct job *j, int host, int rank, unsigned run, const char *name,
		   struct opstat *s);
/* Phase names of a run in first-seen order, up to max; returns how many. */
unsigned job_phase_names(const struct job *j, unsigned run, char (*names)[JOB_NAME_MAX], unsigned max);
/* The runs the job's phases cover (the highest run + 1). */
unsigned job_phase_runs(const struct job *j);
/* The largest clock offset error bound over the ranks. */
uint64_t job_clock_error_max(const struct job *j);
void job_free(struct job *j);
#endif
