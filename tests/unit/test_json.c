/* report/json: a tiotest result written as JSON and read back by the result reader has every
 * declared figure at its key with its value, unit and direction, and every histogram bucket;
 * no nan/inf. (Hostile input: test_result_read and its corpus.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include <stdio.h>

#include "report/json_tiotest.h"
#include "report/result_read.h"

static uint64_t s = 7;

static uint64_t rnd(void)
{
	uint64_t z = (s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	return z ^ (z >> 31);
}

static void fill(struct tio_config *c, struct tio_result *r)
{
	memset(c, 0, sizeof(*c));
	c->threads = 2;
	c->file_bytes = 1 << 20;
	c->block_bytes = 4096;
	c->blocks = 256;
	c->random_ops = 100;
	c->dirs.n = 1;
	c->dirs.v[0] = "/dev/shm";
	c->seed = 99;
	c->run.repeat = 1;
	memset(r, 0, sizeof(*r));
	r->head.complete = true;
	r->stopped_in = -1;
	opstat_init(&r->total);
	for (int p = 0; p < TIO_NPHASES; p++) {
		struct tio_phase_result *pr = &r->phase[p];

		c->run_phase[p] = p != TIO_RREAD;
		opstat_init(&pr->st);
		pr->threads = calloc(c->threads, sizeof(*pr->threads));
		if (p == TIO_RREAD)
			continue;
		pr->ran = pr->complete = true;
		for (int i = 0; i < 5000; i++)
			opstat_add(&pr->st, rnd() % (p == 0 ? 3000000000u : 100000u) + 1, 4096);
		pr->wall_ns = 123456789 + (uint64_t)p;
		pr->first_done_ns = 100000000;
		pr->last_done_ns = pr->wall_ns;
		pr->usr_s = 0.25;
		pr->sys_s = 1.5;
		opstat_merge(&r->total, &pr->st);
	}
	/* as the workload computes them */
	tio_result_figures(r);
}

/* The writer puts every declared figure where the reader (compare, plot) finds it, with the
 * same value, and every histogram bucket survives. */
static void roundtrip(void)
{
	char *argv[] = { "fsbench", "tiotest", "-t", "2" };
	struct tio_config c;
	struct tio_result r;
	struct driver_result res = { .nruns = 1, .runs = &r, .env = { .ntargets = 1 } };
	struct json_run_info ri = { .argc = 4, .argv = argv, .workload = "tiotest", .res = &res };
	struct rr_result back;
	json_t *root;
	char err[256];
	char *text;

	fill(&c, &r);
	res.env.targets[0] = "/dev/shm";
	root = tio_json(&c, &res, &ri);
	text = json_dumps(root, JSON_REAL_PRECISION(17));
	CHECK(text && !strstr(text, "nan") && !strstr(text, "inf"), "no nan/inf in output");
	CHECK(rr_load_buffer(text, strlen(text), "t.json", &back, err, sizeof(err)) == 0, "reads back: %s", err);
	for (int p = 0; p < TIO_NPHASES; p++) {
		for (int f = 0; f < TIO_NFIGS; f++) {
			char key[96];
			const struct rr_figure *got;

			snprintf(key, sizeof(key), "%s.%s", tio_phase_name[p], tio_phase_figs[f].key);
			got = rr_find(&back, key);
			if (!r.phase[p].ran) {
				CHECK(!got, "%s: a phase that did not run has no figures", key);
				continue;
			}
			CHECK(got && fabs(got->v[0] - r.phase[p].fig[f]) <= 1e-9 * fabs(r.phase[p].fig[f]) &&
			      !strcmp(got->unit, tio_phase_figs[f].unit) &&
			      (int)got->dir == (int)tio_phase_figs[f].dir,
			      "%s: %g, written %g", key, got ? got->v[0] : -1, r.phase[p].fig[f]);
		}
	}
	for (int f = 0; f < TIO_NRFIGS; f++) {
		const struct rr_figure *got = rr_find(&back, tio_run_figs[f].key);

		CHECK(got && fabs(got->v[0] - r.fig[f]) <= 1e-9 * fabs(r.fig[f]), "%s", tio_run_figs[f].key);
	}
	for (unsigned i = 0; i < back.nlat; i++)
		for (int p = 0; p < TIO_NPHASES; p++)
			if (!strcmp(back.lat[i].name, tio_phase_name[p]))
				CHECK(!memcmp(back.lat[i].h, &r.phase[p].st.lat, sizeof(struct hist)),
				      "phase %d histogram identical", p);
	CHECK(back.nlat == 3, "three phases with latency: %u", back.nlat);
	CHECK(rr_fact_find(&back, "config.threads") && !strcmp(rr_fact_find(&back, "config.threads")->value, "2"),
	      "config.threads");
	free(text);
	json_decref(root);
	rr_free(&back);
	for (int p = 0; p < TIO_NPHASES; p++)
		free(r.phase[p].threads);
}

int main(void)
{
	roundtrip();
	return check_done("test_json");
}
