/* Honesty warnings: when a phase's figures describe the page cache or the CPU rather than the
 * storage, say so, with the numbers behind it. Computed from the phase's own figures and its
 * kstat delta; printed one line each on stderr and kept in the JSON.
 *
 * Thresholds (deliberately coarse: a warning must be unmistakable, not a judgement call):
 *   page_cache_reads   buffered reads, data set < RAM, device read bytes < 10% of bytes read
 *                      (or no block device at all)
 *   cache_absorbed_writes  buffered writes without O_SYNC/O_DIRECT, device write bytes < 50% of
 *                      bytes written (or no block device)
 *   cpu_bound          the process's system CPU >= 90% of min(threads, CPUs) cores
 *   early_finisher     several threads, the first done before 50% of the last one's time
 *                      (and the phase took at least 100 ms) */
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
	const struct kstat_delta *k;        /* NULL when kstat was not taken */
};

void warn_compute(const struct warn_phase *p, struct warn_list *out);
void warn_print(FILE *out, const char *prog, const struct warn_list *l);
#endif
