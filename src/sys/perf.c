/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf_event_open sampling: events, ring buffers, the reader thread, attribution of each
 * sample to a task, aggregation and symbolisation into a per-window profile (design in
 * perf.h). */
#include "sys/perf.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
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
#define MAX_FRAMES 128
#define PF_KTHREAD_FLAG 0x00200000ul         /* include/linux/sched.h PF_KTHREAD */

struct ring {
	int fd;
	void *base;                          /* metadata page + data */
	size_t map_len;
	unsigned char *data;
	uint64_t size;                       /* data bytes, a power of two */
};

/* Kernel threads that do a run's I/O work for it (see perf_classify in perf.h), as fnmatch
 * patterns on their comm; "%d" stands for one of the run's devices' kernel names (loop1,
 * nvme0n1p2, md0), "%m" for its MAJ:MIN. Kernel threads only: a user process may call itself
 * anything. A thread that names its device counts only for this run's devices (another loop
 * ext4's jbd2 is another process); the others cannot be told apart by name and count whoever
 * they work for. Left out on purpose, listed under the table with their share instead:
 * ksoftirqd/N (deferred softirqs of every source: network, timers, RCU, other devices'
 * completions), kswapd and kcompactd (reclaim for everyone), rcu_*, migration/N, and the
 * threads of a loop device's backing filesystem (the host's, shared). io_uring's iou-wrk-*
 * and iou-sqp-* are threads of the submitting process: this process's are in the table by pid,
 * another's must not be. */
const char *const perf_helper_comms[] = {
	"kworker/*",         /* workqueues: writeback (flush-MAJ:MIN), loop (5.12 on), ext4/xfs/btrfs
			      * completions, dm-crypt, block requeue; shared */
	"writeback",         /* workqueue rescuers before 6.9 (since, kworker/R-NAME) */
	"kblockd",
	"ext4-rsv-conver*",
	"btrfs-*",           /* btrfs-transacti(on), btrfs-cleaner, rescuers: no device in the name */
	"jbd2/%d-*",         /* ext4's journal: jbd2/loop0-8 */
	"%d",                /* the loop device's kthread (before 5.12) or its rescuer: loop0 */
	"%d_*",              /* md personalities: md0_raid1, md0_resync, md0_reshape */
	"xfsaild/%d",        /* xfs's log tail pusher */
	"xfs-*/%d",          /* xfs workqueue rescuers: xfs-buf/loop0, xfs-cil/loop0 */
	"kdmflush/%m",       /* device mapper, dm-crypt */
	"kcryptd/%m",
	"kcryptd_io/%m",
	"dmcrypt_write/%m",
	"f2fs_*-%m",         /* f2fs_ckpt-, f2fs_gc-, f2fs_flush-, f2fs_discard- */
	NULL
};

/* Whether some string matching pat (literal characters and '*') starts with s, the match
 * reaching past pat[dev] (into the device's name: a cut before it names no device). For a comm
 * the kernel cut at TASK_COMM_LEN - 1 characters (jbd2/nvme0n1p2-8 is "jbd2/nvme0n1p2-"). */
static bool glob_prefix(const char *pat, const char *p, const char *s, size_t dev)
{
	if (!*s)
		return (size_t)(p - pat) > dev;
	if (!*p)
		return false;
	if (*p == '*')
		return glob_prefix(pat, p + 1, s, dev) || glob_prefix(pat, p, s + 1, dev);
	return *p == *s && glob_prefix(pat, p + 1, s + 1, dev);
}

/* pat with %d / %m as dev's (*dev_at: where the first one starts); false when dev has no
 * such name */
static bool expand(const char *pat, const struct perf_dev *dev, char *out, size_t len, size_t *dev_at)
{
	size_t n = 0;

	*dev_at = SIZE_MAX;
	out[0] = '\0';
	for (; *pat; pat++) {
		int w = 0;

		if (pat[0] == '%' && (pat[1] == 'd' || pat[1] == 'm')) {
			if (pat[1] == 'd' ? !dev->name[0] : !dev->major)
				return false;
			if (*dev_at == SIZE_MAX)
				*dev_at = n;
			if (pat[1] == 'd')
				w = snprintf(out + n, len - n, "%s", dev->name);
			else
				w = snprintf(out + n, len - n, "%u:%u", dev->major, dev->minor);
			pat++;
		} else {
			w = snprintf(out + n, len - n, "%c", *pat);
		}
		if (w < 0 || (size_t)w >= len - n)
			return false;
		n += (size_t)w;
	}
	return true;
}

enum perf_class perf_classify(int32_t self_pid, int32_t pid, const char *comm, int kthread,
			      const struct perf_dev *devs, unsigned ndevs)
{
	char buf[256];
	size_t dev_at;

	if (pid == 0)
		return PERF_IDLE;
	if (pid == self_pid)
		return PERF_OWN;
	if (kthread == 0 || !comm || !*comm)
		return PERF_OTHER;
	for (const char *const *pat = perf_helper_comms; *pat; pat++) {
		if (!strchr(*pat, '%')) {
			if (!fnmatch(*pat, comm, 0))
				return PERF_HELPER;
			continue;
		}
		/* 15: TASK_COMM_LEN - 1, the longest comm the kernel keeps */
		for (unsigned i = 0; i < ndevs; i++)
			if (expand(*pat, &devs[i], buf, sizeof(buf), &dev_at) &&
			    (!fnmatch(buf, comm, 0) || (strlen(comm) >= 15 && glob_prefix(buf, buf, comm, dev_at))))
				return PERF_HELPER;
	}
	return PERF_OTHER;
}

void perf_comm_clean(char *c)
{
	c[strcspn(c, "\n")] = '\0';
	/* /proc's comm of a workqueue worker is wq_worker_comm(): "kworker/ID" then '+' (running)
	 * or '-' (idle) and what it works on; PERF_RECORD_COMM has the bare name. A rescuer on 6.9
	 * on is "kworker/R-WQNAME", whose '-' (and WQNAME's own) are the name's. */
	if (!strncmp(c, "kworker/", 8))
		c[8 + strcspn(c + 8, strncmp(c + 8, "R-", 2) ? "+-" : "+")] = '\0';
	for (; *c; c++)
		if (*c == ';' || *c == ' ')
			*c = '_';
}

/* one task seen in the window; t[0] of the accounting is this process, all its threads */
struct task {
	int32_t pid, tid;
	int8_t kthread;                      /* 1, 0, -1 not known */
	bool named;
	char comm[32];
	uint64_t samples;
};

/* one distinct sampled address of one task: kind 0 kernel, 1 user code of this process */
struct ipent {
	uint64_t ip;
	uint32_t task, kind;
	uint32_t used;
	uint64_t count;
};

/* one distinct call chain (as the kernel gave it, context markers included) of one task */
struct stkent {
	uint64_t hash;
	uint32_t off, len;
	uint32_t task;
	uint32_t used;
	uint64_t count;
};

struct perf_acc {
	int32_t self;
	bool callgraph;
	unsigned ndevs;
	struct perf_dev devs[PERF_MAX_DEVS];
	struct task *t;
	size_t tn, tcap;
	uint32_t *th;                        /* tid -> index + 1 (t[0] is not in it) */
	size_t thcap;
	struct ipent *ip;
	size_t ipcap, ipn;
	struct stkent *st;
	size_t stcap, stn;
	uint64_t *frames;
	size_t nframes, framecap;
	uint64_t idle, oom;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return x;
}

static long task_find(const struct perf_acc *a, int32_t tid)
{
	if (!a->thcap)
		return -1;
	for (size_t j = mix((uint32_t)tid) & (a->thcap - 1); a->th[j]; j = (j + 1) & (a->thcap - 1))
		if (a->t[a->th[j] - 1].tid == tid)
			return a->th[j] - 1;
	return -1;
}

static long task_add(struct perf_acc *a, int32_t pid, int32_t tid)
{
	size_t j;

	if (a->tn == a->tcap) {
		size_t cap = a->tcap * 2;
		struct task *v = cap > UINT32_MAX / 2 ? NULL : realloc(a->t, cap * sizeof(*v));

		if (!v)
			return -1;
		a->t = v;
		a->tcap = cap;
	}
	if ((a->tn + 1) * 2 > a->thcap) {
		size_t cap = a->thcap ? a->thcap * 2 : 256;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -1;
		for (size_t i = 1; i < a->tn; i++) {
			for (j = mix((uint32_t)a->t[i].tid) & (cap - 1); h[j]; j = (j + 1) & (cap - 1))
				;
			h[j] = (uint32_t)i + 1;
		}
		free(a->th);
		a->th = h;
		a->thcap = cap;
	}
	for (j = mix((uint32_t)tid) & (a->thcap - 1); a->th[j]; j = (j + 1) & (a->thcap - 1))
		;
	a->th[j] = (uint32_t)a->tn + 1;
	a->t[a->tn] = (struct task){ .pid = pid, .tid = tid, .kthread = -1 };
	return (long)a->tn++;
}

static int ip_grow(struct perf_acc *a)
{
	size_t cap = a->ipcap ? a->ipcap * 2 : 4096;
	struct ipent *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < a->ipcap; i++) {
		const struct ipent *e = &a->ip[i];
		size_t j;

		if (!e->used)
			continue;
		for (j = mix(e->ip ^ ((uint64_t)e->task << 40) ^ e->kind) & (cap - 1); v[j].used;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = *e;
	}
	free(a->ip);
	a->ip = v;
	a->ipcap = cap;
	return 0;
}

static void ip_add(struct perf_acc *a, uint64_t ip, uint32_t kind, uint32_t task)
{
	size_t j;

	if (a->ipn * 2 >= a->ipcap && ip_grow(a)) {
		a->oom++;
		return;
	}
	for (j = mix(ip ^ ((uint64_t)task << 40) ^ kind) & (a->ipcap - 1); a->ip[j].used;
	     j = (j + 1) & (a->ipcap - 1))
		if (a->ip[j].ip == ip && a->ip[j].kind == kind && a->ip[j].task == task) {
			a->ip[j].count++;
			return;
		}
	a->ip[j] = (struct ipent){ .ip = ip, .kind = kind, .task = task, .used = 1, .count = 1 };
	a->ipn++;
}

static int st_grow(struct perf_acc *a)
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

static void st_add(struct perf_acc *a, const uint64_t *f, uint32_t n, uint32_t task)
{
	uint64_t h = mix((uint64_t)task + n);
	size_t j;

	for (uint32_t i = 0; i < n; i++)
		h = mix(h ^ f[i]) + i;
	if (a->stn * 2 >= a->stcap && st_grow(a)) {
		a->oom++;
		return;
	}
	for (j = h & (a->stcap - 1); a->st[j].used; j = (j + 1) & (a->stcap - 1)) {
		struct stkent *e = &a->st[j];

		if (e->hash == h && e->len == n && e->task == task &&
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
	if (n)
		memcpy(a->frames + a->nframes, f, n * sizeof(*f));
	a->st[j] = (struct stkent){ .hash = h, .off = (uint32_t)a->nframes, .len = n, .task = task,
				    .used = 1, .count = 1 };
	a->nframes += n;
	a->stn++;
}

struct perf_acc *perf_acc_new(int32_t self_pid, const char *self_comm, bool callgraph,
			      const struct perf_dev *devs, unsigned ndevs)
{
	struct perf_acc *a = calloc(1, sizeof(*a));

	if (!a || !(a->t = calloc(64, sizeof(*a->t)))) {
		free(a);
		return NULL;
	}
	a->self = self_pid;
	a->callgraph = callgraph;
	a->ndevs = ndevs < PERF_MAX_DEVS ? ndevs : PERF_MAX_DEVS;
	if (a->ndevs)
		memcpy(a->devs, devs, a->ndevs * sizeof(*devs));
	a->tcap = 64;
	a->tn = 1;
	a->t[0] = (struct task){ .pid = self_pid, .tid = -1, .kthread = 0, .named = true };
	snprintf(a->t[0].comm, sizeof(a->t[0].comm), "%s", self_comm && *self_comm ? self_comm : "fsbench");
	perf_comm_clean(a->t[0].comm);
	return a;
}

void perf_acc_free(struct perf_acc *a)
{
	if (!a)
		return;
	free(a->t);
	free(a->th);
	free(a->ip);
	free(a->st);
	free(a->frames);
	free(a);
}

bool perf_acc_knows(const struct perf_acc *a, int32_t pid, int32_t tid)
{
	return pid == 0 || pid == a->self || task_find(a, tid) >= 0;
}

void perf_acc_task(struct perf_acc *a, int32_t pid, int32_t tid, const char *comm, int kthread)
{
	long t;
	struct task *k;

	if (pid == 0 || pid == a->self)
		return;
	if ((t = task_find(a, tid)) < 0 && (t = task_add(a, pid, tid)) < 0) {
		a->oom++;
		return;
	}
	k = &a->t[t];
	k->pid = pid;
	if (comm && *comm) {
		snprintf(k->comm, sizeof(k->comm), "%s", comm);
		perf_comm_clean(k->comm);
		k->named = true;
	}
	if (kthread >= 0)
		k->kthread = (int8_t)(kthread > 0);
}

void perf_acc_sample(struct perf_acc *a, int32_t pid, int32_t tid, bool kernel, uint64_t ip,
		     const uint64_t *chain, uint32_t nchain)
{
	uint64_t f[MAX_FRAMES + 2];
	uint32_t n = 0;
	long t = 0;

	if (pid == 0) {
		a->idle++;
		return;
	}
	if (pid != a->self && (t = task_find(a, tid)) < 0 && (t = task_add(a, pid, tid)) < 0) {
		a->oom++;
		return;
	}
	a->t[t].samples++;
	if (t) {
		/* user code: not a kernel thread, so another process whatever its name; its
		 * samples are counted, its addresses not kept */
		if (!kernel)
			a->t[t].kthread = 0;
		if (a->t[t].kthread == 0)
			return;
	}
	ip_add(a, ip, kernel ? 0 : 1, (uint32_t)t);
	if (!a->callgraph)
		return;
	for (uint32_t i = 0; chain && i < nchain && n < MAX_FRAMES; i++)
		f[n++] = chain[i];
	if (!kernel) {
		f[n++] = PERF_CONTEXT_USER;
		f[n++] = ip;
	}
	st_add(a, f, n, (uint32_t)t);
}

/* (app, image, symbol) -> entry, for perf_acc_finish() and perf_profile_merge() */
struct etab {
	struct perf_entry *v;
	size_t n, cap;
	size_t *h;                           /* index + 1 */
	size_t hcap;
};

static uint64_t etab_hash(const char *app, const char *image, const char *sym)
{
	uint64_t h = UINT64_C(14695981039346656037);
	const char *parts[3] = { app, image, sym };

	for (int i = 0; i < 3; i++) {
		for (const char *c = parts[i]; *c; c++)
			h = (h ^ (unsigned char)*c) * UINT64_C(1099511628211);
		h = (h ^ 0xff) * UINT64_C(1099511628211);
	}
	return mix(h);
}

static long etab_get(struct etab *e, const char *app, const char *image, const char *sym)
{
	size_t j;

	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;
		struct perf_entry *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return -1;
		e->v = v;
		e->cap = cap;
	}
	if ((e->n + 1) * 2 > e->hcap) {
		size_t cap = e->hcap ? e->hcap * 2 : 512;
		size_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -1;
		for (size_t i = 0; i < e->n; i++) {
			for (j = etab_hash(e->v[i].app, e->v[i].image, e->v[i].symbol) & (cap - 1); h[j];
			     j = (j + 1) & (cap - 1))
				;
			h[j] = i + 1;
		}
		free(e->h);
		e->h = h;
		e->hcap = cap;
	}
	for (j = etab_hash(app, image, sym) & (e->hcap - 1); e->h[j]; j = (j + 1) & (e->hcap - 1)) {
		const struct perf_entry *x = &e->v[e->h[j] - 1];

		if (!strcmp(x->symbol, sym) && !strcmp(x->image, image) && !strcmp(x->app, app))
			return (long)e->h[j] - 1;
	}
	memset(&e->v[e->n], 0, sizeof(e->v[0]));
	snprintf(e->v[e->n].app, sizeof(e->v[0].app), "%s", app);
	snprintf(e->v[e->n].image, sizeof(e->v[0].image), "%s", image);
	snprintf(e->v[e->n].symbol, sizeof(e->v[0].symbol), "%s", sym);
	e->h[j] = e->n + 1;
	return (long)e->n++;
}

static int by_name(const void *a, const void *b)
{
	const struct perf_entry *x = a, *y = b;
	int c = strcmp(x->image, y->image);

	if (!c)
		c = strcmp(x->symbol, y->symbol);
	return c ? c : strcmp(x->app, y->app);
}

static int by_samples(const void *a, const void *b)
{
	const struct perf_entry *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->inclusive != y->inclusive)
		return x->inclusive > y->inclusive ? -1 : 1;
	return by_name(a, b);
}

static int by_inclusive(const void *a, const void *b, void *arg)
{
	const struct perf_entry *v = arg, *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->inclusive != y->inclusive)
		return x->inclusive > y->inclusive ? -1 : 1;
	return by_samples(x, y);
}

static int other_by_pid(const void *a, const void *b)
{
	const struct perf_other *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

static int other_by_samples(const void *a, const void *b)
{
	const struct perf_other *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return other_by_pid(a, b);
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

/* The order and percentages of a profile whose counts are final. inc: room for n indices
 * (taken over; may be NULL without callgraph). */
static void profile_order(struct perf_profile *p, size_t *inc)
{
	double table = (double)p->samples, machine = (double)(p->samples + p->other_samples);

	qsort(p->v, p->n, sizeof(*p->v), by_samples);
	p->nself = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].samples)
			p->nself = i + 1;
		p->v[i].pct = table > 0 ? 100.0 * (double)p->v[i].samples / table : 0;
		p->v[i].inclusive_pct = table > 0 ? 100.0 * (double)p->v[i].inclusive / table : 0;
	}
	free(p->inc);
	p->inc = inc;
	p->ninc = 0;
	for (size_t i = 0; inc && i < p->n; i++)
		if (p->v[i].inclusive)
			inc[p->ninc++] = i;
	if (p->ninc)
		qsort_r(p->inc, p->ninc, sizeof(*p->inc), by_inclusive, p->v);
	qsort(p->other, p->nother, sizeof(*p->other), other_by_samples);
	for (size_t i = 0; i < p->nother; i++)
		p->other[i].pct = machine > 0 ? 100.0 * (double)p->other[i].samples / machine : 0;
	p->other_pct = machine > 0 ? 100.0 * (double)p->other_samples / machine : 0;
	if (p->nstacks)
		qsort(p->stacks, p->nstacks, sizeof(*p->stacks), stack_by_count);
}

/* Merges entries of equal text in place (sorted by text first); the strings of the dropped
 * ones are freed. Returns the new count. */
static size_t stacks_merge(struct perf_stack *st, size_t n)
{
	size_t m = 0;

	if (n)
		qsort(st, n, sizeof(*st), stack_by_name);
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(st[m - 1].folded, st[i].folded)) {
			st[m - 1].count += st[i].count;
			free(st[i].folded);
		} else {
			st[m++] = st[i];
		}
	}
	return m;
}

/* Folded stacks of the table's tasks, and each symbol's inclusive count from the same chains. */
static int build_stacks(const struct perf_acc *a, const uint8_t *cls, perf_symbolise_fn *sym, void *ctx,
			struct etab *e, struct perf_profile *p)
{
	size_t n = 0;

	p->stacks = calloc(a->stn ? a->stn : 1, sizeof(*p->stacks));
	if (!p->stacks)
		return -ENOMEM;
	for (size_t i = 0; i < a->stcap; i++) {
		const struct stkent *x = &a->st[i];
		const char *app = a->t[x->task].comm;
		uint64_t ctxm = PERF_CONTEXT_KERNEL;
		struct { uint64_t ip; unsigned kind; } fr[MAX_FRAMES + 2];
		long seen[MAX_FRAMES + 2];
		unsigned nf = 0, nseen = 0;
		size_t cap, len;
		char *out;

		if (!x->used || cls[x->task] == PERF_OTHER)
			continue;
		for (uint32_t j = 0; j < x->len; j++) {
			uint64_t f = a->frames[x->off + j];

			if (f >= (uint64_t)PERF_CONTEXT_MAX) {
				ctxm = f;
				continue;
			}
			fr[nf].ip = f;
			fr[nf++].kind = ctxm == PERF_CONTEXT_USER ? 1 : 0;
		}
		cap = strlen(app) + 1 + (size_t)nf * 200;
		if (!(out = malloc(cap)))
			goto nomem;
		len = (size_t)snprintf(out, cap, "%s", app);
		/* outermost first; return addresses (all but the leaf) looked up one byte back so a
		 * call at the very end of a function is not blamed on the next one */
		for (int j = (int)nf - 1; j >= 0; j--) {
			char image[64], name[128];
			long k;
			unsigned u;

			sym(ctx, fr[j].ip - (j > 0 && fr[j].kind == 0), fr[j].kind, image, sizeof(image), name,
			    sizeof(name));
			if ((k = etab_get(e, app, image, name)) < 0) {
				free(out);
				goto nomem;
			}
			/* once per sample: a recursive symbol (or two frames of one symbol) is not
			 * counted twice, so no inclusive figure exceeds 100 % */
			for (u = 0; u < nseen && seen[u] != k; u++)
				;
			if (u == nseen) {
				seen[nseen++] = k;
				e->v[k].inclusive += x->count;
			}
			for (char *q = name; *q; q++)
				if (*q == ';' || *q == ' ')
					*q = '_';
			len += (size_t)snprintf(out + len, cap - len, ";%s", name);
		}
		p->stacks[n].folded = out;
		p->stacks[n++].count = x->count;
	}
	/* different raw chains can name the same symbols */
	p->nstacks = stacks_merge(p->stacks, n);
	return 0;
nomem:
	p->nstacks = n;
	return -ENOMEM;
}

/* One line per other process: its threads add up under the leader's name. */
static int build_others(const struct perf_acc *a, const uint8_t *cls, struct perf_profile *p)
{
	size_t n = 0, m = 0;

	p->other = calloc(a->tn ? a->tn : 1, sizeof(*p->other));
	if (!p->other)
		return -ENOMEM;
	for (size_t t = 1; t < a->tn; t++) {
		const struct task *k = &a->t[t];
		long lead = k->tid == k->pid ? (long)t : task_find(a, k->pid);
		const char *comm = lead >= 0 && a->t[lead].named ? a->t[lead].comm :
				   k->named ? k->comm : "[exited]";

		if (cls[t] != PERF_OTHER || !k->samples)
			continue;
		p->other[n].pid = k->pid;
		snprintf(p->other[n].comm, sizeof(p->other[n].comm), "%s", comm);
		p->other[n++].samples = k->samples;
	}
	qsort(p->other, n, sizeof(*p->other), other_by_pid);
	for (size_t i = 0; i < n; i++) {
		if (m && p->other[m - 1].pid == p->other[i].pid)
			p->other[m - 1].samples += p->other[i].samples;
		else
			p->other[m++] = p->other[i];
	}
	p->nother = m;
	return 0;
}

int perf_acc_finish(struct perf_acc *a, perf_symbolise_fn *sym, void *ctx, struct perf_profile **out)
{
	struct perf_profile *p = calloc(1, sizeof(*p));
	uint8_t *cls = malloc(a->tn);
	struct etab e = { 0 };
	size_t *inc = NULL;

	*out = NULL;
	if (!p || !cls)
		goto nomem;
	p->callgraph = a->callgraph;
	p->idle_samples = a->idle;
	for (size_t t = 0; t < a->tn; t++) {
		const struct task *k = &a->t[t];

		cls[t] = t ? (uint8_t)perf_classify(a->self, k->pid, k->named ? k->comm : NULL, k->kthread,
						    a->devs, a->ndevs) : PERF_OWN;
		if (cls[t] == PERF_OTHER)
			p->other_samples += k->samples;
		else
			p->samples += k->samples;
	}
	for (size_t i = 0; i < a->ipcap; i++) {
		const struct ipent *x = &a->ip[i];
		char image[64], name[128];
		long k;

		if (!x->used || cls[x->task] == PERF_OTHER)
			continue;
		sym(ctx, x->ip, x->kind, image, sizeof(image), name, sizeof(name));
		if ((k = etab_get(&e, a->t[x->task].comm, image, name)) < 0)
			goto nomem;
		e.v[k].samples += x->count;
	}
	if (a->callgraph && build_stacks(a, cls, sym, ctx, &e, p))
		goto nomem;
	if (build_others(a, cls, p))
		goto nomem;
	if (a->callgraph && !(inc = malloc((e.n ? e.n : 1) * sizeof(*inc))))
		goto nomem;
	p->v = e.v ? e.v : calloc(1, sizeof(*p->v));
	p->n = e.n;
	free(e.h);
	free(cls);
	if (!p->v) {
		free(inc);
		perf_profile_free(p);
		return -ENOMEM;
	}
	profile_order(p, inc);
	*out = p;
	return 0;
nomem:
	free(e.v);
	free(e.h);
	free(cls);
	perf_profile_free(p);
	return -ENOMEM;
}

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
	uint64_t ip, nr = 0, f[MAX_FRAMES];
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
	for (uint64_t i = 0; i < nr && p + 8 <= end && n < MAX_FRAMES; i++, p += 8)
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
		a.sample_max_stack = MAX_FRAMES - 2;
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

int perf_profile_merge(struct perf_profile **dstp, struct perf_profile *src)
{
	struct perf_profile *d = *dstp;
	struct etab e = { 0 };
	struct perf_other *o;
	struct perf_stack *st;
	size_t *inc = NULL, n, m;

	if (!src)
		return 0;
	if (!d) {
		*dstp = src;
		return 0;
	}
	/* everything that can fail before *dst changes */
	o = malloc((d->nother + src->nother + 1) * sizeof(*o));
	st = malloc((d->nstacks + src->nstacks + 1) * sizeof(*st));
	if (!o || !st)
		goto nomem;
	for (int side = 0; side < 2; side++) {
		const struct perf_profile *x = side ? src : d;

		for (size_t i = 0; i < x->n; i++) {
			long k = etab_get(&e, x->v[i].app, x->v[i].image, x->v[i].symbol);

			if (k < 0)
				goto nomem;
			e.v[k].samples += x->v[i].samples;
			e.v[k].inclusive += x->v[i].inclusive;
		}
	}
	if (!e.v && !(e.v = calloc(1, sizeof(*e.v))))
		goto nomem;
	if ((d->callgraph || src->callgraph) && !(inc = malloc((e.n ? e.n : 1) * sizeof(*inc))))
		goto nomem;
	free(e.h);
	free(d->v);
	d->v = e.v;
	d->n = e.n;
	/* other processes: the same pid and name add up */
	if (d->nother)
		memcpy(o, d->other, d->nother * sizeof(*o));
	if (src->nother)
		memcpy(o + d->nother, src->other, src->nother * sizeof(*o));
	n = d->nother + src->nother;
	qsort(o, n, sizeof(*o), other_by_pid);
	m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !other_by_pid(&o[m - 1], &o[i]))
			o[m - 1].samples += o[i].samples;
		else
			o[m++] = o[i];
	}
	free(d->other);
	d->other = o;
	d->nother = m;
	/* the stacks' strings move over; duplicates are freed */
	if (d->nstacks)
		memcpy(st, d->stacks, d->nstacks * sizeof(*st));
	if (src->nstacks)
		memcpy(st + d->nstacks, src->stacks, src->nstacks * sizeof(*st));
	free(d->stacks);
	d->stacks = st;
	d->nstacks = stacks_merge(st, d->nstacks + src->nstacks);
	d->samples += src->samples;
	d->other_samples += src->other_samples;
	d->idle_samples += src->idle_samples;
	d->lost += src->lost;
	d->wall_ns += src->wall_ns;
	d->callgraph = d->callgraph || src->callgraph;
	if (src->ncpus > d->ncpus)
		d->ncpus = src->ncpus;
	profile_order(d, inc);
	src->nstacks = 0;
	perf_profile_free(src);
	return 0;
nomem:
	free(e.v);
	free(e.h);
	free(o);
	free(st);
	perf_profile_free(src);
	return -ENOMEM;
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

struct perf_profile *perf_profile_dup(const struct perf_profile *p)
{
	struct perf_profile *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	*c = *p;
	c->v = malloc((p->n + 1) * sizeof(*c->v));
	c->inc = malloc((p->ninc + 1) * sizeof(*c->inc));
	c->other = malloc((p->nother + 1) * sizeof(*c->other));
	c->stacks = calloc(p->nstacks + 1, sizeof(*c->stacks));
	c->nstacks = 0;
	if (!c->v || !c->inc || !c->other || !c->stacks)
		goto fail;
	if (p->n)
		memcpy(c->v, p->v, p->n * sizeof(*c->v));
	if (p->ninc)
		memcpy(c->inc, p->inc, p->ninc * sizeof(*c->inc));
	if (p->nother)
		memcpy(c->other, p->other, p->nother * sizeof(*c->other));
	for (size_t i = 0; i < p->nstacks; i++) {
		c->stacks[i].count = p->stacks[i].count;
		if (!(c->stacks[i].folded = strdup(p->stacks[i].folded)))
			goto fail;
		c->nstacks = i + 1;
	}
	return c;
fail:
	perf_profile_free(c);
	return NULL;
}

void perf_profile_free(struct perf_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstacks; i++)
		free(p->stacks[i].folded);
	free(p->stacks);
	free(p->v);
	free(p->inc);
	free(p->other);
	free(p);
}
