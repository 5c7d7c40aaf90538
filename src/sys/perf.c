/* perf_event_open sampling: events, ring buffers, the reader thread, aggregation and
 * symbolisation into a per-window profile (design in perf.h). */
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
#include "sys/ksyms.h"

#define PERF_MAX_CPUS 1024
#define MAX_FRAMES 128

struct ring {
	int fd;
	void *base;                          /* metadata page + data */
	size_t map_len;
	unsigned char *data;
	uint64_t size;                       /* data bytes, a power of two */
};

/* one distinct sampled address: kind 0 kernel, 1 user code of this process, 2 user code of
 * another process (not symbolised) */
struct ipent {
	uint64_t ip;
	uint32_t kind, used;
	uint64_t count;
};

/* one distinct call chain (as the kernel gave it, context markers included) of one process */
struct stkent {
	uint64_t hash;
	uint32_t off, len;
	int32_t pid;
	uint32_t used;
	uint64_t count;
};

struct agg {
	struct ipent *ip;
	size_t ipcap, ipn;
	struct stkent *st;
	size_t stcap, stn;
	uint64_t *frames;
	size_t nframes, framecap;
	uint64_t samples, lost, oom;
};

struct perf_session {
	struct perf_config c;
	bool system_wide;
	unsigned nrings;
	struct ring ring[PERF_MAX_CPUS];
	struct ksyms kernel, self;
	bool have_self;
	pid_t pid;
	pthread_t reader;
	bool reader_running;
	int wake[2];                         /* pipe: tells the reader to stop */
	unsigned char *rec;                  /* one record copied out of a wrapped ring */
	struct agg agg;
	uint64_t begin_ns, end_ns;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return x;
}

static int ip_grow(struct agg *a)
{
	size_t cap = a->ipcap ? a->ipcap * 2 : 4096;
	struct ipent *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < a->ipcap; i++) {
		size_t j;

		if (!a->ip[i].used)
			continue;
		for (j = mix(a->ip[i].ip ^ a->ip[i].kind) & (cap - 1); v[j].used; j = (j + 1) & (cap - 1))
			;
		v[j] = a->ip[i];
	}
	free(a->ip);
	a->ip = v;
	a->ipcap = cap;
	return 0;
}

static void ip_add(struct agg *a, uint64_t ip, uint32_t kind)
{
	size_t j;

	if (a->ipn * 2 >= a->ipcap && ip_grow(a)) {
		a->oom++;
		return;
	}
	for (j = mix(ip ^ kind) & (a->ipcap - 1); a->ip[j].used; j = (j + 1) & (a->ipcap - 1))
		if (a->ip[j].ip == ip && a->ip[j].kind == kind) {
			a->ip[j].count++;
			return;
		}
	a->ip[j] = (struct ipent){ .ip = ip, .kind = kind, .used = 1, .count = 1 };
	a->ipn++;
}

static int st_grow(struct agg *a)
{
	size_t cap = a->stcap ? a->stcap * 2 : 1024;
	struct stkent *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < a->stcap; i++) {
		size_t j;

		if (!a->st[i].used)
			continue;
		for (j = a->st[i].hash & (cap - 1); v[j].used; j = (j + 1) & (cap - 1))
			;
		v[j] = a->st[i];
	}
	free(a->st);
	a->st = v;
	a->stcap = cap;
	return 0;
}

static void st_add(struct agg *a, const uint64_t *f, uint32_t n, int32_t pid)
{
	uint64_t h = mix((uint64_t)pid + n);
	size_t j;

	for (uint32_t i = 0; i < n; i++)
		h = mix(h ^ f[i]) + i;
	if (a->stn * 2 >= a->stcap && st_grow(a)) {
		a->oom++;
		return;
	}
	for (j = h & (a->stcap - 1); a->st[j].used; j = (j + 1) & (a->stcap - 1)) {
		struct stkent *e = &a->st[j];

		if (e->hash == h && e->len == n && e->pid == pid &&
		    !memcmp(a->frames + e->off, f, n * sizeof(*f))) {
			e->count++;
			return;
		}
	}
	if (a->nframes + n > a->framecap) {
		size_t cap = a->framecap ? a->framecap * 2 : 65536;
		uint64_t *v;

		while (cap < a->nframes + n)
			cap *= 2;
		v = cap > UINT32_MAX ? NULL : realloc(a->frames, cap * sizeof(*v));
		if (!v) {
			a->oom++;
			return;
		}
		a->frames = v;
		a->framecap = cap;
	}
	memcpy(a->frames + a->nframes, f, n * sizeof(*f));
	a->st[j] = (struct stkent){ .hash = h, .off = (uint32_t)a->nframes, .len = n, .pid = pid,
				    .used = 1, .count = 1 };
	a->nframes += n;
	a->stn++;
}

static void agg_free(struct agg *a)
{
	free(a->ip);
	free(a->st);
	free(a->frames);
	memset(a, 0, sizeof(*a));
}

/* One PERF_RECORD_SAMPLE laid out as sample_type asks: ip, pid/tid, cpu, [callchain]. */
static void on_sample(struct perf_session *s, const unsigned char *r, size_t len, uint16_t misc)
{
	const unsigned char *p = r + sizeof(struct perf_event_header), *end = r + len;
	uint64_t ip, nr = 0, f[MAX_FRAMES + 2];
	uint32_t pid, n = 0;
	bool kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

	if (p + 24 > end)
		return;
	memcpy(&ip, p, 8);
	memcpy(&pid, p + 8, 4);
	p += 24;                             /* ip, pid+tid, cpu+res */
	if (pid == 0)                        /* the idle task, should exclude_idle not apply */
		return;
	s->agg.samples++;
	if (kernel)
		ip_add(&s->agg, ip, 0);
	else if (pid == (uint32_t)s->pid)
		ip_add(&s->agg, ip, 1);
	else
		ip_add(&s->agg, 0, 2);       /* other processes' code: not symbolised */
	if (!s->c.callgraph)
		return;
	if (p + 8 <= end) {
		memcpy(&nr, p, 8);
		p += 8;
	}
	for (uint64_t i = 0; i < nr && p + 8 <= end && n < MAX_FRAMES; i++, p += 8)
		memcpy(&f[n++], p, 8);
	if (!kernel) {
		f[n++] = PERF_CONTEXT_USER;
		f[n++] = pid == (uint32_t)s->pid ? ip : 0;
	}
	st_add(&s->agg, f, n, (int32_t)pid);
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
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, r + sizeof(h) + 8, 8);
			s->agg.lost += lost;
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
		int n = poll(pf, s->nrings + 1, 200);

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
		a.sample_max_stack = MAX_FRAMES - 2;
	}
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
	const char *deny = getenv("FSBENCH_PROFILE_FORCE_DENY");
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
			 " [FSBENCH_PROFILE_FORCE_DENY]" : "");
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

	agg_free(&s->agg);
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
static void symbolise(const struct perf_session *s, const struct kmaps *m, uint64_t ip, uint32_t kind,
		      char *image, size_t ilen, char *sym, size_t slen)
{
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
	/* another process's user code (system-wide): its maps are not ours to read reliably */
	snprintf(image, ilen, "[unknown]");
	snprintf(sym, slen, kind == 2 ? "[other processes]" : "[unknown]");
}

static int by_name(const void *a, const void *b)
{
	const struct perf_entry *x = a, *y = b;
	int c = strcmp(x->image, y->image);

	return c ? c : strcmp(x->symbol, y->symbol);
}

static int by_samples(const void *a, const void *b)
{
	const struct perf_entry *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return by_name(a, b);
}

static int stack_by_name(const void *a, const void *b)
{
	return strcmp(((const struct perf_stack *)a)->folded, ((const struct perf_stack *)b)->folded);
}

static int stack_by_count(const void *a, const void *b)
{
	const struct perf_stack *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->folded, y->folded);
}

static void comm_of(int pid, char *buf, size_t len)
{
	char p[64];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/comm", pid);
	buf[0] = '\0';
	if ((f = fopen(p, "re"))) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	/* ';' and ' ' separate frames and the count in folded stacks */
	for (char *c = buf; *c; c++)
		if (*c == ';' || *c == ' ')
			*c = '_';
	if (!buf[0])
		snprintf(buf, len, "[pid-%d]", pid);
}

static int build_stacks(const struct perf_session *s, const struct kmaps *m, struct perf_profile *p)
{
	const struct agg *a = &s->agg;
	struct { int pid; char comm[32]; } cache[64];
	unsigned ncache = 0;
	size_t n = 0;

	p->stacks = calloc(a->stn ? a->stn : 1, sizeof(*p->stacks));
	if (!p->stacks)
		return -ENOMEM;
	for (size_t i = 0; i < a->stcap; i++) {
		const struct stkent *e = &a->st[i];
		uint64_t ctx = PERF_CONTEXT_KERNEL;
		struct { uint64_t ip; uint32_t kind; } fr[MAX_FRAMES + 2];
		unsigned nf = 0;
		char comm[32] = "", *out;
		size_t cap = 64, len;
		unsigned c;

		if (!e->used)
			continue;
		for (uint32_t j = 0; j < e->len; j++) {
			uint64_t f = a->frames[e->off + j];

			if (f >= (uint64_t)PERF_CONTEXT_MAX) {
				ctx = f;
				continue;
			}
			fr[nf].ip = f;
			fr[nf++].kind = ctx == PERF_CONTEXT_USER ? (e->pid == s->pid ? 1 : 2) : 0;
		}
		for (c = 0; c < ncache; c++)
			if (cache[c].pid == e->pid)
				break;
		if (c < ncache) {
			snprintf(comm, sizeof(comm), "%s", cache[c].comm);
		} else {
			comm_of(e->pid, comm, sizeof(comm));
			if (ncache < 64) {
				cache[ncache].pid = e->pid;
				snprintf(cache[ncache++].comm, sizeof(cache[0].comm), "%s", comm);
			}
		}
		cap = strlen(comm) + 1 + (size_t)nf * 200;
		out = malloc(cap);
		if (!out)
			return -ENOMEM;
		len = (size_t)snprintf(out, cap, "%s", comm);
		/* outermost first; return addresses (all but the leaf) looked up one byte back so a
		 * call at the very end of a function is not blamed on the next one */
		for (int j = (int)nf - 1; j >= 0; j--) {
			char image[64], sym[128];

			symbolise(s, m, fr[j].kind == 2 ? 0 : fr[j].ip - (j > 0 && fr[j].kind == 0), fr[j].kind,
				  image, sizeof(image), sym, sizeof(sym));
			for (char *q = sym; *q; q++)
				if (*q == ';' || *q == ' ')
					*q = '_';
			len += (size_t)snprintf(out + len, cap - len, ";%s", sym);
		}
		p->stacks[n].folded = out;
		p->stacks[n++].count = e->count;
	}
	/* different raw chains can name the same symbols: merge */
	qsort(p->stacks, n, sizeof(*p->stacks), stack_by_name);
	p->nstacks = 0;
	for (size_t i = 0; i < n; i++) {
		if (p->nstacks && !strcmp(p->stacks[p->nstacks - 1].folded, p->stacks[i].folded)) {
			p->stacks[p->nstacks - 1].count += p->stacks[i].count;
			free(p->stacks[i].folded);
			continue;
		}
		p->stacks[p->nstacks++] = p->stacks[i];
	}
	qsort(p->stacks, p->nstacks, sizeof(*p->stacks), stack_by_count);
	return 0;
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
	size_t n = 0;
	char c = 1;

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
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->system_wide = s->system_wide;
	p->hz = s->c.hz;
	p->ncpus = s->nrings;
	p->samples = s->agg.samples;
	p->lost = s->agg.lost;
	p->wall_ns = s->end_ns - s->begin_ns;
	kmaps_load_self(&m);
	p->v = calloc(s->agg.ipn ? s->agg.ipn : 1, sizeof(*p->v));
	if (!p->v) {
		kmaps_free(&m);
		perf_profile_free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->agg.ipcap; i++) {
		const struct ipent *e = &s->agg.ip[i];

		if (!e->used)
			continue;
		symbolise(s, &m, e->ip, e->kind, p->v[n].image, sizeof(p->v[0].image), p->v[n].symbol,
			  sizeof(p->v[0].symbol));
		p->v[n++].samples = e->count;
	}
	qsort(p->v, n, sizeof(*p->v), by_name);
	p->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (p->n && !by_name(&p->v[p->n - 1], &p->v[i]))
			p->v[p->n - 1].samples += p->v[i].samples;
		else
			p->v[p->n++] = p->v[i];
	}
	qsort(p->v, p->n, sizeof(*p->v), by_samples);
	for (size_t i = 0; i < p->n; i++)
		p->v[i].pct = p->samples ? 100.0 * (double)p->v[i].samples / (double)p->samples : 0;
	if (s->c.callgraph && build_stacks(s, &m, p)) {
		kmaps_free(&m);
		perf_profile_free(p);
		return -ENOMEM;
	}
	kmaps_free(&m);
	agg_free(&s->agg);
	*out = p;
	return 0;
}

int perf_profile_merge(struct perf_profile **dstp, struct perf_profile *src)
{
	struct perf_profile *d = *dstp;
	struct perf_entry *v;
	struct perf_stack *st;
	size_t n, m;

	if (!src)
		return 0;
	if (!d) {
		*dstp = src;
		return 0;
	}
	v = malloc((d->n + src->n + 1) * sizeof(*v));
	st = malloc((d->nstacks + src->nstacks + 1) * sizeof(*st));
	if (!v || !st) {
		free(v);
		free(st);
		perf_profile_free(src);
		return -ENOMEM;
	}
	/* the same merge as perf_end()'s: by name, equal names add up, then by samples */
	memcpy(v, d->v, d->n * sizeof(*v));
	memcpy(v + d->n, src->v, src->n * sizeof(*v));
	n = d->n + src->n;
	qsort(v, n, sizeof(*v), by_name);
	m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !by_name(&v[m - 1], &v[i]))
			v[m - 1].samples += v[i].samples;
		else
			v[m++] = v[i];
	}
	d->samples += src->samples;
	d->lost += src->lost;
	d->wall_ns += src->wall_ns;
	if (src->ncpus > d->ncpus)
		d->ncpus = src->ncpus;
	qsort(v, m, sizeof(*v), by_samples);
	for (size_t i = 0; i < m; i++)
		v[i].pct = d->samples ? 100.0 * (double)v[i].samples / (double)d->samples : 0;
	free(d->v);
	d->v = v;
	d->n = m;
	/* the stacks' strings move over; duplicates are freed */
	if (d->nstacks)
		memcpy(st, d->stacks, d->nstacks * sizeof(*st));
	if (src->nstacks)
		memcpy(st + d->nstacks, src->stacks, src->nstacks * sizeof(*st));
	n = d->nstacks + src->nstacks;
	qsort(st, n, sizeof(*st), stack_by_name);
	m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !stack_by_name(&st[m - 1], &st[i])) {
			st[m - 1].count += st[i].count;
			free(st[i].folded);
		} else {
			st[m++] = st[i];
		}
	}
	qsort(st, m, sizeof(*st), stack_by_count);
	free(d->stacks);
	d->stacks = st;
	d->nstacks = m;
	free(src->stacks);
	free(src->v);
	free(src);
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
	agg_free(&s->agg);
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	free(s->rec);
	free(s);
}

void perf_profile_free(struct perf_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstacks; i++)
		free(p->stacks[i].folded);
	free(p->stacks);
	free(p->v);
	free(p);
}
