/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The profile of a sampling window (sys/perf.c makes it, core/perf_attr.c fills it): per
 * symbol self and inclusive samples of this run's tasks, other processes, folded stacks. The
 * model report/ (tables, JSON, diffs) and fsbench-mpi (a job's profiles merged) work on, with
 * no perf_event_open of its own. */
#ifndef FSB_CORE_PERF_PROFILE_H
#define FSB_CORE_PERF_PROFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_entry {
	uint64_t samples;        /* self: the sampled address was in this symbol */
	double pct;              /* of the table's samples */
	uint64_t inclusive;      /* with call chains: samples whose chain holds the symbol, each
				  * sample once however often the symbol recurs in its chain */
	double inclusive_pct;    /* of the table's samples */
	char app[32];            /* the task: this process's comm ("fsbench"), "kworker/u4:2",
				  * "jbd2/loop0-8" */
	char image[64];          /* "vmlinux", "[ext4]", "fsbench", "libc.so.6", "[unknown]" */
	char symbol[128];
};

/* One process outside the table. */
struct perf_other {
	int32_t pid;
	char comm[32];
	uint64_t samples;
	double pct;              /* of the machine's sampled CPU: table + other processes */
};

struct perf_stack {
	char *folded;            /* "app;frame;frame" (outermost first) */
	uint64_t count;
};

/* Attribution: every sample by its pid and tid. The table holds this process's threads and
 * the kernel threads that work on its behalf (perf_helper_comms); every other process is one
 * perf_other line; pid 0 (the idle task, rare since idle is excluded) is counted in neither.
 * Percentages of the table are of the table's samples. */
struct perf_profile {
	bool system_wide;        /* all CPUs, every process; else this process and its threads */
	bool callgraph;          /* call chains recorded: inclusive counts and stacks */
	unsigned hz;
	unsigned ncpus;          /* events opened */
	uint64_t samples;        /* in the table: this process and its helper kernel threads */
	uint64_t other_samples;  /* every other process */
	uint64_t idle_samples;   /* pid 0: in neither */
	double other_pct;        /* other_samples of samples + other_samples */
	uint64_t lost;           /* samples the kernel dropped (ring buffer full) */
	uint64_t wall_ns;
	size_t n, nself;         /* v[0..nself) have self samples; the rest inclusive ones only */
	struct perf_entry *v;    /* most self samples first, then by app, image, symbol */
	size_t ninc;
	size_t *inc;             /* with callgraph: indices into v, most inclusive samples first */
	size_t nother;
	struct perf_other *other;    /* most samples first */
	size_t nstacks;
	struct perf_stack *stacks;   /* with callgraph; the table's tasks only; most samples first */
};

void perf_profile_free(struct perf_profile *p);
/* A deep copy (every array its own); NULL when out of memory. */
struct perf_profile *perf_profile_dup(const struct perf_profile *p);
/* Merges src into *dst (takes src over when *dst is NULL) and always consumes src: entries
 * with the same app, image and symbol, other processes with the same pid and comm, and folded
 * stacks with the same text add up (self and inclusive samples); every total adds up, ncpus is
 * the larger; the order is perf_end()'s (most samples first, then by name) and the
 * percentages are recomputed. fs_mark merges its iterations' create loops into one profile
 * per run this way. 0, or -ENOMEM with *dst unchanged (src freed). */
int perf_profile_merge(struct perf_profile **dst, struct perf_profile *src);

/* ---- shared with the accounting (core/perf_attr.c) ---------------------------------------- */
/* (app, image, symbol) -> entry: a hash table over a growing array of entries */
struct perf_profile_etab {
	struct perf_entry *v;
	size_t n, cap;
	size_t *h;                   /* index + 1 */
	size_t hcap;
};
/* the entry's index (added with zero counts when new), -1 when out of memory */
long perf_profile_etab_get(struct perf_profile_etab *e, const char *app, const char *image, const char *sym);
/* The order and percentages of a profile whose counts are final. inc: room for n indices
 * (taken over; may be NULL without callgraph). */
void perf_profile_order(struct perf_profile *p, size_t *inc);
/* Merges stacks of equal text in place (sorted by text first), freeing the dropped strings;
 * returns the new count. */
size_t perf_profile_stacks_merge(struct perf_stack *st, size_t n);
/* other processes by pid, then comm (qsort) */
int perf_profile_other_cmp(const void *a, const void *b);
/* a 64-bit finaliser (MurmurHash3's) for the hash tables */
static inline uint64_t perf_profile_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return x;
}
#endif
