/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/profdiff: the ranking is by the change of cost per op (a pair where the
 * largest share change is not the largest cost change), self without call chains, inclusive
 * with them; sampling artefacts folded into their caller with chains, marked without. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/profdiff.h"

static int close_rel(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b) + 1e-12;
}

static void entry(struct perf_profile *p, size_t i, const char *image, const char *sym, uint64_t n)
{
	snprintf(p->v[i].image, sizeof(p->v[i].image), "%s", image);
	snprintf(p->v[i].symbol, sizeof(p->v[i].symbol), "%s", sym);
	p->v[i].samples = n;
}

static const struct profdiff_row *row(const struct profdiff *d, const char *sym)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].symbol, sym))
			return &d->v[i];
	return NULL;
}

int main(void)
{
	/* without call chains: self costs, the artefact marked */
	struct perf_entry va[3], vb[3];
	struct perf_profile a = { .hz = 1000, .samples = 100, .n = 3, .nself = 3, .v = va };
	struct perf_profile b = { .hz = 1000, .samples = 100, .n = 3, .nself = 3, .v = vb };
	struct profdiff d;

	memset(va, 0, sizeof(va));
	memset(vb, 0, sizeof(vb));
	/* A: 100 samples at 1000 Hz over 1000 ops, 1 us per op each; B: 100 over 50 ops, 20 us */
	entry(&a, 0, "[ext4]", "x", 10);
	entry(&a, 1, "vmlinux", "y", 80);
	entry(&a, 2, "vmlinux", "z", 10);
	entry(&b, 0, "[ext4]", "x", 50);
	entry(&b, 1, "vmlinux", "y", 40);
	entry(&b, 2, "vmlinux", "pvm_irq_enable", 10);
	CHECK(profdiff_compute(&a, 1000, &b, 50, &d) == 0, "compute");
	CHECK(!d.inclusive && d.per_op, "self and per op");
	CHECK(d.n == 4, "rows %zu", d.n);
	if (d.n == 4) {
		const struct profdiff_row *x = row(&d, "x"), *y = row(&d, "y"), *pv = row(&d, "pvm_irq_enable");

		CHECK(x && close_rel(x->a_us, 10) && close_rel(x->b_us, 1000), "x cost");
		CHECK(y && close_rel(y->a_us, 80) && close_rel(y->b_us, 800), "y cost");
		CHECK(pv && pv->artefact && close_rel(pv->b_us, 200), "artefact marked without chains");
		CHECK(!strcmp(d.v[0].symbol, "x"), "first %s", d.v[0].symbol);
	}
	profdiff_free(&d);

	/* the largest share change is not the largest cost change */
	{
		struct perf_entry wa[3], wb[3];
		struct perf_profile pa = { .hz = 1000, .samples = 200, .n = 3, .v = wa };
		struct perf_profile pb = { .hz = 1000, .samples = 200, .n = 3, .v = wb };

		memset(wa, 0, sizeof(wa));
		memset(wb, 0, sizeof(wb));
		/* A: 200 samples, 1000 ops (1 us each): s 120 (60 %), p 40 (20 %), q 40 (20 %);
		 * B: 200 samples, 100 ops (10 us each): s 30 (15 %), p 40 (20 %), q 130 (65 %).
		 * share change: s -45, q +45, p 0; cost change: s +180, p +360, q +1260 us */
		entry(&pa, 0, "vmlinux", "s", 120);
		entry(&pa, 1, "vmlinux", "p", 40);
		entry(&pa, 2, "vmlinux", "q", 40);
		entry(&pb, 0, "vmlinux", "s", 30);
		entry(&pb, 1, "vmlinux", "p", 40);
		entry(&pb, 2, "vmlinux", "q", 130);
		CHECK(profdiff_compute(&pa, 1000, &pb, 100, &d) == 0, "compute");
		CHECK(d.n == 3 && !strcmp(d.v[0].symbol, "q") && !strcmp(d.v[1].symbol, "p") &&
		      !strcmp(d.v[2].symbol, "s"), "ranked by cost: %s %s %s", d.n > 0 ? d.v[0].symbol : "",
		      d.n > 1 ? d.v[1].symbol : "", d.n > 2 ? d.v[2].symbol : "");
		/* p's share did not move at all, yet its cost per op rose tenfold */
		CHECK(d.n == 3 && close_rel(d.v[1].a_pct, 20) && close_rel(d.v[1].b_pct, 20) &&
		      close_rel(d.v[1].b_us, 400), "p: same share, 10x the cost");
		profdiff_free(&d);
		/* no ops or no frequency: ranked by the share change */
		CHECK(profdiff_compute(&pa, 0, &pb, 100, &d) == 0 && !d.per_op && isnan(d.v[0].a_us) &&
		      fabs(d.v[0].b_pct - d.v[0].a_pct) > 44, "by share without ops: %s", d.v[0].symbol);
		profdiff_free(&d);
	}

	/* artefact folding with call chains: pvm_irq_enable's samples go to its caller */
	{
		struct perf_entry ea[2], eb[2];
		struct perf_stack sa[2], sb[2];
		char s0[] = "fsbench;entry_SYSCALL_64;ext4_write;ext4_map_blocks;pvm_irq_enable";
		char s1[] = "fsbench;entry_SYSCALL_64;ext4_write;copy_user";
		char s2[] = "fsbench;entry_SYSCALL_64;btrfs_write;btrfs_csum;pvm_irq_enable";
		char s3[] = "swapper;default_idle;pv_native_safe_halt";
		struct perf_profile pa = { .hz = 100, .samples = 100, .n = 2, .v = ea, .nstacks = 2, .stacks = sa,
					   .callgraph = true };
		struct perf_profile pb = { .hz = 100, .samples = 100, .n = 2, .v = eb, .nstacks = 2, .stacks = sb,
					   .callgraph = true };
		const struct profdiff_row *m, *c, *pv, *h;

		memset(ea, 0, sizeof(ea));
		memset(eb, 0, sizeof(eb));
		entry(&pa, 0, "vmlinux", "pvm_irq_enable", 60);
		entry(&pa, 1, "vmlinux", "copy_user", 40);
		entry(&pb, 0, "vmlinux", "pvm_irq_enable", 90);
		entry(&pb, 1, "vmlinux", "pv_native_safe_halt", 10);
		sa[0] = (struct perf_stack){ s0, 60 };
		sa[1] = (struct perf_stack){ s1, 40 };
		sb[0] = (struct perf_stack){ s2, 90 };
		sb[1] = (struct perf_stack){ s3, 10 };
		CHECK(profdiff_compute(&pa, 100, &pb, 100, &d) == 0, "compute");
		CHECK(d.inclusive, "inclusive with chains");
		m = row(&d, "ext4_map_blocks");
		c = row(&d, "btrfs_csum");
		pv = row(&d, "pvm_irq_enable");
		h = row(&d, "pv_native_safe_halt");
		CHECK(!pv, "pvm_irq_enable folded away");
		CHECK(m && close_rel(m->a_self_pct, 60) && close_rel(m->a_pct, 60), "its caller has its samples as self");
		CHECK(c && close_rel(c->b_self_pct, 90) && close_rel(c->b_us, 9000), "btrfs_csum 9 ms per op inclusive");
		/* a chain of artefacts only (idle) keeps its last one */
		CHECK(h && close_rel(h->b_self_pct, 10) && !row(&d, "default_idle"), "idle halt kept once");
		/* inclusive: entry_SYSCALL_64 is on 100 % of A's and 90 % of B's chains */
		CHECK(row(&d, "entry_SYSCALL_64") && close_rel(row(&d, "entry_SYSCALL_64")->b_pct, 90), "inclusive share");
		profdiff_free(&d);
	}
	CHECK(profdiff_is_artefact("native_safe_halt") && profdiff_is_artefact("native_irq_enable") &&
	      !profdiff_is_artefact("ext4_map_blocks"), "artefact table");
	return check_done("test_profdiff");
}
