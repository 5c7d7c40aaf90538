/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf_profile_merge: two synthetic profiles with shared and distinct symbols and stacks add
 * up (entries, stacks, totals, pct, order); NULL on either side; under ASan nothing leaks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sys/perf.h"

struct ent {
	const char *image, *symbol;
	uint64_t samples;
};

struct stk {
	const char *folded;
	uint64_t count;
};

/* built as perf_end() builds one: calloc'd profile, entries and stacks malloc'd, folded strdup'd */
static struct perf_profile *mk(const struct ent *e, size_t n, const struct stk *s, size_t ns,
			       uint64_t samples, uint64_t lost, uint64_t wall_ns, unsigned ncpus)
{
	struct perf_profile *p = calloc(1, sizeof(*p));

	if (!p)
		abort();
	p->hz = PERF_DEFAULT_HZ;
	p->ncpus = ncpus;
	p->samples = samples;
	p->lost = lost;
	p->wall_ns = wall_ns;
	p->n = n;
	p->v = calloc(n ? n : 1, sizeof(*p->v));
	p->nstacks = ns;
	p->stacks = ns ? calloc(ns, sizeof(*p->stacks)) : NULL;
	if (!p->v || (ns && !p->stacks))
		abort();
	for (size_t i = 0; i < n; i++) {
		snprintf(p->v[i].image, sizeof(p->v[i].image), "%s", e[i].image);
		snprintf(p->v[i].symbol, sizeof(p->v[i].symbol), "%s", e[i].symbol);
		p->v[i].samples = e[i].samples;
		p->v[i].pct = samples ? 100.0 * (double)e[i].samples / (double)samples : 0;
	}
	for (size_t i = 0; i < ns; i++) {
		if (!(p->stacks[i].folded = strdup(s[i].folded)))
			abort();
		p->stacks[i].count = s[i].count;
	}
	return p;
}

static const struct perf_entry *find(const struct perf_profile *p, const char *image, const char *sym)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].image, image) && !strcmp(p->v[i].symbol, sym))
			return &p->v[i];
	return NULL;
}

static const struct perf_stack *find_stack(const struct perf_profile *p, const char *folded)
{
	for (size_t i = 0; i < p->nstacks; i++)
		if (!strcmp(p->stacks[i].folded, folded))
			return &p->stacks[i];
	return NULL;
}

static const struct ent ea[] = {
	{ "vmlinux", "ext4_create", 50 },
	{ "vmlinux", "do_sys_openat2", 30 },
	{ "ext4", "ext4_mark_inode_dirty", 15 },
	{ "fsbench", "fsm_work", 5 },
};
static const struct stk sa[] = {
	{ "fsbench;do_sys_openat2;ext4_create", 40 },
	{ "fsbench;fsm_work", 5 },
	{ "jbd2/sda1-8;kjournald2", 3 },
};
/* "ext4_create" of another image stays a distinct entry, and ties ext4_mark_inode_dirty's 15 */
static const struct ent eb[] = {
	{ "vmlinux", "do_sys_openat2", 40 },
	{ "vmlinux", "vfs_unlink", 20 },
	{ "ext4", "ext4_create", 15 },
	{ "vmlinux", "ext4_create", 25 },
};
static const struct stk sb[] = {
	{ "fsbench;do_sys_openat2;ext4_create", 20 },
	{ "fsbench;vfs_unlink", 25 },
};

int main(void)
{
	struct perf_profile *dst = NULL, *a, *b;
	const struct perf_entry *e;
	const struct perf_stack *st;
	uint64_t sum = 0;
	double pct = 0;

	/* NULL source: nothing happens; NULL destination: the source is taken over as it is */
	CHECK(perf_profile_merge(&dst, NULL) == 0 && dst == NULL, "NULL into NULL");
	a = mk(ea, 4, sa, 3, 100, 2, 1000000, 4);
	CHECK(perf_profile_merge(&dst, a) == 0 && dst == a, "the first profile is taken over");
	CHECK(perf_profile_merge(&dst, NULL) == 0 && dst == a && dst->n == 4, "NULL source changes nothing");

	b = mk(eb, 4, sb, 2, 100, 1, 3000000, 8);
	CHECK(perf_profile_merge(&dst, b) == 0, "merge");
	CHECK(dst == a, "the destination stays");
	CHECK(dst->samples == 200 && dst->lost == 3 && dst->wall_ns == 4000000, "totals %llu %llu %llu",
	      (unsigned long long)dst->samples, (unsigned long long)dst->lost, (unsigned long long)dst->wall_ns);
	CHECK(dst->ncpus == 8 && dst->hz == PERF_DEFAULT_HZ, "ncpus %u", dst->ncpus);
	/* 4 + 4 entries, 2 shared (vmlinux ext4_create, vmlinux do_sys_openat2) */
	CHECK(dst->n == 6, "entries %zu", dst->n);
	CHECK((e = find(dst, "vmlinux", "ext4_create")) && e->samples == 75, "ext4_create adds up");
	CHECK((e = find(dst, "vmlinux", "do_sys_openat2")) && e->samples == 70, "do_sys_openat2 adds up");
	CHECK((e = find(dst, "ext4", "ext4_create")) && e->samples == 15, "same symbol, other image: distinct");
	CHECK((e = find(dst, "ext4", "ext4_mark_inode_dirty")) && e->samples == 15, "only in a");
	CHECK((e = find(dst, "vmlinux", "vfs_unlink")) && e->samples == 20, "only in b");
	CHECK((e = find(dst, "fsbench", "fsm_work")) && e->samples == 5, "only in a (2)");
	CHECK(dst->v[0].samples == 75 && !strcmp(dst->v[0].symbol, "ext4_create"), "most samples first");
	CHECK(fabs(dst->v[0].pct - 37.5) < 1e-9, "pct recomputed: %g", dst->v[0].pct);
	for (size_t i = 0; i < dst->n; i++) {
		sum += dst->v[i].samples;
		pct += dst->v[i].pct;
		if (i)
			CHECK(dst->v[i - 1].samples > dst->v[i].samples ||
			      (dst->v[i - 1].samples == dst->v[i].samples &&
			       (strcmp(dst->v[i - 1].image, dst->v[i].image) < 0 ||
				(!strcmp(dst->v[i - 1].image, dst->v[i].image) &&
				 strcmp(dst->v[i - 1].symbol, dst->v[i].symbol) < 0))),
			      "order at %zu", i);
	}
	/* equal samples go by image, then symbol: ext4 ext4_create before ext4 ext4_mark_inode_dirty */
	CHECK(!strcmp(dst->v[3].symbol, "ext4_create") && !strcmp(dst->v[4].symbol, "ext4_mark_inode_dirty"),
	      "tie order: %s, %s", dst->v[3].symbol, dst->v[4].symbol);
	CHECK(sum == 200 && fabs(pct - 100) < 1e-9, "entries add up to the total: %llu, %g%%",
	      (unsigned long long)sum, pct);

	/* 3 + 2 stacks, one shared */
	CHECK(dst->nstacks == 4, "stacks %zu", dst->nstacks);
	CHECK((st = find_stack(dst, "fsbench;do_sys_openat2;ext4_create")) && st->count == 60, "stack adds up");
	CHECK((st = find_stack(dst, "fsbench;vfs_unlink")) && st->count == 25, "stack only in b");
	CHECK((st = find_stack(dst, "fsbench;fsm_work")) && st->count == 5, "stack only in a");
	CHECK((st = find_stack(dst, "jbd2/sda1-8;kjournald2")) && st->count == 3, "stack only in a (2)");
	CHECK(dst->stacks[0].count == 60 && dst->stacks[3].count == 3, "stacks: most first");
	for (size_t i = 1; i < dst->nstacks; i++)
		CHECK(dst->stacks[i - 1].count >= dst->stacks[i].count, "stack order at %zu", i);

	/* a profile without stacks into one with them, and an empty one */
	b = mk(ea + 3, 1, NULL, 0, 5, 0, 500, 1);
	CHECK(perf_profile_merge(&dst, b) == 0 && dst->n == 6 && dst->nstacks == 4 && dst->samples == 205,
	      "no stacks: n %zu nstacks %zu samples %llu", dst->n, dst->nstacks, (unsigned long long)dst->samples);
	CHECK((e = find(dst, "fsbench", "fsm_work")) && e->samples == 10, "fsm_work 10");
	b = mk(NULL, 0, NULL, 0, 0, 0, 0, 0);
	CHECK(perf_profile_merge(&dst, b) == 0 && dst->n == 6 && dst->samples == 205 && dst->ncpus == 8,
	      "empty profile");
	perf_profile_free(dst);
	return check_done("test_perf_merge");
}
