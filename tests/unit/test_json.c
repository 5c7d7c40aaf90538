/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report/json: a tiotest result written as JSON and read back by the result reader has every
 * declared figure at its key with its value, unit and direction, and every histogram bucket;
 * nan/inf are written as null; fs_mark's layout (percentiles per iteration, buckets per run)
 * reads back to the run's histograms. (Hostile input: test_result_read and its corpus.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include <stdio.h>

#include "report/json.h"
#include "report/json_fs_mark.h"
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
	/* a layout after the write phase; an absent one after the random write (tmpfs) */
	r->phase[TIO_WRITE].layout = (struct tio_layout){ .measured = true, .sum = { .files = 2, .placed = 2,
		.extents = 10, .fiemap_extents = 12, .discontinuities = 4, .mapped_bytes = 8 << 20 } };
	r->phase[TIO_RWRITE].layout = (struct tio_layout){ .measured = true, .absent = true,
							   .why = "FIEMAP is not supported on tmpfs" };
	/* as the workload computes them */
	tio_result_figures(r);
}

/* The writer puts every declared figure where the reader (compare, plot) finds it, with the
 * same value, and every histogram bucket survives. */
static void roundtrip(void)
{
	char *argv[] = { (char *)"fsbench", (char *)"tiotest", (char *)"-t", (char *)"2" };
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
	CHECK(text && strstr(text, "\"extents_per_mib\": 1.25") && strstr(text, "\"discontinuities\": 4") &&
	      strstr(text, "\"absent\": \"FIEMAP is not supported on tmpfs\""),
	      "the layout: its figures and counts, or why it is absent");
	CHECK(rr_load_buffer(text, strlen(text), "t.json", &back, err, sizeof(err)) == 0, "reads back: %s", err);
	for (int p = 0; p < TIO_NPHASES; p++) {
		for (int f = 0; f < TIO_NFIGS; f++) {
			char key[96];
			const struct rr_figure *got;

			snprintf(key, sizeof(key), "%s.%s", tio_phase_name[p], tio_phase_figs[f].key);
			got = rr_find(&back, key);
			if (tio_phase_figs[f].flags & FIG_NOCOMPARE) {
				CHECK(!got, "%s: written for the text, not compared", key);
				continue;
			}
			if (!r.phase[p].ran) {
				CHECK(!got, "%s: a phase that did not run has no figures", key);
				continue;
			}
			if (isnan(r.phase[p].fig[f])) {
				CHECK(!got || isnan(got->v[0]), "%s: not computed, so absent (null), never 0", key);
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

		if (tio_run_figs[f].flags & FIG_NOCOMPARE)
			continue;
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

/* a figure that cannot be computed is null, never 0 (which reads as a measurement), nan or inf */
static void nulls(void)
{
	static const double bad[] = { NAN, -NAN, INFINITY, -INFINITY };
	struct opstat *st = malloc(sizeof(*st));
	json_t *j;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = json_num(bad[i]);
		CHECK(json_is_null(j), "json_num(%g) is not null", bad[i]);
		json_decref(j);
	}
	j = json_num(0.5);
	CHECK(json_is_real(j) && json_real_value(j) == 0.5, "json_num(0.5)");
	json_decref(j);
	j = json_num(1e308);
	CHECK(json_is_real(j), "a large finite value stays a number");
	json_decref(j);
	if (!st)
		return;
	/* no op: count 0, every other figure null */
	opstat_init(st);
	j = json_latency_summary(st);
	CHECK(json_integer_value(json_object_get(j, "count")) == 0 && json_is_null(json_object_get(j, "p99_ns")) &&
	      json_is_null(json_object_get(j, "min_ns")) && json_is_null(json_object_get(j, "mean_ns")) &&
	      !json_object_get(j, "buckets"), "empty summary");
	json_decref(j);
	opstat_add(st, 1000, 0);
	opstat_add(st, 3000, 0);
	j = json_latency_summary(st);
	CHECK(json_integer_value(json_object_get(j, "count")) == 2 &&
	      json_integer_value(json_object_get(j, "min_ns")) == 1000 &&
	      json_real_value(json_object_get(j, "mean_ns")) == 2000 &&
	      json_integer_value(json_object_get(j, "max_ns")) == 3000 &&
	      json_integer_value(json_object_get(j, "p99_ns")) == (json_int_t)hist_percentile(&st->lat, 99) &&
	      json_object_size(j) == 8, "summary: count, min, mean, p50, p90, p99, p99.9, max and nothing else");
	json_decref(j);
	free(st);
}

/* fs_mark, schema 2: three iterations whose create latencies differ; the JSON has percentiles
 * per iteration and the buckets once, per run; read back (report/result_read) the run's
 * figures are those of the merged histogram, and a null rate is an absent figure */
static void fs_mark_layout(void)
{
	char *argv[] = { (char *)"fsbench", (char *)"fs_mark" };
	struct fsm_config c = { 0 };
	struct fsm_result r = { 0 };
	struct driver_result res = { .nruns = 1, .runs = &r };
	struct json_run_info ri = { .argc = 2, .argv = argv, .workload = "fs_mark", .res = &res };
	struct fsm_iter *it = calloc(1, sizeof(*it));
	struct opstat *total = malloc(FSM_NOPS * sizeof(*total));
	json_t *iters = json_array(), *root, *lat;
	struct rr_result rr;
	const struct rr_figure *f;
	char err[512], *text;
	double rates[3] = { 100, 200, 300 };
	uint64_t files[3] = { 10, 10, 10 }, wall[3] = { 1, 1, 1 };

	if (!it || !total) {
		CHECK(0, "out of memory");
		free(it);
		free(total);
		return;
	}
	c.nthreads = 1;
	c.nfiles = 10;
	c.keep_files = true;
	for (int o = 0; o < FSM_NOPS; o++)
		opstat_init(&total[o]);
	for (unsigned i = 0; i < 3; i++) {
		it->index = i;
		it->files = 10;
		it->count = 10 * (i + 1);
		it->files_per_sec = rates[i];
		/* the second iteration's aggregate rate could not be computed */
		it->files_per_sec_aggregate = i == 1 ? NAN : rates[i];
		it->wall_ns = 1000000;
		for (int o = 0; o < FSM_NOPS; o++)
			opstat_init(&it->op[o]);
		for (int k = 0; k < 10; k++) {
			opstat_add(&it->op[FSM_CREATE], (uint64_t)(1000 * (i + 1) + 37 * k), 0);
			opstat_add(&it->op[FSM_CLOSE], 500, 0);
		}
		for (int o = 0; o < FSM_NOPS; o++)
			opstat_merge(&total[o], &it->op[o]);
		json_array_append_new(iters, fsm_json_iter(&c, it));
	}
	for (int o = 0; o < FSM_NOPS; o++) {
		r.op[o].ops = total[o].ops;
		CHECK(hist_pack(&r.op[o].lat, &total[o].lat) == 0, "pack");
	}
	r.op_total = true;
	r.niters = 3;
	r.rates = rates;
	r.agg_rates = rates;
	r.iter_files = files;
	r.iter_wall_ns = wall;
	r.total_files = 30;
	root = fsm_json(&c, &res, &iters, &ri);
	text = json_dumps(root, JSON_REAL_PRECISION(17));
	CHECK(text && !strstr(text, "nan") && !strstr(text, "inf"), "no nan/inf in the output");
	CHECK(json_integer_value(json_object_get(root, "schema_version")) == FSB_JSON_SCHEMA_VERSION, "version");
	lat = json_object_get(json_array_get(json_object_get(root, "iterations"), 0), "latency");
	CHECK(json_is_object(json_object_get(lat, "create")) && !json_object_get(json_object_get(lat, "create"), "buckets") &&
	      json_integer_value(json_object_get(json_object_get(lat, "create"), "count")) == 10,
	      "an iteration: count and percentiles, no buckets");
	CHECK(json_is_null(json_object_get(json_array_get(json_object_get(root, "iterations"), 1),
					   "files_per_sec_aggregate")), "a nan rate is written as null");
	lat = json_object_get(root, "latency");
	CHECK(json_integer_value(json_object_get(json_object_get(lat, "create"), "count")) == 30 &&
	      json_array_size(json_object_get(json_object_get(lat, "create"), "buckets")) > 3,
	      "the run: every iteration's creates, with their buckets");
	CHECK(rr_load_buffer(text, strlen(text), "fsm.json", &rr, err, sizeof(err)) == 0, "reads back: %s", err);
	f = rr_find(&rr, "create.latency_p99_ns");
	CHECK(f && f->v[0] == (double)hist_percentile(&total[FSM_CREATE].lat, 99), "create p99 of the merged histogram");
	f = rr_find(&rr, "create.latency_mean_ns");
	CHECK(f && fabs(f->v[0] - hist_mean(&total[FSM_CREATE].lat)) < 1e-9, "create mean");
	CHECK(rr.nlat >= 2 && !strcmp(rr.lat[0].name, "create") && !memcmp(rr.lat[0].h, &total[FSM_CREATE].lat,
	      sizeof(struct hist)), "the latency plot's histogram is the run's, bucket for bucket");
	CHECK(rr.nfill == 1 && rr.fill[0].n == 3, "fill: every iteration (sum-of-threads rate)");
	rr_free(&rr);
	free(text);
	json_decref(root);
	json_decref(iters);
	for (int o = 0; o < FSM_NOPS; o++)
		hist_packed_free(&r.op[o].lat);
	free(it);
	free(total);
}

int main(void)
{
	roundtrip();
	nulls();
	fs_mark_layout();
	return check_done("test_json");
}
