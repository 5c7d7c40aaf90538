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
	double own_s;                /* this process's user + system CPU */
	unsigned nkt;
	struct cpuload_kt *kt;       /* kernel threads' utime + stime */
};

/* Shares of the machine's CPU capacity over the window, in %. other = busy - own - kthreads
 * (never below 0). */
struct cpuload {
	double busy_pct, own_pct, kthread_pct, other_pct;
};

int cpuload_snap(struct cpuload_snap *s);
/* The window from a to b; frees both snapshots' memory. */
void cpuload_window(struct cpuload_snap *a, struct cpuload_snap *b, struct cpuload *out);
#endif
