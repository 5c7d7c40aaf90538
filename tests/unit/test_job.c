/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job: a phase record travels whole (job_phase_pack/unpack, its kernel view too), a rank's
 * record without its phases ships none, and the job's sums, names and runs are the same
 * whether a rank's phases are in phases[] or read back one at a time from a source (the way
 * fsbench-mpi keeps a fill's thousands of them out of memory). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/job.h"

#define NPH 40

/* a source that serves phase i of rank r from packed records, as a spool would */
struct src {
	struct pack rec[2][NPH];
	unsigned gets;
};

static int src_get(void *arg, unsigned rank, unsigned i, struct job_phase *p)
{
	struct src *s = arg;
	struct unpack u;
	int rc;

	if (rank >= 2 || i >= NPH)
		return -ENOENT;
	s->gets++;
	unpack_init(&u, s->rec[rank][i].buf, s->rec[rank][i].len);
	if (!(rc = job_phase_unpack(&u, p)) && (rc = unpack_done(&u)))
		job_phase_clear(p);
	return rc;
}

/* rank r's phase i: two phases an iteration ("create", "unlink"), rank 0 with a kernel view */
static void make_phase(struct job_rank *rk, unsigned r, unsigned i, struct kstat_delta *k)
{
	struct job_phase *p =
		job_rank_phase(rk, i / 20, i % 20, i % 2 ? "unlink" : "create", 1000000 * i + r * 1000);

	p->end_ns = p->release_ns + 500000 + r * 7000;
	p->ops = 8 + r;
	p->bytes = 4096 * (8 + r);
	p->usr_s = 0.25;
	p->at_first_set = true;
	p->at_first_ops = 7;
	if (r == 0) {
		k->have_cpu = true;
		k->cpu_s[0] = i;
		CHECK(job_phase_set_kstat(p, k) == 0, "set kstat %u", i);
	}
}

static void same_sums(const struct job *a, const struct job *b)
{
	unsigned na = 0, nb = 0;
	struct job_phase_sum *sa = job_phase_sums(a, -1, &na), *sb = job_phase_sums(b, -1, &nb);
	char xa[8][JOB_NAME_MAX], xb[8][JOB_NAME_MAX];
	unsigned ma = job_phase_names(a, 1, xa, 8), mb = job_phase_names(b, 1, xb, 8);

	CHECK(na == NPH && nb == NPH && sa && sb, "sums %u %u", na, nb);
	for (unsigned i = 0; sa && sb && i < na && i < nb; i++)
		CHECK(!memcmp(&sa[i], &sb[i], sizeof(sa[i])), "sum %u differs", i);
	CHECK(sa && sa[3].nranks == 2 && sa[3].ops == 17 &&
		      sa[3].release_max_ns - sa[3].release_min_ns == 1000,
	      "sum 3: %u ranks, %llu ops", sa ? sa[3].nranks : 0, sa ? (unsigned long long)sa[3].ops : 0);
	CHECK(ma == 2 && mb == 2 && !strcmp(xa[0], "create") && !strcmp(xb[1], "unlink"), "names %u %u", ma,
	      mb);
	CHECK(job_phase_runs(a) == 2 && job_phase_runs(b) == 2, "runs %u %u", job_phase_runs(a),
	      job_phase_runs(b));
	free(sa);
	free(sb);
}

int main(void)
{
	static struct src s;
	struct job_phase_src js = { .get = src_get, .arg = &s };
	struct job_rank mem[2] = { { .rank = 0 }, { .rank = 1 } },
			spooled[2] = { { .rank = 0 }, { .rank = 1 } };
	struct job a = { .nranks = 2, .ranks = mem }, b = { .nranks = 2, .ranks = spooled };
	struct kstat_delta *k = calloc(2, sizeof(*k));
	struct job_phase p;
	struct pack o = { 0 };
	struct unpack u;

	if (!k)
		return 1;
	for (unsigned r = 0; r < 2; r++) {
		mem[r].delivered = spooled[r].delivered = true;
		for (unsigned i = 0; i < NPH; i++) {
			make_phase(&mem[r], r, i, k);
			job_phase_pack(&mem[r].phases[i], &s.rec[r][i]);
			CHECK(!s.rec[r][i].err, "pack %u %u", r, i);
		}
		spooled[r].nphases = NPH;
		spooled[r].src = &js;
	}
	same_sums(&a, &b);
	CHECK(s.gets > 0, "the source was read");

	/* a phase comes back whole, its kernel view too */
	CHECK(job_phase_get(&spooled[0], 5, &p) == 0 && p.run == 0 && p.index == 5 &&
		      !strcmp(p.name, "unlink") && p.ops == 8 && p.usr_s == 0.25 && p.at_first_set && p.k,
	      "phase 5");
	CHECK(job_phase_kstat(&p, &k[1]) && k[1].cpu_s[0] == 5, "kernel view of phase 5");
	job_phase_clear(&p);
	CHECK(job_phase_get(&spooled[1], 5, &p) == 0 && !p.k, "rank 1 has no kernel view");
	job_phase_clear(&p);
	CHECK(job_phase_get(&mem[0], 7, &p) == 0 && p.k && p.k != mem[0].phases[7].k, "a copy from phases[]");
	job_phase_clear(&p);
	CHECK(job_phase_get(&spooled[0], NPH, &p) == -ENOENT, "past the end");

	/* a rank whose phases have a source ships none in its record */
	job_rank_pack(&spooled[0], &o);
	unpack_init(&u, o.buf, o.len);
	{
		struct job_rank back = { 0 };

		CHECK(job_rank_unpack(&back, &u) == 0 && unpack_done(&u) == 0 && back.nphases == 0,
		      "record without phases: %u", back.nphases);
		job_rank_free(&back);
	}
	pack_free(&o);
	/* a truncated phase record is an error */
	unpack_init(&u, s.rec[0][0].buf, s.rec[0][0].len - 3);
	CHECK(job_phase_unpack(&u, &p) != 0 || unpack_done(&u) != 0, "truncated record taken");
	job_phase_clear(&p);

	for (unsigned r = 0; r < 2; r++) {
		job_rank_free(&mem[r]);
		job_rank_free(&spooled[r]);
		for (unsigned i = 0; i < NPH; i++)
			pack_free(&s.rec[r][i]);
	}
	free(k);
	return check_done("test_job");
}
