/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 * Attribution: a system-wide event sees the whole machine, so each sample goes by its pid and
 * tid to this run's table or to another process (perf_classify below). Tasks are named from
 * /proc/PID/task/TID/comm when first sampled, and from PERF_RECORD_COMM (attr.comm): a task
 * that execs or is renamed during the window (a dd started by a shell) gets its new name even
 * when it is gone by the time its samples are read.
 *
 * Lifecycle: perf_open() once at setup (prints nothing; returns why not), perf_begin() right
 * before a window, perf_end() right after (returns that window's profile), perf_close(). */
#ifndef FSB_SYS_PERF_H
#define FSB_SYS_PERF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_DEFAULT_HZ 999

#define PERF_MAX_DEVS 16

/* A block device of the run: the kernel threads that name it (jbd2/loop0-8) are its helpers. */
struct perf_dev {
	char name[64];           /* kernel name: loop0, nvme0n1p2, dm-0, md0 */
	unsigned major, minor;   /* 0:0 when not known */
};

struct perf_config {
	unsigned hz;
	bool callgraph;          /* record kernel call chains (folded stacks) */
	unsigned ndevs;
	struct perf_dev devs[PERF_MAX_DEVS];   /* the targets' devices and the disks under them */
};

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

struct perf_session;

/* Opens the events (disabled) and loads the symbol tables. On failure returns -errno and
 * puts into why one line saying what to change ("kernel.perf_event_paranoid is 2 ..."). The
 * environment variable FSBENCH_PROFILE_FORCE_DENY=1 makes it fail as if not permitted (in the
 * test build only, core/testhook.h);
 * FSBENCH_PROFILE_SCOPE=process skips the system-wide attempt. */
int perf_open(struct perf_session **ps, const struct perf_config *c, char *why, size_t whylen);
int perf_begin(struct perf_session *ps);
/* Stops sampling only (cheap: take other end-of-window readings after it). */
void perf_stop(struct perf_session *ps);
/* Stops sampling, drains, symbolises. *out is NULL on failure; free with perf_profile_free. */
int perf_end(struct perf_session *ps, struct perf_profile **out);
void perf_close(struct perf_session *ps);
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

/* The attribution rule, exposed for tests. A sample's task is this process (pid self_pid: its
 * threads, io_uring's iou-wrk-* workers included), a helper (a kernel thread whose comm
 * matches one of perf_helper_comms: fnmatch patterns, NULL-terminated, where %d is the name and
 * %m the MAJ:MIN of one of devs; a comm cut at 15 characters matches what it starts), the idle
 * task (pid 0) or another process. kthread: 1 a kernel thread, 0 not, -1 unknown (the comm
 * decides). */
enum perf_class { PERF_OWN, PERF_HELPER, PERF_OTHER, PERF_IDLE };
extern const char *const perf_helper_comms[];
enum perf_class perf_classify(int32_t self_pid, int32_t pid, const char *comm, int kthread,
			      const struct perf_dev *devs, unsigned ndevs);
/* A comm as the table shows it, in place: a workqueue worker's "+desc"/"-desc" suffix, which
 * /proc/PID/comm appends ("kworker/u4:2+flush-7:0"), cut; ' ' and ';' (the folded stacks'
 * separators) made '_'. */
void perf_comm_clean(char *comm);

/* The accounting of one window, fed by the ring reader (and by tests with synthetic samples):
 * perf_acc_task() names a task (comm NULL or kthread -1: not known, an earlier value stays),
 * perf_acc_sample() counts one sample (chain: as PERF_SAMPLE_CALLCHAIN gives it, context
 * markers included; NULL without call chains), perf_acc_finish() attributes and symbolises
 * into a profile (totals, entries, inclusive counts, other processes, stacks; hz, ncpus, lost,
 * wall_ns and system_wide left for the caller). kind given to the symboliser: 0 kernel, 1 user
 * code of this process, 2 another process's user code. */
struct perf_acc;
typedef void perf_symbolise_fn(void *ctx, uint64_t ip, unsigned kind, char *image, size_t ilen,
			       char *sym, size_t slen);
struct perf_acc *perf_acc_new(int32_t self_pid, const char *self_comm, bool callgraph,
			      const struct perf_dev *devs, unsigned ndevs);
/* true when the task was seen or named already (the reader reads /proc once per task) */
bool perf_acc_knows(const struct perf_acc *a, int32_t pid, int32_t tid);
void perf_acc_task(struct perf_acc *a, int32_t pid, int32_t tid, const char *comm, int kthread);
void perf_acc_sample(struct perf_acc *a, int32_t pid, int32_t tid, bool kernel, uint64_t ip,
		     const uint64_t *chain, uint32_t nchain);
int perf_acc_finish(struct perf_acc *a, perf_symbolise_fn *sym, void *ctx, struct perf_profile **out);
void perf_acc_free(struct perf_acc *a);
#endif
