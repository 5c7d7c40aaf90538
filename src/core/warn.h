/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Honesty warnings: when a phase's figures describe the page cache or the CPU rather than the
 * storage, say so, with the numbers behind it. Computed from the phase's own figures and its
 * kstat delta and kept in the JSON one per phase; a tally merges a command's warnings over its
 * phases, iterations and runs into one stderr line per kind (report/warn_text.h).
 *
 * Thresholds (deliberately coarse: a warning must be unmistakable, not a judgement call):
 *   page_cache_reads   buffered reads, data set < RAM, device read bytes < 10% of bytes read
 *                      (or no block device at all)
 *   cache_absorbed_writes  buffered writes without O_SYNC/O_DIRECT, device write bytes < 50% of
 *                      bytes written (or no block device)
 *   cpu_bound          the process's system CPU >= 90% of min(threads, CPUs) cores
 *   early_finisher     several threads, the first done before 50% of the last one's time
 *                      (and the phase took at least 100 ms)
 *   short_phase        the phase (an fs_mark iteration) took less than 1 s: start-up, the
 *                      clock's and the scheduler's granularity, one writeback burst more or
 *                      less, weigh on its figures; on a shared 2-core machine neighbouring
 *                      sub-second iterations were seen to differ tenfold */
#ifndef FSB_CORE_WARN_H
#define FSB_CORE_WARN_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sys/kstat.h"

#define WARN_MAX 8

struct warn {
	const char *id;          /* "page_cache_reads", ... (static) */
	char msg[320];           /* one line, no newline, starts with the phase name */
	/* the numbers behind it, for the tally */
	bool no_device;          /* page_cache_reads, cache_absorbed_writes: deviceless target */
	uint64_t bytes;          /* read (page_cache_reads) or written (cache_absorbed_writes) */
	uint64_t dev_bytes;      /* what the device read or wrote meanwhile */
	uint64_t data_set_bytes, mem_total_bytes;   /* page_cache_reads */
	double cpu_pct;          /* cpu_bound: system CPU in % of one core */
	unsigned cores;          /* cpu_bound: min(threads, CPUs) */
	uint64_t first_done_ns, last_done_ns;       /* early_finisher */
	double wall_s;           /* short_phase */
};

struct warn_list {
	unsigned n;
	struct warn w[WARN_MAX];
};

/* What a phase did, in the workload's own terms. */
struct warn_phase {
	const char *name;        /* "read", "iteration 3" */
	uint64_t read_bytes, write_bytes;   /* what the workload asked for */
	bool direct, sync;       /* O_DIRECT / O_SYNC (or a sync per op): writes reached the device */
	uint64_t data_set_bytes; /* how much data the reads could come from */
	uint64_t mem_total_bytes;
	unsigned threads, cpus;
	uint64_t wall_ns, first_done_ns, last_done_ns;
	double sys_s;            /* the process's system CPU over the phase */
	bool has_device;         /* false: deviceless filesystem (tmpfs ...) */
	bool cut_short;          /* ended by an error, a signal or a full filesystem: never a
				  * short_phase, whatever it lasted */
	const struct kstat_delta *k;        /* NULL when kstat was not taken */
};

void warn_compute(const struct warn_phase *p, struct warn_list *out);

/* ---- the tally: a command's warnings merged per kind over phases, iterations and runs ---- */
enum warn_kind {
	WARN_MEMORY,             /* page_cache_reads or cache_absorbed_writes, no block device */
	WARN_CACHE_READS,        /* page_cache_reads */
	WARN_CACHE_WRITES,       /* cache_absorbed_writes */
	WARN_CPU,                /* cpu_bound */
	WARN_EARLY,              /* early_finisher */
	WARN_SHORT,              /* short_phase */
	WARN_NKINDS
};

#define WARN_TALLY_PHASES 8

/* the smallest and largest of the merged values */
struct warn_span {
	unsigned n;
	double lo, hi;
};

/* one phase name ("write", "iteration") in one kind; for iterations, which ones */
struct warn_tally_phase {
	const char *phase;       /* the caller's static label */
	unsigned runs, last_run; /* how many runs had it */
	unsigned niters, cap;    /* sorted, disjoint, non-adjacent ranges of iteration numbers */
	struct { unsigned lo, hi; } *iters;
	struct warn_span read_bytes, write_bytes, dev_bytes, cpu_pct, first_s, last_s, wall_s;
};

struct warn_tally_kind {
	unsigned runs, last_run;
	struct warn_span data_set_bytes, mem_total_bytes, cores;
	unsigned nphases;
	struct warn_tally_phase p[WARN_TALLY_PHASES];
};

struct warn_tally {
	unsigned max_run;
	struct warn_tally_kind k[WARN_NKINDS];
};

void warn_tally_init(struct warn_tally *t);
/* Merges one phase's warnings: run counts from 1, phase is a static label ("random write",
 * "iteration"), iter the iteration number or 0. Returns 0 or -ENOMEM (the iteration list is
 * then incomplete; the rest is merged). */
int warn_tally_add(struct warn_tally *t, const struct warn_list *l, unsigned run, const char *phase,
		   unsigned iter);
bool warn_tally_empty(const struct warn_tally *t);
void warn_tally_free(struct warn_tally *t);
#endif
