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
 * Lifecycle: perf_open() once at setup (prints nothing; returns why not), perf_begin() right
 * before a window, perf_end() right after (returns that window's profile), perf_close(). */
#ifndef FSB_SYS_PERF_H
#define FSB_SYS_PERF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_DEFAULT_HZ 999

struct perf_config {
	unsigned hz;
	bool callgraph;          /* record kernel call chains (folded stacks) */
};

struct perf_entry {
	uint64_t samples;
	double pct;              /* of the profile's samples */
	char image[64];          /* "vmlinux", "ext4", "fsbench", "libc.so.6", "[unknown]" */
	char symbol[128];
};

struct perf_stack {
	char *folded;            /* "comm;frame;frame" (outermost first) */
	uint64_t count;
};

struct perf_profile {
	bool system_wide;        /* all CPUs, every process; else this process and its threads */
	unsigned hz;
	unsigned ncpus;          /* events opened */
	uint64_t samples;        /* in the table (idle excluded) */
	uint64_t lost;           /* samples the kernel dropped (ring buffer full) */
	uint64_t wall_ns;
	size_t n;
	struct perf_entry *v;    /* most samples first */
	size_t nstacks;
	struct perf_stack *stacks;   /* with callgraph; most samples first */
};

struct perf_session;

/* Opens the events (disabled) and loads the symbol tables. On failure returns -errno and
 * puts into why one line saying what to change ("kernel.perf_event_paranoid is 2 ..."). The
 * environment variable FSBENCH_PROFILE_FORCE_DENY=1 makes it fail as if not permitted (tests);
 * FSBENCH_PROFILE_SCOPE=process skips the system-wide attempt. */
int perf_open(struct perf_session **ps, const struct perf_config *c, char *why, size_t whylen);
int perf_begin(struct perf_session *ps);
/* Stops sampling only (cheap: take other end-of-window readings after it). */
void perf_stop(struct perf_session *ps);
/* Stops sampling, drains, symbolises. *out is NULL on failure; free with perf_profile_free. */
int perf_end(struct perf_session *ps, struct perf_profile **out);
void perf_close(struct perf_session *ps);
void perf_profile_free(struct perf_profile *p);
/* Merges src into *dst (takes src over when *dst is NULL) and always consumes src: entries
 * with the same image and symbol, and folded stacks with the same text, add up; samples, lost
 * and wall_ns add up, ncpus is the larger; the order is perf_end()'s (most samples first, then
 * by name) and pct is recomputed. fs_mark merges its iterations' create loops into one profile
 * per run this way. 0, or -ENOMEM with *dst unchanged (src freed). */
int perf_profile_merge(struct perf_profile **dst, struct perf_profile *src);
#endif
