/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's "mpi" object (report/json_job.h). Presentation only: the figures are core/job.c's. */
#include "report/json_job.h"

#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/json_kstat.h"

/* an array of one element a phase: spooled when there is a spool, elements added in order and
 * one array at a time (json_spool.h) */
struct jarr {
	json_t *a;
	struct json_spool *sp;
	int seg;
};

static void jarr_init(struct jarr *x, struct json_spool *sp)
{
	x->sp = sp;
	x->seg = sp ? json_spool_new_segment(sp) : -1;
	x->a = x->seg < 0 ? json_array() : NULL;
}

static void jarr_add(struct jarr *x, json_t *v)
{
	if (x->seg < 0) {
		json_array_append_new(x->a, v);
		return;
	}
	/* a failure is the spool's, reported when the document is written */
	json_spool_add(x->sp, (unsigned)x->seg, v);
	json_decref(v);
}

static json_t *jarr_done(struct jarr *x)
{
	return x->seg < 0 ? x->a : json_spool_marker(x->sp, (unsigned)x->seg);
}

static double per_s(uint64_t n, uint64_t ns)
{
	return ns ? (double)n / ((double)ns / 1e9) : 0;
}

static json_t *phase_sum(const struct job_phase_sum *p)
{
	json_t *o = json_object();
	uint64_t w = job_phase_window_ns(p);
	uint64_t fw = p->first_end_ns > p->release_min_ns ? p->first_end_ns - p->release_min_ns : 0;

	json_object_set_new(o, "run", json_u64(p->run + 1));
	json_object_set_new(o, "index", json_u64(p->index));
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "ranks", json_u64(p->nranks));
	json_object_set_new(o, "start_skew_ns", json_u64(job_phase_skew_ns(p)));
	json_object_set_new(o, "release_first_ns", json_u64(p->release_min_ns));
	json_object_set_new(o, "release_last_ns", json_u64(p->release_max_ns));
	json_object_set_new(o, "window_ns", json_u64(w));
	json_object_set_new(o, "ops", json_u64(p->ops));
	json_object_set_new(o, "bytes", json_u64(p->bytes));
	json_object_set_new(o, "rate_mib_per_s", json_num(per_s(p->bytes, w) / 1048576.0));
	json_object_set_new(o, "ops_per_s", json_num(per_s(p->ops, w)));
	json_object_set_new(o, "cpu_usr_s", json_num(p->usr_s));
	json_object_set_new(o, "cpu_sys_s", json_num(p->sys_s));
	json_object_set_new(o, "stonewalled_ranks", json_u64(p->stonewalled));
	json_object_set_new(o, "first_rank_done_ns", json_u64(fw));
	if (p->at_first_complete)
		json_object_set_new(o, "stonewall", json_pack("{s:o,s:o,s:o,s:o}",
			"ops", json_u64(p->at_first_ops), "bytes", json_u64(p->at_first_bytes),
			"rate_mib_per_s", json_num(per_s(p->at_first_bytes, fw) / 1048576.0),
			"ops_per_s", json_num(per_s(p->at_first_ops, fw))));
	else
		json_object_set_new(o, "stonewall", json_null());
	return o;
}

/* host < 0 and rank >= 0: one rank's; host >= 0: one host's */
static json_t *lat_list(const struct job *j, int host, int rank, unsigned nruns)
{
	json_t *a = json_array();
	struct opstat *st = malloc(sizeof(*st));

	for (unsigned run = 0; st && run < nruns; run++) {
		char names[64][JOB_NAME_MAX];
		unsigned nn = job_phase_names(j, run, names, 64);

		for (unsigned k = 0; k < nn; k++) {
			json_t *o = json_object();

			job_lat_merge(j, host, rank, run, names[k], st);
			json_object_set_new(o, "run", json_u64(run + 1));
			json_object_set_new(o, "name", json_string(names[k]));
			json_object_set_new(o, "ops", json_u64(st->ops));
			json_object_set_new(o, "bytes", json_u64(st->bytes));
			json_object_set_new(o, "latency", json_latency(st));
			json_array_append_new(a, o);
		}
	}
	free(st);
	return a;
}

static json_t *host_json(const struct job *j, unsigned h, unsigned nruns, struct json_spool *sp)
{
	json_t *o = json_object(), *ranks = json_array();
	struct jarr ph, kern;
	unsigned n = 0;
	struct job_phase_sum *s = job_phase_sums(j, (int)h, &n);
	const struct job_rank *lead = &j->ranks[j->hosts[h].first_rank];
	struct kstat_delta *k = malloc(sizeof(*k));

	json_object_set_new(o, "host", json_u64(h));
	json_object_set_new(o, "name", json_string(j->hosts[h].name));
	for (unsigned r = 0; r < j->nranks; r++)
		if (j->ranks[r].host == h)
			json_array_append_new(ranks, json_u64(r));
	json_object_set_new(o, "ranks", ranks);
	jarr_init(&ph, sp);
	for (unsigned i = 0; i < n; i++)
		jarr_add(&ph, phase_sum(&s[i]));
	json_object_set_new(o, "phases", jarr_done(&ph));
	json_object_set_new(o, "latency", lat_list(j, (int)h, -1, nruns));
	jarr_init(&kern, sp);
	/* the host's kernel view: its first rank's, phase by phase */
	for (unsigned i = 0; k && lead->delivered && i < lead->nphases; i++) {
		struct job_phase p;

		if (!job_phase_get(lead, i, &p) && job_phase_kstat(&p, k))
			jarr_add(&kern,
				 json_pack("{s:o,s:o,s:s,s:o}", "run", json_u64(p.run + 1), "index",
					   json_u64(p.index), "name", p.name, "kernel", kstat_json(k)));
		job_phase_clear(&p);
	}
	free(k);
	json_object_set_new(o, "kernel", jarr_done(&kern));
	free(s);
	return o;
}

static json_t *rank_json(const struct job *j, const struct job_rank *rk, unsigned nruns,
			 struct json_spool *sp)
{
	json_t *o = json_object();
	struct jarr ph;
	char err[PATH_MAX + 768];

	json_object_set_new(o, "rank", json_u64(rk->rank));
	json_object_set_new(o, "host", json_u64(rk->host));
	json_object_set_new(o, "host_name", json_string(j->hosts[rk->host].name));
	json_object_set_new(o, "pid", json_integer(rk->pid));
	json_object_set_new(o, "clock_offset_ns", json_integer(rk->clock_offset_ns));
	json_object_set_new(o, "clock_error_ns", json_u64(rk->clock_error_ns));
	json_object_set_new(o, "result", json_boolean(rk->delivered));
	if (!rk->delivered)
		return o;
	json_object_set_new(o, "runs", json_u64(rk->nruns));
	if (rk->failed) {
		run_error_format(&rk->error, err, sizeof(err));
		json_object_set_new(o, "error", json_string(err));
		json_object_set_new(o, "error_is_own", json_boolean(!rk->echo));
	} else {
		json_object_set_new(o, "error", json_null());
	}
	json_object_set_new(o, "signal", rk->signal ? json_integer(rk->signal) : json_null());
	if (rk->full)
		json_object_set_new(o, "filesystem_full",
				    json_pack("{s:o,s:o,s:s}", "run", json_u64(rk->full_run + 1), "iteration",
					      json_u64(rk->full_units), "detail", rk->full_detail));
	else
		json_object_set_new(o, "filesystem_full", json_null());
	jarr_init(&ph, sp);
	for (unsigned i = 0; i < rk->nphases; i++) {
		struct job_phase ph1, *p = &ph1;

		if (job_phase_get(rk, i, p))
			continue;
		job_phase_clear(p);
		jarr_add(&ph, json_pack("{s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:o,s:o}", "run",
					json_u64(p->run + 1), "index", json_u64(p->index), "name", p->name,
					"release_ns", json_u64(p->release_ns), "end_ns", json_u64(p->end_ns),
					"ops", json_u64(p->ops), "bytes", json_u64(p->bytes), "cpu_usr_s",
					json_num(p->usr_s), "cpu_sys_s", json_num(p->sys_s), "stonewalled",
					p->stonewalled, "at_first_done_ops", json_u64(p->at_first_ops),
					"at_first_done_bytes", json_u64(p->at_first_bytes)));
	}
	json_object_set_new(o, "phases", jarr_done(&ph));
	json_object_set_new(o, "latency", lat_list(j, -1, (int)rk->rank, nruns));
	return o;
}

json_t *json_job(const struct job *j, struct json_spool *sp)
{
	json_t *o = json_object(), *hosts = json_array(), *ranks = json_array();
	struct jarr ph;
	unsigned n = 0, nruns = job_phase_runs(j);
	struct job_phase_sum *s = job_phase_sums(j, -1, &n);

	json_object_set_new(o, "nranks", json_u64(j->nranks));
	json_object_set_new(o, "nhosts", json_u64(j->nhosts));
	json_object_set_new(o, "threads_per_rank", json_u64(j->threads_per_rank));
	json_object_set_new(o, "shared_dir", json_boolean(j->shared_dir));
	json_object_set_new(o, "stonewall_ns", j->stonewall_ns ? json_u64(j->stonewall_ns) : json_null());
	json_object_set_new(o, "timeout_ns", json_u64(j->timeout_ns));
	json_object_set_new(o, "clock", json_pack("{s:s,s:s,s:i,s:o}", "reference",
		"rank 0's CLOCK_MONOTONIC", "method", "ping-pong, best round trip of k",
		"rounds", (int)j->clock_rounds, "max_error_ns", json_u64(job_clock_error_max(j))));
	jarr_init(&ph, sp);
	for (unsigned i = 0; i < n; i++)
		jarr_add(&ph, phase_sum(&s[i]));
	json_object_set_new(o, "phases", jarr_done(&ph));
	/* one phase list at a time (a fill has thousands): each host computes its own */
	free(s);
	for (unsigned h = 0; h < j->nhosts; h++)
		json_array_append_new(hosts, host_json(j, h, nruns, sp));
	json_object_set_new(o, "hosts", hosts);
	for (unsigned r = 0; r < j->nranks; r++)
		json_array_append_new(ranks, rank_json(j, &j->ranks[r], nruns, sp));
	json_object_set_new(o, "ranks", ranks);
	if (j->error_rank >= 0 && j->error_text[0])
		json_object_set_new(o, "first_error", json_pack("{s:i,s:s,s:s}", "rank", j->error_rank,
			"host", j->hosts[j->ranks[j->error_rank].host].name, "message", j->error_text));
	else
		json_object_set_new(o, "first_error", json_null());
	json_object_set_new(o, "missing", j->missing[0] ? json_string(j->missing) : json_null());
	return o;
}
