/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Snapshots and deltas of /proc/diskstats, /proc/stat, /proc/vmstat and /proc/meminfo. */
#include "sys/kstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"

const char *const kstat_cpu_name[KSTAT_NCPU_FIELDS] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"
};
const char *const kstat_vm_name[KSTAT_NVM_FIELDS] = {
	"pgpgin", "pgpgout", "pswpin", "pswpout", "pgfault", "pgmajfault", "nr_dirtied", "nr_written",
	"pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct", "allocstall",
	"workingset_refault_file", "nr_dirty", "nr_writeback", "nr_file_pages"
};
const char *const kstat_mem_name[KSTAT_NMEM_FIELDS] = {
	"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "Dirty", "Writeback", "Slab",
	"SReclaimable", "SUnreclaim", "Shmem"
};

/* Next line of text: returns its start and advances *p past the newline; NULL at the end. */
static const char *next_line(const char **p, size_t *len)
{
	const char *s = *p, *nl;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	*len = nl ? (size_t)(nl - s) : strlen(s);
	*p = nl ? nl + 1 : s + *len;
	return s;
}

void kstat_parse_diskstats(const char *text, struct kstat_snap *s)
{
	const char *line;
	size_t len;

	for (unsigned i = 0; i < s->ndisks; i++)
		s->disk[i].found = false;
	while ((line = next_line(&text, &len))) {
		char buf[512], name[KSTAT_NAME_MAX];
		unsigned long long v[11];
		unsigned maj, min;

		if (len >= sizeof(buf))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		/* 14 fields since 2.6; 4.18 added discards, 5.5 flushes: the first 14 are stable */
		if (sscanf(buf, "%u %u %63s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &maj, &min,
			   name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
			   &v[10]) != 14)
			continue;
		for (unsigned i = 0; i < s->ndisks; i++) {
			struct kstat_disk *d = &s->disk[i];

			if (strcmp(d->name, name))
				continue;
			d->found = true;
			d->rd_ios = v[0], d->rd_merges = v[1], d->rd_sectors = v[2], d->rd_ms = v[3];
			d->wr_ios = v[4], d->wr_merges = v[5], d->wr_sectors = v[6], d->wr_ms = v[7];
			d->in_flight = v[8], d->io_ms = v[9], d->queue_ms = v[10];
		}
	}
	s->have_diskstats = true;
}

void kstat_parse_stat(const char *text, struct kstat_snap *s)
{
	const char *line;
	size_t len;

	s->ncpus = 0;
	while ((line = next_line(&text, &len))) {
		unsigned long long v[KSTAT_NCPU_FIELDS] = { 0 };
		char buf[512];
		int n;

		if (len >= sizeof(buf) || strncmp(line, "cpu", 3))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		if (buf[3] >= '0' && buf[3] <= '9') {
			s->ncpus++;
			continue;
		}
		/* old kernels stop after irq/softirq; missing fields stay 0 */
		n = sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7]);
		if (n < 4)
			continue;
		for (int i = 0; i < KSTAT_NCPU_FIELDS; i++)
			s->cpu_ticks[i] = v[i];
		s->have_stat = true;
	}
}

void kstat_parse_vmstat(const char *text, struct kstat_snap *s)
{
	const char *line;
	size_t len;

	memset(s->vm, 0, sizeof(s->vm));
	while ((line = next_line(&text, &len))) {
		char key[64];
		unsigned long long v;
		char buf[128];

		if (len >= sizeof(buf))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		if (sscanf(buf, "%63s %llu", key, &v) != 2)
			continue;
		/* 4.x+ split allocstall per zone (allocstall_normal, _movable, ...): sum them */
		if (!strncmp(key, "allocstall", 10)) {
			s->vm[KSTAT_ALLOCSTALL] += v;
			continue;
		}
		/* before 4.20 there was one workingset_refault */
		if (!strcmp(key, "workingset_refault"))
			strcpy(key, "workingset_refault_file");
		for (int i = 0; i < KSTAT_NVM_FIELDS; i++)
			if (i != KSTAT_ALLOCSTALL && !strcmp(key, kstat_vm_name[i]))
				s->vm[i] = v;
	}
	s->have_vmstat = true;
}

void kstat_parse_meminfo(const char *text, struct kstat_snap *s)
{
	const char *line;
	size_t len;

	memset(s->mem, 0, sizeof(s->mem));
	while ((line = next_line(&text, &len))) {
		char key[64], buf[128];
		unsigned long long v;

		if (len >= sizeof(buf))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		if (sscanf(buf, "%63[^:]: %llu", key, &v) != 2)
			continue;
		for (int i = 0; i < KSTAT_NMEM_FIELDS; i++)
			if (!strcmp(key, kstat_mem_name[i]))
				s->mem[i] = v * 1024;    /* every field we keep is in kB */
	}
	s->have_meminfo = true;
}

/* the whole of a small /proc file, NUL-terminated, into buf; 0 or -errno */
static int slurp(const char *path, char *buf, size_t len)
{
	size_t at = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (at + 1 < len) {
		ssize_t n = read(fd, buf + at, len - 1 - at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		at += (size_t)n;
	}
	buf[at] = '\0';
	close(fd);
	return 0;
}

/* /proc/stat has one line per CPU and interrupt counts: 256 KiB is enough for thousands of CPUs */
#define KSTAT_BUF (256 * 1024)

static int snap(struct kstat_snap *s, bool disks_first)
{
	char *buf = malloc(KSTAT_BUF);

	if (!buf)
		return -ENOMEM;
	s->have_stat = s->have_vmstat = s->have_meminfo = s->have_diskstats = false;
	/* the device counters are the ones that must match the window: read them closest to it */
	if (disks_first) {
		s->t_ns = clock_ns();
		if (s->ndisks && !slurp("/proc/diskstats", buf, KSTAT_BUF))
			kstat_parse_diskstats(buf, s);
	}
	if (!slurp("/proc/stat", buf, KSTAT_BUF))
		kstat_parse_stat(buf, s);
	if (!slurp("/proc/vmstat", buf, KSTAT_BUF))
		kstat_parse_vmstat(buf, s);
	if (!slurp("/proc/meminfo", buf, KSTAT_BUF))
		kstat_parse_meminfo(buf, s);
	if (!disks_first) {
		if (s->ndisks && !slurp("/proc/diskstats", buf, KSTAT_BUF))
			kstat_parse_diskstats(buf, s);
		s->t_ns = clock_ns();
	}
	free(buf);
	return 0;
}

int kstat_begin(struct kstat_snap *s, const char *const *devs, unsigned ndevs, unsigned nprimary)
{
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < ndevs; i++) {
		unsigned j;

		for (j = 0; j < s->ndisks; j++)
			if (!strcmp(s->disk[j].name, devs[i]))
				break;
		if (j < s->ndisks) {
			s->disk[j].primary |= i < nprimary;
			continue;
		}
		if (s->ndisks == KSTAT_MAX_DISKS)
			return -EINVAL;
		snprintf(s->disk[s->ndisks].name, KSTAT_NAME_MAX, "%s", devs[i]);
		s->disk[s->ndisks++].primary = i < nprimary;
	}
	return snap(s, false);
}

int kstat_end(const struct kstat_snap *begin, struct kstat_delta *d)
{
	struct kstat_snap *now = malloc(sizeof(*now));
	long hz = sysconf(_SC_CLK_TCK);
	int rc;

	if (!now)
		return -ENOMEM;
	memcpy(now->disk, begin->disk, sizeof(now->disk));
	now->ndisks = begin->ndisks;
	rc = snap(now, true);
	if (!rc)
		kstat_delta(begin, now, hz > 0 ? hz : 100, d);
	free(now);
	return rc;
}

/* counters only grow; a decrease (device re-created, 32-bit wrap on old kernels) gives 0 */
static uint64_t sub(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

void kstat_delta(const struct kstat_snap *a, const struct kstat_snap *b, long user_hz,
		 struct kstat_delta *d)
{
	double wall_s, total = 0;

	memset(d, 0, sizeof(*d));
	d->wall_ns = sub(a->t_ns, b->t_ns);
	wall_s = (double)d->wall_ns / 1e9;
	d->ndisks = a->ndisks;
	for (unsigned i = 0; i < a->ndisks; i++) {
		const struct kstat_disk *x = &a->disk[i], *y = &b->disk[i];
		struct kstat_disk_delta *o = &d->disk[i];

		snprintf(o->name, sizeof(o->name), "%s", x->name);
		o->primary = x->primary;
		o->found = x->found && y->found && a->have_diskstats && b->have_diskstats;
		if (!o->found)
			continue;
		o->rd_ios = sub(x->rd_ios, y->rd_ios);
		o->rd_merges = sub(x->rd_merges, y->rd_merges);
		o->rd_bytes = sub(x->rd_sectors, y->rd_sectors) * 512;   /* always 512-byte units */
		o->wr_ios = sub(x->wr_ios, y->wr_ios);
		o->wr_merges = sub(x->wr_merges, y->wr_merges);
		o->wr_bytes = sub(x->wr_sectors, y->wr_sectors) * 512;
		o->io_ms = sub(x->io_ms, y->io_ms);
		o->queue_ms = sub(x->queue_ms, y->queue_ms);
		if (wall_s > 0) {
			o->util_pct = 100.0 * (double)o->io_ms / 1e3 / wall_s;
			if (o->util_pct > 100)
				o->util_pct = 100;   /* io_ticks is sampled at jiffy granularity */
			o->avg_queue = (double)o->queue_ms / 1e3 / wall_s;
			o->rd_mib_s = (double)o->rd_bytes / 1048576.0 / wall_s;
			o->wr_mib_s = (double)o->wr_bytes / 1048576.0 / wall_s;
		}
		o->avg_rd_bytes = o->rd_ios ? (double)o->rd_bytes / (double)o->rd_ios : 0;
		o->avg_wr_bytes = o->wr_ios ? (double)o->wr_bytes / (double)o->wr_ios : 0;
	}
	d->have_cpu = a->have_stat && b->have_stat;
	d->ncpus = b->ncpus;
	if (d->have_cpu) {
		for (int i = 0; i < KSTAT_NCPU_FIELDS; i++) {
			d->cpu_s[i] = (double)sub(a->cpu_ticks[i], b->cpu_ticks[i]) / (double)user_hz;
			total += d->cpu_s[i];
		}
		/* of the ticks the kernel accounted, not of wall x CPUs: the two differ by a tick or
		 * so per CPU, and the split then adds up to 100 */
		for (int i = 0; i < KSTAT_NCPU_FIELDS; i++)
			d->cpu_pct[i] = total > 0 ? 100.0 * d->cpu_s[i] / total : 0;
	}
	d->have_vm = a->have_vmstat && b->have_vmstat;
	if (d->have_vm)
		for (int i = 0; i < KSTAT_NVM_FIELDS; i++) {
			if (i >= KSTAT_VM_FIRST_GAUGE) {
				d->vm_begin[i] = a->vm[i];
				d->vm[i] = b->vm[i];
			} else {
				d->vm[i] = sub(a->vm[i], b->vm[i]);
			}
		}
	d->have_mem = a->have_meminfo && b->have_meminfo;
	if (d->have_mem) {
		memcpy(d->mem_begin, a->mem, sizeof(d->mem_begin));
		memcpy(d->mem_end, b->mem, sizeof(d->mem_end));
	}
}

uint64_t kstat_read_bytes(const struct kstat_delta *d)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < d->ndisks; i++)
		if (d->disk[i].primary)
			n += d->disk[i].rd_bytes;
	return n;
}

uint64_t kstat_write_bytes(const struct kstat_delta *d)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < d->ndisks; i++)
		if (d->disk[i].primary)
			n += d->disk[i].wr_bytes;
	return n;
}
