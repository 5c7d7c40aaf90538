/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The attribution policy and the accounting of one sampling window (core/perf_attr.h): which
 * task is this run's, the per-task and per-address counts, and their symbolised profile. */
#include "core/perf_attr.h"

#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static long task_find(const struct perf_acc *a, int32_t tid)
{
	if (!a->thcap)
		return -1;
	for (size_t j = perf_profile_mix((uint32_t)tid) & (a->thcap - 1); a->th[j]; j = (j + 1) & (a->thcap - 1))
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
			for (j = perf_profile_mix((uint32_t)a->t[i].tid) & (cap - 1); h[j]; j = (j + 1) & (cap - 1))
				;
			h[j] = (uint32_t)i + 1;
		}
		free(a->th);
		a->th = h;
		a->thcap = cap;
	}
	for (j = perf_profile_mix((uint32_t)tid) & (a->thcap - 1); a->th[j]; j = (j + 1) & (a->thcap - 1))
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
		for (j = perf_profile_mix(e->ip ^ ((uint64_t)e->task << 40) ^ e->kind) & (cap - 1); v[j].used;
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
	for (j = perf_profile_mix(ip ^ ((uint64_t)task << 40) ^ kind) & (a->ipcap - 1); a->ip[j].used;
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
	uint64_t h = perf_profile_mix((uint64_t)task + n);
	size_t j;

	for (uint32_t i = 0; i < n; i++)
		h = perf_profile_mix(h ^ f[i]) + i;
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
	uint64_t f[PERF_MAX_FRAMES + 2];
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
	for (uint32_t i = 0; chain && i < nchain && n < PERF_MAX_FRAMES; i++)
		f[n++] = chain[i];
	if (!kernel) {
		f[n++] = PERF_CONTEXT_USER;
		f[n++] = ip;
	}
	st_add(a, f, n, (uint32_t)t);
}

/* Folded stacks of the table's tasks, and each symbol's inclusive count from the same chains. */
static int build_stacks(const struct perf_acc *a, const uint8_t *cls, perf_symbolise_fn *sym, void *ctx,
			struct perf_profile_etab *e, struct perf_profile *p)
{
	size_t n = 0;

	p->stacks = calloc(a->stn ? a->stn : 1, sizeof(*p->stacks));
	if (!p->stacks)
		return -ENOMEM;
	for (size_t i = 0; i < a->stcap; i++) {
		const struct stkent *x = &a->st[i];
		const char *app = a->t[x->task].comm;
		uint64_t ctxm = PERF_CONTEXT_KERNEL;
		struct { uint64_t ip; unsigned kind; } fr[PERF_MAX_FRAMES + 2];
		long seen[PERF_MAX_FRAMES + 2];
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
			if ((k = perf_profile_etab_get(e, app, image, name)) < 0) {
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
	p->nstacks = perf_profile_stacks_merge(p->stacks, n);
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
	qsort(p->other, n, sizeof(*p->other), perf_profile_other_cmp);
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
	struct perf_profile_etab e = { 0 };
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
		if ((k = perf_profile_etab_get(&e, a->t[x->task].comm, image, name)) < 0)
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
	perf_profile_order(p, inc);
	*out = p;
	return 0;
nomem:
	free(e.v);
	free(e.h);
	free(cls);
	perf_profile_free(p);
	return -ENOMEM;
}
