/* report/json: a tiotest result written as JSON and read back is the same result (counts,
 * times, CPU, every histogram bucket); no nan/inf; hostile input is rejected with a message. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/json.h"

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
	memset(r, 0, sizeof(*r));
	r->complete = true;
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
}

static void roundtrip(void)
{
	char *argv[] = { "fsbench", "tiotest", "-t", "2" };
	struct json_run_info ri = { 4, argv, "tiotest", NULL, 0, 0 };
	struct tio_config c;
	struct tio_result r, back;
	const char *targets[] = { "/dev/shm" };
	json_t *root, *loaded;
	json_error_t jerr;
	char err[256];
	uint64_t threads;
	char *text;

	fill(&c, &r);
	ri.targets = targets;
	ri.ntargets = 1;
	root = tio_json(&c, &r, 1, &ri);
	text = json_dumps(root, JSON_REAL_PRECISION(17));
	CHECK(text && !strstr(text, "nan") && !strstr(text, "inf"), "no nan/inf in output");
	loaded = json_loads(text, 0, &jerr);
	CHECK(loaded != NULL, "output parses: %s", jerr.text);
	CHECK(tio_json_parse(loaded, &back, &threads, err, sizeof(err)) == 0, "reads back: %s", err);
	CHECK(threads == 2, "threads");
	for (int p = 0; p < TIO_NPHASES; p++) {
		struct tio_phase_result *a = &r.phase[p], *b = &back.phase[p];

		CHECK(a->ran == b->ran, "phase %d ran", p);
		if (!a->ran)
			continue;
		CHECK(a->st.ops == b->st.ops && a->st.bytes == b->st.bytes, "phase %d ops/bytes", p);
		CHECK(a->wall_ns == b->wall_ns && a->first_done_ns == b->first_done_ns &&
		      a->last_done_ns == b->last_done_ns, "phase %d times", p);
		CHECK(fabs(a->usr_s - b->usr_s) < 1e-9 && fabs(a->sys_s - b->sys_s) < 1e-9, "phase %d cpu", p);
		CHECK(a->st.over_2s == b->st.over_2s && a->st.over_10s == b->st.over_10s, "phase %d slow ops", p);
		CHECK(!memcmp(&a->st.lat, &b->st.lat, sizeof(a->st.lat)), "phase %d histogram identical", p);
	}
	CHECK(!memcmp(&r.total.lat, &back.total.lat, sizeof(r.total.lat)), "total histogram");
	CHECK(json_is_string(json_object_get(json_object_get(loaded, "environment"), "kernel_release")),
	      "environment.kernel_release");
	free(text);
	json_decref(root);
	json_decref(loaded);
	tio_result_free(&r);
}

/* Hostile or broken inputs: each must be refused with a message, never crash. */
static const struct {
	const char *json;
	const char *want;
} hostile[] = {
	{ "[]", "not an fsbench result" },
	{ "{\"schema\":\"other\"}", "not an fsbench result" },
	{ "{\"schema\":\"fsbench-result\",\"schema_version\":99}", "unsupported schema_version" },
	{ "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"fs_mark\"}", "not a tiotest result" },
	{ "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"tiotest\"}", "threads" },
	{ "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"tiotest\",\"config\":{\"threads\":1}}", "phases" },
	{ "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"tiotest\",\"config\":{\"threads\":1},"
	  "\"phases\":[{\"name\":\"bogus\"}]}", "unknown name" },
	{ "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"tiotest\",\"config\":{\"threads\":1},"
	  "\"phases\":[{\"name\":\"write\",\"wall_ns\":-5}]}", "wall_ns" },
	{ "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"tiotest\",\"config\":{\"threads\":1},"
	  "\"phases\":[{\"name\":\"write\",\"wall_ns\":5,\"first_done_ns\":1,\"last_done_ns\":5,\"cpu_usr_s\":0,"
	  "\"cpu_sys_s\":0,\"latency\":{\"count\":3,\"sum_ns\":3,\"min_ns\":1,\"max_ns\":1,\"over_2s_count\":0,"
	  "\"over_10s_count\":0,\"buckets\":[[1,1,2]]}}]}", "add up to 2" },
	{ "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"tiotest\",\"config\":{\"threads\":1},"
	  "\"phases\":[{\"name\":\"write\",\"wall_ns\":5,\"first_done_ns\":1,\"last_done_ns\":5,\"cpu_usr_s\":0,"
	  "\"cpu_sys_s\":0,\"latency\":{\"count\":1,\"sum_ns\":3,\"min_ns\":1,\"max_ns\":1,\"over_2s_count\":0,"
	  "\"over_10s_count\":0,\"buckets\":[[129,129,1]]}}]}", "bucket 0 is malformed" },
	{ "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"tiotest\",\"config\":{\"threads\":1},"
	  "\"phases\":[{\"name\":\"write\",\"wall_ns\":5,\"first_done_ns\":1,\"last_done_ns\":5,\"cpu_usr_s\":0,"
	  "\"cpu_sys_s\":0,\"latency\":{\"count\":1,\"sum_ns\":3,\"min_ns\":1,\"max_ns\":1,\"over_2s_count\":0,"
	  "\"over_10s_count\":0,\"buckets\":[\"x\"]}}]}", "malformed" },
};

int main(void)
{
	roundtrip();
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		json_error_t jerr;
		json_t *j = json_loads(hostile[i].json, 0, &jerr);
		struct tio_result r;
		uint64_t t;
		char err[256] = "";

		CHECK(j != NULL, "case %zu is valid JSON", i);
		CHECK(tio_json_parse(j, &r, &t, err, sizeof(err)) != 0 && strstr(err, hostile[i].want),
		      "hostile case %zu: got '%s', want '%s'", i, err, hostile[i].want);
		json_decref(j);
	}
	return check_done("test_json");
}
