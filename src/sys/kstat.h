/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the kernel did during a window, system-wide: /proc/diskstats for a set of devices,
 * /proc/stat's CPU split, /proc/vmstat and /proc/meminfo. kstat_begin() snapshots right before
 * the window, kstat_end() right after and computes the delta.
 *
 * Derived figures follow iostat -x: utilisation = io_ticks / wall (the share of time the device
 * had I/O in flight; for devices serving requests in parallel it says "busy", not "saturated"),
 * average queue size = time_in_queue / wall, average request size = sectors * 512 / requests.
 * CPU figures are system-wide (all CPUs, every process), in seconds and in % of the capacity
 * (CPUs x wall). Counters are deltas; gauges (dirty pages, Slab, ...) are kept at both ends. */
#ifndef FSB_SYS_KSTAT_H
#define FSB_SYS_KSTAT_H
#include <stdbool.h>
#include <stdint.h>

#define KSTAT_MAX_DISKS 16
#define KSTAT_NAME_MAX 64

/* one /proc/diskstats line (fields 4..14; times in ms) */
struct kstat_disk {
	char name[KSTAT_NAME_MAX];
	bool found;
	bool primary;                        /* a filesystem's own device (see kstat_begin) */
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ms;
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ms;
	uint64_t in_flight, io_ms, queue_ms;
};

enum kstat_cpu_field {
	KSTAT_USER, KSTAT_NICE, KSTAT_SYSTEM, KSTAT_IDLE, KSTAT_IOWAIT, KSTAT_IRQ, KSTAT_SOFTIRQ,
	KSTAT_STEAL, KSTAT_NCPU_FIELDS
};
extern const char *const kstat_cpu_name[KSTAT_NCPU_FIELDS];   /* "user", "nice", ... */

/* /proc/vmstat counters (deltas) and gauges (kept at both ends) */
enum kstat_vm_field {
	KSTAT_PGPGIN, KSTAT_PGPGOUT, KSTAT_PSWPIN, KSTAT_PSWPOUT, KSTAT_PGFAULT, KSTAT_PGMAJFAULT,
	KSTAT_NR_DIRTIED, KSTAT_NR_WRITTEN, KSTAT_PGSCAN_KSWAPD, KSTAT_PGSCAN_DIRECT,
	KSTAT_PGSTEAL_KSWAPD, KSTAT_PGSTEAL_DIRECT, KSTAT_ALLOCSTALL, KSTAT_WORKINGSET_REFAULT_FILE,
	KSTAT_NR_DIRTY, KSTAT_NR_WRITEBACK, KSTAT_NR_FILE_PAGES, KSTAT_NVM_FIELDS
};
#define KSTAT_VM_FIRST_GAUGE KSTAT_NR_DIRTY
extern const char *const kstat_vm_name[KSTAT_NVM_FIELDS];

/* /proc/meminfo, bytes: all gauges */
enum kstat_mem_field {
	KSTAT_MEMTOTAL, KSTAT_MEMFREE, KSTAT_MEMAVAILABLE, KSTAT_BUFFERS, KSTAT_CACHED, KSTAT_DIRTY,
	KSTAT_WRITEBACK, KSTAT_SLAB, KSTAT_SRECLAIMABLE, KSTAT_SUNRECLAIM, KSTAT_SHMEM, KSTAT_NMEM_FIELDS
};
extern const char *const kstat_mem_name[KSTAT_NMEM_FIELDS];   /* "MemTotal", ... */

struct kstat_snap {
	uint64_t t_ns;                       /* CLOCK_MONOTONIC when taken */
	unsigned ndisks;
	struct kstat_disk disk[KSTAT_MAX_DISKS];
	uint64_t cpu_ticks[KSTAT_NCPU_FIELDS];   /* the "cpu" line, USER_HZ ticks */
	unsigned ncpus;                      /* "cpuN" lines */
	uint64_t vm[KSTAT_NVM_FIELDS];
	uint64_t mem[KSTAT_NMEM_FIELDS];
	bool have_stat, have_vmstat, have_meminfo, have_diskstats;
};

struct kstat_disk_delta {
	char name[KSTAT_NAME_MAX];
	bool found;                          /* the device was in /proc/diskstats at both ends */
	bool primary;
	uint64_t rd_ios, rd_merges, rd_bytes, wr_ios, wr_merges, wr_bytes, io_ms, queue_ms;
	double util_pct, avg_queue, avg_rd_bytes, avg_wr_bytes;
	double rd_mib_s, wr_mib_s;
};

struct kstat_delta {
	uint64_t wall_ns;
	unsigned ndisks;
	struct kstat_disk_delta disk[KSTAT_MAX_DISKS];
	bool have_cpu, have_vm, have_mem;
	unsigned ncpus;
	double cpu_s[KSTAT_NCPU_FIELDS];     /* seconds summed over all CPUs */
	double cpu_pct[KSTAT_NCPU_FIELDS];   /* % of all CPUs' time */
	uint64_t vm[KSTAT_NVM_FIELDS];       /* counters: delta; gauges: value at the end */
	uint64_t vm_begin[KSTAT_NVM_FIELDS]; /* gauges at the beginning (counters: 0) */
	uint64_t mem_begin[KSTAT_NMEM_FIELDS], mem_end[KSTAT_NMEM_FIELDS];
};

/* Snapshot now. devs: kernel names as in /proc/diskstats (repeats are kept once); the first
 * nprimary are the filesystems' own devices, which kstat_*_bytes() total (the rest, disks under
 * dm or md, would count the same I/O twice). A missing /proc file leaves its part out (have_*
 * false). Returns 0, or -EINVAL for more than KSTAT_MAX_DISKS devices. */
int kstat_begin(struct kstat_snap *s, const char *const *devs, unsigned ndevs, unsigned nprimary);
/* Snapshot the same devices now and compute the delta from begin. */
int kstat_end(const struct kstat_snap *begin, struct kstat_delta *d);

/* The pieces, for tests: parse /proc text into s (the devices listed in s->disk[].name),
 * and compute a delta of two snapshots. */
void kstat_parse_diskstats(const char *text, struct kstat_snap *s);
void kstat_parse_stat(const char *text, struct kstat_snap *s);
void kstat_parse_vmstat(const char *text, struct kstat_snap *s);
void kstat_parse_meminfo(const char *text, struct kstat_snap *s);
void kstat_delta(const struct kstat_snap *a, const struct kstat_snap *b, long user_hz,
		 struct kstat_delta *d);
/* Device totals over the primary devices (for warnings). */
uint64_t kstat_read_bytes(const struct kstat_delta *d);
uint64_t kstat_write_bytes(const struct kstat_delta *d);
#endif
