/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf attribution and accounting: comm cleaning, the classification of a sample's task (this
 * process, a helper kernel thread by comm pattern and device, another process), and a whole
 * window fed with synthetic samples and call chains (recursion included) through perf_acc:
 * the table holds only this process and its helpers, every other process is one line, and
 * inclusive counts take each symbol once per sample. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "check.h"
#include "core/perf_attr.h"

static const struct { const char *in, *out; } cleans[] = {
	{ "kworker/u4:2+flush-7:0", "kworker/u4:2" },      /* /proc: running a work item */
	{ "kworker/0:1H-kblockd", "kworker/0:1H" },        /* /proc: idle, last work */
	{ "kworker/u8:5", "kworker/u8:5" },                /* PERF_RECORD_COMM: the bare name */
	{ "kworker/R-ext4-", "kworker/R-ext4-" },          /* a 6.9+ rescuer: its '-' are its own */
	{ "kworker/R-kblockd+x", "kworker/R-kblockd" },
	{ "jbd2/loop0-8\n", "jbd2/loop0-8" },              /* as read from /proc */
	{ "Web Content", "Web_Content" },                  /* folded stacks' separators */
	{ "a;b", "a_b" },
	{ "", "" },
};

#define SELF 1000
static const struct perf_dev devs[] = {
	{ "loop1", 7, 1 }, { "nvme0n1p2", 259, 2 }, { "dm-3", 253, 3 }, { "md0", 9, 0 },
};

static const struct {
	int32_t pid;
	const char *comm;
	int kthread;
	enum perf_class want;
} classes[] = {
	{ SELF, "fsbench", 0, PERF_OWN },
	{ SELF, "iou-wrk-1000", 0, PERF_OWN },             /* io_uring workers: threads of our pid */
	{ SELF, NULL, -1, PERF_OWN },
	{ 0, "swapper/0", 1, PERF_IDLE },
	{ 50, "kworker/u4:2", 1, PERF_HELPER },
	{ 50, "kworker/3:1H", 1, PERF_HELPER },
	{ 51, "kworker/R-kbloc", 1, PERF_HELPER },
	{ 52, "jbd2/loop1-8", 1, PERF_HELPER },
	{ 53, "jbd2/loop0-8", 1, PERF_OTHER },             /* another device's journal */
	{ 54, "jbd2/loop10-8", 1, PERF_OTHER },            /* loop1 is not loop10 */
	{ 55, "jbd2/nvme0n1p2-", 1, PERF_HELPER },         /* jbd2/nvme0n1p2-8 cut at 15 */
	{ 56, "jbd2/nvme0n1p3-", 1, PERF_OTHER },
	{ 57, "loop1", 1, PERF_HELPER },
	{ 58, "loop0", 1, PERF_OTHER },
	{ 59, "xfsaild/loop1", 1, PERF_HELPER },
	{ 60, "xfsaild/dm-3", 1, PERF_HELPER },
	{ 61, "xfsaild/loop0", 1, PERF_OTHER },
	{ 62, "xfs-buf/loop1", 1, PERF_HELPER },
	{ 63, "xfs-inodegc/loo", 1, PERF_HELPER },         /* cut: matches what it starts */
	{ 64, "xfs-buf/sda", 1, PERF_OTHER },
	{ 65, "kdmflush/253:3", 1, PERF_HELPER },
	{ 66, "kdmflush/253:4", 1, PERF_OTHER },
	{ 67, "kcryptd/253:3", 1, PERF_HELPER },
	{ 68, "dmcrypt_write/2", 1, PERF_HELPER },         /* dmcrypt_write/253:3 cut */
	{ 69, "md0_raid1", 1, PERF_HELPER },
	{ 70, "md1_raid1", 1, PERF_OTHER },
	{ 71, "f2fs_ckpt-259:2", 1, PERF_HELPER },
	{ 72, "f2fs_ckpt-259:3", 1, PERF_OTHER },
	{ 73, "xfs-verylongwqn", 1, PERF_OTHER },           /* cut before any device: none named */
	{ 73, "btrfs-transacti", 1, PERF_HELPER },
	{ 74, "btrfs-cleaner", 1, PERF_HELPER },
	{ 75, "writeback", 1, PERF_HELPER },
	{ 76, "kblockd", 1, PERF_HELPER },
	{ 77, "ksoftirqd/0", 1, PERF_OTHER },              /* every source's softirqs */
	{ 78, "kswapd0", 1, PERF_OTHER },
	{ 79, "kcompactd0", 1, PERF_OTHER },
	{ 80, "rcu_preempt", 1, PERF_OTHER },
	{ 81, "migration/1", 1, PERF_OTHER },
	{ 82, "kworker/u4:2", 0, PERF_OTHER },             /* a user process may call itself so */
	{ 83, "jbd2/loop1-8", 0, PERF_OTHER },
	{ 84, "kworker/u4:2", -1, PERF_HELPER },           /* not known: the comm decides */
	{ 85, "dd", 0, PERF_OTHER },
	{ 86, "dd", -1, PERF_OTHER },
	{ 2000, "iou-wrk-2000", 0, PERF_OTHER },           /* another process's io_uring worker */
	{ 87, NULL, 1, PERF_OTHER },
	{ 88, "", 1, PERF_OTHER },
};

/* a fake kernel: one symbol per 4 KiB page */
static const struct { uint64_t base; const char *name; } ksym[] = {
	{ 0x1000, "ext4_mb_new_blocks" }, { 0x2000, "ext4_mb_regular_allocator" },
	{ 0x3000, "shmem_file_write_iter" }, { 0x4000, "copy_folio_from_iter_atomic" },
	{ 0x5000, "entry_SYSCALL_64" }, { 0x6000, "jbd2_journal_commit_transaction" },
	{ 0x7000, "recurse_fn" }, { 0x8000, "ext4_writepages" }, { 0x9000, "worker_thread" },
};

static void fake_sym(void *ctx, uint64_t ip, unsigned kind, char *image, size_t ilen, char *sym, size_t slen)
{
	(void)ctx;
	if (kind == 1) {
		snprintf(image, ilen, "fsbench");
		snprintf(sym, slen, "main_loop");
		return;
	}
	snprintf(image, ilen, "vmlinux");
	snprintf(sym, slen, "[unknown]");
	for (size_t i = 0; i < sizeof(ksym) / sizeof(ksym[0]); i++)
		if ((ip & ~UINT64_C(0xfff)) == ksym[i].base)
			snprintf(sym, slen, "%s", ksym[i].name);
}

#define K PERF_CONTEXT_KERNEL
/* leaf first, as the kernel gives them */
static const uint64_t ch_alloc[] = { K, 0x2010, 0x1010, 0x8010, 0x5010 };
static const uint64_t ch_recurse[] = { K, 0x7010, 0x7020, 0x7030, 0x1010, 0x5010 };
static const uint64_t ch_twice[] = { K, 0x1010, 0x2010, 0x1010, 0x5010 };
static const uint64_t ch_jbd2[] = { K, 0x6010, 0x9010 };
static const uint64_t ch_kworker[] = { K, 0x8010, 0x9010 };
static const uint64_t ch_shmem[] = { K, 0x4010, 0x3010, 0x5010 };
#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

static const struct {
	int32_t pid, tid;
	bool kernel;
	const uint64_t *chain;
	uint32_t nchain;
	unsigned times;
} samples[] = {
	{ SELF, SELF, true, ch_alloc, N(ch_alloc), 6 },
	{ SELF, SELF + 1, true, ch_recurse, N(ch_recurse), 4 },
	{ SELF, SELF + 2, true, ch_twice, N(ch_twice), 3 },
	{ SELF, SELF + 1, false, NULL, 0, 2 },             /* user code: no kernel chain */
	{ 300, 300, true, ch_jbd2, N(ch_jbd2), 5 },        /* jbd2/loop0-8, our device */
	{ 301, 301, true, ch_kworker, N(ch_kworker), 2 },
	{ 2000, 2000, true, ch_shmem, N(ch_shmem), 7 },    /* dd writing to tmpfs */
	{ 2000, 2000, false, NULL, 0, 3 },
	{ 302, 302, true, ch_jbd2, N(ch_jbd2), 4 },        /* another device's journal */
	{ 400, 400, true, ch_shmem, N(ch_shmem), 2 },      /* never named: gone */
	{ 500, 501, false, NULL, 0, 3 },                   /* java's worker thread */
	{ 500, 500, true, ch_shmem, N(ch_shmem), 1 },
	{ 600, 600, true, ch_shmem, N(ch_shmem), 1 },      /* "kworker/x", then user code */
	{ 600, 600, false, NULL, 0, 1 },
	{ 700, 700, true, ch_shmem, N(ch_shmem), 1 },      /* bash exec'd dd */
	{ 0, 0, true, ch_alloc, N(ch_alloc), 5 },          /* idle */
};

static struct perf_profile *window(bool callgraph)
{
	struct perf_acc *a = perf_acc_new(SELF, "fsbench", callgraph, &(struct perf_dev){ "loop0", 7, 0 }, 1);
	struct perf_profile *p = NULL;

	if (!a)
		abort();
	perf_acc_task(a, SELF, SELF, "ignored", 0);
	perf_acc_task(a, 300, 300, "jbd2/loop0-8", 1);
	perf_acc_task(a, 301, 301, "kworker/u4:2+flush-7:0", 1);
	perf_acc_task(a, 302, 302, "jbd2/loop9-8", 1);
	perf_acc_task(a, 2000, 2000, "dd", 0);
	perf_acc_task(a, 500, 501, "worker", 0);
	perf_acc_task(a, 500, 500, "java", 0);
	perf_acc_task(a, 600, 600, "kworker/x", -1);
	perf_acc_task(a, 700, 700, "bash", 0);
	perf_acc_task(a, 700, 700, "dd", -1);             /* the exec's COMM: the name changes */
	perf_acc_task(a, 700, 700, NULL, -1);             /* nothing known: nothing changes */
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		for (unsigned k = 0; k < samples[i].times; k++)
			perf_acc_sample(a, samples[i].pid, samples[i].tid, samples[i].kernel,
					samples[i].kernel ? samples[i].chain[1] : UINT64_C(0xa0000010),
					samples[i].chain, samples[i].nchain);
	CHECK(perf_acc_knows(a, 2000, 2000) && perf_acc_knows(a, SELF, 4242) && perf_acc_knows(a, 0, 0) &&
	      !perf_acc_knows(a, 3000, 3000), "perf_acc_knows");
	CHECK(perf_acc_finish(a, fake_sym, NULL, &p) == 0 && p, "finish");
	perf_acc_free(a);
	if (!p)
		abort();
	return p;
}

static const struct perf_entry *find(const struct perf_profile *p, const char *app, const char *sym)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].app, app) && !strcmp(p->v[i].symbol, sym))
			return &p->v[i];
	return NULL;
}

static const struct perf_other *other(const struct perf_profile *p, int32_t pid)
{
	for (size_t i = 0; i < p->nother; i++)
		if (p->other[i].pid == pid)
			return &p->other[i];
	return NULL;
}

static bool has_stack(const struct perf_profile *p, const char *folded, uint64_t count)
{
	for (size_t i = 0; i < p->nstacks; i++)
		if (!strcmp(p->stacks[i].folded, folded))
			return p->stacks[i].count == count;
	return false;
}

/* what the window holds by construction: own 6+4+3+2, helpers 5+2; others 10+4+2+4+2+1 */
static const struct { const char *app, *sym; uint64_t self, incl; } want[] = {
	{ "fsbench", "ext4_mb_regular_allocator", 6, 9 },
	{ "fsbench", "recurse_fn", 4, 4 },               /* three frames, counted once per sample */
	{ "fsbench", "ext4_mb_new_blocks", 3, 13 },      /* twice in ch_twice: once */
	{ "fsbench", "entry_SYSCALL_64", 0, 13 },        /* never a leaf: inclusive only */
	{ "fsbench", "ext4_writepages", 0, 6 },
	{ "fsbench", "main_loop", 2, 2 },
	{ "jbd2/loop0-8", "jbd2_journal_commit_transaction", 5, 5 },
	{ "jbd2/loop0-8", "worker_thread", 0, 5 },
	{ "kworker/u4:2", "ext4_writepages", 2, 2 },     /* same symbol, another app: its own row */
	{ "kworker/u4:2", "worker_thread", 0, 2 },
};
static const struct { int32_t pid; const char *comm; uint64_t samples; } want_other[] = {
	{ 2000, "dd", 10 }, { 302, "jbd2/loop9-8", 4 }, { 500, "java", 4 },
	{ 400, "[exited]", 2 }, { 600, "kworker/x", 2 }, { 700, "dd", 1 },
};

int main(void)
{
	struct perf_profile *p, *q;
	const struct perf_entry *e;
	const struct perf_other *o;
	uint64_t sum = 0;
	double pct = 0;

	for (size_t i = 0; i < sizeof(cleans) / sizeof(cleans[0]); i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%s", cleans[i].in);
		perf_comm_clean(buf);
		CHECK(!strcmp(buf, cleans[i].out), "clean '%s': '%s', expected '%s'", cleans[i].in, buf, cleans[i].out);
	}
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		enum perf_class c = perf_classify(SELF, classes[i].pid, classes[i].comm, classes[i].kthread, devs,
						  sizeof(devs) / sizeof(devs[0]));

		CHECK(c == classes[i].want, "classify pid %d '%s' kthread %d: %d, expected %d", (int)classes[i].pid,
		      classes[i].comm ? classes[i].comm : "(null)", classes[i].kthread, c, classes[i].want);
	}
	/* without devices, no device's thread is a helper; the shared ones still are */
	CHECK(perf_classify(SELF, 52, "jbd2/loop1-8", 1, NULL, 0) == PERF_OTHER, "no devices: jbd2");
	CHECK(perf_classify(SELF, 57, "loop1", 1, NULL, 0) == PERF_OTHER, "no devices: loop1");
	CHECK(perf_classify(SELF, 50, "kworker/0:1", 1, NULL, 0) == PERF_HELPER, "no devices: kworker");

	p = window(true);
	CHECK(p->callgraph, "callgraph");
	CHECK(p->samples == 22 && p->other_samples == 23 && p->idle_samples == 5, "totals %llu %llu %llu",
	      (unsigned long long)p->samples, (unsigned long long)p->other_samples,
	      (unsigned long long)p->idle_samples);
	CHECK(fabs(p->other_pct - 100.0 * 23 / 45) < 1e-9, "other_pct %g", p->other_pct);
	for (size_t i = 0; i < p->n; i++) {
		sum += p->v[i].samples;
		pct += p->v[i].pct;
		CHECK(strncmp(p->v[i].symbol, "shmem_", 6) && strncmp(p->v[i].symbol, "copy_folio", 10),
		      "another process's kernel symbol in the table: %s %s", p->v[i].app, p->v[i].symbol);
		CHECK(!strcmp(p->v[i].app, "fsbench") || !strcmp(p->v[i].app, "jbd2/loop0-8") ||
		      !strcmp(p->v[i].app, "kworker/u4:2"), "app in the table: %s", p->v[i].app);
		CHECK(p->v[i].inclusive >= p->v[i].samples && p->v[i].inclusive <= p->samples,
		      "%s: inclusive %llu, self %llu", p->v[i].symbol, (unsigned long long)p->v[i].inclusive,
		      (unsigned long long)p->v[i].samples);
		CHECK((i < p->nself) == (p->v[i].samples > 0), "nself %zu at %zu", p->nself, i);
		if (i)
			CHECK(p->v[i - 1].samples >= p->v[i].samples, "self order at %zu", i);
	}
	CHECK(sum == 22 && fabs(pct - 100) < 1e-9, "the table's entries add up: %llu, %g%%",
	      (unsigned long long)sum, pct);
	CHECK(p->n == sizeof(want) / sizeof(want[0]) && p->nself == 6, "entries %zu, self %zu", p->n, p->nself);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		e = find(p, want[i].app, want[i].sym);
		CHECK(e && e->samples == want[i].self && e->inclusive == want[i].incl, "%s %s: %llu/%llu, expected %llu/%llu",
		      want[i].app, want[i].sym, e ? (unsigned long long)e->samples : 0ULL,
		      e ? (unsigned long long)e->inclusive : 0ULL, (unsigned long long)want[i].self,
		      (unsigned long long)want[i].incl);
	}
	e = find(p, "fsbench", "ext4_mb_new_blocks");
	CHECK(e && fabs(e->inclusive_pct - 100.0 * 13 / 22) < 1e-9 && fabs(e->pct - 100.0 * 3 / 22) < 1e-9,
	      "inclusive_pct %g", e ? e->inclusive_pct : -1);
	CHECK(find(p, "fsbench", "main_loop") && !strcmp(find(p, "fsbench", "main_loop")->image, "fsbench"), "user image");
	CHECK(p->ninc == p->n && p->inc, "inclusive order: %zu", p->ninc);
	for (size_t i = 1; i < p->ninc; i++)
		CHECK(p->v[p->inc[i - 1]].inclusive >= p->v[p->inc[i]].inclusive, "inclusive order at %zu", i);
	CHECK(p->ninc && p->v[p->inc[0]].inclusive == 13 && p->v[p->inc[1]].inclusive == 13 &&
	      !strcmp(p->v[p->inc[0]].symbol, "ext4_mb_new_blocks"), "inclusive first (ties: more self first): %s",
	      p->ninc ? p->v[p->inc[0]].symbol : "");

	CHECK(p->nother == sizeof(want_other) / sizeof(want_other[0]), "other processes: %zu", p->nother);
	for (size_t i = 0; i < sizeof(want_other) / sizeof(want_other[0]); i++) {
		o = other(p, want_other[i].pid);
		CHECK(o && !strcmp(o->comm, want_other[i].comm) && o->samples == want_other[i].samples,
		      "other %d: %s %llu", (int)want_other[i].pid, o ? o->comm : "-",
		      o ? (unsigned long long)o->samples : 0ULL);
		/* by samples, ties by pid: the order of want_other */
		CHECK(o && o == &p->other[i], "other order at %zu", i);
	}
	CHECK((o = other(p, 2000)) && fabs(o->pct - 100.0 * 10 / 45) < 1e-9, "dd pct of the machine");

	CHECK(has_stack(p, "fsbench;entry_SYSCALL_64;ext4_writepages;ext4_mb_new_blocks;ext4_mb_regular_allocator", 6),
	      "stack alloc");
	CHECK(has_stack(p, "fsbench;entry_SYSCALL_64;ext4_mb_new_blocks;recurse_fn;recurse_fn;recurse_fn", 4),
	      "stack recursion");
	CHECK(has_stack(p, "jbd2/loop0-8;worker_thread;jbd2_journal_commit_transaction", 5), "stack jbd2");
	CHECK(has_stack(p, "kworker/u4:2;worker_thread;ext4_writepages", 2), "stack kworker (clean name)");
	CHECK(has_stack(p, "fsbench;main_loop", 2), "stack user");
	CHECK(p->nstacks == 6, "stacks: the table's tasks only: %zu", p->nstacks);
	for (size_t i = 0; i < p->nstacks; i++)
		CHECK(!strstr(p->stacks[i].folded, "shmem"), "another process's stack: %s", p->stacks[i].folded);

	/* merging a second identical window: everything doubles, the percentages stay */
	q = window(true);
	CHECK(perf_profile_merge(&p, q) == 0, "merge");
	CHECK(p->samples == 44 && p->other_samples == 46 && p->idle_samples == 10 && p->nother == 6 &&
	      p->n == sizeof(want) / sizeof(want[0]) && p->nself == 6 && p->ninc == p->n,
	      "merged totals %llu %llu %zu", (unsigned long long)p->samples, (unsigned long long)p->other_samples, p->n);
	e = find(p, "fsbench", "ext4_mb_new_blocks");
	CHECK(e && e->samples == 6 && e->inclusive == 26 && fabs(e->inclusive_pct - 100.0 * 13 / 22) < 1e-9,
	      "merged inclusive");
	CHECK((o = other(p, 2000)) && o->samples == 20 && fabs(o->pct - 100.0 * 10 / 45) < 1e-9 &&
	      fabs(p->other_pct - 100.0 * 23 / 45) < 1e-9, "merged other");
	CHECK(has_stack(p, "fsbench;entry_SYSCALL_64;ext4_mb_new_blocks;recurse_fn;recurse_fn;recurse_fn", 8),
	      "merged stack");
	perf_profile_free(p);

	/* without call chains: the same attribution, no inclusive counts, no stacks */
	p = window(false);
	CHECK(!p->callgraph && p->samples == 22 && p->other_samples == 23 && p->n == 6 && p->nself == 6 &&
	      p->ninc == 0 && p->nstacks == 0 && p->nother == 6, "no chains: n %zu ninc %zu", p->n, p->ninc);
	CHECK((e = find(p, "fsbench", "ext4_mb_new_blocks")) && e->samples == 3 && e->inclusive == 0, "no chains: self");
	perf_profile_free(p);
	return check_done("test_perf_attr");
}
