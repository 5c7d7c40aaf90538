/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf_event_open sampling: events, ring buffers, the reader thread and symbolisation (design
 * in perf.h); what each sample counts for is core/perf_attr's, the profile core/perf_profile's. */
#include "sys/perf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/testhook.h"
#include "sys/ksyms.h"

#define PERF_MAX_CPUS 1024
#define PF_KTHREAD_FLAG 0x00200000ul         /* include/linux/sched.h PF_KTHREAD */

struct ring {
	int fd;
	void *base;                          /* metadata page + data */
	size_t map_len;
	unsigned char *data;
	uint64_t size;                       /* data bytes, a power of two */
};

struct perf_session {
	struct perf_config c;
	bool system_wide;
	unsigned nrings;
	struct ring ring[PERF_MAX_CPUS];
	struct ksyms kernel, self;
	bool have_self;
	pid_t pid;
	char comm[32];                       /* this process's, the app name of its rows */
	pthread_t reader;
	bool reader_running;
	int wake[2];                         /* pipe: tells the reader to stop */
	unsigned char *rec;                  /* one record copied out of a wrapped ring */
	struct perf_acc *acc;                /* the open window's samples */
	uint64_t lost;
	uint64_t begin_ns, end_ns;
};

/* A small /proc file into buf (NUL-terminated); bytes read, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* A task's comm (or "") and whether it is a kernel thread (1, 0, -1 when gone). */
static int read_task(int32_t pid, int32_t tid, char *comm, size_t len)
{
	char path[64], stat[1024], *q;
	unsigned long flags;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (read_small(path, comm, len) <= 0)
		comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	/* the name in stat is in parentheses and may hold anything: the fields follow the last
	 * ')'; flags is the 9th, the 7th after it */
	if (read_small(path, stat, sizeof(stat)) <= 0 || !(q = strrchr(stat, ')')) ||
	    sscanf(q + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return -1;
	return (flags & PF_KTHREAD_FLAG) != 0;
}

/* Names a task the first time it is sampled, and its process's leader, whose name its
 * line under the table carries. Runs in the reader thread during the window, when even a
 * short-lived task is most likely still there. */
static void learn_task(struct perf_session *s, int32_t pid, int32_t tid)
{
	char comm[64];
	int kt = read_task(pid, tid, comm, sizeof(comm));

	perf_acc_task(s->acc, pid, tid, comm, kt);
	if (pid != tid && !perf_acc_knows(s->acc, pid, pid)) {
		kt = read_task(pid, pid, comm, sizeof(comm));
		perf_acc_task(s->acc, pid, pid, comm, kt);
	}
}

/* One PERF_RECORD_SAMPLE laid out as sample_type asks: ip, pid/tid, cpu, [callchain]. */
static void on_sample(struct perf_session *s, const unsigned char *r, size_t len, uint16_t misc)
{
	const unsigned char *p = r + sizeof(struct perf_event_header), *end = r + len;
	uint64_t ip, nr = 0, f[PERF_MAX_FRAMES];
	uint32_t pid, tid, n = 0;
	bool kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

	if (p + 24 > end)
		return;
	memcpy(&ip, p, 8);
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	p += 24;                             /* ip, pid+tid, cpu+res */
	if (s->c.callgraph && p + 8 <= end) {
		memcpy(&nr, p, 8);
		p += 8;
	}
	for (uint64_t i = 0; i < nr && p + 8 <= end && n < PERF_MAX_FRAMES; i++, p += 8)
		memcpy(&f[n++], p, 8);
	if (!perf_acc_knows(s->acc, (int32_t)pid, (int32_t)tid))
		learn_task(s, (int32_t)pid, (int32_t)tid);
	perf_acc_sample(s->acc, (int32_t)pid, (int32_t)tid, kernel, ip, s->c.callgraph ? f : NULL, n);
}

/* PERF_RECORD_COMM: pid, tid, the new name. An exec (misc COMM_EXEC) makes a user process;
 * a rename (prctl, a new kworker naming itself) may be either, which stat says. */
static void on_comm(struct perf_session *s, const unsigned char *r, size_t len, uint16_t misc)
{
	const unsigned char *p = r + sizeof(struct perf_event_header);
	size_t max = len - sizeof(struct perf_event_header) - 8;
	uint32_t pid, tid;
	char comm[32], ignored[64];

	memcpy(&pid, p, 4);
	memcpy(&tid, p + 4, 4);
	snprintf(comm, sizeof(comm), "%.*s", (int)(max < sizeof(comm) - 1 ? max : sizeof(comm) - 1),
		 (const char *)p + 8);
	if (pid == 0 || pid == (uint32_t)s->pid)
		return;
	perf_acc_task(s->acc, (int32_t)pid, (int32_t)tid, comm,
		      (misc & PERF_RECORD_MISC_COMM_EXEC) ? 0 :
		      read_task((int32_t)pid, (int32_t)tid, ignored, sizeof(ignored)));
}

/* Consumes everything between data_tail and data_head. A record may wrap around the end of
 * the buffer: it is copied out first. */
static void drain(struct perf_session *s, struct ring *rg)
{
	struct perf_event_mmap_page *meta = rg->base;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t off = tail & (rg->size - 1);
		const unsigned char *r;

		if (off + sizeof(h) <= rg->size) {
			memcpy(&h, rg->data + off, sizeof(h));
		} else {
			size_t first = (size_t)(rg->size - off);

			memcpy(&h, rg->data + off, first);
			memcpy((unsigned char *)&h + first, rg->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (off + h.size <= rg->size) {
			r = rg->data + off;
		} else {
			size_t first = (size_t)(rg->size - off);

			memcpy(s->rec, rg->data + off, first);
			memcpy(s->rec + first, rg->data, h.size - first);
			r = s->rec;
		}
		if (h.type == PERF_RECORD_SAMPLE) {
			on_sample(s, r, h.size, h.misc);
		} else if (h.type == PERF_RECORD_COMM && h.size > sizeof(h) + 8) {
			on_comm(s, r, h.size, h.misc);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, r + sizeof(h) + 8, 8);
			s->lost += lost;
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void *reader_main(void *arg)
{
	struct perf_session *s = arg;
	struct pollfd pf[PERF_MAX_CPUS + 1];

	for (unsigned i = 0; i < s->nrings; i++)
		pf[i] = (struct pollfd){ .fd = s->ring[i].fd, .events = POLLIN };
	pf[s->nrings] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
	for (;;) {
		/* 50 ms, not only at the watermark: a task is named when first sampled, and a
		 * short-lived one (a dd in a shell loop) may be gone soon after */
		int n = poll(pf, s->nrings + 1, 50);

		if (n < 0 && errno != EINTR)
			break;
		for (unsigned i = 0; i < s->nrings; i++)
			drain(s, &s->ring[i]);
		if (n > 0 && (pf[s->nrings].revents & POLLIN))
			break;
	}
	return NULL;
}

static long perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static long read_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "re");
	long v = dflt;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

static void close_rings(struct perf_session *s)
{
	for (unsigned i = 0; i < s->nrings; i++) {
		if (s->ring[i].base)
			munmap(s->ring[i].base, s->ring[i].map_len);
		close(s->ring[i].fd);
	}
	s->nrings = 0;
}

/* one event per CPU, pid -1 (system-wide) or this process with inherit */
static int open_rings(struct perf_session *s, bool system_wide)
{
	long page = sysconf(_SC_PAGESIZE);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	/* 256 KiB per CPU holds 8000 samples without chains; chains are ~10x bigger */
	size_t pages = (s->c.callgraph ? (1u << 20) : (256u << 10)) / (size_t)page;
	struct perf_event_attr a;
	int err = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = s->c.hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
	if (s->c.callgraph) {
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		/* kernel chains only: user stacks without frame pointers would be noise */
		a.exclude_callchain_user = 1;
		a.sample_max_stack = PERF_MAX_FRAMES - 2;
	}
	/* task names as they change in the window: exec'd and renamed tasks (see perf.h) */
	a.comm = 1;
	a.comm_exec = 1;
	a.disabled = 1;
	a.exclude_idle = system_wide;
	a.inherit = !system_wide;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(pages * (size_t)page / 4);
	if (ncpu < 1 || ncpu > PERF_MAX_CPUS)
		ncpu = ncpu < 1 ? 1 : PERF_MAX_CPUS;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		long fd = perf_event_open(&a, system_wide ? -1 : s->pid, cpu);
		struct ring *rg = &s->ring[s->nrings];

		if (fd < 0) {
			/* an offline CPU is not an error; anything else is */
			if (errno == ENODEV || errno == ENXIO)
				continue;
			err = -errno;
			break;
		}
		rg->fd = (int)fd;
		rg->size = (uint64_t)pages * (uint64_t)page;
		rg->map_len = (pages + 1) * (size_t)page;
		rg->base = mmap(NULL, rg->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, rg->fd, 0);
		if (rg->base == MAP_FAILED) {
			err = -errno;
			rg->base = NULL;
			close(rg->fd);
			break;
		}
		rg->data = (unsigned char *)rg->base + page;
		s->nrings++;
	}
	if (!err && !s->nrings)
		err = -ENODEV;
	if (err)
		close_rings(s);
	return err;
}

static int load_self(struct perf_session *s)
{
	struct kmaps m;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int rc = -ENOENT;

	if (n <= 0 || kmaps_load_self(&m))
		return -ENOENT;
	exe[n] = '\0';
	for (size_t i = 0; i < m.n; i++) {
		uint64_t bias;

		if (strcmp(m.v[i].path, exe))
			continue;
		if (!ksyms_elf_bias("/proc/self/exe", m.v[i].start, m.v[i].offset, &bias))
			rc = ksyms_load_elf(&s->self, "/proc/self/exe", bias, "fsbench");
		break;
	}
	kmaps_free(&m);
	if (!rc)
		ksyms_sort(&s->self);
	return rc;
}

int perf_open(struct perf_session **out, const struct perf_config *c, char *why, size_t whylen)
{
	struct perf_session *s = calloc(1, sizeof(*s));
	const char *scope = getenv("FSBENCH_PROFILE_SCOPE");
	const char *deny = testhook_env("FSBENCH_PROFILE_FORCE_DENY");
	long paranoid = read_long("/proc/sys/kernel/perf_event_paranoid", -99);
	int rc;

	*out = NULL;
	if (!s || !(s->rec = malloc(1 << 16))) {
		free(s);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	s->c = *c;
	s->pid = getpid();
	if (read_small("/proc/self/comm", s->comm, sizeof(s->comm)) <= 0)
		snprintf(s->comm, sizeof(s->comm), "fsbench");
	perf_comm_clean(s->comm);
	s->wake[0] = s->wake[1] = -1;
	if (deny && *deny && strcmp(deny, "0")) {
		rc = -EACCES;
	} else {
		rc = -EACCES;
		if (!scope || strcmp(scope, "process"))
			rc = open_rings(s, true);
		if (rc == -EACCES || rc == -EPERM)
			rc = open_rings(s, false);
		else if (!rc)
			s->system_wide = true;
	}
	if (rc == -EACCES || rc == -EPERM) {
		snprintf(why, whylen, "perf_event_open is not permitted (kernel.perf_event_paranoid is %ld; "
			 "kernel sampling needs it at 1 or lower, e.g. 'sysctl kernel.perf_event_paranoid=1', "
			 "or CAP_PERFMON)%s", paranoid, deny && *deny && strcmp(deny, "0") ?
			 testhook_str(" [FSBENCH_PROFILE_FORCE_DENY]") : "");
		goto fail;
	}
	if (rc == -EINVAL && c->hz > (unsigned long)read_long("/proc/sys/kernel/perf_event_max_sample_rate", LONG_MAX)) {
		snprintf(why, whylen, "%u Hz is above kernel.perf_event_max_sample_rate (%ld): use a lower "
			 "--profile-hz", c->hz, read_long("/proc/sys/kernel/perf_event_max_sample_rate", 0));
		goto fail;
	}
	if (rc) {
		snprintf(why, whylen, "perf_event_open (cpu-clock) failed: %s", strerror(-rc));
		goto fail;
	}
	rc = ksyms_load_kernel(&s->kernel);
	if (rc || s->kernel.restricted) {
		if (rc)
			snprintf(why, whylen, "cannot read /proc/kallsyms: %s", strerror(-rc));
		else
			snprintf(why, whylen, "/proc/kallsyms shows no addresses (kernel.kptr_restrict is %ld; "
				 "set it to 0, or 1 and run as root)",
				 read_long("/proc/sys/kernel/kptr_restrict", -1));
		rc = rc ? rc : -EACCES;
		goto fail;
	}
	/* fsbench without a symbol table (stripped) still profiles, grouped by mapping */
	s->have_self = load_self(s) == 0;
	if (pipe2(s->wake, O_CLOEXEC) < 0) {
		rc = -errno;
		snprintf(why, whylen, "pipe: %s", strerror(-rc));
		goto fail;
	}
	*out = s;
	return 0;
fail:
	perf_close(s);
	return rc;
}

int perf_begin(struct perf_session *s)
{
	int rc;

	perf_acc_free(s->acc);
	if (!(s->acc = perf_acc_new(s->pid, s->comm, s->c.callgraph, s->c.devs, s->c.ndevs)))
		return -ENOMEM;
	s->lost = 0;
	for (unsigned i = 0; i < s->nrings; i++) {
		struct perf_event_mmap_page *meta = s->ring[i].base;

		/* skip whatever an earlier window left */
		__atomic_store_n(&meta->data_tail, __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
	rc = pthread_create(&s->reader, NULL, reader_main, s);
	if (rc)
		return -rc;
	s->reader_running = true;
	s->end_ns = 0;
	s->begin_ns = clock_ns();
	for (unsigned i = 0; i < s->nrings; i++)
		ioctl(s->ring[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	return 0;
}

/* (image, symbol) of one address */
struct symctx {
	const struct perf_session *s;
	const struct kmaps *m;
};

static void symbolise(void *arg, uint64_t ip, unsigned kind, char *image, size_t ilen, char *sym,
		      size_t slen)
{
	const struct symctx *c = arg;
	const struct perf_session *s = c->s;
	const struct kmaps *m = c->m;
	const struct ksym *k;
	const struct kmap *map;

	if (kind == 0) {
		k = ksyms_find(&s->kernel, ip);
		if (!k) {
			snprintf(image, ilen, "vmlinux");
			snprintf(sym, slen, "[unknown]");
		} else {
			const char *img = ksym_image(&s->kernel, k);

			/* modules as oprofile and perf show them */
			if (strcmp(img, "vmlinux"))
				snprintf(image, ilen, "[%s]", img);
			else
				snprintf(image, ilen, "vmlinux");
			snprintf(sym, slen, "%s", ksym_name(&s->kernel, k));
		}
		return;
	}
	if (kind == 1 && s->have_self && (k = ksyms_find(&s->self, ip))) {
		snprintf(image, ilen, "fsbench");
		snprintf(sym, slen, "%s", ksym_name(&s->self, k));
		return;
	}
	if (kind == 1 && (map = kmaps_find(m, ip))) {
		const char *b = strrchr(map->path, '/');

		b = b ? b + 1 : map->path;
		snprintf(image, ilen, "%.60s", *b ? b : "[anon]");
		snprintf(sym, slen, "[%.120s]", *b ? b : "anon");
		return;
	}
	/* another process's user code: its maps are not ours to read reliably (and its samples
	 * are not in the table) */
	snprintf(image, ilen, "[unknown]");
	snprintf(sym, slen, "[unknown]");
}

void perf_stop(struct perf_session *s)
{
	for (unsigned i = 0; i < s->nrings; i++)
		ioctl(s->ring[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	if (s->begin_ns && !s->end_ns)
		s->end_ns = clock_ns();
}

int perf_end(struct perf_session *s, struct perf_profile **out)
{
	struct perf_profile *p;
	struct kmaps m = { 0 };
	struct symctx sc = { .s = s, .m = &m };
	char c = 1;
	int rc;

	*out = NULL;
	perf_stop(s);
	if (!s->reader_running)
		return -EINVAL;
	if (write(s->wake[1], &c, 1) != 1)
		return -errno;
	pthread_join(s->reader, NULL);
	s->reader_running = false;
	if (read(s->wake[0], &c, 1) != 1)
		return -errno;
	for (unsigned i = 0; i < s->nrings; i++)
		drain(s, &s->ring[i]);
	kmaps_load_self(&m);
	rc = perf_acc_finish(s->acc, symbolise, &sc, &p);
	kmaps_free(&m);
	perf_acc_free(s->acc);
	s->acc = NULL;
	if (rc)
		return rc;
	p->system_wide = s->system_wide;
	p->hz = s->c.hz;
	p->ncpus = s->nrings;
	p->lost = s->lost;
	p->wall_ns = s->end_ns - s->begin_ns;
	*out = p;
	return 0;
}

void perf_close(struct perf_session *s)
{
	struct perf_profile *p;

	if (!s)
		return;
	if (s->reader_running && !perf_end(s, &p))
		perf_profile_free(p);
	close_rings(s);
	ksyms_free(&s->kernel);
	ksyms_free(&s->self);
	perf_acc_free(s->acc);
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	free(s->rec);
	free(s);
}
