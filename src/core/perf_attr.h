/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Attribution: which sampled task is this run's (its own threads, the kernel threads that work
 * for it, by comm) and the accounting of one sampling window into a profile. Pure policy and
 * counting, fed by sys/perf.c's ring reader and by tests with synthetic samples. */
#ifndef FSB_CORE_PERF_ATTR_H
#define FSB_CORE_PERF_ATTR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/perf_profile.h"

#define PERF_MAX_DEVS 16
#define PERF_MAX_FRAMES 128          /* frames of a call chain kept (the reader asks for 2 fewer) */

/* A block device of the run: the kernel threads that name it (jbd2/loop0-8) are its helpers. */
struct perf_dev {
	char name[64];           /* kernel name: loop0, nvme0n1p2, dm-0, md0 */
	unsigned major, minor;   /* 0:0 when not known */
};

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
