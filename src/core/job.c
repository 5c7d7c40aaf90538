/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's records of its processes' phases (core/job.h): taken, shipped, summed up. */
#include "core/job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct job_phase *job_rank_phase(struct job_rank *r, unsigned run, unsigned index,
				 const char *name, uint64_t release_ns)
{
	struct job_phase *p;

	if (r->nphases == r->capphases) {
		unsigned cap = r->capphases ? r->capphases * 2 : 16;

		if (!(p = realloc(r->phases, cap * sizeof(*p))))
			return NULL;
		r->phases = p;
		r->capphases = cap;
	}
	p = &r->phases[r->nphases++];
	memset(p, 0, sizeof(*p));
	p->run = run;
	p->index = index;
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
	p->release_ns = p->end_ns = release_ns;
	return p;
}

static struct job_lat *lat_find(struct job_rank *r, unsigned run, const char *name, bool add)
{
	struct job_lat *l;

	for (unsigned i = 0; i < r->nlat; i++)
		if (r->lat[i].run == run && !strcmp(r->lat[i].name, name))
			return &r->lat[i];
	if (!add)
		return NULL;
	if (r->nlat == r->caplat) {
		unsigned cap = r->caplat ? r->caplat * 2 : 8;

		if (!(l = realloc(r->lat, cap * sizeof(*l))))
			return NULL;
		r->lat = l;
		r->caplat = cap;
	}
	l = &r->lat[r->nlat];
	memset(l, 0, sizeof(*l));
	l->run = run;
	snprintf(l->name, sizeof(l->name), "%s", name);
	if (!(l->h = malloc(sizeof(*l->h))))
		return NULL;
	hist_init(l->h);
	r->nlat++;
	return l;
}

int job_rank_lat_add(struct job_rank *r, unsigned run, const char *name, const struct opstat *s)
{
	struct job_lat *l = lat_find(r, run, name ? name : "", true);

	if (!l || !l->h)
		return -ENOMEM;
	l->ops += s->ops;
	l->bytes += s->bytes;
	l->over_2s += s->over_2s;
	l->over_10s += s->over_10s;
	hist_merge(l->h, &s->lat);
	return 0;
}

int job_phase_set_kstat(struct job_phase *p, const struct kstat_delta *k)
{
	struct pack o = { 0 };

	pack_kstat(&o, k);
	if (o.err) {
		pack_free(&o);
		return -ENOMEM;
	}
	free(p->k);
	p->k = o.buf;
	p->klen = o.len;
	return 0;
}

bool job_phase_kstat(const struct job_phase *p, struct kstat_delta *k)
{
	struct unpack u;

	if (!p->k)
		return false;
	unpack_init(&u, p->k, p->klen);
	unpack_kstat(&u, k);
	return !unpack_done(&u);
}

int job_phase_get(const struct job_rank *r, unsigned i, struct job_phase *p)
{
	memset(p, 0, sizeof(*p));
	if (i >= r->nphases)
		return -ENOENT;
	if (!r->phases)
		return r->src ? r->src->get(r->src->arg, r->rank, i, p) : -ENOENT;
	*p = r->phases[i];
	p->k = NULL;
	if (r->phases[i].k && !(p->k = malloc(p->klen)))
		return -ENOMEM;
	if (p->k)
		memcpy(p->k, r->phases[i].k, p->klen);
	return 0;
}

void job_phase_clear(struct job_phase *p)
{
	free(p->k);
	p->k = NULL;
	p->klen = 0;
}

void job_rank_free_phases(struct job_rank *r)
{
	for (unsigned i = 0; r->phases && i < r->nphases; i++)
		free(r->phases[i].k);
	free(r->phases);
	r->phases = NULL;
	r->nphases = r->capphases = 0;
}

void job_rank_free_records(struct job_rank *r)
{
	job_rank_free_phases(r);
	for (unsigned i = 0; i < r->nlat; i++) {
		free(r->lat[i].h);
		hist_packed_free(&r->lat[i].p);
	}
	free(r->lat);
	r->lat = NULL;
	r->nlat = r->caplat = 0;
}

void job_rank_free(struct job_rank *r)
{
	job_rank_free_records(r);
	memset(r, 0, sizeof(*r));
}

/* ---- records travel ------------------------------------------------------------------------ */
void job_phase_pack(const struct job_phase *p, struct pack *o)
{
	pack_u64(o, p->run);
	pack_u64(o, p->index);
	pack_str(o, p->name);
	pack_u64(o, p->release_ns);
	pack_u64(o, p->end_ns);
	pack_u64(o, p->ops);
	pack_u64(o, p->bytes);
	pack_f64(o, p->usr_s);
	pack_f64(o, p->sys_s);
	pack_u64(o, p->stonewalled);
	pack_u64(o, p->at_first_set);
	pack_u64(o, p->at_first_ops);
	pack_u64(o, p->at_first_bytes);
	pack_u64(o, p->k != NULL);
	if (p->k)
		pack_bytes(o, p->k, p->klen);
}

void job_rank_pack(const struct job_rank *r, struct pack *o)
{
	pack_u64(o, r->rank);
	pack_u64(o, r->host);
	pack_i64(o, r->pid);
	pack_i64(o, r->clock_offset_ns);
	pack_u64(o, r->clock_error_ns);
	pack_u64(o, r->nruns);
	pack_u64(o, r->failed);
	pack_u64(o, r->echo);
	pack_u64(o, r->nostart);
	pack_u64(o, r->cleanup_failed);
	pack_i64(o, r->signal);
	pack_u64(o, r->error_ns);
	pack_i64(o, r->error.err);
	pack_str(o, r->error.syscall);
	pack_str(o, r->error.path);
	pack_i64(o, r->error.offset);
	pack_str(o, r->error.detail);
	pack_u64(o, r->full);
	pack_u64(o, r->full_run);
	pack_u64(o, r->full_units);
	pack_str(o, r->full_detail);
	pack_u64(o, r->phases ? r->nphases : 0);
	for (unsigned i = 0; r->phases && i < r->nphases; i++)
		job_phase_pack(&r->phases[i], o);
	pack_u64(o, r->nlat);
	for (unsigned i = 0; i < r->nlat; i++) {
		static const struct hist empty = { .min = UINT64_MAX };
		const struct job_lat *l = &r->lat[i];

		pack_u64(o, l->run);
		pack_str(o, l->name);
		pack_u64(o, l->ops);
		pack_u64(o, l->bytes);
		pack_u64(o, l->over_2s);
		pack_u64(o, l->over_10s);
		if (l->h)
			pack_hist(o, l->h);
		else if (l->p.n || l->p.count)
			pack_hist_packed(o, &l->p);
		else
			pack_hist(o, &empty);
	}
}

/* a kernel view in pack_kstat's form: checked, and kept as it travelled */
static int unpack_phase_kstat(struct unpack *u, struct job_phase *p)
{
	struct kstat_delta *k = malloc(sizeof(*k));
	size_t off = u->off;

	if (!k)
		return -ENOMEM;
	unpack_kstat(u, k);
	free(k);
	if (u->err)
		return -EPROTO;
	if (!(p->k = malloc(u->off - off)))
		return -ENOMEM;
	memcpy(p->k, u->buf + off, u->off - off);
	p->klen = u->off - off;
	return 0;
}

int job_phase_unpack(struct unpack *u, struct job_phase *p)
{
	memset(p, 0, sizeof(*p));
	p->run = (unsigned)unpack_u64(u);
	p->index = (unsigned)unpack_u64(u);
	unpack_str_to(u, p->name, sizeof(p->name));
	p->release_ns = unpack_u64(u);
	p->end_ns = unpack_u64(u);
	p->ops = unpack_u64(u);
	p->bytes = unpack_u64(u);
	p->usr_s = unpack_f64(u);
	p->sys_s = unpack_f64(u);
	p->stonewalled = unpack_u64(u);
	p->at_first_set = unpack_u64(u);
	p->at_first_ops = unpack_u64(u);
	p->at_first_bytes = unpack_u64(u);
	if (unpack_u64(u))
		return unpack_phase_kstat(u, p);
	return u->err ? -EPROTO : 0;
}

int job_rank_unpack(struct job_rank *r, struct unpack *u)
{
	uint64_t n;
	int rc;

	r->rank = (unsigned)unpack_u64(u);
	r->host = (unsigned)unpack_u64(u);
	r->pid = (int)unpack_i64(u);
	r->clock_offset_ns = unpack_i64(u);
	r->clock_error_ns = unpack_u64(u);
	r->nruns = (unsigned)unpack_u64(u);
	r->failed = unpack_u64(u);
	r->echo = unpack_u64(u);
	r->nostart = unpack_u64(u);
	r->cleanup_failed = unpack_u64(u);
	r->signal = (int)unpack_i64(u);
	r->error_ns = unpack_u64(u);
	r->error.err = (int)unpack_i64(u);
	unpack_str_to(u, r->syscall, sizeof(r->syscall));
	r->error.syscall = r->syscall[0] ? r->syscall : NULL;
	unpack_str_to(u, r->error.path, sizeof(r->error.path));
	r->error.offset = unpack_i64(u);
	unpack_str_to(u, r->error.detail, sizeof(r->error.detail));
	r->full = unpack_u64(u);
	r->full_run = (unsigned)unpack_u64(u);
	r->full_units = (unsigned)unpack_u64(u);
	unpack_str_to(u, r->full_detail, sizeof(r->full_detail));
	n = unpack_u64(u);
	if (u->err || n > u->len)
		return -EPROTO;
	if (n && !(r->phases = calloc(n, sizeof(*r->phases))))
		return -ENOMEM;
	r->capphases = (unsigned)n;
	for (; r->nphases < n && !u->err; r->nphases++) {
		if ((rc = job_phase_unpack(u, &r->phases[r->nphases])))
			return rc;
	}
	n = unpack_u64(u);
	if (u->err || n > u->len)
		return -EPROTO;
	if (n && !(r->lat = calloc(n, sizeof(*r->lat))))
		return -ENOMEM;
	r->caplat = (unsigned)n;
	for (; r->nlat < n && !u->err; r->nlat++) {
		struct job_lat *l = &r->lat[r->nlat];

		l->run = (unsigned)unpack_u64(u);
		unpack_str_to(u, l->name, sizeof(l->name));
		l->ops = unpack_u64(u);
		l->bytes = unpack_u64(u);
		l->over_2s = unpack_u64(u);
		l->over_10s = unpack_u64(u);
		unpack_hist_packed(u, &l->p);
	}
	return u->err;
}

/* ---- rank 0 sums up --------------------------------------------------------------------------- */
static int cmp_sum(const void *a, const void *b)
{
	const struct job_phase_sum *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* the sum of (p->run, p->index) in s[0..*ns), added when new; NULL: no memory */
static struct job_phase_sum *sum_of(struct job_phase_sum **s, unsigned *ns, unsigned *cap,
				    const struct job_phase *p)
{
	struct job_phase_sum *x;

	for (unsigned k = *ns; k-- > 0;)
		if ((*s)[k].run == p->run && (*s)[k].index == p->index)
			return &(*s)[k];
	if (*ns == *cap) {
		unsigned nc = *cap ? *cap * 2 : 16;

		if (!(x = realloc(*s, nc * sizeof(*x))))
			return NULL;
		*s = x;
		*cap = nc;
	}
	x = &(*s)[(*ns)++];
	memset(x, 0, sizeof(*x));
	x->run = p->run;
	x->index = p->index;
	memcpy(x->name, p->name, sizeof(x->name));
	x->release_min_ns = x->first_end_ns = UINT64_MAX;
	x->at_first_complete = true;
	return x;
}

static void sum_add(struct job_phase_sum *x, const struct job_phase *p)
{
	x->nranks++;
	if (p->release_ns < x->release_min_ns)
		x->release_min_ns = p->release_ns;
	if (p->release_ns > x->release_max_ns)
		x->release_max_ns = p->release_ns;
	if (p->end_ns < x->first_end_ns)
		x->first_end_ns = p->end_ns;
	if (p->end_ns > x->last_end_ns)
		x->last_end_ns = p->end_ns;
	x->ops += p->ops;
	x->bytes += p->bytes;
	x->at_first_ops += p->at_first_ops;
	x->at_first_bytes += p->at_first_bytes;
	x->at_first_complete = x->at_first_complete && p->at_first_set;
	x->usr_s += p->usr_s;
	x->sys_s += p->sys_s;
	x->stonewalled += p->stonewalled;
}

struct job_phase_sum *job_phase_sums(const struct job *j, int host, unsigned *n)
{
	struct job_phase_sum *s = NULL;
	unsigned ns = 0, cap = 0;

	*n = 0;
	for (unsigned r = 0; r < j->nranks; r++) {
		const struct job_rank *rk = &j->ranks[r];

		if (!rk->delivered || (host >= 0 && rk->host != (unsigned)host))
			continue;
		for (unsigned i = 0; i < rk->nphases; i++) {
			struct job_phase p;
			struct job_phase_sum *x;

			/* a phase that cannot be read back is left out, as a rank not heard from */
			if (job_phase_get(rk, i, &p))
				continue;
			x = sum_of(&s, &ns, &cap, &p);
			job_phase_clear(&p);
			if (!x) {
				free(s);
				return NULL;
			}
			sum_add(x, &p);
		}
	}
	if (ns)
		qsort(s, ns, sizeof(*s), cmp_sum);
	*n = ns;
	return s;
}

void job_lat_merge(const struct job *j, int host, int rank, unsigned run, const char *name,
		   struct opstat *s)
{
	struct hist *t = malloc(sizeof(*t));

	opstat_init(s);
	for (unsigned r = 0; t && r < j->nranks; r++) {
		const struct job_rank *rk = &j->ranks[r];

		if (!rk->delivered || (host >= 0 && rk->host != (unsigned)host) ||
		    (rank >= 0 && rk->rank != (unsigned)rank))
			continue;
		for (unsigned i = 0; i < rk->nlat; i++) {
			const struct job_lat *l = &rk->lat[i];

			if (l->run != run || strcmp(l->name, name))
				continue;
			s->ops += l->ops;
			s->bytes += l->bytes;
			s->over_2s += l->over_2s;
			s->over_10s += l->over_10s;
			if (l->h) {
				hist_merge(&s->lat, l->h);
			} else {
				hist_unpack(&l->p, t);
				hist_merge(&s->lat, t);
			}
		}
	}
	free(t);
}

unsigned job_phase_names(const struct job *j, unsigned run, char (*names)[JOB_NAME_MAX], unsigned max)
{
	unsigned n = 0;

	for (unsigned r = 0; r < j->nranks; r++) {
		const struct job_rank *rk = &j->ranks[r];

		for (unsigned i = 0; rk->delivered && i < rk->nphases; i++) {
			struct job_phase p;
			unsigned k;

			if (job_phase_get(rk, i, &p))
				continue;
			job_phase_clear(&p);
			if (p.run != run)
				continue;
			for (k = 0; k < n && strcmp(names[k], p.name); k++)
				;
			if (k == n && n < max)
				memcpy(names[n++], p.name, JOB_NAME_MAX);
		}
	}
	return n;
}

unsigned job_phase_runs(const struct job *j)
{
	unsigned n = 0;

	for (unsigned r = 0; r < j->nranks; r++)
		for (unsigned i = 0; j->ranks[r].delivered && i < j->ranks[r].nphases; i++) {
			struct job_phase p;

			if (!job_phase_get(&j->ranks[r], i, &p) && p.run + 1 > n)
				n = p.run + 1;
			job_phase_clear(&p);
		}
	return n;
}

uint64_t job_clock_error_max(const struct job *j)
{
	uint64_t m = 0;

	for (unsigned r = 0; r < j->nranks; r++)
		if (j->ranks[r].clock_error_ns > m)
			m = j->ranks[r].clock_error_ns;
	return m;
}

void job_free(struct job *j)
{
	for (unsigned r = 0; j->ranks && r < j->nranks; r++)
		job_rank_free(&j->ranks[r]);
	free(j->ranks);
	free(j->hosts);
	j->ranks = NULL;
	j->hosts = NULL;
	j->nranks = j->nhosts = 0;
}
