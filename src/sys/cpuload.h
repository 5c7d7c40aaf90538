/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who used the CPU during a run: the whole machine (/proc/stat), fsbench itself (its rusage),
 * kernel threads (their /proc/PID/stat times: writeback, the loop device's work, filesystem
 * workers, much of it on fsbench's behalf), and what is left: other processes. A run that
 * shared the machine with a busy neighbour measured the neighbour too; the experiment runner
 * records this per run and flags runs above a threshold. */
#ifndef FSB_SYS_CPULOAD_H
#define FSB_SYS_CPULOAD_H
#include <stdint.h>
#include <sys/types.h>

struct cpuload_kt {
	pid_t pid;
	uint64_t ticks;
};

struct cpuload_snap {
	uint64_t busy;               /* /proc/stat user + nice + system, all CPUs, in ticks */
	uint64_t total;              /* every field: the capacity over the window */
	uint64_t steal;              /* steal: taken by the hypervisor for other guests */
	double own_s;                /* this process's user + system CPU, and its waited-for
				      * children's (an MPI launcher, its ranks and their helpers) */
	unsigned nkt;
	struct cpuload_kt *kt;       /* kernel threads' utime + stime */
};

/* Shares of the machine's CPU capacity over the window, in %. other = busy - own - kthreads
 * (never below 0). steal: of the capacity, what the hypervisor gave other guests. */
struct cpuload {
	double busy_pct, own_pct, kthread_pct, other_pct, steal_pct;
};

int cpuload_snap(struct cpuload_snap *s);
/* /proc/stat's first line ("cpu  user nice system idle iowait irq softirq steal ...") into s's
 * busy, total and steal. 0, or -EIO when it is not such a line. */
int cpuload_parse_stat(const char *text, struct cpuload_snap *s);
/* The window from a to b; frees both snapshots' memory. */
void cpuload_window(struct cpuload_snap *a, struct cpuload_snap *b, struct cpuload *out);
#endif
