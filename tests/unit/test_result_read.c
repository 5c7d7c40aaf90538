/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for report/result_read: synthetic results with known numbers become the expected
 * figures (units, directions, per-run values, facts, histograms, series); and every file of
 * the fuzz corpus (tests/fuzz/corpus) is replayed through the fuzz target: the valid_* files
 * load, every other one is rejected with the expected one-line reason. */
#define FUZZ_RESULT_NO_MAIN
#include "../fuzz/fuzz_result.c"

#include <math.h>

#include "check.h"
#include "core/hist.h"

static const struct { const char *file, *why; } corpus[] = {
	{ "valid_tiotest.json", NULL },
	{ "valid_fs_mark.json", NULL },
	{ "valid_label_control_chars.json", NULL },
	{ "valid_runs.json", NULL },
	{ "valid_no_phases.json", NULL },
	{ "valid_deep_config.json", NULL },
	/* real fs_mark results (-L 2 -n 20 -s 1024 -S 1 -t 2 --repeat 2): schema 1, buckets in every
	 * iteration (what fsbench wrote before schema 2), and schema 2, buckets per run */
	{ "valid_fs_mark_v1_real.json", NULL },
	{ "valid_fs_mark_v2_real.json", NULL },
	{ "empty.json", "not valid JSON" },
	{ "truncated.json", "premature end of input" },
	{ "not_json.txt", "not valid JSON" },
	{ "nul_byte.json", "not valid JSON" },
	{ "top_array.json", "top level is not an object" },
	{ "wrong_schema.json", "not an fsbench result" },
	{ "wrong_version.json", "unsupported schema_version" },
	{ "unknown_workload.json", "unknown workload 'fio?'" },
	{ "phases_not_array.json", "'phases' is missing or not an array" },
	{ "rate_string.json", "phases[0]: field 'rate_mib_per_s' is missing or not a number" },
	{ "rate_negative.json", "out of range" },
	{ "real_overflow.json", "real number overflow" },
	{ "int_overflow.json", "too big integer" },
	{ "huge_value.json", "field 'iops' is out of range" },
	{ "deep_nesting.json", "maximum parsing depth" },
	{ "too_many_runs.json", "more than 1000 runs" },
	{ "runs_empty.json", "'runs' is empty" },
	{ "run_not_object.json", "runs[0]: a run is not an object" },
	{ "buckets_mismatch.json", "buckets add up to" },
	{ "bucket_bad_low.json", "bucket 0 is malformed" },
	{ "bucket_short.json", "is malformed" },
	{ "buckets_giant.json", "buckets add up to" },
	{ "duplicate_key.json", "duplicate object key" },
	{ "duplicate_phase.json", "appears twice" },
	{ "phase_name_empty.json", "empty name" },
	{ "phase_name_long.json", "longer than" },
	{ "too_many_phases.json", "more than 64 phases" },
	{ "interval_missing_fields.json", "phases[0].intervals[0]: field 'dt_ns'" },
	{ "intervals_not_array.json", "'intervals' is not an array" },
	{ "label_number.json", "'label' is not a string" },
	{ "no_config.json", "'config' is missing" },
	{ "complete_string.json", "'complete' is missing or not a boolean" },
	{ "fs_mark_no_summary.json", "summary.files_per_sec_sum_of_threads.average" },
	{ "fs_mark_latency_array.json", "iterations[0]: field 'latency'" },
	{ "fs_mark_iteration_number.json", "iterations[0]: not an object" },
	{ "fs_mark_no_end.json", "'end.reason'" },
	{ "fs_mark_empty_op.json", "op name is empty" },
	{ "fs_mark_intervals_not_array.json", "iterations[1]: field 'intervals' is not an array" },
	{ "fs_mark_v2_run_latency_array.json", "runs[0]: field 'latency' is not an object" },
	{ "fs_mark_v2_run_buckets_mismatch.json", "runs[1].latency: create: latency buckets add up to 80, count says 81" },
};

static char json[65536];

static const char *lat(uint64_t v)
{
	static char buf[512];
	uint64_t lo, hi;

	hist_bucket_range(hist_index(v), &lo, &hi);
	snprintf(buf, sizeof(buf), "{\"count\":1,\"min_ns\":%llu,\"max_ns\":%llu,\"sum_ns\":%llu,\"mean_ns\":%llu,"
		 "\"p99_ns\":%llu,\"over_2s_count\":0,\"over_10s_count\":0,\"buckets\":[[%llu,%llu,1]]}",
		 (unsigned long long)v, (unsigned long long)v, (unsigned long long)v, (unsigned long long)v,
		 (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
	return buf;
}

static void run_json(char *buf, size_t len, double rate, uint64_t p99)
{
	char l[512];

	snprintf(l, sizeof(l), "%s", lat(p99));
	snprintf(buf, len, "{\"complete\":true,\"stop_reason\":null,\"phases\":[{\"name\":\"write\","
		 "\"rate_mib_per_s\":%g,\"iops\":%g,\"cpu_usr_pct\":1,\"cpu_sys_pct\":2,\"latency\":%s,"
		 "\"intervals\":[{\"t_ns\":500000000,\"dt_ns\":500000000,\"ops\":10,\"bytes\":1048576},"
		 "{\"t_ns\":1000000000,\"dt_ns\":500000000,\"ops\":20,\"bytes\":2097152}]}],\"total_latency\":%s}",
		 rate, rate * 256, l, l);
}

/* one fs_mark iteration: files_per_sec files/s; intervals: the array's JSON, or NULL for none */
static void iter_json(char *buf, size_t len, double files_per_sec, uint64_t wall_ns, const char *intervals)
{
	snprintf(buf, len, "{\"files\":100,\"count\":100,\"fs_use_pct\":1,\"files_per_sec_sum_of_threads\":%g,"
		 "\"wall_ns\":%llu,\"app_overhead_ns\":10,\"phases\":{},\"latency\":{\"create\":%s}%s%s}",
		 files_per_sec, (unsigned long long)wall_ns, lat(5000), intervals ? ",\"intervals\":" : "",
		 intervals ? intervals : "");
}

static int load_str(const char *s, struct rr_result *r, char *err, size_t errlen)
{
	return rr_load_buffer(s, strlen(s), "dir/synthetic.json", r, err, errlen);
}

int main(void)
{
	char dir[4096], path[8192], err[1024], r1[4096], r2[4096], r3[4096];
	struct rr_result r;
	const struct rr_figure *f;
	const char *slash = strrchr(__FILE__, '/');

	/* the corpus, next to this file */
	snprintf(dir, sizeof(dir), "%.*s/../fuzz/corpus", slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
	for (unsigned i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		int loaded;

		snprintf(path, sizeof(path), "%s/%s", dir, corpus[i].file);
		err[0] = '\0';
		loaded = fuzz_file(path, err, sizeof(err));
		if (corpus[i].why)
			CHECK(!loaded && strstr(err, corpus[i].why) && !strchr(err, '\n'),
			      "%s: want a rejection with '%s', got %s", corpus[i].file, corpus[i].why, loaded ? "loaded" : err);
		else
			CHECK(loaded, "%s: should load: %s", corpus[i].file, err);
	}
	{
		/* every corpus file is in the table */
		DIR *d = opendir(dir);
		struct dirent *e;
		unsigned n = 0;

		CHECK(d != NULL, "no corpus at %s (run from the top of the tree)", dir);
		while (d && (e = readdir(d)))
			n += e->d_name[0] != '.';
		if (d)
			closedir(d);
		CHECK(n == sizeof(corpus) / sizeof(corpus[0]), "corpus has %u files, the table %zu", n,
		      sizeof(corpus) / sizeof(corpus[0]));
	}

	/* a single run at the top level */
	run_json(r1, sizeof(r1), 100, 1000);
	snprintf(json, sizeof(json), "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"tiotest\","
		 "\"command_line\":[\"tiotest\",\"-t\",\"2\"],\"config\":{\"threads\":2,\"o_sync\":false,\"dirs\":[\"/a\",\"/b\"]},"
		 "\"environment\":{\"kernel_release\":\"6.1\",\"targets\":[{\"fstype\":\"ext4\",\"mount_options\":\"rw\"}]},"
		 "\"label\":null,%s", r1 + 1);
	CHECK(load_str(json, &r, err, sizeof(err)) == 0, "single run: %s", err);
	CHECK(r.nruns == 1 && r.ncomplete == 1 && !strcmp(r.workload, "tiotest"), "runs %u", r.nruns);
	CHECK(!strcmp(r.name, "synthetic.json") && !r.label, "name from the file: %s", r.name);
	f = rr_find(&r, "write.rate_mib_per_s");
	CHECK(f && f->v[0] == 100 && !strcmp(f->unit, "MiB/s") && f->dir == RR_HIGHER_BETTER && f->rate && f->key_fig,
	      "write rate");
	f = rr_find(&r, "write.iops");
	CHECK(f && f->v[0] == 25600 && f->rate, "iops");
	f = rr_find(&r, "write.latency_p99_ns");
	CHECK(f && f->v[0] == 1000 && f->dir == RR_LOWER_BETTER && !f->rate && !strcmp(f->unit, "ns"), "p99");
	CHECK(rr_find(&r, "total.latency_max_ns") && rr_find(&r, "write.cpu_sys_pct")->v[0] == 2, "total, cpu");
	CHECK(!strcmp(r.fig[0].key, "write.rate_mib_per_s"), "phases come first: %s", r.fig[0].key);
	CHECK(r.nlat == 1 && !strcmp(r.lat[0].name, "write") && r.lat[0].h->count == 1 && r.lat[0].h->max == 1000,
	      "latency histogram");
	CHECK(r.ntimeline == 1 && r.timeline[0].n == 2 && r.timeline[0].x[1] == 1.0 && r.timeline[0].y[0] == 2.0 &&
	      r.timeline[0].y[1] == 4.0 && r.timeline[0].x2[0] == 20, "timeline: 1 MiB in 0.5 s is 2 MiB/s");
	CHECK(r.timeline_unit && !strcmp(r.timeline_unit, "MiB/s") && r.timeline_y && r.timeline_x, "tiotest timeline unit");
	CHECK(rr_fact_find(&r, "config.threads") && !strcmp(rr_fact_find(&r, "config.threads")->value, "2"), "fact threads");
	CHECK(rr_fact_find(&r, "config.dirs") && !strcmp(rr_fact_find(&r, "config.dirs")->value, "/a /b"), "fact dirs");
	CHECK(rr_fact_find(&r, "environment.targets[0].fstype") &&
	      !strcmp(rr_fact_find(&r, "environment.targets[0].fstype")->value, "ext4"), "fact fstype");
	CHECK(rr_fact_find(&r, "command_line") && !strcmp(rr_fact_find(&r, "command_line")->value, "tiotest -t 2"),
	      "fact command line");
	rr_free(&r);

	/* three runs; a label */
	run_json(r1, sizeof(r1), 100, 1000);
	run_json(r2, sizeof(r2), 50, 2000);
	run_json(r3, sizeof(r3), 100, 3000);
	snprintf(json, sizeof(json), "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"tiotest\","
		 "\"config\":{},\"label\":\"kmemleak=on\",\"runs\":[%s,%s,%s]}", r1, r2, r3);
	CHECK(load_str(json, &r, err, sizeof(err)) == 0, "runs: %s", err);
	CHECK(r.nruns == 3 && r.ncomplete == 3 && !strcmp(r.name, "kmemleak=on") && !strcmp(r.label, "kmemleak=on"),
	      "runs %u name %s", r.nruns, r.name);
	f = rr_find(&r, "write.rate_mib_per_s");
	CHECK(f && f->v[0] == 100 && f->v[1] == 50 && f->v[2] == 100, "per-run rates");
	{
		double v[3];

		CHECK(f && rr_values(&r, f, v) == 3 && v[1] == 50, "values");
	}
	CHECK(r.lat[0].h->count == 3 && r.lat[0].h->max == 3000, "histograms merged over runs");
	CHECK(r.ntimeline == 3 && r.timeline[2].run == 2, "one series per run");
	rr_free(&r);

	/* a phase only some runs have: NaN in the others */
	snprintf(json, sizeof(json), "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"tiotest\","
		 "\"config\":{},\"runs\":[%s,{\"complete\":false,\"stop_reason\":\"SIGINT\",\"phases\":[],\"total_latency\":%s}]}",
		 r1, lat(5));
	CHECK(load_str(json, &r, err, sizeof(err)) == 0, "partial: %s", err);
	f = rr_find(&r, "write.rate_mib_per_s");
	CHECK(f && f->v[0] == 100 && isnan(f->v[1]) && r.ncomplete == 1 && r.incomplete_reason &&
	      !strcmp(r.incomplete_reason, "SIGINT"), "missing figure is NaN, the stop reason kept");
	rr_free(&r);

	/* fs_mark: the iterations' create-loop samples make one "create" series per run, in files/s,
	 * each iteration starting where the previous one's last sample ended; an iteration without
	 * samples moves the axis by its wall_ns */
	iter_json(r1, sizeof(r1), 1000, 1100000000, "[{\"t_ns\":500000000,\"dt_ns\":500000000,\"ops\":500,\"bytes\":0},"
		  "{\"t_ns\":1200000000,\"dt_ns\":700000000,\"ops\":1400,\"bytes\":0}]");
	iter_json(r2, sizeof(r2), 1000, 2000000000, NULL);
	iter_json(r3, sizeof(r3), 1000, 200000000, "[{\"t_ns\":250000000,\"dt_ns\":250000000,\"ops\":250,\"bytes\":0},"
		  "{\"t_ns\":250000000,\"dt_ns\":0,\"ops\":0,\"bytes\":0}]");
	{
		static const char fsm_tail[] = "\"end\":{\"reason\":\"done\"},\"summary\":{\"files_per_sec_sum_of_threads\":"
			"{\"average\":1000},\"files_per_sec_aggregate\":{\"average\":900}}";

		snprintf(json, sizeof(json), "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"fs_mark\","
			 "\"config\":{},\"runs\":[{\"iterations\":[%s,%s,%s],%s},{\"iterations\":[%s],%s}]}",
			 r1, r2, r3, fsm_tail, r3, fsm_tail);
		CHECK(load_str(json, &r, err, sizeof(err)) == 0, "fs_mark intervals: %s", err);
		CHECK(r.ntimeline == 2 && !strcmp(r.timeline[0].name, "create") && r.timeline[0].run == 0 &&
		      r.timeline[1].run == 1, "one create series per run: %u", r.ntimeline);
		CHECK(r.ntimeline >= 1 && r.timeline[0].n == 3, "3 points (dt 0 skipped): %u", r.timeline[0].n);
		CHECK(r.ntimeline >= 1 && r.timeline[0].n == 3 && r.timeline[0].x[0] == 0.5 && r.timeline[0].x[1] == 1.2 &&
		      fabs(r.timeline[0].x[2] - 3.45) < 1e-9, "x end to end: 1.2 s + 2 s (wall_ns) + 0.25 s: %g",
		      r.timeline[0].n == 3 ? r.timeline[0].x[2] : -1);
		CHECK(r.ntimeline >= 1 && r.timeline[0].n == 3 && fabs(r.timeline[0].y[0] - 1000) < 1e-6 &&
		      fabs(r.timeline[0].y[1] - 2000) < 1e-6 && fabs(r.timeline[0].y[2] - 1000) < 1e-6,
		      "y: files created per second");
		CHECK(r.ntimeline == 2 && r.timeline[1].n == 1 && r.timeline[1].x[0] == 0.25, "the second run starts at 0");
		CHECK(r.timeline_unit && !strcmp(r.timeline_unit, "files/s"), "fs_mark timeline unit");
		CHECK(!r.nfill || r.fill[0].n == 3, "fill unchanged");
		rr_free(&r);

		/* results without time series: no timeline */
		iter_json(r1, sizeof(r1), 1000, 1100000000, NULL);
		snprintf(json, sizeof(json), "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"fs_mark\","
			 "\"config\":{},\"iterations\":[%s],%s}", r1, fsm_tail);
		CHECK(load_str(json, &r, err, sizeof(err)) == 0 && r.ntimeline == 0 && r.nfill == 1, "no intervals: %s", err);
		rr_free(&r);
	}

	/* the real fs_mark results of both layouts: each run's latency figures and the plots'
	 * histograms come from every iteration (schema 1: merged from the iterations' buckets;
	 * schema 2: the run's buckets) */
	for (int v = 1; v <= 2; v++) {
		snprintf(path, sizeof(path), "%s/valid_fs_mark_v%d_real.json", dir, v);
		CHECK(rr_load_file(path, &r, err, sizeof(err)) == 0, "schema %d: %s", v, err);
		CHECK(r.nruns == 2 && r.ncomplete == 2, "schema %d: runs %u", v, r.nruns);
		CHECK(r.nlat >= 4 && !strcmp(r.lat[0].name, "create") && r.lat[0].h->count == 160,
		      "schema %d: 2 runs x 2 iterations x 40 creates: %llu", v,
		      r.nlat ? (unsigned long long)r.lat[0].h->count : 0);
		f = rr_find(&r, "fsync.latency_p99_ns");
		CHECK(f && f->v[0] > 0 && f->v[1] > 0, "schema %d: fsync p99 in both runs", v);
		f = rr_find(&r, "create.latency_p99_ns");
		CHECK(f && f->key_fig, "schema %d: create p99 is a key figure", v);
		CHECK(!rr_find(&r, "sync.latency_p99_ns"), "schema %d: no sync, no sync figure", v);
		CHECK(r.nfill == 2 && r.fill[0].n == 2 && r.ntimeline == 2, "schema %d: fill and timeline per run", v);
		rr_free(&r);
	}

	/* null: a figure fsbench could not compute (schema 2 writes nan/inf as null) is absent, not
	 * an error and not 0: no value in that run, no point on a curve */
	run_json(r1, sizeof(r1), 100, 1000);
	snprintf(json, sizeof(json), "{\"schema\":\"fsbench-result\",\"schema_version\":2,\"workload\":\"tiotest\","
		 "\"config\":{},\"runs\":[%s,{\"complete\":true,\"phases\":[{\"name\":\"write\",\"rate_mib_per_s\":null,"
		 "\"iops\":null,\"cpu_usr_pct\":null,\"cpu_sys_pct\":2,\"latency\":%s,\"intervals\":["
		 "{\"t_ns\":500000000,\"dt_ns\":null,\"ops\":10,\"bytes\":1048576},"
		 "{\"t_ns\":1000000000,\"dt_ns\":500000000,\"ops\":20,\"bytes\":2097152}]}],\"total_latency\":%s}]}",
		 r1, lat(7), lat(7));
	CHECK(load_str(json, &r, err, sizeof(err)) == 0, "nulls: %s", err);
	f = rr_find(&r, "write.rate_mib_per_s");
	CHECK(f && f->v[0] == 100 && isnan(f->v[1]), "a null rate is absent in that run");
	{
		double v[2];

		CHECK(f && rr_values(&r, f, v) == 1 && v[0] == 100, "absent values are not compared");
	}
	f = rr_find(&r, "write.cpu_sys_pct");
	CHECK(f && f->v[1] == 2, "the other figures stay");
	CHECK(r.ntimeline == 2 && r.timeline[1].n == 1 && r.timeline[1].x[0] == 1.0, "a sample with a null is no point");
	rr_free(&r);
	iter_json(r1, sizeof(r1), 1000, 1100000000, NULL);
	iter_json(r2, sizeof(r2), 1000, 1100000000, NULL);
	{
		char *p = strstr(r2, "\"files_per_sec_sum_of_threads\":1000");

		CHECK(p != NULL, "test bug: no rate in the iteration");
		if (p)
			memcpy(p + strlen("\"files_per_sec_sum_of_threads\":"), "null", 4);
	}
	snprintf(json, sizeof(json), "{\"schema\":\"fsbench-result\",\"schema_version\":1,\"workload\":\"fs_mark\","
		 "\"config\":{},\"iterations\":[%s,%s],\"end\":{\"reason\":\"done\"},\"summary\":{"
		 "\"files_per_sec_sum_of_threads\":{\"average\":null},\"files_per_sec_aggregate\":{\"average\":900}}}",
		 r1, r2);
	CHECK(load_str(json, &r, err, sizeof(err)) == 0, "fs_mark nulls: %s", err);
	CHECK(r.nfill == 1 && r.fill[0].n == 1, "fill: the iteration with a null rate is no point");
	CHECK(!rr_find(&r, "files_per_sec") || isnan(rr_find(&r, "files_per_sec")->v[0]), "null average: absent");
	CHECK(rr_find(&r, "files_per_sec_aggregate") && rr_find(&r, "files_per_sec_aggregate")->v[0] == 900, "aggregate");
	CHECK(r.nlat == 1 && r.lat[0].h->count == 2, "schema 1: both iterations' buckets merged");
	rr_free(&r);

	/* the size limit is stated, in MiB, before anything is read */
	CHECK(rr_load_buffer("{}", (size_t)RR_MAX_FILE_BYTES + 1, "big.json", &r, err, sizeof(err)) != 0 &&
	      strstr(err, "larger than 1024 MiB"), "size limit: %s", err);
	rr_free(&r);

	/* hostile strings come out printable */
	CHECK(!strcmp(rr_printable("a\x1b[31mb\n\xc3\xa9", err, sizeof(err)), "a?[31mb???"), "printable: %s", err);
	CHECK(!strcmp(rr_printable("abcdef", err, 4), "abc"), "printable truncates");
	return check_done("test_result_read");
}
